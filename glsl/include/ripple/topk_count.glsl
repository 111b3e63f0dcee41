// SPDX-License-Identifier: MIT
// Counting two index bits at a time in a 256-invocation workgroup (topk_row.comp, topk_chunk.comp): each
// invocation packs its counts of the four digits into one word (8 bits each: at most 255 entries per
// invocation), the workgroup sums them as four 16-bit fields (at most 65535 entries per workgroup: 256
// invocations of up to 32 entries each fit). Needs scan.glsl.
//
// Digit counts of one step as four 16-bit fields (digits 0, 1 in word 0; 2, 3 in word 1). Three buffers
// used in turn, so one barrier per step suffices: step s adds into s % 3 and clears (s + 2) % 3, which
// every invocation finished reading before that barrier and nobody adds to before the next one.
shared uint sCount[3][2];

// Workgroup totals of each invocation's packed counts c (digit d in bits 8d..8d+7).
uvec2 workgroupDigitCounts(uint c, uint step) {
    uvec2 v = uvec2((c & 0xFFu) | ((c & 0xFF00u) << 8u), ((c >> 16u) & 0xFFu) | ((c >> 24u) << 16u));
    const uint b = step % 3u;
#if defined(MODE_fast)
    v = subgroupAdd(v);
    if (subgroupElect()) {
        atomicAdd(sCount[b][0], v.x);
        atomicAdd(sCount[b][1], v.y);
    }
#else
    if (v.x != 0u) atomicAdd(sCount[b][0], v.x);
    if (v.y != 0u) atomicAdd(sCount[b][1], v.y);
#endif
    barrier();
    const uvec2 total = uvec2(sCount[b][0], sCount[b][1]);
    if (gl_LocalInvocationID.x == 0u) {
        sCount[(step + 2u) % 3u][0] = 0u;
        sCount[(step + 2u) % 3u][1] = 0u;
    }
    return total;
}

// The digit holding the need-th (1-based) of the counted elements; `need` becomes its rank within that
// digit and `count` the digit's count.
uint chooseDigit(uvec2 t, inout uint need, out uint count) {
    const uint c0 = t.x & 0xFFFFu, c1 = t.x >> 16u, c2 = t.y & 0xFFFFu, c3 = t.y >> 16u;
    count = c0;
    if (need <= c0) return 0u;
    need -= c0;
    count = c1;
    if (need <= c1) return 1u;
    need -= c1;
    count = c2;
    if (need <= c2) return 2u;
    need -= c2;
    count = c3;
    return 3u;
}
