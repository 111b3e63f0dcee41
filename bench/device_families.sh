#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The benchmark matrices per kernel family and per emulated device class, on the team's GPU machine
# (docs/GPU.md), in one device call (issue 58). Each STEP is WHAT:VARIANT:PROFILE:KERNELS:PROCESSES, e.g.
#   topk:new:mobile-vk11::3    the TopK matrix of .gpu/new under RIPPLE_DEVICE_PROFILE=mobile-vk11
#   scatter:base::portable:3   the scatter matrix of .gpu/base with the portable kernels
# (bench/matrix.py --profile/--kernels, --no-torch; VARIANT folders as bench/device_pack.sh packs them).
# Every matrix.json goes into one $OUT/families.tar.gz: a device call brings back a few files only, and a
# run of many matrices lost some when each was its own file. The log is $OUT/log.txt.
# usage (from the repository root, on the GPU machine): bash bench/device_families.sh STEP...
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
for t in .gpu/*.tar.xz; do [ -f "$t" ] && tar -xJf "$t" -C .gpu; done
export LD_LIBRARY_PATH=$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
first=$(ls -d .gpu/*/ | head -1)
"$first"ripple-bench record --ops 1 >/dev/null 2>&1 ||
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
log=$OUT/log.txt
results=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >>"$log" 2>&1
for step in "$@"; do
    IFS=: read -r what variant profile kernels processes <<<"$step"
    echo "== $step $(date +%T)" >>"$log"
    args=()
    [ -n "$profile" ] && args+=(--profile "$profile")
    [ -n "$kernels" ] && args+=(--kernels "$kernels")
    name="$what-$variant-${profile:-none}-${kernels:-fast}-${processes:-3}p"
    python3 bench/matrix.py --lib ".gpu/$variant/libripple-bench-module.so" --processes "${processes:-3}" \
        --what "$what" --no-torch --out "/tmp/m-$name" "${args[@]}" >>"$log" 2>&1
    cp "/tmp/m-$name/matrix.json" "$results/$name.json" 2>>"$log"
    # After every step: a call that runs out of time still brings back the matrices it finished.
    tar -czf "$OUT/families.tar.gz" -C "$results" .
done
