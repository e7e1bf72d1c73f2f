#!/usr/bin/env python3
"""check_diff.py NSYS_PERFETTO CORPUS_REPORT.sqlite.gz WORKDIR CASE

`nsys-perfetto diff` on pairs made from one corpus report with known
changes, through SQL on copies (the input is only read): each CASE checks
exact statuses, the verdict and the exit status.

  pairs    identical copies (pass, 0); one kernel 1.3x slower (regression,
           +30%, 8); 0.7x (improvement, 0); removed (removed, 0); added
           (added, 0: a new name alone fails no gate); --gate 35 lets +30%
           pass; one run a side says noise was not judged
  noise    3 runs a side, every GPU operation's duration jittered +-1%:
           nothing past the gate (0); +20% on one kernel in all 3 after
           runs: regression with the noise judged (p = 0.05, 8); +20% in 2
           of 3 after runs (the third 2% faster): the median moved past the
           gate but the ranges overlap, inconclusive (0)
  focus    one kernel 30% slower inside an unchanged NVTX range: --focus
           finds the range unchanged and the kernel inside regressed (8)
  formats  md, csv and the terminal table agree with json; NO_COLOR
           Exits 77 (skipped) when the corpus report is absent.
"""
import csv
import gzip
import io
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys

KERNEL = '_kernel_agent'          # 163 launches inside GROUPBY_AGG ranges
OTHER = 'valid_if_n_kernel'       # 20 launches
FOCUS = 'GROUPBY_AGG'
FOCUS_ROW = 'cudf_python:GROUPBY_AGG'  # the nvtx row: nsys stats' name, domain first
# Jitter goes on the GPU operations: each one's duration +-1%, drawn
# independently. (The ends of CUDA calls and NVTX ranges are not jittered one
# by one: that would move whole calls in or out of ranges, which run-to-run
# noise does not do, and the range-based categories would change by whole
# calls, not by noise.)
DURATION_TABLES = ['CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY',
                   'CUPTI_ACTIVITY_KIND_MEMSET']

problems = []


def check(ok, what):
    if not ok:
        problems.append(what)


def copy(base, path, *sql, jitter=None):
    shutil.copyfile(base, path)
    db = sqlite3.connect(path)
    for s in sql:
        db.execute(s)
    if jitter is not None:
        rnd = random.Random(jitter)
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        for t in DURATION_TABLES:
            if t not in tables:
                continue
            rows = db.execute(f'SELECT rowid, start, "end" FROM {t} WHERE "end" > start').fetchall()
            db.executemany(f'UPDATE {t} SET "end" = ? WHERE rowid = ?',
                           [(s + round((e - s) * (1 + rnd.uniform(-0.01, 0.01))), i)
                            for i, s, e in rows])
    db.commit()
    db.close()
    return path


def scale(name, factor):
    return (f'UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = start + CAST(("end" - start) * {factor}'
            f' AS INTEGER) WHERE shortName = (SELECT id FROM StringIds WHERE value = \'{name}\')')


def add_kernel(db_path, name, new_name):
    db = sqlite3.connect(db_path)
    new_id = db.execute('SELECT max(id) + 1 FROM StringIds').fetchone()[0]
    db.execute('INSERT INTO StringIds(id, value) VALUES (?, ?)', (new_id, new_name))
    cols = [r[1] for r in db.execute('PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)')]
    picked = ', '.join('?' if c == 'shortName' else f'"{c}"' for c in cols)
    db.execute(f'INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL ({", ".join(chr(34) + c + chr(34) for c in cols)})'
               f' SELECT {picked} FROM CUPTI_ACTIVITY_KIND_KERNEL'
               f' WHERE shortName = (SELECT id FROM StringIds WHERE value = ?)', (new_id, name))
    db.commit()
    db.close()


def diff(bin_, *args, env=None):
    p = subprocess.run([bin_, 'diff', *args], capture_output=True, text=True, env=env)
    if p.returncode not in (0, 8):
        problems.append(f'diff {args}: exit {p.returncode}: {p.stderr.strip()}')
    return p


def jdiff(bin_, *args):
    p = diff(bin_, '--format', 'json', *args)
    try:
        return p.returncode, json.loads(p.stdout)
    except ValueError:
        problems.append(f'diff {args}: not JSON: {p.stdout[:200]!r}')
        return p.returncode, {'rows': [], 'verdict': None}


def status(d, name, category='kernel'):
    for r in d['rows']:
        if r['category'] == category and r['name'] == name:
            return r['status']
    return None


def changed(d):
    return {(r['category'], r['name']): r['status'] for r in d['rows'] if r['status'] != 'unchanged'}


def case_pairs(bin_, base, work):
    a = copy(base, f'{work}/a.sqlite')
    same = copy(base, f'{work}/same.sqlite')
    rc, d = jdiff(bin_, a, same)
    check(rc == 0 and d['verdict'] == 'pass', f'identical: exit {rc}, verdict {d["verdict"]}')
    check(not changed(d), f'identical: changes {changed(d)}')
    check(d['noise']['judged'] is False and d['runs'] == {'before': 1, 'after': 1},
          f'identical: noise {d["noise"]}, runs {d["runs"]}')
    text = diff(bin_, a, same)
    check('not judged (one run per side)' in text.stdout and 'PASS' in text.stdout,
          f'one run a side: no word on noise: {text.stdout[:400]}')

    slow = copy(base, f'{work}/slow.sqlite', scale(KERNEL, 1.3))
    rc, d = jdiff(bin_, a, slow)
    row = next(r for r in d['rows'] if r['name'] == KERNEL and r['category'] == 'kernel')
    check(rc == 8 and d['verdict'] == 'fail', f'1.3x slower: exit {rc}, verdict {d["verdict"]}')
    check(row['status'] == 'regression' and 29.9 < row['delta_pct'] < 30.1 and
          row['before']['count'] == row['after']['count'] == 163,
          f'1.3x slower: row {row}')
    check(changed(d).get(('kernel', OTHER)) is None, 'another kernel changed')
    check(d['rows'][0]['status'] == 'regression', 'the largest change is not first')

    fast = copy(base, f'{work}/fast.sqlite', scale(KERNEL, 0.7))
    rc, d = jdiff(bin_, a, fast)
    check(rc == 0 and d['verdict'] == 'pass' and status(d, KERNEL) == 'improvement',
          f'0.7x: exit {rc}, verdict {d["verdict"]}, status {status(d, KERNEL)}')
    check('regression' not in changed(d).values(), f'0.7x: regressions {changed(d)}')

    gone = copy(base, f'{work}/removed.sqlite', 'DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE shortName'
                f" = (SELECT id FROM StringIds WHERE value = '{OTHER}')")
    rc, d = jdiff(bin_, a, gone)
    row = next(r for r in d['rows'] if r['name'] == OTHER and r['category'] == 'kernel')
    check(rc == 0 and status(d, OTHER) == 'removed' and row['after'] is None and
          row['delta_ns'] == -row['before']['total_ns'],
          f'removed: exit {rc}, row {row}')

    added = copy(base, f'{work}/added.sqlite')
    add_kernel(added, OTHER, 'diff_added_kernel')
    rc, d = jdiff(bin_, a, added)
    row = next(r for r in d['rows'] if r['name'] == 'diff_added_kernel')
    check(rc == 0 and d['verdict'] == 'pass' and row['status'] == 'added' and
          row['before'] is None and row['after']['count'] == 20,
          f'added: exit {rc}, row {row}')
    rc, d = jdiff(bin_, '--match', '^diff_added_kernel$', a, added)
    check(rc == 0 and d['verdict'] == 'pass' and
          changed(d) == {('kernel', 'diff_added_kernel'): 'added'},
          f'added, --match: exit {rc}, {changed(d)}')

    rc, d = jdiff(bin_, '--gate', '35', a, slow)
    check(rc == 0 and status(d, KERNEL) == 'unchanged', f'--gate 35: exit {rc}, {status(d, KERNEL)}')


def case_noise(bin_, base, work):
    for side in ('before', 'within', 'beyond', 'partly'):
        os.makedirs(f'{work}/{side}')
    for run in (1, 2, 3):
        copy(base, f'{work}/before/r-run{run}.sqlite', jitter=100 + run)
        copy(base, f'{work}/within/r-run{run}.sqlite', jitter=200 + run)
        copy(base, f'{work}/beyond/r-run{run}.sqlite', scale(KERNEL, 1.2), jitter=300 + run)
        copy(base, f'{work}/partly/r-run{run}.sqlite', scale(KERNEL, 1.2 if run > 1 else 0.98),
             jitter=400 + run)
    rc, d = jdiff(bin_, f'{work}/before', f'{work}/within')
    check(d['runs'] == {'before': 3, 'after': 3} and d['noise']['judged'] is True and
          abs(d['noise']['p_one_sided'] - 0.05) < 1e-9, f'3 v 3: runs {d["runs"]}, {d["noise"]}')
    check(rc == 0 and d['verdict'] == 'pass', f'noise within the gate: exit {rc}')
    check(set(changed(d).values()) <= {'inconclusive'}, f'noise within the gate: {changed(d)}')
    row = next(r for r in d['rows'] if r['name'] == KERNEL and r['category'] == 'kernel')
    check(row['before']['min_total_ns'] <= row['before']['total_ns'] <= row['before']['max_total_ns']
          and row['before']['min_total_ns'] < row['before']['max_total_ns'], f'ranges: {row}')

    rc, d = jdiff(bin_, f'{work}/before', f'{work}/beyond')
    row = next(r for r in d['rows'] if r['name'] == KERNEL and r['category'] == 'kernel')
    check(rc == 8 and d['verdict'] == 'fail' and row['status'] == 'regression' and
          row['after']['min_total_ns'] > row['before']['max_total_ns'] and
          19 < row['delta_pct'] < 21, f'+20% in 3 of 3: exit {rc}, {row}')

    rc, d = jdiff(bin_, f'{work}/before', f'{work}/partly')
    row = next(r for r in d['rows'] if r['name'] == KERNEL and r['category'] == 'kernel')
    check(rc == 0 and d['verdict'] == 'pass' and row['status'] == 'inconclusive' and
          row['delta_pct'] > 5, f'+20% in 2 of 3: exit {rc}, {row}')
    check('regression' not in changed(d).values(), f'+20% in 2 of 3: {changed(d)}')
    text = diff(bin_, f'{work}/before', f'{work}/beyond').stdout
    check('3 v 3 runs' in text and 'p = 0.05' in text, f'noise not stated: {text[:500]}')


def case_focus(bin_, base, work):
    a = copy(base, f'{work}/a.sqlite')
    slow = copy(base, f'{work}/slow.sqlite', scale(KERNEL, 1.3))
    rc, d = jdiff(bin_, '--focus', FOCUS, a, slow)
    f = d.get('focus') or {}
    check(rc == 8 and d['verdict'] == 'fail', f'focus: exit {rc}, verdict {d["verdict"]}')
    check(f.get('status') == 'unchanged' and f['before']['instances'] == f['after']['instances'] == 4
          and f['before']['median_ns'] == f['after']['median_ns'] and
          f['before']['p90_ns'] >= f['before']['median_ns'], f'focus: the range {f}')
    inside = {k['name']: k for k in f.get('kernels', [])}
    k = inside.get(KERNEL)
    check(k is not None and k['status'] == 'regression' and 29.9 < k['delta_pct'] < 30.1,
          f'focus: the kernel inside {k}')
    check(all(v['status'] == 'unchanged' for n, v in inside.items() if n != KERNEL),
          f'focus: other kernels {inside}')
    check(status(d, FOCUS_ROW, 'nvtx') == 'unchanged', 'focus: the nvtx row changed')
    rc, d = jdiff(bin_, '--focus', 'no such range', a, slow)
    check(d['focus']['before']['instances'] == 0 and d['focus']['status'] == 'unchanged',
          f'focus on a missing range: {d["focus"]}')


def case_formats(bin_, base, work):
    a = copy(base, f'{work}/a.sqlite')
    slow = copy(base, f'{work}/slow.sqlite', scale(KERNEL, 1.3))
    rc, d = jdiff(bin_, a, slow)
    p = diff(bin_, '--format', 'csv', a, slow)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    names = [r for r in rows if r['category'] not in ('span', 'gpu-busy')]
    check(p.returncode == 8 and len(names) == len(d['rows']), f'csv: exit {p.returncode}, rows')
    for r, j in zip(names, d['rows']):
        if (r['name'], r['status'], int(r['delta_ns'])) != (j['name'], j['status'], j['delta_ns']):
            check(False, f'csv differs from json: {r} vs {j}')
            break
    check(any(r['category'] == 'gpu-busy' and r['status'] == 'regression' for r in rows),
          'csv: no GPU busy row')
    md = diff(bin_, '--format', 'md', a, slow)
    check(md.returncode == 8 and md.stdout.startswith('### nsys-perfetto diff: FAIL') and
          f'| **regression** | kernel | {KERNEL.replace("_", chr(92) + "_")} |' in md.stdout,
          f'md: {md.stdout[:600]}')
    env = dict(os.environ, NO_COLOR='1')
    t = diff(bin_, a, slow, env=env)
    check('\033[' not in t.stdout and t.returncode == 8, 'table: colour when not on a terminal')
    lines = [l for l in t.stdout.splitlines() if l.startswith('regression')]
    check(len(lines) == d['counts']['regression'] and KERNEL in t.stdout,
          f'table: {len(lines)} regression lines, json counts {d["counts"]}')


def main():
    bin_, report, work, case = sys.argv[1:5]
    if not os.path.exists(report):
        print(f'skipped: {report} absent')
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    base = os.path.join(work, 'base.sqlite')
    with gzip.open(report) as src, open(base, 'wb') as dst:
        shutil.copyfileobj(src, dst)
    {'pairs': case_pairs, 'noise': case_noise, 'focus': case_focus,
     'formats': case_formats}[case](bin_, base, work)
    if problems:
        print('\n'.join(problems))
        return 1
    print(f'ok: {case}')
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
