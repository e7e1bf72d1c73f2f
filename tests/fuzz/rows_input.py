#!/usr/bin/env python3
"""Writes or explains fuzz_rows inputs (the layout is in fuzz_rows.c).

  rows_input.py explain BASE.sqlite INPUT         # list the edits of INPUT
  rows_input.py make BASE.sqlite OUT [--base-index N] [--options BYTE] [--byte2 BYTE]
                [--byte3 BYTE] EDIT...

Header bytes (fuzz_rows.c): --base-index is byte 0, --options byte 1 (default 3),
--byte2 the NVTX domain filter and two-report bit, --byte3 time range, GPU, process,
align, unread-table count and source filters.

An EDIT is OP:TABLE:COLUMN:ROW:KIND:AUX:VALUE, where TABLE and COLUMN are
names in BASE (the index is looked up, as fuzz_rows does: tables and
columns sorted by name), ROW is 0-based (fuzz_rows edits rowid ROW % rows +
1), OP/KIND/AUX are numbers and VALUE is 0x<hex bytes> (up to 8,
little-endian for integers) or a decimal int64. Example, an invalid UTF-8
NVTX name:

  rows_input.py make build-fuzz/rows_base_modern.sqlite nvtx-utf8.bin \\
      0:NVTX_EVENTS:text:4:7:1:0xff41
"""
import sqlite3
import struct
import sys

OPS = {**{i: 'set cell' for i in range(14)}, 14: 'set column', 15: 'delete row',
       16: 'duplicate row', 17: 'copies of row', 18: 'shifted copies of row',
       19: 'drop table', 20: 'drop column', 21: 'rename column', 22: 'table -> view',
       23: 'delete rows'}
KINDS = ['NULL', 'int64', 'int8', 'special int', 'nudge', 'from other row',
         'from other column', 'raw text', 'numeric text', 'huge text', 'blob', 'real bits',
         'special real', 'missing string id', 'existing string id', 'relative to interval',
         'far time']


def schema(path):
    db = sqlite3.connect(f'file:{path}?mode=ro', uri=True)
    tables = sorted(r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
    cols = {t: sorted(r[1] for r in db.execute(f'PRAGMA table_info("{t}")')) for t in tables}
    rows = {t: db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    return tables, cols, rows


def explain(base, data):
    tables, cols, rows = schema(base)
    print(f'header: base {data[0]} options {data[1]:#04x} byte2 {data[2]:#04x} byte3 {data[3]:#04x}')
    body = data[4:]
    for i in range(min(len(body) // 16, 64)):
        op, tab, col, row, kind, aux = struct.unpack_from('<BBBHBH', body, i * 16)
        value = body[i * 16 + 8:i * 16 + 16]
        t = tables[tab % len(tables)]
        c = cols[t][col % len(cols[t])]
        r = row % rows[t] + 1 if rows[t] else 1
        print(f'{i:2}: {OPS[op % 24]:22} {t}.{c} rowid {r}: {KINDS[kind % 17]} '
              f'aux {aux} value {value.hex()}')


def make(base, out, edits, base_index=0, options=3, byte2=0, byte3=0):
    tables, cols, _ = schema(base)
    data = bytes([base_index, options, byte2, byte3])
    for e in edits:
        op, t, c, row, kind, aux, value = e.split(':')
        v = (bytes.fromhex(value[2:]) if value.startswith('0x')
             else struct.pack('<q', int(value)))
        data += struct.pack('<BBBHBH', int(op), tables.index(t), cols[t].index(c), int(row),
                            int(kind), int(aux)) + v.ljust(8, b'\0')[:8]
    with open(out, 'wb') as f:
        f.write(data)


def main(argv):
    if len(argv) >= 4 and argv[1] == 'explain':
        explain(argv[2], open(argv[3], 'rb').read())
    elif len(argv) >= 5 and argv[1] == 'make':
        args, opts = [], {'--base-index': 0, '--options': 3, '--byte2': 0, '--byte3': 0}
        it = iter(argv[4:])
        for a in it:
            if a in opts:
                opts[a] = int(next(it), 0)
            else:
                args.append(a)
        make(argv[2], argv[3], args, opts['--base-index'], opts['--options'], opts['--byte2'],
             opts['--byte3'])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
