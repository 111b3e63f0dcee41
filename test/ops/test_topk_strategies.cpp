// SPDX-License-Identifier: MIT
// TopK through core/topk.cpp's strategies once each, on small inputs: every data type on rank counting and
// tiles, each key width on the lanes, FLOAT32 and UINT8 on one workgroup per row, FLOAT32 on chunks, INT64
// and UINT64 on the multi-pass radix. Each index type and both directions appear. The other TopK tests go
// over each strategy's bounds and data; these ([d3d12_real]) are the d3d12-real label's TopK
// (test/CMakeLists.txt), where vkd3d-shader compiles every kernel variant at run time, from seconds to
// minutes each (docs/D3D12.md), so that they touch few variants.
#include "topk_cases.hpp"

using namespace ripple;
using namespace tk;

namespace {

constexpr DataType kIndexTypes[] = {DataType::UInt32, DataType::UInt64, DataType::Int64};

// Ties or special values, an odd row length and a K that cuts through them; index type and direction vary
// with `seed`. `first` names the strategy's first kernel, so that the case stays on it if the bounds move.
void checkOnce(const std::vector<uint32_t>& sizes, uint32_t axis, uint32_t k, DataType type, uint32_t seed,
               const std::string& first) {
    std::mt19937 rng(seed);
    rt::HostTensor input(type, sizes);
    fillData(input, rng, seed % 2 ? Data::Ties : Data::Special);
    const auto dir = seed % 2 ? AxisDirection::Decreasing : AxisDirection::Increasing;
    const DataType indexType = kIndexTypes[seed % 3];
    auto plan = core::planTopK(makeTopKDesc(input.desc, axis, k, dir, indexType), core::PlanLimits{});
    REQUIRE(plan.ok());
    REQUIRE(!plan->dispatches.empty());
    CHECK(plan->dispatches.front().kernel.rfind(first, 0) == 0);
    checkTopK(rt::device(), input, axis, k, dir, indexType);
}

} // namespace

TEST_CASE("TopK's strategies once: rank counting and tiles for every data type, lanes for each key width",
          "[topk][gpu][topk_once][d3d12_real]") {
    uint32_t seed = 1;
    for (DataType type : kTypes) {
        INFO(toString(type));
        checkOnce({3, 33}, 1, 5, type, seed++, "topk_rank."); // rank counting
        // Tiles: K over the lanes', the row too short for one workgroup per row. A non-last axis.
        checkOnce({200, 2}, 0, 50, type, seed++, "topk_tile.");
    }
    // Invocation-private lists, parts ranked (the rows would fit rank counting): keys of 8 to 64 bits, loaded
    // through shared memory (up to 32 bits), then directly, as strided rows are.
    WithoutRank lanes;
    for (DataType type : {DataType::Float32, DataType::BFloat16, DataType::UInt8, DataType::Int64}) {
        INFO(toString(type));
        checkOnce({3, 200}, 1, 2, type, seed++, type == DataType::Int64 ? "topk_lane." : "topk_lane_staged.");
        WithoutStagedLanes direct;
        checkOnce({3, 200}, 1, 2, type, seed++, "topk_lane.");
    }
    // A row's parts in one workgroup (strided rows; 4 parts of 10).
    WithLaneGroup group(8);
    checkOnce({40, 3}, 0, 5, DataType::Float32, seed++, "topk_lane_group.f32.k8");
}

TEST_CASE("TopK's strategies once: one workgroup per row, FLOAT32 and UINT8",
          "[topk][gpu][topk_once][d3d12_real]") {
    uint32_t seed = 100;
    for (DataType type : {DataType::Float32, DataType::UInt8}) {
        INFO(toString(type));
        const std::string row = type == DataType::UInt8 ? "topk_row.u8" : "topk_row.f32";
        checkOnce({1001, 2}, 0, 40, type, seed++, row + ".s256");   // strided rows
        checkOnce({1, 2001}, 1, 300, type, seed++, row + ".s1024"); // K over 256
    }
}

TEST_CASE("TopK's strategies once: chunks, FLOAT32", "[topk][gpu][topk_once][d3d12_real]") {
    checkOnce({1, 9001}, 1, 33, DataType::Float32, 200, "topk_chunk.b32"); // the row's last workgroup selects
}

TEST_CASE("TopK's strategies once: multi-pass radix selection, INT64 and UINT64",
          "[topk][gpu][topk_once][d3d12_real]") {
    checkOnce({2, 5001}, 1, 10, DataType::Int64, 300, "topk_radix_init.");
    checkOnce({2, 5001}, 1, 10, DataType::UInt64, 301, "topk_radix_init.");
}

// Sampled selection (long rows chunks do not fit; K over 1024), FLOAT32: each of topk_select_final's ways to
// the winners. test_topk_select.cpp goes over their bounds and the other data types.
TEST_CASE("TopK's strategies once: sampled selection, FLOAT32", "[topk][gpu][topk_once][d3d12_real]") {
    WithoutChunks sampled;
    // The K best of the candidate list, or the candidates and the first ties of tau (Ties data).
    checkOnce({2, 9001}, 1, 33, DataType::Float32, 400, "topk_select_filter.f32.sample");
    checkOnce({2, 9001}, 1, 700, DataType::Float32, 401, "topk_select_filter.f32.sample");
    // K over 1024: the list gathered, then sorted by sample sort.
    checkOnce({1, 20001}, 1, 1500, DataType::Float32, 402, "topk_select_sample.f32");
    // tau the best value, held by every `period`-th element from index 5 on, the rest worse: the first K ties
    // by index, from the chunks' tie slots or read from the chunks (test_topk_select.cpp's first-ties test).
    struct TieRows {
        uint32_t n, k, period;
    };
    std::mt19937 rng(403);
    for (const TieRows& c :
         {TieRows{200003, 100, 64},  // 64 ties a chunk of 4082: from the slots
          TieRows{200003, 100, 2},   // 2041 a chunk: the first chunk read in order
          TieRows{100003, 3000, 2}}) // K over 1024: chunks of 2000 read whole, then in order
    {
        rt::HostTensor input(DataType::Float32, {1, c.n});
        for (uint32_t i = 0; i < c.n; ++i)
            input.setBits(i,
                          i >= 5 && (i - 5) % c.period == 0 ? 0x40000000u : 0x3F000000u + rng() % 0x800000u);
        INFO("ties every " << c.period << ", K " << c.k);
        checkTopK(rt::device(), input, 1, c.k, AxisDirection::Decreasing, DataType::UInt32);
    }
    // A 16-entry list overflows: the rows select from the whole row, for K up to 1024 and over it.
    struct Restore {
        ~Restore() { core::selectCapacityForTests = 0; }
    } restore;
    core::selectCapacityForTests = 16;
    checkOnce({2, 9001}, 1, 40, DataType::Float32, 404, "topk_select_filter.f32.sample");
    checkOnce({1, 20001}, 1, 1100, DataType::Float32, 405, "topk_select_sample.f32");
}
