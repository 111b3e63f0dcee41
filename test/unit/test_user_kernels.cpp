// SPDX-License-Identifier: MIT
// ripple_add_kernels (cmake/RippleUserKernels.cmake): a user's GLSL compiled at build time, one
// KernelSource per permutation, with the reflection the runtime will check dispatches against.
#include "ripple_unit_tests_kernels.hpp"

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
