#!/usr/bin/env python3
"""The tables beyond CUDA and NVTX, against the report's SQL: what each row
must be in the trace, where docs/timeline.md says it lands, and the comparison
with a trace_dump listing. Used on generated reports (check_tables.py) and
on every real report of the end-to-end tests (check_report.py).

  cuBLAS, cuDNN, MPI, OpenACC, OpenMP   slices (or instants when start == end)
                                        on the thread's row of that name
  CUDA_UM_GPU_PAGE_FAULT_EVENTS         slices on the GPU's "Page faults" row
  CUDA_UM_CPU_PAGE_FAULT_EVENTS         instants on the process's "Unified memory" row
  DIAGNOSTIC_EVENT                      instants on the global "Diagnostics" track
  CUDA_GPU_MEMORY_USAGE_EVENTS          "Memory in use" counters per GPU and per process
"""
import collections
import re

OPENACC_KINDS = ['Invalid', 'Device init', 'Device shutdown', 'Runtime shutdown', 'Enqueue launch',
                 'Enqueue upload', 'Enqueue download', 'Wait', 'Implicit wait', 'Compute construct',
                 'Update', 'Enter data', 'Exit data', 'Create', 'Delete', 'Alloc', 'Free']


def expected_rows(db, t, s, report_end):
    """(kind, ts, dur, name, row) for every row; kind S (slice) or I (instant)."""
    want = []

    def name_of(i):
        return s.get(i)

    for table, row in (('CUBLAS_EVENTS', 'cuBLAS'), ('CUDNN_EVENTS', 'cuDNN')):
        if table in t:
            for st, en, n in db.execute(f'SELECT start, "end", nameId FROM {table}'):
                want.append(('S', st, en - st, name_of(n), row))
    for table in ('MPI_P2P_EVENTS', 'MPI_COLLECTIVES_EVENTS', 'MPI_START_WAIT_EVENTS', 'MPI_OTHER_EVENTS'):
        if table in t:
            for st, en, n in db.execute(f'SELECT start, "end", textId FROM {table}'):
                end = en if en is not None else max(report_end, st)
                want.append(('S', st, end - st, name_of(n), 'MPI'))
    for table in ('CUPTI_ACTIVITY_KIND_OPENACC_DATA', 'CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH',
                  'CUPTI_ACTIVITY_KIND_OPENACC_OTHER'):
        if table in t:
            for st, en, n, kind, f, line in db.execute(
                    f'SELECT start, "end", nameId, eventKind, srcFile, lineNo FROM {table}'):
                base = name_of(n) or (OPENACC_KINDS[kind] if 0 <= kind < len(OPENACC_KINDS) else 'OpenACC')
                name = f'{base}@{name_of(f)}:{line}' if name_of(f) is not None and line is not None else base
                want.append(('S', st, en - st, name, 'OpenACC'))
    for table in sorted(x for x in t if x.startswith('OPENMP_EVENT_KIND_')):
        for st, en, n in db.execute(f'SELECT start, "end", nameId FROM {table}'):
            name = name_of(n)
            if name is None:  # e.g. MUTEX_RELEASED rows with nameId 0xFFFFFFFF
                name = table[len('OPENMP_EVENT_KIND_'):].replace('_', ' ').capitalize()
            want.append(('I', st, 0, name, 'OpenMP') if st == en else ('S', st, en - st, name, 'OpenMP'))
    if 'CUDA_UM_GPU_PAGE_FAULT_EVENTS' in t:
        for st, en in db.execute('SELECT start, "end" FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS'):
            want.append(('S', st, en - st, 'GPU page faults', 'Page faults'))
    if 'CUDA_UM_CPU_PAGE_FAULT_EVENTS' in t:
        for (st,) in db.execute('SELECT start FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS'):
            want.append(('I', st, 0, 'CPU page fault', 'Unified memory'))
    if 'DIAGNOSTIC_EVENT' in t:
        for st, text in db.execute('SELECT timestamp, text FROM DIAGNOSTIC_EVENT'):
            safe = (text or '').replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n')
            want.append(('I', st, 0, safe, 'Diagnostics'))
    return want


def expected_memory(db, t):
    """(ts, device, per-process?, bytes in use) after every allocation/free."""
    out = []
    if 'CUDA_GPU_MEMORY_USAGE_EVENTS' not in t:
        return out
    live, device_total, process_total = {}, collections.Counter(), collections.Counter()
    for st, gpid, dev, addr, size, op in db.execute(
            'SELECT start, globalPid, deviceId, address, bytes, memoryOperationType'
            ' FROM CUDA_GPU_MEMORY_USAGE_EVENTS ORDER BY start, rowid'):
        delta = size
        if op == 1:
            delta = -live.pop((gpid, addr), size)
        else:
            live[(gpid, addr)] = size
        device_total[dev] += delta
        process_total[(gpid, dev)] += delta
        out.append((st, dev, False, device_total[dev]))
        out.append((st, dev, True, process_total[(gpid, dev)]))
    return out


def report_end(db):
    """The report's stop time, where MPI calls left open end."""
    try:
        row = db.execute('SELECT stopTime FROM ANALYSIS_DETAILS').fetchone()
    except Exception:  # sqlite3.OperationalError: old exports lack the table
        row = None
    return row[0] if row and row[0] is not None else 0


def beyond_cuda_problems(db, t, s, shift, dump_text):
    """Differences between the report's rows beyond CUDA and NVTX and the
    trace's (trace_dump output); (problems, rows checked, memory values)."""
    problems = []
    want = collections.Counter((k, st + shift, d, n, row)
                               for k, st, d, n, row in expected_rows(db, t, s, report_end(db)))
    got, memory = collections.Counter(), []
    rows = set(row for _, _, _, _, row in want)
    for line in dump_text.splitlines():
        f = line.split('\t')
        if f[0] == 'S' and f[5].split(' / ')[-1] in rows:
            got[('S', int(f[1]), int(f[2]), f[4], f[5].split(' / ')[-1])] += 1
        elif f[0] == 'I' and f[4].split(' / ')[-1] in rows:
            got[('I', int(f[1]), 0, f[3], f[4].split(' / ')[-1])] += 1
        elif f[0] == 'C' and ' / Memory in use' in f[2]:
            dev = int(re.match(r'^GPU (\d+)', f[2]).group(1))
            memory.append((int(f[1]), dev, '[' in f[2].split(' / ')[-1], int(float(f[3]))))
    if got != want:
        problems.append(f'rows beyond CUDA differ: missing {list((want - got).items())[:3]}, '
                        f'extra {list((got - want).items())[:3]}')
    want_memory = collections.Counter((st + shift, d, p, v) for st, d, p, v in expected_memory(db, t))
    if collections.Counter(memory) != want_memory:
        problems.append('memory counters differ: '
                        f'missing {list((want_memory - collections.Counter(memory)).items())[:3]}, '
                        f'extra {list((collections.Counter(memory) - want_memory).items())[:3]}')
    return problems, sum(got.values()), len(memory)
