#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""ripple-particles' command line against hostile arguments: zero, negative, overflowing and oversized
numbers, missing values, unknown options, and PNG paths it cannot write. Each must end by itself with exit
2 (a bad argument) or 1 (a file it cannot write), a message starting 'ripple-particles: ' on stderr, and no
PNG file (not even its .partial); never a signal or a hang. A small valid run then writes its PNG whole.
usage: particles_cli.py RIPPLE_PARTICLES"""
import os, shutil, subprocess, sys, tempfile

exe = sys.argv[1]
tmp = tempfile.mkdtemp()
png = os.path.join(tmp, 'out.png')
small = ['--particles', '100', '--width', '8', '--height', '8', '--k', '4', '--frames', '1']
cases = [  # (arguments, expected exit code)
    (['--particles', '0'], 2), (['--particles', '-1'], 2), (['--particles', '99999999999999999999'], 2),
    (['--particles', '4294967295'], 2), (['--particles'], 2), (['--width', '0'], 2),
    (['--height', '4294967296'], 2), (['--width', '65536', '--height', '65536'], 2), (['--k', '0'], 2),
    (['--k', '1000000000'], 2), (small + ['--k', '65'], 2), (['--frames', '0'], 2), (['--frames', 'abc'], 2),
    (['--frames', '1000001'], 2), (['--mass', 'double'], 2), (['--mass'], 2), (['--png'], 2),
    (['--png', ''], 2), (['--bogus'], 2), (['--png', png, '--k', '0'], 2), (['--png', png, '--width', 'x'], 2),
    (small + ['--png', os.path.join(tmp, 'missing', 'x.png')], 1), (small + ['--png', tmp], 1),
]
failures = 0
for args, want in cases:
    try:
        r = subprocess.run([exe] + args, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        print('HANG:', args); failures += 1; continue
    left = [f for f in os.listdir(tmp) if f != 'missing' and not os.path.isdir(os.path.join(tmp, f))]
    problems = []
    if r.returncode != want: problems.append('exit %d, expected %d' % (r.returncode, want))
    if not r.stderr.startswith('ripple-particles: '): problems.append('stderr %r' % r.stderr[:80])
    if left: problems.append('left files %s' % left)
    if problems:
        print('FAIL:', args, '; '.join(problems)); failures += 1
    for f in left: os.remove(os.path.join(tmp, f))
r = subprocess.run([exe] + small + ['--png', png], capture_output=True, text=True, timeout=300)
with open(png, 'rb') if os.path.exists(png) else open(os.devnull, 'rb') as f:
    head = f.read(8)
if r.returncode != 0 or head != b'\x89PNG\r\n\x1a\n' or os.listdir(tmp) != ['out.png']:
    print('FAIL: the valid run (exit %d, files %s): %s' % (r.returncode, os.listdir(tmp), r.stderr[:200]))
    failures += 1
shutil.rmtree(tmp)
print('%d of %d hostile invocations kept the contract; the valid run wrote its PNG' % (
    len(cases) - failures, len(cases)) if failures == 0 else '%d failures' % failures)
sys.exit(1 if failures else 0)
