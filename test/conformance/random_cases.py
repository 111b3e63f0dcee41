#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Random TopK, ScatterND and ScatterElements cases through ripple-run, checked bit for bit against numpy
references of docs/SEMANTICS.md (issue 40: every subgroup size; run it under LP_NATIVE_VECTOR_WIDTH).
Every data type (BFLOAT16 has no .npy form), ranks 1-4, every axis, both directions, ties, -0.0/NaN/inf,
negative indices; TopK rows of 1-64, 257-4096 and over 4096 elements, K from 1 to over 1024; the scatters in
the deterministic mode (any reduction, duplicates) and the default one (exact cases: integer reductions,
NONE without duplicates).
usage: random_cases.py RIPPLE_RUN [--count N] [--seed S] [--ops top-k,scatter-nd,scatter-elements]
                       [--portable] [--jobs J] [--allow-refusals features|limits]
--allow-refusals (for emulated profiles, RIPPLE_DEVICE_PROFILE): a case refused as Unsupported (exit 2) whose
message names a missing feature ('needs ...'), or with `limits` also an exceeded device limit ('exceeds ...'),
is counted as refused, not failed.
prints each failure with the command that reproduces it, then 'N passed, M failed, R refused'; exit 1 on a
failure."""
import argparse, concurrent.futures, os, re, subprocess, sys, tempfile
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument('exe')
ap.add_argument('--count', type=int, default=200)
ap.add_argument('--seed', type=int, default=40)
ap.add_argument('--ops', default='top-k,scatter-nd,scatter-elements')
ap.add_argument('--portable', action='store_true')
ap.add_argument('--jobs', type=int, default=1)
ap.add_argument('--allow-refusals', choices=['features', 'limits'])
opts = ap.parse_args()
ops = opts.ops.split(',')
tmp = tempfile.mkdtemp(prefix='ripple-random-')

TOPK_TYPES = ['f4', 'f2', 'i1', 'u1', 'i2', 'u2', 'i4', 'u4', 'i8', 'u8']
SCATTER_TYPES = TOPK_TYPES + ['f8']


def values(rng, dtype, n, ties):
    """n random values of dtype; with `ties`, drawn from a few distinct ones."""
    dt = np.dtype(dtype)
    if dt.kind == 'f':
        pool = rng.standard_normal(n if not ties else max(1, n // 16)) * 100
        if not ties:
            special = rng.random(n) < 0.02
            pool = pool.astype(dt)
            if special.any():
                pool[special] = rng.choice(np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dtype=dt),
                                           special.sum())
            return pool
        return rng.choice(pool.astype(dt), n)
    info = np.iinfo(dt)
    if ties:
        return rng.integers(max(info.min, -3), min(info.max, 3), n, dtype=dt, endpoint=True)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)


def order_key(x):
    """Dense ranks of SEMANTICS' total order: -0.0 equals +0.0, NaNs are equal and above +inf."""
    if x.dtype.kind == 'f':
        v = x.astype(np.float64) + 0.0  # -0.0 -> +0.0
        nan = np.isnan(v)
        uniq = np.unique(v[~nan])
        r = np.searchsorted(uniq, np.where(nan, 0, v)).astype(np.int64)
        return np.where(nan, len(uniq), r)
    uniq = np.unique(x)
    return np.searchsorted(uniq, x).astype(np.int64)


def topk_ref(x, axis, k, decreasing):
    xm = np.moveaxis(x, axis, -1)
    rows = xm.reshape(-1, xm.shape[-1])
    keys = order_key(rows)
    n = rows.shape[1]
    idx = np.broadcast_to(np.arange(n), rows.shape)
    vals = np.empty((rows.shape[0], k), dtype=x.dtype)
    inds = np.empty((rows.shape[0], k), dtype=np.int64)
    for r in range(rows.shape[0]):
        o = np.lexsort((idx[r], -keys[r] if decreasing else keys[r]))[:k]
        vals[r], inds[r] = rows[r][o], o
    shape = xm.shape[:-1] + (k,)
    return np.moveaxis(vals.reshape(shape), -1, axis), np.moveaxis(inds.reshape(shape), -1, axis)


def topk_case(rng, i):
    dtype = rng.choice(TOPK_TYPES)
    rank = int(rng.integers(1, 5))
    axis = int(rng.integers(0, rank))
    band = rng.choice(['short', 'row', 'long'], p=[0.3, 0.4, 0.3])
    n = {'short': int(rng.integers(1, 65)), 'row': int(rng.integers(257, 4097)),
         'long': int(rng.integers(4097, 160001))}[band]
    budget = max(1, 400000 // n)  # elements per case, so a case runs in about a second on lavapipe
    shape = []
    for d in range(rank):
        if d == axis:
            shape.append(n)
        else:
            cap = max(1, min(budget, 40 if rank > 2 else 600))
            s = int(rng.integers(1, cap + 1))
            budget = max(1, budget // s)
            shape.append(s)
    if rng.random() < 0.25:
        k = n
    elif n > 1024 and rng.random() < 0.3:
        k = int(rng.integers(1025, n + 1))
    else:
        k = int(rng.integers(1, min(n, 1100) + 1))
    x = values(rng, dtype, int(np.prod(shape)), rng.random() < 0.4).reshape(shape)
    decreasing = bool(rng.random() < 0.6)
    index_type = rng.choice(['uint32', 'uint64', 'int64'], p=[0.6, 0.2, 0.2])
    inp = os.path.join(tmp, f'{i}.input.npy')
    np.save(inp, x)
    outv, outi = os.path.join(tmp, f'{i}.values.npy'), os.path.join(tmp, f'{i}.indices.npy')
    args = ['top-k', '--input', inp, '--axis', str(axis), '--k', str(k), '--direction',
            'decreasing' if decreasing else 'increasing', '--index-type', index_type,
            '--output-values', outv, '--output-indices', outi]
    want_v, want_i = topk_ref(x, axis, k, decreasing)

    def check():
        gv, gi = np.load(outv), np.load(outi)
        if gv.shape != want_v.shape or gv.dtype != want_v.dtype or gv.tobytes() != want_v.tobytes():
            bad = np.argwhere(gv.view(f'u{gv.dtype.itemsize}') != want_v.view(f'u{gv.dtype.itemsize}'))
            return f'values differ at {len(bad)} places, first {tuple(bad[0])}' if len(bad) else 'values shape'
        if gi.shape != want_i.shape or not np.array_equal(gi.astype(np.int64), want_i):
            bad = np.argwhere(gi.astype(np.int64) != want_i)
            return f'indices differ at {len(bad)} places, first {tuple(bad[0])}'
        return None
    return f'topk {dtype} {tuple(shape)} axis {axis} K={k} {"dec" if decreasing else "inc"}', args, check, [outv, outi]


def combine(a, b, red):
    """One update b into a, as one element of dtype (numpy scalars keep the type's rounding and wrap)."""
    if red == 'none':
        return b
    if red == 'add':
        return a + b
    if red == 'mul':
        return a * b
    if a.dtype.kind == 'f':
        if np.isnan(a) or np.isnan(b):
            return a if np.isnan(a) else b
        if a == b:  # +0.0 counts as greater than -0.0
            pick_a = (not np.signbit(a)) if red == 'max' else bool(np.signbit(a))
            return a if pick_a else b
    return max(a, b) if red == 'max' else min(a, b)


def scatter_values(rng, dtype, n, red):
    dt = np.dtype(dtype)
    if red == 'mul':  # products that stay normal and exact enough to compare in every type
        if dt.kind == 'f':
            return rng.choice(np.array([0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 1.5], dtype=dt), n)
        return rng.integers(-3 if dt.kind == 'i' else 0, 4, n).astype(dt)
    if dt.kind == 'f' and red == 'add':
        return (np.round(rng.standard_normal(n) * 64) / 8).astype(dt)
    return values(rng, dtype, n, rng.random() < 0.3)


def index_data(rng, itype, size, count):
    t = rng.integers(0, size, count)
    if itype[0] == 'i':
        neg = rng.random(count) < 0.3
        t = np.where(neg, t - size, t)
    return t.astype(itype)


def scatter_case(rng, i, op):
    dtype = rng.choice(SCATTER_TYPES)
    deterministic = bool(rng.random() < 0.6)
    red = rng.choice(['none', 'add', 'mul', 'max', 'min'])
    if not deterministic and np.dtype(dtype).kind == 'f' and red in ('add', 'mul'):
        red = 'max'  # float sums in no fixed order are not bit-exact
    unique = not deterministic and red == 'none'
    itype = rng.choice(['i4', 'i8', 'u4', 'u8'])
    rank = int(rng.integers(1, 5))
    shape = [int(rng.integers(1, 34 if rank > 2 else 600)) for _ in range(rank)]
    x = scatter_values(rng, dtype, int(np.prod(shape)), 'none' if red == 'mul' else red).reshape(shape)
    if red == 'mul' and np.dtype(dtype).kind == 'f':
        x = rng.choice(np.array([1.0, -1.0, 0.5, 2.0], dtype=dtype), x.size).reshape(shape)
    out = x.copy()
    if op == 'scatter-nd':
        q = int(rng.integers(1, rank + 1))
        slots = int(np.prod(shape[:q]))
        count = int(rng.integers(1, 3 * slots + 2)) if not unique else int(rng.integers(1, slots + 1))
        count = min(count, max(1, 60000 // max(1, int(np.prod(shape[q:])))))
        lead = [count] if rng.random() < 0.5 or count < 4 else [2, count // 2]
        count = int(np.prod(lead))
        if unique:
            flat = rng.permutation(slots)[:count] if count <= slots else None
            if flat is None:
                count, lead = slots, [slots]
                flat = rng.permutation(slots)
            coords = np.stack(np.unravel_index(flat, shape[:q]), -1)
        else:
            coords = np.stack([rng.integers(0, shape[d], count) for d in range(q)], -1)
        ind = coords.copy()
        if itype[0] == 'i':
            neg = rng.random(ind.shape) < 0.3
            ind = np.where(neg, ind - np.array(shape[:q]), ind)
        ind = ind.astype(itype).reshape(lead + [q])
        upd = scatter_values(rng, dtype, count * int(np.prod(shape[q:])), red).reshape(lead + shape[q:])
        flat_upd = upd.reshape(count, -1)
        outv = out.reshape(slots, -1)
        for u in range(count):
            t = int(np.ravel_multi_index(tuple(coords[u]), shape[:q]))
            for e in range(flat_upd.shape[1]):
                outv[t, e] = combine(outv[t, e], flat_upd[u, e], red)
        args = ['scatter-nd']
        desc = f'scatter-nd {dtype} {tuple(shape)} q={q} updates {tuple(upd.shape)}'
    else:
        axis = int(rng.integers(0, rank))
        ishape = [int(rng.integers(1, s + 1)) if d != axis else int(rng.integers(1, 2 * s + 2))
                  for d, s in enumerate(shape)]
        if unique:
            ishape[axis] = min(ishape[axis], shape[axis])
        count = int(np.prod(ishape))
        if unique:  # a permutation of the axis' positions along every line
            t = np.argsort(rng.random(ishape[:axis] + [shape[axis]] + ishape[axis + 1:]), axis=axis)
            t = np.take(t, np.arange(ishape[axis]), axis=axis)
        else:
            t = rng.integers(0, shape[axis], ishape)
        ind = t.copy()
        if itype[0] == 'i':
            neg = rng.random(ind.shape) < 0.3
            ind = np.where(neg, ind - shape[axis], ind)
        ind = ind.astype(itype)
        upd = scatter_values(rng, dtype, count, red).reshape(ishape)
        for pos in np.ndindex(*ishape):  # row-major: the deterministic mode's order
            tgt = list(pos)
            tgt[axis] = int(t[pos])
            out[tuple(tgt)] = combine(out[tuple(tgt)], upd[pos], red)
        args = ['scatter-elements', '--axis', str(axis)]
        desc = f'scatter-elements {dtype} {tuple(shape)} axis {axis} indices {tuple(ishape)}'
    paths = [os.path.join(tmp, f'{i}.{n}.npy') for n in ('input', 'indices', 'updates', 'output')]
    for p, a in zip(paths, (x, ind, upd)):
        np.save(p, a)
    args += ['--input', paths[0], '--indices', paths[1], '--updates', paths[2], '--output', paths[3],
             '--reduction', red] + (['--deterministic'] if deterministic else [])
    desc += f' {itype} {red}{" deterministic" if deterministic else ""}'

    def check():
        got = np.load(paths[3])
        if got.shape != out.shape or got.dtype != out.dtype:
            return f'shape/dtype {got.shape} {got.dtype}'
        a, b = got.view(f'u{got.dtype.itemsize}'), out.view(f'u{got.dtype.itemsize}')
        if got.dtype.kind == 'f':  # NaN payloads may differ, NaN-ness may not
            same = (a == b) | (np.isnan(got) & np.isnan(out))
        else:
            same = a == b
        if not same.all():
            bad = np.argwhere(~same)
            p = tuple(bad[0])
            return f'{len(bad)} elements differ, first at {p}: got {got[p]} expected {out[p]}'
        return None
    return desc, args, check, [paths[3]]


def make(i):
    rng = np.random.default_rng([opts.seed, i])
    op = ops[i % len(ops)]
    return topk_case(rng, i) if op == 'top-k' else scatter_case(rng, i, op)


def run(i):
    with np.errstate(all='ignore'):
        desc, args, check, outputs = make(i)
    cmd = [opts.exe] + args + (['--portable'] if opts.portable else [])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    refusal = r.returncode == 2 and opts.allow_refusals and (
        ' needs ' in r.stderr or (opts.allow_refusals == 'limits' and ' exceeds ' in r.stderr))
    if refusal:
        problem = 'refused: ' + r.stderr.strip()[:300]
    elif r.returncode != 0:
        problem = f'exit {r.returncode}: {r.stderr.strip()[:300]}'
    else:
        problem = check()
    for p in outputs:
        if os.path.exists(p):
            os.remove(p)
    return i, desc, problem, ' '.join(cmd)


passed = failed = refused = 0
reasons = {}
with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
    for i, desc, problem, cmd in pool.map(run, range(opts.count)):
        if problem and problem.startswith('refused: '):
            refused += 1
            m = re.search(r"(\S+) (needs (.*?), which|exceeds .*'s (\S+))", problem)
            reason = f'{m.group(1)} needs {m.group(3)}' if m and m.group(3) else \
                f'{m.group(1)} exceeds {m.group(4)}' if m else problem
            reasons[reason] = reasons.get(reason, 0) + 1
        elif problem:
            failed += 1
            print(f'FAIL case {i}: {desc}: {problem}\n  {cmd}', flush=True)
        else:
            passed += 1
for reason, n in sorted(reasons.items(), key=lambda x: -x[1]):
    print(f'refused {n}x: {reason}')
print(f'{passed} passed, {failed} failed, {refused} refused')
sys.exit(1 if failed or not (passed or refused) else 0)
