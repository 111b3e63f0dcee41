#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A model of topk_lane's insertion rounds (issue 59): a warp's 32 invocations each keep the best K of one
# part of a row (parts of different rows, as strided rows map them), considering LANE_BATCH elements at a
# time; the warp runs as many insertion rounds a batch as its busiest invocation has entries beating its
# list's worst (laneConsiderBatch). Random keys. Variants: a threshold shared by a row's P parts (each
# part's K-th key published to the others: an entry must also be no worse than the best of them), and
# insertions deferred D batches (entries queued against the list as it was, inserted together).
# Prints, per variant, the warp's rounds, an invocation's insertions and its queued entries, per part.
# usage: python3 bench/experiments/lane_rounds_sim.py [WARPS]   (Debian's python3-numpy)
import sys
import numpy as np


def simulate(rng, n=4096, K=16, P=4, B=32, share=False, D=1, warps=8):
    L, lanes = n // P, 32
    rounds_sum = inserted_sum = queued_sum = 0.0
    for _ in range(warps):
        x = rng.random((lanes, P, L))  # smaller is better
        kth = np.full((lanes, P), np.inf)
        lists = [[np.full(K, np.inf) for _ in range(P)] for _ in range(lanes)]
        queue = [[[] for _ in range(P)] for _ in range(lanes)]
        rounds, inserted, queued = np.zeros(P), np.zeros((lanes, P)), np.zeros((lanes, P))
        batches = L // B
        for b in range(batches):
            for lane in range(lanes):
                for p in range(P):
                    tau = kth[lane].min() if share else kth[lane, p]
                    seg = x[lane, p, b * B:(b + 1) * B]
                    beat = seg[(seg < kth[lane, p]) & (seg <= tau)]
                    queue[lane][p].extend(beat.tolist())
                    queued[lane, p] += len(beat)
            if (b + 1) % D and b != batches - 1:
                continue
            for p in range(P):
                busiest = 0
                for lane in range(lanes):
                    q = queue[lane][p]
                    busiest = max(busiest, len(q))
                    for v in q:  # the worst may have improved since the entry was queued
                        tau = kth[lane].min() if share else kth[lane, p]
                        if v < kth[lane, p] and v <= tau:
                            lst = lists[lane][p]
                            lst[-1] = v
                            lst.sort()
                            kth[lane, p] = lst[-1]
                            inserted[lane, p] += 1
                    queue[lane][p] = []
                rounds[p] += busiest
        rounds_sum += rounds.mean()
        inserted_sum += inserted.mean()
        queued_sum += queued.mean()
    return rounds_sum / warps, inserted_sum / warps, queued_sum / warps


def main():
    warps = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    rng = np.random.default_rng(59)
    print("n=4096 K=16 LANE_BATCH=32; per part: warp rounds, insertions, entries queued")
    for P in (4, 8):
        for share in (False, True):
            for D in (1, 2, 4):
                r, i, q = simulate(rng, P=P, share=share, D=D, warps=warps)
                print(f"P={P} shared={'yes' if share else 'no '} D={D}: {r:6.1f} {i:6.1f} {q:6.1f}")


if __name__ == "__main__":
    main()
