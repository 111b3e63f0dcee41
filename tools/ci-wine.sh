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
#   3. D3D12 back-end: the same operator subset on Backend::D3D12 with the build's embedded bytecode and no
#      HLSL compiler at run time; ripple-run.exe --backend d3d12 on the conformance cases, plain and
#      deterministic
# The Khronos validation layer runs beneath winevulkan (the host loader's VK_INSTANCE_LAYERS; winevulkan
# lists no layer to the program, so the tests take RIPPLE_TEST_VALIDATION=host). An "err:" line of Wine's
# d3d12, vkd3d or vulkan channels, or a "Validation Error", fails the job, as they do in the Linux tests.
# What cannot run under Wine is listed in docs/D3D12.md ("What is verified where"), with the reason: users'
# kernels on D3D12 (the [user_kernel] tests, particles.exe --backend d3d12) compile their HLSL at run time,
# and Wine 8.0's d3dcompiler_47 (vkd3d-shader 1.6) rejects it.
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
for exe in samples/ripple-run/ripple-run.exe test/ripple-ops-tests.exe test/ripple-unit-tests.exe \
    samples/particles/ripple-particles.exe; do
    [[ -f $win/$exe ]] || { echo "wine: $win/$exe is missing (run tools/windows-cross-build.sh)" >&2; exit 1; }
done

work=$(mktemp -d)
export WINEPREFIX=$work/wineprefix WINEARCH=win64
export WINEDLLOVERRIDES="mscoree,mshtml=" # no Mono or Gecko installer in a fresh prefix
export WINEDEBUG=fixme-all
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation RIPPLE_TEST_VALIDATION=host
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
failures=0
step() { echo; echo "== wine: $*"; }
# Runs a Windows program; its output is kept, and a Wine error of the graphics channels or a validation
# message fails the step.
run() {
    local log rc=0
    log=$(mktemp -p "$work")
    "$wine" "$@" >"$log" 2>&1 || rc=$?
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

# The operator subset: the Linux job's d3d12-real tags, and on Vulkan also the fault tests and every TopK
# strategy once. Catch2 v2: ',' is or.
vulkan_spec="[scatter_nd]~[exhaustive],[scatter_elements]~[exhaustive],[scatter_in_place]~[exhaustive],[topk_once],[recorder],[recording],[replay],[counts],[user_kernel],[faults],[d3d12_real]"
# Not [user_kernel] on D3D12: users' kernels compile their HLSL at run time (docs/D3D12.md).
d3d12_spec="[scatter_nd]~[exhaustive]~[user_kernel],[scatter_elements]~[exhaustive]~[user_kernel],[scatter_in_place]~[exhaustive]~[user_kernel],[recording]~[user_kernel],[counts]~[user_kernel],[d3d12_real]~[user_kernel]"

cat >"$work/ripple-run" <<EOF
#!/bin/sh
exec "$wine" "$win/samples/ripple-run/ripple-run.exe" "\$@"
EOF
chmod +x "$work/ripple-run"

vulkan_half() { # returns its failures
step "2. Vulkan back-end"
check "unit tests" run "$win/test/ripple-unit-tests.exe"
check "operator tests on Vulkan: $vulkan_spec" run "$win/test/ripple-ops-tests.exe" "$vulkan_spec"
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
return "$failures"
}

d3d12_half() { # returns its failures
step "3. D3D12 back-end (Wine's d3d12.dll: vkd3d over winevulkan)"
d3d12_ops() { RIPPLE_TEST_KERNELS=d3d12 run "$win/test/ripple-ops-tests.exe" "$d3d12_spec"; }
check "operator tests on D3D12: $d3d12_spec" d3d12_ops
check "ripple-run.exe --backend d3d12 on every conformance case" \
    "$python" "$root/test/conformance/run_cases.py" "$work/ripple-run" "$root/test/data/conformance" --backend d3d12
check "ripple-run.exe --backend d3d12 on the scatter cases, deterministic" \
    "$python" "$root/test/conformance/run_cases.py" "$work/ripple-run" "$root/test/data/conformance" scatter \
    --deterministic --backend d3d12
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
