#!/usr/bin/env python3
"""bench.py: how fast and lean nsys-perfetto is, against the read floor.

    python3 tools/bench.py [--build build] [--sizes 1000000,10000000]
                           [--scaled REPORT.sqlite:N] [--nsys2json SCRIPT]
                           [--cores 1,2,4] [--baseline OTHER_BUILD] [--format kineto]
                           [REPORT.sqlite ...]

Generates realistic inputs with nsys-fixture (CUDA API calls with flows,
kernels, memcpy, memset, sync, push/pop and start/end NVTX, OS runtime with
call chains, scheduling, CPU samples, GPU metrics counters) at each size,
cached in BUILD/bench; converts each with default options; and prints per
input: rows, wall time, rows per second, peak RSS, output bytes per row,
and the ratio to the read floor (the read-floor tool: the same columns of
the same rows read with the sqlite3 C API and dropped).

Reports named on the command line (corpus files) are timed the same way.
--scaled REPORT:N first makes REPORT N times bigger with
../shared/tools/scale-report (cached in BUILD/bench). --nsys2json SCRIPT
also times that converter (fetched separately, never committed) on the
scaled report, for comparison. Rows are the report's table rows (NVTX
ranges projected onto the GPU are derived, not counted). Not part of the
test suite: timings vary with the machine; run it on an idle one.

--cores 1,2,4 runs each conversion pinned to that many CPUs (taskset -c
0-N-1; --threads then defaults to N), a row each. --baseline OTHER_BUILD
also times OTHER_BUILD/nsys-perfetto on each input, right before ours, so
that before and after come from one run (its rows are marked "before").
--format kineto times the Kineto JSON conversion instead (its files, one
per rank, in BUILD/bench/REPORT.kineto/; B/row counts them all).
"""
import argparse
import os
import re
import subprocess
import sys
import time

FIXTURE_MIX = ['--nvtx', '--osrt', '--sched', '8', '--samples', '1000']


def run(cmd, stderr_path=os.devnull):
    """Runs cmd; returns (stdout, wall seconds, peak RSS in MiB)."""
    with open(stderr_path, 'w') as err:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
        out = p.stdout.read()
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f'bench: {cmd[0]} failed ({p.returncode})')
    return out, wall, usage.ru_maxrss / 1024.0


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


def scaled_input(directory, spec):
    """REPORT:N -> REPORT made N times bigger by scale-report (cached)."""
    report, times = spec.rsplit(':', 1)
    path = os.path.join(directory, f'{os.path.basename(report)}-x{times}.sqlite')
    if not os.path.exists(path):
        tool = os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'tools', 'scale-report')
        print(f'scaling {report} x{times} ...', file=sys.stderr)
        subprocess.run([sys.executable, tool, report, path + '.tmp', times], check=True,
                       stdout=subprocess.DEVNULL)
        os.rename(path + '.tmp', path)
    return path


_help = None


def helptext(build):
    global _help
    if _help is None:
        _help = subprocess.run([os.path.join(build, 'nsys-fixture'), '--help'],
                               capture_output=True, text=True).stdout
    return _help


def read_floor(build, report):
    # The floor's best of two runs: the first may pay for reading the file
    # from disk, which the conversion after it then does not.
    return min(float(run([os.path.join(build, 'read-floor'), report])[0].split()[1])
               for _ in range(2))


def pinned(cmd, cores):
    return ['taskset', '-c', f'0-{cores - 1}'] + cmd if cores else cmd


def output_bytes(path):
    """A trace's size, or the summed size of the files in a directory."""
    if not os.path.isdir(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))


def measure(build, report, directory, floor_s, cores=None, label='', fmt='perfetto'):
    kineto = fmt == 'kineto'
    trace = os.path.join(directory, os.path.basename(report) + ('.kineto/' if kineto else '.perfetto-trace'))
    stats_path = trace.rstrip('/') + '.stats'
    if kineto and os.path.isdir(trace):
        for f in os.listdir(trace):
            os.remove(os.path.join(trace, f))
    # --format only when asked: a --baseline build from before it knows none.
    cmd = [os.path.join(build, 'nsys-perfetto'), '-q', '--stats',
           *(['--format', fmt] if kineto else []), '-o', trace, report]
    _, wall, rss = run(pinned(cmd, cores), stats_path)
    stats = open(stats_path).read()
    rows = sum(int(m.group(2)) for m in re.finditer(r'^\S+\s+(\S+)\s+(\d+)\s+\d+\s+\d+$', stats, re.M)
               if m.group(1) != 'nvtx_gpu_ranges')
    size = output_bytes(trace)
    name = (label + ' ' if label else '') + (f'{cores} cores ' if cores else '') + \
        ('kineto ' if kineto else '')
    return dict(name=name + os.path.basename(report), rows=rows, wall=wall, rss=rss,
                bytes_per_row=size / max(rows, 1), floor=float(floor_s),
                ratio=wall / max(float(floor_s), 1e-9), out_mb=size / 2**20)


def print_row(r):
    print(f'{r["name"][:44]:<44} {r["rows"]:>10} {r["wall"]:>8.2f} {r["rows"] / r["wall"]:>11.0f} '
          f'{r["rss"]:>8.1f} {r["bytes_per_row"]:>6.2f} {r["floor"]:>8.2f} {r["ratio"]:>7.2f}')


def nsys2json(script, report, directory, ours):
    """Times nsys2json (all its activity types) on report: a row of the
    table, with ours's rows and floor, then how the two compare."""
    out = os.path.join(directory, os.path.basename(report) + '.nsys2json.json')
    _, wall, rss = run([sys.executable, script, '-f', report, '-o', out,
                        '-t', 'kernel', 'nvtx', 'nvtx-kernel', 'cuda-api'])
    size = os.path.getsize(out)
    os.remove(out)
    row = dict(ours, name='nsys2json: ' + ours['name'], wall=wall, rss=rss,
               bytes_per_row=size / max(ours['rows'], 1), ratio=wall / max(ours['floor'], 1e-9))
    print_row(row)
    print(f'  nsys-perfetto is {wall / ours["wall"]:.1f}x faster, with {rss / ours["rss"]:.0f}x'
          f' less memory ({size / 2**20:.0f} MiB of JSON, not compressed)')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default='build')
    ap.add_argument('--sizes', default='1000000,10000000')
    ap.add_argument('--scaled', action='append', default=[], metavar='REPORT:N')
    ap.add_argument('--nsys2json', metavar='SCRIPT')
    ap.add_argument('--cores', default='', help='e.g. 1,2,4: a row per number of CPUs')
    ap.add_argument('--baseline', metavar='OTHER_BUILD')
    ap.add_argument('--format', choices=('perfetto', 'kineto'), default='perfetto')
    ap.add_argument('reports', nargs='*')
    a = ap.parse_args()
    directory = os.path.join(a.build, 'bench')
    os.makedirs(directory, exist_ok=True)
    inputs = [make_input(a.build, directory, int(s)) for s in a.sizes.split(',') if s]
    scaled = [scaled_input(directory, spec) for spec in a.scaled]
    inputs += a.reports + scaled
    print(f'{"input":<44} {"rows":>10} {"wall s":>8} {"rows/s":>11} {"RSS MiB":>8} '
          f'{"B/row":>6} {"floor s":>8} {"x floor":>7}')
    results = {}
    cores = [int(c) for c in a.cores.split(',') if c] or [None]
    for report in inputs:
        floor_s = read_floor(a.build, report)
        for n in cores:
            if a.baseline:
                print_row(measure(a.baseline, report, directory, floor_s, n, 'before', a.format))
            results[report] = measure(a.build, report, directory, floor_s, n, fmt=a.format)
            print_row(results[report])
    if a.nsys2json:
        for report in scaled:
            nsys2json(a.nsys2json, report, directory, results[report])


if __name__ == '__main__':
    main()
