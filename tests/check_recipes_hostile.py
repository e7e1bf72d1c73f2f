#!/usr/bin/env python3
"""check_recipes_hostile.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR

Every recipe on damaged reports: an nsys-fixture report (kernels, CUDA calls,
copies, NVTX with NCCL's domain, MPI, UCX) whose event tables are rebuilt
without types or constraints and given, at random places (fixed seeds), the
values a broken or hostile export may hold: NULL, text, blobs, reals, the
int64 extremes, times ages away; some tables reversed or emptied. Each report
alone and all as one job, the maps also with --cumulative and a window.

Each run must end by itself within its time limit, with exit 0 (an answer, or
no data) or a one-line error naming the problem (exit 3, 4 or 5), and never a
sanitizer report: in the sanitizer builds this is where undefined behaviour
on hostile times shows (the recipes wrap on int64 overflow, as numpy does)."""
import os
import random
import shutil
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from testlib import expect, finish  # noqa: E402

TABLES = ["CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
          "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS", "MPI_P2P_EVENTS", "MPI_COLLECTIVES_EVENTS",
          "MPI_START_WAIT_EVENTS", "MPI_OTHER_EVENTS", "UCP_SUBMIT_EVENTS", "UCP_PROGRESS_EVENTS",
          "UCP_EVENTS", "ANALYSIS_DETAILS", "TARGET_INFO_SESSION_START_TIME"]
VALUES = [None, -1, 0, 2**63 - 1, -2**63, 4 * 10**18, "x", "12abc", 1.5e300, float("-inf"),
          b"\x00\xff"]
REPORTS = 16


def untyped(con, table):
    """table rebuilt without column types or constraints, so that any value stays as given."""
    cols = [r[1] for r in con.execute(f'PRAGMA table_info("{table}")')]
    if cols:
        con.execute(f'CREATE TABLE "_{table}" ({", ".join(chr(34) + c + chr(34) for c in cols)})')
        con.execute(f'INSERT INTO "_{table}" SELECT * FROM "{table}"')
        con.execute(f'DROP TABLE "{table}"')
        con.execute(f'ALTER TABLE "_{table}" RENAME TO "{table}"')
    return cols


def damaged(base, path, seed):
    rnd = random.Random(seed)
    shutil.copyfile(base, path)
    con = sqlite3.connect(path)
    for table in TABLES:
        cols = untyped(con, table)
        n = con.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] if cols else 0
        for _ in range(rnd.choice([0, 1, 3, 20]) if n else 0):
            con.execute(f'UPDATE "{table}" SET "{rnd.choice(cols)}" = ? WHERE rowid = ?',
                        (rnd.choice(VALUES), rnd.randint(1, n)))
        if cols and rnd.random() < 0.1:
            con.execute(f'CREATE TABLE "r_{table}" AS SELECT * FROM "{table}" ORDER BY rowid DESC')
            con.execute(f'DROP TABLE "{table}"')
            con.execute(f'ALTER TABLE "r_{table}" RENAME TO "{table}"')
        if cols and rnd.random() < 0.05:
            con.execute(f'DELETE FROM "{table}"')
    con.commit()
    con.close()


def run(tool, work, recipe, options, reports, what):
    out = os.path.join(work, 'out')
    shutil.rmtree(out, ignore_errors=True)
    try:
        p = subprocess.run([tool, 'recipe', recipe, *options, '--output', out, *reports],
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        expect(False, f'{recipe} {" ".join(options)} on {what}: still running after 60 s')
        return
    err = p.stderr.strip()
    sanitizer = 'runtime error' in err or 'Sanitizer' in err
    expect(not sanitizer and p.returncode in (0, 3, 4, 5) and
           (p.returncode == 0 or len(err.splitlines()) == 1),
           f'{recipe} {" ".join(options)} on {what}: exit {p.returncode}: {err[-300:]}')


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    tool, fixture, work = sys.argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    base = os.path.join(work, 'base.sqlite')
    subprocess.run([fixture, '-s', '3', '-n', '2000', '--mpi', '--ucx', '--nvtx', base],
                   check=True, capture_output=True)
    reports = []
    for seed in range(REPORTS):
        reports.append(os.path.join(work, f'damaged{seed}.sqlite'))
        damaged(base, reports[-1], seed)
    recipes = subprocess.run([tool, 'recipe', '--list'], capture_output=True, text=True,
                             check=True).stdout.split('\n')
    for recipe in (line.split()[0] for line in recipes if line.split()):
        if recipe == 'diff':
            continue
        options = ['--name', 'x'] if recipe.endswith('pace') else []
        for r in reports:
            run(tool, work, recipe, options, [r], os.path.basename(r))
        windows = ([], ['--cumulative'], ['--start', '1000000', '--end', '9000000']) \
            if recipe.endswith('_map') else ([],)
        for extra in windows:
            run(tool, work, recipe, options + extra, reports, f'the {REPORTS} reports as one job')
    finish('recipes on damaged reports', f'every recipe on {REPORTS} damaged reports: answers or one-line errors')


if __name__ == '__main__':
    main()
