#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Issue 59, tenth session: topk_row's histogram steps on normal data (ripple-bench's), (4096,4096) K=256
# descending: per step, the warp atomics a row and the passes they serialize into when the lanes of a
# warp (32 neighbouring invocations, element j * 256 + lid) hit the same bin; then how often the first
# digit guessed from the first 256 elements (bench/experiments/issue59-row-guess.patch) is right.
import random, struct, collections
def key(x):  # descending: rank key = ~orderKey
    b = struct.unpack('<I', struct.pack('<f', x))[0]
    ok = (~b & 0xFFFFFFFF) if b & 0x80000000 else (b | 0x80000000)
    return ok ^ 0xFFFFFFFF
random.seed(1)
K=256; n=4096
tot=collections.Counter()
rows=20
for r in range(rows):
    keys=[key(random.gauss(0,1)) for _ in range(n)]
    prefix=0; shift=32; need=K; agree_mask=0
    for step in range(4):
        shift-=8
        above = 0 if step==0 else (0xFFFFFFFF << (shift+8)) & 0xFFFFFFFF
        # warp w covers lids 32w..32w+31, j loop 16
        replays=0; active=0; instrs=0
        for w in range(8):
            for j in range(16):
                bins=collections.Counter()
                for l in range(32):
                    k=keys[j*256+w*32+l]
                    if ((k^prefix)&above)==0:
                        bins[(k>>shift)&0xFF]+=1
                if bins:
                    instrs+=1; replays+=max(bins.values()); active+=sum(bins.values())
        # choose digit
        h=collections.Counter(((k>>shift)&0xFF) for k in keys if ((k^prefix)&above)==0)
        c=0
        for d in range(256):
            if c+h[d]>=need:
                need-=c; ties=h[d]; break
            c+=h[d]
        prefix|=d<<shift
        tot[(step,'instr')]+=instrs; tot[(step,'replays')]+=replays; tot[(step,'active')]+=active
        if ties==need: 
            tot[(step,'stop')]+=1; break
for s in range(4):
    if tot[(s,'instr')]: print("step",s+1,"warp atomics/row %.0f  serialized passes/row %.0f  active lanes %.0f  stopped-after %d"%(tot[(s,'instr')]/rows,tot[(s,'replays')]/rows,tot[(s,'active')]/rows,tot[(s,'stop')]))
# the guess: the first 256 elements' histogram, their r-th digit
ok=0; sp=0
for r in range(200):
    keys=[key(random.gauss(0,1)) for _ in range(n)]
    r_ = max(1, min(256, (K*256 + n//2)//n))
    sample=sorted(k>>24 for k in keys[:256]); g=sample[r_-1]
    before=sum(1 for k in keys if (k>>24)<g); inG=sum(1 for k in keys if (k>>24)==g)
    ok += before < K <= before+inG
    for w in range(8):
        c=collections.Counter(keys[w*32+l]>>24 for l in range(32)); sp+=max(c.values())
print("guess right %d/200, sample step serialized passes/row %.0f"%(ok, sp/200))
