#!/usr/bin/env python3
"""check_series_timeout.py NSYS_PERFETTO REPORT.sqlite WORKDIR

`series` against a fake nsys ($NSYS) that, for the value "hang", hangs
the way nsys's perf-based collection does on some machines: nsys and its
target ignore SIGINT and SIGTERM and sleep forever, and an agent escapes
the process group (double fork and setsid, as a daemon does). Other values
"profile" by copying REPORT.sqlite as the .nsys-rep, and `export` copies it
on as the .sqlite.

- --timeout 2s: the hung run is reported failed, "timed out after 2s",
  with its log; the other values complete and are summarized; exit 1; the
  series takes the timeout and the grace, not more.
- Ctrl-C (SIGINT to series) during a hung run, default timeout: exit 7
  within seconds, the next value not started.
- After either, no process of the fake's session is alive, the escaped
  agent included.
- --timeout 0 warns; bad durations are refused (exit 2); --help names
  --timeout.
"""
import os
import signal
import subprocess
import sys
import time

FAKE_NSYS = '''#!{python}
import os, shutil, signal, sys, time

args = sys.argv[1:]
output = args[args.index('--output') + 1]


def note(role):
    with open(os.environ['FAKE_NSYS_PIDS'], 'a') as f:
        f.write(f'{{role}} {{os.getpid()}}\\n')


if args[0] == 'export':
    shutil.copyfile(args[-1], output)
    sys.exit(0)
command = args[args.index('--output') + 2:]
if 'hang' not in command:
    print('fake nsys: profiled', *command)
    shutil.copyfile(os.environ['FAKE_NSYS_REPORT'], output + '.nsys-rep')
    sys.exit(0)
print('fake nsys: collecting, never to finish', flush=True)
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
note('nsys')
if os.fork() == 0:  # the agent: leaves the process group and its parent
    os.setsid()
    if os.fork() == 0:
        note('agent')
        while True:
            time.sleep(0.1)
    os._exit(0)
if os.fork() == 0:  # the profiled program, in nsys's process group
    note('target')
    while True:
        time.sleep(1)
while True:
    time.sleep(1)
'''

ROLES = ('nsys', 'agent', 'target')


def write_fake(work):
    path = os.path.join(work, 'fake-nsys')
    with open(path, 'w') as f:
        f.write(FAKE_NSYS.format(python=sys.executable))
    os.chmod(path, 0o755)
    return path


def recorded(pids_file):
    """{role: pid} the fake wrote."""
    if not os.path.exists(pids_file):
        return {}
    with open(pids_file) as f:
        return {role: int(pid) for role, pid in (line.split() for line in f if line.strip())}


def alive(pid, fake):
    """Whether pid is still one of the fake's processes (not a zombie, not reused)."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            state = f.read().rsplit(')', 1)[1].split()[0]
        with open(f'/proc/{pid}/cmdline', 'rb') as f:
            cmdline = f.read()
    except OSError:
        return False
    return state != 'Z' and fake.encode() in cmdline


def process_group(pid):
    with open(f'/proc/{pid}/stat') as f:
        return int(f.read().rsplit(')', 1)[1].split()[2])


def left_running(pids_file, fake):
    """Problems: roles the fake never reached, and processes still alive
    (given a moment: the kernel reaps asynchronously)."""
    pids = recorded(pids_file)
    problems = [f'the fake never started its {r}' for r in ROLES if r not in pids]
    deadline = time.monotonic() + 1
    while any(alive(p, fake) for p in pids.values()) and time.monotonic() < deadline:
        time.sleep(0.05)
    for role, pid in pids.items():
        if alive(pid, fake):
            problems.append(f'the fake {role} (pid {pid}) is still running')
            os.kill(pid, signal.SIGKILL)
    return problems


def timeout_case(bin_, work, fake, env):
    d = os.path.join(work, 'timeout')
    pids_file = os.path.join(work, 'timeout.pids')
    env = dict(env, FAKE_NSYS_PIDS=pids_file)
    began = time.monotonic()
    p = subprocess.run([bin_, 'series', '-p', '1', 'hang', '3', '--timeout', '2s', '--dir', d,
                        '--', 'true', '$p'], env=env, capture_output=True, text=True, timeout=120)
    took = time.monotonic() - began
    problems = []
    if p.returncode != 1:
        problems.append(f'exit {p.returncode}, want 1 (a run failed)')
    log = os.path.join(d, 'phang.log')
    if f'$p=hang: the profiled run failed: timed out after 2s (log: {log})' not in p.stderr:
        problems.append('the hung run is not reported as timed out with its log')
    text = open(log).read() if os.path.exists(log) else ''
    if 'never to finish' not in text:
        problems.append(f'{log} lacks the fake nsys\'s output')
    if 'timed out after 2s: stopped it and everything it started' not in text:
        problems.append(f'{log} does not say the run was stopped')
    if '1 of 3 runs failed' not in p.stderr:
        problems.append('no count of failures')
    for v in ('1', '3'):
        if not os.path.isfile(os.path.join(d, f'p{v}.perfetto-trace')):
            problems.append(f'value {v} was not converted')
    csv = os.path.join(d, 'series.csv')
    values = {line.split(',')[2] for line in open(csv).readlines()[1:]} if os.path.exists(csv) else set()
    if values != {'1', '3'}:
        problems.append(f'series.csv has values {sorted(values)}, want 1 and 3')
    # 2 s timeout + 3 s grace (the fake ignores SIGTERM) + the quick runs
    if not 2 <= took < 15:
        problems.append(f'the series took {took:.1f} s')
    problems += left_running(pids_file, fake)
    return problems, p.stderr, took


def interrupt_case(bin_, work, fake, env):
    d = os.path.join(work, 'interrupt')
    pids_file = os.path.join(work, 'interrupt.pids')
    env = dict(env, FAKE_NSYS_PIDS=pids_file)
    p = subprocess.Popen([bin_, 'series', '-p', 'hang', '1', '--dir', d, '--', 'true', '$p'],
                         env=env, stderr=subprocess.PIPE, text=True)
    problems = []
    deadline = time.monotonic() + 30
    while set(recorded(pids_file)) != set(ROLES) and time.monotonic() < deadline:
        time.sleep(0.05)
    pids = recorded(pids_file)
    if set(pids) == set(ROLES):
        if process_group(pids['agent']) == process_group(pids['nsys']):
            problems.append('the fake agent did not leave the process group')
        time.sleep(0.5)  # hung, not merely slow
    else:
        problems.append('the fake never hung')
    began = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        _, stderr = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        _, stderr = p.communicate()
    took = time.monotonic() - began
    if p.returncode != 7:
        problems.append(f'exit {p.returncode} after SIGINT, want 7')
    if not took < 8:
        problems.append(f'the series took {took:.1f} s to stop after SIGINT')
    if '[2/2]' in stderr:
        problems.append('the next value was profiled after SIGINT')
    if 'interrupted; keeping the 0 finished runs' not in stderr:
        problems.append('no word of the interruption')
    problems += left_running(pids_file, fake)
    return problems, stderr, took


def option_cases(bin_, work, env):
    problems = []
    d = os.path.join(work, 'no-timeout')
    p = subprocess.run([bin_, 'series', '--timeout', '0', '-p', '1', '--dir', d, '--', 'true',
                        '$p'], env=env, capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or 'a hung profiler will hang the series' not in p.stderr:
        problems.append(f'--timeout 0: exit {p.returncode}, no warning:\n{p.stderr}')
    for bad in ('5x', '-1', 'm', '1.5d', 'inf'):
        p = subprocess.run([bin_, 'series', '--timeout', bad, '-p', '1', '--', 'true'], env=env,
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 2:
            problems.append(f'--timeout {bad}: exit {p.returncode}, want 2')
    p = subprocess.run([bin_, 'series', '--help'], capture_output=True, text=True, timeout=60)
    if '--timeout DURATION' not in p.stdout or 'default 30m' not in p.stdout:
        problems.append('--help does not describe --timeout')
    return problems


def main():
    bin_, report, work = sys.argv[1:4]
    if not os.path.exists('/proc/self/stat'):
        print('skip: needs Linux /proc')
        return 77
    subprocess.run(['rm', '-rf', work], check=True)
    os.makedirs(work)
    fake = write_fake(work)
    env = dict(os.environ, NSYS=fake, FAKE_NSYS_REPORT=os.path.abspath(report))

    problems, stderr, took = timeout_case(bin_, work, fake, env)
    if problems:
        print('--timeout 2s:\n' + '\n'.join(problems) + '\n' + stderr)
        return 1
    timed = took
    problems, stderr, took = interrupt_case(bin_, work, fake, env)
    if problems:
        print('SIGINT:\n' + '\n'.join(problems) + '\n' + stderr)
        return 1
    problems = option_cases(bin_, work, env)
    if problems:
        print('\n'.join(problems))
        return 1
    print(f'ok: hung run stopped at 2s (series {timed:.1f} s), SIGINT stopped the series in '
          f'{took:.1f} s, no process of the fake left')
    return 0


if __name__ == '__main__':
    sys.exit(main())
