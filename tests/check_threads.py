#!/usr/bin/env python3
"""check_threads.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR [CORPUS_DIR]

--threads changes who reads and compresses, never what is written: the
trace must be the same bytes, and --stats the same counts, for 1, 2, 3
and 8 threads, on every path the readers take:

- a generated report with every source (NVTX projection, OS runtime call
  chains, scheduling, samples, GPU metrics, CUDA graphs);
- the same with the CUDA API and NVTX tables stored backwards: the feeds
  and the NVTX projection find them out of order on a reader and start
  again with them sorted;
- --min-stream-activity (a temporary table copied to each reader),
  --gpu, --time-range and --sources;
- two reports merged (each report's feeds move to readers in its turn);
- compressed output (several deflate threads, chunks written in order);
- real corpus reports, when ../shared is there;
- the GPU work per call counted in parts, one per thread (every report
  here is made to split: NSYSP_LINK_PART_ROWS=1000), against one part at
  --threads 1.

Bad values of --threads are refused with exit status 2.
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import gzip

THREADS = (1, 2, 3, 8)
# A sanitizer build (NSYSP_SANITIZED) runs several times slower: 3 and 8
# threads still race against the one-thread bytes.
SANITIZED = bool(os.environ.get('NSYSP_SANITIZED'))
if SANITIZED:
    THREADS = (1, 3, 8)
CORPUS = (
    'GindaChen__nsys-ai__tests__fixtures__mfu_2gpu_before',
    'NVIDIA__Fuser__report2',
    'sangyun802__instant-ngp__report5.qdrep',
    'local/nvtx_workload-sampled',
)


def convert(bin_, inputs, out, threads, extra):
    """Converts; returns (trace bytes, --stats text)."""
    r = subprocess.run([bin_, '-q', '--stats', '--threads', str(threads), '-o', out] + extra +
                       inputs, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f'FAIL: --threads {threads} {" ".join(extra)} {inputs}: exit {r.returncode}:'
                 f' {r.stderr[-800:]}')
    with open(out, 'rb') as f:
        data = f.read()
    os.remove(out)
    # The counts, without the time the conversion took.
    return data, re.sub(r', [0-9.]+ s$', '', r.stderr, flags=re.M)


def same_for_all_counts(bin_, inputs, work, extra, problems, counts=THREADS):
    out = os.path.join(work, 'out.perfetto-trace')
    want = None
    for n in counts:
        got = convert(bin_, inputs, out, n, extra)
        if want is None:
            want = got
            if len(got[0]) < 1000:
                problems.append(f'{inputs} {extra}: only {len(got[0])} bytes written')
            continue
        what = f'{[os.path.basename(i) for i in inputs]} {" ".join(extra)}'
        if got[0] != want[0]:
            problems.append(f'{what}: --threads {n} wrote other bytes than --threads {counts[0]}'
                            f' ({len(got[0])} against {len(want[0])})')
        if got[1] != want[1]:
            lines = [(a, b) for a, b in zip(got[1].splitlines(), want[1].splitlines()) if a != b]
            problems.append(f'{what}: --threads {n} counted otherwise: {lines[:3]}')
    return want


def rewrite(db, table, order):
    """Stores table's rows again in the given order (new rowids)."""
    db.execute(f'CREATE TABLE reordered AS SELECT * FROM "{table}" ORDER BY {order}')
    db.execute(f'DROP TABLE "{table}"')
    db.execute(f'ALTER TABLE reordered RENAME TO "{table}"')


def main():
    bin_, gen, work = sys.argv[1:4]
    os.environ['NSYSP_LINK_PART_ROWS'] = '1000'  # parts on these small reports
    corpus = sys.argv[4] if len(sys.argv) > 4 else None
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    problems = []

    for bad in ('0', '9', 'x', ''):
        r = subprocess.run([bin_, '--threads', bad, 'absent.sqlite'], capture_output=True, text=True)
        if r.returncode != 2 or '--threads' not in r.stderr:
            problems.append(f'--threads {bad!r}: exit {r.returncode}, {r.stderr.strip()!r}')

    base = os.path.join(work, 'mix.sqlite')
    subprocess.run([gen, '--seed', '7', '--events', '30000', '--nvtx', '--osrt', '--sched', '4',
                    '--samples', '1000', '--gpu-metrics', '1000', '--graphs', '3', base],
                   check=True)
    backwards = os.path.join(work, 'backwards.sqlite')
    shutil.copy(base, backwards)
    db = sqlite3.connect(backwards)
    rewrite(db, 'CUPTI_ACTIVITY_KIND_RUNTIME', 'start DESC')
    rewrite(db, 'NVTX_EVENTS', 'start DESC')
    db.commit()
    db.close()

    # Rowids a crafted report may have: all negative in one GPU table, one at
    # the largest in another; the parts must still count every row once.
    odd_rowids = os.path.join(work, 'odd-rowids.sqlite')
    shutil.copy(base, odd_rowids)
    db = sqlite3.connect(odd_rowids)
    db.execute('UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = rowid - 1000000000000')
    db.execute('UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET rowid = 9223372036854775807'
               ' WHERE rowid = (SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_MEMCPY)')
    db.commit()
    db.close()
    same_for_all_counts(bin_, [odd_rowids], work, ['--no-compress'], problems)
    if convert(bin_, [odd_rowids], os.path.join(work, 'odd'), 8, ['--no-compress'])[0] != \
            convert(bin_, [base], os.path.join(work, 'even'), 8, ['--no-compress'])[0]:
        problems.append('odd rowids: another trace than the same rows with their own rowids')

    for report in (base, backwards):
        for extra in ([], ['--min-stream-activity', '5'], ['--gpu', '0'],
                      ['--time-range', '10ms:40ms'], ['--sources', 'kernel,cuda-api,nvtx-gpu']):
            same_for_all_counts(bin_, [report], work, ['--no-compress'] + extra, problems)
    # Both orders are one report: the same events (the bytes may differ only
    # where rows tie, and here they do not).
    a = convert(bin_, [base], os.path.join(work, 'a'), 1, ['--no-compress'])
    b = convert(bin_, [backwards], os.path.join(work, 'b'), 8, ['--no-compress'])
    if len(a[0]) != len(b[0]):
        problems.append(f'backwards tables: {len(b[0])} bytes against {len(a[0])} as generated')

    other = os.path.join(work, 'other.sqlite')
    subprocess.run([gen, '--seed', '8', '--events', '8000', '--nvtx', '--osrt', other], check=True)
    same_for_all_counts(bin_, [base, other], work, ['--no-compress'], problems)
    same_for_all_counts(bin_, [base], work, [], problems, counts=(1, 8))

    # Six reports of 13 sources each: more than the 64 slots of per-source
    # counts, so later reports count into the slots of the same sources;
    # every row is counted still.
    copies = []
    for k in range(6):
        copies.append(os.path.join(work, f'copy{k}.sqlite'))
        shutil.copy(base, copies[-1])
    _, stats = same_for_all_counts(bin_, copies, work, ['--no-compress'], problems,
                                   counts=(1, 8))
    counted = sum(int(m.group(1)) for m in re.finditer(r'^\S+\s+\S+\s+(\d+)\s+\d+\s+\d+$',
                                                      stats, re.M))
    one = sum(int(m.group(1)) for m in re.finditer(r'^\S+\s+\S+\s+(\d+)\s+\d+\s+\d+$',
                                                  convert(bin_, [base], os.path.join(work, 'one'), 1,
                                                          ['--no-compress'])[1], re.M))
    if counted != 6 * one:
        problems.append(f'six reports merged: {counted} rows counted, expected 6 x {one}')

    if corpus and os.path.isdir(corpus):
        # Under a sanitizer two of them (PyTorch on two GPUs; CPU samples and
        # scheduling): the readers are the same code on each.
        for name in (CORPUS[0], CORPUS[3]) if SANITIZED else CORPUS:
            gz = os.path.join(corpus, name + '.sqlite.gz')
            if not os.path.exists(gz):
                problems.append(f'{gz}: missing from the corpus')
                continue
            report = os.path.join(work, os.path.basename(name) + '.sqlite')
            with gzip.open(gz, 'rb') as src, open(report, 'wb') as dst:
                shutil.copyfileobj(src, dst)
            same_for_all_counts(bin_, [report], work, ['--no-compress'], problems,
                                counts=(1, 8) if SANITIZED else (1, 2, 8))
            os.remove(report)
    else:
        print('no corpus: generated reports only')

    if problems:
        print('\n'.join(problems))
        sys.exit(1)
    print('same bytes and counts for --threads', ', '.join(map(str, THREADS)))


if __name__ == '__main__':
    main()
