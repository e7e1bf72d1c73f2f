#!/usr/bin/env python3
"""check_early_work.py NSYS_PERFETTO NSYS_FIXTURE TRACE_DUMP WORKDIR [PFTRACE_CHECK]

GPU work can be stamped before the CUDA call that launched it (clock skew
between CPU and GPU timestamps; a 2024.2 export has a context sync 7 ms
before its cudaDeviceReset). Every operation whose (process,
correlationId) matches a call must still get its arrow, whichever comes
first, and no flow id may be left with one end.

A generated report (kernels, graph launches of several kernels, memcpys,
memsets, syncs) is copied with some of its operations of each kind moved
before their call, once with the tables kept in time order and once with
the moved rows left where they were (out of order). Each copy must:

- convert with as many flows as the report before the move, none dropped;
- put every flow id on exactly two events (the call and one operation);
- pass pftrace-check --strict.

Conversions count the GPU work per call in four parts (nsys_links.h), so
the early calls are found in the parts merged.
"""
import collections
import os
import re
import shutil
import sqlite3
import subprocess
import sys

MOVED_TABLES = ('CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY',
                'CUPTI_ACTIVITY_KIND_MEMSET', 'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION')


def move_before_calls(path, every, keep_order):
    """Moves every `every`-th operation with a call to start before that
    call (by 1-2 us, keeping its duration); returns rows moved per table."""
    db = sqlite3.connect(path)
    moved = {}
    for t in MOVED_TABLES:
        moved[t] = db.execute(
            f'UPDATE "{t}" AS k SET start = c.start - 1000 - k.rowid % 1000,'
            f' "end" = c.start - 1000 - k.rowid % 1000 + (k."end" - k.start)'
            f' FROM (SELECT correlationId AS corr, globalTid >> 24 AS pid, min(start) AS start'
            f'       FROM CUPTI_ACTIVITY_KIND_RUNTIME GROUP BY 1, 2) AS c'
            f' WHERE c.corr = k.correlationId AND c.pid = k.globalPid >> 24'
            f' AND k.rowid % ? = 0', (every,)).rowcount
        if keep_order:
            db.execute(f'CREATE TEMP TABLE copy AS SELECT * FROM "{t}"')
            db.execute(f'DELETE FROM "{t}"')
            db.execute(f'INSERT INTO "{t}" SELECT * FROM temp.copy ORDER BY start')
            db.execute('DROP TABLE temp.copy')
    db.commit()
    db.close()
    return moved


def convert(bin_, path, problems):
    trace = path.replace('.sqlite', '.perfetto-trace')
    # In four parts, so that the early calls' SQL reads them merged.
    r = subprocess.run([bin_, '-q', '--stats', '--threads', '4', '-o', trace, path],
                       capture_output=True, text=True,
                       env=dict(os.environ, NSYSP_LINK_PART_ROWS='500'))
    if r.returncode != 0:
        problems.append(f'{path}: exit {r.returncode}: {r.stderr.strip()}')
        return trace, None, r.stderr
    m = re.search(r'flows (\d+)', r.stderr)
    if not m:
        problems.append(f'{path}: no flow count in --stats: {r.stderr[:300]}')
    return trace, int(m.group(1)) if m else None, r.stderr


def flow_ends(dump_bin, trace):
    out = subprocess.run([dump_bin, trace], capture_output=True, text=True, check=True).stdout
    ends = collections.defaultdict(collections.Counter)
    for line in out.splitlines():
        if line.startswith('F\t'):
            _, fid, kind = line.split('\t')
            ends[fid][kind] += 1
    return ends


def main():
    bin_, gen, dump_bin, work = sys.argv[1:5]
    check = sys.argv[5] if len(sys.argv) > 5 and os.path.exists(sys.argv[5]) else None
    os.makedirs(work, exist_ok=True)
    base = os.path.join(work, 'in-order.sqlite')
    if os.path.exists(base):
        os.remove(base)
    subprocess.run([gen, '--seed', '7', '--events', '4000', '--graphs', '3', '--all-tables', base],
                   check=True)
    problems = []
    _, base_flows, _ = convert(bin_, base, problems)
    if not base_flows or base_flows < 1000:
        problems.append(f'the generated report has {base_flows} flows; expected over 1000')

    for name, keep_order in (('early-sorted', True), ('early-unsorted', False)):
        path = os.path.join(work, name + '.sqlite')
        shutil.copy(base, path)
        moved = move_before_calls(path, 7, keep_order)
        for t, n in moved.items():
            if n < 10:
                problems.append(f'{name}: only {n} rows of {t} moved before their call')
        trace, flows, stderr = convert(bin_, path, problems)
        if flows != base_flows:
            problems.append(f'{name}: {flows} flows, {base_flows} before the move')
        if 'flows dropped' in stderr:
            problems.append(f'{name}: {stderr.strip()}')
        if os.path.exists(trace):
            ends = flow_ends(dump_bin, trace)
            bad = {f: dict(c) for f, c in ends.items() if sum(c.values()) != 2}
            if bad:
                problems.append(f'{name}: {len(bad)} flow ids not on exactly two events,'
                                f' e.g. {list(bad.items())[:3]}')
            if len(ends) != base_flows:
                problems.append(f'{name}: {len(ends)} flow ids in the trace, {base_flows} expected')
            if check:
                r = subprocess.run([sys.executable, check, '--strict', trace],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    problems.append(f'{name}: pftrace-check --strict: {r.stdout[-1500:]}'
                                    f'{r.stderr[-300:]}')
        print(f'{name}: moved {sum(moved.values())} operations before their call'
              f' ({", ".join(f"{t[20:].lower()} {n}" for t, n in moved.items())}); {flows} flows')

    for p in problems:
        print('FAIL:', p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
