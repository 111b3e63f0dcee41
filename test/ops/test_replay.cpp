// SPDX-License-Identifier: MIT
// Device::execute's kept recordings (DeviceOptions::reuseCommandBuffers, runtime/replay.hpp): a repeated
// execute() submits the command buffer recorded the first time for the same operator and bindings. The
// results must follow the buffers' new contents, the status words must be fresh each run, destroyed buffers
// must never be reached through an old recording, and several threads may execute at once.
#include "runtime/access.hpp"
#include "runtime/objects.hpp"
#include "runtime/replay.hpp"
#include "support/gpu.hpp"
#include "support/host_tensor.hpp"
#include "support/reference.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <thread>

using namespace ripple;

namespace {

Buffer bufferOf(Device& dev, const rt::HostTensor& t) {
    auto b = dev.createBuffer((t.bytes.size() + 3) & ~size_t(3));
    REQUIRE(b.ok());
    REQUIRE(dev.upload(b.value(), 0, t.bytes.data(), t.bytes.size()).ok());
    return std::move(b.value());
}

std::vector<uint8_t> download(Device& dev, const Buffer& b, size_t bytes) {
    std::vector<uint8_t> got(bytes);
    REQUIRE(dev.download(b, 0, got.data(), bytes).ok());
    return got;
}

void poison(Device& dev, Buffer& b) {
    std::vector<uint8_t> p(b.size(), 0xA5);
    REQUIRE(dev.upload(b, 0, p.data(), p.size()).ok());
}

size_t kept(const Operator& op) {
    std::lock_guard<std::mutex> lock(ripple::detail::impl(op)->replay->mutex);
    return ripple::detail::impl(op)->replay->replays.size();
}

// Random FLOAT32 in [-8, 8): sums of a few differ in the last place by order, which the deterministic mode
// fixes, so a replay must give the reference's bits exactly.
void randomFloats(rt::HostTensor& t, std::mt19937& rng) {
    for (uint64_t i = 0; i < t.count(); ++i) {
        float f = static_cast<float>(rng() % 4096) / 256.0f - 8.0f;
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        t.setBits(i, bits);
    }
}

} // namespace

TEST_CASE("execute() replays its recording per binding set: new data, fresh status words, destroyed buffers",
          "[replay][gpu]") {
    Device& dev = rt::device();
    std::mt19937 rng(12);
    const uint32_t rows = 50, cols = 7, tuples = 300;
    ScatterNDDesc d; // deterministic ADD: scratch, a zeroed count buffer and a status word in the recording
    d.InputTensor = d.OutputTensor = {DataType::Float32, {rows, cols}, {}};
    d.IndicesTensor = {DataType::Int32, {tuples, 1}, {}};
    d.UpdatesTensor = {DataType::Float32, {tuples, cols}, {}};
    d.InputDimensionCount = d.IndicesDimensionCount = 2;
    d.Reduction = ScatterReduction::Add;
    d.Deterministic = true;
    auto op = dev.compile(d);
    REQUIRE(op.ok());
    rt::HostTensor input(DataType::Float32, {rows, cols}), updates(DataType::Float32, {tuples, cols});
    std::vector<rt::HostTensor> indices(3, rt::HostTensor(DataType::Int32, {tuples, 1}));
    for (auto& t : indices)
        for (uint32_t i = 0; i < tuples; ++i) t.setBits(i, rng() % rows);
    randomFloats(input, rng);
    Buffer in = bufferOf(dev, input), upd = bufferOf(dev, updates);
    std::vector<Buffer> ind;
    for (auto& t : indices) ind.push_back(bufferOf(dev, t));
    auto out = dev.createBuffer(rows * cols * 4);
    REQUIRE(out.ok());
    const size_t outBytes = rows * cols * 4;

    // Two rounds over three binding sets, new updates each run: three recordings, each run exact.
    for (uint32_t run = 0; run < 6; ++run) {
        INFO("run " << run);
        randomFloats(updates, rng);
        REQUIRE(dev.upload(upd, 0, updates.bytes.data(), updates.bytes.size()).ok());
        poison(dev, out.value());
        const rt::HostTensor& idx = indices[run % 3];
        REQUIRE(dev.execute(op.value(), {{&in, 0}, {&ind[run % 3], 0}, {&upd, 0}, {&out.value(), 0}}).ok());
        CHECK(download(dev, out.value(), outBytes) ==
              rt::referenceScatterND(d, input, idx, updates, nullptr));
    }
    CHECK(kept(op.value()) == 3);

    // An out-of-range index is reported, and only by the runs that have one: the word is zeroed between.
    for (int bad : {1, 0, 1, 0}) {
        INFO("out of range " << bad);
        rt::HostTensor idx = indices[0];
        if (bad) idx.setBits(17, rows + 3);
        REQUIRE(dev.upload(ind[0], 0, idx.bytes.data(), idx.bytes.size()).ok());
        poison(dev, out.value());
        Status s = dev.execute(op.value(), {{&in, 0}, {&ind[0], 0}, {&upd, 0}, {&out.value(), 0}});
        CHECK(s.code() == (bad ? StatusCode::IndexOutOfRange : StatusCode::Ok));
        int dropped = 0;
        CHECK(download(dev, out.value(), outBytes) ==
              rt::referenceScatterND(d, input, idx, updates, &dropped));
        CHECK(dropped == bad);
    }
    CHECK(kept(op.value()) == 3);

    // A destroyed buffer's recording is never used again, even when a new buffer takes its place.
    ind[1] = Buffer();
    for (uint32_t i = 0; i < tuples; ++i) indices[1].setBits(i, (i * 7) % rows);
    ind[1] = bufferOf(dev, indices[1]);
    poison(dev, out.value());
    REQUIRE(dev.execute(op.value(), {{&in, 0}, {&ind[1], 0}, {&upd, 0}, {&out.value(), 0}}).ok());
    CHECK(download(dev, out.value(), outBytes) ==
          rt::referenceScatterND(d, input, indices[1], updates, nullptr));
    CHECK(kept(op.value()) == 4);
    INFO("validation layer messages (see stderr)");
    CHECK(dev.validationMessageCount() == 0);
}

TEST_CASE("execute() keeps at most 16 recordings per operator, and none when reuseCommandBuffers is off",
          "[replay][gpu]") {
    std::mt19937 rng(3);
    TopKDesc k;
    k.InputTensor = {DataType::Float32, {7, 1000}, {}};
    k.OutputValueTensor = {DataType::Float32, {7, 33}, {}};
    k.OutputIndexTensor = {DataType::UInt32, {7, 33}, {}};
    k.Axis = 1;
    k.K = 33;
    for (bool reuse : {true, false}) {
        INFO("reuseCommandBuffers " << reuse);
        DeviceOptions options;
        options.reuseCommandBuffers = reuse;
        options.validation = rt::testValidation();
        if (rt::onD3D12()) options.backend = Backend::D3D12;
        auto made = Device::create(options);
        REQUIRE(made.ok());
        Device& dev = made.value();
        auto op = dev.compile(k);
        REQUIRE(op.ok());
        std::vector<rt::HostTensor> inputs(17, rt::HostTensor(DataType::Float32, {7, 1000}));
        std::vector<Buffer> in;
        for (auto& t : inputs) {
            randomFloats(t, rng);
            in.push_back(bufferOf(dev, t));
        }
        auto values = dev.createBuffer(7 * 33 * 4), index = dev.createBuffer(7 * 33 * 4);
        REQUIRE((values.ok() && index.ok()));
        for (uint32_t run = 0; run < 34; ++run) { // every input twice, 17 binding sets
            poison(dev, values.value());
            poison(dev, index.value());
            REQUIRE(dev.execute(op.value(), {{&in[run % 17], 0}, {&values.value(), 0}, {&index.value(), 0}})
                        .ok());
            std::vector<uint8_t> wantValues, wantIndices;
            rt::referenceTopK(k, inputs[run % 17], wantValues, wantIndices);
            CHECK(download(dev, values.value(), wantValues.size()) == wantValues);
            CHECK(download(dev, index.value(), wantIndices.size()) == wantIndices);
        }
        CHECK(kept(op.value()) == (reuse ? 16u : 0u));
        CHECK(dev.validationMessageCount() == 0);
    }
}

TEST_CASE("execute()'s kept recordings of one operator share its scratch", "[replay][gpu]") {
    // Room for one plan's scratch: two binding sets in turn keep a recording each, both naming the one
    // scratch buffer (with a copy each they evicted each other and recorded again on every execute(): 20-44
    // us of host time on the H200 under mobile-vk11), and the results stay exact.
    std::mt19937 rng(59);
    TopKDesc k;
    k.InputTensor = {DataType::Float32, {4, 30011}, {}}; // sampled selection: it has scratch
    k.OutputValueTensor = {DataType::Float32, {4, 50}, {}};
    k.OutputIndexTensor = {DataType::UInt32, {4, 50}, {}};
    k.Axis = 1;
    k.K = 50;
    Device& dev = rt::device();
    auto op = dev.compile(k);
    REQUIRE(op.ok());
    const core::Plan& plan = ripple::detail::impl(op.value())->plan;
    REQUIRE(plan.scratchBytes > 0);
    ripple::detail::ReplayCache& cache = *ripple::detail::impl(op.value())->replay;
    cache.maxScratchBytes = plan.scratchBytes + plan.zeroedScratchBytes;
    std::vector<rt::HostTensor> inputs(2, rt::HostTensor(DataType::Float32, {4, 30011}));
    std::vector<Buffer> in;
    for (auto& t : inputs) {
        randomFloats(t, rng);
        in.push_back(bufferOf(dev, t));
    }
    auto values = dev.createBuffer(4 * 50 * 4), index = dev.createBuffer(4 * 50 * 4);
    REQUIRE((values.ok() && index.ok()));
    const void* first = nullptr;
    const ripple::detail::Replay* kept[2] = {};
    for (uint32_t run = 0; run < 6; ++run) {
        INFO("run " << run);
        poison(dev, values.value());
        poison(dev, index.value());
        REQUIRE(dev.execute(op.value(), {{&in[run % 2], 0}, {&values.value(), 0}, {&index.value(), 0}}).ok());
        std::vector<uint8_t> wantValues, wantIndices;
        rt::referenceTopK(k, inputs[run % 2], wantValues, wantIndices);
        CHECK(download(dev, values.value(), wantValues.size()) == wantValues);
        CHECK(download(dev, index.value(), wantIndices.size()) == wantIndices);
        std::lock_guard<std::mutex> lock(cache.mutex);
        REQUIRE(cache.replays.size() == std::min<size_t>(run + 1, 2));
        REQUIRE(cache.scratch.size() == 1);
        if (!first) first = cache.scratch[0].get();
        CHECK(cache.scratch[0].get() == first);
        // The same recording comes back for the same bindings: none was made again.
        if (run < 2) kept[run] = cache.replays[run].get();
        CHECK(cache.replays[run % 2].get() == kept[run % 2]);
    }
}

TEST_CASE("execute() from several threads on one operator: replays and recordings side by side",
          "[replay][gpu]") {
    Device& dev = rt::device();
    std::mt19937 rng(8);
    TopKDesc k;
    k.InputTensor = {DataType::Float32, {3, 333}, {}};
    k.OutputValueTensor = {DataType::Float32, {3, 7}, {}};
    k.OutputIndexTensor = {DataType::UInt32, {3, 7}, {}};
    k.Axis = 1;
    k.K = 7;
    auto op = dev.compile(k);
    REQUIRE(op.ok());
    rt::HostTensor input(DataType::Float32, {3, 333});
    randomFloats(input, rng);
    Buffer in = bufferOf(dev, input);
    std::vector<uint8_t> wantValues, wantIndices;
    rt::referenceTopK(k, input, wantValues, wantIndices);
    std::vector<Buffer> values, indices;
    for (int t = 0; t < 4; ++t) {
        auto v = dev.createBuffer(3 * 7 * 4), i = dev.createBuffer(3 * 7 * 4);
        REQUIRE((v.ok() && i.ok()));
        values.push_back(std::move(v.value()));
        indices.push_back(std::move(i.value()));
    }
    std::vector<int> failures(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int run = 0; run < 25; ++run) {
                std::vector<uint8_t> p(values[t].size(), 0xA5);
                bool ok = dev.upload(values[t], 0, p.data(), p.size()).ok() &&
                          dev.execute(op.value(), {{&in, 0}, {&values[t], 0}, {&indices[t], 0}}).ok();
                std::vector<uint8_t> got(wantValues.size()), gotIndices(wantIndices.size());
                ok = ok && dev.download(values[t], 0, got.data(), got.size()).ok() &&
                     dev.download(indices[t], 0, gotIndices.data(), gotIndices.size()).ok();
                if (!ok || got != wantValues || gotIndices != wantIndices) ++failures[t];
            }
        });
    for (auto& t : threads) t.join();
    CHECK(failures == std::vector<int>(4, 0));
    CHECK(kept(op.value()) >= 1);
    CHECK(kept(op.value()) <= 4);
    CHECK(dev.validationMessageCount() == 0);
}

TEST_CASE("A kept recording that fails to be made leaves the shared scratch with the recordings that name it",
          "[replay][gpu][faults]") {
    // A deterministic ScatterElements (scratch for its sort, status words for its index checks): binding set
    // A keeps a recording over the cache's scratch; set B's recording is offered that scratch and fails at
    // its status allocation (an injected out-of-memory). The scratch must stay the cache's, so that A's
    // recording runs again exactly (a record() that dropped it freed the buffer A's commands name).
    Device dev = rt::freshDevice();
    ScatterElementsDesc d;
    d.InputTensor = d.OutputTensor = {DataType::Int32, {64, 64}, {}};
    d.IndicesTensor = d.UpdatesTensor = {DataType::Int32, {64, 8}, {}};
    d.Axis = 1;
    d.Deterministic = true;
    auto op = dev.compile(d);
    REQUIRE(op.ok());
    const core::Plan& plan = ripple::detail::impl(op.value())->plan;
    REQUIRE(plan.scratchBytes > 0);
    REQUIRE(plan.usesStatus);
    ripple::detail::ReplayCache& cache = *ripple::detail::impl(op.value())->replay;
    std::vector<int32_t> input(4096), idx(512), upd(512);
    for (uint32_t i = 0; i < 4096; ++i) input[i] = int32_t(i) * 3 - 7;
    for (uint32_t r = 0; r < 64; ++r)
        for (uint32_t j = 0; j < 8; ++j) {
            idx[r * 8 + j] = int32_t((j * 8 + r) % 64) - (j % 2 ? 64 : 0); // distinct columns, some negative
            upd[r * 8 + j] = int32_t(r * 1000 + j);
        }
    std::vector<int32_t> want = input;
    for (uint32_t r = 0; r < 64; ++r)
        for (uint32_t j = 0; j < 8; ++j) want[r * 64 + (idx[r * 8 + j] + 64) % 64] = upd[r * 8 + j];
    auto make = [&](const void* data, size_t bytes) {
        auto b = dev.createBuffer(bytes);
        REQUIRE(b.ok());
        REQUIRE(dev.upload(b.value(), 0, data, bytes).ok());
        return std::move(b.value());
    };
    Buffer in = make(input.data(), 4096 * 4), ix = make(idx.data(), 512 * 4), up = make(upd.data(), 512 * 4);
    Buffer outA = make(input.data(), 4096 * 4), outB = make(input.data(), 4096 * 4);
    auto run = [&](Buffer& out) {
        return dev.execute(op.value(), {{&in, 0}, {&ix, 0}, {&up, 0}, {&out, 0}});
    };
    poison(dev, outA);
    REQUIRE(run(outA).ok());
    CHECK(download(dev, outA, 4096 * 4) ==
          std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(want.data()),
                               reinterpret_cast<const uint8_t*>(want.data()) + 4096 * 4));
    const void* first = nullptr;
    {
        std::lock_guard<std::mutex> lock(cache.mutex);
        REQUIRE(cache.replays.size() == 1);
        REQUIRE(cache.scratch.size() == 1);
        first = cache.scratch[0].get();
    }
    ripple::detail::impl(dev)->backend->injectFault(ripple::detail::FaultPoint::Allocation,
                                                    StatusCode::OutOfMemory);
    CHECK(run(outB).code() == StatusCode::OutOfMemory);
    {
        std::lock_guard<std::mutex> lock(cache.mutex);
        CHECK(cache.replays.size() == 1);
        REQUIRE(cache.scratch.size() == 1);
        CHECK(cache.scratch[0].get() == first);
    }
    poison(dev, outA);
    REQUIRE(run(outA).ok());
    CHECK(download(dev, outA, 4096 * 4) ==
          std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(want.data()),
                               reinterpret_cast<const uint8_t*>(want.data()) + 4096 * 4));
    REQUIRE(run(outB).ok()); // and B's recording is made once the memory is there
    CHECK(download(dev, outB, 4096 * 4) == download(dev, outA, 4096 * 4));
    CHECK(dev.validationMessageCount() == 0);
}
