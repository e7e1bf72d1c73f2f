#!/usr/bin/env python3
"""bench_sql.py: how fast the nsys PerfettoSQL package loads and answers, with bounds.

    python3 tools/bench_sql.py [--build build] [--tp TRACE_PROCESSOR] [--bound-load S]
                               [--bound-table S] [REPORT.sqlite ...]

Times, on a generated report of the shape of issue 43 (one thread whose NVTX
push/pop ranges recurse 1,100 deep, 22,000 of them with a kernel launched at
the bottom of each recursion, beside a range holding ~3,900 flat ones: the
edits of tests/check_sql_stats_nvtx_cpu.py's fixture-2022-deep-nvtx) and on
any report named: loading the whole package (every module, as the script of
`nsys-perfetto sql` does), then each NVTX stats table and the iterations
tables, one trace_processor run each. Prints CPU seconds (user + system: the
machine may be shared), wall seconds and peak RSS per step; exits 1 when a
load takes more CPU than --bound-load (default 3 s) or a table more than
--bound-table (default 10 s) beyond the load. Not part of the test suite.
"""
import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, 'tests'))
import check_sql_stats_nvtx_cpu as nvtx_check  # noqa: E402

PACKAGE = os.path.join(REPO, 'src', 'sql', 'nsys')
# Every module of the package, as `nsys-perfetto sql` includes them.
MODULES = sorted('nsys.' + os.path.relpath(os.path.join(d, f), PACKAGE)[:-4].replace(os.sep, '.')
                 for d, _, files in os.walk(PACKAGE) for f in files if f.endswith('.sql'))
TABLES = ['nsys_nvtx_sum', 'nsys_nvtx_pushpop_sum', 'nsys_nvtx_gpu_proj_trace',
          'nsys_nvtx_gpu_proj_trace_2022', 'nsys_nvtx_gpu_proj_sum', 'nsys_nvtx_pushpop_trace', 'nsys_nvtx_kern_sum', 'nsys_nvtx_kern_sum_by_op',
          'nsys_repeated_ranges', 'nsys_top_iterations', 'nsys_top_iteration_summary']


def deep_report(build, directory):
    """The fixture-2022-deep-nvtx report, made once in directory."""
    path = os.path.join(directory, 'deep-nvtx.sqlite')
    if not os.path.exists(path):
        tmp = path + '.tmp'
        nvtx_check.make_fixture(os.path.join(build, 'nsys-fixture'), 'fixture-2022-deep-nvtx', tmp)
        os.replace(tmp, path)
    return path


def convert(build, report, directory):
    trace = os.path.join(directory, os.path.basename(report) + '.perfetto-trace')
    subprocess.run([os.path.join(build, 'nsys-perfetto'), '-q', report, '-o', trace], check=True)
    return trace


def timed(tp, trace, sql):
    """(cpu s, wall s, peak RSS MiB) of one trace_processor run of sql."""
    path = trace + '.bench.sql'
    with open(path, 'w') as f:
        f.write(sql)
    t0 = time.monotonic()
    p = subprocess.Popen([tp, '--add-sql-package', PACKAGE, '-q', path, trace],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f'bench_sql: {trace}: trace_processor failed: {err.strip()[-400:]}')
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default='build')
    ap.add_argument('--tp', default=os.environ.get('NSYSP_TRACE_PROCESSOR',
                                                   os.path.join(REPO, '..', 'shared', 'tools',
                                                                'trace_processor_shell')))
    ap.add_argument('--bound-load', type=float, default=3.0)
    ap.add_argument('--bound-table', type=float, default=10.0)
    ap.add_argument('reports', nargs='*')
    a = ap.parse_args()
    if not shutil.which(a.tp) and not os.path.exists(a.tp):
        sys.exit(f'bench_sql: no trace_processor_shell at {a.tp}')
    directory = os.path.join(a.build, 'bench')
    os.makedirs(directory, exist_ok=True)
    reports = [deep_report(a.build, directory)] + a.reports
    include = ''.join(f'INCLUDE PERFETTO MODULE {m};\n' for m in MODULES)
    over = []
    print(f'{"report / step":<52} {"CPU s":>7} {"wall s":>7} {"RSS MiB":>8}')
    for report in reports:
        trace = convert(a.build, report, directory)
        base, _, _ = timed(a.tp, trace, 'SELECT 1;\n')
        load, wall, rss = timed(a.tp, trace, include + 'SELECT 1;\n')
        load -= base
        name = os.path.basename(report)
        print(f'{name[:40] + ": load":<52} {load:7.2f} {wall:7.2f} {rss:8.0f}')
        if load > a.bound_load:
            over.append(f'{name}: package load {load:.2f} s CPU > {a.bound_load} s')
        for t in TABLES:
            cpu, wall, rss = timed(a.tp, trace, include + f'SELECT count(*) FROM {t};\n')
            cpu -= base + load
            print(f'{"  " + t:<52} {cpu:7.2f} {wall:7.2f} {rss:8.0f}')
            if cpu > a.bound_table:
                over.append(f'{name}: {t}: {cpu:.2f} s CPU > {a.bound_table} s')
    for o in over:
        print('OVER ' + o)
    return 1 if over else 0


if __name__ == '__main__':
    sys.exit(main())
