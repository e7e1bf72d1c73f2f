#!/usr/bin/env python3
"""check_filters.py NSYS_PERFETTO NSYS_FIXTURE TRACE_DUMP WORKDIR [PFTRACE_CHECK]

--gpu, --pid, --time-range and --sources on a generated two-GPU,
two-process report: each keeps exactly the events it should (compared with
SQL), counts the rest as filtered, and leaves no dangling flow
(pftrace-check clean, warnings included).
"""
import collections
import os
import sqlite3
import subprocess
import sys

from check_accounting_helper import accounting  # noqa: E402  (same directory)


def main():
    bin_, gen, dump_bin, work = sys.argv[1:5]
    check = sys.argv[5] if len(sys.argv) > 5 and os.path.exists(sys.argv[5]) else None
    os.makedirs(work, exist_ok=True)
    report = os.path.join(work, 'filters.sqlite')
    subprocess.run([gen, '--seed', '21', '--events', '6000', '--gpus', '2', '--processes', '2',
                    '--osrt', '--sched', '4', '--samples', '500', report], check=True)
    db = sqlite3.connect(f'file:{report}?mode=ro', uri=True)
    pids = sorted({p >> 24 & 0xFFFFFF for (p,) in db.execute(
        'SELECT DISTINCT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL')})
    problems = []

    def convert(tag, *options):
        trace = os.path.join(work, f'{tag}.perfetto-trace')
        r = subprocess.run([bin_, '-q', '--stats', *options, '-o', trace, report],
                           capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f'{tag}: exit {r.returncode}: {r.stderr}')
            return []
        problems.extend(f'{tag}: {p}' for p in accounting(db, r.stderr))
        if check:
            c = subprocess.run([sys.executable, check, '--strict', trace], capture_output=True,
                               text=True)
            if c.returncode != 0:
                problems.append(f'{tag}: pftrace-check: {c.stdout[-800:]}')
        out = subprocess.run([dump_bin, trace], check=True, capture_output=True, text=True).stdout
        return [line.split('\t') for line in out.splitlines() if line[:2] in ('S\t', 'I\t', 'P\t')]

    # --gpu 1: kernels of device 1 only, all of them.
    rows = convert('gpu', '--gpu', '1')
    got = collections.Counter(f[5].split(' / ')[0].split(' ')[1] for f in rows
                              if f[0] == 'S' and f[3] == 'kernel')
    want = db.execute('SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = 1').fetchone()[0]
    if dict(got) != {'1': want}:
        problems.append(f'--gpu 1 kept kernels by device {dict(got)}, expected {{1: {want}}}')

    # --pid: only that process's rows (GPU rows name their process).
    pid = pids[0]
    rows = convert('pid', '--pid', str(pid))
    api = sum(1 for f in rows if f[0] == 'S' and f[3].startswith('cuda_'))
    want = db.execute('SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE (globalTid >> 24)'
                      ' & 16777215 = ?', (pid,)).fetchone()[0]
    if api != want:
        problems.append(f'--pid {pid}: {api} API calls, expected {want}')
    others = [f for f in rows if f[0] == 'P' and int(f[3]) != pid]
    if others:
        problems.append(f'--pid {pid}: samples of other processes kept: {others[:2]}')

    # --time-range: events starting in [1ms, 3ms] of the report.
    t0 = db.execute('SELECT startTime FROM ANALYSIS_DETAILS').fetchone()[0]
    rows = convert('time', '--time-range', '1ms:3ms')
    starts = [int(f[1]) for f in rows if f[0] in ('S', 'I', 'P')]
    if not starts or min(starts) < t0 + 1000000 or max(starts) > t0 + 3000000:
        problems.append(f'--time-range kept starts {min(starts, default=None)}..{max(starts, default=None)}')
    want = db.execute('SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start BETWEEN ? AND ?',
                      (t0 + 1000000, t0 + 3000000)).fetchone()[0]
    got = sum(1 for f in rows if f[0] == 'S' and f[3] == 'kernel')
    if got != want:
        problems.append(f'--time-range: {got} kernels, expected {want}')

    # --sources: only kernels.
    rows = convert('sources', '--sources', 'kernel')
    cats = {f[3] for f in rows if f[0] == 'S'} | {'perf' for f in rows if f[0] == 'P'}
    if cats != {'kernel'}:
        problems.append(f'--sources kernel wrote categories {sorted(cats)}')

    if problems:
        print('\n'.join(problems))
        return 1
    print('ok: --gpu, --pid, --time-range and --sources keep what they should')
    return 0


if __name__ == '__main__':
    sys.exit(main())
