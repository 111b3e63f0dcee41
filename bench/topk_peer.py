#!/usr/bin/env python3
"""torch.topk on the cases of a ripple-bench JSON file, on the same GPU, and the ripple / torch table.

usage: python3 bench/topk_peer.py RIPPLE_JSON [--json OUT]
Needs PyTorch with CUDA. Times torch.topk(x, k, dim=axis, largest=True, sorted=True) with CUDA events
(median of 50 after 5 warm-up runs) on random data of each case's shape and type, and prints per case:
ripple us, torch us, and speedup = torch / ripple (above 1: ripple is faster).
"""
import json
import sys

import torch

TYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "i32": torch.int32}


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
    print(f"{'topk case':34s} {'ripple us':>10s} {'torch us':>10s} {'speedup':>8s}")
    for case in ripple["cases"]:
        if case.get("op") != "topk":
            continue
        dtype = TYPES[case["type"]]
        shape = tuple(case["shape"])
        if dtype.is_floating_point:
            x = torch.randn(shape, device="cuda", dtype=dtype)
        else:
            x = torch.randint(-2**31, 2**31 - 1, shape, device="cuda", dtype=dtype)
        us = bench(lambda: torch.topk(x, case["k"], dim=case["axis"], largest=True, sorted=True))
        speedup = us / case["us"] if case["us"] > 0 else 0.0
        rows.append(dict(name=case["name"], ripple_us=case["us"], torch_us=us, speedup=speedup))
        print(f"{case['name']:34s} {case['us']:10.1f} {us:10.1f} {speedup:8.2f}", flush=True)
        del x
        torch.cuda.empty_cache()
    if out_path:
        json.dump(dict(device=torch.cuda.get_device_name(), rows=rows), open(out_path, "w"), indent=1)


if __name__ == "__main__":
    main()
