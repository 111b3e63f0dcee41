#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Test-only: a real HLSL compiler for the D3D12 back-end's checks on Linux (issue 42; the runtime stays Debian
# 12's vkd3d 1.2, docs/D3D12.md): vkd3d-shader 2.1 (LGPL-2.1) from Debian's binary packages, made to load on Debian 12, and ripple's glue
# (tools/vkd3d/hlsl_glue.c). In DIR/lib:
#   libripple-hlsl-vkd3d.so       exports ripple_hlsl_to_dxbc() only (RIPPLE_D3D12_HLSL_COMPILER names it)
#   libripple-vkd3d-shader.so.1   vkd3d-shader, renamed: a process with Debian 12's vkd3d 1.2 runtime has its
#                                 libvkd3d-shader.so.1 loaded already
#   libripple-glibc-compat.so     what they need of glibc 2.38 (tools/vkd3d/glibc_compat.c)
# and DIR/bin/vkd3d-compiler, the command-line compiler, for diagnostics; DIR/bin/ripple-hlsl-dxbc, the build's
# HLSL compiler on a Linux host (tools/vkd3d/hlsl_to_dxbc.c over the glue: ripple-embed dxbc).
# Nothing is installed; nothing of it enters libripple. Cached: a second run with the same version does nothing.
# Why binaries: Debian 12 and trixie have vkd3d 1.2, and wine 10's bundled vkd3d 1.14 compiles no barrier or
# atomic in HLSL. sid's vkd3d 2.1 does; its source package is listed but not served (404), its binaries are.
# They need glibc 2.38 for three functions (__isoc23_*: the shim) and 2.43 for sqrtf, which 2.36 has under its
# old version.
# usage: tools/vkd3d-tool.sh [DIR]   (default build-tools/vkd3d)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dir=$(realpath -m "${1:-build-tools/vkd3d}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for tool in patchelf python3 cc dpkg-deb; do
    command -v $tool >/dev/null || { echo "vkd3d-tool: needs $tool (Debian: patchelf, python3, gcc)" >&2; exit 1; }
done

# sid's binary index in a private list: the machine's own sources stay untouched.
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main" \
    >"$work/sources.list"
apt=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" -o Dir::State::status=/dev/null
     -o APT::Architecture=amd64 -o APT::Architectures=amd64 -o APT::Sandbox::User=root)
apt-get "${apt[@]}" update -qq
version=$(apt-cache "${apt[@]}" show --no-all-versions libvkd3d-shader1 | sed -n 's/^Version: //p')
# ripple's glue: one C function over vkd3d_shader_compile(), so that ripple needs no vkd3d header. Built on
# every run (a fraction of a second), so that a change to it reaches a cached DIR.
# A file that comes out the same is left as it was, so builds that depend on the compiler do not run again.
build_glue() {
    local hash
    hash=$(sha256sum "$root/tools/vkd3d/hlsl_glue.c" | cut -c1-16) # its DXBC cache's key
    cc -shared -fPIC -O2 -fvisibility=hidden -DRIPPLE_GLUE_SOURCE_HASH="\"$hash\"" -I"$dir/include/vkd3d" \
        -o "$dir/lib/libripple-hlsl-vkd3d.so.new" "$root/tools/vkd3d/hlsl_glue.c" -L"$dir/lib" \
        -l:libripple-vkd3d-shader.so.1 -Wl,-rpath,'$ORIGIN'
    keep_or_replace "$dir/lib/libripple-hlsl-vkd3d.so"
    cc -O2 -o "$dir/bin/ripple-hlsl-dxbc.new" "$root/tools/vkd3d/hlsl_to_dxbc.c" -L"$dir/lib" -lripple-hlsl-vkd3d \
        -Wl,-rpath,'$ORIGIN/../lib'
    keep_or_replace "$dir/bin/ripple-hlsl-dxbc"
}
keep_or_replace() { # FILE: FILE.new replaces it only if they differ
    if cmp -s "$1.new" "$1"; then rm "$1.new"; else mv "$1.new" "$1"; fi
}
if [[ -f $dir/.version && $(cat "$dir/.version") == "$version" ]]; then
    build_glue
    echo "vkd3d-tool: vkd3d-shader $version already in $dir"
    exit 0
fi
(cd "$work" && apt-get "${apt[@]}" download -qq "libvkd3d-shader1=$version" "vkd3d-compiler=$version" \
    "libvkd3d-headers=$version")
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done

rm -rf "$dir"
mkdir -p "$dir/lib" "$dir/bin" "$dir/include"
from=$work/root/usr/lib/x86_64-linux-gnu
shader=$dir/lib/libripple-vkd3d-shader.so.1
cp "$(realpath "$from/libvkd3d-shader.so.1")" "$shader"
cp "$work/root/usr/bin/vkd3d-compiler" "$dir/bin/"
cp -r "$work/root/usr/include/vkd3d" "$dir/include/"
cc -shared -fPIC -O2 -o "$dir/lib/libripple-glibc-compat.so" "$root/tools/vkd3d/glibc_compat.c"

# Only the glibc needs this script knows how to meet; anything newer stops here, naming it.
have=$(ldd --version | sed -n '1s/.* \([0-9.]*\)$/\1/p')
known=$'2.38 __isoc23_sscanf\n2.38 __isoc23_strtol\n2.38 __isoc23_strtoul\n2.43 sqrtf'
meet_glibc() { # LIB: its needs newer than this glibc met by the shim, or by the older sqrtf
    local newer unknown
    newer=$(objdump -T "$1" | sed -n 's/.*(GLIBC_\([0-9.]*\)) *\([^ ]*\)$/\1 \2/p' |
            awk -v have="$have" '{ split($1, a, "."); split(have, b, "."); if (a[1] > b[1] || (a[1] == b[1] && a[2] > b[2])) print }' |
            sort -u)
    [[ -z $newer ]] && return 0
    unknown=$(comm -23 <(echo "$newer") <(echo "$known" | sort))
    if [[ -n $unknown ]]; then
        echo "vkd3d-tool: $(basename "$1") $version needs glibc functions newer than $have that no shim provides:" >&2
        echo "$unknown" >&2
        exit 1
    fi
    for symbol in $(echo "$newer" | awk '{print $2}'); do patchelf --clear-symbol-version "$symbol" "$1"; done
    # shellcheck disable=SC2046 # one argument per version
    python3 "$root/tools/vkd3d/retarget_versions.py" "$1" $(echo "$newer" | awk '{print "GLIBC_" $1}' | sort -u)
    patchelf --add-needed libripple-glibc-compat.so "$1"
}
# Separate patchelf calls throughout: Debian 12's patchelf mixes up several changes made in one.
meet_glibc "$shader"
patchelf --set-rpath '$ORIGIN' "$shader"
patchelf --set-soname libripple-vkd3d-shader.so.1 "$shader"
patchelf --replace-needed libvkd3d-shader.so.1 libripple-vkd3d-shader.so.1 "$dir/bin/vkd3d-compiler"
patchelf --set-rpath '$ORIGIN/../lib' "$dir/bin/vkd3d-compiler"

build_glue
"$dir/bin/vkd3d-compiler" --version
echo "$version" >"$dir/.version"
echo "vkd3d-tool: vkd3d-shader $version in $dir"
