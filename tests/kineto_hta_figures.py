#!/usr/bin/env python3
"""kineto_hta_figures.py TRACE_DIR: HTA's figures per rank of the Kineto
JSON files in TRACE_DIR, as JSON on stdout (run under ../shared/tools/run-hta,
where hta is importable; check_kineto_hta.py compares them with ours).

Per rank: the temporal breakdown (idle, compute, non-compute and kernel
time, microseconds), the compute/communication overlap (percent of the
communication), and the kernel time: the summed duration of its GPU
kernels, copies and sets (get_gpu_kernel_breakdown)."""
import json
import logging
import sys

from hta.trace_analysis import TraceAnalysis

logging.disable(logging.WARNING)
analysis = TraceAnalysis(trace_dir=sys.argv[1])
ranks = {}
temporal = analysis.get_temporal_breakdown(visualize=False)
for row in temporal.to_dict("records"):
    ranks[int(row["rank"])] = {
        "idle_us": float(row["idle_time(us)"]),
        "compute_us": float(row["compute_time(us)"]),
        "non_compute_us": float(row["non_compute_time(us)"]),
        "kernel_time_us": float(row["kernel_time(us)"]),
    }
overlap = analysis.get_comm_comp_overlap(visualize=False)
for row in overlap.to_dict("records"):
    ranks[int(row["rank"])]["overlap_pct"] = float(row["comp_comm_overlap_pctg"])
_, metrics = analysis.get_gpu_kernel_breakdown(visualize=False, duration_ratio=1.0,
                                               num_kernels=1 << 30, include_memory_kernels=True)
for rank, total in metrics.groupby("rank")["sum (us)"].sum().items():
    ranks[int(rank)]["kernel_sum_us"] = float(total)
json.dump({str(r): v for r, v in sorted(ranks.items())}, sys.stdout)
