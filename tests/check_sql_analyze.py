#!/usr/bin/env python3
"""check_sql_analyze.py NSYS_PERFETTO TRACE_PROCESSOR PACKAGE WORKDIR [--script CMD] [REPORT ...]

The nsys.analyze modules (src/sql/nsys/analyze, docs/sql.md) against `nsys analyze` 2022.4 and
2023.4, on every corpus report: for each report, the goldens of tests/analyze_golden (2022.4)
and tests/analyze_golden_2023 (2023.4, its rule names: cuda_api_sync, ..., gpu_gaps,
gpu_time_util; the memory rules print a Green Context ID; 2022.4's gpu-low-util is read through
nsys_gpu_time_util_2022) (made by tests/analyze_golden.py with
nsys itself; each line of output names the version) hold what nsys found for each rule, with its default
options and with others (rows=, gap=, threshold=, chunks=, start=/end=, nvtx=). The report is
converted (tests/sql_golden.py caches it in WORKDIR), every variant is run through
trace_processor_shell and the package in one run, and each must equal nsys's rows: the same
rows (matched by start, process and device or thread), integers exact, In-Use (%) at nsys's
one decimal. The default variants are read through the *_default views, the others through
the table functions. Where nsys found nothing or skipped the report, ours must be empty.

Times: nsys prints the report's own timestamps; the trace's are shifted by a constant when the
report has negative ones (docs/timeline.md, "Exact data"). The converter records it (nsys_gpus.time_shift_ns)
and the rules take start=/end= and give Start in report time, undoing it: start=/end= are passed
and Start is read as nsys prints them, and the anchor each golden records (the earliest CUDA
runtime call) must be found in report time at nsys's time (a zero residual shift; a trace
without GPU groups does not record the shift, and only a note says so).

--script CMD: also run the variants of one report (of those given, the one where nsys finds the
most) through the script CMD prints (`nsys-perfetto sql analyze.<module>...`), pasted without
--add-sql-package (the Perfetto UI's query page), and require the same answers.

REPORT: corpus stems (default: every report with goldens of either version), or paths of reports kept elsewhere
whose goldens were made with `NSYSP_ANALYZE_GOLDEN_DIR=DIR tests/analyze_golden.py generate
--reports PATH` (the same DIR in the environment here).

Exits 77 when trace_processor_shell, the corpus or the goldens are missing.
"""
import os
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sql_golden as sg  # noqa: E402
import analyze_golden as ag  # noqa: E402

MODULES = ['nsys.analyze.cuda_api_sync', 'nsys.analyze.cuda_memcpy_async', 'nsys.analyze.cuda_memcpy_sync',
           'nsys.analyze.cuda_memset_sync', 'nsys.analyze.gpu_gaps', 'nsys.analyze.gpu_time_util']

# rule -> (table function, default view, its option arguments, the columns nsys prints, row key)
RULES = {
    'cuda-sync-api': ('nsys_cuda_api_sync', [],
                      'duration_ns, {start} AS start_ns, pid, tid, api_name',
                      ['Start (ns)', 'PID', 'TID']),
    'cuda-async-memcpy': ('nsys_cuda_memcpy_async', [],
                          'duration_ns, {start} AS start_ns, src_kind, dst_kind, bytes, pid, device_id, '
                          'context_id, green_context_id, stream_id, api_name',
                          ['Start (ns)', 'PID', 'Device ID', 'Stream ID']),
    'cuda-sync-memcpy': ('nsys_cuda_memcpy_sync', [],
                         'duration_ns, {start} AS start_ns, src_kind, dst_kind, bytes, pid, device_id, '
                         'context_id, green_context_id, stream_id, api_name',
                         ['Start (ns)', 'PID', 'Device ID', 'Stream ID']),
    'cuda-sync-memset': ('nsys_cuda_memset_sync', [],
                         'duration_ns, {start} AS start_ns, memory_kind, bytes, pid, device_id, context_id, '
                         'green_context_id, stream_id, api_name',
                         ['Start (ns)', 'PID', 'Device ID', 'Stream ID']),
    'gpu-starv': ('nsys_gpu_gaps', [('gap', 500)],
                  'row_num, duration_ns, {start} AS start_ns, pid, device_id, context_id',
                  ['Start (ns)', 'PID', 'Device ID']),
    'gpu-low-util': ('nsys_gpu_time_util', [('threshold', 50), ('chunks', 30)],
                     'row_num, in_use_pct, duration_ns, {start} AS start_ns, pid, device_id, context_id',
                     ['Start (ns)', 'PID', 'Device ID']),
}
COLUMNS = {'Bytes (B)': 'bytes', 'Row#': 'row_num'}
# Rules whose 2022.4 form is a function of its own (docs/sql.md): read through it for 2022.4.
FUNCTION_2022 = {'gpu-low-util': 'nsys_gpu_time_util_2022'}


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def offset_sql(anchor):
    """Our report time minus nsys's (0 when the shift is undone): the anchor row found in the
    trace, less the shift the trace records."""
    if not anchor:
        return ('CREATE PERFETTO TABLE _nsysp_analyze_offset AS SELECT 0 AS off;\n'
                'SELECT off, 0 AS gpus FROM _nsysp_analyze_offset')
    if anchor['table'] == 'runtime':
        q = 'SELECT min(ts) - _nsys_time_shift() FROM nsys_cuda_api_calls'
    else:
        q = 'SELECT min(ts) - _nsys_time_shift() FROM nsys_gpu_ops WHERE ts - _nsys_time_shift() > 0'
    return (f"CREATE PERFETTO TABLE _nsysp_analyze_offset AS SELECT coalesce(({q}) - {anchor['start']}, 0) AS off;\n"
            'SELECT off, (SELECT count(*) FROM nsys_gpus) AS gpus FROM _nsysp_analyze_offset')


def variant_sql(variant, rule, options, version='2023.4'):
    fn, rule_opts, cols, _ = RULES[rule]
    cols = cols.format(start='start_ns')
    opts = ag.parse_options(options)
    if version == '2022.4' and rule in FUNCTION_2022:
        fn = FUNCTION_2022[rule]  # no _default view: the defaults as arguments
    elif not options:
        return f'SELECT {cols} FROM {fn}_default'
    args = [str(int(opts.get(k, d))) for k, d in rule_opts]
    args.append(str(int(opts.get('rows', 50))))
    for k in ('start', 'end'):
        args.append(str(int(opts[k])) if k in opts else 'NULL')
    args.append(sql_str(opts['nvtx']) if 'nvtx' in opts else 'NULL')
    return f"SELECT {cols} FROM {fn}({', '.join(args)})"


VERSIONS = (('2022.4', ag.GOLDEN_DIR), ('2023.4', ag.GOLDEN_DIR_2023))


def check_report(source, nsysp, work, tp, pkg, script=None, log=print):
    """Differences (text) for one report (a corpus stem, a derived one, or a report's path),
    against each version's goldens; also the number of variants compared per rule and version."""
    stem = sg.stem_of(source)
    loaded = [(ver, ag.load(stem, gd)) for ver, gd in VERSIONS]
    loaded = [(ver, d) for ver, d in loaded if d is not None]
    if not loaded:
        return [f'{stem}: no goldens in {ag.GOLDEN_DIR}'], {}
    d = loaded[0][1]
    todo = [(ver, v, e) for ver, dv in loaded for v, e in dv['variants'].items()
            if e['golden'].kind in ('rows', 'digest', 'none')]
    if not todo:
        return [], {}
    trace = sg.converted_trace(ag.report_sqlite(source, work), nsysp, work)
    sqls = [offset_sql(d['anchor'])] + [variant_sql(v, e['rule'], e['options'], ver) for ver, v, e in todo]
    if script is None:
        results = sg.tp_queries(trace, sqls, MODULES, pkg, tp)
    else:
        results = pasted_queries(trace, sqls, script, tp)
    off = results[0][0]['off'] if results[0] else 0
    diffs, counts, parts = [], {}, []
    if off and not results[0][0]['gpus']:
        # the shift is recorded in the GPU groups: a trace without one cannot undo it
        log(f'note: {stem}: report times differ from nsys\'s by {off} ns: no GPU group records the shift')
    elif off:
        diffs.append(f'{stem}: report times differ from nsys\'s by {off} ns (the shift is not undone)')
    for (ver, v, e), rows in zip(todo, results[1:]):
        g = e['golden']
        label = f'{v} (nsys {ver})'
        diff = sg.compare(g, rows, RULES[e['rule']][3], COLUMNS, f'{stem}/{label}')
        diffs += diff
        counts[label] = counts.get(label, 0) + 1
        if g.kind != 'none' or diff:
            parts.append(f"{label} {'ok' if not diff else str(len(diff)) + ' diff'} ({g.count})")
    n_none = sum(1 for _, v, e in todo if e['golden'].kind == 'none')
    log(f'{stem}: residual shift {off} ns; ' + (', '.join(parts) or 'no findings') + f'; {n_none} empty as nsys')
    return diffs, counts


def pasted_queries(trace, sqls, script, tp):
    """The queries after the script `script` prints, without --add-sql-package."""
    text = subprocess.run(shlex.split(script) + [m[len('nsys.'):] for m in MODULES],
                          capture_output=True, text=True, check=True).stdout
    parts = [text]
    for k, sql in enumerate(sqls):
        parts.append(f"SELECT 'q{k}' AS __nsysp_marker__;\n{sql.strip().rstrip(';')};\n")
    with tempfile.NamedTemporaryFile('w', suffix='.sql', delete=False) as f:
        f.write(''.join(parts))
        qfile = f.name
    try:
        p = subprocess.run([tp, '-q', qfile, trace], capture_output=True, text=True, timeout=900)
    finally:
        os.remove(qfile)
    if p.returncode != 0:
        raise RuntimeError(f'trace_processor_shell failed on the pasted script:\n{p.stderr[-3000:]}')
    out = [[] for _ in sqls]
    cur = None
    for rows in sg._parse_tp_output(p.stdout):
        if rows and list(rows[0]) == ['__nsysp_marker__']:
            cur = int(rows[0]['__nsysp_marker__'][1:])
        elif cur is not None:
            out[cur] = rows
    return out


def main(argv):
    script = None
    if '--script' in argv:
        i = argv.index('--script')
        script = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if len(argv) < 4:
        print(__doc__)
        return 2
    nsysp, tp, pkg, work = argv[:4]
    # Every report with goldens of either version (the 2023-era captures have 2023.4's only).
    stems = argv[4:] or sorted(set(ag.reports()) | set(ag.reports(ag.GOLDEN_DIR_2023)))
    if not os.path.exists(tp):
        print(f'skip: no trace_processor_shell at {tp}')
        return 77
    if not os.path.isdir(sg.CORPUS) or not sg.corpus_reports():
        print(f'skip: no corpus at {sg.CORPUS}')
        return 77
    if not stems:
        print(f'skip: no goldens in {ag.GOLDEN_DIR} or {ag.GOLDEN_DIR_2023}')
        return 77
    corpus = set(sg.corpus_reports())
    t0 = time.time()
    diffs, reports, per_variant, findings = [], 0, {}, {}
    for stem in stems:
        if os.sep not in stem and stem.partition('+')[0] not in corpus:
            print(f'{stem}: not in the corpus, skipped')
            continue
        try:
            d, counts = check_report(stem, nsysp, work, tp, pkg)
            goldens = ag.load(sg.stem_of(stem)) or ag.load(sg.stem_of(stem), ag.GOLDEN_DIR_2023)
            findings[stem] = sum(e['golden'].kind in ('rows', 'digest') for e in goldens['variants'].values())
        except Exception as e:  # noqa: BLE001
            d, counts = [f'{stem}: {e}'], {}
        diffs += d
        reports += 1
        for v, n in counts.items():
            per_variant[v] = per_variant.get(v, 0) + n
    if script and findings:
        # The report where nsys finds the most (every rule's table runs there).
        best = max(findings, key=findings.get)
        try:
            d, _ = check_report(best, nsysp, work, tp, pkg, script,
                                log=lambda s: print('pasted script: ' + s))
            diffs += d
        except Exception as e:  # noqa: BLE001
            diffs.append(f'pasted script: {e}')
    for d in diffs:
        print('FAIL ' + d)
    for ver, _ in VERSIONS:
        n = sum(c for v, c in per_variant.items() if v.endswith(f'(nsys {ver})'))
        print(f'nsys {ver}: {n} rule runs compared')
    print(f'{reports} reports, {sum(per_variant.values())} rule runs compared in {time.time() - t0:.0f} s')
    print('ok' if not diffs else f'{len(diffs)} differences')
    return 1 if diffs else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
