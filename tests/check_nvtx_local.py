#!/usr/bin/env python3
"""check_nvtx_local.py REPORT.sqlite.gz NSYS_PERFETTO TRACE_DUMP WORKDIR

NVTX on the report made here from shared/corpus/local/nvtx_workload.c,
what issue 4 asks for by name:
  * the NCCL domain's ranges are named ncclAllReduce (a registered string)
    and sit on the worker threads' "NVTX · NCCL" rows;
  * the overlapping prefetch / h2d copy start/end ranges are on separate
    lanes of one process row, with the report's exact timestamps;
  * the handoff range, which ends on another thread, is there and says so;
  * marks are instants; categories forward/backward appear as args;
  * thread names given with nvtxNameOsThread name the threads.
Exit 77 (skipped) when the report is absent.
"""
import collections
import gzip
import os
import shutil
import sqlite3
import subprocess
import sys


def main():
    gz, bin_, dump_bin, work = sys.argv[1:5]
    if not os.path.exists(gz):
        print(f'skip: {gz} absent')
        return 77
    os.makedirs(work, exist_ok=True)
    report = os.path.join(work, 'nvtx_workload.sqlite')
    with gzip.open(gz) as src, open(report, 'wb') as dst:
        shutil.copyfileobj(src, dst)
    trace = os.path.join(work, 'nvtx_workload.perfetto-trace')
    subprocess.run([bin_, '-q', '-o', trace, report], check=True)
    out = subprocess.run([dump_bin, trace], check=True, capture_output=True, text=True).stdout
    slices, instants, threads = [], [], set()
    for line in out.splitlines():
        f = line.split('\t')
        if f[0] == 'S' and f[3] == 'nvtx':
            slices.append(dict(ts=int(f[1]), dur=int(f[2]), name=f[4], path=f[5], args=f[6],
                               track=f[7]))
        elif f[0] == 'I' and f[2] == 'nvtx':
            instants.append(dict(ts=int(f[1]), name=f[3], path=f[4]))
        elif f[0] == 'T' and f[3] == 'thread':
            threads.add(f[4])
    db = sqlite3.connect(f'file:{report}?mode=ro', uri=True)
    problems = []

    nccl = [s for s in slices if s['path'].endswith('NVTX \u00b7 NCCL')]
    if len(nccl) != 90 or {s['name'] for s in nccl} != {'ncclAllReduce'}:
        problems.append(f'NCCL: {len(nccl)} ranges named {sorted({s["name"] for s in nccl})}')

    for name in ('prefetch', 'h2d copy'):
        want = sorted((s, e - s) for s, e in db.execute(
            "SELECT start, \"end\" FROM NVTX_EVENTS WHERE text = ? AND eventType = 60", (name,)))
        got = sorted((s['ts'], s['dur']) for s in slices if s['name'] == name)
        if want != got or len(want) != 15:
            problems.append(f'{name}: timestamps differ: want {want[:2]}, got {got[:2]}')
    by_start = {s['ts']: s for s in slices if s['name'] in ('prefetch', 'h2d copy')}
    for p in (s for s in slices if s['name'] == 'prefetch'):
        h = min((s for s in slices if s['name'] == 'h2d copy' and s['ts'] > p['ts']),
                key=lambda s: s['ts'])
        if h['ts'] < p['ts'] + p['dur'] < h['ts'] + h['dur'] and h['track'] == p['track']:
            problems.append(f'prefetch at {p["ts"]} and h2d copy overlap on one track')
        if not p['path'].endswith('NVTX start/end'):
            problems.append(f'prefetch on {p["path"]!r}, not the process start/end row')
    del by_start

    handoff = [s for s in slices if s['name'] == 'handoff']
    if len(handoff) != 1 or 'end thread=' not in handoff[0]['args']:
        problems.append(f'handoff: {handoff}')

    marks = collections.Counter(i['name'] for i in instants)
    if marks != {'tick': 12, 'checkpoint': 3}:
        problems.append(f'marks as instants: {dict(marks)}')
    if any(s['name'] in ('tick', 'checkpoint') for s in slices):
        problems.append('marks written as slices')

    cats = collections.Counter(a.split('=', 1)[1] for s in slices for a in s['args'].split(';')
                               if a.startswith('category='))
    if cats.get('forward') != 15 or cats.get('backward') != 15:
        problems.append(f'categories: {dict(cats)}')
    if not {'worker-0', 'worker-1', 'worker-2'} <= threads:
        problems.append(f'thread names: {sorted(threads)}')

    if problems:
        print('\n'.join(problems))
        return 1
    print(f'ok: {len(slices)} ranges, {len(instants)} marks')
    return 0


if __name__ == '__main__':
    sys.exit(main())
