#!/usr/bin/env python3
"""serve attack F: one server per folder. A second `serve --dir SAME` (or the
same folder by another path) exits non-zero within seconds with one line on
stderr that names the folder and says another server uses it, and touches
nothing: the first server's upload in progress keeps its files and completes.
Start-up cleanup removes only what a server made: a user's file and a user's
directory with an id-shaped name (without the server's marker) survive a
start, and a DELETE of that id; a report left unfinished by a server killed
with SIGKILL is removed at the next start, which is not blocked by the dead
server's lock.
  check_serve_one_per_dir.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR"""
import os
import signal
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import (Checks, dir_tree, fresh_dir, make_fixture, multipart,  # noqa: E402
                          start_or_fail)

BIN, FIXTURE, WORK = map(os.path.abspath, sys.argv[1:4])
checks = Checks("serve_one_server_per_dir")
fresh_dir(WORK)
BOX = fresh_dir(os.path.join(WORK, "box"))
REPORTS = os.path.join(BOX, "reports")
REPORT = make_fixture(FIXTURE, os.path.join(WORK, "report.sqlite"), seed=13, events=2000)
with open(REPORT, "rb") as f:
    CONTENT = f.read()


def begin_upload(srv, name="slow.sqlite"):
    """Sends the headers and half the body; (socket, rest, report id)."""
    body, headers = multipart({}, name, CONTENT)
    head = (f"POST /api/reports HTTP/1.1\r\nHost: {srv.hostport}\r\nContent-Type: "
            f"{headers['Content-Type']}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    before = srv.report_dirs()
    s = socket.create_connection((srv.host, srv.port), timeout=30)
    s.sendall(head + body[:len(body) // 2])
    rid = None
    for _ in range(200):
        new = srv.report_dirs() - before
        if new:
            rid = new.pop()
            part = os.path.join(srv.reports, rid, "upload.part")
            if os.path.exists(part) and os.path.getsize(part) > 0:
                break
        time.sleep(0.05)
    return s, body[len(body) // 2:], rid


def finish_upload(s, rest):
    s.sendall(rest)
    reply = b""
    try:
        while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    s.close()
    return reply


def second_server(dir_arg, what):
    """Runs a second server on the same folder; checks it refuses to."""
    t0 = time.monotonic()
    try:
        r = subprocess.run([BIN, "serve", "--port", "0", "--dir", dir_arg, "-q"], cwd=BOX,
                           capture_output=True, text=True, timeout=8)
    except subprocess.TimeoutExpired as e:
        checks.expect(False, f"a second server on {what} exits within 8 s: still running "
                             f"(stdout {e.stdout!r}); killed")
        return
    took = time.monotonic() - t0
    err = r.stderr
    checks.expect(r.returncode != 0 and not r.stdout,
                  f"a second server on {what} exits non-zero without serving: exit "
                  f"{r.returncode}, stdout {r.stdout!r}")
    checks.expect(err.count("\n") == 1, f"a second server on {what}: one line on stderr: {err!r}")
    checks.expect("another" in err.lower() and "serve" in err.lower(),
                  f"a second server on {what}: says another server uses it: {err!r}")
    checks.expect(os.path.realpath(REPORTS) in err or dir_arg in err,
                  f"a second server on {what}: names the folder: {err!r}")
    print(f"second server on {what}: exit {r.returncode} in {took:.2f} s: {err.strip()}",
          flush=True)


srv = start_or_fail(checks, BIN, BOX, ["--workers", "2"])
if not srv:
    checks.finish()
keeper = srv.add_keeper(REPORT, checks)

# A second server while the first one streams an upload.
s, rest, rid = begin_upload(srv)
checks.expect(rid is not None, "the first server's upload is under way")
time.sleep(0.3)
tree = dir_tree(REPORTS)
os.symlink(REPORTS, os.path.join(WORK, "link"))
for dir_arg, what in ((REPORTS, "the same --dir"), (REPORTS + "/", "the same --dir/"),
                      (os.path.join(WORK, "link"), "a symlink to the same folder"),
                      (os.path.join(BOX, ".", "reports"), "the same folder as box/./reports")):
    second_server(dir_arg, what)
    after = dir_tree(REPORTS)
    changed = sorted(k for k in set(tree) | set(after) if tree.get(k) != after.get(k))
    checks.expect(not changed, f"a second server on {what} touches nothing in the folder: "
                               f"{changed}")
    tree = after
checks.expect(rid and os.path.exists(os.path.join(REPORTS, rid, "upload.part")),
              "the first server's upload keeps its part file")
checks.expect(srv.alive(), "the first server runs on")
reply = finish_upload(s, rest)
checks.expect(reply.startswith(b"HTTP/1.1 201"), f"the first server completes the upload: "
                                                 f"{reply[:80]!r}")
if reply.startswith(b"HTTP/1.1 201") and rid:
    d = srv.wait_done(rid, 60)
    checks.expect(d.get("state") == "done", f"the upload converts: {d.get('state')} "
                                            f"{d.get('error')}")
    if d.get("state") == "done":
        srv.keepers[rid] = open(os.path.join(REPORTS, rid, "trace.perfetto-trace"), "rb").read()
srv.healthy(checks, "a second server on the same folder")
checks.expect(srv.stop() == 0, f"Ctrl-C: exit {srv.proc.returncode}")
keepers = dict(srv.keepers)

# The user's things in the folder survive a start.
with open(os.path.join(REPORTS, "notes.txt"), "w") as f:
    f.write("mine\n")
USER_DIRS = {"0123456789abcdef": "mine.txt", "00000000000000aa": "upload.part",
             "fedcba9876543210": "name"}
for d, f in USER_DIRS.items():
    os.mkdir(os.path.join(REPORTS, d))
    with open(os.path.join(REPORTS, d, f), "w") as out:
        out.write("the user's, not the server's\n")
with open(os.path.join(REPORTS, "aaaaaaaaaaaaaaaa"), "w") as f:  # an id-shaped file
    f.write("mine too\n")


def user_things_there(when):
    missing = [p for p in ["notes.txt", "aaaaaaaaaaaaaaaa"] +
               [os.path.join(d, f) for d, f in USER_DIRS.items()]
               if not os.path.exists(os.path.join(REPORTS, p))]
    checks.expect(not missing, f"the user's files survive {when}: {missing} removed")


srv = start_or_fail(checks, BIN, BOX, ["--workers", "2"])
if not srv:
    checks.finish()
srv.keepers = keepers
user_things_there("a server's start")
status, _, _ = srv.request("DELETE", "/api/reports/0123456789abcdef")
checks.expect(status == 404, f"DELETE of the user's id-shaped directory: 404, got {status}")
status, _, _ = srv.request("DELETE", "/api/reports/fedcba9876543210")
checks.expect(status == 404, f"DELETE of the user's id-shaped directory with a 'name': 404, got "
                             f"{status}")
user_things_there("DELETEs of their names")
status, listed = srv.get_json("/api/reports")
checks.expect(status == 200 and listed is not None, f"the list with the user's files: {status}")
srv.healthy(checks, "a start among the user's files")

# A server killed in the middle of an upload: the next start removes it.
s, rest, rid = begin_upload(srv, "killed.sqlite")
checks.expect(rid is not None, "an upload under way before SIGKILL")
srv.proc.send_signal(signal.SIGKILL)
srv.proc.wait(timeout=30)
s.close()
checks.expect(rid and os.path.isdir(os.path.join(REPORTS, rid)),
              "the killed server left its unfinished report")
srv = start_or_fail(checks, BIN, BOX, ["--workers", "2"])
if srv:
    srv.keepers = keepers
    left = rid and os.path.isdir(os.path.join(REPORTS, rid))
    checks.expect(not left, f"the unfinished report of the killed server is removed at the next "
                            f"start: {os.listdir(os.path.join(REPORTS, rid)) if left else ''}")
    user_things_there("the next start after SIGKILL")
    srv.healthy(checks, "a start after SIGKILL")
    second_server(REPORTS, "the same --dir, after a restart")
    checks.expect(srv.stop() == 0, f"Ctrl-C: exit {srv.proc.returncode}")
    checks.expect(not srv.outside(), f"nothing outside --dir: {srv.outside()}")
checks.finish()
