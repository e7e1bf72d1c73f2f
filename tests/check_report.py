#!/usr/bin/env python3
"""check_report.py REPORT.sqlite TRACE TRACE_DUMP [PFTRACE_CHECK]

End-to-end check of one conversion against the report's own SQL:
  * pftrace-check (trace_processor's import rules) finds no error;
  * every kernel row is a slice on its GPU's group with the exact name and
    ns timestamps (shifted by the trace's one constant, if any);
  * every CUDA runtime/driver row is a slice on its thread's CUDA API row
    with the exact (suffix-stripped) name and timestamps;
  * no slice is left unterminated or unmatched.
Exit 0 when all hold, 1 otherwise (with what differs).
"""
import collections
import json
import re
import sqlite3
import subprocess
import sys

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


def expected(db):
    t = tables(db)
    s = strings(db) if 'StringIds' in t else {}
    kernels, apis, starts = [], [], []
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
    shift = -min(starts) if starts and min(starts) < 0 else 0
    return kernels, apis, shift


def dumped(trace, dump_bin):
    out = subprocess.run([dump_bin, trace], check=True, capture_output=True,
                         text=True, errors='replace').stdout
    kernels, apis, problems = [], [], []
    for line in out.splitlines():
        f = line.split('\t')
        if f[0] == 'X':
            problems.append(line)
        if f[0] != 'S':
            continue
        ts, dur, cat, name, path = int(f[1]), int(f[2]), f[3], f[4], f[5]
        if cat == 'kernel':
            m = re.match(r'^GPU (\d+)', path)
            kernels.append((ts, dur, name, int(m.group(1)) if m else None))
        elif cat in ('cuda_runtime', 'cuda_driver'):
            if not path.endswith(' / CUDA API'):
                problems.append(f'API slice on unexpected track {path!r}')
            apis.append((ts, dur, name, cat))
    return kernels, apis, problems


def compare(what, want, got, problems):
    w, g = collections.Counter(want), collections.Counter(got)
    if w == g:
        return
    missing, extra = w - g, g - w
    problems.append(f'{what}: {len(want)} expected, {len(got)} in trace; '
                    f'missing {sum(missing.values())} e.g. {list(missing)[:3]}; '
                    f'extra {sum(extra.values())} e.g. {list(extra)[:3]}')


def main():
    report, trace, dump_bin = sys.argv[1:4]
    check_bin = sys.argv[4] if len(sys.argv) > 4 else None
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
            errors = [s for s in res.get('stats', []) if s.get('severity') == 'error']
            if errors:
                problems.append(f'pftrace-check errors: {errors[:5]}')
    db = connect(report)
    want_k, want_a, shift = expected(db)
    got_k, got_a, more = dumped(trace, dump_bin)
    problems += more
    compare('kernels', [(s + shift, d, n, dev) for s, d, n, dev in want_k], got_k, problems)
    compare('CUDA API calls', [(s + shift, d, n, c) for s, d, n, c, _ in want_a], got_a, problems)
    if problems:
        print(f'{report}:')
        for p in problems:
            print('  ' + p)
        return 1
    print(f'ok: {len(got_k)} kernels, {len(got_a)} API calls, shift {shift}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
