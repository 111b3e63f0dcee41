// SPDX-License-Identifier: MIT
// CPU references for the operators, written from SEMANTICS.md by value (not with the GPU's key tricks),
// so a shared mistake is unlikely. Outputs are packed bytes of calcBufferTensorSize(output).
#pragma once

#include "host_tensor.hpp"

namespace rt {

// ScatterND / ScatterElements: out-of-range updates are skipped and counted in *outOfRange. With
// duplicate targets the reference applies updates in row-major order (the last wins, or with a Reduction
// each is combined in that order by combineBits).
std::vector<uint8_t> referenceScatterND(const ripple::ScatterNDDesc& desc, const HostTensor& input,
                                        const HostTensor& indices, const HostTensor& updates,
                                        int* outOfRange);
std::vector<uint8_t> referenceScatterElements(const ripple::ScatterElementsDesc& desc,
                                              const HostTensor& input, const HostTensor& indices,
                                              const HostTensor& updates, int* outOfRange);
// Lists, for each output element, every update element (by linear position) that targets it.
std::vector<std::vector<uint64_t>> scatterTargets(const ripple::ScatterElementsDesc& desc,
                                                  const HostTensor& indices);

void referenceTopK(const ripple::TopKDesc& desc, const HostTensor& input, std::vector<uint8_t>& values,
                   std::vector<uint8_t>& indices);

// A scatter reduction's combination of current element bits a with update bits b (SEMANTICS.md; ripple's
// ScatterReduction): by value, float sums and products rounded once to the type from their exact value.
uint64_t combineBits(ripple::DataType type, uint64_t a, uint64_t b, ripple::ScatterReduction op);

// Promised order of two values of a data type: -1, 0 (equal: -0.0 == +0.0, NaN == NaN) or 1.
int compareValues(ripple::DataType type, uint64_t a, uint64_t b);

} // namespace rt
