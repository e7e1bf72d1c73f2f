#!/usr/bin/env python3
"""check_gpu_groups.py NSYS_PERFETTO NSYS_FIXTURE TRACE_DUMP WORKDIR [PFTRACE_CHECK] [REPORT.sqlite.gz...]

What a GPU engineer sees in a GPU group, read back in the UI's order
(trace_dump's R lines):

1. Rows sit on the device their context runs on, not the row's deviceId
   (many exports stamp sync rows with device 0): no GPU group holds only
   synchronization, and every sync row is in the group of its context's
   device (check_report.py compares every row with SQL).
2. The work comes first, under the GPU utilization counter (the union of
   the GPU's kernels, memcpys and memsets, as nsys-ui's collapsed CUDA HW
   row): streams in id order, each followed by its graph
   and sync rows, then the Synchronization row, NVTX rows, page faults,
   Memory in use, and last the nested "GPU metrics" group, which holds
   every GPU metric counter. Every child of a GPU group has an explicit
   rank.
3. Each process's rows on a GPU are together, processes in pid order;
   a stream that only synchronized has no row of its own: its syncs are on
   the process's Synchronization row, with the stream in their args.

On a generated report made to show all three (two processes on two GPUs,
every sync row stamped device 0, syncs on streams that ran no work, GPU
metrics, memory usage, NVTX) and on the real reports given.
"""
import collections
import gzip
import os
import re
import shutil
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
STREAM = re.compile(r'(?:^Stream (\d+)|\(Stream (\d+)\))')
PID_LABEL = re.compile(r' \[(\d+)\]$')
# Top to bottom in a GPU group (or a process's group in it).
ORDER = ['utilization', 'stream', 'synchronization', 'nvtx', 'page faults', 'memory', 'metrics']


def tree(dump_text):
    """The R lines as nodes {name, kind, rank, children} under a root."""
    root = {'name': '', 'kind': 'root', 'rank': None, 'children': []}
    stack = [root]
    for line in dump_text.splitlines():
        if not line.startswith('R\t'):
            continue
        _, depth, rank, kind, name = line.split('\t', 4)
        node = {'name': name, 'kind': kind, 'rank': None if rank == '-' else int(rank),
                'children': []}
        del stack[int(depth) + 1:]
        stack[-1]['children'].append(node)
        stack.append(node)
    return root


def category(node):
    name = node['name']
    if node['children'] and name == 'GPU metrics':
        return 'metrics'
    if node['children']:
        return 'stream'  # a process's group: its streams first
    if name == 'GPU utilization':
        return 'utilization'
    if name.startswith('Synchronization'):
        return 'synchronization'
    if name.startswith('NVTX'):
        return 'nvtx'
    if name.startswith('Page faults'):
        return 'page faults'
    if name.startswith('Memory in use'):
        return 'memory'
    if STREAM.search(name):
        return 'stream'
    return None


def stream_key(name):
    m = STREAM.search(name)
    kind = 2 if ' sync' in name else 1 if ' graphs' in name else 0
    return (int(m.group(1) or m.group(2)), kind)


def leaves(node):
    if not node['children']:
        yield node
    for c in node['children']:
        yield from leaves(c)


def check_group(group, where, problems):
    """Order and contents of a GPU group or a process's group in it."""
    kids = group['children']
    for k in kids:
        if k['rank'] is None:
            problems.append(f'{where}: {k["name"]!r} has no rank')
        if k['kind'] == 'counter' and category(k) not in ('utilization', 'memory', 'metrics'):
            problems.append(f'{where}: counter {k["name"]!r} among the rows')
        if category(k) is None:
            problems.append(f'{where}: unexpected row {k["name"]!r}')
    cats = [ORDER.index(category(k)) for k in kids if category(k)]
    if cats != sorted(cats):
        problems.append(f'{where}: rows out of order: {[k["name"] for k in kids][:12]}')
    streams = [stream_key(k['name']) for k in kids if not k['children'] and STREAM.search(k['name'])]
    if streams != sorted(streams):
        problems.append(f'{where}: streams out of id order: {streams[:12]}')
    work = {s for s, kind in streams if kind == 0}
    sync_only = sorted({s for s, kind in streams if kind == 2} - work)
    if sync_only:
        problems.append(f'{where}: sync rows of streams that ran no work: {sync_only[:5]}')
    for k in kids:
        if k['children'] and k['name'] != 'GPU metrics':
            check_group(k, f'{where} / {k["name"]}', problems)
    metrics = [k for k in kids if k['name'] == 'GPU metrics']
    for m in metrics:
        if any(leaf['kind'] != 'counter' for leaf in leaves(m)):
            problems.append(f'{where}: GPU metrics group holds more than counters')


def check_tree(root, problems, stats):
    gpus = [n for n in root['children'] if n['name'].startswith('GPU ')]
    stats['gpu groups'] += len(gpus)
    for g in gpus:
        where = g['name'][:40]
        rows = list(leaves(g))
        syncs = [r for r in rows if ' sync' in r['name'] or r['name'].startswith('Synchronization')]
        if syncs and len(syncs) == len(rows):
            problems.append(f'{where}: only synchronization: {[r["name"] for r in rows][:5]}')
        # Each process's rows together, processes in pid order.
        pids = []
        for r in rows:
            m = PID_LABEL.search(r['name'])
            if m and (not pids or pids[-1] != int(m.group(1))):
                pids.append(int(m.group(1)))
        if len(pids) != len(set(pids)) or pids != sorted(pids):
            problems.append(f'{where}: processes interleaved or out of pid order: {pids[:10]}')
        stats['processes on GPUs'] += len(set(pids))
        stats['metric counters'] += sum(len(list(leaves(k))) for k in g['children']
                                        if k['name'] == 'GPU metrics')
        check_group(g, where, problems)


def convert(bin_, dump_bin, check, report, problems, compare_rows):
    trace = report.replace('.sqlite', '.perfetto-trace')
    r = subprocess.run([bin_, '-q', '--stats', '-o', trace, report], capture_output=True, text=True)
    if r.returncode != 0:
        problems.append(f'{report}: exit {r.returncode}: {r.stderr.strip()}')
        return None, None
    with open(trace + '.stats', 'w') as f:
        f.write(r.stderr)
    if check:
        c = subprocess.run([sys.executable, check, '--strict', trace], capture_output=True, text=True)
        if c.returncode != 0:
            problems.append(f'{report}: pftrace-check --strict: {c.stdout[-800:]}')
    # Every row against SQL, sync rows by their context's device (the
    # end-to-end tests do it for the real reports).
    c = compare_rows and subprocess.run([sys.executable, os.path.join(HERE, 'check_report.py'), report, trace,
                        dump_bin, '', trace + '.stats'], capture_output=True, text=True)
    if c and c.returncode != 0:
        problems.append(f'check_report: {c.stdout[-1500:]}{c.stderr[-500:]}')
    dump = subprocess.run([dump_bin, trace], capture_output=True, text=True, check=True,
                          errors='replace').stdout
    return trace, dump


def misplaced_syncs(path):
    """Sync rows whose deviceId is not their context's device (by its work)."""
    db = sqlite3.connect(f'file:{path}?mode=ro', uri=True)
    from check_report import context_devices, tables
    ctx = context_devices(db, tables(db))
    n = sum(ctx.get((g, c), d) != d for g, c, d in db.execute(
        'SELECT globalPid, contextId, deviceId FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION'))
    db.close()
    return n


def one_gpu(bin_, dump_bin, check, report, device):
    """--gpu N keeps the rows placed on GPU N, sync rows by their context,
    and links exactly those: every flow id on two events, none left open,
    and as many arrows as operations there with a call."""
    problems = []
    trace = report.replace('.sqlite', f'-gpu{device}.perfetto-trace')
    subprocess.run([bin_, '-q', '--gpu', str(device), '-o', trace, report], check=True)
    dump = subprocess.run([dump_bin, trace], capture_output=True, text=True, check=True).stdout
    ends = collections.Counter(l.split('\t')[1] for l in dump.splitlines() if l.startswith('F\t'))
    unpaired = [f for f, n in ends.items() if n != 2]
    db = sqlite3.connect(f'file:{report}?mode=ro', uri=True)
    from check_report import context_devices, tables
    ctx = context_devices(db, tables(db))
    calls = {(g >> 24, c) for g, c in db.execute(
        'SELECT globalTid, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME')}
    want_syncs = want_arrows = 0
    for table in ('KERNEL', 'MEMCPY', 'MEMSET', 'SYNCHRONIZATION'):
        for g, c, d, corr in db.execute(f'SELECT globalPid, contextId, deviceId, correlationId'
                                        f' FROM CUPTI_ACTIVITY_KIND_{table}'):
            if ctx.get((g, c), d) == device:
                want_syncs += table == 'SYNCHRONIZATION'
                want_arrows += (g >> 24, corr) in calls
    db.close()
    if unpaired or len(ends) != want_arrows:
        problems.append(f'--gpu {device}: {len(ends)} flow ids, {want_arrows} operations with a'
                        f' call there; {len(unpaired)} not on two events')
    got = sum(1 for l in dump.splitlines() if l.startswith('S\t') and l.split('\t')[3] == 'sync')
    if got != want_syncs or not want_syncs:
        problems.append(f'--gpu {device}: {got} sync slices, {want_syncs} sync rows of contexts there')
    if check:
        c = subprocess.run([sys.executable, check, '--strict', trace], capture_output=True, text=True)
        if c.returncode != 0:
            problems.append(f'--gpu {device}: pftrace-check --strict: {c.stdout[-800:]}')
    return problems


def make_fixture(gen, work):
    """Two processes on two GPUs; every sync stamped device 0, and 40 syncs
    on stream 9999, which runs no work."""
    path = os.path.join(work, 'groups.sqlite')
    if os.path.exists(path):
        os.remove(path)
    subprocess.run([gen, '--seed', '12', '--events', '6000', '--gpus', '2', '--processes', '2',
                    '--nvtx', '--gpu-metrics', '50', '--all-tables', path], check=True)
    db = sqlite3.connect(path)
    db.execute('UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET deviceId = 0')
    cols = [r[1] for r in db.execute('PRAGMA table_info(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)')]
    sel = ', '.join('9999' if c == 'streamId' else 'NULL' if c == 'correlationId' else f'"{c}"'
                    for c in cols)
    db.execute(f'INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SELECT {sel}'
               f' FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE streamId != 4294967295'
               f' ORDER BY start LIMIT 40')
    # Keep the table in time order, as exports store it.
    db.execute('CREATE TEMP TABLE copy AS SELECT * FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION')
    db.execute('DELETE FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION')
    db.execute('INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SELECT * FROM temp.copy ORDER BY start')
    db.commit()
    db.close()
    return path


def main():
    bin_, gen, dump_bin, work = sys.argv[1:5]
    check = sys.argv[5] if len(sys.argv) > 5 and os.path.exists(sys.argv[5]) else None
    real = [p for p in sys.argv[6:] if os.path.exists(p)]
    os.makedirs(work, exist_ok=True)
    problems = []
    reports = [make_fixture(gen, work)]
    for gz in real:
        path = os.path.join(work, os.path.basename(gz)[:-3])
        if not os.path.exists(path):
            with gzip.open(gz) as src, open(path + '.part', 'wb') as dst:
                shutil.copyfileobj(src, dst)
            os.rename(path + '.part', path)
        reports.append(path)
    for report in reports:
        found, stats = [], collections.Counter()
        trace, dump = convert(bin_, dump_bin, check, report, found, report == reports[0])
        if dump is not None:
            check_tree(tree(dump), found, stats)
        moved = misplaced_syncs(report)
        if report == reports[0]:
            # The generated report must show every point.
            if moved < 100:
                found.append(f'only {moved} sync rows stamped off their context\'s device')
            if stats['processes on GPUs'] < 2 or stats['metric counters'] < 4:
                found.append(f'too little to check: {dict(stats)}')
            on_sync_row = [l for l in (dump or '').splitlines() if l.startswith('S\t')
                           and l.split('\t')[5].split(' / ')[-1].startswith('Synchronization')
                           and 'stream=9999' in l.split('\t')[6].split(';')]
            if len(on_sync_row) != 40:
                found.append(f'{len(on_sync_row)} syncs of stream 9999 on a Synchronization row,'
                             ' expected 40')
        if report == reports[0]:
            found += one_gpu(bin_, dump_bin, check, report, 0)
            found += one_gpu(bin_, dump_bin, check, report, 1)
        name = os.path.basename(report)[-60:]
        print(f'{name}: {dict(stats)}, {moved} sync rows placed by context'
              + (f'; {len(found)} problems' if found else ''))
        problems += [f'{name}: {p}' for p in found]
    for p in problems[:40]:
        print('FAIL:', p)
    if len(problems) > 40:
        print(f'... and {len(problems) - 40} more')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
