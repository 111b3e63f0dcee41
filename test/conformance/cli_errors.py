#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""ripple-run's error contract: invalid input exits 2 (index data out of range: 3) with one line on stderr
naming the tensor and the rule, and leaves no output file.   usage: cli_errors.py RIPPLE_RUN"""
import os, subprocess, sys, tempfile
import numpy as np

exe = sys.argv[1]
tmp = tempfile.mkdtemp()
def npy(name, a):
    p = os.path.join(tmp, name + '.npy'); np.save(p, a); return p

x = npy('x', np.arange(12, dtype=np.float32).reshape(3, 4))
x9 = npy('x9', np.zeros((1,) * 8 + (3,), dtype=np.float32) + 1)
i_ok = npy('i_ok', np.array([[1], [0]], dtype=np.int64))
i_float = npy('i_float', np.array([[1.0], [0.0]], dtype=np.float32))
i_oob = npy('i_oob', np.array([[1], [3]], dtype=np.int64))
u_ok = npy('u_ok', np.ones((2, 4), dtype=np.float32) * 7)
u_bad = npy('u_bad', np.ones((2, 3), dtype=np.float32))
e_idx_oob = npy('e_idx_oob', np.array([[0, 4, 1, 2]], dtype=np.int32))
e_upd = npy('e_upd', np.ones((1, 4), dtype=np.float32))

cases = [
    # (name, args, exit, words the message must contain)
    ('scatter-nd wrong updates shape', ['scatter-nd', '--input', x, '--indices', i_ok, '--updates', u_bad], 2, ['UpdatesTensor.Sizes']),
    ('scatter-nd non-integer indices', ['scatter-nd', '--input', x, '--indices', i_float, '--updates', u_ok], 2, ['IndicesTensor.DataType (FLOAT32)']),
    ('scatter-nd out-of-range index data', ['scatter-nd', '--input', x, '--indices', i_oob, '--updates', u_ok], 3, ['IndicesTensor']),
    ('scatter-nd deterministic, out-of-range index data', ['scatter-nd', '--input', x, '--indices', i_oob, '--updates', u_ok, '--deterministic'], 3, ['IndicesTensor']),
    ('top-k --deterministic', ['top-k', '--input', x, '--axis', '1', '--k', '1', '--deterministic'], 2, ['--deterministic']),
    ('scatter-elements out-of-range index data', ['scatter-elements', '--input', x, '--indices', e_idx_oob, '--updates', e_upd, '--axis', '1'], 3, ['IndicesTensor']),
    ('scatter-elements axis out of range', ['scatter-elements', '--input', x, '--indices', e_idx_oob, '--updates', e_upd, '--axis', '2'], 2, ['axis']),
    ('top-k K larger than the axis', ['top-k', '--input', x, '--axis', '1', '--k', '5'], 2, ['K (5) exceeds InputTensor.Sizes[1] (4)']),
    ('top-k axis out of range', ['top-k', '--input', x, '--axis', '2', '--k', '1'], 2, ['axis']),
    ('top-k rank 9', ['top-k', '--input', x9, '--axis', '8', '--k', '1'], 2, ['InputTensor.DimensionCount (9) must be 1 to 8']),
    ('top-k bad index type', ['top-k', '--input', x, '--axis', '1', '--k', '1', '--index-type', 'int8'], 2, ['--index-type']),
    ('missing file', ['top-k', '--input', os.path.join(tmp, 'nope.npy'), '--axis', '0', '--k', '1'], 2, ['nope.npy']),
]
passed = failed = 0
for name, args, want, words in cases:
    outs = [os.path.join(tmp, 'out_' + str(passed + failed) + s + '.npy') for s in ('', '_v', '_i')]
    full = [exe] + args + (['--output-values', outs[1], '--output-indices', outs[2]] if args[0] == 'top-k' else ['--output', outs[0]])
    r = subprocess.run(full, capture_output=True, text=True, timeout=120)
    err = r.stderr.strip()
    problems = []
    if r.returncode != want: problems.append(f'exit {r.returncode}, expected {want}')
    if len(err.splitlines()) != 1: problems.append(f'stderr is not one line: {err!r}')
    for w in words:
        if w.lower() not in err.lower(): problems.append(f'message lacks {w!r}: {err!r}')
    left = [p for p in os.listdir(tmp) if p.startswith('out_')]
    if left: problems.append(f'files left behind: {left}')
    if problems:
        failed += 1; print(f'FAIL {name}: ' + '; '.join(problems))
    else:
        passed += 1
print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed or not passed else 0)
