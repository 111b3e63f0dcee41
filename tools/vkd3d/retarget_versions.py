#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Test-only (tools/vkd3d-tool.sh): rewrites the named version needs of an ELF64 shared object (entries of
.gnu.version_r) to GLIBC_2.2.5, which every x86-64 glibc defines, and marks them weak. Run after
`patchelf --clear-symbol-version` has detached every symbol from them: the loader then neither refuses the
object (a newer glibc's version missing) nor warns about it (as it does for a weak need it cannot meet).
usage: retarget_versions.py LIB VERSION..."""
import struct
import sys

BASE = b'GLIBC_2.2.5'


def elf_hash(name):
    h = 0
    for c in name:
        h = ((h << 4) + c) & 0xffffffff
        g = h & 0xf0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xffffffff
    return h


path, names = sys.argv[1], set(sys.argv[2:])
data = bytearray(open(path, 'rb').read())
if data[:5] != b'\x7fELF\x02' or data[5] != 1:
    sys.exit(f'{path}: not a little-endian ELF64 file')
shoff, = struct.unpack_from('<Q', data, 0x28)
shentsize, shnum = struct.unpack_from('<HH', data, 0x3a)
sections = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
marked = set()
for sh in sections:
    if sh[1] != 0x6ffffffe:  # SHT_GNU_verneed
        continue
    strtab = sections[sh[6]]
    strings, size = strtab[4], strtab[5]
    table = bytes(data[strings:strings + size])
    base = table.find(b'\0' + BASE + b'\0') + 1  # a whole string, not the tail of a longer one
    if base <= 0:
        sys.exit(f'{path}: its string table has no {BASE.decode()} to point the needs at')
    need = sh[4]
    while True:
        _, count, _, aux, next_need = struct.unpack_from('<HHIII', data, need)
        at = need + aux
        for _ in range(count):
            _, flags, other, name, next_aux = struct.unpack_from('<IHHII', data, at)
            version = table[name:].split(b'\0', 1)[0].decode()
            if version in names:
                struct.pack_into('<IHHI', data, at, elf_hash(BASE), flags | 2, other, base)  # VER_FLG_WEAK
                marked.add(version)
            at += next_aux
        if not next_need:
            break
        need += next_need
if marked != names:
    sys.exit(f'{path}: no version need {sorted(names - marked)}')
open(path, 'wb').write(data)
