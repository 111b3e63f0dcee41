// SPDX-License-Identifier: MIT
// TopK for large K (core/topk.cpp, planSelect's `large`): each row's candidate list, L entries (rank key,
// index) with L >= K (topk_select_final's gather mode puts L in state word 3), sorted by sample sort and its
// first K written. Four dispatches:
//   1. topk_list_split: a workgroup per row sorts LIST_BUCKETS entries of the list, one at a pseudo-random
//      position of each of LIST_BUCKETS equal strata of it; sample j >= 1 opens bucket j (bucket 0 holds
//      what precedes sample 1). It also clears the row's bucket counts and cursors.
//   2. topk_list_count: a workgroup per LIST_CHUNK list entries finds each entry's bucket (a binary search
//      over the samples in (rank, index) order), keeps it in the bucket ids, and adds its chunk's counts
//      to the row's.
//   3. topk_list_scatter: the same chunks put each entry in its bucket's range of the bucketed list (the
//      buckets in order; within a bucket in arrival order, by the cursors). Buckets starting at or past K
//      hold no winner: their entries stay where they are.
//   4. topk_list_sort: a workgroup per LIST_GROUP buckets sorts them (several at once while they fit
//      LIST_SLOTS) in shared memory and writes the winners among them. A bucket over LIST_SLOTS is sorted in
//      the bucketed list itself (slowly, by one workgroup); with L entries a bucket holds about L /
//      LIST_BUCKETS and exceeds LIST_SLOTS with probability about exp(-LIST_SLOTS * LIST_BUCKETS / L).
// Entries are distinct (the index is part of the order), so the output does not depend on arrival order.
//
// Params: the selection's (topk_select_params.glsl), then [43] the most entries a sort workgroup sorts in
// shared memory (LIST_SLOTS; tests plan fewer, to reach the in-place sort).
// Scratch per row: the samples (LIST_BUCKETS entries), the counts then the cursors (LIST_BUCKETS words
// each), the bucket ids (C words) and the bucketed list (C entries), C the list capacity (SELECT_CAPACITY).
#include "ripple/topk_select_params.glsl"

#define LIST_BUCKETS 2048u  // samples sorted by one workgroup (16 KiB), and so buckets per row
#define LIST_CHUNK 2048u    // list entries per count and scatter workgroup (8 per invocation)
#define LIST_GROUP 4u       // buckets per sort workgroup (about 4 L / LIST_BUCKETS entries)
#define LIST_SLOTS 2048u    // entries a sort workgroup holds in shared memory (16 KiB)

#define LIST_SORT_SLOTS min(P(43), LIST_SLOTS)

// Count and scatter workgroups per row (core/topk.cpp dispatches rows times this many).
uint listChunks() { return (SELECT_CAPACITY + LIST_CHUNK - 1u) / LIST_CHUNK; }
