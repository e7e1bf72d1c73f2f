#!/usr/bin/env python3
"""check_stored_order.py NSYS_PERFETTO NSYS_FIXTURE TRACE_DUMP WORKDIR [PFTRACE_CHECK]

Tables are read as stored when they are in time order (nsys_cursor.h), and
call chains by a forward merge when asked for in id order
(nsys_callchains.h), so three copies of one generated report must give the
same events with the same callstacks:

- as generated (every table stored in time order);
- with the CUDA API and OS runtime tables stored backwards, which the
  converter finds out of order and converts again with SQLite sorting them
  (OS runtime chains are then asked for backwards), and the sampling call
  chains stored backwards (both read through their indexed copies);
- with correlation ids falling as time goes on, so that every lookup of a
  call's GPU work goes back in key order (nsys_keywalk.h);
- with rows sharing a start stored in the wrong tie order (a child call
  before its parent; more rows at one start than the cursor holds).

The parent and child at one start must nest on one track in every copy.
"""
import collections
import os
import shutil
import sqlite3
import subprocess
import sys

from check_report import check_accounting


def convert(bin_, report, check):
    trace = report + '.perfetto-trace'
    stats = report + '.stats'
    with open(stats, 'w') as out:
        subprocess.run([bin_, '-q', '--stats', '-o', trace, report], check=True, stderr=out)
    problems = []
    if check:
        r = subprocess.run([sys.executable, check, trace], capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f'pftrace-check failed on {trace}: {r.stdout[-1500:]}{r.stderr[-500:]}')
    db = sqlite3.connect(report)
    check_accounting(db, stats, problems)
    return trace, problems


def slices(dump_bin, trace):
    """Slices as (ts, dur, category, name, track path) and each slice's track."""
    out = subprocess.run([dump_bin, trace], check=True, capture_output=True, text=True,
                         errors='replace').stdout
    found, tracks = collections.Counter(), {}
    for line in out.splitlines():
        f = line.split('\t')
        if f[0] == 'F':  # flow id ends; the ids themselves may differ
            found['flow ends'] += 1
        if f[0] == 'P':  # time, cpu, pid, tid, mode, callstack
            found[tuple(f)] += 1
        if f[0] == 'S':  # with the callstack
            key = (int(f[1]), int(f[2]), f[3], f[4], f[5], f[8] if len(f) > 8 else '')
            found[key] += 1
            tracks[(int(f[1]), int(f[2]), f[3])] = f[7]
    return found, tracks


def rewrite(db, table, order):
    """Stores table's rows again in the given order (new rowids)."""
    db.execute(f'CREATE TABLE reordered AS SELECT * FROM "{table}" ORDER BY {order}')
    db.execute(f'DROP TABLE "{table}"')
    db.execute(f'ALTER TABLE reordered RENAME TO "{table}"')


def main():
    bin_, gen, dump_bin, work = sys.argv[1:5]
    check = sys.argv[5] if len(sys.argv) > 5 and os.path.exists(sys.argv[5]) else None
    os.makedirs(work, exist_ok=True)
    base = os.path.join(work, 'stored.sqlite')
    subprocess.run([gen, '--seed', '5', '--events', '20000', '--osrt', '--sched', '2',
                    '--samples', '2000', base], check=True)

    # A parent call and a child call at one start, the child stored first,
    # after everything else on a thread that makes OS runtime calls.
    db = sqlite3.connect(base)
    tid, last = db.execute('SELECT globalTid, (SELECT max("end") FROM OSRT_API)'
                           ' FROM OSRT_API LIMIT 1').fetchone()
    at = last + 1000
    for end in (at + 10, at + 100):  # child first
        db.execute('INSERT INTO OSRT_API SELECT ?, ?, eventClass, globalTid, nameId, returnValue,'
                   ' nestingLevel, callchainId FROM OSRT_API WHERE globalTid = ? LIMIT 1',
                   (at, end, tid))
    db.commit()
    db.close()

    backwards = os.path.join(work, 'stored-backwards.sqlite')
    shutil.copy(base, backwards)
    db = sqlite3.connect(backwards)
    rewrite(db, 'CUPTI_ACTIVITY_KIND_RUNTIME', 'start DESC')
    rewrite(db, 'OSRT_API', 'start DESC, "end" ASC')  # chains asked for backwards
    rewrite(db, 'SAMPLING_CALLCHAINS', 'id DESC')       # chains not stored by id
    db.commit()
    db.close()

    # All kernels at one start: more ties than the cursor holds.
    crowded = os.path.join(work, 'stored-crowded.sqlite')
    shutil.copy(base, crowded)
    db = sqlite3.connect(crowded)
    n_kernels = db.execute('SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL').fetchone()[0]
    if n_kernels <= 4096:
        sys.exit(f'only {n_kernels} kernels: too few to crowd the cursor')
    db.execute('UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 5000, "end" = 5000 + rowid')
    db.commit()
    db.close()

    # Correlation ids that fall as time goes on: every lookup by (process,
    # correlation id) goes back and seeks (nsys_keywalk.h); flows are the same.
    falling = os.path.join(work, 'stored-falling-correlation.sqlite')
    shutil.copy(base, falling)
    db = sqlite3.connect(falling)
    top = 1 + max(db.execute(f'SELECT max(correlationId) FROM {t}').fetchone()[0] or 0
                  for t in ('CUPTI_ACTIVITY_KIND_RUNTIME', 'CUPTI_ACTIVITY_KIND_KERNEL',
                            'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET',
                            'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION'))
    for t in ('CUPTI_ACTIVITY_KIND_RUNTIME', 'CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY',
              'CUPTI_ACTIVITY_KIND_MEMSET', 'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION'):
        db.execute(f'UPDATE {t} SET correlationId = {top} - correlationId')
    db.commit()
    db.close()

    problems = []
    want = None
    for report in (base, backwards, falling, crowded):
        trace, found = convert(bin_, report, check)
        problems += found
        got, tracks = slices(dump_bin, trace)
        parent = tracks.get((at, 100, 'osrt'))
        child = tracks.get((at, 10, 'osrt'))
        if parent is None or parent != child:
            problems.append(f'{os.path.basename(report)}: parent and child at {at} not nested on'
                            f' one track ({parent} vs {child})')
        if report == crowded:
            kernels = sum(n for k, n in got.items()
                          if isinstance(k, tuple) and k[2] == 'kernel' and k[0] == 5000)
            if kernels != n_kernels:
                problems.append(f'crowded: {kernels} kernels at 5000, expected {n_kernels}')
            continue
        if want is None:
            want = got
        elif got != want:
            missing, extra = want - got, got - want
            problems.append(f'{os.path.basename(report)}: slices differ from the stored-in-order'
                            f' copy: missing {list(missing)[:3]}, extra {list(extra)[:3]}')
    if sum(want.values()) < 10000:
        problems.append(f'only {sum(want.values())} slices: the fixture changed?')
    samples = sum(n for k, n in want.items() if k[0] == 'P')
    stacks = sum(n for k, n in want.items() if isinstance(k, tuple) and k[0] != 'P' and k[5])
    if want['flow ends'] < 1000:
        problems.append(f'only {want["flow ends"]} flow ends: too few to test links')
    if samples < 100 or stacks < 100:
        problems.append(f'{samples} samples, {stacks} slices with callstacks: too few to test chains')
    for p in problems:
        print('FAIL', p)
    if problems:
        sys.exit(1)
    print(f'stored order: {sum(want.values())} slices, samples and flow ends equal in all copies'
          f' ({samples} samples, {stacks} slices with callstacks, {want["flow ends"]} flow ends)')


if __name__ == '__main__':
    main()
