// SPDX-License-Identifier: MIT
// Reading index data (INDEX_i32/u32/i64/u64) and resolving it against a dimension size, in 32-bit
// arithmetic only. Negative values of signed types count from the end; anything else outside [0, size)
// is out of range.
#if defined(INDEX_i64) || defined(INDEX_u64)
#define LOAD_INDEX(buf, e) uvec2(buf[2u * (e)], buf[2u * (e) + 1u])
#else
#define LOAD_INDEX(buf, e) uvec2(buf[(e)], 0u)
#endif

bool resolveIndex(uvec2 raw, uint size, out uint resolved) {
    resolved = 0u;
#if defined(INDEX_i32)
    if (int(raw.x) < 0) {
        uint back = 0u - raw.x;  // -value, exact even for INT32_MIN
        resolved = size - back;
        return back <= size;
    }
    resolved = raw.x;
    return raw.x < size;
#elif defined(INDEX_i64)
    if (int(raw.y) < 0) {
        uint back = 0u - raw.x;
        resolved = size - back;
        return raw.y == 0xFFFFFFFFu && raw.x != 0u && back <= size;
    }
    resolved = raw.x;
    return raw.y == 0u && raw.x < size;
#elif defined(INDEX_u64)
    resolved = raw.x;
    return raw.y == 0u && raw.x < size;
#else
    resolved = raw.x;
    return raw.x < size;
#endif
}
