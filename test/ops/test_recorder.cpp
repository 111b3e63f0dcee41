// SPDX-License-Identifier: MIT
// The recorder: several operators per submission with barriers only where they depend on each other,
// tickets, timeouts, per-operator reports, keeping released objects alive, and recording on several threads.
#include "support/gpu.hpp"
#include "support/reference.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <thread>

using namespace ripple;

namespace {

Buffer upload(Device& dev, const std::vector<uint8_t>& bytes) {
    auto b = dev.createBuffer(std::max<size_t>(bytes.size(), 4));
    REQUIRE(b.ok());
    REQUIRE(dev.upload(b.value(), 0, bytes.data(), bytes.size()).ok());
    return std::move(b.value());
}

Buffer poisoned(Device& dev, const TensorDesc& d) {
    return upload(dev, std::vector<uint8_t>(calcBufferTensorSize(d), 0xA5));
}

std::vector<uint8_t> download(Device& dev, const Buffer& b, const TensorDesc& d) {
    std::vector<uint8_t> out(calcBufferTensorSize(d));
    REQUIRE(dev.download(b, 0, out.data(), out.size()).ok());
    out.resize(d.elementCount() * elementSize(d.DataType));
    return out;
}

std::vector<uint8_t> trimmed(std::vector<uint8_t> v, const TensorDesc& d) {
    v.resize(d.elementCount() * elementSize(d.DataType));
    return v;
}

TopKDesc topk(DataType type, uint32_t rows, uint32_t n, uint32_t k) {
    TopKDesc d;
    d.InputTensor = {type, {rows, n}, {}};
    d.OutputValueTensor = {type, {rows, k}, {}};
    d.OutputIndexTensor = {DataType::UInt32, {rows, k}, {}};
    d.Axis = 1;
    d.K = k;
    return d;
}

ScatterElementsDesc scatterRows(DataType type, uint32_t rows, uint32_t n, uint32_t k) {
    ScatterElementsDesc d;
    d.InputTensor = d.OutputTensor = {type, {rows, n}, {}};
    d.IndicesTensor = {DataType::UInt32, {rows, k}, {}};
    d.UpdatesTensor = {type, {rows, k}, {}};
    d.Axis = 1;
    return d;
}

template <class Desc> Operator compiled(Device& dev, const Desc& desc) {
    auto op = dev.compile(desc);
    INFO(op.status().message());
    REQUIRE(op.ok());
    return std::move(op.value());
}

uint32_t barriersAlone(Device& dev, const Operator& op, const std::vector<TensorBinding>& b) {
    auto r = dev.createRecorder();
    REQUIRE(r.ok());
    REQUIRE(r->record(op, b).ok());
    uint32_t n = r->statistics().barriers;
    auto t = dev.submit(r.value());
    REQUIRE(t.ok());
    REQUIRE(dev.wait(t.value()).ok());
    return n;
}

} // namespace

TEST_CASE("Dependent operators in one submission: TopK, ScatterElements into the TopK rows, TopK",
          "[recorder][gpu]") {
    Device& dev = rt::device();
    std::mt19937 rng(8);
    const uint32_t rows = 5, n = 1500, k = 40;
    rt::HostTensor x(DataType::Float32, {rows, n}), y(DataType::Float32, {rows, n}),
        u(DataType::Float32, {rows, k});
    rt::fill(x, rng, rt::Fill::Ties);
    rt::fill(y, rng, rt::Fill::Random);
    rt::fill(u, rng, rt::Fill::Random);
    TopKDesc first = topk(DataType::Float32, rows, n, k), second = topk(DataType::Float32, rows, n, 7);
    ScatterElementsDesc scatter = scatterRows(DataType::Float32, rows, n, k);
    Operator op1 = compiled(dev, first), op2 = compiled(dev, scatter), op3 = compiled(dev, second);

    Buffer bx = upload(dev, x.bytes), by = upload(dev, y.bytes), bu = upload(dev, u.bytes);
    Buffer v1 = poisoned(dev, first.OutputValueTensor), i1 = poisoned(dev, first.OutputIndexTensor);
    Buffer z = poisoned(dev, scatter.OutputTensor);
    Buffer v3 = poisoned(dev, second.OutputValueTensor), i3 = poisoned(dev, second.OutputIndexTensor);
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    REQUIRE(rec->record(op1, {{&bx, 0}, {&v1, 0}, {&i1, 0}}, "select").ok());
    REQUIRE(rec->record(op2, {{&by, 0}, {&i1, 0}, {&bu, 0}, {&z, 0}}, "scatter into the selected").ok());
    REQUIRE(rec->record(op3, {{&z, 0}, {&v3, 0}, {&i3, 0}}, "select again").ok());
    CHECK(rec->statistics().operators == 3);
    const uint32_t barriers = rec->statistics().barriers;
    auto ticket = dev.submit(rec.value());
    REQUIRE(ticket.ok());
    Status s = dev.wait(ticket.value());
    INFO(s.message());
    REQUIRE(s.ok());

    // The same chain on the CPU.
    std::vector<uint8_t> rv1, ri1, rv3, ri3;
    rt::referenceTopK(first, x, rv1, ri1);
    rt::HostTensor idx(DataType::UInt32, {rows, k});
    idx.bytes = ri1;
    rt::HostTensor zt(DataType::Float32, {rows, n});
    zt.bytes = rt::referenceScatterElements(scatter, y, idx, u, nullptr);
    rt::referenceTopK(second, zt, rv3, ri3);
    CHECK(download(dev, i1, first.OutputIndexTensor) == trimmed(ri1, first.OutputIndexTensor));
    CHECK(download(dev, z, scatter.OutputTensor) == trimmed(zt.bytes, scatter.OutputTensor));
    CHECK(download(dev, v3, second.OutputValueTensor) == trimmed(rv3, second.OutputValueTensor));
    CHECK(download(dev, i3, second.OutputIndexTensor) == trimmed(ri3, second.OutputIndexTensor));
    // Each step waits for the one before it: more barriers than any of the operators needs alone.
    const uint32_t a1 = barriersAlone(dev, op1, {{&bx, 0}, {&v1, 0}, {&i1, 0}});
    const uint32_t a2 = barriersAlone(dev, op2, {{&by, 0}, {&i1, 0}, {&bu, 0}, {&z, 0}});
    const uint32_t a3 = barriersAlone(dev, op3, {{&z, 0}, {&v3, 0}, {&i3, 0}});
    CHECK(barriers > std::max({a1, a2, a3}));
    auto reports = dev.reports(ticket.value());
    REQUIRE(reports.ok());
    REQUIRE(reports.value().size() == 3);
    CHECK(reports.value()[1].label == "scatter into the selected");
    CHECK(dev.validationMessageCount() == 0);
}

TEST_CASE("Independent operators in one submission get no barrier between them", "[recorder][gpu]") {
    Device& dev = rt::device();
    std::mt19937 rng(9);
    const uint32_t rows = 3, n = 2100, k = 5;
    TopKDesc t = topk(DataType::Int16, rows, n, k);
    ScatterElementsDesc sc = scatterRows(DataType::Int16, rows, n, k);
    Operator opT = compiled(dev, t), opS = compiled(dev, sc);
    rt::HostTensor a(DataType::Int16, {rows, n}), b(DataType::Int16, {rows, n}),
        y(DataType::Int16, {rows, n}), u(DataType::Int16, {rows, k}), idx(DataType::UInt32, {rows, k});
    for (auto* h : {&a, &b, &y, &u}) rt::fill(*h, rng, rt::Fill::Random);
    for (uint64_t i = 0; i < idx.count(); ++i) idx.setBits(i, (i % k) * 3);
    Buffer ba = upload(dev, a.bytes), bb = upload(dev, b.bytes), bys = upload(dev, y.bytes),
           bu = upload(dev, u.bytes), bi = upload(dev, idx.bytes);
    Buffer va = poisoned(dev, t.OutputValueTensor), ia = poisoned(dev, t.OutputIndexTensor);
    Buffer vb = poisoned(dev, t.OutputValueTensor), ib = poisoned(dev, t.OutputIndexTensor);
    Buffer z = poisoned(dev, sc.OutputTensor);
    const std::vector<TensorBinding> first = {{&ba, 0}, {&va, 0}, {&ia, 0}},
                                     second = {{&bys, 0}, {&bi, 0}, {&bu, 0}, {&z, 0}},
                                     third = {{&bb, 0}, {&vb, 0}, {&ib, 0}};
    // Independent operators share levels: the batch needs no more barriers than its deepest operator.
    const uint32_t alone = std::max(
        {barriersAlone(dev, opT, first), barriersAlone(dev, opS, second), barriersAlone(dev, opT, third)});
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    REQUIRE(rec->record(opT, first).ok());
    REQUIRE(rec->record(opS, second).ok());
    REQUIRE(rec->record(opT, third).ok()); // the same Operator twice: each record has its own scratch
    CHECK(rec->statistics().barriers == alone);
    auto ticket = dev.submit(rec.value());
    REQUIRE(ticket.ok());
    REQUIRE(dev.wait(ticket.value()).ok());
    std::vector<uint8_t> rv, ri;
    rt::referenceTopK(t, a, rv, ri);
    CHECK(download(dev, va, t.OutputValueTensor) == trimmed(rv, t.OutputValueTensor));
    rt::referenceTopK(t, b, rv, ri);
    CHECK(download(dev, vb, t.OutputValueTensor) == trimmed(rv, t.OutputValueTensor));
    CHECK(download(dev, ib, t.OutputIndexTensor) == trimmed(ri, t.OutputIndexTensor));
    CHECK(download(dev, z, sc.OutputTensor) ==
          trimmed(rt::referenceScatterElements(sc, y, idx, u, nullptr), sc.OutputTensor));
    CHECK(dev.validationMessageCount() == 0);
}

TEST_CASE("Tickets: Timeout instead of hanging, polling, and objects released while in flight",
          "[recorder][gpu]") {
    Device& dev = rt::device();
    std::mt19937 rng(10);
    TopKDesc t = topk(DataType::Float32, 1, 1000000, 50000);
    rt::HostTensor x(DataType::Float32, {1, 1000000});
    rt::fill(x, rng, rt::Fill::Random);
    Ticket ticket;
    Buffer values = poisoned(dev, t.OutputValueTensor);
    {
        Operator op = compiled(dev, t);
        Buffer bx = upload(dev, x.bytes);
        Buffer indices = poisoned(dev, t.OutputIndexTensor);
        auto rec = dev.createRecorder();
        REQUIRE(rec.ok());
        REQUIRE(rec->record(op, {{&bx, 0}, {&values, 0}, {&indices, 0}}).ok());
        auto tk = dev.submit(rec.value());
        REQUIRE(tk.ok());
        ticket = tk.value();
    } // the operator, the input and the index output are released while the GPU may still use them
    Status early = dev.wait(ticket, 0);
    CHECK((early.code() == StatusCode::Timeout || early.ok()));
    if (early.code() == StatusCode::Timeout)
        CHECK(early.message().find("did not complete") != std::string::npos);
    REQUIRE(dev.wait(ticket).ok());
    auto done = dev.isComplete(ticket);
    REQUIRE(done.ok());
    CHECK(done.value());
    std::vector<uint8_t> rv, ri;
    rt::referenceTopK(t, x, rv, ri);
    CHECK(download(dev, values, t.OutputValueTensor) == trimmed(rv, t.OutputValueTensor));
    CHECK(dev.validationMessageCount() == 0);
}

TEST_CASE("Index errors are reported per operator when the ticket completes", "[recorder][gpu]") {
    Device& dev = rt::device();
    ScatterElementsDesc sc = scatterRows(DataType::UInt8, 2, 6, 2);
    Operator op = compiled(dev, sc);
    rt::HostTensor in(DataType::UInt8, {2, 6}), u(DataType::UInt8, {2, 2}), good(DataType::UInt32, {2, 2}),
        bad(DataType::UInt32, {2, 2});
    std::mt19937 rng(11);
    rt::fill(in, rng, rt::Fill::Random);
    rt::fill(u, rng, rt::Fill::Random);
    const uint64_t g[] = {0, 5, 1, 2}, b[] = {0, 6, 1, 2};
    for (int i = 0; i < 4; ++i) good.setBits(i, g[i]), bad.setBits(i, b[i]);
    Buffer bin = upload(dev, in.bytes), bu = upload(dev, u.bytes), bg = upload(dev, good.bytes),
           bb = upload(dev, bad.bytes);
    Buffer o1 = poisoned(dev, sc.OutputTensor), o2 = poisoned(dev, sc.OutputTensor);
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    REQUIRE(rec->record(op, {{&bin, 0}, {&bg, 0}, {&bu, 0}, {&o1, 0}}, "good").ok());
    REQUIRE(rec->record(op, {{&bin, 0}, {&bb, 0}, {&bu, 0}, {&o2, 0}}, "bad").ok());
    auto ticket = dev.submit(rec.value());
    REQUIRE(ticket.ok());
    Status s = dev.wait(ticket.value());
    CHECK(s.code() == StatusCode::IndexOutOfRange);
    CHECK(s.message().rfind("bad: IndicesTensor", 0) == 0);
    auto reports = dev.reports(ticket.value());
    REQUIRE(reports.ok());
    REQUIRE(reports.value().size() == 2);
    CHECK(reports.value()[0].status.ok());
    CHECK(reports.value()[1].status.code() == StatusCode::IndexOutOfRange);
    CHECK(download(dev, o1, sc.OutputTensor) ==
          trimmed(rt::referenceScatterElements(sc, in, good, u, nullptr), sc.OutputTensor));
    CHECK(download(dev, o2, sc.OutputTensor) ==
          trimmed(rt::referenceScatterElements(sc, in, bad, u, nullptr), sc.OutputTensor));
}

TEST_CASE("Recorders on several threads at once, then submitted", "[recorder][gpu]") {
    Device& dev = rt::device();
    const int threads = 4;
    TopKDesc t = topk(DataType::UInt16, 4, 777, 9);
    Operator op = compiled(dev, t);
    std::vector<rt::HostTensor> inputs(threads, rt::HostTensor(DataType::UInt16, {4, 777}));
    std::mt19937 rng(12);
    std::vector<Buffer> in, vals, idxs;
    for (int i = 0; i < threads; ++i) {
        rt::fill(inputs[i], rng, rt::Fill::Ties);
        in.push_back(upload(dev, inputs[i].bytes));
        vals.push_back(poisoned(dev, t.OutputValueTensor));
        idxs.push_back(poisoned(dev, t.OutputIndexTensor));
    }
    std::vector<CommandRecorder> recorders(threads);
    std::vector<Status> results(threads);
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) {
        pool.emplace_back([&, i] {
            auto r = dev.createRecorder();
            if (!r) return void(results[i] = r.status());
            for (int rep = 0; rep < 3 && results[i].ok();
                 ++rep) // WAW on the same outputs: ordered by barriers
                results[i] = r->record(op, {{&in[i], 0}, {&vals[i], 0}, {&idxs[i], 0}});
            recorders[i] = std::move(r.value());
        });
    }
    for (auto& th : pool) th.join();
    std::vector<Ticket> tickets;
    for (int i = 0; i < threads; ++i) {
        INFO(results[i].message());
        REQUIRE(results[i].ok());
        auto tk = dev.submit(recorders[i]);
        REQUIRE(tk.ok());
        tickets.push_back(tk.value());
    }
    for (int i = threads; i-- > 0;) REQUIRE(dev.wait(tickets[i]).ok());
    for (int i = 0; i < threads; ++i) {
        std::vector<uint8_t> rv, ri;
        rt::referenceTopK(t, inputs[i], rv, ri);
        CHECK(download(dev, vals[i], t.OutputValueTensor) == trimmed(rv, t.OutputValueTensor));
        CHECK(download(dev, idxs[i], t.OutputIndexTensor) == trimmed(ri, t.OutputIndexTensor));
    }
    CHECK(dev.validationMessageCount() == 0);
}

TEST_CASE("GPU timestamps per operator, and copies and fills ordered with operators", "[recorder][gpu]") {
    Device& dev = rt::device();
    TopKDesc t = topk(DataType::Float32, 2, 5000, 3);
    Operator op = compiled(dev, t);
    std::vector<uint8_t> ones(calcBufferTensorSize(t.InputTensor));
    for (size_t i = 0; i < ones.size(); i += 4) {
        float f = static_cast<float>((i / 4) % 1000);
        std::memcpy(&ones[i], &f, 4);
    }
    Buffer src = upload(dev, ones), x = poisoned(dev, t.InputTensor);
    Buffer v = poisoned(dev, t.OutputValueTensor), i = poisoned(dev, t.OutputIndexTensor);
    RecorderOptions options;
    options.timestamps = true;
    auto rec = dev.createRecorder(options);
    REQUIRE(rec.ok());
    REQUIRE(rec->fillBuffer(x, 0, x.size(), 0x7FC00000u).ok());          // NaN everywhere...
    REQUIRE(rec->copyBuffer(src, 0, x, 0, x.size()).ok());               // ...then overwritten (WAW)
    REQUIRE(rec->record(op, {{&x, 0}, {&v, 0}, {&i, 0}}, "timed").ok()); // reads the copy (RAW)
    CHECK(rec->statistics().copies == 1);
    CHECK(rec->statistics().fills == 1);
    auto ticket = dev.submit(rec.value());
    REQUIRE(ticket.ok());
    REQUIRE(dev.wait(ticket.value()).ok());
    std::vector<float> values(6);
    REQUIRE(dev.download(v, 0, values.data(), 24).ok());
    CHECK(values == std::vector<float>{999, 999, 999, 999, 999, 999});
    auto reports = dev.reports(ticket.value());
    REQUIRE(reports.ok());
    REQUIRE(reports.value().size() == 1);
    CHECK(reports.value()[0].gpuNanoseconds > 0);
    CHECK(dev.validationMessageCount() == 0);
}

TEST_CASE("Uploads and readbacks in a recording, ordered with the operators around them", "[recorder][gpu]") {
    Device& dev = rt::device();
    TopKDesc t = topk(DataType::Int32, 3, 1000, 4); // two levels: lists by parts, then their merge
    Operator op = compiled(dev, t);
    rt::HostTensor x(DataType::Int32, {3, 1000});
    std::mt19937 rng(13);
    rt::fill(x, rng, rt::Fill::Ties);
    auto bx = dev.createBuffer(x.bytes.size()), bv = dev.createBuffer(48), bi = dev.createBuffer(48);
    REQUIRE((bx.ok() && bv.ok() && bi.ok()));
    REQUIRE(dev.setLabel(bx.value(), "topk input").ok());
    std::vector<uint8_t> values(48, 0xEE), indices(48, 0xEE);
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    REQUIRE(rec->upload(bx.value(), 0, x.bytes.data(), x.bytes.size()).ok());
    x.bytes.assign(x.bytes.size(), 0); // the recording took its own copy
    REQUIRE(rec->record(op, {{&bx.value(), 0}, {&bv.value(), 0}, {&bi.value(), 0}}).ok());
    REQUIRE(rec->readback(bv.value(), 0, values.data(), 48).ok());
    REQUIRE(rec->readback(bi.value(), 0, indices.data(), 48).ok());
    CHECK(rec->statistics().copies == 3);
    CHECK(rec->statistics().barriers == 3); // upload | lists | merge | readbacks
    auto ticket = dev.submit(rec.value());
    REQUIRE(ticket.ok());
    REQUIRE(dev.wait(ticket.value()).ok());
    std::mt19937 again(13); // the same data again, for the reference
    rt::fill(x, again, rt::Fill::Ties);
    std::vector<uint8_t> rv, ri;
    rt::referenceTopK(t, x, rv, ri);
    CHECK(values == rv);
    CHECK(indices == ri);
    CHECK(dev.validationMessageCount() == 0);
}

TEST_CASE("Profiled recordings compute the same, with workgroup records where the device and build allow",
          "[recorder][gpu]") {
    Device& dev = rt::device();
    TopKDesc t = topk(DataType::Float32, 3, 5000, 7);
    Operator op = compiled(dev, t);
    std::vector<uint8_t> input(calcBufferTensorSize(t.InputTensor));
    for (size_t i = 0; i < input.size(); i += 4) {
        float f = static_cast<float>((i / 4 * 7919) % 5003) - 2500.0f;
        std::memcpy(&input[i], &f, 4);
    }
    Buffer x = upload(dev, input);
    std::vector<std::vector<float>> values;
    for (bool profile : {false, true}) {
        Buffer v = poisoned(dev, t.OutputValueTensor), i = poisoned(dev, t.OutputIndexTensor);
        RecorderOptions options;
        options.profile = profile;
        options.timestamps = true;
        auto rec = dev.createRecorder(options);
        REQUIRE(rec.ok());
        REQUIRE(rec->record(op, {{&x, 0}, {&v, 0}, {&i, 0}}).ok());
        auto ticket = dev.submit(rec.value());
        REQUIRE(ticket.ok());
        REQUIRE(dev.wait(ticket.value()).ok());
        values.emplace_back(21);
        REQUIRE(dev.download(v, 0, values.back().data(), 21 * 4).ok());
        auto reports = dev.reports(ticket.value());
        REQUIRE(reports.ok());
        const auto& dispatches = reports.value()[0].dispatches;
        if (!profile || !dev.adapter().features.profiling) {
            CHECK(dispatches.empty()); // lavapipe: the normal kernels ran
            continue;
        }
        for (const DispatchProfile& d : dispatches) { // a RIPPLE_PROFILE_KERNELS build on NVIDIA
            INFO(d.kernel);
            CHECK(!d.workgroups.empty());
            for (const WorkgroupProfile& w : d.workgroups) {
                CHECK(w.startNanoseconds > 0);
                CHECK(w.endNanoseconds >= w.startNanoseconds);
                // The SM's cycles over the same span: some, and under 10 GHz.
                CHECK(w.smCycles > 0);
                CHECK(w.smCycles < 10 * (w.endNanoseconds - w.startNanoseconds + 1));
            }
        }
    }
    CHECK(values[0] == values[1]);
    CHECK(dev.validationMessageCount() == 0);
}

TEST_CASE("Tickets stay exact while submissions reuse their fences and other threads wait on old ones",
          "[recorder][gpu]") {
    // Under fence tickets (CTest's "fence tickets" and mobile-vk11 runs) a retired submission's fence is
    // reset and given to a later one, unless a waiter still holds it (issue 58). Each submission fills its
    // own word; waiters on earlier tickets must see their word written, whatever fence they waited on.
    Device& dev = rt::device();
    const uint32_t submissions = 300;
    auto words = dev.createBuffer(submissions * 4);
    REQUIRE(words.ok());
    REQUIRE(
        dev.upload(words.value(), 0, std::vector<uint32_t>(submissions, 0xDEADBEEFu).data(), submissions * 4)
            .ok());
    std::vector<Ticket> tickets(submissions);
    std::atomic<uint32_t> issued{0};
    std::atomic<bool> failed{false};
    auto waiter = [&](uint32_t seed) {
        std::mt19937 rng(seed);
        while (issued.load() < submissions) {
            const uint32_t n = issued.load();
            if (n == 0) continue;
            const uint32_t pick = static_cast<uint32_t>(rng() % n);
            if (!dev.wait(tickets[pick]).ok()) failed = true;
            auto done = dev.isComplete(tickets[pick]);
            if (!done.ok() || !done.value()) failed = true;
        }
    };
    std::thread a(waiter, 1), b(waiter, 2);
    for (uint32_t i = 0; i < submissions; ++i) {
        auto rec = dev.createRecorder();
        REQUIRE(rec.ok());
        REQUIRE(rec->fillBuffer(words.value(), uint64_t(i) * 4, 4, i * 7 + 1).ok());
        auto tk = dev.submit(rec.value());
        REQUIRE(tk.ok());
        tickets[i] = tk.value();
        issued = i + 1;
    }
    a.join();
    b.join();
    CHECK_FALSE(failed.load());
    REQUIRE(dev.wait(tickets.back()).ok());
    std::vector<uint32_t> got(submissions);
    REQUIRE(dev.download(words.value(), 0, got.data(), submissions * 4).ok());
    for (uint32_t i = 0; i < submissions; ++i) CHECK(got[i] == i * 7 + 1);
    CHECK(dev.validationMessageCount() == 0);
}
