// SPDX-License-Identifier: MIT
// libFuzzer target: what Device::compile reads of a user's KernelSource before any driver sees it (issue 41),
// no GPU. The first byte picks the input's form: packed SPIR-V bytes for kernels::unpackSpirv (the
// form ripple_add_kernels embeds, or as copies from a base: the registry's, kernels/variant_delta.hpp), or
// raw SPIR-V words for the interface reader (kernels/spirv_interface.hpp), the shared-memory sizer and the
// struct-against-SPIR-V check, with the struct's fields from the next 24 bytes. None may crash, read past the
// words or allocate without bound; a check that passes must agree with the reader.
#include "kernels/spirv_interface.hpp"
#include "kernels/spirv_shared.hpp"
#include "runtime/objects.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace ripple;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
    if (size < 25) return 0;
    const uint8_t mode = bytes[0];
    KernelSource s;
    s.Name = "fuzz";
    const uint8_t* f = bytes + 1;
    for (int i = 0; i < 3; ++i) s.LocalSize[i] = f[i] == 0xFF ? 0xFFFFFFFFu : f[i];
    s.PushConstantBytes = f[3];
    s.BindingCount = f[4] % (kMaxKernelBindings + 2);
    for (uint32_t i = 0; i < kMaxKernelBindings; ++i) {
        s.Bindings[i].Binding = f[5 + i] == 0xFF ? 4000000000u : f[5 + i];
        s.Bindings[i].Access = static_cast<BindingAccess>(f[13 + i] % 3);
    }
    s.Features = f[21] | uint32_t(f[22]) << 8;
    s.SpirvWords = f[23] ? uint32_t(f[23]) * 16 : 0;
    const uint8_t* body = bytes + 25;
    const size_t bodySize = size - 25;
    std::vector<uint32_t> words((bodySize + 3) / 4, 0u);
    if (bodySize) std::memcpy(words.data(), body, bodySize);
    std::vector<uint32_t> base, tokens; // mode & 2: the body is a u16 base size, the base, then copies
    if (mode & 1) {                     // packed bytes, as the struct holds them
        kernels::PackedSpirv packed{words.data(), static_cast<uint32_t>(bodySize), s.SpirvWords};
        if ((mode & 2) && bodySize >= 2) {
            const uint32_t baseBytes = std::min<uint32_t>(body[0] | body[1] << 8, uint32_t(bodySize - 2));
            const uint32_t tokenBytes = uint32_t(bodySize - 2 - baseBytes);
            base.assign((baseBytes + 3) / 4, 0u);
            tokens.assign((tokenBytes + 3) / 4, 0u);
            if (baseBytes) std::memcpy(base.data(), body + 2, baseBytes);
            if (tokenBytes) std::memcpy(tokens.data(), body + 2 + baseBytes, tokenBytes);
            packed = {tokens.data(), tokenBytes, s.SpirvWords,
                      base.data(),   baseBytes,  s.SpirvWords * (mode >> 5)}; // 0 to 7 bytes a word
        }
        std::vector<uint32_t> unpacked;
        if (kernels::unpackSpirv(packed, unpacked) && unpacked.size() != s.SpirvWords) std::abort();
        words = std::move(unpacked);
        if (words.empty()) return 0;
    }
    const kernels::SpirvInterface spv = kernels::readSpirvInterface(words.data(), words.size());
    (void)kernels::workgroupBytes(words.data(), words.size());
    // The same with specialization values given (any SpecId the module names takes them).
    const kernels::SpecValue spec[] = {{0, 1024}, {1, 0xFFFFFFFFu}, {2, 0}};
    (void)kernels::workgroupBytes(words.data(), words.size(), spec, 3);
    if (s.BindingCount > kMaxKernelBindings) return 0; // compile refuses it before reading the SPIR-V
    const Status st = detail::checkKernelSource(s, words);
    if (st.ok()) { // accepted: the struct is what the module declares
        if (!spv.error.empty() || spv.entryPoints != 1 || s.BindingCount != spv.bindings.size() ||
            s.PushConstantBytes != spv.pushConstantBytes ||
            std::memcmp(s.LocalSize, spv.localSize, sizeof s.LocalSize) != 0)
            std::abort();
    } else if (st.code() != StatusCode::InvalidArgument || st.message().find("fuzz") == std::string::npos) {
        std::abort();
    }
    return 0;
}
