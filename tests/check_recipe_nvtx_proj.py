#!/usr/bin/env python3
"""The NVTX projection recipes (src/recipes/recipe_nvtx_proj.c, docs/recipes.md) on what
the recipe goldens of real reports cannot show:

  - edge ranges around known calls (nsys-fixture's report, its NVTX rows replaced): ranges
    sharing one interval (each other's parent in nsys: no level, no stack), start/end ranges
    that overlap without nesting, a range that closes exactly on a call, one inside a call,
    an open range, an NCCL range. nvtx_gpu_proj_trace equals what nsys 2023.4 wrote for it
    (tests/recipe_nvtx_proj/edge_trace.csv); nvtx_gpu_proj_sum, nccl_gpu_proj_sum and
    nvtx_gpu_proj_pace follow the recipes' own rule (a range holds a call it starts at or
    before and ends after), computed here from the report;
  - trace.perfetto-trace: opens with no import error (pftrace-check, trace_processor), one
    slice per projected range at its exact projected start and duration, nested, 256 deep at
    most per track (deeper ranges on further lanes);
  - deep nesting stays linear: ranges recursing 1,100 deep (the deep-nvtx fixture);
  - --nvtx RANGE on a job of two corpus reports, one without the range: it is left out, as
    nsys 2023.4 leaves it (tests/recipe_nvtx_proj/nvtx_window: what nsys wrote; skipped
    without the corpus);
  - bad input: one line naming the problem, a non-zero exit, no output directory; no data
    (no such --nvtx range among them): one line, exit 0, no output, as nsys.

Usage: check_recipe_nvtx_proj.py NSYS_PERFETTO NSYS_FIXTURE WORK [PFTRACE_CHECK] [TRACE_PROCESSOR]
"""
import csv
import os
import shutil
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_sql_stats_nvtx_cpu as nvtx_fixtures  # noqa: E402
import sql_golden as sg  # noqa: E402

GOLDEN = os.path.join(HERE, 'recipe_nvtx_proj', 'edge_trace.csv')
NVTX_WINDOW = os.path.join(HERE, 'recipe_nvtx_proj', 'nvtx_window')
SANITIZED = bool(os.environ.get('NSYSP_SANITIZED'))
problems = []


def check(ok, what):
    print(('ok   ' if ok else 'FAIL ') + what)
    if not ok:
        problems.append(what)


def run_recipe(tool, name, out, reports, *options):
    shutil.rmtree(out, ignore_errors=True)
    return subprocess.run([tool, 'recipe', name, '--output', out, *options, *reports],
                          capture_output=True, text=True)


def read_csv(path):
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


# The calls of the fixture's first CUDA thread that launch kernels (rowid, start, end),
# by start, and the ranges placed around them, as (text, eventType, start, end, domain).
def edge_report(fixture, work):
    path = os.path.join(work, 'edge.sqlite')
    if os.path.exists(path):
        os.remove(path)
    subprocess.run([fixture, '--seed', '1', '--events', '10000', '--nvtx', path], check=True,
                   capture_output=True)
    db = sqlite3.connect(path)
    tid = db.execute('SELECT min(globalTid) FROM CUPTI_ACTIVITY_KIND_RUNTIME').fetchone()[0]
    calls = db.execute('SELECT r.start, r."end" FROM CUPTI_ACTIVITY_KIND_RUNTIME r'
                       ' WHERE r.globalTid = ? AND r.correlationId IN'
                       ' (SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL)'
                       ' ORDER BY r.start LIMIT 8', (tid,)).fetchall()
    c = calls
    ranges = [
        ('A', 59, c[0][0] - 10, c[5][1] + 10, None),          # around six calls
        ('B', 59, c[1][0] - 5, c[1][1] + 5, None),            # two ranges, one interval
        ('B', 59, c[1][0] - 5, c[1][1] + 5, None),
        ('C', 59, c[1][0], c[1][1], None),                    # closes exactly on its call
        ('S1', 60, c[2][0] - 5, c[3][1] + 5, None),           # start/end, overlapping S2
        ('S2', 60, c[3][0] - 5, c[4][1] + 5, None),
        ('K', 59, c[3][0] + 1, c[3][1] - 1, None),            # inside a call
        ('O', 59, c[6][0] - 5, None, None),                   # open: ends at the last time
        ('late', 59, c[7][1] + 100, c[7][1] + 200, None),
        ('ncclAllReduce', 59, c[6][0] - 2, c[6][1] + 2, 7),
    ]
    db.execute('DELETE FROM NVTX_EVENTS')
    db.execute("INSERT INTO NVTX_EVENTS(start, eventType, text, globalTid, domainId)"
               " VALUES (?, 75, 'NCCL', ?, 7)", (c[0][0] - 100, tid))
    for text, kind, start, end, domain in ranges:
        db.execute('INSERT INTO NVTX_EVENTS(start, "end", eventType, text, globalTid, domainId)'
                   ' VALUES (?, ?, ?, ?, ?, ?)', (start, end, kind, text, tid, domain))
    db.commit()
    db.close()
    return path, calls, ranges


def projection(path, start, end):
    """The GPU work (kernels, copies, sets) of the first CUDA thread's calls that start at or
    after start and end before end: (first start, last end), by the recipes' rule (the
    thread's calls do not overlap)."""
    db = sqlite3.connect(path)
    row = db.execute(
        'WITH ops AS (SELECT start, "end", correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL'
        ' UNION ALL SELECT start, "end", correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMCPY'
        ' UNION ALL SELECT start, "end", correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMSET)'
        ' SELECT min(o.start), max(o."end") FROM ops o JOIN CUPTI_ACTIVITY_KIND_RUNTIME r'
        ' ON r.correlationId = o.correlationId AND o.globalPid = (r.globalTid >> 24) << 24'
        ' WHERE r.globalTid = (SELECT min(globalTid) FROM CUPTI_ACTIVITY_KIND_RUNTIME)'
        ' AND r.start >= ? AND r."end" < ?', (start, end)).fetchone()
    db.close()
    return row


def check_edges(tool, fixture, work):
    path, calls, ranges = edge_report(fixture, work)
    out = os.path.join(work, 'edge-trace')
    res = run_recipe(tool, 'nvtx_gpu_proj_trace', out, [path])
    check(res.returncode == 0, f'edge: nvtx_gpu_proj_trace runs ({res.stderr.strip()})')
    if res.returncode == 0:
        with open(os.path.join(out, 'trace.csv')) as f, open(GOLDEN) as g:
            ours, nsys = f.read(), g.read()
        check(ours == nsys, 'edge: trace.csv equals nsys 2023.4 byte for byte '
              '(identical intervals, overlapping start/end ranges, open range, NCCL domain)')
        check_perfetto(out, 'edge')

    # The recipes' rule, computed here: a range holds the calls it starts at or before
    # and ends after (these calls do not overlap), its projection their kernels' span.
    expected = {}
    for text, kind, start, end, domain in ranges:
        if end is None or domain is not None:
            continue
        first, last = projection(path, start, end)
        if first is not None and last > first:
            expected.setdefault(text, []).append(last - first)
    out = os.path.join(work, 'edge-sum')
    res = run_recipe(tool, 'nvtx_gpu_proj_sum', out, [path])
    check(res.returncode == 0, f'edge: nvtx_gpu_proj_sum runs ({res.stderr.strip()})')
    if res.returncode == 0:
        rows = {r['Text']: r for r in read_csv(os.path.join(out, 'rank_stats.csv'))}
        # The NCCL range is an NVTX range too (its text without the domain).
        del rows['ncclAllReduce']
        got = {t: (int(r['Count']), int(r['Sum'])) for t, r in rows.items()}
        want = {t: (len(v), sum(v)) for t, v in expected.items()}
        check(got == want, f'edge: nvtx_gpu_proj_sum counts and sums per name {got} == {want}'
              ' (C, closing on its call, and K, inside one, hold none)')
        files = read_csv(os.path.join(out, 'files.csv'))
        check([f['File'] for f in files] == ['edge'], 'edge: files.csv names the report')
    out = os.path.join(work, 'edge-nccl')
    res = run_recipe(tool, 'nccl_gpu_proj_sum', out, [path])
    rows = read_csv(os.path.join(out, 'all_stats.csv')) if res.returncode == 0 else []
    check([r['Text'] for r in rows] == ['ncclAllReduce'] and rows[0]['Count'] == '1',
          f'edge: nccl_gpu_proj_sum: the NCCL domain\'s range only ({res.stderr.strip()})')
    out = os.path.join(work, 'edge-pace')
    res = run_recipe(tool, 'nvtx_gpu_proj_pace', out, [path], '--name', 'B')
    ok = res.returncode == 0
    if ok:
        dur = read_csv(os.path.join(out, 'pace_duration.csv'))
        ok = [r['0'] for r in dur] == [str(expected['B'][0])] * 2 and \
            sorted(f for f in os.listdir(out) if not f.endswith('.nsys-analysis')) == sorted(
                ['README.md', 'files.csv', 'stats.csv', 'pace_start.csv', 'pace_end.csv',
                 'pace_duration.csv', 'pace_delta.csv', 'pace_duration_accum.csv',
                 'pace_delta_accum.csv', 'pace_delta_stats.csv'])
    check(ok, f'edge: nvtx_gpu_proj_pace --name B: two iterations and NVIDIA\'s files ({res.stderr.strip()})')


def check_perfetto(out, what, max_depth=None):
    trace = os.path.join(out, 'trace.perfetto-trace')
    rows = [r for r in read_csv(os.path.join(out, 'trace.csv')) if r['RangeId']]
    with open(trace, 'rb') as f:
        check(f.read(2) == b'\x1f\x8b', f'{what}: trace.perfetto-trace is gzip\'d')
    if PFTRACE_CHECK:
        res = subprocess.run([PFTRACE_CHECK, trace], capture_output=True, text=True)
        check(res.returncode == 0 and 'result: OK' in res.stdout,
              f'{what}: pftrace-check finds no error ({res.stdout.strip().splitlines()[-1:]})')
    if not TRACE_PROCESSOR:
        return
    query = os.path.join(out, 'q.sql')
    with open(query, 'w') as f:
        f.write("SELECT s.ts, s.dur, s.name, s.depth, a.int_value AS id FROM slice s"
                " JOIN args a ON a.arg_set_id = s.arg_set_id AND a.key = 'debug.rangeid';\n"
                "SELECT count(*) AS errors FROM stats WHERE severity IN ('error', 'data_loss')"
                " AND value > 0;\n")
    res = subprocess.run([TRACE_PROCESSOR, '-q', query, trace], capture_output=True, text=True)
    lines = [l for l in res.stdout.splitlines() if l.strip()]
    slices = {}
    for line in lines[1:-2]:
        ts, dur, name, depth, rid = next(csv.reader([line]))
        slices[rid] = (int(ts), int(dur), name, int(depth))
    check(res.returncode == 0 and lines[-1] == '0',
          f'{what}: trace_processor imports it with no error stat')
    want = {str(int(float(r['RangeId']))): (int(r['Projected Start']), int(r['Projected Duration']),
                                            r['Name']) for r in rows}
    check({k: v[:3] for k, v in slices.items()} == want,
          f'{what}: one slice per projected range ({len(want)}), exact ns and names')
    if max_depth is not None:
        deepest = max(v[3] for v in slices.values())
        check(deepest < 256 and deepest >= max_depth,
              f'{what}: ranges nest up to depth {deepest} per track (< 256, lanes beyond)')


def check_deep(tool, fixture, work):
    path = os.path.join(work, 'deep.sqlite')
    if not os.path.exists(path):
        nvtx_fixtures.make_fixture(fixture, 'fixture-2022-deep-nvtx', path)
    # Four towers of 1,100 nested ranges for the trace (its stacks grow with the
    # square of the depth: that is nsys's output); every range for the summaries.
    few = os.path.join(work, 'deep-few.sqlite')
    shutil.copy(path, few)
    db = sqlite3.connect(few)
    # A tower's ranges share their midpoint (start + end).
    db.execute("DELETE FROM NVTX_EVENTS WHERE text = 'ExpressionEvaluator::evaluate' AND"
               " start + \"end\" NOT IN (SELECT DISTINCT start + \"end\" FROM NVTX_EVENTS"
               " WHERE text = 'ExpressionEvaluator::evaluate' ORDER BY 1 LIMIT 4)")
    db.commit()
    db.close()
    out = os.path.join(work, 'deep-trace')
    t0 = time.monotonic()
    res = run_recipe(tool, 'nvtx_gpu_proj_trace', out, [few])
    took = time.monotonic() - t0
    check(res.returncode == 0, f'deep: nvtx_gpu_proj_trace runs ({res.stderr.strip()})')
    if res.returncode == 0:
        rows = read_csv(os.path.join(out, 'trace.csv'))
        lvl = max(int(float(r['Lvl'])) for r in rows if r['Lvl'])
        check(lvl >= 1099, f'deep: levels reach {lvl} (1,100 nested ranges)')
        check_perfetto(out, 'deep', max_depth=200)
    limit = 60 if SANITIZED else 10
    check(took < limit, f'deep: nvtx_gpu_proj_trace in {took:.1f} s (< {limit} s)')
    for name, opts in (('nvtx_gpu_proj_sum', []),
                       ('nvtx_gpu_proj_pace', ['--name', 'ExpressionEvaluator::evaluate'])):
        t0 = time.monotonic()
        res = run_recipe(tool, name, os.path.join(work, 'deep-' + name), [path], *opts)
        took = time.monotonic() - t0
        limit = 30 if SANITIZED else 5
        check(res.returncode == 0 and took < limit,
              f'deep: {name} over 22,000 ranges 1,100 deep in {took:.1f} s (< {limit} s)'
              f' {res.stderr.strip()}')


def check_bad_input(tool, fixture, work):
    junk = os.path.join(work, 'junk.sqlite')
    with open(junk, 'w') as f:
        f.write('not a database\n')
    plain = os.path.join(work, 'no-nvtx.sqlite')
    if not os.path.exists(plain):
        subprocess.run([fixture, '--seed', '2', '--events', '2000', plain], check=True,
                       capture_output=True)
    # (name, reports, options, what stderr says, whether it is an error: no
    # data is not, as for nsys, which writes nothing and exits 0)
    cases = [
        ('nvtx_gpu_proj_trace', [junk], [], 'junk.sqlite', True),
        ('nvtx_gpu_proj_sum', [junk], [], 'junk.sqlite', True),
        ('nvtx_gpu_proj_trace', [plain], [], 'no report has NVTX ranges', False),
        ('nvtx_gpu_proj_sum', [plain], [], 'no report has NVTX ranges', False),
        ('nccl_gpu_proj_sum', [plain], [], 'no report has NCCL ranges', False),
        ('nvtx_gpu_proj_pace', [plain], [], '--name NAME is required', True),
        ('nvtx_gpu_proj_pace', [plain], ['--name', 'x'], "no report has the NVTX range 'x'", False),
        ('nvtx_gpu_proj_trace', [plain], ['--nvtx', 'x'], 'no report has NVTX ranges', False),
    ]
    for name, reports, opts, says, error in cases:
        out = os.path.join(work, 'bad-out')
        res = run_recipe(tool, name, out, reports, *opts)
        err = res.stderr.strip()
        check((res.returncode != 0) == error and says in err and len(err.splitlines()) == 1
              and not os.path.exists(out),
              f'bad input: {name} {" ".join(opts)} {os.path.basename(reports[0])}: exit'
              f' {res.returncode}, one line ({err}), no output')


def check_nvtx_window(tool, work):
    """nvtx_gpu_proj_trace --nvtx over two reports, the range in one only: nsys's
    stats script finds no data in the other, which the recipe leaves out."""
    with open(os.path.join(NVTX_WINDOW, 'args.txt')) as f:
        args = dict(line.rstrip('\n').partition(': ')[::2] for line in f)
    try:
        reports = sorted(sg.unpacked(stem, work) for stem in args['inputs'].split())
    except FileNotFoundError as e:
        print(f'nvtx window: skipped ({e})')
        return
    out = os.path.join(work, 'nvtx-window-out')
    res = run_recipe(tool, 'nvtx_gpu_proj_trace', out, reports, *args['options'].split())
    check(res.returncode == 0, f'nvtx window: exit {res.returncode} ({res.stderr.strip()})')
    if res.returncode != 0:
        return
    want = read_csv(os.path.join(NVTX_WINDOW, 'trace.csv'))
    got = read_csv(os.path.join(out, 'trace.csv'))
    check(got == want, f'nvtx window: trace.csv equals nsys\'s ({len(got)} rows, nsys {len(want)})')


def check_empty_tables(tool, work):
    """A report exported with empty tables (nsys export --lazy false, or an
    older nsys) answers as its lazy export does, which is what nsys's own
    recipes read: alpa's report without NVTX, and the same with an empty
    NVTX_EVENTS and CUPTI_ACTIVITY_KIND_MEMSET."""
    try:
        report = sg.unpacked('Yu-gyoung-Yun__alpa__examples__jax_profile_mem.nsys-rep', work)
        donor = sg.unpacked('GindaChen__nsys-ai__tests__fixtures__mfu_2gpu_after', work)
    except FileNotFoundError as e:
        print(f'empty tables: skipped ({e})')
        return
    with_empty = os.path.join(work, 'empty-tables', os.path.basename(report))
    os.makedirs(os.path.dirname(with_empty), exist_ok=True)
    shutil.copyfile(report, with_empty)
    con = sqlite3.connect(with_empty)
    con.execute('ATTACH ? AS donor', (donor,))
    for table in ('NVTX_EVENTS', 'CUPTI_ACTIVITY_KIND_MEMSET'):
        sql = con.execute("SELECT sql FROM donor.sqlite_master WHERE name = ?", (table,)).fetchone()
        if sql and not con.execute("SELECT 1 FROM main.sqlite_master WHERE name = ?",
                                   (table,)).fetchone():
            con.execute(sql[0])
    con.commit()
    con.close()
    for name in ('nvtx_gpu_proj_trace', 'nvtx_gpu_proj_sum'):
        outs = []
        for what, path in (('lazy', report), ('with empty tables', with_empty)):
            out = os.path.join(work, f'empty-tables-{name}-{what.replace(" ", "-")}')
            res = run_recipe(tool, name, out, [path])
            check(res.returncode == 0, f'empty tables: {name} on the report {what}: exit '
                                       f'{res.returncode} ({res.stderr.strip()})')
            outs.append(sorted((f, open(os.path.join(out, f), 'rb').read())
                               for f in os.listdir(out) if f.endswith('.csv'))
                        if os.path.isdir(out) else None)
        check(outs[0] == outs[1], f'empty tables: {name} answers the same with and without them')


def main():
    global PFTRACE_CHECK, TRACE_PROCESSOR
    tool, fixture, work = sys.argv[1:4]
    PFTRACE_CHECK = sys.argv[4] if len(sys.argv) > 4 and os.path.exists(sys.argv[4]) else None
    TRACE_PROCESSOR = sys.argv[5] if len(sys.argv) > 5 and os.path.exists(sys.argv[5]) else None
    os.makedirs(work, exist_ok=True)
    check_edges(tool, fixture, work)
    check_deep(tool, fixture, work)
    check_bad_input(tool, fixture, work)
    check_nvtx_window(tool, work)
    check_empty_tables(tool, work)
    print(f'{len(problems)} problem(s)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
