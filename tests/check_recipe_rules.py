#!/usr/bin/env python3
"""The rules recipes (cuda_api_sync, cuda_memcpy_async, cuda_memcpy_sync,
cuda_memset_sync, dx12_mem_ops, gpu_gaps, gpu_time_util) on small reports
written here, for what the corpus goldens cannot show: the options (--nvtx
with its domain and instance, --start/--end, --rows, --gap, --threshold,
--chunks), a column that pandas makes float64 (a green context beside
none), DX12 memory operations (no corpus report has any), and the answers
without data (exit 0 as nsys, one line, no directory) or with a bad --chunks (exit 2).
Each expected analysis.csv is what nsys 2023.4's recipe wrote for the same
reports (its analysis.parquet read back with pandas, to_csv(index=False)).

  check_recipe_rules.py NSYS_PERFETTO WORKDIR"""
import os
import shutil
import sqlite3
import subprocess
import sys

from testlib import expect, finish

PID = 100
MAIN = (PID << 24) | PID  # its tid is its pid: NVTX ranges there filter by process
WORKER = (PID << 24) | 101


def make_report(path, tables):
    """A report with the tables (name: (columns, rows)) and StringIds."""
    db = sqlite3.connect(path)
    for name, (columns, rows) in tables.items():
        db.execute(f"CREATE TABLE {name} ({', '.join(columns)})")
        marks = ", ".join("?" * len(columns))
        db.executemany(f"INSERT INTO {name} VALUES ({marks})", rows)
    db.commit()
    db.close()


NAMES = ["cudaDeviceSynchronize_v3020", "cudaStreamSynchronize_v3020", "cudaMemcpy_v3020",
         "cudaMemcpyAsync_v3020", "cudaMemset_v3020", "cudaLaunchKernel_v7000", "kernel",
         "ID3D12Device::CreateHeap", "ID3D12Resource::WriteToSubresource"]
STRINGS = (["id", "value"], list(enumerate(NAMES, 1)))
GPU = ["start", "end", "deviceId", "contextId", "streamId", "globalPid", "correlationId"]


def make_reports(work):
    """a: CUDA calls, kernels, copies, a memset and NVTX ranges; b: one call;
    dx: DX12 memory operations; empty: nothing a rule reads."""
    runtime = (["start", "end", "globalTid", "nameId", "correlationId"], [
        (1000, 1500, MAIN, 1, 1), (2000, 2300, WORKER, 2, 2), (5000, 5900, WORKER, 1, 3),
        (3000, 3100, MAIN, 3, 10), (3200, 3300, MAIN, 4, 11), (3400, 3450, MAIN, 5, 12),
        (3500, 3600, MAIN, 3, 13), (100, 150, MAIN, 6, 20)])
    kernels = (GPU + ["demangledName", "shortName"], [
        (200, 1000, 0, 1, 7, PID << 24, 20, 7, 7),
        (350000000, 500000000, 0, 1, 7, PID << 24, 20, 7, 7),
        (700000000, 700001000, 0, 1, 7, PID << 24, 20, 7, 7)])
    copies = (GPU + ["bytes", "copyKind", "srcKind", "dstKind", "srcDeviceId", "dstDeviceId",
                     "greenContextId"], [
        (3050, 3090, 0, 1, 7, PID << 24, 10, 100000, 1, 0, 2, None, None, 0),
        (3250, 3280, 0, 1, 7, PID << 24, 11, 10, 1, 0, 2, None, None, 0),
        (3520, 3580, 0, 2, 7, PID << 24, 13, 1000, 2, 2, 1, None, None, 5)])
    memsets = (GPU + ["bytes", "memKind", "greenContextId"], [
        (3420, 3440, 0, 1, 7, PID << 24, 12, 64, 1, 0)])
    kinds = (["id", "name", "label"], [(0, "PAGEABLE", "Pageable"), (1, "PINNED", "Pinned"),
                                       (2, "DEVICE", "Device"), (4, "MANAGED", "Managed")])
    nvtx = (["start", "end", "eventType", "globalTid", "text", "textId", "domainId"], [
        (0, None, 75, MAIN, "dom", None, 1),
        (900, 2500, 59, WORKER, "step", None, 0),
        (4000, 6000, 59, WORKER, None, 7, 0),  # "kernel", by its id
        (4100, 6100, 59, WORKER, "step", None, 0),
        (4500, 7000, 59, MAIN, "step", None, 1)])
    make_report(os.path.join(work, "a.sqlite"), {
        "StringIds": STRINGS, "CUPTI_ACTIVITY_KIND_RUNTIME": runtime,
        "CUPTI_ACTIVITY_KIND_KERNEL": kernels, "CUPTI_ACTIVITY_KIND_MEMCPY": copies,
        "CUPTI_ACTIVITY_KIND_MEMSET": memsets, "ENUM_CUDA_MEM_KIND": kinds, "NVTX_EVENTS": nvtx})
    make_report(os.path.join(work, "b.sqlite"), {
        "StringIds": STRINGS,
        "CUPTI_ACTIVITY_KIND_RUNTIME": (runtime[0], [(10, 40, MAIN, 2, 1)])})
    make_report(os.path.join(work, "dx.sqlite"), {
        "StringIds": STRINGS,
        "DX12_API": (["id", "start", "end", "globalTid", "nameId"], [
            (1, 100, 400, MAIN, 8), (2, 500, 600, WORKER, 9), (3, 700, 1700, MAIN, 8)]),
        "DX12_MEMORY_OPERATION": (["traceEventId", "gpu", "heapFlags", "heapType",
                                   "cpuPageProperty"], [
            (1, 0, 0, 1, 0), (2, 1, 0, 2, 0), (3, 0, 4096, 1, 0)])})
    make_report(os.path.join(work, "empty.sqlite"), {"StringIds": STRINGS})


def run(bin_, work, name, args, reports):
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([bin_, "recipe", name, "--output", out, *args,
                        *(os.path.join(work, r + ".sqlite") for r in reports)],
                       capture_output=True, text=True)
    csv = os.path.join(out, "analysis.csv")
    text = open(csv).read() if os.path.exists(csv) else None
    return p.returncode, p.stderr, text, os.path.exists(out)


SYNC = "Duration,Start,PID,TID,API Name,File\n"
COPY = ("Duration,Start,Src Kind,Dst Kind,Bytes,PID,Device ID,Context ID,Green Context ID,"
        "Stream ID,API Name,File\n")
# (recipe, options, reports, analysis.csv as nsys 2023.4 writes it)
CASES = [
    ("cuda_api_sync", [], ["a", "b"],
     SYNC + "900,5000,100,101,cudaDeviceSynchronize_v3020,a\n"
     "500,1000,100,100,cudaDeviceSynchronize_v3020,a\n"
     "300,2000,100,101,cudaStreamSynchronize_v3020,a\n"
     "30,10,100,100,cudaStreamSynchronize_v3020,b\n"),
    # The first "step" (by start) of the default domain, on the worker thread:
    # its calls only; b has no NVTX and is left out.
    ("cuda_api_sync", ["--nvtx", "step"], ["a", "b"],
     SYNC + "300,2000,100,101,cudaStreamSynchronize_v3020,a\n"),
    # Its second instance; a range named by its string id.
    ("cuda_api_sync", ["--nvtx", "step/1"], ["a"],
     SYNC + "900,5000,100,101,cudaDeviceSynchronize_v3020,a\n"),
    ("cuda_api_sync", ["--nvtx", "kernel"], ["a"],
     SYNC + "900,5000,100,101,cudaDeviceSynchronize_v3020,a\n"),
    # In domain "dom" on the main thread (tid = pid): its whole process.
    ("cuda_api_sync", ["--nvtx", "step@dom"], ["a"],
     SYNC + "900,5000,100,101,cudaDeviceSynchronize_v3020,a\n"),
    # An explicit start overrides the range's.
    ("cuda_api_sync", ["--nvtx", "step", "--start", "2400"], ["a"], None),
    ("cuda_api_sync", ["--start", "1400", "--end", "2100"], ["a", "b"],
     SYNC + "500,1000,100,100,cudaDeviceSynchronize_v3020,a\n"
     "300,2000,100,101,cudaStreamSynchronize_v3020,a\n"),
    ("cuda_api_sync", ["--rows", "1"], ["a", "b"],
     SYNC + "900,5000,100,101,cudaDeviceSynchronize_v3020,a\n"
     "30,10,100,100,cudaStreamSynchronize_v3020,b\n"),
    ("cuda_api_sync", ["--nvtx", "nope"], ["a", "b"], None),
    # A green context beside none: float64, as pandas reads it.
    ("cuda_memcpy_sync", [], ["a"],
     COPY + "60,3520,Device,Pinned,1000,100,0,2,5.0,7,cudaMemcpy_v3020,a\n"
     "40,3050,Pageable,Device,100000,100,0,1,,7,cudaMemcpy_v3020,a\n"),
    ("cuda_memcpy_async", [], ["a", "b"],
     COPY + "30,3250,Pageable,Device,10,100,0,1,,7,cudaMemcpyAsync_v3020,a\n"),
    ("cuda_memset_sync", [], ["a"],
     "Duration,Start,Memory Kind,Bytes,PID,Device ID,Context ID,Green Context ID,Stream ID,"
     "API Name,File\n20,3420,Pinned,64,100,0,1,,7,cudaMemset_v3020,a\n"),
    ("gpu_gaps", [], ["a"], None),  # none over 500 ms
    ("gpu_gaps", ["--gap", "100"], ["a", "b"],
     "Row#,Duration,Start,PID,Device ID,Context ID,File\n"
     "1,349996420,3580,100,0,2,a\n2,200000000,500000000,100,0,1,a\n"),
    # rows=: the longest ones.
    ("gpu_gaps", ["--gap", "0", "--rows", "2"], ["a"],
     "Row#,Duration,Start,PID,Device ID,Context ID,File\n"
     "1,349996420,3580,100,0,2,a\n2,200000000,500000000,100,0,1,a\n"),
    ("gpu_time_util", [], ["a"],
     "Row#,In-Use,Duration,Start,PID,Device ID,Context ID,File\n"
     "1,0.0,350000400,200,100,0,1,a\n2,4.8,210000240,490000760,100,0,1,a\n"),
    ("gpu_time_util", ["--chunks", "2", "--threshold", "40"], ["a"],
     "Row#,In-Use,Duration,Start,PID,Device ID,Context ID,File\n"
     "1,0.0,350000400,200,100,0,1,a\n"),
    ("dx12_mem_ops", [], ["dx", "a"],
     "Duration,Start,TID,Device ID,Warning Type,File\n"
     "300,100,100,0,D3D12_HEAP_CREATED_WITH_ZEROING,dx\n"
     "100,500,101,1,D3D12_WRITE_TO_READBACK_HEAP_SUBRESOURCE,dx\n"),
]


def main():
    bin_, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    make_reports(work)
    for name, args, reports, want in CASES:
        what = f"{name} {' '.join(args)} on {', '.join(reports)}"
        rc, err, text, made = run(bin_, work, name, args, reports)
        if want is None:
            expect(rc == 0 and not made and err.count("\n") == 1,
                   f"{what}: no data: exit 0, one line, no directory (exit {rc}: {err!r})")
        else:
            expect(rc == 0 and text == want, f"{what}: exit {rc} {err!r}, got\n{text}\nwanted\n{want}")
    for recipe in ("cuda_api_sync", "gpu_gaps", "gpu_time_util", "cuda_memset_sync",
                   "dx12_mem_ops"):
        rc, err, _, made = run(bin_, work, recipe, [], ["empty"])
        expect(rc == 0 and not made and err.count("\n") == 1 and "no report has" in err,
               f"{recipe} without data: exit 0, one line, no directory (exit {rc}: {err!r})")
    for chunks in ("1001", "-1"):
        rc, err, _, made = run(bin_, work, "gpu_time_util", ["--chunks", chunks], ["a"])
        expect(rc == 2 and not made and "--chunks" in err,
               f"gpu_time_util --chunks {chunks}: exit 2 naming the option (exit {rc}: {err!r})")
    rc, err, _, _ = run(bin_, work, "gpu_gaps", ["--gap", "x"], ["a"])
    expect(rc == 2 and "--gap" in err, f"gpu_gaps --gap x: exit 2 naming the option ({err!r})")
    finish()


if __name__ == "__main__":
    main()
