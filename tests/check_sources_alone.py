#!/usr/bin/env python3
"""check_sources_alone.py NSYS_PERFETTO NSYS_FIXTURE TRACE_DUMP WORKDIR [PFTRACE_CHECK] [REPORT.sqlite.gz...]

`--sources X` writes all of X's rows whatever else is selected: for every
source a report has, converting it alone gives the same row accounting as
the full conversion and exactly the full conversion's events of that source
(same times once both traces' shifts are taken out, names, tracks, args,
callstacks), with no dangling flow. The GPU utilization counter, which
joins the work of three sources, is left out of the comparison. Runs on generated reports of both
modern and 2022 schemas and on the real reports given (skipped when absent).
"""
import collections
import gzip
import os
import re
import subprocess
import sys


def stats_of(text):
    """{source: [(table, rows, events, skipped)]} and the time shift."""
    per_source = collections.defaultdict(list)
    for line in text.splitlines():
        m = re.match(r'^(\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)$', line)
        if m and m.group(1) != 'source':
            per_source[m.group(1)].append((m.group(2), *map(int, m.group(3, 4, 5))))
    m = re.search(r'timestamps shifted by \+(\d+) ns', text)
    return per_source, int(m.group(1)) if m else 0


GPU_WORK = {'kernel', 'memcpy', 'memset', 'sync', 'graph'}


def events(dump_bin, trace, shift):
    """The trace's events as comparable tuples, times in report time.
    Track uuids and flow ids differ between conversions and are left out."""
    out = subprocess.run([dump_bin, trace], capture_output=True, text=True, check=True).stdout
    ev = collections.Counter()
    for line in out.splitlines():
        f = line.split('\t')
        kind = f[0]
        if kind == 'S':   # ts dur cat name path args uuid callstack flows
            args = f[6]
            if f[3] in GPU_WORK:
                # GPU work carries its correlation id only when no call in
                # the trace launched it (docs/timeline.md): alone it has it, in the
                # full conversion its call does.
                args = ';'.join(a for a in args.split(';') if not a.startswith('correlation id='))
            ev[('S', int(f[1]) - shift, f[2], f[3], f[4], f[5], args, *f[8:9])] += 1
        elif kind == 'I':  # ts cat name path args uuid
            ev[('I', int(f[1]) - shift, *f[2:6])] += 1
        elif kind == 'C':  # ts path value
            # GPU utilization is the union of kernels, memcpys and memsets:
            # a source alone has a counter of its own work, not a subset.
            if f[2].endswith('/ GPU utilization'):
                continue
            ev[('C', int(f[1]) - shift, *f[2:])] += 1
        elif kind == 'W':  # cpu ts prev-tid prev-state next-tid
            ev[('W', f[1], int(f[2]) - shift, *f[3:])] += 1
        elif kind == 'P':  # ts cpu pid tid mode callstack
            ev[('P', int(f[1]) - shift, *f[2:])] += 1
    return ev


def source_names(bin_):
    text = subprocess.run([bin_, '--help'], capture_output=True, text=True).stdout
    m = re.search(r'--sources LIST[^\n]*\n\s*([a-z][a-z0-9,\- ]+)\n', text)
    return [s.strip() for s in m.group(1).split(',') if s.strip()]


def check_report(bin_, dump_bin, check, report, work, tag, names):
    problems = []

    def convert(name, *options):
        trace = os.path.join(work, f'{tag}-{name}.perfetto-trace')
        r = subprocess.run([bin_, '-q', '--stats', *options, '-o', trace, report],
                           capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f'{tag} {name}: exit {r.returncode}: {r.stderr.strip()}')
            return None, None
        if check:
            c = subprocess.run([sys.executable, check, '--strict', trace], capture_output=True,
                               text=True)
            if c.returncode != 0:
                problems.append(f'{tag} {name}: pftrace-check: {c.stdout.strip()[-800:]}')
        stats, shift = stats_of(r.stderr)
        return stats, events(dump_bin, trace, shift)

    full_stats, full_events = convert('all')
    if full_stats is None:
        return problems
    tried = 0
    for name in names:
        if not any(rows for _, rows, _, _ in full_stats.get(name, [])):
            continue
        tried += 1
        alone_stats, alone_events = convert(name, '--sources', name)
        if alone_stats is None:
            continue
        if alone_stats.get(name) != full_stats[name]:
            problems.append(f'{tag} {name}: alone {alone_stats.get(name)}, '
                            f'in the full conversion {full_stats[name]}')
        others = set(alone_stats) - {name}
        if others:
            problems.append(f'{tag} {name}: other sources read: {sorted(others)}')
        emitted = sum(e for _, _, e, _ in full_stats[name])
        if not alone_events and emitted:
            problems.append(f'{tag} {name}: nothing written alone ({emitted} events in full)')
        missing = alone_events - full_events
        if missing:
            problems.append(f'{tag} {name}: {sum(missing.values())} events alone that the full '
                            f'conversion does not have, e.g. {next(iter(missing))}')
    if tried < 3:
        problems.append(f'{tag}: only {tried} sources have rows; the report is not what it was')
    print(f'{tag}: {tried} sources alone checked')
    return problems


def main():
    bin_, gen, dump_bin, work = sys.argv[1:5]
    check = sys.argv[5] if len(sys.argv) > 5 and os.path.exists(sys.argv[5]) else None
    real = [p for p in sys.argv[6:] if os.path.exists(p)]
    os.makedirs(work, exist_ok=True)
    names = source_names(bin_)
    if len(names) < 15:
        print(f'FAIL: --help lists only {names}')
        return 1

    reports = []
    for tag, schema in (('modern', 'modern'), ('2022', '2022')):
        path = os.path.join(work, f'fixture-{tag}.sqlite')
        if os.path.exists(path):
            os.remove(path)
        extra = ['--graphs', '3', '--graph-trace'] if schema == 'modern' else []
        subprocess.run([gen, '--seed', '31', '--events', '3000', '--schema', schema,
                        '--all-tables', '--nvtx', '--osrt', '--sched', '4', '--samples', '500',
                        *extra, path], check=True)
        reports.append((tag, path))
    for gz in real:
        tag = os.path.basename(gz).replace('.sqlite.gz', '')[-40:]
        path = os.path.join(work, f'{tag}.sqlite')
        if not os.path.exists(path):
            with gzip.open(gz) as src, open(path, 'wb') as dst:
                dst.write(src.read())
        reports.append((tag, path))

    problems = []
    for tag, path in reports:
        problems += check_report(bin_, dump_bin, check, path, work, tag, names)
    for p in problems:
        print('FAIL:', p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
