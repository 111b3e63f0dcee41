// SPDX-License-Identifier: MIT
// TopK for large K (core/topk_select.cpp, planSelect's `large`): each row's candidate list, L entries (rank
// key, index) with L >= K (topk_select_final's gather mode puts L in state word 3), sorted by sample sort and
// its first K written. Four dispatches:
//   1. topk_list_split: B samples of the list, one at a pseudo-random position of each of B equal strata of
//      it, put in order by ranking (B / 16 workgroups per row): sample j >= 1 of that order opens bucket j,
//      bucket 0 holds what precedes sample 1.
//   2. topk_list_count: a workgroup per LIST_CHUNK list entries finds each entry's bucket (a binary search
//      over the samples in (rank, index) order), keeps it in the bucket ids, and adds its chunk's counts to
//      the row's.
//   3. topk_list_scatter: the same chunks put each entry in its bucket's range of the bucketed list (the
//      buckets in order; within a bucket in arrival order, by the cursors). Buckets starting at or past K
//      hold no winner: their entries are left out. The row's first chunk writes the buckets' starts.
//   4. topk_list_sort: a workgroup per bucket that starts before K ranks its entries by counting in shared
//      memory and writes those that rank before K. A bucket over LIST_SLOTS is sorted in the bucketed list
//      itself (slowly, by one workgroup); with L entries a bucket holds about L / B and exceeds LIST_SLOTS
//      with probability about exp(-LIST_SLOTS * B / L). Every bucket's workgroup sets its count and cursor
//      back to zero (zeroed scratch).
// Entries are distinct (the index is part of the order), so the output does not depend on arrival order.
//
// Params: the selection's (topk_select_params.glsl), then [43] the most entries a sort workgroup ranks in
// shared memory (LIST_SLOTS; tests plan fewer, to reach the in-place sort), [45] B, buckets per row (a power
// of 2 from 64 to LIST_BUCKETS, one per 256 entries of the capacity; tests plan others).
// Scratch per row: the splitters (B entries), the bucket ids (C words), the bucketed list (C entries) and the
// buckets' starts (B words), C the list capacity (SELECT_CAPACITY); zeroed scratch: the counts, then the
// cursors (B words each). The small forms (RIPPLE_SMALL, 4 storage buffers) reach them through one binding
// of the whole scratch: count and scatter through the state's (binding 2, from word 0), the sort through
// the starts' (from the starts on, the bucketed lists after them); their first words at params [54]
// splitters, [55] bucket ids, [56] bucketed lists, [57] starts (topk_select_params.glsl has [47, 54)).
#include "ripple/topk_select_params.glsl"

#if defined(RIPPLE_SMALL)
// The small-device forms (16 KiB of shared memory): at most 1024 buckets (the small plan's B) and 2048
// entries ranked in shared memory (the sort's only shared arrays, 16 KiB: with 1024 slots, buckets of about
// L / B = 172 entries on (1,16777216) K=65536 overflowed into the in-place sort: 153 us of 284 on the H200);
// the same chunks, so that full and small forms of the steps agree.
#define LIST_BUCKETS 1024u
#define LIST_SLOTS 2048u
#else
#define LIST_BUCKETS 2048u  // the most samples (and so buckets) per row: 16 KiB in shared memory
#define LIST_SLOTS 2048u    // the most entries a sort workgroup ranks in shared memory (16 KiB)
#endif
#define LIST_CHUNK 2048u    // list entries per count and scatter workgroup (8 per invocation, 16 small)
#define LIST_SORT_SLOTS min(P(43), LIST_SLOTS)
#define LIST_B P(45)

// 1 if entry (ak, ai) comes before (bk, bi), else 0. Without && or ||: glslang turns those into branches,
// which made each comparison of a counting loop cost about 100 cycles on the H100.
uint listBefore(uint ak, uint ai, uint bk, uint bi) {
    return uint(ak < bk) | (uint(ak == bk) & uint(ai < bi));
}

// Count and scatter workgroups per row (core/topk_select.cpp dispatches rows times this many).
uint listChunks() { return (SELECT_CAPACITY + LIST_CHUNK - 1u) / LIST_CHUNK; }
