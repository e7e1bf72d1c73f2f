#!/usr/bin/env python3
"""check_tables.py NSYS_PERFETTO NSYS_FIXTURE TRACE_DUMP WORKDIR [PFTRACE_CHECK]

The tables beyond CUDA and NVTX, on generated reports holding all of them
(modern and 2022 schemas): each lands where docs/timeline.md says, with exact
values against SQL (check_beyond_cuda.py says where), every row converted
and none skipped.
GPU metrics are checked by check_report.py (in the e2e tests of these reports).
"""
import os
import re
import subprocess
import sys

from check_accounting_helper import accounting
from check_beyond_cuda import beyond_cuda_problems
from check_report import connect, expected, tables


def main():
    bin_, gen, dump_bin, work = sys.argv[1:5]
    check = sys.argv[5] if len(sys.argv) > 5 and os.path.exists(sys.argv[5]) else None
    os.makedirs(work, exist_ok=True)
    problems = []
    for schema in ('modern', '2022'):
        report = os.path.join(work, f'all-{schema}.sqlite')
        subprocess.run([gen, '--seed', '8', '--events', '20000', '--schema', schema,
                        '--all-tables', report], check=True)
        trace = os.path.join(work, f'all-{schema}.perfetto-trace')
        r = subprocess.run([bin_, '-q', '--stats', '-o', trace, report], capture_output=True,
                           text=True, check=True)
        db = connect(report)
        t = tables(db)
        s = dict(db.execute('SELECT id, value FROM StringIds'))
        problems += [f'{schema}: {p}' for p in accounting(db, r.stderr)]
        if re.search(r'skipped \(', r.stderr):
            problems.append(f'{schema}: rows skipped: {r.stderr}')
        starts = []
        expected(db, starts)
        shift = max(0, -min(starts))
        out = subprocess.run([dump_bin, trace], check=True, capture_output=True, text=True,
                             errors='replace').stdout
        found, n_rows, n_memory = beyond_cuda_problems(db, t, s, shift, out)
        problems += [f'{schema}: {p}' for p in found]
        if n_rows < 1000 or n_memory < 10:
            problems.append(f'{schema}: only {n_rows} rows and {n_memory} memory values to check')
        if check:
            c = subprocess.run([sys.executable, check, trace], capture_output=True, text=True)
            if c.returncode:
                problems.append(f'{schema}: pftrace-check: {c.stdout[-800:]}')
        print(f'{schema}: {n_rows} rows checked, {n_memory} memory values')
    if problems:
        print('\n'.join(problems))
        return 1
    print('ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
