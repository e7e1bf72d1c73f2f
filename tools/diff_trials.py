#!/usr/bin/env python3
"""diff_trials.py NSYS_PERFETTO REPORT.sqlite WORKDIR [--trials N] [--runs R]
                  [--seed S] [--jobs J] [--slow FACTOR] [-- DIFF_OPTIONS...]

How often `nsys-perfetto diff` cries wolf, and how often it catches a real
change, on one report with modelled run-to-run noise (tools/noisy_copy.py):
each trial makes R noisy copies as "before", R as an identical "after"
(A/A) and R with the largest kernel FACTOR times slower (A/B), and runs
`diff --format json` on both pairs. Prints one JSON line per trial and a
summary: A/A passes, A/B fails that name the slowed kernel a regression,
the largest |per-unit change| of a name past the effect floor in A/A (what
identical runs reach), and what the rule before issue 31 (totals past the
gate, ranges apart) would have said. Seeds: trial t, copy k uses
S * 1000003 + t * 97 + k.
"""
import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import noisy_copy  # noqa: E402


def copies(base, work, label, seeds, slow):
    d = os.path.join(work, label)
    os.makedirs(d, exist_ok=True)
    for k, seed in enumerate(seeds):
        noisy_copy.noisy_copy(base, os.path.join(d, f'r-run{k + 1}.sqlite'), seed, slow=slow)
    return d


def diff(bin_, before, after, options):
    p = subprocess.run([bin_, 'diff', '--format', 'json', *options, before, after],
                       capture_output=True, text=True)
    if p.returncode not in (0, 8):
        raise SystemExit(f'diff {before} {after}: exit {p.returncode}: {p.stderr}')
    return json.loads(p.stdout)


def old_rule_fails(d, gate):
    """The rule before issue 31: a name's median total past the gate and,
    with two runs a side, the runs' ranges of totals apart."""
    judged = d['runs']['before'] >= 2 and d['runs']['after'] >= 2
    for r in d['rows']:
        b, a = r['before'], r['after']
        if not b or not a or not b['total_ns']:
            continue
        if (a['total_ns'] - b['total_ns']) / b['total_ns'] * 100 > gate and (
                not judged or a['min_total_ns'] > b['max_total_ns']):
            return True
    return False


def largest_aa_move(d, floor):
    """The largest |per-unit change| of a name that can decide the verdict,
    present on both sides, whose change reached the effect floor: how far
    identical runs move."""
    moves = [abs(r['delta_pct']) for r in d['rows']
             if r['decides'] and r['before'] and r['after'] and r['delta_pct'] is not None
             and r['share_pct'] is not None and r['share_pct'] >= floor]
    return max(moves, default=0.0)


def trial(a, kernel, t):
    work = os.path.join(a.workdir, f't{t}')
    seed = lambda k: a.seed * 1000003 + t * 97 + k  # noqa: E731
    before = copies(a.report, work, 'before', [seed(k) for k in range(a.runs)], None)
    same = copies(a.report, work, 'same', [seed(a.runs + k) for k in range(a.runs)], None)
    slow = copies(a.report, work, 'slow', [seed(2 * a.runs + k) for k in range(a.runs)],
                  (kernel, a.slow))
    aa = diff(a.bin, before, same, a.options)
    ab = diff(a.bin, before, slow, a.options)
    row = next((r for r in ab['rows'] if r['category'] == 'kernel' and r['name'] == kernel), {})
    subprocess.run(['rm', '-rf', work])
    floor = aa['rule']['min_effect_pct']
    return {'trial': t, 'aa': aa['verdict'], 'aa_regressions': aa['counts']['regression'],
            'aa_inconclusive': aa['counts']['inconclusive'],
            'aa_largest_move_pct': round(largest_aa_move(aa, floor), 3),
            'aa_largest_move_name': max(((abs(r['delta_pct']), r['category'] + ' ' + r['name'])
                                         for r in aa['rows'] if r['decides'] and r['before']
                                         and r['after'] and r['delta_pct'] is not None
                                         and (r['share_pct'] or 0) >= floor),
                                        default=(0, None))[1],
            'aa_old_rule': 'fail' if old_rule_fails(aa, aa['gate_pct']) else 'pass',
            'ab': ab['verdict'], 'ab_kernel': row.get('status'),
            'ab_kernel_pct': row.get('delta_pct'),
            'ab_old_rule': 'fail' if old_rule_fails(ab, ab['gate_pct']) else 'pass',
            'compared': aa['compared']['unit']}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('bin')
    ap.add_argument('report')
    ap.add_argument('workdir')
    ap.add_argument('--trials', type=int, default=100)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--slow', type=float, default=1.1)
    ap.add_argument('options', nargs='*', help='passed to diff (after --)')
    a = ap.parse_args()
    kernel = noisy_copy.largest_kernel(a.report)
    with ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda t: trial(a, kernel, t), range(a.trials)))
    for r in results:
        print(json.dumps(r))
    n = len(results)
    summary = {
        'report': os.path.basename(a.report), 'runs': a.runs, 'trials': n, 'seed': a.seed,
        'slowed': kernel, 'factor': a.slow, 'options': a.options,
        'compared': sorted({r['compared'] for r in results}),
        'aa_pass': sum(r['aa'] == 'pass' for r in results),
        'aa_with_inconclusive': sum(r['aa_inconclusive'] > 0 for r in results),
        'aa_largest_move_pct': max(r['aa_largest_move_pct'] for r in results),
        'aa_old_rule_pass': sum(r['aa_old_rule'] == 'pass' for r in results),
        'ab_fail_on_kernel': sum(r['ab'] == 'fail' and r['ab_kernel'] == 'regression'
                                 for r in results),
        'ab_old_rule_fail': sum(r['ab_old_rule'] == 'fail' for r in results),
    }
    print(json.dumps(summary))


if __name__ == '__main__':
    main()
