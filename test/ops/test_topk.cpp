// SPDX-License-Identifier: MIT
// TopK on the device against the CPU reference: every input type, index type, direction, rank and axis,
// odd sizes, multi-tile rows, strided and broadcast inputs, ties, NaN and +-0.0, K from 0 to the axis. The
// selection strategies for long rows (radix and sampled selection, K over 1024) are in test_topk_select.cpp.
#include "topk_cases.hpp"

#include <algorithm>

using namespace ripple;
using namespace tk;

TEST_CASE("TopK matches the reference for every data type, shape, axis and direction",
          "[topk][gpu][subgroups]") {
    std::mt19937 rng(1234);
    struct Shape {
        std::vector<uint32_t> sizes;
        uint32_t axis;
    };
    const Shape shapes[] = {
        {{1}, 0},     {{7}, 0},       {{33}, 0},      {{1000}, 0},       {{5, 33}, 1},
        {{33, 5}, 0}, {{3, 4, 7}, 1}, {{2, 1025}, 1}, {{2, 3, 2, 5}, 2}, {{1, 2, 1, 3, 1, 2, 1, 5}, 7}};
    for (DataType type : kTypes) {
        for (const Shape& s : shapes) {
            for (rt::Fill how : {rt::Fill::Random, rt::Fill::Ties, rt::Fill::Special}) {
                rt::HostTensor input(type, s.sizes);
                rt::fill(input, rng, how);
                const uint32_t n = s.sizes[s.axis];
                const uint32_t k = std::uniform_int_distribution<uint32_t>(1, n)(rng);
                const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                const DataType idx =
                    std::array{DataType::UInt32, DataType::UInt64, DataType::Int64}[rng() % 3];
                checkTopK(rt::device(), input, s.axis, k, dir, idx);
            }
        }
    }
}

TEST_CASE("TopK with K = 1, K = the whole axis and K = 0", "[topk][gpu]") {
    std::mt19937 rng(7);
    for (DataType type : {DataType::Float32, DataType::Int8, DataType::UInt64}) {
        rt::HostTensor input(type, {3, 1000});
        rt::fill(input, rng, rt::Fill::Special);
        for (uint32_t k : {0u, 1u, 999u, 1000u})
            for (auto dir : {AxisDirection::Decreasing, AxisDirection::Increasing})
                checkTopK(rt::device(), input, 1, k, dir, DataType::UInt32);
    }
}

TEST_CASE("TopK reads strided and broadcast inputs in place", "[topk][gpu]") {
    std::mt19937 rng(99);
    for (DataType type : {DataType::Float16, DataType::Int32, DataType::Int64, DataType::UInt8}) {
        // A transposed view: logical {5, 9}, stored as {9, 5}.
        rt::HostTensor transposed(type, {5, 9}, {1, 5});
        rt::fill(transposed, rng, rt::Fill::Ties);
        checkTopK(rt::device(), transposed, 1, 4, AxisDirection::Decreasing, DataType::UInt32);
        checkTopK(rt::device(), transposed, 0, 5, AxisDirection::Increasing, DataType::UInt64);
        // Padded rows (stride 13 for 11 elements) and a broadcast dimension (stride 0).
        rt::HostTensor padded(type, {3, 4, 11}, {0, 13, 1});
        rt::fill(padded, rng, rt::Fill::Random);
        checkTopK(rt::device(), padded, 2, 6, AxisDirection::Decreasing, DataType::Int64);
        checkTopK(rt::device(), padded, 1, 2, AxisDirection::Increasing, DataType::UInt32);
    }
}

TEST_CASE("TopK with the portable kernels", "[topk][gpu][portable]") {
    std::mt19937 rng(5);
    for (DataType type : kTypes) {
        rt::HostTensor input(type, {4, 1500});
        rt::fill(input, rng, rt::Fill::Special);
        checkTopK(rt::device(KernelPreference::Portable), input, 1, 33, AxisDirection::Decreasing,
                  DataType::UInt32);
        // Rows for the chunk strategy and for sampled radix selection, whose portable variants scan in
        // shared memory.
        rt::HostTensor longRows(type, {2, 9001});
        rt::fill(longRows, rng, rt::Fill::Ties);
        checkTopK(rt::device(KernelPreference::Portable), longRows, 1, 333, AxisDirection::Increasing,
                  DataType::UInt32);
        WithoutChunks sampled;
        checkTopK(rt::device(KernelPreference::Portable), longRows, 1, 333, AxisDirection::Increasing,
                  DataType::UInt32);
    }
}

TEST_CASE("TopK of a 1 x 1,000,000 FLOAT32 row, K = 1000, and a full sort of 200,000", "[topk][gpu][large]") {
    std::mt19937 rng(42);
    rt::HostTensor big(DataType::Float32, {1, 1000000});
    rt::fill(big, rng, rt::Fill::Random);
    checkTopK(rt::device(), big, 1, 1000, AxisDirection::Decreasing, DataType::UInt32);
    rt::HostTensor all(DataType::Int16, {200000});
    rt::fill(all, rng, rt::Fill::Random);
    checkTopK(rt::device(), all, 0, 200000, AxisDirection::Increasing, DataType::UInt32);
}

TEST_CASE("TopK of empty tensors succeeds and writes nothing", "[topk][gpu]") {
    rt::HostTensor input(DataType::Float32, {0, 5});
    checkTopK(rt::device(), input, 1, 3, AxisDirection::Decreasing, DataType::UInt32);
}

TEST_CASE("TopK by rank counting (short rows, small tensors): every type and data kind, any K, strided rows",
          "[topk][gpu][subgroups]") {
    // core/topk.cpp's planRank: one invocation per element. Rows of 1 to 128 (the bound), K from 1 to n,
    // contiguous, transposed, padded and broadcast rows, and the bounds ({8192, 32}: 262144 elements;
    // {256, 128} K = 128: rows * n * n = 2^22; {64, 1024} axis 0: 65536 strided).
    std::mt19937 rng(2718);
    // Each case must reach the strategy under test.
    const auto check = [](const rt::HostTensor& input, uint32_t axis, uint32_t k, AxisDirection dir,
                          DataType idx) {
        auto plan = core::planTopK(makeTopKDesc(input.desc, axis, k, dir, idx), core::PlanLimits{});
        REQUIRE(plan.ok());
        REQUIRE(plan.value().dispatches.size() == 1);
        REQUIRE(plan.value().dispatches[0].kernel.rfind("topk_rank.", 0) == 0);
        checkTopK(rt::device(), input, axis, k, dir, idx);
    };
    struct Case {
        std::vector<uint32_t> sizes;
        std::vector<uint32_t> strides;
        uint32_t axis;
    };
    const Case cases[] = {
        {{1, 1, 3, 4}, {}, 3},       {{1}, {}, 0},          {{7}, {}, 0},        {{3, 33}, {}, 1},
        {{5, 128}, {}, 1},           {{33, 7}, {}, 0},      {{5, 9}, {1, 5}, 1}, {{3, 4, 11}, {0, 13, 1}, 2},
        {{3, 4, 11}, {0, 13, 1}, 1}, {{2, 3, 2, 5}, {}, 2},
    };
    for (const Case& c : cases) {
        for (DataType type : kTypes) {
            for (Data how : kAllData) {
                rt::HostTensor input(type, c.sizes, c.strides);
                fillData(input, rng, how);
                const uint32_t n = c.sizes[c.axis];
                const uint32_t k = std::uniform_int_distribution<uint32_t>(1, n)(rng);
                const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                const DataType idx =
                    std::array{DataType::UInt32, DataType::UInt64, DataType::Int64}[rng() % 3];
                check(input, c.axis, k, dir, idx);
            }
        }
    }
    // At the element bounds, a few types: every element of the row read by each of its invocations.
    for (DataType type : {DataType::Float32, DataType::BFloat16, DataType::Int8, DataType::UInt64}) {
        rt::HostTensor wide(type, {8192, 32});
        fillData(wide, rng, Data::Ties);
        check(wide, 1, 32, AxisDirection::Decreasing, DataType::UInt32);
        rt::HostTensor full(type, {256, 128});
        fillData(full, rng, Data::Narrow);
        check(full, 1, 128, AxisDirection::Increasing, DataType::UInt64);
        rt::HostTensor strided(type, {64, 1024});
        fillData(strided, rng, Data::Special);
        check(strided, 0, 5, AxisDirection::Increasing, DataType::Int64);
    }
}

namespace {

struct LaneCase {
    std::vector<uint32_t> sizes;
    std::vector<uint32_t> strides;
    uint32_t axis;
    uint32_t k;
    const char* strategy32 = nullptr; // the kernel of 32-bit types, where not the test's
};

// Every type and data kind on each case, a random direction and index type. Each case's plan must run
// `strategy`, for 32-bit types the case's strategy32 or else `strategy32` where they name one, and for
// 64-bit types `strategy64`.
void checkLaneCases(std::initializer_list<LaneCase> cases, std::mt19937& rng, const char* strategy,
                    const char* strategy32 = nullptr, const char* strategy64 = "topk_lane.") {
    for (const LaneCase& c : cases) {
        for (DataType type : kTypes) {
            for (Data how : kAllData) {
                rt::HostTensor input(type, c.sizes, c.strides);
                fillData(input, rng, how);
                const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                const DataType idx =
                    std::array{DataType::UInt32, DataType::UInt64, DataType::Int64}[rng() % 3];
                const char* expected = strategy; // 8- and 16-bit types
                if (elementSize(type) == 4)
                    expected = c.strategy32 ? c.strategy32 : strategy32 ? strategy32 : strategy;
                if (elementSize(type) == 8) expected = strategy64;
                requireStrategy(makeTopKDesc(input.desc, c.axis, c.k, dir, idx), expected);
                checkTopK(rt::device(), input, c.axis, c.k, dir, idx);
            }
        }
    }
}

// Many rows of many parts, which topk_lane_merge merges instead of ranking: 4096 rows of 16 parts (Ties:
// equal keys across parts), a few types.
void checkMergedLanes(std::mt19937& rng) {
    for (DataType type : {DataType::Float32, DataType::UInt8, DataType::Int64}) {
        rt::HostTensor input(type, {4096, 300});
        fillData(input, rng, Data::Ties);
        requireStrategy(makeTopKDesc(input.desc, 1, 2, AxisDirection::Increasing), "topk_lane_merge.");
        checkTopK(rt::device(), input, 1, 2, AxisDirection::Increasing, DataType::UInt32);
    }
}

} // namespace

TEST_CASE("TopK by invocation-private lists (K <= 32): one part or several, contiguous and strided rows",
          "[topk][gpu][subgroups]") {
    WithoutRank lanes;         // the short rows below would take rank counting
    WithoutStagedLanes direct; // contiguous rows load directly too (topk_lane), as strided rows do
    WithoutLaneGroup plain;    // strided rows too (topk_lane and its second pass)
    // Shapes and K reach each form of core/topk.cpp's planLane (parts as it computes them): one part per row
    // ({70001, 5}: rows enough; {3, 5} K = 5: a row shorter than KMAX = 8, its spare entries unwritten), a
    // few parts then ranks ({7, 33}: 2; {3, 1000} K = 16: 15; {5, 999} K = 32: 7), many short parts
    // ({3, 1000} K = 1: 250 of 4 elements), strided short rows ({2, 300, 40} padded, axis 1: 9 parts) and
    // strided long rows with rows * parts at the threshold ({2048, 64} axis 0 K = 1: 64 * 512).
    std::mt19937 rng(4242);
    checkLaneCases(
        {
            {{70001, 5}, {}, 1, 2},
            {{3, 5}, {}, 1, 5},
            {{7, 33}, {}, 1, 3},
            {{3, 1000}, {}, 1, 16},
            {{5, 999}, {}, 1, 32},
            {{3, 1000}, {}, 1, 1},
            {{2, 300, 40}, {13000, 41, 1}, 1, 7},
            {{2048, 64}, {}, 0, 1},
        },
        rng, "topk_lane.");
    checkMergedLanes(rng);
    // Strided long rows with K = 8 (64 parts of 32 elements for each of 512 rows), a few types.
    for (DataType type : {DataType::Float32, DataType::BFloat16, DataType::Int64}) {
        rt::HostTensor input(type, {2048, 512});
        fillData(input, rng, Data::Ties);
        requireStrategy(makeTopKDesc(input.desc, 0, 8), "topk_lane.");
        checkTopK(rt::device(), input, 0, 8, AxisDirection::Decreasing, DataType::UInt32);
    }
}

TEST_CASE("TopK by invocation-private lists staged through shared memory (rows of neighbouring elements)",
          "[topk][gpu][subgroups]") {
    WithoutRank lanes;
    // topk_lane_staged loads a workgroup's parts together: the contiguous forms above, padded rows ({300, 77}
    // in rows of 80: 2 parts), and workgroups that straddle two parts ({1000, 300} K = 2: 34 parts of 9).
    // With one part per row it writes the outputs through the stage, 8 ranks a round: K = 12 and 20 take
    // two and three rounds; a transposed view ({40, 3} strided {1, 40}, axis 0) writes outputs 3 apart.
    std::mt19937 rng(4343);
    checkLaneCases(
        {
            {{70001, 5}, {}, 1, 2},
            {{3, 5}, {}, 1, 5},
            {{3, 1000}, {}, 1, 16},
            {{5, 999}, {}, 1, 32},
            {{3, 1000}, {}, 1, 1},
            {{300, 77}, {80, 1}, 1, 5},
            {{1000, 300}, {}, 1, 2},
            {{2000, 70}, {}, 1, 12},
            {{5000, 40}, {}, 1, 20},
            {{40, 3}, {1, 40}, 0, 20},
            // 32-bit rows of whole 16-byte quads load a quad at a time (params [34]): padded rows whose pitch
            // keeps every row at a 16-byte offset, several parts of multiples of 4 elements, 3-D rows; and
            // a pitch that does not (78), which loads word by word.
            {{300, 76}, {80, 1}, 1, 5},
            {{300, 76}, {78, 1}, 1, 5},
            {{64, 1024}, {}, 1, 3},
            {{5, 7, 64}, {}, 2, 9},
            {{1000, 32}, {}, 1, 4, "topk_lane."}, // 32 bits read directly by the planner's rule (below)
        },
        rng, "topk_lane_staged.");
    checkMergedLanes(rng);
    // The same rows of whole quads read directly by topk_lane (the planner's rule for rows up to 64 and K up
    // to 8: {1000, 32} K = 4 and {5, 7, 64} axis 2 K = 5 take it without the switch), and through the
    // stage whatever their length.
    for (bool direct : {true, false}) {
        WithDirectQuads quads(direct);
        checkLaneCases(
            {
                {{300, 76}, {80, 1}, 1, 5},
                {{64, 1024}, {}, 1, 3},
                {{5, 7, 64}, {}, 2, 5},
                {{1000, 32}, {}, 1, 4},
                {{3, 1000}, {}, 1, 16},
            },
            rng, "topk_lane_staged.", direct ? "topk_lane." : nullptr);
    }
}

TEST_CASE("TopK by invocation-private lists of one workgroup's rows (strided rows, a threshold, merged in "
          "shared memory)",
          "[topk][gpu][subgroups]") {
    WithoutRank lanes;
    // topk_lane_group: padded 3-D rows (16 parts of 19), a last tile of one live row of 16 ({1000, 33}),
    // parts that cannot hold KMAX (n = 7: one part), parts of odd length ({100, 9} K = 16: 4 of 25; {999,
    // 17}: 16 of 63, the last 54), K = 1, and rows of 1024 (the longest that so few rows give the lanes)
    // whose threshold leaves few elements to insert; 16 and 4 parts, 8 and 2 below. The 64-bit types take
    // topk_lane (planLane) as before.
    std::mt19937 rng(5151);
    for (uint64_t parts : {16u, 4u}) {
        WithLaneGroup group(parts);
        checkLaneCases(
            {
                {{2, 300, 40}, {13000, 41, 1}, 1, 7},
                {{1000, 33}, {}, 0, 16},
                {{7, 50}, {}, 0, 3},
                {{100, 9}, {}, 0, 16},
                {{999, 17}, {}, 0, 9},
                {{64, 5, 3}, {}, 0, 1},
                {{1024, 40}, {}, 0, 12},
            },
            rng, "topk_lane_group.");
    }
    // The planner's rule (8 or more parts a row, 8192 invocations): 16 parts of 16 at K = 8, 8 of 16 at
    // K = 16 (too short to take the threshold again at 48), and 8 parts of 100 at K = 9 (taken again at 48
    // and 96; the cases above with parts of 256 take it up to 192).
    checkLaneCases({{{256, 1024}, {}, 0, 8}, {{128, 2048}, {}, 0, 16}}, rng, "topk_lane_group.");
    for (DataType type : {DataType::Float32, DataType::UInt16}) {
        rt::HostTensor input(type, {800, 1030});
        fillData(input, rng, Data::Ties);
        requireStrategy(makeTopKDesc(input.desc, 0, 9), "topk_lane_group.");
        checkTopK(rt::device(), input, 0, 9, AxisDirection::Decreasing, DataType::UInt64);
    }
    // FLOAT32's portable form (NaNs found from their bits), which devices without
    // shaderSignedZeroInfNanPreserveFloat32 take; rt::device() takes the fast form where the device has it.
    for (Data how : kAllData) {
        for (auto dir : {AxisDirection::Increasing, AxisDirection::Decreasing}) {
            WithLaneGroup four(4);
            rt::HostTensor input(DataType::Float32, {1024, 40});
            fillData(input, rng, how);
            requireStrategy(makeTopKDesc(input.desc, 0, 12, dir), "topk_lane_group.f32.");
            checkTopK(rt::device(KernelPreference::Portable), input, 0, 12, dir, DataType::UInt32);
        }
    }
    // Bounds by value at zero (FLOAT32 compares values, not keys, once a part's list is full): columns of
    // +0.0 and -0.0 (equal: index order), with the smallest denormal of the direction's winning sign late
    // in the parts, so that it meets a list whose worst is a zero.
    for (auto dir : {AxisDirection::Increasing, AxisDirection::Decreasing}) {
        WithLaneGroup eight(8);
        rt::HostTensor input(DataType::Float32, {512, 24});
        for (uint64_t i = 0; i < input.count(); ++i) {
            const uint64_t j = i / 24, c = i % 24;
            uint32_t bits = (j * 7 + c) % 3 == 0 ? 0x80000000u : 0u;
            if ((j * 13 + c * 5) % 97 == 50) bits = dir == AxisDirection::Increasing ? 0x80000001u : 1u;
            input.setBits(i, bits);
        }
        for (uint32_t k : {1u, 4u, 9u}) {
            requireStrategy(makeTopKDesc(input.desc, 0, k, dir), "topk_lane_group.f32.");
            checkTopK(rt::device(), input, 0, k, dir, DataType::UInt32);
        }
    }
    WithLaneGroup group(2);
    for (DataType type : {DataType::Float32, DataType::UInt8}) {
        rt::HostTensor input(type, {300, 70});
        fillData(input, rng, Data::Ties);
        requireStrategy(makeTopKDesc(input.desc, 0, 5, AxisDirection::Increasing), "topk_lane_group.");
        checkTopK(rt::device(), input, 0, 5, AxisDirection::Increasing, DataType::UInt32);
    }
}

TEST_CASE("TopK by invocation-private lists on rows sorted against the direction (every element inserted)",
          "[topk][gpu]") {
    std::mt19937 rng(8);
    for (DataType type : {DataType::Float32, DataType::Int64, DataType::UInt8}) {
        rt::HostTensor input(type, {4, 1000});
        for (uint64_t i = 0; i < input.count(); ++i)
            input.setBits(i, type == DataType::Float32 ? 0x3F800000u + i % 1000 : (i % 1000) / 4);
        for (uint32_t k : {1u, 8u, 31u})
            for (auto dir : {AxisDirection::Decreasing, AxisDirection::Increasing})
                checkTopK(rt::device(), input, 1, k, dir, DataType::UInt32);
    }
}

TEST_CASE("TopK by one workgroup per row (rows of 257 to 4096): every type up to 32 bits, both kernel "
          "variants, ties straddling K",
          "[topk][gpu][subgroups]") {
    // core/topk.cpp's planRow: 16 keys per invocation (rows of 4096 fill every slot; 257 and 1025 leave
    // most invocations with padding), contiguous and strided rows, K from 1 to 1024 (ranked by counting up
    // to 128, by a bitonic sort beyond). Two-valued, all-equal and narrow data put ties of the K-th rank
    // across K, so the index bits are selected too. K stays within the row's: at most 1024 (the tiles take
    // more), over 32 on rows of up to 1024 (the lanes take those).
    std::mt19937 rng(31337);
    checkLayouts(
        {
            {{3, 257}, {}, 1},
            {{2, 1025}, {}, 1},
            {{3, 4096}, {}, 1},
            {{1, 2049}, {}, 1},
            {{3000, 3}, {}, 0},              // strided rows
            {{2, 3, 1500}, {9000, 1, 3}, 2}, // a transposed view: stride 3 along the axis
        },
        rng, [](const Layout&, KernelPreference, Data) { return false; },
        [&](uint32_t n) {
            const uint32_t k =
                std::min({n, 1024u, std::array<uint32_t, 8>{1, 33, 128, 129, 256, 700, 1024, n}[rng() % 8]});
            return n <= 1024 ? std::max(k, 33u) : k;
        },
        nullptr, "topk_row.");
}

namespace {

void chunks(rt::Part& part) {
    // core/topk.cpp's planChunk: chunks of 4096, each narrowed to B candidates (random data stops after a
    // histogram step or two; narrow, two-valued and all-equal data narrow to exactly K by index steps),
    // then the row's last workgroup selects from the row's list. Last chunks of 1 and 3 elements (all
    // candidates), one chunk per row (selected in place), strided and padded rows, many rows.
    std::mt19937 rng(4096);
    checkLayouts(
        {
            {{2, 12289}, {}, 1},             // 3 chunks and one element
            {{1, 40963}, {}, 1},             // 11 chunks, the last of 3 elements
            {{5000, 3}, {}, 0},              // strided rows
            {{2, 9000}, {9011, 1}, 1},       // padded rows
            {{3, 2, 4500}, {9000, 1, 2}, 2}, // stride 2 along the axis
            {{600, 4200}, {}, 1},            // many rows: 1200 workgroups
        },
        rng,
        [&](const Layout& c, KernelPreference pref, Data) { // the big case: a third, fast variant only
            return c.sizes[0] == 600 && (pref == KernelPreference::Portable || rng() % 3 != 0);
        },
        [&](uint32_t n) { // K up to 4096 / chunks, so that the plan is the chunk strategy
            return std::min(4096 / ((n + 4095) / 4096),
                            std::array<uint32_t, 6>{1, 7, 40, 129, 256, 1024}[rng() % 6]);
        },
        &part, "topk_chunk.");
}

} // namespace

RIPPLE_TEST_PARTS_3(chunks,
                    "TopK in one dispatch by chunks (rows over 4096): every type up to 32 bits, both kernel "
                    "variants, early and exact narrowing, ties across chunks",
                    "[topk][gpu][subgroups][long][exhaustive]")

TEST_CASE("TopK by chunks: one operator run again and again, and twice in one submission, stays exact",
          "[topk][gpu]") {
    // The chunk strategy's per-row counters live in pooled zeroed scratch that each run leaves at zero;
    // a run that left one behind would make the next run's rows wait for a last workgroup that never comes
    // (outputs left poisoned) or finish early.
    std::mt19937 rng(12);
    Device& dev = rt::device();
    const TopKDesc desc = makeTopKDesc({DataType::Float32, {3, 20000}, {}}, 1, 100);
    auto op = dev.compile(desc);
    REQUIRE(op.ok());
    for (int run = 0; run < 5; ++run) {
        rt::HostTensor input(DataType::Float32, {3, 20000});
        fillData(input, rng, run % 2 ? Data::Random : Data::TwoValued);
        rt::GpuResult r =
            rt::runOnGpu(dev, op.value(), {&input}, {desc.OutputValueTensor, desc.OutputIndexTensor});
        REQUIRE(r.status.ok());
        std::vector<uint8_t> values, indices;
        rt::referenceTopK(desc, input, values, indices);
        INFO("run " << run);
        CHECK(r.outputs[0] == values);
        CHECK(r.outputs[1] == indices);
    }
    // Two runs in one recording on separate buffers, free to run at once: each needs its own counters.
    rt::HostTensor inputs[2] = {rt::HostTensor(DataType::Float32, {3, 20000}),
                                rt::HostTensor(DataType::Float32, {3, 20000})};
    fillData(inputs[0], rng, Data::Random);
    fillData(inputs[1], rng, Data::Narrow);
    const uint64_t valueBytes = 3 * 100 * 4, inputBytes = inputs[0].bytes.size();
    std::vector<Buffer> buffers;
    for (int i = 0; i < 2; ++i) {
        for (uint64_t bytes : {inputBytes, valueBytes, valueBytes}) {
            auto b = dev.createBuffer(bytes);
            REQUIRE(b.ok());
            buffers.push_back(std::move(b.value()));
        }
        REQUIRE(dev.upload(buffers[3 * i], 0, inputs[i].bytes.data(), inputBytes).ok());
    }
    auto recorder = dev.createRecorder();
    REQUIRE(recorder.ok());
    for (int i = 0; i < 2; ++i) {
        for (int o = 1; o <= 2; ++o)
            REQUIRE(recorder.value().fillBuffer(buffers[3 * i + o], 0, valueBytes, 0xA5A5A5A5u).ok());
        REQUIRE(recorder.value()
                    .record(op.value(),
                            {{&buffers[3 * i], 0}, {&buffers[3 * i + 1], 0}, {&buffers[3 * i + 2], 0}})
                    .ok());
    }
    auto ticket = dev.submit(recorder.value());
    REQUIRE(ticket.ok());
    REQUIRE(dev.wait(ticket.value()).ok());
    for (int i = 0; i < 2; ++i) {
        std::vector<uint8_t> values, indices, gotValues(valueBytes), gotIndices(valueBytes);
        rt::referenceTopK(desc, inputs[i], values, indices);
        REQUIRE(dev.download(buffers[3 * i + 1], 0, gotValues.data(), valueBytes).ok());
        REQUIRE(dev.download(buffers[3 * i + 2], 0, gotIndices.data(), valueBytes).ok());
        INFO("operator " << i << " of the submission");
        CHECK(gotValues == values);
        CHECK(gotIndices == indices);
    }
}
