#!/usr/bin/env python3
"""check_summary_nsys_stats.py NSYS_PERFETTO WORKDIR [--unpacked DIR] REPORT.sqlite.gz...

`nsys-perfetto summary` equals NVIDIA's own `nsys stats`, name for name:

nsys 2023.4, through its committed outputs (tests/sql_golden_2023, made by
`sql_golden.py generate --version 2023.4`; no nsys needed), on every corpus
report beside the REPORTs that has them (unpacked into --unpacked DIR, default
WORKDIR, a cache the SQL tests share): kernel = cuda_gpu_kern_sum:base
(and, with --kernel-names demangled, cuda_gpu_kern_sum, its default), memory = cuda_gpu_mem_time_sum ('[CUDA memcpy Host-to-Device]', '[CUDA
memset]'), cuda-api = cuda_api_sum, nvtx = nvtx_sum ('DOMAIN:name') and
nvtx-gpu = nvtx_gpu_proj_sum, each by count, total, min and max per name;
with --raw-names, as nsys groups PyTorch op ranges by their whole text, and
without, nvtx and nvtx-gpu equal nsys's rows regrouped by op. Where 2023.4
printed nothing (the report lacks the data), the summary has no such rows.

nsys 2022.4 (the installed nsys), on the REPORTs: kernel totals equal
gpukernsum:base summed over its grid/block rows, cuda-api totals cudaapisum,
nvtx-gpu nvtxgpuproj's projected ranges (count, total, min, max per name),
also regrouped by op. nsys stats runs on a copy (it may write into the
file); without nsys this part is skipped with a word. Each problem names the
version. Exits 77 (skipped) without the corpus.

nsys's own projection (nvtxgpuproj) of the biggest report takes it most of
a minute; its output, the columns read here, is kept in tests/summary_golden
(nsys 2022.4, as installed by ../shared/tools/install-nsys) and read instead,
unless NSYSP_LIVE_NSYS=1. `check_summary_nsys_stats.py --store REPORT_NAME
REPORT.sqlite` writes it again.
"""
import collections
import csv
import gzip
import io
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_names import torch_op  # noqa: E402
import sql_golden as sg  # noqa: E402

# nsys 2023.4's reports the summary equals, read from the committed goldens:
# (report, category, its columns, summary options besides --raw-names, whether
# PyTorch op ranges are grouped by op without --raw-names).
CHECKS_2023 = [
    ('cuda_gpu_kern_sum:base', 'kernel', dict(name='Name', count='Instances'), (), False),
    ('cuda_gpu_kern_sum', 'kernel', dict(name='Name', count='Instances'),
     ('--kernel-names', 'demangled'), False),
    ('cuda_gpu_mem_time_sum', 'memory', dict(name='Operation', count='Count'), (), False),
    ('cuda_api_sum', 'cuda-api', dict(name='Name', count='Num Calls'), (), False),
    ('nvtx_sum', 'nvtx', dict(name='Range', count='Instances'), (), True),
    ('nvtx_gpu_proj_sum', 'nvtx-gpu', dict(name='Range', count='Range Instances',
                                           dur='Total Proj Time (ns)', lo='Proj Min (ns)',
                                           hi='Proj Max (ns)'), (), True),
]


def unpack(gz, workdir):
    """The report beside the others the corpus tests unpack."""
    out = os.path.join(workdir, os.path.basename(gz)[:-len('.gz')])
    if not os.path.exists(out):
        part = f'{out}.{os.getpid()}.part'
        with gzip.open(gz) as src, open(part, 'wb') as dst:
            shutil.copyfileobj(src, dst)
        os.replace(part, out)
    return out


STORED = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'summary_golden')
# The columns a stored report keeps: what totals() reads of it.
STORED_COLUMNS = {'nvtxgpuproj': ('Name', 'Projected Duration (ns)')}


def stored_path(report_name, report):
    stem = os.path.basename(report)[:-len('.sqlite')]
    return os.path.join(STORED, f'{stem}.{report_name}.csv.gz')


def nsys_stats(nsys, report_name, report, copy, live=bool(os.environ.get('NSYSP_LIVE_NSYS'))):
    stored = stored_path(report_name, report)
    if os.path.exists(stored) and not live:
        with gzip.open(stored, 'rt', newline='') as f:
            return list(csv.DictReader(f))
    shutil.copyfile(report, copy)
    out = subprocess.run([nsys, 'stats', '--report', report_name, '--format', 'csv',
                          '--output', '-', copy], capture_output=True, text=True, check=True).stdout
    lines = [l for l in out.splitlines() if l and not l.startswith('Processing [')]
    # A report without the tables says so in one line and prints no CSV.
    return list(csv.DictReader(io.StringIO('\n'.join(lines)))) if lines and ',' in lines[0] else []


def totals(rows, name, count=None, dur='Total Time (ns)', lo='Min (ns)', hi='Max (ns)'):
    """(count, total, min, max) per name over rows."""
    acc = collections.defaultdict(lambda: [0, 0, None, None])
    for r in rows:
        a = acc[r[name]]
        n = int(r[count]) if count else 1
        a[0] += n
        a[1] += int(r[dur])
        mn, mx = int(r[lo] if lo else r[dur]), int(r[hi] if hi else r[dur])
        a[2] = mn if a[2] is None else min(a[2], mn)
        a[3] = mx if a[3] is None else max(a[3], mx)
    return {k: tuple(v) for k, v in acc.items()}


def store(report_name, report):
    """Keeps nsys stats' rows of report_name for report (STORED_COLUMNS)."""
    nsys = os.environ.get('NSYS') or shutil.which('nsys')
    copy = f'{report}.store-{os.getpid()}.sqlite'
    rows = nsys_stats(nsys, report_name, report, copy, live=True)
    os.remove(copy)
    columns = STORED_COLUMNS[report_name]
    os.makedirs(STORED, exist_ok=True)
    with open(stored_path(report_name, report), 'wb') as raw:
        with gzip.GzipFile(filename='', mode='wb', fileobj=raw, mtime=0) as gz:
            out = io.TextIOWrapper(gz, newline='')
            w = csv.writer(out, lineterminator='\n')
            w.writerow(columns)
            w.writerows([r[c] for c in columns] for r in rows)
            out.flush()
            out.detach()
    print(f'{stored_path(report_name, report)}: {len(rows)} rows')
    return 0


def differs(got, want):
    """The first few (name, figures) on one side only."""
    return sorted(set(got.items()) ^ set(want.items()))[:4]


def check_2022(bin_, nsys, report, copy, problems, compared):
    """The summary of report against nsys 2022.4, run live (or its stored output)."""
    ours, by_op = summary(bin_, report, '--raw-names'), summary(bin_, report)
    checks = [
        ('gpukernsum:base', 'kernel', dict(name='Name', count='Instances')),
        ('cudaapisum', 'cuda-api', dict(name='Name', count='Num Calls')),
        ('nvtxgpuproj', 'nvtx-gpu', dict(name='Name', dur='Projected Duration (ns)',
                                         lo=None, hi=None)),
    ]
    for report_name, category, how in checks:
        want = totals(nsys_stats(nsys, report_name, report, copy), **how)
        got = ours.get(category, {})
        if got != want:
            problems.append(f'{os.path.basename(report)}: {category} != {report_name} (nsys 2022.4): '
                            f'differs at {differs(got, want)}')
        compared[f'{category} (nsys 2022.4)'] += len(want)
        if category == 'nvtx-gpu' and by_op.get(category, {}) != regrouped_by_op(want):
            problems.append(f'{os.path.basename(report)}: nvtx-gpu by op != {report_name} '
                            '(nsys 2022.4) regrouped by op')


def check_2023(bin_, stem, report, problems, compared):
    """The summary of report against nsys 2023.4's committed outputs for stem."""
    runs = {}

    def ours(*options):
        if options not in runs:
            runs[options] = summary(bin_, report, *options)
        return runs[options]
    for report_name, category, how, options, torch in CHECKS_2023:
        g = sg.golden(stem, report_name, sg.GOLDEN_DIR_2023)
        if g is None or g.kind == 'error':  # nsys failed: nothing to compare
            continue
        if options and g.kind == 'none':  # the same rows as without the options
            continue
        got = ours('--raw-names', *options).get(category, {})
        if g.kind == 'none':
            if got:
                problems.append(f'{stem}: {category} has {len(got)} names where {report_name} '
                                f'(nsys 2023.4) has none: {sorted(got)[:3]}')
            continue
        want = totals(g.rows, **how)
        if got != want:
            problems.append(f'{stem}: {category} != {report_name} (nsys 2023.4): '
                            f'differs at {differs(got, want)}')
        elif torch and regrouped_by_op(want) != want:  # PyTorch op ranges: by op too
            by_op = ours(*options).get(category, {})
            if by_op != regrouped_by_op(want):
                problems.append(f'{stem}: {category} by op != {report_name} (nsys 2023.4) '
                                f'regrouped by op: differs at '
                                f'{differs(by_op, regrouped_by_op(want))}')
        compared[f'{category} (nsys 2023.4 {report_name})'] += len(want)


def main():
    if sys.argv[1:2] == ['--store']:
        return store(sys.argv[2], sys.argv[3])
    bin_, workdir, gzs = sys.argv[1], sys.argv[2], sys.argv[3:]
    unpacked_dir = workdir
    if gzs[:1] == ['--unpacked']:
        unpacked_dir, gzs = gzs[1], gzs[2:]
    gzs = [g for g in gzs if os.path.exists(g)]
    if not gzs:
        print('skip: corpus absent')
        return 77
    os.makedirs(workdir, exist_ok=True)
    problems, compared = [], collections.Counter()
    # 2023.4: every corpus report with goldens, found beside the ones named.
    corpus = os.path.dirname(os.path.abspath(gzs[0]))
    stems = [s for s in sg.corpus_reports(corpus)
             if os.path.isdir(os.path.join(sg.GOLDEN_DIR_2023, s))]
    for stem in stems:
        report = sg.unpacked(sg.corpus_path(stem, corpus), unpacked_dir)
        check_2023(bin_, stem, report, problems, compared)
    nsys = os.environ.get('NSYS') or shutil.which('nsys')
    if nsys:
        for gz in gzs:
            report = unpack(gz, workdir)
            copy = os.path.join(workdir, f'nsys-stats-copy-{os.getpid()}.sqlite')
            check_2022(bin_, nsys, report, copy, problems, compared)
            if os.path.exists(copy):
                os.remove(copy)
    if problems:
        print('\n'.join(problems))
        return 1
    print(f'ok: {len(stems)} reports equal nsys stats 2023.4' +
          (f', {len(gzs)} nsys stats 2022.4' if nsys else ' (2022.4 skipped: nsys not installed)') +
          ': ' + ', '.join(f'{n} {c} names' for c, n in compared.items()))
    return 0


def summary(bin_, report, *extra):
    """{category: {name: (count, total, min, max)}} of `summary --csv`."""
    out = subprocess.run([bin_, 'summary', '--csv', *extra, report], check=True,
                         capture_output=True, text=True).stdout
    rows = collections.defaultdict(dict)
    for r in list(csv.reader(io.StringIO(out)))[1:]:
        rows[r[0]][r[1]] = (int(r[2]), int(r[3]), int(r[5]), int(r[6]))
    return rows


def regrouped_by_op(totals_by_name):
    """nsys's per-text rows summed per PyTorch op, as the summary groups them."""
    out = {}
    for name, (n, total, lo, hi) in totals_by_name.items():
        op = torch_op(name)
        if op in out:
            m, t, a, b = out[op]
            out[op] = (m + n, t + total, min(a, lo), max(b, hi))
        else:
            out[op] = (n, total, lo, hi)
    return out


if __name__ == '__main__':
    sys.exit(main())
