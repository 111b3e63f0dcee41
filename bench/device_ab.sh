#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A/B of TopK builds on the team's GPU machine (docs/GPU.md), in one device call: each VARIANT is a folder
# .gpu/VARIANT holding ripple-bench, ripple-profile (a RIPPLE_PROFILE_KERNELS=ON build),
# libripple-bench-module.so and optionally ripple-ops-tests, built here with a static C++ runtime, or those
# folders packed in .gpu/*.tar.xz (a variant's binaries are ~10 MB each, mostly SPIR-V, which xz shrinks
# sixfold: the carried tree's limit is 64 MiB). For each variant, in this order:
#   - ripple-profile on the cases whose names contain $PROFILE (default: none), its profile.md to
#     $OUT/profile-VARIANT.md;
#   - ripple-bench topk --case $LEVELS (default: none): the per-level GPU times of those cases with rotated
#     inputs (as the matrix), into $OUT/log.txt;
#   - ripple-bench topk --shape S for each S in $SHAPES (D0xD1...:AXIS:K; default: none), the same figures
#     for shapes outside the matrix, under each kernel family of $FAMILIES (default "fast"; "portable" is
#     --kernels portable, any other word an emulated device class, RIPPLE_DEVICE_PROFILE), into $OUT/log.txt;
#   - with MATRIX=1, the whole TopK matrix in 3 processes, torch in the same processes (bench/matrix.py),
#     into $OUT/matrix-VARIANT-ROUND.md and .json, for the variants in $MATRIX_VARIANTS (default: all),
#     alternating matrix by matrix over ROUNDS rounds (default 1), so that a drift of the machine falls on
#     each.
#   - with STATS=1, ripple-kernel-stats (registers, machine code size) of the sampled selection's, the chunk,
#     row and lane kernels
#     that device_pack.sh packed, into $OUT/kernel-stats-VARIANT.txt;
#   - with STREAM=1, ripple-stream-probe (TopK's lane access patterns with no selection, where the build
#     has it), into $OUT/stream-VARIANT.txt;
#   - with TESTS=REGEX, ripple-ops-tests (from .gpu/VARIANT) on the TopK cases matching it, the
#     validation layer on, into $OUT/tests-VARIANT.txt (its last lines also into $OUT/log.txt). The whole
#     [topk] suite takes over 170 s there with the validation layer: a call's limit must leave room.
# A matrix takes about 4 minutes there, and a device call at most 10: two matrices and a few profiles fit.
# Here, bench/device_pack.sh builds the variants and packs them (and fetches .gl).
# usage (there, .gl and .gpu carried): bash bench/device_ab.sh base new [new@NAME=VALUE ...]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
for t in .gpu/*.tar.xz; do [ -f "$t" ] && tar -xJf "$t" -C .gpu; done
.gpu/"${1%%@*}"/ripple-bench record --ops 1 >/dev/null 2>&1 ||
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
# A VARIANT may carry environment settings for all its runs, FOLDER@NAME=VALUE[@NAME=VALUE...] (e.g.
# x@RIPPLE_EXP_LANE_DIRECT_QUADS=1: an experiment's switch in that build); its outputs are labelled
# FOLDER-NAME-VALUE..., less NAME's RIPPLE_EXP_ and with VALUE's other characters than letters and digits
# as _ (x-LANE_GROUP-16_1_64 for x@RIPPLE_EXP_LANE_GROUP=16/1/64), so that one switch's values run side by
# side. Sets v (the folder), lab (the label) and settings, and exports the settings; unvariant unsets them.
variant() {
    v=${1%%@*} lab=${1%%@*} settings=()
    if [[ $1 == *@* ]]; then
        local rest=${1#*@} setting name value
        IFS=@ read -r -a settings <<<"$rest"
        for setting in "${settings[@]}"; do
            name=${setting%%=*} value=${setting#*=}
            lab=$lab-${name#RIPPLE_EXP_}-${value//[^A-Za-z0-9]/_}
            export "${setting?}"
        done
    fi
}
unvariant() {
    local setting
    for setting in "${settings[@]}"; do unset "${setting%%=*}"; done
}
log=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >>"$log" 2>&1
for arg in "$@"; do
    variant "$arg"
    if [ -n "${PROFILE:-}" ]; then
        for c in $PROFILE; do  # ripple-profile writes into an existing folder
            mkdir -p /tmp/prof-"$lab"-"$c"
            .gpu/"$v"/ripple-profile --case "$c" --out /tmp/prof-"$lab"-"$c" >>"$log" 2>&1
        done
        cat /tmp/prof-"$lab"-*/profile.md >"$OUT/profile-$lab.md"
    fi
    for c in ${LEVELS:-}; do
        echo "== $lab levels $c" >>"$log"
        .gpu/"$v"/ripple-bench topk --case "$c" >>"$log" 2>&1
    done
    for fam in ${FAMILIES:-fast}; do
        for s in ${SHAPES:-}; do
            echo "== $lab $fam $s" >>"$log"
            case $fam in
            fast) .gpu/"$v"/ripple-bench topk --shape "$s" 2>&1 | grep "levels us" >>"$log" ;;
            portable) .gpu/"$v"/ripple-bench topk --shape "$s" --kernels portable 2>&1 | grep "levels us" >>"$log" ;;
            *) RIPPLE_DEVICE_PROFILE=$fam .gpu/"$v"/ripple-bench topk --shape "$s" 2>&1 | grep "levels us" >>"$log" ;;
            esac
        done
    done
    if [ "${STATS:-0}" = 1 ]; then
        .gpu/"$v"/ripple-kernel-stats .gpu/"$v"/spv >"$OUT/kernel-stats-$lab.txt" 2>&1
    fi
    if [ "${STREAM:-0}" = 1 ] && [ -x .gpu/"$v"/ripple-stream-probe ]; then
        .gpu/"$v"/ripple-stream-probe >"$OUT/stream-$lab.txt" 2>&1
    fi
    if [ -n "${TESTS:-}" ]; then
        echo "== $lab tests $TESTS" >>"$log"
        # into its own file as it runs: a run cut off by the call's limit keeps what it printed
        VK_LAYER_PATH=$PWD/.gpu RIPPLE_VALIDATION=1 .gpu/"$v"/ripple-ops-tests "$TESTS" \
            >"$OUT/tests-$lab.txt" 2>&1
        tail -5 "$OUT/tests-$lab.txt" >>"$log"
    fi
    unvariant
done
if [ "${MATRIX:-0}" = 1 ]; then
    for r in $(seq "${ROUNDS:-1}"); do
        for arg in ${MATRIX_VARIANTS:-$@}; do
            variant "$arg"
            python3 bench/matrix.py --lib .gpu/"$v"/libripple-bench-module.so --processes 3 --what topk \
                --out /tmp/matrix-"$lab"-"$r" >>"$log" 2>&1
            cp /tmp/matrix-"$lab"-"$r"/matrix.md "$OUT/matrix-$lab-$r.md"
            cp /tmp/matrix-"$lab"-"$r"/matrix.json "$OUT/matrix-$lab-$r.json"
            unvariant
        done
    done
fi
tail -n 40 "$log"
for f in "$OUT"/matrix-*.md; do [ -f "$f" ] && { echo "== $f"; cat "$f"; }; done
