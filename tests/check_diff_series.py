#!/usr/bin/env python3
"""check_diff_series.py NSYS_PERFETTO NSYS_FIXTURE TRACE_DUMP WORKDIR

`nsys-perfetto diff` on generated reports (no corpus needed):
- two series directories (values bs2 and bs8, two runs each, as `series
  --runs 2` names them) where bs8's gemm_kernel is 1.5x slower after: bs2
  passes, bs8 fails, compared value by value (json, csv), exit 8; a value
  on one side only is said and skipped;
- --trace: before and after in one trace, processes and GPUs labelled
  "· before" and "· after";
- the command line: usage errors (2), a missing input (3), a file that is
  not SQLite (4), a series against a report (2).
"""
import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys

problems = []


def check(ok, what):
    if not ok:
        problems.append(what)


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def slower(path, name, factor):
    db = sqlite3.connect(path)
    db.execute(f'UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = start + CAST(("end" - start) * {factor}'
               ' AS INTEGER) WHERE shortName = (SELECT id FROM StringIds WHERE value = ?)', (name,))
    db.commit()
    db.close()


def main():
    bin_, gen, dump, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    before, after = os.path.join(work, 'before'), os.path.join(work, 'after')
    os.makedirs(before)
    os.makedirs(after)
    for seed, value in ((1, 'bs2'), (2, 'bs8')):
        base = os.path.join(work, f'{value}.sqlite')
        p = run(gen, '--seed', str(seed), '--events', '2000', '--nvtx', base)
        if p.returncode != 0:
            sys.exit(f'nsys-fixture failed: {p.stderr}')
        for r in (1, 2):
            shutil.copyfile(base, os.path.join(before, f'{value}-run{r}.sqlite'))
            shutil.copyfile(base, os.path.join(after, f'{value}-run{r}.sqlite'))
            if value == 'bs8':
                slower(os.path.join(after, f'{value}-run{r}.sqlite'), 'gemm_kernel', 1.5)
    shutil.copyfile(os.path.join(work, 'bs2.sqlite'), os.path.join(after, 'bs32-run1.sqlite'))

    p = run(bin_, 'diff', '--format', 'json', before, after)
    check(p.returncode == 8, f'series: exit {p.returncode}: {p.stderr}')
    check('value bs32 only in' in p.stderr, f'series: the value on one side not said: {p.stderr}')
    try:
        d = json.loads(p.stdout)
    except ValueError:
        d = {'series': []}
        problems.append(f'series: not JSON: {p.stdout[:300]!r}')
    got = [(v['value'], v['verdict'], v['runs']['before'], v['runs']['after']) for v in d['series']]
    check(got == [('bs2', 'pass', 2, 2), ('bs8', 'fail', 2, 2)] and d.get('verdict') == 'fail',
          f'series: values {got}, verdict {d.get("verdict")}')
    if len(d['series']) == 2:
        bs8 = {(r['category'], r['name']): r for r in d['series'][1]['rows']}
        k = bs8.get(('kernel', 'gemm_kernel'))
        check(k is not None and k['status'] == 'regression' and 49.9 < k['delta_pct'] < 50.1,
              f'series bs8: gemm_kernel {k}')
        check(d['series'][1]['noise']['judged'] and
              abs(d['series'][1]['noise']['p_one_sided'] - 1 / 6) < 1e-6,
              f'series: 2 v 2 noise {d["series"][1]["noise"]}')
        check(all(r['status'] == 'unchanged' for r in d['series'][0]['rows']),
              'series bs2: a change in identical runs')
    p = run(bin_, 'diff', '--format', 'csv', before, after)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    check(p.returncode == 8 and rows and list(rows[0])[:3] == ['value', 'category', 'name'] and
          {r['value'] for r in rows} == {'bs2', 'bs8'} and
          any(r['value'] == 'bs8' and r['name'] == 'gemm_kernel' and r['status'] == 'regression'
              for r in rows), f'series csv: exit {p.returncode}, {p.stdout[:300]}')
    p = run(bin_, 'diff', before, after)
    check('== bs2 ==' in p.stdout and '== bs8 ==' in p.stdout, 'series table: no value headings')

    # One value's runs: a directory of runs of one configuration.
    one_b, one_a = os.path.join(work, 'one_b'), os.path.join(work, 'one_a')
    os.makedirs(one_b)
    os.makedirs(one_a)
    for r in (1, 2, 3):
        shutil.copyfile(os.path.join(before, 'bs8-run1.sqlite'), os.path.join(one_b, f'x{r}.sqlite'))
        shutil.copyfile(os.path.join(after, 'bs8-run1.sqlite'), os.path.join(one_a, f'y{r}.sqlite'))
    p = run(bin_, 'diff', '--format', 'json', one_b, one_a)
    d = json.loads(p.stdout) if p.returncode in (0, 8) else {}
    check(p.returncode == 8 and d.get('runs') == {'before': 3, 'after': 3},
          f'run directories: exit {p.returncode}, runs {d.get("runs")}')

    # Both timelines in one trace.
    trace = os.path.join(work, 'both.perfetto-trace')
    a, b = os.path.join(before, 'bs8-run1.sqlite'), os.path.join(after, 'bs8-run1.sqlite')
    p = run(bin_, 'diff', '--trace', trace, a, b)
    check(p.returncode == 8 and os.path.exists(trace), f'--trace: exit {p.returncode}: {p.stderr}')
    if os.path.exists(trace):
        tree = [l.split('\t') for l in run(dump, trace).stdout.splitlines() if l.startswith('R\t')]
        procs = [t[-1] for t in tree if t[3] == 'process']
        gpus = [t[-1] for t in tree if t[-1].startswith('GPU ')]
        for label in ('before', 'after'):
            check(any(n.endswith(f' · {label}') for n in procs), f'--trace: no process of {label}: {procs}')
            check(any(n.endswith(f' · {label}') for n in gpus), f'--trace: no GPU of {label}: {gpus}')
        check(not any('bs8' in n for n in procs + gpus), f'--trace: file names as labels: {procs}')

    # The command line.
    notsql = os.path.join(work, 'not.sqlite')
    with open(notsql, 'w') as f:
        f.write('not a database\n' * 100)
    for args, want, says in [((a,), 2, 'expected BEFORE and AFTER'),
                             (('--gate', 'x', a, b), 2, '--gate'),
                             (('--format', 'xml', a, b), 2, '--format'),
                             (('--match', '(a)\\1', a, b), 2, '--match'),
                             ((a, os.path.join(work, 'missing.sqlite')), 3, 'missing.sqlite'),
                             ((a, notsql), 4, 'not.sqlite'),
                             ((before, b), 2, 'series'),
                             (('--trace', trace, before, after), 2, '--trace')]:
        p = run(bin_, 'diff', *args)
        check(p.returncode == want and says in p.stderr,
              f'diff {args}: exit {p.returncode} (want {want}), {p.stderr.strip()!r}')
    p = run(bin_, 'diff', '--help')
    check(p.returncode == 0 and '8 a regression past the gate' in p.stdout, 'diff --help')

    if problems:
        print('\n'.join(problems))
        return 1
    print('ok: series value by value, run directories, --trace labels, command line')
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
