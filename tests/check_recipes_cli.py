#!/usr/bin/python3
"""nsys-perfetto recipe as a command: what it writes and refuses (issue 45).

On a generated job of three reports (kernels, memory operations, CUDA and OS
runtime calls, NVTX with NCCL's domain, MPI over UCX): every recipe that reads its reports apart gives the same
directory run locally, with --threads 1 and 4, folded from --partial outputs
(--from-partials; after the --survey and --plan round where --rounds names
one), and,
when Debian's python3-distributed is there, through tools/recipe_dask.py on a
LocalCluster of two workers (eight recipes); a recipe without data or that
refuses the job answers the same read apart. The binning maps (all but
nic_metric_map, which answers only without data) again on a job whose sessions start apart, with GPU metrics, --bins and --start/--end; a
report binned without the job's plan, or folded with another --bins, is refused. Then what a user gets wrong: an existing output
(refused without --force-overwrite; a directory holding more than files is
never replaced), a corrupt report (one line naming it, exit 4, nothing
written, nothing left behind; of two, the first, whatever --threads), the
statistics recipes' sort left to SQLite (the same bytes), two name ids of
one kernel (one row, as nsys groups kernels by name), a recipe without data (exit 0 as nsys, one line,
nothing written), an unknown
recipe (exit 2), --start after --end (exit 2), and `recipe diff` of two
different recipes (exit 2) or of a run with itself (--drop: no rows left).

  check_recipes_cli.py NSYS_PERFETTO NSYS_FIXTURE TOOLS_DIR WORKDIR"""
import glob
import os
import shutil
import sqlite3
import subprocess
import sys

from testlib import expect, finish

BIN, FIXTURE, TOOLS, WORK = map(os.path.abspath, sys.argv[1:5])
PYTHON = "/usr/bin/python3"


def run(*args, timeout=240):
    return subprocess.run([BIN, "recipe", *args], cwd=WORK, capture_output=True, timeout=timeout)


def files_of(d):
    """Every file of d and its bytes, the .nsys-analysis record by its
    content only (its name follows the directory's); None when there is no
    d (a recipe without data writes nothing)."""
    if not os.path.isdir(d):
        return None
    out = {}
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), "rb") as f:
            out["*.nsys-analysis" if name.endswith(".nsys-analysis") else name] = f.read()
    return out


def one_line(r):
    return r.stderr.count(b"\n") == 1


def save(name, data):
    path = os.path.join(WORK, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def read_apart(name, options, reports, tag):
    """Each report's partial read as recipe_dask.py reads it: the survey
    round first where the CLI says the recipe has one (--rounds), the plan
    folded from the surveys given to every --partial. (None, the partials'
    paths), or (the run that failed, None)."""
    plan = []
    if "survey" in run(name, "--rounds").stdout.decode().split():
        surveys = []
        for k, report in enumerate(reports):
            r = run(name, *options, "--survey", report)
            if r.returncode != 0:
                return r, None
            surveys.append(save(f"{tag}-{k}.survey", r.stdout))
        r = run(name, *options, "--plan", *surveys)
        if r.returncode != 0:
            return r, None
        plan = r.stdout.decode().split("\n")[:-1]
    parts = []
    for k, report in enumerate(reports):
        r = run(name, *options, *plan, "--partial", report)
        if r.returncode != 0:
            return r, None
        parts.append(save(f"{tag}-{k}.partial", r.stdout))
    return None, parts


def run_dask(name, options, output, inputs):
    return subprocess.run([PYTHON, os.path.join(TOOLS, "recipe_dask.py"), "--local", "2",
                           "--nsys-perfetto", BIN, name, *options, "--output", output, *inputs],
                          cwd=WORK, capture_output=True, timeout=300)


def has_dask():
    return subprocess.run([PYTHON, "-c", "import distributed"], capture_output=True).returncode == 0


shutil.rmtree(WORK, ignore_errors=True)
job = os.path.join(WORK, "job")
os.makedirs(job)
for seed in (1, 2, 3):
    subprocess.run([FIXTURE, "--seed", str(seed), "-n", "6000", "--osrt", "--nvtx", "--mpi",
                    "--ucx", os.path.join(job, f"rank{seed}.sqlite")], check=True, capture_output=True)

recipes = [line.split("\t")[0] for line in run("--list").stdout.decode().splitlines()]
expect(len(recipes) >= 6 and "cuda_api_sum" in recipes and "diff" in recipes,
       f"recipe --list names the recipes: {recipes}")
reports = run("cuda_api_sum", "--list-reports", "job").stdout.decode().split("\n")[:-1]
expect(reports == [f"job/rank{k}.sqlite" for k in (1, 2, 3)], f"the job's reports in order: {reports}")

dask = has_dask()
# A LocalCluster takes seconds to start: the driver is the same for every
# recipe, so recipes of different shapes are run through it (one with an
# option that takes a value).
DASK_CHECKED = ("cuda_api_sum", "nvtx_sum", "nvtx_gpu_proj_pace", "cuda_gpu_time_util_map",
                "gpu_gaps", "nccl_gpu_time_util_map", "mpi_gpu_time_util_map",
                "ucx_gpu_time_util_map")
# What the recipes that need an option are given: the fixture's names.
OPTIONS = {"cuda_gpu_kern_pace": ["--name", "gemm_kernel"], "nvtx_pace": ["--name", "forward"],
           "nvtx_gpu_proj_pace": ["--name", "forward"], "gpu_gaps": ["--gap", "1"]}
# The recipes that run on one machine only (docs/recipes.md, "Running recipes
# apart"): diff reads outputs, not reports; nvtx_gpu_proj_trace's part would
# be its events. Every other recipe reads its reports apart (the binning maps
# after a survey round).
LOCAL_ONLY = ["diff", "nvtx_gpu_proj_trace"]
local_only = [name for name in recipes
              if run(name, *OPTIONS.get(name, []), "--list-reports", "job").returncode != 0]
expect(local_only == LOCAL_ONLY, f"the recipes that run on one machine only: {local_only}")
if not dask:
    print("note: no python3-distributed here; the Dask runs are not checked")
for name in recipes:
    options = OPTIONS.get(name, [])
    if name in local_only:
        continue
    local = run(name, *options, "--output", f"{name}-local", "job")
    if local.returncode != 0 or not os.path.isdir(os.path.join(WORK, f"{name}-local")):
        # No data, or a refusal (a map this project does not compute yet):
        # read apart, the same answer.
        failed, parts = read_apart(name, options, reports, name)
        if failed:
            same = failed.returncode == local.returncode and failed.stderr == local.stderr
        else:
            folded = run(name, *options, "--from-partials", "--output", f"{name}-folded", *parts)
            same = (folded.returncode == local.returncode == 0 and folded.stderr == local.stderr
                    and not os.path.exists(os.path.join(WORK, f"{name}-folded")))
        expect(same, f"{name}: read apart, the same answer as the local run's "
                     f"(exit {local.returncode}, {local.stderr[-200:]!r})")
        continue
    want = files_of(os.path.join(WORK, f"{name}-local"))
    if want is None:
        expect(b"no output generated" in local.stderr and one_line(local),
               f"{name}: no data on this job says so in one line: {local.stderr!r}")
    expect(want is None or "README.md" in want and "*.nsys-analysis" in want,
           f"{name}: README.md and the .nsys-analysis record written: {sorted(want or [])}")
    expect(want is None or f'"RecipeName": "{name}"'.encode() in want.get("*.nsys-analysis", b""),
           f"{name}: the record names the recipe")
    # Reports read at once: the same bytes whatever the number of threads.
    for threads in ("1", "4"):
        t = run(name, *options, "--threads", threads, "--output", f"{name}-threads{threads}", "job")
        expect(t.returncode == 0 and files_of(os.path.join(WORK, f"{name}-threads{threads}")) == want,
               f"{name}: --threads {threads} writes what the default does ({t.stderr[-200:]})")
    failed, parts = read_apart(name, options, reports, name)
    expect(failed is None, f"{name} read apart: exit {failed and failed.returncode} "
                           f"{failed and failed.stderr[-200:]}")
    folded = run(name, *options, "--from-partials", "--output", f"{name}-folded", *(parts or []))
    expect(folded.returncode == 0 and files_of(os.path.join(WORK, f"{name}-folded")) == want,
           f"{name}: folded from partials equals the local run ({folded.stderr[-200:]})")
    if dask and name in DASK_CHECKED:
        d = run_dask(name, options, f"{name}-dask", ["job"])
        expect(d.returncode == 0 and files_of(os.path.join(WORK, f"{name}-dask")) == want,
               f"{name}: the Dask run equals the local run (exit {d.returncode} {d.stderr[-300:]})")

# The binning maps on a job whose sessions start apart (the job's window is
# not one report's), one report with GPU metrics (the 2022 schema's
# GENERIC_EVENTS): read apart on the job's grid, the local run's bytes.
shifted = os.path.join(WORK, "shifted")
os.makedirs(shifted)
for k, report in enumerate(reports):
    shutil.copy(os.path.join(WORK, report), os.path.join(shifted, f"rank{k + 1}.sqlite"))
subprocess.run([FIXTURE, "--schema", "2022", "--seed", "5", "-n", "3000", "--gpu-metrics", "1000",
                os.path.join(shifted, "rank4.sqlite")], check=True, capture_output=True)
with sqlite3.connect(os.path.join(shifted, "rank1.sqlite")) as db:
    rank1_start = db.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()[0]
db.close()
for k, shift in ((2, 37000003), (3, -11000007), (4, 5000011)):
    with sqlite3.connect(os.path.join(shifted, f"rank{k}.sqlite")) as db:
        db.execute("UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = ?", (rank1_start + shift,))
    db.close()
shifted_reports = [f"shifted/rank{k}.sqlite" for k in (1, 2, 3, 4)]
WINDOWED = ["--bins", "7", "--start", "3000000", "--end", "15000000"]  # within rank4's samples
BINNING_MAPS = ("cuda_gpu_time_util_map", "gpu_metric_util_map", "nccl_gpu_time_util_map",
                "mpi_gpu_time_util_map", "ucx_gpu_time_util_map")
for name in BINNING_MAPS:
    for options in ([], WINDOWED, ["--bins", "100", "--cumulative"]):
        tag = f"{name}-shifted-{len(options)}"
        local = run(name, *options, "--output", f"{tag}-local", "shifted")
        want = files_of(os.path.join(WORK, f"{tag}-local"))
        failed, parts = read_apart(name, options, shifted_reports, tag)
        folded = failed or run(name, *options, "--from-partials", "--output", f"{tag}-folded", *parts)
        expect(local.returncode == 0 and want and "analysis.csv" in want and folded.returncode == 0
               and files_of(os.path.join(WORK, f"{tag}-folded")) == want,
               f"{name} {options}: sessions apart, folded equals local ({folded.stderr[-200:]})")
        if dask and name == "gpu_metric_util_map" and options == WINDOWED:
            d = run_dask(name, options, f"{tag}-dask", ["shifted"])
            expect(d.returncode == 0 and files_of(os.path.join(WORK, f"{tag}-dask")) == want,
                   f"{name} {options}: the Dask run equals the local run ({d.stderr[-300:]})")
unplanned = run("cuda_gpu_time_util_map", "--partial", shifted_reports[0])
expect(unplanned.returncode == 2 and one_line(unplanned) and b"--job-window" in unplanned.stderr,
       f"a map's --partial without the job's plan is refused: {unplanned.returncode} {unplanned.stderr!r}")
parts = sorted(glob.glob(os.path.join(WORK, "cuda_gpu_time_util_map-shifted-0-*.partial")))
rebinned = run("cuda_gpu_time_util_map", "--bins", "8", "--from-partials", "--output", "rebinned", *parts)
expect(rebinned.returncode == 4 and one_line(rebinned) and not os.path.exists(os.path.join(WORK, "rebinned")),
       f"partials binned in 30 bins folded with --bins 8 are refused: {rebinned.returncode} {rebinned.stderr!r}")

# --mode dask-futures: the CLI runs the driver itself (a local cluster when
# DASK_SCHEDULER_ADDRESS is unset), the same files; an unknown mode is refused.
if dask:
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    m = subprocess.run([BIN, "recipe", "cuda_api_sum", "--mode", "dask-futures", "--output",
                        "mode-dask", "job"], cwd=WORK, capture_output=True, timeout=300, env=env)
    expect(m.returncode == 0 and files_of(os.path.join(WORK, "mode-dask")) ==
           files_of(os.path.join(WORK, "cuda_api_sum-local")),
           f"--mode dask-futures equals the local run (exit {m.returncode} {m.stderr[-300:]})")
bad_mode = run("cuda_api_sum", "--mode", "threads", "--output", "x", "job")
expect(bad_mode.returncode == 2 and one_line(bad_mode), f"an unknown --mode exits 2: {bad_mode.returncode}")

# .nsys-rep inputs: exported with $NSYS (here a stand-in that copies), several
# at once, the same bytes as the exports themselves; an export beside its
# report and newer than it is read as it is, as nsys's recipes reuse theirs.
FAKE_NSYS = """#!%s
import os, shutil, sys
args = sys.argv[1:]
if "--help" in args:  # an nsys without export --tables (2022.4): whole exports
    sys.exit(0)
with open(os.environ["FAKE_NSYS_CALLS"], "a") as f:
    f.write(args[-1] + "\\n")
shutil.copyfile(args[-1], args[args.index("--output") + 1])
""" % sys.executable
reps = os.path.join(WORK, "reps")
os.makedirs(reps)
for k in (1, 2, 3):
    shutil.copy(os.path.join(job, f"rank{k}.sqlite"), os.path.join(reps, f"rank{k}.nsys-rep"))
fake = os.path.join(WORK, "fake-nsys")
with open(fake, "w") as f:
    f.write(FAKE_NSYS)
os.chmod(fake, 0o755)
calls = os.path.join(WORK, "nsys-calls")
env = dict(os.environ, NSYS=fake, FAKE_NSYS_CALLS=calls)
rep_names = [os.path.join("reps", f"rank{k}.nsys-rep") for k in (1, 2, 3)]
for threads in ("1", "3"):
    r = subprocess.run([BIN, "recipe", "cuda_api_sum", "--threads", threads, "--output",
                        f"from-reps-{threads}", *rep_names], cwd=WORK, capture_output=True, env=env)
    got = files_of(os.path.join(WORK, f"from-reps-{threads}")) or {}
    want_reps = {k: v for k, v in files_of(os.path.join(WORK, "cuda_api_sum-local")).items()
                 if k.endswith(".csv")}
    expect(r.returncode == 0 and {k: v for k, v in got.items() if k.endswith(".csv")} == want_reps,
           f".nsys-rep inputs, --threads {threads}: the exports' tables ({r.stderr[-200:]!r})")
with open(calls) as f:
    expect(len(f.read().splitlines()) == 6, "each .nsys-rep exported once a run")
os.remove(calls)
shutil.copy(os.path.join(job, "rank2.sqlite"), os.path.join(reps, "rank2.sqlite"))  # newer
r = subprocess.run([BIN, "recipe", "cuda_api_sum", "--output", "from-reps-beside", *rep_names],
                   cwd=WORK, capture_output=True, env=env)
with open(calls) as f:
    exported = f.read().splitlines()
expect(r.returncode == 0 and len(exported) == 2 and not any("rank2" in c for c in exported),
       f"an up-to-date export beside its report is read, not redone: {exported}")

# An existing output is kept unless asked; only a directory of files is replaced.
again = run("cuda_api_sum", "--output", "cuda_api_sum-local", "job")
expect(again.returncode == 6 and one_line(again), f"an existing output is refused: {again.returncode}")
forced = run("cuda_api_sum", "--force-overwrite", "--output", "cuda_api_sum-local", "job")
expect(forced.returncode == 0, f"--force-overwrite replaces it: {forced.returncode} {forced.stderr}")
os.makedirs(os.path.join(WORK, "keep", "sub"))
kept = run("cuda_api_sum", "--force-overwrite", "--output", "keep", "job")
expect(kept.returncode == 6 and os.path.isdir(os.path.join(WORK, "keep", "sub")),
       f"a directory holding a directory is never replaced: {kept.returncode}")

# A corrupt report: one line naming it, nothing written or left behind.
with open(os.path.join(WORK, "corrupt.sqlite"), "wb") as f:
    f.write(b"SQLite format 3\0" + b"\xff" * 4000)
bad = run("cuda_api_sum", "--output", "bad-out", "job/rank1.sqlite", "corrupt.sqlite")
expect(bad.returncode in (4, 5) and one_line(bad) and b"corrupt.sqlite" in bad.stderr,
       f"a corrupt report: exit {bad.returncode}, {bad.stderr!r}")
expect(not os.path.exists(os.path.join(WORK, "bad-out")) and not glob.glob(os.path.join(WORK, "bad-out.partial-*")),
       "a failed run writes nothing and leaves nothing behind")

# Two corrupt reports read at once: the error is the first one's in job
# order, as when reports are read one by one.
with open(os.path.join(WORK, "corrupt2.sqlite"), "wb") as f:
    f.write(b"SQLite format 3\0" + b"\xee" * 4000)
for threads in ("1", "3"):
    both = run("cuda_gpu_kern_sum", "--threads", threads, "--output", "bad-out", "job/rank1.sqlite",
               "corrupt.sqlite", "corrupt2.sqlite")
    expect(both.returncode in (4, 5) and one_line(both) and b"corrupt.sqlite" in both.stderr and
           not os.path.exists(os.path.join(WORK, "bad-out")),
           f"--threads {threads}: the first corrupt report is named: {both.returncode} {both.stderr!r}")
bad_threads = run("cuda_api_sum", "--threads", "0", "--output", "x", "job")
expect(bad_threads.returncode == 2 and one_line(bad_threads), f"--threads 0 exits 2: {bad_threads.returncode}")

# The statistics recipes sort each name's values in memory up to a fixed
# size and leave larger sorts to SQLite: both ways give the same bytes.
for name in ("cuda_api_sum", "cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum", "osrt_sum"):
    env = dict(os.environ, NSYSP_RECIPE_SORT_BYTES="0")
    s = subprocess.run([BIN, "recipe", name, "--output", f"{name}-sqlite-sort", "job"], cwd=WORK,
                       capture_output=True, timeout=240, env=env)
    expect(s.returncode == 0 and files_of(os.path.join(WORK, f"{name}-sqlite-sort")) ==
           files_of(os.path.join(WORK, f"{name}-local")),
           f"{name}: SQLite's sort gives what the sort in memory does ({s.stderr[-200:]})")

# Kernels are grouped by name id: a report where two ids name one kernel
# (half its instances under a copy of its name) gives what the report does.
dup = os.path.join(WORK, "dup", "rank1.sqlite")
os.makedirs(os.path.dirname(dup))
shutil.copy(os.path.join(job, "rank1.sqlite"), dup)
with sqlite3.connect(dup) as con:
    name_id = con.execute("SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL"
                          " GROUP BY 1 ORDER BY count(*) DESC LIMIT 1").fetchone()[0]
    copy_id = con.execute("SELECT max(id) + 1 FROM StringIds").fetchone()[0]
    con.execute("INSERT INTO StringIds SELECT ?, value FROM StringIds WHERE id = ?", (copy_id, name_id))
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = ?"
                " WHERE demangledName = ? AND rowid % 2 = 0", (copy_id, name_id))
con.close()
one = run("cuda_gpu_kern_sum", "--output", "kern-one", "job/rank1.sqlite")
two = run("cuda_gpu_kern_sum", "--output", "kern-two-ids", dup)
expect(one.returncode == 0 and two.returncode == 0 and
       files_of(os.path.join(WORK, "kern-one"))["all_stats.csv"] ==
       files_of(os.path.join(WORK, "kern-two-ids"))["all_stats.csv"],
       f"two ids of one kernel name are one row, as nsys groups by name ({two.stderr[-200:]})")

# A call without a name id (NULL) is a group of its own, wherever it comes:
# the names after it keep theirs.
nameless = os.path.join(WORK, "nameless", "rank1.sqlite")
os.makedirs(os.path.dirname(nameless))
shutil.copy(os.path.join(job, "rank1.sqlite"), nameless)
with sqlite3.connect(nameless) as con:
    # the table rebuilt without its NOT NULL, a copy of its first call, nameless, first
    con.executescript(
        "CREATE TABLE t AS SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY rowid LIMIT 1;"
        "UPDATE t SET nameId = NULL;"
        "INSERT INTO t SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY rowid;"
        "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;"
        "ALTER TABLE t RENAME TO CUPTI_ACTIVITY_KIND_RUNTIME;")
con.close()
named = run("cuda_api_sum", "--output", "api-named", "job/rank1.sqlite")
with_nameless = run("cuda_api_sum", "--output", "api-nameless", nameless)
rows = lambda d: files_of(os.path.join(WORK, d))["rank_stats.csv"].splitlines()[1:]  # noqa: E731
expect(named.returncode == 0 and with_nameless.returncode == 0 and
       len(rows("api-nameless")) == len(rows("api-named")) + 1 and
       sum(1 for r in rows("api-nameless") if r.startswith(b",")) == 1,
       f"a nameless call first: its own row, and every name its own after it "
       f"({len(rows('api-named'))} names, {len(rows('api-nameless')) if with_nameless.returncode == 0 else '-'} rows)")

# No data, unknown recipe, bad window.
cpu = os.path.join(WORK, "cpu-only.sqlite")
subprocess.run([FIXTURE, "--seed", "4", "-n", "2000", "--gpus", "1", cpu], check=True, capture_output=True)
nodata = run("osrt_sum", "--output", "nodata", cpu)
expect(nodata.returncode == 0 and one_line(nodata) and not os.path.exists(os.path.join(WORK, "nodata")),
       f"a recipe without data exits 0 with one line, as nsys: {nodata.returncode} {nodata.stderr!r}")
unknown = run("no_such_recipe", "--output", "x", "job")
expect(unknown.returncode == 2 and one_line(unknown), f"an unknown recipe exits 2: {unknown.returncode}")
window = run("cuda_api_sum", "--start", "9", "--end", "5", "--output", "x", "job")
expect(window.returncode == 2 and one_line(window), f"--start after --end exits 2: {window.returncode}")

# diff: the same recipe only; a run against itself changes nothing.
other = run("cuda_gpu_kern_sum", "--output", "kern", "job")
mixed = run("diff", "--output", "mixed", "cuda_api_sum-local", "kern")
expect(other.returncode == 0 and mixed.returncode == 2 and one_line(mixed),
       f"diff of two recipes' outputs exits 2: {mixed.returncode} {mixed.stderr!r}")
same = run("diff", "--drop", "--output", "same", "cuda_api_sum-local", "cuda_api_sum-local")
rows = [len(open(os.path.join(WORK, "same", f)).read().splitlines()) for f in ("rank_stats.csv", "all_stats.csv")] \
    if same.returncode == 0 else None
expect(rows == [1, 1], f"diff --drop of a run with itself leaves only the headers: {rows} {same.stderr!r}")
finish()
