#!/usr/bin/env python3
"""check_merge.py NSYS_PERFETTO TRACE_DUMP WORKDIR PFTRACE_CHECK REPORT_A.sqlite.gz REPORT_B.sqlite.gz

Two real reports from different hosts merged into one trace: every kernel
and CUDA API call of both is there once, on GPU groups and process groups
named with its report's host, pids kept apart, times aligned on each
report's UTC session start (and with --align start, on each one's start at
zero), pftrace-check clean. Exit 77 when the reports are absent.
"""
import collections
import gzip
import os
import shutil
import subprocess
import sys

from check_report import connect, expected, tables


def unpack(gz, work):
    out = os.path.join(work, os.path.basename(gz)[:-3])
    if not os.path.exists(out):
        with gzip.open(gz) as src, open(out + '.part', 'wb') as dst:
            shutil.copyfileobj(src, dst)
        os.rename(out + '.part', out)
    return out


def facts(path):
    db = connect(path)
    t = tables(db)
    meta = 'META_DATA_EXPORT' if 'META_DATA_EXPORT' in t else 'EXPORT_META_DATA'
    host = dict(db.execute(f'SELECT name, value FROM {meta}'))['EXPORT_HOST']
    utc = db.execute('SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME').fetchone()[0]
    start = db.execute('SELECT startTime FROM ANALYSIS_DETAILS').fetchone()[0]
    starts = []
    kernels = [(st, d, n) for st, d, n, _ in expected(db, starts)[0]]
    api = db.execute('SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME').fetchone()[0]
    return dict(host=host, utc=utc, start=start, kernels=kernels, first=min(starts), api=api)


def main():
    bin_, dump_bin, work, check, gz_a, gz_b = sys.argv[1:7]
    if not (os.path.exists(gz_a) and os.path.exists(gz_b)):
        print('skip: reports absent')
        return 77
    os.makedirs(work, exist_ok=True)
    reports = [unpack(gz_a, work), unpack(gz_b, work)]
    f = [facts(r) for r in reports]
    problems = []
    for mode, align in (('utc', [x['utc'] - min(y['utc'] for y in f) for x in f]),
                        ('start', [-x['start'] for x in f])):
        shift = max([0] + [-(x['first'] + a) for x, a in zip(f, align)])
        trace = os.path.join(work, f'merged-{mode}.perfetto-trace')
        subprocess.run([bin_, '-q', '--align', mode, '-o', trace] + reports, check=True)
        c = subprocess.run([sys.executable, check, trace], capture_output=True, text=True)
        if c.returncode:
            problems.append(f'{mode}: pftrace-check: {c.stdout[-600:]}')
        out = subprocess.run([dump_bin, trace], check=True, capture_output=True, text=True).stdout
        got = collections.Counter()
        api = collections.Counter()
        pids = collections.defaultdict(set)
        for line in out.splitlines():
            x = line.split('\t')
            if x[0] == 'S' and x[3] == 'kernel':
                host = x[5].split(' / ')[0].rsplit(' \u00b7 ', 1)[-1]
                got[(int(x[1]), int(x[2]), x[4], host)] += 1
            if x[0] == 'S' and x[3].startswith('cuda_'):
                api[x[5].split(' / ')[0].rsplit(' \u00b7 ', 1)[-1]] += 1
            if x[0] == 'T' and x[3] == 'process':
                pids[x[4].rsplit(' \u00b7 ', 1)[-1]].add(x[1])
        want = collections.Counter((st + a + shift, d, n, x['host'])
                                   for x, a in zip(f, align) for st, d, n in x['kernels'])
        if got != want:
            problems.append(f'{mode}: kernels differ: missing {list((want - got).items())[:2]}, '
                            f'extra {list((got - want).items())[:2]}')
        for x in f:
            if api[x['host']] != x['api']:
                problems.append(f'{mode}: {api[x["host"]]} API calls under host {x["host"]}, '
                                f'expected {x["api"]}')
            if not pids[x['host']]:
                problems.append(f'{mode}: no process group labelled {x["host"]}')
    if problems:
        print('\n'.join(problems))
        return 1
    print(f'ok: merged {f[0]["host"]} and {f[1]["host"]}, aligned by UTC and by start')
    return 0


if __name__ == '__main__':
    sys.exit(main())
