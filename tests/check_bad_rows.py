#!/usr/bin/env python3
"""check_bad_rows.py NSYS_PERFETTO NSYS_FIXTURE TRACE_DUMP WORKDIR [PFTRACE_CHECK]

Bad rows are survived and counted, never fatal. A generated report is
damaged the ways real ones are: NULL where a value is expected, end before
start, negative and enormous timestamps, unknown enum values, string ids
with no string, invalid UTF-8 and huge strings, duplicate correlation ids,
text in integer columns. The conversion must exit 0, keep pftrace-check
clean, write only valid UTF-8, and account for every row (events + counted
skips = rows).
"""
import os
import sqlite3
import subprocess
import sys

from check_report import check_accounting

DAMAGE = [
    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = NULL WHERE rowid % 50 = 0",
    'UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = start - 10 WHERE rowid % 50 = 1',
    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = NULL WHERE rowid % 50 = 2",
    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET shortName = 999999999, demangledName = NULL,"
    " mangledName = NULL WHERE rowid % 30 = 3",
    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 'not a number' WHERE rowid % 40 = 4",
    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET launchType = 42 WHERE rowid % 20 = 5",
    'UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = -5000000000, "end" = -4999999000 WHERE rowid = 3',
    'UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET "end" = NULL WHERE rowid % 70 = 6',
    "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = NULL WHERE rowid % 70 = 7",
    "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId ="
    " (SELECT min(correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME) WHERE rowid % 90 = 8",
    'UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET start = 4611686018427387904,'
    ' "end" = 4611686018427388004 WHERE rowid = 2',
    "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET copyKind = 99, srcKind = 77, dstKind = -1"
    " WHERE rowid % 7 = 0",
    "UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET syncType = 12345 WHERE rowid % 5 = 0",
    "UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET streamId = NULL WHERE rowid % 6 = 0",
    "INSERT INTO StringIds VALUES (900000001, CAST(x'6B65726E656CFF80C3' AS TEXT))",
    "INSERT INTO StringIds VALUES (900000002, printf('%.200000c', 'x'))",
    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET shortName = 900000001 WHERE rowid % 30 = 10",
    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET shortName = 900000002 WHERE rowid % 30 = 11",
    "UPDATE PROCESSES SET name = CAST(x'70797468FF6E' AS TEXT)",
]


def main():
    bin_, gen, dump_bin, work = sys.argv[1:5]
    check = sys.argv[5] if len(sys.argv) > 5 and os.path.exists(sys.argv[5]) else None
    os.makedirs(work, exist_ok=True)
    report = os.path.join(work, 'bad-rows.sqlite')
    subprocess.run([gen, '--seed', '9', '--events', '8000', report], check=True)
    db = sqlite3.connect(report)
    # Real damaged reports break the exporter's NOT NULL promises too: copy
    # the tables without constraints first.
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                               " AND name LIKE 'CUPTI_%' OR name = 'PROCESSES'").fetchall():
        db.execute(f'CREATE TABLE loose AS SELECT * FROM "{table}"')
        db.execute(f'DROP TABLE "{table}"')
        db.execute(f'ALTER TABLE loose RENAME TO "{table}"')
    for sql in DAMAGE:
        db.execute(sql)
    db.commit()
    db.close()

    trace = os.path.join(work, 'bad-rows.perfetto-trace')
    r = subprocess.run([bin_, '--stats', '-q', '-o', trace, report], capture_output=True, text=True)
    problems = []
    if r.returncode != 0:
        problems.append(f'exit {r.returncode}: {r.stderr}')
    else:
        stats = os.path.join(work, 'bad-rows.stats')
        with open(stats, 'w') as f:
            f.write(r.stderr)
        check_accounting(sqlite3.connect(f'file:{report}?mode=ro', uri=True), stats, problems)
        for reason in ('null timestamp', 'end before start', 'missing value'):
            if f'skipped ({reason})' not in r.stderr:
                problems.append(f'no rows counted as skipped ({reason})')
        if 'shifted by +5000000000 ns' not in r.stderr:
            problems.append('negative timestamps did not shift the trace')
        raw = subprocess.run([dump_bin, trace], check=True, capture_output=True).stdout
        try:
            text = raw.decode('utf-8')
        except UnicodeDecodeError as e:
            problems.append(f'invalid UTF-8 in the trace: {e}')
            text = raw.decode('utf-8', 'replace')
        if 'kernel\ufffd' not in text:
            problems.append('invalid UTF-8 kernel name not repaired to U+FFFD')
        if 'x' * 1000 not in text or 'x' * 70000 in text:
            problems.append('huge string not kept and cut at the limit')
        if check:
            c = subprocess.run([sys.executable, check, trace], capture_output=True, text=True)
            if c.returncode != 0:
                problems.append(f'pftrace-check: {c.stdout[-1500:]}')
    if problems:
        print('\n'.join(problems))
        return 1
    print('ok: damaged report converted, every row accounted for')
    return 0


if __name__ == '__main__':
    sys.exit(main())
