// SPDX-License-Identifier: MIT
// The consumer's own GLSL kernel (scale.comp, built by ripple_add_kernels) recorded between two ripple
// operators that read the buffer it writes: TopK, scale by 2 in place, TopK again, one submission. The
// recorder must place a barrier before the scale (after the first TopK's reads) and one after it (before the
// second TopK's), besides each TopK's own, and the second TopK must see every value doubled. Exits 0 when
// all holds. --backend d3d12: on the D3D12 back-end (the kernel from its build-time bytecode where the build
// had an HLSL compiler); --host-validation: the validation layer is the host loader's (under Wine), so the
// program does not ask for it.
#include "consumer_kernels_kernels.hpp"

#include <ripple/ripple.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

// The k largest of each row of `x` (rows x length), ties by the lower index: TopK's contract.
static void referenceTopK(const std::vector<float>& x, uint32_t rows, uint32_t length, uint32_t k,
                          std::vector<float>& values, std::vector<uint32_t>& indices) {
    values.clear();
    indices.clear();
    for (uint32_t r = 0; r < rows; ++r) {
        std::vector<uint32_t> order(length);
        std::iota(order.begin(), order.end(), 0u);
        const float* row = x.data() + size_t(r) * length;
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return row[a] > row[b]; });
        for (uint32_t i = 0; i < k; ++i) {
            values.push_back(row[order[i]]);
            indices.push_back(order[i]);
        }
    }
}

int main(int argc, char** argv) {
    const uint32_t rows = 4, length = 777, k = 3;
    std::vector<float> x(rows * length);
    for (uint32_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919u) % 1009u) / 8.0f;
    ripple::DeviceOptions options;
    options.validation = true; // with synchronization validation: a missing barrier is a message
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--backend") == 0 && i + 1 < argc && std::strcmp(argv[i + 1], "d3d12") == 0)
            options.backend = ripple::Backend::D3D12, ++i;
        else if (std::strcmp(argv[i], "--host-validation") == 0)
            options.validation = false;
        else
            return std::fprintf(stderr, "usage: consumer_kernels [--backend d3d12] [--host-validation]\n"), 2;
    }
    auto device = ripple::Device::create(options);
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
    std::vector<float> wantA, wantB, doubled(x);
    std::vector<uint32_t> wantIa, wantIb;
    for (float& v : doubled) v *= 2.0f;
    referenceTopK(x, rows, length, k, wantA, wantIa);
    referenceTopK(doubled, rows, length, k, wantB, wantIb);
    const bool ok = barriers == 2 * alone->statistics().barriers + 2 && a == wantA && ia == wantIa &&
                    b == wantB && ib == wantIb && device->validationMessageCount() == 0;
    if (!ok)
        return std::fprintf(
                   stderr,
                   "consumer: the kernel between two TopKs gave wrong results (%u barriers, %u validation "
                   "messages)\n",
                   barriers, device->validationMessageCount()),
               1;
    std::printf("consumer: own kernel recorded between two TopKs on %s, %u barriers, results match the CPU "
                "reference, no validation message\n",
                device->adapter().name.c_str(), barriers);
    return 0;
}
