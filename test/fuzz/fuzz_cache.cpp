// SPDX-License-Identifier: MIT
// libFuzzer target: the pipeline-cache envelope (runtime/cache_blob.hpp) on arbitrary bytes, no GPU (issue
// 41). Unwrapping must never crash or read past the bytes; what it accepts is exactly the data its header
// announces, which wraps back to the same bytes; anything else is refused with a reason.
#include "runtime/cache_blob.hpp"

#include <cstdlib>
#include <cstring>

using namespace ripple;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
    const std::vector<uint8_t> blob(bytes, bytes + size);
    for (Backend backend : {Backend::Vulkan, Backend::D3D12}) {
        std::string why;
        const std::vector<uint8_t> data = detail::unwrapCacheData(blob, backend, &why);
        if (why.empty()) {
            if (size < detail::kCacheHeaderBytes || data.size() != size - detail::kCacheHeaderBytes)
                std::abort();
            if (!data.empty() &&
                std::memcmp(data.data(), bytes + detail::kCacheHeaderBytes, data.size()) != 0)
                std::abort();
            AdapterInfo adapter;
            adapter.backend = backend;
            adapter.vendorId = uint32_t(bytes[32]) | uint32_t(bytes[33]) << 8 | uint32_t(bytes[34]) << 16 |
                               uint32_t(bytes[35]) << 24;
            adapter.deviceId = uint32_t(bytes[36]) | uint32_t(bytes[37]) << 8 | uint32_t(bytes[38]) << 16 |
                               uint32_t(bytes[39]) << 24;
            std::memcpy(adapter.pipelineCacheUUID, bytes + 48, 16);
            const std::vector<uint8_t> again = detail::wrapCacheData(data, adapter);
            if (std::memcmp(again.data(), bytes, 40) != 0 ||
                std::memcmp(again.data() + 48, bytes + 48, 16) != 0)
                std::abort();
        } else if (!data.empty()) {
            std::abort();
        }
    }
    return 0;
}
