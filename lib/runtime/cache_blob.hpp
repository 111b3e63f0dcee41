// SPDX-License-Identifier: MIT
// ripple's envelope around a backend's pipeline-cache data (Device::pipelineCacheData,
// DeviceOptions::pipelineCacheData). A cache file corrupted on a player's disk must never reach the driver,
// whose parser may crash on a damaged body behind an intact header (issue 41: lavapipe's SIGFPE), so the data
// travels with a header of ripple's own, checked before anything is handed on:
//   bytes 0-7    magic "RPLCACHE"
//   8-11         envelope version (1)
//   12-15        the backend (ripple::Backend)
//   16-23        the data's size in bytes
//   24-31        FNV-1a 64 of the data
//   32-35        vendorID, 36-39 deviceID of the adapter that wrote it (for a reader's diagnostics; the
//                backend checks its own header: Vulkan's vendor, device and pipelineCacheUUID)
//   40-47        zero
//   48-63        its pipelineCacheUUID
//   64-          the backend's data (Vulkan: vkGetPipelineCacheData's, with its own header checked again)
// All little-endian. FNV-1a catches damage, not an attacker who rewrites the hash: a crafted body still
// reaches the driver, as with any cache data.
#pragma once

#include "ripple/device.hpp"

#include <string>
#include <vector>

namespace ripple::detail {

constexpr size_t kCacheHeaderBytes = 64;

// The envelope around `data` as `adapter` made it.
std::vector<uint8_t> wrapCacheData(const std::vector<uint8_t>& data, const AdapterInfo& adapter);

// The backend's data inside `blob` when it is intact and from `backend`; else empty, with `why` set.
std::vector<uint8_t> unwrapCacheData(const std::vector<uint8_t>& blob, Backend backend, std::string* why);

// `options` with pipelineCacheData replaced by the checked data inside it (empty and a warning to the
// options' log when it does not check out), for the backends.
DeviceOptions withCheckedCacheData(const DeviceOptions& options, Backend backend);

} // namespace ripple::detail
