// SPDX-License-Identifier: MIT
// The build's per-variant steps, each through the kernel cache (kernel_cache.hpp):
//   glsl: GLSL -> SPIR-V (glslangValidator, spirv-val, spirv-opt --strip-debug), with its depfile;
//   hlsl-round-trip: the variant's HLSL compiled back to SPIR-V by glslang's HLSL front end (tests);
//   dxbc: the variant's D3D12 HLSL compiled to shader-model-5.1 bytecode (fxc or tools/vkd3d-tool.sh's).
// Each takes the arguments after its mode's name (ripple_embed.cpp's usage) and returns an exit status.
#pragma once

#include <string>
#include <vector>

namespace ripple_embed {

int glslStep(const std::vector<std::string>& args);
int hlslRoundTripStep(const std::vector<std::string>& args);
int dxbcStep(const std::vector<std::string>& args);

} // namespace ripple_embed

/// One variant's HLSL (ripple_embed.cpp): for glslang's HLSL front end with `roundTrip`, else exactly as the
/// D3D12 back-end compiles it; an empty file when the variant has no D3D12 form.
int hlslForRoundTrip(const std::string& in, const std::string& out, bool roundTrip);
