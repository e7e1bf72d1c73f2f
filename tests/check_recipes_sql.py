#!/usr/bin/python3
"""The statistics recipes and the SQL package give one report the same rows.

`nsys-perfetto recipe NAME` writes a report's rows into rank_stats.csv; the
package's nsys.recipes.stats module gives the same rows for that report's
trace (nsys_recipe_cuda_api_sum, ...), so that the CLI, the team page and
SQL share one definition. Compared value by value (numbers as numbers, in
the same order) on corpus reports with kernels, memory operations, CUDA and
OS runtime calls. Exits 77 without trace_processor_shell or the corpus.

  check_recipes_sql.py NSYS_PERFETTO TRACE_PROCESSOR PACKAGE WORKDIR"""
import csv
import os
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
]
# recipe -> (table, its columns in rank_stats.csv's order less File)
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


def same(a, b):
    """A CSV cell and a trace_processor value: equal as numbers or as text."""
    if b is None:
        return a == ''
    if isinstance(b, (int, float)):
        try:
            x = float(a)
        except ValueError:
            return False
        return x == float(b) or abs(x - float(b)) <= 1e-9 * max(1.0, abs(x))
    return a == b


def main(argv):
    nsysp, tp, package, work = argv[:4]
    if not os.path.exists(tp) or not sg.corpus_reports():
        print('skip: needs trace_processor_shell and the corpus (../shared)')
        return 77
    os.makedirs(work, exist_ok=True)
    checked = 0
    for stem in REPORTS:
        if stem not in sg.corpus_reports():
            continue
        trace = sg.converted_trace(stem, nsysp, work, keep_sqlite=True)
        db = sg.unpacked(stem, work)
        names = list(TABLES)
        results = sg.tp_queries(trace, [f'SELECT {", ".join(TABLES[n][1])} FROM {TABLES[n][0]}'
                                        for n in names], ['nsys.recipes.stats'], package, tp)
        for name, rows in zip(names, results):
            out = os.path.join(work, f'{stem}-{name}')
            subprocess.run(['rm', '-rf', out])
            r = subprocess.run([nsysp, 'recipe', name, '--output', out, db], capture_output=True)
            if r.returncode == 0 and not os.path.isdir(out):  # no data: the SQL table is empty too
                expect(rows == [], f'{stem} {name}: no data for the recipe, {len(rows)} rows in SQL')
                continue
            if not expect(r.returncode == 0, f'{stem} {name}: exit {r.returncode} {r.stderr[-300:]}'):
                continue
            with open(os.path.join(out, 'rank_stats.csv'), newline='') as f:
                cli = [row[:-1] for row in list(csv.reader(f))[1:]]  # less File
            cols = TABLES[name][1]
            sql = [[row[c] for c in cols] for row in rows]
            expect(len(cli) == len(sql), f'{stem} {name}: {len(cli)} rows by the CLI, {len(sql)} in SQL')
            bad = [(a, b) for a, b in zip(cli, sql) if not all(same(x, y) for x, y in zip(a, b))]
            expect(not bad, f'{stem} {name}: rows differ, e.g. CLI {bad[:1]}')
            checked += 1
    print(f'{checked} tables compared')
    expect(checked >= 8, 'enough tables with data were compared')
    finish()


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
