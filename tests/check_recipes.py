#!/usr/bin/env python3
"""check_recipes.py NSYS_PERFETTO CORPUS_DIR WORKDIR [--as-reports] [JOB[/RECIPE]]...

`nsys-perfetto recipe` against `nsys recipe` 2023.4: for every job and recipe of
tests/recipe_golden_2023 (made by tools/make_recipe_goldens.py; docs/recipes.md)
whose recipe `nsys-perfetto recipe --list` prints, it unpacks the job's corpus
reports into WORKDIR, runs

  nsys-perfetto recipe NAME --output WORKDIR/out/JOB/NAME [options of args.txt] REPORT.sqlite...

(for diff: the base recipe on each side first, then `recipe diff --output OUT SIDE1 SIDE2`)
and compares each golden table cell for cell with ours: same header, same rows in
the same order, every cell the same text (NVIDIA prints numbers as pandas does, and
so must we). A golden STEM.big (a table too large to keep) is compared by its row
count, its first rows and the sha256 of all its cells. A recipe for which nsys wrote
nothing (nodata.txt) must end with nsys's exit status and write no table. A missing
or extra table fails.

--as-reports gives ours each report as a .nsys-rep instead, exported by a stand-in
for nsys 2023.4 (FAKE_NSYS below) that, as nsys does, writes only the tables
`--tables` names: every recipe must ask for the tables it reads
(nsysp_recipe_export_tables) and give the same tables from them.

Recipes `--list` does not print are reported as not implemented yet and do not fail.
Exits 77 (skipped) without the corpus or while the binary has no recipe command.
"""
import csv
import io
import os
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sql_golden as sg  # noqa: E402
from testlib import expect, finish  # noqa: E402

GOLDEN = os.path.join(HERE, 'recipe_golden_2023')
# Until the recipe command is merged a binary without it skips; afterwards it must fail.
SKIP_WITHOUT_COMMAND = False
MAX_DIFFS_PER_TABLE = 5


def read_kv(path):
    """args.txt / nodata.txt: 'key: value' lines (a key may repeat; the last wins)."""
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip('\n').partition(': ')
            out[k] = v
    return out


def read_rows(path):
    with open(path, newline='') as f:
        return list(csv.reader(f))


def cells_digest(rows):
    """As tools/make_recipe_goldens.py: sha256 of cells joined by US, rows ended by LF."""
    import hashlib
    h = hashlib.sha256()
    for r in rows:
        h.update(('\x1f'.join(r) + '\n').encode())
    return h.hexdigest()


def read_big(path):
    """A STEM.big golden: (rows, sha256, head rows with header)."""
    with open(path, newline='') as f:
        text = f.read()
    meta, _, head = text.partition('head:\n')
    kv, chunks = {}, []
    for line in meta.splitlines():
        k, _, v = line.partition(': ')
        if k == 'chunk':
            first, digest = v.split()
            chunks.append((int(first), digest))
        else:
            kv[k] = v
    return int(kv['rows']), kv['sha256'], chunks, list(csv.reader(io.StringIO(head, newline='')))


def compare_rows(where, nsys_rows, our_rows, limit=None):
    """Header, row count and cells; prints at most MAX_DIFFS_PER_TABLE cell differences."""
    if not expect(bool(our_rows), f'{where}: empty file'):
        return
    header = nsys_rows[0]
    if not expect(our_rows[0] == header, f'{where}: header\n  ours: {our_rows[0]}\n  nsys: {header}'):
        return
    ours, theirs = our_rows[1:], nsys_rows[1:]
    if limit is None:
        expect(len(ours) == len(theirs), f'{where}: {len(ours)} rows, nsys {len(theirs)}')
    n = min(len(ours), len(theirs))
    shown = 0
    for i in range(n):
        if ours[i] == theirs[i]:
            continue
        if len(ours[i]) != len(theirs[i]):
            expect(False, f'{where}: row {i + 1}: {len(ours[i])} cells, nsys {len(theirs[i])}')
        else:
            for col, (a, b) in enumerate(zip(ours[i], theirs[i])):
                if a != b:
                    expect(False, f'{where}: row {i + 1}, column {header[col]!r}: ours {a!r}, nsys {b!r}')
                    break
        shown += 1
        if shown >= MAX_DIFFS_PER_TABLE:
            print(f'  ({where}: further differing rows not shown)')
            break


def compare_outputs(where, golden_dir, out_dir):
    golden = sorted(n for n in os.listdir(golden_dir) if n.endswith(('.csv', '.big')))
    ours = sorted(n for n in os.listdir(out_dir) if n.endswith('.csv')) if os.path.isdir(out_dir) else []
    expected = {os.path.splitext(n)[0] + '.csv' for n in golden}
    for extra in sorted(set(ours) - expected):
        expect(False, f'{where}/{extra}: written, but nsys writes no such table')
    for name in golden:
        stem = os.path.splitext(name)[0]
        ours_path = os.path.join(out_dir, stem + '.csv')
        if not expect(os.path.exists(ours_path), f'{where}/{stem}.csv: missing'):
            continue
        our_rows = read_rows(ours_path)
        if name.endswith('.csv'):
            compare_rows(f'{where}/{name}', read_rows(os.path.join(golden_dir, name)), our_rows)
            continue
        rows, digest, chunks, head = read_big(os.path.join(golden_dir, name))
        compare_rows(f'{where}/{stem}.csv', head, our_rows[:len(head)], limit=len(head) - 1)
        expect(len(our_rows) - 1 == rows, f'{where}/{stem}.csv: {len(our_rows) - 1} rows, nsys {rows}')
        if cells_digest(our_rows) == digest:
            continue
        ends = [c[0] for c in chunks[1:]] + [rows + 1]
        bad = [f'{first}-{end - 1}' for (first, d), end in zip(chunks, ends)
               if cells_digest(our_rows[first:end]) != d]
        expect(False, f'{where}/{stem}.csv: cells differ from nsys\'s in rows {", ".join(bad[:5]) or "?"} '
                      f'(nsys keeps only the first {len(head) - 1} rows here: '
                      'tools/make_recipe_goldens.py --keep DIR writes them all)')


NOT_COMPARABLE = []


# nsys 2023.4's export as far as the recipes see it: `export --help` names
# --tables; `export ... --tables P,... --output OUT REPORT` writes only the
# tables whose whole name matches a pattern (case-insensitive), rows and all.
# Here a "report" is an SQLite export under a .nsys-rep name. Each call's
# patterns are logged, one line each.
FAKE_NSYS = """#!%s
import os, re, sqlite3, sys
args = sys.argv[1:]
if args[:2] == ["export", "--help"]:
    print("\t--tables=<pattern>[,<pattern>...]")
    sys.exit(0)
patterns = args[args.index("--tables") + 1].split(",") if "--tables" in args else None
with open(os.environ["FAKE_NSYS_CALLS"], "a") as f:
    f.write((",".join(patterns) if patterns else "-") + "\\n")
out = args[args.index("--output") + 1]
db = sqlite3.connect(out)
db.execute("ATTACH ? AS report", ("file:" + args[-1] + "?mode=ro",))
for name, sql in db.execute("SELECT name, sql FROM report.sqlite_master WHERE type = 'table'").fetchall():
    if patterns is None or any(re.fullmatch(p, name, re.I) for p in patterns):
        db.execute(sql)
        db.execute('INSERT INTO main."%%s" SELECT * FROM report."%%s"' %% (name, name))
db.commit()
""" % sys.executable


def as_reports(work, reports):
    """Each SQLite export as WORK/reps/STEM.nsys-rep (a link to it), nothing beside."""
    reps = os.path.join(work, 'reps')
    os.makedirs(reps, exist_ok=True)
    out = []
    for r in reports:
        rep = os.path.join(reps, os.path.basename(r)[:-len('.sqlite')] + '.nsys-rep')
        if not os.path.lexists(rep):
            os.symlink(os.path.abspath(r), rep)
        out.append(rep)
    return out


def in_nsys_order(stems):
    """The job's reports in the order nsys read them: it lists its input
    folder's STEM.nsys-rep files sorted by name (ours reads them in the
    order given)."""
    return sorted(stems.split(), key=lambda s: s + '.nsys-rep')


AS_REPORTS = None  # the environment that gives ours the stand-in nsys, with --as-reports


def run_recipe(nsysp, recipe, out, options, inputs):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    if AS_REPORTS and recipe != 'diff':  # diff reads two outputs, no report
        inputs = as_reports(os.path.dirname(AS_REPORTS['FAKE_NSYS_CALLS']), inputs)
    cmd = [nsysp, 'recipe', recipe, '--output', out, *options, *inputs]
    return subprocess.run(cmd, capture_output=True, text=True, env=AS_REPORTS), cmd


def check_one(nsysp, work, job, recipe):
    gdir = os.path.join(GOLDEN, job, recipe)
    where = f'{job}/{recipe}'
    args = read_kv(os.path.join(gdir, 'args.txt'))
    options = shlex.split(args.get('options', ''))
    out = os.path.join(work, 'out', job, recipe)
    if recipe == 'diff':
        sides = []
        for i in (1, 2):
            side_out = os.path.join(work, 'out', job, f'diff-{args["diff_of"]}{i}')
            reports = [sg.unpacked(s, work) for s in in_nsys_order(args[f'inputs{i}'])]
            p, cmd = run_recipe(nsysp, args['diff_of'], side_out, [], reports)
            if not expect(p.returncode == 0, f'{where}: {shlex.join(cmd)}: exit {p.returncode}: '
                                             f'{p.stderr.strip()[-500:]}'):
                return
            sides.append(side_out)
        p, cmd = run_recipe(nsysp, 'diff', out, options, sides)
    else:
        reports = [sg.unpacked(s, work) for s in in_nsys_order(args['inputs'])]
        p, cmd = run_recipe(nsysp, recipe, out, options, reports)
    nodata = os.path.join(gdir, 'nodata.txt')
    if os.path.exists(nodata) and 'Failed to export' in open(nodata).read() and \
            p.returncode == 0 and os.path.isdir(out) and any(n.endswith('.csv') for n in os.listdir(out)):
        # nsys wanted a table this export lacks and tried to export the
        # stand-in .nsys-rep: where we find data it says nothing either way.
        NOT_COMPARABLE.append(where)
        return
    if os.path.exists(nodata):
        status = int(read_kv(nodata)['status'])
        expect(p.returncode == status, f'{where}: exit {p.returncode} where nsys, finding no data, '
                                       f'exits {status}: {p.stderr.strip()[-500:]}')
        tables = [n for n in os.listdir(out) if n.endswith('.csv')] if os.path.isdir(out) else []
        expect(not tables, f'{where}: wrote {", ".join(sorted(tables))} where nsys finds no data')
        return
    if not expect(p.returncode == int(args.get('status', 0)),
                  f'{where}: {shlex.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[-500:]}'):
        return
    compare_outputs(where, gdir, out)


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    nsysp, corpus, work = argv[:3]
    only = [a for a in argv[3:] if a != '--as-reports']
    global AS_REPORTS
    if '--as-reports' in argv[3:]:
        fake = os.path.join(work, 'fake-nsys')
        os.makedirs(work, exist_ok=True)
        with open(fake, 'w') as f:
            f.write(FAKE_NSYS)
        os.chmod(fake, 0o755)
        AS_REPORTS = dict(os.environ, NSYS=fake, FAKE_NSYS_CALLS=os.path.join(work, 'nsys-calls'))
        if os.path.exists(AS_REPORTS['FAKE_NSYS_CALLS']):
            os.remove(AS_REPORTS['FAKE_NSYS_CALLS'])
    if not os.path.isdir(corpus) or not os.path.isdir(GOLDEN):
        print(f'skip: no corpus at {corpus} or no goldens')
        return 77
    sg.CORPUS = corpus
    p = subprocess.run([nsysp, 'recipe', '--list'], capture_output=True, text=True)
    if p.returncode != 0:
        if SKIP_WITHOUT_COMMAND:
            print('skip: recipe command not built')
            return 77
        expect(False, f'nsys-perfetto recipe --list: exit {p.returncode}: {p.stderr.strip()}')
        finish()
    implemented = set(p.stdout.split())
    os.makedirs(work, exist_ok=True)
    not_yet = set()
    checked = 0
    for job in sorted(os.listdir(GOLDEN)):
        if not os.path.isdir(os.path.join(GOLDEN, job)):
            continue
        for recipe in sorted(os.listdir(os.path.join(GOLDEN, job))):
            if only and job not in only and f'{job}/{recipe}' not in only:
                continue
            if recipe not in implemented:
                not_yet.add(recipe)
                continue
            check_one(nsysp, work, job, recipe)
            checked += 1
    if AS_REPORTS:
        with open(AS_REPORTS['FAKE_NSYS_CALLS']) as f:
            calls = f.read().splitlines()
        whole = [c for c in calls if c == '-']
        expect(calls and not whole, f'every export asked for only its tables: {len(calls)} '
                                    f'exports, {len(whole)} of every table')
        print(f'{len(calls)} exports, each of only the tables its recipe reads')
    if not_yet:
        print(f'not implemented yet: {" ".join(sorted(not_yet))}')
    if NOT_COMPARABLE:
        print(f'not comparable (nsys found no data only because it could not export a table this '
              f'export lacks from the stand-in report): {" ".join(NOT_COMPARABLE)}')
    finish(f'differences from nsys recipe 2023.4 ({checked} job/recipe pairs checked)',
           f'{checked} job/recipe pairs equal nsys recipe 2023.4' + (
               f'; {len(not_yet)} recipes not implemented yet' if not_yet else ''))


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
