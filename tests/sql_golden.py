#!/usr/bin/env python3
"""sql_golden.py: compare the nsys PerfettoSQL package with `nsys stats` 2022.4 and 2023.4.

A shared library for the package's comparison tests, and a tool to (re)generate
the goldens they compare against. The goldens are nsys's own output, made once
with nsys 2022.4 (tests/sql_golden, its report names) and nsys 2023.4
(tests/sql_golden_2023, its names: cuda_gpu_kern_sum, ...; `generate --version
2023.4`) and committed, so a test never runs nsys:

    tests/sql_golden/<report-stem>/<name>.csv.gz   summary reports: nsys's CSV, verbatim
    tests/sql_golden/<report-stem>/<name>.json     trace reports (one row per event): row
                                                   count, header, decimals per column, sha256
                                                   of the normalized sorted rows and of each
                                                   column, minimum of each integer column
    tests/sql_golden/<report-stem>/<name>.none     nsys skipped it: the report lacks the data
                                                   (the message nsys printed)
    tests/sql_golden/<report-stem>/<name>.error    nsys failed on it (its output); not compared
    tests/sql_golden/<report-stem>/<name>.note     the golden was made from a copy of the report
                                                   patched so that nsys 2022.4 runs (it fails
                                                   on TARGET_INFO_GPU of 2020 and 2026 exports);
                                                   what was done (2023.4: a NULL greenContextId
                                                   column added to an export made before green
                                                   contexts, which 2023.4 refuses)

<report-stem> is the corpus file name without `.sqlite.gz` (corpus/, corpus/local/ and
tests/corpus2023/, whose 2023-era captures have 2023.4 goldens only); <name> the 2022.4 report
name (cudaapisum, gpukernsum, ...).
tests/sql_golden/index.tsv lists every golden (stem, name, kind, rows).

Library API (import with sys.path.insert(0, <tests dir>); import sql_golden as sg):

  Paths (defaults; override with the environment or arguments):
    sg.REPO, sg.SHARED (NSYSP_SHARED, default REPO/../shared), sg.CORPUS, sg.CORPUS_2023,
    sg.TRACE_PROCESSOR (NSYSP_TRACE_PROCESSOR), sg.PACKAGE (REPO/src/sql/nsys),
    sg.GOLDEN_DIR (NSYSP_GOLDEN_DIR, default tests/sql_golden), sg.GOLDEN_DIR_2023
    (NSYSP_GOLDEN_DIR_2023, default tests/sql_golden_2023), sg.WORK (NSYSP_SQL_WORK)

  sg.corpus_reports()                  -> [stem, ...] every corpus report, sorted
  sg.corpus_path(stem)                 -> path of its .sqlite.gz
  sg.unpacked(stem, work=None)         -> path of the unpacked .sqlite (cached; never
                                          modify it: nsys stats needs a copy)
  sg.converted_trace(stem, nsys_perfetto, work=None, args=())
                                       -> path of the converted trace, cached in work and
                                          redone when the binary or args change; safe when
                                          several tests convert the same report at once
  sg.tp_query(trace, sql, modules=(), package=None, tp=None)
                                       -> [dict(column -> value)], the last statement's rows;
                                          values are int, float, str or None (trace_processor
                                          prints doubles with 6 decimals)
  sg.tp_queries(trace, [sql, ...], modules=(), ...)
                                       -> [[dict], ...]: several queries, one trace load
  sg.golden(stem, name)                -> Golden or None (not generated); name may carry a
                                          report option: 'gpukernsum:base' (file gpukernsum-base)
       Golden.kind   'rows' | 'digest' | 'none' | 'error'
       Golden.header nsys's CSV header (list), Golden.rows [dict(header -> text)] ('rows'),
       Golden.count, Golden.sha256, Golden.column_sha256, Golden.decimals ('digest'),
       Golden.message ('none', 'error'), Golden.note (made from a patched copy: why)
  sg.reports_with(name)                -> stems whose golden has data (kind rows/digest)
  sg.torch_range(text)                 -> (op, {'seq', 'op_id', 'sizes', 'input_op_ids'}) for a
                                          PyTorch op range name ('aten::to, seq = 12, op_id =
                                          998949' -> 'aten::to'; parts absent are left out),
                                          None for any other text; sg.torch_op(text) -> the op,
                                          or the text whole
  sg.snake(header)                     -> our column name: 'Time (%)' -> 'time_pct',
                                          'Total Time (ns)' -> 'total_time_ns', 'StdDev (ns)'
                                          -> 'stddev_ns', 'Reg/Trd' -> 'reg_trd', 'CorrId' -> 'corrid'
  sg.compare(golden, ours, key=None, columns=None, label='')
                                       -> [difference text]; dispatches on golden.kind:
       rows:   compare_rows(ours, golden.rows, key, columns): rows matched by key (nsys header
               names or our names; rows with the same key are paired in sorted order);
               integers exact; a value nsys prints with d decimals must be within half a unit
               of its last digit (so ours may be unrounded; a rounded value must equal it);
               '' and 'None' equal NULL; text exact.
       digest: compare_digest(ours, golden, columns, align=(...)): our rows normalized as
               nsys's (decimals per column from the golden), count and sha256 must match; on a
               mismatch the columns whose sha256 differ are named. align: time columns that
               may be shifted by one constant (a report with negative timestamps;
               docs/timeline.md, "Exact data"): ours are moved to nsys's minimum, the shift reported as a note.
       none:   ours must be empty.   error: [] (nothing to compare).
  sg.check_corpus(specs, nsys_perfetto, work, reports=None, tp=None, package=None, log=print)
                                       -> (compared, differences): for each report, convert,
                                          run every spec's query in one trace_processor run,
                                          compare with its golden. A spec is a dict:
                                          name (the report), table or sql, modules, key,
                                          columns (optional header -> our column map),
                                          version ('2022.4', the default, or '2023.4': the
                                          goldens compared with), golden_dir (instead),
                                          ignore (digest columns not compared), align
  sg.main_check(specs, argv)           -> exit code for a ctest script:
                                          argv = NSYS_PERFETTO TRACE_PROCESSOR PACKAGE WORKDIR
                                          [STEM|REPORT.sqlite[.gz] ...]; 77 (skip) without
                                          trace_processor, corpus or goldens.

Reports outside the corpus: give paths (REPORT.sqlite or .sqlite.gz) and a golden directory:
  NSYSP_GOLDEN_DIR=/tmp/g python3 tests/sql_golden.py generate --reports /data/a.sqlite
  NSYSP_GOLDEN_DIR=/tmp/g python3 tests/check_sql_stats_cuda.py NSYS_PERFETTO TP PKG WORK /data/a.sqlite
(goldens are keyed by the file name less .sqlite[.gz]).

Tool:
  python3 tests/sql_golden.py generate [--version 2023.4 --nsys NSYS] [--reports STEM ...] [--names NAME ...]
      runs `nsys stats` (one call per report, every name at once) on a copy of each
      corpus report and writes the goldens (default: every report, every name in
      ALL_NAMES, or ALL_NAMES_2023; BASE_NAMES and BASE_NAMES_2023, the :base variants,
      are generated with --names). --full DIR also keeps nsys's full CSVs there (for
      diffing trace reports). 2023.4: ../shared/tools/install-nsys-2023 prints its nsys.
  python3 tests/sql_golden.py list [NAME]     which reports have which goldens
  python3 tests/sql_golden.py show STEM NAME  print one golden
"""
import argparse
import csv
import fcntl
import gzip
import hashlib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SHARED = os.environ.get('NSYSP_SHARED', os.path.join(os.path.dirname(REPO), 'shared'))
CORPUS = os.path.join(SHARED, 'corpus')
# Exports made by nsys 2023.4 of 2023-era captures 2022.4 cannot read (tests/corpus2023/README.md).
CORPUS_2023 = os.path.join(HERE, 'corpus2023')
TRACE_PROCESSOR = os.environ.get('NSYSP_TRACE_PROCESSOR', os.path.join(SHARED, 'tools', 'trace_processor_shell'))
PACKAGE = os.path.join(REPO, 'src', 'sql', 'nsys')
GOLDEN_DIR = os.environ.get('NSYSP_GOLDEN_DIR', os.path.join(HERE, 'sql_golden'))
GOLDEN_DIR_2023 = os.environ.get('NSYSP_GOLDEN_DIR_2023', os.path.join(HERE, 'sql_golden_2023'))
WORK = os.environ.get('NSYSP_SQL_WORK', os.path.join(tempfile.gettempdir(), f'nsysp-sql-work-{os.getuid()}'))

# The 2022.4 reports the goldens hold (nsys 2023+ name in the comment).
CUDA_NAMES = ['cudaapisum',     # cuda_api_sum
              'apigpusum',      # cuda_api_gpu_sum
              'gpukernsum',     # cuda_gpu_kern_gb_sum (2023.4's cuda_gpu_kern_sum groups by name)
              'gpumemtimesum',  # cuda_gpu_mem_time_sum
              'gpumemsizesum',  # cuda_gpu_mem_size_sum
              'gpusum',         # cuda_gpu_sum
              'gputrace',       # cuda_gpu_trace
              'kernexecsum']    # cuda_kern_exec_sum
OTHER_NAMES = ['nvtxsum',         # nvtx_sum
               'nvtxppsum',       # nvtx_pushpop_sum
               'nvtxsesum',       # nvtx_startend_sum
               'nvtxgpuproj',     # nvtx_gpu_proj_trace
               'nvtxkernsum',     # nvtx_kern_sum
               'osrtsum',         # osrt_sum
               'openaccsum',      # openacc_sum
               'openmpevtsum',    # openmp_sum
               'umcpupagefaults']  # um_cpu_page_faults_sum
ALL_NAMES = CUDA_NAMES + OTHER_NAMES
# The nsys 2023.4 reports the goldens in tests/sql_golden_2023 hold (generate --version 2023.4).
CUDA_NAMES_2023 = ['cuda_api_sum', 'cuda_api_gpu_sum', 'cuda_gpu_kern_sum', 'cuda_gpu_kern_gb_sum',
                   'cuda_gpu_mem_time_sum', 'cuda_gpu_mem_size_sum', 'cuda_gpu_sum', 'cuda_gpu_trace',
                   'cuda_kern_exec_sum', 'cuda_kern_exec_trace', 'cuda_api_trace']
OTHER_NAMES_2023 = ['osrt_sum', 'openacc_sum', 'openmp_sum', 'um_sum', 'um_total_sum',
                    'um_cpu_page_faults_sum', 'mpi_event_trace']
NVTX_NAMES_2023 = ['nvtx_sum', 'nvtx_pushpop_sum', 'nvtx_startend_sum', 'nvtx_pushpop_trace',
                   'nvtx_kern_sum', 'nvtx_gpu_proj_sum', 'nvtx_gpu_proj_trace']
ALL_NAMES_2023 = CUDA_NAMES_2023 + OTHER_NAMES_2023 + NVTX_NAMES_2023
BASE_NAMES_2023 = ['cuda_gpu_kern_sum:base', 'cuda_gpu_kern_gb_sum:base', 'cuda_gpu_sum:base',
                   'cuda_api_gpu_sum:base', 'cuda_kern_exec_sum:base', 'nvtx_kern_sum:base']
# Report options (files named gpukernsum-base...): generated for reports with kernels.
BASE_NAMES = ['gpukernsum:base', 'gpusum:base', 'apigpusum:base', 'kernexecsum:base']
# One row per event: stored as count + sha256, not as CSV.
TRACE_NAMES = {'gputrace', 'nvtxgpuproj', 'cudaapitrace', 'kernexectrace', 'nvtxpptrace',
               'cuda_gpu_trace', 'nvtx_gpu_proj_trace', 'cuda_api_trace', 'cuda_kern_exec_trace',
               'nvtx_pushpop_trace', 'mpi_event_trace', 'um_sum'}
# nsys 2023+ names of the 2022.4 reports.
CURRENT_NAME = {
    'cudaapisum': 'cuda_api_sum', 'apigpusum': 'cuda_api_gpu_sum', 'gpukernsum': 'cuda_gpu_kern_gb_sum',
    'gpumemtimesum': 'cuda_gpu_mem_time_sum', 'gpumemsizesum': 'cuda_gpu_mem_size_sum',
    'gpusum': 'cuda_gpu_sum', 'gputrace': 'cuda_gpu_trace', 'kernexecsum': 'cuda_kern_exec_sum',
    'nvtxsum': 'nvtx_sum', 'nvtxppsum': 'nvtx_pushpop_sum', 'nvtxsesum': 'nvtx_startend_sum',
    'nvtxgpuproj': 'nvtx_gpu_proj_trace', 'nvtxkernsum': 'nvtx_kern_sum', 'osrtsum': 'osrt_sum',
    'openaccsum': 'openacc_sum', 'openmpevtsum': 'openmp_sum', 'umcpupagefaults': 'um_cpu_page_faults_sum',
}


# ---------------------------------------------------------------- corpus and conversion

def _corpus_dirs(corpus=None):
    """Where corpus reports are: the shared corpus and its local/, and (for the default corpus)
    the 2023-era exports kept in tests/corpus2023."""
    dirs = [corpus or CORPUS, os.path.join(corpus or CORPUS, 'local')]
    return dirs if corpus else dirs + [CORPUS_2023]


def corpus_reports(corpus=None):
    """Stems of every corpus report (corpus/*.sqlite.gz, corpus/local/*.sqlite.gz and
    tests/corpus2023/*.sqlite.gz), sorted."""
    out = []
    for d in _corpus_dirs(corpus):
        if os.path.isdir(d):
            out += [f[:-len('.sqlite.gz')] for f in os.listdir(d) if f.endswith('.sqlite.gz')]
    return sorted(set(out))


def corpus_path(stem, corpus=None):
    """The .sqlite.gz of a corpus report (a path to a .sqlite.gz or .sqlite is returned as is)."""
    if os.path.sep in stem or stem.endswith('.gz') or stem.endswith('.sqlite'):
        return stem
    for d in _corpus_dirs(corpus):
        p = os.path.join(d, stem + '.sqlite.gz')
        if os.path.exists(p):
            return p
    raise FileNotFoundError(f'{stem}: not in {corpus}')


def stem_of(path):
    b = os.path.basename(path)
    for suf in ('.sqlite.gz', '.sqlite'):
        if b.endswith(suf):
            return b[:-len(suf)]
    return b


class _Lock:
    def __init__(self, path):
        self.path = path + '.lock'

    def __enter__(self):
        self.f = open(self.path, 'w')
        fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *a):
        fcntl.flock(self.f, fcntl.LOCK_UN)
        self.f.close()


def unpacked(stem, work=None):
    """The report's .sqlite, unpacked once into work. Read only: copy it before nsys stats."""
    work = work or WORK
    os.makedirs(work, exist_ok=True)
    src = corpus_path(stem)
    if src.endswith('.sqlite'):
        return src
    out = os.path.join(work, stem_of(src) + '.sqlite')
    with _Lock(out):
        if not (os.path.exists(out) and os.path.getsize(out) > 0
                and os.path.getmtime(out) >= os.path.getmtime(src)):
            tmp = out + '.part'
            with gzip.open(src) as i, open(tmp, 'wb') as o:
                shutil.copyfileobj(i, o, 1 << 20)
            os.replace(tmp, out)
    return out


def converted_trace(stem, nsys_perfetto, work=None, args=(), keep_sqlite=False):
    """Convert a corpus report with nsys_perfetto (cached in work; redone when the binary,
    the args or the input change). Returns the trace's path."""
    work = work or WORK
    os.makedirs(work, exist_ok=True)
    src = corpus_path(stem)
    tag = '' if not args else '.' + hashlib.sha1(' '.join(args).encode()).hexdigest()[:8]
    trace = os.path.join(work, stem_of(src) + tag + '.perfetto-trace')
    st = os.stat(nsys_perfetto)
    stamp = json.dumps({'bin': os.path.abspath(nsys_perfetto), 'size': st.st_size, 'mtime': st.st_mtime_ns,
                        'src': os.path.abspath(src), 'src_mtime': os.stat(src).st_mtime_ns, 'args': list(args)})
    with _Lock(trace):
        try:
            with open(trace + '.stamp') as f:
                if f.read() == stamp and os.path.exists(trace):
                    return trace
        except OSError:
            pass
        had = os.path.exists(os.path.join(work, stem_of(src) + '.sqlite'))
        db = unpacked(stem, work)
        tmp = trace + '.part'
        p = subprocess.run([nsys_perfetto, '-q', *args, db, '-o', tmp], capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f'{nsys_perfetto} {stem}: exit {p.returncode}: {p.stderr[-2000:]}')
        os.replace(tmp, trace)
        with open(trace + '.stamp', 'w') as f:
            f.write(stamp)
        if not keep_sqlite and not had and not src.endswith('.sqlite'):
            try:
                os.remove(db)
            except OSError:
                pass
    return trace


# ---------------------------------------------------------------- trace_processor

_NUM_INT = re.compile(r'-?\d+$')
_NUM_FLOAT = re.compile(r'-?(\d+\.\d*|inf|nan)$')


def _parse_tp_line(line, n):
    """Split one CSV line of trace_processor_shell into n fields. trace_processor quotes strings
    without escaping quotes inside them, so a quoted field ends at the '"' followed by ',' (or
    the end) that leaves a parse of the remaining fields. Returns None when no split fits."""
    memo = {}

    def go(pos, k):
        if (pos, k) in memo:
            return memo[(pos, k)]
        res = None
        if k == 0:
            res = [] if pos == len(line) + 1 or (pos == len(line) and n == 0) else None
        elif pos <= len(line):
            if line.startswith('"', pos):
                # Candidate ends: '"' at e with line[e+1] == ',' or e == len-1.
                e = line.find('"', pos + 1)
                while e != -1 and res is None:
                    if e == len(line) - 1 or line[e + 1] == ',':
                        rest = go(e + 2, k - 1)
                        if rest is not None:
                            res = [('s', line[pos + 1:e])] + rest
                    e = line.find('"', e + 1)
            else:
                e = line.find(',', pos)
                e = len(line) if e == -1 else e
                tok = line[pos:e]
                rest = go(e + 1, k - 1)
                if rest is not None:
                    res = [('n', tok)] + rest
        memo[(pos, k)] = res
        return res

    return go(0, n)


def _value(kind, tok):
    if kind == 's':
        return None if tok == '[NULL]' else tok
    if _NUM_INT.match(tok):
        return int(tok)
    try:
        return float(tok)
    except ValueError:
        return tok


def _parse_tp_output(text):
    """trace_processor_shell's CSV (result sets separated by a blank line) -> [[dict]]."""
    lines = text.split('\n')
    sets = []
    i = 0
    while i < len(lines):
        if lines[i] == '':
            i += 1
            continue
        header = [h[1:-1] if h.startswith('"') and h.endswith('"') else h for h in lines[i].split('","')]
        if len(header) == 1:
            header = [lines[i].strip('"')]
        else:
            header[0] = header[0].lstrip('"')
            header[-1] = header[-1].rstrip('"')
        n = len(header)
        rows = []
        i += 1
        while i < len(lines) and lines[i] != '':
            line = lines[i]
            fields = _parse_tp_line(line, n)
            j = i
            # A string holding a newline: join lines until the row parses.
            while fields is None and j + 1 < len(lines) and j - i < 50:
                j += 1
                line = line + '\n' + lines[j]
                fields = _parse_tp_line(line, n)
            if fields is None:
                raise ValueError(f'cannot parse trace_processor output line: {lines[i][:200]!r}')
            rows.append({h: _value(k, t) for h, (k, t) in zip(header, fields)})
            i = j + 1
        sets.append(rows)
    return sets


def _includes(modules):
    return ''.join(f'INCLUDE PERFETTO MODULE {m};\n' for m in modules)


def tp_queries(trace, sqls, modules=(), package=None, tp=None, timeout=900):
    """Run several queries on one trace load; returns one row list per query (its last
    statement's rows). modules: INCLUDEd first (e.g. ['nsys.stats.cuda'])."""
    tp = tp or TRACE_PROCESSOR
    package = package or PACKAGE
    parts = [_includes(modules)]
    for k, sql in enumerate(sqls):
        parts.append(f"SELECT 'q{k}' AS __nsysp_marker__;\n{sql.strip().rstrip(';')};\n")
    with tempfile.NamedTemporaryFile('w', suffix='.sql', delete=False) as f:
        f.write(''.join(parts))
        qfile = f.name
    try:
        p = subprocess.run([tp, '--add-sql-package', package, '-q', qfile, trace],
                           capture_output=True, text=True, timeout=timeout)
    finally:
        os.remove(qfile)
    if p.returncode != 0:
        raise RuntimeError(f'trace_processor_shell failed on {trace}:\n{p.stderr[-3000:]}')
    out = [[] for _ in sqls]
    cur = None
    for rows in _parse_tp_output(p.stdout):
        if rows and list(rows[0]) == ['__nsysp_marker__']:
            cur = int(rows[0]['__nsysp_marker__'][1:])
            continue
        if cur is not None:
            out[cur] = rows
    return out


def tp_query(trace, sql, modules=(), package=None, tp=None):
    """Rows (dicts) of the query's last statement. Note a result with no rows prints no
    header in some versions: an empty list then."""
    return tp_queries(trace, [sql], modules, package, tp)[0]


# ---------------------------------------------------------------- PyTorch op ranges

from torch_names import torch_op, torch_range  # noqa: E402,F401 (the tests' copy of the rule)


# ---------------------------------------------------------------- goldens

def snake(header):
    """nsys CSV header -> our column name."""
    h = header.lower().replace('(%)', 'pct').replace('%', 'pct')
    return re.sub(r'[^a-z0-9]+', '_', h).strip('_')


class Golden:
    def __init__(self, stem, name, kind, **kw):
        self.stem, self.name, self.kind = stem, name, kind
        self.header = kw.get('header', [])
        self.rows = kw.get('rows', [])
        self.count = kw.get('count', len(self.rows))
        self.sha256 = kw.get('sha256')
        self.column_sha256 = kw.get('column_sha256', {})
        self.decimals = kw.get('decimals', {})
        self.column_min = kw.get('column_min', {})
        self.message = kw.get('message', '')
        # Why the golden was made from a patched copy of the report (see _patch), or ''.
        self.note = kw.get('note', '')

    def __repr__(self):
        return f'Golden({self.stem}, {self.name}, {self.kind}, rows={self.count})'


def _golden_base(stem, name, golden_dir=None):
    # 'gpukernsum:base' (a report option) is stored as gpukernsum-base.
    return os.path.join(golden_dir or GOLDEN_DIR, stem, name.replace(':', '-'))


def golden(stem, name, golden_dir=None):
    """The golden of report `stem` for the 2022.4 report `name`, or None when there is none."""
    base = _golden_base(stem_of(stem), name, golden_dir)
    stem = stem_of(stem)
    g = _golden_read(base, stem, name)
    if g is not None and os.path.exists(base + '.note'):
        with open(base + '.note') as f:
            g.note = f.read().strip()
    return g


def _golden_read(base, stem, name):
    if os.path.exists(base + '.csv.gz'):
        with gzip.open(base + '.csv.gz', 'rt', newline='') as f:
            r = list(csv.reader(f))
        header = r[0] if r else []
        return Golden(stem, name, 'rows', header=header, rows=[dict(zip(header, x)) for x in r[1:]])
    if os.path.exists(base + '.json'):
        with open(base + '.json') as f:
            d = json.load(f)
        return Golden(stem, name, 'digest', header=d['header'], count=d['rows'], sha256=d['sha256'],
                      column_sha256=d['column_sha256'], decimals=d['decimals'],
                      column_min=d.get('column_min', {}))
    for kind in ('none', 'error'):
        if os.path.exists(base + '.' + kind):
            with open(base + '.' + kind) as f:
                return Golden(stem, name, kind, message=f.read().strip())
    return None


def reports_with(name, golden_dir=None):
    """Stems whose golden for `name` has data (nsys produced rows)."""
    d = golden_dir or GOLDEN_DIR
    if not os.path.isdir(d):
        return []
    f = name.replace(':', '-')
    return sorted(s for s in os.listdir(d)
                  if os.path.exists(os.path.join(d, s, f + '.csv.gz'))
                  or os.path.exists(os.path.join(d, s, f + '.json')))


_DEC = re.compile(r'-?\d+\.(\d+)$')


def _decimals_of(rows, header):
    """Per column: the decimals nsys prints floats with (absent: not a float column)."""
    dec = {}
    for h in header:
        ds = [len(m.group(1)) for m in (_DEC.match(r.get(h, '') or '') for r in rows) if m]
        if ds:
            dec[h] = max(ds)
    return dec


def _canon(v, decimals):
    """A value (ours or nsys's text) in the form the digests hash."""
    if v is None or v == '' or v == 'None':
        return ''
    if decimals is not None:
        try:
            return f'{float(v):.{decimals}f}'
        except (TypeError, ValueError):
            return str(v)
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _digests(header, rows, decimals, getter):
    """sha256 of the sorted normalized rows, and of each column's sorted values."""
    lines = []
    cols = {h: [] for h in header}
    for r in rows:
        vals = [_canon(getter(r, h), decimals.get(h)) for h in header]
        lines.append('\x1f'.join(vals))
        for h, v in zip(header, vals):
            cols[h].append(v)
    lines.sort()
    total = hashlib.sha256(('\n'.join(lines) + '\n').encode()).hexdigest()
    per = {h: hashlib.sha256(('\n'.join(sorted(v)) + '\n').encode()).hexdigest() for h, v in cols.items()}
    return total, per


# ---------------------------------------------------------------- comparison

def _num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def value_equal(ours, theirs):
    """Is our value what nsys printed as `theirs` (text)? See the module docstring."""
    if theirs in ('', 'None'):
        return ours is None or ours == '' or ours == 'None'
    if ours is None:
        return False
    if _NUM_INT.match(theirs):
        if isinstance(ours, bool):
            ours = int(ours)
        if isinstance(ours, int):
            return ours == int(theirs)
        if isinstance(ours, float):
            return ours.is_integer() and int(ours) == int(theirs)
        return str(ours) == theirs
    m = _DEC.match(theirs)
    if m:
        o = _num(ours)
        if o is None:
            return False
        half = 0.5 * 10 ** -len(m.group(1))
        return abs(o - float(theirs)) <= half * (1 + 1e-9) + 1e-9 * abs(o)
    t = _num(theirs)
    if t is not None and not isinstance(ours, str):  # 1e+20, inf
        o = _num(ours)
        return o is not None and (o == t or abs(o - t) <= 1e-9 * max(abs(o), abs(t)))
    return str(ours) == theirs


def _colmap(header, columns):
    m = {h: snake(h) for h in header}
    if columns:
        m.update(columns)
    return m


def _key_headers(key, header, cmap):
    if key is None:
        return []
    rev = {v: k for k, v in cmap.items()}
    return [k if k in header else rev.get(k, k) for k in ([key] if isinstance(key, str) else key)]


def _fmt_row(r, cols):
    return '{' + ', '.join(f'{c}={r.get(c)!r}' for c in cols) + '}'


def compare_rows(ours, theirs, key=None, header=None, columns=None, label='', limit=30):
    """Compare our rows (dicts keyed by our column names) with nsys's (dicts keyed by nsys's
    header, text values). key: the columns identifying a row (nsys header names or ours);
    None: rows compared in order. Returns a list of differences (text)."""
    header = header or (list(theirs[0]) if theirs else [])
    cmap = _colmap(header, columns)
    diffs = []
    if ours and header:
        missing = [cmap[h] for h in header if cmap[h] not in ours[0]]
        if missing:
            return [f'{label}: our table lacks columns {missing}']
    khs = _key_headers(key, header, cmap)

    def tkey(r):
        return tuple(r.get(h, '') for h in khs)

    def okey(r):
        out = []
        for h in khs:
            v = r.get(cmap[h])
            out.append('' if v is None else (str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)))
        return tuple(out)

    if not khs:
        pairs = list(zip(ours, theirs))
        if len(ours) != len(theirs):
            diffs.append(f'{label}: {len(ours)} rows, nsys has {len(theirs)}')
    else:
        tg, og = {}, {}
        for r in theirs:
            tg.setdefault(tkey(r), []).append(r)
        for r in ours:
            og.setdefault(okey(r), []).append(r)
        pairs = []
        for k in tg:
            t = tg[k]
            o = og.get(k, [])
            # Pair rows sharing a key by the sort order of the other columns.
            t = sorted(t, key=lambda r: [_num(r.get(h)) or 0 for h in header if h not in khs])
            o = sorted(o, key=lambda r: [_num(r.get(cmap[h])) or 0 for h in header if h not in khs])
            for a, b in zip(o, t):
                pairs.append((a, b))
            for b in t[len(o):]:
                diffs.append(f'{label}: missing row {dict(zip(khs, k))} (nsys: {_fmt_row(b, header)})')
            for a in o[len(t):]:
                diffs.append(f'{label}: extra row {dict(zip(khs, k))} (ours: {a})')
        for k in og:
            if k not in tg:
                for a in og[k]:
                    diffs.append(f'{label}: extra row {dict(zip(khs, k))} (ours: {a})')
    for o, t in pairs:
        for h in header:
            if h in khs:
                continue
            if not value_equal(o.get(cmap[h]), t.get(h)):
                kd = dict(zip(khs, tkey(t))) if khs else ''
                diffs.append(f'{label}: {kd} {h}: ours {o.get(cmap[h])!r}, nsys {t.get(h)!r}')
    if len(diffs) > limit:
        diffs = diffs[:limit] + [f'{label}: ... {len(diffs) - limit} more differences']
    return diffs


def compare_digest(ours, g, columns=None, label='', align=(), notes=None, ignore=()):
    """Compare our rows with a digest golden (row count, sha256 of the normalized sorted rows).
    align: time columns (nsys header names) whose values may differ from nsys's by one constant
    (the converter shifts a report holding negative timestamps): ours are moved so that their
    minimum is nsys's, and the shift is appended to `notes`."""
    cmap = _colmap(g.header, columns)
    if ours:
        missing = [cmap[h] for h in g.header if cmap[h] not in ours[0]]
        if missing:
            return [f'{label}: our table lacks columns {missing}']
    shifts = {}
    for h in align or ():
        vals = [r.get(cmap[h]) for r in ours if isinstance(r.get(cmap[h]), int)]
        if vals and h in g.column_min and min(vals) != g.column_min[h]:
            shifts[h] = min(vals) - g.column_min[h]
    if shifts and notes is not None:
        notes.append(f'{label}: ' + ', '.join(f'{h} shifted by {v} ns' for h, v in shifts.items()))

    def get(r, h):
        v = r.get(cmap[h])
        return v - shifts[h] if h in shifts and isinstance(v, int) else v

    total, per = _digests(g.header, ours, g.decimals, get)
    diffs = []
    if len(ours) != g.count:
        diffs.append(f'{label}: {len(ours)} rows, nsys has {g.count}')
    if ignore:
        bad = [h for h in g.header if h not in ignore and per[h] != g.column_sha256.get(h)]
        if bad:
            diffs.append(f'{label}: columns differ from nsys (sha256): {bad} ({list(ignore)} not compared)')
        loose = [h for h in ignore if h in per and per[h] != g.column_sha256.get(h)]
        if loose and notes is not None:
            notes.append(f'{label}: not compared, and not as nsys: {loose}')
    elif total != g.sha256:
        bad = [h for h in g.header if per[h] != g.column_sha256.get(h)]
        diffs.append(f'{label}: rows differ from nsys (sha256); columns that differ: {bad or "none (row pairing)"}')
    return diffs


def compare(g, ours, key=None, columns=None, label='', align=(), notes=None, ignore=()):
    """Compare our rows with golden g, whatever its kind. [] when equal. align, notes, ignore:
    see compare_digest (digest goldens only)."""
    label = label or (f'{g.stem}/{g.name}' if g else '')
    if g is None:
        return []
    if g.kind == 'rows':
        return compare_rows(ours, g.rows, key, g.header, columns, label)
    if g.kind == 'digest':
        return compare_digest(ours, g, columns, label, align, notes, ignore)
    if g.kind == 'none':
        return [] if not ours else [f'{label}: nsys has no rows ({g.message}), ours has {len(ours)}']
    return []


# ---------------------------------------------------------------- test driver

VERSION_DIRS = {'2022.4': GOLDEN_DIR, '2023.4': GOLDEN_DIR_2023}


def spec_golden(stem, spec):
    """The golden a check spec compares with (its 'golden_dir', else its 'version''s, default
    2022.4), or None."""
    return golden(stem, spec['name'], spec.get('golden_dir') or VERSION_DIRS[spec.get('version', '2022.4')])


def spec_label(spec):
    """'name (nsys 2022.4)': what a spec compared with, for the tests' output."""
    return f"{spec['name']} (nsys {spec.get('version', '2022.4')})"


def check_corpus(specs, nsys_perfetto, work=None, reports=None, tp=None, package=None, log=print):
    """For each report (default: every corpus report with a golden for one of the specs),
    convert it, run the specs' queries in one trace_processor run, compare with the goldens.
    spec: {'name': '<2022.4 report>', 'table': 'nsys_x' | 'sql': 'SELECT ...',
           'modules': [...], 'key': [...], 'columns': {header: our column} (optional),
           'align': [time columns of a digest golden that may be shifted] (optional)}.
    version: the nsys whose goldens the spec compares with, '2022.4' (tests/sql_golden,
    the default) or '2023.4' (tests/sql_golden_2023); ignore: columns of a digest golden
    left out (nsys data the trace does not carry; every other column's digest must match;
    an ignored column that differs is logged as a note).
    Returns (compared, differences): compared = {'name (nsys version)': number of reports
    compared}; notes (shifts found) are logged."""
    work = work or WORK
    if reports is None:
        reports = [s for s in corpus_reports()
                   if any(spec_golden(s, sp) is not None for sp in specs)]
    compared = {spec_label(sp): 0 for sp in specs}
    diffs = []
    for report in reports:
        stem = stem_of(report)
        todo = [(sp, spec_golden(stem, sp)) for sp in specs]
        todo = [(sp, g) for sp, g in todo if g is not None and g.kind in ('rows', 'digest', 'none')]
        if not todo:
            continue
        try:
            trace = converted_trace(report, nsys_perfetto, work)
        except Exception as e:  # noqa: BLE001
            diffs.append(f'{stem}: conversion failed: {e}')
            continue
        modules = []
        for sp, _ in todo:
            for m in sp.get('modules', []):
                if m not in modules:
                    modules.append(m)
        sqls = [sp.get('sql') or f"SELECT * FROM {sp['table']}" for sp, _ in todo]
        try:
            results = tp_queries(trace, sqls, modules, package, tp)
        except Exception as e:  # noqa: BLE001
            diffs.append(f'{stem}: query failed: {e}')
            continue
        line = []
        for (sp, g), rows in zip(todo, results):
            notes = []
            d = compare(g, rows, sp.get('key'), sp.get('columns'), f"{stem}/{spec_label(sp)}",
                        sp.get('align', ()), notes, sp.get('ignore', ()))
            for n in notes:
                log('note: ' + n)
            compared[spec_label(sp)] += 1
            diffs += d
            line.append(f"{spec_label(sp)} {'ok' if not d else str(len(d)) + ' diff'}"
                        + (' (no data)' if g.kind == 'none' else f' ({g.count} rows)')
                        + (' [golden from a patched copy]' if g.note else ''))
        log(f'{stem}: ' + ', '.join(line))
    return compared, diffs


def main_check(specs, argv=None):
    """ctest entry: argv = NSYS_PERFETTO TRACE_PROCESSOR PACKAGE WORKDIR [STEM|REPORT ...].
    Returns 0 (all equal), 1 (differences) or 77 (skipped)."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 4:
        print(f'usage: NSYS_PERFETTO TRACE_PROCESSOR PACKAGE WORKDIR [REPORT...]')
        return 2
    nsysp, tp, pkg, work = argv[:4]
    reports = argv[4:] or None
    if not os.path.exists(tp):
        print(f'skip: no trace_processor_shell at {tp}')
        return 77
    if not reports and not corpus_reports():
        print(f'skip: no corpus at {CORPUS}')
        return 77
    if reports and not all(os.path.exists(corpus_path(r)) for r in reports if os.sep in r):
        print('skip: a report given is missing')
        return 77
    if not any(reports_with(sp['name'], VERSION_DIRS[sp.get('version', '2022.4')]) for sp in specs):
        print(f'skip: no goldens for {[spec_label(sp) for sp in specs]}')
        return 77
    compared, diffs = check_corpus(specs, nsysp, work, reports, tp, pkg)
    for d in diffs:
        print('FAIL ' + d)
    print('compared: ' + ', '.join(f'{k} on {v} reports' for k, v in compared.items()))
    print('ok' if not diffs else f'{len(diffs)} differences')
    return 1 if diffs else 0


# ---------------------------------------------------------------- generation

_PROC = re.compile(r'Processing \[[^\]]*\] with \[[^\]]*/([A-Za-z0-9_]+)\.py\](?:\([^)]*\))? to \[([^\]]*)\]\.\.\. ?'
                   r'(PROCESSED|SKIPPED:[^\n]*|ERROR[^\n]*)?')
_ERR = re.compile(r"ERROR: Report '([A-Za-z0-9_]+)\.py'[^\n]*")


def _write_gz(path, text):
    with open(path, 'wb') as raw:
        with gzip.GzipFile(filename='', mode='wb', fileobj=raw, mtime=0, compresslevel=9) as f:
            f.write(text.encode())


def _clear(base):
    for ext in ('.csv.gz', '.json', '.none', '.error', '.note'):
        if os.path.exists(base + ext):
            os.remove(base + ext)


def _run_stats(nsys, db, names, tmp):
    """nsys stats with every name at once on db: {name: (kind, text or message)}, kind in
    'data', 'none', 'error'."""
    for f in os.listdir(tmp):
        if f.startswith('out_'):
            os.remove(os.path.join(tmp, f))
    cmd = [nsys, 'stats', '--force-overwrite', 'true', '-f', 'csv', '-o', os.path.join(tmp, 'out')]
    for n in names:
        cmd += ['-r', n]
    p = subprocess.run(cmd + [db], capture_output=True, text=True)
    status = {}
    for m in _PROC.finditer(p.stdout + '\n' + p.stderr):
        status[os.path.basename(m.group(2))] = (m.group(2), (m.group(3) or '').strip())
    errors = {}
    for m in _ERR.finditer(p.stdout + '\n' + p.stderr):
        errors[m.group(1)] = m.group(0).strip()
    res = {}
    for n in names:
        out = f"out_{n.replace(':', '_')}.csv"
        path, st = status.get(out, (os.path.join(tmp, out), ''))
        text = ''
        if os.path.exists(path):
            with open(path, newline='') as f:
                text = f.read()
        script = n.split(':')[0]
        if script in errors or out not in status:
            res[n] = ('error', errors.get(script, f'nsys stats did not run it (exit {p.returncode})'))
        elif st.startswith('SKIPPED') and _SCHEMA_REFUSAL.search(st):
            res[n] = ('error', st.split(':', 1)[1].strip())
        elif st.startswith('SKIPPED') or not text.strip():
            res[n] = ('none', st.split(':', 1)[1].strip() if st.startswith('SKIPPED') else 'nsys printed no rows')
        else:
            res[n] = ('data', text)
    return res


# nsys 2023.4 skips a report whose export lacks what it reads ("... does not contain
# 'greenContextId' column. Please re-export ...", "... does not contain TARGET_INFO_GPU table."):
# a refusal of the schema, not a report without the data; kept as an error, not as 'none'.
_SCHEMA_REFUSAL = re.compile(r"re-export|does not contain [A-Za-z_]+ table|missing '")


def _patch(db, message):
    """Work around nsys failing on an export's schema, in a copy of the report, the way a
    current export would read; returns a note saying what was done, or None."""
    import sqlite3
    con = sqlite3.connect(db)
    notes = []
    try:
        cols = [r[1] for r in con.execute('PRAGMA table_info(TARGET_INFO_GPU)')]
        if 'ambiguous column name: deviceId' in message and 'deviceId' in cols and 'id' not in cols:
            con.execute('ALTER TABLE TARGET_INFO_GPU RENAME COLUMN deviceId TO id')
            notes.append('nsys 2022.4 fails on this older export (TARGET_INFO_GPU has deviceId, not id: '
                         '"ambiguous column name: deviceId"); made from a copy with the column renamed to id')
        if ('no such table: TARGET_INFO_GPU' in message or 'not contain TARGET_INFO_GPU table' in message) \
                and not cols:
            con.execute('CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT)')
            notes.append('nsys fails on this export (no TARGET_INFO_GPU table); made from a copy '
                         'with an empty TARGET_INFO_GPU (GPU names unknown: Device is " (N)")')
        if 'greenContextId' in message:
            added = []
            for t in ('CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET'):
                tcols = [r[1] for r in con.execute(f'PRAGMA table_info({t})')]
                if tcols and 'greenContextId' not in tcols:
                    con.execute(f'ALTER TABLE {t} ADD COLUMN greenContextId INTEGER')
                    added.append(t)
            if added:
                notes.append("nsys 2023.4 refuses this export (no greenContextId column: made before green "
                             "contexts); made from a copy with a NULL greenContextId in " + ', '.join(added))
        con.commit()
    finally:
        con.close()
    return '; '.join(notes) or None


def generate(stems, names, nsys='nsys', golden_dir=None, full=None, log=print):
    golden_dir = golden_dir or GOLDEN_DIR
    for stem in stems:
        src = corpus_path(stem)
        stem = stem_of(src)
        with tempfile.TemporaryDirectory(prefix='sqlgold-') as tmp:
            db = os.path.join(tmp, 'report.sqlite')
            with (gzip.open(src) if src.endswith('.gz') else open(src, 'rb')) as i, open(db, 'wb') as o:
                shutil.copyfileobj(i, o, 1 << 20)
            res = _run_stats(nsys, db, names, tmp)
            notes = {}
            done = []
            # A patch can reveal the next refusal (no TARGET_INFO_GPU, then no greenContextId).
            for _ in range(3):
                failed = [n for n in names if res[n][0] == 'error']
                note = failed and _patch(db, ' '.join(res[n][1] for n in failed))
                if not note:
                    break
                done.append(note)
                again = _run_stats(nsys, db, failed, tmp)
                for n in failed:
                    res[n] = again[n]
                    if again[n][0] != 'error':
                        notes[n] = '; '.join(done)
            os.makedirs(os.path.join(golden_dir, stem), exist_ok=True)
            summary = []
            for n in names:
                base = _golden_base(stem, n, golden_dir)
                _clear(base)
                kind, text = res[n]
                if n in notes:
                    with open(base + '.note', 'w') as f:
                        f.write(notes[n] + '\n')
                if kind == 'error':
                    with open(base + '.error', 'w') as f:
                        f.write(text + '\n')
                    summary.append(f'{n}:error')
                    continue
                if kind == 'none':
                    with open(base + '.none', 'w') as f:
                        f.write(text.replace(db, stem + '.sqlite') + '\n')
                    summary.append(f'{n}:none')
                    continue
                if full:
                    os.makedirs(os.path.join(full, stem), exist_ok=True)
                    with open(os.path.join(full, stem, n.replace(':', '-') + '.csv'), 'w') as f:
                        f.write(text)
                if n in TRACE_NAMES:
                    r = list(csv.reader(io.StringIO(text)))
                    header, rows = r[0], [dict(zip(r[0], x)) for x in r[1:]]
                    dec = _decimals_of(rows, header)
                    total, per = _digests(header, rows, dec, lambda row, h: row.get(h))
                    mins = {}
                    for h in header:
                        vals = [row.get(h, '') for row in rows]
                        vals = [v for v in vals if v not in ('', 'None')]
                        if vals and all(_NUM_INT.match(v) for v in vals):
                            mins[h] = min(int(v) for v in vals)
                    with open(base + '.json', 'w') as f:
                        json.dump({'report': n, 'rows': len(rows), 'header': header, 'decimals': dec,
                                   'sha256': total, 'column_sha256': per, 'column_min': mins}, f, indent=1)
                        f.write('\n')
                    summary.append(f'{n}:{len(rows)}#')
                else:
                    _write_gz(base + '.csv.gz', text)
                    summary.append(f'{n}:{text.count(chr(10)) - 1}')
                if n in notes:
                    summary[-1] += '(patched)'
            log(f'{stem}: ' + ' '.join(summary))
    write_index(golden_dir)


def write_index(golden_dir=None):
    golden_dir = golden_dir or GOLDEN_DIR
    lines = ['stem\tname\tkind\trows']
    for stem in sorted(os.listdir(golden_dir)):
        d = os.path.join(golden_dir, stem)
        if not os.path.isdir(d):
            continue
        names = sorted({re.sub(r'\.(csv\.gz|json|none|error|note)$', '', f) for f in os.listdir(d)})
        for n in names:
            g = golden(stem, n, golden_dir)
            if g:
                lines.append(f'{stem}\t{n}\t{g.kind}\t{g.count if g.kind in ("rows", "digest") else ""}'
                             + ('\tpatched' if g.note else ''))
    with open(os.path.join(golden_dir, 'index.tsv'), 'w') as f:
        f.write('\n'.join(lines) + '\n')


def _cli():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    g = sub.add_parser('generate', help='run nsys stats on corpus reports and write goldens')
    g.add_argument('--reports', nargs='*', help='stems (default: every corpus report)')
    g.add_argument('--version', choices=['2022.4', '2023.4'], default='2022.4',
                   help='the nsys the goldens are made with (2023.4: its report names, into '
                        'tests/sql_golden_2023; give its nsys with --nsys)')
    g.add_argument('--names', nargs='*', help=f'report names (default 2022.4: {" ".join(ALL_NAMES)}; '
                                              f'2023.4: {" ".join(ALL_NAMES_2023)})')
    g.add_argument('--nsys', default='nsys')
    g.add_argument('--full', help='also keep the full CSVs in this directory')
    ls = sub.add_parser('list', help='which reports have which goldens')
    ls.add_argument('name', nargs='?')
    sh = sub.add_parser('show', help='print one golden')
    sh.add_argument('stem')
    sh.add_argument('name')
    a = ap.parse_args()
    if a.cmd == 'generate':
        new = a.version == '2023.4'
        generate(a.reports or corpus_reports(), a.names or (ALL_NAMES_2023 if new else ALL_NAMES), a.nsys,
                 golden_dir=GOLDEN_DIR_2023 if new else GOLDEN_DIR, full=a.full)
    elif a.cmd == 'list':
        with open(os.path.join(GOLDEN_DIR, 'index.tsv')) as f:
            for line in f:
                if not a.name or f'\t{a.name}\t' in line or line.startswith('stem'):
                    sys.stdout.write(line)
    elif a.cmd == 'show':
        gd = golden(a.stem, a.name)
        if gd is None:
            print('no golden')
            return 1
        print(gd)
        if gd.kind == 'rows':
            w = csv.writer(sys.stdout)
            w.writerow(gd.header)
            for r in gd.rows:
                w.writerow([r[h] for h in gd.header])
        elif gd.kind == 'digest':
            print(json.dumps({'header': gd.header, 'decimals': gd.decimals, 'sha256': gd.sha256}, indent=1))
        else:
            print(gd.message)
    return 0


if __name__ == '__main__':
    sys.exit(_cli())
