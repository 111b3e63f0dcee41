// SPDX-License-Identifier: MIT
// ripple-buffer-churn: what many live buffers cost (issue 41). For each count N (10^3 up to --max), creates
// N buffers of --bytes bytes (16 by default), all kept alive, then releases them: creation and release time
// (total and per buffer) and the process's resident memory per live buffer. Creation must stay O(log n)
// per buffer whatever the number of live ones (runtime/device.cpp, vulkan/allocator.cpp).
//   ripple-buffer-churn [--max N] [--bytes B] [--device I]
#include <ripple/ripple.hpp>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

uint64_t residentBytes() { // /proc/self/statm's second field, in pages
    FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long long size = 0, resident = 0;
    const int got = std::fscanf(f, "%llu %llu", &size, &resident);
    std::fclose(f);
    return got == 2 ? resident * 4096ull : 0;
}

double seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

} // namespace

int main(int argc, char** argv) {
    uint64_t most = 1000000, bytes = 16;
    ripple::DeviceOptions options;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        const unsigned long long v = std::strtoull(argv[i + 1], nullptr, 10);
        if (a == "--max")
            most = v;
        else if (a == "--bytes")
            bytes = v;
        else if (a == "--device")
            options.adapterIndex = static_cast<int>(v);
        else
            return std::fprintf(stderr, "usage: ripple-buffer-churn [--max N] [--bytes B] [--device I]\n"), 2;
    }
    auto dev = ripple::Device::create(options);
    if (!dev) return std::fprintf(stderr, "%s\n", dev.status().message().c_str()), 1;
    std::printf("device: %s; buffers of %" PRIu64 " bytes, all alive, then released\n",
                dev->adapter().name.c_str(), bytes);
    std::printf("%10s %12s %12s %12s %12s %14s\n", "buffers", "create s", "us/buffer", "release s",
                "us/buffer", "RSS B/buffer");
    for (uint64_t n = 1000; n <= most; n *= 10) {
        std::vector<ripple::Buffer> buffers;
        buffers.reserve(n);
        const uint64_t before = residentBytes();
        auto start = std::chrono::steady_clock::now();
        for (uint64_t i = 0; i < n; ++i) {
            auto b = dev->createBuffer(bytes);
            if (!b)
                return std::fprintf(stderr, "buffer %" PRIu64 ": %s\n", i, b.status().message().c_str()), 1;
            buffers.push_back(std::move(b.value()));
        }
        const double create = seconds(start);
        const double perBuffer = double(residentBytes() - before) / double(n);
        start = std::chrono::steady_clock::now();
        buffers.clear();
        const double release = seconds(start);
        std::printf("%10" PRIu64 " %12.3f %12.2f %12.3f %12.2f %14.0f\n", n, create, create * 1e6 / double(n),
                    release, release * 1e6 / double(n), perBuffer);
        std::fflush(stdout);
    }
    return 0;
}
