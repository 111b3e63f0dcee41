// SPDX-License-Identifier: MIT
// Whether a slow TopK follows its Operator or its input buffer (issue 58: the 16-bit (64,128256) K=50 case
// under mobile-vk11 ran 2.5x slower in some bench processes, every level alike, and never both types in one
// process). Eight Operators of the same desc live side by side; each is timed on two input buffers, singly
// (record, submit, wait; median of 40 GPU spans) and then queued as ripple-bench queues them (100
// submissions over seven input copies, then the waits). A slow Operator on both inputs is the Operator's
// state (its params, scratch, pipelines); a slow input on every Operator is the buffer's placement.
// Built by hand: g++ -O2 -std=c++17 -Iinclude operator_state.cpp libripple.a -ldl -lpthread
// usage: operator_state [f16|bf16|f32] [rounds|alternate] | operator_state idle
#include <ripple/ripple.hpp>

#include "../half_bits.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

static double med(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct Span {
    double us = 0;
    std::vector<double> levels;
};

// `queued`: all runs submitted before the first wait, the input rotating over `inputs`; else one at a time.
static Span time(ripple::Device& d, const ripple::Operator& op, const std::vector<ripple::Buffer*>& inputs,
                 ripple::Buffer& v, ripple::Buffer& ix, int runs, bool queued) {
    std::vector<double> spans;
    std::vector<std::vector<double>> levels;
    std::vector<ripple::Ticket> tickets;
    auto collect = [&](ripple::Ticket t) {
        (void)d.wait(t);
        auto r = d.reports(t);
        if (!r || r.value().empty()) return;
        const auto& rep = r.value().back();
        spans.push_back((rep.gpuEndNanoseconds - rep.gpuBeginNanoseconds) / 1000.0);
        levels.resize(rep.levelNanoseconds.size());
        for (size_t l = 0; l < levels.size(); ++l) levels[l].push_back(rep.levelNanoseconds[l] / 1000.0);
    };
    for (int i = 0; i < runs; ++i) {
        ripple::RecorderOptions ro;
        ro.timestamps = true;
        auto rec = d.createRecorder(ro);
        if (!rec) return {};
        ripple::Buffer* in = inputs[size_t(i) % inputs.size()];
        if (!rec.value().record(op, {{in, 0}, {&v, 0}, {&ix, 0}})) return {};
        auto t = d.submit(rec.value());
        if (!t) return {};
        if (queued)
            tickets.push_back(t.value());
        else
            collect(t.value());
    }
    for (ripple::Ticket t : tickets) collect(t);
    Span s;
    s.us = med(spans);
    for (auto& l : levels) s.levels.push_back(med(l));
    return s;
}

static void print(const char* what, const Span& s) {
    std::printf("  %-28s %7.1f us  levels", what, s.us);
    for (double l : s.levels) std::printf(" %.1f", l);
    std::printf("\n");
}

// The case: (64,128256) K=50 along axis 1, of `type`.
static ripple::TopKDesc llmTopK(ripple::DataType type) {
    ripple::TopKDesc k;
    k.InputTensor = {type, {64, 128256}, {}};
    k.OutputValueTensor = {type, {64, 50}, {}};
    k.OutputIndexTensor = {ripple::DataType::UInt32, {64, 50}, {}};
    k.Axis = 1;
    k.K = 50;
    return k;
}

// One input of the case: normal values as `type` (FLOAT32, FLOAT16 or BFLOAT16), as ripple-bench makes them.
static std::vector<uint8_t> normalInput(ripple::DataType type, std::mt19937& rng) {
    const uint32_t size = type == ripple::DataType::Float32 ? 4 : 2;
    const uint64_t count = 64ull * 128256;
    std::normal_distribution<float> normal;
    std::vector<uint8_t> host(count * size);
    for (uint64_t e = 0; e < count; ++e) {
        const float f = normal(rng);
        const uint32_t bits = type == ripple::DataType::Float16 ? toHalf(f) : toBFloat16(f);
        std::memcpy(&host[e * size], size == 4 ? static_cast<const void*>(&f) : &bits, size);
    }
    return host;
}

// `rounds` mode: what ripple-bench does around a case, in a fresh Device each round (its pipelines
// compiled again): a 1 GiB buffer pair copied for 200 ms first (the clocks' warm-up), then the FLOAT32 case
// and the 16-bit one, each queued 100 at a time for a second. Whether the slow state follows a Device (its
// pipelines), the time in the process, or the cases before it.
static int rounds(ripple::DataType dt) {
    for (int round = 0; round < 6; ++round) {
        auto dev = ripple::Device::create();
        if (!dev.ok()) return std::printf("%s\n", dev.status().message().c_str()), 1;
        auto& d = dev.value();
        ripple::ScatterNDDesc c; // the copy ScatterND does with one update: the warm-up load
        const uint32_t n = 64u << 20;
        c.InputTensor = c.OutputTensor = {ripple::DataType::Float32, {n, 1}, {}};
        c.IndicesTensor = {ripple::DataType::Int32, {1, 1}, {}};
        c.UpdatesTensor = {ripple::DataType::Float32, {1, 1}, {}};
        c.InputDimensionCount = c.IndicesDimensionCount = 2;
        auto copy = d.compile(c);
        auto big = d.createBuffer(4ull * n), big2 = d.createBuffer(4ull * n), small = d.createBuffer(16);
        const uint32_t zero[4] = {};
        (void)d.upload(small.value(), 0, zero, 16);
        for (int i = 0; i < 20 && copy.ok(); ++i) {
            auto rec = d.createRecorder();
            for (int j = 0; j < 8; ++j)
                (void)rec.value().record(
                    copy.value(),
                    {{&big.value(), 0}, {&small.value(), 0}, {&small.value(), 0}, {&big2.value(), 0}});
            auto t = d.submit(rec.value());
            if (t) (void)d.wait(t.value());
        }
        std::printf("round %d\n", round);
        for (ripple::DataType type : {ripple::DataType::Float32, dt}) {
            const uint32_t size = type == ripple::DataType::Float32 ? 4 : 2;
            const ripple::TopKDesc k = llmTopK(type);
            const uint64_t bytes = 64ull * 128256 * size;
            std::mt19937 rng(1);
            std::vector<uint8_t> host;
            std::vector<ripple::Buffer> copies;
            for (int cpy = 0; cpy < 7; ++cpy) {
                host = normalInput(type, rng);
                auto b = d.createBuffer(bytes);
                (void)d.upload(b.value(), 0, host.data(), bytes);
                copies.push_back(std::move(b.value()));
            }
            std::vector<ripple::Buffer*> all;
            for (auto& b : copies) all.push_back(&b);
            auto v = d.createBuffer(64 * 50 * 4), ix = d.createBuffer(64 * 50 * 4);
            auto op = d.compile(k);
            if (!op) return std::printf("compile: %s\n", op.status().message().c_str()), 1;
            Span last;
            for (int r = 0; r < 10; ++r) last = time(d, op.value(), all, v.value(), ix.value(), 100, true);
            print(size == 4 ? "f32, 10 x 100 queued, last" : "16-bit, 10 x 100 queued, last", last);
            print(size == 4 ? "f32, singly" : "16-bit, singly",
                  time(d, op.value(), {all[0]}, v.value(), ix.value(), 40, false));
            if (size == 4) continue;
            // The same Operator on the same data in other memory: a copy in a new shared block (after
            // the 32 MiB spacer that fills one), and one of its own allocation (over half a block).
            auto spacer = d.createBuffer(32u << 20);
            auto again = d.createBuffer(bytes), own = d.createBuffer(40u << 20);
            (void)d.upload(again.value(), 0, host.data(), bytes);
            (void)d.upload(own.value(), 0, host.data(), bytes);
            print("16-bit, last copy in a new block",
                  time(d, op.value(), {&again.value()}, v.value(), ix.value(), 40, false));
            print("16-bit, last copy, dedicated",
                  time(d, op.value(), {&own.value()}, v.value(), ix.value(), 40, false));
            print("16-bit, last copy as made",
                  time(d, op.value(), {all[6]}, v.value(), ix.value(), 40, false));
            print("16-bit, first copy again",
                  time(d, op.value(), {all[0]}, v.value(), ix.value(), 40, false));
        }
    }
    return 0;
}

// `alternate` mode: the FLOAT32 and 16-bit Operators, each with its own input, timed in turns (40 runs each,
// 12 turns), in 4 fresh Devices: whether a slow spell of one is a slow spell of both.
static int alternate(ripple::DataType dt) {
    for (int round = 0; round < 4; ++round) {
        auto dev = ripple::Device::create();
        if (!dev.ok()) return 1;
        auto& d = dev.value();
        std::vector<ripple::Operator> ops;
        std::vector<ripple::Buffer> inputs;
        for (ripple::DataType type : {ripple::DataType::Float32, dt}) {
            std::mt19937 rng(1);
            const std::vector<uint8_t> host = normalInput(type, rng);
            const uint64_t bytes = host.size();
            const ripple::TopKDesc k = llmTopK(type);
            auto b = d.createBuffer(bytes);
            (void)d.upload(b.value(), 0, host.data(), bytes);
            inputs.push_back(std::move(b.value()));
            ops.push_back(std::move(d.compile(k).value()));
        }
        auto v = d.createBuffer(64 * 50 * 4), ix = d.createBuffer(64 * 50 * 4);
        std::printf("device %d: f32 then 16-bit, us\n ", round);
        for (int turn = 0; turn < 12; ++turn)
            for (int o = 0; o < 2; ++o)
                std::printf(" %.1f%s", time(d, ops[o], {&inputs[o]}, v.value(), ix.value(), 40, false).us,
                            o ? " |" : "");
        std::printf("\n");
    }
    return 0;
}

// `idle` mode: after the GPU has idled for a while (0.2 to 4 s), three FLOAT32 TopKs timed in turns for 1.5 s
// (10 runs each a turn, one at a time): how long a slow spell after idling lasts and what it slows.
static int idle() {
    auto dev = ripple::Device::create();
    if (!dev.ok()) return 1;
    auto& d = dev.value();
    struct Case {
        std::vector<uint32_t> shape;
        uint32_t k;
    };
    const Case cases[] = {{{64, 128256}, 50}, {{1, 152064}, 40}, {{16, 1048576}, 100}};
    std::vector<ripple::Operator> ops;
    std::vector<ripple::Buffer> inputs, values, indices;
    std::mt19937 rng(1);
    std::normal_distribution<float> normal;
    for (const Case& c : cases) {
        ripple::TopKDesc k;
        k.InputTensor = {ripple::DataType::Float32, c.shape, {}};
        k.OutputValueTensor = {ripple::DataType::Float32, {c.shape[0], c.k}, {}};
        k.OutputIndexTensor = {ripple::DataType::UInt32, {c.shape[0], c.k}, {}};
        k.Axis = 1;
        k.K = c.k;
        const uint64_t count = uint64_t(c.shape[0]) * c.shape[1];
        std::vector<float> host(count);
        for (float& f : host) f = normal(rng);
        auto b = d.createBuffer(count * 4);
        (void)d.upload(b.value(), 0, host.data(), count * 4);
        inputs.push_back(std::move(b.value()));
        values.push_back(std::move(d.createBuffer(uint64_t(c.shape[0]) * c.k * 4).value()));
        indices.push_back(std::move(d.createBuffer(uint64_t(c.shape[0]) * c.k * 4).value()));
        ops.push_back(std::move(d.compile(k).value()));
    }
    for (double gap : {0.2, 1.0, 2.0, 4.0, 0.2, 2.0}) {
        std::this_thread::sleep_for(std::chrono::duration<double>(gap));
        std::printf("after %.1f s idle: ms since, then GPU us of (64,128256) K=50, (1,152064) K=40, "
                    "(16,1048576) K=100\n",
                    gap);
        const auto start = std::chrono::steady_clock::now();
        double ms = 0;
        int turn = 0;
        while ((ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                         .count()) < 1500) {
            double us[3];
            for (int c = 0; c < 3; ++c)
                us[c] = time(d, ops[c], {&inputs[c]}, values[c], indices[c], 10, false).us;
            if (turn++ % 4 == 0) std::printf("  %6.0f  %7.1f %7.1f %7.1f\n", ms, us[0], us[1], us[2]);
        }
    }
    return 0;
}

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    if (argc > 1 && !std::strcmp(argv[1], "idle")) return idle();
    if (argc > 2 && !std::strcmp(argv[2], "alternate"))
        return alternate(!std::strcmp(argv[1], "bf16") ? ripple::DataType::BFloat16
                                                       : ripple::DataType::Float16);
    if (argc > 2 && !std::strcmp(argv[2], "rounds"))
        return rounds(!std::strcmp(argv[1], "bf16") ? ripple::DataType::BFloat16 : ripple::DataType::Float16);
    const char* type = argc > 1 ? argv[1] : "f16";
    const ripple::DataType dt = !std::strcmp(type, "bf16")  ? ripple::DataType::BFloat16
                                : !std::strcmp(type, "f32") ? ripple::DataType::Float32
                                                            : ripple::DataType::Float16;
    const uint32_t size = dt == ripple::DataType::Float32 ? 4 : 2;
    auto dev = ripple::Device::create();
    if (!dev.ok()) return std::printf("%s\n", dev.status().message().c_str()), 1;
    auto& d = dev.value();
    std::printf("device: %s, %s\n", d.adapter().name.c_str(), type);
    const ripple::TopKDesc k = llmTopK(dt);
    const uint64_t bytes = 64ull * 128256 * size;
    std::mt19937 rng(1);
    std::vector<ripple::Buffer> copies; // 0 and 1: the two inputs timed singly; all 7: the queued rotation
    for (int c = 0; c < 7; ++c) {
        const std::vector<uint8_t> host = normalInput(dt, rng);
        auto b = d.createBuffer(bytes);
        if (!b) return std::printf("input: %s\n", b.status().message().c_str()), 1;
        (void)d.upload(b.value(), 0, host.data(), bytes);
        copies.push_back(std::move(b.value()));
    }
    auto v = d.createBuffer(64 * 50 * 4), ix = d.createBuffer(64 * 50 * 4);
    std::vector<ripple::Buffer*> all;
    for (auto& b : copies) all.push_back(&b);
    std::vector<ripple::Operator> ops;
    for (int o = 0; o < 8; ++o) {
        auto op = d.compile(k);
        if (!op) return std::printf("compile: %s\n", op.status().message().c_str()), 1;
        ops.push_back(std::move(op.value()));
        const ripple::Operator& cur = ops.back();
        (void)time(d, cur, {&copies[0]}, v.value(), ix.value(), 20, false); // warm-up
        std::printf("operator %d\n", o);
        print("input A, singly", time(d, cur, {&copies[0]}, v.value(), ix.value(), 40, false));
        print("input B, singly", time(d, cur, {&copies[1]}, v.value(), ix.value(), 40, false));
        print("7 inputs, 100 queued", time(d, cur, all, v.value(), ix.value(), 100, true));
    }
    std::printf("again, in order\n");
    for (size_t o = 0; o < ops.size(); ++o) {
        char what[64];
        std::snprintf(what, sizeof what, "operator %zu, input A", o);
        print(what, time(d, ops[o], {&copies[0]}, v.value(), ix.value(), 40, false));
    }
    return 0;
}
