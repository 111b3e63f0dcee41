// SPDX-License-Identifier: MIT
// The embedded variants stored as copies from their kernel's base variant (kernels/variant_delta.hpp): every
// one rebuilds its module, the registry holds them so, and malformed tokens are refused, never read past.
#include "kernels/kernel_info.hpp"
#include "kernels/variant_delta.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>

using namespace ripple::kernels;

namespace {
std::string kernelOf(const char* name) {
    const std::string n = name;
    return n.substr(0, n.find('.'));
}
} // namespace

TEST_CASE("Each kernel's variants but its first are copies from the first, about half their size",
          "[unit][kernels]") {
    uint64_t expanded = 0, stored = 0;
    uint32_t deltas = 0;
    for (uint32_t i = 0; i < kKernelCount; ++i) {
        const KernelInfo& k = kKernels[i];
        INFO(k.name);
        const bool first = i == 0 || kernelOf(kKernels[i - 1].name) != kernelOf(k.name);
        if (first) {
            CHECK(k.spirv.base == nullptr);
            continue;
        }
        REQUIRE(k.spirv.base != nullptr);
        // The base is the kernel's first variant, itself no delta: one step unpacks any variant.
        const KernelInfo* base = &k;
        while (base > kKernels && kernelOf((base - 1)->name) == kernelOf(k.name)) --base;
        CHECK(k.spirv.base == base->spirv.packed);
        CHECK(k.spirv.baseBytes == base->spirv.packedBytes);
        CHECK(base->spirv.base == nullptr);
        std::vector<uint32_t> words;
        REQUIRE(unpackSpirv(k.spirv, words));
        CHECK(words.size() == k.spirv.words);
        CHECK(words[0] == spirv_pack::kSpirvMagic);
        expanded += k.spirv.expandedBytes;
        stored += k.spirv.packedBytes;
        ++deltas;
    }
    CHECK(deltas > kKernelCount / 2);
    CHECK(stored * 10 < expanded * 6); // worth its code: the deltas 40% smaller at least (about 60% on main)
}

TEST_CASE("The copies rebuild any bytes over any base and refuse malformed tokens", "[unit][kernels]") {
    std::mt19937 rng(5);
    std::vector<uint8_t> base(3000), variant;
    for (uint8_t& b : base) b = uint8_t(rng() % 7); // runs repeat, as a kernel's variants do
    for (int i = 0; i < 60; ++i) {                  // pieces of the base, changed bytes, and repeats
        const size_t at = rng() % 2900, n = 1 + rng() % 90;
        variant.insert(variant.end(), base.begin() + at, base.begin() + at + n);
        variant.push_back(uint8_t(rng()));
        if (i % 7 == 0) variant.insert(variant.end(), 40, uint8_t(i)); // a copy overlapping what it makes
    }
    const std::vector<uint8_t> tokens = variant_delta::encode(base, variant);
    CHECK(tokens.size() * 3 < variant.size()); // it found the copies
    const std::vector<uint32_t> b = spirv_pack::toWords(base), t = spirv_pack::toWords(tokens),
                                want = spirv_pack::toWords(variant);
    const uint32_t nb = uint32_t(base.size()), nt = uint32_t(tokens.size()), nv = uint32_t(variant.size());
    std::vector<uint32_t> out;
    REQUIRE(variant_delta::decode(b.data(), nb, t.data(), nt, nv, out));
    CHECK(out == want);
    CHECK_FALSE(variant_delta::decode(b.data(), nb, t.data(), nt, nv + 1, out)); // too few bytes made
    CHECK(out.empty());
    CHECK_FALSE(variant_delta::decode(b.data(), nb, t.data(), nt, nv - 1, out)); // a copy past the end
    CHECK_FALSE(variant_delta::decode(b.data(), nb, t.data(), nt - 1, nv, out)); // tokens cut short
    // Copies that reach before the base: the same tokens over a shorter base.
    CHECK_FALSE(variant_delta::decode(b.data(), 10, t.data(), nt, nv, out));
    // An empty variant is one literal count of 0; with no base every byte is a literal.
    REQUIRE(variant_delta::decode(b.data(), nb, spirv_pack::toWords({0}).data(), 1, 0, out));
    CHECK(out.empty());
    const std::vector<uint8_t> alone = variant_delta::encode({}, variant);
    REQUIRE(variant_delta::decode(nullptr, 0, spirv_pack::toWords(alone).data(), uint32_t(alone.size()), nv,
                                  out));
    CHECK(out == want);

    // Hand-made tokens: literals "ab", then a copy of 4 from 2 back ("abab"), and what breaks each part.
    auto decodes = [&](std::vector<uint8_t> tok, uint32_t expect, const std::vector<uint8_t>& made) {
        const std::vector<uint32_t> w = spirv_pack::toWords(tok);
        std::vector<uint32_t> o;
        const bool ok = variant_delta::decode(nullptr, 0, w.data(), uint32_t(tok.size()), expect, o);
        return ok && o == spirv_pack::toWords(made);
    };
    CHECK(decodes({2, 'a', 'b', 0, 2, 0}, 6, {'a', 'b', 'a', 'b', 'a', 'b'}));
    CHECK_FALSE(decodes({2, 'a', 'b', 0, 0, 0}, 6, {})); // a distance of 0
    CHECK_FALSE(decodes({2, 'a', 'b', 0, 3, 0}, 6, {})); // a distance before the buffer
    CHECK_FALSE(decodes({2, 'a', 'b', 1, 2, 0}, 6, {})); // a copy past expandedBytes
    CHECK_FALSE(decodes({2, 'a', 'b', 0, 2}, 6, {}));    // a copy with no literal count after
    CHECK_FALSE(decodes({3, 'a', 'b'}, 3, {}));          // literals past the data
    CHECK_FALSE(decodes({3, 'a', 'b', 'c'}, 2, {}));     // literals past expandedBytes
    CHECK_FALSE(decodes({2, 'a', 'b', 0, 0x80, 0x80, 0x80, 0x80, 0x7F, 0}, 6, {})); // a varint over 32 bits
    CHECK_FALSE(decodes({}, 0, {}));                                                // no literal count

    // unpackSpirv refuses a delta whose expandedBytes no module of its words could have.
    const KernelInfo* delta = nullptr;
    for (uint32_t i = 0; i < kKernelCount && !delta; ++i)
        if (kKernels[i].spirv.base) delta = &kKernels[i];
    REQUIRE(delta);
    PackedSpirv hostile = delta->spirv;
    hostile.expandedBytes = 6 * hostile.words + 1;
    std::vector<uint32_t> words = {1};
    CHECK_FALSE(unpackSpirv(hostile, words));
    CHECK(words.empty());
    hostile = delta->spirv;
    hostile.baseBytes -=
        1; // the base's bytes misread: its module no longer decodes, or decodes to other words
    const bool still = unpackSpirv(hostile, words);
    std::vector<uint32_t> good;
    REQUIRE(unpackSpirv(delta->spirv, good));
    CHECK((!still || words != good));
}

TEST_CASE("Packed DXBC and HLSL text stored as copies rebuild, and refuse what is malformed",
          "[unit][kernels]") {
    // DXBC: one varint a word, the variant's copies over its base's bytes (ripple-embed's form).
    std::mt19937 rng(9);
    std::vector<uint32_t> baseWords(300), variantWords;
    for (uint32_t& w : baseWords) w = rng() % 5000;
    variantWords = baseWords;
    for (int i = 0; i < 10; ++i) variantWords[rng() % variantWords.size()] = rng();
    const std::vector<uint8_t> baseBytes = spirv_pack::encode(baseWords),
                               bytes = spirv_pack::encode(variantWords);
    const std::vector<uint8_t> tokens = variant_delta::encode(baseBytes, bytes);
    const std::vector<uint32_t> base = spirv_pack::toWords(baseBytes), packed = spirv_pack::toWords(tokens);
    PackedSpirv dxbc{packed.data(), uint32_t(tokens.size()),    uint32_t(variantWords.size()),
                     base.data(),   uint32_t(baseBytes.size()), uint32_t(bytes.size())};
    std::vector<uint32_t> words;
    REQUIRE(unpackDxbc(dxbc, words));
    CHECK(words == variantWords);
    PackedSpirv hostile = dxbc;
    hostile.expandedBytes = 5 * hostile.words + 1; // more varint bytes than its words could have
    CHECK_FALSE(unpackDxbc(hostile, words));
    CHECK(words.empty());
    hostile = dxbc;
    hostile.packedBytes -= 1; // tokens cut short
    CHECK_FALSE(unpackDxbc(hostile, words));

    // HLSL text: the base as its bytes, a variant as copies of them.
    const std::string baseText =
        "RWStructuredBuffer<uint> a : register(u1, space0);\n[numthreads(256, 1, 1)]\n";
    const std::string text = baseText + "void main() { a[0] = 7u; }\n";
    const std::vector<uint8_t> baseTextBytes(baseText.begin(), baseText.end()),
        textBytes(text.begin(), text.end());
    const std::vector<uint32_t> baseTextWords = spirv_pack::toWords(baseTextBytes);
    const std::vector<uint8_t> textTokens = variant_delta::encode(baseTextBytes, textBytes);
    const std::vector<uint32_t> textTokenWords = spirv_pack::toWords(textTokens);
    KernelInfo k{};
    CHECK_FALSE(hasHlsl(k));
    std::string out = "x";
    CHECK_FALSE(kernelHlsl(k, out));
    CHECK(out.empty());
    k.hlslText = {baseTextWords.data(), uint32_t(baseText.size()), uint32_t(baseText.size())};
    REQUIRE(hasHlsl(k));
    REQUIRE(kernelHlsl(k, out));
    CHECK(out == baseText);
    k.hlslText.bytes += 1; // plain bytes whose length disagrees with the text's
    CHECK_FALSE(kernelHlsl(k, out));
    CHECK(out.empty());
    k.hlslText = {textTokenWords.data(), uint32_t(textTokens.size()), uint32_t(text.size()),
                  baseTextWords.data(), uint32_t(baseText.size())};
    REQUIRE(kernelHlsl(k, out));
    CHECK(out == text);
    k.hlslText.baseBytes = 4; // the copies reach before a shorter base
    CHECK_FALSE(kernelHlsl(k, out));
    CHECK(out.empty());
    k.hlsl = "plain"; // a user's kernel: its text as it is
    REQUIRE(kernelHlsl(k, out));
    CHECK(out == "plain");
}
