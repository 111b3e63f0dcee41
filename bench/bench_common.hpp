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

// GPU microseconds of one submission holding what `record` records (its commands' first to last level).
inline ripple::Result<double> timeOne(ripple::Device& dev,
                                      const std::function<ripple::Status(ripple::CommandRecorder&)>& record) {
    ripple::RecorderOptions ro;
    ro.timestamps = true;
    auto rec = dev.createRecorder(ro);
    if (!rec) return rec.status();
    if (ripple::Status s = record(rec.value()); !s) return s;
    auto ticket = dev.submit(rec.value());
    if (!ticket) return ticket.status();
    if (ripple::Status s = dev.wait(ticket.value()); !s) return s;
    auto reports = dev.reports(ticket.value());
    if (!reports) return reports.status();
    uint64_t begin = UINT64_MAX, end = 0;
    for (const auto& r : reports.value())
        if (r.gpuEndNanoseconds)
            begin = std::min(begin, r.gpuBeginNanoseconds), end = std::max(end, r.gpuEndNanoseconds);
    return end > begin ? (end - begin) / 1000.0 : 0.0;
}

// The copy ceiling in GB/s (bytes read plus written), measured in the same run: 8 vkCmdCopyBuffer of 1 GiB
// (the device's largest binding where smaller) in one submission, host-timed.
double copyCeilingGBs(ripple::Device& dev, const BenchOptions& opt);

int runTopK(ripple::Device& dev, const BenchOptions& opt, std::vector<std::string>& json);
int runRecord(ripple::Device& dev, const BenchOptions& opt, std::vector<std::string>& json);
