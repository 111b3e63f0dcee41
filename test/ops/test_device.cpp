// SPDX-License-Identifier: MIT
// Device-level behaviour: the pipeline cache's bytes round trip, and foreign cache data is ignored.
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
