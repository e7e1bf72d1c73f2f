#!/usr/bin/env python3
"""check_cuda_details.py REPORT.sqlite TRACE TRACE_DUMP

The details of the CUDA picture, against the report's SQL: kernel args
(grid, block, registers, correlation id, launch type), memcpy names
("Memcpy HtoD (Pageable → Device)") and bytes, memset bytes/value, sync
names (sync type), and the API calls' full versioned names and return
values. Exit 0 when all match.
"""
import collections
import subprocess
import sys

from check_report import connect, tables, strings, expected

MEM_KIND = ['Pageable', 'Pinned', 'Device', 'Array', 'Managed', 'Device Static',
            'Managed Static', 'Unknown']
SYNC_TYPE = ['Unknown', 'Event sync', 'Stream wait sync', 'Stream sync', 'Context sync']
LAUNCH_TYPE = ['Unknown', 'Regular', 'Coop Single Device', 'Coop Multi Device']
SHORT = [None, 'HtoD', 'DtoH', 'HtoA', 'AtoH', 'AtoA', 'AtoD', 'DtoA', 'DtoD', 'HtoH', 'PtoP',
         'HtoD (unified)', 'DtoH (unified)', 'DtoD (unified)']


def enum(db, t, names, builtin):
    for name in names:
        if name in t:
            return {i: label for i, label in db.execute(f'SELECT id, label FROM {name}')}
    return dict(enumerate(builtin))


def slices(trace, dump_bin):
    out = subprocess.run([dump_bin, trace], check=True, capture_output=True, text=True).stdout
    by_cat = collections.defaultdict(list)
    for line in out.splitlines():
        f = line.split('\t')
        if f[0] == 'T':
            by_cat['track names'].append(f[4])
        if f[0] == 'I' and f[2] == 'cuda_graph':
            by_cat['cuda_graph'].append((int(f[1]), 0, f[3], {}, []))
        if f[0] == 'S':
            args = dict(a.split('=', 1) for a in f[6].split(';') if '=' in a) if len(f) > 6 else {}
            flows = [int(i) for i in f[9].split(',') if i] if len(f) > 9 else []
            by_cat[f[3]].append((int(f[1]), int(f[2]), f[4], args, flows))
    return by_cat


def main():
    report, trace, dump_bin = sys.argv[1:4]
    db = connect(report)
    t = tables(db)
    s = strings(db)
    got = slices(trace, dump_bin)
    problems = []

    def check(what, want, have):
        w, h = collections.Counter(want), collections.Counter(have)
        if w != h:
            problems.append(f'{what}: missing {list(w - h)[:2]} extra {list(h - w)[:2]}')

    shift = expected(db)[-1]

    if 'CUPTI_ACTIVITY_KIND_KERNEL' in t:
        launch = enum(db, t, ['ENUM_CUDA_KERNEL_LAUNCH_TYPE', 'ENUM_CUDA_KRENEL_LAUNCH_TYPE'], LAUNCH_TYPE)
        want = [(st + shift, f'({gx}, {gy}, {gz})', f'({bx}, {by}, {bz})', str(r), str(c), launch.get(lt))
                for st, gx, gy, gz, bx, by, bz, r, c, lt in db.execute(
                    'SELECT start, gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread,'
                    ' correlationId, launchType FROM CUPTI_ACTIVITY_KIND_KERNEL')]
        # A kernel's correlation id is on its launching call when the flow
        # leads to one (docs/performance.md), else on the kernel.
        call_corr = {flow: a.get('correlation id') for cat in ('cuda_runtime', 'cuda_driver')
                     for _, _, _, a, flows in got[cat] for flow in flows}
        have = [(ts, a.get('grid'), a.get('block'), a.get('registers per thread'),
                 a.get('correlation id') or next((call_corr[f] for f in flows if f in call_corr),
                                                 None),
                 a.get('launch type')) for ts, _, _, a, flows in got['kernel']]
        linked = sum(1 for _, _, _, a, flows in got['kernel'] if 'correlation id' not in a)
        if linked and not call_corr:
            problems.append('kernels without a correlation id but no call with flows')
        check('kernel args', want, have)
    if 'CUPTI_ACTIVITY_KIND_MEMCPY' in t:
        kinds = enum(db, t, ['ENUM_CUDA_MEM_KIND'], MEM_KIND)
        want = [(st + shift, f'Memcpy {SHORT[k]} ({kinds[a]} \u2192 {kinds[b]})', str(n))
                for st, k, a, b, n in db.execute(
                    'SELECT start, copyKind, srcKind, dstKind, bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY')]
        have = [(ts, name, a.get('bytes')) for ts, _, name, a, _ in got['memcpy']]
        check('memcpy names and bytes', want, have)
    if 'CUPTI_ACTIVITY_KIND_MEMSET' in t:
        want = [(st + shift, str(n), str(v)) for st, n, v in
                db.execute('SELECT start, bytes, value FROM CUPTI_ACTIVITY_KIND_MEMSET')]
        have = [(ts, a.get('bytes'), a.get('value')) for ts, _, _, a, _ in got['memset']]
        check('memset args', want, have)
    if 'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION' in t:
        types = enum(db, t, ['ENUM_CUPTI_SYNC_TYPE'], SYNC_TYPE)
        want = [(st + shift, types[k]) for st, k in
                db.execute('SELECT start, syncType FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION')]
        have = [(ts, name) for ts, _, name, _, _ in got['sync']]
        check('sync names', want, have)
    if 'CUPTI_ACTIVITY_KIND_RUNTIME' in t:
        want = [(st + shift, s[n], str(r)) for st, n, r in
                db.execute('SELECT start, nameId, returnValue FROM CUPTI_ACTIVITY_KIND_RUNTIME')]
        have = [(ts, a.get('full name', name), a.get('return value', '0'))
                for cat in ('cuda_runtime', 'cuda_driver') for ts, _, name, a, _ in got[cat]]
        check('API full names and return values', want, have)
    if 'TARGET_INFO_NVTX_CUDA_STREAM' in t:
        names = set(got['track names'])
        for name, stream in db.execute('SELECT name, streamId FROM TARGET_INFO_NVTX_CUDA_STREAM'):
            if not any(n.startswith(f'{name} (Stream {stream})') for n in names):
                problems.append(f'no row named {name!r} for NVTX-named stream {stream}')
    graph_events = sum(db.execute(f'SELECT count(*) FROM {g}').fetchone()[0]
                       for g in ('CUDA_GRAPH_EVENTS', 'CUDA_GRAPH_NODE_EVENTS') if g in t)
    if len(got['cuda_graph']) != graph_events:
        problems.append(f'{len(got["cuda_graph"])} graph creation events, expected {graph_events}')
    got.pop('track names', None)
    if problems:
        print('\n'.join(problems))
        return 1
    print('ok: ' + ', '.join(f'{len(v)} {k}' for k, v in got.items()))
    return 0


if __name__ == '__main__':
    sys.exit(main())
