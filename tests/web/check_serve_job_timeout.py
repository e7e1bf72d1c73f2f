#!/usr/bin/env python3
"""serve attack H: a job that hangs is stopped at --job-timeout and frees its
worker. With --job-timeout 2s and --workers 2, two .nsys-rep uploads whose
export hangs (NSYS is a fake that sleeps 1000 s on `export`, after starting
a child of its own) fail within ~5 s with an error naming the time limit,
their fake nsys (and its child) are gone, the export's temporary folder is
removed, and an ordinary .sqlite upload sent after them converts to done
meanwhile: slow jobs never hold the others. An NVTX filter with a
back-reference (exponential to match) is refused at upload, 400, saying so.
A bad --job-timeout is a bad command line.
  check_serve_job_timeout.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR"""
import os
import re
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import (Checks, fresh_dir, make_fixture, pid_alive, pid_exists,  # noqa: E402
                          start_or_fail)

BIN, FIXTURE, WORK = map(os.path.abspath, sys.argv[1:4])
TIMEOUT_S = 2
FAIL_WITHIN_S = 5 + 1     # the limit, and a second of slack for the poll
checks = Checks("serve_job_timeout_frees_worker")
fresh_dir(WORK)
BOX = fresh_dir(os.path.join(WORK, "box"))
TMP = fresh_dir(os.path.join(WORK, "tmp"))   # the server's TMPDIR: exports go here
PIDS = fresh_dir(os.path.join(WORK, "pids"))
REPORT = make_fixture(FIXTURE, os.path.join(WORK, "report.sqlite"), seed=17, events=2000)
with open(REPORT, "rb") as f:
    CONTENT = f.read()

FAKE = os.path.join(WORK, "fake-nsys")
with open(FAKE, "w") as f:
    f.write(f"""#!/bin/sh
# A stand-in for nsys whose export hangs, with a child of its own as nsys has.
if [ "$1" = export ]; then
    sleep 1000 &
    echo $! > "{PIDS}/child.$$"
    echo $$ > "{PIDS}/nsys.$$"
    wait
fi
exit 0
""")
os.chmod(FAKE, 0o755)

r = subprocess.run([BIN, "serve", "--dir", os.path.join(BOX, "reports"), "--port", "0",
                    "--job-timeout", "soon"], capture_output=True, text=True, timeout=30)
checks.expect(r.returncode == 2 and r.stderr.count("\n") in (1, 2) and "job-timeout" in r.stderr
              and not r.stdout, f"--job-timeout soon: exit {r.returncode} {r.stderr!r}")

env = dict(os.environ, NSYS=FAKE, TMPDIR=TMP)
srv = start_or_fail(checks, BIN, BOX, ["--workers", "2", "--job-timeout", f"{TIMEOUT_S}s"],
                    env=env)


def our_pids():
    """{pid: what} for the fake nsys processes and their children."""
    out = {}
    for name in os.listdir(PIDS):
        try:
            with open(os.path.join(PIDS, name)) as f:
                out[int(f.read().strip())] = name
        except (ValueError, FileNotFoundError):
            pass
    return out


def end_ours():
    """Ends the fake processes still running (by their ids, ours alone)."""
    for pid in our_pids():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except FileNotFoundError:
            continue
        if b"sleep" in cmd or FAKE.encode() in cmd:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


try:
    if srv:
        srv.add_keeper(REPORT, checks)
        t0 = time.monotonic()
        slow = []
        for i in range(2):
            status, reply = srv.upload(f"hangs-{i}.nsys-rep", b"not really a report" * 100)
            if checks.expect(status == 201, f"hanging .nsys-rep upload {i}: {status} {reply}"):
                slow.append(reply["id"])
        status, reply = srv.upload("ordinary.sqlite", CONTENT)
        checks.expect(status == 201, f"ordinary upload: {status} {reply}")
        ordinary = reply.get("id") if status == 201 else None

        states, done_at, ordinary_at = {}, {}, None
        while time.monotonic() - t0 < 30 and (len(done_at) < len(slow) or
                                               (ordinary and ordinary_at is None)):
            for rid in slow:
                if rid in done_at:
                    continue
                _, d = srv.get_json(f"/api/reports/{rid}")
                if d and d.get("state") in ("done", "failed"):
                    done_at[rid] = time.monotonic() - t0
                    states[rid] = d
            if ordinary and ordinary_at is None:
                _, d = srv.get_json(f"/api/reports/{ordinary}")
                if d and d.get("state") in ("done", "failed"):
                    ordinary_at = time.monotonic() - t0
                    states[ordinary] = d
            time.sleep(0.05)

        for rid in slow:
            d = states.get(rid, {})
            took = done_at.get(rid)
            checks.expect(d.get("state") == "failed" and took is not None and took <= FAIL_WITHIN_S,
                          f"a hanging export fails within {FAIL_WITHIN_S} s with --job-timeout "
                          f"{TIMEOUT_S}s: state {d.get('state')} after "
                          f"{'%.1f s' % took if took is not None else 'more than 30 s'}")
            error = d.get("error") or ""
            checks.expect(re.search(r"time ?limit|timed? ?out|job-timeout", error, re.I) and
                          "\n" not in error,
                          f"the error names the time limit, on one line: {error!r}")
            checks.expect(error.startswith(f"hangs-") and srv.reports not in error and
                          TMP not in error, f"the error names the uploaded file, not the "
                                            f"server's paths: {error!r}")
            if took is not None:
                print(f"hanging export {rid}: failed after {took:.1f} s: {error}", flush=True)
        if ordinary:
            d = states.get(ordinary, {})
            checks.expect(d.get("state") == "done" and ordinary_at is not None and
                          ordinary_at <= FAIL_WITHIN_S + 5,
                          f"the ordinary upload behind two hanging ones converts within "
                          f"{FAIL_WITHIN_S + 5} s: {d.get('state')} after {ordinary_at} s")
            if ordinary_at is not None:
                print(f"ordinary upload done after {ordinary_at:.1f} s", flush=True)

        # The fake nsys and its child are gone (killed and reaped).
        pids = our_pids()
        checks.expect(any(w.startswith("nsys.") for w in pids.values()),
                      f"the fake nsys was run for the exports: {pids}")
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and any(pid_exists(p) for p in pids):
            time.sleep(0.1)
        for pid, what in pids.items():
            kind = "fake nsys" if what.startswith("nsys.") else "the fake nsys's child (sleep)"
            checks.expect(not pid_alive(pid), f"{kind} {pid} is stopped after the time limit")
            if not pid_alive(pid):
                checks.expect(not pid_exists(pid), f"{kind} {pid} is reaped (not a zombie)")
        left = os.listdir(TMP)
        checks.expect(not left, f"the exports' temporary folders are removed: {left}")
        checks.expect(not srv.unfinished(), f"no unfinished report left: {srv.unfinished()}")

        # A second round: the workers are free again.
        status, reply = srv.upload("after.sqlite", CONTENT)
        if checks.expect(status == 201, f"upload after the timeouts: {status}"):
            d = srv.wait_done(reply["id"], 30)
            checks.expect(d.get("state") == "done", f"upload after the timeouts: {d.get('state')}")

        # Back-references: exponential to match, refused at upload.
        before = srv.report_dirs()
        for pattern in (r"\(a*\)*\1", r"(a*)*\1$", r"(x+x+)+y\1", r"(a|aa)+\1"):
            status, reply = srv.upload("filtered.sqlite", CONTENT, {"nvtx_filter": pattern})
            error = reply.get("error", "")
            checks.expect(status == 400 and re.search(r"back[- ]?ref", error, re.I),
                          f"nvtx_filter {pattern!r}: 400 naming back-references, got {status} "
                          f"{reply}")
        now = srv.wait_dirs(before)
        for rid in now - before:  # accepted: let them finish, so the server stops clean
            srv.wait_done(rid, 30)
        checks.expect(now == before, f"refused filters store nothing: {sorted(now - before)}")
        status, reply = srv.upload("filtered.sqlite", CONTENT,
                                   {"nvtx_filter": r"^(step|iter) [0-9]+"})
        checks.expect(status == 201, f"an ordinary nvtx_filter is taken: {status} {reply}")
        if status == 201:
            srv.wait_done(reply["id"], 30)

        srv.healthy(checks, "jobs past --job-timeout")
        checks.expect(srv.stop() == 0, f"Ctrl-C: exit {srv.proc.returncode}")
finally:
    if srv:
        srv.kill()
    end_ours()
checks.finish()
