// SPDX-License-Identifier: MIT
// TopK's selection strategies for long rows against the CPU reference: radix selection, sampled radix
// selection (its list overflow, sorted rows, grouped samples, held lists, tie slots, floats compared as
// floats) and K over 1024 (the candidate lists sorted by sample sort).
#include "support/parts.hpp"
#include "topk_cases.hpp"

#include <algorithm>

using namespace ripple;
using namespace tk;

namespace {

// One operator recorded and submitted three times, on new data each time (two-valued the second time), its
// outputs poisoned before each run: from the second submission on, its zeroed scratch comes back from the
// device's pool without a fill, so a run that left a counter or a row's state behind would spoil the next.
void checkRepeatedRuns(const TopKDesc& desc, std::mt19937& rng) {
    Device& dev = rt::device();
    auto op = dev.compile(desc);
    REQUIRE(op.ok());
    rt::HostTensor input(desc.InputTensor.DataType, desc.InputTensor.Sizes);
    const uint64_t outBytes = desc.OutputValueTensor.elementCount() * elementSize(desc.InputTensor.DataType);
    const uint64_t indexBytes =
        desc.OutputIndexTensor.elementCount() * elementSize(desc.OutputIndexTensor.DataType);
    auto in = dev.createBuffer(input.bytes.size());
    auto values = dev.createBuffer(outBytes), indices = dev.createBuffer(indexBytes);
    REQUIRE((in.ok() && values.ok() && indices.ok()));
    for (int run = 0; run < 3; ++run) {
        INFO("TopK input " << rt::describe(desc.InputTensor) << " K " << desc.K << ", run " << run);
        fillData(input, rng, run == 1 ? Data::TwoValued : Data::Random);
        REQUIRE(dev.upload(in.value(), 0, input.bytes.data(), input.bytes.size()).ok());
        const std::vector<uint8_t> poison(std::max(outBytes, indexBytes), 0xA5);
        REQUIRE(dev.upload(values.value(), 0, poison.data(), outBytes).ok());
        REQUIRE(dev.upload(indices.value(), 0, poison.data(), indexBytes).ok());
        auto recorder = dev.createRecorder(); // each submission takes the pooled zeroed scratch, no fill
        REQUIRE(recorder.ok());
        REQUIRE(recorder.value()
                    .record(op.value(), {{&in.value(), 0}, {&values.value(), 0}, {&indices.value(), 0}})
                    .ok());
        auto ticket = dev.submit(recorder.value());
        REQUIRE(ticket.ok());
        REQUIRE(dev.wait(ticket.value()).ok());
        std::vector<uint8_t> gotValues(outBytes), gotIndices(indexBytes), wantValues, wantIndices;
        REQUIRE(dev.download(values.value(), 0, gotValues.data(), outBytes).ok());
        REQUIRE(dev.download(indices.value(), 0, gotIndices.data(), indexBytes).ok());
        rt::referenceTopK(desc, input, wantValues, wantIndices);
        CHECK(gotValues == wantValues);
        CHECK(gotIndices == wantIndices);
    }
}

} // namespace

namespace {

void radixSelection(rt::Part& part) {
    std::mt19937 rng(2025);
    const Layout shapes[] = {
        {{3, 5000}, {}, 1},        // a few rows of odd length
        {{4099, 3}, {}, 0},        // a long non-last axis
        {{2, 6001}, {6007, 1}, 1}, // padded rows
        {{1, 70001}, {}, 1},       // index digits beyond 16 bits
        {{2, 20011}, {}, 1},       // narrow ranges here overflow the 8192-entry candidate lists
        {{5, 1500}, {}, 1},        // contiguous rows of 1025 to 4096 elements: sampled selection
        {{1100, 3}, {}, 0},        // strided ones: one workgroup per row
        {{4096, 2}, {}, 0},        {{3, 3000}, {1, 3}, 1}, // strided along the last axis too
    };
    // Rows over 4096 take the chunk strategy where it fits (K small enough for their chunks); the second
    // round plans them without it, for sampled selection.
    for (bool sampled : {false, true}) {
        std::unique_ptr<WithoutChunks> without;
        if (sampled) without = std::make_unique<WithoutChunks>();
        for (DataType type : kTypes) {
            for (const Layout& s : shapes) {
                for (Data how : kAllData) {
                    if (!part.take()) continue;
                    rt::HostTensor input(type, s.sizes, s.strides);
                    fillData(input, rng, how);
                    const uint32_t n = s.sizes[s.axis];
                    const uint32_t k = std::array<uint32_t, 5>{1, 7, 100, 1024, 777}[rng() % 5];
                    const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                    INFO((sampled ? "sampled selection" : "default plan"));
                    checkTopK(rt::device(), input, s.axis, std::min(k, n), dir, DataType::UInt32);
                }
            }
        }
    }
}

} // namespace

RIPPLE_TEST_PARTS_3(
    radixSelection,
    "TopK by radix selection (rows over 1024, K <= 1024): every type, ties, all-equal, two-valued, "
    "narrow-range",
    "[topk][gpu][exhaustive]")

TEST_CASE("TopK's sampled selection samples in the filter's workgroups, or in a dispatch of its own",
          "[topk][gpu][subgroups]") {
    // Rows of at most 1024 samples of one element (core/topk_select.cpp's kFusedSamples: rows up to 131199
    // elements) have no sample dispatch: each filter workgroup selects its row's tau from the samples itself,
    // in the shared memory of its candidate stage, and the rows' state is zeroed scratch that the final step
    // clears. The same rows with the dispatch, and both sides of the bound (131199: S = 1024; 131200: S =
    // 1025). Then one operator run again and again, the pooled zeroed state reused without a fill.
    struct Restore {
        ~Restore() { core::selectSampleDispatchForTests = false; }
    } restore;
    WithoutChunks sampled;
    std::mt19937 rng(2048);
    for (bool dispatch : {false, true}) {
        core::selectSampleDispatchForTests = dispatch;
        INFO((dispatch ? "sample dispatch" : "filter samples"));
        for (DataType type : kTypes32) {
            for (const Layout& s : {Layout{{3, 5000}, {}, 1}, Layout{{2, 6001}, {6007, 1}, 1}}) {
                for (Data how : {Data::Random, Data::Ties, Data::TwoValued}) {
                    rt::HostTensor input(type, s.sizes, s.strides);
                    fillData(input, rng, how);
                    const uint32_t k = std::array<uint32_t, 3>{1, 50, 1024}[rng() % 3];
                    const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                    requireStrategy(makeTopKDesc(input.desc, s.axis, k, dir),
                                    dispatch ? "topk_select_sample." : "topk_select_filter.");
                    checkTopK(rt::device(), input, s.axis, k, dir, DataType::UInt32);
                }
            }
        }
        for (uint32_t n : {131199u, 131200u}) {
            for (DataType type : {DataType::Float32, DataType::BFloat16}) {
                rt::HostTensor input(type, {1, n});
                fillData(input, rng, Data::Random);
                checkTopK(rt::device(), input, 1, 100, AxisDirection::Decreasing, DataType::UInt32);
            }
        }
    }
    core::selectSampleDispatchForTests = false;
    checkRepeatedRuns(makeTopKDesc({DataType::Float16, {4, 30011}, {}}, 1, 50), rng);
    checkRepeatedRuns(makeTopKDesc({DataType::Int32, {2, 9001}, {}}, 1, 777, AxisDirection::Increasing), rng);
}

TEST_CASE("TopK's sampled radix selection falls back to the whole row, exactly, when its list overflows",
          "[topk][gpu]") {
    // A 16-entry list: with K > 16 every row takes the fallback, with K <= 16 most rows still use the list.
    struct Restore {
        ~Restore() { core::selectCapacityForTests = 0; }
    } restore;
    core::selectCapacityForTests = 16;
    WithoutChunks sampled;
    std::mt19937 rng(77);
    for (DataType type : {DataType::Float32, DataType::Float16, DataType::Int8, DataType::UInt16}) {
        for (rt::Fill how : {rt::Fill::Random, rt::Fill::Ties}) {
            rt::HostTensor input(type, {3, 9001});
            rt::fill(input, rng, how);
            for (uint32_t k : {1u, 16u, 17u, 333u}) {
                const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                requireStrategy(makeTopKDesc(input.desc, 1, k, dir), "topk_select_final.");
                checkTopK(rt::device(), input, 1, k, dir, DataType::UInt32);
            }
        }
    }
}

TEST_CASE("TopK's sampled radix selection on sorted rows (all candidates in one workgroup's chunk)",
          "[topk][gpu]") {
    // Sorted ascending, the best of a DECREASING TopK all sit in the last chunk: more candidates than one
    // workgroup stages in shared memory, so some reserve their own list slots. (The chunk strategy's
    // counterpart: "TopK in one dispatch by chunks".)
    WithoutChunks sampled;
    std::mt19937 rng(5);
    for (DataType type : {DataType::Float32, DataType::Int32, DataType::UInt16}) {
        rt::HostTensor input(type, {1, 9001});
        for (uint64_t i = 0; i < input.count(); ++i)
            input.setBits(i, type == DataType::Float32 ? 0x3F800000u + i
                             : type == DataType::Int32 ? i
                                                       : i + 7);
        for (uint32_t k : {1000u, 1024u, 300u}) {
            for (auto dir : {AxisDirection::Decreasing, AxisDirection::Increasing}) {
                requireStrategy(makeTopKDesc(input.desc, 1, k, dir), "topk_select_final.");
                checkTopK(rt::device(), input, 1, k, dir, DataType::UInt32);
            }
        }
    }
}

namespace {

void groupedSamples(rt::Part& part) {
    // 1100001 elements: each of the 4096 samples is the smallest of 2 elements of its stratum. K = 1 there
    // would take the chunks.
    WithoutChunks sampled;
    std::mt19937 rng(11);
    for (DataType type : {DataType::Float32, DataType::BFloat16, DataType::Int8}) {
        if (!part.take()) continue;
        for (rt::Fill how : {rt::Fill::Random, rt::Fill::Ties}) {
            rt::HostTensor input(type, {1, 1100001});
            rt::fill(input, rng, how);
            for (uint32_t k : {1u, 100u, 1024u}) {
                const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                requireStrategy(makeTopKDesc(input.desc, 1, k, dir), "topk_select_sample.");
                checkTopK(rt::device(), input, 1, k, dir, DataType::UInt32);
            }
        }
        rt::HostTensor sorted(type, {1, 1100001}); // ascending: the best of DECREASING all in the last strata
        for (uint64_t i = 0; i < sorted.count(); ++i)
            sorted.setBits(i, type == DataType::Float32    ? 0x3F800000u + i
                              : type == DataType::BFloat16 ? 0x3F80u + i / 2048
                                                           : i / 8192);
        checkTopK(rt::device(), sorted, 1, 500, AxisDirection::Decreasing, DataType::UInt32);
    }
    // 8388609 elements: samples of 16 elements for K >= 512 (core/topk_select.cpp's kSampleWideMinK), of 8
    // below.
    if (part.take()) {
        rt::HostTensor wide(DataType::Float32, {1, 8388609});
        rt::fill(wide, rng, rt::Fill::Random);
        for (uint32_t k : {100u, 700u}) {
            const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
            requireStrategy(makeTopKDesc(wide.desc, 1, k, dir), "topk_select_sample.");
            checkTopK(rt::device(), wide, 1, k, dir, DataType::UInt32);
        }
    }
    // Several rows whose samples 16 workgroups share (5 rows of 4097 * 128 elements: S = 4096), the last to
    // arrive selecting, run again and again: a run that left an arrival counter behind would leave the next
    // run's row state (tau, counts) unwritten.
    if (part.take()) checkRepeatedRuns(makeTopKDesc({DataType::Float32, {5, 524417}, {}}, 1, 333), rng);
}

} // namespace

RIPPLE_TEST_PARTS_2(groupedSamples,
                    "TopK's sampled selection on rows long enough for grouped samples (over 1M elements)",
                    "[topk][gpu][exhaustive]")

TEST_CASE("TopK's sampled selection holds candidate lists of 2049 to 4096 entries in registers",
          "[topk][gpu][subgroups]") {
    // Rows of 70001 with K = 777 and 1000: 1024 samples, tau their 38th or 44th smallest, so the lists hold
    // about 2600 and 3000 candidates (core/topk_select.cpp's estimate m * n / S): topk_select_final's slots 8
    // to 15 (HELD_MAX 4096), which the LLM shapes' lists of about 1128 reach only now and then. The plan has
    // the final load every slot before it reads the row's state; with one slot loaded there, the others are
    // loaded after it (a list longer than twice the estimate). Ties data puts many of the K-th rank's ties in
    // the list too.
    struct Restore {
        ~Restore() { core::selectPrefetchSlotsForTests = 0; }
    } restore;
    WithoutChunks sampled;
    std::mt19937 rng(21);
    for (uint32_t prefetch : {0u, 1u}) {
        core::selectPrefetchSlotsForTests = prefetch;
        for (DataType type : {DataType::Float32, DataType::Float16, DataType::BFloat16, DataType::Int16}) {
            for (rt::Fill how : {rt::Fill::Random, rt::Fill::Ties}) {
                rt::HostTensor input(type, {3, 70001});
                rt::fill(input, rng, how);
                for (uint32_t k : {777u, 1000u}) {
                    INFO("slots loaded before the state: " << (prefetch ? "1" : "the plan's"));
                    const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                    requireStrategy(makeTopKDesc(input.desc, 1, k, dir), "topk_select_final.");
                    checkTopK(rt::device(), input, 1, k, dir, DataType::UInt32);
                }
            }
        }
    }
}

TEST_CASE("TopK's sampled selection takes the first ties of tau from the chunks' tie slots, or reads the "
          "chunks of more ties",
          "[topk][gpu][subgroups]") {
    // Rows where tau is the best value itself, held by every `period`-th element from index `from` on, the
    // rest random and worse: the winners are the first K of those ties by index. topk_select_final takes
    // the chunks wanted whole from their tie slots (at most R = min(K, 1024) ties each) or, past R, by
    // reading them; the chunk where the K-th tie falls is taken in order from its slots (at most R ties) or
    // by reading it. Rows of 200003 elements have 49 chunks of 4082, rows of 100003 25 of 4001. The ties
    // are dense enough for tau to be the best value (enough samples hold it), and tie 0 is never index 0.
    WithoutChunks sampled;
    std::mt19937 rng(404);
    struct Case {
        uint32_t n, k, period, from;
    };
    const Case cases[] = {
        {200003, 100, 64, 5},      // 64 ties a chunk: one chunk whole from its slots, one in order
        {200003, 1000, 16, 3},     // 255 ties a chunk: three whole from slots, the fourth in order
        {200003, 100, 64, 120001}, // chunks of no ties first
        {200003, 100, 2, 0},       // 2041 ties a chunk: the first one read in order
        {100003, 5000, 2, 1},      // K over 1024 (R = 1024): whole chunks read, then one in order
        {100003, 3000, 8, 7},      // K over 1024, 500 ties a chunk: whole ones from slots
    };
    for (const Case& c : cases) {
        for (DataType type : {DataType::Float32, DataType::Int32}) {
            for (auto dir : {AxisDirection::Decreasing, AxisDirection::Increasing}) {
                const bool f32 = type == DataType::Float32, dec = dir == AxisDirection::Decreasing;
                // The rest within [0.5, 1) or [0, 1000000); the ties above (DECREASING) or below it.
                const uint32_t best =
                    f32 ? (dec ? 0x40000000u : 0x3E800000u) : (dec ? 2000000u : 0xFFFFFFFBu);
                rt::HostTensor input(type, {1, c.n});
                for (uint32_t i = 0; i < c.n; ++i)
                    input.setBits(i, i >= c.from && (i - c.from) % c.period == 0 ? best
                                     : f32 ? 0x3F000000u + rng() % 0x800000u
                                           : rng() % 1000000u);
                INFO("ties every " << c.period << " from " << c.from);
                requireStrategy(makeTopKDesc(input.desc, 1, c.k, dir), "topk_select_final.");
                checkTopK(rt::device(), input, 1, c.k, dir, DataType::UInt32);
                checkTopK(rt::device(KernelPreference::Portable), input, 1, c.k, dir, DataType::UInt32);
            }
        }
    }
}

TEST_CASE("TopK's sampled selection around zero, denormals and NaNs: the filter compares floats as floats "
          "only when tau is a normal number",
          "[topk][gpu]") {
    // Rows of 20011 elements, K = 200: 1024 samples and tau at about rank 700 (the 36th smallest sample),
    // rarely outside ranks 350-1050. Each mix (in 1024ths of a row, cumulative: NaNs of either sign, normal
    // values on the best side, denormals of either sign, +-0.0, then normal values on the worst side) puts
    // tau in one class: among the normal values (the filter compares floats; a device may flush the
    // denormals to zero), the denormals or the zeros (both take rank keys). NaNs rank first for DECREASING
    // (candidates) and last for INCREASING. Contiguous rows (16-bit types: two per load) and strided ones;
    // the default kernels (MODE fast where the device keeps NaNs in float comparisons) and the portable ones
    // (NaNs found from their bits).
    WithoutChunks sampled;
    std::mt19937 rng(1717);
    struct Mix {
        const char* tau;
        uint32_t nan, best, denormal, zero;
    };
    const Mix mixes[] = {{"normal", 1, 256, 320, 960}, {"denormal", 1, 9, 520, 960}, {"zero", 1, 9, 17, 960}};
    const Layout layouts[] = {{{2, 20011}, {}, 1}, {{20011, 2}, {}, 0}};
    for (KernelPreference pref : rt::kernelPreferences()) {
        for (const Layout& c : layouts) {
            for (DataType type : {DataType::Float32, DataType::Float16, DataType::BFloat16}) {
                const bool f32 = type == DataType::Float32, f16 = type == DataType::Float16;
                const uint32_t signBit = f32 ? 0x80000000u : 0x8000u, mantissa = f32   ? 0x7FFFFFu
                                                                                 : f16 ? 0x3FFu
                                                                                       : 0x7Fu;
                const uint32_t one = f32 ? 0x3F800000u : f16 ? 0x3C00u : 0x3F80u; // 1.0
                for (auto dir : {AxisDirection::Decreasing, AxisDirection::Increasing}) {
                    const uint32_t best = dir == AxisDirection::Decreasing ? 0 : signBit;
                    for (const Mix& mix : mixes) {
                        rt::HostTensor input(type, c.sizes, c.strides);
                        rt::fill(input, rng, rt::Fill::Random); // the bytes between strided elements
                        for (uint64_t i = 0; i < input.count(); ++i) {
                            const uint32_t r = rng() % 1024, sign = rng() & 1 ? signBit : 0;
                            input.setBits(i, r < mix.nan    ? uint32_t(rt::nanBits(type, rng(), sign != 0))
                                             : r < mix.best ? best | one | (rng() & mantissa)
                                             : r < mix.denormal
                                                 ? uint32_t(rt::denormalBits(type, rng(), sign != 0))
                                             : r < mix.zero ? sign
                                                            : (best ^ signBit) | one | (rng() & mantissa));
                        }
                        INFO("tau among the " << mix.tau << " values");
                        requireStrategy(makeTopKDesc(input.desc, c.axis, 200, dir), "topk_select_filter.");
                        checkTopK(rt::device(pref), input, c.axis, 200, dir, DataType::UInt32);
                    }
                }
            }
        }
    }
}

namespace {

// core/topk_select.cpp's planSelect(large): random data keeps at least K candidates (the list as it is);
// two-valued, all-equal and narrow data leave fewer, and the first ties of tau by index fill the rest
// (topk_list.glsl then sorts the list: splitters from a sample of it, buckets, each bucket sorted). Split
// into parts (support/parts.hpp; issue 41).
struct LargeKCase {
    std::vector<uint32_t> sizes;
    std::vector<uint32_t> strides;
    uint32_t axis, k;
};

void checkLargeK(const LargeKCase& c, std::mt19937& rng, rt::Part& part) {
    for (DataType type : kTypes32) {
        for (Data how : kAllData) {
            if (!part.take()) continue;
            rt::HostTensor input(type, c.sizes, c.strides);
            fillData(input, rng, how);
            const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
            requireStrategy(makeTopKDesc(input.desc, c.axis, c.k, dir), "topk_list_sort.");
            checkTopK(rt::device(), input, c.axis, c.k, dir, DataType::UInt32);
        }
    }
}

// Restores the list's test seams however a case ends.
struct ListSeams {
    ~ListSeams() {
        core::selectCapacityForTests = 0, core::listSlotsForTests = core::listBucketsForTests = 0;
    }
};

void largeKOneRow(rt::Part& part) {
    std::mt19937 rng(65536);
    checkLargeK({{1, 100003}, {}, 1, 5000}, rng, part);
}
void largeKThreeRows(rt::Part& part) {
    std::mt19937 rng(65537);
    checkLargeK({{3, 20011}, {}, 1, 1500}, rng, part);
}
void largeKStrided(rt::Part& part) {
    std::mt19937 rng(65541);
    checkLargeK({{20011, 2}, {}, 0, 2047}, rng, part);
}
void largeKPadded(rt::Part& part) {
    std::mt19937 rng(65538);
    checkLargeK({{2, 40000}, {40007, 1}, 1, 4999}, rng, part);
}

// Seams: 64 or 2048 buckets per row (about L / 64 entries each, up to the most a sort workgroup ranks; or a
// few each, the default plan of rows of millions such as (1,16777216) K=65536, where these rows plan 512),
// and sort workgroups of at most 16 or 300 entries (most buckets sorted in place in the list) or the default.
void largeKBuckets(rt::Part& part) {
    std::mt19937 rng(65539);
    ListSeams restore;
    for (uint32_t buckets : {64u, 2048u}) {
        for (uint32_t slots : {16u, 300u, 0u}) {
            for (DataType type : {DataType::Float32, DataType::Float16, DataType::Int8}) {
                for (Data how : {Data::Random, Data::AllEqual, Data::Narrow}) {
                    if (!part.take()) continue;
                    core::listBucketsForTests = buckets;
                    core::listSlotsForTests = slots;
                    rt::HostTensor input(type, {3, 200003});
                    fillData(input, rng, how);
                    const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                    const auto pref = rng() & 1 ? KernelPreference::Auto : KernelPreference::Portable;
                    INFO("buckets " << buckets << ", sort slots " << slots);
                    requireStrategy(makeTopKDesc(input.desc, 1, 10007, dir), "topk_list_sort.");
                    checkTopK(rt::device(pref), input, 1, 10007, dir, DataType::UInt32);
                }
            }
        }
    }
}

} // namespace

#define LARGE_K_NAME                                                                                         \
    "TopK with K over 1024 on long rows: sampled selection, then the candidate lists sorted by sample sort "
RIPPLE_TEST_PARTS_3(largeKOneRow, LARGE_K_NAME "(one row of 100003 elements and K 5000)",
                    "[topk][gpu][exhaustive]")
RIPPLE_TEST_PARTS_6(largeKThreeRows, LARGE_K_NAME "(three rows of 20011 elements and K 1500)",
                    "[topk][gpu][exhaustive]")
RIPPLE_TEST_PARTS_3(largeKStrided, LARGE_K_NAME "(strided rows of 20011 elements along axis 0 and K 2047)",
                    "[topk][gpu][exhaustive]")
RIPPLE_TEST_PARTS_3(largeKPadded, LARGE_K_NAME "(padded rows of 40000 elements and K 4999)",
                    "[topk][gpu][exhaustive]")
RIPPLE_TEST_PARTS_3(
    largeKBuckets,
    "TopK with K over 1024: the candidate lists in 64 or 2048 buckets and sorted by workgroups of "
    "16 or 300 entries",
    "[topk][gpu][exhaustive]")

TEST_CASE("TopK with K over 1024: a candidate list that overflows its capacity takes the winners from the "
          "whole row",
          "[topk][gpu]") {
    // A 16-entry capacity seam (raised to K) overflows the list.
    std::mt19937 rng(65540);
    ListSeams restore;
    core::selectCapacityForTests = 16;
    for (DataType type : {DataType::Float32, DataType::UInt8}) {
        rt::HostTensor input(type, {2, 30000});
        fillData(input, rng, Data::Random);
        requireStrategy(makeTopKDesc(input.desc, 1, 2000), "topk_list_sort.");
        requireStrategy(makeTopKDesc(input.desc, 1, 1025, AxisDirection::Increasing), "topk_list_sort.");
        checkTopK(rt::device(), input, 1, 2000, AxisDirection::Decreasing, DataType::UInt32);
        checkTopK(rt::device(KernelPreference::Portable), input, 1, 1025, AxisDirection::Increasing,
                  DataType::UInt64);
    }
}
