// SPDX-License-Identifier: MIT
// The SPIR-V readers that see users' modules before any driver does (issue 41): the interface reader
// (kernels/spirv_interface.hpp) and the shared-memory sizer (kernels/spirv_shared.hpp), on real modules and
// on hostile ones. test/fuzz/fuzz_kernel_source.cpp explores further in CI's sanitizer job.
#include "kernels/kernel_info.hpp"
#include "kernels/spirv_interface.hpp"
#include "kernels/spirv_shared.hpp"

#include <catch2/catch.hpp>

#include <cstring>

using namespace ripple::kernels;

namespace {

// A minimal module: header, then `body`.
std::vector<uint32_t> module(std::vector<uint32_t> body) {
    std::vector<uint32_t> w = {0x07230203u, 0x00010300u, 0, 100, 0};
    w.insert(w.end(), body.begin(), body.end());
    return w;
}
constexpr uint32_t op(uint32_t code, uint32_t words) {
    return words << 16 | code;
}

} // namespace

TEST_CASE("The interface reader agrees with ripple-embed's reflection on every embedded variant",
          "[unit][spirv]") {
    for (uint32_t i = 0; i < kKernelCount; ++i) {
        const KernelInfo& k = kKernels[i];
        INFO(k.name);
        std::vector<uint32_t> words;
        REQUIRE(unpackSpirv(k.spirv, words));
        const SpirvInterface spv = readSpirvInterface(words.data(), words.size());
        REQUIRE(spv.error.empty());
        CHECK(spv.entryPoints == 1);
        CHECK_FALSE(spv.localSizeFromConstants);
        CHECK(std::memcmp(spv.localSize, k.localSize, sizeof k.localSize) == 0);
        CHECK(spv.pushConstantBytes == k.pushConstantBytes);
        REQUIRE(spv.bindings.size() >= k.bindingCount); // aliased views of one binding are one binding
        for (uint32_t b = 0; b < k.bindingCount; ++b) {
            bool found = false;
            for (const SpirvBinding& s : spv.bindings) {
                if (s.binding != k.bindings[b].binding) continue;
                found = true;
                CHECK(s.uniform == k.bindings[b].uniform);
                if (k.bindings[b].readOnly && !k.bindings[b].uniform)
                    CHECK(s.readOnly); // uniforms: read-only as such
            }
            CHECK(found);
        }
        // ripple-embed adds FeatureFullSubgroups itself; every other bit comes from the capabilities.
        CHECK((spv.features & ~k.features) == 0);
    }
}

TEST_CASE("Shared arrays sized by specialization constants: the defaults, or the values given by SpecId",
          "[unit][spirv]") {
    // As glslang makes `layout(local_size_x = 128, local_size_x_id = 0) in; shared uint s[gl_WorkGroupSize.x
    // * 2u];`: the workgroup size a composite of specialization constants, the length an operation on it.
    auto sized = [](uint32_t opcode, uint32_t operand) {
        return module({
            op(71, 4), 10, 1,  0,               // OpDecorate %10 SpecId 0
            op(21, 4), 1,  32, 0,               // %1 = OpTypeInt 32 0
            op(43, 4), 1,  2,  1,               // %2 = OpConstant %1 1
            op(23, 4), 3,  1,  3,               // %3 = OpTypeVector %1 3
            op(50, 4), 1,  10, 128,             // %10 = OpSpecConstant %1 128
            op(51, 6), 3,  11, 10,      2,  2,  // %11 = OpSpecConstantComposite %3 %10 %2 %2
            op(52, 6), 1,  12, 81,      11, 0,  // %12 = OpSpecConstantOp %1 CompositeExtract %11 0
            op(43, 4), 1,  13, operand,         // %13 = OpConstant %1 operand
            op(52, 6), 1,  14, opcode,  12, 13, // %14 = OpSpecConstantOp %1 opcode %12 %13
            op(28, 4), 4,  1,  14,              // %4 = OpTypeArray %1 %14
            op(32, 4), 5,  4,  4,               // %5 = OpTypePointer Workgroup %4
            op(59, 4), 5,  6,  4,               // %6 = OpVariable %5 Workgroup
        });
    };
    const std::vector<uint32_t> twice = sized(132, 2); // OpIMul by 2
    CHECK(workgroupBytes(twice.data(), twice.size()) == 128 * 2 * 4);
    const SpecValue at256[] = {{0, 256}}, at1024[] = {{0, 1024}}, other[] = {{7, 999}};
    CHECK(workgroupBytes(twice.data(), twice.size(), at256, 1) == 256 * 2 * 4);
    CHECK(workgroupBytes(twice.data(), twice.size(), at1024, 1) == 1024 * 2 * 4);
    CHECK(workgroupBytes(twice.data(), twice.size(), other, 1) == 128 * 2 * 4);
    const std::vector<uint32_t> shifted = sized(196, 3), divided = sized(134, 4); // << 3, / 4
    CHECK(workgroupBytes(shifted.data(), shifted.size(), at256, 1) == 256 * 8 * 4);
    CHECK(workgroupBytes(divided.data(), divided.size(), at256, 1) == 256 / 4 * 4);
    // Unsizable, so over every limit: a product past 32 bits, a division by zero, a shift of 32 or more, an
    // opcode the scan does not evaluate (OpSDiv), an extract past the composite.
    const SpecValue huge[] = {{0, 0x80000000u}};
    CHECK(workgroupBytes(twice.data(), twice.size(), huge, 1) == UINT32_MAX);
    const std::vector<uint32_t> byZero = sized(134, 0), byShift = sized(196, 32), signedDiv = sized(135, 2);
    CHECK(workgroupBytes(byZero.data(), byZero.size()) == UINT32_MAX);
    CHECK(workgroupBytes(byShift.data(), byShift.size()) == UINT32_MAX);
    CHECK(workgroupBytes(signedDiv.data(), signedDiv.size()) == UINT32_MAX);
    std::vector<uint32_t> pastEnd = twice;
    for (size_t i = 5; i + 5 < pastEnd.size(); ++i)
        if (pastEnd[i] == op(52, 6) && pastEnd[i + 3] == 81) pastEnd[i + 5] = 3; // CompositeExtract %11 3
    CHECK(workgroupBytes(pastEnd.data(), pastEnd.size()) == UINT32_MAX);
}

TEST_CASE("Hostile modules: no division by zero, no wrap-around, no read past the words", "[unit][spirv]") {
    // An 8-byte workgroup variable of a 0-bit integer type: once a division by zero in the sizer.
    const std::vector<uint32_t> zeroWidth = module({
        op(21, 4), 1, 0, 0, // %1 = OpTypeInt 0 0
        op(32, 4), 2, 4, 1, // %2 = OpTypePointer Workgroup %1
        op(59, 4), 2, 3, 4, // %3 = OpVariable %2 Workgroup
    });
    CHECK(workgroupBytes(zeroWidth.data(), zeroWidth.size()) == UINT32_MAX);
    // Arrays of 2^32 - 1 arrays of 2^32 - 1 words: over every limit, never a small size after wrapping.
    const std::vector<uint32_t> nested = module({
        op(21, 4), 1, 32, 0,           // %1 = OpTypeInt 32 0
        op(43, 4), 1, 2,  0xFFFFFFFFu, // %2 = OpConstant %1 0xFFFFFFFF
        op(28, 4), 3, 1,  2,           // %3 = OpTypeArray %1 %2
        op(28, 4), 4, 3,  2,           // %4 = OpTypeArray %3 %2
        op(28, 4), 5, 4,  2,           // %5 = OpTypeArray %4 %2
        op(32, 4), 6, 4,  5,           // %6 = OpTypePointer Workgroup %5
        op(59, 4), 6, 7,  4,           // %7 = OpVariable %6 Workgroup
    });
    CHECK(workgroupBytes(nested.data(), nested.size()) == UINT32_MAX);
    // A 1-word OpTypeBool (or OpTypeStruct) as the last instruction: once a read one word past the module,
    // found by ripple-fuzz-kernel-source in CI.
    for (uint32_t opcode : {20u, 30u}) {
        const std::vector<uint32_t> oneWord = module({op(opcode, 1)});
        CHECK(workgroupBytes(oneWord.data(), oneWord.size()) == 0);
    }
    // Vectors of vectors of a 2^40-byte array: each level multiplies size and alignment by 4, which would
    // wrap a 64-bit size to 0 after a dozen levels. Saturated, the sizer still says 'over every limit'.
    std::vector<uint32_t> chain = {
        op(21, 4), 1, 32, 0,          // %1 = OpTypeInt 32 0
        op(43, 4), 1, 2,  0x40000000, // %2 = OpConstant %1 2^30
        op(28, 4), 3, 1,  2,          // %3 = OpTypeArray %1 %2 (2^32 bytes)
        op(28, 4), 4, 3,  2,          // %4 = OpTypeArray %3 %2 (saturated)
    };
    uint32_t last = 4;
    for (uint32_t level = 0; level < 40; ++level, ++last)
        chain.insert(chain.end(), {op(23, 4), last + 1, last, 4});
    chain.insert(chain.end(), {op(32, 4), 100, 4, last, op(59, 4), 100, 101, 4});
    const std::vector<uint32_t> vectors = module(chain);
    CHECK(workgroupBytes(vectors.data(), vectors.size()) == UINT32_MAX);
    // An instruction whose word count runs past the end.
    std::vector<uint32_t> cut = module({op(21, 9), 1, 32});
    CHECK(workgroupBytes(cut.data(), cut.size()) == UINT32_MAX);
    CHECK_FALSE(readSpirvInterface(cut.data(), cut.size()).error.empty());
    // No magic number, or too short to have a header.
    const uint32_t junk[3] = {1, 2, 3};
    CHECK_FALSE(readSpirvInterface(junk, 3).error.empty());
    CHECK_FALSE(readSpirvInterface(nullptr, 0).error.empty());
    // A push-constant block of an array whose stride times length would wrap to 8 bytes.
    const std::vector<uint32_t> wrap = module({
        op(71, 4), 3, 6,  0x80000000u,    // OpDecorate %3 ArrayStride 2^31
        op(72, 5), 4, 0,  35,          0, // OpMemberDecorate %4 0 Offset 0
        op(21, 4), 1, 32, 0,              // %1 = OpTypeInt 32 0
        op(43, 4), 1, 2,  0x00000002u,    // %2 = OpConstant %1 2 (2 * 2^31 = 2^32)
        op(28, 4), 3, 1,  2,              // %3 = OpTypeArray %1 %2
        op(30, 3), 4, 3,                  // %4 = OpTypeStruct %3
        op(32, 4), 5, 9,  4,              // %5 = OpTypePointer PushConstant %4
        op(59, 4), 5, 6,  9,              // %6 = OpVariable %5 PushConstant
    });
    const SpirvInterface w = readSpirvInterface(wrap.data(), wrap.size());
    CHECK((!w.error.empty() || w.pushConstantBytes > 128));
}
