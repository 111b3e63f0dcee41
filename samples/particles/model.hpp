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
    /// Advances to frame `frame` (tick, advect, splat in particle order, top K, fastest, shade), as the
    /// commands Simulation::record records. Frames must come in order from 0.
    void step(uint32_t frame);

    const std::vector<int32_t>& state() const { return state_; }            ///< (x, y, vx, vy) per particle
    const std::vector<uint32_t>& grid() const { return grid_; }             ///< element bits, width * height
    const std::vector<uint32_t>& topValues() const { return topValues_; }   ///< K element bits
    const std::vector<uint32_t>& topIndices() const { return topIndices_; } ///< K cells
    const std::vector<uint32_t>& image() const { return image_; }           ///< RGBA8 per cell
    uint32_t alive() const { return alive_; }                               ///< live particles
    const std::vector<int32_t>& fastValues() const { return fastValues_; }  ///< min(k, count) speeds
    const std::vector<uint32_t>& fastIndices() const { return fastIndices_; } ///< their particles

  private:
    Config config_;
    std::vector<int32_t> state_, attractors_, fastValues_;
    std::vector<uint32_t> masses_, grid_, topValues_, topIndices_, image_, fastIndices_;
    uint32_t alive_ = 0;
};

} // namespace particles
