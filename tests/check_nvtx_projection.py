#!/usr/bin/env python3
"""check_nvtx_projection.py NSYS_PERFETTO TRACE_DUMP WORKDIR

NVTX projected onto the GPU, on a small report written here whose expected
GPU ranges were worked out by hand: a range covers the GPU work launched by
CUDA calls that start inside it on the same thread, from the first
operation's start to the last one's end, per device, with the number of
operations as an arg. Also --nvtx-domain and --nvtx-filter, on both the CPU
and the GPU rows.
"""
import collections
import os
import sqlite3
import subprocess
import sys

GPID = (1 << 48) | (100 << 24)
MAIN, OTHER = GPID | 100, GPID | 101

# Calls on the main thread: start, correlation id; and what each launched.
CALLS = [(2100, 1), (3000, 2), (6500, 3), (7100, 4), (8500, 5), (9500, 6)]
KERNELS = [(10000, 12000, 0, 1), (14000, 15000, 1, 3), (16000, 17000, 0, 4), (18000, 19000, 0, 6)]
MEMCPYS = [(12500, 13000, 0, 2)]
# NVTX: start, end, eventType, text, textId, thread, domain
NVTX = [
    (500, None, 75, 'NCCL', None, MAIN, 1),
    (1000, 9000, 59, 'outer', None, MAIN, 0),
    (2000, 4000, 59, 'inner', None, MAIN, 0),
    (5000, 5500, 59, 'empty', None, MAIN, 0),          # no call inside: no projection
    (6000, 8000, 60, 'async', None, MAIN, 0),
    (7000, 7600, 59, None, 9, MAIN, 1),                # registered string "allreduce"
    (8800, None, 59, 'open', None, MAIN, 0),           # open: closes at the report end
    (1000, 9000, 59, 'other', None, OTHER, 0),         # other thread: covers nothing
]
# (start, dur, name, device, GPU operations, row), worked out by hand.
EXPECTED = [
    (10000, 7000, 'outer', 0, 3, 'NVTX'),
    (14000, 1000, 'outer', 1, 1, 'NVTX'),
    (10000, 3000, 'inner', 0, 2, 'NVTX'),
    (14000, 1000, 'async', 1, 1, 'NVTX'),
    (16000, 1000, 'async', 0, 1, 'NVTX'),
    (16000, 1000, 'allreduce', 0, 1, 'NVTX \u00b7 NCCL'),
    (18000, 1000, 'open', 0, 1, 'NVTX'),
]


def make_report(path):
    if os.path.exists(path):
        os.unlink(path)
    db = sqlite3.connect(path)
    db.executescript('''
        CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE ANALYSIS_DETAILS(globalVid INTEGER, duration INTEGER, startTime INTEGER,
                                      stopTime INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER,
            globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,
            contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,
            shortName INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, end INTEGER, deviceId INTEGER,
            contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,
            bytes INTEGER, copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);
        CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, rangeId INTEGER,
            category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER,
            textId INTEGER, domainId INTEGER);
    ''')
    db.executemany('INSERT INTO StringIds VALUES (?, ?)',
                   [(1, 'cudaLaunchKernel_v7000'), (2, 'k'), (9, 'allreduce')])
    db.execute('INSERT INTO ANALYSIS_DETAILS VALUES (0, 20000, 0, 20000)')
    db.executemany('INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, 1, 0)',
                   [(s, s + 100, MAIN, c) for s, c in CALLS])
    db.executemany('INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, 1, 7, ?, ?, 2)',
                   [(s, e, d, c, GPID) for s, e, d, c in KERNELS])
    db.executemany('INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, ?, 1, 8, ?, ?, 64, 1, 0, 2)',
                   [(s, e, d, c, GPID) for s, e, d, c in MEMCPYS])
    db.executemany('INSERT INTO NVTX_EVENTS VALUES (?, ?, ?, NULL, NULL, NULL, ?, ?, NULL, ?, ?)',
                   [(s, e, k, text, tid, text_id, d) for s, e, k, text, text_id, tid, d in NVTX])
    db.commit()
    db.close()


def convert(bin_, dump_bin, report, trace, *options):
    subprocess.run([bin_, '-q', *options, '-o', trace, report], check=True)
    out = subprocess.run([dump_bin, trace], check=True, capture_output=True, text=True).stdout
    cpu, gpu = [], []
    for line in out.splitlines():
        f = line.split('\t')
        if f[0] != 'S':
            continue
        args = dict(a.split('=', 1) for a in f[6].split(';') if '=' in a)
        if f[3] == 'nvtx':
            cpu.append(f[4])
        elif f[3] == 'nvtx_gpu':
            path = f[5].split(' / ')
            gpu.append((int(f[1]), int(f[2]), f[4], int(path[0].split()[1]),
                        int(args['GPU operations']), path[-1]))
    return cpu, gpu


def main():
    bin_, dump_bin, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    report = os.path.join(work, 'projection.sqlite')
    make_report(report)
    trace = os.path.join(work, 'projection.perfetto-trace')
    problems = []

    cpu, gpu = convert(bin_, dump_bin, report, trace)
    if collections.Counter(gpu) != collections.Counter(EXPECTED):
        problems.append(f'projection: got {sorted(gpu)}\n  expected {sorted(EXPECTED)}')
    if sorted(cpu) != sorted(['outer', 'inner', 'empty', 'async', 'allreduce', 'open', 'other']):
        problems.append(f'CPU ranges: {sorted(cpu)}')

    cpu, gpu = convert(bin_, dump_bin, report, trace, '--nvtx-domain', 'NCCL')
    if cpu != ['allreduce'] or [g[2] for g in gpu] != ['allreduce']:
        problems.append(f'--nvtx-domain NCCL kept {cpu} / {gpu}')
    cpu, gpu = convert(bin_, dump_bin, report, trace, '--nvtx-domain', 'default',
                       '--nvtx-filter', '^o')
    if sorted(cpu) != ['open', 'other', 'outer'] or sorted({g[2] for g in gpu}) != ['open', 'outer']:
        problems.append(f'--nvtx-filter ^o kept {cpu} / {gpu}')

    if problems:
        print('\n'.join(problems))
        return 1
    print(f'ok: {len(EXPECTED)} projected ranges as computed by hand; filters apply')
    return 0


if __name__ == '__main__':
    sys.exit(main())
