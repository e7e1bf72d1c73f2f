#!/usr/bin/python3
"""The recipes and the SQL package give one report the same rows.

`nsys-perfetto recipe NAME` on one report writes that report's rows; the
package's nsys.recipes.* modules give the same rows for its trace, so that
the CLI, the team page and SQL share one definition:
  nsys.recipes.stats     rank_stats.csv of the statistics recipes
  nsys.recipes.describe  rank_stats.csv of nvtx_sum, nccl_sum and mpi_sum
  nsys.recipes.pace      the pace_*.csv columns of cuda_gpu_kern_pace and
                         nvtx_pace, for the report's most frequent name
  nsys.recipes.maps      analysis.csv of cuda_gpu_time_util_map (--bins,
                         --cumulative)
Compared value by value, in the same order, on corpus reports with kernels,
memory operations, CUDA and OS runtime calls, NVTX and NCCL ranges, and on an
nsys-fixture report with MPI calls (NSYS_FIXTURE, optional). Numbers are
equal as numbers (SQL floats read at 17 digits), except the describe
recipes' deviation (NVIDIA's is a running (Welford) one, ours two-pass) and
the statistics recipes' columns (as their own test of nsys.stats does), equal
to 1e-9 relative. Exits 77 without trace_processor_shell or the corpus.

  check_recipes_sql.py NSYS_PERFETTO TRACE_PROCESSOR PACKAGE WORKDIR [NSYS_FIXTURE]"""
import csv
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sql_golden as sg  # noqa: E402
from testlib import expect, finish  # noqa: E402

REPORTS = [
    'GindaChen__nsys-ai__tests__fixtures__mfu_2gpu_after',
    'NVIDIA__Fuser__report2',
    'openhackathons-org__gpubootcamp__hpc__multi_gpu_nways__labs__CFD__English__C__source_code__mpi__reports__report2.qdrep',
    'nvtx_workload',
    'quasiben__nvtx-examples__cudf.qdrep',
    'NVIDIA__Fuser__report2__bab69540',
    'Yu-gyoung-Yun__alpa__report1.nsys-rep',
]
# statistics recipe -> (table, its columns in rank_stats.csv's order less File)
TABLES = {
    'cuda_api_sum': ('nsys_recipe_cuda_api_sum', ['name', 'time_pct', 'total_time_ns', 'num_calls',
                     'avg_ns', 'q1_ns', 'med_ns', 'q3_ns', 'min_ns', 'max_ns', 'stddev_ns']),
    'cuda_gpu_kern_sum': ('nsys_recipe_cuda_gpu_kern_sum', ['name', 'time_pct', 'total_time_ns',
                          'instances', 'avg_ns', 'q1_ns', 'med_ns', 'q3_ns', 'min_ns', 'max_ns',
                          'stddev_ns']),
    'cuda_gpu_mem_time_sum': ('nsys_recipe_cuda_gpu_mem_time_sum', ['operation', 'time_pct',
                              'total_time_ns', 'count', 'avg_ns', 'q1_ns', 'med_ns', 'q3_ns',
                              'min_ns', 'max_ns', 'stddev_ns']),
    'cuda_gpu_mem_size_sum': ('nsys_recipe_cuda_gpu_mem_size_sum', ['operation', 'total_bytes',
                              'count', 'avg_bytes', 'q1_bytes', 'med_bytes', 'q3_bytes',
                              'min_bytes', 'max_bytes', 'stddev_bytes']),
    'osrt_sum': ('nsys_recipe_osrt_sum', ['name', 'time_pct', 'total_time_ns', 'num_calls', 'avg_ns',
                 'q1_ns', 'med_ns', 'q3_ns', 'min_ns', 'max_ns', 'stddev_ns']),
}
DESCRIBE_COLUMNS = ['text', 'count', 'mean', 'std', 'min', 'q1', 'median', 'q3', 'max', 'sum']
DESCRIBE = {'nvtx_sum': 'nsys_recipe_nvtx_sum', 'nccl_sum': 'nsys_recipe_nccl_sum',
            'mpi_sum': 'nsys_recipe_mpi_sum'}
# An nsys-fixture report with MPI calls (mpi_sum), which the corpus lacks.
FIXTURE_ARGS = ['--all-tables', '--osrt', '-n', '20000', '-s', '7']
PACE_FILES = ['pace_start.csv', 'pace_end.csv', 'pace_duration.csv', 'pace_delta.csv',
              'pace_duration_accum.csv', 'pace_delta_accum.csv']
PACE_COLUMNS = ['iteration', 'start_ns', 'end_ns', 'duration_ns', 'delta_ns', 'duration_accum_ns',
                'delta_accum_ns']
# (bins, cumulative) of the map
MAPS = [(30, False), (7, True), (101, False)]
MODULES = ['nsys.recipes.stats', 'nsys.recipes.describe', 'nsys.recipes.pace', 'nsys.recipes.maps']


def full(column):
    """A SQL column, floats at 17 digits (trace_processor prints 6 decimals)."""
    return f"iif(typeof({column}) = 'real', printf('%!.17g', {column}), {column}) AS {column}"


def most_frequent(db, sql):
    """The first column of the first row of sql on the report, or None."""
    con = sqlite3.connect(f'file:{db}?mode=ro', uri=True)
    try:
        row = con.execute(sql).fetchone()
    except sqlite3.Error:
        row = None
    con.close()
    return row[0] if row else None


def checks(db):
    """(recipe, its options, SQL query, how to read the CLI's rows, tolerant columns) of
    every module on the report db."""
    out = [(n, [], f'SELECT {", ".join(full(c) for c in TABLES[n][1])} FROM {TABLES[n][0]}',
            rank_rows(1), range(len(TABLES[n][1]))) for n in TABLES]
    out += [(n, [], f'SELECT {", ".join(full(c) for c in DESCRIBE_COLUMNS)} FROM {DESCRIBE[n]}',
             rank_rows(2), (3,)) for n in DESCRIBE]
    kernel = most_frequent(db, 'SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s'
                               ' ON s.id = k.shortName GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1')
    nvtx = most_frequent(db, 'SELECT coalesce(s.value, e.text) AS t FROM NVTX_EVENTS e LEFT JOIN'
                             ' StringIds s ON s.id = e.textId WHERE e."end" IS NOT NULL AND t IS NOT'
                             ' NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1')
    for recipe, name in (('cuda_gpu_kern_pace', kernel), ('nvtx_pace', nvtx)):
        if name is not None:
            quoted = name.replace("'", "''")
            out.append((recipe, ['--name', name], f'SELECT {", ".join(PACE_COLUMNS)} FROM '
                        f"nsys_recipe_{recipe}('{quoted}')", pace_rows, ()))
    for bins, cumulative in MAPS:
        out.append(('cuda_gpu_time_util_map', ['--bins', str(bins)] + (['--cumulative'] * cumulative),
                    f'SELECT duration, {full("kernel")}, pid, device_id FROM '
                    f'nsys_recipe_cuda_gpu_time_util_map({bins}, {int(cumulative)})',
                    analysis_rows, ()))
    return out


def read_csv(path):
    with open(path, newline='') as f:
        return list(csv.reader(f))[1:]


def rank_rows(trailing):
    """rank_stats.csv's rows less its last `trailing` columns (File; Rank, File)."""
    return lambda out: [row[:-trailing] for row in read_csv(os.path.join(out, 'rank_stats.csv'))]


def pace_rows(out):
    """The report's column of every pace_*.csv, an instance a row."""
    columns = [[row[0] for row in read_csv(os.path.join(out, f))] for f in PACE_FILES]
    return [[str(k), *cells] for k, cells in enumerate(zip(*columns))]


def analysis_rows(out):
    return [row[:-1] for row in read_csv(os.path.join(out, 'analysis.csv'))]  # less File


def same(a, b, tolerance=1e-9):
    """A CSV cell and a trace_processor value: equal as numbers (within tolerance,
    relative) or as text."""
    if b is None:
        return a == ''
    try:
        x, y = float(a), float(b)
    except ValueError:
        return not isinstance(b, (int, float)) and a == b
    return x == y or abs(x - y) <= tolerance * max(1.0, abs(x))


def main(argv):
    nsysp, tp, package, work = argv[:4]
    if not os.path.exists(tp) or not sg.corpus_reports():
        print('skip: needs trace_processor_shell and the corpus (../shared)')
        return 77
    os.makedirs(work, exist_ok=True)
    checked = {}
    reports = [stem for stem in REPORTS if stem in sg.corpus_reports()]
    if len(argv) > 4:
        fixture = os.path.join(work, 'fixture-mpi.sqlite')
        subprocess.run(['rm', '-f', fixture])
        subprocess.run([argv[4], *FIXTURE_ARGS, fixture], check=True, capture_output=True)
        reports.append(fixture)
    for stem in reports:
        trace = sg.converted_trace(stem, nsysp, work, keep_sqlite=True)
        db = sg.unpacked(stem, work)
        todo = checks(db)
        results = sg.tp_queries(trace, [sql for _, _, sql, _, _ in todo], MODULES, package, tp)
        for k, ((name, options, sql, cli_rows, tolerant), rows) in enumerate(zip(todo, results)):
            what = f'{sg.stem_of(stem)} {name} {" ".join(options)}'
            out = os.path.join(work, f'{sg.stem_of(stem)}-{k}')
            subprocess.run(['rm', '-rf', out])
            r = subprocess.run([nsysp, 'recipe', name, *options, '--output', out, db],
                               capture_output=True)
            if r.returncode == 0 and not os.path.isdir(out):  # no data: the SQL table is empty too
                expect(rows == [], f'{what}: no data for the recipe, {len(rows)} rows in SQL')
                continue
            if not expect(r.returncode == 0, f'{what}: exit {r.returncode} {r.stderr[-300:]}'):
                continue
            cli = cli_rows(out)
            sql_rows = [list(row.values()) for row in rows]
            expect(len(cli) == len(sql_rows), f'{what}: {len(cli)} rows by the CLI, {len(sql_rows)} in SQL')
            bad = [(a, b) for a, b in zip(cli, sql_rows)
                   if len(a) != len(b) or not all(same(x, y, 1e-9 if c in tolerant else 0.0)
                                                  for c, (x, y) in enumerate(zip(a, b)))]
            expect(not bad, f'{what}: {len(bad)} rows differ, e.g. CLI {bad[:1]}')
            checked[name] = checked.get(name, 0) + 1
    print('tables compared:', ', '.join(f'{n} {c}' for n, c in sorted(checked.items())))
    for name, least in [('cuda_api_sum', 3), ('cuda_gpu_kern_sum', 3), ('nvtx_sum', 4), ('nccl_sum', 2), ('mpi_sum', 1),
                        ('cuda_gpu_kern_pace', 3), ('nvtx_pace', 4), ('cuda_gpu_time_util_map', 9)]:
        expect(checked.get(name, 0) >= least, f'{name}: {least} reports with data compared')
    finish()


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
