#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ripple's benchmark matrices as a user meets them: in several separate processes, torch in the same ones.

usage: python3 bench/matrix.py --lib build-gpu/bench/libripple-bench-module.so [--processes 3]
                               [--out DIR] [--what all|topk|scatter] [--no-torch]
                               [--kernels fast|portable] [--profile NAME] [-- RIPPLE_BENCH_ARGS...]

--kernels: the kernel family (ripple-bench --kernels; portable is what the D3D12 back-end runs). --profile:
RIPPLE_DEVICE_PROFILE for every process (lib/vulkan/profiles.cpp: e.g. mobile-vk11 takes the small-device
variants and fence tickets), so one GPU measures each class of device's kernels.

Each process (a fresh Python) creates its CUDA context through torch first, then loads ripple-bench as a
module (ctypes) and runs its whole matrix in that process (`ripple-bench WHAT --json ...`), then times torch
on every case in the same process. Per case and process: ripple's GPU time (timestamps, runs back to back),
ripple's host latency (record + submit + wait, as execute()), torch's GPU time (CUDA events around calls back
to back) and torch's host latency (one call, then torch.cuda.synchronize(), host clock). The table gives the
median over the processes and the spread (min-max of the per-process medians); matrix.json holds every
process's figures. torch does the same work as each ripple case: the in-place experiment variants' torch
figures include the 128 MiB copy, the 8 puts per run, the 8 distinct row sets.
"""
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time

L2_BYTES = 50 * 2**20


def bench_events(fn, calls=20, reps=7):
    """GPU time per call: CUDA events around `calls` calls back to back; the median of `reps` rounds."""
    import torch
    for i in range(5):
        fn(i)
    torch.cuda.synchronize()
    res = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        for i in range(calls):
            fn(i)
        b.record()
        b.synchronize()
        res.append(a.elapsed_time(b) * 1e3 / calls)
    return statistics.median(res)


def bench_host(fn, reps=30):
    """Host latency of one call then torch.cuda.synchronize(): what a caller that waits sees."""
    import torch
    torch.cuda.synchronize()
    v = []
    for i in range(reps):
        s = time.perf_counter()
        fn(i)
        torch.cuda.synchronize()
        v.append((time.perf_counter() - s) * 1e6)
    return statistics.median(v)


def torch_topk(c):
    import torch
    types = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "i32": torch.int32}
    dt = types[c["type"]]
    shape = tuple(c["shape"])
    n = 1
    for s in shape:
        n *= s
    m = max(2, min(16, -(-3 * L2_BYTES // max(n * torch.tensor([], dtype=dt).element_size(), 1))))
    if dt.is_floating_point:
        xs = [torch.randn(shape, device="cuda", dtype=dt) for _ in range(m)]
    else:
        xs = [torch.randint(-2**31, 2**31 - 1, shape, device="cuda", dtype=dt) for _ in range(m)]
    f = lambda i: torch.topk(xs[i % m], c["k"], dim=c["axis"], largest=True, sorted=True)
    return bench_events(f), bench_host(f)


def torch_scatter(c):
    import torch
    add = c["reduction"] == 1
    x = torch.randn(c["rows"], c["cols"], device="cuda")
    variant = c.get("variant", 0)  # 0 plain, 1 after a 128 MiB copy, 2 x8, 3 host lone, 4 x8 distinct rows
    if c["op"] == "scatter_nd":
        pattern = c.get("rows_pattern", 0)  # 0 spread, 1 spread and sorted, 2 within the first rows
        sets = 8 if variant == 4 else 1
        perm = torch.randperm(c["update_rows"] * sets if pattern == 2 else c["rows"], device="cuda")
        idxs = [perm[k * c["update_rows"]:(k + 1) * c["update_rows"]] for k in range(sets)]
        if pattern == 1:
            idxs = [i.sort().values for i in idxs]
        upd = torch.randn(c["update_rows"], c["cols"], device="cuda")
        if c["in_place"]:
            put = lambda k: x.index_put_((idxs[k % sets],), upd, accumulate=add)
        else:
            put = lambda k: x.index_put((idxs[0],), upd, accumulate=add)
    else:
        if c.get("duplicates"):
            idx = torch.randint(0, c["cols"], (c["rows"], c["update_cols"]), device="cuda")
        else:
            idx = torch.argsort(torch.rand(c["rows"], c["cols"], device="cuda"), dim=1)[:, : c["update_cols"]]
        upd = torch.randn(c["rows"], c["update_cols"], device="cuda")
        put = (lambda k: x.scatter_add(1, idx, upd)) if add else (lambda k: x.scatter(1, idx, upd))
    per = c.get("per_submission", 1)
    if variant == 1:
        src = torch.randn(131072, 256, device="cuda")
        dst = torch.empty_like(src)

        def run(i):
            dst.copy_(src)
            put(0)
    elif per > 1:
        def run(i):
            for k in range(per):
                put(k)
    else:
        run = put
    torch.use_deterministic_algorithms(bool(c.get("deterministic")))
    try:
        gpu = bench_events(run) / per
        host = bench_host(run)
    finally:
        torch.use_deterministic_algorithms(False)
    return gpu, host


def child(args):
    out_path, lib, what, extra, use_torch = args
    if use_torch:
        import torch
        torch.zeros(1, device="cuda")  # the CUDA context exists before ripple's Vulkan device, as in an app
        torch.manual_seed(0)
    ripple_json = out_path + ".ripple.json"
    module = ctypes.CDLL(lib)
    argv = [b"ripple-bench", what.encode(), b"--json", ripple_json.encode()] + [a.encode() for a in extra]
    arr = (ctypes.c_char_p * len(argv))(*argv)
    sys.stdout.flush()
    rc = module.ripple_bench_main(len(argv), arr)
    ripple = json.load(open(ripple_json))
    rows = []
    for c in ripple["cases"]:
        if c.get("op") not in ("topk", "scatter_nd", "scatter_elements"):
            continue
        row = dict(name=c["name"], op=c["op"], us=c["us"], host_us=c.get("host_us"),
                   per_submission=c.get("per_submission", 1), ok=c.get("matches_reference"))
        if use_torch:
            import torch
            try:
                g, h = torch_topk(c) if c["op"] == "topk" else torch_scatter(c)
                row.update(torch_us=g, torch_host_us=h)
            except RuntimeError as e:
                row.update(torch_us=None, torch_host_us=None, torch_error=str(e).splitlines()[0][:80])
            torch.cuda.empty_cache()
        print(f"  {c['name'][:56]:56s} ripple {row['us']:8.1f} host {row['host_us'] or 0:8.1f}"
              + (f"  torch {row['torch_us'] or 0:8.1f} host {row['torch_host_us'] or 0:8.1f}" if use_torch else ""),
              flush=True)
        rows.append(row)
    json.dump(dict(device=ripple["device"], rc=rc, rows=rows), open(out_path, "w"), indent=1)
    return rc


def spread(values):
    v = [x for x in values if x is not None]
    if not v:
        return None, None, None
    return statistics.median(v), min(v), max(v)


def main():
    argv = sys.argv[1:]
    if argv and argv[0] == "--child":
        sys.exit(child(json.loads(argv[1])))
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    opt = lambda name, default: argv[argv.index(name) + 1] if name in argv else default
    lib = os.path.abspath(opt("--lib", "build-gpu/bench/libripple-bench-module.so"))
    processes = int(opt("--processes", "3"))
    out = opt("--out", "bench-matrix")
    what = opt("--what", "all")
    use_torch = "--no-torch" not in argv
    if "--kernels" in argv:
        extra = ["--kernels", opt("--kernels", "fast")] + extra
    env = dict(os.environ)
    if "--profile" in argv:
        env["RIPPLE_DEVICE_PROFILE"] = opt("--profile", "")
    os.makedirs(out, exist_ok=True)
    results = []
    for p in range(processes):
        path = os.path.join(out, f"process{p}.json")
        print(f"process {p + 1} of {processes}", flush=True)
        cfg = json.dumps([path, lib, what, extra, use_torch])
        rc = subprocess.call([sys.executable, os.path.abspath(__file__), "--child", cfg], env=env)
        if rc not in (0, 3):
            print(f"process {p + 1} failed with exit status {rc}")
            sys.exit(rc)
        results.append(json.load(open(path)))
    names = [r["name"] for r in results[0]["rows"]]
    table = []
    for i, name in enumerate(names):
        per = [r["rows"][i] for r in results]
        row = dict(name=name, op=per[0]["op"], per_submission=per[0]["per_submission"],
                   ok=all(x["ok"] for x in per))
        for key in ("us", "host_us", "torch_us", "torch_host_us"):
            m, lo, hi = spread([x.get(key) for x in per])
            row[key], row[key + "_min"], row[key + "_max"] = m, lo, hi
        table.append(row)
    fmt = lambda m, lo, hi: "n/a" if m is None else f"{m:.1f} ({lo:.1f}-{hi:.1f})"
    lines = [f"device: {results[0]['device']}; {processes} processes; median (min-max of the per-process medians)",
             "", "| case | ripple GPU us | ripple host us | torch GPU us | torch host us | GPU torch/ripple |"
             " host torch/ripple |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in table:
        g = f"{r['torch_us'] / r['us']:.2f}" if r.get("torch_us") and r["us"] else "n/a"
        h = f"{r['torch_host_us'] / r['host_us']:.2f}" if r.get("torch_host_us") and r.get("host_us") else "n/a"
        lines.append(f"| {r['name']} | {fmt(r['us'], r['us_min'], r['us_max'])} | "
                     f"{fmt(r['host_us'], r['host_us_min'], r['host_us_max'])} | "
                     f"{fmt(r['torch_us'], r['torch_us_min'], r['torch_us_max'])} | "
                     f"{fmt(r['torch_host_us'], r['torch_host_us_min'], r['torch_host_us_max'])} | {g} | {h} |"
                     + ("" if r["ok"] else " CHECK FAILED"))
    text = "\n".join(lines)
    print(text)
    open(os.path.join(out, "matrix.md"), "w").write(text + "\n")
    json.dump(dict(device=results[0]["device"], kernels=opt("--kernels", "fast"), profile=opt("--profile", ""),
                   processes=results, table=table),
              open(os.path.join(out, "matrix.json"), "w"), indent=1)
    sys.exit(0 if all(r["ok"] for r in table) else 3)


if __name__ == "__main__":
    main()
