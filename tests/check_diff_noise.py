#!/usr/bin/env python3
"""check_diff_noise.py NSYS_PERFETTO TOOLS_DIR WORKDIR CASE REPORT.sqlite.gz [AFTER.sqlite.gz]

`nsys-perfetto diff` on real ML reports (docs/diff.md):

  trial     one A/A and one A/B trial, three runs a side, fixed seeds, on a
            corpus report with modelled run-to-run noise (tools/noisy_copy.py:
            5% per operation, 1% per run): identical runs pass (exit 0); the
            largest kernel 10% slower fails (exit 8) on that kernel
  per_call  the PyTorch pair (GindaChen mfu_2gpu before/after, no steps):
            compared per call; flash_fwd_kernel unchanged (68 -> 60 calls at
            ~4.00 ms) though its total is 11.6% lower; ncclDevKernel_SendRecv a
            regression of ~41% a call; no name listed with "op_id ="; the
            first screen of the table shows the kernel and NCCL changes
  crossing  a real PyTorch report whose NVTX ranges cross (AI-Profiler baseline_nvtx):
            noisy copies (three runs a side, seeds of a trial where "Copy to device" came
            out top-level 10 times in one run and 69 in another) compare per call: identical
            runs pass, the largest kernel 10% slower fails; and identical work with 20 ->
            10 instances of a short top-level range (not a step) passes, per call, saying
            that the range is not a step

Exits 77 (skipped) when a corpus report is absent.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys

problems = []
SCREEN = 24  # lines: a terminal's first screen


def check(ok, what):
    if not ok:
        problems.append(what)


def diff(bin_, *args):
    p = subprocess.run([bin_, 'diff', *args], capture_output=True, text=True)
    check(p.returncode in (0, 8), f'diff {args}: exit {p.returncode}: {p.stderr.strip()}')
    return p


def jdiff(bin_, *args):
    p = diff(bin_, '--format', 'json', *args)
    try:
        return p.returncode, json.loads(p.stdout)
    except ValueError:
        problems.append(f'diff {args}: not JSON: {p.stdout[:200]!r}')
        return p.returncode, {'rows': [], 'verdict': None, 'counts': {}}


def row(d, name, category='kernel'):
    return next((r for r in d['rows'] if r['category'] == category and r['name'] == name), {})


def case_trial(bin_, tools, work, reports):
    sys.path.insert(0, tools)
    import noisy_copy
    base = reports[0]
    kernel = noisy_copy.largest_kernel(base)
    # Seeds as tools/diff_trials.py --seed 31 draws them for its trial 0.
    seed = lambda k: 31 * 1000003 + k  # noqa: E731
    sides = {'before': None, 'same': None, 'slow': (kernel, 1.1)}
    for i, (side, slow) in enumerate(sides.items()):
        os.makedirs(f'{work}/{side}')
        for k in range(3):
            noisy_copy.noisy_copy(base, f'{work}/{side}/r-run{k + 1}.sqlite', seed(3 * i + k),
                                  slow=slow)
    rc, d = jdiff(bin_, f'{work}/before', f'{work}/same')
    deciding = [x['name'] for x in d['rows'] if x['status'] == 'regression' and x['decides']]
    check(rc == 0 and d['verdict'] == 'pass' and not deciding,
          f'A/A: exit {rc}, verdict {d["verdict"]}, regressions that decide {deciding}')
    rc, d = jdiff(bin_, f'{work}/before', f'{work}/slow')
    r = row(d, kernel)
    check(rc == 8 and d['verdict'] == 'fail' and r.get('status') == 'regression' and
          7 < r.get('delta_pct', 0) < 13, f'A/B: exit {rc}, verdict {d["verdict"]}, {kernel}: {r}')
    regressions = [x['name'] for x in d['rows'] if x['status'] == 'regression']
    check(all(x['category'] != 'kernel' or x['name'] == kernel for x in d['rows']
              if x['status'] == 'regression'), f'A/B: other kernels regressed: {regressions}')


def case_crossing(bin_, tools, work, reports):
    sys.path.insert(0, tools)
    import noisy_copy
    import sqlite3
    base = reports[0]
    kernel = noisy_copy.largest_kernel(base)
    seed = lambda k: 7919 * 5 + k  # noqa: E731  (a trial the old step rule failed)
    for i, (side, slow) in enumerate([('before', None), ('same', None), ('slow', (kernel, 1.1))]):
        os.makedirs(f'{work}/{side}')
        for k in range(3):
            noisy_copy.noisy_copy(base, f'{work}/{side}/r-run{k + 1}.sqlite', seed(3 * i + k),
                                  slow=slow)
    rc, d = jdiff(bin_, f'{work}/before', f'{work}/same')
    check(rc == 0 and d['verdict'] == 'pass', f'crossing A/A: exit {rc}, verdict {d["verdict"]}, '
          f'{d.get("compared")}')
    rc, d = jdiff(bin_, f'{work}/before', f'{work}/slow')
    r = row(d, kernel)
    check(rc == 8 and r.get('status') == 'regression' and 7 < r.get('delta_pct', 0) < 13,
          f'crossing A/B: exit {rc}, {kernel}: {r}, {d.get("compared")}')
    # A short top-level range, 20 times before and 10 after, around identical work.
    db = sqlite3.connect(base)
    tid, = db.execute("SELECT e.globalTid FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s"
                      " ON s.id = e.textId WHERE coalesce(e.text, s.value) = 'Copy to device'"
                      " LIMIT 1").fetchone()
    first, = db.execute("SELECT min(start) FROM NVTX_EVENTS WHERE globalTid = ?",
                        (tid,)).fetchone()  # the marks go before every range of the thread
    db.close()
    for name, n in [('marks20.sqlite', 20), ('marks10.sqlite', 10)]:
        shutil.copy(base, f'{work}/{name}')
        db = sqlite3.connect(f'{work}/{name}')
        db.executemany("INSERT INTO NVTX_EVENTS (start, \"end\", eventType, globalTid, text)"
                       " VALUES (?, ?, 59, ?, 'mark')",
                       [(first - 10_000_000 + k * 1000, first - 10_000_000 + k * 1000 + 500, tid)
                        for k in range(n)])
        db.commit()
        db.close()
    rc, d = jdiff(bin_, f'{work}/marks20.sqlite', f'{work}/marks10.sqlite')
    compared = d.get('compared', {})
    check(rc == 0 and compared.get('unit') == 'call' and
          'not a step' in (compared.get('why_not_step') or ''),
          f'20 -> 10 marks around the same work: exit {rc}, {compared}')


def case_per_call(bin_, tools, work, reports):
    before, after = reports
    rc, d = jdiff(bin_, before, after)
    check(d.get('compared', {}).get('unit') == 'call' and d['compared'].get('step') is None,
          f'compared: {d.get("compared")}')
    flash = row(d, 'flash_fwd_kernel')
    check(flash.get('status') == 'unchanged' and abs(flash['delta_pct']) < 1 and
          (flash['before']['count'], flash['after']['count']) == (68, 60) and
          -12 < flash['total_delta_pct'] < -11, f'flash_fwd_kernel: {flash}')
    nccl = row(d, 'ncclDevKernel_SendRecv')
    check(nccl.get('status') == 'regression' and 40 < nccl['delta_pct'] < 43 and
          (nccl['before']['count'], nccl['after']['count']) == (66, 62),
          f'ncclDevKernel_SendRecv: {nccl}')
    check(rc == 8 and d['verdict'] == 'fail', f'exit {rc}, verdict {d["verdict"]}')
    text = diff(bin_, before, after).stdout
    check('op_id =' not in text, 'a listed name carries "op_id ="')
    screen = '\n'.join(text.splitlines()[:SCREEN])
    check('per call' in screen and 'ncclDevKernel_SendRecv' in screen and
          '+41.' in screen, f'first screen: {screen}')
    md = diff(bin_, '--format', 'md', before, after).stdout
    check('op_id =' not in md and 'per call' in '\n'.join(md.splitlines()[:SCREEN]) and
          'ncclDevKernel\\_SendRecv' in '\n'.join(md.splitlines()[:SCREEN]),
          f'md first screen: {md[:1500]}')
    csv = diff(bin_, '--format', 'csv', before, after).stdout
    check('op_id =' not in csv and 'per call' in csv, 'csv: op_id names, or no word on what was compared')


def main():
    bin_, tools, work, case, *gz = sys.argv[1:]
    for g in gz:
        if not os.path.exists(g):
            print(f'skipped: {g} absent')
            return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    reports = []
    for i, g in enumerate(gz):
        reports.append(os.path.join(work, f'report{i}.sqlite'))
        with gzip.open(g) as src, open(reports[-1], 'wb') as dst:
            shutil.copyfileobj(src, dst)
    {'trial': case_trial, 'per_call': case_per_call, 'crossing': case_crossing}[case](bin_, tools, work, reports)
    if problems:
        print('\n'.join(problems))
        return 1
    print(f'ok: {case}')
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
