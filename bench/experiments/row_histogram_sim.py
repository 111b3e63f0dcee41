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

# topk_chunk's last workgroup at (1,152064) K=40: the list holds each chunk's candidates (about 67 a chunk
# of 4096 by the chunks' early stop; here each chunk's best 67), entry e at invocation e % 256. Its first
# histogram step: the passes its warp atomics serialize into, and the key bytes all entries share (what
# bench/experiments/issue59-chunk-common-prefix.patch skips).
n2, K2, B2 = 152064, 40, 67
passes = shared = 0
for r in range(20):
    keys = [key(random.gauss(0, 1)) for _ in range(n2)]
    lst = []
    for c in range(0, n2, 4096):
        lst += sorted(keys[c:c + 4096])[:B2]
    for w in range(0, len(lst), 32):  # warp w's entries in one atomic instruction (consecutive e)
        passes += max(collections.Counter(k >> 24 for k in lst[w:w + 32]).values())
    a = o = lst[0]
    for k in lst:
        a &= k; o |= k
    d = a ^ o
    shared += (32 - d.bit_length()) // 8
print("final list %d entries: first step %.0f serialized passes (%d warp atomics), %.1f key bytes shared"
      % (len(lst), passes / 20, (len(lst) + 31) // 32, shared / 20))

# The same first steps with a subgroup's adds to its first active lane's bin made once, twice over
# (issue59-chunk-hist.patch, bit 1): passes = 2 aggregated adds + the rest's largest same-bin group.
def aggregated(bins):
    rest = list(bins)
    p = 0
    for _ in range(2):
        if not rest:
            break
        lead = rest[0]
        rest = [b for b in rest if b != lead]
        p += 1
    return p + (max(collections.Counter(rest).values()) if rest else 0)
plain = agg = aggf = 0
for r in range(20):
    keys = [key(random.gauss(0, 1)) for _ in range(4096)]
    for w in range(8):
        for j in range(16):
            bins = [keys[j * 256 + w * 32 + l] >> 24 for l in range(32)]
            plain += max(collections.Counter(bins).values())
            agg += aggregated(bins)
print("a chunk's (or row's) first step: %.0f passes a 4096-key chunk, %.0f aggregated" % (plain / 20, agg / 20))
for r in range(20):
    keys = [key(random.gauss(0, 1)) for _ in range(n2)]
    lst = []
    for c in range(0, n2, 4096):
        lst += sorted(keys[c:c + 4096])[:B2]
    for w in range(0, len(lst), 32):
        aggf += aggregated([k >> 24 for k in lst[w:w + 32]])
print("the final's first step: %.0f passes aggregated" % (aggf / 20))
