#!/usr/bin/env python3
"""check_directories.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR

A directory as input: `nsys-perfetto DIR` writes one trace beside each
report; `summary DIR` gives one column group per report in natural order
(bs2, bs8, bs16); `summary --series DIR -o 'bs$p'` writes series.csv (long
form, equal to each report's own summary), series.md and a well-formed
series.svg; a name that does not fit the pattern is an error.
"""
import csv
import io
import os
import shutil
import subprocess
import sys
import xml.dom.minidom


def run(*cmd, ok=True):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if ok and p.returncode != 0:
        sys.exit(f'{cmd} failed ({p.returncode}): {p.stderr}')
    return p


def main():
    bin_, gen, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    d = os.path.join(work, 'sweep')
    os.makedirs(d)
    values = ['16', '2', '8']
    for i, v in enumerate(values):
        run(gen, '--seed', str(i + 1), '--events', str(500 * int(v)), '--nvtx',
            os.path.join(d, f'bs{v}.sqlite'))
    problems = []

    run(bin_, '-q', d)
    for v in values:
        if not os.path.getsize(os.path.join(d, f'bs{v}.perfetto-trace')):
            problems.append(f'no trace for bs{v}')

    head = next(csv.reader(io.StringIO(run(bin_, 'summary', '--csv', d).stdout)))
    order = [h.split(' ')[0] for h in head[2::5]]
    if order != ['bs2.sqlite', 'bs8.sqlite', 'bs16.sqlite']:
        problems.append(f'summary DIR: columns in order {order}')

    run(bin_, 'summary', '--series', d, '-o', 'bs$p')
    with open(os.path.join(d, 'series.csv')) as f:
        rows = list(csv.DictReader(f))
    if list(rows[0]) != 'category,name,value,run,count,total_ns,mean_ns,min_ns,max_ns'.split(','):
        problems.append(f'series.csv header {list(rows[0])}')
    for v in values:
        own = list(csv.reader(io.StringIO(run(bin_, 'summary', '--csv',
                                              os.path.join(d, f'bs{v}.sqlite')).stdout)))[1:]
        want = {(r[0], r[1]): (r[2], r[3]) for r in own}
        got = {(r['category'], r['name']): (r['count'], r['total_ns'])
               for r in rows if r['value'] == v and r['run'] == '1'}
        if got != want:
            problems.append(f'series.csv for bs{v} differs from its summary')
    md = open(os.path.join(d, 'series.md')).read()
    if '| category | name | 2 (1 run) | 8 (1 run) | 16 (1 run) |' not in md:
        problems.append('series.md: no table with the values in natural order')
    svg = xml.dom.minidom.parse(os.path.join(d, 'series.svg'))
    texts = ' '.join(t.firstChild.data for t in svg.getElementsByTagName('text') if t.firstChild)
    for want in ('total time (', 'bs', 'kernel: '):
        if want not in texts:
            problems.append(f'series.svg: no "{want}" in its text')
    if len(svg.getElementsByTagName('polyline')) == 0:
        problems.append('series.svg: no lines')

    bad = run(bin_, 'summary', '--series', d, '-o', 'run$p', ok=False)
    if bad.returncode != 2 or 'does not fit' not in bad.stderr:
        problems.append(f'a name off the pattern: exit {bad.returncode}, {bad.stderr!r}')
    empty = os.path.join(work, 'empty')
    os.makedirs(empty)
    bad = run(bin_, empty, ok=False)
    if bad.returncode != 3 or 'no reports' not in bad.stderr:
        problems.append(f'an empty directory: exit {bad.returncode}, {bad.stderr!r}')

    if problems:
        print('\n'.join(problems))
        return 1
    print(f'ok: {len(values)} reports, {len(rows)} series rows')
    return 0


if __name__ == '__main__':
    sys.exit(main())
