// SPDX-License-Identifier: MIT
// The D3D12 device's pipelines: where each kernel's bytecode comes from (a test's, the build's embedded DXBC,
// the loaded cache, or D3DCompile), the root signature derived from its reflection, and the cache data
// format that pipelineCacheData() writes and DeviceOptions::pipelineCacheData reads back.
#include "d3d12/device.hpp"
#include "d3d12/hlsl_compiler.hpp"
#include "d3d12/support.hpp"

#include <cstring>

namespace ripple::d3d12 {

void D3D12Device::setBytecodeForTesting(const std::string& kernel, std::vector<uint8_t> dxbc) {
    std::lock_guard<std::mutex> lock(mutex_);
    testBytecode_[kernel] = std::move(dxbc);
}

// Cache data: "RPLD3D12", version 1, the adapter's name, then (name, bytecode) pairs; lengths are uint32.
namespace {
constexpr char kCacheMagic[8] = {'R', 'P', 'L', 'D', '3', 'D', '1', '2'};
void put32(std::vector<uint8_t>& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void putBytes(std::vector<uint8_t>& out, const void* p, size_t n) {
    put32(out, static_cast<uint32_t>(n));
    out.insert(out.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
}
struct Reader {
    const std::vector<uint8_t>& d;
    size_t at = 0;
    bool ok = true;
    uint32_t u32() {
        if (at + 4 > d.size()) return ok = false, 0;
        uint32_t v = d[at] | (d[at + 1] << 8) | (d[at + 2] << 16) | (uint32_t(d[at + 3]) << 24);
        at += 4;
        return v;
    }
    std::vector<uint8_t> bytes() {
        uint32_t n = u32();
        if (!ok || at + n > d.size()) return ok = false, std::vector<uint8_t>{};
        std::vector<uint8_t> v(d.begin() + static_cast<long>(at), d.begin() + static_cast<long>(at + n));
        at += n;
        return v;
    }
};
} // namespace

Result<std::vector<uint8_t>> D3D12Device::pipelineCacheData() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<uint8_t> out(kCacheMagic, kCacheMagic + 8);
    put32(out, 1);
    putBytes(out, adapter_.name.data(), adapter_.name.size());
    put32(out, static_cast<uint32_t>(bytecodeCache_.size()));
    for (auto& [name, code] : bytecodeCache_) {
        putBytes(out, name.data(), name.size());
        putBytes(out, code.data(), code.size());
    }
    return out;
}

void D3D12Device::loadCache(const std::vector<uint8_t>& data) {
    if (data.empty()) return;
    Reader r{data};
    bool ok = data.size() >= 8 && std::memcmp(data.data(), kCacheMagic, 8) == 0;
    r.at = 8;
    ok = ok && r.u32() == 1;
    std::vector<uint8_t> name = ok ? r.bytes() : std::vector<uint8_t>{};
    ok = ok && r.ok && std::string(name.begin(), name.end()) == adapter_.name;
    std::map<std::string, std::vector<uint8_t>> entries;
    for (uint32_t i = 0, n = ok ? r.u32() : 0; ok && i < n; ++i) {
        std::vector<uint8_t> key = r.bytes(), code = r.bytes();
        ok = r.ok;
        if (ok) entries[std::string(key.begin(), key.end())] = std::move(code);
    }
    if (!ok) {
        log(LogLevel::Warning, "DeviceOptions::pipelineCacheData is not D3D12 bytecode for " + adapter_.name +
                                   " (another adapter, back-end, or a corrupt file): ignored");
        return;
    }
    bytecodeCache_ = std::move(entries);
}

// Where a pipeline's bytecode comes from: a test's, the build's embedded DXBC (ripple's own variants, where
// the build had an HLSL compiler), the loaded cache, or D3DCompile at run time (users' kernels; ripple's own
// only with DeviceOptions::compileHlslAtRunTime). *cacheable: whether pipelineCacheData() should keep it (all
// but the embedded bytecode, which every process has).
Result<std::vector<uint8_t>> D3D12Device::bytecode(const kernels::KernelInfo& kernel, bool* cacheable) {
    *cacheable = true;
    if (auto it = testBytecode_.find(kernel.name); it != testBytecode_.end()) return it->second;
    if (kernel.dxbc.words && useEmbedded_) {
        *cacheable = false;
        std::vector<uint32_t> words;
        if (!kernels::unpackDxbc(kernel.dxbc, words))
            return Status(StatusCode::Internal, std::string("D3D12: the bytecode built into ripple for ") +
                                                    kernel.name + " is damaged");
        std::vector<uint8_t> out(words.size() * 4);
        std::memcpy(out.data(), words.data(), out.size());
        return out;
    }
    if (auto it = bytecodeCache_.find(kernel.name); it != bytecodeCache_.end()) return it->second;
    if (!kernels::hasHlsl(kernel))
        return Status(StatusCode::Unsupported,
                      std::string("D3D12: kernel ") + kernel.name + " has no HLSL form");
    const bool own = &kernel >= kernels::kKernels && &kernel < kernels::kKernels + kernels::kKernelCount;
    if (own && !compileHlslAtRunTime_)
        return Status(StatusCode::Unsupported,
                      std::string("D3D12: this ripple was built without D3D12 bytecode for ") + kernel.name +
                          " (its build host had no HLSL compiler; docs/D3D12.md), and "
                          "DeviceOptions::compileHlslAtRunTime is off");
    std::string hlsl;
    if (!kernels::kernelHlsl(kernel, hlsl))
        return Status(StatusCode::Internal,
                      std::string("D3D12: the HLSL built into ripple for ") + kernel.name + " is damaged");
    return compileHlsl(hlsl.c_str(), kernel.name);
}

Status D3D12Device::preparePipeline(const kernels::KernelInfo& kernel) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pipelines_.count(kernel.name)) return {};
    bool cacheable = false;
    auto code = bytecode(kernel, &cacheable);
    if (!code) return code.status();
    if (cacheable) bytecodeCache_[kernel.name] = code.value(); // saved by pipelineCacheData()
    // Root signature from the reflection: root constants at b0, then one root descriptor per binding (SRV
    // tN or UAV uN of a structured buffer, set by its GPU address). Root descriptors, not a descriptor table:
    // no view to write per dispatch, no heap to fill, and Wine 8.0's vkd3d (1.6) rejects every descriptor
    // table on a Vulkan device without VK_EXT_descriptor_indexing, such as Debian 12's lavapipe
    // (docs/D3D12.md). ripple's kernels bound every access themselves; they never rely on a view's bounds.
    Pipeline p;
    // HLSL declares constant buffers in 16-byte registers, so the shader's b0 covers the push constants
    // rounded up to 16 bytes; a root signature with fewer constants than that does not match it (vkd3d's
    // SPIR-V then declares a push-constant block larger than the layout's range).
    p.pushWords = kernel.pushConstantBytes / 4;
    p.constants = (p.pushWords + 3) / 4 * 4;
    D3D12_ROOT_PARAMETER params[1 + kernels::kMaxKernelBindings]{};
    uint32_t count = 0;
    if (p.constants) {
        params[count].ParameterType = D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS;
        params[count].Constants.ShaderRegister = 0;
        params[count].Constants.RegisterSpace = 0;
        params[count].Constants.Num32BitValues = p.constants;
        params[count++].ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL;
    }
    p.firstBinding = count;
    for (uint32_t i = 0; i < kernel.bindingCount; ++i) {
        params[count].ParameterType =
            kernel.bindings[i].readOnly ? D3D12_ROOT_PARAMETER_TYPE_SRV : D3D12_ROOT_PARAMETER_TYPE_UAV;
        params[count].Descriptor.ShaderRegister = kernel.bindings[i].binding;
        params[count].Descriptor.RegisterSpace = 0;
        params[count++].ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL;
    }
    D3D12_ROOT_SIGNATURE_DESC rs{};
    rs.NumParameters = count;
    rs.pParameters = params;
    ID3DBlob* blob = nullptr;
    ID3DBlob* errors = nullptr;
    HRESULT hr = D3D12SerializeRootSignature(&rs, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, &errors);
    if (errors) errors->Release();
    if (FAILED(hr)) return failed(hr, "D3D12SerializeRootSignature");
    hr = device_->CreateRootSignature(0, blob->GetBufferPointer(), blob->GetBufferSize(),
                                      IID_ID3D12RootSignature, reinterpret_cast<void**>(&p.root));
    blob->Release();
    if (FAILED(hr)) return failed(hr, "CreateRootSignature");
    D3D12_COMPUTE_PIPELINE_STATE_DESC pso{};
    pso.pRootSignature = p.root;
    pso.CS.pShaderBytecode = code.value().data();
    pso.CS.BytecodeLength = code.value().size();
    if (FAILED(hr = device_->CreateComputePipelineState(&pso, IID_ID3D12PipelineState,
                                                        reinterpret_cast<void**>(&p.state)))) {
        release(p.root);
        return failed(hr, (std::string("CreateComputePipelineState for ") + kernel.name).c_str());
    }
    pipelines_[kernel.name] = p;
    return {};
}

const Pipeline& D3D12Device::pipeline(const kernels::KernelInfo& kernel) {
    std::lock_guard<std::mutex> lock(mutex_);
    return pipelines_.at(kernel.name);
}

} // namespace ripple::d3d12
