#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""torch on the scatter cases of a ripple-bench JSON file, on the same GPU, and the ripple / torch table.

usage: python3 bench/scatter_peer.py RIPPLE_JSON [--json OUT]
Needs PyTorch with CUDA. What a user would call instead (CUDA events, median of 50 after 5 warm-up runs):
ScatterND rows out of place: x.index_put((idx,), upd) (a clone, then the put); in place: x.index_put_
((idx,), upd[, accumulate=True] for ADD); ScatterElements along axis 1: x.scatter(1, idx, upd) or
x.scatter_add(1, idx, upd) (out of place). Deterministic cases run under
torch.use_deterministic_algorithms(True) (torch's own opt-in; "n/a" where torch refuses the call). Random
(duplicate) indices where the ripple case has them; ScatterND rows sorted or within the first rows where
the ripple case's rows_pattern says so. The in-place experiment variants (ripple-bench's
"after a copy", "x8 in one submission") are timed against torch's plain in-place put. Prints ripple us,
torch us and speedup = torch / ripple.
"""
import json
import sys

import torch


def bench(fn, reps=50, warm=5):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    ripple = json.load(open(sys.argv[1]))
    out_path = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    torch.manual_seed(0)
    rows = []
    print(f"device: {torch.cuda.get_device_name()}  (ripple: {ripple['device']})")
    print(f"{'scatter case':58s} {'ripple us':>10s} {'torch us':>10s} {'speedup':>8s}")
    for case in ripple["cases"]:
        if case.get("op") not in ("scatter_nd", "scatter_elements"):
            continue
        x = torch.randn(case["rows"], case["cols"], device="cuda")
        add = case["reduction"] == 1
        if case["op"] == "scatter_nd":
            pattern = case.get("rows_pattern", 0)  # 0 spread, 1 spread and sorted, 2 within the first rows
            idx = torch.randperm(case["update_rows"] if pattern == 2 else case["rows"], device="cuda")
            idx = idx[: case["update_rows"]]
            if pattern == 1:
                idx = idx.sort().values
            upd = torch.randn(case["update_rows"], case["cols"], device="cuda")
            if case["in_place"]:
                fn = lambda: x.index_put_((idx,), upd, accumulate=add)
            else:
                fn = lambda: x.index_put((idx,), upd, accumulate=add)
        else:
            if case.get("duplicates"):
                idx = torch.randint(0, case["cols"], (case["rows"], case["update_cols"]), device="cuda")
            else:
                idx = torch.argsort(torch.rand(case["rows"], case["cols"], device="cuda"), dim=1)[:, : case["update_cols"]]
            upd = torch.randn(case["rows"], case["update_cols"], device="cuda")
            fn = (lambda: x.scatter_add(1, idx, upd)) if add else (lambda: x.scatter(1, idx, upd))
        deterministic = bool(case.get("deterministic"))
        torch.use_deterministic_algorithms(deterministic)
        try:
            us = bench(fn)
        except RuntimeError as e:
            print(f"{case['name']:58s} {case['us']:10.1f} {'n/a':>10s}  ({str(e).splitlines()[0][:60]})", flush=True)
            rows.append(dict(name=case["name"], ripple_us=case["us"], torch_us=None, speedup=None))
            continue
        finally:
            torch.use_deterministic_algorithms(False)
        speedup = us / case["us"] if case["us"] > 0 else 0.0
        rows.append(dict(name=case["name"], ripple_us=case["us"], torch_us=us, speedup=speedup))
        print(f"{case['name']:58s} {case['us']:10.1f} {us:10.1f} {speedup:8.2f}", flush=True)
        del x, idx, upd
        torch.cuda.empty_cache()
    if out_path:
        json.dump(dict(device=torch.cuda.get_device_name(), rows=rows), open(out_path, "w"), indent=1)


if __name__ == "__main__":
    main()
