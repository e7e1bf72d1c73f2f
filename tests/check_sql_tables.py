#!/usr/bin/env python3
"""check_sql_tables.py NSYS_PERFETTO TRACE_PROCESSOR_SHELL SQL_PACKAGE_DIR WORKDIR SQL_SCRIPT_CMD REPORT.sqlite.gz...

The typed tables of the nsys PerfettoSQL package (src/sql/nsys, docs/sql.md)
against the report they were converted from, on real reports:

1. nsys_kernels: count and summed duration per device, start times (relative
   to the first kernel), grid/block dimensions, registers, shared memory,
   correlation, context and stream ids, short and demangled names, all equal
   the report's CUPTI_ACTIVITY_KIND_KERNEL; every kernel whose call is in the
   report has it (api_call_id), with the same correlation id and process.
2. nsys_memcpys / nsys_memsets: count and bytes per copy kind, total bytes.
3. nsys_syncs: count per (context, stream); nsys_cuda_api_calls: count per
   name, correlation ids, return values, GPU operations launched.
4. nsys_nvtx_ranges / nsys_nvtx_marks: ranges per kind and domain, their
   durations, start threads and categories; marks.
5. nsys_gpus: one per device with work; name, SM count, memory, compute
   capability as TARGET_INFO_GPU says.
6. The same queries through `nsys-perfetto sql` pasted before them, without
   --add-sql-package (the Perfetto UI's query page), give the same answers.
7. With --kernel-names demangled, short_name still is the short name.

SQL_SCRIPT_CMD: the command printing the script (e.g. "NSYS_PERFETTO sql").
Exits 77 when trace_processor_shell or the reports are missing.
"""
import collections
import csv
import gzip
import io
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys

# Key/value rows computed from the typed tables. Values are text.
TRACE_QUERY = r"""
INCLUDE PERFETTO MODULE nsys.cuda;
INCLUDE PERFETTO MODULE nsys.nvtx;
INCLUDE PERFETTO MODULE nsys.gpus;
WITH k0 AS (SELECT min(ts) AS t0 FROM nsys_kernels)
SELECT 'kernel.dev' || device AS key,
       count(*) || ' ' || sum(dur) || ' ' || sum(ts - (SELECT t0 FROM k0)) || ' ' ||
       sum(grid_x * 7 + grid_y * 11 + grid_z * 13) || ' ' || sum(block_x * 7 + block_y * 11 + block_z * 13) || ' ' ||
       sum(registers_per_thread) || ' ' || sum(static_shared_memory) || ' ' ||
       sum(dynamic_shared_memory) || ' ' || sum(correlation_id) || ' ' || sum(context) || ' ' ||
       sum(stream) AS value
FROM nsys_kernels GROUP BY device
UNION ALL
SELECT 'kernel.name.' || short_name || ' | ' || coalesce(demangled_name, ''), count(*) || ' ' || sum(dur)
FROM nsys_kernels GROUP BY short_name, demangled_name
UNION ALL
SELECT 'kernel.with_call', count(*) FROM nsys_kernels WHERE api_call_id IS NOT NULL HAVING (SELECT count(*) FROM nsys_kernels) > 0
UNION ALL
SELECT 'kernel.call_mismatch', count(*) FROM nsys_kernels k JOIN nsys_cuda_api_calls c ON c.id = k.api_call_id
WHERE (c.correlation_id != k.correlation_id OR c.pid != k.pid OR k.launch_latency != k.ts - c.ts)
  AND (SELECT count(*) FROM nsys_kernels) > 0
HAVING (SELECT count(*) FROM nsys_kernels) > 0
UNION ALL
SELECT 'kernel.no_pid', count(*) FROM nsys_kernels WHERE pid IS NULL OR upid IS NULL OR gpu_track_id IS NULL
HAVING (SELECT count(*) FROM nsys_kernels) > 0
UNION ALL
SELECT 'memcpy.kind.' || copy_kind, count(*) || ' ' || sum(bytes) || ' ' || sum(dur) FROM nsys_memcpys GROUP BY copy_kind
UNION ALL
SELECT 'memset', count(*) || ' ' || sum(bytes) || ' ' || sum(dur) FROM nsys_memsets HAVING count(*) > 0
UNION ALL
SELECT 'sync.' || context || '.' || stream, count(*) || ' ' || sum(dur) FROM nsys_syncs GROUP BY context, stream
UNION ALL
SELECT 'api.' || full_name, count(*) || ' ' || sum(dur) || ' ' || sum(correlation_id) || ' ' || sum(return_value)
FROM nsys_cuda_api_calls GROUP BY full_name
UNION ALL
SELECT 'api.gpu_ops', sum(gpu_ops) FROM nsys_cuda_api_calls HAVING sum(gpu_ops) > 0
UNION ALL
SELECT 'api.no_thread', count(*) FROM nsys_cuda_api_calls WHERE utid IS NULL OR tid IS NULL OR pid IS NULL
HAVING (SELECT count(*) FROM nsys_cuda_api_calls) > 0
UNION ALL
SELECT 'nvtx.' || kind || '.' || domain,
       count(*) || ' ' || sum(iif(unterminated, 0, dur)) || ' ' || sum(unterminated) || ' ' || sum(tid) || ' ' ||
       count(category)
FROM nsys_nvtx_ranges GROUP BY kind, domain
UNION ALL
SELECT 'nvtx.no_thread', count(*) FROM nsys_nvtx_ranges WHERE utid IS NULL OR tid IS NULL OR pid IS NULL
HAVING (SELECT count(*) FROM nsys_nvtx_ranges) > 0
UNION ALL
SELECT 'nvtx.mark.' || domain, count(*) || ' ' || sum(tid) FROM nsys_nvtx_marks GROUP BY domain
UNION ALL
SELECT 'gpu.' || device, coalesce(name, '-') || ' ' || coalesce(sm_count, '-') || ' ' ||
       coalesce(total_memory, '-') || ' ' || coalesce(compute_capability, '-')
FROM nsys_gpus
"""

PUSH_POP = (59, 70)
START_END = (60, 71)


def columns(db, table):
    return {r[1] for r in db.execute(f"PRAGMA table_info({table})")}


def has(db, table):
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None


def display_name(name):
    """cudaLaunchKernel_v7000 -> cudaLaunchKernel (as the converter shows it)."""
    m = re.match(r'^(.*?)_v\d+$', name)
    return m.group(1) if m and len(m.group(1)) >= 1 else name


def expected(db):
    out = {}
    s = dict(db.execute("SELECT id, value FROM StringIds"))
    contexts_device = {}
    if has(db, 'CUPTI_ACTIVITY_KIND_KERNEL'):
        kc = columns(db, 'CUPTI_ACTIVITY_KIND_KERNEL')
        rows = db.execute("SELECT start, end, deviceId, gridX, gridY, gridZ, blockX, blockY, blockZ, "
                          "registersPerThread, staticSharedMemory, dynamicSharedMemory, correlationId, "
                          "contextId, streamId, shortName, demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL "
                          "WHERE start IS NOT NULL AND end >= start").fetchall()
        t0 = min(r[0] for r in rows) if rows else 0
        per = collections.defaultdict(lambda: [0] * 11)
        names = collections.defaultdict(lambda: [0, 0])
        for r in rows:
            a = per[r[2]]
            vals = [1, r[1] - r[0], r[0] - t0, r[3] * 7 + r[4] * 11 + r[5] * 13,
                    r[6] * 7 + r[7] * 11 + r[8] * 13, r[9], r[10], r[11], r[12], r[13], r[14]]
            for i, v in enumerate(vals):
                a[i] += v
            contexts_device[r[13]] = r[2]
            key = f"kernel.name.{s.get(r[15])} | {s.get(r[16]) or ''}"
            names[key][0] += 1
            names[key][1] += r[1] - r[0]
        for dev, a in per.items():
            out[f'kernel.dev{dev}'] = ' '.join(str(v) for v in a)
        for k, v in names.items():
            out[k] = f'{v[0]} {v[1]}'
        # Kernels whose call is in the report (same process and correlation id).
        if 'globalPid' in kc:
            n = db.execute("""SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE EXISTS (
                SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.correlationId = k.correlationId
                AND r.globalTid / 16777216 % 16777216 = k.globalPid / 16777216 % 16777216)""").fetchone()[0]
            out['kernel.with_call'] = str(n)
        out['kernel.call_mismatch'] = '0'
        out['kernel.no_pid'] = '0'
    if has(db, 'CUPTI_ACTIVITY_KIND_MEMCPY'):
        # nsys's own numbering where the export has no ENUM tables (before 2022.4).
        enum = {1: 'Host-to-Device', 2: 'Device-to-Host', 8: 'Device-to-Device', 10: 'Peer-to-Peer'}
        if has(db, 'ENUM_CUDA_MEMCPY_OPER'):
            enum = dict(db.execute("SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER"))
        per = collections.defaultdict(lambda: [0, 0, 0])
        for kind, n, b, d in db.execute("SELECT copyKind, count(*), sum(bytes), sum(end - start) FROM "
                                        "CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY copyKind"):
            a = per[enum.get(kind, kind)]
            a[0] += n; a[1] += b; a[2] += d
        for k, a in per.items():
            out[f'memcpy.kind.{k}'] = ' '.join(map(str, a))
    if has(db, 'CUPTI_ACTIVITY_KIND_MEMSET'):
        n, b, d = db.execute("SELECT count(*), sum(bytes), sum(end - start) FROM CUPTI_ACTIVITY_KIND_MEMSET").fetchone()
        if n:
            out['memset'] = f'{n} {b} {d}'
    if has(db, 'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION'):
        for c, st, n, d in db.execute("SELECT contextId, streamId, count(*), sum(end - start) FROM "
                                      "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION GROUP BY 1, 2"):
            out[f'sync.{c}.{st}'] = f'{n} {d}'
    if has(db, 'CUPTI_ACTIVITY_KIND_RUNTIME'):
        per = collections.defaultdict(lambda: [0, 0, 0, 0])
        for name, n, d, corr, rv in db.execute("SELECT nameId, count(*), sum(end - start), sum(correlationId), "
                                               "sum(returnValue) FROM CUPTI_ACTIVITY_KIND_RUNTIME GROUP BY nameId"):
            a = per[s.get(name)]
            a[0] += n; a[1] += d; a[2] += corr; a[3] += rv
        for k, a in per.items():
            out[f'api.{k}'] = ' '.join(map(str, a))
        out['api.no_thread'] = '0'
    if has(db, 'NVTX_EVENTS'):
        nc = columns(db, 'NVTX_EVENTS')
        dom_col = 'domainId' if 'domainId' in nc else '0'
        names = {}
        for gtid, dom, text in db.execute(f"SELECT globalTid, {dom_col}, text FROM NVTX_EVENTS WHERE eventType = 75"):
            names[(gtid // 16777216 % 16777216, dom)] = text
        stop = None
        if has(db, 'ANALYSIS_DETAILS'):
            stop = db.execute("SELECT stopTime FROM ANALYSIS_DETAILS").fetchone()[0]
        per = collections.defaultdict(lambda: [0, 0, 0, 0, 0])
        marks = collections.defaultdict(lambda: [0, 0])
        cat_col = 'category' if 'category' in nc else 'NULL'
        for et, start, end, gtid, dom, cat in db.execute(
                f"SELECT eventType, start, end, globalTid, {dom_col}, {cat_col} FROM NVTX_EVENTS "
                "WHERE eventType IN (34, 59, 60, 70, 71)"):
            pid = gtid // 16777216 % 16777216
            dom = dom or 0
            dname = 'default' if dom == 0 else names.get((pid, dom), f'domain {dom}')
            tid = gtid % 16777216
            if et == 34:
                m = marks[f'nvtx.mark.{dname}']
                m[0] += 1; m[1] += tid
                continue
            kind = 'push/pop' if et in PUSH_POP else 'start/end'
            a = per[f'nvtx.{kind}.{dname}']
            a[0] += 1
            if end is None:
                a[2] += 1
            else:
                a[1] += end - start
            a[3] += tid
            a[4] += 1 if cat not in (None, 0) else 0
        for k, a in per.items():
            out[k] = ' '.join(map(str, a))
        for k, a in marks.items():
            out[k] = ' '.join(map(str, a))
        out['nvtx.no_thread'] = '0'
    # GPU operations whose call is in the report (same process, correlation id).
    work_devices = set()
    launched = 0
    for t in ('CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET'):
        if not has(db, t):
            continue
        work_devices |= {r[0] for r in db.execute(f"SELECT DISTINCT deviceId FROM {t}")}
        if 'globalPid' in columns(db, t) and has(db, 'CUPTI_ACTIVITY_KIND_RUNTIME'):
            launched += db.execute(f"""SELECT count(*) FROM {t} k WHERE EXISTS (
                SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.correlationId = k.correlationId
                AND r.globalTid / 16777216 % 16777216 = k.globalPid / 16777216 % 16777216)""").fetchone()[0]
    if launched:
        out['api.gpu_ops'] = str(launched)
    if not has(db, 'TARGET_INFO_GPU'):
        for dev in work_devices:
            out[f'gpu.{dev}'] = '- - - -'
    if has(db, 'TARGET_INFO_GPU') and contexts_device:
        gc = columns(db, 'TARGET_INFO_GPU')
        idc = 'id' if 'id' in gc else 'deviceId'
        sel = ', '.join(c if c in gc else 'NULL' for c in
                        (idc, 'name', 'smCount', 'totalMemory', 'computeMajor', 'computeMinor'))
        seen = set()
        for dev, name, sm, mem, ma, mi in db.execute(f"SELECT {sel} FROM TARGET_INFO_GPU"):
            if dev in seen or dev not in set(contexts_device.values()):
                continue
            seen.add(dev)
            cc = f'{ma}.{mi}' if ma is not None and mi is not None else '-'
            out[f'gpu.{dev}'] = ' '.join('-' if v is None else str(v) for v in (name, sm, mem)) + ' ' + cc
    return out


def run_tp(tp, args, query_file, trace):
    p = subprocess.run([tp] + args + ['-q', query_file, trace], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"trace_processor_shell failed:\n{p.stderr[-3000:]}")
    rows = list(csv.reader(io.StringIO(p.stdout)))
    return {r[0]: r[1] for r in rows[1:] if len(r) == 2}


def main():
    nsysp, tp, pkg, work, script_cmd = sys.argv[1:6]
    reports = sys.argv[6:]
    if not os.path.exists(tp) or not reports or not all(os.path.exists(r) for r in reports):
        print('skip: trace_processor_shell or reports missing')
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    qfile = os.path.join(work, 'query.sql')
    with open(qfile, 'w') as f:
        f.write(TRACE_QUERY)
    p = subprocess.run(shlex.split(script_cmd), capture_output=True, text=True)
    if p.returncode != 0 or '-- ---- module nsys.cuda ----' not in p.stdout:
        print(f'FAIL: {script_cmd}: exit {p.returncode}: {p.stderr.strip()}')
        return 1
    script = p.stdout
    pasted = os.path.join(work, 'pasted.sql')
    with open(pasted, 'w') as f:
        f.write(script + '\n' + '\n'.join(l for l in TRACE_QUERY.splitlines()
                                          if not l.startswith('INCLUDE PERFETTO MODULE nsys.')))
    failures = 0
    for gz in reports:
        name = os.path.basename(gz)[:-len('.gz')] if gz.endswith('.gz') else os.path.basename(gz)
        src = os.path.join(work, name)
        with gzip.open(gz) as i, open(src, 'wb') as o:
            shutil.copyfileobj(i, o)
        trace = src + '.perfetto-trace'
        subprocess.run([nsysp, '-q', src, '-o', trace], check=True)
        db = sqlite3.connect(f'file:{src}?mode=ro', uri=True)
        want = expected(db)
        got = run_tp(tp, ['--add-sql-package', pkg], qfile, trace)
        bad = [(k, want.get(k), got.get(k)) for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k)]
        for k, w, g in bad[:20]:
            print(f'FAIL {name}: {k}: report says {w!r}, tables say {g!r}')
        failures += len(bad)
        pasted_got = run_tp(tp, [], pasted, trace)
        if pasted_got != got:
            print(f'FAIL {name}: the pasted script answers differently from the package')
            failures += 1
        print(f'{name}: {len(want)} checks, {len(bad)} differ' + (', pasted script agrees' if pasted_got == got else ''))
        # --kernel-names demangled keeps the short name.
        if any(k.startswith('kernel.name.') for k in want):
            subprocess.run([nsysp, '-q', '--kernel-names', 'demangled', src, '-o', trace], check=True)
            dgot = run_tp(tp, ['--add-sql-package', pkg], qfile, trace)
            dbad = [k for k in want if k.startswith('kernel.') and want[k] != dgot.get(k)]
            for k in dbad[:5]:
                print(f'FAIL {name} --kernel-names demangled: {k}: {want[k]!r} vs {dgot.get(k)!r}')
            failures += len(dbad)
        os.remove(src)
    print('ok' if not failures else f'{failures} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
