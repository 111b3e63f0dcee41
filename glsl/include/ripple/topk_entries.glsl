// SPDX-License-Identifier: MIT
// Selection of the K best (rank key, index) among up to ENTRIES entries whose rank keys sit in shared
// memory (topk_chunk.comp, topk_select_sample.comp): 8 key bits at a time by 256-bin histograms, then 8
// index bits at a time when ties straddle K, stopping as soon as the digits chosen so far settle the
// question. The loops over entries stay loops (not unrolled): these selections are latency chains whose cost
// on the H100 follows the machine code fetched (bench/NOTES.md, v12).
//
// The including kernel defines ENTRIES, includes bitonic.glsl first (the histogram lives in its slots,
// SLOTS >= 256) and scan.glsl, sets gKeyLowBits (32 - key bits: the rank keys' low zero bits) and defines
// entryIndex(e): the index entry e's ties are broken by. Every invocation of the workgroup (256, or 128 in
// the small forms) calls these functions; invocation lid only ever asks entryIndex for its own entries lid,
// lid + GROUP_SIZE, ...

// ENTRY_HIST(i) (256 words) and ENTRY_RESULT(i) (2 words): the histogram and a step's result, by default in
// bitonic.glsl's slots; with ENTRIES_SHARED the kernel declares sEntry and defines both itself (in memory it
// shares with other work).
// ENTRY_TIE_AT(i) (256 words, by default scan.glsl's, free while the selection runs): where nthTieIndex's
// ties sit in sEntry.
#if !defined(ENTRIES_SHARED)
shared uint sEntry[ENTRIES];  // rank keys of the entries being selected from
#define ENTRY_HIST(i) sKey[0][i]
#define ENTRY_RESULT(i) sIdx[i]
#define ENTRY_TIE_AT(i) sScan[i]
#endif

uint entryIndex(uint e);
uint gKeyLowBits;
uint count_;  // entries in sEntry (selectEntries' count, for histogramStep)
// Results of selectEntries. gByLimit: the selected are exactly the entries whose key <= gLimit (an early
// stop, or every entry of the need-th key wanted), a test without a branch or an index.
uint gPrefix, gShiftAt, gLast, gLimit;
bool gEarly, gByLimit;

// One histogram step over entries [0, count) of sEntry: among those that agree with `prefix` above
// `shift` + 8 (their key, or with byIndex their index among the entries whose key is T), counts the 8-bit
// digit at `shift`, and returns the digit holding the need-th of them; `need` becomes its rank within the
// digit and `ties` the digit's count. Every invocation must call it.
uint histogramStep(bool byIndex, uint T, uint prefix, uint shift, inout uint need, out uint ties) {
    const uint lid = gl_LocalInvocationID.x;
    const uint above = shift + 8u >= 32u ? 0u : 0xFFFFFFFFu << (shift + 8u);
#if RIPPLE_GROUP_SIZE >= 256
    ENTRY_HIST(lid) = 0u;  // the histogram, in the slots (free until the winners)
#else
    for (uint b = lid; b < 256u; b += GROUP_SIZE) ENTRY_HIST(b) = 0u;
#endif
    barrier();
    for (uint e = lid; e < count_; e += GROUP_SIZE) {
        uint v = sEntry[e];
        if (byIndex) {
            if (v != T) continue;
            v = entryIndex(e);
        }
        if (((v ^ prefix) & above) == 0u) atomicAdd(ENTRY_HIST((v >> shift) & 0xFFu), 1u);
    }
    barrier();
#if RIPPLE_GROUP_SIZE >= 256
    const uint x = scanIndex(), binCount = ENTRY_HIST(x);
    uint total;
    const uint before = workgroupExclusiveAdd(binCount, total);
    if (before < need && need <= before + binCount) {
        ENTRY_RESULT(0) = x;
        ENTRY_RESULT(1) = before;
    }
#else
    // Fewer invocations than bins (the small forms): invocation x owns bins [x B, (x + 1) B).
    const uint B = 256u / GROUP_SIZE, x = scanIndex();
    uint binCount = 0u;
    for (uint i = 0u; i < B; ++i) binCount += ENTRY_HIST(x * B + i);
    uint total;
    uint before = workgroupExclusiveAdd(binCount, total);
    if (before < need && need <= before + binCount) {
        for (uint i = 0u; i < B; ++i) {
            const uint c = ENTRY_HIST(x * B + i);
            if (need <= before + c) {
                ENTRY_RESULT(0) = x * B + i;
                ENTRY_RESULT(1) = before;
                break;
            }
            before += c;
        }
    }
#endif
    barrier();
    const uint digit = ENTRY_RESULT(0);
    need -= ENTRY_RESULT(1);
    ties = ENTRY_HIST(digit);
    barrier();
    return digit;
}

// The need-th smallest index among the `ties` (at most GROUP_SIZE) entries whose key is T: the ties' indices
// gathered in one pass into the histogram's slots, then each counts the smaller ones. Instead of one
// histogram step per 8 index bits: 16-bit keys tie often, and in the chunk kernel's last workgroup the three
// steps of a row's 24-bit indices cost about 5 us on the H100 ((1,152064) BFLOAT16 K=40: 18 or 23 us by
// whether ties of the K-th value straddle K). Indices are distinct. The ties past the need-th then take the
// key T + 1 (T < 0xFFFFFFFF), so that `selected` wants every entry of key T and asks for no index again
// (entryIndex can be a global load: a round trip saved in each of writeSelected's passes); gLast is then
// 0xFFFFFFFF. Every invocation must call it.
#if defined(ENTRY_TIE_AT)
shared uint sTieCount;
uint nthTieIndex(uint T, uint need, uint ties) {
    const uint lid = gl_LocalInvocationID.x;
    if (lid == 0u) sTieCount = 0u;
    barrier();  // the slots are free: histogramStep ended with a barrier
    for (uint e = lid; e < count_; e += GROUP_SIZE) {
        if (sEntry[e] == T) {
            const uint at = atomicAdd(sTieCount, 1u);
            ENTRY_HIST(at) = entryIndex(e);
            ENTRY_TIE_AT(at) = e;
        }
    }
    barrier();
    uint idx = 0u, smaller = 0u;
    if (lid < ties) {
        idx = ENTRY_HIST(lid);
        for (uint b = 0u; b < ties; ++b) smaller += ENTRY_HIST(b) < idx ? 1u : 0u;
        if (smaller == need - 1u) ENTRY_RESULT(0) = idx;
    }
    barrier();
    const uint last = ENTRY_RESULT(0);
    if (lid < ties && smaller >= need && T != 0xFFFFFFFFu) sEntry[ENTRY_TIE_AT(lid)] = T + 1u;
    barrier();
    return T != 0xFFFFFFFFu ? 0xFFFFFFFFu : last;
}
#endif

// Selection over entries [0, count) of sEntry: the need-th smallest (rank key, index), 8 key bits at a
// time from the top, then (when ties of that key straddle need) by nthTieIndex for up to 256 ties, or 8
// index bits at a time. Stops early
// (gEarly) after a key step when the entries whose key >> gShiftAt <= gPrefix >> gShiftAt number at most
// `budget`: they include the need best (budget = need: exactly them, as soon as the chosen digit's entries
// are all wanted). Otherwise gPrefix is the need-th key T and gLast the greatest wanted index among the
// entries equal to T (0xFFFFFFFF: all of them). indexBits: a multiple of 8 covering every index.
void selectByDigits(uint count, uint need, uint budget, uint indexBits) {
    const uint goal = need;
    uint prefix = 0u, ties = count, shift = 32u;
    count_ = count;
    gEarly = false;
    gLast = 0xFFFFFFFFu;
    while (shift > gKeyLowBits) {
        shift -= 8u;
        prefix |= histogramStep(false, 0u, prefix, shift, need, ties) << shift;
        if (goal - need + ties <= budget) {  // uniform: the digits up to this one fit
            gEarly = true;
            break;
        }
    }
    gPrefix = prefix;
    gShiftAt = shift;
    if (gEarly || need >= ties) return;
#if defined(ENTRY_TIE_AT)
    if (indexBits != 0u && ties <= GROUP_SIZE) {  // uniform; every key digit resolved: prefix is T
        gLast = nthTieIndex(prefix, need, ties);
        return;
    }
#endif
    uint last = 0u;
    for (uint s = indexBits; s > 0u;) {
        s -= 8u;
        last |= histogramStep(true, prefix, last, s, need, ties) << s;
    }
    gLast = last;
}

void selectEntries(uint count, uint need, uint budget, uint indexBits) {
    selectByDigits(count, need, budget, indexBits);
    gByLimit = gEarly || gLast == 0xFFFFFFFFu;
    gLimit = gEarly ? gPrefix | ((1u << gShiftAt) - 1u) : gPrefix;
}

// Is entry e among the selected: below the early stop's bound, or up to the need-th (key, index)? The `||`
// and `&&` stay short-circuit (branches) here: entryIndex can be a global load, wanted only on equal keys.
bool selected(uint e) {
    const uint k = sEntry[e];
    if (gByLimit) return k <= gLimit;
    return k < gPrefix || (k == gPrefix && entryIndex(e) <= gLast);
}

// How many of entries [0, count) this invocation holds (lid, lid + 256, ...) are selected. With gByLimit,
// a loop without branches: the H100 pays about 100 cycles a branch in such a loop (topk_write.glsl).
uint selectedMine(uint count) {
    uint mine = 0u;
    if (gByLimit) {  // uniform
        for (uint e = gl_LocalInvocationID.x; e < count; e += GROUP_SIZE) mine += uint(sEntry[e] <= gLimit);
    } else {
        for (uint e = gl_LocalInvocationID.x; e < count; e += GROUP_SIZE) mine += selected(e) ? 1u : 0u;
    }
    return mine;
}

#if defined(VALUE_BITS)  // with topk_write.glsl
// Writes the K selected of entries [0, count) as the row's outputs, sorted.
void writeSelected(uint row, uint rowBase, uint count) {
    const uint lid = gl_LocalInvocationID.x;
    uint total;
    uint at = workgroupExclusiveAdd(selectedMine(count), total);  // total == K
    for (uint e = lid; e < count; e += GROUP_SIZE) {
        if (selected(e)) {
            sKey[0][at] = sEntry[e];
            sIdx[at] = entryIndex(e);
            ++at;
        }
    }
    barrier();
    writeWinners(row, rowBase);
    barrier();
}
#endif
