// SPDX-License-Identifier: MIT
// Source of affine_u32_cs50.dxbc (test/d3d12/test_d3d12.cpp): dst[i] = src[i] * mul + add for i < n, in the
// portable HLSL's form (structured views of 4-byte elements, root constants at b0). Rebuilt with
// tools/vkd3d-tool.sh's compiler: build-tools/vkd3d/bin/vkd3d-compiler -x hlsl -b dxbc-tpf -p cs_5_0 \
//   -o affine_u32_cs50.dxbc affine_u32.hlsl
StructuredBuffer<uint> src : register(t0);
RWStructuredBuffer<uint> dst : register(u1);
cbuffer Push : register(b0) {
    uint n;
    uint mul;
    uint add;
};

[numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {
    if (id.x < n) dst[id.x] = src[id.x] * mul + add;
}
