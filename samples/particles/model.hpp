// SPDX-License-Identifier: MIT
// The particles sample's CPU model: the same frames as the GPU simulation, computed on the host, so that a
// run can be checked element by element (grid, TopK, image).
#pragma once

#include "scene.hpp"

#include <cstdint>
#include <vector>

namespace particles {

class Model {
  public:
    explicit Model(const Config& config);
    /// Advances to frame `frame` (advect, splat in particle order, top K, shade), as Simulation::record.
    void step(uint32_t frame);

    const std::vector<int32_t>& state() const { return state_; }            ///< (x, y, vx, vy) per particle
    const std::vector<uint32_t>& grid() const { return grid_; }             ///< element bits, width * height
    const std::vector<uint32_t>& topValues() const { return topValues_; }   ///< K element bits
    const std::vector<uint32_t>& topIndices() const { return topIndices_; } ///< K cells
    const std::vector<uint32_t>& image() const { return image_; }           ///< RGBA8 per cell

  private:
    Config config_;
    std::vector<int32_t> state_;
    std::vector<uint32_t> masses_, grid_, topValues_, topIndices_, image_;
};

} // namespace particles
