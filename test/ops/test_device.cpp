// SPDX-License-Identifier: MIT
// Device-level behaviour: the pipeline cache's bytes round trip, and foreign cache data is ignored; empty
// devices and null host pointers are refused with a Status.
#include "support/gpu.hpp"

#include <catch2/catch.hpp>

#include <cstring>

using namespace ripple;

TEST_CASE("Pipeline cache data can be saved and given to a new device, and foreign data is ignored",
          "[device][gpu]") {
    Device& dev = rt::device();
    TopKDesc d;
    d.InputTensor = {DataType::Float32, {2, 3000}, {}};
    d.OutputValueTensor = d.OutputIndexTensor = {DataType::Float32, {2, 4}, {}};
    d.OutputIndexTensor.DataType = DataType::UInt32;
    d.Axis = 1;
    d.K = 4;
    REQUIRE(dev.compile(d).ok());
    auto data = dev.pipelineCacheData();
    REQUIRE(data.ok());
    REQUIRE(data.value().size() >= 32);
    CHECK(std::memcmp(data.value().data() + 16, dev.adapter().pipelineCacheUUID, 16) == 0);

    std::vector<std::string> warnings;
    auto make = [&](std::vector<uint8_t> cache) {
        DeviceOptions options;
        options.validation = true;
        options.pipelineCacheData = std::move(cache);
        options.log = [&](LogLevel level, const std::string& m) {
            if (level >= LogLevel::Warning) warnings.push_back(m);
        };
        return Device::create(options);
    };
    {
        auto reused = make(data.value());
        REQUIRE(reused.ok());
        CHECK(warnings.empty());
        REQUIRE(reused->compile(d).ok());
    }
    std::vector<uint8_t> foreign = data.value();
    foreign[16] ^= 0xFF; // another adapter's pipelineCacheUUID
    {
        auto other = make(foreign);
        REQUIRE(other.ok());
        REQUIRE(warnings.size() == 1);
        CHECK(warnings[0].find("pipelineCacheData is for another adapter") != std::string::npos);
        REQUIRE(other->compile(d).ok()); // still works, compiling from scratch
    }
    {
        auto truncated = make({1, 2, 3});
        REQUIRE(truncated.ok());
        CHECK(warnings.size() == 2);
    }
}

TEST_CASE("Every member of an empty or moved-from Device is safe and says what is wrong", "[device][gpu]") {
    auto check = [](Device& empty) {
        CHECK(empty.adapter().name.empty());
        CHECK(empty.bindingAlignment() == 16);
        CHECK(empty.validationMessageCount() == 0);
        auto buffer = empty.createBuffer(64);
        REQUIRE_FALSE(buffer.ok());
        CHECK(buffer.status().code() == StatusCode::InvalidArgument);
        CHECK(buffer.status().message() == "createBuffer: the Device is empty (moved from or never created)");
        CHECK(empty.pipelineCacheData().status().code() == StatusCode::InvalidArgument);
        TopKDesc d;
        d.InputTensor = {DataType::Float32, {1, 8}, {}};
        d.OutputValueTensor = {DataType::Float32, {1, 2}, {}};
        d.OutputIndexTensor = {DataType::UInt32, {1, 2}, {}};
        d.Axis = 1;
        d.K = 2;
        CHECK(empty.compile(d).status().code() == StatusCode::InvalidArgument);
        CHECK(empty.createRecorder().status().code() == StatusCode::InvalidArgument);
        CHECK(empty.execute(Operator(), {}).code() == StatusCode::InvalidArgument);
        CHECK(empty.wait(Ticket{1}, 0).code() == StatusCode::InvalidArgument);
        Buffer none;
        uint8_t bytes[4] = {1, 2, 3, 4};
        CHECK(empty.upload(none, 0, bytes, 4).code() == StatusCode::InvalidArgument);
        CHECK(empty.download(none, 0, bytes, 4).code() == StatusCode::InvalidArgument);
        CHECK(empty.setLabel(none, "x").code() == StatusCode::InvalidArgument);
    };
    Device neverCreated;
    check(neverCreated);
    auto made = Device::create();
    REQUIRE(made.ok());
    Device moved = std::move(made.value());
    check(made.value()); // moved from
    CHECK_FALSE(moved.adapter().name.empty());
}

TEST_CASE("Uploads, downloads and readbacks refuse null host pointers", "[device][gpu]") {
    Device& dev = rt::device();
    auto buffer = dev.createBuffer(64);
    REQUIRE(buffer.ok());
    CHECK(dev.upload(buffer.value(), 0, nullptr, 16).message() == "upload: data is null");
    CHECK(dev.download(buffer.value(), 0, nullptr, 16).message() == "download: data is null");
    CHECK(dev.upload(buffer.value(), 0, nullptr, 0).ok()); // nothing to copy
    auto recorder = dev.createRecorder();
    REQUIRE(recorder.ok());
    CHECK(recorder->upload(buffer.value(), 0, nullptr, 16).message() == "upload: data is null");
    CHECK(recorder->readback(buffer.value(), 0, nullptr, 16).message() == "readback: data is null");
    CHECK(recorder->statistics().copies == 0); // nothing was recorded
}

TEST_CASE("A ticket the device never issued is refused at once, not waited on", "[device][gpu]") {
    Device& dev = rt::device();
    for (uint64_t never : {uint64_t(0), uint64_t(123456789)}) {
        Status w = dev.wait(Ticket{never}, 600'000'000'000ull); // would block for ten minutes if waited on
        CHECK(w.code() == StatusCode::InvalidArgument);
        CHECK(w.message().find("never issued") != std::string::npos);
        CHECK(dev.isComplete(Ticket{never}).status().code() == StatusCode::InvalidArgument);
        CHECK(dev.reports(Ticket{never}).status().code() == StatusCode::InvalidArgument);
    }
    auto recorder = dev.createRecorder();
    REQUIRE(recorder.ok());
    auto ticket = dev.submit(recorder.value());
    REQUIRE(ticket.ok());
    CHECK(dev.wait(ticket.value()).ok()); // an issued one still works
    CHECK(dev.isComplete(ticket.value()).value());
    CHECK(dev.wait(Ticket{ticket.value().value + 1}, 0).code() == StatusCode::InvalidArgument);
}

TEST_CASE("Device options outside their enums or ranges are refused", "[device][gpu]") {
    DeviceOptions negative;
    negative.adapterIndex = -7;
    auto a = Device::create(negative);
    CHECK(a.status().code() == StatusCode::InvalidArgument);
    CHECK(a.status().message().find("adapterIndex (-7)") != std::string::npos);
    DeviceOptions backend;
    backend.backend = static_cast<Backend>(7);
    CHECK(Device::create(backend).status().code() == StatusCode::InvalidArgument);
    CHECK(enumerateAdapters(static_cast<Backend>(7)).status().code() == StatusCode::InvalidArgument);
    DeviceOptions kernels;
    kernels.kernels = static_cast<KernelPreference>(9);
    CHECK(Device::create(kernels).status().code() == StatusCode::InvalidArgument);
}
