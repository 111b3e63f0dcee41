#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Windows build run: tools/windows-cross-build.sh's executables (build-windows/) under Debian 12's Wine 8.0,
# whose vulkan-1.dll (winevulkan) and d3d12.dll (Wine's vkd3d) reach the same lavapipe as the Linux tests.
# Wine's Vulkan goes through its X11 driver, so everything runs under Xvfb. A fresh WINEPREFIX each run.
#   1. ripple-run.exe devices: a Vulkan adapter (lavapipe) and a D3D12 adapter, and the D3D12 bytecode's
#      compiler
#   2. Vulkan back-end: the operator tests of the Linux job's subset (ScatterND, ScatterElements, every TopK
#      strategy once, the recorder, recording replay, counts, users' kernels, the fault tests) and the unit
#      tests; ripple-run.exe on every conformance case, and on a path with non-ASCII characters
#      and particles.exe --check (users' kernels beside ScatterElements and TopK)
#   3. D3D12 back-end: the operator tests that apply to D3D12, users' kernels among them, on Backend::D3D12
#      with the build's embedded bytecode (ripple's and, through ripple_add_kernels, the users') and no HLSL
#      compiler at run time; ripple-run.exe --backend d3d12 on the conformance cases, plain and
#      deterministic; particles.exe --backend d3d12 --check
# The Khronos validation layer runs beneath winevulkan (the host loader's VK_INSTANCE_LAYERS; winevulkan
# lists no layer to the program, so the tests take RIPPLE_TEST_VALIDATION=host). An "err:" line of Wine's
# d3d12, vkd3d or vulkan channels, or a "Validation Error", fails the job, as they do in the Linux tests.
# What cannot run under Wine is listed in docs/D3D12.md ("What is verified where"), with the reason.
# usage: tools/ci-wine.sh [BUILD_DIR]   (default build-windows; run tools/windows-cross-build.sh first)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
win=$(realpath "${1:-build-windows}")
need=()
command -v Xvfb >/dev/null || need+=(xvfb)
command -v xauth >/dev/null || need+=(xauth)
[[ -x /usr/lib/wine/wine64 ]] || need+=(wine64 wine)
if ((${#need[@]})); then
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
for exe in lib/ripple.dll samples/ripple-run/ripple-run.exe test/ripple-ops-tests.exe test/ripple-unit-tests.exe \
    samples/particles/ripple-particles.exe; do
    [[ -f $win/$exe ]] || { echo "wine: $win/$exe is missing (run tools/windows-cross-build.sh)" >&2; exit 1; }
done

work=$(mktemp -d)
export WINEPREFIX=$work/wineprefix WINEARCH=win64
export WINEDLLOVERRIDES="mscoree,mshtml=" # no Mono or Gecko installer in a fresh prefix
export WINEDEBUG=fixme-all
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation RIPPLE_TEST_VALIDATION=host
export WINEPATH=$win/lib # ripple.dll, for the samples (the tests link the library's objects statically)
wine=/usr/lib/wine/wine64
python=$(command -v /usr/bin/python3 || command -v python3) # Debian's, with python3-numpy
display=$((100 + RANDOM % 800))
Xvfb ":$display" -screen 0 640x480x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb=$!
cleanup() {
    WINEPREFIX=$WINEPREFIX /usr/lib/wine/wineserver -k 2>/dev/null || true
    kill "$xvfb" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
export DISPLAY=":$display"
# Starts a Windows program. Now and then Wine 8.0's loader fails before the program's first instruction:
# "virtual_alloc_first_teb wine: failed to map the shared user data: c0000018" (STATUS_CONFLICTING_ADDRESSES:
# the randomized address-space layout put something where KUSER_SHARED_DATA must go). Only that failure is
# started again, at most twice, and said so; the program's output is passed on once it ends.
cat >"$work/wine-start" <<EOF
#!/bin/bash
out=\$(mktemp -p "$work") err=\$(mktemp -p "$work")
for attempt in 1 2 3; do
    rc=0
    "$wine" "\$@" >"\$out" 2>"\$err" || rc=\$?
    if ((rc != 0 && attempt < 3)) && grep -q 'virtual_alloc_first_teb.*failed to map the shared user data' "\$err"; then
        echo "wine: Wine's loader could not map the shared user data (start \$attempt of \$1); starting it again" >&2
        continue
    fi
    break
done
cat "\$out"
cat "\$err" >&2
rm -f "\$out" "\$err"
exit \$rc
EOF
chmod +x "$work/wine-start"
failures=0
step() { echo; echo "== wine: $*"; }
# Runs a Windows program; its output is kept, and a Wine error of the graphics channels or a validation
# message fails the step.
run() {
    local log rc=0
    log=$(mktemp -p "$work")
    "$work/wine-start" "$@" >"$log" 2>&1 || rc=$?
    cat "$log"
    if grep -E '^[0-9a-f]*:?err:(d3d12|vkd3d|vulkan|dxgi|d3d)|^vkd3d:err:|Validation (Error|Warning)' "$log" >/dev/null; then
        echo "wine: FAILED: Wine or the validation layer reported errors running $*" >&2
        return 1
    fi
    return $rc
}
check() { # NAME COMMAND...: runs it, counts a failure
    local name=$1 start=$SECONDS
    shift
    if "$@"; then
        echo "wine: ok: $name ($((SECONDS - start)) s)"
    else
        echo "wine: FAILED: $name" >&2
        failures=$((failures + 1))
    fi
}

step "a fresh WINEPREFIX"
start=$SECONDS
"$wine" wineboot -i >/dev/null 2>&1
/usr/lib/wine/wineserver -w
echo "wineboot: $((SECONDS - start)) s"
# A persistent wineserver: each program below starts in a fraction of a second.
/usr/lib/wine/wineserver -p

step "1. ripple-run.exe devices"
devices() {
    local out
    out=$(run "$win/samples/ripple-run/ripple-run.exe" devices) || return 1
    echo "$out"
    grep -q "bytecode" <<<"$out" || { echo "no D3D12 bytecode compiler named" >&2; return 1; }
    grep -q "backend Vulkan" <<<"$out" || { echo "no Vulkan adapter listed" >&2; return 1; }
    grep -q "backend D3D12" <<<"$out" || { echo "no D3D12 adapter listed" >&2; return 1; }
}
check "ripple-run.exe devices lists lavapipe through Vulkan and a D3D12 adapter" devices

# The operator tests run under Wine, by tag, none of them [exhaustive]; the cross-build compiles only the
# test/ops files that hold them (tools/windows-cross-build.sh reads wine_files here, and a unit test fails when
# a test with one of these tags lives in another file).
# shellcheck disable=SC2034 # read by tools/windows-cross-build.sh, not here
wine_files="test_counts;test_faults;test_recorder;test_recording;test_replay;test_scatter_deterministic;test_scatter_elements;test_scatter_in_place;test_scatter_nd;test_scatter_reduce;test_topk_strategies;test_user_kernel"
wine_tags="scatter_nd;scatter_elements;scatter_in_place;topk_once;recorder;recording;replay;counts;user_kernel;faults;d3d12_real"
# The same subset runs on both back-ends (on Linux, D3D12's is the d3d12-real label:
# test/CMakeLists.txt's RIPPLE_D3D12_REAL_TAGS).
spec() { # "a;b" -> "[a]~[exhaustive],[b]~[exhaustive]" (Catch2 v2: ',' is or)
    local out="" t
    IFS=';' read -ra parts <<<"$1"
    for t in "${parts[@]}"; do out+="${out:+,}[$t]~[exhaustive]"; done
    echo "$out"
}
ops_spec=$(spec "$wine_tags")

cat >"$work/ripple-run" <<EOF
#!/bin/sh
exec "$work/wine-start" "$win/samples/ripple-run/ripple-run.exe" "\$@"
EOF
chmod +x "$work/ripple-run"

# 4. Packaging on Windows: the shared build installed; ripple.dll's exports are exactly the public API, the
# list a Linux shared build is held to (test/data/libripple-exports.txt) with Windows' names for 64-bit
# integers, plus the D3D12 interop functions (test/data/ripple-dll-exports-d3d12.txt); and test/consumer
# built by MinGW from the installed package (find_package) runs under Wine.
prefix=$work/prefix-windows
dll_exports() {
    cmake --install "$win" --prefix "$prefix" >/dev/null || return 1
    [[ -f $prefix/bin/ripple.dll && -f $prefix/lib/cmake/ripple/rippleConfig.cmake ]] || {
        echo "the install lacks bin/ripple.dll or the CMake package" >&2
        return 1
    }
    local table names
    table=$(x86_64-w64-mingw32-objdump -p "$prefix/bin/ripple.dll") || return 1
    names=$(sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' <<<"$table" | sed -n 's/^[[:space:]]*\[ *[0-9]*\] //p')
    [[ -n $names ]] || { echo "ripple.dll has no export table" >&2; return 1; }
    if ! diff -u <(grep -hv '^#' "$root/test/data/libripple-exports.txt" "$root/test/data/ripple-dll-exports-d3d12.txt" |
        LC_ALL=C sort -u) <(x86_64-w64-mingw32-c++filt <<<"$names" |
        sed -e 's/unsigned long long/unsigned long/g' -e 's/long long/long/g' | LC_ALL=C sort -u); then
        echo "ripple.dll's exports differ from the lists (+: exported, not listed)" >&2
        return 1
    fi
    echo "ripple.dll: exports $(wc -l <<<"$names") names, as the lists give"
}
windows_consumer() {
    local c=$work/consumer-windows
    cmake -S "$root/test/consumer" -B "$c" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/mingw-w64-x86_64.cmake" -DRIPPLE_CONSUMER_FROM=package \
        -DCMAKE_PREFIX_PATH="$prefix" -DRIPPLE_EMBED_EXECUTABLE="$root/build/tools/ripple-embed/ripple-embed" \
        >"$work/consumer-configure.log" 2>&1 || { cat "$work/consumer-configure.log"; return 1; }
    cmake --build "$c" >"$work/consumer-build.log" 2>&1 || { cat "$work/consumer-build.log"; return 1; }
    grep -q "dxbc consumer_kernels" "$work/consumer-build.log" || {
        echo "the consumer's kernel got no D3D12 bytecode at build time" >&2
        return 1
    }
    WINEPATH="$prefix/bin" run "$c/consumer.exe" || return 1
    WINEPATH="$prefix/bin" run "$c/consumer_kernels.exe" --host-validation || return 1
    WINEPATH="$prefix/bin" run "$c/consumer_kernels.exe" --host-validation --backend d3d12
}

vulkan_half() { # returns its failures
step "2. Vulkan back-end"
check "unit tests" run "$win/test/ripple-unit-tests.exe"
check "operator tests on Vulkan: $ops_spec" run "$win/test/ripple-ops-tests.exe" "$ops_spec"
check "ripple-run.exe on every conformance case" \
    "$python" "$root/test/conformance/run_cases.py" "$work/ripple-run" "$root/test/data/conformance"
unicode() { # a case read from, and written to, a folder whose name is outside every ANSI code page
    local dir="$work/données ünïcode テスト"
    mkdir -p "$dir"
    cp "$root/test/data/conformance/dml_top_k1_example1.input.npy" "$dir/entrée.npy"
    run "$win/samples/ripple-run/ripple-run.exe" top-k --input "$dir/entrée.npy" --axis 3 --k 2 \
        --output-values "$dir/valeurs ✓.npy" --output-indices "$dir/indices ✓.npy" || return 1
    "$python" - "$dir/entrée.npy" "$dir/valeurs ✓.npy" "$dir/indices ✓.npy" <<'EOF'
import sys, numpy as np
x, v, i = (np.load(p) for p in sys.argv[1:])
want = -np.sort(-x, axis=3, kind='stable')[..., :2]
assert np.array_equal(v, want), (v, want)
assert np.array_equal(np.take_along_axis(x, i.astype(np.int64), axis=3), v)
print('non-ASCII paths: values and indices as expected')
EOF
}
check "ripple-run.exe reads and writes paths with non-ASCII characters" unicode
check "particles.exe --check (users' kernels, ScatterElements and TopK), every frame exact" \
    run "$win/samples/particles/ripple-particles.exe" --particles 30001 --width 203 --height 151 --k 24 --frames 6 --check
check "ripple.dll exports the public API and nothing else" dll_exports
check "a find_package consumer built with MinGW against the installed package runs (its own kernel too, on Vulkan and D3D12)" \
    windows_consumer
return "$failures"
}

d3d12_half() { # returns its failures
step "3. D3D12 back-end (Wine's d3d12.dll: vkd3d over winevulkan)"
d3d12_ops() { RIPPLE_TEST_KERNELS=d3d12 run "$win/test/ripple-ops-tests.exe" "$ops_spec"; }
check "operator tests on D3D12: $ops_spec" d3d12_ops
check "ripple-run.exe --backend d3d12 on every conformance case" \
    "$python" "$root/test/conformance/run_cases.py" "$work/ripple-run" "$root/test/data/conformance" --backend d3d12
check "ripple-run.exe --backend d3d12 on the scatter cases, deterministic" \
    "$python" "$root/test/conformance/run_cases.py" "$work/ripple-run" "$root/test/data/conformance" scatter \
    --deterministic --backend d3d12
check "particles.exe --backend d3d12 --check (users' kernels from their embedded bytecode), every frame exact" \
    run "$win/samples/particles/ripple-particles.exe" --backend d3d12 --particles 30001 --width 203 --height 151 \
    --k 24 --frames 6 --check
return "$failures"
}

# The two back-ends at once: each keeps about one core busy. Their output is shown when both are done.
vulkan_half >"$work/vulkan.out" 2>&1 &
pv=$!
d3d12_half >"$work/d3d12.out" 2>&1 &
pd=$!
wait $pv || failures=$((failures + $?))
wait $pd || failures=$((failures + $?))
cat "$work/vulkan.out" "$work/d3d12.out"

echo
if ((failures)); then
    echo "wine: $failures step(s) FAILED" >&2
    exit 1
fi
echo "wine: every step passed"
