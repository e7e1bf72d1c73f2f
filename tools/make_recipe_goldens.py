#!/usr/bin/python3
"""make_recipe_goldens.py [--nsys NSYS] [--job NAME]... [--recipe NAME]... [--keep DIR]

Makes tests/recipe_golden_2023: what `nsys recipe` (Nsight Systems 2023.4) writes for
each of its 28 recipes on a few jobs of corpus reports, as the goldens that
tests/check_recipes.py compares `nsys-perfetto recipe` with.

For each job (JOBS below: a name and corpus report stems) it makes an input folder
holding, per report, an empty STEM.nsys-rep and, a second later, a copy of the
corpus STEM.sqlite (nsys then reads the newer .sqlite instead of exporting), runs

  nsys recipe NAME --input DIR --output OUT [--csv] [fixed options]

one recipe at a time, and keeps under tests/recipe_golden_2023/JOB/NAME/:

  *.csv        every CSV nsys wrote, as written;
  STEM.csv     every table nsys wrote only as Parquet (STEM.parquet), read back with
               the pyshim's reader and written with pandas' DataFrame.to_csv, so floats
               print as pandas prints them; the index is written only when it is a
               named one (nsys stores it as a column then), a default RangeIndex is not
               a column of the Parquet file and is left out;
  STEM.big     instead of STEM.csv when that CSV is over BIG_BYTES: rows, sha256 of its
               cells (see cells_digest), the sha256 of each CHUNK_ROWS rows (to say
               where a difference is) and its first HEAD_ROWS rows as CSV;
  args.txt     'key: value' lines: command (nsys's, with IN/OUT for the folders),
               options (what to pass besides inputs/output), inputs (report stems),
               status (nsys's exit status), input_note (how a report's copy was made
               readable to nsys 2023.4, see as_current_export), and for diff:
               diff_of, inputs1, inputs2;
  nodata.txt   when nsys wrote no folder: its exit status and its messages.

Notebooks, .nsys-analysis files and nsys_display.py/nsys_pres.py are not kept.
Timings (seconds per recipe per job, nsys's wall time) go to timings.tsv there.

Runs with Debian's /usr/bin/python3 (pandas); nsys 2023.4 is found as
../shared/tools/install-nsys-2023 installs it (or --nsys / $NSYS23).
"""
import argparse
import csv
import gzip
import hashlib
import io
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SHARED = os.environ.get('NSYSP_SHARED', os.path.join(os.path.dirname(REPO), 'shared'))
CORPUS = os.path.join(SHARED, 'corpus')
PYSHIM = os.path.join(SHARED, 'tools', 'nsys-2023-pyshim')
GOLDEN = os.path.join(REPO, 'tests', 'recipe_golden_2023')
NSYS23_DEFAULT = os.path.expanduser('~/.cache/nsys-perfetto-tools/nsys-2023.4/bin/nsys')

RECIPES = ['cuda_api_sum', 'cuda_api_sync', 'cuda_gpu_kern_pace', 'cuda_gpu_kern_sum',
           'cuda_gpu_mem_size_sum', 'cuda_gpu_mem_time_sum', 'cuda_gpu_time_util_map',
           'cuda_memcpy_async', 'cuda_memcpy_sync', 'cuda_memset_sync', 'diff', 'dx12_mem_ops',
           'gpu_gaps', 'gpu_metric_util_map', 'gpu_time_util', 'mpi_gpu_time_util_map', 'mpi_sum',
           'nccl_gpu_proj_sum', 'nccl_gpu_time_util_map', 'nccl_sum', 'nic_metric_map',
           'nvtx_gpu_proj_pace', 'nvtx_gpu_proj_sum', 'nvtx_gpu_proj_trace', 'nvtx_pace',
           'nvtx_sum', 'osrt_sum', 'ucx_gpu_time_util_map']
# Recipes that take --csv (they write their tables as Parquet and CSV).
CSV_RECIPES = {'cuda_api_sum', 'cuda_gpu_kern_sum', 'cuda_gpu_mem_size_sum', 'cuda_gpu_mem_time_sum',
               'diff', 'mpi_sum', 'nccl_gpu_proj_sum', 'nccl_sum', 'nvtx_gpu_proj_sum', 'nvtx_sum',
               'osrt_sum'}
# The tables recipes read as Parquet (nsys_recipe.data_service.DataService.read_tables).
PARQUET_TABLES = ['ANALYSIS_DETAILS', 'CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY',
                  'CUPTI_ACTIVITY_KIND_MEMSET', 'CUPTI_ACTIVITY_KIND_RUNTIME', 'GENERIC_EVENTS',
                  'MPI_COLLECTIVES_EVENTS', 'MPI_OTHER_EVENTS', 'MPI_P2P_EVENTS', 'MPI_START_WAIT_EVENTS',
                  'NET_NIC_METRIC', 'NIC_ID_MAP', 'NVTX_EVENTS', 'StringIds', 'TARGET_INFO_GPU',
                  'TARGET_INFO_NETWORK_METRICS', 'TARGET_INFO_SESSION_START_TIME', 'UCP_EVENTS',
                  'UCP_PROGRESS_EVENTS', 'UCP_SUBMIT_EVENTS', 'GPU_METRICS', 'TARGET_INFO_GPU_METRICS']
# What nsys writes beside the tables.
NOT_TABLES = ('.ipynb', '.nsys-analysis', '.py')

BIG_BYTES = 256 * 1024
HEAD_ROWS = 40
CHUNK_ROWS = 1000

GPUBOOTCAMP_MPI = ('openhackathons-org__gpubootcamp__hpc__multi_gpu_nways__labs__CFD__English__C__'
                   'source_code__mpi__reports__')
# Each job: the reports it runs on (one run's ranks where the corpus has them) and, where
# the automatic choice (pick_kernel, pick_range) is poor, the pace names.
JOBS = [
    # Three nvFuser test reports on H200 (NVTX ranges around kernels): per-file statistics.
    dict(name='fuser_h200', reports=['NVIDIA__Fuser__report1__5d8607e8', 'NVIDIA__Fuser__report2',
                                     'NVIDIA__Fuser__report3']),
    # One MPI Jacobi run, three ranks' reports (NVTX, memcpy, kernels, 2020.5 captures).
    dict(name='jacobi_mpi', reports=[GPUBOOTCAMP_MPI + 'report1.qdrep', GPUBOOTCAMP_MPI + 'report2.qdrep',
                                     GPUBOOTCAMP_MPI + 'report4.qdrep']),
    # A 2-GPU training step before and after an optimisation (NCCL kernels, NVTX, 2026.2).
    dict(name='mfu_2gpu', reports=['GindaChen__nsys-ai__tests__fixtures__mfu_2gpu_before',
                                   'GindaChen__nsys-ai__tests__fixtures__mfu_2gpu_after'],
         diff=('cuda_gpu_kern_sum', ['GindaChen__nsys-ai__tests__fixtures__mfu_2gpu_before'],
               ['GindaChen__nsys-ai__tests__fixtures__mfu_2gpu_after'])),
    # Alpa (JAX) on 2 GPUs: the corpus's only GPU report with NCCL's own NVTX domain.
    dict(name='alpa_nccl', reports=['Yu-gyoung-Yun__alpa__report1.nsys-rep']),
    # Two small single-GPU programs with synchronous memcpy and memset and long GPU gaps.
    dict(name='sync_gaps', reports=['Yandong-Luo__parallel_diff_evolution__report2.qdrep',
                                    'MohanadOdema__DLProf__nsys_profile.nsys-rep']),
    # ICON on CPU and one rank: OS runtime, no CUDA.
    dict(name='icon_osrt', reports=['NTHU-SC__ISC25-ICON-C__nsys_reports__cpu',
                                    'NTHU-SC__ISC25-ICON-C__nsys_reports__rank_']),
    # cuDF (2020.3 capture): NVTX domains, OS runtime, kernels, memcpy, one report.
    dict(name='cudf', reports=['quasiben__nvtx-examples__cudf.qdrep']),
]


def corpus_gz(stem):
    for d in (CORPUS, os.path.join(CORPUS, 'local')):
        p = os.path.join(d, stem + '.sqlite.gz')
        if os.path.exists(p):
            return p
    raise SystemExit(f'{stem}: not in {CORPUS}')


def sqlite_to_parquet_dir(db, pqt_dir):
    """What `nsys export --type parquetdir --tables ...` would write for the tables recipes
    read through DataService.read_tables: TABLE.parquet per table the report has, its
    columns as pandas reads them from SQLite (integers with NULLs as float64, as pyarrow's
    to_pandas gives them), written with the pyshim's Parquet writer."""
    sys.path.insert(0, PYSHIM)
    import _miniparquet  # noqa: E402
    import pandas as pd  # noqa: E402
    os.makedirs(pqt_dir)
    con = sqlite3.connect(f'file:{db}?mode=ro', uri=True)
    try:
        have = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for table in PARQUET_TABLES:
            if table not in have:
                continue
            df = pd.read_sql_query(f'SELECT * FROM "{table}"', con)
            for cid, col, ctype, *_ in con.execute(f'PRAGMA table_info("{table}")'):
                if df[col].dtype == object and ctype.upper() in ('INTEGER', 'REAL', 'INT'):
                    df[col] = df[col].astype('float64')
            _miniparquet.write(df, os.path.join(pqt_dir, table + '.parquet'), write_index=False)
    finally:
        con.close()


def as_current_export(db):
    """nsys 2023.4's stats scripts refuse an export made before green contexts (no
    greenContextId column) and then try to re-export the .nsys-rep, which a real report
    would allow: the copy gets a NULL greenContextId, as tests/sql_golden.py does for
    `nsys stats`. Returns the note saying so, or None."""
    sys.path.insert(0, os.path.join(REPO, 'tests'))
    import sql_golden  # noqa: E402
    return sql_golden._patch(db, 'greenContextId')


def make_input_dir(path, stems):
    """An input folder nsys recipe reads: empty STEM.nsys-rep, then, newer, STEM.sqlite (read
    by the recipes built on nsys stats) and STEM_pqtdir/ (read by the others); nsys would
    export both from a real .nsys-rep. A pristine copy of both is kept in PATH.keep/."""
    os.makedirs(path + '.keep')
    os.makedirs(path)
    notes = []
    for s in stems:
        open(os.path.join(path, s + '.nsys-rep'), 'w').close()
    time.sleep(1.1)
    for s in stems:
        db = os.path.join(path + '.keep', s + '.sqlite')
        with gzip.open(corpus_gz(s)) as i, open(db, 'wb') as o:
            shutil.copyfileobj(i, o, 1 << 20)
        note = as_current_export(db)
        if note:
            notes.append(f'{s}: {note}')
        sqlite_to_parquet_dir(db, os.path.join(path + '.keep', s + '_pqtdir'))
    restore_input_dir(path, stems)
    return notes


def restore_input_dir(path, stems):
    """Puts back what a recipe removed: when a table is missing, nsys's recipes export the
    .nsys-rep again with --force-overwrite, which deletes the .sqlite before failing on the
    empty .nsys-rep. Copies are newer than the .nsys-rep, as nsys requires."""
    for s in stems:
        for name in (s + '.sqlite', s + '_pqtdir'):
            dst, src = os.path.join(path, name), os.path.join(path + '.keep', name)
            if os.path.isdir(src):
                if not os.path.isdir(dst) or sorted(os.listdir(dst)) != sorted(os.listdir(src)):
                    shutil.rmtree(dst, ignore_errors=True)
                    shutil.copytree(src, dst)
            elif not os.path.exists(dst) or os.path.getsize(dst) != os.path.getsize(src):
                shutil.copyfile(src, dst)


def _query_counts(db, sql):
    con = sqlite3.connect(f'file:{db}?mode=ro', uri=True)
    try:
        return dict(con.execute(sql).fetchall())
    except sqlite3.Error:
        return {}
    finally:
        con.close()


def _pick(per_report):
    """The name found in every report with the highest smallest count, preferring one
    seen 3 to 500 times (pace tables have a row per instance); ties by name."""
    common = set.intersection(*(set(c) for c in per_report)) if per_report else set()
    scored = [(min(c[n] for c in per_report), n) for n in common]
    good = [x for x in scored if 3 <= x[0] <= 500] or [x for x in scored if x[0] >= 2] or scored
    if not good:
        return None
    return sorted(good, key=lambda x: (-x[0], x[1]))[0][1]


def pick_kernel(dbs):
    return _pick([_query_counts(db, 'SELECT s.value, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k '
                                    'JOIN StringIds s ON s.id = k.shortName GROUP BY 1') for db in dbs])


def pick_range(dbs):
    """A push/pop or start/end range name (NVTX_EVENTS text or textId) in every report."""
    return _pick([_query_counts(db, 'SELECT coalesce(e.text, s.value), count(*) FROM NVTX_EVENTS e '
                                    'LEFT JOIN StringIds s ON s.id = e.textId '
                                    'WHERE e.eventType IN (59, 60) AND e.end IS NOT NULL '
                                    'AND coalesce(e.text, s.value) IS NOT NULL GROUP BY 1') for db in dbs])


def cells_digest(rows):
    """sha256 of parsed CSV rows (cells joined by US, rows ended by LF): quoting-independent."""
    h = hashlib.sha256()
    for r in rows:
        h.update(('\x1f'.join(r) + '\n').encode())
    return h.hexdigest()


def parquet_to_csv_text(path):
    sys.path.insert(0, PYSHIM)
    import _miniparquet  # noqa: E402 (the pyshim's reader; pandas lacks a Parquet engine here)
    df = _miniparquet.read(path)
    named_index = any(n is not None for n in df.index.names)
    return df.to_csv(index=named_index)


def store_table(text, dest_dir, stem):
    """Writes STEM.csv, or STEM.big when the CSV is large."""
    if len(text.encode()) <= BIG_BYTES:
        with open(os.path.join(dest_dir, stem + '.csv'), 'w', newline='') as f:
            f.write(text)
        return stem + '.csv'
    rows = list(csv.reader(io.StringIO(text, newline='')))
    head = io.StringIO()
    csv.writer(head, lineterminator='\n').writerows(rows[:HEAD_ROWS + 1])
    with open(os.path.join(dest_dir, stem + '.big'), 'w', newline='') as f:
        f.write(f'rows: {len(rows) - 1}\nsha256: {cells_digest(rows)}\n')
        for start in range(1, len(rows), CHUNK_ROWS):
            f.write(f'chunk: {start} {cells_digest(rows[start:start + CHUNK_ROWS])}\n')
        f.write(f'head:\n{head.getvalue()}')
    return stem + '.big'


def keep_outputs(out, dest):
    """Copies nsys's tables from OUT into DEST (see the module doc). Returns the names kept."""
    kept = []
    names = sorted(os.listdir(out))
    csv_stems = {n[:-4] for n in names if n.endswith('.csv')}
    for n in names:
        stem, ext = os.path.splitext(n)
        if n.endswith(NOT_TABLES):
            continue
        if ext == '.csv':
            with open(os.path.join(out, n), newline='') as f:
                kept.append(store_table(f.read(), dest, stem))
        elif ext == '.parquet' and stem not in csv_stems:
            text = parquet_to_csv_text(os.path.join(out, n))
            with open(os.path.join(out, stem + '.csv'), 'w', newline='') as f:
                f.write(text)  # the whole table, for --keep
            kept.append(store_table(text, dest, stem))
    return kept


def run_nsys(nsys, args, env, cwd=None):
    t0 = time.monotonic()
    p = subprocess.run([nsys, 'recipe', *args], capture_output=True, text=True, env=env, cwd=cwd)
    return p, time.monotonic() - t0


def write_kv(path, items):
    with open(path, 'w') as f:
        for k, v in items:
            f.write(f'{k}: {v}\n')


def messages(p):
    """nsys's messages, without the folder paths of this machine."""
    lines = (p.stdout + p.stderr).splitlines()
    return '\n'.join(line for line in lines if line.strip())


def recipe_options(recipe, job, kernel, rng):
    if recipe == 'cuda_gpu_kern_pace':
        return ['--name', job.get('kernel', kernel)] if (job.get('kernel') or kernel) else None
    if recipe in ('nvtx_pace', 'nvtx_gpu_proj_pace'):
        return ['--name', job.get('range', rng)] if (job.get('range') or rng) else None
    return []


def run_one(nsys, env, work, recipe, job, in_dir, opts, keep):
    """Runs one recipe of one job. Returns (seconds, status, kept files)."""
    dest = os.path.join(GOLDEN, job['name'], recipe)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    out = os.path.join(work, f'{job["name"]}-{recipe}')
    shutil.rmtree(out, ignore_errors=True)
    csv_flag = ['--csv'] if recipe in CSV_RECIPES else []
    items = []
    if recipe == 'diff':
        base, side1, side2 = job['diff']
        dirs = []
        for i, side in enumerate((side1, side2), 1):
            d_in = os.path.join(work, f'{job["name"]}-diff-in{i}')
            if not os.path.exists(d_in):  # made once per run
                job.setdefault('notes', []).extend(make_input_dir(d_in, side))
            restore_input_dir(d_in, side)
            d_out = os.path.join(work, f'{job["name"]}-diff-{base}{i}')
            shutil.rmtree(d_out, ignore_errors=True)
            p, _ = run_nsys(nsys, [base, '--input', d_in, '--output', d_out], env)
            if p.returncode:
                raise SystemExit(f'{base} on {side}: {messages(p)}')
            dirs.append(d_out)
        # diff takes no --output: it writes BASE-diff-N in the current folder.
        cwd = os.path.join(work, f'{job["name"]}-diff-run')
        shutil.rmtree(cwd, ignore_errors=True)
        os.makedirs(cwd)
        args = [recipe, '--input', *dirs, *csv_flag, *opts]
        out = os.path.join(cwd, f'{base}-diff-1')
        items += [('command', f'nsys recipe diff --input OUT1 OUT2 {" ".join(csv_flag)}'),
                  ('diff_of', base), ('inputs1', ' '.join(side1)), ('inputs2', ' '.join(side2))]
    else:
        args = [recipe, '--input', in_dir, '--output', out, *csv_flag, *opts]
        items += [('command', f'nsys recipe {recipe} --input IN --output OUT '
                              + shlex.join(csv_flag + opts)),
                  ('inputs', ' '.join(job['reports']))]
        restore_input_dir(in_dir, job['reports'])
        cwd = None
    p, secs = run_nsys(nsys, args, env, cwd)
    items += [('options', shlex.join(opts)), ('status', p.returncode)]
    items += [('input_note', n) for n in sorted(set(job.get('notes', [])))]
    write_kv(os.path.join(dest, 'args.txt'), items)
    if not os.path.isdir(out):
        write_kv(os.path.join(dest, 'nodata.txt'),
                 [('status', p.returncode)] + [('message', m.replace(work, 'WORK'))
                                               for m in messages(p).splitlines()])
        return secs, p.returncode, []
    kept = keep_outputs(out, dest)
    if not keep:
        shutil.rmtree(out)
    return secs, p.returncode, kept


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--nsys', default=os.environ.get('NSYS23', NSYS23_DEFAULT))
    ap.add_argument('--job', action='append', help='only these jobs (default: all)')
    ap.add_argument('--recipe', action='append', help='only these recipes (default: all 28)')
    ap.add_argument('--keep', help='work folder to keep, with nsys\'s whole outputs and their tables '
                    'as CSV in JOB-RECIPE/ (default: a temporary one)')
    a = ap.parse_args()
    if not os.access(a.nsys, os.X_OK):
        raise SystemExit(f'{a.nsys}: no nsys 2023.4 (../shared/tools/install-nsys-2023 installs it)')
    env = dict(os.environ)
    env['PYTHONPATH'] = PYSHIM + (os.pathsep + env['PYTHONPATH'] if env.get('PYTHONPATH') else '')
    jobs = [j for j in JOBS if not a.job or j['name'] in a.job]
    recipes = [r for r in RECIPES if not a.recipe or r in a.recipe]
    work = a.keep or tempfile.mkdtemp(prefix='recipe-goldens-')
    os.makedirs(work, exist_ok=True)
    timings_path = os.path.join(GOLDEN, 'timings.tsv')
    timings = {}
    if os.path.exists(timings_path):
        with open(timings_path) as f:
            for row in csv.DictReader(f, delimiter='\t'):
                timings[(row['job'], row['recipe'])] = row
    try:
        for job in jobs:
            in_dir = os.path.join(work, job['name'] + '-in')
            for d in [in_dir] + [os.path.join(work, f'{job["name"]}-diff-in{i}') for i in (1, 2)]:
                shutil.rmtree(d, ignore_errors=True)
                shutil.rmtree(d + '.keep', ignore_errors=True)
            job['notes'] = make_input_dir(in_dir, job['reports'])
            dbs = [os.path.join(in_dir, s + '.sqlite') for s in job['reports']]
            in_bytes = sum(os.path.getsize(d) for d in dbs)
            kernel, rng = pick_kernel(dbs), pick_range(dbs)
            for recipe in recipes:
                if recipe == 'diff' and 'diff' not in job:
                    continue
                opts = recipe_options(recipe, job, kernel, rng)
                if opts is None:
                    print(f'{job["name"]}/{recipe}: skipped (no name to pace by)', flush=True)
                    continue
                secs, status, kept = run_one(a.nsys, env, work, recipe, job, in_dir, opts, bool(a.keep))
                print(f'{job["name"]}/{recipe}: {secs:.1f} s, status {status}, '
                      f'{", ".join(kept) or "no output"}', flush=True)
                timings[(job['name'], recipe)] = dict(
                    job=job['name'], recipe=recipe, reports=len(job['reports']), input_bytes=in_bytes,
                    seconds=f'{secs:.2f}', status=status, outputs=' '.join(kept) or '-')
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    cols = ['job', 'recipe', 'reports', 'input_bytes', 'seconds', 'status', 'outputs']
    with open(timings_path, 'w', newline='') as f:
        w = csv.DictWriter(f, cols, delimiter='\t', lineterminator='\n')
        w.writeheader()
        for k in sorted(timings):
            w.writerow({c: timings[k][c] for c in cols})


if __name__ == '__main__':
    main()
