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
local run's, byte for byte. A directory's reports are the union of what the
workers see, listed and ordered by the CLI (`ranks --list-reports`), each report
once; where the CLI fails, its own message and exit status are the driver's.
Standard library and distributed (Debian's python3-distributed) only."""
import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile

PROG = "ranks_dask.py"
ERR_INPUT_OPEN = 3  # nsys_perfetto.h's NSYSP_ERR_INPUT_OPEN


class Failed(Exception):
    """A run that stops: its message (whole lines, the CLI's own where the
    CLI failed) and exit status."""
    def __init__(self, text, status):
        super().__init__(text)
        self.text = text
        self.status = status


# ---- On the workers ------------------------------------------------------

def run_cli(binary, args):
    """One run of the CLI here: (exit status, stdout bytes, stderr text)."""
    try:
        r = subprocess.run([binary, *args], stdin=subprocess.DEVNULL, capture_output=True)
    except OSError as e:
        return 127, b"", f"{PROG}: {binary}: {e.strerror} (on {socket.gethostname()})\n"
    return r.returncode, r.stdout, r.stderr.decode(errors="replace")


def look(binary, args, command=("ranks",)):
    """What this worker sees of each argument: ("dir", its entry names),
    ("file",) when it can read it, or None; and the CLI's listing of those it
    sees (its exit status, the paths, its notes), which drops a report named
    twice on this machine."""
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
    visible = [a for a, s in zip(args, seen) if s]
    listed = run_cli(binary, [*command, "--list-reports", "--null", "--", *visible]) \
        if visible else (0, b"", "")
    return seen, listed


# ---- The driver -----------------------------------------------------------

def order(binary, inputs, seen, options, command=("ranks",)):
    """The reports of inputs in the CLI's order, as (argument index, name or
    None): the CLI lists a stand-in tree here, one empty file for each name a
    worker sees (its rules: report extensions, natural order, a .nsys-rep
    beside its .sqlite once). The options go with it, so that a bad one is
    refused here as a local run refuses it."""
    with tempfile.TemporaryDirectory(prefix="ranks-dask-") as tmp:
        stand_ins = []
        for i in range(len(inputs)):
            stand_in = os.path.join(tmp, str(i))
            dirs = [s[i][1] for s in seen if s[i] and s[i][0] == "dir"]
            if dirs:
                os.mkdir(stand_in)
                names = {n for names in dirs for n in names}
                for n in names:
                    open(os.path.join(os.fsencode(stand_in), n), "wb").close()
            else:
                open(stand_in, "wb").close()
            stand_ins.append(stand_in)
        status, out, err = run_cli(binary, [*command, "--list-reports", "--null", *options,
                                            "--", *stand_ins])
        if status != 0:  # the CLI's words, about the arguments as given
            err = re.sub(re.escape(tmp) + r"/(\d+)", lambda m: inputs[int(m.group(1))], err)
            raise Failed(err, status)
    listed = []
    for path in out.split(b"\0")[:-1]:
        index, _, name = path[len(os.fsencode(tmp)) + 1:].partition(b"/")
        listed.append((int(index), name or None))
    return listed


def expand(client, binary, inputs, options, command=("ranks",)):
    """The reports of inputs in the CLI's order, each with the workers that
    can read it: the union of what the workers see, less what a worker's CLI
    drops as a report it was given already."""
    looks = client.run(look, binary, inputs, command)  # {worker address: (seen, listed)}
    workers = sorted(looks)
    seen = [looks[w][0] for w in workers]
    for i, arg in enumerate(inputs):
        if not any(s[i] for s in seen):
            raise Failed(f"{PROG}: {arg}: no worker can read it\n", ERR_INPUT_OPEN)
    listed = {w: set(looks[w][1][1].split(b"\0")) for w in workers if looks[w][1][0] == 0}
    notes = []
    for w in workers:
        for line in looks[w][1][2].splitlines(keepends=True):
            if looks[w][1][0] == 0 and line not in notes:
                notes.append(line)
    sys.stderr.write("".join(notes))
    reports, taken = [], set()
    for index, name in order(binary, inputs, seen, options, command):
        arg = os.fsencode(inputs[index])
        path = arg + b"/" + name if name is not None else arg
        if name is not None:
            readers = [w for w, s in zip(workers, seen) if s[index] and s[index][0] == "dir"
                       and name in s[index][1]]
        else:
            readers = [w for w, s in zip(workers, seen) if s[index]]
        if path in taken or any(w in listed and path not in listed[w] for w in readers):
            continue  # a report given already (the worker's CLI said which)
        taken.add(path)
        reports.append((os.fsdecode(path), readers))
    return reports


def on_workers(client, reports, binary, args_of):
    """Runs the CLI once per report on a worker that can read it; the
    outputs in the reports' order, or Failed with the CLI's own words and exit
    status for the first report that failed."""
    futures = [client.submit(run_cli, binary, args_of(path), workers=ws,
                             allow_other_workers=False, pure=False)
               for path, ws in reports]
    results = client.gather(futures)
    for status, _, err in results:
        if status != 0:
            raise Failed(err, status if 0 < status < 126 else 1)
    return [out for _, out, _ in results]


def analyse(client, opts):
    binary = opts.nsys_perfetto
    bins = ["--bins", str(opts.bins)]
    step = ["--step", opts.step] if opts.step is not None else []
    heatmaps = ["--heatmaps", opts.heatmaps] if opts.heatmaps is not None else []
    reports = expand(client, binary, opts.reports, ["--format", opts.format, *bins, *step, *heatmaps])
    surveys = on_workers(client, reports, binary, lambda p: ["ranks", "--window-of", "--", p])
    with tempfile.TemporaryDirectory(prefix="ranks-dask-") as tmp:
        # The job's clock, window and step, chosen here by the CLI as a local run chooses
        # them (its notes go to stderr): each partial is then measured on the same plan.
        files = []
        for k, text in enumerate(surveys):
            files.append(os.path.join(tmp, f"{k:06d}.survey"))
            with open(files[-1], "wb") as f:
                f.write(text)
        plan = subprocess.run([binary, "ranks", "--plan", *step, "--", *files],
                              stdout=subprocess.PIPE)
        if plan.returncode != 0:
            return plan.returncode
        plan = plan.stdout.decode().split("\n")[:-1]
        partials = on_workers(client, reports, binary,
                              lambda p: ["ranks", "--partial", *plan, *bins, "--", p])
        files = []
        for k, text in enumerate(partials):
            files.append(os.path.join(tmp, f"{k:06d}.partial"))
            with open(files[-1], "wb") as f:
                f.write(text)
        fold = [binary, "ranks", "--from-partials", "--format", opts.format, *bins, *heatmaps]
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
    return with_cluster(opts, lambda client: analyse(client, opts))


def with_cluster(opts, work):
    """work(client) on the cluster opts name (--local, --scheduler-file or
    --scheduler): its exit status, or Failed's words and status, or one line
    for anything else (a worker lost, a timeout)."""
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
                                   dashboard_address=":0", silence_logs=logging.ERROR)
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
            return work(client)
    except Failed as e:
        sys.stderr.write(e.text)
        return e.status
    except Exception as e:  # a worker lost, a timeout: one line
        print(f"{PROG}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    finally:
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    sys.exit(main())
