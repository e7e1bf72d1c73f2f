#!/usr/bin/env python3
"""check_report.py REPORT.sqlite TRACE TRACE_DUMP [PFTRACE_CHECK [STATS]]

End-to-end check of one conversion against the report's own SQL:
  * pftrace-check (trace_processor's import rules) finds no error or warning;
  * every kernel, memcpy, memset and sync row is a slice (kernels with the
    exact name) with exact ns timestamps, shifted by the trace's one
    constant, if any, in the group of the GPU its context's work ran on
    (sync rows often say device 0); one group per device; GPU metrics in
    each GPU's nested "GPU metrics" group;
  * every CUDA runtime/driver row is a slice on its thread's CUDA API row
    with the exact (suffix-stripped) name and timestamps;
  * one flow arrow per GPU operation whose (process, correlationId) matches
    an API call;
  * every NVTX push/pop and start/end range is a slice and every mark an
    instant, with the exact name (text or registered string) and start, and
    the exact duration unless the range was left open;
  * every OS runtime call is a slice with its name, timestamps and call
    chain; every sched-in/out row is a context switch on its CPU at its time
    (and each CPU's switches chain: prev = the previous next); every periodic
    CPU sample is a perf sample of its thread with its full call chain,
    outermost frame first, symbol and module names exact;
  * every cuBLAS, cuDNN, MPI, OpenACC, OpenMP, unified-memory fault,
    diagnostic and GPU memory-usage row lands where docs/timeline.md says with its
    exact name and times (check_beyond_cuda.py);
  * no slice is left unterminated or unmatched;
  * with STATS (the converter's --stats output): every source read all rows
    of its table, and rows = events + skipped for each.
Exit 0 when all hold, 1 otherwise (with what differs).
"""
import collections
import json
import re
import sqlite3
import subprocess
import sys

from check_accounting_helper import accounting
from check_beyond_cuda import beyond_cuda_problems
from torch_names import torch_op, torch_range, torch_text

NULL_NAME_KERNEL = '(unnamed kernel)'
NULL_NAME_API = '(unnamed CUDA call)'


def connect(path):
    return sqlite3.connect(f'file:{path}?mode=ro&immutable=1', uri=True)


def tables(db):
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def columns(db, table):
    return {r[1] for r in db.execute(f'PRAGMA table_info("{table}")')}


def strings(db):
    return {i: v for i, v in db.execute('SELECT id, value FROM StringIds')}


def api_display(name):
    m = re.match(r'^(.*)_v\d+$', name)
    return m.group(1) if m and m.group(1) else name


GPU_TABLES = {
    'memcpy': 'CUPTI_ACTIVITY_KIND_MEMCPY',
    'memset': 'CUPTI_ACTIVITY_KIND_MEMSET',
    'sync': 'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION',
    'graph': 'CUPTI_ACTIVITY_KIND_GRAPH_TRACE',
}


WORK_TABLES = ('CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY',
               'CUPTI_ACTIVITY_KIND_MEMSET', 'CUPTI_ACTIVITY_KIND_GRAPH_TRACE')


def context_devices(db, t):
    """(globalPid, contextId) -> the device most of the context's work ran
    on: GPU rows go to their context's device (sync rows often say 0)."""
    votes = collections.defaultdict(collections.Counter)
    for table in WORK_TABLES:
        if table in t and {'globalPid', 'contextId'} <= columns(db, table):
            for g, c, d, n in db.execute(f'SELECT globalPid, contextId, deviceId, count(*)'
                                         f' FROM {table} WHERE deviceId IS NOT NULL GROUP BY 1, 2, 3'):
                if g is not None and c is not None:
                    votes[(g, c)][d] += n
    return {k: max(v.items(), key=lambda kv: (kv[1], -kv[0]))[0] for k, v in votes.items()}


def gpu_rows(db, table, starts, ctx):
    """(start, dur, device) of the usable rows of a GPU table."""
    rows = []
    cols = columns(db, table)
    gpid = 'globalPid' if 'globalPid' in cols else 'NULL'
    context = 'contextId' if 'contextId' in cols else 'NULL'
    for start, end, dev, stream, g, c in db.execute(
            f'SELECT start, "end", deviceId, streamId, {gpid}, {context} FROM {table}'):
        if start is not None:
            starts.append(start)
        if start is None or end is None or end < start or dev is None or stream is None:
            continue
        rows.append((start, end - start, ctx.get((g, c), dev)))
    return rows


def expected_flows(db, t):
    """GPU operations whose (globalPid, correlationId) matches an API call."""
    api = 'CUPTI_ACTIVITY_KIND_RUNTIME'
    if api not in t or 'correlationId' not in columns(db, api):
        return 0
    keys = {(g - (g & 0xFFFFFF), c) for g, c in db.execute(
        f'SELECT globalTid, correlationId FROM {api} WHERE correlationId IS NOT NULL AND globalTid IS NOT NULL')}
    n = 0
    for table in ['CUPTI_ACTIVITY_KIND_KERNEL'] + list(GPU_TABLES.values()):
        if table in t and {'globalPid', 'correlationId'} <= columns(db, table):
            for gpid, corr, start, end, dev, stream in db.execute(
                    f'SELECT globalPid, correlationId, start, "end", deviceId, streamId FROM {table}'):
                usable = None not in (start, end, dev, stream) and end >= start
                n += usable and (gpid, corr) in keys
    return n


def chains(db, table, s):
    """id -> "symbol@module|..." outermost first, as the converter writes it."""
    out = collections.defaultdict(list)
    for cid, sym, mod in db.execute(
            f'SELECT id, symbol, module FROM {table} ORDER BY id, stackDepth DESC'):
        out[cid].append(f'{s.get(sym) or "[unknown]"}@{s.get(mod) or "[unknown]"}')
    return {k: '|'.join(v) for k, v in out.items()}


def expected_cpu(db, t, s, starts):
    """OS runtime calls, sched ins and outs, and samples of the report."""
    osrt, ins, outs, samples = [], [], [], []
    if 'OSRT_API' in t:
        ch = chains(db, 'OSRT_CALLCHAINS', s) if 'OSRT_CALLCHAINS' in t else {}
        cc = 'callchainId' if 'callchainId' in columns(db, 'OSRT_API') else 'NULL'
        for start, end, name, c in db.execute(f'SELECT start, "end", nameId, {cc} FROM OSRT_API'):
            if start is not None:
                starts.append(start)
            if start is not None and end is not None and end >= start:
                osrt.append((start, end - start, s.get(name, '(unnamed OS runtime call)'),
                             ch.get(c, '')))
    if 'SCHED_EVENTS' in t:
        ins, outs = expected_switches(db, starts)
    if 'COMPOSITE_EVENTS' in t:
        ch = chains(db, 'SAMPLING_CALLCHAINS', s) if 'SAMPLING_CALLCHAINS' in t else {}
        for cid, start, gtid in db.execute(
                'SELECT id, start, globalTid FROM COMPOSITE_EVENTS WHERE cpuCycles = 1'):
            starts.append(start)
            samples.append((start, gtid & 0xFFFFFF, ch.get(cid, '')))
    return osrt, ins, outs, samples


def expected_switches(db, starts):
    """Sched-ins (time, cpu, thread) and sched-outs, in the converter's order (time,
    sched-outs first), as docs/timeline.md says: the idle task's rows (thread id 0, whatever
    the process field, as Grace Hopper captures write them) are no switch of their own, but
    its sched-in switches out whoever ran; a repeated sched-in and a sched-out of a thread
    that is not running are skipped (counted in --stats)."""
    ins, outs, running, seen = [], [], {}, set()
    for start, cpu, is_in, gtid in db.execute(
            'SELECT start, cpu, isSchedIn, globalTid FROM SCHED_EVENTS ORDER BY start, isSchedIn'):
        starts.append(start)
        tid, ran = gtid & 0xFFFFFF, running.get(cpu, 0)
        if tid == 0:
            if not (is_in and ran):
                continue
            outs.append((start, cpu, ran & 0xFFFFFF))
        elif is_in:
            if ran == gtid:
                continue
            ins.append((start, cpu, tid))
        elif ran == gtid or (not ran and cpu not in seen):
            outs.append((start, cpu, tid))
        else:
            continue
        running[cpu] = gtid if is_in and tid else 0
        seen.add(cpu)
    return ins, outs


def expected_metrics(db, t, starts):
    """(ts, device, metric, value) of every GPU metric sample, both forms."""
    out = []
    if 'GPU_METRICS' in t:
        names = {}
        if 'TARGET_INFO_GPU_METRICS' in t:
            names = {(ty, m): n for ty, m, n in db.execute(
                'SELECT typeId, metricId, metricName FROM TARGET_INFO_GPU_METRICS')}
        # 2023.4 exports have no rawTimestamp in GPU_METRICS (later ones do).
        cols = {r[1] for r in db.execute('PRAGMA table_info(GPU_METRICS)')}
        ts_sql = 'COALESCE(timestamp, rawTimestamp)' if 'rawTimestamp' in cols else 'timestamp'
        for ts, ty, m, v in db.execute(f'SELECT {ts_sql}, typeId, metricId, value FROM GPU_METRICS'):
            starts.append(ts)
            out.append((ts, ty & 0xFF, names.get((ty, m), f'metric {m}'), float(v)))
    if 'GENERIC_EVENTS' in t and 'GENERIC_EVENT_SOURCES' in t:
        sources = {s for s, d in db.execute('SELECT sourceId, data FROM GENERIC_EVENT_SOURCES')
                   if '"GpuMetrics"' in (d or '')}
        types = {ty for ty, s in db.execute('SELECT typeId, sourceId FROM GENERIC_EVENT_TYPES')
                 if s in sources}
        for ts, ty, data in db.execute(
                'SELECT COALESCE(timestamp, rawTimestamp), typeId, data FROM GENERIC_EVENTS'):
            if ty not in types:
                continue
            starts.append(ts)
            for k, v in json.loads(data).items():
                out.append((ts, ty & 0xFF, k, float(v)))
    return out


# Tables read by sources that the checks above do not model row by row:
# their times still count for the trace's shift.
OTHER_TIMES = {
    'DIAGNOSTIC_EVENT': 'timestamp', 'CUDA_GPU_MEMORY_USAGE_EVENTS': 'start',
    'CUBLAS_EVENTS': 'start', 'CUDNN_EVENTS': 'start', 'MPI_P2P_EVENTS': 'start',
    'MPI_COLLECTIVES_EVENTS': 'start', 'MPI_START_WAIT_EVENTS': 'start', 'MPI_OTHER_EVENTS': 'start',
    'CUPTI_ACTIVITY_KIND_OPENACC_DATA': 'start', 'CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH': 'start',
    'CUPTI_ACTIVITY_KIND_OPENACC_OTHER': 'start', 'CUDA_UM_CPU_PAGE_FAULT_EVENTS': 'start',
    'CUDA_UM_GPU_PAGE_FAULT_EVENTS': 'start', 'CUDA_GRAPH_EVENTS': 'start',
    'CUDA_GRAPH_NODE_EVENTS': 'start',
}


def expected(db, starts=None):
    """What the trace must hold; starts (a list) receives every row's start."""
    t = tables(db)
    s = strings(db) if 'StringIds' in t else {}
    kernels, apis = [], []
    starts = [] if starts is None else starts
    ctx = context_devices(db, t)
    others = {cat: gpu_rows(db, table, starts, ctx) for cat, table in GPU_TABLES.items() if table in t}
    if 'CUPTI_ACTIVITY_KIND_KERNEL' in t:
        cols = columns(db, 'CUPTI_ACTIVITY_KIND_KERNEL')
        names = [c for c in ('shortName', 'demangledName', 'mangledName') if c in cols]
        sel = ', '.join(['start', '"end"', 'deviceId', 'streamId'] + names)
        for row in db.execute(f'SELECT {sel} FROM CUPTI_ACTIVITY_KIND_KERNEL'):
            start, end, dev, stream = row[:4]
            if start is not None:
                starts.append(start)
            if start is None or end is None or end < start or dev is None or stream is None:
                continue
            name = next((s[i] for i in row[4:] if i in s and s[i]), NULL_NAME_KERNEL)
            kernels.append((start, end - start, name, dev))
    if 'CUPTI_ACTIVITY_KIND_RUNTIME' in t:
        cols = columns(db, 'CUPTI_ACTIVITY_KIND_RUNTIME')
        ec = 'eventClass' if 'eventClass' in cols else 'NULL'
        for start, end, tid, name_id, klass in db.execute(
                f'SELECT start, "end", globalTid, nameId, {ec} FROM CUPTI_ACTIVITY_KIND_RUNTIME'):
            if start is not None:
                starts.append(start)
            if start is None or end is None or end < start or tid is None:
                continue
            name = api_display(s.get(name_id, NULL_NAME_API))
            cat = 'cuda_driver' if klass == 1 else 'cuda_runtime'
            apis.append((start, end - start, name, cat, tid & 0xFFFFFF))
    nvtx = []
    if 'NVTX_EVENTS' in t:
        cols = columns(db, 'NVTX_EVENTS')
        text_id = 'textId' if 'textId' in cols else 'NULL'
        domain_id = 'domainId' if 'domainId' in cols else 'NULL'
        domains = {}
        for gtid, dom, text, tid in db.execute(
                f'SELECT globalTid, {domain_id}, text, {text_id} FROM NVTX_EVENTS WHERE eventType = 75'):
            domains[(gtid >> 24, dom)] = text if text is not None else s.get(tid)
        for start, end, kind, text, tid, gtid, dom in db.execute(
                f'SELECT start, "end", eventType, text, {text_id}, globalTid, {domain_id}'
                ' FROM NVTX_EVENTS WHERE eventType IN (34, 59, 60, 70, 71)'):
            if start is not None:
                starts.append(start)
            if start is None or (end is not None and end < start):
                continue
            name = text if text is not None else s.get(tid, '')
            # Open ranges close at the report's end, which this check does not model.
            dur = 0 if kind == 34 else (end - start if end is not None else None)
            domain = 'default' if not dom else domains.get((gtid >> 24, dom), f'domain {dom}')
            nvtx.append((start, dur, name, domain))
    cpu = expected_cpu(db, t, s, starts) + (expected_metrics(db, t, starts),)
    for table, column in OTHER_TIMES.items():
        if table in t:
            low = db.execute(f'SELECT min("{column}") FROM "{table}"').fetchone()[0]
            if low is not None:
                starts.append(low)
    omp = [n for n in t if n.startswith('OPENMP_EVENT_KIND_')]
    for table in omp:
        low = db.execute(f'SELECT min(start) FROM "{table}"').fetchone()[0]
        if low is not None:
            starts.append(low)
    shift = -min(starts) if starts and min(starts) < 0 else 0
    return kernels, apis, others, nvtx, cpu, expected_flows(db, t), shift


def dump(trace, dump_bin):
    return subprocess.run([dump_bin, trace], check=True, capture_output=True,
                          text=True, errors='replace').stdout


def dumped(out):
    """What the trace holds, from trace_dump's listing."""
    kernels, apis, others, nvtx, problems = [], [], collections.defaultdict(list), [], []
    osrt, ins, outs, samples, metrics, running = [], [], [], [], [], {}
    flow_ids = collections.Counter()
    metric_of = {}  # a counter track's path -> (device, metric) or None: parsed once per track
    for line in out.splitlines():
        f = line.split('\t')
        if f[0] == 'X':
            problems.append(line)
        if f[0] == 'F':
            flow_ids[f[1]] += 1
        if f[0] == 'W':
            cpu, ts, prev, nxt = int(f[1]), int(f[2]), int(f[3]), int(f[5])
            if cpu in running and running[cpu] != prev:
                problems.append(f'cpu {cpu} at {ts}: switch from {prev}, but {running[cpu]} ran')
            running[cpu] = nxt
            if nxt:
                ins.append((ts, cpu, nxt))
            else:
                outs.append((ts, cpu, prev))
        if f[0] == 'P':
            samples.append((int(f[1]), int(f[4]), f[6]))
        if f[0] == 'C':
            if f[2] not in metric_of:
                path = f[2].split(' / ')
                m = re.match(r'^GPU (\d+)', path[0])
                metric_of[f[2]] = ((int(m.group(1)), path[2])
                                   if m and len(path) == 3 and path[1] == 'GPU metrics' else None)
            metric = metric_of[f[2]]
            if metric:
                metrics.append((int(f[1]), metric[0], metric[1], float(f[3])))
        if f[0] == 'I' and f[2] == 'nvtx':
            nvtx.append((int(f[1]), 0, f[3], f[5]))
        if f[0] != 'S':
            continue
        ts, dur, cat, name, path = int(f[1]), int(f[2]), f[3], f[4], f[5]
        if cat == 'nvtx':
            nvtx.append((ts, dur, name, f[6]))
        elif cat == 'osrt':
            osrt.append((ts, dur, name, f[8]))
        m = re.match(r'^GPU (\d+)', path)
        device = int(m.group(1)) if m else None
        if cat == 'kernel':
            kernels.append((ts, dur, name, device))
        elif cat in GPU_TABLES:
            others[cat].append((ts, dur, device))
        elif cat in ('cuda_runtime', 'cuda_driver'):
            if not path.endswith(' / CUDA API'):
                problems.append(f'API slice on unexpected track {path!r}')
            apis.append((ts, dur, name, cat))
    arrows = sum(n - 1 for n in flow_ids.values())
    # Each id joins one call to one GPU operation: a graph launch fans out
    # to all its kernels instead of chaining them.
    odd = [i for i, n in flow_ids.items() if n != 2]
    if odd:
        problems.append(f'{len(odd)} flow ids not used exactly twice, e.g. {odd[:3]}')
    return kernels, apis, others, nvtx, (osrt, ins, outs, samples, metrics), arrows, problems


def compare(what, want, got, problems):
    w, g = collections.Counter(want), collections.Counter(got)
    if dict.__eq__(w, g):  # Counter's own == walks both in Python; no zero counts here
        return
    missing, extra = w - g, g - w
    problems.append(f'{what}: {len(want)} expected, {len(got)} in trace; '
                    f'missing {sum(missing.values())} e.g. {list(missing)[:3]}; '
                    f'extra {sum(extra.values())} e.g. {list(extra)[:3]}')


def check_accounting(db, stats_path, problems):
    """Every row of every table read is an event or a counted skip."""
    text = open(stats_path, encoding='utf-8', errors='replace').read()
    problems.extend(accounting(db, text))


def main():
    report, trace, dump_bin = sys.argv[1:4]
    check_bin = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
    stats = sys.argv[5] if len(sys.argv) > 5 else None
    problems = []
    if check_bin:
        r = subprocess.run([sys.executable, check_bin, '--json', trace], capture_output=True, text=True)
        try:
            res = json.loads(r.stdout)
        except ValueError:
            res = None
        if r.returncode != 0 or res is None:
            problems.append(f'pftrace-check failed (exit {r.returncode}): {r.stdout[-2000:]}{r.stderr[-2000:]}')
        else:
            bad = [s for s in res.get('stats', []) if s.get('severity') in ('error', 'warning')]
            if bad:
                problems.append(f'pftrace-check errors/warnings: {bad[:5]}')
    db = connect(report)
    if stats:
        check_accounting(db, stats, problems)
    want_k, want_a, want_o, want_n, want_cpu, want_flows, shift = expected(db)
    listing = dump(trace, dump_bin)
    got_k, got_a, got_o, got_n, got_cpu, got_flows, more = dumped(listing)
    t = tables(db)
    more_problems, beyond_rows, memory_values = beyond_cuda_problems(
        db, t, strings(db) if 'StringIds' in t else {}, shift, listing)
    problems += more_problems
    for what, want, got in zip(('OS runtime calls', 'sched-ins', 'sched-outs', 'CPU samples',
                                'GPU metric values'),
                               want_cpu, got_cpu):
        compare(what, [(r[0] + shift,) + r[1:] for r in want], got, problems)
    problems += more
    compare('kernels', [(s + shift, d, n, dev) for s, d, n, dev in want_k], got_k, problems)
    compare('CUDA API calls', [(s + shift, d, n, c) for s, d, n, c, _ in want_a], got_a, problems)
    for cat, rows in want_o.items():
        compare(cat, [(s + shift, d, dev) for s, d, dev in rows], got_o.get(cat, []), problems)
    def nvtx_args(args):
        return dict(a.split('=', 1) for a in args.split(';') if '=' in a)
    # A PyTorch op range is named by its op, its parts in args that give
    # back its whole text (else that text is arg "text" too).
    compare('NVTX ranges and marks (start, duration, name, domain, text)',
            [(s + shift, d, torch_op(n), dom, n if torch_range(n) else None)
             for s, d, n, dom in want_n],
            [(s, None if 'unterminated' in nvtx_args(a) else d, n, nvtx_args(a).get('domain', 'default'),
              torch_text(n, nvtx_args(a))) for s, d, n, a in got_n], problems)
    if got_flows != want_flows:
        problems.append(f'flows: {got_flows} arrows, expected {want_flows}')
    devices = {r[-1] for r in want_k} | {r[-1] for rows in want_o.values() for r in rows}
    got_devices = {r[-1] for r in got_k} | {r[-1] for rows in got_o.values() for r in rows}
    if devices != got_devices:
        problems.append(f'GPU groups for devices {sorted(got_devices)}, expected {sorted(devices)}')
    if problems:
        print(f'{report}:')
        for p in problems:
            print('  ' + p)
        return 1
    print(f'ok: {len(got_k)} kernels, {len(got_a)} API calls, '
          + ', '.join(f'{len(v)} {k}' for k, v in got_o.items())
          + f', {len(got_n)} NVTX, {got_flows} flows, '
          + ', '.join(f'{len(v)} {k}' for k, v in zip(('osrt', 'sched-in', 'sched-out', 'samples',
                                                         'metric values'), got_cpu))
          + f', {beyond_rows} library/MPI/OpenACC/OpenMP/UM/diagnostic rows'
          + f', {memory_values} memory values, shift {shift}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
