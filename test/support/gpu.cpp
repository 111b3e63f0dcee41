// SPDX-License-Identifier: MIT
#include "gpu.hpp"

#include "kernels/round_trip.hpp"
#include "vulkan/test_seams.hpp"

#define CATCH_CONFIG_EXTERNAL_INTERFACES // listener classes
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

namespace rt {

namespace {
std::map<ripple::KernelPreference, std::unique_ptr<ripple::Device>>& devices() {
    static std::map<ripple::KernelPreference, std::unique_ptr<ripple::Device>> all;
    return all;
}

// Devices go when the run ends, not at exit: by then the validation layer (loaded after the map was made)
// has already destroyed its own globals, and destroying a device through it would crash. Not after a fatal
// signal (SIGTERM from `timeout`, SIGSEGV): Catch ends the run from its signal handler, which may interrupt
// the device inside a locked call (a run-time HLSL compile), and the device's destructor would then wait on
// that lock forever. The process is ending; the devices are left to it.
struct ReleaseDevices : Catch::TestEventListenerBase {
    using TestEventListenerBase::TestEventListenerBase;
    bool assertionEnded(const Catch::AssertionStats& stats) override { // listeners miss fatalErrorEncountered
        fatal = fatal || stats.assertionResult.getResultType() == Catch::ResultWas::FatalErrorCondition;
        return true;
    }
    void testRunEnded(const Catch::TestRunStats&) override {
        if (!fatal) devices().clear();
    }
    bool fatal = false;
};
} // namespace
CATCH_REGISTER_LISTENER(ReleaseDevices)

namespace {
std::string kernelMode() {
    const char* mode = std::getenv("RIPPLE_TEST_KERNELS");
    return mode ? mode : "";
}
} // namespace

bool hlslRoundTrip() {
    return kernelMode() == "hlsl" || kernelMode() == "d3d12";
}
std::vector<ripple::KernelPreference> kernelPreferences() {
    if (kernelMode() == "hlsl") return {ripple::KernelPreference::Portable};
    return {ripple::KernelPreference::Auto, ripple::KernelPreference::Portable};
}
bool onD3D12() {
    return kernelMode() == "d3d12";
}

bool testValidation() {
    const char* v = std::getenv("RIPPLE_TEST_VALIDATION");
    return !(v && std::string(v) == "host");
}

namespace {
// RIPPLE_TEST_TICKETS=fences: every device takes the fence tickets of drivers without timeline semaphores.
void applyTicketMode() {
    const char* mode = std::getenv("RIPPLE_TEST_TICKETS");
    ripple::vk::setFenceTicketsForTests(mode && std::string(mode) == "fences");
}
} // namespace

ripple::Device freshDevice(ripple::DeviceOptions options) {
    applyTicketMode();
    options.validation = testValidation();
    if (onD3D12()) options.backend = ripple::Backend::D3D12; // as device(): the back-end under test
    auto d = ripple::Device::create(options);
    INFO(d.status().message());
    REQUIRE(d.ok());
    return std::move(d.value());
}

ripple::Device& device(ripple::KernelPreference preference) {
    // Every device made from now on runs the round trip's modules (kernels/round_trip.hpp).
    if (kernelMode() == "hlsl") ripple::kernels::installHlslRoundTrip(&ripple::kernels::kHlslRoundTripTable);
    auto& slot = devices()[preference];
    if (!slot) {
        applyTicketMode();
        ripple::DeviceOptions options;
        options.validation = testValidation();
        options.kernels = preference;
        if (onD3D12()) options.backend = ripple::Backend::D3D12;
        options.log = [](ripple::LogLevel level, const std::string& m) {
            if (level >= ripple::LogLevel::Warning) std::fprintf(stderr, "%s\n", m.c_str());
        };
        auto d = ripple::Device::create(options);
        INFO(d.status().message());
        REQUIRE(d.ok());
        slot = std::make_unique<ripple::Device>(std::move(d.value()));
    }
    return *slot;
}

namespace {
constexpr uint64_t kGuard = 64;
constexpr uint8_t kGuardByte = 0x5A, kPoison = 0xA5;
} // namespace

GpuResult runOnGpu(ripple::Device& dev, const ripple::Operator& op,
                   const std::vector<const HostTensor*>& inputs,
                   const std::vector<ripple::TensorDesc>& outputs) {
    const uint64_t lead = dev.bindingAlignment();
    std::vector<ripple::Buffer> buffers;
    std::vector<std::vector<uint8_t>> images; // what each buffer held before the run
    std::vector<ripple::TensorBinding> bindings;
    auto add = [&](const std::vector<uint8_t>* content, uint64_t bytes) {
        std::vector<uint8_t> image(lead + bytes + kGuard, kGuardByte);
        for (uint64_t i = 0; i < bytes; ++i) image[lead + i] = content ? (*content)[i] : kPoison;
        auto b = dev.createBuffer(image.size());
        REQUIRE(b.ok());
        buffers.push_back(std::move(b.value()));
        REQUIRE(dev.upload(buffers.back(), 0, image.data(), image.size()).ok());
        images.push_back(std::move(image));
    };
    buffers.reserve(inputs.size() + outputs.size());
    for (const HostTensor* t : inputs) add(&t->bytes, t->bytes.size());
    for (const auto& d : outputs) add(nullptr, ripple::calcBufferTensorSize(d));
    for (auto& b : buffers) bindings.push_back({&b, lead});

    GpuResult result;
    result.status = dev.execute(op, bindings);
    for (size_t i = 0; i < buffers.size(); ++i) {
        std::vector<uint8_t> after(images[i].size());
        REQUIRE(dev.download(buffers[i], 0, after.data(), after.size()).ok());
        const uint64_t bytes = images[i].size() - lead - kGuard;
        bool guardsIntact = std::equal(after.begin(), after.begin() + lead, images[i].begin()) &&
                            std::equal(after.end() - kGuard, after.end(), images[i].end() - kGuard);
        INFO("tensor " << i << ": bytes outside the tensor were written");
        CHECK(guardsIntact);
        if (i < inputs.size()) {
            INFO("input tensor " << i << " was modified");
            CHECK(after == images[i]);
        } else {
            result.outputs.emplace_back(after.begin() + lead, after.begin() + lead + bytes);
        }
    }
    INFO("validation layer messages (see stderr)");
    CHECK(dev.validationMessageCount() == 0);
    return result;
}

std::string firstDifference(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                            uint32_t size) {
    if (got.size() != want.size())
        return "sizes differ: " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
    for (size_t i = 0; i < got.size(); i += size) {
        if (!std::equal(got.begin() + i, got.begin() + std::min(got.size(), i + size), want.begin() + i)) {
            uint64_t g = 0, w = 0;
            std::memcpy(&g, got.data() + i, std::min<size_t>(size, got.size() - i));
            std::memcpy(&w, want.data() + i, std::min<size_t>(size, want.size() - i));
            char buf[160];
            std::snprintf(buf, sizeof buf, "element %zu: got bits 0x%llx, expected 0x%llx", i / size,
                          static_cast<unsigned long long>(g), static_cast<unsigned long long>(w));
            return buf;
        }
    }
    return "";
}

} // namespace rt
