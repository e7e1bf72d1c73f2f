#!/usr/bin/env python3
"""check_sql_stats_cuda.py [--fixture NSYS_FIXTURE] NSYS_PERFETTO TRACE_PROCESSOR_SHELL SQL_PACKAGE_DIR WORKDIR
                          [REPORT ...]

The CUDA `nsys stats` tables of the nsys PerfettoSQL package (module
nsys.stats.cuda, docs/sql.md) against nsys stats itself, 2023.4 and 2022.4, on
every corpus report that nsys has the data for (the goldens in
tests/sql_golden_2023 and tests/sql_golden, made by `python3 tests/sql_golden.py
generate [--version 2023.4]`; REPORT ... limits the run to those stems). Each
line of output names the nsys version compared with. Rows are matched by
nsys's key columns; integers must be exact, and every number nsys prints with
decimals must equal it at that precision. A report for which nsys prints
nothing (no CUDA data) must give empty tables.

nsys 2023.4 (the package's own form):
  nsys_cuda_api_sum          = cuda_api_sum            key: Name
  nsys_cuda_api_gpu_sum      = cuda_api_gpu_sum        key: Operation
  nsys_cuda_gpu_kern_sum     = cuda_gpu_kern_sum       key: Name
  nsys_cuda_gpu_kern_gb_sum  = cuda_gpu_kern_gb_sum    key: Name, GridXYZ, BlockXYZ
  nsys_cuda_gpu_mem_time_sum = cuda_gpu_mem_time_sum   key: Operation ('[CUDA memcpy Host-to-Device]')
  nsys_cuda_gpu_mem_size_sum = cuda_gpu_mem_size_sum   key: Operation
  nsys_cuda_gpu_sum          = cuda_gpu_sum            key: Operation
  nsys_cuda_gpu_trace        = cuda_gpu_trace          count + sha256 of every row
  nsys_cuda_kern_exec_sum    = cuda_kern_exec_sum      key: PID, TID, DevId, API Name, Kernel Name
  nsys_cuda_kern_exec_trace  = cuda_kern_exec_trace    count + sha256 of every row
  nsys_cuda_api_trace        = cuda_api_trace          count + sha256 of each column but T-Pri
                                                       (thread priorities: not in the trace) and
                                                       Thread Name (unnamed threads: the trace's
                                                       name), Start aligned on nsys's first
  and the *_by_name('base') functions = the :base variants.
  The unified-memory reports (nsys.stats.um, nsys.stats.cpu), empty on every corpus report:
  nsys_um_sum                = um_sum                  count + sha256 of every row (10 rows)
  nsys_um_sum_by_rows(-1)    = um_sum:rows=-1          key: Virtual Address
  nsys_um_total_sum          = um_total_sum            its one row
  nsys_um_cpu_page_faults_sum = um_cpu_page_faults_sum key: CPU Instruction Address
nsys 2022.4 (its names; what changed read back the way docs/sql.md says):
  the same tables, gpukernsum = nsys_cuda_gpu_kern_gb_sum, memcpy names through
  nsys_cuda_memcpy_name_2022 ('[CUDA memcpy HtoD]'); unifiedmemory, unifiedmemorytotals
  (and :rows=-1) = the unified-memory tables, on the fixture report only.

With --fixture, the unified-memory tables on a report nsys-fixture makes (no corpus report
has unified memory): `nsys-fixture --um-migrations`, page faults and the migrations they
cause on shared addresses, goldens from both versions in tests/sql_golden_2023_fixtures
and tests/sql_golden_fixtures (fixture-modern-uvm: the arguments and the sha256 of the
report in fixture.meta; made with `tests/sql_golden.py generate --reports
fixture-modern-uvm.sqlite` and NSYSP_GOLDEN_DIR / NSYSP_GOLDEN_DIR_2023 set to those).

Exits 77 without trace_processor_shell, the corpus or the goldens.
"""
import hashlib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sql_golden  # noqa: E402

MODULES = ['nsys.stats.cuda']
UM_MODULES = ['nsys.stats.um', 'nsys.stats.cpu']
KERN_EXEC_KEY = ['PID', 'TID', 'DevId', 'API Name', 'Kernel Name']
OLD_MEMCPY = 'nsys_cuda_memcpy_name_2022'


def _old_names(table, column):
    """A 2023.4 table read with 2022.4's memcpy names."""
    return f'SELECT *, {OLD_MEMCPY}({column}) AS old_{column} FROM {table}'


SPECS_2023 = [
    dict(name='cuda_api_sum', table='nsys_cuda_api_sum', key=['Name']),
    dict(name='cuda_api_gpu_sum', table='nsys_cuda_api_gpu_sum', key=['Operation']),
    dict(name='cuda_gpu_kern_sum', table='nsys_cuda_gpu_kern_sum', key=['Name']),
    dict(name='cuda_gpu_kern_gb_sum', table='nsys_cuda_gpu_kern_gb_sum', key=['Name', 'GridXYZ', 'BlockXYZ']),
    dict(name='cuda_gpu_mem_time_sum', table='nsys_cuda_gpu_mem_time_sum', key=['Operation']),
    dict(name='cuda_gpu_mem_size_sum', table='nsys_cuda_gpu_mem_size_sum', key=['Operation']),
    dict(name='cuda_gpu_sum', table='nsys_cuda_gpu_sum', key=['Operation']),
    dict(name='cuda_gpu_trace', table='nsys_cuda_gpu_trace'),
    dict(name='cuda_kern_exec_sum', table='nsys_cuda_kern_exec_sum', key=KERN_EXEC_KEY),
    dict(name='cuda_kern_exec_trace', table='nsys_cuda_kern_exec_trace'),
    # Thread priorities are not in the trace; a thread nsys leaves unnamed has the name the
    # trace gives it (its process's, from its scheduling rows). Reports without GPU rows do
    # not say their time shift: start times aligned on nsys's first.
    dict(name='cuda_api_trace', table='nsys_cuda_api_trace', ignore=['T-Pri', 'Thread Name'],
         align=['Start (ns)']),
    dict(name='cuda_gpu_kern_sum:base', sql="SELECT * FROM nsys_cuda_gpu_kern_sum_by_name('base')", key=['Name']),
    dict(name='cuda_gpu_kern_gb_sum:base', sql="SELECT * FROM nsys_cuda_gpu_kern_gb_sum_by_name('base')",
         key=['Name', 'GridXYZ', 'BlockXYZ']),
    dict(name='cuda_gpu_sum:base', sql="SELECT * FROM nsys_cuda_gpu_sum_by_name('base')", key=['Operation']),
    dict(name='cuda_api_gpu_sum:base', sql="SELECT * FROM nsys_cuda_api_gpu_sum_by_name('base')",
         key=['Operation']),
    dict(name='cuda_kern_exec_sum:base', sql="SELECT * FROM nsys_cuda_kern_exec_sum_by_name('base')",
         key=KERN_EXEC_KEY),
]
UM_ALL = 'SELECT * FROM nsys_um_sum_by_rows(-1)'
UM_SPECS_2023 = [
    dict(name='um_sum', table='nsys_um_sum'),
    dict(name='um_sum:rows=-1', sql=UM_ALL, key=['Virtual Address']),
    dict(name='um_total_sum', table='nsys_um_total_sum', key=['Minimum Virtual Address']),
    dict(name='um_cpu_page_faults_sum', table='nsys_um_cpu_page_faults_sum', key=['CPU Instruction Address']),
]
for spec in UM_SPECS_2023:
    spec['modules'] = UM_MODULES
SPECS_2023 += UM_SPECS_2023
for spec in SPECS_2023:
    spec['version'] = '2023.4'

OLD_OPERATION = {'Operation': 'old_operation'}
SPECS_2022 = [
    dict(name='cudaapisum', table='nsys_cuda_api_sum', key=['Name']),
    dict(name='apigpusum', sql=_old_names('nsys_cuda_api_gpu_sum', 'operation'), key=['Operation'],
         columns=OLD_OPERATION),
    dict(name='gpukernsum', table='nsys_cuda_gpu_kern_gb_sum', key=['Name', 'GridXYZ', 'BlockXYZ']),
    dict(name='gpumemtimesum', sql=_old_names('nsys_cuda_gpu_mem_time_sum', 'operation'), key=['Operation'],
         columns=OLD_OPERATION),
    dict(name='gpumemsizesum', sql=_old_names('nsys_cuda_gpu_mem_size_sum', 'operation'), key=['Operation'],
         columns=OLD_OPERATION),
    dict(name='gpusum', sql=_old_names('nsys_cuda_gpu_sum', 'operation'), key=['Operation'],
         columns=OLD_OPERATION),
    dict(name='gputrace', sql=_old_names('nsys_cuda_gpu_trace', 'name'),
         columns={'Name': 'old_name', 'Throughput (MBps)': 'throughput_mb_s'}),
    dict(name='kernexecsum', table='nsys_cuda_kern_exec_sum', key=KERN_EXEC_KEY),
    dict(name='gpukernsum:base', sql="SELECT * FROM nsys_cuda_gpu_kern_gb_sum_by_name('base')",
         key=['Name', 'GridXYZ', 'BlockXYZ']),
    dict(name='gpusum:base', sql=_old_names("nsys_cuda_gpu_sum_by_name('base')", 'operation'),
         key=['Operation'], columns=OLD_OPERATION),
    dict(name='apigpusum:base', sql=_old_names("nsys_cuda_api_gpu_sum_by_name('base')", 'operation'),
         key=['Operation'], columns=OLD_OPERATION),
    dict(name='kernexecsum:base', sql="SELECT * FROM nsys_cuda_kern_exec_sum_by_name('base')",
         key=KERN_EXEC_KEY),
]
OLD_THROUGHPUT = {'Migration Throughput (MBps)': 'migration_throughput_mb_s'}
UM_SPECS_2022 = [
    dict(name='unifiedmemory', table='nsys_um_sum', key=['Virtual Address'], columns=OLD_THROUGHPUT),
    dict(name='unifiedmemory:rows=-1', sql=UM_ALL, key=['Virtual Address'], columns=OLD_THROUGHPUT),
    dict(name='unifiedmemorytotals', table='nsys_um_total_sum', key=['Minimum Virtual Address']),
    dict(name='umcpupagefaults', table='nsys_um_cpu_page_faults_sum', key=['CPU Instruction Address']),
]
for spec in UM_SPECS_2022:
    spec['modules'] = UM_MODULES
SPECS = SPECS_2023 + SPECS_2022
for spec in SPECS:
    spec.setdefault('modules', MODULES)

HERE = os.path.dirname(os.path.abspath(__file__))
UM_FIXTURE = 'fixture-modern-uvm'
UM_FIXTURE_GOLDENS = [(os.path.join(HERE, 'sql_golden_2023_fixtures'), UM_SPECS_2023),
                      (os.path.join(HERE, 'sql_golden_fixtures'), UM_SPECS_2022)]

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


def check_um_fixture(fixture, nsysp, tp, pkg, work):
    """The unified-memory tables on the nsys-fixture report of UM_FIXTURE, remade from its
    fixture.meta, against the goldens of both versions. Returns differences."""
    golden_dir = UM_FIXTURE_GOLDENS[0][0]
    with open(os.path.join(golden_dir, UM_FIXTURE, 'fixture.meta')) as f:
        meta = json.load(f)
    os.makedirs(work, exist_ok=True)
    report = os.path.join(work, UM_FIXTURE + '.sqlite')
    if os.path.exists(report):
        os.remove(report)
    subprocess.run([fixture, *meta['args'], report], check=True, capture_output=True)
    with open(report, 'rb') as f:
        if hashlib.sha256(f.read()).hexdigest() != meta['sha256']:
            return [f'{UM_FIXTURE}: nsys-fixture {" ".join(meta["args"])} no longer writes the report '
                    'the goldens were made from: make them again (tests/sql_golden.py generate)']
    diffs = []
    for golden_dir, specs in UM_FIXTURE_GOLDENS:
        specs = [dict(sp, golden_dir=golden_dir) for sp in specs]
        compared, d = sql_golden.check_corpus(specs, nsysp, work, [report], tp, pkg)
        missing = [n for n, count in compared.items() if not count]
        diffs += d + [f'{UM_FIXTURE}: no golden for {n}' for n in missing]
    return diffs


if __name__ == '__main__':
    args = sys.argv[1:]
    fixture = None
    if args[:1] == ['--fixture']:
        fixture, args = args[1], args[2:]
    rc = sql_golden.main_check(SPECS, args)
    if rc in (0, 1):
        bad = check_round(*args)
        if fixture:
            um = check_um_fixture(fixture, *args[:4])
            print(f'{UM_FIXTURE} (unified memory, nsys 2023.4 and 2022.4): '
                  + ('ok' if not um else f'{len(um)} differences'))
            bad += um
        for b in bad:
            print('FAIL ' + b)
        rc = 1 if bad else rc
    sys.exit(rc)
