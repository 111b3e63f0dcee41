// SPDX-License-Identifier: MIT
// The pipeline-cache envelope (cache_blob.hpp).
#include "runtime/cache_blob.hpp"

#include <cstdio>
#include <cstring>

namespace ripple::detail {
namespace {

constexpr char kMagic[8] = {'R', 'P', 'L', 'C', 'A', 'C', 'H', 'E'};
constexpr uint32_t kVersion = 1;

uint64_t fnv1a(const uint8_t* p, size_t n) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}

void put(std::vector<uint8_t>& out, size_t at, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

uint64_t get(const std::vector<uint8_t>& in, size_t at, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(in[at + i]) << (8 * i);
    return v;
}

} // namespace

std::vector<uint8_t> wrapCacheData(const std::vector<uint8_t>& data, const AdapterInfo& adapter) {
    std::vector<uint8_t> out(kCacheHeaderBytes + data.size(), 0);
    std::memcpy(out.data(), kMagic, 8);
    put(out, 8, kVersion, 4);
    put(out, 12, static_cast<uint32_t>(adapter.backend), 4);
    put(out, 16, data.size(), 8);
    put(out, 24, fnv1a(data.data(), data.size()), 8);
    put(out, 32, adapter.vendorId, 4);
    put(out, 36, adapter.deviceId, 4);
    std::memcpy(out.data() + 48, adapter.pipelineCacheUUID, 16);
    if (!data.empty()) std::memcpy(out.data() + kCacheHeaderBytes, data.data(), data.size());
    return out;
}

std::vector<uint8_t> unwrapCacheData(const std::vector<uint8_t>& blob, Backend backend, std::string* why) {
    auto refuse = [&](const char* reason) {
        *why = reason;
        return std::vector<uint8_t>();
    };
    if (blob.size() < kCacheHeaderBytes || std::memcmp(blob.data(), kMagic, 8) != 0)
        return refuse("it is not ripple's cache data (no RPLCACHE header)");
    if (get(blob, 8, 4) != kVersion) return refuse("its envelope version is not 1");
    if (get(blob, 12, 4) != static_cast<uint32_t>(backend)) return refuse("it is another backend's");
    if (get(blob, 16, 8) != blob.size() - kCacheHeaderBytes)
        return refuse("its size disagrees with its header (cut short or extended)");
    if (get(blob, 24, 8) != fnv1a(blob.data() + kCacheHeaderBytes, blob.size() - kCacheHeaderBytes))
        return refuse("its data does not match its hash (damaged)");
    return std::vector<uint8_t>(blob.begin() + kCacheHeaderBytes, blob.end());
}

DeviceOptions withCheckedCacheData(const DeviceOptions& options, Backend backend) {
    DeviceOptions checked = options;
    if (options.pipelineCacheData.empty()) return checked;
    std::string why;
    checked.pipelineCacheData = unwrapCacheData(options.pipelineCacheData, backend, &why);
    if (!why.empty()) {
        const std::string message = "DeviceOptions::pipelineCacheData is ignored: " + why;
        if (options.log)
            options.log(LogLevel::Warning, message);
        else
            std::fprintf(stderr, "ripple: %s\n", message.c_str());
    }
    return checked;
}

} // namespace ripple::detail
