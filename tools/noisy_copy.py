#!/usr/bin/env python3
"""noisy_copy.py SRC.sqlite DST.sqlite --seed N [--op-sigma 0.05] [--run-sigma 0.01]
                 [--slow KERNEL=FACTOR]

A copy of an Nsight Systems SQLite export as another run of the same
program would record it: every kernel, memcpy, memset, CUDA API call and
NVTX range takes exp(N(0, op_sigma)) times its duration, drawn for each
operation on its own, times one run-wide factor exp(N(0, run_sigma)) (what
clocks and contention do to a whole run). Only "end" changes, so starts and
the order of work stay as recorded. --slow multiplies one kernel's
durations (by its short name) on top: a real change to detect.

The noise model of docs/diff.md; Python 3's standard library only.
"""
import argparse
import math
import random
import shutil
import sqlite3

TABLES = ['CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY',
          'CUPTI_ACTIVITY_KIND_MEMSET', 'CUPTI_ACTIVITY_KIND_RUNTIME', 'NVTX_EVENTS']


def largest_kernel(path):
    """The short name of the kernel with the most GPU time."""
    db = sqlite3.connect(f'file:{path}?mode=ro', uri=True)
    row = db.execute('SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s'
                     ' ON s.id = k.shortName GROUP BY s.value'
                     ' ORDER BY sum(k."end" - k.start) DESC LIMIT 1').fetchone()
    db.close()
    return row[0] if row else None


def noisy_copy(src, dst, seed, op_sigma=0.05, run_sigma=0.01, slow=None):
    """Writes dst; slow is (kernel short name, factor) or None."""
    shutil.copyfile(src, dst)
    rnd = random.Random(seed)
    run = math.exp(rnd.gauss(0, run_sigma))
    db = sqlite3.connect(dst)
    db.execute('PRAGMA journal_mode = OFF')  # a scratch copy: no need to survive a crash
    db.execute('PRAGMA synchronous = OFF')
    # Called once per row in rowid order: the same seed gives the same copy.
    db.create_function('noise', 0, lambda: run * math.exp(rnd.gauss(0, op_sigma)))
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for t in TABLES:
        if t in tables:
            db.execute(f'UPDATE {t} SET "end" = start + CAST(round(("end" - start) * noise())'
                       ' AS INTEGER) WHERE "end" > start')
    if slow:
        name, factor = slow
        db.execute('UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = start + CAST(round(("end" -'
                   ' start) * ?) AS INTEGER) WHERE shortName IN (SELECT id FROM StringIds'
                   ' WHERE value = ?)', (factor, name))
    db.commit()
    db.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('src')
    ap.add_argument('dst')
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--op-sigma', type=float, default=0.05)
    ap.add_argument('--run-sigma', type=float, default=0.01)
    ap.add_argument('--slow', metavar='KERNEL=FACTOR',
                    help='KERNEL may be "largest": the kernel with the most GPU time')
    a = ap.parse_args()
    slow = None
    if a.slow:
        name, _, factor = a.slow.rpartition('=')
        slow = (largest_kernel(a.src) if name == 'largest' else name, float(factor))
    noisy_copy(a.src, a.dst, a.seed, a.op_sigma, a.run_sigma, slow)


if __name__ == '__main__':
    main()
