// SPDX-License-Identifier: MIT
// Each step mirrors a kernel: advect.comp, the ScatterElements ADD (in particle order, the order the
// deterministic mode promises), the TopK (largest first, ties by the lower cell), shade.comp.
#include "model.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <numeric>

namespace particles {
namespace {

float asFloat(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint32_t asBits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

// advect.comp's axis().
void axis(int32_t& p, int32_t& v, int32_t target, int32_t limit, uint32_t noise, int32_t scale) {
    v += (target - p) >> 11;
    v -= v >> 5;
    v += (static_cast<int32_t>(noise & 63u) - 32) * scale;
    p += v;
    if (p < 0) p = -p, v = -v;
    if (p > limit) p = 2 * limit - p, v = -v;
    p = std::clamp(p, 0, limit);
}

uint32_t isqrt(uint32_t x) {
    uint32_t r = static_cast<uint32_t>(std::sqrt(static_cast<double>(x)));
    while (uint64_t(r) * r > x) --r;
    while (uint64_t(r + 1) * (r + 1) <= x) ++r;
    return r;
}

} // namespace

Model::Model(const Config& config)
    : config_(config), state_(initialState(config)), attractors_(attractorTable(config)),
      masses_(masses(config)), grid_(size_t(config.width) * config.height), alive_(initialAlive(config)) {}

void Model::step(uint32_t frame) {
    const Config& c = config_;
    const Tick t = tick(tickConstants(c), frame, alive_);
    alive_ = t.alive;
    const AdvectConstants a = advectConstants(c);
    std::vector<uint32_t> cells(alive_);
    std::vector<int32_t> speeds(alive_);
    const int32_t scale = std::max(1, std::max(a.width, a.height) >> 8);
    const int32_t* attractor = &attractors_[size_t(frame % kAttractorPeriod) * 3 * 4];
    for (uint32_t i = 0; i < alive_; ++i) {
        int32_t* s = &state_[4 * size_t(i)];
        if (i >= t.survivors) {
            spawnState(c, i, frame, s);
        } else {
            const uint32_t noise = hash(i * 0x9E3779B9u + frame);
            axis(s[0], s[2], attractor[(i % 3) * 4], a.width * 256 - 1, noise, scale);
            axis(s[1], s[3], attractor[(i % 3) * 4 + 1], a.height * 256 - 1, noise >> 8, scale);
        }
        cells[i] = static_cast<uint32_t>((s[1] >> 8) * a.width + (s[0] >> 8));
        speeds[i] = std::abs(s[2]) + std::abs(s[3]);
    }
    // The fastest live particles (TopK with the live count: past it, INT32's least and the position).
    const uint32_t fastK = c.fastest ? std::min(c.k, c.count) : 0;
    std::vector<uint32_t> fast(alive_);
    std::iota(fast.begin(), fast.end(), 0u);
    const uint32_t ranked = std::min(fastK, alive_);
    std::partial_sort(fast.begin(), fast.begin() + ranked, fast.end(), [&](uint32_t x, uint32_t y) {
        return speeds[x] > speeds[y] || (speeds[x] == speeds[y] && x < y);
    });
    fastValues_.assign(fastK, INT32_MIN);
    fastIndices_.resize(fastK);
    for (uint32_t j = 0; j < fastK; ++j) {
        fastIndices_[j] = j < ranked ? fast[j] : j;
        if (j < ranked) fastValues_[j] = speeds[fast[j]];
    }
    std::fill(grid_.begin(), grid_.end(), 0u);
    for (uint32_t i = 0; i < alive_; ++i) {
        uint32_t& g = grid_[cells[i]];
        g = c.floatMass ? asBits(asFloat(g) + asFloat(masses_[i])) : g + masses_[i];
    }
    auto value = [&](uint32_t bits) { return c.floatMass ? double(asFloat(bits)) : double(int32_t(bits)); };
    std::vector<uint32_t> order(grid_.size());
    std::iota(order.begin(), order.end(), 0u);
    const uint32_t k = std::min<uint32_t>(c.k, static_cast<uint32_t>(order.size()));
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](uint32_t x, uint32_t y) {
        const double vx = value(grid_[x]), vy = value(grid_[y]);
        return vx > vy || (vx == vy && x < y);
    });
    topIndices_.assign(order.begin(), order.begin() + k);
    topValues_.clear();
    for (uint32_t i : topIndices_) topValues_.push_back(grid_[i]);

    auto units = [&](uint32_t bits) {
        return c.floatMass ? static_cast<uint32_t>(std::max(asFloat(bits), 0.0f))
                           : static_cast<uint32_t>(std::max(int32_t(bits), 0));
    };
    image_.resize(grid_.size());
    const uint32_t top = std::max(isqrt(units(topValues_[0])), 1u);
    for (uint32_t y = 0; y < c.height; ++y)
        for (uint32_t x = 0; x < c.width; ++x) {
            const uint32_t cell = y * c.width + x, d = units(grid_[cell]);
            const uint32_t t = std::min(isqrt(d) * 765u / top, 765u);
            uint32_t r = 10, g = 12, b = 30;
            if (d) r = std::min(t, 255u), g = std::clamp(t, 255u, 510u) - 255u, b = std::max(t, 510u) - 510u;
            for (uint32_t j = 0; j < k; ++j) {
                const int32_t dx = std::abs(int32_t(x) - int32_t(topIndices_[j] % c.width));
                const int32_t dy = std::abs(int32_t(y) - int32_t(topIndices_[j] / c.width));
                if (std::max(dx, dy) == 3) r = 0, g = 255, b = 255;
            }
            image_[cell] = r | (g << 8) | (b << 16) | (255u << 24);
        }
}

} // namespace particles
