// SPDX-License-Identifier: MIT
// Where execute()'s host time goes (issue 19): createRecorder, record, submit and wait timed apart, for a
// tiny TopK and the in-place ScatterND of 65536 rows; median of 200 after 20 warm-up runs. A probe for
// bench/NOTES.md, built by hand: g++ -O2 -std=c++17 -Iinclude execute_breakdown.cpp libripple.a -ldl
// -lpthread. `execute_breakdown cuda` first makes a CUDA context current in the process (libcuda through
// dlopen), as torch does in bench/matrix.py's processes: whether a second API's context on the GPU costs
// ripple's submissions time.
#include <ripple/ripple.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <numeric>
#include <random>
#include <sched.h>
#include <vector>

using clk = std::chrono::steady_clock;

static double med(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static void breakdown(ripple::Device& d, const char* name, const ripple::Result<ripple::Operator>& compiled,
                      const std::vector<ripple::TensorBinding>& b) {
    if (!compiled.ok()) { // a profile's limits may refuse a case (RIPPLE_DEVICE_PROFILE)
        std::printf("%-34s refused: %s\n", name, compiled.status().message().c_str());
        return;
    }
    const ripple::Operator& op = compiled.value();
    std::vector<double> create, record, submit, wait, total, gpu;
    std::vector<std::vector<double>>
        levels; // per level, single submissions (ripple-bench's are back to back)
    for (int i = 0; i < 220; ++i) {
        ripple::RecorderOptions ro;
        ro.timestamps = (i % 2) == 1; // every other run also gives the GPU span
        const auto t0 = clk::now();
        auto rec = d.createRecorder(ro);
        const auto t1 = clk::now();
        (void)rec.value().record(op, b);
        const auto t2 = clk::now();
        auto tk = d.submit(rec.value());
        const auto t3 = clk::now();
        (void)d.wait(tk.value());
        const auto t4 = clk::now();
        if (i < 20) continue;
        auto us = [](clk::time_point a, clk::time_point z) {
            return std::chrono::duration<double, std::micro>(z - a).count();
        };
        if (ro.timestamps) {
            const auto report = d.reports(tk.value()).value()[0];
            gpu.push_back(report.gpuNanoseconds / 1000.0);
            levels.resize(report.levelNanoseconds.size());
            for (size_t l = 0; l < levels.size(); ++l)
                levels[l].push_back(report.levelNanoseconds[l] / 1000.0);
            continue;
        }
        create.push_back(us(t0, t1)), record.push_back(us(t1, t2)), submit.push_back(us(t2, t3));
        wait.push_back(us(t3, t4)), total.push_back(us(t0, t4));
    }
    std::printf(
        "%-34s create %6.1f  record %6.1f  submit %6.1f  wait %6.1f  total %6.1f  | GPU span %6.1f us\n",
        name, med(create), med(record), med(submit), med(wait), med(total), med(gpu));
    std::vector<double> executes; // Device::execute, its recording kept from the first call
    for (int i = 0; i < 220; ++i) {
        const auto t0 = clk::now();
        (void)d.execute(op, b);
        if (i >= 20) executes.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count());
    }
    std::printf("%34s execute() %6.1f us\n", "", med(executes));
    if (levels.size() > 1) {
        std::printf("%34s levels us:", "");
        for (auto& l : levels) std::printf(" %.1f", med(l));
        std::printf("\n");
    }
}

// The CUDA driver API's context calls, declared here: the probe needs no CUDA headers to build.
static bool makeCudaContext() {
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
    if (!cuda) return false;
    using Init = int (*)(unsigned);
    using Get = int (*)(int*, int);
    using Retain = int (*)(void**, int);
    using SetCurrent = int (*)(void*);
    auto init = reinterpret_cast<Init>(dlsym(cuda, "cuInit"));
    auto get = reinterpret_cast<Get>(dlsym(cuda, "cuDeviceGet"));
    auto retain = reinterpret_cast<Retain>(dlsym(cuda, "cuDevicePrimaryCtxRetain"));
    auto setCurrent = reinterpret_cast<SetCurrent>(dlsym(cuda, "cuCtxSetCurrent"));
    int device = 0;
    void* context = nullptr;
    return init && get && retain && setCurrent && init(0) == 0 && get(&device, 0) == 0 &&
           retain(&context, device) == 0 && setCurrent(context) == 0;
}
int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // lines survive an abort
    bool tinyOnly = false;                    // `tiny`: the (1,1,3,4) TopK only, for many short processes
    for (int a = 1; a < argc; ++a) {
        if (!std::strcmp(argv[a], "cuda"))
            std::printf("CUDA context in the process: %s\n", makeCudaContext() ? "made" : "FAILED");
        tinyOnly = tinyOnly || !std::strcmp(argv[a], "tiny");
    }
    // Which core the process starts on, of how many it may use: whether a slow process is a placement.
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    const int nAllowed = sched_getaffinity(0, sizeof(allowed), &allowed) == 0 ? CPU_COUNT(&allowed) : -1;
    std::printf("process on cpu %d of %d allowed\n", sched_getcpu(), nAllowed);
    auto dev = ripple::Device::create();
    if (!dev.ok()) return std::printf("%s\n", dev.status().message().c_str()), 1;
    auto& d = dev.value();
    ripple::TopKDesc k;
    k.InputTensor = {ripple::DataType::Float32, {1, 1, 3, 4}, {}};
    k.OutputValueTensor = {ripple::DataType::Float32, {1, 1, 3, 2}, {}};
    k.OutputIndexTensor = {ripple::DataType::UInt32, {1, 1, 3, 2}, {}};
    k.Axis = 3;
    k.K = 2;
    auto tiny = d.compile(k);
    auto in = d.createBuffer(64), v = d.createBuffer(64), ix = d.createBuffer(64);
    breakdown(d, "topk (1,1,3,4) k2", tiny, {{&in.value(), 0}, {&v.value(), 0}, {&ix.value(), 0}});
    if (tinyOnly) return std::printf("process ends on cpu %d\n", sched_getcpu()), 0;
    ripple::TopKDesc big = k;
    big.InputTensor = {ripple::DataType::Float32, {64, 128256}, {}};
    big.OutputValueTensor = {ripple::DataType::Float32, {64, 50}, {}};
    big.OutputIndexTensor = {ripple::DataType::UInt32, {64, 50}, {}};
    big.Axis = 1;
    big.K = 50;
    auto llm = d.compile(big);
    auto bin = d.createBuffer(64 * 128256 * 4), bv = d.createBuffer(64 * 50 * 4),
         bi = d.createBuffer(64 * 50 * 4);
    std::vector<float> logits(64 * 128256);
    std::mt19937 g(1);
    for (float& x : logits) x = std::uniform_real_distribution<float>(-8, 8)(g);
    (void)d.upload(bin.value(), 0, logits.data(), logits.size() * 4);
    breakdown(d, "topk (64,128256) k50", llm, {{&bin.value(), 0}, {&bv.value(), 0}, {&bi.value(), 0}});
    const uint64_t R = 1048576, C = 256, U = 65536;
    ripple::ScatterNDDesc s;
    s.InputTensor = s.OutputTensor = {ripple::DataType::Float32, {uint32_t(R), uint32_t(C)}, {}};
    s.IndicesTensor = {ripple::DataType::Int32, {uint32_t(U), 1}, {}};
    s.UpdatesTensor = {ripple::DataType::Float32, {uint32_t(U), uint32_t(C)}, {}};
    s.InputDimensionCount = s.IndicesDimensionCount = 2;
    auto op = d.compile(s);
    auto t = d.createBuffer(R * C * 4), ind = d.createBuffer(U * 4), up = d.createBuffer(U * C * 4);
    if (!t || !ind || !up) return std::printf("scatter: no buffers: %s\n", t.status().message().c_str()), 0;
    std::vector<int32_t> rows(R);
    std::iota(rows.begin(), rows.end(), 0);
    std::shuffle(rows.begin(), rows.end(), std::mt19937(2));
    (void)d.upload(ind.value(), 0, rows.data(), U * 4);
    breakdown(d, "scatter_nd in place 65536 rows", op,
              {{&t.value(), 0}, {&ind.value(), 0}, {&up.value(), 0}, {&t.value(), 0}});
    s.Deterministic = true; // the same work in the deterministic mode: 11 levels instead of 1
    auto det = d.compile(s);
    breakdown(d, "scatter_nd in place, deterministic", det,
              {{&t.value(), 0}, {&ind.value(), 0}, {&up.value(), 0}, {&t.value(), 0}});
    s.Reduction = ripple::ScatterReduction::Add;
    auto detAdd = d.compile(s);
    breakdown(d, "scatter_nd in place, add, det", detAdd,
              {{&t.value(), 0}, {&ind.value(), 0}, {&up.value(), 0}, {&t.value(), 0}});
    return 0;
}
