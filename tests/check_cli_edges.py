#!/usr/bin/env python3
"""The command line's edges, tried as a careless or hostile user would (issue
36). One script, one ctest per case (the mode); `series` runs a stand-in nsys
($NSYS) that "profiles" by copying a fixture report, so no nsys is needed.

  series_dir     --dir naming a regular file or a dangling link: exit 6 at once,
                 nothing profiled; a fresh --dir works.
  repeated       -p 1 1: exit 2, nothing profiled; --runs 2 keeps runs apart.
  names_utf8     names with invalid UTF-8 (FF FE), ESC, CR, 0x01, a newline, C1
                 (U+009B) and table characters (| , ") in NVTX text: every text
                 output (summary table and CSV, diff table, md and CSV, series CSV,
                 md and SVG) is valid UTF-8 with no control byte but the line ends,
                 CSV reads back with Python's csv module to the same rows, md rows
                 keep their columns, SVG parses as XML; the names show as U+FFFD and
                 control pictures (the escape as U+241B).
  collide        a directory holding r.nsys-rep and r.qdrep: exit 6, one line naming
                 both, no trace written.
  leftovers      a run whose nsys leaves a setsid daemon: after series ends, the
                 daemon is gone, and the run is kept (exit 0).
  escapes        a failing run whose log ends in ESC[2J and an OSC title: the error
                 on stderr carries no ESC or BEL, and shows the escape visibly.
  leftovers_timeout  a run of 1.2 s under --timeout 2 that leaves a daemon succeeds
                 (the clearing is not counted in the run's time), the daemon gone.
  log_link       a link where a run's log goes is replaced, the file it named intact.
  escaped_paths  file names holding ESC and BEL, met in a directory (colliding
                 traces, summary --series): stderr shows them, never obeys them.
  long_value     a 300-character value: exit 2 before anything is profiled or any
                 directory made.
  series_names   summary --series reads what series -o 'x$p$p' wrote, with --runs 2
                 too; negative values (-p -1 0 1) work and read back.
  report_limit   summary and diff refuse 65 reports (a side) with the same exit
                 status, 2, and the README states the limit.
  check_cli_edges.py MODE NSYS_PERFETTO NSYS_FIXTURE WORKDIR [README]"""
import csv
import io
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

MODE, BIN, FIXTURE, WORK = sys.argv[1], *map(os.path.abspath, sys.argv[2:5])
README = sys.argv[5] if len(sys.argv) > 5 else None
from testlib import expect, failures  # noqa: E402

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
REPORT = os.path.join(WORK, "report.sqlite")
subprocess.run([FIXTURE, "--seed", "7", "--events", "1500", "--nvtx", REPORT], check=True,
               stdout=subprocess.DEVNULL)

FAKE_NSYS = '''#!{python}
import os, shutil, sys, time
args = sys.argv[1:]
with open(os.environ["FAKE_NSYS_CALLS"], "a") as f:
    f.write(" ".join(args) + "\\n")
output = args[args.index("--output") + 1]
if args[0] == "export":
    shutil.copyfile(args[-1], output)
    sys.exit(0)
command = args[args.index("--output") + 2:]
if any("escape" in word for word in command):
    print("fake nsys: failing")
    sys.stdout.write("boom \\x1b[2J\\x1b]0;pwned\\x07 \\x1b[31mred\\n")
    sys.exit(1 if "fails" in command else 0)  # failed, or ended without a report
if "daemon" in command or "daemon-slow" in command:
    if os.fork() == 0:  # leaves the process group and its parent, as a daemon does
        os.setsid()
        if os.fork() == 0:
            with open(os.environ["FAKE_NSYS_DAEMON"], "w") as f:
                f.write(str(os.getpid()))
            for fd in (0, 1, 2):
                os.close(fd)
            while True:
                time.sleep(0.1)
        os._exit(0)
    time.sleep(1.2 if "daemon-slow" in command else 0.3)
shutil.copyfile(os.environ["FAKE_NSYS_REPORT"], output + ".nsys-rep")
'''


def fake_env(report=REPORT):
    fake = os.path.join(WORK, "fake-nsys")
    with open(fake, "w") as f:
        f.write(FAKE_NSYS.format(python=sys.executable))
    os.chmod(fake, 0o755)
    return dict(os.environ, NSYS=fake, FAKE_NSYS_REPORT=report,
                FAKE_NSYS_CALLS=os.path.join(WORK, "calls"),
                FAKE_NSYS_DAEMON=os.path.join(WORK, "daemon.pid"))


def calls():
    try:
        with open(os.path.join(WORK, "calls")) as f:
            return [line for line in f if line.strip()]
    except FileNotFoundError:
        return []


def run(args, env=None, timeout=120):
    return subprocess.run([BIN, *args], capture_output=True, env=env, timeout=timeout)


def series(args, env, timeout=120):
    return run(["series", *args, "--", "/bin/true", "$p"], env, timeout)


def mode_series_dir():
    env = fake_env()
    a_file = os.path.join(WORK, "a-file")
    with open(a_file, "w") as f:
        f.write("not a directory\n")
    dangling = os.path.join(WORK, "dangling")
    os.symlink(os.path.join(WORK, "nowhere"), dangling)
    for what, d in (("a regular file", a_file), ("a dangling link", dangling)):
        start = time.monotonic()
        r = series(["-p", "1", "2", "--dir", d], env)
        err = r.stderr.decode(errors="replace")
        expect(r.returncode == 6, f"--dir {what}: exit {r.returncode}, expected 6 ({err!r})")
        expect(len(err.strip().splitlines()) == 1 and d in err,
               f"--dir {what}: expected one line naming it, got {err!r}")
        expect(not calls(), f"--dir {what}: nsys ran {len(calls())} times")
        expect(time.monotonic() - start < 5, f"--dir {what}: refused only after "
                                             f"{time.monotonic() - start:.1f} s")
    expect(not os.path.exists(os.path.join(WORK, "nowhere")), "the dangling link was followed")
    r = series(["-p", "1", "--dir", os.path.join(WORK, "good")], env)
    expect(r.returncode == 0 and os.path.exists(os.path.join(WORK, "good", "series.csv")),
           f"a good --dir: exit {r.returncode} {r.stderr[-300:]!r}")


def mode_repeated():
    env = fake_env()
    d = os.path.join(WORK, "twice")
    r = series(["-p", "1", "1", "--dir", d], env)
    expect(r.returncode == 2, f"-p 1 1: exit {r.returncode}, expected 2")
    expect(b"twice" in r.stderr, f"-p 1 1: message {r.stderr!r}")
    expect(not calls() and not os.path.exists(d), "-p 1 1: something ran or was made")
    r = series(["-p", "1", "--runs", "2", "--dir", d], env)
    expect(r.returncode == 0, f"--runs 2: exit {r.returncode} {r.stderr[-300:]!r}")
    with open(os.path.join(d, "series.csv"), newline="") as f:
        runs = {row["run"] for row in csv.DictReader(f) if row["value"] == "1"}
    expect(runs == {"1", "2"}, f"--runs 2: runs in series.csv {sorted(runs)}")


POISON = {  # NVTX text as stored, bytes
    "bad": b"bad\xff\xfe utf8",
    "esc": b"esc\x1b[2J clear",
    "cr": b"carriage\rreturn",
    "ctl": b"ctl\x01 byte",
    "nl": b"two\nlines",
    "c1": "csi\u009b c1".encode(),
    "table": b'pipe | comma, "quote" *star*',
}
SHOWN = {  # as every text output must show them
    "bad": "bad\ufffd\ufffd utf8",
    "esc": "esc\u241b[2J clear",
    "cr": "carriage\u240dreturn",
    "ctl": "ctl\u2401 byte",
    "nl": "two\u240alines",
    "c1": "csi\ufffd c1",
    "table": 'pipe | comma, "quote" *star*',
}


def poisoned_report(path):
    shutil.copyfile(REPORT, path)
    db = sqlite3.connect(path)
    ids = [r[0] for r in db.execute(
        "SELECT rowid FROM NVTX_EVENTS WHERE eventType = 59 AND \"end\" > start "
        "ORDER BY rowid LIMIT ?", (len(POISON),))]
    assert len(ids) == len(POISON), "the fixture has too few NVTX ranges"
    for rowid, raw in zip(ids, POISON.values()):
        db.execute("UPDATE NVTX_EVENTS SET text = CAST(? AS TEXT), textId = NULL WHERE rowid = ?",
                   (raw, rowid))
    db.commit()
    db.close()
    return path


def clean_text(what, data):
    """The output as text, or None after saying why it is not clean."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        expect(False, f"{what}: not UTF-8 ({e})")
        return None
    bad = sorted({hex(ord(c)) for c in text
                  if (ord(c) < 0x20 and c not in "\n") or 0x7f <= ord(c) <= 0x9f})
    expect(not bad, f"{what}: control characters {bad}")
    return text


def shows_every_name(what, text, escaped=lambda s: s):
    for key, shown in SHOWN.items():
        expect(escaped(shown) in text, f"{what}: {key} not shown as {escaped(shown)!r}")


def md_escaped(s):
    return "".join("\\" + c if c in "|\\`*_<>[]&" else c for c in s)


def csv_names(what, text, column="name"):
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    names = {r[column] for r in rows}
    for key, shown in SHOWN.items():
        expect(shown in names, f"{what}: {key} does not read back as {shown!r}")
    return rows


def md_rows_keep_columns(what, text):
    """Every row of each table has its header's cells."""
    header = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = len(line.replace("\\\\", "").replace("\\|", "").split("|"))
        header = header or cells
        expect(cells == header, f"{what}: row with {cells - 2} cells, not {header - 2}: {line!r}")


def mode_names_utf8():
    before = poisoned_report(os.path.join(WORK, "before.sqlite"))
    after = poisoned_report(os.path.join(WORK, "after.sqlite"))
    r = run(["summary", before])
    text = clean_text("summary table", r.stdout)
    if text:
        shows_every_name("summary table", text)
        widths = {len(l) for l in text.splitlines()[2:] if l.startswith("nvtx")}
        expect(len(widths) == 1, f"summary table: NVTX rows of {sorted(widths)} characters")
    r = run(["summary", "--csv", before])
    text = clean_text("summary --csv", r.stdout)
    if text:
        csv_names("summary --csv", text)
    for fmt in ("table", "md", "csv"):
        r = run(["diff", "--all", "--top", "0", "--format", fmt, before, after])
        text = clean_text(f"diff --format {fmt}", r.stdout)
        if not text:
            continue
        if fmt == "csv":
            csv_names("diff --format csv", text)
        elif fmt == "md":
            shows_every_name("diff --format md", text, md_escaped)
            md_rows_keep_columns("diff --format md", text)
        else:
            shows_every_name("diff table", text)
    env = fake_env(before)
    d = os.path.join(WORK, "series")
    r = series(["-p", "1", "2", "--dir", d, "--match", "."], env)
    expect(r.returncode == 0, f"series: exit {r.returncode} {r.stderr[-300:]!r}")
    for name in ("series.csv", "series.md", "series.svg"):
        with open(os.path.join(d, name), "rb") as f:
            text = clean_text(name, f.read())
        if not text:
            continue
        if name == "series.csv":
            csv_names(name, text)
        elif name == "series.md":
            md_rows_keep_columns(name, text)
        else:
            try:
                ET.fromstring(text.encode())
            except ET.ParseError as e:
                expect(False, f"series.svg: not XML ({e})")


def mode_collide():
    d = os.path.join(WORK, "both")
    os.makedirs(d)
    for ext in (".nsys-rep", ".qdrep"):
        shutil.copyfile(REPORT, os.path.join(d, "r" + ext))
    r = run([d], fake_env())
    err = r.stderr.decode(errors="replace")
    expect(r.returncode == 6, f"r.nsys-rep beside r.qdrep: exit {r.returncode}, expected 6")
    expect(len(err.strip().splitlines()) == 1 and "r.nsys-rep" in err and "r.qdrep" in err and
           "r.perfetto-trace" in err, f"r.nsys-rep beside r.qdrep: message {err!r}")
    expect(not any(n.endswith(".perfetto-trace") for n in os.listdir(d)),
           f"traces written: {sorted(os.listdir(d))}")
    expect(not calls(), "nsys ran although nothing is converted")


def mode_leftovers():
    env = fake_env()
    d = os.path.join(WORK, "daemon")
    r = series(["-p", "daemon", "--dir", d], env)
    expect(r.returncode == 0, f"series: exit {r.returncode} {r.stderr[-300:]!r}")
    try:
        with open(os.path.join(WORK, "daemon.pid")) as f:
            pid = int(f.read())
    except (OSError, ValueError):
        expect(False, "the fake nsys never started its daemon")
        return
    deadline = time.monotonic() + 1
    while time.monotonic() < deadline and alive(pid):
        time.sleep(0.05)
    if not expect(not alive(pid), f"the daemon (pid {pid}) still runs after series ended"):
        os.kill(pid, signal.SIGKILL)


def mode_leftovers_timeout():
    """What a run leaves gets its time to end after the run, not inside the
    run's --timeout: a run of 1.2 s with --timeout 2 succeeds."""
    env = fake_env()
    d = os.path.join(WORK, "slow")
    r = series(["-p", "daemon-slow", "--timeout", "2", "--dir", d], env)
    expect(r.returncode == 0 and b"timed out" not in r.stderr,
           f"a 1.2 s run with --timeout 2 that leaves a daemon: exit {r.returncode} "
           f"{r.stderr[-300:]!r}")
    try:
        with open(os.path.join(WORK, "daemon.pid")) as f:
            pid = int(f.read())
        if not expect(not alive(pid), f"the daemon (pid {pid}) still runs"):
            os.kill(pid, signal.SIGKILL)
    except (OSError, ValueError):
        expect(False, "the fake nsys never started its daemon")


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def mode_escapes():
    env = fake_env()
    for how in ("escape", "escape-fails"):
        r = run(["series", "-p", how, "--dir", os.path.join(WORK, how), "--", "/bin/true",
                 "$p", *how.split("-")[1:]], env)
        expect(r.returncode == 1, f"{how}: exit {r.returncode}, expected 1")
        expect(b"\x1b" not in r.stderr and b"\x07" not in r.stderr,
               f"{how}: stderr carries terminal escapes: {r.stderr!r}")
        expect("boom \u241b[2J\u241b]0;pwned\u2407 \u241b[31mred" in
               r.stderr.decode(errors="replace"),
               f"{how}: the log's last line is not shown visibly: {r.stderr!r}")


def mode_log_link():
    """A link where a run's log goes is replaced, never written through."""
    env = fake_env()
    d = os.path.join(WORK, "links")
    os.makedirs(d)
    precious = os.path.join(WORK, "precious")
    with open(precious, "w") as f:
        f.write("keep me\n")
    os.symlink(precious, os.path.join(d, "p1.log"))
    r = series(["-p", "1", "--dir", d], env)
    expect(r.returncode == 0, f"series: exit {r.returncode} {r.stderr[-300:]!r}")
    with open(precious) as f:
        expect(f.read() == "keep me\n", "the file the log link pointed to was written")
    expect(not os.path.islink(os.path.join(d, "p1.log")), "the log is still a link")


def mode_escaped_paths():
    """File names from a directory listing reach stderr shown, not obeyed."""
    d = os.path.join(WORK, "names")
    os.makedirs(d)
    evil = "r\x1b]0;pwned\x07\x1b[2J"
    for ext in (".nsys-rep", ".qdrep"):
        shutil.copyfile(REPORT, os.path.join(d, evil + ext))
    r = run([d], fake_env())
    expect(r.returncode == 6 and b"\x1b" not in r.stderr and b"\x07" not in r.stderr,
           f"colliding traces: exit {r.returncode}, stderr {r.stderr!r}")
    for ext in (".nsys-rep", ".qdrep"):
        os.remove(os.path.join(d, evil + ext))
    shutil.copyfile(REPORT, os.path.join(d, evil + ".sqlite"))
    r = run(["summary", "--series", d])  # the name does not fit p$p
    expect(r.returncode == 2 and b"\x1b" not in r.stderr and b"\x07" not in r.stderr and
           "\u241b" in r.stderr.decode(errors="replace"),
           f"summary --series: exit {r.returncode}, stderr {r.stderr!r}")


def mode_long_value():
    env = fake_env()
    d = os.path.join(WORK, "long")
    r = series(["-p", "1", "x" * 300, "--dir", d], env)
    expect(r.returncode == 2, f"a 300-character value: exit {r.returncode}, expected 2")
    expect(len(r.stderr.decode(errors="replace").strip().splitlines()) == 1,
           f"a 300-character value: message {r.stderr!r}")
    expect(not calls(), f"nsys ran {len(calls())} times")
    expect(not os.path.exists(d), "the directory was made")
    ok = "y" * (255 - 2 - 27)  # p + value + the longest file: at the limit, accepted
    r = series(["-p", ok, "--dir", d], env)
    expect(r.returncode == 0, f"a {len(ok)}-character value: exit {r.returncode} "
                              f"{r.stderr[-300:]!r}")


def summary_values(d, pattern):
    r = run(["summary", "--series", d, "-o", pattern])
    if not expect(r.returncode == 0, f"summary --series -o {pattern}: exit {r.returncode} "
                                     f"{r.stderr[-300:]!r}"):
        return set()
    with open(os.path.join(d, "series.csv"), newline="") as f:
        return {(row["value"], row["run"]) for row in csv.DictReader(f)}


def mode_series_names():
    env = fake_env()
    for pattern, runs, values in (("x$p$p", 1, ["1", "11", "2"]), ("x$p$p", 2, ["1", "2"]),
                                  ("p$p", 1, ["-1", "0", "1", "-2.5"])):
        d = os.path.join(WORK, f"{pattern}-{runs}".replace("$", "_"))
        r = series(["-p", *values, "--runs", str(runs), "-o", pattern, "--dir", d], env)
        if not expect(r.returncode == 0, f"series -o {pattern} --runs {runs} -p {values}: exit "
                                         f"{r.returncode} {r.stderr[-300:]!r}"):
            continue
        with open(os.path.join(d, "series.csv"), newline="") as f:
            wrote = {(row["value"], row["run"]) for row in csv.DictReader(f)}
        want = {(v, str(k)) for v in values for k in range(1, runs + 1)}
        expect(wrote == want, f"series wrote {sorted(wrote)}, expected {sorted(want)}")
        os.remove(os.path.join(d, "series.csv"))
        read = summary_values(d, pattern)
        expect(read == want, f"summary --series -o {pattern}: read {sorted(read)}, expected "
                             f"{sorted(want)}")


def mode_report_limit():
    d = os.path.join(WORK, "many")
    os.makedirs(d)
    for i in range(65):
        shutil.copy(REPORT, os.path.join(d, f"r{i}.sqlite"))  # a link would count once
    r = run(["summary", d])
    expect(r.returncode == 2 and b"at most 64" in r.stderr,
           f"summary of 65 reports: exit {r.returncode} {r.stderr!r}")
    r = run(["diff", d, REPORT])
    expect(r.returncode == 2 and b"at most 64" in r.stderr,
           f"diff of 65 runs a side: exit {r.returncode} {r.stderr!r}")
    os.remove(os.path.join(d, "r64.sqlite"))
    r = run(["summary", "--csv", d])
    expect(r.returncode == 0, f"summary of 64 reports: exit {r.returncode} {r.stderr[-200:]!r}")
    if README:
        with open(README) as f:
            text = f.read()
        expect("at most 64 reports" in text, "the README does not state the 64-report limit")


{"series_dir": mode_series_dir, "repeated": mode_repeated, "names_utf8": mode_names_utf8,
 "collide": mode_collide, "leftovers": mode_leftovers, "escapes": mode_escapes,
 "long_value": mode_long_value, "series_names": mode_series_names,
 "leftovers_timeout": mode_leftovers_timeout, "log_link": mode_log_link,
 "escaped_paths": mode_escaped_paths,
 "report_limit": mode_report_limit}[MODE]()
if failures:
    print(f"cli_edges {MODE}: {len(failures)} failures")
    sys.exit(1)
print(f"cli_edges {MODE}: ok")
