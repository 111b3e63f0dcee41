// SPDX-License-Identifier: MIT
// Validation and shape rules, with their messages; pure core, no GPU.
#include "core/planners.hpp"
#include "core/shape.hpp"

#include <catch2/catch.hpp>

using namespace ripple;

namespace {

core::PlanLimits limits() {
    return {};
}

TopKDesc topk(std::vector<uint32_t> sizes, uint32_t axis, uint32_t k, DataType type = DataType::Float32) {
    TopKDesc d;
    d.InputTensor = {type, sizes, {}};
    auto out = sizes;
    if (axis < out.size()) out[axis] = k;
    d.OutputValueTensor = {type, out, {}};
    d.OutputIndexTensor = {DataType::UInt32, out, {}};
    d.Axis = axis;
    d.K = k;
    return d;
}

ScatterNDDesc scatterND() { // DirectML's example: input {8}, indices {4,1}, updates {4}, padded to rank 2
    ScatterNDDesc d;
    d.InputTensor = d.OutputTensor = {DataType::Float32, {1, 8}, {}};
    d.IndicesTensor = {DataType::UInt32, {4, 1}, {}};
    d.UpdatesTensor = {DataType::Float32, {1, 4}, {}};
    d.InputDimensionCount = 1;
    d.IndicesDimensionCount = 2;
    return d;
}

ScatterElementsDesc scatterElements() {
    ScatterElementsDesc d;
    d.InputTensor = d.OutputTensor = {DataType::Int16, {3, 5}, {}};
    d.IndicesTensor = {DataType::Int64, {2, 5}, {}};
    d.UpdatesTensor = {DataType::Int16, {2, 5}, {}};
    d.Axis = 0;
    return d;
}

template <class R> std::string messageOf(const R& r) {
    return r.ok() ? "(ok)" : r.status().message();
}

} // namespace

TEST_CASE("calcBufferTensorSize follows DMLCalcBufferTensorSize", "[unit]") {
    CHECK(calcBufferTensorSize({DataType::Float32, {2, 3}, {}}) == 24);
    CHECK(calcBufferTensorSize({DataType::UInt8, {7}, {}}) == 8); // rounded up to 4
    CHECK(calcBufferTensorSize({DataType::Int16, {3, 2}, {1, 3}}) ==
          12); // last element at 1*2+2*3... = 5 -> 6*2
    CHECK(calcBufferTensorSize({DataType::Float64, {4, 4}, {0, 1}}) == 32); // broadcast rows
    CHECK(calcBufferTensorSize({DataType::Float32, {0, 3}, {}}) == 0);
    CHECK(packedStrides({2, 3, 4}) == std::vector<uint32_t>{12, 4, 1});
}

TEST_CASE("TopK rules name the tensor, the field and the rule", "[unit]") {
    CHECK(messageOf(core::planTopK(topk({1, 4}, 1, 5), limits())) ==
          "TopK: K (5) exceeds InputTensor.Sizes[1] (4)");
    CHECK(messageOf(core::planTopK(topk({1, 4}, 2, 1), limits())) ==
          "TopK: Axis (2) must be less than InputTensor.DimensionCount (2)");
    CHECK(messageOf(core::planTopK(topk({1, 1, 1, 1, 1, 1, 1, 1, 2}, 8, 1), limits())) ==
          "TopK: InputTensor.DimensionCount (9) must be 1 to 8");
    auto d = topk({3, 4}, 1, 2);
    d.OutputValueTensor.Sizes = {3, 3};
    CHECK(messageOf(core::planTopK(d, limits())) ==
          "TopK: OutputValueTensor.Sizes {3,3} must be {3,2} (InputTensor.Sizes with Sizes[Axis] = K)");
    d = topk({3, 4}, 1, 2);
    d.InputTensor.DataType = d.OutputValueTensor.DataType = DataType::Float64;
    CHECK(
        messageOf(core::planTopK(d, limits())) ==
        "TopK: InputTensor.DataType (FLOAT64) must be FLOAT32, FLOAT16, BFLOAT16, INT8, INT16, INT32, INT64, "
        "UINT8, UINT16, UINT32 or UINT64");
    d = topk({3, 4}, 1, 2);
    d.OutputIndexTensor.DataType = DataType::Int32;
    CHECK(messageOf(core::planTopK(d, limits())) ==
          "TopK: OutputIndexTensor.DataType (INT32) must be UINT32, UINT64 or INT64");
    d = topk({3, 4}, 1, 2);
    d.OutputValueTensor.DataType = DataType::Float16;
    CHECK(messageOf(core::planTopK(d, limits())) ==
          "TopK: OutputValueTensor.DataType (FLOAT16) must equal InputTensor.DataType (FLOAT32)");
    d = topk({3, 4}, 1, 2);
    d.InputTensor.Strides = {4};
    CHECK(messageOf(core::planTopK(d, limits())) ==
          "TopK: InputTensor.Strides has 1 entries; it must be empty or have one per size (2)");
    d = topk({3, 4}, 1, 2);
    d.OutputValueTensor.Strides = {1, 3};
    auto r = core::planTopK(d, limits());
    CHECK(r.status().code() == StatusCode::Unsupported);
    CHECK(messageOf(r).find("OutputValueTensor.Strides {1,3} are not packed") != std::string::npos);
}

TEST_CASE(
    "TopK plans by shape: nothing for K = 0 or empty inputs, then lists, tiles, rows or radix selection",
    "[unit]") {
    // (A semicolon in this name once split it into two CTest entries that matched nothing and "passed".)
    auto empty = core::planTopK(topk({3, 4}, 1, 0), limits());
    REQUIRE(empty.ok());
    CHECK(empty.value().dispatches.empty());
    auto none = core::planTopK(topk({0, 4}, 1, 2), limits());
    REQUIRE(none.ok());
    CHECK(none.value().dispatches.empty());
    // Short rows in a small dispatch, any K: rank counting, one invocation per element, within four
    // bounds: rows of at most 128, at most 8192 rows, at most 262144 elements (65536 strided along the
    // axis), rows * n * n at most 2^24 (2^22 for K over 32, where tiles are the alternative).
    auto tiny = core::planTopK(topk({1, 1, 3, 4}, 3, 2), limits());
    REQUIRE(tiny.ok());
    REQUIRE(tiny.value().dispatches.size() == 1);
    CHECK(tiny.value().dispatches[0].kernel == "topk_rank.f32");
    CHECK(tiny.value().dispatches[0].groups == 1);
    REQUIRE(tiny.value().params.size() == 33);
    CHECK(tiny.value().params[0] == 4);   // n
    CHECK(tiny.value().params[8] == 3);   // rows
    CHECK(tiny.value().params[32] == 32); // key bits
    const auto first = [](const TopKDesc& d) {
        return core::planTopK(d, limits()).value().dispatches[0].kernel;
    };
    CHECK(first(topk({8192, 32}, 1, 4)) == "topk_rank.f32");
    // Lanes past those (rows of whole quads up to 64 and K <= 8 read directly, others staged):
    CHECK(first(topk({8193, 32}, 1, 4)) == "topk_lane.f32.k4"); // over 262144 elements
    CHECK(first(topk({8193, 16}, 1, 4)) == "topk_lane.f32.k4"); // over 8192 rows
    CHECK(first(topk({8193, 33}, 1, 4)) == "topk_lane_staged.b32.k4");
    CHECK(first(topk({8193, 32}, 1, 9)) == "topk_lane_staged.b32.k16");
    CHECK(first(topk({1024, 128}, 1, 32)) == "topk_rank.f32"); // rows * n * n = 2^24
    CHECK(first(topk({1024, 128}, 1, 33)) != "topk_rank.f32");
    CHECK(first(topk({256, 128}, 1, 100)) == "topk_rank.f32"); // 2^22
    CHECK(first(topk({1025, 128}, 1, 8)) != "topk_rank.f32");
    CHECK(first(topk({1, 129}, 1, 8)) != "topk_rank.f32");
    CHECK(first(topk({64, 1024}, 0, 8)) == "topk_rank.f32"); // strided rows: 65536 elements
    CHECK(first(topk({65, 1024}, 0, 8)) != "topk_rank.f32");
    {
        core::rankDisabledForTests = true;
        CHECK(first(topk({1, 1, 3, 4}, 3, 2)) == "topk_lane.f32.k2"); // a row of one quad: read directly
        core::rankDisabledForTests = false;
    }
    // K <= 32 on rows of one tile: invocation-private lists; one part per row when 4 KMAX > n.
    auto shortRows = core::planTopK(topk({10000, 33}, 1, 5), limits());
    REQUIRE(shortRows.ok());
    REQUIRE(shortRows.value().dispatches.size() == 1);
    CHECK(shortRows.value().dispatches[0].kernel == "topk_lane_staged.b32.k8");
    CHECK(shortRows.value().dispatches[0].arg == 0); // writes the outputs itself
    REQUIRE(shortRows.value().params.size() == 35);
    CHECK(shortRows.value().params[33] == 0x7F800000u); // the type's order, for topk_lane_staged
    CHECK(shortRows.value().params[34] == 0);           // rows of 33: no 16-byte loads
    // 16-byte loads where every part is whole aligned quads of 32-bit elements: rows of 40, a pitch of 80,
    // but not a pitch of 78 or 16-bit elements. The quads are the input again, at binding 5.
    const auto quads = [&](std::vector<uint32_t> sizes, std::vector<uint32_t> strides, DataType type) {
        ripple::TopKDesc d = topk(sizes, 1, 5, type);
        d.InputTensor.Strides = strides;
        core::rankDisabledForTests = true; // short rows would take rank counting
        auto p = core::planTopK(d, limits());
        core::rankDisabledForTests = false;
        REQUIRE(p.ok());
        REQUIRE(p.value().dispatches[0].bindings.size() == 6);
        CHECK(p.value().dispatches[0].bindings[5].kind == core::BindingKind::Tensor);
        CHECK(p.value().dispatches[0].bindings[5].tensor == 0);
        return p.value().params[34];
    };
    CHECK(quads({10000, 40}, {}, DataType::Float32) == 1);
    CHECK(quads({300, 76}, {80, 1}, DataType::Int32) == 1);
    CHECK(quads({300, 76}, {78, 1}, DataType::Int32) == 0);
    CHECK(quads({10000, 40}, {}, DataType::Float16) == 0);
    // Rows of neighbouring elements of up to 32 bits load through shared memory, one variant a width;
    // 64-bit types and strided rows read directly, and so does everything under the tests' switch.
    CHECK(first(topk({10000, 33}, 1, 5, DataType::UInt8)) == "topk_lane_staged.b8.k8");
    CHECK(first(topk({10000, 33}, 1, 5, DataType::Int64)) == "topk_lane.i64.k8");
    CHECK(first(topk({4096, 2048}, 0, 16)) == "topk_lane_group.f32.k16");
    auto oneRound = core::planTopK(topk({10000, 40}, 1, 20), limits()); // one part a row: the outputs
    REQUIRE(oneRound.value().dispatches.size() == 1);
    CHECK(oneRound.value().dispatches[0].kernel == "topk_lane_staged.b32.k32");
    CHECK(oneRound.value().dispatches[0].arg == 0);
    core::laneStagedDisabledForTests = true;
    CHECK(first(topk({10000, 33}, 1, 5)) == "topk_lane.f32.k8");
    CHECK(first(topk({10000, 33}, 1, 5, DataType::UInt8)) == "topk_lane.u8.k8");
    core::laneStagedDisabledForTests = false;
    // Few rows: parts of at least 4 KMAX elements, then ranks by search.
    auto parted = core::planTopK(topk({3, 1000}, 1, 16), limits());
    REQUIRE(parted.value().dispatches.size() == 2);
    CHECK(parted.value().dispatches[0].arg == 1);
    CHECK(parted.value().dispatches[1].kernel == "topk_lane_rank.b32");
    CHECK(parted.value().params[30] == 15); // parts: 1000 / (4 * 16)
    // Many rows of many parts: merged a row an invocation instead.
    auto merged = core::planTopK(topk({4096, 300}, 1, 2), limits());
    REQUIRE(merged.value().dispatches.size() == 2);
    CHECK(merged.value().dispatches[1].kernel == "topk_lane_merge.b32.k2");
    CHECK(merged.value().params[30] == 15); // parts: 65536 / 4096 = 16 of 19, made whole quads: 15 of 20
    CHECK(merged.value().params[31] == 20);
    CHECK(merged.value().params[34] == 1);
    // K over 32 on rows of one tile: tile sort, emit.
    CHECK(core::planTopK(topk({10000, 33}, 1, 33), limits()).value().dispatches.size() == 2);
    // Strided rows with enough rows * parts (here 2048 * 16: strided rows aim at 32768 invocations) for the
    // lists, whatever their length.
    // Those rows with 8 parts of 4096 / 8 and more (2048 * 8 invocations) take a row's parts in one
    // workgroup: 8 parts at K = 16, 16 parts at K <= 8, the threshold taken again at 48 and each doubling;
    // too few invocations ({4096, 256} K = 4: 256 * 16) and rows too short for 8 parts of KMAX keep
    // topk_lane. The group has modes (FLOAT32's fast form).
    auto group = core::planTopK(topk({4096, 2048}, 0, 16), limits());
    REQUIRE(group.value().dispatches.size() == 1);
    CHECK(group.value().dispatches[0].kernel == "topk_lane_group.f32.k16");
    CHECK(group.value().params[30] == 8);
    CHECK(group.value().params[31] == 512);
    CHECK(group.value().params[35] == 48);
    CHECK(group.value().params[36] == 1);
    CHECK(group.value().dispatches[0].hasModes);
    auto group16 = core::planTopK(topk({4096, 2048}, 0, 5), limits());
    CHECK(group16.value().params[30] == 16);
    CHECK(group16.value().params[35] == 48);
    CHECK(group16.value().params[36] == 1);
    CHECK(first(topk({4096, 256}, 0, 4)) == "topk_lane.f32.k4");
    CHECK(first(topk({100, 20000}, 0, 16)) == "topk_lane.f32.k16");
    CHECK(first(topk({4096, 2048}, 0, 16, DataType::Int64)) == "topk_lane.i64.k16");
    core::laneGroupDisabledForTests = true;
    auto stridedLane = core::planTopK(topk({4096, 2048}, 0, 16), limits());
    core::laneGroupDisabledForTests = false;
    REQUIRE(stridedLane.value().dispatches.size() == 2);
    CHECK(stridedLane.value().dispatches[0].kernel == "topk_lane.f32.k16");
    CHECK(stridedLane.value().params[30] == 16);
    // Contiguous rows over one tile, K <= 1024: sampled radix selection, three dispatches.
    auto longRow = core::planTopK(topk({1, 1000000}, 1, 1000), limits());
    REQUIRE(longRow.ok());
    const auto& select = longRow.value().dispatches;
    REQUIRE(select.size() == 3);
    CHECK(select[0].kernel == "topk_select_sample.f32");
    CHECK(select[0].hasModes);
    CHECK(select[1].kernel == "topk_select_filter.f32.state");
    CHECK(select[2].kernel == "topk_select_final.f32.write");
    // Its fast variants are one a key width, the mapping in params word [46] (a float's +infinity).
    CHECK(select[2].fastKernel == "topk_select_final.b32.write");
    CHECK(select[1].fastKernel.empty());
    REQUIRE(longRow.value().params.size() >= 64);
    CHECK(longRow.value().params[46] == 0x7F800000u);
    // Rows of 4096 samples share them among workgroups while rows * parts stays within 128: a single row
    // splits them 32 ways (the row's arrival counter in zeroed scratch), 5 rows 16 ways; 1024 samples
    // (rows under 128 * 4096) keep one workgroup per row, without zeroed scratch.
    CHECK(select[0].groups == 32);
    CHECK(longRow.value().params[42] == 32);
    CHECK(longRow.value().zeroedScratchBytes == 4);
    auto fiveRows = core::planTopK(topk({5, 524417}, 1, 100), limits());
    CHECK(fiveRows.value().dispatches[0].groups == 5 * 16);
    CHECK(fiveRows.value().params[42] == 16);
    // Rows of at most 1024 samples of one element (up to 131199 elements) have no sample dispatch: each
    // filter workgroup samples its row, and the rows' state (4 words) is zeroed scratch.
    auto llmRows = core::planTopK(topk({64, 128256}, 1, 50), limits());
    REQUIRE(llmRows.value().dispatches.size() == 2);
    CHECK(llmRows.value().dispatches[0].kernel == "topk_select_filter.f32.sample");
    CHECK(llmRows.value().dispatches[0].groups == 512);
    CHECK(llmRows.value().params[42] == 1);
    CHECK(llmRows.value().zeroedScratchBytes == 64 * 16);
    auto pastFused = core::planTopK(topk({40, 131200}, 1, 50), limits()); // 1025 samples
    REQUIRE(pastFused.value().dispatches.size() == 3);
    CHECK(pastFused.value().dispatches[1].kernel == "topk_select_filter.f32.state");
    CHECK(pastFused.value().zeroedScratchBytes == 0);
    // Rows of 257 to 4096 (strided, or contiguous over one tile, or with K over 32): one workgroup per row,
    // one dispatch.
    auto strided = core::planTopK(topk({2000, 3}, 0, 16), limits());
    REQUIRE(strided.ok());
    REQUIRE(strided.value().dispatches.size() == 1);
    CHECK(strided.value().dispatches[0].kernel == "topk_row.f32.s256");
    CHECK(strided.value().dispatches[0].hasModes);
    CHECK(core::planTopK(topk({3, 2000}, 1, 257), limits()).value().dispatches[0].kernel ==
          "topk_row.f32.s1024"); // K over 256: 1024 slots
    for (auto rowCase : {topk({3, 2000}, 1, 16), topk({4096, 4096}, 1, 256), topk({5, 300}, 1, 33)}) {
        auto rowPlan = core::planTopK(rowCase, limits());
        REQUIRE(rowPlan.value().dispatches.size() == 1);
        CHECK(rowPlan.value().dispatches[0].kernel.rfind("topk_row.f32.s", 0) == 0);
    }
    // Rows over 4096 whose chunks of 4096 fit one wave, or many rows: one dispatch of chunks, B candidates
    // per chunk (at least K, chunks * B <= 4096), the row state in zeroed scratch.
    auto chunked = core::planTopK(topk({3, 4097}, 1, 16), limits());
    REQUIRE(chunked.value().dispatches.size() == 1);
    CHECK(chunked.value().dispatches[0].kernel == "topk_chunk.b32.s256");
    CHECK(chunked.value().dispatches[0].groups == 6);
    CHECK(chunked.value().params[31] == 2);   // chunks per row
    CHECK(chunked.value().params[32] == 256); // B
    CHECK(chunked.value().zeroedScratchBytes == 3 * 8);
    auto llm = core::planTopK(topk({1, 152064}, 1, 40), limits());
    REQUIRE(llm.value().dispatches.size() == 1);
    CHECK(llm.value().params[31] == 38);
    CHECK(llm.value().params[32] == 67); // 2560 / 38: the final's list aims at 2560 entries
    CHECK(core::planTopK(topk({1024, 8192}, 1, 16), limits()).value().dispatches[0].kernel ==
          "topk_chunk.b32.s256"); // many rows
    CHECK(core::planTopK(topk({3, 9000}, 1, 1000), limits()).value().dispatches[0].kernel ==
          "topk_chunk.b32.s1024"); // B = K = 1000, 3 chunks
    // Otherwise sampled selection: many chunks over few rows, or K too large for chunks * K <= 4096 (rows of
    // 1024 samples: filter and final only, the filter sampling).
    CHECK(core::planTopK(topk({64, 128256}, 1, 50), limits()).value().dispatches[0].kernel ==
          "topk_select_filter.f32.sample");
    CHECK(core::planTopK(topk({1, 20000}, 1, 1000), limits()).value().dispatches[0].kernel ==
          "topk_select_filter.f32.sample");
    {
        core::chunkDisabledForTests = true;
        const auto sampled = core::planTopK(topk({3, 4097}, 1, 16), limits());
        core::chunkDisabledForTests = false;
        REQUIRE(sampled.ok());
        CHECK(sampled.value().dispatches.size() == 2);
        CHECK(sampled.value().dispatches[0].kernel == "topk_select_filter.f32.sample");
    }
    // K over 1024 on rows at least 8 K long: sampled selection gathering a list (final step in gather mode),
    // which the four steps of a sample sort order and write.
    auto largeK = core::planTopK(topk({1, 1000000}, 1, 4096), limits());
    REQUIRE(largeK.ok());
    const auto& large = largeK.value().dispatches;
    REQUIRE(large.size() == 7);
    CHECK(large[2].kernel == "topk_select_final.f32.gather");
    CHECK(large[2].fastKernel == "topk_select_final.b32.gather");
    CHECK(largeK.value().params[46] == 0x7F800000u);
    CHECK(large[3].kernel == "topk_list_split");
    CHECK(large[4].kernel == "topk_list_count");
    CHECK(large[5].kernel == "topk_list_scatter");
    CHECK(large[6].kernel == "topk_list_sort.b32");
    // Buckets (params [45], a sort workgroup each): one per 256 entries of the list's capacity (46876 here),
    // 64 to 2048. Rows of millions keep 2048; short ones 64, not thousands of empty workgroups.
    CHECK(largeK.value().params[45] == 256);
    CHECK(large[6].groups == 256);
    CHECK(large[3].groups == 256 / 16);
    CHECK(core::planTopK(topk({1, 16777216}, 1, 65536), limits()).value().params[45] == 2048);
    auto fewBuckets = core::planTopK(topk({3, 20011}, 1, 1500), limits());
    REQUIRE(fewBuckets.ok());
    CHECK(fewBuckets.value().params[45] == 64);
    CHECK(fewBuckets.value().dispatches.back().groups == 3 * 64);
    // Nearer the whole row: tiles and merges over the row.
    CHECK(core::planTopK(topk({1, 100000}, 1, 20000), limits()).value().dispatches.front().kernel ==
          "topk_tile.f32");
    // 64-bit keys over 4096: multi-pass radix; init, a histogram pass and a scan per digit (8 key digits and
    // 3 index digits for a million INT64s), gather, sort, emit.
    auto wide = topk({1, 1000000}, 1, 1000);
    wide.InputTensor.DataType = wide.OutputValueTensor.DataType = DataType::Int64;
    auto radixPlan = core::planTopK(wide, limits());
    REQUIRE(radixPlan.ok());
    const auto& radix = radixPlan.value().dispatches;
    REQUIRE(radix.size() == 1 + 2 * 11 + 3);
    CHECK(radix.front().kernel == "topk_radix_init.k2");
    CHECK(radix[1].kernel == "topk_radix_hist.i64");
    CHECK(radix.back().kernel == "topk_emit.b64.k2");
    // K over 1/8 of a long row: tile sort, 10 merge levels (977 tiles), emit.
    auto bigK = core::planTopK(topk({1, 1000000}, 1, 200000), limits());
    REQUIRE(bigK.ok());
    CHECK(bigK.value().dispatches.size() == 12);
    CHECK(bigK.value().dispatches.front().kernel == "topk_tile.f32");
    auto tooBig = core::planTopK(topk({1, 40000000}, 1, 40000000), limits());
    CHECK(tooBig.status().code() == StatusCode::Unsupported);
    CHECK(messageOf(tooBig).find("maxStorageBufferRange") != std::string::npos);
}

TEST_CASE("ScatterND rules name the tensor, the field and the rule", "[unit]") {
    CHECK(core::planScatterND(scatterND(), limits()).ok());
    auto d = scatterND();
    d.UpdatesTensor.Sizes = {1, 3};
    CHECK(messageOf(core::planScatterND(d, limits())) ==
          "ScatterND: UpdatesTensor.Sizes {1,3} must be {1,4} (leading 1s, IndicesTensor's meaningful sizes "
          "without "
          "the last, then InputTensor's trailing InputDimensionCount - q sizes)");
    d = scatterND();
    d.IndicesTensor.DataType = DataType::Float32;
    CHECK(messageOf(core::planScatterND(d, limits())) ==
          "ScatterND: IndicesTensor.DataType (FLOAT32) must be INT32, INT64, UINT32 or UINT64");
    d = scatterND();
    d.IndicesTensor.Sizes = {2, 2};
    d.UpdatesTensor.Sizes = {1, 2};
    CHECK(messageOf(core::planScatterND(d, limits())) ==
          "ScatterND: IndicesTensor.Sizes[1] (2), the index tuple length, must be 0 to InputDimensionCount "
          "(1)");
    d = scatterND(); // q = 0 (ONNX ScatterND-18): updates are whole tensors, {tuples} + input's sizes
    d.IndicesTensor.Sizes = {3, 0};
    d.UpdatesTensor.Sizes = {3, 8};
    CHECK(messageOf(core::planScatterND(d, limits())) == "(ok)");
    d.UpdatesTensor.Sizes = {1, 8};
    CHECK(messageOf(core::planScatterND(d, limits())) ==
          "ScatterND: UpdatesTensor.Sizes {1,8} must be {3,8} (leading 1s, IndicesTensor's meaningful sizes "
          "without the last, then InputTensor's trailing InputDimensionCount - q sizes)");
    d = scatterND();
    d.InputDimensionCount = 3;
    CHECK(messageOf(core::planScatterND(d, limits())) ==
          "ScatterND: InputDimensionCount (3) must be 1 to InputTensor.DimensionCount (2)");
    d = scatterND();
    d.InputTensor.Sizes = d.OutputTensor.Sizes = {2, 4};
    CHECK(messageOf(core::planScatterND(d, limits())) ==
          "ScatterND: InputTensor.Sizes[0] (2) must be 1: only the last InputDimensionCount (1) sizes are "
          "meaningful");
    d = scatterND();
    d.UpdatesTensor.DataType = DataType::Int32;
    CHECK(messageOf(core::planScatterND(d, limits())) ==
          "ScatterND: UpdatesTensor.DataType (INT32) must equal InputTensor.DataType (FLOAT32)");
    d = scatterND();
    d.IndicesTensor.Sizes = {1, 4, 1};
    CHECK(messageOf(core::planScatterND(d, limits())) ==
          "ScatterND: IndicesTensor.DimensionCount (3) must equal InputTensor.DimensionCount (2)");
}

TEST_CASE("Scatter reductions plan a copy, then the reduce pass of the data type with the reduction in its "
          "params",
          "[unit]") {
    auto d = scatterND();
    d.Reduction = ScatterReduction::Max;
    auto p = core::planScatterND(d, limits());
    REQUIRE(p.ok());
    REQUIRE(p.value().dispatches.size() == 2);
    CHECK(p.value().dispatches[1].kernel == "scatter_nd_reduce.f32.u32");
    CHECK(p.value().dispatches[1].hasModes); // FLOAT32's fast variant adds by float atomic add
    CHECK(p.value().params.back() == static_cast<uint32_t>(ScatterReduction::Max));
    d.Reduction = static_cast<ScatterReduction>(5);
    CHECK(messageOf(core::planScatterND(d, limits())) ==
          "ScatterND: Reduction (5) is not a ScatterReduction");
}

TEST_CASE("FLOAT32 ADD into a small output sums per workgroup, then adds by float atomics where the device "
          "runs them, else stores partial sums for a second pass",
          "[unit]") {
    ScatterElementsDesc d; // 1,048,576 updates into 1,024 targets: 1,024 a target
    d.InputTensor = d.OutputTensor = {DataType::Float32, {1, 1024}, {}};
    d.IndicesTensor = {DataType::Int32, {1, 1048576}, {}};
    d.UpdatesTensor = {DataType::Float32, {1, 1048576}, {}};
    d.Axis = 1;
    d.Reduction = ScatterReduction::Add;
    core::PlanLimits atomics;
    atomics.floatAtomicAdd = true;
    auto fast = core::planScatterElements(d, atomics);
    REQUIRE(fast.ok());
    CHECK(fast.value().dispatches.back().kernel == "scatter_elements_reduce_shared.f32.i32");
    CHECK(fast.value().dispatches.back().hasModes);
    CHECK(fast.value().scratchBytes == 0);
    for (bool small : {false, true}) {
        INFO((small ? "small device" : "no float atomics"));
        core::PlanLimits l;
        l.smallKernels = small;
        l.floatAtomicAdd = small; // a small device takes the partials whatever it has
        auto p = core::planScatterElements(d, l);
        REQUIRE(p.ok());
        const auto& ds = p.value().dispatches;
        REQUIRE(ds.size() >= 2);
        const core::PlanDispatch &pass = ds[ds.size() - 2], &sums = ds.back();
        CHECK(pass.kernel == "scatter_elements_reduce_shared.f32.i32.portable");
        CHECK_FALSE(pass.hasModes);
        CHECK(sums.kernel == "scatter_sums_add");
        CHECK(sums.arg == pass.groups); // the partial rows: one a workgroup
        CHECK(pass.groups == 128);
        // The partials binding: the pass writes it (binding 3), the sums read it (binding 1), all of it.
        CHECK(pass.bindings[3].kind == core::BindingKind::Scratch);
        CHECK(sums.bindings[1].kind == core::BindingKind::Scratch);
        CHECK(pass.bindings[3].offset == sums.bindings[1].offset);
        CHECK(pass.bindings[3].size == uint64_t(pass.groups) * 1024 * 4);
        CHECK(p.value().scratchBytes >= pass.bindings[3].offset + pass.bindings[3].size);
        CHECK(sums.bindings[2].kind == core::BindingKind::Tensor);
        CHECK(sums.bindings[2].tensor == 3); // the output
        CHECK(sums.groups == 1024 / 32);
    }
    // Over 2048 targets on a small device (its form sums 2048 in 8 KiB): the per-update pass.
    d.InputTensor = d.OutputTensor = {DataType::Float32, {1, 4096}, {}};
    core::PlanLimits small;
    small.smallKernels = true;
    CHECK(core::planScatterElements(d, small).value().dispatches.back().kernel ==
          "scatter_elements_reduce.f32.i32");
    CHECK(core::planScatterElements(d, limits()).value().dispatches.back().kernel == "scatter_sums_add");
}

TEST_CASE("ScatterND plans a copy then a scatter, and only a copy without updates", "[unit]") {
    auto p = core::planScatterND(scatterND(), limits());
    REQUIRE(p.ok());
    REQUIRE(p.value().dispatches.size() == 2);
    CHECK(p.value().dispatches[0].kernel == "copy.b128"); // packed, 32 bytes: whole 16-byte blocks
    CHECK(p.value().dispatches[1].kernel == "scatter_nd.b32.u32");
    CHECK(p.value().usesStatus);
    auto d = scatterND();
    d.InputTensor.Strides = {8, 1}; // packed strides, given explicitly: still blocks
    CHECK(core::planScatterND(d, limits()).value().dispatches[0].kernel == "copy.b128");
    d.InputTensor.Strides = {16, 2}; // strided: element by element
    CHECK(core::planScatterND(d, limits()).value().dispatches[0].kernel == "copy.b32");
    d = scatterND();
    d.InputTensor.Sizes = d.OutputTensor.Sizes = {1, 7}; // 28 bytes: not whole blocks
    d.UpdatesTensor.Sizes = {1, 4};
    CHECK(core::planScatterND(d, limits()).value().dispatches[0].kernel == "copy.b32");
}

TEST_CASE("ScatterElements rules name the tensor, the field and the rule", "[unit]") {
    CHECK(core::planScatterElements(scatterElements(), limits()).ok());
    auto d = scatterElements();
    d.Axis = 2;
    CHECK(messageOf(core::planScatterElements(d, limits())) ==
          "ScatterElements: Axis (2) must be less than InputTensor.DimensionCount (2)");
    d = scatterElements();
    d.UpdatesTensor.Sizes = {2, 4};
    CHECK(
        messageOf(core::planScatterElements(d, limits())) ==
        "ScatterElements: UpdatesTensor.Sizes {2,4} must be {2,5} (UpdatesTensor has IndicesTensor's sizes)");
    d = scatterElements();
    d.Axis = 1;
    d.IndicesTensor.Sizes = d.UpdatesTensor.Sizes = {4, 2};
    CHECK(messageOf(core::planScatterElements(d, limits())) ==
          "ScatterElements: IndicesTensor.Sizes[0] (4) exceeds InputTensor.Sizes[0] (3); only Sizes[Axis] "
          "may be larger");
    d = scatterElements();
    d.OutputTensor.Sizes = {3, 6};
    CHECK(messageOf(core::planScatterElements(d, limits())) ==
          "ScatterElements: OutputTensor.Sizes {3,6} must be {3,5} (OutputTensor has InputTensor's sizes)");
    d = scatterElements();
    d.InputTensor.Sizes = d.OutputTensor.Sizes = {1u << 16, 1u << 11};
    auto big = core::planScatterElements(d, limits());
    CHECK(big.status().code() == StatusCode::Unsupported);
    CHECK(messageOf(big) == "ScatterElements: InputTensor spans 268435456 bytes, more than the device's "
                            "maxStorageBufferRange (134217728)");
}

TEST_CASE("Tensors are limited to 2^31 - 1 elements, broadcast ones too", "[unit]") {
    auto d = topk({1u << 16, 1u << 16}, 1, 1);
    d.InputTensor.Strides = {0, 0}; // 4 bytes of memory, 2^32 elements
    auto r = core::planTopK(d, limits());
    CHECK(r.status().code() == StatusCode::Unsupported);
    CHECK(
        messageOf(r) ==
        "TopK: InputTensor has 4294967296 elements (Sizes {65536,65536}); at most 2147483647 are supported");
}

// Issue 18 item 7: these products wrapped to 1 element / 4 bytes in 64-bit arithmetic and were accepted.
TEST_CASE("Sizes whose products overflow 64 bits are refused, naming the tensor and the rule", "[unit]") {
    const std::vector<std::vector<uint32_t>> hostile = {{65536, 65536, 65536, 65536},
                                                        {4294967295u, 4294967295u, 3, 2863311531u}};
    for (const auto& sizes : hostile) {
        const std::string rule = " has 2^64 or more elements (Sizes " + core::formatSizes(sizes) +
                                 "); at most 2147483647 are supported";
        ScatterElementsDesc e;
        e.InputTensor = e.OutputTensor = {DataType::Float32, sizes, {}};
        e.IndicesTensor = {DataType::Int32, {1, 1, 1, 1}, {}};
        e.UpdatesTensor = {DataType::Float32, {1, 1, 1, 1}, {}};
        e.Axis = 3;
        CHECK(messageOf(core::planScatterElements(e, limits())) == "ScatterElements: InputTensor" + rule);
        e.InputTensor.Sizes = e.OutputTensor.Sizes = {4, 4, 4, 4};
        e.IndicesTensor.Sizes = e.UpdatesTensor.Sizes = sizes;
        CHECK(messageOf(core::planScatterElements(e, limits())) == "ScatterElements: IndicesTensor" + rule);

        ScatterNDDesc nd;
        nd.InputTensor = nd.OutputTensor = {DataType::Float32, sizes, {}};
        nd.IndicesTensor = {DataType::Int32, {1, 1, 1, 4}, {}};
        nd.UpdatesTensor = {DataType::Float32, {1, 1, 1, 1}, {}};
        nd.InputDimensionCount = nd.IndicesDimensionCount = 4;
        CHECK(messageOf(core::planScatterND(nd, limits())) == "ScatterND: InputTensor" + rule);

        auto t = topk(sizes, 3, 1);
        CHECK(messageOf(core::planTopK(t, limits())) == "TopK: InputTensor" + rule);
    }
    // Strides that place the last element past 2^64 bytes: the byte size saturates, never wraps.
    auto strided = topk({3, 5}, 1, 1);
    strided.InputTensor.Strides = {4294967295u, 4294967295u};
    CHECK(calcBufferTensorSize(strided.InputTensor) > 4ull * 6 * 4294967295u);
    CHECK(core::planTopK(strided, limits()).status().code() == StatusCode::Unsupported);
    TensorDesc huge{DataType::Int64, {4294967295u, 4294967295u, 4294967295u}, {4294967295u, 4294967295u, 1}};
    CHECK(calcBufferTensorSize(huge) == UINT64_MAX);
}

TEST_CASE("BFLOAT16 is ripple's addition: named, 2 bytes, accepted by TopK and the scatters", "[unit]") {
    CHECK(std::string(toString(DataType::BFloat16)) == "BFLOAT16");
    CHECK(elementSize(DataType::BFloat16) == 2);
    auto d = topk({3, 5000}, 1, 7);
    d.InputTensor.DataType = d.OutputValueTensor.DataType = DataType::BFloat16;
    auto p = core::planTopK(d, limits());
    REQUIRE(p.ok());
    CHECK(p.value().dispatches.back().kernel == "topk_chunk.b16.s256");
    auto s = scatterND();
    s.InputTensor.DataType = s.UpdatesTensor.DataType = s.OutputTensor.DataType = DataType::BFloat16;
    REQUIRE(core::planScatterND(s, limits()).ok());
    CHECK(core::planScatterND(s, limits()).value().dispatches[1].kernel == "scatter_nd.b16.u32");
    s.InputTensor.DataType = static_cast<DataType>(12);
    CHECK(messageOf(core::planScatterND(s, limits())) ==
          "ScatterND: InputTensor.DataType (12) is not a DataType");
}

TEST_CASE("Deterministic scatters plan keys, one sort pass per 8 bits of the target count, then the apply "
          "pass",
          "[unit]") {
    auto kernels = [](const core::Plan& p) {
        std::vector<std::string> k;
        for (const auto& d : p.dispatches) k.push_back(d.kernel);
        return k;
    };
    const std::vector<std::string> pass = {"pair_sort_hist", "pair_sort_scan", "pair_sort_scatter"};
    for (uint32_t targets : {1u, 255u, 256u, 65535u, 65536u}) {
        ScatterElementsDesc d;
        d.InputTensor = d.OutputTensor = {DataType::UInt8, {targets}, {}};
        d.IndicesTensor = {DataType::Int32, {1000}, {}};
        d.UpdatesTensor = {DataType::UInt8, {1000}, {}};
        d.Reduction = ScatterReduction::Add;
        d.Deterministic = true;
        auto p = core::planScatterElements(d, limits());
        REQUIRE(p.ok());
        // The largest key is `targets` itself (out-of-range updates): 255 fits 8 bits, 256 needs 9.
        const size_t passes = targets < 256 ? 1 : targets < 65536 ? 2 : 3;
        std::vector<std::string> want = {p.value().dispatches[0].kernel, "scatter_elements_keys.i32"};
        for (size_t i = 0; i < passes; ++i) want.insert(want.end(), pass.begin(), pass.end());
        // 1000 updates: 16 or more per target for 1..62 targets, a workgroup per target's run then.
        want.push_back(1000 >= 16 * targets ? "scatter_ordered_runs.u8" : "scatter_ordered.u8");
        INFO("targets " << targets);
        CHECK(kernels(p.value()) == want);
        for (size_t i = 0; i < passes; ++i)
            CHECK(p.value().dispatches[2 + 3 * i].arg == 8 * i); // digit shift
    }
    auto nd = scatterND();
    nd.Deterministic = true;
    auto p = core::planScatterND(nd, limits());
    REQUIRE(p.ok());
    CHECK(kernels(p.value()).back() == "scatter_ordered_last.b32");
    // Long runs but a target of several elements (ScatterND slices): an invocation per run and 16-byte
    // block of packed 32-bit elements, else per run and element (small devices, other types, strided).
    ScatterNDDesc rows; // 128 index tuples into 8 rows of 4: 16 per row
    rows.InputTensor = rows.OutputTensor = {DataType::Float32, {8, 4}, {}};
    rows.IndicesTensor = {DataType::Int32, {128, 1}, {}};
    rows.UpdatesTensor = {DataType::Float32, {128, 4}, {}};
    rows.InputDimensionCount = rows.IndicesDimensionCount = 2;
    rows.Reduction = ScatterReduction::Add;
    rows.Deterministic = true;
    auto slices = core::planScatterND(rows, limits());
    REQUIRE(slices.ok());
    CHECK(kernels(slices.value()).back() == "scatter_ordered_blocks.f32");
    CHECK(slices.value().params[slices.value().dispatches.back().paramsBase + 1] == 1); // blocks a slice
    core::PlanLimits small = limits();
    small.smallKernels = true;
    CHECK(kernels(core::planScatterND(rows, small).value()).back() == "scatter_ordered.f32");
    rows.UpdatesTensor.Strides = {8, 1}; // every other row of a [256, 4] view: not packed
    CHECK(kernels(core::planScatterND(rows, limits()).value()).back() == "scatter_ordered.f32");
    rows.UpdatesTensor.Strides = {};
    rows.InputTensor.DataType = rows.OutputTensor.DataType = rows.UpdatesTensor.DataType = DataType::Float16;
    CHECK(kernels(core::planScatterND(rows, limits()).value()).back() == "scatter_ordered.f16");
}

// Found by the validation fuzzer once it planned with small kernels too: indices of zero strides bind a
// few bytes for many updates, while the deterministic sort keeps 4 bytes of key per update.
TEST_CASE("A deterministic scatter whose sort would outgrow a binding is refused, naming the limit",
          "[unit]") {
    ScatterNDDesc nd;
    nd.InputTensor = nd.OutputTensor = {DataType::Float32, {1024, 1}, {}};
    nd.IndicesTensor = {DataType::Int32, {1u << 26, 1}, {0, 0}}; // 4 bytes of memory, 2^26 tuples
    nd.UpdatesTensor = {DataType::Float32, {1u << 26, 1}, {0, 0}};
    nd.InputDimensionCount = nd.IndicesDimensionCount = 2;
    REQUIRE(core::planScatterND(nd, limits()).ok()); // not deterministic: no sort
    nd.Deterministic = true;
    auto r = core::planScatterND(nd, limits());
    CHECK(r.status().code() == StatusCode::Unsupported);
    CHECK(messageOf(r) ==
          "ScatterND: its deterministic sort of 67108864 updates needs more than the device's "
          "maxStorageBufferRange (134217728) in one binding");
    ScatterElementsDesc e;
    e.InputTensor = e.OutputTensor = {DataType::Float32, {1024}, {}};
    e.IndicesTensor = {DataType::Int32, {1u << 26}, {0}};
    e.UpdatesTensor = {DataType::Float32, {1u << 26}, {0}};
    e.Deterministic = true;
    CHECK(messageOf(core::planScatterElements(e, limits())) ==
          "ScatterElements: its deterministic sort of 67108864 updates needs more than the device's "
          "maxStorageBufferRange (134217728) in one binding");
}
