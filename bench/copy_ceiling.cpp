// SPDX-License-Identifier: MIT
// The copy ceiling: the bandwidth of ripple's own 16-byte-per-access copy kernel (ScatterND's input copy,
// glsl/copy.comp's b128 form) on 1 GiB, in the same run as the cases it is the ceiling for. vkCmdCopyBuffer
// is not used: on the H100 it reaches only about a third of what a compute copy does.
#include "bench_common.hpp"

Result<double> copyCeilingGBs(ripple::Device& dev, const BenchOptions& opt) {
    const uint64_t bytes = std::min<uint64_t>(std::min<uint64_t>(1ull << 30, opt.maxElements * 4),
                                              dev.adapter().features.maxStorageBufferRange & ~uint64_t(255));
    const uint32_t n = static_cast<uint32_t>(bytes / 4);
    // One update at row 0: the operator is the copy plus one tiny dispatch (about 2 us of 350).
    ripple::ScatterNDDesc d;
    d.InputTensor = {ripple::DataType::Float32, {n, 1}, {}};
    d.IndicesTensor = {ripple::DataType::Int32, {1, 1}, {}};
    d.UpdatesTensor = {ripple::DataType::Float32, {1, 1}, {}};
    d.OutputTensor = {ripple::DataType::Float32, {n, 1}, {}};
    d.InputDimensionCount = 2;
    d.IndicesDimensionCount = 2;
    auto op = dev.compile(d);
    if (!op) return op.status();
    auto in = dev.createBuffer(bytes), out = dev.createBuffer(bytes), idx = dev.createBuffer(16),
         upd = dev.createBuffer(16);
    if (!in || !out || !idx || !upd)
        return ripple::Status(ripple::StatusCode::OutOfMemory,
                              "copy ceiling: buffers of " + std::to_string(bytes) + " bytes");
    const uint32_t zero[4] = {};
    if (ripple::Status s = dev.upload(idx.value(), 0, zero, 16); !s) return s;
    auto times = timeBatch(dev, opt.repeat, [&](ripple::CommandRecorder& r, uint32_t) {
        return r.record(op.value(),
                        {{&in.value(), 0}, {&idx.value(), 0}, {&upd.value(), 0}, {&out.value(), 0}});
    });
    if (!times) return times.status();
    return 2.0 * bytes / median(times->us) / 1e3;
}

GpuWarmer::GpuWarmer(ripple::Device& dev) : dev_(dev) {
    const uint32_t n = 64u << 20; // 256 MiB of FLOAT32: about 0.2 ms a copy on the H100
    ripple::ScatterNDDesc d;
    d.InputTensor = d.OutputTensor = {ripple::DataType::Float32, {n, 1}, {}};
    d.IndicesTensor = {ripple::DataType::Int32, {1, 1}, {}};
    d.UpdatesTensor = {ripple::DataType::Float32, {1, 1}, {}};
    d.InputDimensionCount = d.IndicesDimensionCount = 2;
    auto op = dev.compile(d);
    auto in = dev.createBuffer(4ull * n), out = dev.createBuffer(4ull * n), small = dev.createBuffer(16);
    if (!op || !in || !out || !small) return; // warm() then does nothing: numbers may be low-clocked
    const uint32_t zero[4] = {};
    if (!dev.upload(small.value(), 0, zero, 16)) return;
    op_ = std::move(op.value());
    in_ = std::move(in.value());
    out_ = std::move(out.value());
    small_ = std::move(small.value());
}

void GpuWarmer::warm(double milliseconds) {
    if (!op_.valid()) return;
    using clock = std::chrono::steady_clock;
    auto msSince = [](clock::time_point t) {
        return std::chrono::duration<double, std::milli>(clock::now() - t).count();
    };
    // After an idle spell of a second or more (a case's inputs made on the host), the H200's SM clock comes
    // back from 345-570 MHz only after 200-300 ms of load, and every kernel runs 3-4.5x slower until then
    // (bench/NOTES.md, issue 58's fifth session): a fixed 200 ms left some cases measured at the low clock.
    // So the first warm-up of a process lasts a second, and every one goes on past `milliseconds` until a
    // batch of copies runs within 5% of the fastest batch this warmer has seen (at most 3 s).
    const double least = best_ms_ > 0 ? milliseconds : std::max(milliseconds, 1000.0);
    const auto start = clock::now();
    for (;;) {
        const auto batch = clock::now();
        auto rec = dev_.createRecorder();
        if (!rec) return;
        for (int i = 0; i < 16; ++i)
            if (!rec->record(op_, {{&in_, 0}, {&small_, 0}, {&small_, 0}, {&out_, 0}})) return;
        auto t = dev_.submit(rec.value());
        if (!t || !dev_.wait(t.value())) return;
        const double took = msSince(batch);
        if (best_ms_ == 0 || took < best_ms_) best_ms_ = took;
        const double elapsed = msSince(start);
        if ((elapsed >= least && took <= 1.05 * best_ms_) || elapsed >= 3000) return;
    }
}
