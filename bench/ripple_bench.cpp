// ripple-bench: what recording and running a batch of operators costs.
//
//   ripple-bench [--ops N] [--repeat R] [--json FILE] [--device I]
//
// Case "record": N independent small TopKs ([1,256] FLOAT32, K = 8, each on its own slice of one input and
// one output buffer) recorded into one CommandRecorder: host microseconds per recorded operator (median of
// R recordings), then the batch submitted with GPU timestamps: GPU time from the first operator's start to
// the last one's end (median of R), and the submit-to-wait wall time. Prints a table and writes JSON.
#include "ripple/ripple.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

int fail(const ripple::Status& s) {
    std::fprintf(stderr, "ripple-bench: %s\n", s.message().c_str());
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    uint32_t ops = 1000, repeat = 7;
    std::string json;
    ripple::DeviceOptions options;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--ops")
            ops = static_cast<uint32_t>(std::atoi(argv[i + 1]));
        else if (a == "--repeat")
            repeat = static_cast<uint32_t>(std::atoi(argv[i + 1]));
        else if (a == "--json")
            json = argv[i + 1];
        else if (a == "--device")
            options.adapterIndex = std::atoi(argv[i + 1]);
        else
            return std::fprintf(stderr,
                                "usage: ripple-bench [--ops N] [--repeat R] [--json FILE] [--device I]\n"),
                   2;
    }
    auto device = ripple::Device::create(options);
    if (!device) return fail(device.status());
    ripple::Device& dev = device.value();

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

    std::vector<double> cpuUsPerOp, gpuUs, wallMs;
    uint32_t barriers = 0;
    for (uint32_t rep = 0; rep < repeat + 1; ++rep) { // the first round warms up
        ripple::RecorderOptions ro;
        ro.timestamps = true;
        auto rec = dev.createRecorder(ro);
        if (!rec) return fail(rec.status());
        auto t0 = std::chrono::steady_clock::now();
        for (uint32_t i = 0; i < ops; ++i) {
            ripple::Status s = rec->record(op.value(), {{&input.value(), inStride * i},
                                                        {&values.value(), valStride * i},
                                                        {&indices.value(), idxStride * i}});
            if (!s) return fail(s);
        }
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
        const auto& r = reports.value();
        uint64_t begin = r.front().gpuBeginNanoseconds, end = 0;
        for (const auto& x : r)
            begin = std::min(begin, x.gpuBeginNanoseconds), end = std::max(end, x.gpuEndNanoseconds);
        gpuUs.push_back((end - begin) / 1000.0);
    }
    const auto& a = dev.adapter();
    std::printf("device: %s (%s)\n", a.name.c_str(), ripple::toString(a.type));
    std::printf("%-44s %12s %14s %12s %9s\n", "case", "cpu us/op", "gpu batch us", "wall ms", "barriers");
    std::printf("%-44s %12.2f %14.1f %12.2f %9u\n",
                ("record " + std::to_string(ops) + " TopK [1,256] f32 K=8").c_str(), median(cpuUsPerOp),
                median(gpuUs), median(wallMs), barriers);
    if (!json.empty()) {
        FILE* f = std::fopen(json.c_str(), "w");
        if (!f) return fail(ripple::Status(ripple::StatusCode::Internal, "cannot write " + json));
        std::fprintf(
            f,
            "{\"device\": \"%s\", \"cases\": [{\"name\": \"record\", \"operators\": %u, \"shape\": [1, 256], "
            "\"type\": \"FLOAT32\", \"k\": 8, \"cpu_us_per_op\": %.3f, \"gpu_batch_us\": %.2f, "
            "\"wall_ms\": %.3f, \"barriers\": %u, \"repeats\": %u}]}\n",
            a.name.c_str(), ops, median(cpuUsPerOp), median(gpuUs), median(wallMs), barriers, repeat);
        std::fclose(f);
    }
    return 0;
}
