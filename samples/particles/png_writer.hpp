// SPDX-License-Identifier: MIT
// Writes an RGBA8 image as a PNG through libpng, all or nothing: into a temporary file beside the target,
// renamed over it only once complete.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace particles {

/// `rgba`: width * height pixels, R in the low byte. Returns an empty string, or what failed.
std::string writePng(const std::string& path, uint32_t width, uint32_t height,
                     const std::vector<uint32_t>& rgba);

} // namespace particles
