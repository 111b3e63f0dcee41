// SPDX-License-Identifier: MIT
// Run-time HLSL compilation for the D3D12 back-end (users' kernels, and ripple's own only with
// DeviceOptions::compileHlslAtRunTime): D3DCompile on Windows, vkd3d-shader's on Linux, with its messages.
#include "d3d12/hlsl_compiler.hpp"

#include "d3d12/d3d12_api.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#if !RIPPLE_D3D12_WINDOWS
#include <dlfcn.h>
#endif

namespace ripple::d3d12 {

namespace {
// A compiler's refusal of `name`: its messages, or that it gave none, and the HLSL's first lines, so that the
// Status shows which source a compiler (Wine's d3dcompiler_47 says nothing) turned down.
Status rejected(const char* compiler, const char* name, std::string messages, const char* hlsl) {
    while (!messages.empty() && (messages.back() == '\n' || messages.back() == '\r')) messages.pop_back();
    std::string text = std::string("D3D12: ") + compiler + " rejected the kernel " + name + ": " +
                       (messages.empty() ? "(the compiler gave no message)" : messages.substr(0, 2000));
    text += "; its HLSL begins:";
    const char* p = hlsl;
    for (int line = 0; line < 4 && *p; ++line) {
        const char* end = std::strchr(p, '\n');
        const size_t n = end ? static_cast<size_t>(end - p) : std::strlen(p);
        text += "\n    " + std::string(p, n < 200 ? n : 200);
        p += n + (end ? 1 : 0);
    }
    return Status(StatusCode::Internal, text);
}
} // namespace

#if RIPPLE_D3D12_WINDOWS

Result<std::vector<uint8_t>> compileHlsl(const char* hlsl, const char* name) {
    ID3DBlob* blob = nullptr;
    ID3DBlob* errors = nullptr;
    HRESULT hr = D3DCompile(hlsl, std::strlen(hlsl), name, nullptr, nullptr, "main", "cs_5_1",
                            D3DCOMPILE_OPTIMIZATION_LEVEL3, 0, &blob, &errors);
    if (FAILED(hr)) {
        std::string why = errors ? std::string(static_cast<const char*>(errors->GetBufferPointer()),
                                               errors->GetBufferSize())
                                 : std::string();
        if (errors) errors->Release();
        while (!why.empty() && why.back() == '\0') why.pop_back();
        char code[16];
        std::snprintf(code, sizeof code, "0x%08lx", static_cast<unsigned long>(hr));
        return rejected((std::string("D3DCompile (HRESULT ") + code + ")").c_str(), name, why, hlsl);
    }
    if (errors) errors->Release();
    auto* p = static_cast<const uint8_t*>(blob->GetBufferPointer());
    std::vector<uint8_t> out(p, p + blob->GetBufferSize());
    blob->Release();
    return out;
}

#else

namespace {

// tools/vkd3d/hlsl_glue.c's two functions: the only interface between ripple and vkd3d-shader, so that ripple
// includes no vkd3d-shader header and links nothing of it.
using CompileFn = int (*)(const char* source, size_t length, const char* name, const char* entry,
                          const char* profile, void** code, size_t* size, char** messages);
using FreeFn = void (*)(void* code, char* messages);

struct Glue {
    CompileFn compile = nullptr;
    FreeFn release = nullptr;
    std::string error; // why there is none
};

const Glue& glue() {
    static const Glue g = [] {
        Glue out;
        const char* path = std::getenv("RIPPLE_D3D12_HLSL_COMPILER");
        if (!path || !*path) {
            out.error = "no HLSL compiler here (on Linux, set RIPPLE_D3D12_HLSL_COMPILER to the library "
                        "tools/vkd3d-tool.sh builds; on Windows d3dcompiler_47 compiles it)";
            return out;
        }
        // Never closed: kernels may be compiled until the process ends. RTLD_DEEPBIND: the glue's calls go to
        // the vkd3d-shader it was linked with, not to the older one vkd3d's runtime has already loaded, whose
        // functions have the same names.
        void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
        if (!lib) {
            const char* why = dlerror();
            out.error =
                std::string("RIPPLE_D3D12_HLSL_COMPILER (") + path + ") did not load: " + (why ? why : "");
            return out;
        }
        out.compile = reinterpret_cast<CompileFn>(dlsym(lib, "ripple_hlsl_to_dxbc"));
        out.release = reinterpret_cast<FreeFn>(dlsym(lib, "ripple_hlsl_free"));
        if (!out.compile || !out.release) {
            out.compile = nullptr;
            out.error = std::string("RIPPLE_D3D12_HLSL_COMPILER (") + path +
                        ") lacks ripple_hlsl_to_dxbc or ripple_hlsl_free";
        }
        return out;
    }();
    return g;
}

} // namespace

Result<std::vector<uint8_t>> compileHlsl(const char* hlsl, const char* name) {
    const Glue& g = glue();
    if (!g.compile)
        return Status(StatusCode::Unsupported, std::string("D3D12: ") + g.error + ", for " + name);
    void* code = nullptr;
    size_t size = 0;
    char* messages = nullptr;
    const int result = g.compile(hlsl, std::strlen(hlsl), name, "main", "cs_5_1", &code, &size, &messages);
    std::vector<uint8_t> out;
    if (result == 0 && code)
        out.assign(static_cast<const uint8_t*>(code), static_cast<const uint8_t*>(code) + size);
    std::string why = messages ? messages : "";
    g.release(code, messages);
    if (result != 0 || out.empty())
        return rejected(("vkd3d-shader (" + std::to_string(result) + ")").c_str(), name, why, hlsl);
    return out;
}

#endif

} // namespace ripple::d3d12
