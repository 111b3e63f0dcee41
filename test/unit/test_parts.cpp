// SPDX-License-Identifier: MIT
// support/parts.hpp: the parts of a split test run every iteration exactly once, in shares of about the same
// size, and spread a case that recurs with the part count's period.
#include "support/parts.hpp"

#include <catch2/catch.hpp>

#include <vector>

TEST_CASE("A split test's parts take every iteration exactly once and spread recurring cases", "[unit]") {
    for (unsigned n : {2u, 3u, 4u, 6u}) {
        for (unsigned iterations : {n, 7u, 33u, 528u}) {
            std::vector<unsigned> owners(iterations, 0), takenBy(n, 0);
            for (unsigned p = 0; p < n; ++p) {
                rt::Part part(p, n);
                for (unsigned i = 0; i < iterations; ++i)
                    if (part.take()) ++owners[i], ++takenBy[p];
            }
            INFO(n << " parts, " << iterations << " iterations");
            for (unsigned i = 0; i < iterations; ++i) CHECK(owners[i] == 1);
            for (unsigned p = 0; p < n; ++p) CHECK(takenBy[p] >= iterations / n);
        }
    }
    // ScatterElements' matrix: 11 types x 4 index types x 12 shapes, the heavy shape at index 9 of 12. Round
    // robin over 6 parts gave it to one part only (every part count dividing 12 did).
    const unsigned n = 6;
    std::vector<unsigned> heavy(n, 0);
    for (unsigned p = 0; p < n; ++p) {
        rt::Part part(p, n);
        for (unsigned i = 0; i < 11 * 4 * 12; ++i)
            if (part.take() && i % 12 == 9) ++heavy[p];
    }
    for (unsigned p = 0; p < n; ++p) {
        INFO("part " << p + 1);
        CHECK(heavy[p] >= 4);
        CHECK(heavy[p] <= 11);
    }
}
