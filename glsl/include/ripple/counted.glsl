// SPDX-License-Identifier: MIT
// A scatter pass's share of a GPU-side count (glsl/scatter_count.comp left count + 1 in status[1]; 0: the
// operator has none). Include after the `status` buffer's declaration.

// Of `units` work items, `per` to an update row: how many belong to the counted rows. The count was
// clamped to the operator's rows, so the product stays within `units`.
uint countedUnits(uint units, uint per) {
    const uint word = status[1];
    return word == 0u ? units : min(units, (word - 1u) * per);
}
