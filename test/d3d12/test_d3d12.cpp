// The D3D12 backend's host code on vkd3d (D3D12 over Vulkan, here on lavapipe): device, compute queue,
// committed buffers, root signatures from reflection, descriptor tables of raw views, state transitions,
// UAV barriers, fences as tickets, upload and readback, driven with the DXBC fixtures of test/data/d3d12
// (shader model 5.0; nothing on Linux compiles HLSL to DXBC). What this cannot prove: that fxc/dxc accept
// ripple's HLSL, and anything about real Windows GPUs (README: "What is verified where").
#include "d3d12/device.hpp" // includes d3d12_api.hpp first: its WIDL switch must precede the headers

#include <catch2/catch.hpp>

#include <fstream>
#include <random>

using namespace ripple;

namespace {

std::vector<uint8_t> fixture(const std::string& name) {
    std::ifstream f(std::string(RIPPLE_TEST_DATA_DIR) + "/d3d12/" + name, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Reflection as ripple-embed gives it for a kernel with a read-only buffer at binding 0 (t0), a written one
// at binding 1 (u1), and `pushBytes` of root constants at b0.
kernels::KernelInfo info(const char* name, uint32_t pushBytes) {
    return kernels::KernelInfo{name, nullptr, 0,       {64, 1, 1}, pushBytes, 2, {{0, true}, {1, false}},
                               0,    nullptr, nullptr, 0};
}

} // namespace

TEST_CASE("D3D12 backend on vkd3d: root constants, descriptor tables, barriers, fences, readback",
          "[d3d12]") {
    auto created = d3d12::D3D12Device::create({});
    INFO(created.status().message());
    REQUIRE(created.ok());
    d3d12::D3D12Device& dev = *created.value();
    CHECK(dev.adapter().backend == Backend::D3D12);

    const kernels::KernelInfo affine = info("test.affine_u32", 12),
                              affineLen = info("test.affine_len_u32", 0);
    std::vector<uint8_t> dxbc = fixture("affine_u32_cs50.dxbc"),
                         dxbcLen = fixture("affine_len_u32_cs50.dxbc");
    REQUIRE(dxbc.size() > 64);
    REQUIRE(dxbcLen.size() > 64);
    dev.setBytecodeForTesting(affine.name, dxbc);
    dev.setBytecodeForTesting(affineLen.name, dxbcLen);
    REQUIRE(dev.preparePipeline(affine).ok());
    REQUIRE(dev.preparePipeline(affineLen).ok());

    const uint32_t n = 1000; // not a multiple of the 64-wide workgroup
    std::vector<uint32_t> in(n);
    std::mt19937 rng(5);
    for (uint32_t& v : in) v = rng();
    auto make = [&](uint64_t bytes) {
        auto b = dev.createBuffer(bytes, false);
        REQUIRE(b.ok());
        return std::move(b.value());
    };
    auto bin = make(n * 4), bmid = make(n * 4), bout = make(n * 4 + 64), blen = make(n * 4);
    REQUIRE(dev.upload(*bin, 0, in.data(), n * 4).ok());
    const std::vector<uint32_t> poison(n + 16, 0xA5A5A5A5u);
    REQUIRE(dev.upload(*bout, 0, poison.data(), (n + 16) * 4).ok());

    // in -> (x*3+7) -> mid -> (x*5+1) -> out[16..]; and in -> (x*2+1) -> len, n from the view's size.
    auto list = dev.beginCommands(0);
    REQUIRE(list.ok());
    const uint32_t first[3] = {n, 3, 7}, second[3] = {n, 5, 1}, none[3] = {0, 0, 0};
    const uint32_t groups = (n + 63) / 64;
    list.value()->dispatch(affine, {{bin.get(), 0, n * 4}, {bmid.get(), 0, n * 4}}, first, groups);
    list.value()->barrier();
    list.value()->dispatch(affine, {{bmid.get(), 0, n * 4}, {bout.get(), 64, n * 4}}, second, groups);
    list.value()->dispatch(affineLen, {{bin.get(), 0, n * 4}, {blen.get(), 0, n * 4}}, none, groups);
    auto ticket = dev.submit(std::move(list.value()));
    REQUIRE(ticket.ok());
    REQUIRE(dev.wait(ticket.value(), 60'000'000'000ull).ok());
    auto done = dev.isComplete(ticket.value());
    REQUIRE(done.ok());
    CHECK(done.value());

    std::vector<uint32_t> out(n + 16), len(n);
    REQUIRE(dev.download(*bout, 0, out.data(), (n + 16) * 4).ok());
    REQUIRE(dev.download(*blen, 0, len.data(), n * 4).ok());
    for (uint32_t i = 0; i < 16; ++i) CHECK(out[i] == 0xA5A5A5A5u); // before the bound range: untouched
    uint32_t wrong = 0, wrongLen = 0;
    for (uint32_t i = 0; i < n; ++i) {
        wrong += out[16 + i] != (in[i] * 3 + 7) * 5 + 1;
        wrongLen += len[i] != in[i] * 2 + 1;
    }
    CHECK(wrong == 0);
    CHECK(wrongLen == 0);
    CHECK(dev.wait(ticket.value(), 0).ok()); // a completed ticket returns at once
}

TEST_CASE("D3D12 through the public API: a device, and a clear error where vkd3d has no HLSL compiler",
          "[d3d12]") {
    DeviceOptions options;
    options.backend = Backend::D3D12;
    auto device = Device::create(options);
    INFO(device.status().message());
    REQUIRE(device.ok());
    CHECK(device->adapter().backend == Backend::D3D12);
    CHECK(std::string(toString(device->adapter().backend)) == "D3D12");
    TopKDesc d;
    d.InputTensor = {DataType::Float32, {2, 5}, {}};
    d.OutputValueTensor = {DataType::Float32, {2, 2}, {}};
    d.OutputIndexTensor = {DataType::UInt32, {2, 2}, {}};
    d.Axis = 1;
    d.K = 2;
    auto op = device->compile(d);
    CHECK(op.status().code() == StatusCode::Unsupported);
    CHECK(op.status().message().find("no HLSL compiler here") != std::string::npos);
    auto adapters = enumerateAdapters(Backend::D3D12);
    REQUIRE(adapters.ok());
    REQUIRE(adapters.value().size() == 1);
    CHECK(adapters.value()[0].backend == Backend::D3D12);
    CHECK(adapters.value()[0].name.find("vkd3d") != std::string::npos);
}
