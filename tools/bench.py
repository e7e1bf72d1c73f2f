#!/usr/bin/env python3
"""bench.py: how fast and lean nsys-perfetto is, against the read floor.

    python3 tools/bench.py [--build build] [--sizes 1000000,10000000] [REPORT.sqlite ...]

Generates realistic inputs with nsys-fixture (kernels, memcpy, memset, sync,
CUDA API calls with flows, OS runtime, scheduling, CPU samples, GPU
metrics, ... at each size; cached in BUILD/bench), converts each with
default options, and prints per input: rows, wall time, rows per second,
peak RSS, output bytes per row, and the ratio to the read floor (the
read-floor tool: the same columns of the same rows read with the sqlite3
C API and dropped). Reports named on the command line (corpus files) are
timed the same way. Not part of the test suite: timings vary with the
machine; run it on an idle one.
"""
import argparse
import os
import re
import subprocess
import sys
import time

FIXTURE_MIX = ['--osrt', '--sched', '8', '--samples', '1000']


def run(cmd):
    """Runs cmd; returns (stdout, stderr, wall seconds, peak RSS in MiB)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate()
    wall = time.monotonic() - t0
    # communicate() reaped the child; its rusage is in RUSAGE_CHILDREN only
    # cumulatively, so measure RSS with a separate wait4 run when needed.
    if p.returncode != 0:
        sys.exit(f'bench: {cmd[0]} failed ({p.returncode}): {err.strip()}')
    return out, err, wall


def peak_rss(cmd):
    """Peak RSS (MiB) of one run of cmd, from wait4."""
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execv(cmd[0], cmd)
    _, status, usage = os.wait4(pid, 0)
    return usage.ru_maxrss / 1024.0


def make_input(build, directory, size):
    path = os.path.join(directory, f'mix-{size}.sqlite')
    extra = FIXTURE_MIX + ([] if '--gpu-metrics' not in helptext(build) else ['--gpu-metrics', '1000'])
    stamp = path + '.args'
    args = ['--seed', '1', '--events', str(size)] + extra
    if not (os.path.exists(path) and os.path.exists(stamp) and open(stamp).read() == ' '.join(args)):
        print(f'generating {path} ...', file=sys.stderr)
        run([os.path.join(build, 'nsys-fixture')] + args + [path])
        open(stamp, 'w').write(' '.join(args))
    return path


_help = None


def helptext(build):
    global _help
    if _help is None:
        _help = subprocess.run([os.path.join(build, 'nsys-fixture'), '--help'],
                               capture_output=True, text=True).stdout
    return _help


def measure(build, report, directory):
    floor_out, _, _ = run([os.path.join(build, 'read-floor'), report])
    floor_rows, floor_s = floor_out.split()
    trace = os.path.join(directory, os.path.basename(report) + '.perfetto-trace')
    cmd = [os.path.join(build, 'nsys-perfetto'), '-q', '--stats', '-o', trace, report]
    _, stats, wall = run(cmd)
    rss = peak_rss(cmd)
    rows = sum(int(m.group(1)) for m in re.finditer(r'^\S+\s+\S+\s+(\d+)\s+\d+\s+\d+$', stats, re.M))
    size = os.path.getsize(trace)
    return dict(name=os.path.basename(report), rows=rows, wall=wall, rss=rss,
                bytes_per_row=size / max(rows, 1), floor=float(floor_s),
                ratio=wall / max(float(floor_s), 1e-9), out_mb=size / 2**20)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default='build')
    ap.add_argument('--sizes', default='1000000,10000000')
    ap.add_argument('reports', nargs='*')
    a = ap.parse_args()
    directory = os.path.join(a.build, 'bench')
    os.makedirs(directory, exist_ok=True)
    inputs = [make_input(a.build, directory, int(s)) for s in a.sizes.split(',') if s]
    inputs += a.reports
    print(f'{"input":<44} {"rows":>10} {"wall s":>8} {"rows/s":>11} {"RSS MiB":>8} '
          f'{"B/row":>6} {"floor s":>8} {"x floor":>7}')
    for report in inputs:
        r = measure(a.build, report, directory)
        print(f'{r["name"][:44]:<44} {r["rows"]:>10} {r["wall"]:>8.2f} {r["rows"] / r["wall"]:>11.0f} '
              f'{r["rss"]:>8.1f} {r["bytes_per_row"]:>6.2f} {r["floor"]:>8.2f} {r["ratio"]:>7.2f}')


if __name__ == '__main__':
    main()
