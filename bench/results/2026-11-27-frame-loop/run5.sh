# SPDX-License-Identifier: MIT
# The device call of run5 (kind nvidia-h100-x1). "exp" is wip (8a171c2) with one line changed in samples/particles/main.cpp,
#   options.timestamps = device->adapter().features.timestamps && !std::getenv("EXP_NO_TIMESTAMPS");
# built in build-dev-wip and packed as .gpu/exp.tar.xz; the change is not committed.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
for t in .gpu/*.tar.xz; do tar -xJf "$t" -C .gpu; done
export LD_LIBRARY_PATH=$PWD/.gpu
.gpu/wip/ripple-bench record --ops 1 >/dev/null 2>&1 || export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
log=$OUT/exp2.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv >>$log
run() { echo "== process $1, $2 ${*:3}" >>$log; env $ENVV .gpu/$2/ripple-particles --particles 1000000 --width 1024 --height 1024 --frames 300 "${@:3}" 2>&1 | grep -E "median" >>$log; }
for p in 1 2 3; do
  for m in int; do
    ENVV=A=1 run $p wip --mass $m --no-fastest
    ENVV=EXP_NO_TIMESTAMPS=1 run $p exp --mass $m --no-fastest
    ENVV=A=1 run $p wip --mass $m --no-fastest --no-render-wait
    ENVV=EXP_NO_TIMESTAMPS=1 run $p exp --mass $m --no-fastest --no-render-wait
    ENVV=EXP_NO_TIMESTAMPS=1 run $p exp --mass $m --no-fastest --in-flight 1
    ENVV=EXP_NO_TIMESTAMPS=1 run $p exp --mass $m
  done
done
cat $log
