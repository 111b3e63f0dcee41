// SPDX-License-Identifier: MIT
// ScatterND's index tuples, shared by its element pass (ripple/scatter_nd_pass.glsl) and its block pass
// (scatter_nd_rows.comp). Params: [2] q, [3..10] sizes of the q indexed dims, [11..18] their output pitches
// (in the pass's units), [19..35] the indices view. Needs the `indices` binding declared before it.

// Adds tuple `tuple`'s offset (sum of its resolved indices times the pitches) to `target`; false, with
// `target` unusable, when an index is out of range.
bool addTupleOffset(uint tuple, uint q, inout uint target) {
    for (uint j = 0u; j < q; ++j) {
        uint r;
        if (!resolveIndex(LOAD_INDEX(indices, viewOffset(19u, tuple * q + j)), P(3u + j), r)) return false;
        target += r * P(11u + j);
    }
    return true;
}
