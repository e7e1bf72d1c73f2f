#!/usr/bin/env python3
"""check_merge_many.py NSYS_PERFETTO WORKDIR

Forty generated reports with two sources each (NVTX, CUDA API), then one
with a third (kernels), merged into one trace: more report-and-source
pairs than nsysp_result has count slots, and a source first seen after
they would have run out. The conversion succeeds (it crashed: the kernel
source found no slot), and --stats counts every row exactly once: 40 NVTX
ranges, 40 CUDA calls, 1 kernel.
"""
import os
import re
import sqlite3
import subprocess
import sys

STRINGS = ("CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
           "INSERT INTO StringIds VALUES (1, 'k');")
NVTX_AND_CALLS = (
    'CREATE TABLE NVTX_EVENTS(start INTEGER, "end" INTEGER, eventType INTEGER, text TEXT,'
    ' globalTid INTEGER, textId INTEGER, domainId INTEGER);'
    "INSERT INTO NVTX_EVENTS VALUES (10, 20, 59, 'r', 16777217, NULL, 0);"
    'CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, "end" INTEGER, eventClass INTEGER,'
    ' globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER,'
    ' callchainId INTEGER);'
    'INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (12, 15, 0, 16777217, 5, 1, 0, NULL);')
KERNELS = (
    'CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, "end" INTEGER, deviceId INTEGER,'
    ' contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,'
    ' demangledName INTEGER, shortName INTEGER);'
    'INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 0, 1, 7, 1, 16777216, 1, 1);')


def report(path, sql):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(STRINGS + sql)
    db.commit()
    db.close()


def main():
    bin_, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    inputs = []
    for i in range(40):
        inputs.append(os.path.join(work, f'r{i:02d}.sqlite'))
        report(inputs[-1], NVTX_AND_CALLS)
    inputs.append(os.path.join(work, 'kernels.sqlite'))
    report(inputs[-1], KERNELS)
    out = os.path.join(work, 'merged.perfetto-trace')
    p = subprocess.run([bin_, '-q', '--stats', '-o', out] + inputs, capture_output=True, text=True)
    if p.returncode != 0:
        print(f'exit {p.returncode}: {p.stderr[-2000:]}')
        return 1
    totals = {}
    for name, rows, events in re.findall(r'^(\S+)\s+\S+\s+(\d+)\s+(\d+)\s+\d+$', p.stdout + p.stderr,
                                         re.M):
        t = totals.setdefault(name, [0, 0])
        t[0] += int(rows)
        t[1] += int(events)
    want = {'nvtx': [40, 40], 'cuda-api': [40, 40], 'kernel': [1, 1]}
    if totals != want:
        print(f'--stats totals {totals}, want {want}')
        return 1
    print(f'ok: {len(inputs)} reports, totals {totals}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
