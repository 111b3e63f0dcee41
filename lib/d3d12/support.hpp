// SPDX-License-Identifier: MIT
// What every file of the D3D12 back-end uses: HRESULTs and injected faults as a Status, a buffer's resource
// description, and releasing a COM pointer.
#pragma once

#include "d3d12/d3d12_api.hpp"
#include "ripple/status.hpp"

#include <cstdio>
#include <string>

namespace ripple::d3d12 {

// An injected fault (BackendDevice::injectFault) as the Status the device would report for it. (Unlike the
// Vulkan back-end's, an injected loss does not wait for the GPU to go idle: the D3D12 tests inject none.)
inline Status injected(StatusCode code, const char* what) {
    return Status(code, std::string("D3D12: ") + what +
                            (code == StatusCode::DeviceLost ? " failed: the device was removed (injected)"
                                                            : " failed: out of memory (injected)"));
}

inline Status failed(HRESULT hr, const char* what) {
    char code[16];
    std::snprintf(code, sizeof code, "0x%08x", static_cast<unsigned>(hr));
    StatusCode c = hr == E_OUTOFMEMORY ? StatusCode::OutOfMemory : StatusCode::Internal;
    return Status(c, std::string("D3D12: ") + what + " failed (HRESULT " + code + ")");
}

// A buffer resource of `size` bytes.
inline D3D12_RESOURCE_DESC bufferDesc(uint64_t size, D3D12_RESOURCE_FLAGS flags) {
    D3D12_RESOURCE_DESC desc{};
    desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    desc.Width = size;
    desc.Height = 1;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    desc.Format = DXGI_FORMAT_UNKNOWN;
    desc.SampleDesc.Count = 1;
    desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
    desc.Flags = flags;
    return desc;
}

template <class T> void release(T*& p) {
    if (p) p->Release();
    p = nullptr;
}

} // namespace ripple::d3d12
