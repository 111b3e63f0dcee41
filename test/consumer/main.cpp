// SPDX-License-Identifier: MIT
// The consumer's program: a TopK (K = 5 of 1000 FLOAT32 values in each of 3 rows, with ties) on the first
// device (lavapipe in CI), checked against a CPU TopK: values sorted descending, ties by ascending index.
// Exits 0 when they agree. Built without ripple (RIPPLE_CONSUMER_WITHOUT_RIPPLE) it computes only the CPU
// side, as the baseline for what ripple adds to a binary.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

#ifndef RIPPLE_CONSUMER_WITHOUT_RIPPLE
#include <ripple/ripple.hpp>
#endif

namespace {
constexpr uint32_t kRows = 3, kLength = 1000, kK = 5;

std::vector<float> input() {
    std::vector<float> x(kRows * kLength);
    uint32_t state = 12345;
    for (float& v : x) {
        state = state * 1664525u + 1013904223u;
        v = static_cast<float>((state >> 8) % 200) - 100.0f; // many ties
    }
    return x;
}

void cpuTopK(const std::vector<float>& x, std::vector<float>& values, std::vector<uint32_t>& indices) {
    for (uint32_t r = 0; r < kRows; ++r) {
        std::vector<uint32_t> order(kLength);
        std::iota(order.begin(), order.end(), 0u);
        const float* row = x.data() + r * kLength;
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return row[a] > row[b]; });
        for (uint32_t k = 0; k < kK; ++k) {
            values.push_back(row[order[k]]);
            indices.push_back(order[k]);
        }
    }
}
} // namespace

int main() {
    const std::vector<float> x = input();
    std::vector<float> wantValues;
    std::vector<uint32_t> wantIndices;
    cpuTopK(x, wantValues, wantIndices);
#ifdef RIPPLE_CONSUMER_WITHOUT_RIPPLE
    std::printf("cpu only: first value %g\n", static_cast<double>(wantValues[0]));
    return 0;
#else
    const ripple::Version v = ripple::version();
    std::printf("ripple %u.%u.%u (headers %s)\n", v.major, v.minor, v.patch, RIPPLE_VERSION_STRING);
    if (v.major != RIPPLE_VERSION_MAJOR || v.minor != RIPPLE_VERSION_MINOR) return 1;

    ripple::Result<ripple::Device> device = ripple::Device::create();
    if (!device) return std::fprintf(stderr, "%s\n", device.status().message().c_str()), 1;
    ripple::TopKDesc desc;
    desc.InputTensor = {ripple::DataType::Float32, {kRows, kLength}, {}};
    desc.OutputValueTensor = {ripple::DataType::Float32, {kRows, kK}, {}};
    desc.OutputIndexTensor = {ripple::DataType::UInt32, {kRows, kK}, {}};
    desc.Axis = 1;
    desc.K = kK;
    ripple::Result<ripple::Operator> topk = device->compile(desc);
    if (!topk) return std::fprintf(stderr, "%s\n", topk.status().message().c_str()), 1;
    auto in = device->createBuffer(ripple::calcBufferTensorSize(desc.InputTensor));
    auto values = device->createBuffer(ripple::calcBufferTensorSize(desc.OutputValueTensor));
    auto indices = device->createBuffer(ripple::calcBufferTensorSize(desc.OutputIndexTensor));
    if (!in || !values || !indices) return std::fprintf(stderr, "createBuffer failed\n"), 1;
    std::vector<float> gotValues(kRows * kK, -1.0f);
    std::vector<uint32_t> gotIndices(kRows * kK, 0xFFFFFFFFu);
    ripple::Status s = device->upload(in.value(), 0, x.data(), x.size() * sizeof(float));
    if (s) s = device->execute(topk.value(), {{&in.value(), 0}, {&values.value(), 0}, {&indices.value(), 0}});
    if (s) s = device->download(values.value(), 0, gotValues.data(), gotValues.size() * sizeof(float));
    if (s) s = device->download(indices.value(), 0, gotIndices.data(), gotIndices.size() * sizeof(uint32_t));
    if (!s) return std::fprintf(stderr, "%s\n", s.message().c_str()), 1;
    if (gotValues != wantValues || gotIndices != wantIndices) {
        std::fprintf(stderr, "consumer: TopK on %s differs from the CPU\n", device->adapter().name.c_str());
        return 1;
    }
    std::printf("consumer: TopK on %s matches the CPU (%u rows, K = %u)\n", device->adapter().name.c_str(),
                kRows, kK);
    return 0;
#endif
}
