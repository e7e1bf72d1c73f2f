#!/usr/bin/env python3
"""check_filter_regex.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR [NVTX_REPORT.sqlite.gz]

--nvtx-filter and summary --match take POSIX extended regular expressions
whose cost in glibc stays bounded (src/common/regex_limits.h):

- back-references (issue 24: ^(.*)(.*)(.*)(.*)(.*)\\5\\4\\3\\2\\1$ spent
  over 20 s on one of a real report's NVTX names, deaf to SIGTERM), counts over 255,
  nested repeats written out past 1024 characters and patterns over 1 KiB
  are refused at once: status 2, one line naming the option and the
  problem, no output;
- ordinary ones (alternation, classes, anchors, {n,m}) keep exactly the
  NVTX ranges and marks whose names match (the same names Python's re
  finds), on a generated report and, when given, a real one.
"""
import gzip
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_names import torch_op  # noqa: E402

REFUSED = [
    (r'^(.*)(.*)(.*)(.*)(.*)\5\4\3\2\1$', r'back-references (\5) are not supported'),
    (r'(aten)::\1', r'back-references (\1) are not supported'),
    ('(a{1000}){1000}', 'repeat counts above 255 are not supported'),
    ('(a{255}){255}', 'its repeats make it too large'),
    ('(.{0,64}){64}x', 'its repeats make it too large'),
    ('a' * 1025, 'longer than 1024 bytes'),
    ('(', 'Unmatched ( or \\('),
]

# (POSIX ERE, the same in Python's re)
ORDINARY = [
    ('^(forward|backward)$', '^(forward|backward)$'),
    ('layers\\.[0-9]{1,2}\\.mlp', 'layers\\.[0-9]{1,2}\\.mlp'),
    ('^[[:lower:]_]+$', '^[a-z_]+$'),
    ('nccl(Send|Recv)?$', 'nccl(Send|Recv)?$'),
    ('^aten::(mul|add)_$', '^aten::(mul|add)_$'),
    ('^aten::[a-z]{2,4}_?$', '^aten::[a-z]{2,4}_?$'),
    ('[.][0-9]{2}[.]', '[.][0-9]{2}[.]'),
    ('step', 'step'),
    ('^$', '^$'),
]

def unpack(gz, work):
    path = os.path.join(work, os.path.basename(gz)[:-3])
    if not os.path.exists(path):
        with gzip.open(gz, 'rb') as src, open(path + '.part', 'wb') as dst:
            shutil.copyfileobj(src, dst)
        os.rename(path + '.part', path)
    return path


def nvtx_names(report):
    """The names of the NVTX ranges and marks, as the converter names them."""
    db = sqlite3.connect(f'file:{report}?mode=ro', uri=True)
    return [n for (n,) in db.execute(
        'SELECT coalesce(e.text, s.value, \'\') FROM NVTX_EVENTS AS e'
        ' LEFT JOIN StringIds AS s ON s.id = e.textId WHERE e.eventType IN (34, 59, 60, 70, 71)')]


def nvtx_stats(stderr):
    """(rows, events, filtered out) of the nvtx source in --stats."""
    m = re.search(r'^nvtx\s+NVTX_EVENTS\s+(\d+)\s+(\d+)\s+\d+$', stderr, re.M)
    lines = stderr[m.end():].splitlines()[1:] if m else []
    filtered = 0
    for line in lines:
        if not line.startswith(' '):
            break
        f = re.match(r'\s+skipped \(filtered out\): (\d+)', line)
        filtered = int(f.group(1)) if f else filtered
    return (int(m.group(1)), int(m.group(2)), filtered) if m else None


def one_line(where, stderr, must_contain, problems):
    if stderr.count('\n') != 1 or must_contain not in stderr:
        problems.append(f'{where}: expected one line with {must_contain!r}, got {stderr!r}')


def check_refused(bin_, report, work, problems):
    out = os.path.join(work, 'refused.perfetto-trace')
    for pattern, reason in REFUSED:
        where = f'--nvtx-filter {pattern[:40]!r}'
        began = time.monotonic()
        r = subprocess.run([bin_, '-q', '--nvtx-filter', pattern, '-o', out, report],
                           capture_output=True, text=True, timeout=60)
        took = time.monotonic() - began
        if r.returncode != 2:
            problems.append(f'{where}: exit {r.returncode}, expected 2: {r.stderr.strip()}')
        one_line(where, r.stderr, f'nsys-perfetto: --nvtx-filter: {reason}', problems)
        if took > 2.0:
            problems.append(f'{where}: refused after {took:.2f} s')
        if os.path.exists(out):
            problems.append(f'{where}: wrote an output')
            os.remove(out)
        r = subprocess.run([bin_, 'summary', '--match', 'x', '--match', pattern, report],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 2 or r.stdout:
            problems.append(f'summary {where}: exit {r.returncode}, output {r.stdout[:80]!r}')
        one_line(f'summary --match {pattern[:40]!r}', r.stderr, f'--match: {reason}', problems)


def check_ordinary(bin_, report, work, problems):
    rows = nvtx_names(report)
    out = os.path.join(work, 'ordinary.perfetto-trace')
    name = os.path.basename(report)
    for ere, python in ORDINARY:
        r = subprocess.run([bin_, '-q', '--stats', '--nvtx-filter', ere, '-o', out, report],
                           capture_output=True, text=True, timeout=300)
        where = f'{name}: --nvtx-filter {ere!r}'
        if r.returncode != 0:
            problems.append(f'{where}: exit {r.returncode}: {r.stderr.strip()}')
            continue
        got = nvtx_stats(r.stderr)
        # A PyTorch op range is kept when its op's name or its whole text matches.
        kept = sum(1 for n in rows if re.search(python, n) or re.search(python, torch_op(n)))
        want = (len(rows), kept, len(rows) - kept)
        if got != want:
            problems.append(f'{where}: nvtx rows, events, filtered out {got}, expected {want}')
        print(f'{where}: kept {kept} of {len(rows)} NVTX ranges and marks')
    # summary --match keeps the names that match any.
    r = subprocess.run([bin_, 'summary', '--csv', '--match', '^(forward|backward)$', '--match',
                        '^aten::(mul|add)_$', report], capture_output=True, text=True, timeout=300)
    names = {line.split(',')[1] for line in r.stdout.splitlines()[1:]}
    if r.returncode != 0 or any(not re.search('^(forward|backward)$|^aten::(mul|add)_$', n)
                                for n in names):
        problems.append(f'{name}: summary --match kept {sorted(names)[:8]} (exit {r.returncode})')


def main():
    bin_, gen, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    fixture = os.path.join(work, 'nvtx.sqlite')
    subprocess.run([gen, '--seed', '5', '--events', '20000', '--nvtx', fixture], check=True)
    reports = [fixture]
    if len(sys.argv) > 4 and os.path.exists(sys.argv[4]):
        reports.append(unpack(sys.argv[4], work))
    else:
        print('note: no real NVTX report; the generated one alone')
    problems = []
    check_refused(bin_, reports[-1], work, problems)
    for report in reports:
        check_ordinary(bin_, report, work, problems)
    for p in problems:
        print('FAIL:', p)
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
