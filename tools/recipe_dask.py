#!/usr/bin/python3
"""nsys-perfetto recipe on a Dask cluster (docs/recipes.md, "On a Dask cluster").

  recipe_dask.py (--scheduler ADDRESS | --scheduler-file FILE | --local N)
                 [--nsys-perfetto PATH] NAME --output DIR [RECIPE OPTIONS] REPORT|DIR...

Each report is read by a worker that can read it, with the same C code as a
local run: `recipe NAME --partial [OPTIONS] REPORT` there; the partials come
back here in the job's order and `recipe NAME --from-partials` folds them: DIR
is the local run's `nsys-perfetto recipe NAME --output DIR ...`, byte for byte.
Where the CLI says the recipe surveys first (`recipe NAME --rounds`: the
binning maps, whose grid spans the whole job), a first round runs `recipe NAME
--survey REPORT` on the workers and `recipe NAME --plan SURVEY...` here, and
every --partial gets the plan's options (as ranks_dask.py does).
The job's reports are listed as ranks_dask.py lists them (what the workers
see, ordered by the CLI, each report once); where the CLI fails, its own
message and exit status are the driver's. Recipes that cannot read their
reports apart are refused by the CLI with a word.
Standard library and distributed (Debian's python3-distributed) only."""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ranks_dask  # noqa: E402  (the cluster plumbing ranks and recipes share)
from ranks_dask import Failed, expand, on_workers  # noqa: E402

PROG = "recipe_dask.py"
ranks_dask.PROG = PROG  # the shared plumbing names this driver in its messages
# The recipe options that take a value (the rest are flags); the CLI checks them.
VALUED = {"--start", "--end", "--tolerance", "--name", "--bins", "--output", "--input", "--nvtx",
          "--rows", "--gap", "--threshold", "--chunks", "--mode", "--job-window"}


def split_options(words):
    """(recipe options without --output/--input, output or None, inputs)."""
    options, inputs, output = [], [], None
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--":
            inputs += words[i + 1:]
            break
        name = w.split("=", 1)[0]
        if w.startswith("--") and name in VALUED and "=" not in w:
            value = words[i + 1] if i + 1 < len(words) else None
            if value is None:
                raise Failed(f"{PROG}: {w} needs a value\n", 2)
            if name == "--output":
                output = value
            elif name == "--input":
                inputs.append(value)
            else:
                options += [w, value]
            i += 2
            continue
        if w.startswith("--output="):
            output = w.split("=", 1)[1]
        elif w.startswith("--input="):
            inputs.append(w.split("=", 1)[1])
        elif w.startswith("-"):
            options.append(w)
        else:
            inputs.append(w)
        i += 1
    return options, output, inputs


def run(client, opts):
    binary = opts.nsys_perfetto
    options, output, inputs = split_options(opts.words)
    if output is None:
        raise Failed(f"{PROG}: --output DIR is required\n", 2)
    command = ("recipe", opts.name)
    reports = expand(client, binary, inputs, options, command)
    rounds = subprocess.run([binary, "recipe", opts.name, "--rounds"], stdout=subprocess.PIPE)
    if rounds.returncode != 0:
        return rounds.returncode
    with tempfile.TemporaryDirectory(prefix="recipe-dask-") as tmp:
        plan = []
        if "survey" in rounds.stdout.decode().split():
            # The job's plan (its window), folded here by the CLI from every report's survey.
            surveys = on_workers(client, reports, binary,
                                 lambda p: ["recipe", opts.name, "--survey", *options, "--", p])
            files = save(tmp, "survey", surveys)
            made = subprocess.run([binary, "recipe", opts.name, "--plan", *options, "--", *files],
                                  stdout=subprocess.PIPE)
            if made.returncode != 0:
                return made.returncode
            plan = made.stdout.decode().split("\n")[:-1]
        partials = on_workers(client, reports, binary,
                              lambda p: ["recipe", opts.name, "--partial", *options, *plan, "--", p])
        files = save(tmp, "partial", partials)
        fold = [binary, "recipe", opts.name, "--from-partials", "--output", output, *options]
        return subprocess.run([*fold, "--", *files]).returncode


def save(tmp, kind, texts):
    """The texts as files in tmp, in order; their paths."""
    files = []
    for k, text in enumerate(texts):
        files.append(os.path.join(tmp, f"{k:06d}.{kind}"))
        with open(files[-1], "wb") as f:
            f.write(text)
    return files


def main():
    p = argparse.ArgumentParser(prog=PROG, description="nsys-perfetto recipe on a Dask cluster: "
                                "the same output as a local run, each report read by a worker.")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", metavar="ADDRESS", help="a running scheduler (tcp://host:8786)")
    where.add_argument("--scheduler-file", metavar="FILE",
                       help="the file `dask scheduler --scheduler-file FILE` wrote")
    where.add_argument("--local", metavar="N", type=int,
                       help="a LocalCluster of N worker processes, one thread each")
    p.add_argument("--nsys-perfetto", metavar="PATH", default="nsys-perfetto",
                   help="the CLI, at the same path on every worker and here (default: on PATH)")
    p.add_argument("name", metavar="NAME", help="the recipe (nsys-perfetto recipe --list)")
    p.add_argument("words", nargs=argparse.REMAINDER,
                   help="--output DIR, the recipe's options and the reports, as for the CLI")
    opts = p.parse_args()
    if opts.local is not None and opts.local < 1:
        p.error("--local: expected 1 or more workers")
    return ranks_dask.with_cluster(opts, lambda client: run(client, opts))


if __name__ == "__main__":
    sys.exit(main())
