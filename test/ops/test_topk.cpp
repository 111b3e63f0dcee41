// SPDX-License-Identifier: MIT
// TopK on the device against the CPU reference: every input type, index type, direction, rank and axis,
// odd sizes, multi-tile rows, strided and broadcast inputs, ties, NaN and +-0.0, K from 0 to the axis.
#include "core/planners.hpp"
#include "support/gpu.hpp"
#include "support/reference.hpp"

#include <catch2/catch.hpp>

using namespace ripple;

namespace {

const DataType kTypes[] = {DataType::Float32, DataType::Float16, DataType::BFloat16, DataType::Int32,
                           DataType::UInt32,  DataType::Int16,   DataType::UInt16,   DataType::Int8,
                           DataType::UInt8,   DataType::Int64,   DataType::UInt64};

// The types of the 32-bit-key strategies (row, chunk and sampled selection).
const DataType kTypes32[] = {DataType::Float32, DataType::Float16, DataType::BFloat16,
                             DataType::Int32,   DataType::UInt32,  DataType::Int16,
                             DataType::UInt16,  DataType::Int8,    DataType::UInt8};

// A test input's shape: sizes, strides (empty: packed) and the TopK axis.
struct Layout {
    std::vector<uint32_t> sizes;
    std::vector<uint32_t> strides;
    uint32_t axis;
};

std::vector<uint8_t> meaningful(std::vector<uint8_t> bytes, const TensorDesc& d) {
    bytes.resize(d.elementCount() * elementSize(d.DataType));
    return bytes;
}

// TopK of `input` along `axis`: packed outputs of the input's type and of `indexType`.
TopKDesc makeTopKDesc(const TensorDesc& input, uint32_t axis, uint32_t k,
                      AxisDirection direction = AxisDirection::Decreasing,
                      DataType indexType = DataType::UInt32) {
    TopKDesc desc;
    desc.InputTensor = input;
    desc.Axis = axis;
    desc.K = k;
    desc.AxisDirection = direction;
    std::vector<uint32_t> outSizes = input.Sizes;
    outSizes[axis] = k;
    desc.OutputValueTensor = {input.DataType, outSizes, {}};
    desc.OutputIndexTensor = {indexType, outSizes, {}};
    return desc;
}

// Runs one TopK case on `dev` and compares values and indices bit for bit with the reference.
void checkTopK(Device& dev, const rt::HostTensor& input, uint32_t axis, uint32_t k, AxisDirection direction,
               DataType indexType) {
    const TopKDesc desc = makeTopKDesc(input.desc, axis, k, direction, indexType);
    INFO("TopK input " << rt::describe(input.desc) << " axis " << axis << " K " << k << " "
                       << (direction == AxisDirection::Decreasing ? "DECREASING" : "INCREASING")
                       << " indices " << toString(indexType));
    auto op = dev.compile(desc);
    INFO(op.status().message());
    REQUIRE(op.ok());
    rt::GpuResult r =
        rt::runOnGpu(dev, op.value(), {&input}, {desc.OutputValueTensor, desc.OutputIndexTensor});
    INFO(r.status.message());
    REQUIRE(r.status.ok());
    std::vector<uint8_t> values, indices;
    rt::referenceTopK(desc, input, values, indices);
    INFO("values: " << rt::firstDifference(meaningful(r.outputs[0], desc.OutputValueTensor),
                                           meaningful(values, desc.OutputValueTensor),
                                           elementSize(input.desc.DataType)));
    CHECK(meaningful(r.outputs[0], desc.OutputValueTensor) == meaningful(values, desc.OutputValueTensor));
    INFO("indices: " << rt::firstDifference(meaningful(r.outputs[1], desc.OutputIndexTensor),
                                            meaningful(indices, desc.OutputIndexTensor),
                                            elementSize(indexType)));
    CHECK(meaningful(r.outputs[1], desc.OutputIndexTensor) == meaningful(indices, desc.OutputIndexTensor));
}

// Input data for the selection strategies. Narrow: values within a few hundred units in the last place of
// one another, so they share the key's upper digits (sampled selection's candidate lists overflow).
enum class Data { Random, Ties, Special, AllEqual, TwoValued, Narrow };
const Data kAllData[] = {Data::Random,   Data::Ties,      Data::Special,
                         Data::AllEqual, Data::TwoValued, Data::Narrow};

void fillData(rt::HostTensor& input, std::mt19937& rng, Data how) {
    const DataType type = input.desc.DataType;
    rt::fill(input, rng,
             how == Data::Special  ? rt::Fill::Special
             : how == Data::Random ? rt::Fill::Random
                                   : rt::Fill::Ties);
    if (how == Data::AllEqual || how == Data::TwoValued) {
        const uint64_t a = input.bits(0), b = input.bits(1);
        for (uint64_t i = 0; i < input.count(); ++i)
            input.setBits(i, how == Data::AllEqual || (rng() & 1) ? a : b);
    }
    if (how == Data::Narrow) {
        const uint64_t base = type == DataType::Float32   ? 0x3F800000u // 1.0
                              : type == DataType::Float16 ? 0x3C00u     // 1.0
                                                          : 0x20u;
        const uint32_t span = elementSize(type) == 1 ? 50 : 700;
        for (uint64_t i = 0; i < input.count(); ++i) input.setBits(i, base + rng() % span);
    }
}

// Tests only: plans without the one-dispatch chunk strategy while alive (sampled selection instead).
struct WithoutChunks {
    WithoutChunks() { core::chunkDisabledForTests = true; }
    ~WithoutChunks() { core::chunkDisabledForTests = false; }
};

// One strategy's test: every layout x 32-bit-key type x data kind, with the default kernels and the
// portable ones. skip(layout, pref, data) leaves a combination out (it may draw from rng); pickK(n) draws K
// for rows of n; the direction is drawn too.
template <typename Skip, typename PickK>
void checkLayouts(std::initializer_list<Layout> layouts, std::mt19937& rng, Skip skip, PickK pickK) {
    for (KernelPreference pref : {KernelPreference::Auto, KernelPreference::Portable}) {
        for (const Layout& c : layouts) {
            for (DataType type : kTypes32) {
                for (Data how : kAllData) {
                    if (skip(c, pref, how)) continue;
                    rt::HostTensor input(type, c.sizes, c.strides);
                    fillData(input, rng, how);
                    const uint32_t k = pickK(c.sizes[c.axis]);
                    const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                    checkTopK(rt::device(pref), input, c.axis, k, dir, DataType::UInt32);
                }
            }
        }
    }
}

} // namespace

TEST_CASE("TopK matches the reference for every data type, shape, axis and direction", "[topk][gpu]") {
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

TEST_CASE("TopK by radix selection (rows over 1024, K <= 1024): every type, ties, all-equal, two-valued, "
          "narrow-range",
          "[topk][gpu]") {
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
            for (uint32_t k : {1u, 16u, 17u, 333u})
                checkTopK(rt::device(), input, 1, k,
                          rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing,
                          DataType::UInt32);
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
        for (uint32_t k : {1000u, 1024u, 300u})
            for (auto dir : {AxisDirection::Decreasing, AxisDirection::Increasing})
                checkTopK(rt::device(), input, 1, k, dir, DataType::UInt32);
    }
}

TEST_CASE("TopK's sampled selection on rows long enough for grouped samples (over 1M elements)",
          "[topk][gpu]") {
    // 1100001 elements: each of the 4096 samples is the smallest of 2 elements of its stratum.
    std::mt19937 rng(11);
    for (DataType type : {DataType::Float32, DataType::BFloat16, DataType::Int8}) {
        for (rt::Fill how : {rt::Fill::Random, rt::Fill::Ties}) {
            rt::HostTensor input(type, {1, 1100001});
            rt::fill(input, rng, how);
            for (uint32_t k : {1u, 100u, 1024u})
                checkTopK(rt::device(), input, 1, k,
                          rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing,
                          DataType::UInt32);
        }
        rt::HostTensor sorted(type, {1, 1100001}); // ascending: the best of DECREASING all in the last strata
        for (uint64_t i = 0; i < sorted.count(); ++i)
            sorted.setBits(i, type == DataType::Float32    ? 0x3F800000u + i
                              : type == DataType::BFloat16 ? 0x3F80u + i / 2048
                                                           : i / 8192);
        checkTopK(rt::device(), sorted, 1, 500, AxisDirection::Decreasing, DataType::UInt32);
    }
    // 8388609 elements: samples of 16 elements for K >= 512 (core/topk.cpp's kSampleWideMinK), of 8 below.
    rt::HostTensor wide(DataType::Float32, {1, 8388609});
    rt::fill(wide, rng, rt::Fill::Random);
    for (uint32_t k : {100u, 700u})
        checkTopK(rt::device(), wide, 1, k, rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing,
                  DataType::UInt32);
    // Several rows whose samples 16 workgroups share (5 rows of 4097 * 128 elements: S = 4096), the last to
    // arrive selecting. One operator recorded and submitted three times on other data: from the second
    // submission on, its zeroed scratch comes back from the device's pool without a fill, so a run that
    // left an arrival counter behind would leave the next run's row state (tau, counts) unwritten.
    Device& dev = rt::device();
    const TopKDesc desc = makeTopKDesc({DataType::Float32, {5, 524417}, {}}, 1, 333);
    auto op = dev.compile(desc);
    REQUIRE(op.ok());
    rt::HostTensor input(DataType::Float32, {5, 524417});
    const uint64_t outBytes = 5 * 333 * 4;
    auto in = dev.createBuffer(input.bytes.size());
    auto values = dev.createBuffer(outBytes), indices = dev.createBuffer(outBytes);
    REQUIRE((in.ok() && values.ok() && indices.ok()));
    for (int run = 0; run < 3; ++run) {
        INFO("run " << run);
        fillData(input, rng, run == 1 ? Data::TwoValued : Data::Random);
        REQUIRE(dev.upload(in.value(), 0, input.bytes.data(), input.bytes.size()).ok());
        auto recorder = dev.createRecorder(); // each submission takes the pooled zeroed scratch, no fill
        REQUIRE(recorder.ok());
        REQUIRE(recorder.value()
                    .record(op.value(), {{&in.value(), 0}, {&values.value(), 0}, {&indices.value(), 0}})
                    .ok());
        auto ticket = dev.submit(recorder.value());
        REQUIRE(ticket.ok());
        REQUIRE(dev.wait(ticket.value()).ok());
        std::vector<uint8_t> gotValues(outBytes), gotIndices(outBytes), wantValues, wantIndices;
        REQUIRE(dev.download(values.value(), 0, gotValues.data(), outBytes).ok());
        REQUIRE(dev.download(indices.value(), 0, gotIndices.data(), outBytes).ok());
        rt::referenceTopK(desc, input, wantValues, wantIndices);
        CHECK(gotValues == wantValues);
        CHECK(gotIndices == wantIndices);
    }
}

TEST_CASE("TopK's sampled selection holds candidate lists of 2049 to 4096 entries in registers",
          "[topk][gpu]") {
    // Rows of 70001 with K = 777 and 1000: 1024 samples, tau their 38th or 44th smallest, so the lists hold
    // about 2600 and 3000 candidates (core/topk.cpp's estimate m * n / S): topk_select_final's slots 8 to 15
    // (HELD_MAX 4096), which the LLM shapes' lists of about 1128 reach only now and then. The plan has the
    // final load every slot before it reads the row's state; with one slot loaded there, the others are
    // loaded after it (a list longer than twice the estimate). Ties data puts many of the K-th rank's ties
    // in the list too.
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
                    checkTopK(rt::device(), input, 1, k,
                              rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing,
                              DataType::UInt32);
                }
            }
        }
    }
}

TEST_CASE("TopK's sampled selection takes the first ties of tau from the chunks' tie slots, or reads the "
          "chunks of more ties",
          "[topk][gpu]") {
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
    for (KernelPreference pref : {KernelPreference::Auto, KernelPreference::Portable}) {
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
                        checkTopK(rt::device(pref), input, c.axis, 200, dir, DataType::UInt32);
                    }
                }
            }
        }
    }
}

TEST_CASE("TopK by invocation-private lists (K <= 32): one part or several, contiguous and strided rows",
          "[topk][gpu]") {
    // Shapes and K reach each form of core/topk.cpp's planLane (parts as it computes them): one part per row
    // ({70001, 5}: rows enough; {3, 5} K = 5: a row shorter than KMAX = 8, its spare entries unwritten), a
    // few parts then a merge ({7, 33}: 2; {3, 1000} K = 16: 15; {5, 999} K = 32: 7), many short parts
    // ({3, 1000} K = 1: 250 of 4 elements), strided short rows ({2, 300, 40} padded, axis 1: 9 parts) and
    // strided long rows with rows * parts at the threshold ({2048, 64} axis 0 K = 1: 64 * 512).
    std::mt19937 rng(4242);
    struct Case {
        std::vector<uint32_t> sizes;
        std::vector<uint32_t> strides;
        uint32_t axis;
        uint32_t k;
    };
    const Case cases[] = {
        {{70001, 5}, {}, 1, 2},
        {{3, 5}, {}, 1, 5},
        {{7, 33}, {}, 1, 3},
        {{3, 1000}, {}, 1, 16},
        {{5, 999}, {}, 1, 32},
        {{3, 1000}, {}, 1, 1},
        {{2, 300, 40}, {13000, 41, 1}, 1, 7},
        {{2048, 64}, {}, 0, 1},
    };
    for (const Case& c : cases) {
        for (DataType type : kTypes) {
            for (Data how : kAllData) {
                rt::HostTensor input(type, c.sizes, c.strides);
                fillData(input, rng, how);
                const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                const DataType idx =
                    std::array{DataType::UInt32, DataType::UInt64, DataType::Int64}[rng() % 3];
                checkTopK(rt::device(), input, c.axis, c.k, dir, idx);
            }
        }
    }
    // Strided long rows with K = 8 (64 parts of 32 elements for each of 512 rows), a few types.
    for (DataType type : {DataType::Float32, DataType::BFloat16, DataType::Int64}) {
        rt::HostTensor input(type, {2048, 512});
        fillData(input, rng, Data::Ties);
        checkTopK(rt::device(), input, 0, 8, AxisDirection::Decreasing, DataType::UInt32);
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
          "[topk][gpu]") {
    // core/topk.cpp's planRow: 16 keys per invocation (rows of 4096 fill every slot; 257 and 1025 leave
    // most invocations with padding), contiguous and strided rows, K from 1 to 1024 (ranked by counting up
    // to 128, by a bitonic sort beyond). Two-valued, all-equal and narrow data put ties of the K-th rank
    // across K, so the index bits are selected too.
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
            return std::min(n, std::array<uint32_t, 8>{1, 33, 128, 129, 256, 700, 1024, n}[rng() % 8]);
        });
}

TEST_CASE("TopK in one dispatch by chunks (rows over 4096): every type up to 32 bits, both kernel variants, "
          "early and exact narrowing, ties across chunks",
          "[topk][gpu]") {
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
        });
}

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

TEST_CASE("TopK with K over 1024 on long rows: sampled selection, then the candidate lists sorted by sample "
          "sort",
          "[topk][gpu]") {
    // core/topk.cpp's planSelect(large): random data keeps at least K candidates (the list as it is);
    // two-valued, all-equal and narrow data leave fewer, and the first ties of tau by index fill the rest
    // (topk_list.glsl then sorts the list: splitters from a sample of it, buckets, each bucket sorted);
    // a 16-entry capacity seam (raised to K) overflows the list, and the winners come from the whole row.
    std::mt19937 rng(65536);
    struct Case {
        std::vector<uint32_t> sizes;
        std::vector<uint32_t> strides;
        uint32_t axis, k;
    };
    const Case cases[] = {
        {{1, 100003}, {}, 1, 5000},
        {{3, 20011}, {}, 1, 1500},
        {{20011, 2}, {}, 0, 2047}, // strided rows
        {{2, 40000}, {40007, 1}, 1, 4999},
    };
    for (const Case& c : cases) {
        for (DataType type : kTypes32) {
            for (Data how : kAllData) {
                rt::HostTensor input(type, c.sizes, c.strides);
                fillData(input, rng, how);
                const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                checkTopK(rt::device(), input, c.axis, c.k, dir, DataType::UInt32);
            }
        }
    }
    // Seams: 64 buckets per row (about L / 64 entries each, up to the most a sort workgroup ranks), and sort
    // workgroups of at most 16 or 300 entries (most buckets sorted in place in the list).
    struct Restore {
        ~Restore() {
            core::selectCapacityForTests = 0, core::listSlotsForTests = core::listBucketsForTests = 0;
        }
    } restore;
    for (uint32_t buckets : {64u, 2048u}) {
        for (uint32_t slots : {16u, 300u, 0u}) {
            if (buckets == 2048u && slots == 0u) continue; // the default plan, above
            core::listBucketsForTests = buckets;
            core::listSlotsForTests = slots;
            for (DataType type : {DataType::Float32, DataType::Float16, DataType::Int8}) {
                for (Data how : {Data::Random, Data::AllEqual, Data::Narrow}) {
                    rt::HostTensor input(type, {3, 200003});
                    fillData(input, rng, how);
                    const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                    const auto pref = rng() & 1 ? KernelPreference::Auto : KernelPreference::Portable;
                    INFO("buckets " << buckets << ", sort slots " << slots);
                    checkTopK(rt::device(pref), input, 1, 10007, dir, DataType::UInt32);
                }
            }
        }
    }
    core::listBucketsForTests = 0;
    core::listSlotsForTests = 0;
    core::selectCapacityForTests = 16;
    for (DataType type : {DataType::Float32, DataType::UInt8}) {
        rt::HostTensor input(type, {2, 30000});
        fillData(input, rng, Data::Random);
        checkTopK(rt::device(), input, 1, 2000, AxisDirection::Decreasing, DataType::UInt32);
        checkTopK(rt::device(KernelPreference::Portable), input, 1, 1025, AxisDirection::Increasing,
                  DataType::UInt64);
    }
}
