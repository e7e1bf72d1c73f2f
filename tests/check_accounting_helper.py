"""Row accounting from the converter's --stats text, for the tests: each
source must account for every row (rows = events + skipped) and read every
row of its table."""
import re

# Tables whose sources read only some rows: the WHERE they apply.
SOURCE_WHERE = {'NVTX_EVENTS': ' WHERE eventType IN (34, 59, 60, 70, 71)'}


def accounting(db, stats_text):
    """Problems found in stats_text (the converter's --stats output)."""
    problems = []
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    per_table = {}
    for line in stats_text.splitlines():
        m = re.match(r'^(\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)$', line)
        if not m:
            continue
        name, table = m.group(1), m.group(2)
        rows, events, skipped = int(m.group(3)), int(m.group(4)), int(m.group(5))
        if rows != events + skipped:
            problems.append(f'{name}: {rows} rows but {events} events + {skipped} skipped')
        per_table[table] = rows
    for table, rows in per_table.items():
        if table in tables:
            want = db.execute(f'SELECT count(*) FROM "{table}"{SOURCE_WHERE.get(table, "")}').fetchone()[0]
            if want != rows:
                problems.append(f'read {rows} rows of {table}, which has {want}')
    return problems
