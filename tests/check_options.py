#!/usr/bin/env python3
"""check_options.py NSYS_PERFETTO NSYS_FIXTURE TRACE_DUMP WORKDIR

Options that change what is written, end to end on a generated report:
  --kernel-names demangled|mangled  kernel slices carry that name;
  --min-stream-activity PCT         exactly the streams busy less than PCT%
                                    of the report vanish, their rows are
                                    counted as skipped, the rest is intact,
                                    and stderr says how many were hidden.
"""
import collections
import os
import subprocess
import sys

from check_report import connect, strings


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True)


def dump(dump_bin, trace):
    rows = []
    for line in run([dump_bin, trace]).stdout.splitlines():
        f = line.split('\t')
        if f[0] == 'S':
            rows.append((int(f[1]), f[3], f[4], f[5]))
    return rows


def main():
    bin_, gen, dump_bin, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    report = os.path.join(work, 'options.sqlite')
    run([gen, '--seed', '11', '--events', '6000', '--streams', '4', report])
    db = connect(report)
    s = strings(db)
    problems = []

    for kind, column in (('demangled', 'demangledName'), ('mangled', 'mangledName')):
        trace = os.path.join(work, f'names-{kind}.perfetto-trace')
        run([bin_, '-q', '--kernel-names', kind, '-o', trace, report])
        want = collections.Counter(s[i] for (i,) in db.execute(
            f'SELECT {column} FROM CUPTI_ACTIVITY_KIND_KERNEL'))
        got = collections.Counter(name for _, cat, name, _ in dump(dump_bin, trace) if cat == 'kernel')
        if want != got:
            problems.append(f'--kernel-names {kind}: names differ, e.g. {list((want - got))[:2]}')

    # Busy time per stream over kernels, memcpy and memset, against the
    # session's duration; hide at the median share so some go and some stay.
    start, stop = db.execute('SELECT startTime, stopTime FROM ANALYSIS_DETAILS').fetchone()
    busy = collections.Counter()
    for table in ('KERNEL', 'MEMCPY', 'MEMSET'):
        for d, p, c, st, b in db.execute(
                f'SELECT deviceId, globalPid, contextId, streamId, sum("end" - start)'
                f' FROM CUPTI_ACTIVITY_KIND_{table} GROUP BY 1, 2, 3, 4'):
            busy[(d, p, c, st)] += b
    shares = sorted(100.0 * b / (stop - start) for b in busy.values())
    pct = shares[len(shares) // 2]
    hidden = {k for k, b in busy.items() if 100.0 * b / (stop - start) < pct}
    trace = os.path.join(work, 'min-activity.perfetto-trace')
    r = run([bin_, '--stats', '--min-stream-activity', repr(pct), '-o', trace, report])
    if f'hid {len(hidden)} CUDA streams' not in r.stderr:
        problems.append(f'stderr does not say {len(hidden)} streams were hidden: {r.stderr}')
    kept_rows = 0
    for table in ('KERNEL', 'MEMCPY', 'MEMSET'):
        for d, p, c, st in db.execute(
                f'SELECT deviceId, globalPid, contextId, streamId FROM CUPTI_ACTIVITY_KIND_{table}'):
            kept_rows += (d, p, c, st) not in hidden
    got = [row for row in dump(dump_bin, trace) if row[1] in ('kernel', 'memcpy', 'memset')]
    if len(got) != kept_rows:
        problems.append(f'--min-stream-activity: {len(got)} GPU slices, expected {kept_rows}')
    if 'skipped (hidden stream)' not in r.stderr:
        problems.append('--stats does not count rows of hidden streams')
    if problems:
        print('\n'.join(problems))
        return 1
    print(f'ok: hid {len(hidden)} of {len(busy)} streams at {pct:.3f}%, kept {kept_rows} rows')
    return 0


if __name__ == '__main__':
    sys.exit(main())
