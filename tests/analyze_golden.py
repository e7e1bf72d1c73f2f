#!/usr/bin/env python3
"""analyze_golden.py: the `nsys analyze` 2022.4 and 2023.4 goldens of the nsys.analyze modules.

The package's rule tables (src/sql/nsys/analyze, docs/sql.md) are compared with what
`nsys analyze` 2022.4 and 2023.4 find on the corpus. nsys runs once, here, and its output is
committed (2023.4's in tests/analyze_golden_2023, the same layout; its rules run under their
2023.4 names, cuda_api_sync, ..., gpu_gaps, gpu_time_util, the variants keep the 2022.4 names
below; an export made before green contexts, which 2023.4's memory rules refuse, is read from
a copy with a NULL greenContextId column, the json's 'note' says so):

    tests/analyze_golden/<report-stem>.json   per variant run on the report: the rule, its
                                              nsys options, and nsys's CSV rows (`-f
                                              csv:mem=B`: bytes as bytes, not MB), or a
                                              digest of them when long (as tests/sql_golden.py
                                              makes), or why nsys skipped it / failed; and the
                                              anchor (below)
    tests/analyze_golden/index.tsv            every report and variant, kind and rows

The test loads them as tests/sql_golden.py Golden objects and compares with its rules.

A variant is a rule with options: `gpu-starv` (nsys's defaults), `gpu-starv@gap=1`, ...,
`gpu-starv@window` (start=/end=, the middle third of the report's GPU span) and
`gpu-starv@nvtx` (nvtx=, a range of the report). The anchor is the earliest start of a CUDA
call (CUPTI_ACTIVITY_KIND_RUNTIME, runtime or driver; else of GPU work) in the report; the test
finds the same row in the trace to learn the shift the converter applied to the report's
timestamps (docs/timeline.md, "Exact data"). Reports named <corpus stem>+<change> are derived from a
corpus report (CHANGES, below), made by the test too.

    python3 tests/analyze_golden.py generate [--version 2023.4] [--reports STEM ...] [--nsys nsys]
        (default: every corpus report, and the derived reports below)
    python3 tests/analyze_golden.py list
"""
import argparse
import csv
import gzip
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sql_golden as sg  # noqa: E402

GOLDEN_DIR = os.environ.get('NSYSP_ANALYZE_GOLDEN_DIR', os.path.join(HERE, 'analyze_golden'))
GOLDEN_DIR_2023 = os.environ.get('NSYSP_ANALYZE_GOLDEN_DIR_2023', os.path.join(HERE, 'analyze_golden_2023'))

RULES = ['cuda-sync-api', 'cuda-async-memcpy', 'cuda-sync-memcpy', 'cuda-sync-memset',
         'gpu-starv', 'gpu-low-util']

# The rules' names in nsys 2023.4.
NAME_2023 = {'cuda-sync-api': 'cuda_api_sync', 'cuda-async-memcpy': 'cuda_memcpy_async',
             'cuda-sync-memcpy': 'cuda_memcpy_sync', 'cuda-sync-memset': 'cuda_memset_sync',
             'gpu-starv': 'gpu_gaps', 'gpu-low-util': 'gpu_time_util'}

# Variants every report gets: name -> options (nsys syntax, ':'-joined).
FIXED_VARIANTS = [
    *[(r, '') for r in RULES],
    ('gpu-starv@gap=1', 'gap=1'),
    ('gpu-starv@gap=0,rows=-1', 'gap=0:rows=-1'),
    ('gpu-low-util@threshold=80,chunks=100', 'threshold=80:chunks=100'),
    ('gpu-low-util@threshold=30,chunks=1000,rows=-1', 'threshold=30:chunks=1000:rows=-1'),
    ('gpu-starv@gap=0,rows=3', 'gap=0:rows=3'),
    ('gpu-low-util@threshold=80,chunks=100,rows=3', 'threshold=80:chunks=100:rows=3'),
    # Options that leave nothing: no rows; nsys refuses start > end and an unknown range.
    ('gpu-starv@gap=0,rows=0', 'gap=0:rows=0'),
    ('cuda-sync-api@start>end', 'start=10:end=5'),
    ('gpu-low-util@nvtx=missing', 'nvtx=no such range'),
    ('cuda-sync-api@rows=-1', 'rows=-1'),
    ('cuda-async-memcpy@rows=-1', 'rows=-1'),
    ('cuda-sync-memcpy@rows=-1', 'rows=-1'),
    ('cuda-sync-memset@rows=-1', 'rows=-1'),
]
# Options of the @window and @nvtx variants, besides start=/end= or nvtx=.
SELECT_OPTIONS = {
    'cuda-sync-api': 'rows=-1', 'cuda-async-memcpy': 'rows=-1', 'cuda-sync-memcpy': 'rows=-1',
    'cuda-sync-memset': 'rows=-1', 'gpu-starv': 'gap=0:rows=-1', 'gpu-low-util': 'threshold=80:rows=-1',
}
# Outputs longer than this are kept as a digest (row count and sha256), not as CSV.
MAX_ROWS = 200


def rule_of(variant):
    return variant.split('@', 1)[0]


def parse_options(options):
    """'gap=0:rows=-1' -> {'gap': '0', 'rows': '-1'} (an nvtx= value may hold '@')."""
    out = {}
    for part in options.split(':') if options else []:
        k, v = part.split('=', 1)
        out[k] = v
    return out


# ---------------------------------------------------------------- report facts

def _has(db, table):
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None


def _gpu_tables(db):
    return [t for t in ('CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY',
                        'CUPTI_ACTIVITY_KIND_MEMSET') if _has(db, t)]


def anchor(db):
    """Earliest start of a CUDA call (runtime or driver), else of GPU work (start > 0), or None."""
    if _has(db, 'CUPTI_ACTIVITY_KIND_RUNTIME'):
        v = db.execute('SELECT min(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME').fetchone()[0]
        if v is not None:
            return {'table': 'runtime', 'start': v}
    vals = [db.execute(f'SELECT min(start) FROM {t} WHERE start > 0').fetchone()[0] for t in _gpu_tables(db)]
    vals = [v for v in vals if v is not None]
    return {'table': 'gpu', 'start': min(vals)} if vals else None


def window(db):
    """start=/end= of the @window variants: the middle third of the GPU work's span (or of
    the CUDA calls' span), in the report's time."""
    spans = [db.execute(f'SELECT min(start), max(end) FROM {t} WHERE start > 0').fetchone()
             for t in _gpu_tables(db)]
    spans = [s for s in spans if s[0] is not None]
    if not spans and _has(db, 'CUPTI_ACTIVITY_KIND_RUNTIME'):
        s = db.execute('SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_RUNTIME').fetchone()
        spans = [s] if s[0] is not None else []
    if not spans:
        return None
    a, b = min(s[0] for s in spans), max(s[1] for s in spans)
    return a + (b - a) // 3, a + 2 * (b - a) // 3


def nvtx_range(db):
    """nvtx= of the @nvtx variants: 'text' or 'text@domain' of the longest NVTX range of a
    process with GPU work (a name whose first range, the one nsys takes, has an end), or
    None. Names the option syntax or the output file name cannot carry are left out."""
    if not _has(db, 'NVTX_EVENTS'):
        return None
    gpu = _gpu_tables(db)
    if not gpu:
        return None
    pids = set()
    for t in gpu:
        pids |= {r[0] for r in db.execute(f'SELECT DISTINCT (globalPid >> 24) & 16777215 FROM {t}')}
    cols = {r[1] for r in db.execute('PRAGMA table_info(NVTX_EVENTS)')}
    text_id = 'nvtx.textId' if 'textId' in cols else 'NULL'
    rows = db.execute(f"""
        WITH domain AS (
            SELECT domainId, globalTid, text FROM NVTX_EVENTS WHERE eventType == 75)
        SELECT coalesce(nvtx.text, sid.value) || coalesce('@' || domain.text, '') AS name,
               nvtx.start, nvtx.end, (nvtx.globalTid >> 24) & 16777215 AS pid
        FROM NVTX_EVENTS AS nvtx
        LEFT JOIN domain ON nvtx.domainId == domain.domainId
                        AND nvtx.globalTid >> 24 == domain.globalTid >> 24
        LEFT JOIN StringIds AS sid ON {text_id} == sid.id
        WHERE nvtx.eventType IN (59, 60, 70, 71)
        ORDER BY nvtx.start""").fetchall()
    first = {}
    for name, start, end, pid in rows:
        if name is not None and name not in first:
            first[name] = (start, end, pid)
    best = None
    for name, start, end, pid in rows:
        if name is None or end is None or pid not in pids or re.search(r'[:,\n"/()]', name):
            continue
        if name.count('@') > 1 or (name.count('@') == 1 and '@' in name.split('@')[0]):
            continue
        f = first[name]
        if f[1] is None or f[2] not in pids:
            continue
        if best is None or end - start > best[0]:
            best = (end - start, name)
    return best[1] if best else None


def variants_of(db):
    """[(variant, rule, options)] for a report."""
    out = [(v, rule_of(v), o) for v, o in FIXED_VARIANTS]
    w = window(db)
    if w:
        for r in RULES:
            out.append((f'{r}@window', r, f'{SELECT_OPTIONS[r]}:start={w[0]}:end={w[1]}'))
    n = nvtx_range(db)
    if n:
        for r in RULES:
            out.append((f'{r}@nvtx', r, f'{SELECT_OPTIONS[r]}:nvtx={n}'))
    return out


# ---------------------------------------------------------------- derived reports

# No corpus report has a memset that cuda-sync-memset reports (pinned or managed memory set by a
# synchronous cudaMemset*): these copies of corpus reports have some of their memsets' memory
# kind changed (every third to Pinned, the next to Managed), and goldens of their own.
# A derived report is named <corpus stem>+<change>.
CHANGES = {
    'memset-kinds': ['UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET memKind = '
                     'CASE rowid % 3 WHEN 0 THEN 1 WHEN 1 THEN 4 ELSE memKind END'],
}
DERIVED = [
    'Yandong-Luo__parallel_diff_evolution__report2.qdrep+memset-kinds',  # cudaMemset_v3020
    'GindaChen__nsys-ai__tests__fixtures__mfu_2gpu_after+memset-kinds',  # cudaMemsetAsync, 2 processes
]


def materialize(stem, out):
    """Write the report `stem` (a corpus report, or <corpus stem>+<change>) to the .sqlite `out`."""
    base, _, change = stem.partition('+')
    src = sg.corpus_path(base)  # a path is kept as it is
    tmp = out + '.part'
    with (gzip.open(src) if src.endswith('.gz') else open(src, 'rb')) as i, open(tmp, 'wb') as o:
        shutil.copyfileobj(i, o, 1 << 20)
    if change:
        db = sqlite3.connect(tmp)
        for q in CHANGES[change]:
            db.execute(q)
        db.commit()
        db.close()
    os.replace(tmp, out)


def report_sqlite(stem, work):
    """A report the test can convert: the corpus .sqlite.gz (or the path given), or a derived
    report made in work."""
    if '+' not in stem:
        return sg.corpus_path(stem)
    out = os.path.join(work, stem + '.sqlite')
    src = sg.corpus_path(stem.partition('+')[0])
    os.makedirs(work, exist_ok=True)
    with sg._Lock(out):
        if not (os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(src)):
            materialize(stem, out)
    return out


# ---------------------------------------------------------------- generation

# nsys runs the rules in the order given and says, for each: Processing [DB] with
# [.../RULE.py](OPTIONS) to [OUTPUT]... PROCESSED | SKIPPED: why | ERROR ...
_PROC = re.compile(r'Processing \[[^\]]*\] with \[[^\]]*/([A-Za-z0-9_-]+)\.py\](?:\(.*?\))? to '
                   r'\[([^\]]*)\]\.\.\. ?(PROCESSED|SKIPPED:[^\n]*|ERROR[^\n]*)?')


def _entry(text, status, db_path, stem):
    """One variant's golden: nsys's rows, a digest of them, or why there are none."""
    if status.startswith('ERROR') or (text is None and not status.startswith('SKIPPED')):
        return {'kind': 'error',
                'message': (status or 'nsys analyze wrote nothing').replace(db_path, stem + '.sqlite')}
    if status.startswith('SKIPPED') or not text.strip():
        msg = status.split(':', 1)[1].strip() if status.startswith('SKIPPED') else 'nsys found nothing'
        return {'kind': 'none', 'message': msg.replace(db_path, stem + '.sqlite')}
    r = list(csv.reader(io.StringIO(text)))
    header, rows = r[0], [dict(zip(r[0], x)) for x in r[1:]]
    if len(rows) > MAX_ROWS:
        dec = sg._decimals_of(rows, header)
        total, per = sg._digests(header, rows, dec, lambda row, h: row.get(h))
        return {'kind': 'digest', 'header': header, 'rows': len(rows), 'decimals': dec,
                'sha256': total, 'column_sha256': per}
    return {'kind': 'rows', 'header': header, 'csv': [','.join(x) if not any(',' in f or '"' in f for f in x)
                                                      else _csv_line(x) for x in r[1:]]}


def _csv_line(fields):
    b = io.StringIO()
    csv.writer(b, lineterminator='').writerow(fields)
    return b.getvalue()


def generate(stems, nsys='nsys', golden_dir=None, log=print, version='2022.4'):
    new = version == '2023.4'
    golden_dir = golden_dir or (GOLDEN_DIR_2023 if new else GOLDEN_DIR)
    script = (lambda r: NAME_2023[r]) if new else (lambda r: r)
    os.makedirs(golden_dir, exist_ok=True)
    for arg in stems:
        stem = sg.stem_of(arg)
        with tempfile.TemporaryDirectory(prefix='anagold-') as tmp:
            db_path = os.path.join(tmp, 'report.sqlite')
            materialize(arg, db_path)
            note = sg._patch(db_path, 'greenContextId') if new else None
            db = sqlite3.connect(f'file:{db_path}?mode=ro', uri=True)
            variants = variants_of(db)
            out = {'report': stem, 'nsys': f'nsys analyze {version}, -f csv:mem=B', 'anchor': anchor(db),
                   'variants': {}}
            if note:
                out['note'] = note
            db.close()
            # One nsys call per report, every variant at once, in this order.
            cmd = [nsys, 'analyze', '--force-overwrite', 'true', '-f', 'csv:mem=B', '-o', os.path.join(tmp, 'out')]
            for v, r, o in variants:
                cmd += ['-r', script(r) + (':' + o if o else '')]
            p = subprocess.run(cmd + [db_path], capture_output=True, text=True)
            log_text = p.stdout + '\n' + p.stderr
            runs = [(m.group(1), m.group(2), (m.group(3) or '').strip()) for m in _PROC.finditer(log_text)]
            if [r for r, _, _ in runs] != [script(r) for _, r, _ in variants]:
                raise RuntimeError(f'{stem}: unexpected nsys output (exit {p.returncode}):\n{log_text[-3000:]}')
            summary = []
            for (v, r, o), (_, path, status) in zip(variants, runs):
                # nsys prints nothing after '...' when the rule found nothing (empty file).
                text = None
                if path and os.path.exists(path):
                    with open(path, newline='') as f:
                        text = f.read()
                e = {'rule': r, 'options': o, **_entry(text, status, db_path, stem)}
                if new and e['kind'] == 'none' and sg._SCHEMA_REFUSAL.search(e['message']):
                    e['kind'] = 'error'  # 2023.4 cannot read the export: not "found nothing"
                out['variants'][v] = e
                summary.append(f"{v}:{e['kind'] if e['kind'] in ('none', 'error') else e.get('rows', len(e.get('csv', [])))}")
        with open(os.path.join(golden_dir, stem + '.json'), 'w') as f:
            json.dump(out, f, indent=1, ensure_ascii=False)
            f.write('\n')
        log(f'{stem}: ' + ' '.join(summary))
    write_index(golden_dir)


def load(stem, golden_dir=None):
    """The goldens of a report: {'anchor': ..., 'variants': {variant: {'rule', 'options',
    'golden': sql_golden.Golden}}}, or None."""
    stem = sg.stem_of(stem)
    path = os.path.join(golden_dir or GOLDEN_DIR, stem + '.json')
    if not os.path.exists(path):
        return None
    with open(path) as f:
        d = json.load(f)
    for v, e in d['variants'].items():
        k = e['kind']
        if k == 'rows':
            rows = [dict(zip(e['header'], x)) for x in csv.reader(io.StringIO('\n'.join(e['csv'])))] \
                if e['csv'] else []
            g = sg.Golden(stem, v, 'rows', header=e['header'], rows=rows)
        elif k == 'digest':
            g = sg.Golden(stem, v, 'digest', header=e['header'], count=e['rows'], sha256=e['sha256'],
                          column_sha256=e['column_sha256'], decimals=e['decimals'])
        else:
            g = sg.Golden(stem, v, k, message=e['message'])
        e['golden'] = g
    return d


def reports(golden_dir=None):
    d = golden_dir or GOLDEN_DIR
    return sorted(f[:-5] for f in os.listdir(d) if f.endswith('.json')) if os.path.isdir(d) else []


def write_index(golden_dir=None):
    golden_dir = golden_dir or GOLDEN_DIR
    lines = ['stem\tvariant\toptions\tkind\trows']
    for stem in reports(golden_dir):
        d = load(stem, golden_dir)
        for v, e in d['variants'].items():
            g = e['golden']
            rows = g.count if g.kind in ('rows', 'digest') else ''
            lines.append(f"{stem}\t{v}\t{e['options']}\t{g.kind}\t{rows}")
    with open(os.path.join(golden_dir, 'index.tsv'), 'w') as f:
        f.write('\n'.join(lines) + '\n')


def _cli():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    g = sub.add_parser('generate', help='run nsys analyze on corpus reports and write goldens')
    g.add_argument('--reports', nargs='*', help='corpus stems or report paths (.sqlite, .sqlite.gz; '
                   'default: every corpus report and the derived ones)')
    g.add_argument('--nsys', default='nsys')
    g.add_argument('--version', choices=['2022.4', '2023.4'], default='2022.4',
                   help='the nsys the goldens are made with (2023.4: into tests/analyze_golden_2023)')
    sub.add_parser('list', help='print the index')
    a = ap.parse_args()
    if a.cmd == 'generate':
        generate(a.reports or sg.corpus_reports() + DERIVED, a.nsys, version=a.version)
    else:
        with open(os.path.join(GOLDEN_DIR, 'index.tsv')) as f:
            sys.stdout.write(f.read())
    return 0


if __name__ == '__main__':
    sys.exit(_cli())
