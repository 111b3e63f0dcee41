// SPDX-License-Identifier: MIT
// The order key of a TopK input element (needs DTYPE_xx, or ELEM_bxx and KEY_RUNTIME, and a uint[] buffer
// named inputWords).
#define ORDER_KEY_DEFINED
#if defined(KEY_RUNTIME)
// One variant a width (ELEM_b8, b16, b32) for every type of that width: KEY_RUNTIME is the params word
// (e.g. P(33u)) that holds the mapping (core/topk.cpp's keyKind): 0 unsigned, 1 signed, else a float whose
// +infinity is that word (0x7F800000 FLOAT32, 0x7C00 FLOAT16, 0x7F80 BFLOAT16). topk_chunk maps each element
// once, as it is loaded; its nine types' variants each cost lavapipe's LLVM 2-5 s, which a cold CI run pays
// once per configuration (docs/TESTING.md, issue 56); topk_select_final's fast variants too (15-20 s each).
// The kernels that stay one variant a type lost on the H200 with it: topk_row 7% at (4096,4096) K=256,
// topk_select_sample 1-2 us, topk_select_final's portable form 1 us at (1,16777216) K=1024 (bench/NOTES.md).
// keyKindSetup() reads the word once into a register, so that the masks below are loop-invariant (a params
// word in shared memory is read again after every barrier); the mapping is branch-free, so that unrolled call
// sites add no blocks.
uint gKeyKind;
void keyKindSetup() { gKeyKind = KEY_RUNTIME; }
uvec2 loadElement(uint offset) { return LOAD_ELEM(inputWords, offset); }
uvec2 orderKeyOf(uvec2 v) {
    const uint top = 1u << (ELEM_BITS - 1), mask = 0xFFFFFFFFu >> (32 - ELEM_BITS), b = v.x, kind = gKeyKind;
    const uint isFloat = 0u - uint(kind > 1u), isSigned = 0u - uint(kind == 1u);
    const uint inf = (kind & isFloat) | (mask & ~isFloat);  // above every magnitude but for floats
    const uint negXor = (mask & isFloat) | (top & isSigned), posXor = top & (isFloat | isSigned);
    const uint negative = 0u - (b >> (ELEM_BITS - 1));      // b holds ELEM_BITS bits
    uint key = b ^ ((negative & negXor) | (~negative & posXor));
    const uint nan = 0u - uint((b & ~top) > inf);
    const uint negZero = (0u - uint(b == top)) & isFloat;  // -0.0 folded onto +0.0 (key `top`)
    key = (key & ~nan) | (mask & nan);
    return uvec2((key & ~negZero) | (top & negZero), 0u);
}
#else
// The element's bits (DTYPE_xx's width) at `offset`, as uvec2(low, high word).
uvec2 loadElement(uint offset) {
#if defined(DTYPE_f32) || defined(DTYPE_i32) || defined(DTYPE_u32)
    return LOAD_B32(inputWords, offset);
#elif defined(DTYPE_f16) || defined(DTYPE_bf16) || defined(DTYPE_i16) || defined(DTYPE_u16)
    return LOAD_B16(inputWords, offset);
#elif defined(DTYPE_i8) || defined(DTYPE_u8)
    return LOAD_B8(inputWords, offset);
#else
    return LOAD_B64(inputWords, offset);
#endif
}

// The order key of element bits v (loadElement's form): an unsigned key whose integer order is the
// promised value order: floats by sign flip, -0.0 folded onto +0.0, every NaN above +inf; signed integers
// by flipping the sign bit. Returns (most, least significant word).
uvec2 orderKeyOf(uvec2 v) {
#if defined(DTYPE_f32)
    uint b = v.x;
    if ((b & 0x7FFFFFFFu) > 0x7F800000u) return uvec2(0xFFFFFFFFu, 0u);
    if (b == 0x80000000u) b = 0u;
    return uvec2((b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u), 0u);
#elif defined(DTYPE_f16)
    uint b = v.x;
    if ((b & 0x7FFFu) > 0x7C00u) return uvec2(0xFFFFu, 0u);
    if (b == 0x8000u) b = 0u;
    return uvec2((b & 0x8000u) != 0u ? (~b & 0xFFFFu) : (b | 0x8000u), 0u);
#elif defined(DTYPE_bf16)  // FLOAT32's top half: the same rules, 8 exponent bits, 7 mantissa bits
    uint b = v.x;
    if ((b & 0x7FFFu) > 0x7F80u) return uvec2(0xFFFFu, 0u);
    if (b == 0x8000u) b = 0u;
    return uvec2((b & 0x8000u) != 0u ? (~b & 0xFFFFu) : (b | 0x8000u), 0u);
#elif defined(DTYPE_i32)
    return uvec2(v.x ^ 0x80000000u, 0u);
#elif defined(DTYPE_u32)
    return uvec2(v.x, 0u);
#elif defined(DTYPE_i16)
    return uvec2(v.x ^ 0x8000u, 0u);
#elif defined(DTYPE_u16)
    return uvec2(v.x, 0u);
#elif defined(DTYPE_i8)
    return uvec2(v.x ^ 0x80u, 0u);
#elif defined(DTYPE_u8)
    return uvec2(v.x, 0u);
#elif defined(DTYPE_i64)
    return uvec2(v.y ^ 0x80000000u, v.x);
#elif defined(DTYPE_u64)
    return uvec2(v.y, v.x);
#endif
}

#endif  // KEY_RUNTIME

uvec2 orderKey(uint offset) { return orderKeyOf(loadElement(offset)); }
