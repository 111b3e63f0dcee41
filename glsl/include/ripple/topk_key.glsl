// The order key of a TopK input element (needs DTYPE_xx and a uint[] buffer named inputWords).
#define ORDER_KEY_DEFINED
// Unsigned key whose integer order is the promised value order: floats by sign flip, -0.0 folded onto
// +0.0, every NaN above +inf; signed integers by flipping the sign bit. Returns (most, least significant).
uvec2 orderKey(uint offset) {
#if defined(DTYPE_f32)
    uint b = LOAD_B32(inputWords, offset).x;
    if ((b & 0x7FFFFFFFu) > 0x7F800000u) return uvec2(0xFFFFFFFFu, 0u);
    if (b == 0x80000000u) b = 0u;
    return uvec2((b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u), 0u);
#elif defined(DTYPE_f16)
    uint b = LOAD_B16(inputWords, offset).x;
    if ((b & 0x7FFFu) > 0x7C00u) return uvec2(0xFFFFu, 0u);
    if (b == 0x8000u) b = 0u;
    return uvec2((b & 0x8000u) != 0u ? (~b & 0xFFFFu) : (b | 0x8000u), 0u);
#elif defined(DTYPE_i32)
    return uvec2(LOAD_B32(inputWords, offset).x ^ 0x80000000u, 0u);
#elif defined(DTYPE_u32)
    return uvec2(LOAD_B32(inputWords, offset).x, 0u);
#elif defined(DTYPE_i16)
    return uvec2(LOAD_B16(inputWords, offset).x ^ 0x8000u, 0u);
#elif defined(DTYPE_u16)
    return uvec2(LOAD_B16(inputWords, offset).x, 0u);
#elif defined(DTYPE_i8)
    return uvec2(LOAD_B8(inputWords, offset).x ^ 0x80u, 0u);
#elif defined(DTYPE_u8)
    return uvec2(LOAD_B8(inputWords, offset).x, 0u);
#elif defined(DTYPE_i64)
    uvec2 v = LOAD_B64(inputWords, offset);
    return uvec2(v.y ^ 0x80000000u, v.x);
#elif defined(DTYPE_u64)
    uvec2 v = LOAD_B64(inputWords, offset);
    return uvec2(v.y, v.x);
#endif
}

