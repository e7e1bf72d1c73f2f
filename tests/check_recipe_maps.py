#!/usr/bin/env python3
"""check_recipe_maps.py NSYS_PERFETTO CORPUS_DIR WORKDIR NSYS_FIXTURE

The utilization maps and pace recipes where the committed goldens of
check_recipes.py (default options) cannot look:

- tests/recipe_maps_golden/CASE/: what nsys recipe 2023.4 wrote with options
  (--bins, --start/--end, --cumulative, --name) or on data the other goldens
  lack (GPU metrics), from the real .nsys-rep/.qdrep the corpus exports came
  from (docs/recipes.md), its Parquet tables as CSV; ours must equal them byte
  for byte on the corpus exports (session_shift_days: on copies with one
  report's session start moved later, reports captured far apart, as nsys
  read them; mpi_calls_from_nvtx_domain: on copies holding the MPI calls as
  nsys 2023.4's export of the .qdrep does, which the corpus exports lack;
  'fixture NAME: ARGS': on nsys-fixture reports, NCCL's NVTX domain, MPI, UCX,
  that nsys read through its stand-in); and kern_sum_tie_order, a statistics recipe whose 17 kernels
  include two of equal total time: their order is numpy's quicksort's;
- what nsys cannot show: --cumulative on a report with two GPUs (nsys 2023.4
  fails there), the pictures (SVG that parses, README.md shows them first),
  and bad or empty input: a one-line error, the exit status, no output folder
  (also for a job whose sessions all last 0 ns, which nsys cannot bin);
  a pace recipe's partial folded for another --name, or without its
  instances, is refused.

Exits 77 (skipped) without the corpus."""
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sql_golden as sg  # noqa: E402
from testlib import expect, finish  # noqa: E402

GOLDEN = os.path.join(HERE, 'recipe_maps_golden')
NVLINK = ('openhackathons-org__gpubootcamp__hpc__multi_gpu_nways__labs__CFD__English__C__'
          'source_code__memcpy__jacobi_memcpy_nvlink_report.qdrep')
CPU_ONLY = 'NTHU-SC__ISC25-ICON-C__nsys_reports__cpu'
WITH_KERNELS = 'NVIDIA__Fuser__report2'


def read_kv(path):
    with open(path) as f:
        return dict(line.rstrip('\n').partition(': ')[::2] for line in f if line.strip())


def recipe(nsysp, work, name, options, stems, out_name):
    out = os.path.join(work, 'out', out_name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    inputs = sorted(sg.unpacked(s, work) for s in stems)
    p = subprocess.run([nsysp, 'recipe', name, '--output', out, *options, *inputs],
                       capture_output=True, text=True)
    return p, out


def shifted_inputs(work, case, stems, shift):
    """Copies of the case's reports, one's session start moved later ('STEM DAYS'):
    reports captured far apart, which the corpus lacks (nsys 2023.4 read the same copies)."""
    stem, days = shift.split()
    folder = os.path.join(work, case + '-in')
    os.makedirs(folder, exist_ok=True)
    paths = []
    for s in stems:
        path = os.path.join(folder, s + '.sqlite')
        shutil.copyfile(sg.unpacked(s, work), path)
        if s == stem:
            con = sqlite3.connect(path)
            con.execute('UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = utcEpochNs + ?',
                        (int(days) * 86400 * 10**9,))
            con.commit()
            con.close()
        paths.append(path)
    return paths


def mpi_calls_inputs(work, case, stems, domain):
    """Copies of the case's reports with the push/pop ranges of their NVTX
    domain `domain` as MPI_OTHER_EVENTS: what nsys 2023.4's export of the
    .qdrep holds (2020.5 captures recorded MPI calls as NVTX; the corpus's
    nsys 2022.4 exports keep them there only)."""
    folder = os.path.join(work, case + '-in')
    os.makedirs(folder, exist_ok=True)
    paths = []
    for s in stems:
        path = os.path.join(folder, s + '.sqlite')
        shutil.copyfile(sg.unpacked(s, work), path)
        con = sqlite3.connect(path)
        con.execute('CREATE TABLE MPI_OTHER_EVENTS (start INTEGER NOT NULL, "end" INTEGER, '
                    'globalTid INTEGER, textId INTEGER)')
        con.execute('INSERT INTO MPI_OTHER_EVENTS SELECT start, "end", globalTid, textId '
                    'FROM NVTX_EVENTS WHERE eventType = 59 AND domainId = (SELECT domainId '
                    'FROM NVTX_EVENTS WHERE eventType = 75 AND text = ?)', (domain,))
        con.commit()
        con.close()
        paths.append(path)
    return paths


def fixture_inputs(fixture, work, case, args):
    """The case's nsys-fixture reports ('fixture NAME: ARGS'), NAME.sqlite each."""
    folder = os.path.join(work, case + '-in')
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    paths = []
    for key in sorted(k for k in args if k.startswith('fixture ')):
        path = os.path.join(folder, key.split()[1] + '.sqlite')
        subprocess.run([fixture, *shlex.split(args[key]), path], check=True, capture_output=True)
        paths.append(path)
    return paths


def check_goldens(nsysp, work, fixture):
    for case in sorted(os.listdir(GOLDEN)):
        args = read_kv(os.path.join(GOLDEN, case, 'args.txt'))
        inputs = args['inputs'].split() if 'inputs' in args else fixture_inputs(fixture, work,
                                                                              case, args)
        if 'session_shift_days' in args:
            inputs = shifted_inputs(work, case, inputs, args['session_shift_days'])
        if 'mpi_calls_from_nvtx_domain' in args:
            inputs = mpi_calls_inputs(work, case, inputs, args['mpi_calls_from_nvtx_domain'])
        p, out = recipe(nsysp, work, args['recipe'], shlex.split(args['options']), inputs, case)
        if not expect(p.returncode == 0, f'{case}: exit {p.returncode}: {p.stderr.strip()}'):
            continue
        for name in sorted(os.listdir(os.path.join(GOLDEN, case))):
            if not name.endswith('.csv'):
                continue
            with open(os.path.join(GOLDEN, case, name), 'rb') as f:
                want = f.read()
            path = os.path.join(out, name)
            got = open(path, 'rb').read() if os.path.exists(path) else b'(missing)'
            if want != got:
                first = next((i for i, (a, b) in enumerate(zip(want.splitlines(), got.splitlines()))
                              if a != b), None)
                expect(False, f'{case}/{name}: differs from nsys 2023.4\'s, first at line '
                              f'{(first or 0) + 1}: ours {got.splitlines()[first or 0][:120]!r}')


def rows_of(path):
    with open(path) as f:
        header = f.readline().rstrip('\n').split(',')
        return header, [line.rstrip('\n').split(',') for line in f]


def check_cumulative_two_gpus(nsysp, work):
    """Per GPU and bin, the summed kernel time is at least the merged one and
    exceeds it where kernels ran at once."""
    merged, out1 = recipe(nsysp, work, 'cuda_gpu_time_util_map', ['--bins', '40'], [NVLINK],
                          'merged')
    summed, out2 = recipe(nsysp, work, 'cuda_gpu_time_util_map', ['--bins', '40', '--cumulative'],
                          [NVLINK], 'summed')
    if not expect(merged.returncode == 0 and summed.returncode == 0,
                  f'two GPUs: exit {merged.returncode}/{summed.returncode}: '
                  f'{summed.stderr.strip()}'):
        return
    h, a = rows_of(os.path.join(out1, 'analysis.csv'))
    _, b = rows_of(os.path.join(out2, 'analysis.csv'))
    expect(h == ['Duration', 'Kernel', 'PID', 'Device ID', 'File'], f'two GPUs: header {h}')
    expect(sorted({r[3] for r in a}) == ['0', '3'] and len(a) == 80 and len(b) == 80,
           f'two GPUs: {len(a)}, {len(b)} rows for devices {sorted({r[3] for r in a})}, not 2 x 40')
    pairs = [(float(x[1]), float(y[1])) for x, y in zip(a, b) if x[1] and y[1]]
    expect(pairs and all(s >= m for m, s in pairs),
           'two GPUs: a cumulative share below the merged one')
    expect(all(m <= 100 for m, _ in pairs), 'two GPUs: a merged share over 100%')


def check_pictures(nsysp, work):
    for name, options, stems, pictures in [
            ('cuda_gpu_time_util_map', [], [NVLINK], ['heatmap.svg']),
            ('cuda_gpu_kern_pace', ['--name', 'jacobi_kernel'], [NVLINK],
             ['pace_start.svg', 'pace_duration.svg', 'pace_delta.svg'])]:
        p, out = recipe(nsysp, work, name, options, stems, name + '-pictures')
        if not expect(p.returncode == 0, f'{name}: exit {p.returncode}: {p.stderr.strip()}'):
            continue
        readme = open(os.path.join(out, 'README.md')).read()
        for pic in pictures:
            path = os.path.join(out, pic)
            if not expect(os.path.exists(path), f'{name}: no {pic}'):
                continue
            try:
                root = ET.parse(path).getroot()
            except ET.ParseError as e:
                expect(False, f'{name}/{pic}: not XML: {e}')
                continue
            texts = ' '.join(t.text or '' for t in root.iter('{http://www.w3.org/2000/svg}text'))
            plain = any(f'({unit})' in texts for unit in ('µs', 'ms', 's', 'min'))
            expect(root.tag.endswith('svg') and plain,
                   f'{name}/{pic}: no axis in plain time units: {texts[:200]!r}')
            expect(readme.find(f'![{pic}]') >= 0 and readme.find(f'![{pic}]') < readme.find('.csv'),
                   f'{name}: README.md does not show {pic} before the tables')


def check_far_end(nsysp, work):
    """A kernel that ends ages after the session (a hostile or broken end
    time) adds to the bins it covers and nothing more, at once: the bins
    between its ends are those of the grid only."""
    far = os.path.join(work, 'far-end', os.path.basename(sg.unpacked(NVLINK, work)))
    os.makedirs(os.path.dirname(far), exist_ok=True)
    shutil.copyfile(sg.unpacked(NVLINK, work), far)
    con = sqlite3.connect(far)
    con.execute('UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = 4000000000000000000'
                ' WHERE rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)')
    con.commit()
    con.close()
    out = os.path.join(work, 'out', 'far-end')
    shutil.rmtree(out, ignore_errors=True)
    try:
        p = subprocess.run([nsysp, 'recipe', 'cuda_gpu_time_util_map', '--bins', '1000',
                            '--output', out, far], capture_output=True, text=True, timeout=30)
        expect(p.returncode == 0, f'a kernel ending ages away: exit {p.returncode}: {p.stderr.strip()}')
    except subprocess.TimeoutExpired:
        expect(False, 'a kernel ending ages away: still binning after 30 s')


def check_nccl_range_inside_a_call(nsysp, work, fixture):
    """An NCCL range that begins and ends inside one CUDA call launches
    nothing: it projects onto no kernel, and once closed is not opened
    again to take the kernels of the calls after it."""
    base = os.path.join(work, 'nccl-inside', 'a.sqlite')
    shutil.rmtree(os.path.dirname(base), ignore_errors=True)
    os.makedirs(os.path.dirname(base))
    subprocess.run([fixture, '-s', '3', '-n', '4000', '--mpi', '--nvtx', base], check=True,
                   capture_output=True)
    con = sqlite3.connect(base)
    domain = con.execute("SELECT domainId FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'NCCL'"
                         " ORDER BY rowid LIMIT 1").fetchone()
    # a thread's last two calls that launch kernels, C1 then C2
    calls = con.execute('SELECT r.globalTid, r.start, r."end" FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r'
                        ' JOIN CUPTI_ACTIVITY_KIND_KERNEL AS k USING (correlationId)'
                        ' WHERE r.globalTid = (SELECT globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME'
                        ' ORDER BY rowid LIMIT 1) AND r."end" - r.start > 2'
                        ' ORDER BY r.start DESC LIMIT 2').fetchall()
    if not expect(domain and len(calls) == 2, 'NCCL range inside a call: the fixture has NCCL and calls'):
        return
    (tid, c2_start, c2_end), (_, c1_start, c1_end) = calls
    add = 'INSERT INTO NVTX_EVENTS (start, "end", eventType, globalTid, domainId, text) VALUES (?, ?, 59, ?, ?, ?)'
    # base: a range around both calls, which keeps the thread's sweep going past C2
    con.execute(add, (c1_start - 1, c2_end + 1, tid, domain[0], 'around'))
    con.commit()
    con.close()
    inside = os.path.join(work, 'nccl-inside', 'with', 'a.sqlite')
    os.makedirs(os.path.dirname(inside))
    shutil.copyfile(base, inside)
    con = sqlite3.connect(inside)
    con.execute(add, (c1_start + 1, c1_end - 1, tid, domain[0], 'inside'))
    con.commit()
    con.close()
    outs = []
    for path in (base, inside):
        out = path + '-out'
        p = subprocess.run([nsysp, 'recipe', 'nccl_gpu_time_util_map', '--output', out, path],
                           capture_output=True, text=True)
        expect(p.returncode == 0, f'NCCL range inside a call: exit {p.returncode}: {p.stderr.strip()}')
        outs.append(open(os.path.join(out, 'analysis.csv'), 'rb').read() if p.returncode == 0 else b'')
    expect(outs[0] and outs[0] == outs[1], 'NCCL range inside a call: the bins change')


def check_bad_input(nsysp, work):
    not_sqlite = os.path.join(work, 'not-sqlite.sqlite')
    with open(not_sqlite, 'w') as f:
        f.write('not a database')
    # Every session 0 ns long: bins 0 ns wide, where nsys 2023.4 crashes once
    # a report has kernels or GPU metric samples to bin, and finds no data else.
    zero, zero_metrics = (os.path.join(work, f'zero-session{k}.sqlite') for k in ('', '-metrics'))
    for path in (zero, zero_metrics):
        shutil.copyfile(sg.unpacked(WITH_KERNELS, work), path)
        con = sqlite3.connect(path)
        con.execute('UPDATE ANALYSIS_DETAILS SET duration = 0')
        if path == zero_metrics:
            con.execute('CREATE TABLE GENERIC_EVENTS (rawTimestamp INTEGER, timestamp INTEGER, '
                        'typeId INTEGER, data TEXT)')
            con.execute('INSERT INTO GENERIC_EVENTS VALUES (5, 5, 1, \'{"SM Active": "10", '
                        '"SM Issue": "5", "Tensor Active": "0"}\')')
        con.commit()
        con.close()
    cases = [
        ('cuda_gpu_time_util_map', [], [zero], 5, 'every session of the job lasts 0 ns'),
        ('gpu_metric_util_map', [], [zero_metrics], 5, 'every session of the job lasts 0 ns'),
        ('gpu_metric_util_map', [], [zero], 0, 'no report has the data'),
        ('cuda_gpu_time_util_map', [], [not_sqlite], 4, 'not-sqlite.sqlite: not a SQLite'),
        ('nvtx_pace', ['--name', 'x'], [not_sqlite], 4, 'not-sqlite.sqlite: not a SQLite'),
        ('cuda_gpu_kern_pace', [], [NVLINK], 2, '--name'),
        ('cuda_gpu_time_util_map', ['--bins', '0'], [NVLINK], 2, '--bins'),
        ('cuda_gpu_time_util_map', ['--bins', 'many'], [NVLINK], 2, '--bins'),
        # No data: nsys writes nothing and exits 0; so do we, with one line.
        ('cuda_gpu_time_util_map', [], [CPU_ONLY], 0, 'no report has the data'),
        ('nvtx_pace', ['--name', 'no such range'], [NVLINK], 0, "'no such range'"),
        ('nccl_gpu_time_util_map', [], [NVLINK], 0, 'no report has the data'),
    ]
    for i, (name, options, stems, status, says) in enumerate(cases):
        p, out = recipe(nsysp, work, name, options, stems, f'bad-{i}')
        what = f'{name} {shlex.join(options)}'
        expect(p.returncode == status, f'{what}: exit {p.returncode}, not {status}')
        lines = p.stderr.strip().splitlines()
        expect(len(lines) == 1 and says in lines[0], f'{what}: message {p.stderr.strip()!r}')
        expect(not os.path.exists(out), f'{what}: wrote {out}')


def check_partials(nsysp, work):
    """Read apart (--partial, --from-partials), a pace recipe's report is
    read for one --name: folding it for another is refused, not mixed."""
    jacobi = ('openhackathons-org__gpubootcamp__hpc__multi_gpu_nways__labs__CFD__English__C__'
              'source_code__mpi__reports__report1.qdrep')
    for name, stem, range_name in [('cuda_gpu_kern_pace', NVLINK, 'jacobi_kernel'),
                                   ('nvtx_gpu_proj_pace', jacobi, 'MPI_Sendrecv')]:
        report = sg.unpacked(stem, work)
        p = subprocess.run([nsysp, 'recipe', name, '--name', range_name, '--partial', report],
                           capture_output=True)
        if not expect(p.returncode == 0 and p.stdout, f'{name} --partial: exit {p.returncode}'):
            continue
        partial = os.path.join(work, f'{name}.partial')
        with open(partial, 'wb') as f:
            f.write(p.stdout)
        out = os.path.join(work, 'out', f'{name}-other-name')
        shutil.rmtree(out, ignore_errors=True)
        q = subprocess.run([nsysp, 'recipe', name, '--name', 'other', '--from-partials',
                            '--output', out, partial], capture_output=True, text=True)
        lines = q.stderr.strip().splitlines()
        expect(q.returncode == 4 and len(lines) == 1 and f"--name '{range_name}'" in lines[0]
               and not os.path.exists(out),
               f'{name}: a partial folded for another --name: exit {q.returncode} {q.stderr!r}')
        # A partial without its instances (well-formed text, not this
        # recipe's tables) is refused the same way.
        cut = p.stdout[:p.stdout.index(b'table\tinstances')] + b'end\n'
        with open(partial, 'wb') as f:
            f.write(cut)
        q = subprocess.run([nsysp, 'recipe', name, '--name', range_name, '--from-partials',
                            '--output', out, partial], capture_output=True, text=True)
        lines = q.stderr.strip().splitlines()
        expect(q.returncode == 4 and len(lines) == 1 and 'not one of this recipe' in lines[0]
               and not os.path.exists(out),
               f'{name}: a partial without its instances: exit {q.returncode} {q.stderr!r}')


def check_kernels_out_of_order(nsysp, work):
    """The map reads kernels as the table stores them, and has SQLite sort
    them only for a table out of start order: the same report with its
    kernels stored backwards gives the same bytes."""
    report = sg.unpacked(NVLINK, work)
    backwards = os.path.join(work, 'backwards', os.path.basename(report))
    os.makedirs(os.path.dirname(backwards), exist_ok=True)
    shutil.copyfile(report, backwards)
    con = sqlite3.connect(backwards)
    con.executescript('CREATE TABLE k AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE 0;'
                      'INSERT INTO k SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid DESC;'
                      'DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL;'
                      'INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM k; DROP TABLE k;')
    con.commit()
    con.close()
    # ... and with some device ids stored as text, which SQLite sorts apart
    # from numbers unless told to read them as this code does
    texts = os.path.join(work, 'backwards-text', os.path.basename(report))
    os.makedirs(os.path.dirname(texts), exist_ok=True)
    shutil.copyfile(backwards, texts)
    con = sqlite3.connect(texts)
    columns = [(name, '' if name == 'deviceId' else ctype) for _, name, ctype, *_ in
               con.execute('PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)')]
    con.executescript(  # deviceId without a type, so that text stays text
        'CREATE TABLE k (%s);' % ', '.join(f'"{n}" {t}' for n, t in columns) +
        'INSERT INTO k SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid;'
        'UPDATE k SET deviceId = CAST(deviceId AS TEXT) WHERE rowid % 3 = 0;'
        'DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;'
        'ALTER TABLE k RENAME TO CUPTI_ACTIVITY_KIND_KERNEL;')
    expect(con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"
                       " WHERE typeof(deviceId) = 'text'").fetchone()[0] > 0,
           'kernels with device ids as text: the copy has some')
    con.close()
    outs = []
    for name, path in (('stored', report), ('backwards', backwards),
                       ('backwards, device ids as text', texts)):
        out = os.path.join(work, 'out', f'order-{name}'.replace(' ', '-').replace(',', ''))
        shutil.rmtree(out, ignore_errors=True)
        p = subprocess.run([nsysp, 'recipe', 'cuda_gpu_time_util_map', '--bins', '40', '--output',
                            out, path], capture_output=True, text=True)
        expect(p.returncode == 0, f'kernels {name}: exit {p.returncode}: {p.stderr.strip()}')
        outs.append(open(os.path.join(out, 'analysis.csv'), 'rb').read() if p.returncode == 0 else b'')
    expect(outs[0] and outs[0] == outs[1], 'kernels stored backwards: a different analysis.csv')
    expect(outs[0] and outs[0] == outs[2],
           'kernels stored backwards, device ids as text: a different analysis.csv')


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    nsysp, corpus, work, fixture = sys.argv[1:]
    if not os.path.isdir(corpus):
        print(f'skipped: no corpus at {corpus}')
        sys.exit(77)
    sg.CORPUS = corpus
    os.makedirs(work, exist_ok=True)
    check_goldens(nsysp, work, fixture)
    check_cumulative_two_gpus(nsysp, work)
    check_kernels_out_of_order(nsysp, work)
    check_far_end(nsysp, work)
    check_nccl_range_inside_a_call(nsysp, work, fixture)
    check_pictures(nsysp, work)
    check_bad_input(nsysp, work)
    check_partials(nsysp, work)
    finish(ok_text='recipe maps and pace: ok')


if __name__ == '__main__':
    main()
