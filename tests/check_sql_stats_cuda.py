#!/usr/bin/env python3
"""check_sql_stats_cuda.py NSYS_PERFETTO TRACE_PROCESSOR_SHELL SQL_PACKAGE_DIR WORKDIR [REPORT ...]

The CUDA `nsys stats` tables of the nsys PerfettoSQL package (module
nsys.stats.cuda, docs/sql.md) against nsys stats 2022.4 itself, on every corpus
report that nsys has the data for (the goldens in tests/sql_golden, made by
`python3 tests/sql_golden.py generate`; REPORT ... limits the run to those
stems). Rows are matched by nsys's key columns; integers must be exact, and
every number nsys prints with decimals must equal it at that precision.
A report for which nsys prints nothing (no CUDA data) must give empty tables.

  nsys_cuda_api_sum          = cudaapisum      key: Name
  nsys_cuda_api_gpu_sum      = apigpusum       key: Operation
  nsys_cuda_gpu_kern_sum     = gpukernsum      key: Name, GridXYZ, BlockXYZ
  nsys_cuda_gpu_mem_time_sum = gpumemtimesum   key: Operation
  nsys_cuda_gpu_mem_size_sum = gpumemsizesum   key: Operation
  nsys_cuda_gpu_sum          = gpusum          key: Operation
  nsys_cuda_gpu_trace        = gputrace        count + sha256 of every row (start times in
                                               report time: a shifted trace's shift undone)
  nsys_cuda_kern_exec_sum    = kernexecsum     key: PID, TID, DevId, API Name, Kernel Name
  nsys_cuda_{gpu_kern,gpu,api_gpu,kern_exec}_sum_by_name('base')
                             = gpukernsum:base, gpusum:base, apigpusum:base, kernexecsum:base

Exits 77 without trace_processor_shell, the corpus or the goldens.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sql_golden  # noqa: E402

MODULES = ['nsys.stats.cuda']
SPECS = [
    dict(name='cudaapisum', table='nsys_cuda_api_sum', key=['Name']),
    dict(name='apigpusum', table='nsys_cuda_api_gpu_sum', key=['Operation']),
    dict(name='gpukernsum', table='nsys_cuda_gpu_kern_sum', key=['Name', 'GridXYZ', 'BlockXYZ']),
    dict(name='gpumemtimesum', table='nsys_cuda_gpu_mem_time_sum', key=['Operation']),
    dict(name='gpumemsizesum', table='nsys_cuda_gpu_mem_size_sum', key=['Operation']),
    dict(name='gpusum', table='nsys_cuda_gpu_sum', key=['Operation']),
    dict(name='gputrace', table='nsys_cuda_gpu_trace'),
    dict(name='kernexecsum', table='nsys_cuda_kern_exec_sum',
         key=['PID', 'TID', 'DevId', 'API Name', 'Kernel Name']),
]
# nsys's :base option (short kernel names): the *_by_name('base') table functions.
SPECS += [
    dict(name='gpukernsum:base', sql="SELECT * FROM nsys_cuda_gpu_kern_sum_by_name('base')",
         key=['Name', 'GridXYZ', 'BlockXYZ']),
    dict(name='gpusum:base', sql="SELECT * FROM nsys_cuda_gpu_sum_by_name('base')", key=['Operation']),
    dict(name='apigpusum:base', sql="SELECT * FROM nsys_cuda_api_gpu_sum_by_name('base')", key=['Operation']),
    dict(name='kernexecsum:base', sql="SELECT * FROM nsys_cuda_kern_exec_sum_by_name('base')",
         key=['PID', 'TID', 'DevId', 'API Name', 'Kernel Name']),
]
for spec in SPECS:
    spec['modules'] = MODULES

# _nsys_stats_round(x, 1) against SQLite 3.40's round(x, 1), the rounding of nsys 2022.4's
# numbers (goldens made on Debian 12: Python's sqlite3 3.40.1): values a hair under a tie
# round up, as in 3.40, not as in trace_processor's SQLite; no fudge from 2^42 on.
ROUND_CASES = [
    (36166.35, 36166.4), (-36166.35, -36166.4), (0.15, 0.2), (1.45, 1.5), (123.44999999999999, 123.5),
    (33.349999999999994, 33.4), (4398046511103.35, 4398046511103.4), (4398046511104.35, 4398046511104.3),
    (10000000000000.35, 10000000000000.3), (99.95, 100.0), (2.5, 2.5), (0.0, 0.0), (7.0, 7.0),
    (81730.65, 81730.7), (199.95, 200.0), (4.25, 4.3), (140969.15, 140969.2), (989.05, 989.1),
    (444.95, 445.0), (735795414.65, 735795414.7), (45759607742.95, 45759607743.0),
    (9656962041.05, 9656962041.1), (33237744.65, 33237744.7), (176696.15, 176696.2), (686.65, 686.7),
    (4.05, 4.1), (2195.25, 2195.3), (245020720.35, 245020720.4), (166695858.35, 166695858.4),
    (327.25, 327.3), (295.45, 295.5), (13539536.85, 13539536.9), (1.95, 2.0), (15.35, 15.4),
    (21302.05, 21302.1), (488.95, 489.0), (2618326.55, 2618326.6), (117945847.25, 117945847.3),
    (2201155.05, 2201155.1), (1285020420.55, 1285020420.6),
]


def check_round(nsysp, tp, pkg, work, *reports):
    """The rounding rule, on any trace (the first report given, else of the corpus)."""
    stems = list(reports) or sql_golden.reports_with('cudaapisum')
    if not stems:
        return []
    trace = sql_golden.converted_trace(stems[0], nsysp, work)
    q = ("WITH v(i, x) AS (VALUES " + ', '.join(f'({i}, {x!r})' for i, (x, _) in enumerate(ROUND_CASES))
         + ") SELECT i, printf('%.17g', _nsys_stats_round(x, 1)) AS r FROM v")
    rows = sql_golden.tp_query(trace, q, ['nsys.stats.common'], pkg, tp)
    bad = [f'_nsys_stats_round({ROUND_CASES[r["i"]][0]!r}, 1) = {r["r"]}, nsys rounds to {ROUND_CASES[r["i"]][1]!r}'
           for r in rows if float(r['r']) != ROUND_CASES[r['i']][1]]
    if len(rows) != len(ROUND_CASES):
        bad.append(f'_nsys_stats_round: {len(rows)} results for {len(ROUND_CASES)} cases')
    print(f'_nsys_stats_round: {len(ROUND_CASES)} cases, {len(bad)} differ')
    return bad


if __name__ == '__main__':
    rc = sql_golden.main_check(SPECS)
    if rc in (0, 1):
        bad = check_round(*sys.argv[1:])
        for b in bad:
            print('FAIL ' + b)
        rc = 1 if bad else rc
    sys.exit(rc)
