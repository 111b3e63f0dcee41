// SPDX-License-Identifier: MIT
// HLSL to shader-model-5.1 bytecode at run time, where the D3D12 back-end makes a pipeline: D3DCompile on
// Windows; on Linux (ripple's own tests over vkd3d) vkd3d-shader through tools/vkd3d-tool.sh's glue library,
// loaded from the path in RIPPLE_D3D12_HLSL_COMPILER when that is set (docs/D3D12.md).
#pragma once

#include "ripple/status.hpp"

#include <cstdint>
#include <vector>

namespace ripple::d3d12 {

/// The DXBC for `hlsl` (entry point "main", profile cs_5_1). Unsupported where no compiler is present;
/// Internal, with the compiler's messages, where it rejects the source. Thread-safe.
Result<std::vector<uint8_t>> compileHlsl(const char* hlsl, const char* name);

} // namespace ripple::d3d12
