// SPDX-License-Identifier: MIT
// FLOAT16 and BFLOAT16 bits of a float, for the benchmarks' random inputs (normal draws: no NaN, nothing near
// FLOAT16's overflow).
#pragma once

#include <cstdint>
#include <cstring>

// FLOAT16 bits of f, rounded to nearest even; values below FLOAT16's normal range flush to a signed zero
// (never among the top K of normal draws).
inline uint16_t toHalf(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    const uint32_t sign = (b >> 16) & 0x8000u;
    const int32_t exponent = static_cast<int32_t>((b >> 23) & 0xFF) - 127 + 15;
    if (exponent <= 0) return static_cast<uint16_t>(sign);
    uint32_t h = sign | (static_cast<uint32_t>(exponent) << 10) | ((b & 0x7FFFFFu) >> 13);
    const uint32_t rest = b & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(h);
}

// BFLOAT16 bits of f (FLOAT32's top half), rounded to nearest even.
inline uint16_t toBFloat16(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return static_cast<uint16_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}
