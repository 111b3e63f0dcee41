# SPDX-License-Identifier: MIT
# The device call of this run (carry .gl and .gpu; bench/device_pack.sh base=d3d7f5c wip=.; kind nvidia-h100-x1):
# a kept recording's timestamp queries reset on the host (vkResetQueryPool) instead of in its command buffer.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
for t in .gpu/*.tar.xz; do tar -xJf "$t" -C .gpu; done
export LD_LIBRARY_PATH=$PWD/.gpu
.gpu/wip/ripple-bench record --ops 1 >/dev/null 2>&1 || export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
log=$OUT/frame6.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv >>$log
run() { echo "== process $1, $2 ${*:3}" >>$log; .gpu/$2/ripple-particles --particles 1000000 --width 1024 --height 1024 --frames 300 "${@:3}" 2>&1 | grep -E "median" >>$log; }
for p in 1 2 3; do
  for m in int float; do
    run $p base --mass $m
    run $p wip --mass $m
    run $p wip --mass $m --no-fastest
    run $p wip --mass $m --no-fastest --no-render-wait
  done
done
for p in 1 2 3; do .gpu/wip/ripple-bench record --ops 1000 --repeat 30 2>&1 | tail -1 >>$log; done
VK_LAYER_PATH=$PWD/.gpu RIPPLE_VALIDATION=1 .gpu/wip/ripple-ops-tests "[counts],[recording],[user_kernel]" 2>&1 | tail -2 >>$log
cat $log
