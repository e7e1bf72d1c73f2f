#!/usr/bin/env python3
"""check_kineto_hta.py NSYS_PERFETTO TRACE_PROCESSOR_SHELL SQL_PACKAGE RUN_HTA WORKDIR CORPUS_DIR

Meta's Holistic Trace Analysis (HTA) on our Kineto JSON (issue 33), against
our own figures, for two jobs of the corpus: the 2-GPU NCCL report
(GindaChen mfu_2gpu_before: two ranks in one report) and the gpubootcamp MPI
job (report1, report2, report4: one rank per report, converted together).

And a report written here whose answers are known (check_sql_extras.py's,
kept to its device 1): compute and NCCL kernels overlapping on four streams,
5.5 of 14 us of communication hidden behind compute (39.29%): the corpus
reports' communication never overlaps compute, so this is where HTA's
overlap is not 0.

Per rank (numbered as `nsys-perfetto ranks` numbers them; its GPU is the
device it ran on), HTA's temporal breakdown (idle, compute and non-compute
time, and its "kernel time", the span from the first GPU operation to the
end of the last), its kernel time (get_gpu_kernel_breakdown: the summed
duration of kernels, copies and sets) and its compute/communication overlap
are compared with ours: the SQL package's nsys_gpu_utilization_summary
(span, busy, idle), nsys_compute_comm_overlap (compute, communication,
overlap) and the GPU operations' summed duration, on the protobuf trace of
the same report.

HTA reads ts and dur as floats of microseconds and rounds each operation
inwards (start up, end down to a whole microsecond: its
round_down_time_stamps), so its figures move from ours by less than 2 us per
operation they add up. Two checks:
  - within that bound of our figures, for every figure;
  - equal (to 1 us per operation that rounding turns inside out, whose
    place in HTA's unstable sort is a toss-up) to our own operations,
    from the protobuf trace, put through the same rounding and the same
    interval arithmetic: the JSON holds the very operations and times.

Exits 77 when the corpus, trace_processor_shell or run-hta is missing.
"""
import glob
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sql_golden as sg  # noqa: E402

NSYSP, TP, PACKAGE, RUN_HTA, WORK, CORPUS = sys.argv[1:7]
HERE = os.path.dirname(os.path.abspath(__file__))
MPI = 'openhackathons-org__gpubootcamp__hpc__multi_gpu_nways__labs__CFD__English__C__source_code__mpi__reports__'
JOBS = {
    'mfu_2gpu': ['GindaChen__nsys-ai__tests__fixtures__mfu_2gpu_before'],
    'gpubootcamp_mpi': [MPI + 'report1.qdrep', MPI + 'report2.qdrep', MPI + 'report4.qdrep'],
}
OPS_SQL = """
select s.ts, s.dur, s.name, s.category, extract_arg(s.arg_set_id, 'debug.device') as device
from slice s where s.category in ('kernel', 'memcpy', 'memset')"""
SUMMARY_SQL = 'select device, first_ts, last_end, span_ns, busy_ns, idle_ns from nsys_gpu_utilization_summary'
OVERLAP_SQL = 'select device, compute_ns, comm_ns, overlap_ns from nsys_compute_comm_overlap'

from testlib import expect, failures  # noqa: E402

def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f'{args}: exit {p.returncode}: {p.stderr[-2000:]}')
    return p.stdout


def us(ns):
    """A time as HTA reads it: our JSON's decimal microseconds, as a float."""
    return float(f'{ns // 1000}.{ns % 1000:03d}')


def merged(intervals):
    """HTA's merge_kernel_intervals: sorted by start, an interval starting
    after every end so far opens a group; a group spans min start to max end."""
    out = []
    cummax = None
    for ts, end in sorted(intervals, key=lambda i: i[0]):
        if out and not ts > cummax:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([ts, end])
        cummax = end if cummax is None else max(cummax, end)
    return out


def union_us(intervals):
    return sum(e - s for s, e in merged(intervals))


def overlap_us(a, b):
    """Where the unions of a and b both run (HTA's status sweep)."""
    total, i, k = 0.0, 0, 0
    a, b = merged(a), merged(b)
    while i < len(a) and k < len(b):
        lo, hi = max(a[i][0], b[k][0]), min(a[i][1], b[k][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[k][1]:
            i += 1
        else:
            k += 1
    return total


def is_comm(name):
    return name.lower().startswith('nccl')


def replica(ops):
    """HTA's figures computed from our operations: rounded inwards as HTA
    rounds them, then its arithmetic."""
    rounded, comp, comm = [], [], []
    for ts, dur, name, cat in ops:
        start, end = math.ceil(us(ts)), math.floor(us(ts) + us(dur))
        rounded.append((start, end))
        if cat == 'kernel':
            (comm if is_comm(name) else comp).append((start, end))
    busy = union_us(rounded)
    span = merged(rounded)[-1][1] - merged(rounded)[0][0]
    compute = union_us(comp)
    comm_total = sum(e - s for s, e in merged(comm))
    return {
        'kernel_time_us': span, 'idle_us': span - busy, 'compute_us': compute,
        'non_compute_us': busy - compute, 'kernel_sum_us': sum(e - s for s, e in rounded),
        'overlap_pct': round(100 * overlap_us(comp, comm) / comm_total, 2) if comm_total else None,
        'flipped': sum(1 for s, e in rounded if e <= s),
    }


def overlap_report():
    """check_sql_extras.py's report, device 1 alone: compute against NCCL."""
    import check_sql_extras as cse
    path = os.path.join(WORK, 'overlap.sqlite')
    cse.make_report(path)
    db = sqlite3.connect(path)
    for table in ('CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY',
                  'CUPTI_ACTIVITY_KIND_MEMSET'):
        db.execute(f'DELETE FROM {table} WHERE deviceId != 1')
    db.commit()
    db.close()
    return path


def job(name, stems):
    out = os.path.join(WORK, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    reports = [s if s.endswith('.sqlite') else sg.unpacked(os.path.join(CORPUS, s + '.sqlite.gz'), WORK)
               for s in stems]
    run([NSYSP, '-q', '--format', 'kineto', '-o', out + '/', *reports])
    files = sorted(glob.glob(os.path.join(out, '*.json.gz')))
    ranks = json.loads(run([NSYSP, 'ranks', '--format', 'json', *reports]))['ranks']
    expect(len(files) == len(ranks), f'{name}: {len(files)} files for {len(ranks)} ranks', show_ok=True)
    hta = json.loads(run([RUN_HTA, os.path.join(HERE, 'kineto_hta_figures.py'), out]))
    for r in ranks:
        device = r['devices'][0]
        trace = os.path.join(out, f'rank{r["rank"]}.perfetto-trace')
        run([NSYSP, '-q', '-o', trace, r['report']])
        ops_rows, summary, overlap = sg.tp_queries(
            trace, [OPS_SQL, SUMMARY_SQL, OVERLAP_SQL], package=PACKAGE, tp=TP,
            modules=['nsys.extras.gpu_utilization', 'nsys.extras.compute_comm'])
        ops = [(o['ts'], o['dur'], o['name'], o['category']) for o in ops_rows
               if o['device'] == device]
        s = next(x for x in summary if x['device'] == device)
        o = next((x for x in overlap if x['device'] == device), None)
        n_kernels = sum(1 for op in ops if op[3] == 'kernel')
        ours = {
            'kernel_time_us': (s['span_ns'] / 1000, 2),
            'idle_us': (s['idle_ns'] / 1000, 2 * len(ops) + 2),
            'compute_us': ((o['compute_ns'] if o else 0) / 1000, 2 * n_kernels),
            'non_compute_us': ((s['busy_ns'] - (o['compute_ns'] if o else 0)) / 1000,
                               2 * len(ops)),
            'kernel_sum_us': (sum(op[1] for op in ops) / 1000, 2 * len(ops)),
        }
        theirs = hta[str(r['rank'])]
        label = f'{name} rank {r["rank"]} (GPU {device}, {len(ops)} operations)'
        for key, (value, bound) in ours.items():
            diff = theirs[key] - value
            expect(abs(diff) <= bound, f'{label}: HTA {key} {theirs[key]:.0f} vs ours {value:.3f}'
                                       f' (off {diff:+.3f} us, bound {bound} us)', show_ok=True)
        if o and o['comm_ns']:
            ours_pct = 100 * o['overlap_ns'] / o['comm_ns']
            expect(abs(theirs['overlap_pct'] - ours_pct) <= 0.01 + 100 * 2 * n_kernels / (o['comm_ns'] / 1000),
                   f'{label}: HTA overlap {theirs["overlap_pct"]}% vs ours {ours_pct:.2f}%', show_ok=True)
        if name == 'hand_made_overlap':
            # By hand (check_sql_extras.py): compute [20,32) [43,44.5), communication [28,36)
            # [40,46) us: ours 13.5 us of compute, 5.5 of 14 overlapped (39.29%). HTA rounds
            # the gemm ending at 44.5 us down to 44: 13 us, 5 of 14 (35.71%), 9 non-compute.
            known = {'overlap_pct': 35.71, 'compute_us': 13.0, 'non_compute_us': 9.0,
                     'idle_us': 4.0, 'kernel_time_us': 26.0}
            for key, value in known.items():
                expect(abs(theirs[key] - value) < 1e-6, f'{label}: HTA {key} {theirs[key]} = {value}', show_ok=True)
        rep = replica(ops)
        slack = rep['flipped'] + 1e-6
        for key in ('kernel_time_us', 'idle_us', 'compute_us', 'non_compute_us', 'kernel_sum_us'):
            expect(abs(theirs[key] - rep[key]) <= slack,
                   f'{label}: HTA {key} {theirs[key]:.0f} = our operations rounded as HTA rounds '
                   f'{rep[key]:.0f} (slack {rep["flipped"]} us)', show_ok=True)
        if rep['overlap_pct'] is not None:
            expect(abs(theirs['overlap_pct'] - rep['overlap_pct']) <= 0.01 + slack,
                   f'{label}: HTA overlap {theirs["overlap_pct"]}% = {rep["overlap_pct"]}%', show_ok=True)


def main():
    needed = [os.path.join(CORPUS, s + '.sqlite.gz') for stems in JOBS.values() for s in stems]
    for path in needed + [TP, RUN_HTA]:
        if not os.path.exists(path):
            print(f'SKIP: {path} missing')
            return 77
    probe = subprocess.run([RUN_HTA, '-c', 'import hta'], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f'SKIP: HTA not importable: {probe.stderr.strip()[-300:]}')
        return 77
    os.makedirs(WORK, exist_ok=True)
    for name, stems in JOBS.items():
        job(name, stems)
    job('hand_made_overlap', [overlap_report()])
    if failures:
        print(f'{len(failures)} failure(s)')
        return 1
    print('HTA agrees')
    return 0


if __name__ == '__main__':
    sys.exit(main())
