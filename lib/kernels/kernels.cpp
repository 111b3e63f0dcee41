// SPDX-License-Identifier: MIT
// Lookups in the generated tables, and unpacking their SPIR-V.
#include "kernels/round_trip.hpp"
#include "kernels/spirv_pack.hpp"
#include "kernels/variant_delta.hpp"

#include <algorithm>
#include <atomic>
#include <string>

namespace ripple::kernels {

namespace {
std::atomic<const RoundTripTable*> gRoundTrip{nullptr};

template <class T> const T* findByName(const T* begin, const T* end, std::string_view name) {
    auto it = std::lower_bound(begin, end, name, [](const T& k, std::string_view n) { return k.name < n; });
    return it != end && it->name == name ? it : nullptr;
}
} // namespace

const KernelInfo* findKernel(std::string_view name) {
    return findByName(kKernels, kKernels + kKernelCount, name);
}

bool unpackSpirv(const PackedSpirv& spirv, std::vector<uint32_t>& words) {
    if (!spirv.base) return spirv_pack::decodeSpirv(spirv.packed, spirv.packedBytes, spirv.words, words);
    // A module's varint bytes number at most 5 a word, and 5 more for the count of an instruction of 15
    // words or more: a larger expandedBytes is malformed, and would only allocate.
    std::vector<uint32_t> bytes;
    if (spirv.expandedBytes > 6ull * spirv.words ||
        !variant_delta::decode(spirv.base, spirv.baseBytes, spirv.packed, spirv.packedBytes,
                               spirv.expandedBytes, bytes))
        return words.clear(), false;
    return spirv_pack::decodeSpirv(bytes.data(), spirv.expandedBytes, spirv.words, words);
}

bool unpackDxbc(const PackedSpirv& dxbc, std::vector<uint32_t>& words) {
    if (!dxbc.base) return spirv_pack::decode(dxbc.packed, dxbc.packedBytes, dxbc.words, words);
    // One varint a word, at most 5 bytes each: a larger expandedBytes is malformed, and would only allocate.
    std::vector<uint32_t> bytes;
    if (dxbc.expandedBytes > 5ull * dxbc.words ||
        !variant_delta::decode(dxbc.base, dxbc.baseBytes, dxbc.packed, dxbc.packedBytes, dxbc.expandedBytes,
                               bytes))
        return words.clear(), false;
    return spirv_pack::decode(bytes.data(), dxbc.expandedBytes, dxbc.words, words);
}

bool hasHlsl(const KernelInfo& kernel) {
    return kernel.hlsl || kernel.hlslText.packed;
}

bool kernelHlsl(const KernelInfo& kernel, std::string& text) {
    text.clear();
    if (kernel.hlsl) return text = kernel.hlsl, true;
    const PackedText& t = kernel.hlslText;
    if (!t.packed) return false;
    std::vector<uint32_t> copied;
    const uint32_t* bytes = t.packed;
    if (t.base) {
        if (!variant_delta::decode(t.base, t.baseBytes, t.packed, t.packedBytes, t.bytes, copied))
            return false;
        bytes = copied.data();
    } else if (t.packedBytes != t.bytes) {
        return false;
    }
    text.resize(t.bytes);
    for (uint32_t i = 0; i < t.bytes; ++i)
        text[i] = static_cast<char>((bytes[i / 4] >> (8 * (i % 4))) & 0xFFu);
    return true;
}

void installHlslRoundTrip(const RoundTripTable* table) {
    gRoundTrip.store(table);
}

const RoundTripTable* hlslRoundTrip() {
    return gRoundTrip.load();
}

const RoundTripKernel* findRoundTrip(const RoundTripTable& table, std::string_view name) {
    return findByName(table.kernels, table.kernels + table.count, name);
}

} // namespace ripple::kernels
