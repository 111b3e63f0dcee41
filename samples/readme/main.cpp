// SPDX-License-Identifier: MIT
// The README's "Using the library" code, as a program: built with the samples under -Wall -Wextra -Werror
// -fno-exceptions -fno-rtti and run by CTest. The lines between the readme markers appear in README.md
// verbatim (test/unit/check_readme.cmake keeps them identical).
// [readme-begin]
#include <ripple/ripple.hpp>

#include <cstdio>
#include <vector>

int fail(const ripple::Status& s) {
    std::fprintf(stderr, "%s\n", s.message().c_str()); // e.g. "TopK: K (5) exceeds InputTensor.Sizes[1] (4)"
    return 1;
}

int main() {
    ripple::Result<ripple::Device> device = ripple::Device::create(); // discrete GPU, integrated, then CPU
    if (!device) return fail(device.status());

    ripple::TopKDesc desc; // the K largest along Axis, sorted
    desc.InputTensor = {ripple::DataType::Float32, {64, 128256}, {}};
    desc.OutputValueTensor = {ripple::DataType::Float32, {64, 50}, {}};
    desc.OutputIndexTensor = {ripple::DataType::UInt32, {64, 50}, {}};
    desc.Axis = 1;
    desc.K = 50;
    desc.AxisDirection = ripple::AxisDirection::Decreasing;
    ripple::Result<ripple::Operator> topk = device->compile(desc); // validate and plan once...
    if (!topk) return fail(topk.status());

    auto logits = device->createBuffer(ripple::calcBufferTensorSize(desc.InputTensor));
    auto values = device->createBuffer(ripple::calcBufferTensorSize(desc.OutputValueTensor));
    auto indices = device->createBuffer(ripple::calcBufferTensorSize(desc.OutputIndexTensor));
    if (!logits) return fail(logits.status());
    if (!values) return fail(values.status());
    if (!indices) return fail(indices.status());

    std::vector<float> host(64 * 128256);
    for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>((i * 7919) % 128256);
    if (ripple::Status s = device->upload(logits.value(), 0, host.data(), host.size() * 4); !s)
        return fail(s);
    ripple::Status s = device->execute(
        topk.value(),
        {{&logits.value(), 0}, {&values.value(), 0}, {&indices.value(), 0}}); // ...run many times
    if (!s) return fail(s);

    std::vector<float> best(64 * 50);
    if (ripple::Status d = device->download(values.value(), 0, best.data(), best.size() * 4); !d)
        return fail(d);
    std::printf("row 0: %g, %g, %g, ...\n", best[0], best[1], best[2]);

    // Many operators (and copies, fills, readbacks) in one submission: one command buffer, one vkQueueSubmit.
    ripple::Result<ripple::CommandRecorder> recorder = device->createRecorder(); // one per thread
    if (!recorder) return fail(recorder.status());
    std::vector<uint32_t> where(64 * 50);
    s = recorder->record(topk.value(), {{&logits.value(), 0}, {&values.value(), 0}, {&indices.value(), 0}},
                         "select"); // a label for RenderDoc
    if (s)
        s = recorder->readback(indices.value(), 0, where.data(), where.size() * 4); // ordered after "select"
    if (!s) return fail(s);
    ripple::Result<ripple::Ticket> ticket = device->submit(recorder.value());
    if (!ticket) return fail(ticket.status());
    // ... the engine's own work ...
    if (ripple::Status w = device->wait(ticket.value(), 2'000'000'000); !w)
        return fail(w); // Timeout after 2 s
    return best[0] == 128255.0f && host[where[0]] == best[0] ? 0 : 1;
}
// [readme-end]
