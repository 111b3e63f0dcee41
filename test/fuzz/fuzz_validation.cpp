// SPDX-License-Identifier: MIT
// libFuzzer target: operator validation and planning (core/planners.hpp) on descs decoded from the bytes,
// no GPU. Shapes are built to be mostly consistent (the output from the input, the updates from the indices)
// and then perturbed, so that the planners' later rules and the plan building are reached, not only the first
// check. Whatever the desc: a refusal names the operator and is InvalidArgument or Unsupported; an accepted
// desc has tensors of at most 2^31 - 1 elements within maxStorageBufferRange, scratch bindings within it too,
// and dispatches that reach only params the plan holds. Half the inputs plan for a small device
// (PlanLimits::smallKernels).
#include "core/planners.hpp"

#include <cstdlib>
#include <cstring>

using namespace ripple;

namespace {

class Bytes {
  public:
    Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    uint8_t u8() { return at_ < size_ ? data_[at_++] : 0; }
    uint32_t u32() {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= uint32_t(u8()) << (8 * i);
        return v;
    }
    // A size: mostly small (odd ones included), sometimes the extremes that overflow products.
    uint32_t size() {
        static const uint32_t palette[] = {1,    2, 3,     7,           8,           33,
                                           1000, 0, 65536, 4294967295u, 2863311531u, 1u << 31};
        const uint8_t b = u8();
        if (b < 200) return 1 + b % 9;
        if (b < 200 + 12) return palette[b - 200];
        return u32();
    }
    std::vector<uint32_t> sizes(uint32_t rank) {
        std::vector<uint32_t> s(rank);
        for (auto& v : s) v = size();
        return s;
    }
    // Strides: none (packed), or random ones, or broadcast zeros; with a wrong count now and then.
    std::vector<uint32_t> strides(uint32_t rank) {
        const uint8_t mode = u8() % 8;
        if (mode < 5) return {};
        std::vector<uint32_t> s(mode == 7 ? rank + 1 : rank);
        for (auto& v : s) v = mode == 5 ? 0 : (u8() < 128 ? u8() : u32());
        return s;
    }
    DataType type() { return static_cast<DataType>(u8() % 13); } // 12 is no DataType
    // Usually `expected`, sometimes another value, so mismatches are reached too.
    template <class T> T mostly(T expected, T other) { return u8() < 224 ? expected : other; }

  private:
    const uint8_t* data_;
    size_t size_;
    size_t at_ = 0;
};

[[noreturn]] void fail() {
    std::abort();
}

void checkRefusal(const Status& s, const char* op) {
    if (s.code() != StatusCode::InvalidArgument && s.code() != StatusCode::Unsupported) fail();
    if (s.message().rfind(std::string(op) + ": ", 0) != 0) fail();
}

void checkPlan(const core::Plan& plan, const core::PlanLimits& limits) {
    for (const TensorDesc& t : plan.tensors) {
        if (t.elementCount() > 0x7FFFFFFFull) fail();
        if (calcBufferTensorSize(t) > limits.maxStorageBufferRange) fail();
    }
    if (plan.tensorNames.size() != plan.tensors.size() || plan.firstOutput >= plan.tensors.size()) fail();
    if (plan.tensorNames.back() == "CountTensor" && // a scatter's GPU-side count: one UINT32
        (plan.tensors.back().DataType != DataType::UInt32 || plan.tensors.back().elementCount() != 1))
        fail();
    for (const core::PlanDispatch& d : plan.dispatches) {
        if (d.kernel.empty() || d.groups < 1 || d.groups > 65535) fail();
        if (d.paramsBase >= plan.params.size()) fail();
        for (const core::PlanBinding& b : d.bindings) {
            if (b.kind == core::BindingKind::Tensor && b.tensor >= plan.tensors.size()) fail();
            if (b.kind == core::BindingKind::Scratch && b.offset + b.size > plan.scratchBytes) fail();
            if ((b.kind == core::BindingKind::Scratch || b.kind == core::BindingKind::ZeroedScratch) &&
                b.size > limits.maxStorageBufferRange)
                fail(); // a binding over the device's range
            if (b.kind == core::BindingKind::ZeroedScratch && b.offset + b.size > plan.zeroedScratchBytes)
                fail();
        }
    }
}

template <class Desc>
void run(const Desc& desc, Result<core::Plan> (*planner)(const Desc&, const core::PlanLimits&),
         const char* op, const core::PlanLimits& limits) {
    Result<core::Plan> plan = planner(desc, limits);
    if (plan.ok())
        checkPlan(plan.value(), limits);
    else
        checkRefusal(plan.status(), op);
}

// A scatter's GPU-side count: mostly one UINT32 element, else any type, sizes and strides.
TensorDesc countTensor(Bytes& in) {
    const uint32_t rank = in.mostly<uint32_t>(1, in.u8() % 10);
    return {in.mostly(DataType::UInt32, in.type()), in.mostly(std::vector<uint32_t>(rank, 1), in.sizes(rank)),
            in.strides(rank)};
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Bytes in(data, size);
    core::PlanLimits limits;
    const uint8_t limitByte = in.u8(), limit = limitByte % 3;
    limits.maxStorageBufferRange = limit == 0 ? (1ull << 27) : limit == 1 ? 0xFFFFFFFFull : (1ull << 40);
    limits.smallKernels = limitByte % 6 >= 3; // the small-device plans (sampled selection's own among them)
    const uint8_t op = in.u8() % 3;
    const uint32_t rank = in.mostly<uint32_t>(1 + in.u8() % 8, in.u8() % 10);
    const DataType type = in.type();
    TensorDesc input{type, in.sizes(rank), {}};
    input.Strides = in.strides(rank);

    if (op == 0) {
        TopKDesc d;
        d.InputTensor = input;
        d.Axis = in.mostly<uint32_t>(rank ? in.u8() % rank : 0, in.u32());
        const uint32_t along = d.Axis < rank ? input.Sizes[d.Axis] : 1;
        d.K = in.mostly<uint32_t>(static_cast<uint32_t>(in.u32() % (uint64_t(along) + 1)), in.u32());
        std::vector<uint32_t> out = input.Sizes;
        if (d.Axis < rank) out[d.Axis] = d.K;
        d.OutputValueTensor = {in.mostly(type, in.type()), in.mostly(out, in.sizes(rank)), in.strides(rank)};
        d.OutputIndexTensor = {in.mostly(DataType::UInt32, in.type()), in.mostly(out, in.sizes(rank)), {}};
        d.AxisDirection = static_cast<AxisDirection>(in.u8() % 3);
        if (in.u8() & 1) d.CountTensor = countTensor(in);
        run(d, &core::planTopK, "TopK", limits);
    } else if (op == 1) {
        ScatterElementsDesc d;
        d.InputTensor = input;
        d.OutputTensor = {in.mostly(type, in.type()), in.mostly(input.Sizes, in.sizes(rank)),
                          in.strides(rank)};
        std::vector<uint32_t> upd = input.Sizes; // each at most the input's, so the rules pass
        for (auto& v : upd) v = in.mostly<uint32_t>(v ? 1 + in.u32() % v : 0, in.size());
        d.IndicesTensor = {static_cast<DataType>(in.u8() % 13), upd, in.strides(rank)};
        d.UpdatesTensor = {in.mostly(type, in.type()), in.mostly(upd, in.sizes(rank)), in.strides(rank)};
        d.Axis = in.mostly<uint32_t>(rank ? in.u8() % rank : 0, in.u32());
        d.Reduction = static_cast<ScatterReduction>(in.u8() % 6);
        d.Deterministic = in.u8() & 1;
        if (in.u8() & 1) d.CountTensor = countTensor(in);
        run(d, &core::planScatterElements, "ScatterElements", limits);
    } else {
        ScatterNDDesc d;
        d.InputTensor = input;
        d.OutputTensor = {in.mostly(type, in.type()), in.mostly(input.Sizes, in.sizes(rank)),
                          in.strides(rank)};
        d.InputDimensionCount = in.mostly<uint32_t>(rank ? 1 + in.u8() % rank : 0, in.u8() % 10);
        d.IndicesDimensionCount = in.mostly<uint32_t>(rank ? 1 + in.u8() % rank : 0, in.u8() % 10);
        const uint32_t rIn = d.InputDimensionCount, rInd = d.IndicesDimensionCount;
        const uint32_t q = in.mostly<uint32_t>(rIn <= rank ? in.u8() % (rIn + 1) : 0, in.u8() % 10);
        std::vector<uint32_t> ind(rank, 1), upd;
        for (uint32_t i = 0; rInd <= rank && i + 1 < rInd; ++i) {
            ind[rank - rInd + i] = in.size();
            upd.push_back(ind[rank - rInd + i]);
        }
        if (rank) ind[rank - 1] = q;
        for (uint32_t i = rank - std::min(rank, rIn) + q; i < rank; ++i) upd.push_back(input.Sizes[i]);
        while (upd.size() < rank) upd.insert(upd.begin(), 1);
        d.IndicesTensor = {static_cast<DataType>(in.u8() % 13), in.mostly(ind, in.sizes(rank)),
                           in.strides(rank)};
        d.UpdatesTensor = {in.mostly(type, in.type()), in.mostly(upd, in.sizes(rank)), in.strides(rank)};
        d.Reduction = static_cast<ScatterReduction>(in.u8() % 6);
        d.Deterministic = in.u8() & 1;
        if (in.u8() & 1) d.CountTensor = countTensor(in);
        run(d, &core::planScatterND, "ScatterND", limits);
    }
    return 0;
}
