// SPDX-License-Identifier: MIT
// The GPU span of the smallest dispatches, timed as ripple-bench times an operator (bench_common.hpp's
// timeBatch: GPU timestamps around each submission's one level, runs submitted back to back), beside TopK
// (1,1,3,4) K=2 in the same process: how much of that case's span any dispatch pays, and what each
// dependent global load adds (floor_chain.comp). A probe for bench/NOTES.md (issue 21).
//   ripple-dispatch-floor [--repeat N] [--rounds R]
#include "../bench_common.hpp"
#include "ripple_dispatch_floor_kernels.hpp"

#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
    BenchOptions opt;
    opt.repeat = 200;
    uint32_t rounds = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--repeat")) opt.repeat = static_cast<uint32_t>(std::atoi(argv[i + 1]));
        if (!std::strcmp(argv[i], "--rounds")) rounds = static_cast<uint32_t>(std::atoi(argv[i + 1]));
    }
    auto device = ripple::Device::create();
    if (!device) return fail(device.status());
    ripple::Device& dev = device.value();
    auto k256 = dev.compile(ripple::KernelDesc{&floor_kernels::floor_chain_w256});
    auto k32 = dev.compile(ripple::KernelDesc{&floor_kernels::floor_chain_w32});
    auto tiny = dev.compile(ripple::KernelDesc{&floor_kernels::tiny_rank_w32});
    if (!tiny) return fail(tiny.status());
    if (!k256) return fail(k256.status());
    if (!k32) return fail(k32.status());
    // chain[i] = i + 64 (mod the length): each step a new 256-byte block.
    const uint32_t words = 1u << 16;
    std::vector<uint32_t> host(words);
    for (uint32_t i = 0; i < words; ++i) host[i] = (i + 64u) % words;
    auto chain = dev.createBuffer(words * 4ull), ends = dev.createBuffer(1024);
    if (!chain || !ends) return fail(ripple::Status(ripple::StatusCode::OutOfMemory, "buffers"));
    if (ripple::Status s = dev.upload(chain.value(), 0, host.data(), words * 4ull); !s) return fail(s);

    ripple::TopKDesc d;
    d.InputTensor = {ripple::DataType::Float32, {1, 1, 3, 4}, {}};
    d.OutputValueTensor = {ripple::DataType::Float32, {1, 1, 3, 2}, {}};
    d.OutputIndexTensor = {ripple::DataType::UInt32, {1, 1, 3, 2}, {}};
    d.Axis = 3;
    d.K = 2;
    auto topk = dev.compile(d);
    auto in = dev.createBuffer(48), values = dev.createBuffer(24), indices = dev.createBuffer(24);
    if (!topk) return fail(topk.status());
    if (!in || !values || !indices) return fail(ripple::Status(ripple::StatusCode::OutOfMemory, "buffers"));
    const float x[12] = {0.5f, -1.f, 2.f, 0.25f, 3.f, 1.f, -2.f, 4.f, 0.f, 7.f, 6.f, -5.f};
    if (ripple::Status s = dev.upload(in.value(), 0, x, sizeof x); !s) return fail(s);
    const uint32_t sizeWords[4] = {4, 2, 3, 0}; // n, K, rows
    auto sizes = dev.createBuffer(sizeof sizeWords);
    if (!sizes) return fail(sizes.status());
    if (ripple::Status s = dev.upload(sizes.value(), 0, sizeWords, sizeof sizeWords); !s) return fail(s);

    struct Case {
        std::string name;
        const ripple::Kernel* kernel; // null: the TopK
        uint32_t depth, active;       // tiny_rank: active 1 reads its sizes from a buffer
    };
    const std::vector<Case> cases = {
        {"empty (256 invocations, none active)", &k256.value(), 0, 0},
        {"one store", &k256.value(), 0, 1},
        {"1 load, store (3 active)", &k256.value(), 1, 3},
        {"2 dependent loads, store", &k256.value(), 2, 3},
        {"3 dependent loads, store", &k256.value(), 3, 3},
        {"4 dependent loads, store", &k256.value(), 4, 3},
        {"2 dependent loads, store, 32-wide", &k32.value(), 2, 3},
        {"TopK (1,1,3,4) ax3 k2 f32", nullptr, 0, 0},
        {"rank-counting TopK, sizes pushed", &tiny.value(), 0, 0},
        {"rank-counting TopK, sizes from a buffer", &tiny.value(), 0, 1},
    };
    GpuWarmer warmer(dev);
    std::printf("%-40s %6s %10s %10s %10s\n", "dispatch", "round", "median us", "min us", "host us");
    for (uint32_t round = 0; round < rounds; ++round) {
        for (const Case& c : cases) {
            uint32_t push[2] = {c.depth, c.active};
            ripple::KernelDispatch kd;
            kd.Bindings = {{&chain.value(), 0, 0}, {&ends.value(), 0, 0}};
            kd.PushConstants = push;
            kd.PushConstantBytes = sizeof push;
            const uint32_t tinyPush[4] = {4, 2, 3, c.active};
            ripple::KernelDispatch td;
            td.Bindings = {{&sizes.value(), 0, 0},
                           {&in.value(), 0, 0},
                           {&values.value(), 0, 0},
                           {&indices.value(), 0, 0}};
            td.PushConstants = tinyPush;
            td.PushConstantBytes = sizeof tinyPush;
            auto record = [&](ripple::CommandRecorder& r, uint32_t) -> ripple::Status {
                if (c.kernel == &tiny.value()) return r.record(tiny.value(), td);
                if (!c.kernel)
                    return r.record(topk.value(),
                                    {{&in.value(), 0}, {&values.value(), 0}, {&indices.value(), 0}});
                return r.record(*c.kernel, kd);
            };
            warmer.warm();
            auto t = timeBatch(dev, opt.repeat, record);
            if (!t) return fail(t.status());
            const double best = t->us.empty() ? 0 : *std::min_element(t->us.begin(), t->us.end());
            // The TopK and the rank-counting kernel write the same outputs: the two largest of each row.
            std::string check;
            if (!c.kernel || c.kernel == &tiny.value()) {
                float v[6] = {};
                uint32_t ix[6] = {};
                if (ripple::Status s = dev.download(values.value(), 0, v, sizeof v); !s) return fail(s);
                if (ripple::Status s = dev.download(indices.value(), 0, ix, sizeof ix); !s) return fail(s);
                const float wantV[6] = {2.f, 0.5f, 4.f, 3.f, 7.f, 6.f};
                const uint32_t wantI[6] = {2, 0, 3, 0, 1, 2};
                check =
                    std::memcmp(v, wantV, sizeof v) || std::memcmp(ix, wantI, sizeof ix) ? " FAIL" : " ok";
                const float poison[6] = {-9.f, -9.f, -9.f, -9.f, -9.f, -9.f};
                if (ripple::Status s = dev.upload(values.value(), 0, poison, sizeof poison); !s)
                    return fail(s);
            }
            std::printf("%-40s %6u %10.2f %10.2f %10.1f%s\n", c.name.c_str(), round, median(t->us), best,
                        median(t->hostUs), check.c_str());
        }
    }
    return 0;
}
