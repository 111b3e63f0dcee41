// SPDX-License-Identifier: MIT
// libFuzzer target: the frame loop on a GPU (lavapipe; issue 57). The bytes are a program of frames over
// four buffers: fills, copies, recorded uploads, a deterministic ScatterND whose CountTensor and indices come
// from the buffers, and a user kernel dispatched directly or with GPU-written group counts (a bound of 1000
// workgroups, DeviceOptions::maxDispatchWorkgroups); each frame is submitted, or kept as a Recording that is
// rebound and submitted again, and Device::upload and download run between frames. A CPU model follows
// every buffer word; the device must match it, report what the model predicts (IndexOutOfRange, a clamped
// count, a refused dispatch) and refuse what the rules refuse. Any difference aborts.
#include "ripple/ripple.hpp"
#include "ripple_fuzz_frame_loop_kernels.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>

using namespace ripple;

namespace {

constexpr uint32_t kBuffers = 4, kWords = 128; // 512 bytes each
constexpr uint32_t kRows = 16, kInput = 64;    // the ScatterND: 64 UINT32, 16 rows of one index
constexpr uint64_t kBound = 1000;              // workgroups a dispatch may launch

class Bytes {
  public:
    Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    bool more() const { return at_ < size_; }
    uint8_t u8() { return at_ < size_ ? data_[at_++] : 0; }
    uint32_t u32() {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= uint32_t(u8()) << (8 * i);
        return v;
    }
    uint32_t below(uint32_t n) { return u8() % n; }
    // A count or group count: small mostly, sometimes at or past the limits.
    uint32_t count() {
        static const uint32_t palette[] = {0, 1, 15, 16, 17, 64, 1000, 1001, 65535, 65536, 0xFFFFFFFFu};
        const uint8_t b = u8();
        return b < 128 ? b % 20 : b < 128 + 11 ? palette[b - 128] : u32();
    }

  private:
    const uint8_t* data_;
    size_t size_, at_ = 0;
};

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "fuzz_frame_loop: %s\n", what);
    std::abort();
}
void expect(bool ok, const char* what) {
    if (!ok) fail(what);
}

struct World {
    Device device;
    Kernel mark;
    Operator scatter;
    std::array<Buffer, kBuffers> buffers;
};

World* world() {
    static World* w = [] {
        DeviceOptions options;
        options.maxDispatchWorkgroups = kBound;
        options.log = [](LogLevel, const std::string&) {};
        auto dev = Device::create(options);
        if (!dev) fail(dev.status().message().c_str());
        auto* made = new World{std::move(dev.value()), {}, {}, {}};
        auto kernel = made->device.compile(KernelDesc{&fuzz_kernels::mark});
        if (!kernel) fail(kernel.status().message().c_str());
        made->mark = std::move(kernel.value());
        ScatterNDDesc d;
        d.InputTensor = d.OutputTensor = {DataType::UInt32, {1, kInput}, {}}; // DirectML: one rank for all
        d.IndicesTensor = {DataType::Int32, {kRows, 1}, {}};
        d.UpdatesTensor = {DataType::UInt32, {1, kRows}, {}};
        d.CountTensor = {DataType::UInt32, {1}, {}};
        d.InputDimensionCount = 1;
        d.IndicesDimensionCount = 2;
        d.Deterministic = true; // duplicates: the last row wins, as the model says
        auto op = made->device.compile(d);
        if (!op) fail(op.status().message().c_str());
        made->scatter = std::move(op.value());
        for (auto& b : made->buffers) {
            auto buffer = made->device.createBuffer(kWords * 4);
            if (!buffer) fail(buffer.status().message().c_str());
            b = std::move(buffer.value());
        }
        return made;
    }();
    return w;
}

using Model = std::array<std::array<uint32_t, kWords>, kBuffers>;

// One command of a frame, by buffer index: what the device records, and what the model does with it.
struct Command {
    enum Kind : uint8_t { Fill, Copy, Upload, Scatter, Dispatch } kind = Fill;
    uint32_t a = 0, b = 0, c = 0, d = 0; // buffers (Scatter: input, indices, updates, count)
    uint32_t at = 0, to = 0, words = 0;  // word ranges
    uint32_t value = 0, out = 0;         // a fill's value; Scatter's output buffer; Dispatch's value
    uint32_t groups[3] = {1, 1, 1};      // Dispatch
    bool indirect = false;               // Dispatch: counts at buffer b, word `at`
    std::array<uint32_t, 8> data{};      // Upload
};

// What the model predicts of one command's report: 0 fine, else the StatusCode.
StatusCode apply(const Command& c, Model& m) {
    switch (c.kind) {
    case Command::Fill:
        for (uint32_t i = 0; i < c.words; ++i) m[c.a][c.at + i] = c.value;
        return StatusCode::Ok;
    case Command::Copy:
        for (uint32_t i = 0; i < c.words; ++i) m[c.b][c.to + i] = m[c.a][c.at + i];
        return StatusCode::Ok;
    case Command::Upload:
        for (uint32_t i = 0; i < c.words; ++i) m[c.a][c.at + i] = c.data[i];
        return StatusCode::Ok;
    case Command::Scatter: {
        const uint32_t count = m[c.d][0], rows = count < kRows ? count : kRows;
        std::array<uint32_t, kInput> out;
        for (uint32_t i = 0; i < kInput; ++i) out[i] = m[c.a][i];
        bool outside = false;
        for (uint32_t r = 0; r < rows; ++r) {
            const int32_t index = static_cast<int32_t>(m[c.b][r]);
            if (index < -int32_t(kInput) || index >= int32_t(kInput)) {
                outside = true;
                continue;
            }
            out[static_cast<uint32_t>(index + int32_t(kInput)) % kInput] = m[c.c][r];
        }
        for (uint32_t i = 0; i < kInput; ++i) m[c.out][i] = out[i];
        return outside         ? StatusCode::IndexOutOfRange
               : count > kRows ? StatusCode::InvalidArgument
                               : StatusCode::Ok;
    }
    case Command::Dispatch: {
        uint32_t g[3] = {c.groups[0], c.groups[1], c.groups[2]};
        if (c.indirect)
            for (int i = 0; i < 3; ++i) g[i] = m[c.b][c.at + i];
        const uint64_t total = uint64_t(g[0]) * g[1] * g[2];
        if (g[0] > 65535 || g[1] > 65535 || g[2] > 65535 || total > kBound)
            return StatusCode::InvalidArgument;
        if (total == 0) return StatusCode::Ok;
        const uint64_t reach = uint64_t(g[0]) * 64;
        for (uint32_t i = 0; i < kWords && i < reach; ++i) m[c.a][i] = c.value; // count: all 128 words
        return StatusCode::Ok;
    }
    }
    return StatusCode::Ok;
}

// Records `c`; false when the device refuses it (the model says whether it must).
bool record(World& w, CommandRecorder& r, const Command& c) {
    auto& B = w.buffers;
    switch (c.kind) {
    case Command::Fill:
        expect(r.fillBuffer(B[c.a], c.at * 4, c.words * 4, c.value).ok(), "fillBuffer refused");
        return true;
    case Command::Copy: {
        const bool overlap = c.a == c.b && c.at < c.to + c.words && c.to < c.at + c.words && c.words;
        const Status s = r.copyBuffer(B[c.a], c.at * 4, B[c.b], c.to * 4, c.words * 4);
        expect(s.ok() != overlap, "copyBuffer: refused a copy it should take, or took an overlapping one");
        return s.ok();
    }
    case Command::Upload:
        expect(r.upload(B[c.a], c.at * 4, c.data.data(), c.words * 4).ok(), "recorder upload refused");
        return true;
    case Command::Scatter: {
        // Every tensor sits at offset 0: the output may share a buffer only with the input (in place).
        const bool alias = c.out == c.b || c.out == c.c || c.out == c.d;
        const Status s = r.record(
            w.scatter, {{&B[c.a], 0}, {&B[c.b], 0}, {&B[c.c], 0}, {&B[c.out], 0}, {&B[c.d], 0}}, "scatter");
        expect(s.ok() != alias, "ScatterND: aliasing refused wrongly, or allowed");
        if (!s.ok() && s.code() != StatusCode::InvalidArgument) fail("ScatterND: refused with a wrong code");
        return s.ok();
    }
    case Command::Dispatch: {
        KernelDispatch d;
        for (int i = 0; i < 3; ++i) d.GroupCount[i] = c.groups[i];
        d.Bindings = {{&B[c.a], 0, 0}};
        d.Label = "dispatch";
        const uint32_t push[2] = {kWords, c.value};
        d.PushConstants = push;
        d.PushConstantBytes = sizeof push;
        if (c.indirect) {
            d.IndirectBuffer = &B[c.b];
            d.IndirectOffset = c.at * 4;
        }
        const Status s = r.record(w.mark, d);
        const uint64_t total = uint64_t(c.groups[0]) * c.groups[1] * c.groups[2];
        const bool refuse =
            !c.indirect && (c.groups[0] == 0 || c.groups[1] == 0 || c.groups[2] == 0 || c.groups[0] > 65535 ||
                            c.groups[1] > 65535 || c.groups[2] > 65535 || total > kBound);
        expect(s.ok() != refuse, "dispatch: refused wrongly, or recorded past the bound");
        return s.ok();
    }
    }
    return false;
}

Command decode(Bytes& in) {
    Command c;
    c.kind = static_cast<Command::Kind>(in.below(5));
    c.a = in.below(kBuffers), c.b = in.below(kBuffers), c.c = in.below(kBuffers), c.d = in.below(kBuffers);
    c.out = in.below(kBuffers);
    c.at = in.below(kWords);
    c.to = in.below(kWords);
    const uint32_t room = kWords - (c.at > c.to ? c.at : c.to);
    c.words = in.below(room + 1);
    c.value = in.u32();
    if (c.kind == Command::Upload) {
        c.words = c.words > 8 ? 8 : c.words;
        for (uint32_t i = 0; i < c.words; ++i) c.data[i] = in.u32();
    }
    if (c.kind == Command::Scatter && in.below(2)) c.out = c.a; // in place, often
    if (c.kind == Command::Dispatch) {
        c.indirect = in.below(2);
        if (c.indirect && c.at > kWords - 3) c.at = kWords - 3;
        for (auto& g : c.groups) g = in.count();
    }
    return c;
}

void check(World& w, const Model& m) {
    for (uint32_t b = 0; b < kBuffers; ++b) {
        std::array<uint32_t, kWords> got{};
        expect(w.device.download(w.buffers[b], 0, got.data(), kWords * 4).ok(), "download failed");
        if (got != m[b]) {
            std::fprintf(stderr, "buffer %u differs from the model\n", b);
            fail("results");
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
    World& w = *world();
    static const bool trace =
        std::getenv("RIPPLE_FUZZ_TRACE") != nullptr; // each command, for a crash's input
    Bytes in(bytes, size);
    Model m{};
    for (uint32_t b = 0; b < kBuffers; ++b) { // a known start: each buffer's words from the input
        for (uint32_t i = 0; i < kWords; ++i) m[b][i] = b * 0x01000000u + i;
        expect(w.device.upload(w.buffers[b], 0, m[b].data(), kWords * 4).ok(), "upload failed");
    }
    for (int frame = 0; frame < 8 && in.more(); ++frame) {
        auto rec = w.device.createRecorder();
        expect(rec.ok(), "createRecorder");
        std::vector<Command> commands;
        bool uploads = false;
        for (uint32_t n = 1 + in.below(6); n > 0; --n) {
            const Command c = decode(in);
            if (trace)
                std::fprintf(stderr, "frame %d: kind %d a %u b %u c %u d %u out %u at %u to %u words %u\n",
                             frame, int(c.kind), c.a, c.b, c.c, c.d, c.out, c.at, c.to, c.words);
            if (record(w, rec.value(), c)) {
                commands.push_back(c);
                uploads = uploads || (c.kind == Command::Upload && c.words); // an empty one records nothing
            }
        }
        auto run = [&](const std::vector<Command>& cs, Ticket t) {
            std::vector<StatusCode> want;
            for (const Command& c : cs) want.push_back(apply(c, m));
            (void)w.device.wait(t);
            auto reports = w.device.reports(t);
            expect(reports.ok(), "reports");
            std::vector<StatusCode> got; // the operators' and dispatches' reports, in recording order
            for (const OperatorReport& r : reports.value())
                if (r.label == "scatter" || r.label == "dispatch") got.push_back(r.status.code());
            std::vector<StatusCode> expected;
            for (size_t k = 0; k < cs.size(); ++k)
                if (cs[k].kind == Command::Scatter || cs[k].kind == Command::Dispatch)
                    expected.push_back(want[k]);
            expect(got == expected, "the reports differ from the model");
        };
        if (in.below(2) == 0) { // submitted once
            auto t = w.device.submit(rec.value());
            expect(t.ok(), "submit");
            run(commands, t.value());
        } else { // kept, then rebound and submitted again
            auto kept = w.device.finishRecording(rec.value());
            expect(kept.ok() != uploads, "finishRecording: uploads must be refused, the rest kept");
            if (!kept.ok()) continue;
            for (int again = 1 + in.below(3); again > 0; --again) {
                auto t = w.device.submit(kept.value());
                expect(t.ok(), "submit(Recording)");
                run(commands, t.value());
                const uint32_t from = in.below(kBuffers), to = in.below(kBuffers);
                bool bound = false, bindsTo = false;
                for (const Command& c : commands) {
                    if (c.kind <= Command::Upload && c.words == 0) continue; // empty: records nothing
                    const uint32_t used[] = {c.a, c.b, c.c, c.d, c.out};
                    const size_t n = c.kind == Command::Scatter                               ? 5
                                     : c.kind == Command::Copy || c.kind == Command::Dispatch ? 2
                                                                                              : 1;
                    for (size_t u = 0; u < n; ++u) {
                        if (c.kind == Command::Dispatch && u == 1 && !c.indirect) continue;
                        bound = bound || used[u] == from;
                        bindsTo = bindsTo || used[u] == to;
                    }
                }
                const Status s = kept->rebind(w.buffers[from], w.buffers[to]);
                if (trace)
                    std::fprintf(stderr, "rebind %u -> %u: bound %d, to bound %d: %s\n", from, to, bound,
                                 bindsTo, s.message().c_str());
                // `to` may not be bound already, unless it is `from` (then nothing changes).
                expect(s.ok() == (bound && (!bindsTo || from == to)),
                       "rebind: refused wrongly, or took a buffer it binds");
                if (!s.ok()) continue;
                for (Command& c : commands) { // the model's recording follows the rebind
                    for (uint32_t* id : {&c.a, &c.b, &c.c, &c.d, &c.out})
                        if (*id == from) *id = to;
                }
            }
        }
        if (in.below(4) == 0) check(w, m);
    }
    check(w, m);
    return 0;
}
