#!/usr/bin/env python3
"""check_process_zero.py NSYS_PERFETTO NSYS_FIXTURE TRACE_DUMP WORKDIR [PFTRACE_CHECK]

Minimal exports that tools write for their own tests put a process at pid
0 (globalTid 1). Perfetto's pid 0 is the idle process, so a report's rows
must never land there: the process keeps its rows under a pid of its own,
its name says it was pid 0, and the conversion accounts for every row as it
does with the process at its real pid. pftrace-check raises nothing
(pid_tid_zero included).
"""
import collections
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

ID_COLUMNS = ('globalTid', 'globalPid', 'endGlobalTid')


def to_pid_zero(path, pid):
    """Moves process pid of the report to pid 0, its main thread to tid 1."""
    db = sqlite3.connect(path)
    tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    moved = 0
    for t in tables:
        cols = {r[1] for r in db.execute(f'PRAGMA table_info("{t}")')}
        for c in ID_COLUMNS:
            if c not in cols:
                continue
            # pid bits to 0; the main thread (tid == pid) becomes tid 1.
            moved += db.execute(
                f'UPDATE "{t}" SET "{c}" = ("{c}" & ~0xFFFFFFFFFFFF)'
                f' | CASE WHEN ("{c}" & 0xFFFFFF) = ?1 THEN 1 ELSE "{c}" & 0xFFFFFF END'
                f' WHERE ("{c}" >> 24 & 0xFFFFFF) = ?1', (pid,)).rowcount
        for c in ('pid', 'processId'):
            if c in cols:
                db.execute(f'UPDATE "{t}" SET "{c}" = 0 WHERE "{c}" = ?', (pid,))
    db.commit()
    db.close()
    return moved


def main():
    bin_, gen, dump_bin, work = sys.argv[1:5]
    check = sys.argv[5] if len(sys.argv) > 5 and os.path.exists(sys.argv[5]) else None
    os.makedirs(work, exist_ok=True)
    real = os.path.join(work, 'real-pid.sqlite')
    zero = os.path.join(work, 'pid-zero.sqlite')
    for p in (real, zero):
        if os.path.exists(p):
            os.remove(p)
    subprocess.run([gen, '--seed', '41', '--events', '3000', '--processes', '2', '--nvtx',
                    '--osrt', '--sched', '2', '--samples', '300', '--all-tables', real],
                   check=True)
    db = sqlite3.connect(real)
    pid = db.execute('SELECT globalPid >> 24 & 0xFFFFFF FROM CUPTI_ACTIVITY_KIND_KERNEL'
                     ' GROUP BY 1 ORDER BY 1 LIMIT 1').fetchone()[0]
    name = db.execute('SELECT name FROM PROCESSES WHERE pid = ?', (pid,)).fetchone()[0]
    db.close()
    shutil.copy(real, zero)
    moved = to_pid_zero(zero, pid)
    problems = []
    if moved < 100:
        problems.append(f'only {moved} rows moved to pid 0')

    def convert(path):
        trace = path.replace('.sqlite', '.perfetto-trace')
        r = subprocess.run([bin_, '-q', '--stats', '-o', trace, path], capture_output=True,
                           text=True)
        if r.returncode != 0:
            problems.append(f'{path}: exit {r.returncode}: {r.stderr.strip()}')
        accounting = [l for l in r.stderr.splitlines()
                      if re.match(r'^\S+\s+\S+\s+\d+\s+\d+\s+\d+$', l)]
        return trace, accounting

    real_trace, real_stats = convert(real)
    zero_trace, zero_stats = convert(zero)
    if real_stats != zero_stats or not zero_stats:
        problems.append(f'accounting differs:\n{real_stats}\n{zero_stats}')

    dump = subprocess.run([dump_bin, zero_trace], capture_output=True, text=True,
                          check=True).stdout
    tracks = [l.split('\t') for l in dump.splitlines() if l.startswith('T\t')]
    marked = [t for t in tracks if t[3] == 'process' and t[4] == f'{name} (pid 0 in the report)']
    if len(marked) != 1:
        problems.append(f'no process named "{name} (pid 0 in the report)": '
                        f'{[t[4] for t in tracks if t[3] == "process"]}')
    kinds = collections.Counter(l.split('\t')[0] for l in dump.splitlines())
    real_kinds = collections.Counter(
        l.split('\t')[0] for l in subprocess.run([dump_bin, real_trace], capture_output=True,
                                                 text=True, check=True).stdout.splitlines())
    if kinds != real_kinds:
        problems.append(f'records differ: {kinds} vs {real_kinds}')

    if check:
        r = subprocess.run([sys.executable, check, '--json', '--strict', zero_trace],
                           capture_output=True, text=True)
        report = json.loads(r.stdout)
        bad = [s['name'] for s in report['stats'] if s['severity'] != 'info']
        if r.returncode != 0 or bad:
            problems.append(f'pftrace-check: exit {r.returncode}, {bad}')
        pids = {t['pid'] for t in report['tracks'] if t.get('pid') is not None}
        tids = {t['tid'] for t in report['tracks'] if t.get('tid') is not None}
        if 0 in pids or 0 in tids:
            problems.append(f'a track on pid or tid 0: pids {sorted(pids)[:5]}')
    for p in problems:
        print('FAIL:', p)
    print(f'moved {moved} rows of {name} [{pid}] to pid 0')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
