// SPDX-License-Identifier: MIT
// TopK by sampled radix selection (glsl/topk_select_{sample,filter,final}.comp; the method and params in
// glsl/include/ripple/topk_select.glsl), and for K over 1024 the sample sort of the candidate lists
// (glsl/include/ripple/topk_list.glsl). core/topk.cpp decides which rows come here.
#include "core/shape.hpp"
#include "core/topk_plan.hpp"

#include <algorithm>
#include <cmath>

namespace ripple::core {

uint64_t selectCapacityForTests = 0;
uint32_t listSlotsForTests = 0;
uint32_t listBucketsForTests = 0;
uint32_t selectPrefetchSlotsForTests = 0;
bool selectSampleDispatchForTests = false;

namespace topk {
namespace {

// Sampled radix selection (types up to 32 bits): about this many filter workgroups over all rows, each with
// at least kSelectMinChunk elements; kSampleMin to kSampleMax samples per row (one workgroup reads them).
// 512: one wave on a 132-SM GPU at 4 workgroups an SM (the filter's 47-53 registers allow 4 or 5), each
// paying its start and its append once for twice the tiles. H100, 1024 -> 512 (bench/NOTES.md, issue 21,
// tenth session): filter levels (64,128256) f16 14.6 -> 13.6 us, (1,100000000) 177.7 -> 173.3 in all.
constexpr uint64_t kSelectGroups = 512;
constexpr uint64_t kSelectMinChunk = 4096;
constexpr uint64_t kSelectTile = 4096; // topk_select_filter.comp: 256 invocations x UNROLL 16
constexpr uint64_t kSampleMin = 1024;
constexpr uint64_t kCapacityMin = 4096;      // the candidate list's least capacity per row
constexpr uint64_t kCapacityMinShort = 1024; // ... in a small plan's rows of up to kCapacityMin
constexpr uint64_t kSampleMax = 4096;        // topk_select_sample.comp keeps them in shared memory
constexpr uint64_t kSampleMaxSmall = 2048;   // its small-device form (16 KiB of shared memory in all)
constexpr uint64_t kSampleGroup = 8; // elements per sample at most (the sample keeps their smallest rank)
// ... and from K = kSampleWideMinK on: the last step's candidates (about m * n / (S * g)) grow with K, so
// more elements per sample pay there. H100 (bench/NOTES.md, issue 21): (1,16777216) K=1024 81.2 -> 76.3 us
// with 32; (1,100000000) K=100 lost 6 us with 16 (its final step has few candidates already).
constexpr uint64_t kSampleGroupWide = 32;
constexpr uint64_t kSampleWideMinK = 512;
// Rows of kSampleMax samples share them among up to kSampleMaxParts workgroups while rows * parts stays
// within kSampleSpread (about one workgroup per SM): a single row's S * g loads were one workgroup's chain
// of dependent rounds (H100, (1,16777216) K=1024: 25 of 103 us; bench/NOTES.md, issue 21).
constexpr uint64_t kSampleMaxParts = 32; // 128 samples each
constexpr uint64_t kSampleSpread = 128;
// Rows of at most kFusedSamples samples of one element (rows up to 131199 elements; the filter's ENTRIES,
// within its stage's shared memory) have no sample dispatch: each filter workgroup (topk_select_filter's TAU
// sample) loads its row's samples and selects tau itself (glsl/include/ripple/topk_sample.glsl) before its
// first tile. H100 (bench/NOTES.md, issue 21, eleventh session): (64,128256) f16 31.0 -> 27.6 us, f32 35.6 ->
// 32.5, (256,50257) f32 46.1 -> 42.0; a dispatch, its start and the barrier behind it cost more than 8
// workgroups a row loading the same 1024 samples.
constexpr uint64_t kFusedSamples = 1024;

// The list's sample sort (glsl/include/ripple/topk_list.glsl's LIST_BUCKETS, LIST_CHUNK, LIST_SLOTS): the
// most buckets per row, list entries per count and scatter workgroup, the most entries a sort workgroup
// holds in registers. Rows get one bucket per kListBucketEntries entries of the list's capacity, at least
// kListMinBuckets.
constexpr uint64_t kListBuckets = 2048;
constexpr uint64_t kListChunk = 2048;
constexpr uint32_t kListSlots = 2048;
constexpr uint64_t kListMinBuckets = 64;
constexpr uint64_t kListBucketEntries = 256;
constexpr uint64_t kListBucketsSmall = 1024; // the small forms' LIST_BUCKETS (16 KiB of shared memory)
// topk_select_final.comp holds a list of up to kHeldSlots x 256 candidates in registers (HELD), and loads the
// slots of twice the expected list before it reads the row's state (their latency under the state's); a
// longer list loads its other slots after. H100 (bench/NOTES.md, issue 21, eighth session): all 16 slots
// before the state cost (256,50257), lists of about 344, 2.8 us of extra reads.
constexpr uint64_t kHeldSlots = 16;
// The select kernels (glsl/topk_select_{sample,filter,final}.comp) copy their params block into shared memory
// first (PARAMS_SHARED, ripple/common.glsl): it must fit, and is padded to that length so that the copy
// stays inside the params buffer.
constexpr size_t kSelectParamsShared = 64;

// [46]: the key mapping of topk_select_final's fast variants, one a key width (core/topk.cpp's keyKind).
constexpr size_t kSelectKeyKind = 46;
// [47, 54): the small-device forms' words (topk_select_params.glsl): the final step's ties and candidates
// in its one scratch binding, then the 10-bit digits of their 1024 bins.
constexpr size_t kSelectSmallWords = 47;
// [54, 58): the small forms of the list sort's (topk_list.glsl): splitters, bucket ids, bucketed lists and
// starts as word offsets in the scratch.
constexpr size_t kSelectListWords = 54;

Plan padSelectParams(Plan plan, DataType type) {
    plan.params.resize(std::max(plan.params.size(), kSelectParamsShared), 0);
    plan.params[kSelectKeyKind] = keyKind(type);
    return plan;
}

} // namespace

// Sampled radix selection (topk_select_*.comp; the method and params in
// glsl/include/ripple/topk_select.glsl): sample, filter, final. Types up to 32 bits; 64-bit keys keep
// planRadix. With `large` (K over kSlots) the final step gathers the winners' candidates in the list instead
// of writing them, and the list is sorted afterwards.
Result<Plan> planSelect(Plan plan, const TopKDesc& desc, uint64_t rows, const PlanLimits& limits,
                        bool large) {
    const char* op = "TopK";
    const TensorDesc& in = desc.InputTensor;
    const uint64_t n = in.Sizes[desc.Axis], K = desc.K;
    const uint32_t bits = 8 * elementSize(in.DataType);
    // Small devices (limits.smallKernels): the kernels' 128-invocation forms where the full ones exceed the
    // device, so every count below suits both; no fused sampling, at most 2048 samples and 1024 buckets.
    const bool small = limits.smallKernels;
    // Digits (shift | width << 8) of the rank key, which sits at the top of a 32-bit word: at most 11 bits
    // (2048 shared-memory bins), as few as the key's bits allow; the small forms' at most 10 (1024 bins).
    std::vector<uint32_t> digits, smallDigits;
    if (bits == 32) {
        digits = {21 | 11 << 8, 10 | 11 << 8, 0 | 10 << 8};
        smallDigits = {22 | 10 << 8, 12 | 10 << 8, 2 | 10 << 8, 0 | 2 << 8};
    } else if (bits == 16) {
        digits = {21 | 11 << 8, 16 | 5 << 8};
        smallDigits = {22 | 10 << 8, 16 | 6 << 8};
    } else {
        digits = smallDigits = {24 | 8 << 8};
    }
    // Samples: one per 128 elements, at least kSampleMin and at most kSampleMax. The number of samples
    // among the row's K best is about Poisson(mu), mu = K * S / n; tau = the m-th smallest sample, with m
    // the smallest count that Poisson(mu) reaches with probability under 1e-9, makes "fewer than K
    // elements at or below tau" a far-tail event (the last step then selects from the whole row: still
    // exact, only slower). About m * n / S elements rank below tau; the list holds four times that.
    const uint64_t sampleMax = small ? kSampleMaxSmall : kSampleMax;
    const uint64_t S = std::min<uint64_t>(n, std::clamp<uint64_t>(n / 128, kSampleMin, sampleMax));
    // Rows of 128 kSampleMax or more: each sample is the smallest of g elements (up to gMax), which
    // stands for S * g samples of the low tail (topk_select.glsl): fewer candidates for the last step, at g
    // times the sample's loads. H100: (1,100M) K=100 290-519 us with g = 1, 266 us with g = 8; (16,1M) K=100
    // 92 us with g = 1, 110 with g = 8 (its last step was already small).
    // Large K wants a rank far from the tail, where grouped samples (minima) say little: one element each.
    const uint64_t gMax = K >= kSampleWideMinK ? kSampleGroupWide : kSampleGroup;
    const uint64_t g = large ? 1 : std::clamp<uint64_t>(n / (128 * sampleMax), 1, gMax);
    const double mu = double(K) * double(S * g) / double(n);
    uint64_t m = 1;
    if (mu > 100) { // exp(-mu) would underflow: the normal approximation, 6.1 standard deviations
        m = static_cast<uint64_t>(std::ceil(mu + 6.1 * std::sqrt(mu) + 2));
    } else {
        for (double term = std::exp(-mu), atMost = term; 1.0 - atMost >= 1e-9; ++m) {
            term *= mu / double(m);
            atMost += term; // P(Poisson(mu) <= m)
        }
    }
    m = std::min(m, S);
    const uint64_t expected = (m * n + S * g - 1) / (S * g);
    // At least kCapacityMin entries (where 4 * expected is lower, a rare overflow would cost the fallback),
    // but a small plan's rows of up to 4096 keep kCapacityMinShort: whole-row lists of (4096,4096) were over
    // a small device's 128 MiB binding range, and 4 * expected stays far above the candidates' tail there.
    const uint64_t least = small && n <= kCapacityMin ? kCapacityMinShort : kCapacityMin;
    uint64_t capacity = selectCapacityForTests
                            ? selectCapacityForTests
                            : std::min<uint64_t>(n, std::max<uint64_t>(least, 4 * expected));
    if (large) capacity = std::max<uint64_t>(capacity, K); // the gather step may put exactly K there
    // Filter workgroups: about kSelectGroups over all rows, none with fewer than kSelectMinChunk elements,
    // each a whole number of the filter's tiles (256 invocations x 16 loads: kSelectTile elements, twice as
    // many 16-bit ones read in pairs from a contiguous row, less 2 as an odd row start adds a word). A chunk
    // of 3.07 tiles cost a fourth round of loads for its last 85 elements ((256,50257) FLOAT32, H100).
    const uint64_t groupsPerRow = std::clamp<uint64_t>((kSelectGroups + rows - 1) / rows, 1,
                                                       (n + kSelectMinChunk - 1) / kSelectMinChunk);
    const bool pairs = bits == 16 && effectiveStrides(in)[desc.Axis] == 1;
    const uint64_t filterTile = small ? kSelectTile / 2 : kSelectTile; // 128 invocations x UNROLL 16
    const uint64_t tile = pairs ? 2 * filterTile : filterTile, tiles = (n + tile - 1) / tile;
    const uint64_t chunk = (tiles + groupsPerRow - 1) / groupsPerRow * tile - (pairs ? 2 : 0);
    const uint64_t chunks = (n + chunk - 1) / chunk;
    uint64_t T = 1;
    uint32_t log2T = 0;
    while (T < K) T <<= 1, ++log2T;
    topkParams(plan.params, desc, T, log2T, 1, 1, rows, rows, 0);
    plan.params.insert(plan.params.end(), {static_cast<uint32_t>(chunk), static_cast<uint32_t>(chunks), bits,
                                           static_cast<uint32_t>(capacity), static_cast<uint32_t>(S),
                                           static_cast<uint32_t>(m), static_cast<uint32_t>(digits.size())});
    for (uint32_t q = 0; q < 3; ++q) plan.params.push_back(q < digits.size() ? digits[q] : 0);
    plan.params.push_back(static_cast<uint32_t>(g));
    // Tie slots per chunk: the filter keeps the indices of a chunk's elements equal to tau while there are at
    // most R, so that the final step takes the first ties from them instead of reading the chunks again in
    // one workgroup (narrow-range data: (1,16777216) K=1024 took 721 us that way, bench/NOTES.md v16). With
    // R >= K every chunk wanted whole fits; larger K reads the chunks of more than R ties.
    const uint64_t tieSlots = std::min<uint64_t>(K, kSlots);
    plan.params.push_back(static_cast<uint32_t>(tieSlots));
    uint64_t parts = 1;
    if (S == sampleMax)
        while (parts < kSampleMaxParts && rows * parts * 2 <= kSampleSpread) parts *= 2;
    plan.params.push_back(static_cast<uint32_t>(parts));
    plan.params.push_back(listSlotsForTests ? listSlotsForTests : kListSlots); // [43], large K only
    const uint64_t prefetch =
        selectPrefetchSlotsForTests ? selectPrefetchSlotsForTests : 2 * expected / 256 + 1;
    plan.params.push_back(static_cast<uint32_t>(std::min(prefetch, kHeldSlots))); // [44]
    // + 1: the list sort's [45], pushed below; [46] is the key mapping (padSelectParams).
    if (plan.params.size() + 1 > kSelectKeyKind)
        return unsupported(op, "internal: its select params outgrow the kernels' PARAMS_SHARED");

    // Fused (kFusedSamples): the filter samples, so nothing clears the rows' counts before it; the state
    // is zeroed scratch, which the final step clears again. Not for large K, whose list sort reads the state
    // after the final step.
    const bool fused =
        !large && !small && parts == 1 && g == 1 && S <= kFusedSamples && !selectSampleDispatchForTests;
    ScratchLayout scratch, zeroed(BindingKind::ZeroedScratch);
    const uint64_t listBytes = rows * capacity * 8;
    const PlanBinding state = (fused ? zeroed : scratch).add(rows * 4 * 4),
                      ties = scratch.add(rows * chunks * (1 + tieSlots) * 4), list = scratch.add(listBytes);
    // Shared samples: the rows' sample slots and arrival counters (unused with one part: the state stands
    // in).
    PlanBinding samples = state, arrivals = state;
    if (parts > 1) {
        samples = scratch.add(rows * S * 4);
        arrivals = zeroed.add(rows * 4);
    }
    if (std::max(scratch.largest(), zeroed.largest()) > limits.maxStorageBufferRange ||
        rows * chunks > 0xFFFFFFFFull)
        return scratchTooLarge("selection state", limits);
    plan.scratchBytes = scratch.bytes();
    plan.zeroedScratchBytes = zeroed.bytes();

    const std::string dtype = typeClass(in.DataType);
    const PlanBinding params{BindingKind::Params}, input{BindingKind::Tensor, 0};
    // The small forms only in a small plan: a full plan's samples (up to 4096), fused sampling and separate
    // scratch bindings are beyond them.
    auto dispatch = [&](std::string kernel, std::vector<PlanBinding> b, uint64_t groups, bool modes) {
        addDispatch(plan, std::move(kernel), std::move(b), 0, groups, modes);
        plan.dispatches.back().smallForm = small;
    };
    if (!fused)
        dispatch("topk_select_sample." + dtype, {params, input, state, samples, arrivals}, rows * parts,
                 true);
    dispatch("topk_select_filter." + dtype + (fused ? ".sample" : ".state"),
             {params, input, state, ties, list}, rows * chunks, true);
    // The final step's binding 2 on a small device: the whole scratch, whose first range is the state
    // (plain scratch at offset 0: no fused sampling), so that its small form reaches the ties and the list
    // through it at the words params [47] and [48] give; the full forms read the state there as before.
    PlanBinding finalState = state;
    if (small) {
        if (plan.scratchBytes > limits.maxStorageBufferRange)
            return scratchTooLarge("selection state", limits);
        finalState.size = plan.scratchBytes;
    }
    if (large) // the winners gathered into the list, the outputs written by the list sort
        dispatch("topk_select_final." + dtype + ".gather", {params, input, finalState, ties, list}, rows,
                 true);
    else
        dispatch("topk_select_final." + dtype + ".write",
                 {params, input, finalState, ties, list, {BindingKind::Tensor, 1}, {BindingKind::Tensor, 2}},
                 rows, true);
    // Its fast variants are one a key width, the mapping params word [46] (glsl/topk_select_final.comp).
    plan.dispatches.back().fastKernel =
        std::string("topk_select_final.") + elementClass(in.DataType) + (large ? ".gather" : ".write");
    // The small forms' words (topk_select_params.glsl, topk_list.glsl): scratch ranges as word offsets.
    auto smallWords = [&](std::vector<PlanBinding> ranges) {
        plan = padSelectParams(std::move(plan), in.DataType);
        const size_t at = kSelectSmallWords;
        plan.params[at] = static_cast<uint32_t>(ties.offset / 4);
        plan.params[at + 1] = static_cast<uint32_t>(list.offset / 4);
        plan.params[at + 2] = static_cast<uint32_t>(smallDigits.size());
        for (size_t q = 0; q < smallDigits.size(); ++q) plan.params[at + 3 + q] = smallDigits[q];
        for (size_t r = 0; r < ranges.size(); ++r)
            plan.params[kSelectListWords + r] = static_cast<uint32_t>(ranges[r].offset / 4);
        return std::move(plan);
    };
    if (!large) return smallWords({});

    // Sort each row's list (its length is state word 3) by sample sort and write its first K
    // (glsl/include/ripple/topk_list.glsl): splitters from a sample of the list, bucket counts, the entries
    // bucketed, each bucket ranked. The tile-and-merge sort it replaced took 11 dependent levels (H100,
    // (1,16777216) K=65536: 122 us of 184; bench/NOTES.md, issue 21, sixth session).
    // Buckets: about one per kListBucketEntries entries of the capacity (the list holds about a fourth of
    // it), a power of 2 from kListMinBuckets to kListBuckets. More would leave most sort workgroups empty,
    // each still a launch and a barrier: (3,20011) K=1500 (capacity 10632) spent 610 of 698 ms of lavapipe in
    // 6144 sort workgroups with 2048 buckets a row, about one entry each (bench/NOTES.md, issue 56).
    uint64_t B = kListMinBuckets;
    while (B < kListBuckets && B * kListBucketEntries < capacity) B *= 2;
    if (listBucketsForTests) B = listBucketsForTests;
    if (small) B = std::min(B, kListBucketsSmall);
    const uint64_t chunkCount = (capacity + kListChunk - 1) / kListChunk;
    // A small plan puts the starts before the bucketed lists: its sort reaches both through one binding.
    PlanBinding splitters = scratch.add(rows * B * 8), ids = scratch.add(rows * capacity * 4), bucketed,
                starts;
    if (small) {
        starts = scratch.add(rows * B * 4);
        bucketed = scratch.add(listBytes);
    } else {
        bucketed = scratch.add(listBytes);
        starts = scratch.add(rows * B * 4);
    }
    const PlanBinding counts = zeroed.add(rows * 2 * B * 4);
    if (std::max(scratch.largest(), zeroed.largest()) > limits.maxStorageBufferRange ||
        (small && scratch.bytes() > limits.maxStorageBufferRange) || rows * chunkCount > 0xFFFFFFFFull ||
        rows * B > 0xFFFFFFFFull)
        return scratchTooLarge("list sort", limits);
    plan.scratchBytes = scratch.bytes();
    plan.zeroedScratchBytes = zeroed.bytes();
    plan.params.push_back(static_cast<uint32_t>(B)); // [45]
    // The small plan's count and scatter take the whole scratch at the state's binding, its sort the
    // scratch from the starts on at theirs (glsl/include/ripple/topk_list.glsl); the full forms read the
    // state and the starts at the start of those ranges as before.
    PlanBinding listState = state, startsOn = starts;
    if (small) {
        listState.size = plan.scratchBytes;
        startsOn.size = plan.scratchBytes - starts.offset;
    }
    const PlanBinding values{BindingKind::Tensor, 1}, indices{BindingKind::Tensor, 2};
    dispatch("topk_list_split", {params, list, state, splitters}, rows * (B / 16), false);
    dispatch("topk_list_count", {params, list, listState, splitters, counts, ids}, rows * chunkCount, false);
    dispatch("topk_list_scatter", {params, list, listState, counts, ids, bucketed, starts}, rows * chunkCount,
             false);
    dispatch(std::string("topk_list_sort.") + elementClass(in.DataType),
             {params, input, counts, startsOn, bucketed, values, indices}, rows * B, false);
    // The small sort writes the indices; the values follow from them (glsl/topk_values.comp).
    if (small)
        dispatch(std::string("topk_values.") + elementClass(in.DataType), {params, input, indices, values},
                 groupsFor(rows * K, limits.groupSize()), false);
    return smallWords({splitters, ids, bucketed, starts});
}

} // namespace topk
} // namespace ripple::core
