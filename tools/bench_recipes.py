#!/usr/bin/env python3
"""bench_recipes.py: nsys-perfetto recipe against nsys 2023.4's `nsys recipe`.

    python3 tools/bench_recipes.py --nsys PATH/TO/nsys-2023.4/nsys [--build build]
        [--ranks 16] [--kernels-per-step N] [--job-seconds T] [--runs 3]
        [--recipes cuda_api_sum,cuda_gpu_kern_sum,...] [--reports DIR] [--threads N]

Makes a job of --ranks reports with nsys-fixture's job mode (cached in
BUILD/bench-recipes), and for each recipe times, over --runs runs (the
median), `nsys recipe NAME --input DIR --csv` and `nsys-perfetto recipe NAME
--output DIR` on the same reports, and the peak RSS of each (the process
and its children); ours both with --threads N (default: the CPUs, as the
command's own default) and with one thread, whose time is the work itself
on a machine shared with others. nsys recipe takes .nsys-rep files: the exports sit
beside empty .nsys-rep stand-ins made earlier, so that nsys reads them as
they are ("with the exports already made"); --reports DIR times both on
real .nsys-rep reports instead, each run exporting them first (nsys-perfetto
exports with the same nsys: "the export counted for both"). Both outputs
are compared file by file. Memory: ours is run again on a job with four
times the events; its peak RSS must not grow with them.

Prints a row per recipe and exits 1 when ours is not at least 20 times as
fast, or an output differs, or memory grew with events. "not compared": nsys
wrote Parquet only, or nothing: the recipes that read Parquet cannot export
it from the stand-ins (time them with --reports; the tests compare them). Not part of the
test suite: timings vary with the machine; run it on an idle one.
"""
import argparse
import csv
import io
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

STATS = ["cuda_api_sum", "cuda_gpu_kern_sum", "cuda_gpu_mem_size_sum", "cuda_gpu_mem_time_sum",
         "osrt_sum"]


def timed(cmd, cwd=None, env=None):
    """(seconds, peak RSS MiB, exit status, CPU seconds (user + system) of the
    command and every process it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    p.wait()
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, usage.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status), cpu


def threads_option(threads):
    return ["--threads", str(threads)] if threads else []


def make_job(build, ranks, kernels, seconds, directory):
    """A job of ranks reports (cached), as directory/rank*.sqlite."""
    if not os.path.exists(os.path.join(directory, "rank0.sqlite")):
        os.makedirs(directory, exist_ok=True)
        subprocess.run([os.path.join(build, "nsys-fixture"), "--job", str(ranks),
                        "--kernels-per-step", str(kernels), "--job-seconds", str(seconds),
                        directory], check=True, capture_output=True)
    return sorted(os.path.join(directory, f) for f in os.listdir(directory)
                  if f.endswith(".sqlite"))


def in_goldens_tool(code):
    """Runs code with tools/make_recipe_goldens.py imported as goldens, in a
    process of its own: pandas stays out of this one, whose size every
    timed child would otherwise report as its own peak RSS (fork)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {here!r}); "
                           f"import make_recipe_goldens as goldens; {code}"],
                          check=True, capture_output=True, text=True).stdout


def parquet_dirs(reports):
    """NAME_pqtdir/ beside each export, as nsys 2023.4's recipes export them
    from a .nsys-rep for the recipes that read tables rather than nsys stats
    reports (the maps, pace, NVTX ones), made with the same Parquet stand-in
    as the goldens (tools/make_recipe_goldens.py); cached beside the job.
    Returns the stand-in's Python path, which nsys's recipes need to read them."""
    for r in reports:
        d = r[:-len(".sqlite")] + "_pqtdir"
        if not os.path.isdir(d):
            shutil.rmtree(d + ".tmp", ignore_errors=True)
            in_goldens_tool(f"goldens.sqlite_to_parquet_dir({r!r}, {d + '.tmp'!r})")
            os.rename(d + ".tmp", d)
    return in_goldens_tool("print(goldens.PYSHIM)").strip()


def stand_ins(reports, directory):
    """directory/NAME.nsys-rep (empty, older) beside a copy of each export and
    of its Parquet export: nsys recipe reads them as its own exports."""
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    for r in reports:
        open(os.path.join(directory, os.path.basename(r)[:-len(".sqlite")] + ".nsys-rep"), "w").close()
    time.sleep(1.1)  # nsys keeps an export made after its report
    refresh_stand_ins(reports, directory)
    return directory


def refresh_stand_ins(reports, directory):
    """Puts back what a run of nsys removed (it deletes an export it cannot redo)."""
    for r in reports:
        shutil.copy(r, directory)
        pqt = r[:-len(".sqlite")] + "_pqtdir"
        dst = os.path.join(directory, os.path.basename(pqt))
        if os.path.isdir(pqt) and not os.path.isdir(dst):
            shutil.copytree(pqt, dst)


def parquet_as_csv(directory):
    """{NAME.csv: text} of the Parquet tables nsys wrote, as the goldens read them."""
    import json
    return json.loads(in_goldens_tool(
        f"import json, os; d = {directory!r}; print(json.dumps({{f[:-8] + '.csv': "
        f"goldens.parquet_to_csv_text(os.path.join(d, f)) for f in os.listdir(d) "
        f"if f.endswith('.parquet')}}))"))


def same_outputs(a, b, parquet=False):
    if not os.path.isdir(a):  # nsys wrote nothing: no data
        return None if os.path.isdir(b) else True
    names = sorted(f for f in os.listdir(a) if f.endswith(".csv"))
    if not names and parquet:
        tables = parquet_as_csv(a)
        rows = lambda text: list(csv.reader(io.StringIO(text)))  # noqa: E731
        return bool(tables) and all(
            os.path.exists(os.path.join(b, n)) and rows(open(os.path.join(b, n)).read()) == rows(text)
            for n, text in tables.items())
    if not names:
        return None  # nsys wrote Parquet only: compared by the tests, not here
    return all(
        os.path.exists(os.path.join(b, n)) and
        open(os.path.join(a, n), "rb").read() == open(os.path.join(b, n), "rb").read()
        for n in names)


def csv_option(nsys, recipe):
    """--csv where the recipe takes it (the maps and pace recipes write only
    Parquet and refuse it)."""
    h = subprocess.run([nsys, "recipe", recipe, "--help"], capture_output=True, text=True)
    return ["--csv"] if "--csv" in h.stdout else []


def bench(opts, recipe, inputs, ours_inputs, work, refresh, nsys_env):
    theirs, ours, one = [], [], []
    for k in range(opts.runs):
        refresh()  # nsys deletes an export it fails to redo (a table it lacks)
        out = os.path.join(work, f"nv-{recipe}-{k}")
        theirs.append(timed([opts.nsys, "recipe", recipe, "--input", inputs, "--output", out,
                             *csv_option(opts.nsys, recipe), "--force-overwrite"], env=nsys_env))
        mine = os.path.join(work, f"us-{recipe}-{k}")
        shutil.rmtree(mine, ignore_errors=True)
        env = dict(os.environ, NSYS=opts.nsys)
        ours_cmd = lambda out, threads: [  # noqa: E731
            os.path.join(opts.build, "nsys-perfetto"), "recipe", recipe, "--output", out,
            *threads_option(threads), *ours_inputs]
        refresh()  # with real reports: no export left by the run before
        ours.append(timed(ours_cmd(mine, opts.threads), env=env))
        shutil.rmtree(mine + "-1", ignore_errors=True)
        refresh()
        one.append(timed(ours_cmd(mine + "-1", 1), env=env)[0])
    equal = same_outputs(os.path.join(work, f"nv-{recipe}-0"), os.path.join(work, f"us-{recipe}-0"),
                         parquet=nsys_env is not None)
    t_n = statistics.median(x[0] for x in theirs)
    t_u = statistics.median(x[0] for x in ours)
    cpu_n = statistics.median(x[3] for x in theirs)
    cpu_u = statistics.median(x[3] for x in ours)
    return {"recipe": recipe, "nsys_s": t_n, "ours_s": t_u, "speedup": t_n / t_u,
            "nsys_cpu": cpu_n, "ours_cpu": cpu_u, "cpu_speedup": cpu_n / max(cpu_u, 1e-3),
            "ours_1_s": statistics.median(one),
            "nsys_rss": max(x[1] for x in theirs), "ours_rss": max(x[1] for x in ours),
            "equal": equal, "status": (theirs[0][2], ours[0][2])}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nsys", required=True, help="nsys 2023.4 (its `nsys recipe`)")
    p.add_argument("--build", default="build")
    p.add_argument("--ranks", type=int, default=16)
    p.add_argument("--kernels-per-step", type=int, default=200)
    p.add_argument("--job-seconds", type=int, default=20)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--recipes", default=",".join(STATS))
    p.add_argument("--reports", help="a directory of real .nsys-rep reports (export counted)")
    p.add_argument("--threads", type=int, help="ours: reports read at once (default: the CPUs)")
    opts = p.parse_args()
    work = os.path.join(opts.build, "bench-recipes")
    os.makedirs(work, exist_ok=True)
    if opts.reports:
        # A copy of the reports, whose exports (nsys leaves X.sqlite and
        # X_pqtdir beside X.nsys-rep, and both tools reuse an up-to-date one)
        # are removed before every run, so that each run exports.
        inputs = os.path.join(work, "real-inputs")
        shutil.rmtree(inputs, ignore_errors=True)
        os.makedirs(inputs)
        for f in sorted(os.listdir(opts.reports)):
            if f.endswith((".nsys-rep", ".qdrep")):
                shutil.copy(os.path.join(opts.reports, f), inputs)
        ours_inputs = sorted(os.path.join(inputs, f) for f in os.listdir(inputs))
        nsys_env = None
        what = f"{len(ours_inputs)} real reports, each run exporting them"

        def refresh():
            for f in os.listdir(inputs):
                path = os.path.join(inputs, f)
                if f.endswith(".sqlite"):
                    os.remove(path)
                elif f.endswith("_pqtdir"):
                    shutil.rmtree(path)
    else:
        reports = make_job(opts.build, opts.ranks, opts.kernels_per_step, opts.job_seconds,
                           os.path.join(work, f"job-{opts.ranks}-{opts.kernels_per_step}-{opts.job_seconds}"))
        pyshim = parquet_dirs(reports)
        nsys_env = dict(os.environ, PYTHONPATH=pyshim)  # its Parquet reader, as for the goldens
        inputs = stand_ins(reports, os.path.join(work, "inputs"))
        refresh = lambda: refresh_stand_ins(reports, inputs)  # noqa: E731
        ours_inputs = reports
        rows = sum(os.path.getsize(r) for r in reports) >> 20
        what = f"{len(reports)} ranks ({rows} MiB of exports), exports already made"
    cpus = len(os.sched_getaffinity(0))
    print(f"# nsys recipe (2023.4) vs nsys-perfetto recipe: {what}; median of {opts.runs} runs; "
          f"{cpus} CPUs, ours --threads {opts.threads or 'default'}")
    print(f"{'recipe':24} {'nsys s':>7} {'ours s':>7} {'speedup':>7} {'nsys cpu':>8} "
          f"{'ours cpu':>8} {'speedup':>7} {'ours 1T s':>9} {'nsys MiB':>8} {'ours MiB':>8}"
          f"  same output")
    failed = False
    for recipe in opts.recipes.split(","):
        r = bench(opts, recipe, inputs, ours_inputs, work, refresh, nsys_env)
        print(f"{recipe:24} {r['nsys_s']:7.2f} {r['ours_s']:7.3f} {r['speedup']:6.0f}x "
              f"{r['nsys_cpu']:8.2f} {r['ours_cpu']:8.3f} {r['cpu_speedup']:6.0f}x "
              f"{r['ours_1_s']:9.3f} {r['nsys_rss']:8.0f} {r['ours_rss']:8.0f}  "
              f"{'yes' if r['equal'] else 'not compared' if r['equal'] is None else 'NO'}")
        failed |= r["speedup"] < 20 or r["equal"] is False
    if not opts.reports:
        # Flat memory: the same recipe on a job with four times the events.
        big = make_job(opts.build, opts.ranks, opts.kernels_per_step * 4, opts.job_seconds,
                       os.path.join(work, f"job-{opts.ranks}-{opts.kernels_per_step * 4}-{opts.job_seconds}"))
        rss = []
        for k, reports in enumerate((ours_inputs, big)):
            out = os.path.join(work, f"us-memory-{k}")
            shutil.rmtree(out, ignore_errors=True)
            _, m, _, _ = timed([os.path.join(opts.build, "nsys-perfetto"), "recipe",
                             "cuda_gpu_kern_sum", "--output", out, *threads_option(opts.threads),
                             *reports])
            rss.append(m)
        grew = rss[1] > rss[0] * 1.5 + 8
        print(f"# memory: cuda_gpu_kern_sum peak RSS {rss[0]:.0f} MiB, with 4x the events "
              f"{rss[1]:.0f} MiB{' (GREW)' if grew else ''}")
        failed |= grew
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
