#!/usr/bin/env python3
"""check_summary.py NSYS_PERFETTO REPORT.sqlite [REPORT.sqlite...]

`nsys-perfetto summary --csv` totals equal SQL sums on each report
(count, total, min, max per kernel name, memory operation named as nsys
2023.4 names it, CUDA API call without version suffix, NVTX range name
with its domain's, an open range ending at the last NVTX timestamp), and
several reports come out as labelled column groups with the right values;
a bad --kernel-names is refused in one line (exit 2, nothing printed).
"""
import collections
import csv
import io
import sqlite3
import subprocess
import sys

# nsys's copy kind labels, for exports without ENUM_CUDA_MEMCPY_OPER.
COPY_KINDS = ['Unknown', 'Host-to-Device', 'Device-to-Host', 'Host-to-Array', 'Array-to-Host',
              'Array-to-Array', 'Array-to-Device', 'Device-to-Array', 'Device-to-Device',
              'Host-to-Host', 'Peer-to-Peer', 'Unified Host-to-Device', 'Unified Device-to-Host',
              'Unified Device-to-Device']


# The GPU-time categories are checked by check_summary_gpu.py.
CPU_CATEGORIES = {'kernel', 'memory', 'cuda-api', 'nvtx'}


def expected(path):
    db = sqlite3.connect(f'file:{path}?mode=ro&immutable=1', uri=True)
    t = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    s = dict(db.execute('SELECT id, value FROM StringIds')) if 'StringIds' in t else {}
    acc = collections.defaultdict(lambda: [0, 0, None, None])

    def add(cat, name, dur):
        a = acc[(cat, name)]
        a[0] += 1
        a[1] += dur
        a[2] = dur if a[2] is None else min(a[2], dur)
        a[3] = dur if a[3] is None else max(a[3], dur)

    def rows(table, cols, where=''):
        if table in t:
            yield from db.execute(f'SELECT start, "end", {cols} FROM {table} WHERE "end" >= start {where}')
    for st, en, name in rows('CUPTI_ACTIVITY_KIND_KERNEL', 'shortName'):
        add('kernel', s[name], en - st)
    kinds = (dict(db.execute('SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER'))
             if 'ENUM_CUDA_MEMCPY_OPER' in t else dict(enumerate(COPY_KINDS)))
    for st, en, kind in rows('CUPTI_ACTIVITY_KIND_MEMCPY', 'copyKind'):
        label = kinds.get(kind)
        add('memory', f'[CUDA memcpy {label}]' if label else f'[CUDA memcpy kind {kind}]', en - st)
    for st, en, _ in rows('CUPTI_ACTIVITY_KIND_MEMSET', '1'):
        add('memory', '[CUDA memset]', en - st)
    for st, en, name in rows('CUPTI_ACTIVITY_KIND_RUNTIME', 'nameId'):
        full = s[name]
        # nsys stats drops the last six characters when they start with "_v".
        add('cuda-api', full[:-6] if len(full) > 6 and full[-6:-4] == '_v' else full, en - st)
    if 'NVTX_EVENTS' in t:
        # A domain's name per process (the first given), as nsys stats prefixes it.
        domains, pid = {}, 0xFFFFFF000000
        for dom, gtid, text in db.execute('SELECT domainId, globalTid, text FROM NVTX_EVENTS'
                                          ' WHERE eventType = 75 ORDER BY start DESC'):
            domains[dom, gtid & pid] = text
        last = db.execute('SELECT max(max(start), max("end")) FROM NVTX_EVENTS').fetchone()[0]
        for st, en, text, tid, dom, gtid in db.execute(
                'SELECT start, "end", text, textId, domainId, globalTid FROM NVTX_EVENTS'
                ' WHERE eventType IN (59, 60, 70, 71)'):
            name, en = text if text is not None else s.get(tid), last if en is None else en
            if name is not None and en >= st:
                d = domains.get((dom, gtid & pid))
                add('nvtx', f'{d}:{name}' if d else name, en - st)
    return {k: tuple(v) for k, v in acc.items()}


def main():
    bin_, reports = sys.argv[1], sys.argv[2:]
    labels = [f'run{i}' for i in range(len(reports))]
    cmd = [bin_, 'summary', '--csv'] + [a for l in labels for a in ('--label', l)] + reports
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    table = list(csv.reader(io.StringIO(out)))
    head, body = table[0], table[1:]
    problems = []
    for i, (label, path) in enumerate(zip(labels, reports)):
        col = head.index(f'{label} count')
        got = {(r[0], r[1]): (int(r[col]), int(r[col + 1]), int(r[col + 3]), int(r[col + 4]))
               for r in body if r[col] and r[0] in CPU_CATEGORIES}
        want = expected(path)
        if got != want:
            missing = {k: v for k, v in want.items() if got.get(k) != v}
            extra = {k: v for k, v in got.items() if want.get(k) != v}
            problems.append(f'{path}: differs: want {list(missing.items())[:3]} got {list(extra.items())[:3]}')
    bad = subprocess.run([bin_, 'summary', '--kernel-names', 'base', reports[0]],
                         capture_output=True, text=True)
    if bad.returncode != 2 or bad.stdout or len(bad.stderr.splitlines()) != 1 \
            or "--kernel-names" not in bad.stderr:
        problems.append(f'--kernel-names base: exit {bad.returncode}, {bad.stdout!r} {bad.stderr!r}')
    if problems:
        print('\n'.join(problems))
        return 1
    print(f'ok: {len(body)} names over {len(reports)} reports')
    return 0


if __name__ == '__main__':
    sys.exit(main())
