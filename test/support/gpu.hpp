// SPDX-License-Identifier: MIT
// Running operators on the test device: shared devices with validation on, poisoned outputs, guard bytes
// around every tensor, and validation messages failing the test.
#pragma once

#include "host_tensor.hpp"

#include <string>
#include <vector>

namespace rt {

// The shared test device (validation layer on) for a kernel preference; the test fails if it cannot be made.
// With RIPPLE_TEST_KERNELS=hlsl every device runs the HLSL round trip of the D3D12 path instead; with
// RIPPLE_TEST_KERNELS=d3d12 every device is a Backend::D3D12 one (vkd3d on Linux, its HLSL compiled by the
// library RIPPLE_D3D12_HLSL_COMPILER names: the d3d12-real tests).
ripple::Device& device(ripple::KernelPreference preference = ripple::KernelPreference::Auto);
// A device of its own on the back-end under test (validation layer on), for tests that change a device's
// state (faults, memory counts) or need options of their own (`options`, with validation and the back-end
// set here); the test fails if it cannot be made.
ripple::Device freshDevice(ripple::DeviceOptions options = {});
// Whether this run tests the D3D12 path's kernels (RIPPLE_TEST_KERNELS=hlsl or d3d12): 64-bit scatters are
// then Unsupported.
bool hlslRoundTrip();
// The kernel preferences whose devices run different variants in this run: Auto and Portable, or Portable
// alone under the HLSL round trip (RIPPLE_TEST_KERNELS=hlsl), where both take each kernel's portable variant
// first (runtime/device.cpp's chooseKernel) and a second pass would run the same SPIR-V again.
std::vector<ripple::KernelPreference> kernelPreferences();
// Whether the shared devices are Backend::D3D12 ones (RIPPLE_TEST_KERNELS=d3d12).
bool onD3D12();
// Whether the tests' devices ask ripple for the validation layer (DeviceOptions::validation): yes, unless
// RIPPLE_TEST_VALIDATION=host, where the process's Vulkan loader cannot list the layer but the host's loader
// beneath it runs it (VK_INSTANCE_LAYERS): Wine's winevulkan (tools/ci-wine.sh), whose job then fails on
// the layer's own "Validation Error" lines.
bool testValidation();

struct GpuResult {
    ripple::Status status;
    std::vector<std::vector<uint8_t>> outputs; // calcBufferTensorSize bytes each
};

// Each tensor gets its own buffer and sits at offset bindingAlignment() with guard bytes before and after.
// Outputs are poisoned (0xA5) before the run; CHECKs that no guard byte changed and that the validation
// layer reported nothing.
GpuResult runOnGpu(ripple::Device& device, const ripple::Operator& op,
                   const std::vector<const HostTensor*>& inputs,
                   const std::vector<ripple::TensorDesc>& outputs);

// "" when equal, else where the first difference is.
std::string firstDifference(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                            uint32_t elementSize);

} // namespace rt
