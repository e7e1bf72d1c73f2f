#!/usr/bin/python3
"""nsys-perfetto ranks on a Dask cluster (issue 32; docs/ranks.md, "On a Dask cluster").

  ranks_dask.py (--scheduler ADDRESS | --scheduler-file FILE | --local N)
                [--nsys-perfetto PATH] [--bins N] [--step NAME] [--format F]
                [--heatmaps PREFIX] REPORT|DIR...

Each report is read by a worker that can read it, with the same C code as a
local run: phase 1 `ranks --window-of REPORT` (the report's window, clock and
own step), then `ranks --plan` here (the job's window, clock and step, chosen
as a local run chooses them), phase 2 `ranks --partial PLAN... REPORT` (its
ranks measured on the job's plan).
The partials come back here in the reports' order and `ranks --from-partials`
folds them as `nsys-perfetto ranks REPORT|DIR...` would: the output is the
local run's, byte for byte. Directories are listed on the workers (the union
of what they see) in the CLI's order (src/cli/report_dir.c). Standard library
and distributed (Debian's python3-distributed) only."""
import argparse
import functools
import os
import subprocess
import sys
import tempfile

PROG = "ranks_dask.py"
EXTENSIONS = (b".sqlite", b".nsys-rep", b".qdrep")  # report_dir.c's order
ERR_USAGE, ERR_INPUT_OPEN = 2, 3  # nsys_perfetto.h's NSYSP_ERR_*


class Failed(Exception):
    def __init__(self, line, status):
        super().__init__(line)
        self.status = status


# ---- The CLI's listing of a directory (report_dir.c, natural_order.c) -----

def natural_compare(a, b):
    """natural_order.c's natural_compare on bytes: runs of digits compare as
    numbers (leading zeros skipped), other bytes as unsigned chars."""
    i = j = 0
    while i < len(a) and j < len(b):
        if 48 <= a[i] <= 57 and 48 <= b[j] <= 57:
            while i < len(a) and a[i] == 48:
                i += 1
            while j < len(b) and b[j] == 48:
                j += 1
            na = nb = 0
            while i + na < len(a) and 48 <= a[i + na] <= 57:
                na += 1
            while j + nb < len(b) and 48 <= b[j + nb] <= 57:
                nb += 1
            if na != nb:
                return -1 if na < nb else 1
            da, db = a[i:i + na], b[j:j + nb]
            if da != db:
                return -1 if da < db else 1
            i += na
            j += nb
        else:
            if a[i] != b[j]:
                return -1 if a[i] < b[j] else 1
            i += 1
            j += 1
    return 1 if i < len(a) else -1 if j < len(b) else 0


def stem_length(name):
    """The length of name without a report extension, or 0 when it has none."""
    for ext in EXTENSIONS:
        if len(name) > len(ext) and name.endswith(ext):
            return len(name) - len(ext)
    return 0


def list_reports(directory, names):
    """The reports among a directory's entry names (bytes), as list_reports()
    gives them: hidden names and other files left out, natural order, and an
    nsys report whose .sqlite is listed too counted once (as the .sqlite)."""
    names = [n for n in names if not n.startswith(b".") and stem_length(n)]
    names.sort(key=functools.cmp_to_key(natural_compare))
    sqlite = {n[:stem_length(n)] for n in names if n[stem_length(n):] == b".sqlite"}
    kept = [n for n in names
            if n[stem_length(n):] == b".sqlite" or n[:stem_length(n)] not in sqlite]
    return [os.fsdecode(os.fsencode(directory) + b"/" + n) for n in kept]


# ---- On the workers ------------------------------------------------------

def look(args):
    """What this worker sees of each argument: ("dir", its entry names),
    ("file",) when it can read it, or None."""
    seen = []
    for a in args:
        try:
            if os.path.isdir(a):
                seen.append(("dir", os.listdir(os.fsencode(a))))
            elif os.access(a, os.R_OK):
                seen.append(("file",))
            else:
                seen.append(None)
        except OSError:
            seen.append(None)
    return seen


def run_cli(binary, args):
    """One run of the CLI here: (exit status, stdout bytes, stderr's last line)."""
    try:
        r = subprocess.run([binary, *args], stdin=subprocess.DEVNULL, capture_output=True)
    except OSError as e:
        return 127, b"", f"{binary}: {e.strerror}"
    lines = r.stderr.decode(errors="replace").strip().splitlines()
    return r.returncode, r.stdout, lines[-1] if lines else f"{binary} exited {r.returncode}"


# ---- The driver -----------------------------------------------------------

def expand(client, inputs):
    """The reports of inputs in the CLI's order, each with the workers that
    can read it."""
    seen = client.run(look, inputs)  # {worker address: [what it sees of each]}
    workers = sorted(seen)
    reports = []
    for i, arg in enumerate(inputs):
        dirs = [w for w in workers if seen[w][i] and seen[w][i][0] == "dir"]
        if dirs:
            names, where = [], {}
            for w in dirs:  # the union, in the first worker's own order
                for n in seen[w][i][1]:
                    if n not in where:
                        names.append(n)
                        where[n] = []
                    where[n].append(w)
            paths = list_reports(arg, names)
            if not paths:
                raise Failed(f"{PROG}: {arg}: no reports (.sqlite, .nsys-rep, .qdrep) in it",
                             ERR_INPUT_OPEN)
            by_path = {os.fsdecode(os.fsencode(arg) + b"/" + n): ws for n, ws in where.items()}
            reports += [(p, by_path[p]) for p in paths]
        else:
            readers = [w for w in workers if seen[w][i]]
            if not readers:
                raise Failed(f"{PROG}: {arg}: no worker can read it", ERR_INPUT_OPEN)
            reports.append((arg, readers))
    return reports


def on_workers(client, reports, binary, args_of):
    """Runs the CLI once per report on a worker that can read it; the
    outputs in the reports' order, or Failed naming the first report that failed."""
    futures = [client.submit(run_cli, binary, args_of(path), workers=ws,
                             allow_other_workers=False, pure=False)
               for path, ws in reports]
    results = client.gather(futures)
    for (path, _), (status, _, message) in zip(reports, results):
        if status != 0:
            raise Failed(f"{PROG}: {path}: {message}", status if 0 < status < 126 else 1)
    return [out for _, out, _ in results]


def analyse(client, opts):
    binary = opts.nsys_perfetto
    common = ["--bins", str(opts.bins)]
    reports = expand(client, opts.reports)
    surveys = on_workers(client, reports, binary, lambda p: ["ranks", "--window-of", "--", p])
    with tempfile.TemporaryDirectory(prefix="ranks-dask-") as tmp:
        # The job's clock, window and step, chosen here by the CLI as a local run chooses
        # them (its notes go to stderr): each partial is then measured on the same plan.
        files = []
        for k, text in enumerate(surveys):
            files.append(os.path.join(tmp, f"{k:06d}.survey"))
            with open(files[-1], "wb") as f:
                f.write(text)
        step = ["--step", opts.step] if opts.step is not None else []
        plan = subprocess.run([binary, "ranks", "--plan", *step, "--", *files],
                              stdout=subprocess.PIPE)
        if plan.returncode != 0:
            return plan.returncode
        plan = plan.stdout.decode().split("\n")[:-1]
        partials = on_workers(client, reports, binary,
                              lambda p: ["ranks", "--partial", *plan, "--bins", str(opts.bins),
                                         "--", p])
        files = []
        for k, text in enumerate(partials):
            files.append(os.path.join(tmp, f"{k:06d}.partial"))
            with open(files[-1], "wb") as f:
                f.write(text)
        fold = [binary, "ranks", "--from-partials", "--format", opts.format, *common]
        if opts.heatmaps is not None:
            fold += ["--heatmaps", opts.heatmaps]
        sys.stdout.flush()
        return subprocess.run([*fold, "--", *files]).returncode


def main():
    p = argparse.ArgumentParser(prog=PROG, description="nsys-perfetto ranks on a Dask cluster: "
                                "the same output as a local run, each report read by a worker.")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", metavar="ADDRESS", help="a running scheduler (tcp://host:8786)")
    where.add_argument("--scheduler-file", metavar="FILE",
                       help="the file `dask scheduler --scheduler-file FILE` wrote")
    where.add_argument("--local", metavar="N", type=int,
                       help="a LocalCluster of N worker processes, one thread each")
    p.add_argument("--nsys-perfetto", metavar="PATH", default="nsys-perfetto",
                   help="the CLI, at the same path on every worker and here (default: on PATH)")
    p.add_argument("--bins", type=int, default=100, help="time bins (default 100)")
    p.add_argument("--step", metavar="NAME", help="the NVTX range that is one step")
    p.add_argument("--format", choices=("table", "md", "csv", "json"), default="table")
    p.add_argument("--heatmaps", metavar="PREFIX", help="PREFIX-utilization.svg, PREFIX-steps.svg")
    p.add_argument("reports", nargs="+", metavar="REPORT|DIR")
    opts = p.parse_args()
    if opts.local is not None and opts.local < 1:
        p.error("--local: expected 1 or more workers")
    try:
        import logging
        from distributed import Client, LocalCluster
    except ImportError as e:
        print(f"{PROG}: needs Dask's distributed (apt-get install python3-distributed): {e}",
              file=sys.stderr)
        return 1
    cluster = None
    try:
        if opts.local is not None:
            cluster = LocalCluster(n_workers=opts.local, processes=True, threads_per_worker=1,
                                   dashboard_address=None, silence_logs=logging.ERROR)
            client = Client(cluster)
        elif opts.scheduler_file is not None:
            client = Client(scheduler_file=opts.scheduler_file)
        else:
            client = Client(opts.scheduler)
    except (OSError, ValueError) as e:
        print(f"{PROG}: cannot reach the scheduler: {e}", file=sys.stderr)
        return 1
    try:
        with client:
            if not client.scheduler_info().get("workers"):
                client.wait_for_workers(1, timeout=60)
            return analyse(client, opts)
    except Failed as e:
        print(e, file=sys.stderr)
        return e.status
    except Exception as e:  # a worker lost, a timeout: one line
        print(f"{PROG}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    finally:
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    sys.exit(main())
