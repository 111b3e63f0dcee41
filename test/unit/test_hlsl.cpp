// SPDX-License-Identifier: MIT
// The HLSL that the D3D12 path runs agrees with each variant's Vulkan reflection (issue 4's translation
// proof): every portable variant translated; binding N read-only -> StructuredBuffer<uint> at tN, written ->
// RWStructuredBuffer<uint> at uN (the form every HLSL compiler takes, issue 42), both in space 0 and nothing
// else, and no byte address buffer left; push constants -> root constants at b0;
// the same workgroup size. The HLSL is the test-only round-trip table's (the same translation the library
// embeds where the D3D12 back-end is built, which is checked to be identical).
#include "kernels/round_trip.hpp"
#include "kernels/spirv_pack.hpp"
#include "ripple/version.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <regex>
#include <string>

using namespace ripple::kernels;

TEST_CASE("Every portable kernel variant has HLSL whose registers match its Vulkan bindings",
          "[unit][hlsl]") {
    uint32_t translated = 0;
    for (uint32_t i = 0; i < kKernelCount; ++i) {
        const KernelInfo& k = kKernels[i];
        INFO(k.name);
        const RoundTripKernel* rt = findRoundTrip(kHlslRoundTripTable, k.name);
        bool uniformParams = false;
        for (uint32_t b = 0; b < k.bindingCount; ++b) uniformParams = uniformParams || k.bindings[b].uniform;
        if (k.features != 0 || uniformParams) {
            // Needs a device feature: the D3D12 path uses the portable variant. A small-device variant
            // (uniform params, glsl/include/ripple/common.glsl): every D3D12 device takes the full-size one.
            CHECK(rt == nullptr);
            CHECK(!hasHlsl(k));
            if (uniformParams) {
                const std::string name = k.name;
                CHECK(name.size() > 6);
                CHECK(name.substr(name.size() - 6) == ".small");
                CHECK(k.localSize[0] * k.localSize[1] * k.localSize[2] <= 128);
                CHECK(k.bindings[0].binding == 0);
                CHECK(k.bindings[0].uniform);
            }
            continue;
        }
        REQUIRE(rt != nullptr);
        REQUIRE(rt->hlsl != nullptr);
        CHECK(k.hlsl == nullptr); // ripple's own HLSL is packed (hlslText)
#if defined(RIPPLE_HAS_D3D12)
        std::string text;
        REQUIRE(hasHlsl(k)); // the library embeds what the round trip tested
        REQUIRE(kernelHlsl(k, text));
        CHECK(text == rt->hlsl);
#else
        CHECK(!hasHlsl(k)); // no D3D12 back-end, no HLSL text in the library
#endif
        ++translated;
        const std::string h = rt->hlsl;
        const std::regex anyRegister(
            R"((RW)?StructuredBuffer<uint> \w+ : register\(([tu])(\d+), space(\d+)\))");
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
        CHECK(h.find("ByteAddressBuffer") == std::string::npos);
        if (k.pushConstantBytes)
            CHECK(h.find("cbuffer SPIRV_CROSS_RootConstant_pc : register(b0, space0)") != std::string::npos);
        const std::string threads = "[numthreads(" + std::to_string(k.localSize[0]) + ", " +
                                    std::to_string(k.localSize[1]) + ", " + std::to_string(k.localSize[2]) +
                                    ")]";
        CHECK(h.find(threads) != std::string::npos);
    }
    CHECK(translated >= 40); // copy, both scatters' portable variants, every TopK kernel
    CHECK(translated == kHlslRoundTripTable.count);
}

TEST_CASE("Every embedded kernel unpacks to a SPIR-V module of its declared length", "[unit][kernels]") {
    std::vector<uint32_t> words;
    uint64_t packed = 0, unpacked = 0;
    for (uint32_t i = 0; i < kKernelCount; ++i) {
        const KernelInfo& k = kKernels[i];
        INFO(k.name);
        REQUIRE(unpackSpirv(k.spirv, words));
        REQUIRE(words.size() == k.spirv.words);
        REQUIRE(words.size() > 5);
        CHECK(words[0] == 0x07230203u); // SPIR-V's magic number
        packed += k.spirv.packedBytes;
        unpacked += words.size() * 4;
        if (i > 0) CHECK(std::strcmp(kKernels[i - 1].name, k.name) < 0); // findKernel's binary search
        CHECK(findKernel(k.name) == &k);
    }
    CHECK(findKernel("no_such_kernel") == nullptr);
    CHECK(packed * 2 < unpacked); // the packing is worth having
}

TEST_CASE("Where the build had an HLSL compiler, every variant with HLSL embeds its DXBC, and no other",
          "[unit][hlsl]") {
    const std::string compiler = ripple::d3d12BytecodeCompiler();
    CHECK(compiler == kDxbcCompiler);
#if !defined(RIPPLE_HAS_D3D12)
    CHECK(compiler.empty()); // no D3D12 back-end, no bytecode
#endif
    uint32_t embedded = 0;
    std::vector<uint32_t> words;
    for (uint32_t i = 0; i < kKernelCount; ++i) {
        const KernelInfo& k = kKernels[i];
        INFO(k.name);
        if (compiler.empty() || !hasHlsl(k)) {
            CHECK(k.dxbc.words == 0); // nothing compiled it, or nothing to compile
            CHECK(k.dxbc.packed == nullptr);
            continue;
        }
        REQUIRE(k.dxbc.words > 8);
        REQUIRE(unpackDxbc(k.dxbc, words));
        REQUIRE(words.size() == k.dxbc.words);
        CHECK(std::memcmp(words.data(), "DXBC", 4) == 0); // a DXBC container
        CHECK(words[6] == words.size() * 4);              // of the size its header gives
        ++embedded;
    }
    if (!compiler.empty()) CHECK(embedded >= 40); // copy, both scatters' portable variants, every TopK kernel
    INFO("the D3D12 bytecode's compiler: " << (compiler.empty() ? "none" : compiler));
    SUCCEED();
}

TEST_CASE("The SPIR-V packing round-trips every word and rejects malformed data", "[unit][kernels]") {
    std::mt19937 rng(7);
    std::vector<uint32_t> words = {0, 1, 0x7F, 0x80, 0x3FFF, 0x4000, 0x0FFFFFFF, 0x10000000, 0xFFFFFFFF};
    for (int i = 0; i < 1000; ++i) words.push_back(rng() >> (rng() % 32));
    const std::vector<uint8_t> bytes = spirv_pack::encode(words);
    const std::vector<uint32_t> packed = spirv_pack::toWords(bytes);
    const uint32_t n = static_cast<uint32_t>(bytes.size()), count = static_cast<uint32_t>(words.size());
    std::vector<uint32_t> out;
    REQUIRE(spirv_pack::decode(packed.data(), n, count, out));
    CHECK(out == words);
    CHECK_FALSE(spirv_pack::decode(packed.data(), n, count + 1, out)); // too few words
    CHECK(out.empty());
    CHECK_FALSE(spirv_pack::decode(packed.data(), n, count - 1, out)); // bytes left over
    CHECK_FALSE(spirv_pack::decode(packed.data(), n - 1, count, out)); // a word cut short
    const uint32_t tooLong[2] = {0xFFFFFFFFu, 0x01u};                  // six bytes for one word
    CHECK_FALSE(spirv_pack::decode(tooLong, 6, 1, out));
    const uint32_t over32Bits[2] = {0xFFFFFFFFu, 0x1Fu}; // a fifth byte with more than 4 bits
    CHECK_FALSE(spirv_pack::decode(over32Bits, 5, 1, out));
}

TEST_CASE("The SPIR-V form of the packing round-trips every embedded module and rejects malformed data",
          "[unit][kernels]") {
    std::vector<uint32_t> words, out;
    std::vector<uint8_t> bytes;
    uint64_t plain = 0, spirv = 0;
    for (uint32_t i = 0; i < kKernelCount; ++i) { // every module, repacked, comes back word for word
        INFO(kKernels[i].name);
        REQUIRE(unpackSpirv(kKernels[i].spirv, words));
        REQUIRE(spirv_pack::encodeSpirv(words, bytes));
        const PackedSpirv& s = kKernels[i].spirv; // a delta (kernels/variant_delta.hpp) rebuilds these bytes
        CHECK(bytes.size() == (s.base ? s.expandedBytes : s.packedBytes));
        const std::vector<uint32_t> packed = spirv_pack::toWords(bytes);
        const uint32_t n = static_cast<uint32_t>(bytes.size()), count = static_cast<uint32_t>(words.size());
        REQUIRE(spirv_pack::decodeSpirv(packed.data(), n, count, out));
        CHECK(out == words);
        plain += spirv_pack::encode(words).size();
        spirv += n;
    }
    CHECK(spirv * 5 < plain * 4); // worth its code: at least a fifth smaller than one varint a word

    // A module whose operands change by large steps both ways, and an instruction of over 15 words.
    words = {spirv_pack::kSpirvMagic, 0x00010300, 0, 100, 0};
    std::mt19937 rng(11);
    for (int i = 0; i < 200; ++i) {
        const uint32_t count = 1 + rng() % 20, opcode = rng() % 8 == 0 ? 0xFFFF : 1 + rng() % 6;
        words.push_back(count << 16 | opcode);
        for (uint32_t j = 1; j < count; ++j) words.push_back(rng() >> (rng() % 32));
    }
    REQUIRE(spirv_pack::encodeSpirv(words, bytes));
    std::vector<uint32_t> packed = spirv_pack::toWords(bytes);
    const uint32_t n = static_cast<uint32_t>(bytes.size()), count = static_cast<uint32_t>(words.size());
    REQUIRE(spirv_pack::decodeSpirv(packed.data(), n, count, out));
    CHECK(out == words);
    CHECK_FALSE(spirv_pack::decodeSpirv(packed.data(), n, count + 1, out)); // too few words
    CHECK(out.empty());
    CHECK_FALSE(spirv_pack::decodeSpirv(packed.data(), n, count - 1, out)); // an instruction past the end
    CHECK_FALSE(spirv_pack::decodeSpirv(packed.data(), n - 1, count, out)); // cut short
    CHECK_FALSE(spirv_pack::decodeSpirv(packed.data(), n, 4, out));         // no room for the header
    // One varint a word (the old form, and DXBC's) starts with the magic number, not the tag: refused.
    const std::vector<uint32_t> old = spirv_pack::toWords(spirv_pack::encode(words));
    CHECK_FALSE(spirv_pack::decodeSpirv(old.data(), uint32_t(spirv_pack::encode(words).size()), count, out));
    // An instruction of no words, in the encoder's input and in the packed data.
    std::vector<uint32_t> bad = {spirv_pack::kSpirvMagic, 0x00010300, 0, 10, 0, 0x00000011};
    CHECK_FALSE(spirv_pack::encodeSpirv(bad, bytes));
    CHECK(bytes.empty());
    bad.back() = 0x00030011; // an instruction longer than what is left
    CHECK_FALSE(spirv_pack::encodeSpirv(bad, bytes));
    bad.back() = 0x00010011;
    REQUIRE(spirv_pack::encodeSpirv(bad, bytes));
    REQUIRE(bytes.size() >= 2);
    bytes.pop_back();    // the instruction's two bytes (opcode 0x11, count 1) become one:
    bytes.back() = 0x10; // opcode 1, count 0
    packed = spirv_pack::toWords(bytes);
    CHECK_FALSE(spirv_pack::decodeSpirv(packed.data(), uint32_t(bytes.size()), 6, out));
    CHECK_FALSE(spirv_pack::encodeSpirv({1, 2, 3, 4, 5}, bytes)); // no magic number
}
