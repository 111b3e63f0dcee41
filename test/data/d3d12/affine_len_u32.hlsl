// SPDX-License-Identifier: MIT
// Source of affine_len_u32_cs50.dxbc (test/d3d12/test_d3d12.cpp): dst[i] = src[i] * 2 + 1 for i < 1000, with
// no root constants. (Once the count came from the view's size; vkd3d-shader 2.1 has no GetDimensions on
// structured buffers.) Rebuilt as affine_u32.hlsl says.
StructuredBuffer<uint> src : register(t0);
RWStructuredBuffer<uint> dst : register(u1);

[numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {
    if (id.x < 1000) dst[id.x] = src[id.x] * 2 + 1;
}
