// SPDX-License-Identifier: MIT
// Reading one kernel variant (variant.hpp): SPIR-V reflection through the interface reader and SPIRV-Cross,
// the D3D12 path's HLSL, the bytecode files, and the helpers that write generated C++.
#include "variant.hpp"

#include "kernels/spirv_interface.hpp"
#include "kernels/spirv_pack.hpp"
#include "kernels/spirv_shared.hpp"
#include "kernels/variant_delta.hpp"

#include "hlsl_portable.hpp"

#include <spirv_cross/spirv_cross_c.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ripple_embed {

bool fail(const std::string& what) {
    std::fprintf(stderr, "ripple-embed: %s\n", what.c_str());
    return false;
}

namespace {

// The float widths of a module's SignedZeroInfNanPreserve execution modes, an operand SPIRV-Cross does not
// reflect.
std::vector<uint32_t> nanPreserveWidths(const std::vector<uint32_t>& words) {
    std::vector<uint32_t> widths;
    for (size_t i = 5; i < words.size();) { // after the header: instructions, (word count << 16) | opcode
        const uint32_t count = words[i] >> 16, op = words[i] & 0xFFFFu;
        if (count == 0 || count > words.size() - i) break;
        if (op == SpvOpExecutionMode && count >= 4 &&
            words[i + 2] == SpvExecutionModeSignedZeroInfNanPreserve)
            widths.push_back(words[i + 3]);
        i += count;
    }
    return widths;
}

} // namespace

bool reflect(Variant& v) {
    spvc_context ctx = nullptr;
    if (spvc_context_create(&ctx) != SPVC_SUCCESS) return fail("cannot create a SPIRV-Cross context");
    bool ok = false;
    do {
        spvc_parsed_ir ir = nullptr;
        spvc_compiler comp = nullptr;
        if (spvc_context_parse_spirv(ctx, v.words.data(), v.words.size(), &ir) != SPVC_SUCCESS ||
            spvc_context_create_compiler(ctx, SPVC_BACKEND_NONE, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP,
                                         &comp) != SPVC_SUCCESS) {
            fail(v.name + ": " + spvc_context_get_last_error_string(ctx));
            break;
        }
        for (unsigned i = 0; i < 3; ++i)
            v.localSize[i] =
                spvc_compiler_get_execution_mode_argument_by_index(comp, SpvExecutionModeLocalSize, i);

        spvc_resources res = nullptr;
        spvc_compiler_create_shader_resources(comp, &res);
        const spvc_reflected_resource* list = nullptr;
        size_t count = 0;
        spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_STORAGE_BUFFER, &list, &count);
        bool bad = false;
        for (size_t i = 0; i < count; ++i) {
            if (spvc_compiler_get_decoration(comp, list[i].id, SpvDecorationDescriptorSet) != 0) {
                bad = !fail(v.name + ": storage buffers must be in descriptor set 0");
            }
            const SpvDecoration* decos = nullptr;
            size_t ndecos = 0;
            spvc_compiler_get_buffer_block_decorations(comp, list[i].id, &decos, &ndecos);
            bool readOnly = std::find(decos, decos + ndecos, SpvDecorationNonWritable) != decos + ndecos;
            const bool writeOnly =
                std::find(decos, decos + ndecos, SpvDecorationNonReadable) != decos + ndecos;
            const uint32_t binding = spvc_compiler_get_decoration(comp, list[i].id, SpvDecorationBinding);
            v.bindings.emplace_back(binding, readOnly);
            size_t bytes = 0;
            spvc_compiler_get_declared_struct_size(
                comp, spvc_compiler_get_type_handle(comp, list[i].base_type_id), &bytes);
            const char* name = spvc_compiler_get_name(comp, list[i].id);
            v.blocks.push_back({binding, readOnly, writeOnly, bytes, name && *name ? name : list[i].name});
        }
        std::sort(v.blocks.begin(), v.blocks.end(), [](auto& a, auto& b) { return a.binding < b.binding; });
        for (size_t i = 1;
             i < v.blocks.size();) { // aliased views of one binding: one access, the largest size
            if (v.blocks[i].binding != v.blocks[i - 1].binding) {
                ++i;
                continue;
            }
            Variant::Block& a = v.blocks[i - 1];
            a.readOnly = a.readOnly && v.blocks[i].readOnly;
            a.writeOnly = a.writeOnly && v.blocks[i].writeOnly;
            a.minimumBytes = std::max(a.minimumBytes, v.blocks[i].minimumBytes);
            v.blocks.erase(v.blocks.begin() + static_cast<std::ptrdiff_t>(i));
        }
        std::sort(v.bindings.begin(), v.bindings.end());
        // Blocks aliasing one binding (a float view of a word buffer, for float atomics) are one binding,
        // read-only only if every view is.
        for (size_t i = 1; i < v.bindings.size();) {
            if (v.bindings[i].first != v.bindings[i - 1].first) {
                ++i;
                continue;
            }
            v.bindings[i - 1].second = v.bindings[i - 1].second && v.bindings[i].second;
            v.bindings.erase(v.bindings.begin() + static_cast<std::ptrdiff_t>(i));
        }
        if (v.bindings.size() > ripple::kernels::kMaxKernelBindings)
            bad = !fail(v.name + ": too many bindings");
        spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_UNIFORM_BUFFER, &list, &count);
        for (size_t i = 0; i < count; ++i) { // registry() accepts only ripple's own params block
            const uint32_t binding = spvc_compiler_get_decoration(comp, list[i].id, SpvDecorationBinding);
            if (count > 1 || spvc_compiler_get_decoration(comp, list[i].id, SpvDecorationDescriptorSet) != 0)
                bad = !fail(v.name + ": at most one uniform buffer, in descriptor set 0");
            v.uniformBinding = static_cast<int>(binding);
        }
        if (v.uniformBinding >= 0) {
            for (auto& b : v.bindings)
                if (b.first == static_cast<uint32_t>(v.uniformBinding))
                    bad = !fail(v.name + ": the uniform buffer's binding is also a storage buffer's");
            v.bindings.emplace_back(static_cast<uint32_t>(v.uniformBinding), true);
            std::sort(v.bindings.begin(), v.bindings.end());
            if (v.bindings.size() > ripple::kernels::kMaxKernelBindings)
                bad = !fail(v.name + ": too many bindings");
        }
        spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, &list, &count);
        if (count == 1) {
            spvc_type type = spvc_compiler_get_type_handle(comp, list[0].base_type_id);
            spvc_compiler_get_declared_struct_size(comp, type, &v.pushBytes);
        }

        const SpvCapability* caps = nullptr;
        size_t ncaps = 0;
        spvc_compiler_get_declared_capabilities(comp, &caps, &ncaps);
        using namespace ripple::kernels;
        for (size_t i = 0; i < ncaps; ++i) {
            v.features |= capabilityFeature(caps[i]); // the mapping Device::compile checks users' kernels by
            if (caps[i] == SpvCapabilitySignedZeroInfNanPreserve)
                for (uint32_t width : nanPreserveWidths(v.words))
                    if (width != 32)
                        bad =
                            !fail(v.name + ": SignedZeroInfNanPreserve is supported for 32-bit floats only");
        }
        ok = !bad;
    } while (false);
    spvc_context_destroy(ctx);
    return ok;
}

bool translateHlsl(Variant& v) {
    spvc_context ctx = nullptr;
    if (spvc_context_create(&ctx) != SPVC_SUCCESS) return fail("cannot create a SPIRV-Cross context");
    bool ok = false;
    do {
        spvc_parsed_ir ir = nullptr;
        spvc_compiler comp = nullptr;
        spvc_compiler_options options = nullptr;
        const char* source = nullptr;
        if (spvc_context_parse_spirv(ctx, v.words.data(), v.words.size(), &ir) != SPVC_SUCCESS ||
            spvc_context_create_compiler(ctx, SPVC_BACKEND_HLSL, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP,
                                         &comp) != SPVC_SUCCESS ||
            spvc_compiler_create_compiler_options(comp, &options) != SPVC_SUCCESS) {
            fail(v.name + ": " + spvc_context_get_last_error_string(ctx));
            break;
        }
        spvc_compiler_options_set_uint(options, SPVC_COMPILER_OPTION_HLSL_SHADER_MODEL, 51);
        spvc_compiler_install_compiler_options(comp, options);
        if (v.pushBytes) {
            spvc_hlsl_root_constants rc{0, static_cast<unsigned>(v.pushBytes), 0, 0};
            spvc_compiler_hlsl_set_root_constants_layout(comp, &rc, 1);
        }
        for (auto& [binding, readOnly] : v.bindings) {
            spvc_hlsl_resource_binding b;
            spvc_hlsl_resource_binding_init(&b);
            b.stage = SpvExecutionModelGLCompute;
            b.desc_set = 0;
            b.binding = binding;
            b.srv = {0, binding};
            b.uav = {0, binding};
            spvc_compiler_hlsl_add_resource_binding(comp, &b);
        }
        if (spvc_compiler_compile(comp, &source) != SPVC_SUCCESS) {
            fail(v.name + ": HLSL translation failed: " + spvc_context_get_last_error_string(ctx));
            break;
        }
        v.hlsl = source;
        std::string why;
        if (!ripple_embed::portableHlsl(v.hlsl, why)) { // every HLSL compiler's form (issue 42)
            fail(v.name + ": " + why);
            break;
        }
        ok = true;
    } while (false);
    spvc_context_destroy(ctx);
    return ok;
}

std::string literal(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); i += 8000)
        out += "R\"ripple(" + text.substr(i, 8000) + ")ripple\"\n        ";
    return out.empty() ? "\"\"" : out;
}

bool readSpirv(const std::string& path, std::vector<uint32_t>& words) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return fail("cannot read " + path);
    std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (bytes.size() % 4) return fail(path + ": not a SPIR-V module");
    words.resize(bytes.size() / 4);
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(words.data()));
    return true;
}

namespace {
void bytesArray(std::ostream& out, const std::string& array, const std::vector<uint8_t>& bytes) {
    const std::vector<uint32_t> words = ripple::kernels::spirv_pack::toWords(bytes);
    out << "const uint32_t " << array << "[] = {";
    for (size_t i = 0; i < words.size(); ++i)
        out << (i % 10 ? "" : "\n    ") << "0x" << std::hex << words[i] << std::dec << "u,";
    out << "\n};\n";
}
} // namespace

bool packedArray(std::ostream& out, const std::string& array, const std::vector<uint32_t>& words,
                 std::string& init, bool dxbc) {
    namespace pack = ripple::kernels::spirv_pack;
    std::vector<uint8_t> bytes;
    if (dxbc)
        bytes = pack::encode(words);
    else if (!pack::encodeSpirv(words, bytes))
        return fail(array + ": not a SPIR-V module whose instructions tile its words; cannot pack it");
    bytesArray(out, array, bytes);
    init = "{" + array + ", " + std::to_string(bytes.size()) + ", " + std::to_string(words.size()) + "}";
    return true;
}

namespace {
// The tokens that rebuild `bytes` as copies from `base` (kernels/variant_delta.hpp), written as `array`
// once a decode has checked that they rebuild it. False, naming both arrays, where they do not.
bool copiesArray(std::ostream& out, const std::string& array, const std::vector<uint8_t>& base,
                 const std::vector<uint8_t>& bytes, const std::string& baseArray, size_t& tokenBytes) {
    namespace pack = ripple::kernels::spirv_pack;
    const std::vector<uint8_t> tokens = ripple::kernels::variant_delta::encode(base, bytes);
    std::vector<uint32_t> rebuilt;
    const std::vector<uint32_t> baseWords = pack::toWords(base), tokenWords = pack::toWords(tokens);
    if (!ripple::kernels::variant_delta::decode(baseWords.data(), uint32_t(base.size()), tokenWords.data(),
                                                uint32_t(tokens.size()), uint32_t(bytes.size()), rebuilt) ||
        rebuilt != pack::toWords(bytes))
        return fail(array + ": its copies from " + baseArray + " do not rebuild it");
    bytesArray(out, array, tokens);
    tokenBytes = tokens.size();
    return true;
}
} // namespace

bool deltaArray(std::ostream& out, const std::string& array, const std::vector<uint32_t>& words,
                const std::string& baseArray, const std::vector<uint32_t>& baseWords, std::string& init,
                bool dxbc) {
    namespace pack = ripple::kernels::spirv_pack;
    std::vector<uint8_t> base, bytes;
    if (dxbc) {
        base = pack::encode(baseWords);
        bytes = pack::encode(words);
    } else if (!pack::encodeSpirv(baseWords, base) || !pack::encodeSpirv(words, bytes)) {
        return fail(array + ": not a SPIR-V module whose instructions tile its words; cannot pack it");
    }
    size_t tokens = 0;
    if (!copiesArray(out, array, base, bytes, baseArray, tokens)) return false;
    init = "{" + array + ", " + std::to_string(tokens) + ", " + std::to_string(words.size()) + ", " +
           baseArray + ", " + std::to_string(base.size()) + ", " + std::to_string(bytes.size()) + "}";
    return true;
}

bool textArray(std::ostream& out, const std::string& array, const std::string& text,
               const std::string& baseArray, const std::string* baseText, std::string& init) {
    const std::vector<uint8_t> bytes(text.begin(), text.end());
    if (!baseText) {
        bytesArray(out, array, bytes);
        init = "{" + array + ", " + std::to_string(bytes.size()) + ", " + std::to_string(bytes.size()) + "}";
        return true;
    }
    const std::vector<uint8_t> base(baseText->begin(), baseText->end());
    size_t tokens = 0;
    if (!copiesArray(out, array, base, bytes, baseArray, tokens)) return false;
    init = "{" + array + ", " + std::to_string(tokens) + ", " + std::to_string(bytes.size()) + ", " +
           baseArray + ", " + std::to_string(base.size()) + "}";
    return true;
}

bool readList(const std::string& path, std::vector<std::array<std::string, 3>>& lines) {
    std::ifstream list(path);
    if (!list) return fail("cannot read " + path);
    std::array<std::string, 3> l;
    while (list >> l[0] >> l[1] >> l[2]) lines.push_back(l);
    return true;
}

bool writeFile(const std::string& path, const std::string& text) {
    std::ofstream o(path, std::ios::binary | std::ios::trunc);
    o << text;
    return o.good() || fail("cannot write " + path);
}

bool sameInterface(const Variant& v, const std::vector<uint32_t>& words, const std::string& how) {
    Variant other;
    other.name = v.name + " (" + how + ")";
    other.words = words;
    if (!reflect(other)) return false;
    if (other.bindings == v.bindings && other.uniformBinding == v.uniformBinding &&
        other.pushBytes == v.pushBytes && std::equal(other.localSize, other.localSize + 3, v.localSize))
        return true;
    return fail(v.name + ": " + how +
                ", its bindings, push constants or workgroup size differ from the GLSL's");
}

bool readDxbc(Variant& v, const std::map<std::string, std::string>& paths) {
    auto it = paths.find(v.name);
    if (it == paths.end()) // the small-device variants: no D3D12 form, no file
        return v.hlsl.empty() || fail(v.name + ": its HLSL has no DXBC file listed");
    std::ifstream f(it->second, std::ios::binary);
    if (!f) return fail("cannot read " + it->second);
    std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (bytes.empty() != v.hlsl.empty())
        return fail(v.name + (v.hlsl.empty() ? ": DXBC for a variant with no D3D12 form"
                                             : ": its HLSL has no DXBC (" + it->second + " is empty)"));
    if (bytes.empty()) return true;
    uint32_t declared = 0;
    if (bytes.size() >= 32) std::memcpy(&declared, bytes.data() + 24, 4);
    if (bytes.size() % 4 || std::memcmp(bytes.data(), "DXBC", 4) != 0 || declared != bytes.size())
        return fail(it->second + ": not a DXBC container of whole words");
    v.dxbc.resize(bytes.size() / 4);
    std::memcpy(v.dxbc.data(), bytes.data(), bytes.size());
    return true;
}

bool readDxbcList(const std::string& path, std::map<std::string, std::string>& paths) {
    std::ifstream list(path);
    if (!list) return fail("cannot read " + path);
    for (std::string name, file; list >> name >> file;) paths[name] = file;
    return true;
}

} // namespace ripple_embed
