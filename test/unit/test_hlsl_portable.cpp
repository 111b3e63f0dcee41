// SPDX-License-Identifier: MIT
// ripple-embed's portable HLSL rewrite (tools/ripple-embed/hlsl_portable.cpp) on hand-written
// SPIRV-Cross-style input: what each compiler needs changed (docs/D3D12.md), and nothing else.
#include "hlsl_portable.hpp"

#include <catch2/catch.hpp>

#include <string>

TEST_CASE("Portable HLSL: byte address buffers become structured ones, atomics take the function form",
          "[unit][hlsl]") {
    std::string h = "RWByteAddressBuffer _10 : register(u1, space0);\n"
                    "ByteAddressBuffer _11 : register(t0, space0);\n"
                    "void f(uint i) {\n"
                    "    uint v = _11.Load(i * 4 + 0);\n"
                    "    _10.Store(i * 4 + 0, v);\n"
                    "    uint old;\n"
                    "    _10.InterlockedAdd(0, 1u, old);\n"
                    "}\n";
    std::string error;
    REQUIRE(ripple_embed::portableHlsl(h, error));
    INFO(h);
    CHECK(h.find("RWStructuredBuffer<uint> _10 : register(u1, space0)") != std::string::npos);
    CHECK(h.find("StructuredBuffer<uint> _11 : register(t0, space0)") != std::string::npos);
    CHECK(h.find("ByteAddressBuffer") == std::string::npos);
    CHECK(h.find(".Load(") == std::string::npos);
    CHECK(h.find(".Store(") == std::string::npos);
    CHECK(h.find("InterlockedAdd(_10[") != std::string::npos);
}

TEST_CASE("Portable HLSL: a loop body's last 'continue' goes (vkd3d 1.2), every other one stays",
          "[unit][hlsl]") {
    std::string h = "void f(uint n) {\n"
                    "    for (;;)\n"
                    "    {\n"
                    "        if (n == 0u)\n"
                    "        {\n"
                    "            n = 1u;\n"
                    "            continue;\n" // the if's last statement: skips the rest of the body
                    "        }\n"
                    "        n = n - 1u;\n"
                    "        continue;\n" // the loop body's last statement: dropped
                    "    }\n"
                    "    while (n > 3u) { n = n - 2u; continue; }\n" // dropped
                    "    do\n"
                    "    {\n"
                    "        n = n + 1u;\n"
                    "        continue;\n" // dropped
                    "    } while (n < 9u);\n"
                    "    mycontinue;\n" // not the keyword
                    "}\n";
    std::string error;
    REQUIRE(ripple_embed::portableHlsl(h, error));
    INFO(h);
    CHECK(h.find("            n = 1u;\n            continue;\n        }\n") != std::string::npos);
    CHECK(h.find("        n = n - 1u;\n    }\n") != std::string::npos);
    CHECK(h.find("{ n = n - 2u;  }") != std::string::npos);
    CHECK(h.find("        n = n + 1u;\n    } while") != std::string::npos);
    CHECK(h.find("mycontinue;") != std::string::npos);
    size_t count = 0;
    for (size_t at = h.find("continue;"); at != std::string::npos; at = h.find("continue;", at + 1)) ++count;
    CHECK(count == 2); // the if's, and "mycontinue;"
}

TEST_CASE(
    "Portable HLSL: groupshared arrays of arrays become flat (vkd3d-shader 2.1 loads them from the wrong "
    "place)",
    "[unit][hlsl]") {
    std::string h = "groupshared uint sKey[2][1024];\n"
                    "groupshared uint sIdx[1024];\n"
                    "void f(uint lid, uint w) {\n"
                    "    sKey[0][lid] = sKey[w + 1u][sIdx[lid]];\n"
                    "    sKey[w][sKey[1][min(lid, 3u)]] = sIdx[lid];\n"
                    "    uint notKey = mysKey[0];\n"
                    "}\n";
    std::string error;
    REQUIRE(ripple_embed::portableHlsl(h, error));
    INFO(h);
    CHECK(h.find("groupshared uint sKey[2048];\n") != std::string::npos);
    CHECK(h.find("groupshared uint sIdx[1024];\n") != std::string::npos);
    CHECK(h.find("sKey[(0) * 1024u + (lid)] = sKey[(w + 1u) * 1024u + (sIdx[lid])];") != std::string::npos);
    CHECK(h.find("sKey[(w) * 1024u + (sKey[(1) * 1024u + (min(lid, 3u))])] = sIdx[lid];") !=
          std::string::npos);
    CHECK(h.find("mysKey[0]") != std::string::npos);
    CHECK(h.find("][") == std::string::npos);

    // A use it cannot rewrite, or a third dimension, is an error, never HLSL half rewritten.
    std::string row = "groupshared uint s[2][4];\nvoid f() { g(s[1]); }\n";
    CHECK_FALSE(ripple_embed::portableHlsl(row, error));
    CHECK(error.find("s[i][j]") != std::string::npos);
    std::string deep = "groupshared uint s[2][4][8];\n";
    CHECK_FALSE(ripple_embed::portableHlsl(deep, error));
    CHECK(error.find("more than two dimensions") != std::string::npos);
}

TEST_CASE("Portable HLSL: stores into private arrays store a value of their own (vkd3d-shader 2.1 in "
          "unrolled loops)",
          "[unit][hlsl]") {
    std::string h = "groupshared uint sRow[256];\n"
                    "static uint gKey[8];\n"
                    "static const uint kTable[2] = { 1u, 2u };\n"
                    "float gWeight[4];\n"
                    "void f(uint lid, uint2 pair[4], uint key[8])\n"
                    "{\n"
                    "    uint2 raw[8];\n"
                    "    int2 delta[4];\n"
                    "    uint h;\n"
                    "    [unroll]\n"
                    "    for (uint u = 0u; u < 8u; u++)\n"
                    "    {\n"
                    "        raw[u] = load(lid + u);\n"
                    "        raw[u].y = h;\n"
                    "        key[u] = h;\n"
                    "        gKey[min(u, key[0])] = key[u] == 3u ? h : 0u;\n"
                    "        sRow[u] = h;\n"
                    "        gWeight[u & 3u] = asfloat(h);\n"
                    "        delta[u & 3u] = int2(int(h), 0);\n"
                    "        gKey[u] = 4294967295u;\n"
                    "        key[u] += h;\n"
                    "        if (key[u] == h) h = 1u;\n"
                    "    }\n"
                    "    pair[0] = raw[1];\n"
                    "}\n";
    std::string error;
    REQUIRE(ripple_embed::portableHlsl(h, error));
    INFO(h);
    CHECK(h.find("        raw[u] = (load(lid + u)) | 0u;\n") != std::string::npos);
    CHECK(h.find("        raw[u].y = (h) | 0u;\n") != std::string::npos);
    CHECK(h.find("        key[u] = (h) | 0u;\n") != std::string::npos); // an array parameter
    CHECK(h.find("        gKey[min(u, key[0])] = (key[u] == 3u ? h : 0u) | 0u;\n") != std::string::npos);
    CHECK(h.find("        gWeight[u & 3u] = asfloat(asuint(asfloat(h)) | 0u);\n") != std::string::npos);
    CHECK(h.find("    pair[0] = (raw[1]) | 0u;\n") != std::string::npos);
    CHECK(h.find("        delta[u & 3u] = (int2(int(h), 0)) | 0;\n") != std::string::npos); // int stays int
    // Unchanged: groupshared memory, constants, compound assignments, comparisons, declarations.
    CHECK(h.find("        sRow[u] = h;\n") != std::string::npos);
    CHECK(h.find("        gKey[u] = 4294967295u;\n") != std::string::npos);
    CHECK(h.find("        key[u] += h;\n") != std::string::npos);
    CHECK(h.find("        if (key[u] == h) h = 1u;\n") != std::string::npos);
    CHECK(h.find("static const uint kTable[2] = { 1u, 2u };\n") != std::string::npos);
}
