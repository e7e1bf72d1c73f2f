#!/usr/bin/env python3
"""check_kineto_json.py NSYS_PERFETTO NSYS_FIXTURE TRACE_PROCESSOR_SHELL WORKDIR [CORPUS_DIR...]

--format kineto (issue 33) against the protobuf trace of the same report:

1. Per report (every report of each CORPUS_DIR and CORPUS_DIR/local when given,
   else two written here with
   nsys-fixture: every table, kernels overlapping on their streams, negative
   timestamps, graphs, start/end NVTX, also filtered: --gpu with
   --time-range, --pid with --sources; and one with hostile names: bytes
   that are not UTF-8, quotes, backslashes, control characters):
   - both traces import into trace_processor (Perfetto v58.2 imports Chrome
     JSON too) with no error stat;
   - their slices agree per category, name: count and total duration, our
     categories named as Kineto names them (memcpy is gpu_memcpy, NVTX ranges
     user_annotation or cpu_op, ...), summed over the rank files;
   - every kernel, copy and set keeps its exact nanoseconds (ts and dur,
     one list against the other), and the flows are as many;
   - every file is strict JSON (Python's json, gzip), opens with
     distributedInfo {"rank": N, "world_size": W} (with the space HTA's
     pattern needs) and writes ts and dur with three decimals.
2. Names and ranks: a 2-process report gives two files, REPORT.rank0.json.gz
   and .rank1, ranked as `ranks` ranks them; -o DIR/ puts them in DIR;
   -o x.json writes plain JSON; a bad input writes nothing and exits non-zero.

Exits 77 when trace_processor_shell, or the corpus given, is missing.
"""
import collections
import contextlib
import glob
import io
import multiprocessing
import gzip
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sql_golden as sg  # noqa: E402

NSYSP, FIXTURE, TP, WORK = sys.argv[1:5]
CORPUS_DIRS = sys.argv[5:]

# Our categories as Kineto names them (the JSON side of the comparison).
KINETO_CATEGORY = {
    'memcpy': 'gpu_memcpy', 'memset': 'gpu_memset', 'sync': 'cuda_sync', 'nvtx': 'user_annotation',
    'nvtx_gpu': 'gpu_user_annotation',
}
ERRORS_SQL = "select name, value from stats where severity in ('error', 'data_loss') and value > 0"
SLICES_SQL = 'select category, name, count(*) as n, sum(dur) as d from slice group by 1, 2'
GPU_SQL = ("select category, name, ts, dur from slice where category in "
           "('kernel', 'memcpy', 'memset', 'gpu_memcpy', 'gpu_memset') order by ts, dur, name")
FLOWS_SQL = 'select count(*) as n from flow'

from testlib import expect, failures  # noqa: E402

def run(args, ok=True):
    p = subprocess.run(args, capture_output=True, text=True)
    if ok and p.returncode != 0:
        raise RuntimeError(f'{args}: exit {p.returncode}: {p.stderr[-2000:]}')
    return p


def query(trace):
    return sg.tp_queries(trace, [ERRORS_SQL, SLICES_SQL, GPU_SQL, FLOWS_SQL], tp=TP)


def json_category(cat):
    return 'user_annotation' if cat == 'cpu_op' else cat


def check_file_text(path):
    """Strict JSON, Kineto's header, three decimals."""
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rb') as f:
        raw = f.read()
    text = raw.decode('utf-8')  # strict: any byte that is not UTF-8 fails here
    doc = json.loads(text)
    info = doc.get('distributedInfo', {})
    expect(isinstance(info.get('rank'), int) and isinstance(info.get('world_size'), int),
           f'{path}: distributedInfo {info}')
    expect(re.search(r'"rank": \d+', text[:4096]) is not None, f'{path}: "rank": N as HTA reads it')
    expect('deviceProperties' in doc, f'{path}: deviceProperties')
    for e in doc['traceEvents'][:2000]:
        if e.get('ph') == 'X':
            expect(isinstance(e['pid'], int) and isinstance(e['tid'], int), f'{path}: integer ids {e}')
    stamps = re.findall(r'"(?:ts|dur)":(-?[0-9.]+)[,}]', text[:1 << 20])
    expect(all(re.fullmatch(r'\d+\.\d{3}', s) for s in stamps),
           f'{path}: ts and dur with three decimals')
    return doc


def compare(name, report, extra=()):
    """Converts report both ways and compares what trace_processor imports."""
    out = os.path.join(WORK, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    pt = os.path.join(out, 'trace.perfetto-trace')
    run([NSYSP, '-q', *extra, '-o', pt, report])
    run([NSYSP, '-q', '--format', 'kineto', *extra, '-o', out + '/json/', report])
    files = sorted(glob.glob(os.path.join(out, 'json', '*.json.gz')))
    expect(files, f'{name}: no JSON written')
    errors, slices, gpu, flows = query(pt)
    want = {(r['category'], r['name']): (r['n'], r['d']) for r in slices}
    got = collections.Counter()
    got_dur = collections.Counter()
    got_gpu, got_flows = [], 0
    for f in files:
        check_file_text(f)
        e, s, g, fl = query(f)
        expect(not e, f'{name}: {os.path.basename(f)} imports with errors {e}')
        for r in s:
            key = (json_category(r['category']), r['name'])
            got[key] += r['n']
            got_dur[key] += r['d'] or 0
        got_gpu += g
        got_flows += fl[0]['n'] if fl else 0
    mapped = {}
    for (cat, n), v in want.items():
        key = (KINETO_CATEGORY.get(cat, json_category(cat)), n)
        a = mapped.get(key, (0, 0))
        mapped[key] = (a[0] + v[0], a[1] + (v[1] or 0))
    for key in sorted(set(mapped) | set(got), key=str):
        w = mapped.get(key, (0, 0))
        g = (got.get(key, 0), got_dur.get(key, 0))
        expect(w == g, f'{name}: {key}: protobuf {w} (count, ns), JSON {g}')
    strip = lambda rows: sorted((r['name'], r['ts'], r['dur']) for r in rows)  # noqa: E731
    expect(strip(gpu) == strip(got_gpu), f'{name}: GPU work ts/dur differ (exact ns)')
    expect((flows[0]['n'] if flows else 0) == got_flows, f'{name}: flows {flows} vs {got_flows}')
    n_slices = sum(v[0] for v in want.values())
    print(f'{name}: {len(files)} file(s), {n_slices} slices in {len(want)} (category, name) '
          f'pairs agree, {len(gpu)} GPU operations exact, {got_flows} flows')
    return files


def compare_corpus_report(gz):
    """compare() for one corpus report, in a worker: what it printed, and
    its failures."""
    del failures[:]  # this worker's, from its report before
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        db = sg.unpacked(gz, WORK)
        compare(sg.stem_of(gz)[:60], db)
        os.remove(db)
    return out.getvalue(), list(failures)


def hostile_report(path):
    """A fixture with names no JSON writer may pass through as they are."""
    run([FIXTURE, '--events', '3000', '--nvtx', path])
    import sqlite3
    db = sqlite3.connect(path)
    bad = [b'bad \xff\xfe utf-8', b'quote " back \\ slash', b'ctl \x01\x1f tab\t nl\n',
           b'cut \xe2\x82', 'snow \u2603 ok'.encode()]
    ids = [r[0] for r in db.execute('select id from StringIds order by id limit 40')]
    for i, sid in enumerate(ids):
        # CAST keeps the bytes as TEXT, invalid UTF-8 included, as a report can hold them.
        db.execute('update StringIds set value = CAST(? AS TEXT) where id = ?',
                   (bad[i % len(bad)], sid))
    db.commit()
    db.close()


def main():
    if not os.path.exists(TP):
        print('SKIP: trace_processor_shell missing')
        return 77
    if CORPUS_DIRS:
        reports = sorted(f for d in CORPUS_DIRS for f in glob.glob(os.path.join(d, '*.sqlite.gz')) +
                         glob.glob(os.path.join(d, 'local', '*.sqlite.gz')))
        if not reports:
            print(f'SKIP: no corpus in {" ".join(CORPUS_DIRS)}')
            return 77
        os.makedirs(WORK, exist_ok=True)
        # Largest first, on every CPU: the reports are independent, and CI's
        # minutes are few.
        reports.sort(key=os.path.getsize, reverse=True)
        with multiprocessing.Pool(min(os.cpu_count() or 1, 8)) as pool:
            for lines, failed in pool.imap_unordered(compare_corpus_report, reports):
                print(lines, end='')
                failures.extend(failed)
        return finish()
    os.makedirs(WORK, exist_ok=True)
    fixture = os.path.join(WORK, 'fixture.sqlite')
    run([FIXTURE, '--events', '20000', '--overlap-pct', '20', '--negative-ts', '--graphs', '3',
         '--graph-trace', '--nvtx', '--osrt', '--sched', '4', '--samples', '500', '--all-tables',
         '--nvtx-stream-names', fixture])
    compare('fixture_every_table_overlapping', fixture)
    compare('fixture_filtered', fixture, ['--gpu', '1', '--time-range', '0:5ms'])
    pid = json.loads(run([NSYSP, 'ranks', '--format', 'json', fixture]).stdout)['ranks'][1]['pid']
    compare('fixture_one_process_some_sources', fixture,
            ['--pid', str(pid), '--sources', 'kernel,cuda-api,memcpy,nvtx,osrt'])

    # Names: two processes, two ranks; plain JSON; nothing on bad input.
    two = os.path.join(WORK, 'two.sqlite')
    run([FIXTURE, '--events', '2000', '--processes', '2', two])
    for f in glob.glob(os.path.join(WORK, 'two*.json*')):
        os.remove(f)
    run([NSYSP, '-q', '--format', 'kineto', two])
    made = sorted(os.path.basename(f) for f in glob.glob(os.path.join(WORK, 'two*.json*')))
    expect(made == ['two.rank0.json.gz', 'two.rank1.json.gz'], f'rank files: {made}')
    ranks = json.loads(run([NSYSP, 'ranks', '--format', 'json', two]).stdout)['ranks']
    for r in ranks:
        with gzip.open(os.path.join(WORK, f'two.rank{r["rank"]}.json.gz')) as f:
            doc = json.load(f)
        pids = {e['pid'] for e in doc['traceEvents'] if e.get('cat') == 'cuda_runtime'}
        expect(pids == {r['pid']}, f'rank {r["rank"]}: its file holds pid {r["pid"]}: {pids}')
        expect(doc['distributedInfo'] == {'rank': r['rank'], 'world_size': 2},
               f'rank {r["rank"]}: {doc["distributedInfo"]}')
    plain = os.path.join(WORK, 'plain.json')
    run([NSYSP, '-q', '--format', 'kineto', '--pid', str(ranks[0]['pid']), '-o', plain, fixture])
    with open(plain) as f:
        expect(json.load(f)['traceEvents'], 'plain .json output')
    bad = os.path.join(WORK, 'bad.sqlite')
    with open(bad, 'wb') as f:
        f.write(b'SQLite format 3\0' + b'\0' * 100)
    p = run([NSYSP, '--format', 'kineto', '-o', os.path.join(WORK, 'bad.json.gz'), bad], ok=False)
    expect(p.returncode != 0 and len(p.stderr.strip().splitlines()) == 1,
           f'bad input: exit {p.returncode}, {p.stderr!r}')
    expect(not glob.glob(os.path.join(WORK, 'bad.json*')), 'bad input left output')

    hostile = os.path.join(WORK, 'hostile.sqlite')
    hostile_report(hostile)
    compare('hostile_names', hostile)
    return finish()


def finish():
    if failures:
        print(f'{len(failures)} failure(s)')
        return 1
    print('all agree')
    return 0


if __name__ == '__main__':
    sys.exit(main())
