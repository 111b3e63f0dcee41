// SPDX-License-Identifier: MIT
// ripple-embed LIST_FILE OUT_CPP
// LIST_FILE has one "<variant name> <path to .spv>" per line. Writes OUT_CPP: the SPIR-V words of every
// variant and its reflection (bindings, push-constant size, workgroup size, required device features), so
// nothing is reflected at run time. Exits non-zero, naming the variant, if any SPIR-V cannot be reflected.
#include "kernels/kernel_info.hpp"

#include <spirv_cross/spirv_cross_c.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
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
    uint32_t features = 0;
    std::string hlsl;                // for the D3D12 path; empty when the variant has no D3D12 form
    std::vector<uint32_t> roundTrip; // SPIR-V compiled back from `hlsl` by glslang, or empty
};

bool fail(const std::string& what) {
    std::fprintf(stderr, "ripple-embed: %s\n", what.c_str());
    return false;
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
            v.bindings.emplace_back(spvc_compiler_get_decoration(comp, list[i].id, SpvDecorationBinding),
                                    readOnly);
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
        if (count) bad = !fail(v.name + ": uniform buffers are not supported; use storage buffers");
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
            switch (caps[i]) {
            case SpvCapabilityInt64:
                v.features |= FeatureInt64;
                break;
            case SpvCapabilityInt16:
                v.features |= FeatureInt16;
                break;
            case SpvCapabilityInt8:
                v.features |= FeatureInt8;
                break;
            case SpvCapabilityFloat16:
                v.features |= FeatureFloat16;
                break;
            case SpvCapabilityFloat64:
                v.features |= FeatureFloat64;
                break;
            case SpvCapabilityStorageBuffer8BitAccess:
                v.features |= FeatureStorage8;
                break;
            case SpvCapabilityStorageBuffer16BitAccess:
                v.features |= FeatureStorage16;
                break;
            case SpvCapabilityInt64Atomics:
                v.features |= FeatureInt64Atomics;
                break;
            case SpvCapabilityAtomicFloat32AddEXT:
                v.features |= FeatureFloat32AtomicAdd;
                break;
            case SpvCapabilityGroupNonUniform:
            case SpvCapabilityGroupNonUniformBallot:
            case SpvCapabilityGroupNonUniformArithmetic:
            case SpvCapabilityGroupNonUniformShuffle:
                v.features |= FeatureSubgroupBasic;
                break;
            default:
                break;
            }
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

} // namespace

bool readSpirv(const std::string& path, std::vector<uint32_t>& words) {
    std::ifstream f(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (bytes.size() % 4) return fail(path + ": not a SPIR-V module");
    words.resize(bytes.size() / 4);
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(words.data()));
    return true;
}

// ripple-embed --hlsl IN_SPV OUT_HLSL: the HLSL of one variant, as glslang's HLSL front end needs it to
// compile it back to SPIR-V for Vulkan (push constants marked [[vk::push_constant]]); an empty file when
// the variant has no D3D12 form. The round trip tests the HLSL's semantics on Vulkan.
int hlslForRoundTrip(const std::string& in, const std::string& out) {
    Variant v;
    v.name = in;
    if (!readSpirv(in, v.words) || v.words.empty() || !reflect(v)) return 1;
    if (v.features == 0 && !translateHlsl(v)) return 1;
    const std::string rootConstants = "cbuffer SPIRV_CROSS_RootConstant_pc : register(b0, space0)";
    if (size_t at = v.hlsl.find(rootConstants); at != std::string::npos)
        v.hlsl.replace(at, rootConstants.size(), "[[vk::push_constant]] cbuffer SPIRV_CROSS_RootConstant_pc");
    std::ofstream o(out, std::ios::binary | std::ios::trunc);
    o << v.hlsl;
    return o.good() ? 0 : (fail("cannot write " + out), 1);
}

int main(int argc, char** argv) {
    if (argc == 4 && std::string(argv[1]) == "--hlsl") return hlslForRoundTrip(argv[2], argv[3]);
    if (argc != 3) {
        std::fprintf(stderr, "usage: ripple-embed LIST_FILE OUT_CPP | ripple-embed --hlsl IN_SPV OUT_HLSL\n");
        return 2;
    }
    std::ifstream list(argv[1]);
    std::vector<Variant> variants;
    std::string name, path, roundTripPath;
    while (list >> name >> path >> roundTripPath) {
        std::ifstream f(path, std::ios::binary);
        std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        if (!f.good() && !f.eof()) return fail("cannot read " + path), 1;
        if (bytes.empty() || bytes.size() % 4) return fail(path + ": not a SPIR-V module"), 1;
        Variant v;
        v.name = name;
        v.words.resize(bytes.size() / 4);
        std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(v.words.data()));
        if (!reflect(v)) return 1;
        if (v.features == 0 && !translateHlsl(v)) return 1;
        // The same kernel compiled back from its HLSL must have the same interface.
        if (!readSpirv(roundTripPath, v.roundTrip)) return 1;
        if (!v.roundTrip.empty()) {
            Variant rt;
            rt.name = v.name + " (from HLSL)";
            rt.words = v.roundTrip;
            if (!reflect(rt)) return 1;
            if (rt.bindings != v.bindings || rt.pushBytes != v.pushBytes ||
                !std::equal(rt.localSize, rt.localSize + 3, v.localSize))
                return fail(v.name +
                            ": compiled back from HLSL, its bindings, push constants or workgroup size "
                            "differ from the GLSL's"),
                       1;
        }
        variants.push_back(std::move(v));
    }
    std::sort(variants.begin(), variants.end(), [](auto& a, auto& b) { return a.name < b.name; });

    std::ostringstream out;
    out << "// Generated by ripple-embed from glsl/: do not edit.\n#include \"kernels/kernel_info.hpp\"\n\n"
           "#include <algorithm>\n#include <cstring>\n\nnamespace ripple::kernels {\nnamespace {\n";
    for (size_t i = 0; i < variants.size(); ++i) {
        if (!variants[i].roundTrip.empty()) {
            out << "const uint32_t kRoundTrip" << i << "[] = {";
            for (size_t w = 0; w < variants[i].roundTrip.size(); ++w)
                out << (w % 12 ? "" : "\n    ") << variants[i].roundTrip[w] << "u,";
            out << "\n};\n";
        }
        out << "const uint32_t kSpirv" << i << "[] = {";
        for (size_t w = 0; w < variants[i].words.size(); ++w)
            out << (w % 12 ? "" : "\n    ") << variants[i].words[w] << "u,";
        out << "\n};\n";
    }
    out << "} // namespace\n\nconst KernelInfo kKernels[] = {\n";
    for (size_t i = 0; i < variants.size(); ++i) {
        const Variant& v = variants[i];
        out << "    {\"" << v.name << "\", kSpirv" << i << ", " << v.words.size() << ", {" << v.localSize[0]
            << ", " << v.localSize[1] << ", " << v.localSize[2] << "}, " << v.pushBytes << ", "
            << v.bindings.size() << ", {";
        for (auto& b : v.bindings) out << "{" << b.first << ", " << (b.second ? "true" : "false") << "}, ";
        out << "}, " << v.features << "u, " << (v.hlsl.empty() ? "nullptr" : literal(v.hlsl)) << ", ";
        if (v.roundTrip.empty())
            out << "nullptr, 0},\n";
        else
            out << "kRoundTrip" << i << ", " << v.roundTrip.size() << "},\n";
    }
    out << "};\nconst uint32_t kKernelCount = " << variants.size() << ";\n\n"
        << "const KernelInfo* findKernel(std::string_view name) {\n"
           "    auto end = kKernels + kKernelCount;\n"
           "    auto it = std::lower_bound(kKernels, end, name,\n"
           "                               [](const KernelInfo& k, std::string_view n) { return k.name < n; "
           "});\n"
           "    return it != end && it->name == name ? it : nullptr;\n}\n\n} // namespace ripple::kernels\n";
    std::ofstream o(argv[2]);
    o << out.str();
    return o.good() ? 0 : (fail(std::string("cannot write ") + argv[2]), 1);
}
