// SPDX-License-Identifier: MIT
// Scatters in place (SEMANTICS.md): OutputTensor bound to exactly InputTensor's packed range, only the
// updates written, the recorder ordering the runs that share the buffer; and the overlaps it refuses.
#include "scatter_cases.hpp"

using namespace ripple;
using namespace sc;

namespace {

// A buffer holding `t`'s bytes at offset `at`, poison (0xA5) around them.
Buffer bufferWith(Device& dev, const rt::HostTensor& t, uint64_t at, uint64_t total) {
    std::vector<uint8_t> bytes(total, 0xA5);
    std::copy(t.bytes.begin(), t.bytes.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at));
    auto b = dev.createBuffer(total);
    REQUIRE(b.ok());
    REQUIRE(dev.upload(b.value(), 0, bytes.data(), total).ok());
    return std::move(b.value());
}

std::vector<uint8_t> contents(Device& dev, const Buffer& b) {
    std::vector<uint8_t> bytes(b.size());
    REQUIRE(dev.download(b, 0, bytes.data(), bytes.size()).ok());
    return bytes;
}

// Indices with distinct targets (a shuffled prefix of 0..size), half negative for signed types.
rt::HostTensor distinctIndices(DataType type, std::vector<uint32_t> sizes, uint32_t size, std::mt19937& rng) {
    rt::HostTensor t(type, std::move(sizes));
    std::vector<uint32_t> perm(size);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (uint64_t i = 0; i < t.count(); ++i) putIndex(t, i, perm[i], size, rng);
    return t;
}

} // namespace

TEST_CASE("Scatters run in place: OutputTensor bound to InputTensor's range, only the updates written, "
          "the bytes around untouched",
          "[scatter_in_place][gpu]") {
    Device& dev = rt::device();
    std::mt19937 rng(9);
    const uint64_t at = dev.bindingAlignment() * 3;
    for (DataType type : {DataType::Float32, DataType::UInt8, DataType::Float16, DataType::Int64}) {
        for (ScatterReduction reduction : {ScatterReduction::None, ScatterReduction::Add}) {
            { // ScatterND: 37 of 1000 rows of 8 (whole 16-byte blocks for FLOAT32 and FLOAT16: the row
              // kernel)
                rt::HostTensor input(type, {1000, 8}), updates(type, {37, 8});
                rt::fill(input, rng, rt::Fill::Random);
                rt::fill(updates, rng, rt::Fill::Random);
                rt::HostTensor indices = distinctIndices(DataType::Int32, {37, 1}, 1000, rng);
                ScatterNDDesc d;
                d.InputTensor = d.OutputTensor = {type, {1000, 8}, {}};
                d.IndicesTensor = {DataType::Int32, {37, 1}, {}};
                d.UpdatesTensor = {type, {37, 8}, {}};
                d.InputDimensionCount = d.IndicesDimensionCount = 2;
                d.Reduction = reduction;
                auto op = dev.compile(d);
                if (noD3D12Form(op, type)) continue;
                REQUIRE(op.ok());
                const uint64_t total = at + input.bytes.size() + 64;
                Buffer data = bufferWith(dev, input, at, total);
                Buffer ind = bufferWith(dev, indices, 0, indices.bytes.size());
                Buffer upd = bufferWith(dev, updates, 0, updates.bytes.size());
                INFO("ScatterND in place, " << toString(type) << ", reduction "
                                            << static_cast<int>(reduction));
                REQUIRE(dev.execute(op.value(), {{&data, at}, {&ind, 0}, {&upd, 0}, {&data, at}}).ok());
                std::vector<uint8_t> want(total, 0xA5),
                    ref = rt::referenceScatterND(d, input, indices, updates, nullptr);
                std::copy(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(input.bytes.size()),
                          want.begin() + static_cast<std::ptrdiff_t>(at));
                CHECK(contents(dev, data) == want);
            }
            { // ScatterElements along axis 1 of [5, 200]: 9 distinct positions per row
                rt::HostTensor input(type, {5, 200}), updates(type, {5, 9}),
                    indices(DataType::UInt32, {5, 9});
                rt::fill(input, rng, rt::Fill::Random);
                rt::fill(updates, rng, rt::Fill::Random);
                for (uint32_t r = 0; r < 5; ++r) {
                    rt::HostTensor row = distinctIndices(DataType::UInt32, {9}, 200, rng);
                    for (uint32_t j = 0; j < 9; ++j) indices.setBits(r * 9 + j, row.bits(j));
                }
                ScatterElementsDesc d;
                d.InputTensor = d.OutputTensor = {type, {5, 200}, {}};
                d.IndicesTensor = {DataType::UInt32, {5, 9}, {}};
                d.UpdatesTensor = {type, {5, 9}, {}};
                d.Axis = 1;
                d.Reduction = reduction;
                auto op = dev.compile(d);
                if (noD3D12Form(op, type)) continue;
                REQUIRE(op.ok());
                const uint64_t total = at + input.bytes.size() + 64;
                Buffer data = bufferWith(dev, input, at, total);
                Buffer ind = bufferWith(dev, indices, 0, indices.bytes.size());
                Buffer upd = bufferWith(dev, updates, 0, updates.bytes.size());
                INFO("ScatterElements in place, " << toString(type) << ", reduction "
                                                  << static_cast<int>(reduction));
                REQUIRE(dev.execute(op.value(), {{&data, at}, {&ind, 0}, {&upd, 0}, {&data, at}}).ok());
                std::vector<uint8_t> want(total, 0xA5),
                    ref = rt::referenceScatterElements(d, input, indices, updates, nullptr);
                std::copy(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(input.bytes.size()),
                          want.begin() + static_cast<std::ptrdiff_t>(at));
                CHECK(contents(dev, data) == want);
            }
        }
    }
}

TEST_CASE("In-place scatters recorded together apply in order, and a later operator reads their result",
          "[scatter_in_place][gpu]") {
    Device& dev = rt::device();
    std::mt19937 rng(10);
    // Two in-place ADD scatters into one INT32 buffer, then an out-of-place ScatterND copying it elsewhere.
    rt::HostTensor input(DataType::Int32, {4096});
    rt::fill(input, rng, rt::Fill::Random);
    ScatterElementsDesc add;
    add.InputTensor = add.OutputTensor = {DataType::Int32, {4096}, {}};
    add.IndicesTensor = {DataType::UInt32, {20000}, {}};
    add.UpdatesTensor = {DataType::Int32, {20000}, {}};
    add.Reduction = ScatterReduction::Add;
    auto addOp = dev.compile(add);
    REQUIRE(addOp.ok());
    rt::HostTensor ind1(DataType::UInt32, {20000}), ind2(DataType::UInt32, {20000}),
        upd(DataType::Int32, {20000});
    for (uint32_t i = 0; i < 20000; ++i) ind1.setBits(i, rng() % 4096), ind2.setBits(i, rng() % 4096);
    rt::fill(upd, rng, rt::Fill::Random);
    ScatterNDDesc copy; // out of place, one update: reads the whole input
    copy.InputTensor = copy.OutputTensor = {DataType::Int32, {1, 4096}, {}};
    copy.IndicesTensor = {DataType::UInt32, {1, 1}, {}};
    copy.UpdatesTensor = {DataType::Int32, {1, 1}, {}};
    copy.InputDimensionCount = 1;
    copy.IndicesDimensionCount = 2;
    auto copyOp = dev.compile(copy);
    REQUIRE(copyOp.ok());
    rt::HostTensor oneIndex(DataType::UInt32, {1, 1}), oneUpdate(DataType::Int32, {1, 1});
    oneIndex.setBits(0, 7);
    oneUpdate.setBits(0, 12345);

    Buffer data = bufferWith(dev, input, 0, input.bytes.size());
    Buffer i1 = bufferWith(dev, ind1, 0, ind1.bytes.size()), i2 = bufferWith(dev, ind2, 0, ind2.bytes.size());
    Buffer u = bufferWith(dev, upd, 0, upd.bytes.size());
    Buffer oi = bufferWith(dev, oneIndex, 0, 4), ou = bufferWith(dev, oneUpdate, 0, 4);
    auto out = dev.createBuffer(input.bytes.size());
    REQUIRE(out.ok());
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    REQUIRE(rec->record(addOp.value(), {{&data, 0}, {&i1, 0}, {&u, 0}, {&data, 0}}).ok());
    REQUIRE(rec->record(addOp.value(), {{&data, 0}, {&i2, 0}, {&u, 0}, {&data, 0}}).ok());
    REQUIRE(rec->record(copyOp.value(), {{&data, 0}, {&oi, 0}, {&ou, 0}, {&out.value(), 0}}).ok());
    // In place the copy pass is skipped: one dispatch for each ADD, two (copy, scatter) out of place.
    CHECK(rec->statistics().dispatches == 4);
    auto ticket = dev.submit(rec.value());
    REQUIRE(ticket.ok());
    REQUIRE(dev.wait(ticket.value()).ok());

    auto step1 = rt::referenceScatterElements(add, input, ind1, upd, nullptr);
    rt::HostTensor after1(DataType::Int32, {4096});
    after1.bytes = step1;
    auto step2 = rt::referenceScatterElements(add, after1, ind2, upd, nullptr);
    CHECK(contents(dev, data) == step2);
    rt::HostTensor after2(DataType::Int32, {1, 4096});
    after2.bytes = step2;
    CHECK(contents(dev, out.value()) == rt::referenceScatterND(copy, after2, oneIndex, oneUpdate, nullptr));
}

TEST_CASE("A scatter's output may alias its input only exactly, and only when the input is packed",
          "[scatter_in_place][gpu]") {
    Device& dev = rt::device();
    const uint64_t align = dev.bindingAlignment();
    ScatterElementsDesc d;
    d.InputTensor = d.OutputTensor = {DataType::Float32, {256}, {}};
    d.IndicesTensor = {DataType::UInt32, {4}, {}};
    d.UpdatesTensor = {DataType::Float32, {4}, {}};
    auto op = dev.compile(d);
    REQUIRE(op.ok());
    auto data = dev.createBuffer(4096 + align), small = dev.createBuffer(64);
    REQUIRE((data.ok() && small.ok()));
    Status s = dev.execute(
        op.value(), {{&data.value(), 0}, {&small.value(), 0}, {&small.value(), 16}, {&data.value(), align}});
    CHECK(s.code() == StatusCode::InvalidArgument);
    CHECK(s.message() ==
          "ScatterElements: OutputTensor overlaps InputTensor; outputs may not alias other tensors "
          "(to run in place, bind it to exactly InputTensor's range)");
    s = dev.execute(op.value(),
                    {{&data.value(), 0}, {&small.value(), 0}, {&data.value(), 0}, {&data.value(), 0}});
    CHECK(s.code() == StatusCode::InvalidArgument);
    CHECK(s.message() ==
          "ScatterElements: OutputTensor overlaps UpdatesTensor; outputs may not alias other tensors");

    d.InputTensor.Strides = {2}; // every other element of 512: not packed
    auto strided = dev.compile(d);
    REQUIRE(strided.ok());
    s = dev.execute(strided.value(),
                    {{&data.value(), 0}, {&small.value(), 0}, {&small.value(), 16}, {&data.value(), 0}});
    CHECK(s.code() == StatusCode::InvalidArgument);
    CHECK(s.message() ==
          "ScatterElements: OutputTensor overlaps InputTensor; outputs may not alias other tensors "
          "(a scatter runs in place only on a packed InputTensor)");
}
