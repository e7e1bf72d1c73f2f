#!/usr/bin/env python3
"""check_cancel_latency.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR [EVENTS] [CORPUS_REPORT.sqlite.gz]

SIGTERM (and SIGINT once) at many points of long conversions, from the
passes before the events (names, GPU work per call, contexts, the NVTX
projection) to the last rows: each time the process must exit within
LIMIT_S of the signal, with status 7, a one-line message, no output and no
temporary file, and a previous output at the path intact. Three reports:
a generated one of EVENTS rows, the same with its big tables stored
backwards (SQLite sorts them, after a first attempt finds them out of
order), and a real one when given. Then `summary` on the generated one.
Prints the latency of every point and the worst.

A point the conversion outran (the machine was faster than when it was
timed, and the trace was already in place) is no failure; most must land.
"""
import gzip
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

LIMIT_S = 1.0
POINTS = 6
# Fewer under a sanitizer (NSYSP_SANITIZED), whose runs are several times longer.
if os.environ.get('NSYSP_SANITIZED'):
    POINTS = 4
# Every pass the conversion can run: --stats counts the tables not
# converted, --min-stream-activity measures the streams, --nvtx-filter
# matches every NVTX name.
OPTIONS = ['-q', '--stats', '--min-stream-activity', '0.001', '--nvtx-filter', '[aeiou]|^$']


def report_from_fixture(gen, work, events):
    path = os.path.join(work, f'cancel-{events}.sqlite')
    args = ['--seed', '3', '--events', str(events), '--nvtx', '--osrt', '--sched', '8',
            '--samples', '1000', '--gpu-metrics', '1000']
    stamp = path + '.args'
    if not (os.path.exists(path) and os.path.exists(stamp) and open(stamp).read() == ' '.join(args)):
        subprocess.run([gen] + args + [path], check=True, stdout=subprocess.DEVNULL)
        open(stamp, 'w').write(' '.join(args))
    return path


def report_stored_backwards(report, work):
    """A copy of report with its biggest tables stored latest first."""
    path = os.path.join(work, 'backwards-' + os.path.basename(report))
    if os.path.exists(path) and os.path.getmtime(path) > os.path.getmtime(report):
        return path
    shutil.copyfile(report, path + '.part')
    db = sqlite3.connect(path + '.part')
    for table in ('CUPTI_ACTIVITY_KIND_RUNTIME', 'GPU_METRICS', 'NVTX_EVENTS'):
        (sql,) = db.execute('SELECT sql FROM sqlite_master WHERE name = ?', (table,)).fetchone()
        db.execute(f'ALTER TABLE {table} RENAME TO old_rows')
        db.execute(sql)
        db.execute(f'INSERT INTO {table} SELECT * FROM old_rows ORDER BY rowid DESC')
        db.execute('DROP TABLE old_rows')
    db.commit()
    db.close()
    os.rename(path + '.part', path)
    return path


def report_from_corpus(gz, work):
    path = os.path.join(work, os.path.basename(gz)[:-3])
    if not os.path.exists(path):
        with gzip.open(gz, 'rb') as src, open(path + '.part', 'wb') as dst:
            shutil.copyfileobj(src, dst)
        os.rename(path + '.part', path)
    return path


def timed_run(cmd):
    """Runs cmd to the end; returns its wall time, or exits on failure."""
    began = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f'FAIL: {" ".join(cmd)}: exit {r.returncode}: {r.stderr}')
    return time.monotonic() - began


def catches(pid, sig):
    """Whether process pid has a handler for sig (SigCgt in /proc/PID/status)."""
    try:
        with open(f'/proc/{pid}/status') as f:
            for line in f:
                if line.startswith('SigCgt:'):
                    return int(line.split()[1], 16) >> (sig - 1) & 1 == 1
    except OSError:
        pass
    return False


def interrupt_at(cmd, at, sig):
    """Starts cmd, sends sig after `at` seconds; returns (returncode,
    seconds from the signal to the exit, stderr), or None when cmd ended
    before the signal could be sent."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # Time counts from when the program catches the signal: before that it is
    # still being loaded (a sanitizer build on a busy machine takes longer than
    # the earliest point), and no program can answer a signal it has not
    # reached main for.
    while not catches(p.pid, sig) and p.poll() is None:
        time.sleep(0.001)
    began = time.monotonic()
    while time.monotonic() - began < at:
        if p.poll() is not None:
            p.communicate()
            return None
        time.sleep(min(0.005, max(0.0, at - (time.monotonic() - began))))
    sent = time.monotonic()
    p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        return p.returncode, 30.0, err
    return p.returncode, time.monotonic() - sent, err


def points(duration):
    """POINTS moments from 0.05 s to 75% of the run, denser early, where
    the passes before the events are (not later: on a loaded machine the
    timed run may have been the slow one)."""
    last = max(0.75 * duration, 0.1)
    return [0.05 + (last - 0.05) * (i / (POINTS - 1)) ** 1.5 for i in range(POINTS)]


def leftovers(work, out):
    base = os.path.basename(out)
    return [f for f in os.listdir(os.path.dirname(out)) if f.startswith(f'.{base}.tmp-')]


def check_convert(bin_, report, work, problems):
    out = os.path.join(work, 'cancel.perfetto-trace')
    cmd = [bin_, *OPTIONS, '-o', out, report]
    duration = timed_run(cmd)
    os.remove(out)
    name = os.path.basename(report)
    print(f'{name}: converts in {duration:.2f} s')
    worst = 0.0
    moments = points(duration)
    landed = 0
    for i, at in enumerate(moments):
        sig = signal.SIGINT if i == len(moments) // 2 else signal.SIGTERM
        keep = i == 1  # one case with a previous output at the path
        if keep:
            with open(out, 'w') as f:
                f.write('previous trace\n')
        got = interrupt_at(cmd, at, sig)
        where = f'{name}: {signal.Signals(sig).name} at {at:.2f} s'
        rc, latency, err = got if got else (0, 0.0, '')
        if rc == 0 and os.path.exists(out) and not keep:
            print(f'  {where}: finished before the signal')
            os.remove(out)
            continue
        landed += 1
        worst = max(worst, latency)
        print(f'  {where}: exit {rc} after {latency * 1000:.0f} ms')
        if rc != 7:
            problems.append(f'{where}: exit {rc}, expected 7: {err.strip()}')
        if latency > LIMIT_S:
            problems.append(f'{where}: exited {latency:.2f} s after the signal (limit {LIMIT_S} s)')
        if err.count('\n') != 1 or 'interrupted' not in err:
            problems.append(f'{where}: expected one line saying interrupted, got {err!r}')
        if keep:
            if open(out).read() != 'previous trace\n':
                problems.append(f'{where}: the previous output was changed')
            os.remove(out)
        elif os.path.exists(out):
            problems.append(f'{where}: an output was left')
            os.remove(out)
        if leftovers(work, out):
            problems.append(f'{where}: temporary files left: {leftovers(work, out)}')
    if landed < 0.5 * len(moments):
        problems.append(f'{name}: only {landed} of {len(moments)} signals landed')
    return worst


def check_summary(bin_, report, problems):
    cmd = [bin_, 'summary', '--match', '.', report]
    duration = timed_run(cmd)
    name = os.path.basename(report)
    print(f'{name}: summary in {duration:.2f} s')
    worst = 0.0
    for at in points(duration)[:-1:2]:
        got = interrupt_at(cmd, at, signal.SIGTERM)
        where = f'{name}: summary, SIGTERM at {at:.2f} s'
        if got is None or got[0] == 0:
            print(f'  {where}: finished before the signal')
            continue
        rc, latency, err = got
        worst = max(worst, latency)
        print(f'  {where}: exit {rc} after {latency * 1000:.0f} ms')
        if rc != 7 or latency > LIMIT_S or 'interrupted' not in err:
            problems.append(f'{where}: exit {rc} after {latency:.2f} s: {err.strip()!r}')
    return worst


def main():
    bin_, gen, work = sys.argv[1:4]
    events = int(sys.argv[4]) if len(sys.argv) > 4 else 1000000
    os.makedirs(work, exist_ok=True)
    reports = [report_from_fixture(gen, work, events)]
    reports.append(report_stored_backwards(reports[0], work))
    if len(sys.argv) > 5 and os.path.exists(sys.argv[5]):
        reports.append(report_from_corpus(sys.argv[5], work))
    problems = []
    worst = 0.0
    for report in reports:
        worst = max(worst, check_convert(bin_, report, work, problems))
    worst = max(worst, check_summary(bin_, reports[0], problems))
    print(f'worst signal-to-exit latency: {worst * 1000:.0f} ms (limit {LIMIT_S * 1000:.0f} ms)')
    for p in problems:
        print('FAIL:', p)
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
