// SPDX-License-Identifier: MIT
// ripple-embed: the build's kernel tables, so nothing is reflected or translated at run time.
//   ripple-embed registry LIST OUT_CPP [--hlsl [--dxbc DXBC_LIST COMPILER]]
//       LIST: "<variant> <SPIR-V as compiled> <SPIR-V to embed (debug stripped)>" per line. Writes the
//       registry (kernels/kernel_info.hpp): each variant's packed SPIR-V and reflection (bindings,
//       push-constant size, workgroup size, required device features); with --hlsl also the HLSL of the
//       D3D12 path for every portable variant; with --dxbc also its bytecode, which the build compiled
//       (DXBC_LIST: "<variant> <DXBC file>" per line; COMPILER: the HLSL compiler's name and version).
//   ripple-embed round-trip LIST OUT_CPP
//       LIST: "<variant> <SPIR-V as compiled> <SPIR-V compiled back from its HLSL, or an empty file>".
//       Writes the test-only HLSL round-trip table (kernels/round_trip.hpp), checking that each module
//       compiled back has the original's interface.
//   ripple-embed hlsl IN_SPV OUT_HLSL
//       One variant's HLSL as glslang's HLSL front end takes it (for debugging; the build runs
//       hlsl-round-trip).
//   ripple-embed d3d12-hlsl IN_SPV OUT_HLSL
//       One variant's HLSL as the D3D12 back-end compiles it, as the build's dxbc step compiles it;
//       an empty file where the variant has no D3D12 form.
//   ripple-embed glsl|hlsl-round-trip|dxbc OPTIONS...
//       One variant's build step through the kernel cache (build_steps.hpp has the options).
//   ripple-embed user LIST OUT_HPP OUT_CPP NAMESPACE [--hlsl] [--round-trip RT_LIST]
//       A user's kernels (ripple_add_kernels): LIST as for registry; writes a header declaring one
//       ripple::KernelSource (include/ripple/kernel.hpp) per variant in NAMESPACE, its name made an
//       identifier ('.' and other non-identifier characters become '_'), and the source defining them.
//       With --round-trip (ripple_add_kernels' HLSL_ROUND_TRIP), RT_LIST as for round-trip: each variant
//       with a D3D12 form also gets a KernelSource in NAMESPACE::hlsl_round_trip whose SPIR-V is its HLSL
//       compiled back, checked to have the original's interface.
// Exits non-zero, naming the variant, if any SPIR-V cannot be reflected or translated.
#include "kernels/kernel_info.hpp"
#include "kernels/spirv_interface.hpp"
#include "kernels/spirv_pack.hpp"
#include "kernels/spirv_shared.hpp"

#include "build_steps.hpp"
#include "hlsl_portable.hpp"

#include <spirv_cross/spirv_cross_c.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Variant {
    std::string name;
    std::vector<uint32_t> words;
    uint32_t localSize[3] = {1, 1, 1};
    size_t pushBytes = 0;
    std::vector<std::pair<uint32_t, bool>> bindings; // binding, read-only
    // The binding of the uniform params block (small-device variants, glsl/include/ripple/common.glsl), or
    // -1; it is also in `bindings`, read-only.
    int uniformBinding = -1;
    struct Block { // per binding, for users' kernels (kernel.hpp)
        uint32_t binding;
        bool readOnly, writeOnly;
        size_t minimumBytes; // the block's size with its runtime array empty
        std::string name;
    };
    std::vector<Block> blocks;
    uint32_t features = 0;
    std::string hlsl;               // for the D3D12 path; empty when the variant has no D3D12 form
    std::vector<uint32_t> embedded; // the words to embed (debug stripped), or the round trip's
    std::vector<uint32_t> dxbc;     // the D3D12 bytecode compiled from `hlsl` (registry --dxbc)
};

bool fail(const std::string& what) {
    std::fprintf(stderr, "ripple-embed: %s\n", what.c_str());
    return false;
}

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

// The D3D12 path runs the portable variants (no optional device feature) as HLSL shader model 5.1 with an
// explicit register layout: storage buffer binding N as tN (read-only) or uN (written) in space 0, push
// constants as root constants at b0. Returns false if SPIRV-Cross cannot translate it.
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

// A C++ string literal of `text`, in raw pieces small enough for every compiler.
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

// The packed bytes of `words` as a uint32_t array named `array` (kernels/spirv_pack.hpp), and the
// PackedSpirv initializer naming it.
std::string packedArray(const std::string& array, const std::vector<uint32_t>& words, std::string& init) {
    std::vector<uint8_t> bytes = ripple::kernels::spirv_pack::encode(words);
    std::ostringstream out;
    out << "const uint32_t " << array << "[] = {";
    for (size_t i = 0; i < bytes.size(); i += 4) {
        uint32_t w = 0;
        for (size_t b = 0; b < 4 && i + b < bytes.size(); ++b) w |= uint32_t(bytes[i + b]) << (8 * b);
        out << ((i / 4) % 10 ? "" : "\n    ") << "0x" << std::hex << w << std::dec << "u,";
    }
    out << "\n};\n";
    init = "{" + array + ", " + std::to_string(bytes.size()) + ", " + std::to_string(words.size()) + "}";
    return out.str();
}

// Reads a LIST file's lines of three fields.
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

// Whether `words`, another form of variant `v` (`how` it was made), has v's bindings, push-constant size
// and workgroup size; fails naming the variant otherwise.
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

const char* kHeader = "// Generated by ripple-embed from glsl/: do not edit.\n";

// v's DXBC from its file in `paths` (the dxbc step, build_steps.cpp): present exactly where v has HLSL, a
// DXBC container ("DXBC", its size in the header) of whole 32-bit words; variants with no D3D12 form may have
// no file listed.
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

// DXBC_LIST (--dxbc): "<variant> <its DXBC, an empty file where it has no D3D12 form>" per line, and the
// compiler's name and version. Every variant with HLSL must have its DXBC, and only those.
int registry(const std::string& listPath, const std::string& outPath, bool withHlsl,
             const std::string& dxbcList, const std::string& dxbcCompiler) {
    std::vector<std::array<std::string, 3>> lines;
    if (!readList(listPath, lines)) return 1;
    std::map<std::string, std::string> dxbcPaths;
    if (!dxbcList.empty()) {
        std::ifstream list(dxbcList);
        if (!list) return fail("cannot read " + dxbcList), 1;
        for (std::string name, path; list >> name >> path;) dxbcPaths[name] = path;
    }
    std::vector<Variant> variants;
    for (auto& [name, compiled, stripped] : lines) {
        Variant v;
        v.name = name;
        if (!readSpirv(compiled, v.words) || v.words.empty() || !reflect(v)) return 1;
        if (v.uniformBinding > 0)
            return fail(v.name + ": a uniform buffer is ripple's params block, at binding 0 only"), 1;
        // A small-device variant (a uniform params block) has no D3D12 form: every D3D12 device meets the
        // limits of the variants it replaces.
        if (withHlsl && v.features == 0 && v.uniformBinding < 0 && !translateHlsl(v)) return 1;
        if (!readSpirv(stripped, v.embedded) || v.embedded.empty()) return fail(stripped + ": empty"), 1;
        if (!sameInterface(v, v.embedded, "stripped of debug instructions")) return 1;
        // ripple's subgroup kernels rely on full subgroups (kernel_info.hpp, FeatureFullSubgroups).
        if (v.features & ripple::kernels::FeatureSubgroupBasic)
            v.features |= ripple::kernels::FeatureFullSubgroups;
        if (!dxbcList.empty() && !readDxbc(v, dxbcPaths)) return 1;
        variants.push_back(std::move(v));
    }
    std::sort(variants.begin(), variants.end(), [](auto& a, auto& b) { return a.name < b.name; });

    std::ostringstream out;
    out << kHeader << "#include \"kernels/kernel_info.hpp\"\n\nnamespace ripple::kernels {\nnamespace {\n";
    std::vector<std::string> inits(variants.size()), dxbcInits(variants.size(), "{nullptr, 0, 0}");
    for (size_t i = 0; i < variants.size(); ++i) {
        out << packedArray("kSpirv" + std::to_string(i), variants[i].embedded, inits[i]);
        if (!variants[i].dxbc.empty())
            out << packedArray("kDxbc" + std::to_string(i), variants[i].dxbc, dxbcInits[i]);
    }
    out << "} // namespace\n\nconst KernelInfo kKernels[] = {\n";
    for (size_t i = 0; i < variants.size(); ++i) {
        const Variant& v = variants[i];
        out << "    {\"" << v.name << "\", " << inits[i] << ", {" << v.localSize[0] << ", " << v.localSize[1]
            << ", " << v.localSize[2] << "}, " << v.pushBytes << ", " << v.bindings.size() << ", {";
        for (auto& b : v.bindings)
            out << "{" << b.first << ", " << (b.second ? "true" : "false") << ", "
                << (static_cast<int>(b.first) == v.uniformBinding ? "true" : "false") << "}, ";
        const uint32_t shared = ripple::kernels::workgroupBytes(v.words.data(), v.words.size());
        if (shared == UINT32_MAX) return fail(v.name + ": its workgroup variables cannot be sized"), 1;
        out << "}, " << v.features << "u, " << (v.hlsl.empty() ? "nullptr" : literal(v.hlsl)) << ", "
            << shared << "u, " << dxbcInits[i] << "},\n";
    }
    out << "};\nconst uint32_t kKernelCount = " << variants.size()
        << ";\nconst char* const kDxbcCompiler = " << literal(dxbcCompiler)
        << ";\n\n} // namespace ripple::kernels\n";
    return writeFile(outPath, out.str()) ? 0 : 1;
}

int roundTrip(const std::string& listPath, const std::string& outPath) {
    std::vector<std::array<std::string, 3>> lines;
    if (!readList(listPath, lines)) return 1;
    std::vector<Variant> variants;
    for (auto& [name, compiled, back] : lines) {
        Variant v;
        v.name = name;
        if (!readSpirv(compiled, v.words) || v.words.empty() || !reflect(v)) return 1;
        if (!readSpirv(back, v.embedded)) return 1;
        if (v.embedded.empty()) continue; // no D3D12 form
        if (!translateHlsl(v)) return 1;
        if (!sameInterface(v, v.embedded, "compiled back from HLSL")) return 1;
        variants.push_back(std::move(v));
    }
    std::sort(variants.begin(), variants.end(), [](auto& a, auto& b) { return a.name < b.name; });

    std::ostringstream out;
    out << kHeader << "#include \"kernels/round_trip.hpp\"\n\nnamespace ripple::kernels {\nnamespace {\n";
    std::vector<std::string> inits(variants.size());
    for (size_t i = 0; i < variants.size(); ++i)
        out << packedArray("kRoundTrip" + std::to_string(i), variants[i].embedded, inits[i]);
    out << "const RoundTripKernel kRoundTripKernels[] = {\n";
    for (size_t i = 0; i < variants.size(); ++i)
        out << "    {\"" << variants[i].name << "\", " << literal(variants[i].hlsl) << ", " << inits[i]
            << "},\n";
    out << "};\n} // namespace\n\nextern const RoundTripTable kHlslRoundTripTable;\n"
        << "const RoundTripTable kHlslRoundTripTable = {kRoundTripKernels, " << variants.size()
        << "};\n\n} // namespace ripple::kernels\n";
    return writeFile(outPath, out.str()) ? 0 : 1;
}

// A C++ identifier for a variant name: other characters become '_', a leading digit gets one before it.
std::string identifier(const std::string& name) {
    std::string id;
    for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
    if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "_" + id;
    return id;
}

// One `const ripple::KernelSource` definition for variant v with SPIR-V `packed` (packedArray's init).
std::string userSource(const Variant& v, const std::string& packed, const std::string& hlsl) {
    std::ostringstream cpp;
    cpp << "extern const ripple::KernelSource " << identifier(v.name) << ";\n"
        << "const ripple::KernelSource " << identifier(v.name) << " = {\n    \"" << v.name << "\", "
        << packed.substr(1, packed.size() - 2) << ", {" << v.localSize[0] << ", " << v.localSize[1] << ", "
        << v.localSize[2] << "}, " << v.pushBytes << ", " << v.blocks.size() << ", {";
    for (const Variant::Block& b : v.blocks)
        cpp << "{" << b.binding << ", ripple::BindingAccess::"
            << (b.readOnly    ? "Read"
                : b.writeOnly ? "Write"
                              : "ReadWrite")
            << ", " << b.minimumBytes << ", \"" << b.name << "\"}, ";
    cpp << "}, " << v.features << "u, " << (hlsl.empty() ? "nullptr" : literal(hlsl)) << "};\n";
    return cpp.str();
}

int user(const std::string& listPath, const std::string& hppPath, const std::string& cppPath,
         const std::string& ns, bool withHlsl, const std::string& roundTripList) {
    std::vector<std::array<std::string, 3>> lines, roundTripLines;
    if (!readList(listPath, lines)) return 1;
    if (!roundTripList.empty() && !readList(roundTripList, roundTripLines)) return 1;
    std::vector<Variant> variants;
    std::vector<std::vector<uint32_t>> roundTrips; // per variant; empty: none
    for (auto& [name, compiled, stripped] : lines) {
        Variant v;
        v.name = name;
        if (!readSpirv(compiled, v.words) || v.words.empty() || !reflect(v)) return 1;
        if (v.uniformBinding >= 0)
            return fail(v.name +
                        ": uniform buffers are not supported in users' kernels; use storage buffers"),
                   1;
        if ((withHlsl || !roundTripList.empty()) && v.features == 0 && !translateHlsl(v)) return 1;
        if (!readSpirv(stripped, v.embedded) || v.embedded.empty()) return fail(stripped + ": empty"), 1;
        if (!sameInterface(v, v.embedded, "stripped of debug instructions")) return 1;
        std::vector<uint32_t> back;
        for (auto& [rtName, rtCompiled, rtPath] : roundTripLines)
            if (rtName == name && !readSpirv(rtPath, back)) return 1;
        if (!back.empty() && !sameInterface(v, back, "compiled back from HLSL")) return 1;
        variants.push_back(std::move(v));
        roundTrips.push_back(std::move(back));
    }
    std::vector<size_t> order(variants.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return variants[a].name < variants[b].name; });
    std::vector<Variant> sorted;
    std::vector<std::vector<uint32_t>> sortedTrips;
    for (size_t i : order) {
        sorted.push_back(std::move(variants[i]));
        sortedTrips.push_back(std::move(roundTrips[i]));
    }
    variants = std::move(sorted);
    roundTrips = std::move(sortedTrips);
    std::sort(variants.begin(), variants.end(), [](auto& a, auto& b) { return a.name < b.name; });
    for (size_t i = 1; i < variants.size(); ++i)
        if (identifier(variants[i].name) == identifier(variants[i - 1].name))
            return fail(variants[i - 1].name + " and " + variants[i].name + " make the same identifier"), 1;

    const std::string head = "// Generated by ripple-embed (ripple_add_kernels): do not edit.\n";
    std::ostringstream hpp, cpp;
    hpp << head << "#pragma once\n\n#include <ripple/kernel.hpp>\n\nnamespace " << ns << " {\n";
    for (const Variant& v : variants)
        hpp << "extern const ripple::KernelSource " << identifier(v.name) << ";\n";
    hpp << "} // namespace " << ns << "\n";
    cpp << head << "#include <ripple/kernel.hpp>\n\nnamespace " << ns << " {\nnamespace {\n";
    std::vector<std::string> inits(variants.size());
    for (size_t i = 0; i < variants.size(); ++i)
        cpp << packedArray("kSpirv" + std::to_string(i), variants[i].embedded, inits[i]);
    for (size_t i = 0; i < variants.size(); ++i)
        if (!roundTrips[i].empty())
            cpp << packedArray("kRoundTrip" + std::to_string(i), roundTrips[i], inits.emplace_back());
    cpp << "} // namespace\n\n";
    for (size_t i = 0; i < variants.size(); ++i)
        cpp << userSource(variants[i], inits[i], withHlsl ? variants[i].hlsl : std::string());
    cpp << "} // namespace " << ns << "\n";
    if (!roundTripList.empty()) {
        // The round trip's KernelSources carry the HLSL they were compiled from.
        hpp << "namespace " << ns << "::hlsl_round_trip {\n";
        cpp << "namespace " << ns << "::hlsl_round_trip {\n";
        size_t next = variants.size();
        for (size_t i = 0; i < variants.size(); ++i) {
            if (roundTrips[i].empty()) continue;
            hpp << "extern const ripple::KernelSource " << identifier(variants[i].name) << ";\n";
            cpp << userSource(variants[i], inits[next++], variants[i].hlsl);
        }
        hpp << "} // namespace " << ns << "::hlsl_round_trip\n";
        cpp << "} // namespace " << ns << "::hlsl_round_trip\n";
    }
    return writeFile(hppPath, hpp.str()) && writeFile(cppPath, cpp.str()) ? 0 : 1;
}

} // namespace

// One variant's HLSL as glslang's HLSL front end needs it to compile it back to SPIR-V for Vulkan (push
// constants marked [[vk::push_constant]]); an empty file when the variant has no D3D12 form.
// With roundTrip false: the HLSL exactly as the D3D12 path compiles it (b0 root constants), for the build's
// DXBC step (build_steps.cpp).
int hlslForRoundTrip(const std::string& in, const std::string& out, bool roundTrip) {
    Variant v;
    v.name = in;
    if (!readSpirv(in, v.words) || v.words.empty() || !reflect(v)) return 1;
    // As the registry: only portable variants, never a small-device one (its uniform params block).
    if (v.features == 0 && v.uniformBinding < 0 && !translateHlsl(v)) return 1;
    if (!roundTrip) return writeFile(out, v.hlsl) ? 0 : 1;
    const std::string rootConstants = "cbuffer SPIRV_CROSS_RootConstant_pc : register(b0, space0)";
    if (size_t at = v.hlsl.find(rootConstants); at != std::string::npos)
        v.hlsl.replace(at, rootConstants.size(), "[[vk::push_constant]] cbuffer SPIRV_CROSS_RootConstant_pc");
    return writeFile(out, v.hlsl) ? 0 : 1;
}

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() >= 3 && args[0] == "registry") {
        bool hlsl = false, good = true;
        std::string dxbcList, dxbcCompiler;
        for (size_t i = 3; i < args.size() && good; ++i) {
            if (args[i] == "--hlsl")
                hlsl = true;
            else if (args[i] == "--dxbc" && i + 2 < args.size())
                dxbcList = args[i + 1], dxbcCompiler = args[i + 2], i += 2;
            else
                good = false;
        }
        if (good && (dxbcList.empty() || hlsl))
            return registry(args[1], args[2], hlsl, dxbcList, dxbcCompiler);
    }
    if (args.size() == 3 && args[0] == "round-trip") return roundTrip(args[1], args[2]);
    const std::vector<std::string> stepArgs(args.begin() + (args.empty() ? 0 : 1), args.end());
    if (!args.empty() && args[0] == "glsl") return ripple_embed::glslStep(stepArgs);
    if (!args.empty() && args[0] == "hlsl-round-trip") return ripple_embed::hlslRoundTripStep(stepArgs);
    if (!args.empty() && args[0] == "dxbc") return ripple_embed::dxbcStep(stepArgs);
    if (args.size() == 3 && args[0] == "hlsl") return hlslForRoundTrip(args[1], args[2], true);
    if (args.size() == 3 && args[0] == "d3d12-hlsl") return hlslForRoundTrip(args[1], args[2], false);
    if (args.size() >= 5 && args[0] == "user") {
        bool hlsl = false;
        std::string roundTripList;
        size_t i = 5;
        for (; i < args.size(); ++i) {
            if (args[i] == "--hlsl")
                hlsl = true;
            else if (args[i] == "--round-trip" && i + 1 < args.size())
                roundTripList = args[++i];
            else
                break;
        }
        if (i == args.size()) return user(args[1], args[2], args[3], args[4], hlsl, roundTripList);
    }
    std::fprintf(
        stderr,
        "usage: ripple-embed registry LIST OUT_CPP [--hlsl [--dxbc DXBC_LIST COMPILER]] | ripple-embed "
        "round-trip LIST "
        "OUT_CPP | ripple-embed hlsl|d3d12-hlsl IN_SPV OUT_HLSL | ripple-embed user LIST OUT_HPP OUT_CPP "
        "NAMESPACE [--hlsl] | ripple-embed glsl|hlsl-round-trip|dxbc OPTIONS (build_steps.hpp)\n");
    return 2;
}
