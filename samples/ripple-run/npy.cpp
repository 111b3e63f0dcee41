// SPDX-License-Identifier: MIT
#include "npy.hpp"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#endif

namespace npy {

// A path given as UTF-8 (ripple-run's arguments are UTF-8 on every system: main() converts Windows' UTF-16
// command line), as the file system's own: on Windows the wide path that _wfopen and MoveFileExW take, so
// that names outside the ANSI code page open.
std::filesystem::path fsPath(const std::string& utf8) {
#if defined(_WIN32)
    return std::filesystem::u8path(utf8);
#else
    return std::filesystem::path(utf8);
#endif
}

uint64_t Array::count() const {
    uint64_t n = 1;
    for (uint32_t d : shape) n = d != 0 && n > UINT64_MAX / d ? UINT64_MAX : n * d; // saturates
    return n;
}

const char* descr(ripple::DataType type) {
    using ripple::DataType;
    switch (type) {
    case DataType::Float32:
        return "<f4";
    case DataType::Float16:
        return "<f2";
    case DataType::UInt32:
        return "<u4";
    case DataType::UInt16:
        return "<u2";
    case DataType::UInt8:
        return "|u1";
    case DataType::Int32:
        return "<i4";
    case DataType::Int16:
        return "<i2";
    case DataType::Int8:
        return "|i1";
    case DataType::Float64:
        return "<f8";
    case DataType::UInt64:
        return "<u8";
    case DataType::Int64:
        return "<i8";
    case DataType::BFloat16: // NumPy has no bfloat16 type: such tensors are not read or written as .npy
        return "";
    }
    return "";
}

// Text from a file or the command line as it may appear in a one-line message: control characters (a
// newline, an escape sequence) as \xNN.
std::string printable(const std::string& text) {
    std::string out;
    for (unsigned char c : text) {
        if (c < 0x20 || c == 0x7F) {
            static const char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

namespace {

bool parseDescr(std::string d, ripple::DataType& type) {
    using ripple::DataType;
    if (d.size() == 3 && (d[0] == '=' || d[0] == '|')) d[0] = '<'; // native/no byte order on little-endian
    static const std::pair<const char*, DataType> table[] = {
        {"<f4", DataType::Float32}, {"<f2", DataType::Float16}, {"<u4", DataType::UInt32},
        {"<u2", DataType::UInt16},  {"<u1", DataType::UInt8},   {"<i4", DataType::Int32},
        {"<i2", DataType::Int16},   {"<i1", DataType::Int8},    {"<f8", DataType::Float64},
        {"<u8", DataType::UInt64},  {"<i8", DataType::Int64}};
    for (auto& [name, t] : table)
        if (d == name) return type = t, true;
    return false;
}

// numpy's header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// padded with spaces and ended by '\n' (numpy.lib.format). This parser accepts exactly that grammar: the
// three keys once each, a quoted descr, True or False, a tuple of non-negative integers below 2^32.
struct Header {
    std::string descr;
    bool fortranOrder = false;
    std::vector<uint32_t> shape;
};

class HeaderParser {
  public:
    explicit HeaderParser(const std::string& text) : t_(text) {}

    bool parse(Header& h, std::string& error) {
        bool haveDescr = false, haveOrder = false, haveShape = false;
        skip();
        if (!eat('{')) return error = "the header is not a dict", false;
        for (;;) {
            skip();
            if (eat('}')) break;
            std::string key;
            if (!quoted(key)) return error = "a header key is not a quoted string", false;
            skip();
            if (!eat(':')) return error = "no ':' after header key '" + printable(key) + "'", false;
            skip();
            bool* seen = key == "descr"           ? &haveDescr
                         : key == "fortran_order" ? &haveOrder
                         : key == "shape"         ? &haveShape
                                                  : nullptr;
            if (!seen) return error = "unknown header key '" + printable(key) + "'", false;
            if (*seen) return error = "header key '" + printable(key) + "' appears twice", false;
            *seen = true;
            if (key == "descr" && !quoted(h.descr)) return error = "descr is not a quoted string", false;
            if (key == "fortran_order" && !boolean(h.fortranOrder))
                return error = "fortran_order is not True or False", false;
            if (key == "shape" && !tuple(h.shape, error)) return false;
            skip();
            if (eat(',')) continue;
            skip();
            if (eat('}')) break;
            return error = "expected ',' or '}' after header key '" + printable(key) + "'", false;
        }
        while (i_ < t_.size() && t_[i_] == ' ') ++i_;
        if (i_ + 1 != t_.size() || t_[i_] != '\n')
            return error = "the header does not end with spaces and a newline after its dict", false;
        if (!haveDescr || !haveOrder || !haveShape)
            return error = "the header lacks one of 'descr', 'fortran_order', 'shape'", false;
        return true;
    }

  private:
    void skip() {
        while (i_ < t_.size() && t_[i_] == ' ') ++i_;
    }
    bool eat(char c) { return i_ < t_.size() && t_[i_] == c ? (++i_, true) : false; }
    bool quoted(std::string& out) {
        if (i_ >= t_.size() || (t_[i_] != '\'' && t_[i_] != '"')) return false;
        const char q = t_[i_++];
        const size_t end = t_.find(q, i_);
        if (end == std::string::npos || end - i_ > 64) return false;
        out = t_.substr(i_, end - i_);
        i_ = end + 1;
        return true;
    }
    bool boolean(bool& out) {
        if (t_.compare(i_, 4, "True") == 0) return i_ += 4, out = true, true;
        if (t_.compare(i_, 5, "False") == 0) return i_ += 5, out = false, true;
        return false;
    }
    bool tuple(std::vector<uint32_t>& shape, std::string& error) {
        shape.clear();
        if (!eat('(')) return error = "shape is not a tuple", false;
        for (;;) {
            skip();
            if (eat(')')) break;
            if (i_ >= t_.size() || !std::isdigit(static_cast<unsigned char>(t_[i_])))
                return error = "a shape dimension is not a non-negative integer", false;
            uint64_t v = 0;
            for (; i_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[i_])); ++i_) {
                v = v * 10 + static_cast<uint64_t>(t_[i_] - '0');
                if (v > UINT32_MAX) return error = "a shape dimension exceeds 2^32-1", false;
            }
            eat('L'); // Python 2's long literal, as old numpy wrote it
            if (shape.size() == 32) return error = "shape has more than 32 dimensions", false;
            shape.push_back(static_cast<uint32_t>(v));
            skip();
            if (eat(',')) continue;
            skip();
            if (eat(')')) {
                if (shape.size() == 1) return error = "a 1-dimensional shape needs a trailing comma", false;
                break;
            }
            return error = "expected ',' or ')' in shape", false;
        }
        return true;
    }
    const std::string& t_;
    size_t i_ = 0;
};

} // namespace

bool load(const std::string& path, Array& out, std::string& error) {
    std::ifstream f(fsPath(path), std::ios::binary);
    if (!f) return error = "cannot open " + printable(path), false;
    return read(f, path, out, error);
}

bool read(std::istream& f, const std::string& name, Array& out, std::string& error) {
    const std::string path = printable(name);
    f.seekg(0, std::ios::end);
    const std::streamoff fileSize = f.tellg();
    f.seekg(0, std::ios::beg);
    if (fileSize < 0) return error = "cannot read " + path, false;
    unsigned char prefix[12] = {};
    if (fileSize < 10 || !f.read(reinterpret_cast<char*>(prefix), 10) ||
        std::memcmp(prefix, "\x93NUMPY", 6) != 0)
        return error = path + " is not a .npy file (no \\x93NUMPY magic)", false;
    const unsigned major = prefix[6], minor = prefix[7];
    if (major < 1 || major > 3 || minor != 0)
        return error = path + ": .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                       " is not 1.0, 2.0 or 3.0",
               false;
    uint64_t headerLen = prefix[8] | (prefix[9] << 8);
    uint64_t dataStart = 10;
    if (major >= 2) {
        if (fileSize < 12 || !f.read(reinterpret_cast<char*>(prefix + 10), 2))
            return error = path + ": truncated header", false;
        headerLen |= (uint64_t(prefix[10]) << 16) | (uint64_t(prefix[11]) << 24);
        dataStart = 12;
    }
    constexpr uint64_t kMaxHeader = 65536; // numpy writes under 4 KiB; reads at most 10000 bytes by default
    if (headerLen > kMaxHeader)
        return error = path + ": header length " + std::to_string(headerLen) + " exceeds " +
                       std::to_string(kMaxHeader) + " bytes",
               false;
    dataStart += headerLen;
    if (dataStart > static_cast<uint64_t>(fileSize))
        return error =
                   path + ": header length " + std::to_string(headerLen) + " runs past the end of the file",
               false;
    std::string text(static_cast<size_t>(headerLen), '\0');
    if (headerLen && !f.read(text.data(), static_cast<std::streamsize>(headerLen)))
        return error = path + ": truncated header", false;
    Header h;
    if (!HeaderParser(text).parse(h, error)) return error = path + ": " + error, false;
    if (!parseDescr(h.descr, out.type))
        return error = path + ": dtype " + printable(h.descr) +
                       " is not one of ripple's data types (little-endian float16/32/64, "
                       "int8/16/32/64, uint8/16/32/64)",
               false;
    if (h.fortranOrder)
        return error = path + ": Fortran-ordered arrays are not supported; save a C-ordered copy", false;
    out.shape = h.shape;
    const uint64_t count = out.count(), size = ripple::elementSize(out.type);
    if (count != 0 && count > UINT64_MAX / size)
        return error = path + ": the shape's element count overflows 64 bits", false;
    const uint64_t bytes = count * size, available = static_cast<uint64_t>(fileSize) - dataStart;
    if (bytes != available) // checked before anything is allocated
        return error = path + ": the shape needs " + std::to_string(bytes) + " bytes of data; the file has " +
                       std::to_string(available),
               false;
    out.data.resize(static_cast<size_t>(bytes));
    if (bytes && !f.read(reinterpret_cast<char*>(out.data.data()), static_cast<std::streamsize>(bytes)))
        return error = path + ": cannot read its data", false;
    return true;
}

bool writableOutput(const std::string& path, std::string& error) {
    std::error_code ec;
    const std::filesystem::file_status st = std::filesystem::symlink_status(fsPath(path), ec);
    if (ec && st.type() != std::filesystem::file_type::not_found)
        return error = printable(path) + ": cannot examine it (" + ec.message() + ")", false;
    if (st.type() == std::filesystem::file_type::not_found) { // then its folder must exist, to be written
        std::filesystem::path folder = fsPath(path).parent_path();
        if (folder.empty()) folder = ".";
        if (!std::filesystem::is_directory(folder, ec))
            return error = printable(path) + ": its folder does not exist", false;
        return true;
    }
    if (st.type() == std::filesystem::file_type::regular) return true;
    return error = printable(path) +
                   " exists and is not a regular file; outputs are written only to regular files",
           false;
}

bool save(const std::string& path, const Array& array, std::string& error) {
    std::string shape = "(";
    for (size_t i = 0; i < array.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(array.shape[i]);
    shape += array.shape.size() == 1 ? ",)" : ")"; // "(4,)", "(2, 3)", "()"
    std::string header = std::string("{'descr': '") + descr(array.type) +
                         "', 'fortran_order': False, 'shape': " + shape + ", }";
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    const std::filesystem::path target = fsPath(path), tmp = fsPath(path + ".partial");
    std::error_code ec;
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        uint16_t len = static_cast<uint16_t>(header.size());
        char lenBytes[2] = {static_cast<char>(len & 0xFF), static_cast<char>(len >> 8)};
        f.write("\x93NUMPY\x01\x00", 8);
        f.write(lenBytes, 2);
        f.write(header.data(), static_cast<std::streamsize>(header.size()));
        f.write(reinterpret_cast<const char*>(array.data.data()),
                static_cast<std::streamsize>(array.data.size()));
        f.flush();
        if (!f) {
            f.close();
            std::filesystem::remove(tmp, ec);
            return error = "cannot write " + printable(path), false;
        }
    }
#if defined(_WIN32)
    const bool moved =
        MoveFileExW(tmp.c_str(), target.c_str(), MOVEFILE_REPLACE_EXISTING) != 0; // rename won't replace
#else
    const bool moved = std::rename(tmp.c_str(), target.c_str()) == 0;
#endif
    if (!moved) {
        std::filesystem::remove(tmp, ec);
        return error = "cannot write " + printable(path), false;
    }
    return true;
}

} // namespace npy
