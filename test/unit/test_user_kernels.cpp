// SPDX-License-Identifier: MIT
// ripple_add_kernels (cmake/RippleUserKernels.cmake): a user's GLSL compiled at build time, one
// KernelSource per permutation, with the reflection the runtime will check dispatches against.
#include "ripple_unit_tests_kernels.hpp"

#include <ripple/version.hpp>

#include <catch2/catch.hpp>

#include <cstring>

TEST_CASE("ripple_add_kernels embeds each permutation with its reflection", "[unit]") {
    for (const ripple::KernelSource* k : {&test_kernels::advect_d2, &test_kernels::advect_d3}) {
        INFO(k->Name);
        const bool d3 = k == &test_kernels::advect_d3;
        CHECK(std::strcmp(k->Name, d3 ? "advect.d3" : "advect.d2") == 0);
        CHECK(k->LocalSize[0] == 64);
        CHECK(k->LocalSize[1] == 1);
        CHECK(k->LocalSize[2] == 1);
        CHECK(k->PushConstantBytes == (d3 ? 12u : 8u)); // the DIM_d3 macro adds a float
        REQUIRE(k->BindingCount == 3);
        CHECK(k->Bindings[0].Binding == 0);
        CHECK(k->Bindings[0].Access == ripple::BindingAccess::ReadWrite);
        CHECK(k->Bindings[1].Access == ripple::BindingAccess::Read);  // readonly
        CHECK(k->Bindings[2].Access == ripple::BindingAccess::Write); // writeonly
        CHECK(k->Bindings[2].MinimumBytes == 16); // uint header[4] before the runtime array
        CHECK(k->Bindings[0].MinimumBytes == 0);
        CHECK(std::strcmp(k->Bindings[1].Name, "velocities") == 0);
        CHECK(k->SpirvWords > 5);
        CHECK(k->PackedBytes > 0);
        CHECK(k->PackedSpirv != nullptr);
    }
}

// In a D3D12 build with an HLSL compiler, each variant's HLSL is also compiled at build time, by the compiler
// that made ripple's own bytecode: a D3D12 device then compiles nothing at run time (issue 55).
TEST_CASE("ripple_add_kernels embeds the D3D12 bytecode of each permutation where the build has a compiler",
          "[unit]") {
    const bool compiler = *ripple::d3d12BytecodeCompiler() != '\0';
    for (const ripple::KernelSource* k : {&test_kernels::advect_d2, &test_kernels::advect_d3}) {
        INFO(k->Name);
        if (!k->Hlsl || !compiler) { // no D3D12 back-end, or no HLSL compiler: no bytecode
            CHECK(k->PackedDxbc == nullptr);
            CHECK(k->DxbcWords == 0);
            continue;
        }
        REQUIRE(k->PackedDxbc != nullptr);
        CHECK(k->PackedDxbcBytes > 0);
        CHECK(k->DxbcWords >= 8);
        CHECK((k->PackedDxbc[0] & 0x7F) == 'D'); // the packed container opens with its "DXBC" magic
    }
}
