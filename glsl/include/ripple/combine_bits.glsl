// SPDX-License-Identifier: MIT
// The combination of an element with an update for the scatter reductions (SEMANTICS.md; ONNX ScatterND-18 /
// ScatterElements-18 `reduction`), as a pure function of their bits (DTYPE_xx; 64-bit types need
// shaderInt64, FLOAT64 also shaderFloat64). Integers wrap. FLOAT16 and BFLOAT16 are computed in FLOAT32 (a
// product is exact there; a sum rounds to the same 16-bit value as the exact sum would) and rounded to
// nearest even. Float MAX / MIN: a NaN operand gives that NaN, and +0.0 counts above -0.0, so the result is
// one of the operands whatever the order.
#if defined(DTYPE_f64) || defined(DTYPE_i64) || defined(DTYPE_u64)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif
#define REDUCE_ADD 1u
#define REDUCE_MUL 2u
#define REDUCE_MAX 3u
#define REDUCE_MIN 4u

// MAX / MIN of two floats (as above): true when b is the result.
#define TAKES_OTHER(T)                                                                                 \
    bool T##TakesOther(T a, T b, bool negativeA, bool negativeB, uint op) {                           \
        if (isnan(a)) return false;                                                                    \
        if (isnan(b)) return true;                                                                     \
        if (a == b) return op == REDUCE_MAX ? negativeA && !negativeB : !negativeA && negativeB;       \
        return op == REDUCE_MAX ? b > a : b < a;                                                       \
    }
#if defined(DTYPE_f32) || defined(DTYPE_f16) || defined(DTYPE_bf16)
TAKES_OTHER(float)
#elif defined(DTYPE_f64)
TAKES_OTHER(double)
#endif

#if defined(DTYPE_f16)
float halfToFloat(uint h) {  // exact, subnormals included
    const uint sign = (h & 0x8000u) << 16u, e = (h >> 10u) & 0x1Fu, m = h & 0x3FFu;
    if (e == 31u) return uintBitsToFloat(sign | 0x7F800000u | (m << 13u));
    if (e == 0u) return uintBitsToFloat(sign | floatBitsToUint(float(m) * uintBitsToFloat(0x33800000u)));
    return uintBitsToFloat(sign | ((e + 112u) << 23u) | (m << 13u));
}
uint floatToHalf(float f) {  // rounded to nearest even in integer arithmetic (no driver rounding mode)
    const uint x = floatBitsToUint(f), sign = (x >> 16u) & 0x8000u, ax = x & 0x7FFFFFFFu;
    if (ax > 0x7F800000u) return sign | 0x7E00u | ((ax >> 13u) & 0x3FFu);  // NaN stays NaN
    if (ax >= 0x477FF000u) return sign | 0x7C00u;                          // 65520 and up: infinity
    uint mant, shift;
    if (ax >= 0x38800000u) {  // a normal half: rebias the exponent, drop 13 mantissa bits
        mant = ax - 0x38000000u;
        shift = 13u;
    } else {  // a subnormal half (units of 2^-24), or zero
        const uint e = ax >> 23u;
        if (e < 102u) return sign;  // below 2^-25
        mant = (ax & 0x7FFFFFu) | 0x800000u;
        shift = 126u - e;
    }
    uint h = mant >> shift;
    const uint rest = mant & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (h & 1u) != 0u)) ++h;  // a carry moves into the exponent: right
    return sign | h;
}
#endif

#if defined(DTYPE_bf16)
#include "ripple/bfloat16.glsl"  // the public include (glsl/public): users' kernels round as ripple does
#define floatToBFloat16 rippleFloatToBFloat16
#endif

#if !(defined(DTYPE_f64) || defined(DTYPE_i64) || defined(DTYPE_u64))
// The combined bits of current element bits `a` and update bits `b` (low ELEM_BITS bits of each).
uint combineBits(uint a, uint b, uint op) {
#if defined(DTYPE_f32)
    const float x = uintBitsToFloat(a), y = uintBitsToFloat(b);
    if (op == REDUCE_ADD) return floatBitsToUint(x + y);
    if (op == REDUCE_MUL) return floatBitsToUint(x * y);
    return floatTakesOther(x, y, (a >> 31u) != 0u, (b >> 31u) != 0u, op) ? b : a;
#elif defined(DTYPE_f16)
    const float x = halfToFloat(a), y = halfToFloat(b);
    if (op == REDUCE_ADD) return floatToHalf(x + y);
    if (op == REDUCE_MUL) return floatToHalf(x * y);
    return floatTakesOther(x, y, (a >> 15u) != 0u, (b >> 15u) != 0u, op) ? b : a;
#elif defined(DTYPE_bf16)
    const float x = uintBitsToFloat(a << 16u), y = uintBitsToFloat(b << 16u);
    if (op == REDUCE_ADD) return floatToBFloat16(x + y);
    if (op == REDUCE_MUL) return floatToBFloat16(x * y);
    return floatTakesOther(x, y, (a >> 15u) != 0u, (b >> 15u) != 0u, op) ? b : a;
#else
    if (op == REDUCE_ADD) return a + b;
    if (op == REDUCE_MUL) return a * b;
#if defined(DTYPE_i32) || defined(DTYPE_i16) || defined(DTYPE_i8)
    const int sx = int(a << (32u - ELEM_BITS)) >> (32u - ELEM_BITS);  // sign-extended
    const int sy = int(b << (32u - ELEM_BITS)) >> (32u - ELEM_BITS);
    return (op == REDUCE_MAX ? sy > sx : sy < sx) ? b : a;
#else
    return (op == REDUCE_MAX ? b > a : b < a) ? b : a;
#endif
#endif
}

#else
uint64_t combineBits(uint64_t a, uint64_t b, uint op) {
#if defined(DTYPE_f64)
    const double x = packDouble2x32(unpackUint2x32(a)), y = packDouble2x32(unpackUint2x32(b));
    if (op == REDUCE_ADD) return packUint2x32(unpackDouble2x32(x + y));
    if (op == REDUCE_MUL) return packUint2x32(unpackDouble2x32(x * y));
    return doubleTakesOther(x, y, (a >> 63u) != 0ul, (b >> 63u) != 0ul, op) ? b : a;
#else
    if (op == REDUCE_ADD) return a + b;
    if (op == REDUCE_MUL) return a * b;
#if defined(DTYPE_i64)
    return (op == REDUCE_MAX ? int64_t(b) > int64_t(a) : int64_t(b) < int64_t(a)) ? b : a;
#else
    return (op == REDUCE_MAX ? b > a : b < a) ? b : a;
#endif
#endif
}

#endif
