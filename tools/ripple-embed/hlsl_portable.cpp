// SPDX-License-Identifier: MIT
#include "hlsl_portable.hpp"

#include <cctype>
#include <cstring>
#include <map>
#include <regex>
#include <set>
#include <vector>

namespace ripple_embed {
namespace {

bool isIdentifierChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The arguments of the call whose '(' is at `open`: split at top-level commas; `close` gets the ')'.
bool callArguments(const std::string& s, size_t open, std::vector<std::string>& args, size_t& close) {
    int depth = 0;
    size_t start = open + 1;
    for (size_t i = open; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '(' || c == '[') ++depth;
        if (c == ')' || c == ']') --depth;
        if (depth == 1 && c == ',') {
            args.push_back(s.substr(start, i - start));
            start = i + 1;
        }
        if (depth == 0) {
            args.push_back(s.substr(start, i - start));
            close = i;
            return true;
        }
    }
    return false;
}

std::string trim(const std::string& s) {
    const size_t a = s.find_first_not_of(" \t\n"), b = s.find_last_not_of(" \t\n");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

std::string element(const std::string& buffer, const std::string& index, unsigned plus) {
    return buffer + "[" + index + (plus ? " + " + std::to_string(plus) + "u" : std::string()) + "]";
}

// One use `buffer.method(args)`, its arguments rewritten already.
bool rewriteUse(const std::string& buffer, const std::string& method, const std::vector<std::string>& args,
                std::string& out, std::string& error) {
    const std::string index = "((" + trim(args[0]) + ") >> 2)";
    static const char* const lanes = "xyzw";
    if (method == "Load" && args.size() == 1) {
        out = element(buffer, index, 0);
        return true;
    }
    if (method.size() == 5 && method.compare(0, 4, "Load") == 0 && method[4] >= '2' && method[4] <= '4' &&
        args.size() == 1) {
        const unsigned n = method[4] - '0';
        out = "uint" + std::to_string(n) + "(";
        for (unsigned i = 0; i < n; ++i) out += (i ? ", " : "") + element(buffer, index, i);
        out += ")";
        return true;
    }
    if (method == "Store" && args.size() == 2) {
        out = element(buffer, index, 0) + " = " + trim(args[1]);
        return true;
    }
    if (method.size() == 6 && method.compare(0, 5, "Store") == 0 && method[5] >= '2' && method[5] <= '4' &&
        args.size() == 2) {
        const unsigned n = method[5] - '0';
        out = "{ uint ripple_at = " + index + "; uint" + std::to_string(n) +
              " ripple_value = " + trim(args[1]) + ";";
        for (unsigned i = 0; i < n; ++i)
            out += " " + element(buffer, "ripple_at", i) + " = ripple_value." + lanes[i] + ";";
        out += " }";
        return true;
    }
    if (method.compare(0, 11, "Interlocked") == 0 && args.size() >= 2) {
        out = method + "(" + element(buffer, index, 0);
        for (size_t i = 1; i < args.size(); ++i) out += ", " + trim(args[i]);
        out += ")";
        return true;
    }
    error = "a byte address buffer's " + method + " with " + std::to_string(args.size()) + " arguments";
    return false;
}

// Every "buffer.Method(...)" of `in` with buffer one of `buffers`, rewritten into `out`.
bool rewriteUses(const std::string& in, const std::set<std::string>& buffers, std::string& out,
                 std::string& error) {
    out.reserve(in.size() + in.size() / 4);
    for (size_t i = 0; i < in.size();) {
        if ((i == 0 || !isIdentifierChar(in[i - 1])) && isIdentifierChar(in[i])) {
            size_t j = i;
            while (j < in.size() && isIdentifierChar(in[j])) ++j;
            const std::string name = in.substr(i, j - i);
            if (buffers.count(name) && j < in.size() && in[j] == '.') {
                size_t k = j + 1;
                while (k < in.size() && isIdentifierChar(in[k])) ++k;
                const std::string method = in.substr(j + 1, k - j - 1);
                std::vector<std::string> args;
                size_t close = 0;
                if (k >= in.size() || in[k] != '(' || !callArguments(in, k, args, close)) {
                    error = "a use of " + name + "." + method + " that is not a call";
                    return false;
                }
                // The arguments may use a buffer too (an address loaded from one).
                for (std::string& arg : args) {
                    std::string rewritten;
                    if (!rewriteUses(arg, buffers, rewritten, error)) return false;
                    arg = std::move(rewritten);
                }
                std::string replacement;
                if (!rewriteUse(name, method, args, replacement, error)) return false;
                out += replacement;
                i = close + 1;
                continue;
            }
            out += name;
            i = j;
            continue;
        }
        out += in[i++];
    }
    return true;
}

// The word before position `end` (exclusive), skipping whitespace.
std::string wordBefore(const std::string& s, size_t end) {
    while (end > 0 && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
    size_t begin = end;
    while (begin > 0 && isIdentifierChar(s[begin - 1])) --begin;
    return s.substr(begin, end - begin);
}

// Whether the block that opens at `open` ('{') is a loop's body: "for (...) {", "while (...) {" or "do {".
bool opensLoopBody(const std::string& s, size_t open) {
    size_t at = open;
    while (at > 0 && std::isspace(static_cast<unsigned char>(s[at - 1]))) --at;
    if (at > 0 && s[at - 1] == ')') {
        int depth = 0;
        for (size_t i = at; i-- > 0;) {
            if (s[i] == ')') ++depth;
            if (s[i] == '(' && --depth == 0) {
                const std::string w = wordBefore(s, i);
                return w == "for" || w == "while";
            }
        }
        return false;
    }
    return wordBefore(s, at) == "do";
}

// Drops "continue;" where it is the last statement of a loop's body (SPIRV-Cross writes "for (;;) { ...
// continue; }"): it changes nothing, and vkd3d 1.2 turns the DXBC "continue" before "endloop" into SPIR-V
// with a branch after a block's terminator, which drivers refuse (docs/D3D12.md).
void dropTrailingContinues(std::string& s) {
    static const std::string word = "continue;";
    for (size_t at = s.find(word); at != std::string::npos; at = s.find(word, at + 1)) {
        if (at > 0 && isIdentifierChar(s[at - 1])) continue;
        size_t next = at + word.size();
        while (next < s.size() && std::isspace(static_cast<unsigned char>(s[next]))) ++next;
        if (next >= s.size() || s[next] != '}') continue;
        int depth = 0; // the '{' that the '}' at `next` closes
        size_t open = std::string::npos;
        for (size_t i = at; i-- > 0;) {
            if (s[i] == '}') ++depth;
            if (s[i] == '{' && depth-- == 0) {
                open = i;
                break;
            }
        }
        if (open == std::string::npos || !opensLoopBody(s, open)) continue;
        size_t lineStart = at; // the whole line, when "continue;" stands alone on it
        while (lineStart > 0 && (s[lineStart - 1] == ' ' || s[lineStart - 1] == '\t')) --lineStart;
        size_t lineEnd = at + word.size();
        if ((lineStart == 0 || s[lineStart - 1] == '\n') && lineEnd < s.size() && s[lineEnd] == '\n') {
            s.erase(lineStart, lineEnd + 1 - lineStart);
            at = lineStart;
        } else {
            s.erase(at, word.size());
        }
        if (at > 0) --at;
    }
}

// The index expression of the '[' at `open` and the position of its ']' (brackets and parentheses balanced).
bool bracketIndex(const std::string& s, size_t open, std::string& index, size_t& close) {
    std::vector<std::string> parts;
    if (!callArguments(s, open, parts, close) || s[close] != ']' || parts.size() != 1) return false;
    index = parts[0];
    return true;
}

// Every "name[i][j]" of `in` with name one of `inner`'s (its inner size B) as "name[(i) * B + (j)]", into
// `out`; the indices themselves rewritten too. The declarations ("groupshared T name[A][B];") pass unchanged.
bool flattenUses(const std::string& in, const std::map<std::string, std::string>& inner, std::string& out,
                 std::string& error) {
    for (size_t i = 0; i < in.size();) {
        if ((i > 0 && isIdentifierChar(in[i - 1])) || !isIdentifierChar(in[i])) {
            out += in[i++];
            continue;
        }
        size_t j = i;
        while (j < in.size() && isIdentifierChar(in[j])) ++j;
        const std::string name = in.substr(i, j - i);
        const auto found = inner.find(name);
        size_t typeEnd = i, typeStart; // "groupshared T name...": the declaration
        while (typeEnd > 0 && std::isspace(static_cast<unsigned char>(in[typeEnd - 1]))) --typeEnd;
        for (typeStart = typeEnd; typeStart > 0 && isIdentifierChar(in[typeStart - 1]);) --typeStart;
        const bool declared = typeStart < typeEnd && wordBefore(in, typeStart) == "groupshared";
        if (found == inner.end() || declared) {
            out += name;
            i = j;
            continue;
        }
        std::string first, second;
        size_t close1 = 0, close2 = 0;
        if (j >= in.size() || in[j] != '[' || !bracketIndex(in, j, first, close1) ||
            close1 + 1 >= in.size() || in[close1 + 1] != '[' ||
            !bracketIndex(in, close1 + 1, second, close2)) {
            error = "a use of groupshared " + name + " that is not " + name + "[i][j]";
            return false;
        }
        std::string a, b;
        if (!flattenUses(first, inner, a, error) || !flattenUses(second, inner, b, error)) return false;
        out += name + "[(" + trim(a) + ") * " + found->second + "u + (" + trim(b) + ")]";
        i = close2 + 1;
    }
    return true;
}

// "groupshared T name[A][B];" becomes "name[A * B]", and every "name[i][j]" "name[(i) * B + (j)]":
// vkd3d-shader 2.1's compiler loads an element of a groupshared array of arrays from the wrong place (it
// stores s[0][i] at structure 0, byte 4i, and loads it from structure i: out of bounds; docs/D3D12.md).
bool flattenGroupshared(std::string& s, std::string& error) {
    static const std::regex declaration(R"(groupshared (\w+) (\w+)\[(\d+)\]\[(\d+)\];)");
    static const std::regex deeper(R"(groupshared \w+ (\w+)(\[\d+\]){3,};)");
    std::smatch m;
    if (std::regex_search(s, m, deeper)) {
        error = "groupshared " + m[1].str() + " has more than two dimensions";
        return false;
    }
    std::map<std::string, std::string> inner; // name -> B
    for (auto it = std::sregex_iterator(s.begin(), s.end(), declaration); it != std::sregex_iterator(); ++it)
        inner[(*it)[2].str()] = (*it)[4].str();
    if (inner.empty()) return true;
    std::string out;
    if (!flattenUses(s, inner, out, error)) return false;
    s.clear();
    size_t last = 0;
    for (auto it = std::sregex_iterator(out.begin(), out.end(), declaration); it != std::sregex_iterator();
         ++it) {
        const std::smatch& m = *it;
        s += out.substr(last, m.position(0) - last);
        s += "groupshared " + m[1].str() + " " + m[2].str() + "[" +
             std::to_string(std::stoull(m[3].str()) * std::stoull(m[4].str())) + "];";
        last = m.position(0) + m.length(0);
    }
    s += out.substr(last);
    return true;
}

// Stores into private arrays (a function's local arrays, its array parameters, "static" globals) of 32-bit
// integers or floats get a value of their own: "a[i] = v;" becomes "a[i] = (v) | 0u;" (int arrays: "| 0",
// which keeps the type; floats: "asfloat(asuint(v) | 0u)"), the same bits. vkd3d-shader 2.1 miscompiles such
// stores in unrolled loops: where the value stored is a variable that is written again later (an inlined
// call's result, a value set in both branches of an "if"), every element reads the variable's last value
// (docs/D3D12.md). Line by line, as SPIRV-Cross writes one statement a line.
void separateArrayStores(std::string& s) {
    static const std::regex declaration(R"(\b(uint|int|float)[234]?\s+(\w+)\s*\[\s*\d+\s*\])");
    std::map<std::string, char> kind; // name -> 'u' (uint), 'i' (int), 'f' (float), 'x' (several: left alone)
    for (auto it = std::sregex_iterator(s.begin(), s.end(), declaration); it != std::sregex_iterator();
         ++it) {
        const std::string before = wordBefore(s, static_cast<size_t>(it->position(0)));
        if (before == "groupshared" || before == "const") continue;
        const char k = (*it)[1].str()[0];
        auto [at, added] = kind.emplace((*it)[2].str(), k);
        if (!added && at->second != k) at->second = 'x';
    }
    if (kind.empty()) return;
    std::string out;
    for (size_t begin = 0; begin < s.size();) {
        size_t end = s.find('\n', begin);
        end = end == std::string::npos ? s.size() : end + 1;
        std::string line = s.substr(begin, end - begin);
        begin = end;
        const size_t nameAt = line.find_first_not_of(" \t");
        size_t open = nameAt, close = 0;
        while (open < line.size() && isIdentifierChar(line[open])) ++open;
        const auto found =
            nameAt == std::string::npos ? kind.end() : kind.find(line.substr(nameAt, open - nameAt));
        std::string index;
        if (found == kind.end() || found->second == 'x' || open >= line.size() || line[open] != '[' ||
            !bracketIndex(line, open, index, close)) {
            out += line;
            continue;
        }
        size_t eq = close + 1;
        if (eq < line.size() && line[eq] == '.')
            for (++eq; eq < line.size() && std::strchr("xyzw", line[eq]);) ++eq;
        while (eq < line.size() && line[eq] == ' ') ++eq;
        const size_t semicolon = line.rfind(';');
        if (eq + 1 >= line.size() || line[eq] != '=' || line[eq + 1] == '=' ||
            semicolon == std::string::npos || semicolon < eq || line.find(';', eq) != semicolon ||
            trim(line.substr(semicolon + 1)) != "") {
            out += line;
            continue;
        }
        const std::string value = trim(line.substr(eq + 1, semicolon - eq - 1));
        static const std::regex literal(R"([0-9][0-9.eE+-]*[uUfF]?)");
        if (std::regex_match(value, literal)) { // a constant is a value of its own
            out += line;
            continue;
        }
        out += line.substr(0, eq + 1) + " " +
               (found->second == 'f'   ? "asfloat(asuint(" + value + ") | 0u)"
                : found->second == 'i' ? "(" + value + ") | 0"
                                       : "(" + value + ") | 0u") +
               line.substr(semicolon);
    }
    s = std::move(out);
}

} // namespace

bool portableHlsl(std::string& hlsl, std::string& error) {
    // Declarations: "[globallycoherent ][RW]ByteAddressBuffer _17 : register(...)".
    static const std::regex declaration(R"((\b(RW)?ByteAddressBuffer) (\w+) : register\()");
    std::set<std::string> buffers;
    std::string declared;
    size_t last = 0;
    for (auto it = std::sregex_iterator(hlsl.begin(), hlsl.end(), declaration); it != std::sregex_iterator();
         ++it) {
        const std::smatch& m = *it;
        buffers.insert(m[3].str());
        declared += hlsl.substr(last, m.position(0) - last);
        declared += std::string(m[2].matched ? "RWStructuredBuffer<uint> " : "StructuredBuffer<uint> ") +
                    m[3].str() + " : register(";
        last = m.position(0) + m.length(0);
    }
    declared += hlsl.substr(last);
    std::string out;
    if (!rewriteUses(declared, buffers, out, error)) return false;
    // NaN tests by bits: isnan() is missing from vkd3d's compiler; ripple's floats are 32-bit here.
    static const std::regex nanCall(R"(\bisnan\()");
    out = std::regex_replace(out, nanCall, "ripple_isnan(");
    if (out.find("ripple_isnan(") != std::string::npos) {
        const std::string helpers =
            "bool ripple_isnan(float x) { return (asuint(x) & 0x7fffffffu) > 0x7f800000u; }\n"
            "bool2 ripple_isnan(float2 x) { return (asuint(x) & 0x7fffffffu) > 0x7f800000u; }\n"
            "bool3 ripple_isnan(float3 x) { return (asuint(x) & 0x7fffffffu) > 0x7f800000u; }\n"
            "bool4 ripple_isnan(float4 x) { return (asuint(x) & 0x7fffffffu) > 0x7f800000u; }\n\n";
        out = helpers + out;
    }
    if (!flattenGroupshared(out, error)) return false;
    dropTrailingContinues(out);
    separateArrayStores(out);
    hlsl = std::move(out);
    return true;
}

} // namespace ripple_embed
