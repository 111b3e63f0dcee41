// SPDX-License-Identifier: MIT
// Emulated device profiles (DeviceOptions::profile, RIPPLE_DEVICE_PROFILE): ripple sees a named GPU class's
// features and limits in place of the adapter's own, clamped to what the adapter has, so that the variant
// choice, the planner's limits and the ticket path of that class run on any machine (lavapipe in CI).
#pragma once

#include "ripple/device.hpp"

#include <string>

namespace ripple::vk {

// Applies the profile `name` to `adapter` (features: both must have them; limits: the smaller; alignment: the
// larger; Vulkan version: the lower). InvalidArgument naming the known profiles for an unknown name.
Status applyProfile(const std::string& name, AdapterInfo& adapter);

// Applies DeviceOptions::profile, or when it is empty the RIPPLE_DEVICE_PROFILE environment variable (tests,
// ripple-run), if either names one; to ripple's own devices and to an engine's adopted ones alike.
Status applyProfileOption(const DeviceOptions& options, AdapterInfo& adapter);

// The known profiles' names, comma-separated.
std::string profileNames();

} // namespace ripple::vk
