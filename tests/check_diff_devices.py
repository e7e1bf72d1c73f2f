#!/usr/bin/env python3
"""check_diff_devices.py NSYS_PERFETTO WORKDIR

`nsys-perfetto diff` on two generated reports with a kernel on each of 70
devices (more than any fixed table would hold): every device has its GPU
busy row, in device order, with the busy times worked by hand (10 ns before,
20 ns after: +100%, a regression), and the verdict fails the gate (exit 8).
"""
import json
import os
import sqlite3
import subprocess
import sys

DEVICES = 70


def report(path, duration):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(
        'CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);'
        "INSERT INTO StringIds VALUES (1, 'k');"
        'CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(deviceId INTEGER, start INTEGER, "end" INTEGER,'
        ' globalPid INTEGER, correlationId INTEGER, shortName INTEGER, demangledName INTEGER,'
        ' streamId INTEGER, contextId INTEGER);')
    # Listed from the last device down: the order must come from the ids.
    db.executemany('INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, ?, ?, 1, 1, 7, 1)',
                   [(d, 100 * d, 100 * d + duration, 1 << 24, d)
                    for d in reversed(range(DEVICES))])
    db.commit()
    db.close()


def main():
    bin_, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    before, after = os.path.join(work, 'before.sqlite'), os.path.join(work, 'after.sqlite')
    report(before, 10)
    report(after, 20)
    p = subprocess.run([bin_, 'diff', '--format', 'json', before, after],
                       capture_output=True, text=True)
    problems = []
    if p.returncode != 8:
        problems.append(f'exit {p.returncode}, want 8 (the kernel regressed): {p.stderr}')
    gpus = json.loads(p.stdout)['gpus'] if p.stdout else []
    if [g['device'] for g in gpus] != list(range(DEVICES)):
        problems.append(f'devices {[g["device"] for g in gpus]}, want 0..{DEVICES - 1}')
    for g in gpus:
        b = g['busy']
        if (b['before_ns'], b['after_ns'], b['status']) != (10, 20, 'regression'):
            problems.append(f'device {g["device"]}: {b}')
    if problems:
        print('\n'.join(problems[:10]))
        return 1
    print(f'ok: {len(gpus)} devices, each 10 -> 20 ns busy')
    return 0


if __name__ == '__main__':
    sys.exit(main())
