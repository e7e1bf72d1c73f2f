#!/usr/bin/env python3
"""check_sql_nvtx_ops.py NSYS_PERFETTO TRACE_PROCESSOR PACKAGE WORKDIR [REPORT...]

PyTorch op ranges in the nsys PerfettoSQL package (src/sql/nsys, docs/sql.md),
on PyTorch reports (default: the GindaChen mfu_2gpu_before report of the corpus).
The converter names a PyTorch op range (`aten::to, seq = 12, op_id = 998949`)
by its op (`aten::to`) and keeps its whole text in an arg. Checked:

  raw text   nsys_nvtx_sum, nsys_nvtx_pushpop_sum, nsys_nvtx_startend_sum,
             nsys_nvtx_kern_sum (and its :base form) and nsys_nvtx_gpu_proj_trace
             still equal nsys stats 2022.4 (the goldens of tests/sql_golden), which
             groups on the whole text;
  by op      nsys_nvtx_sum_by_op, nsys_nvtx_pushpop_sum_by_op,
             nsys_nvtx_startend_sum_by_op, nsys_nvtx_gpu_proj_sum_by_op,
             nsys_nvtx_kern_sum_by_op, nsys_nvtx_kern_sum_by_op_by_name('base'),
             nsys_repeated_ranges, and the names of nsys_nvtx_ranges,
             nsys_nvtx_gpu_ranges and nsys_iterations list no name holding
             'op_id =' (and have rows); they equal nsys's own rows regrouped here
             by op (tests/sql_golden.py torch_op: the format, written again from
             PyTorch's getNvtxStr): instances, total, min and max per op and style,
             kernels' totals and range counts per op, thread and kernel; the
             projection summary equals the projections (equal to nsys's) regrouped;
  the text   nsys_nvtx_ranges.text, per range, is the report's text (NVTX_EVENTS),
             and name is its op; nsys_iterations(op) has, per thread, the report's
             ranges of that op;
  raw names  with --raw-names (when the converter has it): the by-op tables equal
             the raw-text tables, and those still equal nsys stats.

Exits 77 without trace_processor_shell, the reports or their goldens.
"""
import collections
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sql_golden as sg  # noqa: E402
import check_sql_stats_nvtx_cpu as nc  # noqa: E402

DEFAULT = ['GindaChen__nsys-ai__tests__fixtures__mfu_2gpu_before']
NVTX_SPECS = [sp for sp in nc.SPECS if sp['name'].startswith('nvtx')]
MOD = ['nsys.stats.nvtx', 'nsys.extras.iterations']

BY_OP = {
    'nsys_nvtx_sum_by_op': 'range',
    'nsys_nvtx_pushpop_sum_by_op': 'range',
    'nsys_nvtx_startend_sum_by_op': 'range',
    'nsys_nvtx_gpu_proj_sum_by_op': 'range',
    'nsys_nvtx_kern_sum_by_op': 'nvtx_range',
    "nsys_nvtx_kern_sum_by_op_by_name('base')": 'nvtx_range',
    'nsys_repeated_ranges': 'name',
    'nsys_nvtx_ranges': 'name',
    'nsys_nvtx_gpu_ranges': 'name',
    'nsys_nvtx_gpu_proj_trace': 'op',
}
# Tables a PyTorch report must have rows in (start/end ranges: none in these reports).
MUST_HAVE_ROWS = {'nsys_nvtx_sum_by_op', 'nsys_nvtx_pushpop_sum_by_op', 'nsys_nvtx_gpu_proj_sum_by_op',
                  'nsys_nvtx_kern_sum_by_op', "nsys_nvtx_kern_sum_by_op_by_name('base')",
                  'nsys_repeated_ranges', 'nsys_nvtx_ranges', 'nsys_nvtx_gpu_ranges'}


def log(*a):
    print(*a, flush=True)


def no_op_ids(label, trace, tp, package):
    """The op-grouped tables: no name with 'op_id ='; rows where a PyTorch report has them."""
    sqls = [f"SELECT count(*) AS n, sum({col} GLOB '*op_id =*') AS bad, "
            f"(SELECT {col} FROM {t} WHERE {col} GLOB '*op_id =*' LIMIT 1) AS example FROM {t}"
            for t, col in BY_OP.items()]
    sqls.append("SELECT count(*) AS n, sum(name GLOB '*op_id =*') AS bad, NULL AS example "
                "FROM nsys_iterations('aten::to')")
    res = sg.tp_queries(trace, sqls, MOD, package, tp)
    diffs = []
    counts = {}
    for t, rows in zip(list(BY_OP) + ["nsys_iterations('aten::to')"], res):
        r = rows[0] if rows else {'n': 0, 'bad': 0, 'example': None}
        counts[t] = r['n']
        if r['bad']:
            diffs.append(f'{label}: {t}: {r["bad"]} names hold "op_id =", e.g. {r["example"]!r}')
        if not r['n'] and (t in MUST_HAVE_ROWS or t.startswith('nsys_iterations')):
            diffs.append(f'{label}: {t}: no rows')
    return diffs, counts


def regrouped_sums(label, g, ours, key_cols):
    """nsys's summary rows (golden g, grouped on the whole text) regrouped by op: instances,
    total, min and max per op and style, against the by-op table's rows."""
    want = {}
    for r in g.rows:
        k = (sg.torch_op(r['Range']), r['Style']) if key_cols == 2 else sg.torch_op(r['Range'])
        w = want.setdefault(k, [0, 0, None, None])
        w[0] += int(r['Instances'])
        w[1] += int(r['Total Time (ns)'])
        mn, mx = int(r['Min (ns)']), int(r['Max (ns)'])
        w[2] = mn if w[2] is None else min(w[2], mn)
        w[3] = mx if w[3] is None else max(w[3], mx)
    got = {}
    for r in ours:
        k = (r['range'], r['style']) if key_cols == 2 else r['range']
        if k in got:
            return [f'{label}: {k!r} listed twice']
        got[k] = [r['instances'], r['total_time_ns'], r['min_ns'], r['max_ns']]
    diffs = []
    for k in sorted(set(want) | set(got), key=str):
        if want.get(k) != got.get(k):
            diffs.append(f'{label}: {k!r}: ours (instances, total, min, max) {got.get(k)}, '
                         f'nsys regrouped by op {want.get(k)}')
    total = sum(w[1] for w in want.values())
    for r in ours:
        if total and abs(r['time_pct'] - 100.0 * r['total_time_ns'] / total) > 0.05 + 1e-9:
            diffs.append(f'{label}: {r["range"]!r}: time_pct {r["time_pct"]}, '
                         f'want {100.0 * r["total_time_ns"] / total:.3f}')
            break
    return diffs[:20]


def regrouped_kern(label, g, ours):
    """nsys's nvtxkernsum rows regrouped by op: per (op, style, pid, tid, kernel) the summed
    time, the ranges (nvtx_inst), min and max; kern_inst at most the sum (a kernel inside two
    ranges of one op counts once)."""
    want = {}
    for r in g.rows:
        # nsys prints NULL (kernels outside every range) as 'None', ours reads back as ''.
        nn = {h: ('' if r[h] == 'None' else r[h]) for h in ('NVTX Range', 'Style', 'PID', 'TID')}
        k = (sg.torch_op(nn['NVTX Range']), nn['Style'], nn['PID'], nn['TID'], r['Kernel Name'])
        w = want.setdefault(k, [0, 0, None, None, 0])
        w[0] += int(r['Total Time (ns)'])
        w[1] += int(r['NVTX Inst'])
        mn, mx = int(r['Min (ns)']), int(r['Max (ns)'])
        w[2] = mn if w[2] is None else min(w[2], mn)
        w[3] = mx if w[3] is None else max(w[3], mx)
        w[4] += int(r['Kern Inst'])
    diffs = []
    got = {}
    for r in ours:
        k = tuple('' if r[c] is None else str(r[c]) for c in ('nvtx_range', 'style', 'pid', 'tid')) + (
            r['kernel_name'],)
        got[k] = [r['total_time_ns'], r['nvtx_inst'], r['min_ns'], r['max_ns'], r['kern_inst']]
    for k in sorted(set(want) | set(got), key=str):
        w, o = want.get(k), got.get(k)
        if w is None or o is None or w[:4] != o[:4] or not 0 < o[4] <= w[4]:
            diffs.append(f'{label}: {k[0]!r} {k[1]} {k[2]}/{k[3]} {k[4][:60]!r}: ours (total, ranges, min, '
                         f'max, kernels) {o}, nsys regrouped by op {w}')
    return diffs[:20]


def regrouped_proj(label, trace_rows, sums):
    """nsys_nvtx_gpu_proj_sum_by_op against nsys_nvtx_gpu_proj_trace (equal to nsys's
    nvtxgpuproj) regrouped by op here; each projection's op column is its name's op."""
    diffs = []
    groups = collections.defaultdict(list)
    for r in trace_rows:
        op = sg.torch_op(r['name'])
        if r['op'] != op:
            diffs.append(f'{label}: nsys_nvtx_gpu_proj_trace {r["name"]!r}: op {r["op"]!r}, want {op!r}')
        groups[(op, r['style'])].append(r)
    got = {(r['range'], r['style']): r for r in sums}
    for k in sorted(set(groups) | set(got), key=str):
        g, r = groups.get(k, []), got.get(k)
        w = [sum(x['projected_duration_ns'] for x in g), len(g), sum(x['orig_duration_ns'] for x in g),
             sum(x['numgpuops'] for x in g)]
        o = None if r is None else [r['total_proj_time_ns'], r['range_instances'], r['total_range_time_ns'],
                                    r['total_gpu_ops']]
        if o != w:
            diffs.append(f'{label}: nsys_nvtx_gpu_proj_sum_by_op {k!r}: ours {o}, projections regrouped {w}')
    return diffs[:20]


def report_ranges(db):
    """The report's NVTX ranges: [(text, tid)], push/pop and start/end, as nsys_nvtx_ranges."""
    strings = dict(db.execute('SELECT id, value FROM StringIds'))
    out = []
    for text, text_id, gtid in db.execute(
            'SELECT text, textId, globalTid FROM NVTX_EVENTS WHERE eventType IN (59, 60, 70, 71) '
            'AND start IS NOT NULL'):
        out.append((text if text is not None else strings.get(text_id), None if gtid is None else gtid & 0xFFFFFF))
    return out


def texts_and_iterations(label, trace, db_path, tp, package):
    """nsys_nvtx_ranges: text per range is the report's, name is its op; nsys_iterations of the
    most frequent op: per thread, the report's ranges of that op."""
    ours = sg.tp_query(trace, 'SELECT name, text, tid FROM nsys_nvtx_ranges', MOD, package, tp)
    db = sqlite3.connect(f'file:{db_path}?immutable=1', uri=True)
    theirs = report_ranges(db)
    db.close()
    diffs = []
    a = collections.Counter(r['text'] for r in ours)
    b = collections.Counter(t for t, _ in theirs)
    if a != b:
        extra, missing = a - b, b - a
        diffs.append(f'{label}: nsys_nvtx_ranges.text differs from the report: {sum(extra.values())} extra '
                     f'(e.g. {list(extra)[:2]}), {sum(missing.values())} missing (e.g. {list(missing)[:2]})')
    bad = [r for r in ours if r['name'] != sg.torch_op(r['text'])]
    if bad:
        diffs.append(f'{label}: {len(bad)} ranges not named by their op, e.g. {bad[0]}')
    ops = collections.Counter(sg.torch_op(t) for t, _ in theirs if sg.torch_range(t))
    if not ops:
        return diffs + [f'{label}: no PyTorch op range in the report'], None
    op = ops.most_common(1)[0][0]
    want = collections.Counter(str(tid) for t, tid in theirs if sg.torch_op(t) == op)
    rows = sg.tp_query(trace, f"SELECT tid, count(*) AS n, count(DISTINCT text) AS texts, "
                              f"sum(iteration = iterations) AS last FROM nsys_iterations('{op}') GROUP BY tid",
                       MOD, package, tp)
    got = collections.Counter({str(r['tid']): r['n'] for r in rows})
    if got != want:
        diffs.append(f'{label}: nsys_iterations({op!r}) per thread {dict(got)}, the report has {dict(want)}')
    return diffs, f'{op} x {sum(want.values())}'


def raw_names_same(label, stem, nsysp, work, tp, package, goldens):
    """With --raw-names: the by-op tables equal the raw-text tables, which equal nsys stats."""
    help_text = subprocess.run([nsysp, '--help'], capture_output=True, text=True).stdout
    if '--raw-names' not in help_text:
        log(f'note: {label}: the converter has no --raw-names: not checked')
        return [], 'not checked'
    trace = sg.converted_trace(stem, nsysp, work, args=['--raw-names'])
    pairs = [('nsys_nvtx_sum', 'nsys_nvtx_sum_by_op'), ('nsys_nvtx_pushpop_sum', 'nsys_nvtx_pushpop_sum_by_op'),
             ('nsys_nvtx_startend_sum', 'nsys_nvtx_startend_sum_by_op'),
             ('nsys_nvtx_gpu_proj_sum', 'nsys_nvtx_gpu_proj_sum_by_op'),
             ('nsys_nvtx_kern_sum', 'nsys_nvtx_kern_sum_by_op')]
    sqls = []
    for a, b in pairs:
        sqls.append(f'SELECT (SELECT count(*) FROM (SELECT * FROM {a} EXCEPT SELECT * FROM {b})) + '
                    f'(SELECT count(*) FROM (SELECT * FROM {b} EXCEPT SELECT * FROM {a})) AS n')
    sqls.append("SELECT count(*) AS n FROM nsys_nvtx_ranges WHERE text IS NOT name OR op_id IS NOT NULL")
    res = sg.tp_queries(trace, sqls, MOD, package, tp)
    diffs = []
    for (a, b), rows in zip(pairs + [('nsys_nvtx_ranges', 'text or op args')], res):
        if rows[0]['n']:
            diffs.append(f'{label} --raw-names: {b}: {rows[0]["n"]} rows differ from {a}')
    d, line = nc.compare_report(label + ' --raw-names', trace, None,
                                {sp['name']: g for sp, g in goldens if sp['name'] != 'nvtxgpuproj'},
                                tp, package, [sp for sp, _ in goldens if sp['name'] != 'nvtxgpuproj'])
    return diffs + d, 'by op = raw text; ' + line


def check_report(stem, nsysp, tp, package, work):
    goldens = [(sp, sg.golden(stem, sp['name'])) for sp in NVTX_SPECS]
    if not any(g and g.kind in ('rows', 'digest') for _, g in goldens):
        return None, f'{stem}: no NVTX goldens'
    trace = sg.converted_trace(stem, nsysp, work)
    db = sg.unpacked(stem, os.path.join(work, 'nvtx-ops-reports'))
    diffs = []
    try:
        # Raw text: nsys stats.
        d, line = nc.compare_report(stem, trace, db, {sp['name']: g for sp, g in goldens}, tp, package,
                                    NVTX_SPECS)
        diffs += d
        log(f'{stem}: raw text: {line}')
        # By op: no op ids, and nsys's rows regrouped.
        d, counts = no_op_ids(stem, trace, tp, package)
        diffs += d
        res = sg.tp_queries(trace, ['SELECT * FROM nsys_nvtx_sum_by_op', 'SELECT * FROM nsys_nvtx_pushpop_sum_by_op',
                                    'SELECT * FROM nsys_nvtx_startend_sum_by_op',
                                    'SELECT * FROM nsys_nvtx_kern_sum_by_op',
                                    "SELECT * FROM nsys_nvtx_kern_sum_by_op_by_name('base')",
                                    'SELECT * FROM nsys_nvtx_gpu_proj_trace',
                                    'SELECT * FROM nsys_nvtx_gpu_proj_sum_by_op'], MOD, package, tp)
        g = dict((sp['name'], g) for sp, g in goldens)
        checked = []
        for name, table, rows, keys in (('nvtxsum', 'nsys_nvtx_sum_by_op', res[0], 2),
                                        ('nvtxppsum', 'nsys_nvtx_pushpop_sum_by_op', res[1], 1),
                                        ('nvtxsesum', 'nsys_nvtx_startend_sum_by_op', res[2], 1)):
            if g.get(name) and g[name].kind == 'rows':
                diffs += regrouped_sums(f'{stem}/{table}', g[name], rows, keys)
                checked.append(table)
            elif g.get(name) and g[name].kind == 'none' and rows:
                diffs.append(f'{stem}/{table}: {len(rows)} rows, nsys has none')
        for name, table, rows in (('nvtxkernsum', 'nsys_nvtx_kern_sum_by_op', res[3]),
                                  ('nvtxkernsum:base', "nsys_nvtx_kern_sum_by_op_by_name('base')", res[4])):
            if g.get(name) and g[name].kind == 'rows':
                diffs += regrouped_kern(f'{stem}/{table}', g[name], rows)
                checked.append(table)
        diffs += regrouped_proj(stem, res[5], res[6])
        checked.append('nsys_nvtx_gpu_proj_sum_by_op')
        log(f'{stem}: by op: no "op_id =" in {len(counts)} tables '
            f'({", ".join(f"{t} {n}" for t, n in counts.items())} rows); '
            f'equal to nsys regrouped: {", ".join(checked)}')
        # The text, and iterations by op.
        d, it = texts_and_iterations(stem, trace, db, tp, package)
        diffs += d
        log(f'{stem}: texts as the report\'s, iterations of {it}: {"ok" if not d else "differ"}')
        d, line = raw_names_same(stem, stem, nsysp, work, tp, package, goldens)
        diffs += d
        log(f'{stem}: raw names: {line}')
    finally:
        if not sg.corpus_path(stem).endswith('.sqlite'):
            try:
                os.remove(db)
            except OSError:
                pass
    return diffs, None


def main(argv):
    if len(argv) < 4:
        print(__doc__)
        return 2
    nsysp, tp, package, work = argv[:4]
    reports = argv[4:] or DEFAULT
    if not os.path.exists(tp):
        print(f'skip: no trace_processor_shell at {tp}')
        return 77
    stems = []
    for r in reports:
        try:
            if os.path.exists(sg.corpus_path(r)):
                stems.append(sg.stem_of(r))
                continue
        except FileNotFoundError:
            pass
        print(f'note: {r}: not in the corpus')
    if not stems:
        print(f'skip: no report (corpus: {sg.CORPUS})')
        return 77
    os.makedirs(work, exist_ok=True)
    diffs = []
    done = 0
    for stem in stems:
        try:
            d, skip = check_report(stem, nsysp, tp, package, work)
        except Exception as e:  # noqa: BLE001
            d, skip = [f'{stem}: {e}'], None
        if skip:
            print(f'note: {skip}')
            continue
        done += 1
        diffs += d
    if not done:
        print('skip: no report with NVTX goldens')
        return 77
    for d in diffs:
        print('FAIL ' + d)
    print('ok' if not diffs else f'{len(diffs)} differences')
    return 1 if diffs else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
