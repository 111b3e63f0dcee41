// Shared by ripple-bench's cases: options, timing one recorded submission with GPU timestamps, the copy
// ceiling, formatting.
#pragma once

#include "ripple/ripple.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

struct BenchOptions {
    uint32_t repeat = 15;
    uint32_t ops = 1000;               // record case
    uint64_t maxElements = UINT64_MAX; // topk: skip larger inputs (smoke runs on lavapipe)
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

// GPU microseconds of `count` runs recorded into one submission: `record(recorder, run)` records run number
// `run`. Runs that write the same outputs are serialized by the recorder (one barrier between them), so
// each is timed alone while the GPU stays busy, as a stream of work would keep it (clocks up). One
// untimed submission of the same runs comes first, as a warm-up.
inline Result<std::vector<double>>
timeBatch(ripple::Device& dev, uint32_t count,
          const std::function<ripple::Status(ripple::CommandRecorder&, uint32_t)>& record) {
    std::vector<double> us;
    for (int round = 0; round < 2; ++round) {
        ripple::RecorderOptions ro;
        ro.timestamps = true;
        auto rec = dev.createRecorder(ro);
        if (!rec) return rec.status();
        for (uint32_t i = 0; i < count; ++i)
            if (ripple::Status s = record(rec.value(), i); !s) return s;
        auto ticket = dev.submit(rec.value());
        if (!ticket) return ticket.status();
        if (ripple::Status s = dev.wait(ticket.value()); !s) return s;
        auto reports = dev.reports(ticket.value());
        if (!reports) return reports.status();
        if (round == 0) continue;
        for (const auto& r : reports.value())
            if (r.gpuEndNanoseconds) us.push_back((r.gpuEndNanoseconds - r.gpuBeginNanoseconds) / 1000.0);
    }
    return us;
}

// The copy ceiling in GB/s (bytes read plus written) of ripple's 16-byte copy kernel on 1 GiB, measured in
// the same run (copy_ceiling.cpp).
Result<double> copyCeilingGBs(ripple::Device& dev, const BenchOptions& opt);

int runTopK(ripple::Device& dev, const BenchOptions& opt, double ceiling, std::vector<std::string>& json);
int runRecord(ripple::Device& dev, const BenchOptions& opt, std::vector<std::string>& json);
