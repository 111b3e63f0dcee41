// SPDX-License-Identifier: MIT
#include "scene.hpp"

#include <algorithm>
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

AdvectConstants advectConstants(const Config& config) {
    return {config.count, static_cast<int32_t>(config.width), static_cast<int32_t>(config.height),
            kAttractorPeriod};
}

TickConstants tickConstants(const Config& config) {
    return {config.count, std::max(config.count / 64, 1u)};
}

std::vector<int32_t> attractorTable(const Config& config) {
    std::vector<int32_t> table(size_t(kAttractorPeriod) * 3 * 4, 0);
    for (uint32_t frame = 0; frame < kAttractorPeriod; ++frame)
        for (int a = 0; a < 3; ++a) {
            const double t = 0.013 * frame * (1.0 + 0.37 * a) + 2.1 * a;
            int32_t* at = &table[(size_t(frame) * 3 + a) * 4];
            at[0] = static_cast<int32_t>(config.width * 128.0 * (1.0 + 0.6 * std::cos(t)));
            at[1] = static_cast<int32_t>(config.height * 128.0 * (1.0 + 0.6 * std::sin(1.3 * t)));
        }
    return table;
}

uint32_t initialAlive(const Config& config) {
    return std::max(config.count - config.count / 4, 1u);
}

Tick tick(const TickConstants& c, uint32_t frame, uint32_t alive) {
    const uint32_t survivors = alive - std::min(hash(2 * frame + 1) % (c.churn + 1), alive);
    return {survivors, std::min(survivors + hash(2 * frame + 2) % (c.churn + 1), c.capacity)};
}

void spawnState(const Config& config, uint32_t particle, uint32_t frame, int32_t state[4]) {
    const uint32_t a = hash(particle ^ (frame * 0x2545F491u)), b = hash(a + 1);
    state[0] = static_cast<int32_t>(a % (config.width * 256));
    state[1] = static_cast<int32_t>(b % (config.height * 256));
    state[2] = state[3] = 0;
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
