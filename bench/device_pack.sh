#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds TopK variants for bench/device_ab.sh and packs them into .gpu/bundle.tar.xz (git-ignored; carry .gl
# and .gpu). Each argument is NAME=REV: REV a commit (built from a temporary worktree) or `.` (this working
# tree, uncommitted changes included). Builds go to ${BUILD_PREFIX:-build-dev-}NAME (Release, PROFILE
# permutations, static C++ runtime, no D3D12) and are kept: a commit already built there is not built again
# (.built-commit), and the working tree rebuilds only what changed.
# usage: bash bench/device_pack.sh base=HEAD new=.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mkdir -p .git/info .gl .gpu /tmp/amd64/partial
for ignored in /.gl/ /.gpu/; do
    grep -qx "$ignored" .git/info/exclude 2>/dev/null || echo "$ignored" >>.git/info/exclude
done
if ! ls .gl/libvulkan1_*.deb >/dev/null 2>&1; then
    o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
    apt-get $o update -qq
    (cd .gl && apt-get $o download libvulkan1 libglvnd0 libegl1 libopengl0 libgl1 libglx0 libgles2)
fi
stage=$(mktemp -d)
for arg in "$@"; do
    name=${arg%%=*} rev=${arg#*=}
    build=$root/${BUILD_PREFIX:-build-dev-}$name
    src=$root
    commit=
    if [ "$rev" != . ]; then commit=$(git rev-parse "$rev^{commit}"); fi
    if [ -n "$commit" ] && [ "$(cat "$build/.built-commit" 2>/dev/null)" = "$commit" ]; then
        rev=built  # this commit's build is there already
    elif [ -n "$commit" ]; then
        src=/tmp/ripple-worktree-$name
        git worktree remove --force "$src" 2>/dev/null || rm -rf "$src"
        git worktree prune
        git worktree add -q --detach "$src" "$rev"
    fi
    if [ "$rev" != built ]; then
        rm -f "$build/.built-commit"
        cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRIPPLE_D3D12=OFF \
            -DRIPPLE_PROFILE_KERNELS=ON -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" \
            -DCMAKE_SHARED_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null
        cmake --build "$build" --target ripple-bench ripple-bench-module ripple-profile ripple-ops-tests \
            ripple-kernel-stats
        cmake --build "$build" --target ripple-particles  # the frame loop's figures (issue 43)
        for probe in ripple-dispatch-floor ripple-stream-probe; do  # where the build has them
            if grep -q "$probe" "$src/bench/CMakeLists.txt"; then cmake --build "$build" --target "$probe"; fi
        done
        if [ -n "$commit" ]; then echo "$commit" >"$build/.built-commit"; fi
    fi
    mkdir -p "$stage/$name"
    cp "$build"/bench/{ripple-bench,ripple-profile,libripple-bench-module.so} \
        "$build/test/ripple-ops-tests" "$stage/$name/"
    # For STATS=1 (bench/device_ab.sh): the sampled selection's kernels, two staged lanes' where the build has
    # them, and the tool where the build has it (builds kept from before it was packed do not).
    mkdir -p "$stage/$name/spv"
    cp "$build"/kernels/spv/topk_{select_sample,select_filter,select_final,chunk}.*.fast.spv "$stage/$name/spv/"
    # The lanes' forms too: staged, direct (topk_lane) and the row's parts in one workgroup, where the build
    # has them (NVIDIA's binary sizes are not ACO's: topk_chunk's doubled where ACO said +28%).
    for lane in "$build"/kernels/spv/topk_lane_staged.b32.k{4,16}{,.small}.spv \
        "$build"/kernels/spv/topk_lane.f32.k{4,16}.spv "$build"/kernels/spv/topk_lane_group.f32.k{4,8,16}{,.fast,.portable}.spv \
        "$build"/kernels/spv/topk_row.f32.s256.fast.spv; do
        if [ -f "$lane" ]; then cp "$lane" "$stage/$name/spv/"; fi
    done
    stats=$build/bench/ripple-kernel-stats
    if [ -f "$stats" ]; then cp "$stats" "$stage/$name/"; fi
    for probe in ripple-dispatch-floor ripple-stream-probe; do  # the probes, where the build has them
        if [ -f "$build/bench/$probe" ]; then cp "$build/bench/$probe" "$stage/$name/"; fi
    done
    particles=$build/samples/particles/ripple-particles
    if [ -f "$particles" ]; then cp "$particles" "$stage/$name/"; fi
    if [ -n "$commit" ] && [ "$rev" != built ]; then git worktree remove --force "$src"; fi
done
cp /usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so "$stage/"
cp /usr/lib/x86_64-linux-gnu/libpng16.so.16 "$stage/"  # ripple-particles' (LD_LIBRARY_PATH=.gpu)
layer=libVkLayer_khronos_validation.so json=VkLayer_khronos_validation.json
sed "s|\"library_path\": \"$layer\"|\"library_path\": \"./$layer\"|" \
    "/usr/share/vulkan/explicit_layer.d/$json" >"$stage/$json"
rm -f .gpu/*.tar.xz
# xz -9: its 64 MiB dictionary spans the binaries, whose embedded SPIR-V is mostly the same (half of -6's size)
tar -cf - -C "$stage" . | xz -9 -T2 >.gpu/bundle.tar.xz
rm -rf "$stage"
du -sh .gl .gpu
