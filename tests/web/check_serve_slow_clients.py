#!/usr/bin/env python3
"""serve attack C: fair to every client. 300 connections from 127.0.0.2
(Linux routes all of 127/8 to loopback) each send one header byte a second
(slowloris); meanwhile, from 127.0.0.1, GET /api/config is answered within
1 s, every second for 10 s, and an ordinary upload goes through. The server
keeps at most 32 connections of one address, and closes each trickling
connection within ~25 s of its start (20 s to send its headers) although it
keeps trickling. An upload whose body trickles 10 bytes a second (under
16 KiB per 20 s) is dropped within ~45 s and its report directory removed.
Then the server answers, and nothing was lost or written outside --dir.
  check_serve_slow_clients.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR"""
import errno
import http.client
import os
import resource
import select
import socket
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import (Checks, fresh_dir, make_fixture, multipart, skip,  # noqa: E402
                          start_or_fail)

BIN, FIXTURE, WORK = map(os.path.abspath, sys.argv[1:4])
ATTACKER = "127.0.0.2"
N_SLOW = 300
PER_ADDRESS = 32
HEADER_DEADLINE_S = 25    # 20 s, and some slack for a busy machine
LATENCY_MAX_S = 1.0
UPLOAD_DEADLINE_S = 45    # under 16 KiB in 20 s: dropped
checks = Checks("serve_answers_while_slow_clients_trickle")

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
want = N_SLOW + 200
if soft < want:
    try:  # up to the hard limit
        resource.setrlimit(resource.RLIMIT_NOFILE,
                           (hard if hard != resource.RLIM_INFINITY else 65536, hard))
    except (ValueError, OSError):
        pass
if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < want:
    skip(f"needs {want} file descriptors; the hard limit is {hard}")

fresh_dir(WORK)
BOX = fresh_dir(os.path.join(WORK, "box"))
REPORT = make_fixture(FIXTURE, os.path.join(WORK, "report.sqlite"), seed=7, events=300)
with open(REPORT, "rb") as f:
    CONTENT = f.read()

# 127.0.0.2 as a source address: Linux has it, not every system does.
probe = socket.socket()
try:
    probe.bind((ATTACKER, 0))
except OSError as e:
    skip(f"cannot use {ATTACKER} as a source address: {e}")
finally:
    probe.close()

srv = start_or_fail(checks, BIN, BOX, ["--workers", "2"])
if not srv:
    checks.finish()
if not srv.add_keeper(REPORT, checks):
    srv.stop()
    checks.finish()
HEAD = (f"GET /api/config HTTP/1.1\r\nHost: {srv.hostport}\r\nUser-Agent: slow\r\nX-Slow: "
        .encode() + b"a" * 4096)  # never ends within the test


class Slow:
    def __init__(self, sock, started):
        self.sock, self.started = sock, started
        self.sent = 0
        self.closed_at = None   # seconds after started
        self.answer = b""


# The slow upload, from 127.0.0.1, while the others trickle.
upload_result = {}


def slow_upload():
    body, headers = multipart({}, "slow.sqlite", CONTENT)
    head = (f"POST /api/reports HTTP/1.1\r\nHost: {srv.hostport}\r\nContent-Type: "
            f"{headers['Content-Type']}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    start_of_content = body.index(b"\r\n\r\n") + 4  # the part's headers go at once
    before = srv.report_dirs()
    s = socket.create_connection((srv.host, srv.port), timeout=5)
    s.sendall(head + body[:start_of_content])
    t0 = time.monotonic()
    sent, reply, seen_dir = start_of_content, b"", None
    s.setblocking(False)
    while time.monotonic() - t0 < UPLOAD_DEADLINE_S + 10:
        new = srv.report_dirs() - before
        if new and not seen_dir:
            seen_dir = new.pop()
        try:
            s.send(body[sent:sent + 10])
            sent += 10
        except BlockingIOError:
            pass
        except OSError:  # reset or broken pipe: dropped
            break
        r, _, _ = select.select([s], [], [], 1.0)
        if r:
            try:
                chunk = s.recv(4096)
            except OSError:
                break
            if not chunk:
                break
            reply += chunk
    upload_result.update(dropped_after=time.monotonic() - t0, sent=sent, reply=reply,
                         dir=seen_dir)
    s.close()


uploader = threading.Thread(target=slow_upload)
uploader.start()

# 300 trickling connections from 127.0.0.2.
slow = []
opened_fail = 0
for i in range(N_SLOW):
    s = socket.socket()
    try:
        s.bind((ATTACKER, 0))
        s.setblocking(False)
        err = s.connect_ex((srv.host, srv.port))
        if err not in (0, errno.EINPROGRESS):
            opened_fail += 1
            s.close()
            continue
    except OSError:
        opened_fail += 1
        s.close()
        continue
    slow.append(Slow(s, time.monotonic()))
t_open = time.monotonic()
print(f"opened {len(slow)} connections from {ATTACKER} ({opened_fail} refused at once)",
      flush=True)

# A normal client, every second for 10 s: answered within 1 s.
latencies, latency_errors = [], []
normal_upload = {}


def measure():
    for i in range(11):
        t0 = time.monotonic()
        try:
            conn = http.client.HTTPConnection(srv.host, srv.port, timeout=5)
            conn.request("GET", "/api/config")
            r = conn.getresponse()
            r.read()
            conn.close()
            if r.status != 200:
                latency_errors.append(f"status {r.status}")
        except (OSError, http.client.HTTPException) as e:
            latency_errors.append(f"{e!r} after {time.monotonic() - t0:.2f} s")
        latencies.append(time.monotonic() - t0)
        if i == 3:  # an ordinary upload goes through too
            t1 = time.monotonic()
            try:
                status, reply = srv.upload("normal.sqlite", CONTENT)
            except (OSError, http.client.HTTPException) as e:
                status, reply = None, repr(e)
            normal_upload.update(status=status, reply=reply, took=time.monotonic() - t1)
        time.sleep(max(0.0, 1.0 - (time.monotonic() - t0)))


measurer = threading.Thread(target=measure)
measurer.start()

poller = select.poll()
by_fd = {}
for c in slow:
    poller.register(c.sock.fileno(), select.POLLIN | select.POLLERR | select.POLLHUP)
    by_fd[c.sock.fileno()] = c
open_after_5s = None
last_send = 0.0
end = t_open + HEADER_DEADLINE_S + 8
try:
    while time.monotonic() < end and any(c.closed_at is None for c in slow):
        now = time.monotonic()
        if now - last_send >= 1.0:  # one byte a second on each
            last_send = now
            for c in slow:
                if c.closed_at is not None:
                    continue
                try:
                    c.sent += c.sock.send(HEAD[c.sent % len(HEAD):c.sent % len(HEAD) + 1])
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError as e:
                    if e.errno in (errno.ENOTCONN,):  # still connecting
                        continue
                    c.closed_at = now - c.started
                    poller.unregister(c.sock.fileno())
        for fd, ev in poller.poll(200):
            c = by_fd[fd]
            if c.closed_at is not None:
                continue
            try:
                chunk = c.sock.recv(4096)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                chunk = b""
            if chunk:
                c.answer += chunk
                continue
            c.closed_at = time.monotonic() - c.started
            poller.unregister(fd)
        if open_after_5s is None and time.monotonic() - t_open >= 5:
            open_after_5s = sum(c.closed_at is None for c in slow)
finally:
    still_open = [c for c in slow if c.closed_at is None]
    for c in slow:
        c.sock.close()
measurer.join()
uploader.join()

worst = max(latencies) if latencies else float("inf")
print(f"GET /api/config from 127.0.0.1 under attack: {len(latencies)} requests, worst "
      f"{worst:.3f} s, median {sorted(latencies)[len(latencies) // 2]:.3f} s", flush=True)
checks.expect(not latency_errors, f"normal client errors under attack: {latency_errors}")
checks.expect(worst <= LATENCY_MAX_S, f"normal client answered within {LATENCY_MAX_S} s under "
                                      f"attack: worst {worst:.3f} s "
                                      f"({[round(x, 2) for x in latencies]})")
checks.expect(normal_upload.get("status") == 201,
              f"an ordinary upload under attack: {normal_upload}")
checks.expect(open_after_5s is not None and open_after_5s <= PER_ADDRESS,
              f"at most {PER_ADDRESS} connections kept from one address: {open_after_5s} of "
              f"{len(slow)} open after 5 s")
closed = [c.closed_at for c in slow if c.closed_at is not None]
late = [c for c in slow if c.closed_at is not None and c.closed_at > HEADER_DEADLINE_S]
print(f"trickling connections: {len(closed)} of {len(slow)} closed by the server, the last "
      f"after {max(closed) if closed else 0:.1f} s; {len(still_open)} still open after "
      f"{HEADER_DEADLINE_S + 8} s", flush=True)
checks.expect(not still_open and not late,
              f"every trickling connection closed within {HEADER_DEADLINE_S} s of its start: "
              f"{len(still_open)} still open after {HEADER_DEADLINE_S + 8} s, {len(late)} closed "
              f"late (up to {max((c.closed_at for c in late), default=0):.1f} s)")
answered = [c.answer[:40] for c in slow if c.answer]
if answered:
    print(f"note: {len(answered)} trickling connections got an answer, e.g. {answered[0]!r}")
bad = [a for a in answered if a.startswith(b"HTTP/1.1 2")]
checks.expect(not bad, f"no trickling request got a 2xx: {bad[:3]}")

print(f"slow upload: {upload_result.get('sent')} bytes sent, connection ended after "
      f"{upload_result.get('dropped_after', 0):.1f} s, reply "
      f"{upload_result.get('reply', b'')[:40]!r}",
      flush=True)
checks.expect(upload_result.get("dir"), "the slow upload was under way (a report directory)")
checks.expect(upload_result.get("dropped_after", 1e9) <= UPLOAD_DEADLINE_S,
              f"slow upload dropped within {UPLOAD_DEADLINE_S} s: "
              f"{upload_result.get('dropped_after', 0):.1f} s")
if upload_result.get("dir"):
    rid = upload_result["dir"]
    for _ in range(100):
        if not os.path.exists(os.path.join(srv.reports, rid)):
            break
        time.sleep(0.1)
    left = os.path.isdir(os.path.join(srv.reports, rid))
    checks.expect(not left, f"the slow upload's directory is removed: {rid} "
                            f"{os.listdir(os.path.join(srv.reports, rid)) if left else ''}")

srv.healthy(checks, "slow clients")
if normal_upload.get("status") == 201:
    rid = normal_upload["reply"]["id"]
    d = srv.wait_done(rid, 60)
    checks.expect(d.get("state") == "done", f"the upload made under attack converted: {d}")
checks.expect(not srv.unfinished(), f"no unfinished report left: {srv.unfinished()}")
checks.expect(srv.stop() == 0, f"Ctrl-C: exit {srv.proc.returncode}")
checks.finish()
