// SPDX-License-Identifier: MIT
// TopK (DML_TOP_K1_OPERATOR_DESC; ONNX TopK): validation and plan.
//
// Strategies by shape (planTopK picks; thresholds and measurements at their constants):
// - Short rows in a small dispatch, any K: one invocation per element counts its rank in its row (planRank,
//   topk_rank.comp).
// - K <= 32 on rows of one tile (up to 1024), or on strided rows with enough rows * parts: invocation-private
//   lists (planLane; glsl/include/ripple/topk_lane.glsl), one pass or two.
// - K <= 1024, types up to 32 bits, rows of 257 to 4096: one workgroup per row (planRow, topk_row.comp).
// - K <= 1024, types up to 32 bits, rows over 4096 of at most kChunk / K chunks of kChunk, when the chunks
//   fit about one wave or the rows are many: one dispatch, chunks narrowed to candidates by their
//   workgroups, the row's last one selects (planChunk, topk_chunk.comp).
// - K <= 1024, types up to 32 bits, other rows over 4096: sampled radix selection (planSelect in
//   core/topk_select.cpp; glsl/include/ripple/topk_select.glsl).
// - K over 1024 and at most 1/8 of rows over 4096, types up to 32 bits: sampled selection gathers a list of
//   a few K candidates per row, which a sample sort orders (planSelect's `large`; topk_list.glsl).
// - K <= 1024, 64-bit types, rows over 4096: multi-pass radix selection (planRadix).
// - Everything else (short rows with K over 32, K over 1024 otherwise): sort tiles of up to 1024 entries in
//   shared memory, keep each tile's best min(K, tile), merge pairs of runs level by level (binary search,
//   truncated to K), emit. O(n log n) per row whatever K is.
// On a small device (PlanLimits::smallKernels: the kernels' 128-invocation forms) the strategies are rank
// counting, lanes for K <= 32 (also long contiguous rows of 64-bit types or up to 4096, where rows * parts
// fill a GPU), sampled selection for rows over 4096 of types up to 32 bits (K over 1024 as above), the
// multi-pass radix for other rows over 1024 with K <= 1024, and tiles for the rest.
// Every strategy reads non-last axes in place through the input's strides.
#include "core/shape.hpp"
#include "core/topk_plan.hpp"

#include <algorithm>
#include <cmath>

namespace ripple::core {
namespace topk {

Status scratchTooLarge(const std::string& what, const PlanLimits& limits) {
    return unsupported("TopK", "its " + what + " needs more than the device's maxStorageBufferRange (" +
                                   std::to_string(limits.maxStorageBufferRange) + ") in one binding");
}

// Appends a dispatch of `kernel` (without its MODE suffix when `modes`: the runtime picks fast or portable).
void addDispatch(Plan& plan, std::string kernel, std::vector<PlanBinding> bindings, uint32_t arg,
                 uint64_t groups, bool modes) {
    PlanDispatch d;
    d.kernel = std::move(kernel);
    d.hasModes = modes;
    d.bindings = std::move(bindings);
    d.arg = arg;
    d.groups = static_cast<uint32_t>(std::min<uint64_t>(groups, 65535)); // kernels loop over the rest
    plan.dispatches.push_back(std::move(d));
}

// The params block of every TopK kernel (layout in glsl/include/ripple/topk.glsl).
void topkParams(std::vector<uint32_t>& p, const TopKDesc& desc, uint64_t T, uint32_t log2T, uint64_t tiles,
                uint64_t perGroup, uint64_t totalTiles, uint64_t rows, uint32_t levels) {
    const TensorDesc& in = desc.InputTensor;
    const uint32_t n = in.dimensionCount();
    const std::vector<uint32_t> strides = effectiveStrides(in);
    std::vector<uint32_t> rowSizes, rowStrides;
    for (uint32_t d = 0; d < n; ++d)
        if (d != desc.Axis) rowSizes.push_back(in.Sizes[d]), rowStrides.push_back(strides[d]);
    p = {in.Sizes[desc.Axis],
         desc.K,
         static_cast<uint32_t>(desc.AxisDirection),
         static_cast<uint32_t>(T),
         log2T,
         static_cast<uint32_t>(tiles),
         static_cast<uint32_t>(perGroup),
         static_cast<uint32_t>(totalTiles),
         static_cast<uint32_t>(rows),
         strides[desc.Axis],
         static_cast<uint32_t>(product(in.Sizes, desc.Axis + 1, n)),
         elementSize(desc.OutputIndexTensor.DataType) / 4,
         levels};
    appendView(p, 0, rowSizes, rowStrides);
}

uint32_t keyKind(DataType type) {
    switch (type) {
    case DataType::Float32:
        return 0x7F800000u;
    case DataType::Float16:
        return 0x7C00u;
    case DataType::BFloat16:
        return 0x7F80u;
    case DataType::Int32:
    case DataType::Int16:
    case DataType::Int8:
        return 1;
    default:
        return 0;
    }
}

} // namespace topk

namespace {

using namespace topk;

// Rows of kRowMinRow + 1 to kRowMaxRow elements (types up to 32 bits, K up to kSlots) go to one workgroup
// each (topk_row.comp: the row in shared memory, selection 8 bits at a time, one dispatch). Shorter rows
// pack several into one tile-sorting workgroup instead. Longer rows with K up to kSlots are selected by
// radix: types up to 32 bits by sampled selection (topk_select_*.comp), 64-bit types by the multi-pass
// radix (topk_radix_*.comp) beyond kRadixMinRow. A row of one tile sorts in one workgroup.
constexpr uint64_t kRowMinRow = 256;
constexpr uint64_t kRowMaxRow = 4096; // topk_row.comp's 16 keys per invocation
constexpr uint64_t kRadixMinRow = 4096;
constexpr uint32_t kRadixChunk = 4096; // elements per workgroup in the radix passes
// K over kSlots on rows at least kLargeMinRatio K long: sampled selection keeps a list of a few K candidates,
// which a sample sort then orders (planSelect's `large`). Nearer the whole row, the list would be most of
// it: tiles and merges over the row itself.
constexpr uint64_t kLargeMinRatio = 8;
// Rows over kRowMaxRow with K <= kSlots, types up to 32 bits, in one dispatch (planChunk, topk_chunk.comp):
// chunks of kChunk elements, each narrowed by its workgroup to at most B candidates (at least K, at most
// kChunkMaxB unless K is larger), chunks * B <= kChunk so that the row's last workgroup holds them all in
// shared memory. Rows too long for that take sampled selection. Chosen when all chunks run in about one
// wave (rows * chunks <= kChunkOneWave: one level instead of three) or when rows are many (rows >=
// kChunkManyRows: sampled selection's per-row sample and final steps weigh). In between the sampled
// filter reads faster. H100 (bench/NOTES.md, v12), chunk / sampled us: (1,152064) K=40 22.8 / 32.8,
// (8,65536) K=256 28.4 / 34.6, (512,16384) K=8 78.3 / 88.1, (1024,8192) K=16 88.1 / 123.1, (2048,5000)
// K=64 170.5 / 227.8; but (64,65536) K=100 56.3 / 47.1, (256,32768) K=50 79.1 / 70.9, (64,128256) K=50
// 77.8 / 63.2, (256,50257) K=8 107.0 / 78.8.
constexpr uint64_t kChunk = 4096;    // topk_chunk.comp's CHUNK
constexpr uint64_t kChunkMaxB = 256; // larger B stops the chunk's narrowing earlier, but fills the final
// The final's list aims at kChunkList entries (B = kChunkList / chunks unless K or kChunkMaxB bound it): its
// passes cost per entry, and rows of many chunks filled it to 4096. A smaller B costs the chunks a step more
// as it nears K. H100 on N(0,1) rows (bench/NOTES.md, issue 21, twelfth session), 4096 -> 2560 entries:
// (1,152064) K=40 FLOAT32 15.9 -> 14.8 us, BFLOAT16 17.1 -> 15.6 (whole matrix, 3 processes); (4,100000)
// K=64 15.6 -> 16.4 (levels, a diagnostic). Rows of at most 10 chunks keep B = kChunkMaxB.
constexpr uint64_t kChunkList = 2560;
constexpr uint64_t kChunkOneWave = 512;
constexpr uint64_t kChunkManyRows = 512;
// Invocation-private lists (planLane) for K <= kLaneMaxK: about kLaneInvocations invocations (H100,
// (128,4096,64) K=16: 248 us with 65536, 301 with 131072, 381 with 262144: shorter parts mean more
// insertions, which bound the pass), each part at least 4 KMAX elements
// long, at most kLaneMergeMax candidates per row for the ranking pass (each searches every part's list).
// Chosen for rows of one tile, and for strided rows when rows * parts reaches half of kLaneInvocations: their
// invocations read neighbouring rows, so every load is coalesced.
constexpr uint64_t kLaneMaxK = 32;
constexpr uint64_t kLaneInvocations = 65536;
// Strided rows aim at half as many, in parts twice as long: fewer insertions in all and half the merge's
// candidates ((128,4096,64) K=16 on the H100: 231.7 us with 65536 invocations, 216.6 with 32768, 332 with
// 16384; bench/NOTES.md, issue 21). Which path a shape takes is unchanged: it still asks rows * parts to
// reach kLaneInvocations / 2.
constexpr uint64_t kLaneStridedInvocations = 32768;
constexpr uint64_t kLaneMergeMax = 512; // glsl/topk_lane_rank.comp's RANK_SLOTS
// The longest contiguous rows of whole 16-byte quads that topk_lane reads directly (planLane).
constexpr uint64_t kLaneDirectQuadsMaxRow = 64;
// The second pass merges rows (topk_lane_merge) from kLaneMergeMinRows rows of kLaneMergeMinParts parts on,
// else ranks candidates (topk_lane_rank); measurements at planLane.
constexpr uint64_t kLaneMergeMinRows = 4096;
constexpr uint64_t kLaneMergeMinParts = 9;

// Rank counting (planRank): rows of at most kRankMaxRow elements, at most kRankMaxRows of them and
// kRankMaxElements elements in all (kRankMaxStridedElements for rows strided along the axis), at most
// kRankMaxWork row elements read in all (rows * n * n; kRankMaxWorkLargeK where K is over kLaneMaxK and tiles
// are the alternative). Each invocation reads its row, with no list, barrier or scratch: where a dispatch has
// a few elements per invocation, the lanes' lists and the tiles' sorts cost more than the work. H100,
// FLOAT32, rank counting / the strategy below (bench/NOTES.md, issue 21's thirteenth session): (1,1,3,4) K=2
// 4.1 / 4.6 us (whole matrix, 3 processes); levels, a diagnostic: (64,32) K=4 4.9 / 12.8, (1,128) K=10 6.9 /
// 27.4, (8192,16) K=8 6.1 / 11.5, (4096,32) K=32 7.9 / 40.3, (8192,32) K=4 12.0 / 15.1, (64,1024) axis 0 K=8
// 7.9 / 20.2. Past the bounds it loses: many rows, where one lane per row is cheap ((16384,16) K=4 8.4 / 8.0,
// (32768,8) K=2 6.9 / 5.9, (65536,4) K=1 6.0 / 5.5), (16384,32) 20.3 / 16.1, (64,4096) axis 0 18.8 / 14.7,
// (1,1024) K=100 47.4 / 8.7, and against tiles (1024,128) K=100 18.2 / 16.9 (where (1,128) K=100 is 6.9 /
// 14.3).
constexpr uint64_t kRankMaxRow = 128;
constexpr uint64_t kRankMaxRows = 8192;
constexpr uint64_t kRankMaxElements = 262144;
constexpr uint64_t kRankMaxStridedElements = 65536;
constexpr uint64_t kRankMaxWork = 1ull << 24;
constexpr uint64_t kRankMaxWorkLargeK = 1ull << 22;

uint64_t runCapacity(uint64_t K, uint64_t T, uint32_t level) {
    return std::min<uint64_t>(K, T << level);
}
uint64_t runCount(uint64_t tiles, uint32_t level) {
    return ((tiles - 1) >> level) + 1;
}

// Radix selection (topk_radix_*.comp): init; per digit of the composite (key bits, then index bits) a
// histogram pass and a scan; gather the K survivors; sort them; emit.
Result<Plan> planRadix(Plan plan, const TopKDesc& desc, uint64_t rows, const PlanLimits& limits) {
    const TensorDesc& in = desc.InputTensor;
    const uint64_t n = in.Sizes[desc.Axis], K = desc.K;
    const bool wide = elementSize(in.DataType) == 8;
    const uint32_t keyw = wide ? 2 : 1;
    const uint64_t entryBytes = 4ull * (keyw + 1);
    uint64_t T = 1;
    uint32_t log2T = 0;
    while (T < K) T <<= 1, ++log2T;
    // Chunks of kRadixChunk; a small device's few long rows in smaller ones, down to 512, so that the
    // passes have about 512 workgroups to spread.
    uint64_t chunk = kRadixChunk;
    while (limits.smallKernels && chunk > 512 && rows * ((n + chunk - 1) / chunk) < 512) chunk /= 2;
    const uint64_t chunks = (n + chunk - 1) / chunk;
    topkParams(plan.params, desc, T, log2T, 1, 1, rows, rows, 0);
    plan.params.push_back(static_cast<uint32_t>(chunk));
    plan.params.push_back(static_cast<uint32_t>(chunks));
    plan.params.push_back(8 * elementSize(in.DataType));

    ScratchLayout scratch;
    const PlanBinding state = scratch.add(rows * 8 * 4), hist = scratch.add(rows * 256 * 4),
                      survivors = scratch.add(rows * K * entryBytes);
    if (scratch.largest() > limits.maxStorageBufferRange || rows * chunks > 0xFFFFFFFFull)
        return scratchTooLarge("selection state", limits);
    plan.scratchBytes = scratch.bytes();

    const std::string keyClass = std::string(wide ? "k2" : "k1");
    const std::string dtype = std::string(typeClass(in.DataType));
    const uint32_t rowGroups = static_cast<uint32_t>(std::min<uint64_t>(rows, 65535));
    const uint32_t chunkGroups = static_cast<uint32_t>(std::min<uint64_t>(rows * chunks, 65535));
    auto dispatch = [&](std::string kernel, std::vector<PlanBinding> b, uint32_t arg, uint32_t groups) {
        addDispatch(plan, std::move(kernel), std::move(b), arg, groups);
    };
    const PlanBinding params{BindingKind::Params}, input{BindingKind::Tensor, 0};
    dispatch("topk_radix_init." + keyClass, {params, state, hist}, 0,
             groupsFor(rows * 256, limits.groupSize()));
    // Digits, most significant first: the key's bits (only the type's), then the index's.
    std::vector<uint32_t> digits; // word << 8 | shift
    const uint32_t keyBits = 8 * elementSize(in.DataType);
    for (uint32_t w = 0; w < keyw; ++w)
        for (int32_t shift = static_cast<int32_t>(std::min<uint32_t>(32, keyBits)) - 8; shift >= 0;
             shift -= 8)
            digits.push_back(w << 8 | static_cast<uint32_t>(shift));
    uint32_t indexBits = 8;
    while (indexBits < 32 && (n - 1) >> indexBits) indexBits += 8;
    for (int32_t shift = static_cast<int32_t>(indexBits) - 8; shift >= 0; shift -= 8)
        digits.push_back(keyw << 8 | static_cast<uint32_t>(shift));
    for (size_t i = 0; i < digits.size(); ++i) {
        dispatch("topk_radix_hist." + dtype, {params, input, state, hist}, digits[i], chunkGroups);
        dispatch("topk_radix_scan." + keyClass, {params, state, hist},
                 digits[i] | (i + 1 == digits.size() ? 1u << 16 : 0u), rowGroups);
    }
    dispatch("topk_radix_gather." + dtype, {params, input, state, survivors}, 0, chunkGroups);
    dispatch("topk_radix_sort." + keyClass, {params, survivors}, 0, rowGroups);
    dispatch(std::string("topk_emit.") + elementClass(in.DataType) + "." + keyClass,
             {params, input, survivors, {BindingKind::Tensor, 1}, {BindingKind::Tensor, 2}}, 0,
             groupsFor(rows * K, limits.groupSize()));
    return plan;
}

// Rank counting (topk_rank.comp): one invocation per element; params as planLane's with one part per row.
Result<Plan> planRank(Plan plan, const TopKDesc& desc, uint64_t rows, const PlanLimits& limits) {
    const TensorDesc& in = desc.InputTensor;
    const uint64_t n = in.Sizes[desc.Axis];
    topkParams(plan.params, desc, 1, 0, 1, 1, rows, rows, 0);
    plan.params.insert(plan.params.end(), {1u, static_cast<uint32_t>(n), 8 * elementSize(in.DataType)});
    addDispatch(
        plan, std::string("topk_rank.") + typeClass(in.DataType),
        {{BindingKind::Params}, {BindingKind::Tensor, 0}, {BindingKind::Tensor, 1}, {BindingKind::Tensor, 2}},
        0, groupsFor(rows * n, limits.groupSize()));
    return plan;
}

// Invocation-private lists (topk_lane.comp, then topk_lane_rank.comp or topk_lane_merge.comp; K <=
// kLaneMaxK): rows split into P parts of L elements, one invocation each; with P > 1 a second pass ranks or
// merges each row's P * KMAX candidates.
Result<Plan> planLane(Plan plan, const TopKDesc& desc, uint64_t rows, uint64_t parts,
                      const PlanLimits& limits) {
    const TensorDesc& in = desc.InputTensor;
    const uint64_t n = in.Sizes[desc.Axis];
    uint64_t kmax = 1;
    while (kmax < desc.K) kmax <<= 1;
    // topk_lane_staged's 16-byte loads (params [34]): 32-bit elements in rows of whole quads at 16-byte
    // offsets (the axis' stride 1, the other dimensions' strides multiples of 4), parts of whole quads.
    const std::vector<uint32_t> strides = effectiveStrides(in);
    bool quads = elementSize(in.DataType) == 4 && strides[desc.Axis] == 1 && n % 4 == 0;
    for (size_t d = 0; d < strides.size(); ++d)
        if (d != desc.Axis && in.Sizes[d] > 1 && strides[d] % 4 != 0) quads = false;
    uint64_t L = (n + parts - 1) / parts;
    if (quads) L = (L + 3) / 4 * 4;
    parts = (n + L - 1) / L; // no empty part
    const uint32_t keyw = elementSize(in.DataType) == 8 ? 2 : 1;
    const uint64_t planeWords = rows * parts * kmax, candidateBytes = planeWords * (1 + keyw) * 4;
    if (candidateBytes > limits.maxStorageBufferRange || planeWords * (1 + keyw) > 0xFFFFFFFFull)
        return scratchTooLarge("candidate lists", limits);
    topkParams(plan.params, desc, kmax, 0, 1, 1, rows, rows, 0);
    plan.params.insert(plan.params.end(),
                       {static_cast<uint32_t>(parts), static_cast<uint32_t>(L), 8 * elementSize(in.DataType),
                        keyKind(in.DataType), quads ? 1u : 0u});
    // One part per row needs no candidates; the binding still needs a range.
    plan.scratchBytes = parts > 1 ? candidateBytes : 16;
    const PlanBinding candidates{BindingKind::Scratch, 0, 0, plan.scratchBytes};
    const std::string kmaxName = "k" + std::to_string(kmax);
    const std::vector<PlanBinding> bindings = {{BindingKind::Params},
                                               {BindingKind::Tensor, 0},
                                               {BindingKind::Tensor, 1},
                                               {BindingKind::Tensor, 2},
                                               candidates,
                                               {BindingKind::Tensor, 0}}; // 5: topk_lane_staged's quads
    // Rows of neighbouring elements (up to 32 bits) load through shared memory (topk_lane_staged.comp):
    // directly, each load of a subgroup touches as many rows' cache lines. H200 lane level us, direct /
    // staged (bench/NOTES.md, issue 59): (1048576,32) K=4 157 / 134 (123 with laneConsiderBatch's select
    // tree, 115 with the keys read from the stage), (3,1000) K=16 20.7 / 17.9; (4096,1024) K=8 about
    // even; (10000,33) K=5 12.0 / 12.3 (18.4 / 20.7 under mobile-vk11: 40 workgroups, batches of 8 with
    // barriers against 2 batches of 32).
    // Short rows of whole quads (n <= kLaneDirectQuadsMaxRow, KMAX <= 8, as measured) are read by topk_lane
    // directly, a quad at a time, with no stage or barrier: H100 lane level us, staged / direct
    // (bench/NOTES.md, issue 59): (1048576,32) K=4 106.8 / 89.1 (the TopK matrix: 114.7 -> 88.8), K=1 85.8
    // / 66.3, (100000,32) K=4 16.4 / 14.3; longer rows lose: (65536,128) K=8 36.4 / 37.1, (4096,1024)
    // K=8 21.0 / 22.0.
    const bool directQuads =
        quads && (laneDirectQuadsForTests >= 0 ? laneDirectQuadsForTests != 0
                                               : n <= kLaneDirectQuadsMaxRow && kmax <= 8);
    const bool staged = !laneStagedDisabledForTests && !directQuads && strides[desc.Axis] == 1 && keyw == 1;
    const std::string first = staged ? std::string("topk_lane_staged.") + elementClass(in.DataType)
                                     : std::string("topk_lane.") + typeClass(in.DataType);
    addDispatch(plan, first + "." + kmaxName, bindings, parts > 1 ? 1 : 0,
                groupsFor(rows * parts, limits.groupSize()));
    // The second pass ranks each candidate by binary searches in the other parts' lists, one invocation a
    // candidate; the merge, one invocation a row, does less work in all, which wins where rows are many and
    // each has many parts to search. H200 (bench/NOTES.md, issue 59), rank / merge us: (128,4096,64) K=16
    // (8192 rows of 4 parts) 16.4 / 28.7, (64,4096,64) K=16 (4096 of 8) 28.4 / 36.4, (3,1000) K=16 (3 of 15)
    // 10.2 / 28.7, but (4096,1024) K=8 (4096 of 16) 41.7 / 23.3.
    if (parts > 1) {
        const bool merge = rows >= kLaneMergeMinRows && parts >= kLaneMergeMinParts;
        if (merge)
            addDispatch(plan, std::string("topk_lane_merge.") + elementClass(in.DataType) + "." + kmaxName,
                        bindings, 0, static_cast<uint32_t>(std::min<uint64_t>((rows + 63) / 64, 65535)));
        else
            addDispatch(plan, std::string("topk_lane_rank.") + elementClass(in.DataType), bindings, 0,
                        groupsFor(rows * parts * kmax, limits.groupSize()));
    }
    return plan;
}

// A row's parts in one workgroup (topk_lane_group.comp; strided rows of types up to 32 bits, K <= 16):
// the parts share a threshold and merge in shared memory, in one dispatch. P parts a row, a power of 2: the
// most up to `wanted` whose parts hold KMAX elements each (1 where none does).
uint64_t laneGroupShape(uint64_t n, uint64_t kmax, uint64_t wanted) {
    uint64_t P = 1;
    while (P * 2 <= std::min<uint64_t>(wanted, 16) && n / (P * 2) >= kmax) P *= 2;
    return P;
}

// The parts a row the group wants for this KMAX (laneGroupPartsForTests where set). H100 us (bench/NOTES.md,
// issue 59), base topk_lane / 16 parts / 8 parts: (128,4096,64) axis 1 K=16 124.2 / 113.9 / 101.4, K=4
// 109.3 / 66.6 / 71.9; (2048,512) axis 0 K=8 113.7 / 22.0 / 34.6; (300,4096) axis 0 K=16 38.9 / 20.2 / 16.4.
// With the filter by value, 16 parts (takes from 32) stay behind 8 (takes from 48) at K=16: 103.9
// against 79.6.
uint64_t laneGroupWanted(uint64_t kmax) {
    return laneGroupPartsForTests ? laneGroupPartsForTests : kmax <= 8 ? 16 : 8;
}

Result<Plan> planLaneGroup(Plan plan, const TopKDesc& desc, uint64_t rows, uint64_t kmax,
                           const PlanLimits& limits) {
    const TensorDesc& in = desc.InputTensor;
    const uint64_t n = in.Sizes[desc.Axis], wanted = laneGroupWanted(kmax);
    const uint64_t P = laneGroupShape(n, kmax, wanted);
    const uint64_t L = (n + P - 1) / P, R = limits.groupSize() / P;
    // The threshold is taken again once the parts have seen 48 elements each, and at every doubling: H100
    // us, once at 64 (16 parts) or 96 (8) / at 48 and doubling: (128,4096,64) axis 1 K=16 81.9 / 79.6, K=4
    // 63.0 / 61.2; (2048,512) axis 0 K=8 21.2 / 21.8; (300,4096) axis 0 K=16 15.9 / 15.9.
    const uint32_t refresh = 48, again = 1;
    topkParams(plan.params, desc, kmax, 0, 1, 1, rows, rows, 0);
    plan.params.insert(plan.params.end(),
                       {static_cast<uint32_t>(P), static_cast<uint32_t>(L), 8 * elementSize(in.DataType),
                        keyKind(in.DataType), 1u, refresh, again});
    addDispatch(
        plan, std::string("topk_lane_group.") + typeClass(in.DataType) + ".k" + std::to_string(kmax),
        {{BindingKind::Params}, {BindingKind::Tensor, 0}, {BindingKind::Tensor, 1}, {BindingKind::Tensor, 2}},
        0, (rows + R - 1) / R, true); // modes: fast = FLOAT32's NaNs kept by the comparisons
    return plan;
}

// The chunk count and B of planChunk for rows of n with this K, or B = 0 when the row is too long for it.
std::pair<uint64_t, uint64_t> chunkShape(uint64_t n, uint64_t K) {
    const uint64_t chunks = (n + kChunk - 1) / kChunk;
    const uint64_t B = std::max(K, std::min(kChunkMaxB, kChunkList / chunks));
    return {chunks, chunks * B <= kChunk ? B : 0};
}

// Long rows in one dispatch (topk_chunk.comp): each chunk's workgroup narrows it to B candidates in the
// row's list, and the row's last workgroup to arrive selects the K winners from the list.
Result<Plan> planChunk(Plan plan, const TopKDesc& desc, uint64_t rows, uint64_t chunks, uint64_t B,
                       const PlanLimits& limits) {
    uint64_t T = 1;
    uint32_t log2T = 0;
    while (T < desc.K) T <<= 1, ++log2T;
    topkParams(plan.params, desc, T, log2T, 1, 1, rows, rows, 0);
    plan.params.insert(plan.params.end(),
                       {8 * elementSize(desc.InputTensor.DataType), static_cast<uint32_t>(chunks),
                        static_cast<uint32_t>(B), keyKind(desc.InputTensor.DataType)});
    const uint64_t listBytes = rows * chunks * B * 8;
    if (listBytes > limits.maxStorageBufferRange || rows * chunks * B * 2 > 0xFFFFFFFFull)
        return scratchTooLarge("candidate list", limits);
    plan.scratchBytes = listBytes;
    plan.zeroedScratchBytes = rows * 8;
    addDispatch(plan,
                std::string("topk_chunk.") + elementClass(desc.InputTensor.DataType) +
                    (T <= 256 ? ".s256" : ".s1024"),
                {{BindingKind::Params},
                 {BindingKind::Tensor, 0},
                 {BindingKind::Tensor, 1},
                 {BindingKind::Tensor, 2},
                 {BindingKind::Scratch, 0, 0, listBytes},
                 {BindingKind::ZeroedScratch, 0, 0, rows * 8}},
                0, rows * chunks, true); // modes: fast = subgroup scans
    return plan;
}

// Rows of up to four tiles (topk_row.comp): one workgroup per row, one dispatch.
Result<Plan> planRow(Plan plan, const TopKDesc& desc, uint64_t rows) {
    uint64_t T = 1;
    uint32_t log2T = 0;
    while (T < desc.K) T <<= 1, ++log2T;
    topkParams(plan.params, desc, T, log2T, 1, 1, rows, rows, 0);
    plan.params.push_back(8 * elementSize(desc.InputTensor.DataType));
    addDispatch(
        plan,
        std::string("topk_row.") + typeClass(desc.InputTensor.DataType) + (T <= 256 ? ".s256" : ".s1024"),
        {{BindingKind::Params}, {BindingKind::Tensor, 0}, {BindingKind::Tensor, 1}, {BindingKind::Tensor, 2}},
        0, rows, true); // modes: fast = subgroup scans
    return plan;
}

Result<Plan> planTiles(Plan plan, const TopKDesc& desc, uint64_t rows, const PlanLimits& limits);

// On a small device: rows that sampled selection takes (types up to 32 bits, rows over kRowMaxRow,
// K <= kSlots), as the full planner's chunk and select strategies do.
bool smallSelect(const TopKDesc& desc) {
    return desc.K <= kSlots && elementSize(desc.InputTensor.DataType) <= 4 &&
           desc.InputTensor.Sizes[desc.Axis] > kRowMaxRow;
}
// K over kSlots, at most 1/kLargeMinRatio of rows over kRowMaxRow, types up to 32 bits: sampled selection
// gathers a list of candidates that the list sort orders (planSelect's `large`), on every device.
bool largeSelect(const TopKDesc& desc) {
    const uint64_t n = desc.InputTensor.Sizes[desc.Axis];
    return desc.K > kSlots && desc.K <= n / kLargeMinRatio && elementSize(desc.InputTensor.DataType) <= 4 &&
           n > kRowMaxRow;
}

} // namespace

bool chunkDisabledForTests = false;
bool rankDisabledForTests = false;
bool laneStagedDisabledForTests = false;
uint64_t laneGroupPartsForTests = 0;
bool laneGroupDisabledForTests = false;
int laneDirectQuadsForTests = -1;

Result<Plan> planTopK(const TopKDesc& desc, const PlanLimits& limits) {
    if (!desc.CountTensor.Sizes.empty() || !desc.CountTensor.Strides.empty())
        return planTopKCounted(desc, limits);
    const char* op = "TopK";
    const TensorDesc& in = desc.InputTensor;
    if (Status s = checkTensor(op, "InputTensor", in, false, limits); !s) return s;
    if (Status s = checkTensor(op, "OutputValueTensor", desc.OutputValueTensor, true, limits); !s) return s;
    if (Status s = checkTensor(op, "OutputIndexTensor", desc.OutputIndexTensor, true, limits); !s) return s;
    if (Status s = checkType(
            op, "InputTensor", in,
            {DataType::Float32, DataType::Float16, DataType::BFloat16, DataType::Int8, DataType::Int16,
             DataType::Int32, DataType::Int64, DataType::UInt8, DataType::UInt16, DataType::UInt32,
             DataType::UInt64},
            "FLOAT32, FLOAT16, BFLOAT16, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32 or UINT64");
        !s)
        return s;
    if (Status s =
            checkType(op, "OutputIndexTensor", desc.OutputIndexTensor,
                      {DataType::UInt32, DataType::UInt64, DataType::Int64}, "UINT32, UINT64 or INT64");
        !s)
        return s;
    if (Status s = checkSameRank(op, "OutputValueTensor", desc.OutputValueTensor, in); !s) return s;
    if (Status s = checkSameRank(op, "OutputIndexTensor", desc.OutputIndexTensor, in); !s) return s;
    if (Status s = checkSameType(op, "OutputValueTensor", desc.OutputValueTensor, in); !s) return s;
    const uint32_t n = in.dimensionCount();
    if (desc.Axis >= n)
        return invalid(op, "Axis (" + std::to_string(desc.Axis) +
                               ") must be less than InputTensor.DimensionCount (" + std::to_string(n) + ")");
    const uint32_t axisSize = in.Sizes[desc.Axis];
    if (desc.K > axisSize)
        return invalid(op, "K (" + std::to_string(desc.K) + ") exceeds InputTensor.Sizes[" +
                               std::to_string(desc.Axis) + "] (" + std::to_string(axisSize) + ")");
    if (static_cast<uint32_t>(desc.AxisDirection) > 1)
        return invalid(op, "AxisDirection (" + std::to_string(static_cast<uint32_t>(desc.AxisDirection)) +
                               ") must be DECREASING (0) or INCREASING (1)");
    std::vector<uint32_t> outSizes = in.Sizes;
    outSizes[desc.Axis] = desc.K;
    const char* why = "InputTensor.Sizes with Sizes[Axis] = K";
    if (Status s = checkSizes(op, "OutputValueTensor", desc.OutputValueTensor, outSizes, why); !s) return s;
    if (Status s = checkSizes(op, "OutputIndexTensor", desc.OutputIndexTensor, outSizes, why); !s) return s;

    Plan plan;
    plan.op = op;
    plan.tensorNames = {"InputTensor", "OutputValueTensor", "OutputIndexTensor"};
    plan.tensors = {in, desc.OutputValueTensor, desc.OutputIndexTensor};
    plan.firstOutput = 1;
    const uint64_t rows = in.elementCount() / std::max<uint32_t>(axisSize, 1);
    const uint64_t K = desc.K;
    if (K == 0 || rows == 0 || axisSize == 0) return plan;
    const bool contiguousRows = effectiveStrides(in)[desc.Axis] == 1;
    const uint64_t elements = rows * axisSize;
    if (axisSize <= kRankMaxRow && rows <= kRankMaxRows &&
        elements <= (contiguousRows ? kRankMaxElements : kRankMaxStridedElements) &&
        elements * axisSize <= (K <= kLaneMaxK ? kRankMaxWork : kRankMaxWorkLargeK) && !rankDisabledForTests)
        return planRank(std::move(plan), desc, rows, limits);
    if (K <= kLaneMaxK) {
        uint64_t kmax = 1;
        while (kmax < K) kmax <<= 1;
        const uint64_t most =
            std::max<uint64_t>(1, std::min<uint64_t>(axisSize / (4 * kmax), kLaneMergeMax / kmax));
        const uint64_t target = contiguousRows ? kLaneInvocations : kLaneStridedInvocations;
        const uint64_t parts = std::clamp<uint64_t>((target + rows - 1) / rows, 1, most);
        // On a small device the lanes also take long contiguous rows with enough rows * parts to fill a
        // GPU where sampled selection does not (64-bit types, rows up to kRowMaxRow): H200 under
        // mobile-vk11, (256,50257) K=8: 162 us by lanes, 282 by the radix below.
        if (axisSize <= kSlots || (!contiguousRows && rows * parts >= kLaneInvocations / 2) ||
            (limits.smallKernels && rows * parts >= kLaneInvocations / 8 && !smallSelect(desc))) {
            // Strided rows of up to 32 bits, K <= 16, with parts enough (measured down to 8 parts a row
            // and 8192 invocations): a row's parts in one workgroup. Small devices have no form of it.
            const uint64_t groupParts = laneGroupShape(axisSize, kmax, laneGroupWanted(kmax));
            if (!contiguousRows && !limits.smallKernels && kmax <= 16 && elementSize(in.DataType) <= 4 &&
                !laneGroupDisabledForTests &&
                (laneGroupPartsForTests != 0 || (groupParts >= 8 && rows * groupParts >= 8192)))
                return planLaneGroup(std::move(plan), desc, rows, kmax, limits);
            return planLane(std::move(plan), desc, rows, parts, limits);
        }
    }
    if (limits.smallKernels) {
        // The small device's long rows: sampled selection reads a row about once (its small forms: 2048
        // samples, 1024 bins, 4 storage buffers); radix selection, for the rest over kSlots, once a digit;
        // the tiles sort all of it (H200 under mobile-vk11: bench/NOTES.md, issue 58).
        if (smallSelect(desc)) return planSelect(std::move(plan), desc, rows, limits);
        if (largeSelect(desc)) return planSelect(std::move(plan), desc, rows, limits, true);
        // Rows of kSlots + 1 to kRowMaxRow, which the full planner gives topk_row: sampled selection too
        // where its lists fit the device (H200 under mobile-vk11, (4096,4096) K=256: the radix took 345 us,
        // 2.6x the portable family's topk_row), else the radix.
        if (K <= kSlots && axisSize > kSlots && elementSize(in.DataType) <= 4) {
            auto selected = planSelect(Plan(plan), desc, rows, limits);
            if (selected) return selected;
        }
        if (K <= kSlots && axisSize > kSlots) return planRadix(std::move(plan), desc, rows, limits);
        return planTiles(std::move(plan), desc, rows, limits);
    }
    if (K <= kSlots && elementSize(in.DataType) <= 4 && axisSize > kRowMinRow && axisSize <= kRowMaxRow)
        return planRow(std::move(plan), desc, rows);
    if (K <= kSlots && elementSize(in.DataType) <= 4 && axisSize > kRowMaxRow) {
        const auto [chunks, B] = chunkShape(axisSize, K);
        if (B != 0 && !chunkDisabledForTests && (rows * chunks <= kChunkOneWave || rows >= kChunkManyRows))
            return planChunk(std::move(plan), desc, rows, chunks, B, limits);
    }
    if (K <= kSlots && elementSize(in.DataType) <= 4 && axisSize > kSlots)
        return planSelect(std::move(plan), desc, rows, limits);
    if (largeSelect(desc)) return planSelect(std::move(plan), desc, rows, limits, true);
    if (K <= kSlots && elementSize(in.DataType) == 8 && axisSize > kRadixMinRow)
        return planRadix(std::move(plan), desc, rows, limits);
    return planTiles(std::move(plan), desc, rows, limits);
}

namespace {
// Every row in tiles of up to kSlots entries sorted in shared memory, merged pairwise level by level, then
// the winners' values copied: any type, any K, and the least shared memory of the strategies.
Result<Plan> planTiles(Plan plan, const TopKDesc& desc, uint64_t rows, const PlanLimits& limits) {
    const char* op = "TopK";
    const TensorDesc& in = desc.InputTensor;
    const uint32_t axisSize = in.Sizes[desc.Axis];
    const uint64_t K = desc.K;
    uint64_t T = 1, tiles = 1, perGroup = 1;
    if (axisSize <= kSlots) {
        while (T < axisSize) T <<= 1;
        perGroup = kSlots / T;
    } else {
        T = kSlots;
        tiles = (axisSize + T - 1) / T;
    }
    uint32_t log2T = 0;
    while ((1ull << log2T) < T) ++log2T;
    uint32_t levels = 0;
    while ((1ull << levels) < tiles) ++levels;
    const uint64_t totalTiles = rows * tiles;
    const bool wide = elementSize(in.DataType) == 8;
    const uint64_t entryBytes = wide ? 12 : 8;

    // Runs of even levels live in region A, odd levels in region B.
    uint64_t regionEntries[2] = {0, 0};
    for (uint32_t l = 0; l <= levels; ++l)
        regionEntries[l % 2] =
            std::max(regionEntries[l % 2], rows * runCount(tiles, l) * runCapacity(K, T, l));
    ScratchLayout scratch;
    const PlanBinding regionA = scratch.add(regionEntries[0] * entryBytes),
                      regionB = scratch.add(regionEntries[1] * entryBytes);
    if (scratch.largest() > limits.maxStorageBufferRange || totalTiles > 0xFFFFFFFFull)
        return unsupported(op, "its merge passes need " + std::to_string(scratch.largest()) +
                                   " bytes of scratch in one binding, more than the device's "
                                   "maxStorageBufferRange (" +
                                   std::to_string(limits.maxStorageBufferRange) + ")");
    plan.scratchBytes = scratch.bytes();

    topkParams(plan.params, desc, T, log2T, tiles, perGroup, totalTiles, rows, levels);

    auto region = [&](uint32_t level) { return level % 2 ? regionB : regionA; };
    const std::string keyw = wide ? "k2" : "k1";
    PlanDispatch tile;
    tile.kernel = std::string("topk_tile.") + typeClass(in.DataType);
    tile.bindings = {{BindingKind::Params}, {BindingKind::Tensor, 0}, region(0)};
    tile.groups = static_cast<uint32_t>(std::min<uint64_t>((totalTiles + perGroup - 1) / perGroup, 65535));
    plan.dispatches.push_back(tile);
    for (uint32_t l = 0; l < levels; ++l) {
        PlanDispatch merge;
        merge.kernel = "topk_merge." + keyw;
        merge.bindings = {{BindingKind::Params}, region(l), region(l + 1)};
        merge.arg = l;
        merge.groups = groupsFor(rows * runCount(tiles, l) * runCapacity(K, T, l));
        plan.dispatches.push_back(merge);
    }
    PlanDispatch emit;
    emit.kernel = std::string("topk_emit.") + elementClass(in.DataType) + "." + keyw;
    emit.bindings = {{BindingKind::Params},
                     {BindingKind::Tensor, 0},
                     region(levels),
                     {BindingKind::Tensor, 1},
                     {BindingKind::Tensor, 2}};
    emit.groups = groupsFor(rows * K);
    plan.dispatches.push_back(emit);
    return plan;
}
} // namespace

} // namespace ripple::core
