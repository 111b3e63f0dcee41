#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's quick start, on a fresh Debian 12 machine. Run as root, or as a user with sudo (used only for
# apt-get).
#   tools/quickstart.sh demo   install the packages, build, run ripple-run on DirectML's ScatterND and TopK
#                              examples through lavapipe (Mesa's Vulkan on the CPU), printing inputs and results
#   tools/quickstart.sh test   install the packages, build, run the whole test suite (CTest)
#   tools/quickstart.sh deps   only install the packages
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-}
if [[ $what != demo && $what != test && $what != deps ]]; then
    echo "usage: $0 demo|test|deps" >&2
    exit 2
fi

packages=(cmake ninja-build g++ libvulkan-dev libvulkan-volk-dev glslang-tools glslang-dev spirv-tools spirv-cross
          libspirv-cross-c-shared-dev catch2 mesa-vulkan-drivers vulkan-validationlayers python3-numpy
          libvkd3d-dev libvkd3d-utils1 directx-headers-dev libpng-dev patchelf)
missing=()
for p in "${packages[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
if ((${#missing[@]})); then
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[[ $what == deps ]] && exit 0

# test: a real HLSL compiler (vkd3d-shader 2.1, test-only, never installed) for the d3d12-real tests.
if [[ $what == test ]]; then bash tools/vkd3d-tool.sh build-tools/vkd3d; fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DRIPPLE_D3D12=ON  # ON: also test the D3D12 back-end on vkd3d
if [[ $what == demo ]]; then
    cmake --build build --target ripple-run # the library, its kernels and ripple-run: nothing else
else
    cmake --build build
fi

# lavapipe, so the result is the same on every machine; remove this line to use your GPU.
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}

if [[ $what == test ]]; then
    ctest --test-dir build --output-on-failure -j "$(nproc)"
    exit
fi

run=build/samples/ripple-run/ripple-run
data=test/data/conformance
out=$(mktemp -d)
"$run" devices
echo
echo "== DML_SCATTER_ND_OPERATOR_DESC example"
"$run" scatter-nd --print --input $data/dml_scatter_nd_example.input.npy --indices $data/dml_scatter_nd_example.indices.npy \
    --updates $data/dml_scatter_nd_example.updates.npy --output "$out/scatter_nd.npy"
for ex in 1:3:decreasing 2:2:decreasing 3:3:decreasing 4:3:increasing; do
    IFS=: read -r n axis dir <<<"$ex"
    k=$([[ $n == 1 || $n == 2 ]] && echo 2 || echo 3)
    echo "== DML_TOP_K1_OPERATOR_DESC example $n: Axis $axis, K $k, $dir"
    "$run" top-k --print --input $data/dml_top_k1_example$n.input.npy --axis "$axis" --k "$k" --direction "$dir" \
        --output-values "$out/v$n.npy" --output-indices "$out/i$n.npy"
done
rm -rf "$out"
