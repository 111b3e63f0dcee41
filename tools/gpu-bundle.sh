#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Prepares a run of ripple's tests on a remote GPU machine that has an NVIDIA driver but no package
# registry (see docs/GPU.md): .gl/ gets the Vulkan loader and glvnd packages, .gpu/ the test binaries
# (static C++ runtime) and the Khronos validation layer. Both folders are git-ignored; carry them.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .git/info .gl .gpu /tmp/amd64/partial
grep -qx '/.gl/' .git/info/exclude 2>/dev/null || echo /.gl/ >>.git/info/exclude
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo /.gpu/ >>.git/info/exclude
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
apt-get $o update -qq
(cd .gl && apt-get $o download libvulkan1 libglvnd0 libegl1 libopengl0 libgl1 libglx0 libgles2)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DRIPPLE_D3D12=OFF \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc"
cmake --build build-gpu
cp build-gpu/test/ripple-ops-tests build-gpu/samples/ripple-run/ripple-run build-gpu/samples/engine_interop/engine_interop \
    build-gpu/bench/ripple-bench .gpu/
cp /usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so .gpu/
sed 's|"library_path": "libVkLayer_khronos_validation.so"|"library_path": "./libVkLayer_khronos_validation.so"|' \
    /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json >.gpu/VkLayer_khronos_validation.json
du -sh .gl .gpu
