// SPDX-License-Identifier: MIT
// The particles sample's scene: its size, its starting state and each frame's attractors, shared by the GPU
// simulation (simulation.hpp) and the CPU model (model.hpp) so that both compute the same frames.
#pragma once

#include <cstdint>
#include <vector>

namespace particles {

struct Config {
    uint32_t count = 100000;    ///< particles
    uint32_t width = 256;       ///< grid (and image) width in cells
    uint32_t height = 256;      ///< grid (and image) height in cells
    uint32_t k = 16;            ///< densest cells the TopK selects (and the image marks)
    bool floatMass = false;     ///< FLOAT32 masses and grid (else INT32: exact in any order)
    bool deterministic = false; ///< ScatterElementsDesc::Deterministic for the splat
    uint32_t seed = 1;          ///< the starting state
    bool indirectAdvect = false; ///< advect dispatched indirectly (tick.comp's group count), else over all
    bool fastest = true;         ///< the TopK of the fastest live particles (else the frame has none)
};

/// Frames in the attractor table (advect.comp reads frame f's at f % kAttractorPeriod).
constexpr uint32_t kAttractorPeriod = 4096;

/// The advect kernel's push constants (advect.comp's PC block).
struct AdvectConstants {
    uint32_t capacity;
    int32_t width, height;
    uint32_t period;
};

/// The tick kernel's push constants (tick.comp's PC block).
struct TickConstants {
    uint32_t capacity, churn;
};

/// The shade kernel's push constants (shade.comp's PC block).
struct ShadeConstants {
    uint32_t width, height, k, floatMass;
};

/// advect.comp's push constants.
AdvectConstants advectConstants(const Config& config);
/// tick.comp's push constants: at most count / 64 (at least 1) particles expire and spawn a frame.
TickConstants tickConstants(const Config& config);

/// The attractor table: for each of kAttractorPeriod frames, three attractors on slow Lissajous paths, as
/// (x, y, 0, 0) in position units (256 per cell).
std::vector<int32_t> attractorTable(const Config& config);

/// Live particles before the first frame: three quarters of them (at least 1).
uint32_t initialAlive(const Config& config);

/// tick.comp on the CPU: frame `frame`'s survivors of `alive`, and the live count after its spawns.
struct Tick {
    uint32_t survivors, alive;
};
Tick tick(const TickConstants& constants, uint32_t frame, uint32_t alive);

/// A particle spawned in frame `frame` (advect.comp): at a hashed position, at rest.
void spawnState(const Config& config, uint32_t particle, uint32_t frame, int32_t state[4]);

/// Each particle's starting (x, y, vx, vy), 24.8 fixed point: 4 int32 per particle.
std::vector<int32_t> initialState(const Config& config);

/// Each particle's mass as the grid's element bits: INT32 1-3, or FLOAT32 0.3-2.7 in tenths (not exact in
/// binary, so a cell's sum depends on the order of its additions).
std::vector<uint32_t> masses(const Config& config);

/// A 32-bit integer mix, as advect.comp's hash().
uint32_t hash(uint32_t x);

} // namespace particles
