#!/usr/bin/env python3
"""serve attack E: the disk reserve holds while uploads stream. With
--disk-reserve set to the free space less 24 MiB, three concurrent chunked
uploads (no Content-Length to refuse them by) of 20 MiB each: at least one is
refused 507, the free space seen meanwhile (statvfs, polled in a thread)
never drops more than a few MiB below the reserve, and refused uploads leave
no directory. A declared Content-Length past the room left is refused 507
before the body. Afterwards a small upload still goes through, the server
answers, and nothing was lost or written outside --dir.
Other processes may write to the same disk: the free space is read once it
holds still, and a miss is not counted (77) when the space the others took
(free space plus the server's files, before and after) explains it.
  check_serve_disk_reserve.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR"""
import os
import select
import socket
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import (Checks, fresh_dir, make_fixture, multipart, skip,  # noqa: E402
                          start_or_fail)

BIN, FIXTURE, WORK = map(os.path.abspath, sys.argv[1:4])
MiB = 1 << 20
ROOM = 24 * MiB           # what the reserve leaves to write
UPLOAD = 20 * MiB         # each of three
OVERSHOOT = 8 * MiB       # the chunks in flight, and some slack
NOISE = 4 * MiB           # free space moved by others: the measure is off
SAMPLE_EVERY_S = 0.005
checks = Checks("serve_disk_reserve_holds_while_streaming")
fresh_dir(WORK)
BOX = fresh_dir(os.path.join(WORK, "box"))
REPORTS = fresh_dir(os.path.join(BOX, "reports"))
REPORT = make_fixture(FIXTURE, os.path.join(WORK, "report.sqlite"), seed=11, events=300)
with open(REPORT, "rb") as f:
    CONTENT = f.read()

# A bad size is a bad command line.
r = subprocess.run([BIN, "serve", "--dir", REPORTS, "--port", "0", "--disk-reserve", "lots"],
                   capture_output=True, text=True, timeout=30)
checks.expect(r.returncode == 2 and r.stderr.count("\n") in (1, 2) and "disk-reserve" in r.stderr
              and not r.stdout, f"--disk-reserve lots: exit {r.returncode} {r.stderr!r}")


def free():
    st = os.statvfs(REPORTS)
    return st.f_bavail * st.f_frsize


def ours():
    """Bytes the server's files take on the disk."""
    total = 0
    for parent, dirs, files in os.walk(REPORTS):
        for f in files + dirs:
            try:
                total += os.lstat(os.path.join(parent, f)).st_blocks * 512
            except FileNotFoundError:
                pass
    return total


def quiet_free():
    """The free space once it has held still (within 1 MiB for 1 s): blocks
    freed by removals reach statvfs later; None if it never does in 15 s."""
    os.sync()
    seen = []
    end = time.monotonic() + 15
    while time.monotonic() < end:
        seen.append(free())
        window = seen[-5:]
        if len(window) == 5 and max(window) - min(window) < MiB:
            return window[-1]
        time.sleep(0.25)
    return None


def others_took():
    """What others took of the disk since F0 (negative: gave back), the
    server's own files counted out; read while the server is idle."""
    os.sync()
    return F0 - free() - ours()


F0 = quiet_free()
if F0 is None:
    skip(f"the free space on {REPORTS} does not hold still (other processes writing)")
if F0 < 256 * MiB:
    skip(f"only {F0 / MiB:.0f} MiB free on {REPORTS}")
RESERVE = F0 - ROOM
srv = start_or_fail(checks, BIN, BOX, ["--workers", "2", "--disk-reserve", str(RESERVE)])
if not srv:
    checks.finish()
srv.add_keeper(REPORT, checks)

samples = []  # (free, ours)
stop = threading.Event()


def poll_disk():
    while not stop.is_set():
        samples.append(free())
        time.sleep(SAMPLE_EVERY_S)


def chunked_uploads(count):
    """count chunked uploads sent piece by piece in turn from one thread, so
    that all of them are in flight at once whatever the scheduling (threads
    could each finish before the next began, and the reserve was never
    tested); the replies, b"" where none came."""
    conns = []
    for i in range(count):
        body, headers = multipart({}, f"big-{i}.sqlite", os.urandom(MiB) * (UPLOAD // MiB))
        s = socket.create_connection((srv.host, srv.port), timeout=60)
        s.sendall(f"POST /api/reports HTTP/1.1\r\nHost: {srv.hostport}\r\nTransfer-Encoding: "
                  f"chunked\r\nContent-Type: {headers['Content-Type']}\r\n\r\n".encode())
        conns.append({"sock": s, "body": body, "at": 0, "reply": b"", "sending": True})
    PIECE = 64 << 10
    while any(c["sending"] for c in conns):
        for c in conns:
            if not c["sending"]:
                continue
            s, piece = c["sock"], c["body"][c["at"]:c["at"] + PIECE]
            try:
                if piece:
                    s.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
                    c["at"] += len(piece)
                else:
                    s.sendall(b"0\r\n\r\n")
                    c["sending"] = False
                if select.select([s], [], [], 0)[0]:  # an early answer is read at once:
                    c["reply"] += s.recv(4096)          # a reset would lose it
            except (BrokenPipeError, ConnectionResetError):
                c["sending"] = False
            if b"\r\n" in c["reply"]:
                c["sending"] = False
    for c in conns:
        s = c["sock"]
        try:
            while b"\r\n\r\n" not in c["reply"]:
                chunk = s.recv(4096)
                if not chunk:
                    break
                c["reply"] += chunk
        except (ConnectionResetError, socket.timeout):
            pass
        s.close()
    return [c["reply"] for c in conns]


before = srv.report_dirs()
poller = threading.Thread(target=poll_disk)
poller.start()
results = chunked_uploads(3)
time.sleep(0.5)
stop.set()
poller.join()

codes = [int(r.split(b" ")[1]) if r.startswith(b"HTTP/1.1 ") else None for r in results]
print(f"three chunked uploads of {UPLOAD // MiB} MiB with {ROOM // MiB} MiB to spare: {codes}",
      flush=True)
checks.expect(507 in codes, f"at least one chunked upload refused 507: {codes}")
checks.expect(all(c in (201, 507) for c in codes), f"each upload 201 or 507: {codes} "
                                                   f"{[r[:60] for r in results]}")
low = min(samples) if samples else F0
noise = others_took()
print(f"free space: {F0 / MiB:.1f} MiB before, {low / MiB:.1f} MiB at the lowest "
      f"({(F0 - low) / MiB:.1f} MiB used; the reserve allows {ROOM / MiB:.0f}); other "
      f"processes took {noise / MiB:+.1f} MiB meanwhile ({len(samples)} samples)", flush=True)
if low < RESERVE - OVERSHOOT:
    if abs(noise) > NOISE:
        checks.note(f"free space went {(RESERVE - low) / MiB:.1f} MiB below the reserve, but "
                    f"other processes took {noise / MiB:+.1f} MiB: not counted")
        checks.skip_reason = "the disk's free space moved for other reasons during the uploads"
    else:
        checks.expect(False, f"free space stays above the reserve less {OVERSHOOT // MiB} MiB: "
                             f"it went {(RESERVE - low) / MiB:.1f} MiB below the reserve")
accepted = set()
for r in results:
    if r.startswith(b"HTTP/1.1 201"):
        rid = r.split(b'"id":"', 1)[1].split(b'"', 1)[0].decode() if b'"id":"' in r else None
        accepted.add(rid)
now = srv.wait_dirs(before | accepted)
checks.expect(now == before | accepted, f"refused uploads leave no directory: "
                                        f"{sorted(now - before - accepted)}")

# A declared length past the room left: refused from the headers.
before = srv.report_dirs()
s = socket.create_connection((srv.host, srv.port), timeout=10)
body, headers = multipart({}, "declared.sqlite", b"")
s.sendall(f"POST /api/reports HTTP/1.1\r\nHost: {srv.hostport}\r\nContent-Type: "
          f"{headers['Content-Type']}\r\nContent-Length: {100 * MiB}\r\n\r\n".encode())
reply = b""
try:
    while b"\r\n" not in reply:
        chunk = s.recv(4096)
        if not chunk:
            break
        reply += chunk
except (ConnectionResetError, socket.timeout):
    pass
s.close()
checks.expect(reply.startswith(b"HTTP/1.1 507"), f"Content-Length of 100 MiB with "
                                                 f"{ROOM // MiB} MiB to spare: 507 before the "
                                                 f"body: {reply[:40]!r}")
now = srv.wait_dirs(before)
checks.expect(now == before, f"no directory left by the declared upload: {sorted(now - before)}")

# The space of refused uploads is given back: a small one goes through.
for rid in accepted:
    if rid:
        srv.wait_done(rid, 60)
status, reply = srv.upload("small.sqlite", CONTENT)
if status == 507 and free() - 2 * len(CONTENT) < RESERVE + MiB:
    checks.note(f"a small upload after the refusals: 507, but other processes have taken "
                f"{others_took() / MiB:+.1f} MiB: not counted")
    checks.skip_reason = "other processes filled the disk's room during the test"
else:
    checks.expect(status == 201, f"a small upload after the refusals: {status} {reply}")
if status == 201:
    checks.expect(srv.wait_done(reply["id"], 60).get("state") == "done", "small upload converted")
srv.healthy(checks, "uploads past the disk reserve")
checks.expect(not srv.unfinished(), f"no unfinished report left: {srv.unfinished()}")
checks.expect(srv.stop() == 0, f"Ctrl-C: exit {srv.proc.returncode}")
checks.finish()
