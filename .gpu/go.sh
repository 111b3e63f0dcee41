#!/usr/bin/env bash
# A/B steps on the GPU machine: topk:V scatter:V topkp:V (3-process matrices, torch in the same processes),
# frame (bench/device_frame.sh base new). Results into $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
for t in .gpu/*.tar.xz; do [ -f "$t" ] && tar -xJf "$t" -C .gpu; done
export LD_LIBRARY_PATH=$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
.gpu/new/ripple-bench record --ops 1 >/dev/null 2>&1 ||
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
log=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >>"$log" 2>&1
for step in "$@"; do
    what=${step%%:*} v=${step#*:}
    echo "== $step $(date +%T)" >>"$log"
    case $what in
    topk | scatter)
        python3 bench/matrix.py --lib .gpu/"$v"/libripple-bench-module.so --processes 3 --what "$what" --no-torch \
            --out /tmp/m-"$step" >>"$log" 2>&1
        cp /tmp/m-"$step"/matrix.md "$OUT/$what-$v.md"; cp /tmp/m-"$step"/matrix.json "$OUT/$what-$v.json" ;;
    topkp)
        python3 bench/matrix.py --lib .gpu/"$v"/libripple-bench-module.so --processes 3 --what topk --no-torch \
            --out /tmp/m-"$step" -- --kernels portable >>"$log" 2>&1
        cp /tmp/m-"$step"/matrix.md "$OUT/topkp-$v.md"; cp /tmp/m-"$step"/matrix.json "$OUT/topkp-$v.json" ;;
    frame)
        PROCESSES=3 bash bench/device_frame.sh base new ;;
    tests)
        VK_LAYER_PATH=$PWD/.gpu RIPPLE_VALIDATION=1 .gpu/new/ripple-ops-tests "[frame_loop],[faults],[user_kernel]" \
            >"$OUT/tests-new.txt" 2>&1; tail -4 "$OUT/tests-new.txt" >>"$log" ;;
    esac
done
tail -n 30 "$log"
