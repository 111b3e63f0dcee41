// SPDX-License-Identifier: MIT
// ripple-bench scatter: issue 6's scatter cases, timed with GPU timestamps (timeBatch), outputs checked
// against a CPU computation of the same scatter on the last run.
//
// Floor bytes: out of place, the input copied (read + write) plus the updates read and written and the
// indices read; in place, the updates read and written and the indices read. The 1 GiB tensors dwarf the
// L2 cache; the [4096,4096] one (64 MiB) is about its size and is not rotated.
//
// Deterministic cases time the opt-in mode next to the default one. The in-place experiment variants
// (bench/NOTES.md "Scatter v2"): "after a copy" records a 128 MiB copy of other buffers before the scatter
// in the same submission; "x8 in one submission" records 8 runs in one submission (the recorder orders
// them by their writes) and reports the span divided by 8.
#include "bench_common.hpp"

#include <cstring>
#include <numeric>
#include <random>

namespace {

struct ScatterCase {
    std::string name;
    bool nd; // ScatterND (rows), else ScatterElements along axis 1
    bool inPlace;
    ripple::ScatterReduction reduction;
    uint32_t rows, cols, updateRows,
        updateCols; // input [rows, cols]; ND: updateRows rows; Elements: [rows, updateCols]
    bool deterministic = false;
    bool duplicates = false; // indices drawn at random (Elements), else distinct
    enum Variant { Plain, AfterCopy, EightPerSubmission, HostLone, EightDistinct } variant = Plain;
    // ScatterND's rows: distinct and random over the whole input (as the issue asks), the same rows in
    // ascending order, or a random order of the first updateRows rows (a 64 MiB region of the 1 GiB input).
    enum Rows { Spread, SpreadSorted, Local } rowsPattern = Spread;
};

std::string jsonCase(const ScatterCase& c, double us, double best, double host, size_t runs,
                     uint64_t floorBytes, double gbs, double ceiling, bool ok) {
    char line[512];
    std::snprintf(
        line, sizeof line,
        "{\"op\": \"%s\", \"name\": \"%s\", \"in_place\": %s, \"reduction\": %u, \"us\": %.2f, "
        "\"us_min\": %.2f, \"host_us\": %.2f, \"runs\": %zu, \"floor_bytes\": %llu, \"gbs\": %.1f, "
        "\"pct_of_copy\": %.1f, "
        "\"matches_reference\": %s, \"rows\": %u, \"cols\": %u, \"update_rows\": %u, \"update_cols\": %u, "
        "\"deterministic\": %s, \"duplicates\": %s, \"variant\": %d, \"rows_pattern\": %d}",
        c.nd ? "scatter_nd" : "scatter_elements", c.name.c_str(), c.inPlace ? "true" : "false",
        static_cast<uint32_t>(c.reduction), us, best, host, runs, static_cast<unsigned long long>(floorBytes),
        gbs, 100 * gbs / ceiling, ok ? "true" : "false", c.rows, c.cols, c.updateRows, c.updateCols,
        c.deterministic ? "true" : "false", c.duplicates ? "true" : "false", static_cast<int>(c.variant),
        static_cast<int>(c.rowsPattern));
    return line;
}

// The HostLone variant: each run submitted alone and waited for, timed on the host; an empty submission's
// round trip, timed the same way in alternation, is subtracted. What timestamps cannot show (work the
// driver does around a submission) is in this figure; the GPU timestamp spans of the same runs are returned
// beside it. EightDistinct: 8 runs in one submission as EightPerSubmission, each with its own rows (8
// disjoint random sets), so that no run finds the rows the run before it wrote still in the L2 cache.
ripple::Status hostLone(ripple::Device& dev, uint32_t runs,
                        const std::function<ripple::Status(ripple::CommandRecorder&)>& record,
                        std::vector<double>& hostUs, std::vector<double>& gpuUs,
                        std::vector<double>& hostFull) {
    std::vector<double> full, empty;
    for (uint32_t i = 0; i < runs; ++i)
        for (bool withOp : {true, false}) {
            ripple::RecorderOptions ro;
            ro.timestamps = true;
            auto rec = dev.createRecorder(ro);
            if (!rec) return rec.status();
            if (withOp)
                if (ripple::Status s = record(rec.value()); !s) return s;
            const auto start = std::chrono::steady_clock::now();
            auto ticket = dev.submit(rec.value());
            if (!ticket) return ticket.status();
            if (ripple::Status s = dev.wait(ticket.value()); !s) return s;
            const double us =
                std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
            (withOp ? full : empty).push_back(us);
            auto reports = dev.reports(ticket.value());
            if (!reports) return reports.status();
            for (const auto& r : reports.value())
                if (withOp && r.gpuEndNanoseconds > r.gpuBeginNanoseconds)
                    gpuUs.push_back((r.gpuEndNanoseconds - r.gpuBeginNanoseconds) / 1000.0);
        }
    const double base = median(empty);
    for (double f : full) hostUs.push_back(f - base);
    hostFull = full;
    return {};
}

} // namespace

int runScatter(ripple::Device& dev, const BenchOptions& opt, double ceiling, std::vector<std::string>& json) {
    using ripple::ScatterReduction;
    const std::vector<ScatterCase> cases = {
        {"scatter_nd (1048576,256) f32, 65536 rows, out of place", true, false, ScatterReduction::None,
         1048576, 256, 65536, 0},
        {"scatter_nd (1048576,256) f32, 65536 rows, in place", true, true, ScatterReduction::None, 1048576,
         256, 65536, 0},
        {"scatter_nd (1048576,256) f32, 65536 rows, in place, add", true, true, ScatterReduction::Add,
         1048576, 256, 65536, 0},
        {"scatter_elements (4096,4096) f32 ax1, idx (4096,256)", false, false, ScatterReduction::None, 4096,
         4096, 0, 256},
        {"scatter_elements (4096,4096) f32 ax1, idx (4096,256), add", false, false, ScatterReduction::Add,
         4096, 4096, 0, 256},
        {"scatter_nd same, in place, after a 128 MiB copy", true, true, ScatterReduction::None, 1048576, 256,
         65536, 0, false, false, ScatterCase::AfterCopy},
        {"scatter_nd same, in place, x8 in one submission (per run)", true, true, ScatterReduction::None,
         1048576, 256, 65536, 0, false, false, ScatterCase::EightPerSubmission},
        {"scatter_nd same, in place, alone and waited for (host clock)", true, true, ScatterReduction::None,
         1048576, 256, 65536, 0, false, false, ScatterCase::HostLone},
        {"scatter_nd same, in place, x8 in one submission, distinct rows", true, true, ScatterReduction::None,
         1048576, 256, 65536, 0, false, false, ScatterCase::EightDistinct},
        {"scatter_nd same, in place, rows sorted", true, true, ScatterReduction::None, 1048576, 256, 65536, 0,
         false, false, ScatterCase::Plain, ScatterCase::SpreadSorted},
        {"scatter_nd same, in place, rows within 64 MiB", true, true, ScatterReduction::None, 1048576, 256,
         65536, 0, false, false, ScatterCase::Plain, ScatterCase::Local},
        {"scatter_nd same, in place, rows within 64 MiB, x8 in one submission", true, true,
         ScatterReduction::None, 1048576, 256, 65536, 0, false, false, ScatterCase::EightPerSubmission,
         ScatterCase::Local},
        {"scatter_nd same, in place, deterministic", true, true, ScatterReduction::None, 1048576, 256, 65536,
         0, true},
        {"scatter_nd same, in place, add, deterministic", true, true, ScatterReduction::Add, 1048576, 256,
         65536, 0, true},
        {"scatter_elements (4096,4096) f32 ax1, idx (4096,256), deterministic", false, false,
         ScatterReduction::None, 4096, 4096, 0, 256, true},
        {"scatter_elements same, add, deterministic", false, false, ScatterReduction::Add, 4096, 4096, 0, 256,
         true},
        // The same 16 MiB input in lines of 16 B to 4 KiB, a quarter of each line updated: where the fused
        // copy-and-scatter pass (a workgroup per line) stops paying (core/scatter_elements.cpp).
        {"scatter_elements (1048576,4) f32 ax1, idx (1048576,1)", false, false, ScatterReduction::None,
         1048576, 4, 0, 1},
        {"scatter_elements (262144,16) f32 ax1, idx (262144,4)", false, false, ScatterReduction::None, 262144,
         16, 0, 4},
        {"scatter_elements (65536,64) f32 ax1, idx (65536,16)", false, false, ScatterReduction::None, 65536,
         64, 0, 16},
        {"scatter_elements (16384,256) f32 ax1, idx (16384,64)", false, false, ScatterReduction::None, 16384,
         256, 0, 64},
        {"scatter_elements (4096,1024) f32 ax1, idx (4096,256)", false, false, ScatterReduction::None, 4096,
         1024, 0, 256},
        {"scatter_elements (2048,2048) f32 ax1, idx (2048,512)", false, false, ScatterReduction::None, 2048,
         2048, 0, 512},
        {"scatter_elements (1,1024) f32, 1048576 random idx, add", false, false, ScatterReduction::Add, 1,
         1024, 0, 1048576, false, true},
        {"scatter_elements (1,1024) f32, 1048576 random idx, add, deterministic", false, false,
         ScatterReduction::Add, 1, 1024, 0, 1048576, true, true},
        // ScatterND within a small device's 128 MiB binding range (Vulkan's minimum maxStorageBufferRange),
        // so that the small-device profiles measure ScatterND too: the 1 GiB cases above are refused there.
        {"scatter_nd (65536,256) f32 (64 MiB), 4096 rows, in place", true, true, ScatterReduction::None,
         65536, 256, 4096, 0},
        {"scatter_nd (65536,256) f32 (64 MiB), 4096 rows, in place, add", true, true, ScatterReduction::Add,
         65536, 256, 4096, 0},
        {"scatter_nd (65536,256) f32 (64 MiB), 4096 rows, in place, add, deterministic", true, true,
         ScatterReduction::Add, 65536, 256, 4096, 0, true},
    };
    std::printf("%-58s %10s %10s %10s %10s %10s %8s %6s\n", "scatter case", "median us", "min us", "host us",
                "floor MB", "GB/s", "% copy", "check");
    GpuWarmer warmer(dev);
    std::mt19937 rng(6);
    uint32_t failures = 0;
    for (const ScatterCase& c : cases) {
        if (!opt.only.empty() && c.name.find(opt.only) == std::string::npos) continue;
        if (uint64_t(c.rows) * c.cols > opt.maxElements) continue;
        using DT = ripple::DataType;
        const uint64_t count = uint64_t(c.rows) * c.cols;
        const uint32_t updRows = c.nd ? c.updateRows : c.rows, updCols = c.nd ? c.cols : c.updateCols;
        const uint64_t updCount = uint64_t(updRows) * updCols, idxCount = c.nd ? c.updateRows : updCount;
        // Input: its element index as a float (exact below 2^24 for the check's purposes: compared as bits);
        // updates random; indices: distinct rows (ND) or distinct columns per row (Elements).
        std::vector<float> input(count), updates(updCount);
        for (uint64_t i = 0; i < count; ++i) input[i] = static_cast<float>(i % 1000003);
        for (float& u : updates) u = static_cast<float>(rng() % 1000) / 8;
        const uint32_t sets = c.variant == ScatterCase::EightDistinct ? 8 : 1; // index sets, one per run
        std::vector<int32_t> indices(idxCount * sets);
        if (sets > 1) { // ScatterND rows, disjoint between the sets
            std::vector<int32_t> perm(c.rows);
            std::iota(perm.begin(), perm.end(), 0);
            std::shuffle(perm.begin(), perm.end(), rng);
            std::copy(perm.begin(), perm.begin() + static_cast<std::ptrdiff_t>(indices.size()),
                      indices.begin());
        } else {
            const uint32_t space = c.nd && c.rowsPattern == ScatterCase::Local ? c.updateRows
                                   : c.nd                                      ? c.rows
                                                                               : c.cols;
            const uint32_t per = c.nd ? c.updateRows : c.updateCols;
            std::vector<int32_t> perm(space);
            for (uint64_t start = 0; start < idxCount && c.duplicates; ++start)
                indices[start] = static_cast<int32_t>(rng() % space);
            for (uint64_t start = 0; start < idxCount && !c.duplicates; start += per) {
                std::iota(perm.begin(), perm.end(), 0);
                std::shuffle(perm.begin(), perm.end(), rng);
                std::copy(perm.begin(), perm.begin() + per,
                          indices.begin() + static_cast<std::ptrdiff_t>(start));
            }
            if (c.rowsPattern == ScatterCase::SpreadSorted) std::sort(indices.begin(), indices.end());
        }
        ripple::Result<ripple::Operator> op = ripple::Status(ripple::StatusCode::Internal, "");
        const ripple::TensorDesc data{DT::Float32, {c.rows, c.cols}, {}};
        if (c.nd) {
            ripple::ScatterNDDesc d;
            d.InputTensor = d.OutputTensor = data;
            d.IndicesTensor = {DT::Int32, {c.updateRows, 1}, {}};
            d.UpdatesTensor = {DT::Float32, {updRows, updCols}, {}};
            d.InputDimensionCount = d.IndicesDimensionCount = 2;
            d.Reduction = c.reduction;
            d.Deterministic = c.deterministic;
            op = dev.compile(d);
        } else {
            ripple::ScatterElementsDesc d;
            d.InputTensor = d.OutputTensor = data;
            d.IndicesTensor = {DT::Int32, {updRows, updCols}, {}};
            d.UpdatesTensor = {DT::Float32, {updRows, updCols}, {}};
            d.Axis = 1;
            d.Reduction = c.reduction;
            d.Deterministic = c.deterministic;
            op = dev.compile(d);
        }
        if (!op) {
            std::printf("%-58s skipped: %s\n", c.name.c_str(), op.status().message().c_str());
            continue;
        }
        auto in = dev.createBuffer(count * 4), idx = dev.createBuffer(idxCount * sets * 4),
             upd = dev.createBuffer(updCount * 4);
        auto out = dev.createBuffer(c.inPlace ? 4 : count * 4);
        if (!in || !idx || !upd || !out) return fail(ripple::Status(ripple::StatusCode::OutOfMemory, c.name));
        if (ripple::Status s = dev.upload(in.value(), 0, input.data(), count * 4); !s) return fail(s);
        if (ripple::Status s = dev.upload(idx.value(), 0, indices.data(), idxCount * sets * 4); !s)
            return fail(s);
        if (ripple::Status s = dev.upload(upd.value(), 0, updates.data(), updCount * 4); !s) return fail(s);
        ripple::Buffer& target = c.inPlace ? in.value() : out.value();
        // The experiment's copy: a ScatterElements without updates is its input's copy.
        const uint32_t copyRows = c.variant == ScatterCase::AfterCopy ? 131072 : 1;
        ripple::ScatterElementsDesc copyDesc;
        copyDesc.InputTensor = copyDesc.OutputTensor = {DT::Float32, {copyRows, 256}, {}};
        copyDesc.IndicesTensor = {DT::Int32, {copyRows, 0}, {}};
        copyDesc.UpdatesTensor = {DT::Float32, {copyRows, 0}, {}};
        auto copyOp = dev.compile(copyDesc);
        if (!copyOp) return fail(copyOp.status());
        auto copyIn = dev.createBuffer(uint64_t(copyRows) * 1024);
        auto copyOut = dev.createBuffer(uint64_t(copyRows) * 1024);
        if (!copyIn || !copyOut) return fail(ripple::Status(ripple::StatusCode::OutOfMemory, c.name));
        const uint32_t perSubmission = c.variant == ScatterCase::EightPerSubmission ? 8 : sets;
        const uint32_t runs = std::max<uint32_t>(opt.repeat, 1);
        warmer.warm();
        BatchTimes times;
        std::vector<double> gpuAlone; // HostLone: the GPU timestamp spans of the same runs
        if (c.variant == ScatterCase::HostLone) {
            if (ripple::Status s = hostLone(
                    dev, std::max<uint32_t>(opt.repeat, 1) * 2,
                    [&](ripple::CommandRecorder& r) {
                        return r.record(
                            op.value(),
                            {{&in.value(), 0}, {&idx.value(), 0}, {&upd.value(), 0}, {&target, 0}});
                    },
                    times.us, gpuAlone, times.hostUs);
                !s)
                return fail(s);
        } else {
            // One operator per run: the host figure is Device::execute's.
            const bool single = perSubmission == 1 && c.variant != ScatterCase::AfterCopy;
            auto executeOnce = [&](uint32_t) {
                return dev.execute(op.value(),
                                   {{&in.value(), 0}, {&idx.value(), 0}, {&upd.value(), 0}, {&target, 0}});
            };
            auto us = timeBatch(
                dev, runs,
                [&](ripple::CommandRecorder& r, uint32_t) {
                    if (c.variant == ScatterCase::AfterCopy)
                        if (ripple::Status s = r.record(copyOp.value(), {{&copyIn.value(), 0},
                                                                         {&idx.value(), 0},
                                                                         {&upd.value(), 0},
                                                                         {&copyOut.value(), 0}});
                            !s)
                            return s;
                    for (uint32_t k = 0; k < perSubmission; ++k)
                        if (ripple::Status s = r.record(op.value(), {{&in.value(), 0},
                                                                     {&idx.value(), k % sets * idxCount * 4},
                                                                     {&upd.value(), 0},
                                                                     {&target, 0}});
                            !s)
                            return s;
                    return ripple::Status();
                },
                single ? executeOnce : std::function<ripple::Status(uint32_t)>());
            if (!us) return fail(us.status());
            times = std::move(us.value());
        }
        for (double& t : times.us) t /= perSubmission;
        // The check. In place, the timed runs (their count unknown, warm-up included) have moved each ADD
        // target many times, past float's exact range on fast GPUs: the input goes back and each index set
        // runs once more, alone. Then targets hold the update (NONE) or the input plus the update (ADD),
        // bit for bit, and untouched elements hold the input.
        if (c.inPlace) {
            if (ripple::Status s = dev.upload(in.value(), 0, input.data(), count * 4); !s) return fail(s);
            for (uint32_t k = 0; k < sets; ++k)
                if (ripple::Status s = dev.execute(op.value(), {{&in.value(), 0},
                                                                {&idx.value(), k * idxCount * 4},
                                                                {&upd.value(), 0},
                                                                {&target, 0}});
                    !s)
                    return fail(s);
        }
        std::vector<float> got(count);
        if (ripple::Status s = dev.download(target, 0, got.data(), count * 4); !s) return fail(s);
        bool ok = true;
        std::vector<uint8_t> touched(count, 0);
        std::vector<double> sums(c.duplicates ? count : 0);
        for (uint64_t u = 0; u < updCount && c.duplicates; ++u)
            sums[uint64_t(u / updCols) * c.cols + uint64_t(indices[u])] += updates[u];
        for (uint64_t e = 0; e < count && c.duplicates; ++e) {
            const double want = input[e] + sums[e];
            ok = ok && std::fabs(got[e] - want) <= 1e-5 * (std::fabs(want) + 1e3);
            touched[e] = 1;
        }
        for (uint64_t su = 0; su < updCount * sets && ok && !c.duplicates; ++su) {
            const uint64_t u = su % updCount; // the update; su / updCount: the index set
            const uint64_t row =
                c.nd ? uint64_t(indices[su / updCount * idxCount + u / updCols]) : u / updCols;
            const uint64_t col = c.nd ? u % updCols : uint64_t(indices[u]);
            const uint64_t e = row * c.cols + col;
            touched[e] = 1;
            const float want = c.reduction == ScatterReduction::None ? updates[u] : input[e] + updates[u];
            ok = std::memcmp(&got[e], &want, 4) == 0;
        }
        for (uint64_t e = 0; e < count && ok; ++e)
            if (!touched[e]) ok = std::memcmp(&got[e], &input[e], 4) == 0;
        const double med = median(times.us), best = *std::min_element(times.us.begin(), times.us.end());
        const uint64_t floorBytes = (c.inPlace ? 0 : 2 * count * 4) + 2 * updCount * 4 + idxCount * 4;
        const double gbs = floorBytes / med / 1e3;
        // Host: one submission's record-submit-wait (x8 variants: all 8 runs), as execute() costs.
        const double host = times.hostUs.empty() ? 0 : median(times.hostUs);
        std::printf("%-58s %10.1f %10.1f %10.1f %10.2f %10.1f %8.1f %6s\n", c.name.c_str(), med, best, host,
                    floorBytes / 1e6, gbs, 100 * gbs / ceiling, ok ? "ok" : "FAIL");
        std::string levels;
        for (double l : times.levels) levels += (levels.empty() ? "" : ", ") + std::to_string(l).substr(0, 7);
        std::printf("%-58s levels us: %s\n", "", levels.c_str());
        std::string line = jsonCase(c, med, best, host, times.us.size(), floorBytes, gbs, ceiling, ok);
        if (!gpuAlone.empty()) {
            std::printf("%-58s GPU timestamps of the same runs: %.1f us\n", "", median(gpuAlone));
            line = line.substr(0, line.size() - 1) +
                   ", \"gpu_timestamps_us\": " + std::to_string(median(gpuAlone)) + "}";
        }
        json.push_back(line.substr(0, line.size() - 1) + ", \"per_submission\": " +
                       std::to_string(perSubmission) + ", \"levels_us\": [" + levels + "]}");
        failures += !ok;
    }
    return failures ? 3 : 0;
}
