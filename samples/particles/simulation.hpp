// SPDX-License-Identifier: MIT
// The particles sample on the GPU: one submission per frame of two user kernels (advect.comp, shade.comp)
// and two ripple operators (a ScatterElements ADD that splats the masses into the density grid, a TopK
// that picks the densest cells), ordered by the recorder's automatic barriers.
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

    /// Records frame `frame`: zero the grid, advect, splat, top K, shade (labels "advect", "splat",
    /// "topk", "shade" in Device::reports).
    ripple::Status record(ripple::CommandRecorder& recorder, uint32_t frame);

    /// Downloads (after the frame's submission completed).
    ripple::Status grid(std::vector<uint32_t>& bits) const; ///< width * height element bits
    ripple::Status top(std::vector<uint32_t>& values, std::vector<uint32_t>& indices) const; ///< K each
    ripple::Status image(std::vector<uint32_t>& rgba) const; ///< RGBA8 per cell
    const Config& config() const { return config_; }

  private:
    ripple::Device* device_ = nullptr;
    Config config_;
    ripple::Kernel advect_, shade_;
    ripple::Operator splat_, topk_;
    ripple::Buffer state_, cells_, masses_, grid_, topValues_, topIndices_, image_;
};

} // namespace particles
