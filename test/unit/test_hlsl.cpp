// SPDX-License-Identifier: MIT
// The HLSL that the D3D12 path runs agrees with each variant's Vulkan reflection (issue 4's translation
// proof): every portable variant translated; binding N read-only -> ByteAddressBuffer at tN, written ->
// RWByteAddressBuffer at uN, both in space 0 and nothing else; push constants -> root constants at b0;
// the same workgroup size.
#include "kernels/kernel_info.hpp"

#include <catch2/catch.hpp>

#include <regex>
#include <string>

using namespace ripple::kernels;

TEST_CASE("Every portable kernel variant has HLSL whose registers match its Vulkan bindings",
          "[unit][hlsl]") {
    uint32_t translated = 0;
    for (uint32_t i = 0; i < kKernelCount; ++i) {
        const KernelInfo& k = kKernels[i];
        INFO(k.name);
        if (k.features != 0) {
            CHECK(k.hlsl == nullptr); // needs a device feature: the D3D12 path uses the portable variant
            continue;
        }
        REQUIRE(k.hlsl != nullptr);
        ++translated;
        const std::string h = k.hlsl;
        const std::regex anyRegister(R"((RW)?ByteAddressBuffer \w+ : register\(([tu])(\d+), space(\d+)\))");
        uint32_t declared = 0;
        for (auto it = std::sregex_iterator(h.begin(), h.end(), anyRegister); it != std::sregex_iterator();
             ++it) {
            const std::smatch& m = *it;
            const bool rw = m[1].matched;
            const char kind = m[2].str()[0];
            const uint32_t reg = static_cast<uint32_t>(std::stoul(m[3].str()));
            INFO(m.str());
            CHECK(m[4].str() == "0");
            CHECK(rw == (kind == 'u'));
            bool found = false;
            for (uint32_t b = 0; b < k.bindingCount; ++b) {
                if (k.bindings[b].binding != reg) continue;
                found = true;
                CHECK(k.bindings[b].readOnly == (kind == 't'));
            }
            CHECK(found);
            ++declared;
        }
        CHECK(declared == k.bindingCount);
        if (k.pushConstantBytes)
            CHECK(h.find("cbuffer SPIRV_CROSS_RootConstant_pc : register(b0, space0)") != std::string::npos);
        const std::string threads = "[numthreads(" + std::to_string(k.localSize[0]) + ", " +
                                    std::to_string(k.localSize[1]) + ", " + std::to_string(k.localSize[2]) +
                                    ")]";
        CHECK(h.find(threads) != std::string::npos);
    }
    CHECK(translated >= 40); // copy, both scatters' portable variants, every TopK kernel
}
