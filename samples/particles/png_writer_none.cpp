// SPDX-License-Identifier: MIT
// writePng where the build found no libpng (a MinGW cross-build: Debian packages none for Windows). The
// simulation, its checks and its timings need no image.
#include "png_writer.hpp"

namespace particles {

std::string writePng(const std::string& path, uint32_t, uint32_t, const std::vector<uint32_t>&) {
    return "cannot write " + path + ": this ripple-particles was built without libpng (Debian: libpng-dev)";
}

} // namespace particles
