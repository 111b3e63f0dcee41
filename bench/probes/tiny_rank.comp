// SPDX-License-Identifier: MIT
#version 450
// The dispatch floor probe's small TopK (dispatch_floor.cpp): FLOAT32 rows of n contiguous elements, the
// K largest by rank counting, one invocation per element: each reads its row (n loads in flight at once),
// counts the entries before its own (larger, or equal at a smaller index) and, when that rank is below K,
// writes itself there. Its sizes come from push constants, or with `fromBuffer` from the chain buffer's
// first words (one more round trip, as ripple's params). An experiment: no NaN rules, n <= 32.
#if defined(WG_w32)
layout(local_size_x = 32) in;
#else
layout(local_size_x = 256) in;
#endif
layout(push_constant) uniform PC { uint n; uint k; uint rows; uint fromBuffer; } pc;
layout(std430, binding = 0) readonly buffer Params { uint params[]; };
layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) writeonly buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer Indices { uint indices[]; };

uint orderKey(uint bits) { return (bits & 0x80000000u) != 0u ? ~bits : bits | 0x80000000u; }

void main() {
    uint n = pc.n, k = pc.k, rows = pc.rows;
    if (pc.fromBuffer != 0u) {
        n = params[0];
        k = params[1];
        rows = params[2];
    }
    const uint e = gl_GlobalInvocationID.x;
    if (e >= rows * n) return;
    const uint row = e / n, u = e % n, base = row * n;
    const uint mine = inputWords[e], key = orderKey(mine);
    uint rank = 0u;
    for (uint v = 0u; v < n; ++v) {
        const uint other = orderKey(inputWords[base + v]);
        rank += uint(other > key) | (uint(other == key) & uint(v < u));
    }
    if (rank < k) {
        values[row * k + rank] = mine;
        indices[row * k + rank] = u;
    }
}
