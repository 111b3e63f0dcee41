#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""ripple-run against generated hostile invocations (issue 18): a seeded generator mixes valid and broken
commands, options, numbers, .npy files (mutated headers, lying shapes, truncated or padded data, index data
out of range) and output paths (directories, device nodes, missing folders, names with control characters).
Every run must end by itself with exit 0 (then its outputs exist and load), 2 or 3 (then exactly one line
on stderr, starting 'ripple-run: ', and no output file, not even a partial one); never a signal or a hang.
usage: cli_hostile.py RIPPLE_RUN [COUNT] [SEED]"""
import os, random, shutil, subprocess, sys, tempfile
import numpy as np

exe = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 250
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 18)
tmp = tempfile.mkdtemp()

def save(name, a):
    p = os.path.join(tmp, name + '.npy'); np.save(p, a); return p

# Sound files to start from and to mutate.
base = {
    'x': save('x', (np.arange(60, dtype=np.float32).reshape(3, 4, 5) - 30) / 4),
    'x16': save('x16', np.arange(33, dtype=np.float16)),
    'xi': save('xi', np.arange(7 * 3, dtype=np.int32).reshape(7, 3)),
    'ind': save('ind', np.array([[1], [0]], dtype=np.int64)),
    'ind_oob': save('ind_oob', np.array([[1], [9]], dtype=np.int64)),
    'ind_neg': save('ind_neg', np.array([[-1], [-3]], dtype=np.int32)),
    'ind_q0': save('ind_q0', np.zeros((2, 0), dtype=np.int64)),
    'upd': save('upd', np.ones((2, 4, 5), dtype=np.float32)),
    'upd_q0': save('upd_q0', np.ones((2, 3, 4, 5), dtype=np.float32)),
    'e_ind': save('e_ind', np.array([[0, 2, 1]] * 2, dtype=np.int32)),
    'e_upd': save('e_upd', np.ones((2, 3), dtype=np.int32)),
    'empty': save('empty', np.zeros((0, 4), dtype=np.float32)),
}
os.mkdir(os.path.join(tmp, 'a_dir'))

def mutate(path):
    """A copy of a sound file with one hostile change."""
    data = bytearray(open(path, 'rb').read())
    hlen = int.from_bytes(data[8:10], 'little')
    header = data[10:10 + hlen].decode('latin1')
    kind = rng.randrange(10)
    if kind == 0: data = data[:rng.randrange(len(data))]                      # truncated anywhere
    elif kind == 1: data += os.urandom(rng.randrange(1, 64))                  # trailing bytes
    elif kind == 2:                                                           # random bytes flipped
        for _ in range(rng.randrange(1, 8)): data[rng.randrange(len(data))] = rng.randrange(256)
    elif kind in (3, 4):                                                      # a lying shape
        dims = rng.choice(['(4294967295, 4294967295)', '(65536, 65536, 65536, 65536)', '(-3, 4)', '((3, 4',
                           '(123456789012345678901,)', '()', '(0,)', '(1, 1, 1, 1, 1, 1, 1, 1, 1, 2)', '(2 3)'])
        start = header.index("'shape': ") + 9; end = header.index(')', start) + 1
        header = header[:start] + dims + header[end:]
        data = data[:8] + len(header).to_bytes(2, 'little') + header.encode('latin1') + data[10 + hlen:]
    elif kind == 5:                                                           # another dtype
        d = rng.choice(["'>f4'", "'<c8'", "'|b1'", "'O'", "'<U3'", "'<f4\\n'", "'" + 'x' * 80 + "'"])
        start = header.index("'descr': ") + 9; end = header.index(',', start)
        header = header[:start] + d + header[end:]
        data = data[:8] + len(header).to_bytes(2, 'little') + header.encode('latin1') + data[10 + hlen:]
    elif kind == 6: data[8:10] = rng.choice([b'\xff\xff', b'\x00\x00', b'\x01\x00'])  # header length
    elif kind == 7: data[6] = rng.choice([0, 2, 3, 9])                        # format version
    elif kind == 8:                                                           # a key with control bytes
        header = header.replace("'fortran_order'", "'fortran\n\x1b[31m_order'")
        data = data[:8] + len(header).to_bytes(2, 'little') + header.encode('latin1') + data[10 + hlen:]
    else: data = b'\x93NUMPY' + os.urandom(rng.randrange(0, 200))             # noise after the magic
    p = os.path.join(tmp, f'm{rng.randrange(10**9)}.npy')
    open(p, 'wb').write(bytes(data))
    return p

def number():
    if rng.random() < 0.6: return rng.choice(['0', '1', '2', '-1'])  # mostly sound, so runs reach the GPU
    return rng.choice(['0', '1', '2', '-1', '-4', '3', ' 3', '3 ', '+2', '0x2', '2.0', '', 'abc', '4294967296',
                       '4294967297', '-2147483649', '99999999999999999999999', '1e3', '٣'])

def tensor_arg(want):
    r = rng.random()
    if r < 0.75: return base[want]
    if r < 0.93: return mutate(base[want])
    return rng.choice([os.path.join(tmp, 'missing.npy'), os.path.join(tmp, 'a_dir'), '/dev/null', base[rng.choice(list(base))]])

def output_arg():
    r = rng.random()
    if r < 0.9: return os.path.join(tmp, f'out{rng.randrange(10**9)}.npy')
    return rng.choice([os.path.join(tmp, 'a_dir'), '/dev/null', os.path.join(tmp, 'no_such_dir', 'o.npy'),
                       os.path.join(tmp, 'new\nline.npy'), base['x']])

def invocation():
    op = rng.choice(['top-k', 'scatter-nd', 'scatter-elements', 'top-k', 'scatter-nd', 'devices', 'topk', ''])
    args, outs = [op], []
    if op == 'top-k':
        args += ['--input', tensor_arg(rng.choice(['x', 'x16', 'xi', 'empty'])), '--axis', number(), '--k', number()]
        if rng.random() < 0.3: args += ['--direction', rng.choice(['increasing', 'decreasing', 'up'])]
        if rng.random() < 0.3: args += ['--index-type', rng.choice(['uint32', 'uint64', 'int64', 'int8'])]
        outs = [('--output-values', output_arg()), ('--output-indices', output_arg())]
    elif op in ('scatter-nd', 'scatter-elements'):
        nd = op == 'scatter-nd'
        args += ['--input', tensor_arg(rng.choice(['x', 'xi', 'empty'] if nd else ['xi', 'x']))]
        args += ['--indices', tensor_arg(rng.choice(['ind', 'ind_oob', 'ind_neg', 'ind_q0'] if nd else ['e_ind']))]
        args += ['--updates', tensor_arg(rng.choice(['upd', 'upd_q0'] if nd else ['e_upd']))]
        if not nd: args += ['--axis', number()]
        if rng.random() < 0.4: args += ['--reduction', rng.choice(['none', 'add', 'mul', 'max', 'min', 'sum'])]
        if rng.random() < 0.3: args.append('--deterministic')
        outs = [('--output', output_arg())]
    for flag, path in outs:
        if rng.random() > 0.05: args += [flag, path]
    extra = rng.random()
    if extra < 0.1: args.append(rng.choice(['--unknown', '--k', '--print', '--portable', '--device', '--backend']))
    elif extra < 0.15: args += ['--device', number()]
    elif extra < 0.2: args += ['--backend', rng.choice(['vulkan', 'd3d12', 'metal'])]
    return args, [p for f, p in outs if f in args]

failures = 0
exits = {}
for n in range(count):
    args, outs = invocation()
    fresh = [p for p in outs if not os.path.exists(p)]  # outputs that must not appear on failure
    try:
        r = subprocess.run([exe] + args, capture_output=True, text=True, errors='replace', timeout=120)
    except subprocess.TimeoutExpired:
        failures += 1; print(f'FAIL #{n} {args!r}: did not finish in 120 s'); continue
    exits[r.returncode] = exits.get(r.returncode, 0) + 1
    problems = []
    err = r.stderr.strip()
    if r.returncode < 0: problems.append(f'killed by signal {-r.returncode}')
    elif r.returncode == 0:
        for p in outs:
            if args[0] != 'devices' and os.path.isfile(p) and p not in base.values():
                try: np.load(p)
                except Exception as e: problems.append(f'output {p!r} does not load: {e}')
    elif r.returncode in (2, 3):
        if len(err.splitlines()) != 1 or not err.startswith('ripple-run: '):
            problems.append(f'stderr is not one "ripple-run: " line: {err[:300]!r}')
        for p in fresh:
            if os.path.lexists(p): problems.append(f'output {p!r} left behind')
    else:
        problems.append(f'exit {r.returncode}: {err[:300]!r}')
    partial = [f for f in os.listdir(tmp) if f.endswith('.partial')]
    if partial: problems.append(f'partial files left: {partial}')
    if problems:
        failures += 1
        print(f'FAIL #{n} {args!r}: ' + '; '.join(problems))
    for p in outs:  # a clean slate for the next invocation's outputs
        if os.path.isfile(p) and p not in base.values() and not p.startswith('/dev'): os.remove(p)
shutil.rmtree(tmp, ignore_errors=True)
print(f'{count - failures} of {count} hostile invocations kept the contract; exits: {dict(sorted(exits.items()))}')
sys.exit(1 if failures else 0)
