// SPDX-License-Identifier: MIT
// GPU-side counts (issue 43; SEMANTICS.md "GPU-side counts"). A scatter with a CountTensor applies only the
// first N update rows; TopK ranks only the first N elements of each sequence and fills the positions past
// N as documented. N is read on the GPU when the run executes: one Recording per case is submitted again
// for each count (0, 1, about half, all, over, UINT32_MAX), only the count buffer changing. Each output
// must equal the reference of that count. A count over the maximum must be clamped and reported, and
// scatter rows past N are neither applied nor checked (an out-of-range index there is not reported).
#include "scatter_cases.hpp"

#include <cstdlib>
#include <set>

using namespace ripple;
using namespace sc;

namespace {

Buffer bufferWith(Device& dev, const std::vector<uint8_t>& bytes) {
    auto b = dev.createBuffer(std::max<uint64_t>(bytes.size(), 4));
    REQUIRE(b.ok());
    if (!bytes.empty()) REQUIRE(dev.upload(b.value(), 0, bytes.data(), bytes.size()).ok());
    return std::move(b.value());
}

std::vector<uint32_t> countsFor(uint64_t rows) {
    std::set<uint32_t> c = {0,
                            1,
                            static_cast<uint32_t>(rows / 2 + 1),
                            static_cast<uint32_t>(rows),
                            static_cast<uint32_t>(rows + 1),
                            UINT32_MAX};
    return {c.begin(), c.end()};
}

// The reference of a count: `cut(n)` gives the indices with the rows from n on out of range, which the
// reference skips (and counts, which is ignored here). `badRow`: the one row whose index data is out of
// range (UINT64_MAX: none), reported only where the count includes it.
template <class Desc>
void checkCounts(const Desc& desc, const rt::HostTensor& in, const rt::HostTensor& ind,
                 const rt::HostTensor& upd, uint64_t rows, uint64_t badRow,
                 std::vector<uint8_t> (*reference)(const Desc&, const rt::HostTensor&, const rt::HostTensor&,
                                                   const rt::HostTensor&, int*),
                 const std::function<rt::HostTensor(uint64_t)>& cut) {
    INFO(toString(desc.InputTensor.DataType)
         << " reduction " << static_cast<int>(desc.Reduction) << " deterministic " << desc.Deterministic
         << " input " << rt::describe(desc.InputTensor) << " indices " << rt::describe(desc.IndicesTensor)
         << " bad row " << badRow);
    Device& dev = rt::device();
    auto op = dev.compile(desc);
    if (noD3D12Form(op, desc.InputTensor.DataType)) return;
    if (std::getenv("RIPPLE_DEVICE_PROFILE") && elementSize(desc.InputTensor.DataType) == 8) {
        CHECK(op.status().code() == StatusCode::Unsupported); // mobile-vk11: no shaderInt64
        return;
    }
    INFO(op.status().message());
    REQUIRE(op.ok());
    REQUIRE(op->tensorNames().back() == "CountTensor");
    const TensorDesc& outDesc = desc.OutputTensor;
    const std::vector<uint8_t> poison(calcBufferTensorSize(outDesc), 0xA5);
    Buffer inB = bufferWith(dev, in.bytes), indB = bufferWith(dev, ind.bytes),
           updB = bufferWith(dev, upd.bytes);
    Buffer outB = bufferWith(dev, poison), countB = bufferWith(dev, {0, 0, 0, 0});
    const std::vector<TensorBinding> bindings = {{&inB, 0}, {&indB, 0}, {&updB, 0}, {&outB, 0}, {&countB, 0}};
    auto recorder = dev.createRecorder();
    REQUIRE(recorder.ok());
    REQUIRE(recorder->record(op.value(), bindings, "counted").ok());
    auto recording = dev.finishRecording(recorder.value());
    INFO(recording.status().message());
    REQUIRE(recording.ok());

    auto output = [&] {
        std::vector<uint8_t> got(poison.size());
        REQUIRE(dev.download(outB, 0, got.data(), got.size()).ok());
        return meaningful(got, outDesc);
    };
    for (uint32_t n : countsFor(rows)) {
        INFO("count " << n << " of " << rows << " rows");
        REQUIRE(dev.upload(countB, 0, &n, 4).ok());
        REQUIRE(dev.upload(outB, 0, poison.data(), poison.size()).ok());
        auto ticket = dev.submit(recording.value());
        REQUIRE(ticket.ok());
        const Status s = dev.wait(ticket.value());
        INFO(s.message());
        if (n > badRow)
            CHECK(s.code() == StatusCode::IndexOutOfRange);
        else if (n > rows)
            CHECK((s.code() == StatusCode::InvalidArgument &&
                   s.message().find("clamped") != std::string::npos));
        else
            CHECK(s.ok());
        const std::vector<uint8_t> want =
            meaningful(reference(desc, in, cut(std::min<uint64_t>(n, rows)), upd, nullptr), outDesc);
        const std::vector<uint8_t> got = output();
        INFO(rt::firstDifference(got, want, elementSize(outDesc.DataType)));
        CHECK(got == want);
    }
    // execute() (its replay cache) reads the count too.
    const uint32_t one = 1;
    REQUIRE(dev.upload(countB, 0, &one, 4).ok());
    CHECK(dev.execute(op.value(), bindings).code() ==
          (badRow == 0 ? StatusCode::IndexOutOfRange : StatusCode::Ok));
    CHECK(output() == meaningful(reference(desc, in, cut(1), upd, nullptr), outDesc));
}

const TensorDesc kCount = {DataType::UInt32, {1}, {}};

// Distinct targets along each line of the indexed axis (duplicates only with a reduction, or
// deterministic), signed indices half negative.
void fillIndices(rt::HostTensor& ind, uint64_t lines, uint32_t perLine, uint64_t lineStride, uint64_t step,
                 uint32_t size, bool duplicates, std::mt19937& rng) {
    for (uint64_t line = 0; line < lines; ++line) {
        std::vector<uint32_t> order(size);
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        for (uint32_t j = 0; j < perLine; ++j)
            putIndex(ind, line * lineStride + j * step, duplicates ? order[j % 3] : order[j], size, rng);
    }
}

// ScatterElements on inSizes (rank 2) along `axis` with k indices per line; `bad`: one out-of-range index.
void elementsCase(DataType type, DataType indexType, std::vector<uint32_t> inSizes, uint32_t axis, uint32_t k,
                  ScatterReduction reduction, bool deterministic, bool bad, std::mt19937& rng) {
    ScatterElementsDesc d;
    std::vector<uint32_t> indSizes = inSizes;
    indSizes[axis] = k;
    d.InputTensor = {type, inSizes, {}};
    d.IndicesTensor = {indexType, indSizes, {}};
    d.UpdatesTensor = {type, indSizes, {}};
    d.OutputTensor = {type, inSizes, {}};
    d.Axis = axis;
    d.Reduction = reduction;
    d.Deterministic = deterministic;
    d.CountTensor = kCount;
    rt::HostTensor in(type, inSizes), ind(indexType, indSizes), upd(type, indSizes);
    rt::fill(in, rng, rt::Fill::Random);
    if (reduction == ScatterReduction::None)
        rt::fill(upd, rng, rt::Fill::Random);
    else // small integers: sums exact in any order
        for (uint64_t i = 0; i < upd.count(); ++i)
            upd.setBits(i, rt::isFloat(type) ? floatBits(type, double(int(rng() % 9) - 4)) : rng() % 9);
    const uint32_t size = inSizes[axis];
    if (axis == 1)
        fillIndices(ind, indSizes[0], k, k, 1, size, reduction != ScatterReduction::None, rng);
    else
        fillIndices(ind, indSizes[1], k, 1, indSizes[1], size, reduction != ScatterReduction::None, rng);
    const uint64_t rows = ind.count();
    const uint64_t badRow = bad ? rows / 3 : UINT64_MAX;
    if (bad) ind.setBits(badRow, size + 2);
    checkCounts<ScatterElementsDesc>(d, in, ind, upd, rows, badRow, &rt::referenceScatterElements,
                                     [&](uint64_t n) {
                                         rt::HostTensor t = ind;
                                         for (uint64_t i = n; i < t.count(); ++i) t.setBits(i, size);
                                         return t;
                                     });
}

// ScatterND on inSizes (rank 2), q = 1: `tuples` rows of inSizes[1] elements each.
void ndCase(DataType type, DataType indexType, std::vector<uint32_t> inSizes, uint32_t tuples,
            ScatterReduction reduction, bool deterministic, bool bad, std::mt19937& rng) {
    ScatterNDDesc d;
    d.InputTensor = {type, inSizes, {}};
    d.IndicesTensor = {indexType, {tuples, 1}, {}};
    d.UpdatesTensor = {type, {tuples, inSizes[1]}, {}};
    d.OutputTensor = {type, inSizes, {}};
    d.InputDimensionCount = 2;
    d.IndicesDimensionCount = 2;
    d.Reduction = reduction;
    d.Deterministic = deterministic;
    d.CountTensor = kCount;
    rt::HostTensor in(type, inSizes), ind(indexType, {tuples, 1}), upd(type, {tuples, inSizes[1]});
    rt::fill(in, rng, rt::Fill::Random);
    if (reduction == ScatterReduction::None)
        rt::fill(upd, rng, rt::Fill::Random);
    else
        for (uint64_t i = 0; i < upd.count(); ++i)
            upd.setBits(i, rt::isFloat(type) ? floatBits(type, double(int(rng() % 9) - 4)) : rng() % 9);
    fillIndices(ind, 1, tuples, 0, 1, inSizes[0], reduction != ScatterReduction::None, rng);
    const uint64_t badRow = bad ? tuples / 2 : UINT64_MAX;
    if (bad) ind.setBits(badRow, inSizes[0]);
    checkCounts<ScatterNDDesc>(d, in, ind, upd, tuples, badRow, &rt::referenceScatterND, [&](uint64_t n) {
        rt::HostTensor t = ind;
        for (uint64_t i = n; i < t.count(); ++i) t.setBits(i, inSizes[0]);
        return t;
    });
}

const DataType kAllTypes[] = {DataType::Float32, DataType::Float16, DataType::BFloat16, DataType::UInt32,
                              DataType::UInt16,  DataType::UInt8,   DataType::Int32,    DataType::Int16,
                              DataType::Int8,    DataType::Float64, DataType::UInt64,   DataType::Int64};

// TopK with count n, by SEMANTICS.md's rule: each sequence's first min(n, size) elements ranked (ties by
// index), the first min(n, K) positions their best, each later position j index j with the direction's
// last-ranked value (`fill`).
void expectedTopK(const TopKDesc& d, const rt::HostTensor& in, uint64_t n, uint64_t fill,
                  rt::HostTensor& values, rt::HostTensor& indices) {
    const auto& sizes = in.desc.Sizes;
    const uint32_t size = sizes[d.Axis], present = static_cast<uint32_t>(std::min<uint64_t>(n, size));
    uint64_t inner = 1, outer = 1;
    for (size_t x = d.Axis + 1; x < sizes.size(); ++x) inner *= sizes[x];
    for (size_t x = 0; x < d.Axis; ++x) outer *= sizes[x];
    const bool down = d.AxisDirection == AxisDirection::Decreasing;
    for (uint64_t o = 0; o < outer; ++o)
        for (uint64_t i = 0; i < inner; ++i) {
            std::vector<uint32_t> order(present);
            std::iota(order.begin(), order.end(), 0u);
            auto at = [&](uint32_t j) { return in.bits((o * size + j) * inner + i); };
            std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
                const int c = rt::compareValues(in.desc.DataType, at(a), at(b));
                return down ? c > 0 : c < 0;
            });
            for (uint32_t j = 0; j < d.K; ++j) {
                const uint64_t pos = (o * d.K + j) * inner + i;
                values.setBits(pos, j < present ? at(order[j]) : fill);
                indices.setBits(pos, j < present ? order[j] : j);
            }
        }
}

// TopK on `in` along `axis` with a CountTensor, one Recording submitted for each count.
void topkCase(const rt::HostTensor& in, uint32_t axis, uint32_t k, AxisDirection direction,
              DataType indexType, uint64_t fill) {
    TopKDesc d;
    d.InputTensor = in.desc;
    std::vector<uint32_t> outSizes = in.desc.Sizes;
    outSizes[axis] = k;
    d.OutputValueTensor = {in.desc.DataType, outSizes, {}};
    d.OutputIndexTensor = {indexType, outSizes, {}};
    d.Axis = axis;
    d.K = k;
    d.AxisDirection = direction;
    d.CountTensor = kCount;
    INFO(toString(in.desc.DataType) << " input " << rt::describe(in.desc) << " axis " << axis << " K " << k
                                    << (direction == AxisDirection::Decreasing ? " DECREASING"
                                                                               : " INCREASING"));
    Device& dev = rt::device();
    auto op = dev.compile(d);
    INFO(op.status().message());
    REQUIRE(op.ok());
    const std::vector<uint8_t> poisonV(calcBufferTensorSize(d.OutputValueTensor), 0xA5),
        poisonI(calcBufferTensorSize(d.OutputIndexTensor), 0xA5);
    Buffer inB = bufferWith(dev, in.bytes), valB = bufferWith(dev, poisonV), idxB = bufferWith(dev, poisonI);
    Buffer countB = bufferWith(dev, {0, 0, 0, 0});
    auto recorder = dev.createRecorder();
    REQUIRE(recorder.ok());
    REQUIRE(recorder->record(op.value(), {{&inB, 0}, {&valB, 0}, {&idxB, 0}, {&countB, 0}}).ok());
    auto recording = dev.finishRecording(recorder.value());
    REQUIRE(recording.ok());
    const uint32_t size = in.desc.Sizes[axis];
    for (uint32_t n : countsFor(size)) {
        INFO("count " << n << " of " << size);
        REQUIRE(dev.upload(countB, 0, &n, 4).ok());
        REQUIRE(dev.upload(valB, 0, poisonV.data(), poisonV.size()).ok());
        REQUIRE(dev.upload(idxB, 0, poisonI.data(), poisonI.size()).ok());
        auto ticket = dev.submit(recording.value());
        REQUIRE(ticket.ok());
        const Status s = dev.wait(ticket.value());
        INFO(s.message());
        if (n > size)
            CHECK((s.code() == StatusCode::InvalidArgument &&
                   s.message().find("clamped") != std::string::npos));
        else
            CHECK(s.ok());
        rt::HostTensor wantV(in.desc.DataType, outSizes), wantI(indexType, outSizes);
        expectedTopK(d, in, n, fill, wantV, wantI);
        std::vector<uint8_t> gotV(poisonV.size()), gotI(poisonI.size());
        REQUIRE(dev.download(valB, 0, gotV.data(), gotV.size()).ok());
        REQUIRE(dev.download(idxB, 0, gotI.data(), gotI.size()).ok());
        INFO("values: " << rt::firstDifference(meaningful(gotV, d.OutputValueTensor),
                                               meaningful(wantV.bytes, d.OutputValueTensor),
                                               elementSize(in.desc.DataType)));
        INFO("indices: " << rt::firstDifference(meaningful(gotI, d.OutputIndexTensor),
                                                meaningful(wantI.bytes, d.OutputIndexTensor),
                                                elementSize(indexType)));
        CHECK(meaningful(gotV, d.OutputValueTensor) == meaningful(wantV.bytes, d.OutputValueTensor));
        CHECK(meaningful(gotI, d.OutputIndexTensor) == meaningful(wantI.bytes, d.OutputIndexTensor));
    }
}

// The last-ranked value of each type and direction, as SEMANTICS.md documents it.
uint64_t documentedFill(DataType t, AxisDirection direction) {
    const bool down = direction == AxisDirection::Decreasing;
    switch (t) {
    case DataType::Float32:
        return down ? 0xFF800000 : 0x7FC00000;
    case DataType::Float16:
        return down ? 0xFC00 : 0x7E00;
    case DataType::BFloat16:
        return down ? 0xFF80 : 0x7FC0;
    case DataType::Int8:
        return down ? 0x80 : 0x7F;
    case DataType::Int16:
        return down ? 0x8000 : 0x7FFF;
    case DataType::Int32:
        return down ? 0x80000000 : 0x7FFFFFFF;
    case DataType::Int64:
        return down ? 0x8000000000000000 : 0x7FFFFFFFFFFFFFFF;
    case DataType::UInt8:
        return down ? 0 : 0xFF;
    case DataType::UInt16:
        return down ? 0 : 0xFFFF;
    case DataType::UInt32:
        return down ? 0 : 0xFFFFFFFF;
    default:
        return down ? 0 : ~uint64_t(0);
    }
}

} // namespace

TEST_CASE("ScatterElements with a CountTensor applies the first N updates, N read on the GPU at each "
          "submission (every data type, counts 0, 1, half, all, over)",
          "[counts][gpu]") {
    std::mt19937 rng(43);
    uint32_t i = 0;
    for (DataType t : kAllTypes) {
        const DataType index = kIndexTypes[i++ % 4];
        elementsCase(t, index, {7, 33}, 0, 3, ScatterReduction::None, false, i % 2, rng); // a non-last axis
        elementsCase(t, index, {5, 33}, 1, 7, ScatterReduction::None, false, i % 2 == 0, rng);
    }
    // The fused line pass (last axis, lines of 8 KiB), a reduction, the deterministic sort.
    elementsCase(DataType::Float32, DataType::Int32, {5, 2048}, 1, 64, ScatterReduction::None, false, false,
                 rng);
    elementsCase(DataType::Int32, DataType::UInt32, {6, 40}, 1, 40, ScatterReduction::Add, false, true, rng);
    elementsCase(DataType::Float32, DataType::Int64, {7, 33}, 0, 5, ScatterReduction::Add, true, true, rng);
    elementsCase(DataType::Float16, DataType::Int32, {7, 33}, 1, 9, ScatterReduction::None, true, false, rng);
}

TEST_CASE("ScatterND with a CountTensor applies the first N index tuples, N read on the GPU at each "
          "submission (every data type, counts 0, 1, half, all, over)",
          "[counts][gpu]") {
    std::mt19937 rng(4343);
    uint32_t i = 0;
    for (DataType t : kAllTypes)
        ndCase(t, kIndexTypes[i++ % 4], {9, 33}, 5, ScatterReduction::None, false, i % 2, rng);
    // Slices of whole 16-byte blocks (the row pass), a reduction, the deterministic sort.
    ndCase(DataType::Float32, DataType::Int32, {9, 64}, 7, ScatterReduction::None, false, true, rng);
    ndCase(DataType::UInt32, DataType::Int64, {9, 33}, 20, ScatterReduction::Add, false, false, rng);
    ndCase(DataType::Float32, DataType::UInt64, {9, 33}, 20, ScatterReduction::Add, true, true, rng);
}

TEST_CASE("A CountTensor that breaks its rules is refused at compile, naming it", "[counts]") {
    ScatterElementsDesc d;
    d.InputTensor = {DataType::Float32, {4, 4}, {}};
    d.IndicesTensor = {DataType::Int32, {2, 4}, {}};
    d.UpdatesTensor = {DataType::Float32, {2, 4}, {}};
    d.OutputTensor = {DataType::Float32, {4, 4}, {}};
    const std::pair<TensorDesc, const char*> bad[] = {
        {{DataType::Int32, {1}, {}}, "UINT32"},
        {{DataType::UInt32, {2}, {}}, "Sizes[0] is 2"},
        {{DataType::UInt32, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {}}, "DimensionCount"},
        {{DataType::UInt32, {}, {1}}, "DimensionCount"},
        {{DataType::UInt32, {1, 1}, {1}}, "Strides"},
    };
    for (const auto& [count, rule] : bad) {
        d.CountTensor = count;
        auto op = rt::device().compile(d);
        INFO(op.status().message());
        CHECK(op.status().code() == StatusCode::InvalidArgument);
        CHECK(op.status().message().find("CountTensor") != std::string::npos);
        CHECK(op.status().message().find(rule) != std::string::npos);
    }
    TopKDesc t;
    t.InputTensor = {DataType::Float32, {4, 4}, {}};
    t.OutputValueTensor = {DataType::Float32, {4, 2}, {}};
    t.OutputIndexTensor = {DataType::UInt32, {4, 2}, {}};
    t.Axis = 1;
    t.K = 2;
    t.CountTensor = {DataType::UInt64, {1}, {}};
    CHECK(rt::device().compile(t).status().message().find("CountTensor") != std::string::npos);
    t.CountTensor = {DataType::UInt32, {1}, {}};
    CHECK(rt::device().compile(t).ok());
    d.CountTensor = {DataType::UInt32, {1, 1}, {}};
    auto op = rt::device().compile(d);
    REQUIRE(op.ok());
    CHECK(op->tensorNames().size() == 5);
    // Bound like any tensor: a missing count is refused by name.
    CHECK(rt::device().execute(op.value(), {}).message().find("CountTensor") != std::string::npos);
}

TEST_CASE("TopK with a CountTensor ranks the first N elements of each sequence, N read on the GPU at each "
          "submission, later positions filled as documented (every data type, counts 0, 1, half, all, over)",
          "[counts][gpu]") {
    std::mt19937 rng(434343);
    const DataType types[] = {DataType::Float32, DataType::Float16, DataType::BFloat16, DataType::Int8,
                              DataType::Int16,   DataType::Int32,   DataType::Int64,    DataType::UInt8,
                              DataType::UInt16,  DataType::UInt32,  DataType::UInt64};
    const DataType indexTypes[] = {DataType::UInt32, DataType::UInt64, DataType::Int64};
    uint32_t i = 0;
    for (DataType t : types) {
        const AxisDirection dir = i % 2 ? AxisDirection::Increasing : AxisDirection::Decreasing;
        const DataType index = indexTypes[i++ % 3];
        // Special values (NaN, +-inf, extremes) tie with the fill; ties in the others.
        rt::HostTensor row(t, {5, 33});
        rt::fill(row, rng, rt::Fill::Special);
        topkCase(row, 1, 7, dir, index, documentedFill(t, dir));
        rt::HostTensor strided(t, {33, 6}, {12, 2}); // a non-last axis, strided
        rt::fill(strided, rng, rt::Fill::Ties);
        topkCase(strided, 0, 4,
                 dir == AxisDirection::Increasing ? AxisDirection::Decreasing : AxisDirection::Increasing,
                 index,
                 documentedFill(t, dir == AxisDirection::Increasing ? AxisDirection::Decreasing
                                                                    : AxisDirection::Increasing));
    }
    // Long rows (the selection and radix strategies), and K equal to the sequence length.
    for (AxisDirection dir : {AxisDirection::Decreasing, AxisDirection::Increasing}) {
        rt::HostTensor f(DataType::Float32, {2, 5000});
        rt::fill(f, rng, rt::Fill::Special);
        topkCase(f, 1, 16, dir, DataType::UInt32, documentedFill(DataType::Float32, dir));
        topkCase(f, 1, 300, dir, DataType::UInt32, documentedFill(DataType::Float32, dir));
        rt::HostTensor w(DataType::Int64, {2, 3000});
        rt::fill(w, rng, rt::Fill::Random);
        topkCase(w, 1, 8, dir, DataType::Int64, documentedFill(DataType::Int64, dir));
        rt::HostTensor all(DataType::UInt8, {3, 20});
        rt::fill(all, rng, rt::Fill::Ties);
        topkCase(all, 1, 20, dir, DataType::UInt32, documentedFill(DataType::UInt8, dir));
    }
}
