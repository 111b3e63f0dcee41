// SPDX-License-Identifier: MIT
// ripple-profile: where kernel time goes, workgroup by workgroup (RecorderOptions::profile;
// docs/PROFILING.md).
//
//   ripple-profile [--out DIR] [--case NAME-PART] [--device I]
//
// Cases: the TopK shapes of issue 21's table (FLOAT32 unless named; inputs from a normal distribution) and
// the scatters (ScatterND in place: NONE, ADD, deterministic, ADD deterministic; ScatterElements). Runs each
// case for a second to warm up, then 20 times with timestamps only (the per-level GPU times, medians: what
// the case costs unprofiled), then once with the PROFILE permutation and timestamps, and writes per case
// DIR/<case>.svg (multiprocessors by time, one bar per workgroup, a colour per dispatch, phase marks as
// ticks) and a table of every dispatch in DIR/profile.md (also printed): workgroups, multiprocessors used,
// the gap from its level's start timestamp to its first workgroup, the span from its first workgroup's start
// to its last one's end, workgroup duration mean and max, per-phase mean and max, idle multiprocessor time
// within the span, the tail (the last 10% of workgroups to finish) and the clock the multiprocessors ran at
// (SM cycles over the workgroups' nanoseconds). Needs a build with RIPPLE_PROFILE_KERNELS=ON and a device
// with AdapterFeatures::profiling (NVIDIA); exit status 2 otherwise.
#include "half_bits.hpp"
#include "ripple/ripple.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

struct Case {
    std::string name, file;
    std::function<ripple::Status(ripple::CommandRecorder&)> record;
};

double us(uint64_t ns) {
    return static_cast<double>(ns) / 1000.0;
}

// One dispatch's table row; `origin` is the submission's first workgroup start.
std::string row(const ripple::DispatchProfile& d) {
    std::vector<const ripple::WorkgroupProfile*> w;
    for (const auto& g : d.workgroups)
        if (g.startNanoseconds) w.push_back(&g);
    if (w.empty()) return "| " + d.kernel + " | " + std::to_string(d.workgroups.size()) + " | no records |";
    uint64_t first = UINT64_MAX, last = 0;
    double sum = 0, longest = 0, cycles = 0;
    std::set<uint32_t> sms;
    std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> bySm;
    std::vector<uint64_t> ends;
    double phaseSum[5] = {}, phaseMax[5] = {};
    uint32_t phaseCount[5] = {};
    for (const auto* g : w) {
        first = std::min(first, g->startNanoseconds), last = std::max(last, g->endNanoseconds);
        const double dur = us(g->endNanoseconds - g->startNanoseconds);
        sum += dur, longest = std::max(longest, dur);
        cycles += double(g->smCycles);
        sms.insert(g->sm);
        bySm[g->sm].push_back({g->startNanoseconds, g->endNanoseconds});
        ends.push_back(g->endNanoseconds);
        uint64_t from = g->startNanoseconds;
        uint32_t phase = 0;
        for (uint64_t m : g->markNanoseconds) {
            if (!m) continue;
            phaseSum[phase] += us(m - from), phaseMax[phase] = std::max(phaseMax[phase], us(m - from));
            ++phaseCount[phase++];
            from = m;
        }
        if (phase) { // the last phase: from the last mark to the end
            phaseSum[phase] += us(g->endNanoseconds - from);
            phaseMax[phase] = std::max(phaseMax[phase], us(g->endNanoseconds - from));
            ++phaseCount[phase];
        }
    }
    // Busy time per multiprocessor: the union of its workgroups' intervals.
    double busy = 0;
    for (auto& [sm, v] : bySm) {
        std::sort(v.begin(), v.end());
        uint64_t s = v[0].first, e = v[0].second;
        for (auto& [a, b] : v) {
            if (a > e) busy += us(e - s), s = a;
            e = std::max(e, b);
        }
        busy += us(e - s);
    }
    std::sort(ends.begin(), ends.end());
    const uint64_t p90 = ends[ends.size() * 9 / 10 < ends.size() ? ends.size() * 9 / 10 : ends.size() - 1];
    const double span = us(last - first);
    char gap[32] = "n/a";
    // The level's timestamp and the shader clock are both nanoseconds on NVIDIA; shown only if they agree.
    if (d.levelBeginNanoseconds && first >= d.levelBeginNanoseconds &&
        first - d.levelBeginNanoseconds < 10000000)
        std::snprintf(gap, sizeof gap, "%.1f", us(first - d.levelBeginNanoseconds));
    std::string phases;
    for (uint32_t p = 0; p < 5 && phaseCount[p]; ++p) {
        char b[64];
        std::snprintf(b, sizeof b, "%s%u: %.1f / %.1f", phases.empty() ? "" : "; ", p,
                      phaseSum[p] / phaseCount[p], phaseMax[p]);
        phases += b;
    }
    // The last workgroup to end, phase by phase: where a kernel whose last workgroup does more (a merge
    // after the others arrive) spends its tail; the means above mix its marks with the others'.
    const auto* lastOne = *std::max_element(w.begin(), w.end(), [](const auto* a, const auto* b) {
        return a->endNanoseconds < b->endNanoseconds;
    });
    std::string lastPhases;
    uint64_t from = lastOne->startNanoseconds;
    for (uint64_t m : lastOne->markNanoseconds) {
        if (!m) continue;
        char b[32];
        std::snprintf(b, sizeof b, " %.1f", us(m - from));
        lastPhases += b;
        from = m;
    }
    if (!lastPhases.empty()) {
        char b[32];
        std::snprintf(b, sizeof b, " %.1f", us(lastOne->endNanoseconds - from));
        phases += "; last:" + lastPhases + b;
    }
    char line[768];
    // The multiprocessors' clock over the workgroups' time: cycles per nanosecond.
    const double ghz = sum > 0 ? cycles / (sum * 1000.0) : 0;
    std::snprintf(line, sizeof line,
                  "| %s | %zu | %zu | %s | %.1f | %.1f / %.1f | %s | %.0f%% | %.1f | %.2f |",
                  d.kernel.c_str(), d.workgroups.size(), sms.size(), gap, span, sum / w.size(), longest,
                  phases.empty() ? "-" : phases.c_str(), 100.0 * (1.0 - busy / (span * sms.size())),
                  us(last - p90), ghz);
    return line;
}

void svg(const std::string& path, const std::string& title, const std::vector<ripple::DispatchProfile>& ds) {
    uint64_t origin = UINT64_MAX, last = 0;
    uint32_t maxSm = 0;
    for (const auto& d : ds)
        for (const auto& g : d.workgroups)
            if (g.startNanoseconds)
                origin = std::min(origin, g.startNanoseconds), last = std::max(last, g.endNanoseconds),
                maxSm = std::max(maxSm, g.sm);
    if (origin == UINT64_MAX) return;
    const double width = 1100, left = 60, rowH = 5, top = 40;
    const double span = std::max(1.0, us(last - origin)), scale = width / span;
    const double height = top + (maxSm + 1) * rowH + 60;
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) return;
    std::fprintf(
        f,
        "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' font-family='sans-serif' "
        "font-size='11'>\n<rect width='100%%' height='100%%' fill='white'/>\n"
        "<text x='%.0f' y='16' font-size='13'>%s: multiprocessor (rows) by time, one bar per "
        "workgroup, a colour per dispatch</text>\n",
        left + width + 20, height, left, title.c_str());
    const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"};
    for (size_t i = 0; i < ds.size(); ++i) {
        const char* c = colours[i % 7];
        for (const auto& g : ds[i].workgroups) {
            if (!g.startNanoseconds) continue;
            const double x = left + us(g.startNanoseconds - origin) * scale;
            const double w = std::max(0.5, us(g.endNanoseconds - g.startNanoseconds) * scale);
            std::fprintf(
                f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='%s' fill-opacity='0.45'/>\n", x,
                top + g.sm * rowH, w, rowH - 0.5, c);
            for (uint64_t m : g.markNanoseconds)
                if (m)
                    std::fprintf(f, "<rect x='%.1f' y='%.1f' width='0.8' height='%.1f' fill='black'/>\n",
                                 left + us(m - origin) * scale, top + g.sm * rowH, rowH - 0.5);
        }
        std::fprintf(
            f,
            "<rect x='%.0f' y='%.0f' width='10' height='10' fill='%s'/><text x='%.0f' y='%.0f'>%s (%zu "
            "workgroups)</text>\n",
            left + 260.0 * (i % 4), height - 30 + 14.0 * (i / 4) - 9, c, left + 260.0 * (i % 4) + 14,
            height - 30 + 14.0 * (i / 4), ds[i].kernel.c_str(), ds[i].workgroups.size());
    }
    for (int t = 0; t <= 10; ++t) {
        const double x = left + width * t / 10;
        std::fprintf(f,
                     "<line x1='%.1f' y1='%.0f' x2='%.1f' y2='%.1f' stroke='#999' stroke-width='0.5'/>"
                     "<text x='%.1f' y='%.1f' text-anchor='middle'>%.1f us</text>\n",
                     x, top - 4, x, top + (maxSm + 1) * rowH, x, top + (maxSm + 1) * rowH + 12,
                     span * t / 10);
    }
    std::fprintf(f, "<text x='4' y='%.0f'>SM 0</text><text x='4' y='%.0f'>SM %u</text>\n</svg>\n", top + 5,
                 top + (maxSm + 1) * rowH, maxSm);
    std::fclose(f);
}

} // namespace

int main(int argc, char** argv) {
    std::string out = ".", only;
    ripple::DeviceOptions options;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--out")
            out = argv[i + 1];
        else if (a == "--case")
            only = argv[i + 1];
        else if (a == "--device")
            options.adapterIndex = std::atoi(argv[i + 1]);
        else
            return std::fprintf(stderr,
                                "usage: ripple-profile [--out DIR] [--case NAME-PART] [--device I]\n"),
                   2;
    }
    auto device = ripple::Device::create(options);
    if (!device) return std::fprintf(stderr, "ripple-profile: %s\n", device.status().message().c_str()), 1;
    ripple::Device& dev = device.value();
    if (!dev.adapter().features.profiling)
        return std::fprintf(
                   stderr,
                   "ripple-profile: %s lacks shaderDeviceClock, shaderSubgroupClock and shaderSMBuiltins\n",
                   dev.adapter().name.c_str()),
               2;
    using DT = ripple::DataType;
    std::mt19937 rng(19);
    auto buffer = [&](uint64_t bytes, bool random) {
        auto b = dev.createBuffer(bytes);
        if (b && random) {
            std::vector<float> host(bytes / 4);
            std::normal_distribution<float> n;
            for (float& x : host) x = n(rng);
            (void)dev.upload(b.value(), 0, host.data(), bytes);
        }
        return std::move(b.value());
    };
    std::vector<Case> cases;
    // TopK: issue 21's shapes. Inputs from N(0,1), as FLOAT32, or rounded to FLOAT16 / BFLOAT16.
    struct TopKCase {
        const char* file;
        DT type;
        std::vector<uint32_t> sizes;
        uint32_t axis, k;
    };
    const TopKCase topkCases[] = {
        {"topk_1x1x3x4_k2", DT::Float32, {1, 1, 3, 4}, 3, 2},
        {"topk_64x128256_k50", DT::Float32, {64, 128256}, 1, 50},
        {"topk_64x128256_f16_k50", DT::Float16, {64, 128256}, 1, 50},
        {"topk_64x128256_bf16_k50", DT::BFloat16, {64, 128256}, 1, 50},
        {"topk_1x152064_k40", DT::Float32, {1, 152064}, 1, 40},
        {"topk_1x152064_bf16_k40", DT::BFloat16, {1, 152064}, 1, 40},
        {"topk_256x50257_k8", DT::Float32, {256, 50257}, 1, 8},
        {"topk_256x50257_bf16_k8", DT::BFloat16, {256, 50257}, 1, 8},
        {"topk_16x1048576_k100", DT::Float32, {16, 1048576}, 1, 100},
        {"topk_1x16777216_k1024", DT::Float32, {1, 16777216}, 1, 1024},
        {"topk_1x16777216_k65536", DT::Float32, {1, 16777216}, 1, 65536},
        {"topk_4096x4096_k256", DT::Float32, {4096, 4096}, 1, 256},
        {"topk_128x4096x64_ax1_k16", DT::Float32, {128, 4096, 64}, 1, 16},
        {"topk_1048576x32_k4", DT::Float32, {1048576, 32}, 1, 4},
        {"topk_1x100000000_k100", DT::Float32, {1, 100000000}, 1, 100},
    };
    std::vector<ripple::Operator> topkOps;
    std::vector<ripple::Buffer> topkBuffers; // input, values, indices per case
    topkOps.reserve(std::size(topkCases));
    topkBuffers.reserve(3 * std::size(topkCases));
    for (const TopKCase& tc : topkCases) {
        ripple::TopKDesc t;
        t.InputTensor = {tc.type, tc.sizes, {}};
        std::vector<uint32_t> outSizes = tc.sizes;
        outSizes[tc.axis] = tc.k;
        t.OutputValueTensor = {tc.type, outSizes, {}};
        t.OutputIndexTensor = {DT::UInt32, outSizes, {}};
        t.Axis = tc.axis;
        t.K = tc.k;
        auto op = dev.compile(t);
        if (!op) return std::fprintf(stderr, "ripple-profile: %s\n", op.status().message().c_str()), 1;
        uint64_t count = 1, outCount = 1;
        for (uint32_t d = 0; d < tc.sizes.size(); ++d) count *= tc.sizes[d], outCount *= outSizes[d];
        const uint64_t width = tc.type == DT::Float32 ? 4 : 2;
        auto in = dev.createBuffer(count * width), values = dev.createBuffer(outCount * width),
             indices = dev.createBuffer(outCount * 4);
        if (!in || !values || !indices) return std::fprintf(stderr, "ripple-profile: out of memory\n"), 1;
        std::vector<uint8_t> host(count * width);
        std::normal_distribution<float> normal;
        for (uint64_t i = 0; i < count; ++i) {
            const float f = normal(rng);
            if (width == 4)
                std::memcpy(&host[i * 4], &f, 4);
            else {
                const uint16_t h = tc.type == DT::Float16 ? toHalf(f) : toBFloat16(f);
                std::memcpy(&host[i * 2], &h, 2);
            }
        }
        if (ripple::Status st = dev.upload(in.value(), 0, host.data(), host.size()); !st)
            return std::fprintf(stderr, "ripple-profile: %s\n", st.message().c_str()), 1;
        topkOps.push_back(std::move(op.value()));
        topkBuffers.push_back(std::move(in.value()));
        topkBuffers.push_back(std::move(values.value()));
        topkBuffers.push_back(std::move(indices.value()));
        const ripple::Operator* opp = &topkOps.back();
        const ripple::Buffer* b = &topkBuffers[topkBuffers.size() - 3];
        std::string name = "topk (";
        for (uint32_t d = 0; d < tc.sizes.size(); ++d) name += (d ? "," : "") + std::to_string(tc.sizes[d]);
        name += std::string(") ") +
                (tc.type == DT::Float32   ? "f32"
                 : tc.type == DT::Float16 ? "f16"
                                          : "bf16") +
                (tc.sizes.size() == 3 ? " axis 1" : "") + " k" + std::to_string(tc.k);
        cases.push_back({name, tc.file, [opp, b](ripple::CommandRecorder& r) {
                             return r.record(*opp, {{&b[0], 0}, {&b[1], 0}, {&b[2], 0}});
                         }});
    }
    // ScatterND in place: 65536 random rows of 256 FLOAT32 into [1048576,256].
    ripple::ScatterNDDesc s;
    s.InputTensor = s.OutputTensor = {DT::Float32, {1048576, 256}, {}};
    s.IndicesTensor = {DT::Int32, {65536, 1}, {}};
    s.UpdatesTensor = {DT::Float32, {65536, 256}, {}};
    s.InputDimensionCount = s.IndicesDimensionCount = 2;
    auto nd = dev.compile(s);
    ripple::Buffer table = buffer(1048576ull * 256 * 4, false), rows = buffer(65536 * 4, false),
                   updates = buffer(65536ull * 256 * 4, true);
    {
        std::vector<int32_t> perm(1048576);
        for (uint32_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int32_t>(i);
        std::shuffle(perm.begin(), perm.end(), rng);
        (void)dev.upload(rows, 0, perm.data(), 65536 * 4);
    }
    cases.push_back({"scatter_nd in place (1048576,256) f32, 65536 rows", "scatter_nd_inplace_65536_rows",
                     [&](ripple::CommandRecorder& r) {
                         return r.record(nd.value(), {{&table, 0}, {&rows, 0}, {&updates, 0}, {&table, 0}});
                     }});
    // The same in place with ADD, deterministic, and both (issue 59: the scatter reductions' time).
    ripple::ScatterNDDesc sAdd = s, sDet = s, sAddDet = s;
    sAdd.Reduction = sAddDet.Reduction = ripple::ScatterReduction::Add;
    sDet.Deterministic = sAddDet.Deterministic = true;
    auto ndAdd = dev.compile(sAdd), ndDet = dev.compile(sDet), ndAddDet = dev.compile(sAddDet);
    if (!ndAdd || !ndDet || !ndAddDet) return std::fprintf(stderr, "ripple-profile: compile failed\n"), 1;
    const struct {
        const char *name, *file;
        const ripple::Operator* op;
    } ndModes[] = {
        {"scatter_nd in place (1048576,256) f32, 65536 rows, add", "scatter_nd_inplace_add", &ndAdd.value()},
        {"scatter_nd in place, deterministic", "scatter_nd_inplace_det", &ndDet.value()},
        {"scatter_nd in place, add, deterministic", "scatter_nd_inplace_add_det", &ndAddDet.value()},
    };
    for (const auto& m : ndModes)
        cases.push_back({m.name, m.file, [&, op = m.op](ripple::CommandRecorder& r) {
                             return r.record(*op, {{&table, 0}, {&rows, 0}, {&updates, 0}, {&table, 0}});
                         }});
    // ScatterElements [4096,4096] axis 1, indices [4096,256] (distinct columns per row), out of place.
    ripple::ScatterElementsDesc e;
    e.InputTensor = e.OutputTensor = {DT::Float32, {4096, 4096}, {}};
    e.IndicesTensor = e.UpdatesTensor = {DT::Int32, {4096, 256}, {}};
    e.UpdatesTensor.DataType = DT::Float32;
    e.Axis = 1;
    auto el = dev.compile(e);
    ripple::Buffer eIn = buffer(4096ull * 4096 * 4, true), eOut = buffer(4096ull * 4096 * 4, false),
                   eIdx = buffer(4096ull * 256 * 4, false), eUpd = buffer(4096ull * 256 * 4, true);
    {
        std::vector<int32_t> idx(4096ull * 256), perm(4096);
        for (uint32_t r = 0; r < 4096; ++r) {
            for (uint32_t i = 0; i < 4096; ++i) perm[i] = static_cast<int32_t>(i);
            std::shuffle(perm.begin(), perm.end(), rng);
            std::copy(perm.begin(), perm.begin() + 256, idx.begin() + r * 256);
        }
        (void)dev.upload(eIdx, 0, idx.data(), idx.size() * 4);
    }
    cases.push_back({"scatter_elements (4096,4096) f32 ax1, idx (4096,256)", "scatter_elements_4096_ax1",
                     [&](ripple::CommandRecorder& r) {
                         return r.record(el.value(), {{&eIn, 0}, {&eIdx, 0}, {&eUpd, 0}, {&eOut, 0}});
                     }});
    if (!nd || !el) return std::fprintf(stderr, "ripple-profile: compile failed\n"), 1;

    std::string md =
        "device: " + dev.adapter().name +
        "\n\n| dispatch | workgroups | SMs | launch gap us | span us | workgroup mean / max us | "
        "phases mean / max us | idle SM time | tail us | SM GHz |\n| --- | --- | --- | --- | --- | --- | --- "
        "| --- | --- | --- |\n";
    for (const Case& c : cases) {
        if (!only.empty() && c.name.find(only) == std::string::npos) continue;
        ripple::RecorderOptions ro;
        ro.profile = ro.timestamps = true;
        auto profiled = [&]() -> ripple::Result<std::vector<ripple::OperatorReport>> {
            auto r = dev.createRecorder(ro);
            if (!r) return r.status();
            if (ripple::Status st = c.record(r.value()); !st) return st;
            auto tk = dev.submit(r.value());
            if (!tk) return tk.status();
            if (ripple::Status st = dev.wait(tk.value()); !st) return st;
            return dev.reports(tk.value());
        };
        // The PROFILE pipelines are made on their first run, before the warm-up: the GPU idles while the
        // driver compiles them, and a profiled run straight after measured 3-5x its time (bench/NOTES.md).
        if (auto first = profiled(); !first)
            return std::fprintf(stderr, "%s\n", first.status().message().c_str()), 1;
        // Warm-up: pipelines made and, above all, the GPU's clocks up: at least 20 runs and one second of
        // back-to-back work (after 20 runs alone, every case measured ~3x its matrix time, bench/NOTES.md).
        const auto warmStart = std::chrono::steady_clock::now();
        for (int warm = 0;
             warm < 20 || std::chrono::steady_clock::now() - warmStart < std::chrono::seconds(1); ++warm) {
            auto r = dev.createRecorder();
            if (ripple::Status st = c.record(r.value()); !st)
                return std::fprintf(stderr, "%s\n", st.message().c_str()), 1;
            auto tk = dev.submit(r.value());
            (void)dev.wait(tk.value());
        }
        // Unprofiled: 20 runs with timestamps, the median of each level (what the case costs).
        std::vector<std::vector<uint64_t>> levels;
        std::vector<uint64_t> totals;
        for (int run = 0; run < 20; ++run) {
            ripple::RecorderOptions to;
            to.timestamps = true;
            auto r = dev.createRecorder(to);
            if (ripple::Status st = c.record(r.value()); !st)
                return std::fprintf(stderr, "%s\n", st.message().c_str()), 1;
            auto tk = dev.submit(r.value());
            if (!tk || !dev.wait(tk.value())) return std::fprintf(stderr, "ripple-profile: run failed\n"), 1;
            auto rep = dev.reports(tk.value());
            if (!rep || rep.value().empty()) return std::fprintf(stderr, "ripple-profile: no report\n"), 1;
            totals.push_back(rep.value()[0].gpuNanoseconds);
            const auto& l = rep.value()[0].levelNanoseconds;
            if (levels.size() < l.size()) levels.resize(l.size());
            for (size_t i = 0; i < l.size(); ++i) levels[i].push_back(l[i]);
        }
        auto median = [](std::vector<uint64_t> v) {
            std::sort(v.begin(), v.end());
            return v.empty() ? 0.0 : us(v[v.size() / 2]);
        };
        std::string unprofiled;
        for (size_t i = 0; i < levels.size(); ++i) {
            char text[32];
            std::snprintf(text, sizeof text, "%s%.1f", i ? " + " : "", median(levels[i]));
            unprofiled += text;
        }
        auto reports = profiled(); // straight after the unprofiled runs: the clocks are still up
        if (!reports) return std::fprintf(stderr, "%s\n", reports.status().message().c_str()), 1;
        if (reports.value().empty() || reports.value()[0].dispatches.empty())
            return std::fprintf(stderr,
                                "ripple-profile: no profile (a build without RIPPLE_PROFILE_KERNELS?)\n"),
                   2;
        const ripple::OperatorReport& rep = reports.value()[0];
        char head[160];
        std::snprintf(head, sizeof head, " (profiled %.1f us; unprofiled median %.1f us, per level ",
                      us(rep.gpuNanoseconds), median(totals));
        md += "| **" + c.name + "**" + head + unprofiled + ") | | | | | | | | |\n";
        for (const auto& d : rep.dispatches) md += row(d) + "\n";
        svg(out + "/" + c.file + ".svg", c.name, rep.dispatches);
    }
    std::printf("%s", md.c_str());
    if (FILE* f = std::fopen((out + "/profile.md").c_str(), "w")) {
        std::fputs(md.c_str(), f);
        std::fclose(f);
    }
    return 0;
}
