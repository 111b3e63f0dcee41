// SPDX-License-Identifier: MIT
// TopK for large K (core/topk.cpp, planSelect's `large`): each row's candidate list, L entries (rank key,
// index) with L >= K (topk_select_final's gather mode puts L in state word 3), sorted by sample sort and its
// first K written. Three dispatches:
//   1. topk_list_count: a workgroup per LIST_CHUNK list entries sorts B samples of the list, one at a
//      pseudo-random position of each of B equal strata of it (every workgroup of a row the same ones, so
//      no dispatch of its own: sample j >= 1 opens bucket j, bucket 0 holds what precedes sample 1), finds
//      each of its entries' bucket (a binary search over the samples in (rank, index) order), keeps it in
//      the bucket ids, and adds its chunk's counts to the row's.
//   2. topk_list_scatter: the same chunks put each entry in its bucket's range of the bucketed list (the
//      buckets in order; within a bucket in arrival order, by the cursors). Buckets starting at or past K
//      hold no winner: their entries are left out. The row's first chunk writes the buckets' starts.
//   3. topk_list_sort: a workgroup per bucket that starts before K sorts it in registers
//      (ripple/register_sort.glsl) and writes its entries that rank before K. A bucket over LIST_SLOTS is
//      sorted in the bucketed list itself (slowly, by one workgroup); with L entries a bucket holds about
//      L / B and exceeds LIST_SLOTS with probability about exp(-LIST_SLOTS * B / L). Every bucket's
//      workgroup sets its count and cursor back to zero (zeroed scratch).
// Entries are distinct (the index is part of the order), so the output does not depend on arrival order.
//
// Params: the selection's (topk_select_params.glsl), then [43] the most entries a sort workgroup sorts in
// registers (LIST_SLOTS; tests plan fewer, to reach the in-place sort), [44] B, buckets per row (a power
// of 2 up to LIST_BUCKETS; tests plan fewer, for larger buckets).
// Scratch per row: the bucket ids (C words), the bucketed list (C entries) and the buckets' starts (B words),
// C the list capacity (SELECT_CAPACITY); zeroed scratch: the counts, then the cursors (B words each).
#include "ripple/topk_select_params.glsl"

#define LIST_BUCKETS 2048u  // the most samples a count workgroup sorts (8 per invocation), buckets per row
#define LIST_CHUNK 2048u    // list entries per count and scatter workgroup (8 per invocation)
#define LIST_SLOTS 2048u    // the most entries a sort workgroup holds in registers (8 per invocation)
#define LIST_SORT_SLOTS min(P(43), LIST_SLOTS)
#define LIST_B P(44)

// Count and scatter workgroups per row (core/topk.cpp dispatches rows times this many).
uint listChunks() { return (SELECT_CAPACITY + LIST_CHUNK - 1u) / LIST_CHUNK; }
