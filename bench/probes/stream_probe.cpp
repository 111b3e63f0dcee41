// SPDX-License-Identifier: MIT
// How fast TopK's lane access patterns stream with no selection (stream_lanes.comp), beside the copy
// ceiling, timed as ripple-bench times an operator (bench_common.hpp's timeBatch). A probe for bench/NOTES.md
// (issue 59): topk_lane and topk_lane_staged read 2^25 FLOAT32 at 1.2-1.6 TB/s on the H200 even at K = 1;
// this says whether the pattern, the loads in flight (B a batch, parts a row) or the work an element bounds
// that. Each case checks the minimum of every part against the CPU's.
//   ripple-stream-probe [--repeat N]
#include "../bench_common.hpp"
#include "ripple_stream_probe_kernels.hpp"

#include <cstring>
#include <random>

namespace {

struct Case {
    const char* pattern;                   // lanes, staged, quads or direct4
    uint32_t batch;                        // B: 8, 16 or 32
    uint32_t outer, n, inner, parts, work; // rows of (outer, n, inner) along n, split in parts
};

const ripple::KernelSource* sourceFor(const std::string& pattern, uint32_t batch) {
    using namespace stream_kernels;
    const ripple::KernelSource* table[4][3] = {
        {&stream_lanes_lanes_b8, &stream_lanes_lanes_b16, &stream_lanes_lanes_b32},
        {&stream_lanes_staged_b8, &stream_lanes_staged_b16, &stream_lanes_staged_b32},
        {&stream_lanes_quads_b8, &stream_lanes_quads_b16, &stream_lanes_quads_b32},
        {&stream_lanes_direct4_b8, &stream_lanes_direct4_b16, &stream_lanes_direct4_b32}};
    const int p = pattern == "lanes" ? 0 : pattern == "staged" ? 1 : pattern == "quads" ? 2 : 3;
    return table[p][batch == 8 ? 0 : batch == 16 ? 1 : 2];
}

} // namespace

int main(int argc, char** argv) {
    BenchOptions opt;
    opt.repeat = 20;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!std::strcmp(argv[i], "--repeat")) opt.repeat = static_cast<uint32_t>(std::atoi(argv[i + 1]));
    auto device = ripple::Device::create();
    if (!device) return fail(device.status());
    ripple::Device& dev = device.value();
    auto ceiling = copyCeilingGBs(dev, opt);
    if (!ceiling) return fail(ceiling.status());
    std::printf("copy ceiling (read + write): %.0f GB/s\n", ceiling.value());

    const uint32_t words = 1u << 25; // 128 MiB: (128,4096,64) and (1048576,32) FLOAT32
    std::vector<uint32_t> host(words);
    std::mt19937 rng(59);
    for (uint32_t& w : host) w = rng();
    auto input = dev.createBuffer(words * 4ull), out = dev.createBuffer(words * 4ull);
    if (!input || !out) return fail(ripple::Status(ripple::StatusCode::OutOfMemory, "buffers"));
    if (ripple::Status s = dev.upload(input.value(), 0, host.data(), words * 4ull); !s) return fail(s);

    std::vector<Case> cases;
    for (uint32_t parts : {4u, 8u, 16u})
        for (uint32_t b : {8u, 16u, 32u})
            for (uint32_t work : {0u, 16u}) cases.push_back({"lanes", b, 128, 4096, 64, parts, work});
    for (uint32_t b : {8u, 32u}) cases.push_back({"lanes", b, 1, 32, 1, 1, 0}); // one row an invocation
    for (const char* p : {"staged", "quads", "direct4"})
        for (uint32_t b : {8u, 16u, 32u})
            for (uint32_t work : {0u, 16u}) cases.push_back({p, b, 1, 32, 1, 1, work});

    GpuWarmer warmer(dev);
    std::printf("%-8s %3s %-16s %6s %5s %10s %10s %8s %s\n", "pattern", "B", "tensor", "parts", "work",
                "median us", "min us", "GB/s", "check");
    for (const Case& c : cases) {
        // (1048576, 32) for inner = 1: `outer` rows of n.
        const uint32_t outer = c.inner == 1 ? words / c.n : c.outer;
        const uint32_t rows = outer * c.inner, L = (c.n + c.parts - 1) / c.parts, total = rows * c.parts;
        auto kernel = dev.compile(ripple::KernelDesc{sourceFor(c.pattern, c.batch)});
        if (!kernel) { // e.g. a stage over the device's shared memory: the others still run
            std::printf("%-8s %3u refused: %s\n", c.pattern, c.batch, kernel.status().message().c_str());
            continue;
        }
        const uint32_t push[6] = {c.n, rows, c.inner, L, c.parts, c.work};
        ripple::KernelDispatch kd;
        kd.GroupCount[0] = (total + 255) / 256;
        kd.Bindings = {{&input.value(), 0, 0}, {&out.value(), 0, 0}};
        kd.PushConstants = push;
        kd.PushConstantBytes = sizeof push;
        warmer.warm();
        auto t = timeBatch(dev, opt.repeat, [&](ripple::CommandRecorder& r, uint32_t) {
            return r.record(kernel.value(), kd);
        });
        if (!t) return fail(t.status());
        // Each part's minimum over its folded elements, against the CPU.
        std::vector<uint32_t> got(total);
        if (ripple::Status s = dev.download(out.value(), 0, got.data(), total * 4ull); !s) return fail(s);
        bool ok = true;
        for (uint32_t x = 0; x < total && ok; x += 997) {
            const uint32_t row = x % rows, part = x / rows;
            const uint64_t base = uint64_t(row / c.inner) * c.n * c.inner + row % c.inner;
            uint32_t want = 0xFFFFFFFFu;
            for (uint32_t j = part * L; j < std::min(c.n, part * L + L); ++j) {
                uint32_t v = host[base + uint64_t(j) * c.inner];
                for (uint32_t i = 0; i < c.work; ++i) v = v * 1664525u + 1013904223u;
                want = std::min(want, v);
            }
            ok = got[x] == want;
        }
        const double med = median(t->us), best = *std::min_element(t->us.begin(), t->us.end());
        const std::string tensor = "(" + std::to_string(outer) + "," + std::to_string(c.n) +
                                   (c.inner > 1 ? "," + std::to_string(c.inner) : std::string()) + ")";
        std::printf("%-8s %3u %-16s %6u %5u %10.1f %10.1f %8.0f %s\n", c.pattern, c.batch, tensor.c_str(),
                    c.parts, c.work, med, best, words * 4.0 / (med * 1000), ok ? "ok" : "FAIL");
    }
    return 0;
}
