#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""torch.topk on the cases of a ripple-bench JSON file, on the same GPU, and the ripple / torch table.

usage: python3 bench/topk_peer.py RIPPLE_JSON [--json OUT]
Needs PyTorch with CUDA. Times torch.topk(x, k, dim=axis, largest=True, sorted=True) with CUDA events
(median of 50 after 5 warm-up runs) on data of each case's shape, type and kind (its "data": random,
equal, two or narrow, as ripple-bench made it), and prints per case:
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


# ripple-bench's --data kinds: random (normal floats, uniform int32), equal (one value), two (two values),
# narrow (within 700 units in the last place above 1.0, or above 1000 for int32).
NARROW_BASE = {torch.float32: (0x3F800000, torch.int32), torch.float16: (0x3C00, torch.int16),
               torch.bfloat16: (0x3F80, torch.int16), torch.int32: (1000, torch.int32)}


def make_input(data, shape, dtype):
    if data == "narrow":
        base, bits = NARROW_BASE[dtype]
        return (torch.randint(0, 700, shape, device="cuda", dtype=torch.int32) + base).to(bits).view(dtype)
    if dtype.is_floating_point:
        x = torch.randn(shape, device="cuda", dtype=dtype)
    else:
        x = torch.randint(-2**31, 2**31 - 1, shape, device="cuda", dtype=dtype)
    if data in ("equal", "two"):
        flat = x.reshape(-1)
        pick = torch.randint(0, 2, flat.shape, device="cuda") if data == "two" else torch.zeros_like(flat, dtype=torch.int64)
        x = flat[:2][pick].reshape(shape)
    return x


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
        x = make_input(case.get("data", "random"), shape, dtype)
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
