#!/usr/bin/python3
"""nsys-perfetto ranks on a Dask cluster equals the local run (issue 32).

A generated job of 16 ranks (planted straggler 5) is analysed by
`nsys-perfetto ranks` here and by tools/ranks_dask.py on a LocalCluster of two
worker processes: the JSON and the CSV must be byte-identical. Then a directory
that exercises the CLI's listing (natural order r1 r2 r03 r10, a .nsys-rep
beside its .sqlite counted once, hidden and other files left out) plus a report
given by name, with --bins and --step, Markdown and both heatmaps: identical
again. Where the local run refuses or explains, the driver says the same words
with the same exit status (issue 42): a corrupt report, a CPU-only job ("no
process ran GPU work", exit 5), a bad option (--bins 0); a report named twice or
linked in the directory counts once in both; a report whose GPU times are
negative (no UTC session start) gives the same output. A job whose rank 0 finds
another step ("log") and whose rank 1 has no UTC session start: the driver plans
one step and one clock as the local run does, the same bytes. Exit 77 (skipped)
when Debian's /usr/bin/python3 cannot import distributed.

  check_ranks_dask.py NSYS_PERFETTO NSYS_FIXTURE TOOLS_DIR WORKDIR"""
import os
import shutil
import sqlite3
import subprocess
import sys

PYTHON = "/usr/bin/python3"
BIN, FIXTURE, TOOLS, WORK = map(os.path.abspath, sys.argv[1:5])
from testlib import expect, failures  # noqa: E402


def run(cmd):
    return subprocess.run(cmd, cwd=WORK, capture_output=True, timeout=240)


def local(*args):
    return run([BIN, "ranks", *args])


def dask(*args, workers=2):
    return run([PYTHON, os.path.join(TOOLS, "ranks_dask.py"), "--local", str(workers),
                "--nsys-perfetto", BIN, *args])


def same(args, dask_args=None, files=()):
    """The local run and the Dask run of args print the same bytes (and write
    the same files: each name in files, with the prefix local- or dask-)."""
    a = local(*[x.format(side="local") for x in args])
    b = dask(*[x.format(side="dask") for x in args])
    what = " ".join(args)
    if not expect(a.returncode == 0, f"local ranks {what}: exit {a.returncode} {a.stderr[-300:]}"):
        return
    if not expect(b.returncode == 0, f"ranks_dask.py {what}: exit {b.returncode} {b.stderr[-500:]}"):
        return
    expect(a.stdout == b.stdout and a.stdout, f"{what}: the Dask output differs from the local one")
    for name in files:
        with open(os.path.join(WORK, "local-" + name), "rb") as f, \
             open(os.path.join(WORK, "dask-" + name), "rb") as g:
            expect(f.read() == g.read(), f"{what}: {name} differs")


def main():
    try:
        probe = subprocess.run([PYTHON, "-c", "import distributed"], capture_output=True).returncode
    except OSError:
        probe = 127
    if probe != 0:
        print("skip: /usr/bin/python3 cannot import distributed (apt-get install python3-distributed)")
        return 77
    shutil.rmtree(WORK, ignore_errors=True)
    job = os.path.join(WORK, "job")
    os.makedirs(job)
    subprocess.run([FIXTURE, "--job", "16", "--seed", "3", "--straggler", "5", job],
                   check=True, stdout=subprocess.DEVNULL)

    same(["--format", "json", "job"])
    same(["--format", "csv", "job"])

    # The CLI's listing of a directory, mirrored by the driver.
    mix = os.path.join(WORK, "mix")
    os.makedirs(mix)
    for src, dst in [("rank2", "r2.sqlite"), ("rank10", "r10.sqlite"), ("rank1", "r1.sqlite"),
                     ("rank4", "r03.sqlite"), ("rank3", ".hidden.sqlite")]:
        shutil.copy(os.path.join(job, src + ".sqlite"), os.path.join(mix, dst))
    for name in ["r10.nsys-rep", "notes.txt"]:
        open(os.path.join(mix, name), "w").close()
    same(["--format", "md", "--bins", "7", "--step", "step", "--heatmaps", "{side}",
          "mix/", "job/rank5.sqlite"], files=["utilization.svg", "steps.svg"])
    listed = local("--format", "csv", "mix/").stdout.decode().splitlines()[1:]
    expect([row.split(",")[1] for row in listed] ==
           ["mix//r1.sqlite", "mix//r2.sqlite", "mix//r03.sqlite", "mix//r10.sqlite"],
           f"the CLI's listing of mix/ is not the one this test expects: {listed}")

    # Duplicates: a link to a rank in the directory, a report again after its directory.
    os.symlink("r2.sqlite", os.path.join(mix, "r99.sqlite"))
    same(["--format", "json", "mix", "mix/r1.sqlite", "job/rank5.sqlite"])
    both = dask("--format", "csv", "mix", "mix/r1.sqlite").stderr.decode()
    expect("mix/r99.sqlite: the same report as mix/r2.sqlite: counted once" in both and
           "mix/r1.sqlite: given twice: counted once" in both,
           f"duplicates: the driver does not relay the CLI's notes: {both[-400:]}")

    # Negative GPU times: a report without a UTC session start, its work before 0.
    subprocess.run([FIXTURE, "--negative-ts", "-n", "2000", os.path.join(WORK, "neg.sqlite")],
                   check=True, stdout=subprocess.DEVNULL)
    with sqlite3.connect(os.path.join(WORK, "neg.sqlite")) as db:
        db.execute("DROP TABLE TARGET_INFO_SESSION_START_TIME")
    same(["--format", "json", "neg.sqlite"])

    # Refused or explained: the same words, the same exit status.
    cpu = os.path.join(WORK, "cpu")
    os.makedirs(cpu)
    shutil.copy(os.path.join(WORK, "neg.sqlite"), os.path.join(cpu, "a.sqlite"))
    with sqlite3.connect(os.path.join(cpu, "a.sqlite")) as db:
        for table in ["KERNEL", "MEMCPY", "MEMSET"]:
            db.execute(f"DROP TABLE CUPTI_ACTIVITY_KIND_{table}")
    for args in [["cpu"], ["--bins", "0", "job"], ["empty"]]:
        os.makedirs(os.path.join(WORK, "empty"), exist_ok=True)
        a, b = local(*args), dask(*args)
        expect(a.returncode != 0 and (b.returncode, b.stderr) == (a.returncode, a.stderr),
               f"ranks {' '.join(args)}: local exit {a.returncode} {a.stderr!r}, "
               f"Dask exit {b.returncode} {b.stderr[-400:]!r}")
    # One step and one clock for the whole job (issue 42): rank 0's report holds 25 short
    # top-level "log" ranges (its own most repeated) and rank 1's lacks its UTC session
    # start; the driver plans the job as the local run does.
    odd = os.path.join(WORK, "odd")
    os.makedirs(odd)
    for k in range(4):
        shutil.copy(os.path.join(job, f"rank{k}.sqlite"), odd)
    db = sqlite3.connect(os.path.join(odd, "rank0.sqlite"))
    tid, = db.execute("SELECT globalTid FROM NVTX_EVENTS LIMIT 1").fetchone()
    db.executemany("INSERT INTO NVTX_EVENTS (start, \"end\", eventType, globalTid, text)"
                   " VALUES (?, ?, 59, ?, 'log')", [(k * 10, k * 10 + 5, tid) for k in range(25)])
    db.commit()
    db.close()
    db = sqlite3.connect(os.path.join(odd, "rank1.sqlite"))
    db.execute("DELETE FROM TARGET_INFO_SESSION_START_TIME")
    db.commit()
    db.close()
    same(["--format", "json", "odd"])
    expect(b'"name": "step"' in local("--format", "json", "odd").stdout,
           "odd: the job's step is not \"step\"")

    # A report that cannot be read: the same exit status, one line naming it.
    bad = os.path.join(WORK, "bad")
    os.makedirs(bad)
    shutil.copy(os.path.join(job, "rank1.sqlite"), bad)
    with open(os.path.join(job, "rank2.sqlite"), "rb") as f, \
         open(os.path.join(bad, "rank2.sqlite"), "wb") as g:
        g.write(f.read(5000))
    a, b = local("bad"), dask("bad", workers=1)
    err = b.stderr.decode().strip().splitlines()
    expect(a.returncode != 0 and b.returncode == a.returncode,
           f"a corrupt report: local exit {a.returncode}, Dask exit {b.returncode}")
    expect(len(err) == 1 and "bad/rank2.sqlite" in err[0] and b.stderr == a.stderr,
           f"a corrupt report: the driver's error is not the local one: {err} {a.stderr!r}")

    print("ranks_dask: ok" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
