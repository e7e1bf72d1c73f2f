#!/usr/bin/env python3
"""check_sort_marks.py NSYS_PERFETTO NSYS_FIXTURE TRACE_DUMP TRACE_PROCESSOR WORKDIR [REPORT.sqlite.gz]

A trace of one report carries the tracing service's flush and read-buffer
marks every 100,000 packets (pw_writer_mark_sorted), so that trace_processor
sorts it as it reads instead of holding every event to the end. That is
only right if no packet after a mark is older than what trace_processor has
already let out: one older than that is dropped (sorter_push_event_out_of_order).

On a generated report with every kind of row that is written late or held
back (slice ends, scheduling buffered per CPU, samples, counters, GPU
metrics, CUDA graphs, overlapping kernels, times before zero), with several
marks in it, and on a real report when given, each also with a mark every
2,000 packets (NSYSP_PACKETS_PER_MARK), where anything held back would span
windows and be dropped:
- trace_processor sees the marks (two flushes each, its metadata), merged
  reports none;
- trace_processor imports it with no error or data-loss stat;
- it holds every slice, flow, counter value and CPU sample the trace
  carries, as trace_dump counts them.
"""
import gzip
import os
import shutil
import subprocess
import sys

BIN, GEN, DUMP, TP, WORK = sys.argv[1:6]
REPORT_GZ = sys.argv[6] if len(sys.argv) > 6 else None
if not os.path.exists(TP):
    print(f"skip: {TP} absent (../shared)")
    sys.exit(77)
from testlib import expect, failures  # noqa: E402

def dump_counts(trace):
    out = subprocess.run([DUMP, trace], capture_output=True, text=True, check=True).stdout
    kinds, flow_ends = {}, {}
    for line in out.splitlines():
        f = line.split("\t")
        kinds[f[0]] = kinds.get(f[0], 0) + 1
        if f[0] == "F":
            flow_ends[f[1]] = flow_ends.get(f[1], 0) + 1
    # Events with one flow id follow each other: n of them make n - 1 arrows.
    return {"slices": kinds.get("S", 0) + kinds.get("I", 0),
            "flows": sum(n - 1 for n in flow_ends.values()),
            "counters": kinds.get("C", 0), "samples": kinds.get("P", 0)}


QUERY = """
SELECT 'errors', count(*) FROM stats WHERE value > 0 AND severity IN ('error', 'data_loss');
SELECT 'slices', count(*) FROM slice;
SELECT 'flows', count(*) FROM flow;
SELECT 'counters', count(*) FROM counter;
SELECT 'samples', count(*) FROM perf_sample;
SELECT 'flush marks', count(*) FROM metadata WHERE name = 'all_data_source_flushed_ns';
SELECT 'stat ' || name, value FROM stats WHERE value > 0 AND severity IN ('error', 'data_loss');
"""


def imported(trace):
    q = os.path.join(WORK, "q.sql")
    with open(q, "w") as f:
        f.write(QUERY)
    r = subprocess.run([TP, "-q", q, trace], capture_output=True, text=True)
    expect(r.returncode == 0, f"trace_processor on {trace}: {r.stderr[-300:]}")
    got = {}
    for line in r.stdout.splitlines():
        parts = [p.strip('"') for p in line.split(",")]
        if len(parts) == 2 and parts[1].isdigit():
            got[parts[0]] = int(parts[1])
    return got


def check(report, name, min_marks, per_mark=None):
    trace = os.path.join(WORK, name + ".perfetto-trace")
    env = dict(os.environ, NSYSP_PACKETS_PER_MARK=str(per_mark)) if per_mark else None
    subprocess.run([BIN, "-q", "-o", trace, report], check=True, env=env)
    want = dump_counts(trace)
    got = imported(trace)
    # Each mark is two flushes (and a read), as trace_processor records them.
    marks = got.pop("flush marks", 0) // 2
    expect(marks >= min_marks, f"{name}: {marks} marks seen by trace_processor, expected {min_marks}+")
    stats = {k: v for k, v in got.items() if k.startswith("stat ")}
    expect(got.get("errors") == 0, f"{name}: import errors {stats}")
    for k, v in want.items():
        expect(got.get(k) == v, f"{name}: trace_processor has {got.get(k)} {k}, the trace {v}")
    print(f"{name}: {marks} marks; trace_processor holds {got}")
    return trace


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
gen = os.path.join(WORK, "every-kind.sqlite")
subprocess.run([GEN, "--seed", "11", "--events", "150000", "--nvtx", "--osrt", "--sched", "4",
                "--samples", "5000", "--gpu-metrics", "2000", "--graphs", "5", "--overlap-pct", "3",
                "--negative-ts", gen], check=True, stdout=subprocess.DEVNULL)
check(gen, "every-kind", 3)
# Windows of 2,000 packets: scheduling held per CPU, or anything else held
# back, would span several of them.
check(gen, "every-kind-small-windows", 100, per_mark=2000)

# Merged reports each start over in time: no marks.
merged = os.path.join(WORK, "merged.perfetto-trace")
other = os.path.join(WORK, "other.sqlite")
subprocess.run([GEN, "--seed", "12", "--events", "60000", "--nvtx", other], check=True,
               stdout=subprocess.DEVNULL)
subprocess.run([BIN, "-q", "-o", merged, gen, other], check=True)
got = imported(merged)
expect(got.get("flush marks") == 0, "merged reports carry sort marks")
expect(got.get("errors") == 0, "merged reports: import errors")

if REPORT_GZ and os.path.exists(REPORT_GZ):
    report = os.path.join(WORK, "real.sqlite")
    with gzip.open(REPORT_GZ) as src, open(report, "wb") as dst:
        shutil.copyfileobj(src, dst)
    # A real PyTorch report of 94,000 packets: no mark at the default
    # spacing, some 47 at 2,000.
    check(report, os.path.basename(REPORT_GZ).split(".")[0], 0)
    check(report, "real-small-windows", 40, per_mark=2000)

sys.exit(1 if failures else 0)
