#!/usr/bin/env python3
"""check_recipes_describe.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR

The describe recipes (nvtx_sum, mpi_sum, nccl_sum) on generated reports,
against a model of NVIDIA's Python written here from its pandas semantics
(the goldens compare real reports with nsys 2023.4; this checks what they
cannot show):
  * every CSV equals the model's to the byte: rows in row order for the
    running deviation, linear quartiles, Welford, files sorted by name;
  * durations print as integers when no start or end of the tables read is
    missing, as floats when one is (pandas' dtypes), promoted per column
    across the job;
  * --start/--end keep events that start by the end and end from the start,
    both included (the Python's filter, not nsys stats');
  * NCCL ranges are those of the domain the "NCCL" creation names;
  * a report with nothing to describe is left out (Rank counts the others);
    with none anywhere: exit 0 (as nsys), one line, no output directory; a file that
    is no export: exit 4, one line naming it.
"""
import csv
import io
import math
import os
import shutil
import sqlite3
import subprocess
import sys

import testlib
from testlib import expect

QUANTILES = (0.25, 0.5, 0.75)


def fmt(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ''
    return repr(v) if isinstance(v, float) else str(v)


def csv_text(header, rows):
    out = io.StringIO()
    w = csv.writer(out, lineterminator='\n')
    w.writerow(header)
    for r in rows:
        w.writerow([fmt(v) for v in r])
    return out.getvalue()


def load(path, recipe, start, end):
    """(rows of (name, duration) in the Python's row order, real, present)."""
    db = sqlite3.connect(f'file:{path}?mode=ro', uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    strings = dict(db.execute('SELECT id, value FROM StringIds'))
    if recipe == 'mpi_sum':
        names = [t for t in ('MPI_P2P_EVENTS', 'MPI_START_WAIT_EVENTS', 'MPI_OTHER_EVENTS',
                             'MPI_COLLECTIVES_EVENTS') if t in tables]
        events = [(None, s, e, strings.get(t)) for n in names for s, e, t in
                  db.execute(f'SELECT start, "end", textId FROM {n} ORDER BY rowid')]
    else:
        if 'NVTX_EVENTS' not in tables:
            return [], False
        names = ['NVTX_EVENTS']
        # (eventType, start, end, name: registered string or text, domainId, text)
        events = [(t, s, e, strings.get(i, text) if i is not None else text, dom, text)
                  for t, s, e, text, i, dom in
                  db.execute('SELECT eventType, start, "end", text, textId, domainId'
                             ' FROM NVTX_EVENTS ORDER BY rowid')]
        if recipe == 'nccl_sum':
            domain = next((ev[4] for ev in events if ev[0] == 75 and ev[5] == 'NCCL'), None)
            events = [ev for ev in events if ev[4] == domain and ev[0] in (59, 60)]
    real = any(s is None or e is None for n in names
               for s, e in db.execute(f'SELECT start, "end" FROM {n}'))
    kept = [(ev[3], ev[2] - ev[1]) for ev in events
            if ev[1] is not None and ev[2] is not None
            and (end is None or ev[1] <= end) and (start is None or ev[2] >= start)
            and ev[2] - ev[1] > 0 and ev[3] is not None]
    return kept, real


def describe(rows, real):
    """pandas' describe() per name, names sorted."""
    by_name = {}
    for name, d in rows:
        by_name.setdefault(name, []).append(d)
    out = []
    for name in sorted(by_name):
        values = by_name[name]
        n, mean, m2 = 0, 0.0, 0.0
        for v in values:  # group_var: Welford in row order
            n += 1
            old = mean
            mean += (v - old) / n
            m2 += (v - mean) * (v - old)
        ordered = sorted(values)
        quartiles = []
        for q in QUANTILES:
            pos = q * (n - 1)
            at, frac = int(pos), pos % 1
            lo = float(ordered[at])
            quartiles.append(lo if frac == 0 else lo + (float(ordered[at + 1]) - lo) * frac)
        typed = float if real else int
        out.append([name, n, sum(values) / n, math.sqrt(m2 / (n - 1)) if n > 1 else None,
                    typed(min(values)), *quartiles, typed(max(values)), typed(sum(values))])
    return out


def np_round1(x):
    """numpy's round(x, 1): x * 10 rounded half to even, over 10."""
    if x is None or math.isnan(x):
        return x
    y = x * 10.0
    r = round(y)
    return r / 10.0


def model(recipe, reports, start=None, end=None):
    """{file: text} as the recipe writes them, or None with no data."""
    infos = []
    for path in reports:
        rows, real = load(path, recipe, start, end)
        label = os.path.splitext(os.path.basename(path))[0]
        if rows:
            infos.append((label, describe(rows, real)))
    if not infos:
        return None
    infos.sort(key=lambda x: x[0])
    rank = [r + [i, label] for i, (label, stats) in enumerate(infos) for r in stats]
    for c in (4, 8, 9):  # pd.concat: float when any report's is
        if any(isinstance(r[c], float) for r in rank):
            for r in rank:
                r[c] = float(r[c])
    all_rows = []
    for name in sorted({r[0] for r in rank}):
        rs = [r for r in rank if r[0] == name]
        count, total = sum(r[1] for r in rs), sum(r[9] for r in rs)
        stds = [r[3] for r in rs if r[3] is not None]
        s, comp = 0.0, 0.0
        for v in stds:  # group_mean: Kahan
            y = v - comp
            t = s + y
            comp = (t - s) - y
            s = t
        meds = sorted(r[6] for r in rs)
        k = len(meds)
        med = meds[k // 2] if k % 2 else (meds[k // 2 - 1] + meds[k // 2]) / 2.0
        rnd = lambda v: np_round1(v) if isinstance(v, float) else v
        all_rows.append([name, count, np_round1(total / count),
                         np_round1(s / len(stds)) if stds else None,
                         rnd(min(r[4] for r in rs)), np_round1(min(r[5] for r in rs)),
                         np_round1(med), np_round1(max(r[7] for r in rs)),
                         rnd(max(r[8] for r in rs)), rnd(total)])
    return {
        'all_stats.csv': csv_text(['Text', 'Count', 'Mean', 'Std (approx)', 'Min', 'Q1 (approx)',
                                   'Median (approx)', 'Q3 (approx)', 'Max', 'Sum'], all_rows),
        'files.csv': csv_text(['File'], [[label] for label, _ in infos]),
        'rank_stats.csv': csv_text(['Text', 'Count', 'Mean', 'Std', 'Min', 'Q1', 'Median', 'Q3',
                                    'Max', 'Sum', 'Rank', 'File'], rank),
    }


def run(bin_, recipe, reports, out, *opts):
    shutil.rmtree(out, ignore_errors=True)
    return subprocess.run([bin_, 'recipe', recipe, '--output', out, *opts, *reports],
                          capture_output=True, text=True)


def rows_of(got):
    """rank_stats.csv's rows, header left out."""
    return list(csv.reader(io.StringIO(got.get('rank_stats.csv') or '')))[1:] or [[''] * 12]


def check(bin_, work, what, recipe, reports, start=None, end=None):
    """Runs the recipe and compares every file with the model's; returns them."""
    opts = ([] if start is None else ['--start', str(start)]) + \
           ([] if end is None else ['--end', str(end)])
    out = os.path.join(work, 'out')
    p = run(bin_, recipe, reports, out, *opts)
    want = model(recipe, reports, start, end)
    if not expect(p.returncode == 0 and want is not None,
                  f'{what}: exit {p.returncode} ({p.stderr.strip()}), model has data: {want is not None}'):
        return {}
    got = {}
    for name, text in want.items():
        path = os.path.join(out, name)
        got[name] = open(path).read() if os.path.exists(path) else None
        if not expect(got[name] == text, f'{what}: {name} differs from the model'):
            for a, b in zip((got[name] or '').splitlines(), text.splitlines()):
                if a != b:
                    print(f'  got  {a}\n  want {b}')
                    break
    return got


def main():
    bin_, fixture, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    a, b, c = (os.path.join(work, f'{n}.sqlite') for n in ('rank_b', 'rank_a', 'rank_c'))
    subprocess.run([fixture, '--nvtx', '--mpi', '-n', '6000', '-s', '1', a], check=True)
    subprocess.run([fixture, '--nvtx', '--mpi', '-n', '3000', '-s', '2', '--processes', '3', b],
                   check=True)
    subprocess.run([fixture, '--nvtx', '-n', '2000', '-s', '3', '--schema', '2022', c], check=True)
    job = [a, b, c]

    # Integers where no start or end is missing: rank_d is rank_c without
    # its marks (and unfinished ranges).
    d = os.path.join(work, 'rank_d.sqlite')
    shutil.copy(c, d)
    db = sqlite3.connect(d)
    db.execute('DELETE FROM NVTX_EVENTS WHERE start IS NULL OR "end" IS NULL')
    db.commit()
    db.close()
    # Nothing to describe: every range of rank_e lasts 0 ns.
    e = os.path.join(work, 'rank_e.sqlite')
    shutil.copy(c, e)
    db = sqlite3.connect(e)
    db.execute('UPDATE NVTX_EVENTS SET "end" = start WHERE "end" IS NOT NULL')
    db.commit()
    db.close()

    for recipe in ('nvtx_sum', 'nccl_sum', 'mpi_sum'):
        check(bin_, work, recipe, recipe, job)
    got = check(bin_, work, 'nvtx_sum, integer durations', 'nvtx_sum', [d])
    expect(rows_of(got)[0][4].isdigit(),
           'a report without missing times prints its minimum as an integer')
    got = check(bin_, work, 'nvtx_sum, promoted', 'nvtx_sum', [d, c])
    expect(rows_of(got)[0][4].endswith('.0'),
           'beside a report with missing times, durations are floats')

    # The window's bounds are included: a range that ends exactly at --start
    # and one that starts exactly at --end are kept.
    db = sqlite3.connect(a)
    (s0, e0), = db.execute('SELECT start, "end" FROM MPI_OTHER_EVENTS'
                           ' WHERE "end" > start ORDER BY rowid LIMIT 1')
    db.close()
    got = check(bin_, work, 'mpi_sum, --start at an end', 'mpi_sum', [a], start=e0, end=e0)
    expect(any(r[11] == 'rank_b' for r in rows_of(got)),
           'a call ending exactly at --start is kept')
    check(bin_, work, 'mpi_sum, --end at a start', 'mpi_sum', [a], start=0, end=s0)
    check(bin_, work, 'nvtx_sum, window', 'nvtx_sum', job, start=s0, end=s0 + 2_000_000_000)

    # A report with nothing to describe is left out; Rank counts the others.
    got = check(bin_, work, 'nvtx_sum with an empty report', 'nvtx_sum', [e, c])
    expect(got.get('files.csv') == 'File\nrank_c\n', 'the report without ranges is left out')

    # No data anywhere: exit 0 as nsys, one line naming the recipe, no directory.
    for recipe, reports in (('mpi_sum', [c]), ('nvtx_sum', [e])):
        out = os.path.join(work, 'none')
        p = run(bin_, recipe, reports, out)
        expect(p.returncode == 0 and len(p.stderr.splitlines()) == 1 and recipe in p.stderr
               and not os.path.exists(out),
               f'{recipe} without data: exit {p.returncode}, stderr {p.stderr!r}')
    # A file that is no export stops the job: one line naming it, no output.
    bad = os.path.join(work, 'rank_0.sqlite')
    with open(bad, 'w') as f:
        f.write('not a report\n')
    out = os.path.join(work, 'bad')
    p = run(bin_, 'nvtx_sum', [bad, c], out)
    expect(p.returncode == 4 and len(p.stderr.splitlines()) == 1 and bad in p.stderr
           and not os.path.exists(out), f'a bad report: exit {p.returncode}, stderr {p.stderr!r}')
    testlib.finish(ok_text='describe recipes: ok')


if __name__ == '__main__':
    main()
