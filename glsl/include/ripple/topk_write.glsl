// Writing one TopK winner: its index and its value, copied bit for bit from the input. Needs DTYPE_xx, the
// input as `inputWords` and the outputs as `values` (not writeonly: 8/16-bit values use atomics) and
// `indicesOut`.
#if defined(DTYPE_f32) || defined(DTYPE_i32) || defined(DTYPE_u32)
#define VALUE_BITS 32
#define LOAD_VALUE LOAD_B32
#elif defined(DTYPE_f16) || defined(DTYPE_bf16) || defined(DTYPE_i16) || defined(DTYPE_u16)
#define VALUE_BITS 16
#define LOAD_VALUE LOAD_B16
#else
#define VALUE_BITS 8
#define LOAD_VALUE LOAD_B8
#endif

// Output rank r of row `row` (whose input starts at element rowBase) is sequence element idx.
void writeWinner(uint row, uint rowBase, uint r, uint idx) {
    const uint K = TOPK_K, inner = P(10), indexWords = P(11);
    const uint e = (row / inner) * K * inner + row % inner + r * inner;  // outer * K * inner + r * inner + ...
    indicesOut[e * indexWords] = idx;
    if (indexWords == 2u) indicesOut[e * 2u + 1u] = 0u;
    const uint bits = LOAD_VALUE(inputWords, rowBase + idx * TOPK_AXIS_STRIDE).x;
#if VALUE_BITS == 32
    values[e] = bits;
#else
    // Neighbouring values of other rows may share the word: change only this value's bits.
    const uint per = 32u / uint(VALUE_BITS), shift = (e % per) * uint(VALUE_BITS);
    const uint mask = ((1u << uint(VALUE_BITS)) - 1u) << shift;
    atomicAnd(values[e / per], ~mask | (bits << shift));
    atomicOr(values[e / per], bits << shift);
#endif
}
