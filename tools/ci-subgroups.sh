#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CI job "every subgroup size" (issue 40), on an existing build (default: build/, as tools/quickstart.sh makes
# it). lavapipe's subgroup size follows LP_NATIVE_VECTOR_WIDTH / 32; at 1024 and 2048 it runs 16-lane subgroups
# while claiming full ones of 32 and 64, which ripple's probe catches (its portable kernels run there).
#   1. At widths 128, 512, 1024 and 2048 (subgroups of 4, 16, 32, 64; 256 is the default suite's 8), in a
#      queue of tasks run two at a time: the operator tests tagged [subgroups] (TopK's reference, rank,
#      lane, row, chunk and sampled-selection paths, the deterministic sort, the probe; the chunk test,
#      [long], only where the fast kernels run),
#      the conformance cases in both scatter modes, and 60 random cases through ripple-run
#      (test/conformance/random_cases.py, seeded by the width; rows to 160,000, K to over 1024).
#   2. Under each emulated profile (DeviceOptions::profile) at the width of its subgroup size: 30 random
#      cases, where a refusal must name a feature the profile lacks (never a limit: the profiles with
#      Vulkan's minimum limits take the small-device variants); the [limits] tests once; the deterministic
#      scatter tests under mobile-vk11 (no 64-bit shader types).
# usage: tools/ci-subgroups.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ops=$build/test/ripple-ops-tests
run=$build/samples/ripple-run/ripple-run
py=/usr/bin/python3 # Debian's, with python3-numpy
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}
log=$(mktemp)
step() { # runs a step: its last lines and cost, or all it printed when it fails (then the job fails)
    local start=$SECONDS rc=0
    echo "== $*"
    "$@" >"$log" 2>&1 || rc=$?
    if ((rc)); then cat "$log"; else tail -n 3 "$log"; fi
    printf '   (%d s)\n' $((SECONDS - start))
    return "$rc"
}

task() { # task WIDTH WHAT: a width's operator tests (ops), its chunk test (long) or its ripple-run cases
    local width=$1 what=$2
    export LP_NATIVE_VECTOR_WIDTH=$width
    echo "=== LP_NATIVE_VECTOR_WIDTH=$width (subgroup size $((width / 32))): $what"
    case $what in
    ops) RIPPLE_VALIDATION=1 step "$ops" "[subgroups]~[long]" ;;
    long) RIPPLE_VALIDATION=1 step "$ops" "[subgroups][long]" ;;
    cases)
        RIPPLE_VALIDATION=1 step $py test/conformance/run_cases.py "$run" test/data/conformance || return
        step $py test/conformance/run_cases.py "$run" test/data/conformance scatter --deterministic || return
        RIPPLE_VALIDATION=1 step $py test/conformance/random_cases.py "$run" --count 60 --seed "$width" --jobs 2
        ;;
    esac
}
if [[ ${2:-} == --task ]]; then # one task of the queue below, run by xargs
    task "$3" "$4" >"$build/subgroups-$3-$4.log" 2>&1
    exit
fi
# The widths' tasks, longest first (a cold run's order), two at a time: the operator tests keep about one
# core busy, so two fill the machine, and a queue keeps both busy to its end (two fixed streams of widths
# ended 90 s apart). Each task's output is shown when all are done. The chunk test ([long]) runs only where
# the fast kernels run.
tasks=("512 ops" "128 ops" "2048 ops" "1024 ops" "512 long" "128 long" "512 cases" "2048 cases" "128 cases"
    "1024 cases")
rc=0
printf '%s\n' "${tasks[@]}" | xargs -P 2 -L 1 bash "$PWD/tools/ci-subgroups.sh" "$build" --task || rc=1
for t in "${tasks[@]}"; do cat "$build/subgroups-${t/ /-}.log"; done
((rc == 0)) || { echo "ci-subgroups: a width's step failed (its output above)"; exit 1; }
unset LP_NATIVE_VECTOR_WIDTH

step "$ops" "[limits]"
# The deterministic scatters on a profile without shaderInt64 and shaderFloat64: the small-device sort and
# apply, and 64-bit types refused by name (they once failed there, and only a profile shows it).
RIPPLE_DEVICE_PROFILE=mobile-vk11 LP_NATIVE_VECTOR_WIDTH=512 RIPPLE_VALIDATION=1 \
    step "$ops" "[scatter_deterministic]~[exhaustive]"
for entry in vulkan-minimum:128 android-baseline-2022:128 mobile-vk11:512 apple-m1-moltenvk:1024 \
    intel-iris-xe:1024 amd-rdna-wave64:2048 amd-rdna-wave32:1024 mali-valhall-panvk:512 \
    adreno-6xx-turnip:2048 powervr-rogue:128; do
    IFS=: read -r profile width <<<"$entry"
    echo "=== profile $profile, LP_NATIVE_VECTOR_WIDTH=$width"
    RIPPLE_DEVICE_PROFILE=$profile LP_NATIVE_VECTOR_WIDTH=$width RIPPLE_VALIDATION=1 \
        step $py test/conformance/random_cases.py "$run" --count 30 --seed 40 --jobs 2 --allow-refusals features
done
