// SPDX-License-Identifier: MIT
// The params and per-row state of sampled radix selection (topk_select.glsl), also read by the large-K list
// sort (topk_list.glsl).
//
// Params beyond the TopK block (topk.glsl): [30] input elements per filter workgroup (a chunk), [31] chunks
// per row, [32] key bits (8, 16 or 32), [33] candidate list capacity per row, [34] samples S per row,
// [35] the sample rank m (1-based), [36] digits D, [37 + q] digit q: shift | width << 8 (at most 3),
// [40] elements per sample g (a sample is the smallest rank of g elements of its stratum), [41] tie slots
// per chunk R, [42] sample parts: workgroups sharing a row's samples (a power of 2 dividing S), [43] the list
// sort's (topk_list.glsl), [44] the held list's slots the final step loads before the row's state, [45] the
// list sort's (topk_list.glsl), [46] the key mapping of the final step's fast variants (one a key width:
// topk_key.glsl's KEY_RUNTIME). The per-chunk ties binding holds rows * chunks counts, then R index slots per
// chunk.
// The small-device forms (RIPPLE_SMALL: 16 KiB of shared memory) count 10-bit digits in 1024 bins, which
// take a 32-bit key four digits: [49] their digits D, [50 + q] digit q (at most 4). Their final step binds
// the state, ties and candidates as one scratch range (4 storage buffers): [47] and [48] the ties' and the
// candidates' first words in it, the state at word 0.
// Per row in `state` (SELECT_STATE words): [0] tau, [1] candidates (ranked below tau; may exceed the
// capacity), [2] elements equal to tau, [3] (large K, gather mode) the length of the row's list to sort.
#define SELECT_STATE 4u
#if defined(RIPPLE_SMALL)
#define SELECT_BINS 1024u
#define SELECT_BIN_BITS 10
#define SELECT_DIGITS P(49)
#define SELECT_DIGIT_WORD(q) (50u + (q))
#else
#define SELECT_BINS 2048u
#define SELECT_BIN_BITS 11
#define SELECT_DIGITS P(36)
#define SELECT_DIGIT_WORD(q) (37u + (q))
#endif
#define SELECT_CHUNK P(30)
#define SELECT_CHUNKS P(31)
#define SELECT_KEY_BITS P(32)
#define SELECT_CAPACITY P(33)
#define SELECT_SAMPLES P(34)
#define SELECT_SAMPLE_RANK P(35)
#define SELECT_SAMPLE_GROUP P(40)
#define SELECT_TIE_SLOTS P(41)
#define SELECT_SAMPLE_PARTS P(42)
#define SELECT_PREFETCH_SLOTS P(44)
