#!/usr/bin/env python3
"""check_fixture_job.py NSYS_FIXTURE NSYS_PERFETTO PFTRACE_CHECK WORKDIR

nsys-fixture --job: the per-rank reports of a generated distributed job are what
the `ranks` tests and benchmark rely on:
- N files named by rank and job.json; one process per report (pid 1000 + rank),
  one GPU, session starts within 5 us of each other;
- collectives matched: the same NCCL kernels in the same order on every rank,
  each one ending at the same UTC time on every rank (within 3 us), started by
  each rank when it arrives; the last to arrive is the one job.json names;
- steps: one NVTX "step" range per step; every kernel has its cudaLaunchKernel;
- the planted straggler's compute is slower and it arrives last at (nearly)
  every collective; the late collective's rank arrives last there;
- the same seed gives the same reports (whatever --workers), another seed not;
- --job-mpi: file names without the rank, MPI_RANKS gives it;
- a report converts, pftrace-check finds no error, summary shows the kernels
  and the step range; bad job options are refused.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

FIXTURE, PERFETTO, PFTRACE_CHECK, WORK = sys.argv[1:5]
NCCL = 'ncclDevKernel_'
from testlib import expect, failures  # noqa: E402

def generate(name, *args):
    out = os.path.join(WORK, name)
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([FIXTURE, *args, out], check=True)
    with open(os.path.join(out, 'job.json')) as f:
        return out, json.load(f)


def query(path, sql):
    with sqlite3.connect(path) as c:
        return c.execute(sql).fetchall()


def kernels(path):
    """(utc start, utc end, short name) of every kernel, in start order."""
    return query(path, """
        SELECT k.start + t.utcEpochNs, k.end + t.utcEpochNs, s.value
        FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName,
             TARGET_INFO_SESSION_START_TIME t ORDER BY k.start""")


def dump(path):
    with sqlite3.connect(path) as c:
        return '\n'.join(c.iterdump())


os.makedirs(WORK, exist_ok=True)

# --- an 8-rank job with a straggler and a late collective ---
N, STRAGGLER, LATE_RANK, LATE_INDEX = 8, 5, 2, 7
out, job = generate('job8', '--job', str(N), '--seed', '3', '--straggler', str(STRAGGLER),
                    '--late-collective', f'{LATE_RANK}:{LATE_INDEX}', '--workers', '2')
files = [os.path.join(out, f'rank{r}.sqlite') for r in range(N)]
expect(job['files'] == [os.path.basename(f) for f in files], 'job.json lists rank0..rank7.sqlite')
expect(all(os.path.exists(f) for f in files), f'{N} reports written')
expect(job['straggler'] == STRAGGLER and job['late_collective']['rank'] == LATE_RANK, 'job.json ground truth')
steps, ncoll = job['steps'], job['collectives']
expect(ncoll == 2 * steps == 40, 'two collectives per step, 20 steps by default')

starts = [query(f, 'SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME')[0][0] for f in files]
expect(max(starts) - min(starts) < 5000, 'session starts within 5 us')

ks = [kernels(f) for f in files]
nccl = [[k for k in rank if k[2].startswith(NCCL)] for rank in ks]
compute = [[k for k in rank if not k[2].startswith(NCCL)] for rank in ks]
expect(all(len(n) == ncoll for n in nccl), f'{ncoll} NCCL kernels per rank')
expect(all([k[2] for k in n] == [k[2] for k in nccl[0]] for n in nccl), 'same collectives in the same order')
for c in range(ncoll):
    ends = [n[c][1] for n in nccl]
    arrivals = [n[c][0] for n in nccl]
    expect(max(ends) - min(ends) < 3000, f'collective {c} ends within 3 us on every rank')
    last = max(range(N), key=lambda r: arrivals[r])
    expect(last == job['last_rank'][c], f'collective {c}: last rank {last} as job.json says')
    expect(all(e > a for a, e in zip(arrivals, ends)), f'collective {c}: every rank waits inside NCCL')
    # the next phase's compute starts after the collective
    if c + 1 < ncoll:
        expect(all(min(k[0] for k in rank if k[0] > n[c][0]) > n[c][1]
                   for rank, n in zip(compute, nccl)), f'collective {c}: next compute after its end')
expect(job['last_rank'][LATE_INDEX] == LATE_RANK, 'the late rank arrives last at the late collective')
late_count = sum(1 for c in range(ncoll) if job['last_rank'][c] == STRAGGLER)
expect(late_count >= ncoll - 2, f'straggler last at {late_count} of {ncoll} collectives')

busy = [sum(e - s for s, e, _ in rank) for rank in compute]
others = sorted(b for r, b in enumerate(busy) if r != STRAGGLER)
expect(busy[STRAGGLER] > 1.08 * others[len(others) // 2], 'straggler compute at least 8% slower')

for r, f in enumerate(files):
    expect(query(f, "SELECT pid FROM PROCESSES WHERE name = 'python3'") == [(1000 + r,)], f'rank {r}: pid')
    expect(query(f, 'SELECT DISTINCT deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL') == [(0,)], f'rank {r}: device 0')
    expect(query(f, "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'step' AND eventType = 59") == [(steps,)],
           f'rank {r}: {steps} step ranges')
    orphans = query(f, """SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN
        (SELECT r.correlationId, r.start FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId
         WHERE s.value LIKE 'cudaLaunchKernel%') l ON l.correlationId = k.correlationId
        WHERE l.correlationId IS NULL OR l.start > k.start""")
    expect(orphans == [(0,)], f'rank {r}: every kernel has its cudaLaunchKernel before it')

# --- determinism ---
same, _ = generate('job8-again', '--job', str(N), '--seed', '3', '--straggler', str(STRAGGLER),
                   '--late-collective', f'{LATE_RANK}:{LATE_INDEX}', '--workers', '1')
expect(all(dump(f) == dump(os.path.join(same, os.path.basename(f))) for f in files),
       'same seed, other --workers: same reports')
other, _ = generate('job8-seed4', '--job', str(N), '--seed', '4', '--straggler', str(STRAGGLER))
expect(dump(files[0]) != dump(os.path.join(other, 'rank0.sqlite')), 'another seed: other reports')

# --- --job-mpi ---
mpi, mjob = generate('job-mpi', '--job', '4', '--job-mpi', '--steps', '3', '--straggler', '1')
expect(mjob['rank_rule'] == 'mpi', 'job.json: MPI rule')
for r, name in enumerate(mjob['files']):
    expect('rank' not in name and not any(ch.isdigit() for ch in name), f'{name}: no rank in the name')
    path = os.path.join(mpi, name)
    tid = query(path, "SELECT globalTid FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId "
                      "WHERE s.value = 'python3'")
    expect(query(path, 'SELECT globalTid, rank FROM MPI_RANKS') == [(tid[0][0], r)], f'{name}: MPI_RANKS rank {r}')

# --- conversion ---
trace = os.path.join(WORK, 'rank0.pftrace')
subprocess.run([PERFETTO, '-o', trace, files[0]], check=True)
if os.access(PFTRACE_CHECK, os.X_OK):
    res = subprocess.run([PFTRACE_CHECK, trace], capture_output=True, text=True)
    expect(res.returncode == 0 and 'result: OK' in res.stdout, 'pftrace-check: no errors')
else:
    print('note: no pftrace-check at', PFTRACE_CHECK, '- trace not checked')
summary = subprocess.run([PERFETTO, 'summary', files[STRAGGLER]], capture_output=True, text=True, check=True).stdout
for name in ('gemm_kernel', 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', 'ncclDevKernel_AllGather_RING_LL'):
    expect(name in summary, f'summary shows {name}')
expect(any(line.split()[:2] == ['nvtx', 'step'] for line in summary.splitlines()), 'summary shows the step range')

# --- refused options ---
for args in (['--job', '4', '--straggler', '4'], ['--job', '4', '--steps', '2', '--late-collective', '1:4'],
             ['--job', '4', '--late-collective', 'x'], ['--steps', '3'], ['--job', '4', '--schema', '2022']):
    res = subprocess.run([FIXTURE, *args, os.path.join(WORK, 'refused')], capture_output=True, text=True)
    expect(res.returncode != 0 and 'nsys-fixture:' in res.stderr, f'refused: {" ".join(args)}')

if failures:
    print(f'{len(failures)} expect(s) failed')
    sys.exit(1)
print('fixture job: all checks passed')
