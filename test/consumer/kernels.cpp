// SPDX-License-Identifier: MIT
// The consumer's own GLSL kernel (scale.comp, built by ripple_add_kernels) recorded between two ripple
// operators that read the buffer it writes: TopK, scale by 2 in place, TopK again, one submission. The
// recorder must place a barrier before the scale (after the first TopK's reads) and one after it (before the
// second TopK's), besides each TopK's own, and the second TopK must see every value doubled. Exits 0 when
// all holds.
#include "consumer_kernels_kernels.hpp"

#include <ripple/ripple.hpp>

#include <cstdio>
#include <vector>

int main() {
    const uint32_t rows = 4, length = 777, k = 3;
    std::vector<float> x(rows * length);
    for (uint32_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919u) % 1009u) / 8.0f;
    auto device = ripple::Device::create();
    if (!device) return std::fprintf(stderr, "%s\n", device.status().message().c_str()), 1;
    auto scale = device->compile(ripple::KernelDesc{&consumer_shaders::scale});
    if (!scale) return std::fprintf(stderr, "%s\n", scale.status().message().c_str()), 1;
    ripple::TopKDesc desc;
    desc.InputTensor = {ripple::DataType::Float32, {rows, length}, {}};
    desc.OutputValueTensor = {ripple::DataType::Float32, {rows, k}, {}};
    desc.OutputIndexTensor = {ripple::DataType::UInt32, {rows, k}, {}};
    desc.Axis = 1;
    desc.K = k;
    auto topk = device->compile(desc);
    auto in = device->createBuffer(x.size() * 4);
    auto v1 = device->createBuffer(rows * k * 4), i1 = device->createBuffer(rows * k * 4);
    auto v2 = device->createBuffer(rows * k * 4), i2 = device->createBuffer(rows * k * 4);
    if (!topk || !in || !v1 || !i1 || !v2 || !i2) return std::fprintf(stderr, "setup failed\n"), 1;
    ripple::Status s = device->upload(in.value(), 0, x.data(), x.size() * 4);
    auto rec = device->createRecorder();
    if (!s || !rec) return std::fprintf(stderr, "upload or recorder failed\n"), 1;
    struct {
        uint32_t count;
        float factor;
    } push{static_cast<uint32_t>(x.size()), 2.0f};
    ripple::KernelDispatch d;
    d.GroupCount[0] = static_cast<uint32_t>((x.size() + 63) / 64);
    d.Bindings = {{&in.value(), 0, 0}};
    d.PushConstants = &push;
    d.PushConstantBytes = sizeof push;
    s = rec->record(topk.value(), {{&in.value(), 0}, {&v1.value(), 0}, {&i1.value(), 0}});
    if (s) s = rec->record(scale.value(), d);
    if (s) s = rec->record(topk.value(), {{&in.value(), 0}, {&v2.value(), 0}, {&i2.value(), 0}});
    const uint32_t barriers = rec->statistics().barriers;
    ripple::Result<ripple::Ticket> ticket =
        s ? device->submit(rec.value()) : ripple::Result<ripple::Ticket>(s);
    if (ticket) s = device->wait(ticket.value());
    std::vector<float> a(rows * k), b(rows * k);
    std::vector<uint32_t> ia(rows * k), ib(rows * k);
    if (s) s = device->download(v1.value(), 0, a.data(), a.size() * 4);
    if (s) s = device->download(v2.value(), 0, b.data(), b.size() * 4);
    if (s) s = device->download(i1.value(), 0, ia.data(), ia.size() * 4);
    if (s) s = device->download(i2.value(), 0, ib.data(), ib.size() * 4);
    if (!ticket || !s) return std::fprintf(stderr, "run failed\n"), 1;
    // The barriers the statistics predict: each TopK's own (recorded alone), one before the kernel (it
    // writes what the first TopK read) and one after it (the second TopK reads what it wrote).
    auto alone = device->createRecorder();
    if (!alone || !alone->record(topk.value(), {{&in.value(), 0}, {&v1.value(), 0}, {&i1.value(), 0}}))
        return std::fprintf(stderr, "recording a TopK alone failed\n"), 1;
    bool ok = barriers == 2 * alone->statistics().barriers + 2 && ia == ib;
    for (size_t i = 0; i < a.size(); ++i) ok = ok && b[i] == 2.0f * a[i];
    if (!ok)
        return std::fprintf(stderr,
                            "consumer: the kernel between two TopKs gave wrong results (%u barriers)\n",
                            barriers),
               1;
    std::printf("consumer: own kernel recorded between two TopKs on %s, %u barriers, results match\n",
                device->adapter().name.c_str(), barriers);
    return 0;
}
