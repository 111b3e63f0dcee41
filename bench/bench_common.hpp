// SPDX-License-Identifier: MIT
// Shared by ripple-bench's cases: options, timing one recorded submission with GPU timestamps, the copy
// ceiling, formatting.
#pragma once

#include "ripple/ripple.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

struct BenchOptions {
    uint32_t repeat = 15;
    uint32_t ops = 1000;               // record case
    uint64_t maxElements = UINT64_MAX; // topk: skip larger inputs (smoke runs on lavapipe)
    std::string only;                  // topk: run only the cases whose name contains this
    std::string shape;                 // topk: run only this FLOAT32 case, "D0xD1x...:AXIS:K"
    std::string data = "random";       // topk inputs: random, equal (all one value) or two (two values)
};

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

inline int fail(const ripple::Status& s) {
    std::fprintf(stderr, "ripple-bench: %s\n", s.message().c_str());
    return 1;
}

inline std::string shapeName(const std::vector<uint32_t>& s) {
    std::string out = "(";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
    return out + ")";
}

inline std::string shapeJson(const std::vector<uint32_t>& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

template <typename T> using Result = ripple::Result<T>;

struct BatchTimes {
    std::vector<double> us;     // per run
    std::vector<double> hostUs; // per submission: record, submit and wait on the host clock, as execute()
    std::vector<double> levels; // per level (dispatch step) of the operator: the median over the runs, us
};

// GPU microseconds of `count` runs, each in its own submission, all submitted before the first wait, so the
// GPU runs them back to back and stays busy, as a stream of work would keep it. Each run's time is its
// submission's span between GPU timestamps. `record(recorder, run)` records run number `run`.
// Warm-up: untimed rounds of the same runs until at least 300 ms have passed and two rounds in a row agree
// within 3% (at most 3 s): the GPU's clocks follow the load with a delay, so a round after an idle spell
// runs slower. (Runs recorded into one submission would be overlapped by the recorder wherever they do
// not conflict, so they would not be timed alone.)
// `execute(run)`, where given, runs the same work as one Device::execute for the host figure (after an
// untimed pass over the runs, as a user's repeated calls are: execute() keeps its recordings).
inline Result<BatchTimes>
timeBatch(ripple::Device& dev, uint32_t count,
          const std::function<ripple::Status(ripple::CommandRecorder&, uint32_t)>& record,
          const std::function<ripple::Status(uint32_t)>& execute = {}) {
    auto round = [&](BatchTimes& out) -> ripple::Status {
        std::vector<ripple::Ticket> tickets;
        for (uint32_t i = 0; i < count; ++i) {
            ripple::RecorderOptions ro;
            ro.timestamps = true;
            auto rec = dev.createRecorder(ro);
            if (!rec) return rec.status();
            if (ripple::Status s = record(rec.value(), i); !s) return s;
            auto ticket = dev.submit(rec.value());
            if (!ticket) return ticket.status();
            tickets.push_back(ticket.value());
        }
        std::vector<std::vector<double>> levels;
        for (ripple::Ticket t : tickets) {
            if (ripple::Status s = dev.wait(t); !s) return s;
            auto reports = dev.reports(t);
            if (!reports) return reports.status();
            uint64_t begin = UINT64_MAX, end = 0;
            for (const auto& r : reports.value())
                if (r.gpuEndNanoseconds)
                    begin = std::min(begin, r.gpuBeginNanoseconds), end = std::max(end, r.gpuEndNanoseconds);
            if (end <= begin) continue;
            out.us.push_back((end - begin) / 1000.0);
            const auto& lv = reports.value().back().levelNanoseconds;
            levels.resize(std::max(levels.size(), lv.size()));
            for (size_t l = 0; l < lv.size(); ++l) levels[l].push_back(lv[l] / 1000.0);
        }
        for (auto& l : levels) out.levels.push_back(median(l));
        return {};
    };
    const auto start = std::chrono::steady_clock::now();
    auto elapsedMs = [&] {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    };
    double previous = 0;
    for (;;) {
        BatchTimes warm;
        if (ripple::Status s = round(warm); !s) return s;
        const double m = median(warm.us);
        const bool steady = previous > 0 && std::abs(m - previous) <= 0.03 * previous;
        previous = m;
        if ((steady && elapsedMs() >= 300) || elapsedMs() >= 3000) break;
    }
    BatchTimes out;
    if (ripple::Status s = round(out); !s) return s;
    // What a caller of execute() waits: each run by execute(), or recorded, submitted and waited for on its
    // own (no timestamps), on the host clock.
    for (uint32_t i = 0; execute && i < count; ++i)
        if (ripple::Status s = execute(i); !s) return s;
    for (uint32_t i = 0; i < count; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        if (execute) {
            if (ripple::Status s = execute(i); !s) return s;
            out.hostUs.push_back(
                std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
            continue;
        }
        auto rec = dev.createRecorder();
        if (!rec) return rec.status();
        if (ripple::Status s = record(rec.value(), i); !s) return s;
        auto ticket = dev.submit(rec.value());
        if (!ticket) return ticket.status();
        if (ripple::Status s = dev.wait(ticket.value()); !s) return s;
        out.hostUs.push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    return out;
}

// The copy ceiling in GB/s (bytes read plus written) of ripple's 16-byte copy kernel on 1 GiB, measured in
// the same run (copy_ceiling.cpp).
Result<double> copyCeilingGBs(ripple::Device& dev, const BenchOptions& opt);

// Keeps the GPU's clocks up before a measurement. An idle H100 drops its SM clock from 1980 to 345 MHz
// within seconds (nvidia-smi, 2026-11-22), and the host-side work between cases (random inputs, the CPU
// reference) is long enough for that: without this, a case's times depended on what ran before it.
class GpuWarmer {
  public:
    explicit GpuWarmer(ripple::Device& dev);
    // Back-to-back 256 MiB copies for that long (a second the first time), then until the clock is up: a
    // batch within 5% of the fastest seen (copy_ceiling.cpp).
    void warm(double milliseconds = 200);

  private:
    ripple::Device& dev_;
    double best_ms_ = 0; // the fastest batch of copies so far, host milliseconds
    ripple::Operator op_;
    ripple::Buffer in_, out_, small_;
};

int runTopK(ripple::Device& dev, const BenchOptions& opt, double ceiling, std::vector<std::string>& json);
int runScatter(ripple::Device& dev, const BenchOptions& opt, double ceiling, std::vector<std::string>& json);
int runRecord(ripple::Device& dev, const BenchOptions& opt, std::vector<std::string>& json);
