#!/usr/bin/env python3
"""check_sql_stats_nvtx_cpu.py NSYS_PERFETTO TRACE_PROCESSOR PACKAGE WORKDIR [--fixture NSYS_FIXTURE]
                               [--script CMD] [STEM...]

The NVTX and CPU-side `nsys stats` tables of the nsys PerfettoSQL package
(src/sql/nsys/stats/nvtx.sql, src/sql/nsys/stats/cpu.sql, over the typed
tables of nsys.nvtx, nsys.cuda and nsys.cpu) against nsys stats' own output,
2023.4's in tests/sql_golden_2023 and 2022.4's in tests/sql_golden
(tests/sql_golden.py); each line of output names the version. nsys 2023.4
(the package's own form): nvtx_sum, nvtx_pushpop_sum, nvtx_startend_sum,
nvtx_kern_sum (and :base), nvtx_gpu_proj_sum, nvtx_gpu_proj_trace (compared
as nvtxgpuproj below), by the same keys as their 2022.4 reports. nsys 2022.4:

  nsys_nvtx_sum            nvtxsum          rows by (Range, Style)
  nsys_nvtx_pushpop_sum    nvtxppsum        rows by Range
  nsys_nvtx_startend_sum   nvtxsesum        rows by Range
  nsys_nvtx_kern_sum       nvtxkernsum      rows by (NVTX Range, Style, PID, TID, Kernel Name)
  nsys_nvtx_kern_sum_by_name('base')  nvtxkernsum:base  the same
  nsys_nvtx_gpu_proj_trace_2022 nvtxgpuproj row count and sha256 of every row; our range
                                            ids (slice ids) are first mapped to nsys's
                                            (NVTX_EVENTS rowids) through the report, so
                                            RangeId, ParentId and RangeStack are checked too
  nsys_osrt_sum            osrtsum          rows by Name
  nsys_openacc_sum         openaccsum       rows by Name
  nsys_openmp_sum          openmpevtsum     rows by Name
  nsys_um_cpu_page_faults_sum umcpupagefaults rows by CPU Instruction Address

on every corpus report that has a golden for them (a report without the data
must give an empty table), integers exact, other numbers to the digits nsys
prints. nvtxgpuproj is compared in report time with no
alignment: in a trace the converter shifted, the package undoes the shift it
records (nsys_gpus.time_shift_ns), start times and range tree included.

With --fixture, the same on reports made by nsys-fixture (OpenMP events and
unified-memory CPU page faults, which no corpus report has, and push/pop ranges
left open at the end of the report; goldens in
tests/sql_golden_fixtures/, made with `generate-fixture`), and known answers
computed here from the fixture's SQLite: the typed tables of nsys.cpu (rows
per name and thread, durations, args) and nsys_mpi_event_sum (nsys 2023.4+
mpi_event_sum; 2022.4 has no MPI report). With --script CMD as well (`nsys-perfetto
sql`), every table of the two modules through the script CMD prints, pasted
without --add-sql-package (the Perfetto UI's query page), equals the package's
on the modern fixture report.

  check_sql_stats_nvtx_cpu.py generate-fixture NSYS_FIXTURE [NAME...]   (re)make the fixture goldens

Exits 77 without trace_processor_shell, the corpus or the goldens.
"""
import collections
import gzip
import hashlib
import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sql_golden as sg  # noqa: E402

NVTX = ['nsys.stats.nvtx']
CPU = ['nsys.stats.cpu']

SPECS = [
    {'name': 'nvtxsum', 'table': 'nsys_nvtx_sum', 'modules': NVTX, 'key': ['Range', 'Style']},
    {'name': 'nvtxppsum', 'table': 'nsys_nvtx_pushpop_sum', 'modules': NVTX, 'key': ['Range']},
    {'name': 'nvtxsesum', 'table': 'nsys_nvtx_startend_sum', 'modules': NVTX, 'key': ['Range']},
    {'name': 'nvtxkernsum', 'table': 'nsys_nvtx_kern_sum', 'modules': NVTX,
     'key': ['NVTX Range', 'Style', 'PID', 'TID', 'Kernel Name']},
    {'name': 'nvtxkernsum:base', 'sql': "SELECT * FROM nsys_nvtx_kern_sum_by_name('base')", 'modules': NVTX,
     'key': ['NVTX Range', 'Style', 'PID', 'TID', 'Kernel Name']},
    {'name': 'nvtxgpuproj', 'table': 'nsys_nvtx_gpu_proj_trace_2022', 'modules': NVTX},
    {'name': 'osrtsum', 'table': 'nsys_osrt_sum', 'modules': CPU, 'key': ['Name']},
    {'name': 'openaccsum', 'table': 'nsys_openacc_sum', 'modules': CPU, 'key': ['Name'],
     'columns': {'Time(%)': 'time_pct'}},
    {'name': 'openmpevtsum', 'table': 'nsys_openmp_sum', 'modules': CPU, 'key': ['Name']},
    {'name': 'umcpupagefaults', 'table': 'nsys_um_cpu_page_faults_sum', 'modules': CPU,
     'key': ['CPU Instruction Address']},
]
# nsys 2023.4 (tests/sql_golden_2023): the package's own form.
SPECS_2023 = [
    {'name': 'nvtx_sum', 'table': 'nsys_nvtx_sum', 'modules': NVTX, 'key': ['Range', 'Style']},
    {'name': 'nvtx_pushpop_sum', 'table': 'nsys_nvtx_pushpop_sum', 'modules': NVTX, 'key': ['Range']},
    {'name': 'nvtx_startend_sum', 'table': 'nsys_nvtx_startend_sum', 'modules': NVTX, 'key': ['Range']},
    {'name': 'nvtx_kern_sum', 'table': 'nsys_nvtx_kern_sum', 'modules': NVTX,
     'key': ['NVTX Range', 'Style', 'PID', 'TID', 'Kernel Name']},
    {'name': 'nvtx_kern_sum:base', 'sql': "SELECT * FROM nsys_nvtx_kern_sum_by_name('base')", 'modules': NVTX,
     'key': ['NVTX Range', 'Style', 'PID', 'TID', 'Kernel Name']},
    {'name': 'nvtx_gpu_proj_trace', 'table': 'nsys_nvtx_gpu_proj_trace', 'modules': NVTX},
    {'name': 'nvtx_pushpop_trace', 'table': 'nsys_nvtx_pushpop_trace', 'modules': NVTX},
    {'name': 'nvtx_gpu_proj_sum', 'table': 'nsys_nvtx_gpu_proj_sum', 'modules': NVTX, 'key': ['Range', 'Style']},
]
for spec in SPECS_2023:
    spec['version'] = '2023.4'
SPECS_2022 = SPECS
SPECS = SPECS_2023 + SPECS_2022
NAMES = [sp['name'] for sp in SPECS]
# The projection traces, whose range ids are mapped to nsys's.
PROJ_TRACES = ('nvtxgpuproj', 'nvtx_gpu_proj_trace', 'nvtx_pushpop_trace')

# Every NVTX range as the projection sees it, to map our range ids to nsys's.
RANGES_SQL = """
SELECT id, ts - _nsys_time_shift() AS ts, end_ts - _nsys_time_shift() AS end_ts, tid, pid
FROM _nsys_nvtx_stats_range WHERE same_thread
"""

# Fixture reports: name -> nsys-fixture arguments (deterministic: same seed, same file).
FIXTURES = {
    'fixture-2022-all': ['--schema', '2022', '--all-tables', '--osrt', '--nvtx', '-n', '20000', '-s', '7'],
    'fixture-modern-all': ['--all-tables', '--osrt', '--nvtx', '-n', '20000', '-s', '7'],
}
# The NVTX of a recursion (issue 43): one thread whose push/pop ranges are replaced by 20 towers
# of 1,100 ranges nested 1 ns apart around a kernel launch (22,000 ranges, 1,100 deep; their
# 32-bit R*Tree bounds often coincide), then a range around the second half of the run holding
# one range around each of its ~3,900 isolated calls (wide, flat nesting).
DEEP_NVTX_EDITS = [
    'DELETE FROM NVTX_EVENTS WHERE eventType IN (59, 60)',
    'CREATE TEMP TABLE iso AS '
    'WITH r AS (SELECT start, end, globalTid, '
    'max(end) OVER (ORDER BY start, rowid ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end, '
    'min(start) OVER (ORDER BY start, rowid ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS next_start, '
    'correlationId IN (SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL) AS launches '
    'FROM CUPTI_ACTIVITY_KIND_RUNTIME) '
    'SELECT *, row_number() OVER (ORDER BY start) AS n, '
    '(SELECT (min(start) + max(end)) / 2 FROM CUPTI_ACTIVITY_KIND_RUNTIME) AS mid '
    'FROM r WHERE start - prev_end > 2 AND next_start - end > 2',
    'INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid) '
    'WITH RECURSIVE tower AS (SELECT start, end, globalTid FROM iso WHERE launches AND start < mid '
    'AND start - prev_end > 2300 AND next_start - end > 2300 ORDER BY start LIMIT 20), '
    'lvl(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM lvl WHERE k < 1099) '
    "SELECT t.start - (1100 - k), t.end + (1100 - k), 59, 'ExpressionEvaluator::evaluate', t.globalTid "
    'FROM tower t CROSS JOIN lvl',
    'INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid) '
    "SELECT min(start) - 10, max(end) + 10, 59, 'flat', globalTid FROM iso WHERE start > mid",
    'INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid) '
    "SELECT start - 1, end + 1, 59, 'op ' || (n % 7), globalTid FROM iso WHERE start > mid",
]

# Edits made to a fixture report after it is written (SQL on the copy), for cases the generator
# does not make: push/pop ranges still open at the end of the report (nsys ends them at the last
# NVTX timestamp, the converter at the end of the report); a deep recursion (DEEP_NVTX_EDITS).
# The base is a FIXTURES name or nsys-fixture arguments.
FIXTURE_EDITS = {
    'fixture-2022-open-ranges': ('fixture-2022-all', [
        'UPDATE NVTX_EVENTS SET end = NULL WHERE rowid IN (SELECT rowid FROM NVTX_EVENTS '
        'WHERE eventType = 59 ORDER BY end DESC, rowid LIMIT 3)',
        'UPDATE NVTX_EVENTS SET end = NULL WHERE rowid IN (SELECT rowid FROM NVTX_EVENTS '
        'WHERE eventType = 59 AND domainId != 0 ORDER BY start, rowid LIMIT 1)',
    ]),
    'fixture-2022-deep-nvtx': (['--schema', '2022', '--nvtx', '--processes', '1', '--threads', '1',
                                '--gpus', '1', '-n', '20000', '-s', '3'], DEEP_NVTX_EDITS),
}
FIXTURE_NAMES = ['osrtsum', 'openaccsum', 'openmpevtsum', 'umcpupagefaults', 'nvtxsum', 'nvtxppsum',
                 'nvtxsesum', 'nvtxkernsum', 'nvtxgpuproj']


def log(*a):
    print(*a, flush=True)


# ---------------------------------------------------------------- nvtxgpuproj

def nsys_range_ids(db, pushpop=False):
    """(start, end, pid, tid) -> [NVTX_EVENTS rowid, ...] for the ranges nsys's projection uses
    (push/pop and start/end ranges ended on their own thread; open ones end at the last NVTX
    timestamp), and the smallest start. pushpop: the ranges of nvtx_pushpop_trace (push/pop
    ranges; open ones end at the last push/pop timestamp)."""
    cols = {r[1] for r in db.execute('PRAGMA table_info(NVTX_EVENTS)')}
    types = '(59, 70)' if pushpop else '(59, 60, 70, 71)'
    m = db.execute('SELECT max(max(start), max(end)) FROM NVTX_EVENTS'
                   + (f' WHERE eventType IN {types}' if pushpop else '')).fetchone()[0]
    egt = 'AND endGlobalTid IS NULL' if 'endGlobalTid' in cols and not pushpop else ''
    out = collections.defaultdict(list)
    mn = None
    for rowid, start, end, gtid in db.execute(
            f'SELECT rowid, start, coalesce(end, ?), globalTid FROM NVTX_EVENTS '
            f'WHERE eventType IN {types} {egt} ORDER BY rowid', (m,)):
        out[(start, end, (gtid >> 24) & 0xFFFFFF, gtid & 0xFFFFFF)].append(rowid)
        mn = start if mn is None else min(mn, start)
    return out, mn


def map_projection(rows, ranges, db, pushpop=False):
    """Our nvtxgpuproj rows (pushpop: nvtx_pushpop_trace's) with range ids (slice ids) replaced
    by nsys's row ids, matched on start, end, pid and tid (ranges sharing all four in id order;
    ours in report time, the trace's shift undone). pushpop: times shifted by one constant (a
    trace without GPUs records no shift: docs/sql.md) are matched shifted back. Returns (rows,
    problems)."""
    nsys_ids, nsys_min = nsys_range_ids(db, pushpop)
    shift = 0
    if ranges and nsys_min is not None and min(r['ts'] for r in ranges) != nsys_min:
        shift = min(r['ts'] for r in ranges) - nsys_min
    ours = collections.defaultdict(list)
    for r in sorted(ranges, key=lambda r: r['id']):
        ours[(r['ts'] - (shift if pushpop else 0), r['end_ts'] - (shift if pushpop else 0), r['pid'],
              r['tid'])].append(r['id'])
    idmap = {}
    problems = []
    if shift and not pushpop:
        problems.append(f"report times differ from nsys's by {shift} ns")
    for k, ids in ours.items():
        theirs = nsys_ids.get(k, [])
        if len(theirs) != len(ids):
            problems.append(f'range {k}: {len(ids)} ours, {len(theirs)} in NVTX_EVENTS')
        for a, b in zip(ids, theirs):
            idmap[a] = b
    out = []
    for r in rows:
        r = dict(r)
        r['rangeid'] = idmap.get(r['rangeid'], r['rangeid'])
        if r['parentid'] is not None:
            r['parentid'] = idmap.get(r['parentid'], r['parentid'])
        if r['rangestack']:
            r['rangestack'] = ':' + ':'.join(str(idmap.get(int(x), x)) for x in r['rangestack'].split(':')[1:])
        out.append(r)
    return out, problems[:5]


# ---------------------------------------------------------------- comparison of one report

def keys_null_as_empty(g, key):
    """nsys prints NULL as 'None' (kernels outside every range in nvtxkernsum); our NULL reads
    back as ''. sql_golden pairs rows by the key text: make nsys's NULL keys '' too."""
    if g is None or g.kind != 'rows' or not key:
        return g
    rows = [{h: ('' if h in key and v == 'None' else v) for h, v in r.items()} for r in g.rows]
    return sg.Golden(g.stem, g.name, g.kind, header=g.header, rows=rows)


def compare_report(label, trace, db_path, goldens, tp, package, specs=SPECS):
    """Run every spec with a golden on the trace, compare. Returns (differences, summary)."""
    todo = [(sp, goldens[sp['name']]) for sp in specs
            if goldens.get(sp['name']) is not None and goldens[sp['name']].kind in ('rows', 'digest', 'none')]
    if not todo:
        return [], ''
    modules = []
    for sp, _ in todo:
        for m in sp['modules']:
            if m not in modules:
                modules.append(m)
    sqls = [sp.get('sql') or f"SELECT * FROM {sp['table']}" for sp, _ in todo]
    need_ranges = any(sp['name'] in PROJ_TRACES[:2] and g.kind == 'digest' for sp, g in todo)
    if need_ranges:
        sqls.append(RANGES_SQL)
    results = sg.tp_queries(trace, sqls, modules, package, tp)
    diffs = []
    line = []
    for (sp, g), rows in zip(todo, results):
        name = sp['name']
        lab = f'{label}/{sg.spec_label(sp)}'
        notes = []
        if name in PROJ_TRACES and g.kind == 'digest':
            db = sqlite3.connect(f'file:{db_path}?immutable=1', uri=True)
            if name == 'nvtx_pushpop_trace':  # its rows hold the ranges
                ranges = [{'id': r['rangeid'], 'ts': r['start_ns'], 'end_ts': r['end_ns'], 'pid': r['pid'],
                           'tid': r['tid']} for r in rows]
                rows, problems = map_projection(rows, ranges, db, pushpop=True)
            else:
                rows, problems = map_projection(rows, results[-1], db)
            db.close()
            notes_ = []
            d = sg.compare(g, rows, label=lab, notes=notes_,
                           align=('Start (ns)', 'End (ns)') if name == 'nvtx_pushpop_trace' else ())
            notes += notes_
            if not d:
                # no tolerance left for a shifted trace: its report times must be nsys's
                d = [f'{lab}: {p}' for p in problems if p.startswith('report times')]
            else:
                d += [f'{lab}: id mapping: {p}' for p in problems]
        else:
            d = sg.compare(keys_null_as_empty(g, sp.get('key')), rows, sp.get('key'), sp.get('columns'), lab)
        for n in notes:
            log('note: ' + n)
        diffs += d
        line.append(f"{sg.spec_label(sp)} {'ok' if not d else str(len(d)) + ' diff'}"
                    + (' (no data)' if g.kind == 'none' else f' ({g.count} rows)'))
    return diffs, ', '.join(line)


def check_corpus(nsysp, tp, package, work, reports):
    compared = collections.Counter()
    with_data = collections.Counter()
    diffs = []
    if not reports:
        reports = [s for s in sg.corpus_reports() if any(sg.spec_golden(s, sp) for sp in SPECS)]
    for stem in reports:
        stem = sg.stem_of(stem)
        goldens = {sp['name']: sg.spec_golden(stem, sp) for sp in SPECS}
        if not any(g and g.kind in ('rows', 'digest', 'none') for g in goldens.values()):
            continue
        needs_db = any(goldens.get(n) is not None and goldens[n].kind == 'digest' for n in PROJ_TRACES)
        # The report itself maps range ids: unpacked in a directory of this test's own, since
        # it is removed after (other tests share `work`).
        db = sg.unpacked(stem, os.path.join(work, 'nvtx-cpu-reports')) if needs_db else None
        try:
            trace = sg.converted_trace(stem, nsysp, work)
            d, line = compare_report(stem, trace, db, goldens, tp, package)
        except Exception as e:  # noqa: BLE001
            d, line = [f'{stem}: {e}'], 'failed'
        finally:
            if db and not sg.corpus_path(stem).endswith('.sqlite'):
                try:
                    os.remove(db)
                except OSError:
                    pass
        for n, g in goldens.items():
            if g and g.kind in ('rows', 'digest', 'none'):
                compared[n] += 1
                if g.kind != 'none':
                    with_data[n] += 1
        diffs += d
        log(f'{stem}: {line}')
    return compared, with_data, diffs


# ---------------------------------------------------------------- fixture reports

# Goldens of the fixture reports: beside the corpus goldens, in the same layout.
FIXTURE_GOLDEN_DIR = os.environ.get('NSYSP_FIXTURE_GOLDEN_DIR',
                                    os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                 'sql_golden_fixtures'))


def fixture_dir(name):
    return os.path.join(FIXTURE_GOLDEN_DIR, name)


def base_args(base):
    return base if isinstance(base, list) else FIXTURES[base]


def fixture_args(name):
    base, edits = FIXTURE_EDITS.get(name, (name, []))
    return base_args(base) + [f'edit: {e}' for e in edits]


def make_fixture(fixture, name, out):
    """Write fixture report `name` to out; returns the sha256 of what nsys-fixture wrote (before
    any edit)."""
    base, edits = FIXTURE_EDITS.get(name, (name, []))
    subprocess.run([fixture, *base_args(base), out], check=True, capture_output=True)
    with open(out, 'rb') as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if edits:
        db = sqlite3.connect(out)
        for e in edits:
            db.execute(e)
        db.commit()
        db.close()
    return digest


def generate_fixture(fixture, names=()):
    """Make each fixture report (or those named), run nsys stats on a copy, store its goldens and
    the report's sha256 (tests/sql_golden/fixture-*/)."""
    for name in names or list(FIXTURES) + list(FIXTURE_EDITS):
        with tempfile.TemporaryDirectory(prefix='nvtxcpu-fx-') as tmp:
            db = os.path.join(tmp, name + '.sqlite')
            digest = make_fixture(fixture, name, db)
            gz = os.path.join(tmp, name + '.sqlite.gz')
            with open(db, 'rb') as i, gzip.open(gz, 'wb') as o:
                shutil.copyfileobj(i, o)
            sg.generate([gz], FIXTURE_NAMES, golden_dir=FIXTURE_GOLDEN_DIR)
            with open(os.path.join(fixture_dir(name), 'fixture.meta'), 'w') as f:
                json.dump({'args': fixture_args(name), 'sha256': digest}, f, indent=1)
                f.write('\n')
    sg.write_index(FIXTURE_GOLDEN_DIR)


def expected_cpu(db):
    """Known answers for the nsys.cpu tables and nsys_mpi_event_sum, from the report."""
    t = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    s = dict(db.execute('SELECT id, value FROM StringIds'))
    out = {}
    if 'OSRT_API' in t:
        per = collections.defaultdict(lambda: [0, 0, 0])
        for name, tid, d, rv, cls in db.execute(
                'SELECT nameId, globalTid % 16777216, end - start, returnValue, eventClass FROM OSRT_API'):
            k = f'osrt {s.get(name)} {tid or ""} {27 if cls == 27 else "-"}'
            per[k][0] += 1
            per[k][1] += d
            per[k][2] += rv or 0
        out.update({k: ' '.join(map(str, v)) for k, v in per.items()})
    acc = [x for x in t if x.startswith('CUPTI_ACTIVITY_KIND_OPENACC_')]
    if acc:
        per = collections.defaultdict(lambda: [0, 0, 0])
        for x in acc:
            cols = {r[1] for r in db.execute(f'PRAGMA table_info({x})')}
            b = 'bytes' if 'bytes' in cols else '0'
            for tid, d, line, by in db.execute(
                    f'SELECT globalTid % 16777216, end - start, lineNo, {b} FROM {x}'):
                k = f'openacc {tid}'
                per[k][0] += 1
                per[k][1] += d
                per[k][2] += (line or 0) + (by or 0)
        out.update({k: ' '.join(map(str, v)) for k, v in per.items()})
    omp = [x for x in t if x.startswith('OPENMP_EVENT_KIND_')]
    if omp:
        per = collections.defaultdict(lambda: [0, 0])
        for x in omp:
            for name, tid, d in db.execute(f'SELECT nameId, globalTid % 16777216, end - start FROM {x}'):
                k = f'openmp {tid} {"-" if name not in s else "named"}'
                per[k][0] += 1
                per[k][1] += d
        out.update({k: ' '.join(map(str, v)) for k, v in per.items()})
    if 'CUDA_UM_CPU_PAGE_FAULT_EVENTS' in t:
        for pid, n, a in db.execute('SELECT globalPid / 16777216 % 16777216, count(*), sum(address % 1000003) '
                                    'FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS GROUP BY 1'):
            out[f'umcpu {pid}'] = f'{n} {a}'
    mpi = {'MPI_P2P_EVENTS': 'p2p', 'MPI_START_WAIT_EVENTS': 'start-wait', 'MPI_OTHER_EVENTS': 'other',
           'MPI_COLLECTIVES_EVENTS': 'collectives'}
    calls = collections.defaultdict(list)
    for x, src in mpi.items():
        if x in t:
            for text_id, start, end in db.execute(f'SELECT textId, start, end FROM {x}'):
                calls[(src, s.get(text_id))].append(None if end is None else end - start)
    # nsys_mpi_event_sum, as nsys 2023.4+'s mpi_event_sum: per table and name, every call
    # counted, the unfinished ones (end NULL) left out of the times.
    for (src, name), durs in calls.items():
        out[f'mpi {src} {name}'] = f'{len(durs)} {sum(d for d in durs if d is not None)}'
    return out


CPU_QUERY = """
INCLUDE PERFETTO MODULE nsys.cpu;
INCLUDE PERFETTO MODULE nsys.stats.cpu;
SELECT 'osrt ' || name || ' ' || coalesce(tid, '') || ' ' || coalesce(event_class, '-') AS key,
       count(*) || ' ' || sum(dur) || ' ' || sum(coalesce(return_value, 0)) AS value
FROM nsys_osrt_calls GROUP BY name, tid, event_class
UNION ALL
SELECT 'openacc ' || tid, count(*) || ' ' || sum(dur) || ' ' || sum(coalesce(line, 0) + coalesce(bytes, 0))
FROM nsys_openacc_events GROUP BY tid
UNION ALL
SELECT 'openmp ' || tid || ' ' || iif(unnamed, '-', 'named'), count(*) || ' ' || sum(dur)
FROM nsys_openmp_events GROUP BY tid, unnamed
UNION ALL
SELECT 'umcpu ' || pid, count(*) || ' ' || sum(address % 1000003)
FROM nsys_um_cpu_page_faults GROUP BY pid
UNION ALL
SELECT 'mpi ' || source || ' ' || name, instances || ' ' || total_time_ns FROM nsys_mpi_event_sum
"""


# Every table of the two modules, for the pasted-script check.
ALL_TABLES = ['nsys_nvtx_sum', 'nsys_nvtx_pushpop_sum', 'nsys_nvtx_startend_sum', 'nsys_nvtx_kern_sum',
              "nsys_nvtx_kern_sum_by_name('base')", 'nsys_nvtx_gpu_proj_trace', 'nsys_nvtx_gpu_proj_sum',
              'nsys_nvtx_gpu_proj_trace_2022', 'nsys_nvtx_pushpop_trace',
              'nsys_nvtx_sum_by_op', 'nsys_nvtx_pushpop_sum_by_op', 'nsys_nvtx_startend_sum_by_op',
              'nsys_nvtx_gpu_proj_sum_by_op', 'nsys_nvtx_kern_sum_by_op',
              "nsys_nvtx_kern_sum_by_op_by_name('base')",
              'nsys_osrt_sum', 'nsys_openacc_sum', 'nsys_openmp_sum', 'nsys_um_cpu_page_faults_sum',
              'nsys_mpi_event_sum', 'nsys_osrt_calls', 'nsys_openacc_events', 'nsys_openmp_events',
              'nsys_um_cpu_page_faults', 'nsys_mpi_calls']


def pasted_script_same(trace, script, tp, package):
    """The tables through the script `script` prints (`nsys-perfetto sql stats.nvtx stats.cpu`),
    pasted without --add-sql-package, as the Perfetto UI's query page runs them: the same rows as
    through the package. Returns differences."""
    sqls = [f'SELECT * FROM {t}' for t in ALL_TABLES]
    ours = sg.tp_queries(trace, sqls, ['nsys.stats.nvtx', 'nsys.stats.cpu'], package, tp)
    text = subprocess.run(shlex.split(script) + ['stats.nvtx', 'stats.cpu'], capture_output=True, text=True,
                          check=True).stdout
    parts = [text]
    for k, sql in enumerate(sqls):
        parts.append(f"SELECT 'q{k}' AS __nsysp_marker__;\n{sql};\n")
    with tempfile.NamedTemporaryFile('w', suffix='.sql', delete=False) as f:
        f.write(''.join(parts))
        qfile = f.name
    try:
        p = subprocess.run([tp, '-q', qfile, trace], capture_output=True, text=True, timeout=900)
    finally:
        os.remove(qfile)
    if p.returncode != 0:
        return [f'pasted script: trace_processor_shell failed: {p.stderr[-2000:]}']
    pasted = [[] for _ in sqls]
    cur = None
    for rows in sg._parse_tp_output(p.stdout):
        if rows and list(rows[0]) == ['__nsysp_marker__']:
            cur = int(rows[0]['__nsysp_marker__'][1:])
        elif cur is not None:
            pasted[cur] = rows
    diffs = []
    for t, a, b in zip(ALL_TABLES, ours, pasted):
        if a != b:
            diffs.append(f'pasted script: {t}: {len(b)} rows differ from the package\'s {len(a)}')
        elif not a and not t.startswith('nsys_um_cpu'):
            diffs.append(f'pasted script: {t}: empty on the fixture report (the check needs rows)')
    return diffs


def proj_sum_consistent(label, trace, tp, package):
    """nsys_nvtx_gpu_proj_sum (nsys 2023+ nvtx_gpu_proj_sum; no 2022.4 report to compare with)
    against nsys_nvtx_gpu_proj_trace, summed here per name and style."""
    trace_rows, sums = sg.tp_queries(trace, ['SELECT * FROM nsys_nvtx_gpu_proj_trace',
                                             'SELECT * FROM nsys_nvtx_gpu_proj_sum'], ['nsys.stats.nvtx'],
                                     package, tp)
    groups = collections.defaultdict(list)
    for r in trace_rows:
        if r['name'] is not None:  # the work outside every range: not summed, as nsys
            groups[(r['name'], r['style'])].append(r)
    diffs = []
    if len(sums) != len(groups) or not sums:
        diffs.append(f'{label}: nsys_nvtx_gpu_proj_sum has {len(sums)} rows, {len(groups)} names and styles')
    for r in sums:
        g = groups.get((r['range'], r['style']), [])
        durs = sorted(x['projected_duration_ns'] for x in g)
        n = len(durs)
        want = {
            'total_proj_time_ns': sum(durs), 'range_instances': n,
            'total_range_time_ns': sum(x['orig_duration_ns'] for x in g),
            'proj_min_ns': durs[0] if durs else None, 'proj_max_ns': durs[-1] if durs else None,
            'total_gpu_ops': sum(x['numgpuops'] for x in g),
        }
        approx = {
            'proj_avg_ns': sum(durs) / n if n else None,
            'proj_med_ns': (durs[(n - 1) // 2] + durs[n // 2]) / 2 if n else None,
            'avg_gpu_ops': sum(x['numgpuops'] for x in g) / n if n else None,
            'avg_num_child': sum(x['numchild'] for x in g) / n if n else None,
        }
        bad = [k for k, v in want.items() if r.get(k) != v]
        bad += [k for k, v in approx.items() if v is None or abs(r.get(k) - v) > 0.05 + 1e-9 * abs(v)]
        if bad:
            diffs.append(f'{label}: nsys_nvtx_gpu_proj_sum {r["range"]!r} {r["style"]}: {bad} differ '
                         'from its nsys_nvtx_gpu_proj_trace rows')
    return diffs


def deep_top_level(name, trace, tp, package):
    """nsys.extras.iterations on the recursion: its 20 outermost ranges are the repeated top-level
    ones, not the tops of the converter's further lanes (past 256 levels: 5 per recursion)."""
    rows = sg.tp_query(trace, 'SELECT name, count FROM nsys_repeated_ranges',
                       modules=['nsys.extras.iterations'], package=package, tp=tp)
    got = {r['name']: r['count'] for r in rows}
    want = {'ExpressionEvaluator::evaluate': 20}
    return [] if got == want else [f'{name}: nsys_repeated_ranges {got}, want {want}']


def check_fixtures(fixture, nsysp, tp, package, work, script=None):
    diffs = []
    compared = collections.Counter()
    for name in list(FIXTURES) + list(FIXTURE_EDITS):
        d = fixture_dir(name)
        meta = os.path.join(d, 'fixture.meta')
        if not os.path.exists(meta):
            log(f'{name}: no goldens (generate-fixture): skipped')
            continue
        with open(meta) as f:
            want = json.load(f)
        db_path = os.path.join(work, name + '.sqlite')
        digest = make_fixture(fixture, name, db_path)
        if digest != want['sha256'] or want['args'] != fixture_args(name):
            log(f'{name}: SKIPPED: nsys-fixture now writes another report than the goldens were made '
                f'from; remake them: {sys.argv[0]} generate-fixture NSYS_FIXTURE')
            continue
        trace = os.path.join(work, name + '.perfetto-trace')
        subprocess.run([nsysp, '-q', db_path, '-o', trace], check=True, capture_output=True)
        goldens = {n: sg.golden(name, n, FIXTURE_GOLDEN_DIR) for n in FIXTURE_NAMES}
        dd, line = compare_report(name, trace, db_path, goldens, tp, package,
                                  [sp for sp in SPECS if sp['name'] in FIXTURE_NAMES])
        for n, g in goldens.items():
            if g and g.kind in ('rows', 'digest'):
                compared[n] += 1
        db = sqlite3.connect(f'file:{db_path}?immutable=1', uri=True)
        exp = expected_cpu(db)
        db.close()
        got = {r['key']: r['value'] for r in sg.tp_query(trace, CPU_QUERY, package=package, tp=tp)}
        for k in sorted(set(exp) | set(got)):
            if str(exp.get(k)) != str(got.get(k)):
                dd.append(f'{name}: {k}: ours {got.get(k)!r}, report {exp.get(k)!r}')
        dd += proj_sum_consistent(name, trace, tp, package)
        if name == 'fixture-2022-deep-nvtx':
            dd += deep_top_level(name, trace, tp, package)
        if script and name == 'fixture-modern-all':
            pd = pasted_script_same(trace, script, tp, package)
            dd += pd
            log(f'{name}: pasted script: {"same rows as the package" if not pd else "differs"} '
                f'({len(ALL_TABLES)} tables)')
        diffs += dd
        log(f'{name}: {line}; nsys.cpu tables and nsys_mpi_event_sum: '
            f'{"ok" if not dd else "differ"} ({len(exp)} keys)')
    return compared, diffs


def main(argv):
    if argv and argv[0] == 'generate-fixture':
        generate_fixture(argv[1], argv[2:])
        return 0
    opts = {}
    for o in ('--fixture', '--script'):
        if o in argv:
            i = argv.index(o)
            opts[o] = argv[i + 1]
            argv = argv[:i] + argv[i + 2:]
    fixture, script = opts.get('--fixture'), opts.get('--script')
    if len(argv) < 4:
        print(__doc__)
        return 2
    nsysp, tp, package, work = argv[:4]
    reports = argv[4:]
    if not os.path.exists(tp):
        print(f'skip: no trace_processor_shell at {tp}')
        return 77
    if not os.path.isdir(sg.CORPUS) or not sg.corpus_reports():
        print(f'skip: no corpus at {sg.CORPUS}')
        return 77
    if not any(sg.reports_with(sp['name'], sg.VERSION_DIRS[sp.get('version', '2022.4')]) for sp in SPECS):
        print(f'skip: no goldens in {sg.GOLDEN_DIR} or {sg.GOLDEN_DIR_2023} for {NAMES}')
        return 77
    os.makedirs(work, exist_ok=True)
    compared, with_data, diffs = check_corpus(nsysp, tp, package, work, reports)
    fx_compared = collections.Counter()
    if fixture and os.path.exists(fixture):
        fx_compared, d = check_fixtures(fixture, nsysp, tp, package, work, script)
        diffs += d
    for d in diffs:
        print('FAIL ' + d)
    print('compared on the corpus: ' + ', '.join(
        f'{sg.spec_label(sp)} on {compared[sp["name"]]} reports ({with_data[sp["name"]]} with data)'
        for sp in SPECS))
    if fixture:
        print('compared on fixture reports: ' + ', '.join(f'{n} on {fx_compared[n]}' for n in FIXTURE_NAMES))
    print('ok' if not diffs else f'{len(diffs)} differences')
    return 1 if diffs else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
