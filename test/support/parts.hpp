// SPDX-License-Identifier: MIT
// A heavy test split into several CTest tests (issue 41): on lavapipe a whole type-by-shape matrix takes
// minutes on a busy 2-core machine, more than a test should. The parts run the same loops, each taking its
// share of the iterations (take()); together they run every iteration, every assertion, once. Each part
// checks it ran at least one, so none can pass empty.
#pragma once

#include <catch2/catch.hpp>

#include <exception>

namespace rt {

class Part {
  public:
    Part(unsigned index, unsigned count) : index_(index), count_(count < 2 ? 2 : count) {} // n >= 2
    Part(const Part&) = delete;
    Part& operator=(const Part&) = delete;
    // Ask once per iteration, before anything random decides whether the iteration exists: every part must
    // number the iterations alike for the parts to cover them all.
    bool take() {
        // Iteration i goes to the part given by the sum of i's digits in base n, modulo n: each run of n
        // iterations still gives every part one, but a heavy case recurring every m iterations is spread over
        // the parts. (Plain round robin sent it to the same part whenever n divided m.)
        unsigned part = 0;
        for (unsigned i = next_++; i != 0; i /= count_) part += i % count_;
        const bool mine = part % count_ == index_;
        taken_ += mine;
        return mine;
    }
    ~Part() {
        if (!std::uncaught_exceptions()) CHECK(taken_ > 0);
    }

  private:
    unsigned index_, count_, next_ = 0, taken_ = 0;
};

} // namespace rt

// RIPPLE_TEST_PARTS_n(body, name, tags): n TEST_CASEs "name (part i of n)", each calling body(rt::Part&).
#define RIPPLE_TEST_PART(body, name, tags, i, n)                                                             \
    TEST_CASE(name " (part " #i " of " #n ")", tags) {                                                       \
        rt::Part part(i - 1, n);                                                                             \
        body(part);                                                                                          \
    }
#define RIPPLE_TEST_PARTS_2(body, name, tags)                                                                \
    RIPPLE_TEST_PART(body, name, tags, 1, 2)                                                                 \
    RIPPLE_TEST_PART(body, name, tags, 2, 2)
#define RIPPLE_TEST_PARTS_3(body, name, tags)                                                                \
    RIPPLE_TEST_PART(body, name, tags, 1, 3)                                                                 \
    RIPPLE_TEST_PART(body, name, tags, 2, 3)                                                                 \
    RIPPLE_TEST_PART(body, name, tags, 3, 3)
#define RIPPLE_TEST_PARTS_4(body, name, tags)                                                                \
    RIPPLE_TEST_PART(body, name, tags, 1, 4)                                                                 \
    RIPPLE_TEST_PART(body, name, tags, 2, 4)                                                                 \
    RIPPLE_TEST_PART(body, name, tags, 3, 4)                                                                 \
    RIPPLE_TEST_PART(body, name, tags, 4, 4)
#define RIPPLE_TEST_PARTS_6(body, name, tags)                                                                \
    RIPPLE_TEST_PART(body, name, tags, 1, 6)                                                                 \
    RIPPLE_TEST_PART(body, name, tags, 2, 6)                                                                 \
    RIPPLE_TEST_PART(body, name, tags, 3, 6)                                                                 \
    RIPPLE_TEST_PART(body, name, tags, 4, 6)                                                                 \
    RIPPLE_TEST_PART(body, name, tags, 5, 6)                                                                 \
    RIPPLE_TEST_PART(body, name, tags, 6, 6)
