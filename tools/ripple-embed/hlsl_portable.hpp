// SPDX-License-Identifier: MIT
// The D3D12 back-end's HLSL in the form every HLSL compiler takes (issue 42): SPIRV-Cross writes storage
// buffers as (RW)ByteAddressBuffer with Load/Store/Interlocked* methods, which vkd3d-shader's compiler does
// not have. The same kernels as StructuredBuffer<uint> and RWStructuredBuffer<uint> (one uint per element, so
// a byte address a is element a >> 2), with atomics in their function form and NaN tests by bits, compile
// with fxc, dxc, glslang and vkd3d alike. docs/D3D12.md lists each difference.
#pragma once

#include <string>

namespace ripple_embed {

// Rewrites SPIRV-Cross's HLSL in place. Returns false, with `error` naming what it met, for a use of a byte
// address buffer it does not know how to rewrite (a new SPIRV-Cross, say): never HLSL half rewritten.
bool portableHlsl(std::string& hlsl, std::string& error);

} // namespace ripple_embed
