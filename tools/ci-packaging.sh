#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What an engine team does with ripple, from a clean tree, each step failing CI if it breaks:
#   1. configure with RIPPLE_BUILD_SAMPLES=OFF, and with the tests off
#   2. a default (static) build, installed: its CMake package and pkg-config file name no library beyond
#      the C runtime's (no vkd3d, no absolute paths)
#   3. find_package consumers (test/consumer) built with gcc and with clang under -fno-exceptions -fno-rtti
#      -Wall -Wextra -Werror, each running a TopK on lavapipe against the CPU; what ripple adds to a stripped
#      consumer (must stay under 6 MB)
#   4. add_subdirectory consumers, gcc and clang, the same program: nothing of ripple's lands in the
#      consumer's top build folder or its install
#   5. a BUILD_SHARED_LIBS=ON build: libripple.so.MAJOR.MINOR exports exactly the public API, as
#      test/data/libripple-exports.txt lists (no internals, no std:: template instantiations); its samples
#      run (ripple-run on the conformance cases, engine_interop, the README's code), and a consumer links it
#      through find_package and through pkg-config
#   6. the API reference (ripple_docs): doxygen with zero warnings, and no impl_ in it
# Needs the packages of tools/quickstart.sh, and installs clang and doxygen (as root or with sudo) when they
# are missing. Output under $RIPPLE_PACKAGING_DIR (default: a new temporary folder).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang++ >/dev/null || ! command -v doxygen >/dev/null; then
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang doxygen
fi
src=$PWD
work=${RIPPLE_PACKAGING_DIR:-$(mktemp -d)}
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}
step() { echo; echo "== packaging: $*"; }
fail() { echo "packaging: FAILED: $*" >&2; exit 1; }
elapsed() { echo "$(($(date +%s) - $1)) s"; }

step "1. configure with RIPPLE_BUILD_SAMPLES=OFF (tests on), and with tests off"
cmake -S . -B "$work/no-samples" -G Ninja -DRIPPLE_BUILD_SAMPLES=OFF -DRIPPLE_BUILD_TESTS=ON >/dev/null
cmake -S . -B "$work/no-tests" -G Ninja -DRIPPLE_BUILD_TESTS=OFF -DRIPPLE_BUILD_BENCH=OFF >/dev/null
echo "both configure"

step "2. default static build (no tests), installed"
t=$(date +%s)
cmake -S . -B "$work/static" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRIPPLE_BUILD_TESTS=OFF -DRIPPLE_BUILD_BENCH=OFF \
    -DCMAKE_INSTALL_PREFIX="$work/prefix-static" >/dev/null
cmake --build "$work/static" >/dev/null
echo "clean build of the library and samples without tests: $(elapsed "$t") on $(nproc) cores"
cmake --install "$work/static" >/dev/null
pkg=$work/prefix-static/lib/cmake/ripple
[[ -f $pkg/rippleConfig.cmake && -f $work/prefix-static/lib/pkgconfig/ripple.pc ]] || fail "package files missing"
[[ -x $work/prefix-static/bin/ripple-run ]] || fail "ripple-run was not installed"
[[ -f $work/prefix-static/share/doc/ripple/LICENSE ]] || fail "LICENSE was not installed"
links=$(grep -ho 'INTERFACE_LINK_LIBRARIES "[^"]*"' "$pkg"/rippleTargets*.cmake || true)
echo "rippleTargets link interface: ${links:-none}"
# Allowed: the dynamic loader's library (dlopen of the Vulkan loader), part of the C runtime.
stray=$(echo "$links" | sed -e 's/INTERFACE_LINK_LIBRARIES //' -e 's/["\\]//g' | tr ';' '\n' | grep -v -x -e '' -e '$<LINK_ONLY:dl>' || true)
[[ -z $stray ]] || fail "the installed package names libraries beyond the C runtime: $stray"
! grep -rqi vkd3d "$pkg" "$work/prefix-static/lib/pkgconfig" || fail "the installed package mentions vkd3d"
[[ $("$work/prefix-static/bin/ripple-run" devices) != *vkd3d* ]] || fail "ripple-run devices lists a vkd3d adapter"

step "3. find_package consumers (gcc, clang)"
for cxx in g++ clang++; do
    b=$work/package-$cxx
    cmake -S test/consumer -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=$cxx \
        -DRIPPLE_CONSUMER_FROM=package -DCMAKE_PREFIX_PATH="$work/prefix-static" >/dev/null
    cmake --build "$b" >/dev/null
    "$b/consumer"
    "$b/consumer_kernels"
done
b=$work/package-g++
strip -o "$b/consumer.stripped" "$b/consumer"
strip -o "$b/without.stripped" "$b/consumer_without_ripple"
with=$(stat -c %s "$b/consumer.stripped")
without=$(stat -c %s "$b/without.stripped")
growth=$((with - without))
echo "a stripped consumer grows by $growth bytes ($((growth / 1024)) KiB) with ripple (gcc, Release, static)"
((growth < 6 * 1024 * 1024)) || fail "ripple adds $growth bytes to a stripped consumer (goal: under 6 MB)"

step "4. add_subdirectory consumers (gcc, clang)"
for pair in g++:gcc clang++:clang; do
    cxx=${pair%%:*} cc=${pair##*:}
    b=$work/subdirectory-$cxx
    t=$(date +%s)
    cmake -S test/consumer -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=$cxx \
        -DCMAKE_C_COMPILER=$cc -DRIPPLE_CONSUMER_FROM=subdirectory -DRIPPLE_SOURCE_DIR="$src" >/dev/null
    cmake --build "$b" >/dev/null
    echo "$cxx: built in $(elapsed "$t")"
    "$b/consumer"
    "$b/consumer_kernels"
    for d in kernels generated staged-headers include; do
        [[ ! -e $b/$d ]] || fail "add_subdirectory wrote $d into the consumer's top build folder"
    done
    cmake --install "$b" --prefix "$b/install" >/dev/null
    [[ -z $(find "$b/install" -type f 2>/dev/null) ]] || fail "ripple's install rules ran in the consumer's install"
done

step "5. shared build (BUILD_SHARED_LIBS=ON)"
b=$work/shared
cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DRIPPLE_BUILD_TESTS=OFF \
    -DRIPPLE_BUILD_BENCH=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix-shared" >/dev/null
cmake --build "$b" >/dev/null
cmake --install "$b" >/dev/null
so=$(ls "$work"/prefix-shared/lib/libripple.so.0.*.* | head -1)
[[ $(readelf -d "$so") == *"SONAME"*"[libripple.so.0.1]"* ]] || fail "libripple's SONAME is not libripple.so.0.1"
symbols=$(nm -DC --defined-only "$so") # captured first: grep -q would close nm's pipe under pipefail
grep -q 'ripple::Device::create' <<<"$symbols" || fail "libripple.so does not export ripple::Device::create"
internal=$(grep -E ' ripple::(core|kernels|detail|vk|d3d12)::' <<<"$symbols" | head -3 || true)
[[ -z $internal ]] || fail "libripple.so exports internals: $internal"
# Exactly the public API (lib/ripple.map): no std:: template instantiations, and the checked-in list.
stray=$(grep -v ' ripple::' <<<"$symbols" | head -3 || true)
[[ -z $stray ]] || fail "libripple.so exports symbols outside ripple::: $stray"
if ! diff -u <(grep -v '^#' test/data/libripple-exports.txt) <(cut -d' ' -f3- <<<"$symbols" | LC_ALL=C sort -u); then
    fail "libripple.so's exports differ from test/data/libripple-exports.txt (+: exported, not listed)"
fi
echo "$(basename "$so"): exports $(grep -c ' ripple::' <<<"$symbols") ripple:: symbols, as test/data/libripple-exports.txt lists"
/usr/bin/python3 test/conformance/run_cases.py "$b/samples/ripple-run/ripple-run" test/data/conformance | tail -1
[[ $(ldd "$b/samples/ripple-run/ripple-run") == *libripple.so* ]] || fail "ripple-run does not link libripple.so"
"$b/samples/engine_interop/engine_interop"
"$b/samples/readme/ripple-readme-sample"
c=$work/package-shared
cmake -S test/consumer -B "$c" -G Ninja -DRIPPLE_CONSUMER_FROM=package -DCMAKE_PREFIX_PATH="$work/prefix-shared" >/dev/null
cmake --build "$c" >/dev/null
"$c/consumer"
export PKG_CONFIG_PATH=$work/prefix-shared/lib/pkgconfig
# shellcheck disable=SC2046
g++ -std=c++17 -fno-exceptions -fno-rtti -Wall -Wextra -Werror test/consumer/main.cpp -o "$c/consumer-pkg-config" \
    $(pkg-config --cflags --libs ripple) -Wl,-rpath,"$work/prefix-shared/lib"
"$c/consumer-pkg-config"

step "6. API reference (doxygen, zero warnings)"
cmake --build "$work/static" --target ripple_docs
[[ -f $work/static/docs/html/index.html ]] || fail "no docs/html/index.html"
! grep -rlq 'impl_' "$work/static/docs/html" || fail "the API reference shows impl_"
echo "packaging: all checks passed ($work)"
