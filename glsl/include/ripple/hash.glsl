// SPDX-License-Identifier: MIT
// A 32-bit integer mix for pseudo-random sample positions. Fixed, so that the samples (and the work they
// lead to) repeat run to run.
uint hash(uint x) {
    x ^= x >> 16u;
    x *= 0x7FEB352Du;
    x ^= x >> 15u;
    x *= 0x846CA68Bu;
    x ^= x >> 16u;
    return x;
}
