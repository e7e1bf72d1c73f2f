#!/usr/bin/env python3
"""check_sql_stats_cpu_2023.py NSYS_PERFETTO TRACE_PROCESSOR_SHELL SQL_PACKAGE_DIR WORKDIR [NSYS_FIXTURE]

The CPU-side `nsys stats` tables of the nsys PerfettoSQL package (module
nsys.stats.cpu, docs/sql.md) against nsys stats 2023.4 (the goldens in
tests/sql_golden_2023, made by `python3 tests/sql_golden.py generate --version
2023.4`), on every corpus report that has one, and, given NSYS_FIXTURE, on a
report nsys-fixture makes (MPI, OpenACC, OpenMP rows, which the corpus lacks;
goldens in tests/sql_golden_2023_fixtures, with the fixture's arguments and the
sha256 of what it wrote in fixture.meta):

  nsys_osrt_sum         = osrt_sum         key: Name
  nsys_openacc_sum      = openacc_sum      key: Name
  nsys_openmp_sum       = openmp_sum       key: Name
  nsys_mpi_event_trace  = mpi_event_trace  count + sha256 of every row

Corpus reports for which 2023.4 printed none of them are left out (the empty
tables are checked against 2022.4 already).

(2022.4's osrtsum, openaccsum, openmpevtsum are compared by
check_sql_stats_nvtx_cpu.py; um_cpu_page_faults_sum is the same report in both
versions, compared there.) Exits 77 without trace_processor_shell, the corpus
or the goldens.
"""
import hashlib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sql_golden as sg  # noqa: E402

CPU = ['nsys.stats.cpu']
SPECS = [
    dict(name='osrt_sum', table='nsys_osrt_sum', key=['Name']),
    dict(name='openacc_sum', table='nsys_openacc_sum', key=['Name']),
    dict(name='openmp_sum', table='nsys_openmp_sum', key=['Name']),
    dict(name='mpi_event_trace', table='nsys_mpi_event_trace'),
]
for spec in SPECS:
    spec.update(modules=CPU, version='2023.4')

FIXTURE_GOLDENS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'sql_golden_2023_fixtures')


def check_fixtures(fixture, nsysp, tp, pkg, work):
    """Each fixture report of FIXTURE_GOLDENS, remade and compared. Returns differences."""
    diffs = []
    for name in sorted(os.listdir(FIXTURE_GOLDENS)):
        meta_path = os.path.join(FIXTURE_GOLDENS, name, 'fixture.meta')
        if not os.path.exists(meta_path):
            continue
        with open(meta_path) as f:
            meta = json.load(f)
        report = os.path.join(work, name + '-2023.sqlite')
        if os.path.exists(report):
            os.remove(report)
        subprocess.run([fixture, *meta['args'], report], check=True, capture_output=True)
        with open(report, 'rb') as f:
            if hashlib.sha256(f.read()).hexdigest() != meta['sha256']:
                diffs.append(f'{name}: nsys-fixture {" ".join(meta["args"])} no longer writes the report '
                             'the goldens were made from: make them again (tests/sql_golden.py)')
                continue
        specs = [dict(sp, golden_dir=FIXTURE_GOLDENS) for sp in SPECS]
        _, d = sg.check_corpus(specs, nsysp, work, [report], tp, pkg)
        diffs += d
    return diffs


def main(argv):
    if len(argv) < 4:
        print(__doc__)
        return 2
    nsysp, tp, pkg, work = argv[:4]
    fixture = argv[4] if len(argv) > 4 else None
    # Reports where 2023.4 printed rows (the empty tables of the others are checked against
    # 2022.4 already): a third of the corpus, a third of the time.
    reports = sorted({s for sp in SPECS for s in sg.reports_with(sp['name'], sg.GOLDEN_DIR_2023)}
                     & set(sg.corpus_reports()))
    rc = sg.main_check(SPECS, [nsysp, tp, pkg, work] + reports) if reports else 77
    if rc == 77 or not fixture:
        return rc
    diffs = check_fixtures(fixture, nsysp, tp, pkg, work)
    for d in diffs:
        print('FAIL ' + d)
    print('fixture reports: ' + ('ok' if not diffs else f'{len(diffs)} differences'))
    return 1 if diffs or rc else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
