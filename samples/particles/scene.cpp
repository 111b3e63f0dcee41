// SPDX-License-Identifier: MIT
#include "scene.hpp"

#include <cmath>
#include <cstring>

namespace particles {

uint32_t hash(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

AdvectConstants advectConstants(const Config& config, uint32_t frame) {
    AdvectConstants c{};
    c.count = config.count;
    c.width = static_cast<int32_t>(config.width);
    c.height = static_cast<int32_t>(config.height);
    c.frame = frame;
    for (int a = 0; a < 3; ++a) {
        const double t = 0.013 * frame * (1.0 + 0.37 * a) + 2.1 * a;
        c.attractor[a][0] = static_cast<int32_t>(config.width * 128.0 * (1.0 + 0.6 * std::cos(t)));
        c.attractor[a][1] = static_cast<int32_t>(config.height * 128.0 * (1.0 + 0.6 * std::sin(1.3 * t)));
    }
    return c;
}

std::vector<int32_t> initialState(const Config& config) {
    std::vector<int32_t> s(size_t(config.count) * 4);
    for (uint32_t i = 0; i < config.count; ++i) {
        const uint32_t a = hash(i ^ (config.seed * 0x632BE5ABu)), b = hash(a + 1), c = hash(b + 1);
        s[4 * size_t(i) + 0] = static_cast<int32_t>(a % (config.width * 256));
        s[4 * size_t(i) + 1] = static_cast<int32_t>(b % (config.height * 256));
        s[4 * size_t(i) + 2] = static_cast<int32_t>(c & 511) - 256;
        s[4 * size_t(i) + 3] = static_cast<int32_t>((c >> 9) & 511) - 256;
    }
    return s;
}

std::vector<uint32_t> masses(const Config& config) {
    std::vector<uint32_t> m(config.count);
    for (uint32_t i = 0; i < config.count; ++i) {
        if (config.floatMass) {
            const float f = 0.3f + 0.1f * static_cast<float>(hash(i) % 25); // sums depend on order
            std::memcpy(&m[i], &f, 4);
        } else {
            m[i] = 1 + hash(i) % 3;
        }
    }
    return m;
}

} // namespace particles
