#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cross-builds ripple for Windows x64 with MinGW-w64 on Debian 12: the library (Vulkan and D3D12 back-ends, with
# the D3D12 bytecode compiled at build time by tools/vkd3d-tool.sh's vkd3d-shader), ripple-run, ripple-bench,
# the samples and the test executables. The library is shared (build-windows/lib/ripple.dll, exporting the
# public API only; the tests link the same objects statically, as ripple_internal), and everything carries
# MinGW's C++ runtime inside. tools/ci-wine.sh runs them under Wine (WINEPATH=build-windows/lib finds the
# DLL). Run as root or with sudo (for apt-get only). Output: build-windows/.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v x86_64-w64-mingw32-g++-posix >/dev/null; then
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends g++-mingw-w64-x86-64
fi
# The D3D12 bytecode's compiler (cmake/RippleHlslCompiler.cmake finds it in build-tools/vkd3d).
bash tools/vkd3d-tool.sh build-tools/vkd3d
# The build runs ripple-embed on this machine: build it natively first.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target ripple-embed
# The operator tests: only the test/ops files of the tests tools/ci-wine.sh runs (its wine_files line).
wine_files=$(sed -n 's/^wine_files="\(.*\)"$/\1/p' tools/ci-wine.sh)
[[ -n $wine_files ]] || { echo "windows cross-build: tools/ci-wine.sh has no wine_files line" >&2; exit 1; }
cmake -S . -B build-windows -G Ninja -DCMAKE_BUILD_TYPE=Release "-DRIPPLE_OPS_TEST_FILES=$wine_files" \
    -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64-x86_64.cmake \
    -DRIPPLE_EMBED_EXECUTABLE="$PWD/build/tools/ripple-embed/ripple-embed" -DRIPPLE_D3D12_BYTECODE=ON \
    -DBUILD_SHARED_LIBS=ON
cmake --build build-windows
for exe in lib/ripple.dll samples/ripple-run/ripple-run.exe samples/particles/ripple-particles.exe \
    bench/ripple-bench.exe test/ripple-unit-tests.exe test/ripple-ops-tests.exe; do
    [[ -f build-windows/$exe ]] || { echo "windows cross-build: $exe is missing" >&2; exit 1; }
done
echo "windows cross-build: ok (build-windows/: lib/ripple.dll, ripple-run.exe, ripple-bench.exe, ripple-unit-tests.exe," \
    "ripple-ops-tests.exe; run them with WINEPATH=build-windows/lib)"
