// SPDX-License-Identifier: MIT
// The element size class (ELEM_bxx, for ripple/common.glsl's element access) of a DTYPE_xx kernel.
#if defined(DTYPE_f64) || defined(DTYPE_i64) || defined(DTYPE_u64)
#define ELEM_b64
#elif defined(DTYPE_f32) || defined(DTYPE_i32) || defined(DTYPE_u32)
#define ELEM_b32
#elif defined(DTYPE_f16) || defined(DTYPE_bf16) || defined(DTYPE_i16) || defined(DTYPE_u16)
#define ELEM_b16
#else
#define ELEM_b8
#endif
