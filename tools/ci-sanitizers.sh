#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CI's sanitizer, fuzzing and fault-injection jobs (issue 18), each failing CI on any report:
#   1. ASan + UBSan (+ LSan) build with Clang: the unit tests, the device/recorder/fault-injection tests and
#      a lavapipe subset of the operator tests, the conformance cases and ripple-run's error contracts (its
#      hostile-invocation generator included) through a sanitized ripple-run. Leaks are reported for ripple's
#      own frames; test/sanitizers/lsan.supp names only driver modules.
#   2. libFuzzer: the .npy reader, operator validation, users' KernelSources and pipeline-cache data, each for
#      FUZZ_SECONDS (default 60) from its seed
#      corpus in test/fuzz/corpus (new inputs go to a scratch folder; a crash's input is printed and kept in
#      build-sanitize/fuzz-crashes for adding to the corpus). The frame-loop fuzzer (lavapipe: recordings,
#      rebinds, submissions, GPU-side counts and indirect dispatches against a CPU model) runs as long,
#      during step 1, after the first test stream.
#   3. TSan build (built during step 1's tests, in the cores they leave idle): the recorder tests, recorders
#      on several threads at once included.
# Needs the packages of tools/quickstart.sh; installs clang, its sanitizer runtimes and llvm (as root or
# with sudo) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}

need=()
for p in clang libclang-rt-14-dev llvm-14; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need+=("$p")
done
if ((${#need[@]})); then
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

step() { printf '\n== sanitizers: %s (%s)\n' "$1" "$(date +%T)"; }
root=$PWD
lib=/usr/lib/x86_64-linux-gnu
# The driver and the layer stay loaded so that leaks inside them can be named and suppressed (test/main.cpp).
export RIPPLE_TEST_KEEP_MODULES=$lib/libvulkan_lvp.so:$lib/libVkLayer_khronos_validation.so
export ASAN_SYMBOLIZER_PATH=/usr/bin/llvm-symbolizer-14
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$root/test/sanitizers/lsan.supp:print_suppressions=0

# vptr is off: the library is built without RTTI and the tests with it, which vptr checks cannot follow.
san="-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=all -fno-omit-frame-pointer"
# What each sanitizer build runs of the operator tests, and the test/ops files it compiles for them (only
# those: the unit test "the sanitizer builds' test files hold ..." (test/unit/check_sanitizer_files.cmake)
# reads these lines and fails if a test with these tags or names lives in another file).
asan_files="test_device;test_recorder;test_faults;test_replay;test_frame_loop;test_scatter_nd;test_scatter_elements;test_scatter_in_place;test_topk;test_topk_select"
asan_tags_a="device;recorder;faults;replay;frame_loop"
asan_tags_b="scatter_nd;scatter_elements;scatter_in_place"
# The lanes' tests (TopK by invocation-private lists*) run here since a local ctest run saw one of them
# corrupt the heap once (bench/NOTES.md, issue 59, fifteenth session; not reproduced).
asan_names="TopK reads strided and broadcast inputs in place;TopK of empty tensors succeeds and writes nothing;TopK's sampled radix selection falls back*;TopK by invocation-private lists*"
tsan_files="test_recorder;test_faults;test_replay"
tsan_tags="recorder;faults;replay"
spec() { # "a;b" -> "[a],[b]" (Catch2 v2: ',' is or)
    local out="" t
    IFS=';' read -ra parts <<<"$1"
    for t in "${parts[@]}"; do out+="${out:+,}[$t]"; done
    echo "$out"
}

# Both builds run the host tool ripple-embed of the plain build (build/, as the test job or
# tools/windows-cross-build.sh left it): an instrumented one would pay the sanitizer's start-up in each of
# the about 4,000 kernel steps, which compile nothing of what the tests run.
embed=$root/build/tools/ripple-embed/ripple-embed
if [[ ! -x $embed ]]; then
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build --target ripple-embed
fi

step "1. ASan + UBSan + LSan build (Clang)"
CC=clang CXX=clang++ cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIPPLE_BUILD_BENCH=OFF \
    -DRIPPLE_BUILD_FUZZERS=ON "-DRIPPLE_OPS_TEST_FILES=$asan_files" "-DRIPPLE_EMBED_EXECUTABLE=$embed" "-DCMAKE_C_FLAGS=$san -fsanitize=fuzzer-no-link" \
    "-DCMAKE_CXX_FLAGS=$san -fsanitize=fuzzer-no-link" >/dev/null
cmake --build build-sanitize --target ripple-unit-tests ripple-ops-tests ripple-run ripple-fuzz-npy ripple-fuzz-validation \
    ripple-fuzz-kernel-source ripple-fuzz-cache ripple-fuzz-frame-loop

crashes=$root/build-sanitize/fuzz-crashes
mkdir -p "$crashes"
fuzz() { # fuzz TARGET [MALLOC_LIMIT_MB]: its output (the summary lines) in build-sanitize/fuzz-TARGET.log
    local scratch
    scratch=$(mktemp -d)
    # Inputs are at most 4 KiB: no allocation of 64 MiB is ever justified (-malloc_limit_mb), except the
    # frame-loop fuzzer's device memory (lavapipe's is host memory, in 64 MiB blocks).
    build-sanitize/test/fuzz/ripple-fuzz-$1 -max_total_time="$FUZZ_SECONDS" -max_len=4096 -malloc_limit_mb="${2:-64}" \
        -print_final_stats=1 -artifact_prefix="$crashes/$1-" "$scratch" test/fuzz/corpus/$1 >"build-sanitize/fuzz-$1.log" 2>&1 || true
    rm -rf "$scratch"
}
fuzz_report() { # fuzz_report TARGET: its summary, and a failure where it found a crash
    echo "-- ripple-fuzz-$1"
    grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|==|SUMMARY|ERROR|.*runtime error)" "build-sanitize/fuzz-$1.log" || true
    if compgen -G "$crashes/$1-*" >/dev/null; then
        echo "ripple-fuzz-$1 found a crash; its input (add it to test/fuzz/corpus/$1 once fixed):"
        ls "$crashes"
        exit 1
    fi
}

step "1. ASan + UBSan + LSan: unit, device, recorder, fault injection, kept recordings, scatter tests; conformance; ripple-run"
# Two streams at once, one per core; each one's output is shown when both are done.
stream() { # stream NAME COMMAND...: runs the commands (separated by ";;") into build-sanitize/asan-NAME.log
    local name=$1 cmd=() start=$SECONDS
    shift
    for arg in "$@" ";;"; do
        if [[ $arg == ";;" ]]; then "${cmd[@]}" >>"build-sanitize/asan-$name.log" 2>&1 || return; cmd=(); else cmd+=("$arg"); fi
    done
    echo "(stream $name: $((SECONDS - start)) s)" >>"build-sanitize/asan-$name.log"
}
rm -f build-sanitize/asan-*.log
# Meanwhile step 3's build, at the lowest priority: it takes what the test streams and the serial steps after
# them leave of the cores (the job kept its 2 cores 76% busy when it ran alone after them). It is done before
# the fuzzers start, whose time is the wall clock's.
tsan_build() {
    local start=$SECONDS
    CC=clang CXX=clang++ cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIPPLE_BUILD_BENCH=OFF \
        -DRIPPLE_BUILD_SAMPLES=OFF "-DRIPPLE_OPS_TEST_FILES=$tsan_files" "-DRIPPLE_EMBED_EXECUTABLE=$embed" \
        "-DCMAKE_C_FLAGS=-fsanitize=thread" "-DCMAKE_CXX_FLAGS=-fsanitize=thread" >/dev/null
    nice -n 19 cmake --build build-tsan --target ripple-ops-tests
    echo "(TSan build: $((SECONDS - start)) s, beside step 1's tests)"
}
tsan_build >build-sanitize/tsan-build.log 2>&1 &
tsan_pid=$!
# Stream a is the shorter: the frame-loop fuzzer (on the GPU, FUZZ_SECONDS) follows it on its core.
stream a build-sanitize/test/ripple-unit-tests ";;" build-sanitize/test/ripple-ops-tests "$(spec "$asan_tags_a")" ";;" \
    fuzz frame-loop 1024 &
a=$!
stream b build-sanitize/test/ripple-ops-tests "$(spec "$asan_tags_b")" ";;" \
    build-sanitize/test/ripple-ops-tests "${asan_names//;/,}" &
b=$!
rc=0
wait $a || rc=1
wait $b || rc=1
cat build-sanitize/asan-a.log build-sanitize/asan-b.log
((rc == 0)) || { kill $tsan_pid 2>/dev/null; echo "sanitizers: an ASan/UBSan test run failed (its output above)"; exit 1; }
fuzz_report frame-loop
# ripple-run is not the test runner: lavapipe is preloaded to stay resident (it defines only vk_icd* entry
# points, so nothing is interposed), and the validation layer (tested in the main job) is left off.
run=build-sanitize/samples/ripple-run/ripple-run
unset RIPPLE_VALIDATION
export LD_PRELOAD=$lib/libvulkan_lvp.so
/usr/bin/python3 test/conformance/run_cases.py $run test/data/conformance
/usr/bin/python3 test/conformance/cli_errors.py $run
/usr/bin/python3 test/conformance/cli_hostile.py $run 250 18
unset LD_PRELOAD

tsan_ok=1
wait $tsan_pid || tsan_ok=0
tail -n 2 build-sanitize/tsan-build.log
((tsan_ok)) || { cat build-sanitize/tsan-build.log; echo "sanitizers: the TSan build failed"; exit 1; }

step "2. libFuzzer, ${FUZZ_SECONDS} s per target, two at a time (one per core)"
for pair in "npy validation" "kernel-source cache"; do
    read -r a b <<<"$pair"
    fuzz "$a" &
    fuzz "$b" &
    wait
    fuzz_report "$a"
    fuzz_report "$b"
done

step "3. TSan (built during step 1): the recorder and kept-recording tests, on several threads"
TSAN_OPTIONS="suppressions=$root/test/sanitizers/tsan.supp halt_on_error=1 second_deadlock_stack=1" \
    build-tsan/test/ripple-ops-tests "$(spec "$tsan_tags")"
step "done"
