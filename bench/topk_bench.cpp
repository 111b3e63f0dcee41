// SPDX-License-Identifier: MIT
// ripple-bench topk: TopK on the issue-5 matrix, timed with GPU timestamps and checked against a CPU
// reference on the data it timed.
//
// Inputs: FLOAT32/FLOAT16/BFLOAT16 values from a standard normal distribution (like torch.randn, which
// bench/topk_peer.py gives torch, and like LLM logits), INT32 uniform over the whole range. Each case keeps
// enough input copies to overflow the L2 cache (50 MB on the H100) and rotates them, runs them back to back
// as queued submissions (timeBatch), and reports the median and the minimum.
#include "bench_common.hpp"
#include "half_bits.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

namespace {

struct Case {
    std::vector<uint32_t> shape;
    uint32_t axis, k;
    ripple::DataType type;
};

const char* typeName(ripple::DataType t) {
    switch (t) {
    case ripple::DataType::Float32:
        return "f32";
    case ripple::DataType::Float16:
        return "f16";
    case ripple::DataType::Int32:
        return "i32";
    case ripple::DataType::BFloat16:
        return "bf16";
    default:
        return "other";
    }
}

// Order key of element bits (larger key = larger value); the random inputs hold no NaN.
uint32_t orderKey(ripple::DataType t, uint32_t bits) {
    switch (t) {
    case ripple::DataType::Float32:
        if (bits == 0x80000000u) bits = 0;
        return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
    case ripple::DataType::Float16:
    case ripple::DataType::BFloat16:
        if (bits == 0x8000u) bits = 0;
        return bits & 0x8000u ? (~bits & 0xFFFFu) : bits | 0x8000u;
    default:
        return bits ^ 0x80000000u;
    }
}

// Checks ripple's outputs against a CPU TopK (largest first, ties by smaller index) of `host`.
bool matchesReference(const Case& c, const std::vector<uint8_t>& host, const std::vector<uint8_t>& values,
                      const std::vector<uint32_t>& indices) {
    const uint32_t es = ripple::elementSize(c.type);
    uint64_t outer = 1, inner = 1;
    for (uint32_t d = 0; d < c.axis; ++d) outer *= c.shape[d];
    for (uint32_t d = c.axis + 1; d < c.shape.size(); ++d) inner *= c.shape[d];
    const uint64_t n = c.shape[c.axis], K = c.k;
    std::vector<uint64_t> entries(n);
    for (uint64_t o = 0; o < outer; ++o)
        for (uint64_t in = 0; in < inner; ++in) {
            for (uint64_t j = 0; j < n; ++j) {
                uint32_t bits = 0;
                std::memcpy(&bits, &host[((o * n + j) * inner + in) * es], es);
                entries[j] = (uint64_t(~orderKey(c.type, bits)) << 32) | j; // ascending = output order
            }
            std::nth_element(entries.begin(), entries.begin() + (K - 1), entries.end());
            std::sort(entries.begin(), entries.begin() + K);
            for (uint64_t r = 0; r < K; ++r) {
                const uint64_t out = (o * K + r) * inner + in;
                const uint32_t j = static_cast<uint32_t>(entries[r]);
                if (indices[out] != j ||
                    std::memcmp(&values[out * es], &host[((o * n + j) * inner + in) * es], es))
                    return std::printf("  MISMATCH at output %llu: index %u, expected %u\n",
                                       static_cast<unsigned long long>(out), indices[out], j),
                           false;
            }
        }
    return true;
}

} // namespace

int runTopK(ripple::Device& dev, const BenchOptions& opt, double ceiling, std::vector<std::string>& json) {
    using DT = ripple::DataType;
    std::vector<Case> cases = {
        {{1, 1, 3, 4}, 3, 2, DT::Float32},
        {{64, 128256}, 1, 50, DT::Float32},
        {{64, 128256}, 1, 50, DT::Float16},
        {{64, 128256}, 1, 50, DT::Int32},
        {{1, 152064}, 1, 40, DT::Float32},
        {{1, 152064}, 1, 40, DT::Int32},
        {{256, 50257}, 1, 8, DT::Float32},
        {{256, 50257}, 1, 8, DT::Int32},
        {{16, 1048576}, 1, 100, DT::Float32},
        {{1, 16777216}, 1, 1024, DT::Float32},
        {{1, 16777216}, 1, 65536, DT::Float32},
        {{1, 100000000}, 1, 100, DT::Float32},
        {{4096, 4096}, 1, 256, DT::Float32},
        {{128, 4096, 64}, 1, 16, DT::Float32},
        {{1048576, 32}, 1, 4, DT::Float32},
        // BFLOAT16 variants of the LLM shapes (last, so that the cases above keep their random inputs).
        {{64, 128256}, 1, 50, DT::BFloat16},
        {{1, 152064}, 1, 40, DT::BFloat16},
        {{256, 50257}, 1, 8, DT::BFloat16},
    };
    if (!opt.shape.empty()) { // one FLOAT32 case of the caller's: "D0xD1x...:AXIS:K"
        Case c{{}, 0, 0, DT::Float32};
        const size_t colon = opt.shape.find(':'), colon2 = opt.shape.rfind(':');
        for (size_t at = 0; at < colon;) {
            const size_t x = std::min(opt.shape.find('x', at), colon);
            c.shape.push_back(static_cast<uint32_t>(std::strtoul(opt.shape.c_str() + at, nullptr, 10)));
            at = x + 1;
        }
        if (colon == std::string::npos || colon2 == colon || c.shape.empty()) {
            std::fprintf(stderr, "ripple-bench: --shape wants D0xD1x...:AXIS:K, got %s\n", opt.shape.c_str());
            return 2;
        }
        c.axis = static_cast<uint32_t>(std::strtoul(opt.shape.c_str() + colon + 1, nullptr, 10));
        c.k = static_cast<uint32_t>(std::strtoul(opt.shape.c_str() + colon2 + 1, nullptr, 10));
        cases = {c};
    }
    std::printf("%-34s %10s %10s %10s %12s %10s %8s %6s\n", "topk case", "median us", "min us", "host us",
                "floor MB", "GB/s", "% copy", "check");
    uint32_t failures = 0;
    GpuWarmer warmer(dev);
    std::mt19937 rng(1);
    std::normal_distribution<float> normal;
    for (const Case& c : cases) {
        ripple::TopKDesc d;
        d.InputTensor = {c.type, c.shape, {}};
        std::vector<uint32_t> out = c.shape;
        out[c.axis] = c.k;
        d.OutputValueTensor = {c.type, out, {}};
        d.OutputIndexTensor = {DT::UInt32, out, {}};
        d.Axis = c.axis;
        d.K = c.k;
        std::string name = shapeName(c.shape) + " ax" + std::to_string(c.axis) + " k" + std::to_string(c.k) +
                           " " + typeName(c.type) + (opt.data == "random" ? "" : " " + opt.data);
        if (d.InputTensor.elementCount() > opt.maxElements) continue;
        if (!opt.only.empty() && name.find(opt.only) == std::string::npos) continue;
        auto op = dev.compile(d);
        if (!op) {
            std::printf("%-34s skipped: %s\n", name.c_str(), op.status().message().c_str());
            continue;
        }
        const uint64_t inBytes = ripple::calcBufferTensorSize(d.InputTensor);
        const uint64_t count = d.InputTensor.elementCount();
        const uint32_t copies =
            static_cast<uint32_t>(std::min<uint64_t>(8, std::max<uint64_t>(1, (128ull << 20) / inBytes)));
        std::vector<ripple::Buffer> inputs;
        std::vector<uint8_t> host(inBytes);
        for (uint32_t i = 0; i < copies; ++i) {
            for (uint64_t e = 0; e < count; ++e) {
                if (c.type == DT::Float32) {
                    float f = normal(rng);
                    std::memcpy(&host[e * 4], &f, 4);
                } else if (c.type == DT::Float16) {
                    uint16_t h = toHalf(normal(rng));
                    std::memcpy(&host[e * 2], &h, 2);
                } else if (c.type == DT::BFloat16) {
                    uint16_t h = toBFloat16(normal(rng));
                    std::memcpy(&host[e * 2], &h, 2);
                } else {
                    uint32_t v = static_cast<uint32_t>(rng());
                    std::memcpy(&host[e * 4], &v, 4);
                }
            }
            // Degenerate inputs (--data): every element the first one's value, or each one of the first two.
            const uint64_t size = inBytes / count;
            for (uint64_t e = 2; (opt.data == "equal" || opt.data == "two") && e < count; ++e)
                std::memcpy(&host[e * size], &host[(opt.data == "two" && (rng() & 1) ? 1 : 0) * size], size);
            if (opt.data == "equal" && count > 1) std::memcpy(&host[size], &host[0], size);
            // Narrow: within 700 units in the last place above 1.0 (or 1000 for INT32), as the tests' Narrow
            // data: the keys share their upper digits and ties are many but not total.
            for (uint64_t e = 0; opt.data == "narrow" && e < count; ++e) {
                const uint32_t base = c.type == DT::Float32    ? 0x3F800000u
                                      : c.type == DT::Float16  ? 0x3C00u
                                      : c.type == DT::BFloat16 ? 0x3F80u
                                                               : 1000u;
                const uint32_t bits = base + static_cast<uint32_t>(rng() % 700);
                std::memcpy(&host[e * size], &bits, size); // little-endian: the low bytes for 16-bit types
            }
            auto b = dev.createBuffer(inBytes);
            if (!b) return fail(b.status());
            if (ripple::Status s = dev.upload(b.value(), 0, host.data(), inBytes); !s) return fail(s);
            inputs.push_back(std::move(b.value()));
        }
        const uint64_t valueBytes = ripple::calcBufferTensorSize(d.OutputValueTensor);
        const uint64_t indexBytes = ripple::calcBufferTensorSize(d.OutputIndexTensor);
        auto values = dev.createBuffer(std::max<uint64_t>(4, valueBytes));
        auto indices = dev.createBuffer(std::max<uint64_t>(4, indexBytes));
        if (!values || !indices) return fail(ripple::Status(ripple::StatusCode::OutOfMemory, "outputs"));
        // The last run reads the last copy, which `host` still holds: that run's outputs are checked.
        const uint32_t runs = std::max<uint32_t>(opt.repeat, 1);
        warmer.warm();
        auto bindings = [&](uint32_t run) -> std::vector<ripple::TensorBinding> {
            const uint32_t which = (run + copies - runs % copies) % copies;
            return {{&inputs[which], 0}, {&values.value(), 0}, {&indices.value(), 0}};
        };
        auto us = timeBatch(
            dev, runs,
            [&](ripple::CommandRecorder& r, uint32_t run) { return r.record(op.value(), bindings(run)); },
            [&](uint32_t run) { return dev.execute(op.value(), bindings(run)); });
        if (!us) return fail(us.status());
        std::vector<uint8_t> gotValues(valueBytes);
        std::vector<uint32_t> gotIndices(indexBytes / 4);
        if (ripple::Status s = dev.download(values.value(), 0, gotValues.data(), valueBytes); !s)
            return fail(s);
        if (ripple::Status s = dev.download(indices.value(), 0, gotIndices.data(), indexBytes); !s)
            return fail(s);
        const bool ok = matchesReference(c, host, gotValues, gotIndices);
        const std::vector<double>& times = us->us;
        const double med = median(times), best = *std::min_element(times.begin(), times.end());
        const uint64_t floorBytes = inBytes + valueBytes + indexBytes;
        const double gbs = floorBytes / med / 1e3;
        const double hostUs = median(us->hostUs);
        std::printf("%-34s %10.1f %10.1f %10.1f %12.2f %10.1f %8.1f %6s\n", name.c_str(), med, best, hostUs,
                    floorBytes / 1e6, gbs, 100 * gbs / ceiling, ok ? "ok" : "FAIL");
        char line[640];
        std::snprintf(
            line, sizeof line,
            "{\"op\": \"topk\", \"name\": \"%s\", \"shape\": %s, \"type\": \"%s\", \"k\": %u, \"axis\": "
            "%u, \"us\": %.2f, \"us_min\": %.2f, \"host_us\": %.2f, \"runs\": %zu, \"floor_bytes\": %llu, "
            "\"gbs\": %.1f, "
            "\"pct_of_copy\": %.1f, \"matches_reference\": %s, \"data\": \"%s\"}",
            name.c_str(), shapeJson(c.shape).c_str(), typeName(c.type), c.k, c.axis, med, best, hostUs,
            times.size(), static_cast<unsigned long long>(floorBytes), gbs, 100 * gbs / ceiling,
            ok ? "true" : "false", opt.data.c_str());
        std::string levels;
        for (double l : us->levels) levels += (levels.empty() ? "" : ", ") + std::to_string(l).substr(0, 7);
        std::printf("%-34s levels us: %s\n", "", levels.c_str());
        json.push_back(std::string(line).substr(0, std::strlen(line) - 1) + ", \"levels_us\": [" + levels +
                       "]}");
        failures += !ok;
    }
    return failures ? 3 : 0; // 3: ran, but some output was wrong
}
