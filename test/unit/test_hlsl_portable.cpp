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
