// SPDX-License-Identifier: MIT
// Fault injection (issue 18): the back-end's next submit, wait or allocation fails with DeviceLost or
// OutOfMemory as if the driver had said so (BackendDevice::injectFault). After a lost device every later call
// that reaches the GPU returns DeviceLost at once (no abort, no hang) and in-flight tickets complete with it;
// after an out-of-memory the device goes on working. Each test uses its own device: a lost one stays lost.
#include "runtime/access.hpp"
#include "runtime/objects.hpp"
#include "support/gpu.hpp"
#include "vulkan/test_seams.hpp"

#include <catch2/catch.hpp>

#include <chrono>

using namespace ripple;
using rt::freshDevice;

namespace {

void inject(Device& dev, detail::FaultPoint point, StatusCode code) {
    ripple::detail::impl(dev)->backend->injectFault(point, code);
}

// A ScatterElements of 4096 INT32 with its buffers, recorded with an upload, the operator and a readback.
struct Work {
    Operator op;
    Buffer input, indices, output;
    std::vector<int32_t> host = std::vector<int32_t>(4096, 5), idx = std::vector<int32_t>(512),
                         result = std::vector<int32_t>(4096, -1);
    explicit Work(Device& dev) {
        ScatterElementsDesc d;
        d.InputTensor = d.OutputTensor = {DataType::Int32, {64, 64}, {}};
        d.IndicesTensor = d.UpdatesTensor = {DataType::Int32, {64, 8}, {}};
        d.Axis = 1;
        auto o = dev.compile(d);
        REQUIRE(o.ok());
        op = std::move(o.value());
        auto a = dev.createBuffer(4096 * 4), b = dev.createBuffer(512 * 4), c = dev.createBuffer(4096 * 4);
        REQUIRE((a.ok() && b.ok() && c.ok()));
        input = std::move(a.value()), indices = std::move(b.value()), output = std::move(c.value());
        for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int32_t>(i % 8);
    }
    Status record(CommandRecorder& r) {
        if (Status s = r.upload(input, 0, host.data(), 4096 * 4); !s) return s;
        if (Status s = r.upload(indices, 0, idx.data(), 512 * 4); !s) return s;
        if (Status s = r.record(op, {{&input, 0}, {&indices, 0}, {&indices, 0}, {&output, 0}}); !s) return s;
        return r.readback(output, 0, result.data(), 4096 * 4);
    }
    Result<Ticket> submit(Device& dev) {
        auto r = dev.createRecorder();
        if (!r) return r.status();
        if (Status s = record(r.value()); !s) return s;
        return dev.submit(r.value());
    }
    bool correct() const { // row r: columns 0..7 take the updates (= the indices 0..7), the rest stay 5
        for (size_t i = 0; i < result.size(); ++i)
            if (result[i] != ((i % 64) < 8 ? static_cast<int32_t>(i % 64) : 5)) return false;
        return true;
    }
};

// Every later call that reaches the GPU says DeviceLost, promptly; the rest still validate.
void checkLostForGood(Device& dev, Work& work, const std::vector<Ticket>& inFlight) {
    const auto start = std::chrono::steady_clock::now();
    for (Ticket t : inFlight) {
        CHECK(dev.wait(t).code() == StatusCode::DeviceLost);
        CHECK(dev.isComplete(t).status().code() == StatusCode::DeviceLost);
        CHECK(dev.reports(t).status().code() == StatusCode::DeviceLost);
    }
    CHECK(work.submit(dev).status().code() == StatusCode::DeviceLost);
    CHECK(dev.execute(work.op, {{&work.input, 0}, {&work.indices, 0}, {&work.indices, 0}, {&work.output, 0}})
              .code() == StatusCode::DeviceLost);
    CHECK(dev.createBuffer(64).status().code() == StatusCode::DeviceLost);
    CHECK(dev.upload(work.input, 0, work.host.data(), 64).code() == StatusCode::DeviceLost);
    CHECK(dev.download(work.input, 0, work.result.data(), 64).code() == StatusCode::DeviceLost);
    CHECK(dev.wait(Ticket{123456}).code() == StatusCode::InvalidArgument); // never issued: still refused
    CHECK(std::chrono::steady_clock::now() - start <
          std::chrono::seconds(20)); // nothing waited out a timeout
}

} // namespace

TEST_CASE("A device lost at submit fails that submit and every later GPU call, and tickets in flight",
          "[faults][gpu]") {
    Device dev = freshDevice();
    Work work(dev);
    auto first = work.submit(dev);
    REQUIRE(first.ok()); // in flight when the device is lost
    inject(dev, detail::FaultPoint::Submit, StatusCode::DeviceLost);
    auto second = work.submit(dev);
    CHECK(second.status().code() == StatusCode::DeviceLost);
    checkLostForGood(dev, work, {first.value()});
}

TEST_CASE("A device lost while waiting fails the wait, then every later GPU call", "[faults][gpu]") {
    Device dev = freshDevice();
    Work work(dev);
    auto t1 = work.submit(dev), t2 = work.submit(dev);
    REQUIRE((t1.ok() && t2.ok()));
    inject(dev, detail::FaultPoint::Wait, StatusCode::DeviceLost);
    CHECK(dev.wait(t1.value()).code() == StatusCode::DeviceLost);
    checkLostForGood(dev, work, {t1.value(), t2.value()});
}

TEST_CASE(
    "Out of memory at an allocation, a submit or a wait fails only that call and the device goes on working",
    "[faults][gpu]") {
    Device dev = freshDevice();
    vk::setMappedTransfersForTests(false); // memory the host cannot map: uploads go through staging
    auto buffer = dev.createBuffer(1024);
    vk::setMappedTransfersForTests(true);
    REQUIRE(buffer.ok());
    // Device::upload's staging buffer is made at the first upload and kept: that allocation can fail.
    const uint32_t words[4] = {1, 2, 3, 4};
    inject(dev, detail::FaultPoint::Allocation, StatusCode::OutOfMemory);
    CHECK(dev.upload(buffer.value(), 0, words, sizeof words).code() == StatusCode::OutOfMemory);
    CHECK(dev.upload(buffer.value(), 0, words, sizeof words).ok());
    Work work(dev);

    inject(dev, detail::FaultPoint::Allocation, StatusCode::OutOfMemory);
    CHECK(dev.createBuffer(1024).status().code() == StatusCode::OutOfMemory);
    CHECK(dev.createBuffer(1024).ok());

    // A recording whose staging or status allocation fails reports it; the next one runs.
    inject(dev, detail::FaultPoint::Allocation, StatusCode::OutOfMemory);
    {
        auto r = dev.createRecorder();
        REQUIRE(r.ok());
        CHECK(work.record(r.value()).code() == StatusCode::OutOfMemory);
    }
    CHECK(dev.compile(ScatterElementsDesc{}).status().code() == StatusCode::InvalidArgument);

    inject(dev, detail::FaultPoint::Submit, StatusCode::OutOfMemory);
    CHECK(work.submit(dev).status().code() == StatusCode::OutOfMemory);

    auto ticket = work.submit(dev);
    REQUIRE(ticket.ok());
    inject(dev, detail::FaultPoint::Wait, StatusCode::OutOfMemory);
    CHECK(dev.wait(ticket.value()).code() == StatusCode::OutOfMemory);
    CHECK(dev.wait(ticket.value()).ok()); // the work itself was fine
    CHECK(work.correct());
    // A poll is a wait too: on a GPU, Device::wait polls before it blocks, and the work is often done by
    // then.
    inject(dev, detail::FaultPoint::Wait, StatusCode::OutOfMemory);
    CHECK(dev.isComplete(ticket.value()).status().code() == StatusCode::OutOfMemory);
    CHECK(dev.isComplete(ticket.value()).value());

    std::fill(work.result.begin(), work.result.end(), -1);
    auto again = work.submit(dev);
    REQUIRE(again.ok());
    CHECK(dev.wait(again.value()).ok());
    CHECK(work.correct());
    CHECK(dev.validationMessageCount() == 0);
}

TEST_CASE("A lost device is released without hanging, with work still held", "[faults][gpu]") {
    std::weak_ptr<detail::DeviceImpl> watch;
    const auto start = std::chrono::steady_clock::now();
    {
        Device dev = freshDevice();
        watch = ripple::detail::impl(dev);
        Work work(dev);
        REQUIRE(work.submit(dev).ok());
        inject(dev, detail::FaultPoint::Wait, StatusCode::DeviceLost);
        auto t = work.submit(dev);
        REQUIRE(t.ok());
        CHECK(dev.wait(t.value()).code() == StatusCode::DeviceLost);
    }
    CHECK(watch.expired());
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
}

// The transfers of issue 57: through staging (memory the host cannot map, as on a discrete GPU), a fault at
// the copy's submit or at the wait for the buffer's own submission fails that call alone or for good.
TEST_CASE("Uploads and downloads through staging report a fault at their submit or at the wait for the "
          "buffer's submission",
          "[faults][gpu]") {
    Device dev = freshDevice();
    vk::setMappedTransfersForTests(false);
    auto a = dev.createBuffer(4096), b = dev.createBuffer(4096);
    vk::setMappedTransfersForTests(true);
    REQUIRE((a.ok() && b.ok()));
    const std::vector<uint32_t> words(1024, 0x600DF00Du);
    REQUIRE(dev.upload(a.value(), 0, words.data(), 4096).ok());
    inject(dev, detail::FaultPoint::Submit, StatusCode::OutOfMemory);
    CHECK(dev.upload(a.value(), 0, words.data(), 4096).code() == StatusCode::OutOfMemory);
    std::vector<uint32_t> got(1024);
    REQUIRE(dev.download(a.value(), 0, got.data(), 4096).ok());
    CHECK(got == words);

    // A submission that uses b, then a lost device at the wait for it: the download says so, and so does
    // every later call that reaches the GPU.
    auto r = dev.createRecorder();
    REQUIRE(r.ok());
    REQUIRE(r->fillBuffer(b.value(), 0, 4096, 1).ok());
    auto t = dev.submit(r.value());
    REQUIRE(t.ok());
    inject(dev, detail::FaultPoint::Wait, StatusCode::DeviceLost);
    CHECK(dev.download(b.value(), 0, got.data(), 4096).code() == StatusCode::DeviceLost);
    CHECK(dev.upload(a.value(), 0, words.data(), 4096).code() == StatusCode::DeviceLost);
    CHECK(dev.download(a.value(), 0, got.data(), 4096).code() == StatusCode::DeviceLost);
}
