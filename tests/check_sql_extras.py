#!/usr/bin/env python3
"""check_sql_extras.py NSYS_PERFETTO TRACE_PROCESSOR_SHELL SQL_PACKAGE_DIR WORKDIR PFTRACE_CHECK [REPORT.sqlite.gz...]

The nsys.extras modules of the PerfettoSQL package (src/sql/nsys/extras,
docs/sql.md) and the converter's "GPU utilization" counter:

1. On a report written here whose answers were worked out by hand:
   - GPU utilization: two streams with overlapping and touching kernels, a
     memcpy and a memset on a third, a kernel of no duration: the busy
     stretches, the steps of nsys_gpu_utilization, the counter's values
     (100 where a stretch starts, 0 where it ends), the summary, and bins;
   - compute against communication: compute kernels and NCCL kernels
     (ncclKernel_*, ncclDevKernel_*) overlapping on two streams of one GPU:
     compute, communication, overlapped and exposed time;
   - iterations: an NVTX range "step" repeated 5 times on a thread, each
     launching known kernels (one step with two concurrent ones, a call at
     a step's very end that is not inside it): per iteration its CPU time,
     GPU projection, busy time, kernels, ranks, and the p50/p90 summary;
     three PyTorch op ranges (`aten::to, seq = 1, op_id = 11`, ...) are one
     loop of their op `aten::to`, with their whole texts, and the default
     loop stays "step" though they cover more time.
2. On real reports: the busy time per GPU and the compute/communication
   figures equal the same computed in Python from the report's SQL; the
   counter equals nsys_gpu_utilization step for step; utilization stays in
   [0, 100] and the bins add up to the busy time; overlap <= min(compute,
   comm) and exposed = comm - overlap; the default loop's iterations per
   thread equal the NVTX range count of that name in the report, and their
   GPU operations equal the converter's NVTX projection of those ranges.
   Every trace passes pftrace-check with zero errors.

Exits 77 when trace_processor_shell is missing.
"""
import csv
import gzip
import io
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sql_golden as sg  # noqa: E402

GPID = (1 << 48) | (100 << 24)
MAIN = GPID | 100
LAUNCH, MEMCPY_CALL = 1, 5

# ---- The hand-made report -------------------------------------------------

# Device 0 (context 1): utilization. (start, end, stream, kind)
DEV0 = [
    (1000, 3000, 7, 'k'), (2000, 4000, 8, 'k'),   # overlap on two streams
    (4000, 5000, 8, 'k'),                         # touches: same stretch
    (6000, 7000, 7, 'k'),
    (8000, 9000, 9, 'memcpy'), (9000, 9500, 9, 'memset'),  # touch
    (9800, 9800, 7, 'k'),                         # no duration: no work
]
# Busy stretches [1000,5000) [6000,7000) [8000,9500) by hand.
DEV0_STEPS = [(1000, 4000, 100), (5000, 1000, 0), (6000, 1000, 100), (7000, 1000, 0),
              (8000, 1500, 100)]
DEV0_COUNTER = [(1000, 100), (5000, 0), (6000, 100), (7000, 0), (8000, 100), (9500, 0)]
DEV0_SUMMARY = '1000 9500 8500 6500 2000 3'  # first, last end, span, busy, idle, stretches

# Device 1 (context 2): compute against NCCL. (start, end, stream, name)
DEV1 = [
    (20000, 30000, 11, 'gemm'), (25000, 32000, 12, 'gemm'),
    (28000, 36000, 13, 'ncclKernel_AllReduce_RING_LL_Sum_float'),
    (40000, 45000, 13, 'ncclDevKernel_AllGather_RING_LL'),
    (43000, 44500, 11, 'gemm'),
    (44000, 46000, 14, 'ncclDevKernel_SendRecv'),
]
# compute union [20000,32000) [43000,44500) = 13500; comm union [28000,36000)
# [40000,46000) = 14000; overlap [28000,32000) + [43000,44500) = 5500;
# exposed 8500. Device 0: 5 compute kernels (one of no duration), 5000 ns.
CC = {0: '5 0 5000 0 0 0 5000', 1: '3 3 13500 14000 5500 8500 8000'}
DEV1_SUMMARY = '20000 46000 26000 22000 4000 2'

# Device 2 (context 3): iterations. "step" i starts at 100000 + 10000 i.
STEP_DUR = [5000, 6000, 9000, 5500, 7000]
STEP_KERNELS = [1, 2, 3, 2, 4]


def steps_work():
    """Calls (start, corr) on MAIN and kernels (start, end, stream, corr) on
    device 2; "step" 2 adds a kernel on stream 22 over its first two; a call
    at step 0's very end launches a kernel outside any step."""
    calls, kernels, corr = [], [], 100
    for i, n in enumerate(STEP_KERNELS):
        s = 100000 + 10000 * i
        for j in range(n):
            corr += 1
            calls.append((s + 100 + 100 * j, corr))
            kernels.append((s + 1000 + 800 * j, s + 1500 + 800 * j, 21, corr))
        if i == 2:
            corr += 1
            calls.append((s + 150, corr))
            kernels.append((s + 1200, s + 2000, 22, corr))
    corr += 1
    calls.append((100000 + STEP_DUR[0], corr))
    kernels.append((106000, 106500, 21, corr))
    return calls, kernels


# Per iteration: dur, cuda_calls, gpu_ops, kernels, kernel_ns, gpu_ts offset,
# gpu_dur, gpu_busy_ns, cpu_rank, gpu_rank (worked out by hand).
ITER = [
    (5000, 1, 1, 1, 500, 1000, 500, 500, 5, 5),
    (6000, 2, 2, 2, 1000, 1000, 1300, 1000, 3, 3),
    (9000, 4, 4, 4, 2300, 1000, 2100, 1800, 1, 2),
    (5500, 2, 2, 2, 1000, 1000, 1300, 1000, 4, 3),
    (7000, 4, 4, 4, 2000, 1000, 2900, 2000, 2, 1),
]
# iterations total min p50 p90 max gpu_p50 gpu_p90 kernels slowest_iteration
ITER_SUMMARY = '5 32500 5000 6000 9000 9000 1300 2900 13 3'


# PyTorch op ranges (emit_nvtx), top level, after the steps: one op, three
# calls, longer in total (36000 ns) than the steps (32500 ns). The trace
# names them by their op, so they repeat; the default loop stays "step".
TORCH_RANGES = [(150000, 162000, 'aten::to, seq = 1, op_id = 11'),
                (163000, 175000, 'aten::to, seq = 2, op_id = 12'),
                (176000, 188000, 'aten::to, op_id = 13')]


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
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER, end INTEGER, deviceId INTEGER,
            contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,
            bytes INTEGER, value INTEGER, memKind INTEGER);
        CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, rangeId INTEGER,
            category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER,
            textId INTEGER, domainId INTEGER);
    ''')
    names = {'cudaLaunchKernel_v7000': 1, 'k': 2, 'gemm': 3}
    for n in sorted({name for *_, name in DEV1} - set(names)):
        names[n] = len(names) + 1
    db.executemany('INSERT INTO StringIds VALUES (?, ?)', [(i, n) for n, i in names.items()])
    db.execute('INSERT INTO ANALYSIS_DETAILS VALUES (0, 200000, 0, 200000)')
    corr = 0
    for s, e, stream, kind in DEV0:
        corr += 1
        if kind == 'k':
            db.execute('INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, ?, ?, ?, 2)',
                       (s, e, stream, corr, GPID))
        elif kind == 'memcpy':
            db.execute('INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, ?, ?, ?, 64, 1, 0, 2)',
                       (s, e, stream, corr, GPID))
        else:
            db.execute('INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?, ?, 0, 1, ?, ?, ?, 64, 0, 2)',
                       (s, e, stream, corr, GPID))
    for s, e, stream, name in DEV1:
        corr += 1
        db.execute('INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 1, 2, ?, ?, ?, ?)',
                   (s, e, stream, corr, GPID, names[name]))
    calls, kernels = steps_work()
    db.executemany('INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, 1, 0)',
                   [(s, s + 50, MAIN, c) for s, c in calls])
    db.executemany('INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 2, 3, ?, ?, ?, 3)',
                   [(s, e, st, c, GPID) for s, e, st, c in kernels])
    nvtx = []
    for i, d in enumerate(STEP_DUR):
        s = 100000 + 10000 * i
        nvtx.append((s, s + d, 'step'))
        nvtx.append((s + 50, s + 900, 'fwd'))       # nested: not a loop of its own
    nvtx += [(90000, 90100, 'setup'), (90200, 90300, 'setup')]  # repeated, short
    nvtx += TORCH_RANGES
    db.executemany('INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, NULL, NULL, NULL, ?, ?, NULL, NULL, 0)',
                   [(s, e, t, MAIN) for s, e, t in sorted(nvtx)])
    db.commit()
    db.close()


# ---- Queries ----------------------------------------------------------------

INCLUDES = '''
INCLUDE PERFETTO MODULE nsys.extras.gpu_utilization;
INCLUDE PERFETTO MODULE nsys.extras.compute_comm;
INCLUDE PERFETTO MODULE nsys.extras.iterations;
INCLUDE PERFETTO MODULE nsys.nvtx;
'''

# Key/value rows both parts use: the counter against the table, ranges,
# invariants.
COMMON = r'''
CREATE PERFETTO TABLE _chk_counter AS
WITH c AS (
  SELECT ct.parent_id AS gpu_track_id, c.ts, c.value,
         lead(c.ts) OVER (PARTITION BY c.track_id ORDER BY c.ts) AS next_ts,
         extract_arg(ct.source_arg_set_id, 'sibling_order_rank') AS rank,
         ct.unit
  FROM counter c JOIN counter_track ct ON ct.id = c.track_id
  WHERE ct.name = 'GPU utilization'
)
SELECT * FROM c;
CREATE PERFETTO TABLE _chk_counter_steps AS
SELECT gpu_track_id, ts, next_ts - ts AS dur, value FROM _chk_counter WHERE next_ts IS NOT NULL;
SELECT 'counter.vs_table', (
  SELECT count(*) FROM (SELECT gpu_track_id, ts, dur, value FROM _chk_counter_steps
                        EXCEPT SELECT gpu_track_id, ts, dur, value FROM nsys_gpu_utilization))
  + (SELECT count(*) FROM (SELECT gpu_track_id, ts, dur, value FROM nsys_gpu_utilization
                           EXCEPT SELECT gpu_track_id, ts, dur, value FROM _chk_counter_steps))
UNION ALL
SELECT 'counter.last_not_zero_at_end', count(*) FROM nsys_gpu_utilization_summary s
WHERE NOT EXISTS (SELECT 1 FROM _chk_counter c WHERE c.gpu_track_id = s.gpu_track_id
                  AND c.next_ts IS NULL AND c.ts = s.last_end AND c.value = 0)
UNION ALL
SELECT 'counter.gpus_without', count(*) FROM nsys_gpu_utilization_summary s
WHERE NOT EXISTS (SELECT 1 FROM _chk_counter c WHERE c.gpu_track_id = s.gpu_track_id)
UNION ALL
SELECT 'counter.rank_or_unit', count(*) FROM _chk_counter
WHERE rank IS NOT -1 OR unit IS NOT '%' OR gpu_track_id NOT IN (SELECT gpu_track_id FROM nsys_gpus)
UNION ALL
SELECT 'util.out_of_range', (SELECT count(*) FROM nsys_gpu_utilization WHERE value NOT IN (0, 100) OR dur <= 0)
  + (SELECT count(*) FROM nsys_gpu_utilization_bins(NULL) WHERE value < 0 OR value > 100)
  + (SELECT count(*) FROM nsys_gpu_utilization_summary WHERE utilization_pct < 0 OR utilization_pct > 100)
UNION ALL
SELECT 'util.bins_vs_busy', count(*) FROM nsys_gpu_utilization_summary s
WHERE s.busy_ns != (SELECT sum(busy_ns) FROM nsys_gpu_utilization_bins(NULL) b WHERE b.gpu_track_id = s.gpu_track_id)
UNION ALL
SELECT 'cc.invariants', count(*) FROM nsys_compute_comm_overlap
WHERE overlap_ns > min(compute_ns, comm_ns) OR exposed_comm_ns != comm_ns - overlap_ns
   OR overlap_ns < 0 OR exposed_comm_ns < 0
UNION ALL
SELECT 'busy.' || device, busy_ns FROM nsys_gpu_utilization_summary
UNION ALL
SELECT 'cc.' || device, compute_kernels || ' ' || comm_kernels || ' ' || compute_ns || ' ' || comm_ns
       || ' ' || overlap_ns || ' ' || exposed_comm_ns || ' ' || compute_only_ns
FROM nsys_compute_comm_overlap
'''

COMMON_ZERO = ['counter.vs_table', 'counter.last_not_zero_at_end', 'counter.gpus_without',
               'counter.rank_or_unit', 'util.out_of_range', 'util.bins_vs_busy', 'cc.invariants']

SYNTHETIC = COMMON + r'''
UNION ALL
SELECT 'steps.' || device, (SELECT group_concat(ts || ':' || dur || ':' || cast_int!(value), ' ')
  FROM (SELECT * FROM nsys_gpu_utilization u WHERE u.gpu_track_id = g.gpu_track_id ORDER BY ts))
FROM nsys_gpus g
UNION ALL
SELECT 'counter.' || g.device, (SELECT group_concat(ts || ':' || cast_int!(value), ' ')
  FROM (SELECT * FROM _chk_counter c WHERE c.gpu_track_id = g.gpu_track_id ORDER BY ts))
FROM nsys_gpus g
UNION ALL
SELECT 'summary.' || device, first_ts || ' ' || last_end || ' ' || span_ns || ' ' || busy_ns || ' '
       || idle_ns || ' ' || stretches FROM nsys_gpu_utilization_summary
UNION ALL
SELECT 'bins.' || device, (SELECT group_concat(bin || ':' || busy_ns, ' ')
  FROM (SELECT * FROM nsys_gpu_utilization_bins(2000) b WHERE b.gpu_track_id = g.gpu_track_id
        AND b.busy_ns > 0 ORDER BY bin))
FROM nsys_gpus g
UNION ALL
SELECT 'trace_start', start_ts FROM trace_bounds
UNION ALL
SELECT 'iter.' || iteration, dur || ' ' || cuda_calls || ' ' || gpu_ops || ' ' || kernels || ' ' ||
       kernel_ns || ' ' || (gpu_ts - ts) || ' ' || gpu_dur || ' ' || gpu_busy_ns || ' ' || cpu_rank ||
       ' ' || gpu_rank || ' ' || iterations || ' ' || (ts - 100000 - 10000 * (iteration - 1))
FROM nsys_iterations('step')
UNION ALL
SELECT 'iter.top', (SELECT group_concat(iteration, ' ') FROM (SELECT * FROM nsys_top_iterations ORDER BY ts))
  || ' ' || (SELECT min(name) || '/' || count(DISTINCT name) FROM nsys_top_iterations)
UNION ALL
SELECT 'iter.summary', iterations || ' ' || total_ns || ' ' || min_ns || ' ' || p50_ns || ' ' ||
       p90_ns || ' ' || max_ns || ' ' || gpu_p50_ns || ' ' || gpu_p90_ns || ' ' || kernels || ' ' ||
       slowest_iteration
FROM nsys_top_iteration_summary
UNION ALL
SELECT 'iter.glob', count(*) FROM nsys_iterations('st*p')
UNION ALL
SELECT 'repeated', group_concat(name || ':' || count || ':' || pytorch_op, ' ')
FROM (SELECT * FROM nsys_repeated_ranges ORDER BY name)
UNION ALL
SELECT 'iter.op', count(*) || ' ' || max(iterations) || ' ' || group_concat(text, '|') || ' ' || sum(dur)
FROM (SELECT * FROM nsys_iterations('aten::to') ORDER BY ts)
UNION ALL
SELECT 'iter.op_text', count(*) || ' ' || min(name) FROM nsys_iterations('aten::to, seq = 2, op_id = 12')
'''

REAL = COMMON + r'''
UNION ALL
SELECT 'iter.name', name FROM _nsys_top_iteration_range
UNION ALL
SELECT 'iter.count.' || i.tid, count(*)
FROM _nsys_top_iteration_range t JOIN nsys_iterations(t.name) i GROUP BY i.tid
UNION ALL
SELECT 'iter.gpu_ops.' || i.tid, sum(i.gpu_ops)
FROM _nsys_top_iteration_range t JOIN nsys_iterations(t.name) i
WHERE i.id IN (SELECT id FROM nsys_nvtx_ranges WHERE end_tid IS NULL)
GROUP BY i.tid
UNION ALL
SELECT 'iter.projected_ops.' || g.tid, sum(g.gpu_ops)
FROM _nsys_top_iteration_range t JOIN nsys_nvtx_gpu_ranges g ON g.name = t.name
WHERE g.tid IN (SELECT tid FROM nsys_top_iterations)
GROUP BY g.tid
UNION ALL
SELECT 'iter.bad', count(*) FROM nsys_top_iterations
WHERE gpu_busy_ns > coalesce(gpu_dur, 0) OR kernel_ns < 0 OR kernels > gpu_ops OR gpu_ops < 0
   OR iteration > iterations OR cpu_rank > iterations
'''


def run_tp(tp, pkg, query, work, trace):
    qfile = os.path.join(work, 'query.sql')
    with open(qfile, 'w') as f:
        f.write(INCLUDES + query + ';\n')
    p = subprocess.run([tp, '--add-sql-package', pkg, '-q', qfile, trace],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f'trace_processor_shell failed:\n{p.stderr[-3000:]}')
    # The output of the last statement: the key/value rows.
    last = p.stdout.strip().split('\n\n')[-1]
    rows = list(csv.reader(io.StringIO(last)))
    return {r[0]: r[1] for r in rows[1:] if len(r) == 2}


def pftrace_check(checker, trace, problems, name):
    if not checker or not os.path.exists(checker):
        return
    p = subprocess.run([checker, trace], capture_output=True, text=True)
    if p.returncode != 0 or 'result: OK' not in p.stdout:
        problems.append(f'{name}: pftrace-check: {p.stdout[-600:]}{p.stderr[-300:]}')


def check_common(name, got, problems):
    for k in COMMON_ZERO:
        if got.get(k) != '0':
            problems.append(f'{name}: {k} = {got.get(k)!r}, want 0')


# ---- Python references on the report ----------------------------------------

def union(intervals):
    segs = []
    for s, e in sorted(i for i in intervals if i[1] > i[0]):
        if segs and s <= segs[-1][1]:
            segs[-1][1] = max(segs[-1][1], e)
        else:
            segs.append([s, e])
    return segs


def overlap(a, b):
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def has(db, table):
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None


def expected_real(db):
    out = {}
    work, kernels = {}, {}
    strings = dict(db.execute('SELECT id, value FROM StringIds'))
    for table in ('CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET'):
        if not has(db, table):
            continue
        short = ', shortName' if table.endswith('KERNEL') else ', NULL'
        for s, e, dev, sn in db.execute(f'SELECT start, end, deviceId{short} FROM {table} '
                                        'WHERE start IS NOT NULL AND end IS NOT NULL AND streamId IS NOT NULL'):
            work.setdefault(dev, []).append((s, e))
            if table.endswith('KERNEL'):
                comm = str(strings.get(sn, '')).lower().startswith('nccl')
                kernels.setdefault(dev, {'compute': [], 'comm': []})['comm' if comm else 'compute'].append((s, e))
    for dev, iv in work.items():
        out[f'busy.{dev}'] = str(sum(e - s for s, e in union(iv)))
    for dev, k in kernels.items():
        cu, cm = union(k['compute']), union(k['comm'])
        c, m, o = sum(e - s for s, e in cu), sum(e - s for s, e in cm), overlap(cu, cm)
        out[f'cc.{dev}'] = (f"{sum(1 for s, e in k['compute'])} {len(k['comm'])} {c} {m} {o} {m - o} {c - o}")
    return out


def nvtx_counts(db, name):
    """Ranges named `name` per tid (all domains), as the report has them: a PyTorch op range
    (`aten::to, seq = 12, op_id = 998949`) is named by its op, as in the trace."""
    if not has(db, 'NVTX_EVENTS'):
        return {}
    strings = dict(db.execute('SELECT id, value FROM StringIds'))
    counts = {}
    for text, text_id, tid in db.execute(
            'SELECT text, textId, globalTid FROM NVTX_EVENTS WHERE eventType IN (59, 60, 70, 71) '
            'AND start IS NOT NULL AND globalTid IS NOT NULL'):
        n = sg.torch_op(text if text is not None else strings.get(text_id))
        if n == name:
            t = str(tid & 0xFFFFFF)
            counts[t] = counts.get(t, 0) + 1
    return counts


# ---- Main -------------------------------------------------------------------

def check_synthetic(nsysp, tp, pkg, work, checker, problems):
    report = os.path.join(work, 'extras.sqlite')
    make_report(report)
    trace = report + '.perfetto-trace'
    subprocess.run([nsysp, '-q', report, '-o', trace], check=True)
    pftrace_check(checker, trace, problems, 'synthetic')
    got = run_tp(tp, pkg, SYNTHETIC, work, trace)
    check_common('synthetic', got, problems)
    if got.get('trace_start') is None:
        problems.append('synthetic: no trace bounds')
        return
    t0 = int(got['trace_start'])
    want = {
        'steps.0': ' '.join(f'{t}:{d}:{v}' for t, d, v in DEV0_STEPS),
        'counter.0': ' '.join(f'{t}:{v}' for t, v in DEV0_COUNTER),
        'summary.0': DEV0_SUMMARY,
        'summary.1': DEV1_SUMMARY,
        'steps.1': '20000:16000:100 36000:4000:0 40000:6000:100',
        'counter.1': '20000:100 36000:0 40000:100 46000:0',
        'busy.0': '6500', 'busy.1': '22000',
        'cc.0': CC[0], 'cc.1': CC[1],
        'iter.summary': ITER_SUMMARY,
        'iter.top': '1 2 3 4 5 step/1',
        'iter.glob': '5',
        'repeated': 'aten::to:3:1 setup:2:0 step:5:0',
        'iter.op': '3 3 ' + '|'.join(t for *_, t in TORCH_RANGES) + ' 36000',
        'iter.op_text': '1 aten::to',
    }
    # Bins of 2000 ns from the trace's start, worked out from the stretches.
    for dev, stretches in ((0, [(1000, 5000), (6000, 7000), (8000, 9500)]),
                           (1, [(20000, 36000), (40000, 46000)])):
        bins = {}
        for s, e in stretches:
            for b in range((s - t0) // 2000, (e - 1 - t0) // 2000 + 1):
                lo, hi = max(s, t0 + 2000 * b), min(e, t0 + 2000 * (b + 1))
                bins[b] = bins.get(b, 0) + hi - lo
        want[f'bins.{dev}'] = ' '.join(f'{b}:{v}' for b, v in sorted(bins.items()))
    for i, (dur, calls, ops, kern, kns, goff, gdur, busy, crank, grank) in enumerate(ITER, 1):
        want[f'iter.{i}'] = f'{dur} {calls} {ops} {kern} {kns} {goff} {gdur} {busy} {crank} {grank} 5 0'
    for k, v in want.items():
        if got.get(k) != v:
            problems.append(f'synthetic: {k}: got {got.get(k)!r}, want {v!r}')
    # Device 2 (the steps' kernels): busy time as Python computes it.
    _, kernels = steps_work()
    busy2 = str(sum(e - s for s, e in union([(s, e) for s, e, *_ in kernels])))
    if got.get('busy.2') != busy2:
        problems.append(f'synthetic: busy.2 {got.get("busy.2")!r}, want {busy2}')
    print(f'synthetic: {len(want) + len(COMMON_ZERO) + 1} checks')


def check_real(nsysp, tp, pkg, work, checker, gz, problems):
    name = os.path.basename(gz)[:-3] if gz.endswith('.gz') else os.path.basename(gz)
    src = os.path.join(work, name)
    with gzip.open(gz) as i, open(src, 'wb') as o:
        shutil.copyfileobj(i, o)
    trace = src + '.perfetto-trace'
    subprocess.run([nsysp, '-q', src, '-o', trace], check=True)
    pftrace_check(checker, trace, problems, name)
    got = run_tp(tp, pkg, REAL, work, trace)
    check_common(name, got, problems)
    db = sqlite3.connect(f'file:{src}?mode=ro', uri=True)
    want = expected_real(db)
    top = got.get('iter.name')
    if top is not None:
        for tid, n in nvtx_counts(db, top).items():
            want[f'iter.count.{tid}'] = str(n)
    db.close()
    for k in sorted(set(want) | {k for k in got if k.startswith(('busy.', 'cc.', 'iter.count.'))
                                 and k not in COMMON_ZERO}):
        if got.get(k) != want.get(k):
            problems.append(f'{name}: {k}: tables say {got.get(k)!r}, report says {want.get(k)!r}')
    for k in [k for k in got if k.startswith('iter.gpu_ops.')]:
        p = 'iter.projected_ops.' + k.split('.')[-1]
        if got.get(p, '0') != got[k] and not (got[k] == '0' and p not in got):
            problems.append(f'{name}: {k} = {got[k]} but the converter projected {got.get(p)}')
    if got.get('iter.bad', '0') != '0':
        problems.append(f'{name}: iter.bad = {got["iter.bad"]}')
    cc = {k: v for k, v in got.items() if k.startswith('cc.') and k not in COMMON_ZERO}
    util = {k: v for k, v in got.items() if k.startswith('busy.')}
    iters = {k: v for k, v in got.items() if k.startswith(('iter.count.', 'iter.gpu_ops.'))}
    print(f'{name}: busy {util}; compute/comm {cc}; loop {top!r} {iters}')
    os.remove(src)


def main():
    nsysp, tp, pkg, work, checker = sys.argv[1:6]
    reports = [r for r in sys.argv[6:] if os.path.exists(r)]
    if not os.path.exists(tp):
        print('skip: trace_processor_shell missing')
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    problems = []
    check_synthetic(nsysp, tp, pkg, work, checker, problems)
    for gz in reports:
        check_real(nsysp, tp, pkg, work, checker, gz, problems)
    if len(reports) < len(sys.argv[6:]):
        print(f'note: {len(sys.argv[6:]) - len(reports)} report(s) missing, not checked')
    for p in problems:
        print('FAIL', p)
    if problems:
        return 1
    print(f'ok: known answers on the synthetic report; {len(reports)} real report(s) agree')
    return 0


if __name__ == '__main__':
    sys.exit(main())
