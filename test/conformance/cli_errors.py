#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""ripple-run's error contract: invalid input exits 2 (index data out of range: 3) with one line on stderr
naming the tensor and the rule, and leaves no output file.   usage: cli_errors.py RIPPLE_RUN"""
import os, stat, subprocess, sys, tempfile
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

def raw(name, header, data=b'', version=(1, 0), hlen=None):
    """A .npy file written byte by byte: any header text, any declared header length, any data."""
    h = header.encode('latin1')
    h += b' ' * ((-(len(h) + 11)) % 64) + b'\n' if not h.endswith(b'\n') else b''
    n = len(h) if hlen is None else hlen
    size = n.to_bytes(2 if version[0] == 1 else 4, 'little')
    p = os.path.join(tmp, name + '.npy')
    with open(p, 'wb') as f: f.write(b'\x93NUMPY' + bytes(version) + size + h + data)
    return p

def hdr(shape, descr='<f4', extra=''):
    return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", " + extra + "}"

hostile = {  # name: (path, words the message must contain)
    'a 21-digit dimension': (raw('h_digits', hdr('(123456789012345678901, 4)'), b'\0' * 16), ['exceeds 2^32-1']),
    'a huge shape, a tiny file': (raw('h_huge', hdr('(4294967295, 4294967295)'), b'\0' * 16), ['overflows']),
    'a cube of 65536': (raw('h_cube', hdr('(65536, 65536, 65536)'), b'\0' * 16), ['bytes of data']),
    'an element count that wraps': (raw('h_wrap', hdr('(65536, 65536, 65536, 65536)'), b'\0' * 4), ['overflows']),
    'a negative dimension': (raw('h_neg', hdr('(-3, 4)'), b'\0' * 48), ['non-negative integer']),
    'an unbalanced tuple': (raw('h_unbal', hdr('((3, 4'), b'\0' * 48), ['not a non-negative integer']),
    'header length 0xFFFFFFFF': (raw('h_len', hdr('(3, 4)'), b'\0' * 48, (2, 0), 0xFFFFFFFF), ['header length']),
    'header length past the file': (raw('h_past', hdr('(3, 4)'), b'', (1, 0), 60000), ['past the end']),
    'format version 9.0': (raw('h_ver', hdr('(3, 4)'), b'\0' * 48, (9, 0)), ['version 9.0']),
    'bytes after the data': (raw('h_trail', hdr('(3, 4)'), b'\0' * 52), ['48 bytes of data; the file has 52']),
    'too few bytes': (raw('h_short', hdr('(3, 4)'), b'\0' * 47), ['the file has 47']),
    'an unknown key': (raw('h_key', hdr('(3, 4)', extra="'evil': 1, "), b'\0' * 48), ["unknown header key 'evil'"]),
    'a key twice': (raw('h_twice', hdr('(3, 4)', extra="'shape': (3, 4), "), b'\0' * 48), ['appears twice']),
    'no shape': (raw('h_noshape', "{'descr': '<f4', 'fortran_order': False, }", b'\0' * 4), ['lacks']),
    'a header without its newline': (raw('h_nonl', hdr('(3, 4)') + 'x' * 53 + '\n', b'\0' * 48), ['newline']),
}
zip_path = os.path.join(tmp, 'h_zip.npy')
with open(zip_path, 'wb') as f: f.write(b'PK\x03\x04 a zip, not a .npy')
hostile['not a .npy file'] = (zip_path, ['not a .npy file'])

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
    ('top-k --axis 4294967296 (would wrap to 0)', ['top-k', '--input', x, '--axis', '4294967296', '--k', '1'], 2, ['--axis']),
    ('top-k --axis 4294967297 (would wrap to 1)', ['top-k', '--input', x, '--axis', '4294967297', '--k', '1'], 2, ['--axis']),
    ('top-k --k with a space', ['top-k', '--input', x, '--axis', '1', '--k', ' 3'], 2, ['--k']),
    ('top-k --k +3', ['top-k', '--input', x, '--axis', '1', '--k', '+3'], 2, ['--k']),
    ('--device 4294967296 (would wrap to 0)', ['top-k', '--input', x, '--axis', '1', '--k', '1', '--device', '4294967296'], 2, ['--device']),
]
for what, (path, words) in hostile.items():
    cases.append(('top-k on a .npy with ' + what, ['top-k', '--input', path, '--axis', '0', '--k', '1', '--print'], 2, [os.path.basename(path)] + words))
    cases.append(('scatter-nd updates with ' + what, ['scatter-nd', '--input', x, '--indices', i_ok, '--updates', path], 2, ['--updates'] + words))
# Outputs that are not regular files are refused before anything runs, and left as they were.
special_dir = os.path.join(tmp, 'special_dir'); os.mkdir(special_dir)
special_fifo = os.path.join(tmp, 'special_fifo'); os.mkfifo(special_fifo)
special_link = os.path.join(tmp, 'special_link'); os.symlink(x, special_link)
special = [special_dir, special_fifo, special_link]
for target in special:
    cases.append(('scatter-nd --output ' + os.path.basename(target), ['scatter-nd', '--input', x, '--indices', i_ok, '--updates', u_ok, '--output', target], 2, ['not a regular file']))
    cases.append(('top-k --output-indices ' + os.path.basename(target), ['top-k', '--input', x, '--axis', '1', '--k', '1', '--output-indices', target], 2, ['not a regular file']))
passed = failed = 0
for name, args, want, words in cases:
    outs = [os.path.join(tmp, 'out_' + str(passed + failed) + s + '.npy') for s in ('', '_v', '_i')]
    given = [a for a in args if a.startswith('--output')]
    if args[0] == 'top-k':
        tail = ['--output-values', outs[1]] + ([] if '--output-indices' in given else ['--output-indices', outs[2]])
    else:
        tail = [] if '--output' in given else ['--output', outs[0]]
    full = [exe] + args + tail
    r = subprocess.run(full, capture_output=True, text=True, timeout=120)
    err = r.stderr.strip()
    problems = []
    if r.returncode != want: problems.append(f'exit {r.returncode}, expected {want}')
    if len(err.splitlines()) != 1: problems.append(f'stderr is not one line: {err!r}')
    for w in words:
        if w.lower() not in err.lower(): problems.append(f'message lacks {w!r}: {err!r}')
    if r.returncode < 0: problems.append(f'killed by signal {-r.returncode}')
    left = [p for p in os.listdir(tmp) if p.startswith('out_') or p.endswith('.partial')]
    if left: problems.append(f'files left behind: {left}')
    if not (os.path.isdir(special_dir) and stat.S_ISFIFO(os.lstat(special_fifo).st_mode) and os.path.islink(special_link)):
        problems.append('a special output was replaced')
    if problems:
        failed += 1; print(f'FAIL {name}: ' + '; '.join(problems))
    else:
        passed += 1
print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed or not passed else 0)
