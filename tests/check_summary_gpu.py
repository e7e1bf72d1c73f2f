#!/usr/bin/env python3
"""check_summary_gpu.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR

The summary's GPU times (api-gpu, nvtx-gpu, nvtx-gpu-ops), library and NVTX
CPU times on a report whose answer is worked out by hand: a generated report's
CUDA, cuBLAS, cuDNN and NVTX tables replaced, by SQL, with a few rows:
cuBLAS and cuDNN calls that make several launches, nested NVTX ranges, a
named domain, a range ending on another thread, a range never ended (it ends
at the last NVTX timestamp, as in nsys stats' nvtx_sum), a call ending after
its range, and two processes with equal correlation ids. When nsys is
installed, its nvtxgpuproj and nvtxsum reports must agree on the same file.
"""
import csv
import io
import os
import shutil
import sqlite3
import subprocess
import sys

PA, PB = 100 << 24, 200 << 24          # globalPid of processes A and B
TA, TA2, TB = PA + 101, PA + 102, PB + 201

STRINGS = {1: 'cudaLaunchKernel_v7000', 2: 'cudaMemcpyAsync_v3020', 3: 'cublasSgemm_v2',
           4: 'cudnnConvolutionForward', 5: 'kA', 6: 'kB', 7: 'outer', 8: 'inner'}

# CUDA calls: (start, end, tid, corr, nameId) and their GPU work:
# (table, start, end, gpid, corr, device).
CALLS = [(220, 240, TA, 1, 1), (250, 270, TA, 2, 1), (280, 300, TA, 3, 2),
         (600, 620, TA, 4, 1), (990, 1010, TA, 5, 1), (150, 160, TB, 1, 1),
         (1510, 1520, TA, 6, 1)]
WORK = [('KERNEL', 300, 350, PA, 1, 0), ('KERNEL', 360, 460, PA, 2, 1),
        ('MEMCPY', 470, 490, PA, 3, 0),
        ('KERNEL', 700, 720, PA, 4, 0), ('KERNEL', 730, 760, PA, 4, 0),  # two ops, one call
        ('KERNEL', 1100, 1200, PA, 5, 0),
        ('KERNEL', 2000, 2100, PB, 1, 0)]                                 # corr 1 again, in B
# Library calls: (table, start, end, tid, nameId).
LIBRARY = [('CUBLAS_EVENTS', 210, 400, TA, 3),    # c1, c2, c3: 50 + 100 + 20
           ('CUBLAS_EVENTS', 1500, 1600, TA, 3),  # c7 launches nothing
           ('CUDNN_EVENTS', 580, 800, TA, 4)]     # c4: 20 + 30
# NVTX: (start, end, eventType, tid, endTid, text, textId, domainId).
NVTX = [(50, None, 75, TB, None, 'NCCL', None, 1),     # domain created in B
        (100, 1000, 59, TA, None, None, 7, None),      # outer: c1-c4 (c5 ends after it)
        (200, 500, 59, TA, None, None, 8, None),       # inner: c1-c3
        (590, 650, 59, TA, None, None, 8, None),       # inner again: c4
        (100, 1000, 60, TA, TA2, 'moved', None, None),  # ends on another thread: left out
        (100, 1000, 59, TB, None, None, 7, 1),         # NCCL:outer: B's c1 only
        (800, None, 60, TA, None, 'open', None, None)]  # never ended: to 1000

EXPECTED = {
    # count (calls with GPU work), total, min, max
    ('api-gpu', 'cudaLaunchKernel'): (5, 50 + 100 + 50 + 100 + 100, 50, 100),
    ('api-gpu', 'cudaMemcpyAsync'): (1, 20, 20, 20),
    ('api-gpu', 'cublasSgemm_v2'): (1, 170, 170, 170),
    ('api-gpu', 'cudnnConvolutionForward'): (1, 50, 50, 50),
    # first op's start to last op's end, whatever the device
    ('nvtx-gpu', 'outer'): (1, 760 - 300, 460, 460),
    ('nvtx-gpu', 'inner'): (2, (490 - 300) + (760 - 700), 60, 190),
    ('nvtx-gpu', 'NCCL:outer'): (1, 100, 100, 100),
    ('nvtx-gpu-ops', 'outer'): (1, 220, 220, 220),
    ('nvtx-gpu-ops', 'inner'): (2, 170 + 50, 50, 170),
    ('nvtx-gpu-ops', 'NCCL:outer'): (1, 100, 100, 100),
    ('library', 'cublasSgemm_v2'): (2, 190 + 100, 100, 190),
    ('library', 'cudnnConvolutionForward'): (1, 220, 220, 220),
    # CPU time, named as nsys stats' nvtx_sum names ranges
    ('nvtx', 'outer'): (1, 900, 900, 900),
    ('nvtx', 'inner'): (2, 300 + 60, 60, 300),
    ('nvtx', 'moved'): (1, 900, 900, 900),
    ('nvtx', 'NCCL:outer'): (1, 900, 900, 900),
    ('nvtx', 'open'): (1, 1000 - 800, 200, 200),
}


def insert(db, table, **values):
    """A row with values, and 0 in every other NOT NULL column."""
    cols = db.execute(f'PRAGMA table_info({table})').fetchall()
    row = {c[1]: 0 for c in cols if c[3] and c[4] is None and not c[5]}
    row.update(values)
    names = ', '.join(f'"{k}"' for k in row)
    db.execute(f'INSERT INTO {table} ({names}) VALUES ({", ".join("?" * len(row))})',
               list(row.values()))


def build(gen, path):
    subprocess.run([gen, '--seed', '3', '--events', '200', '--all-tables', '--nvtx', path],
                   check=True)
    db = sqlite3.connect(path)
    for t in ['StringIds', 'CUPTI_ACTIVITY_KIND_RUNTIME', 'CUPTI_ACTIVITY_KIND_KERNEL',
              'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET',
              'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION', 'CUBLAS_EVENTS', 'CUDNN_EVENTS',
              'NVTX_EVENTS']:
        db.execute(f'DELETE FROM {t}')
    db.executemany('INSERT INTO StringIds VALUES (?, ?)', STRINGS.items())
    for start, end, tid, corr, name in CALLS:
        insert(db, 'CUPTI_ACTIVITY_KIND_RUNTIME', start=start, end=end, globalTid=tid,
               correlationId=corr, nameId=name)
    for table, start, end, gpid, corr, dev in WORK:
        extra = dict(shortName=5 + dev, demangledName=5 + dev) if table == 'KERNEL' else \
            dict(copyKind=1, bytes=64)
        insert(db, f'CUPTI_ACTIVITY_KIND_{table}', start=start, end=end, globalPid=gpid,
               correlationId=corr, deviceId=dev, **extra)
    for table, start, end, tid, name in LIBRARY:
        insert(db, table, start=start, end=end, globalTid=tid, nameId=name)
    for start, end, kind, tid, end_tid, text, text_id, domain in NVTX:
        insert(db, 'NVTX_EVENTS', start=start, end=end, eventType=kind, globalTid=tid,
               endGlobalTid=end_tid, text=text, textId=text_id, domainId=domain)
    db.commit()
    db.close()


def summary(bin_, path, *args):
    out = subprocess.run([bin_, 'summary', '--csv', *args, path], check=True,
                         capture_output=True, text=True).stdout
    return {(r[0], r[1]): (int(r[2]), int(r[3]), int(r[5]), int(r[6]))
            for r in list(csv.reader(io.StringIO(out)))[1:]}


def nsys_stats(path, workdir, report):
    """nsys stats' rows of report on a copy of path, or None without nsys."""
    nsys = os.environ.get('NSYS') or shutil.which('nsys')
    if not nsys:
        return None
    copy = os.path.join(workdir, 'copy.sqlite')
    shutil.copyfile(path, copy)
    out = subprocess.run([nsys, 'stats', '--report', report, '--format', 'csv',
                          '--output', '-', copy], check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO('\n'.join(
        l for l in out.splitlines() if not l.startswith('Processing [')))))


def nvtxgpuproj(path, workdir):
    """nsys stats' projection per name (count, total, min, max), or None."""
    rows = nsys_stats(path, workdir, 'nvtxgpuproj')
    if rows is None:
        return None
    got = {}
    for r in rows:
        d = int(r['Projected Duration (ns)'])
        c, t, lo, hi = got.get(('nvtx-gpu', r['Name']), (0, 0, d, d))
        got[('nvtx-gpu', r['Name'])] = (c + 1, t + d, min(lo, d), max(hi, d))
    return got


def nvtxsum(path, workdir):
    """nsys stats' NVTX range totals per name (count, total, min, max), or None."""
    rows = nsys_stats(path, workdir, 'nvtxsum')
    if rows is None:
        return None
    return {('nvtx', r['Range']): (int(r['Instances']), int(r['Total Time (ns)']),
                                   int(r['Min (ns)']), int(r['Max (ns)'])) for r in rows}


def main():
    bin_, gen, workdir = sys.argv[1:4]
    os.makedirs(workdir, exist_ok=True)
    path = os.path.join(workdir, 'hand.sqlite')
    if os.path.exists(path):
        os.remove(path)
    build(gen, path)
    problems = []
    got = summary(bin_, path)
    for key, want in EXPECTED.items():
        if got.get(key) != want:
            problems.append(f'{key}: want {want}, got {got.get(key)}')
    worked = {k for k in got if k[0] in ('api-gpu', 'nvtx-gpu', 'nvtx-gpu-ops', 'nvtx')}
    if worked - set(EXPECTED):
        problems.append(f'unexpected rows: {sorted(worked - set(EXPECTED))}')
    # --match twice: a name matching either is kept.
    matched = set(summary(bin_, path, '--match', '^inner$', '--match', 'cudnn'))
    if {k[1] for k in matched} != {'inner', 'cudnnConvolutionForward'}:
        problems.append(f'--match twice kept {sorted(matched)}')
    nsys = None
    for category, report in (('nvtx-gpu', nvtxgpuproj), ('nvtx', nvtxsum)):
        nsys = report(path, workdir)
        ours = {k: v for k, v in got.items() if k[0] == category}
        if nsys is not None and nsys != ours:
            problems.append(f'{category} differs from nsys stats {report.__name__}: '
                            f'{nsys} vs {ours}')
    if problems:
        print('\n'.join(problems))
        return 1
    print(f'ok: {len(EXPECTED)} hand-worked rows' +
          (', nvtx-gpu and nvtx equal to nsys stats' if nsys is not None else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
