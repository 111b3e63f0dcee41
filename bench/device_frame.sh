#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The frame loop's figures on the team's GPU machine (issue 43; docs/GPU.md), in one device call: for each
# VARIANT packed by bench/device_pack.sh (.gpu/VARIANT/ripple-particles, libpng16 beside the bundle), the
# particles sample with 1,000,000 particles on a 1024 x 1024 grid, 300 frames, INT32 and FLOAT32 masses,
# in ${PROCESSES:-3} processes per configuration, variants alternating process by process so that a drift
# of the machine falls on each; then, for the last variant, ripple-bench's record mode (1000 operators: a
# fresh recorder's CPU per operator, a kept Recording's submit) in as many processes. Into $OUT/frame.txt.
# With TESTS=SPEC, the last variant's ripple-ops-tests on SPEC with the validation layer ($OUT/tests.txt),
# and with .gpu/engine_interop present, that sample under synchronization validation ($OUT/interop.txt).
# usage (there, .gl and .gpu carried): bash bench/device_frame.sh base new
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
for t in .gpu/*.tar.xz; do [ -f "$t" ] && tar -xJf "$t" -C .gpu; done
export LD_LIBRARY_PATH=$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
last=${*: -1}
.gpu/"$last"/ripple-bench record --ops 1 >/dev/null 2>&1 ||
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
log=$OUT/frame.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >>"$log" 2>&1
for p in $(seq "${PROCESSES:-3}"); do
    for mass in int float; do
        for v in "$@"; do
            echo "== process $p, $v, --mass $mass" >>"$log"
            .gpu/"$v"/ripple-particles --particles 1000000 --width 1024 --height 1024 --frames 300 \
                --mass "$mass" 2>&1 | grep -E "median|recorded once|particles," >>"$log"
        done
    done
done
for p in $(seq "${PROCESSES:-3}"); do
    echo "== process $p, $last, record --ops 1000" >>"$log"
    .gpu/"$last"/ripple-bench record --ops 1000 --repeat 30 >>"$log" 2>&1
done
if [ -n "${TESTS:-}" ]; then
    VK_LAYER_PATH=$PWD/.gpu RIPPLE_VALIDATION=1 .gpu/"$last"/ripple-ops-tests "$TESTS" >"$OUT/tests.txt" 2>&1
    tail -3 "$OUT/tests.txt" >>"$log"
fi
if [ -x .gpu/engine_interop ]; then
    VK_LAYER_PATH=$PWD/.gpu VK_INSTANCE_LAYERS="" .gpu/engine_interop >"$OUT/interop.txt" 2>&1
    echo "engine_interop rc $?" >>"$OUT/interop.txt"
    tail -4 "$OUT/interop.txt" >>"$log"
fi
