// SPDX-License-Identifier: MIT
// ripple-bench: what ripple's operators and its recorder cost, timed with GPU timestamps.
//
//   ripple-bench [record|topk|scatter|all] [--ops N] [--repeat R] [--json FILE] [--device I]
//                [--max-elements E] [--case NAME-PART] [--shape D0xD1...:AXIS:K]
//                [--data random|equal|two|narrow] [--kernels fast|portable]
//
// --kernels portable: DeviceOptions::kernels = KernelPreference::Portable, the variants D3D12 runs; fast (or
// auto, the default): the fastest variants the device can run. RIPPLE_DEVICE_PROFILE
// (lib/vulkan/profiles.cpp) emulates a class of device on this one: its limits pick the variants, as on that
// device.
//
// record: N independent small TopKs ([1,256] FLOAT32, K = 8, each on its own slice of one input and one
//   output buffer) recorded into one CommandRecorder: host microseconds per recorded operator (median of R
//   recordings), the batch's GPU time (first operator's start to last one's end) and the barriers; then the
//   same kept as a Recording: submit()'s host microseconds and the GPU time, median of R submissions.
// topk: the TopK matrix of issue 5, each case R runs queued back to back (a submission each) on inputs
// rotated so
//   that they do not sit in the L2 cache: median and minimum, bytes at the floor (input + outputs), GB/s,
//   the percent of the copy ceiling measured in the same run, and a check of the outputs against a CPU
//   reference. Exit status 3 when a check fails.
// scatter: issue 6's scatter cases (bench/scatter_bench.cpp): ScatterND of 65536 rows into a [1048576,256]
//   FLOAT32 tensor out of place and in place, ScatterElements [4096,4096] axis 1 with indices [4096,256],
//   with and without ADD; median, minimum, floor bytes, GB/s, percent of the copy ceiling, a check.
// Prints tables; --json writes {"device", "copy_ceiling_gbs", "cases": [...]}.
#include "bench_common.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>

int runRecord(ripple::Device& dev, const BenchOptions& opt, std::vector<std::string>& json) {
    const uint32_t ops = opt.ops, repeat = opt.repeat;
    const uint32_t n = 256, k = 8;
    ripple::TopKDesc desc;
    desc.InputTensor = {ripple::DataType::Float32, {1, n}, {}};
    desc.OutputValueTensor = {ripple::DataType::Float32, {1, k}, {}};
    desc.OutputIndexTensor = {ripple::DataType::UInt32, {1, k}, {}};
    desc.Axis = 1;
    desc.K = k;
    auto op = dev.compile(desc);
    if (!op) return fail(op.status());

    // One input and one output buffer, a slice per operator, so the operators are independent.
    const uint64_t align = dev.bindingAlignment();
    auto up = [&](uint64_t bytes) { return (bytes + align - 1) / align * align; };
    const uint64_t inStride = up(n * 4), valStride = up(k * 4), idxStride = up(k * 4);
    auto input = dev.createBuffer(inStride * ops);
    auto values = dev.createBuffer(valStride * ops);
    auto indices = dev.createBuffer(idxStride * ops);
    if (!input || !values || !indices)
        return fail(ripple::Status(ripple::StatusCode::OutOfMemory, "buffers"));
    std::vector<float> host(inStride / 4 * ops);
    std::mt19937 rng(1);
    for (float& f : host) f = static_cast<float>(rng() % 100000) / 7.0f;
    if (ripple::Status s = dev.upload(input.value(), 0, host.data(), host.size() * 4); !s) return fail(s);

    // A recorder with the ops operators, each on its own slices.
    auto recordAll = [&](ripple::CommandRecorder& rec) -> ripple::Status {
        for (uint32_t i = 0; i < ops; ++i) {
            ripple::Status s = rec.record(op.value(), {{&input.value(), inStride * i},
                                                       {&values.value(), valStride * i},
                                                       {&indices.value(), idxStride * i}});
            if (!s) return s;
        }
        return {};
    };
    // The GPU time of a batch: first operator's start to last operator's end.
    auto batchUs = [](const std::vector<ripple::OperatorReport>& r) {
        uint64_t begin = r.front().gpuBeginNanoseconds, end = 0;
        for (const auto& x : r)
            begin = std::min(begin, x.gpuBeginNanoseconds), end = std::max(end, x.gpuEndNanoseconds);
        return (end - begin) / 1000.0;
    };

    std::vector<double> cpuUsPerOp, gpuUs, wallMs;
    uint32_t barriers = 0;
    for (uint32_t rep = 0; rep < repeat + 1; ++rep) { // the first round warms up
        ripple::RecorderOptions ro;
        ro.timestamps = true;
        auto rec = dev.createRecorder(ro);
        if (!rec) return fail(rec.status());
        auto t0 = std::chrono::steady_clock::now();
        if (ripple::Status s = recordAll(rec.value()); !s) return fail(s);
        auto t1 = std::chrono::steady_clock::now();
        barriers = rec->statistics().barriers;
        auto ticket = dev.submit(rec.value());
        if (!ticket) return fail(ticket.status());
        if (ripple::Status s = dev.wait(ticket.value()); !s) return fail(s);
        auto t2 = std::chrono::steady_clock::now();
        auto reports = dev.reports(ticket.value());
        if (!reports) return fail(reports.status());
        if (rep == 0) continue;
        cpuUsPerOp.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / ops);
        wallMs.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
        gpuUs.push_back(batchUs(reports.value()));
    }
    // The same operators kept as a Recording (Device::finishRecording) and submitted R times: the host
    // time of submit() alone, and of submit() to the wait's return.
    std::vector<double> replaySubmitUs, replayWallMs, replayGpuUs;
    {
        ripple::RecorderOptions ro;
        ro.timestamps = true;
        auto rec = dev.createRecorder(ro);
        if (!rec) return fail(rec.status());
        if (ripple::Status s = recordAll(rec.value()); !s) return fail(s);
        auto kept = dev.finishRecording(rec.value());
        if (!kept) return fail(kept.status());
        for (uint32_t rep = 0; rep < repeat + 1; ++rep) { // the first round warms up
            auto t0 = std::chrono::steady_clock::now();
            auto ticket = dev.submit(kept.value());
            auto t1 = std::chrono::steady_clock::now();
            if (!ticket) return fail(ticket.status());
            if (ripple::Status s = dev.wait(ticket.value()); !s) return fail(s);
            auto t2 = std::chrono::steady_clock::now();
            auto reports = dev.reports(ticket.value());
            if (!reports) return fail(reports.status());
            if (rep == 0) continue;
            replaySubmitUs.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
            replayWallMs.push_back(std::chrono::duration<double, std::milli>(t2 - t0).count());
            replayGpuUs.push_back(batchUs(reports.value()));
        }
    }
    std::printf("%-44s %12s %14s %12s %9s %16s %14s\n", "case", "cpu us/op", "gpu batch us", "wall ms",
                "barriers", "replay submit us", "replay gpu us");
    std::printf("%-44s %12.2f %14.1f %12.2f %9u %16.1f %14.1f\n",
                ("record " + std::to_string(ops) + " TopK [1,256] f32 K=8").c_str(), median(cpuUsPerOp),
                median(gpuUs), median(wallMs), barriers, median(replaySubmitUs), median(replayGpuUs));
    char line[512];
    std::snprintf(
        line, sizeof line,
        "{\"op\": \"record\", \"operators\": %u, \"shape\": [1, 256], \"type\": \"FLOAT32\", \"k\": 8, "
        "\"cpu_us_per_op\": %.3f, \"gpu_batch_us\": %.2f, \"wall_ms\": %.3f, \"barriers\": %u, "
        "\"replay_submit_us\": %.2f, \"replay_wall_ms\": %.3f, \"replay_gpu_us\": %.2f, \"repeats\": %u}",
        ops, median(cpuUsPerOp), median(gpuUs), median(wallMs), barriers, median(replaySubmitUs),
        median(replayWallMs), median(replayGpuUs), repeat);
    json.push_back(line);
    return 0;
}

#ifdef RIPPLE_BENCH_MODULE // bench/matrix.py calls it in its own process, beside torch
#ifdef _WIN32
extern "C" __declspec(dllexport) int ripple_bench_main(int argc, char** argv) {
#else
extern "C" __attribute__((visibility("default"))) int ripple_bench_main(int argc, char** argv) {
#endif
#else
int main(int argc, char** argv) {
#endif
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // progress shows even when piped
    BenchOptions opt;
    std::string what = "all", jsonPath;
    ripple::DeviceOptions options;
    int i = 1;
    if (argc > 1 && argv[1][0] != '-') what = argv[i++];
    for (; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--ops")
            opt.ops = static_cast<uint32_t>(std::atoi(argv[i + 1]));
        else if (a == "--repeat")
            opt.repeat = static_cast<uint32_t>(std::atoi(argv[i + 1]));
        else if (a == "--json")
            jsonPath = argv[i + 1];
        else if (a == "--device")
            options.adapterIndex = std::atoi(argv[i + 1]);
        else if (a == "--case")
            opt.only = argv[i + 1];
        else if (a == "--shape")
            opt.shape = argv[i + 1];
        else if (a == "--data")
            opt.data = argv[i + 1];
        else if (a == "--max-elements")
            opt.maxElements = std::strtoull(argv[i + 1], nullptr, 10);
        else if (a == "--kernels" &&
                 (std::string(argv[i + 1]) == "auto" || std::string(argv[i + 1]) == "fast" ||
                  std::string(argv[i + 1]) == "portable"))
            options.kernels = std::string(argv[i + 1]) == "portable" ? ripple::KernelPreference::Portable
                                                                     : ripple::KernelPreference::Auto;
        else
            i = argc;
    }
    if (i != argc || (what != "all" && what != "record" && what != "topk" && what != "scatter") ||
        (opt.data != "random" && opt.data != "equal" && opt.data != "two" && opt.data != "narrow"))
        return std::fprintf(stderr,
                            "usage: ripple-bench [record|topk|scatter|all] [--ops N] [--repeat R] [--json "
                            "FILE] [--device I] [--max-elements E] [--case NAME-PART] "
                            "[--shape D0xD1...:AXIS:K] [--data random|equal|two|narrow] "
                            "[--kernels fast|portable]\n"),
               2;
    auto device = ripple::Device::create(options);
    if (!device) return fail(device.status());
    std::vector<std::string> json;
    std::printf("device: %s (%s)\n", device->adapter().name.c_str(),
                ripple::toString(device->adapter().type));
    if (what == "all" || what == "record")
        if (int rc = runRecord(device.value(), opt, json)) return rc;
    double ceiling = 0;
    int rc = 0;
    if (what != "record") {
        auto c = copyCeilingGBs(device.value(), opt);
        if (!c) return fail(c.status());
        ceiling = c.value();
        std::printf("copy ceiling (ripple's 16-byte copy kernel, 1 GiB, read + write): %.0f GB/s\n", ceiling);
        if (what != "scatter") rc = runTopK(device.value(), opt, ceiling, json);
        if (what != "topk") rc = std::max(rc, runScatter(device.value(), opt, ceiling, json));
    }
    if (!jsonPath.empty()) {
        FILE* f = std::fopen(jsonPath.c_str(), "w");
        if (!f) return fail(ripple::Status(ripple::StatusCode::Internal, "cannot write " + jsonPath));
        std::fprintf(f, "{\"device\": \"%s\", \"copy_ceiling_gbs\": %.1f, \"cases\": [\n",
                     device->adapter().name.c_str(), ceiling);
        for (size_t c = 0; c < json.size(); ++c)
            std::fprintf(f, "  %s%s\n", json[c].c_str(), c + 1 < json.size() ? "," : "");
        std::fprintf(f, "]}\n");
        std::fclose(f);
    }
    return rc;
}
