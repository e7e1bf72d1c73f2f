#!/usr/bin/env python3
"""check_fixture_output.py NSYS_FIXTURE WORKDIR [--raw] [--record]

The generator's output stays what it was: every nsys-fixture command line
the tests, the benchmark and the bundled sample use (fixture_outputs.txt)
is run again and the report compared with the recorded SHA-256 of its
canonical dump. The dump is every schema entry (type, name, SQL) in name
order, then every table's rows in stored (rowid) order, values written with
Python's repr: it depends on what the file holds, not on how the SQLite
library at hand lays out its pages. The file's bytes are no good as the
test's measure: its header stores the version number of the libsqlite3
that wrote it (offset 96), so any other release, on another machine or
after an upgrade, changes them; page size defaults and b-tree layout are
the library's too. The generator itself uses integer arithmetic only (no
libm, no clock), so the dump is the same on every platform.

--raw also compares the SHA-256 of the file's bytes, which only holds with
the SQLite library the hashes were recorded with. --record rewrites
fixture_outputs.txt from the reports generated now.
"""
import hashlib
import os
import shlex
import sqlite3
import subprocess
import sys

MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixture_outputs.txt')


def read_manifest():
    """Lines 'DUMP_SHA RAW_SHA ARGS...'; '#' starts a comment."""
    entries = []
    with open(MANIFEST) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                dump_sha, raw_sha, args = line.split(None, 2)
                entries.append((dump_sha, raw_sha, args))
    return entries


def dump_sha256(path):
    h = hashlib.sha256()
    db = sqlite3.connect(f'file:{path}?mode=ro', uri=True)
    schema = db.execute('SELECT type, name, tbl_name, sql FROM sqlite_master '
                        'ORDER BY name, type').fetchall()
    for entry in schema:
        h.update(repr(entry).encode() + b'\n')
    for kind, name, _, sql in schema:
        if kind != 'table' or name.startswith('sqlite_'):
            continue
        order = '' if 'WITHOUT ROWID' in (sql or '').upper() else ' ORDER BY rowid'
        h.update(f'table {name}\n'.encode())
        for row in db.execute(f'SELECT * FROM "{name}"{order}'):
            h.update(repr(row).encode() + b'\n')
    db.close()
    return h.hexdigest()


def raw_sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    flags = {a for a in sys.argv[1:] if a.startswith('--')}
    if len(args) != 2 or flags - {'--raw', '--record'}:
        sys.exit(__doc__.strip().splitlines()[0])
    gen, work = args
    os.makedirs(work, exist_ok=True)
    entries = read_manifest()
    if not entries:
        sys.exit(f'{MANIFEST}: no command lines')
    problems, recorded = [], []
    for i, (want_dump, want_raw, line) in enumerate(entries):
        report = os.path.join(work, f'report-{i}.sqlite')
        if os.path.exists(report):
            os.remove(report)
        subprocess.run([gen] + shlex.split(line) + [report], check=True)
        dump, raw = dump_sha256(report), raw_sha256(report)
        os.remove(report)
        recorded.append(f'{dump} {raw} {line}')
        if dump != want_dump:
            problems.append(f'{line}: contents changed (dump {dump})')
        elif '--raw' in flags and raw != want_raw:
            problems.append(f'{line}: same contents, other bytes (raw {raw})')
    if '--record' in flags:
        with open(MANIFEST) as f:
            header = [l for l in f if l.startswith('#')]
        with open(MANIFEST, 'w') as f:
            f.writelines(header)
            f.write('\n'.join(recorded) + '\n')
        print(f'recorded {len(recorded)} command lines in {MANIFEST}')
        return
    for p in problems:
        print(p, file=sys.stderr)
    print(f'{len(entries) - len(problems)} of {len(entries)} reports as recorded'
          + (' (contents and bytes)' if '--raw' in flags else ' (contents)'))
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
