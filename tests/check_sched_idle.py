#!/usr/bin/env python3
"""check_sched_idle.py NSYS_PERFETTO NSYS_FIXTURE TRACE_PROCESSOR_SHELL WORKDIR [PFTRACE_CHECK]

Scheduling rows of the idle task: a Grace Hopper (aarch64) capture gives it
thread id 0 under a non-zero process field. Such rows are the CPU's idle task,
as nsys shows them, never skipped as inconsistent. On a fixture report with
those rows (nsys-fixture --sched-idle):

  - every SCHED_EVENTS row is accounted as emitted (--stats: none skipped);
  - the sched table (trace_processor_shell: ts, dur, cpu, tid, thread name,
    end state) equals that of the same report without the idle rows, where the
    gaps are the idle task already;
  - with the thread sched-outs that an idle sched-in at the same time stands
    for removed (the idle task alone tells the thread left), the sched table is
    still the same: the idle sched-in switches the thread out, sleeping;
  - pftrace-check finds nothing above info.
Exits 77 without trace_processor_shell.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

SCHED_SQL = ("SELECT s.ts, s.dur, s.cpu, t.tid, t.name, s.end_state FROM sched s "
             "JOIN thread t USING (utid) ORDER BY s.cpu, s.ts")
TID_BITS = 0xFFFFFF
TERMINATED = 5  # threadState of a thread's last sched-out


def convert(nsysp, report, trace):
    r = subprocess.run([nsysp, '-q', '--stats', '-o', trace, report], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f'FAIL: {report}: exit {r.returncode}: {r.stderr[-500:]}')
    for line in r.stderr.splitlines():
        f = line.split()
        if f[:2] == ['sched', 'SCHED_EVENTS']:
            return int(f[2]), int(f[3]), int(f[4])  # rows, emitted, skipped
    raise SystemExit(f'FAIL: {report}: no SCHED_EVENTS line in --stats:\n{r.stderr[-1500:]}')


def sched_rows(tp, trace):
    with open(trace + '.sql', 'w') as f:
        f.write(SCHED_SQL + ';\n')
    r = subprocess.run([tp, '-q', trace + '.sql', trace], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f'FAIL: trace_processor_shell on {trace}: {r.stderr[-500:]}')
    return r.stdout.splitlines()


def variant(src, dst, sql):
    shutil.copyfile(src, dst)
    db = sqlite3.connect(dst)
    n = db.execute(sql).rowcount
    db.commit()
    db.close()
    return n


def main():
    if len(sys.argv) < 5:
        print(__doc__)
        return 2
    nsysp, fixture, tp, work = sys.argv[1:5]
    check = sys.argv[5] if len(sys.argv) > 5 and os.path.exists(sys.argv[5]) else None
    if not os.path.exists(tp):
        print(f'skip: no trace_processor_shell at {tp}')
        return 77
    os.makedirs(work, exist_ok=True)
    full = os.path.join(work, 'idle.sqlite')
    if os.path.exists(full):
        os.remove(full)
    subprocess.run([fixture, '--seed', '7', '--events', '3000', '--sched', '4', '--sched-idle', full],
                   check=True, capture_output=True)
    db = sqlite3.connect(full)
    idle, total = db.execute(f'SELECT sum((globalTid & {TID_BITS}) = 0 AND globalTid > {TID_BITS}), count(*) '
                             'FROM SCHED_EVENTS').fetchone()
    db.close()
    problems = []
    if not idle:
        problems.append('the fixture wrote no idle-task rows under a process field')
    without_idle = os.path.join(work, 'without-idle.sqlite')
    variant(full, without_idle, f'DELETE FROM SCHED_EVENTS WHERE (globalTid & {TID_BITS}) = 0')
    idle_only = os.path.join(work, 'idle-only.sqlite')
    dropped = variant(full, idle_only, f"""
        DELETE FROM SCHED_EVENTS AS o
        WHERE o.isSchedIn = 0 AND (o.globalTid & {TID_BITS}) != 0 AND o.threadState != {TERMINATED}
          AND EXISTS (SELECT 1 FROM SCHED_EVENTS i
                      WHERE i.isSchedIn = 1 AND (i.globalTid & {TID_BITS}) = 0
                        AND i.cpu = o.cpu AND i.start = o.start)""")

    results = {}
    for name, report in (('with idle rows', full), ('without them', without_idle),
                         ('idle sched-ins alone', idle_only)):
        trace = report[:-len('.sqlite')] + '.pftrace'
        rows, emitted, skipped = convert(nsysp, report, trace)
        if skipped or emitted != rows:
            problems.append(f'{name}: {skipped} of {rows} SCHED_EVENTS rows skipped')
        results[name] = (trace, sched_rows(tp, trace))
        print(f'{name}: {rows} rows, {emitted} emitted, {len(results[name][1]) - 1} sched slices')
    want = results['without them'][1]
    for name in ('with idle rows', 'idle sched-ins alone'):
        got = results[name][1]
        if got != want:
            diff = [f'{a} | {b}' for a, b in zip(got, want) if a != b][:3]
            problems.append(f'{name}: sched differs from the report without idle rows '
                            f'({len(got)} vs {len(want)} lines; first: {diff})')
        if check:
            r = subprocess.run([sys.executable, check, '--json', '--strict', results[name][0]],
                               capture_output=True, text=True)
            bad = [s['name'] for s in json.loads(r.stdout)['stats'] if s['severity'] != 'info']
            if r.returncode != 0 or bad:
                problems.append(f'{name}: pftrace-check: exit {r.returncode}, {bad}')
    for p in problems:
        print('FAIL:', p)
    print(f'{idle} idle-task rows of {total}; {dropped} thread sched-outs left to the idle task')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
