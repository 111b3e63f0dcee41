// SPDX-License-Identifier: MIT
// The particles sample on the GPU, recorded once and replayed every frame (docs/FRAME_LOOP.md): three user
// kernels (tick.comp advances the frame and the live count on the GPU, advect.comp moves the live
// particles, optionally dispatched indirectly by that count, shade.comp) and three ripple operators (a
// ScatterElements ADD that splats the live particles' masses into the density grid and a TopK of the fastest
// live particles, both with the live count as their CountTensor, and a TopK of the densest cells), ordered by
// the recorder's automatic barriers.
#pragma once

#include "scene.hpp"

#include <ripple/ripple.hpp>

#include <cstdint>
#include <vector>

namespace particles {

/// Which compiled form of the sample's kernels to run.
enum class KernelForm {
    Spirv,         ///< the SPIR-V glslang compiled from the GLSL
    HlslRoundTrip, ///< their D3D12 HLSL compiled back to SPIR-V (ripple_add_kernels' HLSL_ROUND_TRIP)
};

class Simulation {
  public:
    /// Compiles the kernels and operators and uploads the starting state. InvalidArgument for an empty
    /// scene, a K over the cells, or sizes whose buffers overflow.
    static ripple::Result<Simulation> create(ripple::Device& device, const Config& config,
                                             KernelForm form = KernelForm::Spirv);

    /// Records one frame, the same commands every frame: zero the grid, advect, splat, top K, fastest,
    /// shade, then tick, the next frame's step (labels "advect", "splat", "topk", "fastest", "shade",
    /// "tick" in Device::reports).
    /// Submitted again (as a Recording) it runs the next frame.
    ripple::Status record(ripple::CommandRecorder& recorder);

    /// Downloads (after the frame's submission completed).
    ripple::Status grid(std::vector<uint32_t>& bits) const; ///< width * height element bits
    ripple::Status top(std::vector<uint32_t>& values, std::vector<uint32_t>& indices) const; ///< K each
    ripple::Status image(std::vector<uint32_t>& rgba) const; ///< RGBA8 per cell
    ripple::Status alive(uint32_t& count) const;             ///< the last frame's live particles
    /// The fastest live particles: min(k, count) speeds and particle numbers (past the live count, TopK's
    /// fill: INT32's least and the position).
    ripple::Status fastest(std::vector<int32_t>& speeds, std::vector<uint32_t>& particles) const;
    const Config& config() const { return config_; }

  private:
    ripple::Device* device_ = nullptr;
    Config config_;
    ripple::Kernel tick_, advect_, shade_;
    ripple::Operator splat_, topk_, fastest_;
    ripple::Buffer state_, cells_, masses_, grid_, topValues_, topIndices_, image_;
    ripple::Buffer alive_, frame_, attractors_, speeds_, fastValues_, fastIndices_;
};

} // namespace particles
