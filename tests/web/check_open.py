#!/usr/bin/env python3
"""--open: the trace is served on 127.0.0.1 behind serve's guard, and only the
UI's own whole fetch ends the serving. One script, three tests (the mode):

  host     a foreign Host (DNS rebinding: evil.example:PORT, localhost.evil.example,
           no Host) gets 403 or 400 and no trace, and the serving goes on; loopback
           names (localhost, 127.0.0.2, [::1]-less IPv4 forms) are answered.
  fetches  none of these ends the serving: a fetch without Origin (curl), with another
           site's Origin, a HEAD, ranges (206 with the bytes asked, suffix ranges, 416
           past the end), a fetch the client drops half way (the UI's Origin; the trace
           outgrows the kernel's buffers, see web_open.c), a wrong
           path (404), another method (405), the CORS preflight (204).
  end      the UI's fetch afterwards gets the whole trace byte for byte with CORS for
           its origin and the tool exits 0; with --perfetto-ui the link and the origin
           are the team's UI and a fetch with ui.perfetto.dev's Origin does not count;
           the UI's origin given in capitals with its default port still matches;
           --open-timeout ends the serving with no fetch, exit 0.

  big      past --open-limit, the native trace processor serves the trace on
           127.0.0.1:9001 and the link is the UI's own; Ctrl-C or --open-timeout stops
           it; with a team's --perfetto-ui, the engine answers that UI's origin (CORS)
           and no other; without the program, one line says how to get it and which
           --time-range would fit.
  engine   the same through fake engines (shell scripts, no Perfetto needed):
           --open-timeout bounds an engine that never listens (exit 1, no link);
           Ctrl-C while it loads exits 7 with no link; an engine started through a
           wrapper that forks the listener ends whole (wrapper and child, port
           9001 free) at SIGTERM, SIGINT, --open-timeout, and soon after SIGKILL; one that fails says
           its last line; a --trace-processor that is missing, not executable or a
           directory is refused before converting (exit 2, naming it); a trace
           named -dev... reaches the engine as ./-dev..., never as an option.

  view     the link lays the trace out (issue 46): its startupCommands are JSON of the
           UI's shape, only ids on the UI's startup allowlist, within the 128 KiB a
           program is given as one argument; they expand the GPU groups, pin the
           utilization rows, load the nsys package (its script, which run in
           trace_processor_shell answers the kernel summary, when ENGINE is given) and
           open the busiest GPU's kernels; --open-view FILE gives the file's commands,
           --open-view none a plain link; a file that is not JSON, not the UI's shape,
           names a command the UI blocks, or makes the link too long is refused before
           converting (exit 2, one line naming it); `sql --ui-settings` is JSON whose
           startup commands and macros are of that shape and allowlisted; `ranks
           --trace OUT --open` pins the worst straggler, notes its worst arrival (at
           one of its collectives) and tabs the stragglers.

Every other mode ends with the UI's fetch: the whole trace, then exit 0.
  check_open.py MODE NSYS_PERFETTO NSYS_FIXTURE WORKDIR"""
import http.client
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import Checks, fresh_dir, make_fixture  # noqa: E402

MODE, BIN, FIXTURE, WORK = sys.argv[1], *map(os.path.abspath, sys.argv[2:5])
ENGINE = sys.argv[5] if len(sys.argv) > 5 else None  # mode big: trace_processor_shell
UI = "https://ui.perfetto.dev"
checks = Checks(f"open_{MODE}")
fresh_dir(WORK)


def tcp_send_buffer_max():
    try:
        with open("/proc/sys/net/ipv4/tcp_wmem") as f:
            return int(f.read().split()[2])
    except (OSError, ValueError, IndexError):
        return 4 << 20


# The trace must outgrow what the kernel buffers for a client that stops
# reading, or a dropped fetch would look complete to any server: uncompressed,
# about 85 bytes an event. (Mode big needs no big trace: --open-limit 1K.)
EVENTS = 2000 if MODE in ("big", "engine", "view") else max(200_000, 3 * tcp_send_buffer_max() // 85)
REPORT = make_fixture(FIXTURE, os.path.join(WORK, "report.sqlite"), seed=3, events=EVENTS)
TRACE = os.path.join(WORK, "open.perfetto-trace")
SMALL = REPORT


class Opened:
    """nsys-perfetto --open running, with the link it printed."""

    def __init__(self, extra, ui=UI, report=REPORT):
        self.proc = subprocess.Popen([BIN, "-q", "--no-compress", "--open", *extra, "-o", TRACE,
                                      report], stdout=subprocess.PIPE,
                                     stderr=open(os.path.join(WORK, "err"), "wb"))
        self.link = self.proc.stdout.readline().decode().strip()
        line = self.link.split("&startupCommands=")[0]  # the view: mode view checks it
        self.serving_since = time.monotonic()
        prefix = ui.rstrip("/") + "/#!/?url=http://127.0.0.1:"
        self.ok = checks.expect(line.startswith(prefix) and
                                line.endswith("/open.perfetto-trace"),
                                f"link: {line!r} (expected {prefix}PORT/open.perfetto-trace)")
        self.port = int(line[len(prefix):].split("/")[0]) if self.ok else 0
        with open(TRACE, "rb") as f:
            self.content = f.read()

    def request(self, method, path="/open.perfetto-trace", headers=None, host=None,
                read=True):
        """(status, headers dict lowercased, body); status None when the
        server is gone."""
        try:
            return self._request(method, path, headers, host, read)
        except OSError as e:
            checks.note(f"{method} {path}: {e!r}")
            return None, {}, b""

    def _request(self, method, path, headers, host, read):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        c.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        if host is not False:
            c.putheader("Host", host or f"127.0.0.1:{self.port}")
        for k, v in (headers or {}).items():
            c.putheader(k, v)
        c.endheaders()
        r = c.getresponse()
        body = r.read() if read else b""
        c.close()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, body

    def alive(self, what, wait=0.5):
        time.sleep(wait)
        return checks.expect(self.proc.poll() is None,
                             f"{what}: the serving ended (exit {self.proc.returncode})")

    def ui_fetch(self, origin=UI):
        status, headers, body = self.request("GET", headers={"Origin": origin})
        checks.expect(status == 200 and body == self.content,
                      f"the UI's fetch: {status}, {len(body)} of {len(self.content)} bytes"
                      f"{'' if body == self.content else ', not the trace'}")
        checks.expect(headers.get("access-control-allow-origin") == origin,
                      f"the UI's fetch: CORS origin {headers.get('access-control-allow-origin')!r}")
        self.ends("after the UI's whole fetch")

    def ends(self, what, within=10):
        try:
            rc = self.proc.wait(timeout=within)
            checks.expect(rc == 0, f"{what}: exit status {rc}")
        except subprocess.TimeoutExpired:
            checks.expect(False, f"{what}: still serving {within} s later")
            self.stop()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def dropped_fetch(port, origin, keep=65536):
    """GET with the UI's Origin, read keep bytes with a small window, then reset."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        s.connect(("127.0.0.1", port))
    except OSError:
        return 0
    s.sendall(f"GET /open.perfetto-trace HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
              f"Origin: {origin}\r\n\r\n".encode())
    got = 0
    while got < keep:
        data = s.recv(4096)
        if not data:
            break
        got += len(data)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    return got


def mode_host():
    srv = Opened([])
    if not srv.ok:
        return srv
    for host in (f"evil.example:{srv.port}", "evil.example", "localhost.evil.example",
                 f"127.0.0.1.nip.io:{srv.port}", "127.0.0.1:9001@evil.example"):
        status, _, body = srv.request("GET", headers={"Origin": UI}, host=host)
        checks.expect(status == 403 and srv.content not in body,
                      f"Host {host!r}: expected 403 without the trace, got {status}")
        srv.alive(f"after Host {host!r}", wait=0.2)
    status, _, _ = srv.request("GET", headers={"Origin": UI}, host=False)
    checks.expect(status == 400, f"no Host: expected 400, got {status}")
    for host in (f"localhost:{srv.port}", "127.0.0.2", f"app.localhost:{srv.port}"):
        status, _, body = srv.request("GET", host=host)
        checks.expect(status == 200 and body == srv.content,
                      f"Host {host!r}: expected 200 and the trace, got {status}")
    srv.alive("after the refusals and loopback fetches")
    return srv


def mode_fetches():
    srv = Opened([])
    if not srv.ok:
        return srv
    status, headers, _ = srv.request("OPTIONS", headers={
        "Origin": UI, "Access-Control-Request-Method": "GET"})
    checks.expect(status == 204 and headers.get("access-control-allow-origin") == UI and
                  "GET" in headers.get("access-control-allow-methods", ""),
                  f"preflight: {status} {headers}")
    srv.alive("after the preflight")
    status, _, body = srv.request("GET")
    checks.expect(status == 200 and body == srv.content, f"fetch without Origin: {status}")
    srv.alive("after a fetch without Origin (curl)")
    status, headers, body = srv.request("GET", headers={"Origin": "https://evil.example"})
    checks.expect(status == 200 and headers.get("access-control-allow-origin") == UI,
                  f"fetch with another site's Origin: {status}, CORS "
                  f"{headers.get('access-control-allow-origin')!r} (must stay the UI's)")
    srv.alive("after a fetch with another site's Origin")
    status, headers, body = srv.request("HEAD", headers={"Origin": UI})
    checks.expect(status == 200 and body == b"" and
                  headers.get("content-length") == str(len(srv.content)),
                  f"HEAD: {status}, Content-Length {headers.get('content-length')}")
    srv.alive("after a HEAD with the UI's Origin")
    size = len(srv.content)
    for rng, first, last in (("bytes=0-99", 0, 99), ("bytes=100-", 100, size - 1),
                             ("bytes=-10", size - 10, size - 1),
                             ("bytes=5-99999999999", 5, size - 1)):
        status, headers, body = srv.request("GET", headers={"Origin": UI, "Range": rng})
        checks.expect(status == 206 and body == srv.content[first:last + 1] and
                      headers.get("content-range") == f"bytes {first}-{last}/{size}",
                      f"Range {rng}: {status}, {len(body)} bytes, "
                      f"Content-Range {headers.get('content-range')!r}")
        srv.alive(f"after Range {rng} with the UI's Origin", wait=0.2)
    status, headers, _ = srv.request("GET", headers={"Origin": UI, "Range": f"bytes={size}-"})
    checks.expect(status == 416 and headers.get("content-range") == f"bytes */{size}",
                  f"Range past the end: {status} {headers.get('content-range')!r}")
    status, _, body = srv.request("GET", headers={"Origin": UI, "Range": "bytes=0-1,5-6"})
    checks.expect(status == 200 and body == srv.content,
                  f"two ranges: expected the whole trace (200), got {status}")
    srv.alive("after range fetches with the UI's Origin")
    got = dropped_fetch(srv.port, UI)
    checks.expect(0 < got < size, f"dropped fetch read {got} of {size} bytes")
    srv.alive("after a fetch dropped half way (the UI's Origin)", wait=1.0)
    status, _, _ = srv.request("GET", "/other.perfetto-trace", {"Origin": UI})
    checks.expect(status == 404, f"another path: expected 404, got {status}")
    status, _, _ = srv.request("GET", "/open.perfetto-trace/..", {"Origin": UI})
    checks.expect(status == 404, f"a path past the trace: expected 404, got {status}")
    status, _, _ = srv.request("POST", headers={"Content-Length": "0"})
    checks.expect(status == 405, f"POST: expected 405, got {status}")
    srv.alive("after a wrong path and a POST")
    return srv


def mode_end():
    team = "https://perfetto.example.com/ui/"
    srv = Opened(["--perfetto-ui", team], ui=team)
    if srv.ok:
        status, headers, body = srv.request("GET", headers={"Origin": UI})
        checks.expect(status == 200 and headers.get("access-control-allow-origin") ==
                      "https://perfetto.example.com",
                      f"--perfetto-ui CORS origin: {headers.get('access-control-allow-origin')!r}")
        srv.alive("--perfetto-ui: after a fetch with ui.perfetto.dev's Origin")
        srv.ui_fetch("https://perfetto.example.com")
    srv.stop()
    # The UI's origin as a user may write it: any case, the default port.
    srv = Opened(["--perfetto-ui", "HTTPS://UI.Perfetto.dev:443/"], ui="HTTPS://UI.Perfetto.dev:443")
    if srv.ok:
        srv.ui_fetch()
    srv.stop()
    srv = Opened(["--open-timeout", "1"])
    srv.ends("--open-timeout 1 with no fetch", within=15)
    checks.expect(time.monotonic() - srv.serving_since >= 0.9,
                  f"--open-timeout 1: ended {time.monotonic() - srv.serving_since:.2f} s after "
                  "the link")
    status = subprocess.run([BIN, "--open-timeout", "x", REPORT], capture_output=True).returncode
    checks.expect(status == 2, f"--open-timeout x: exit {status}, expected 2")
    return Opened([])


def engine_status(origin=None):
    """(status, body) of the engine's /status; with origin, (status, the
    Access-Control-Allow-Origin it answers that origin)."""
    try:
        c = http.client.HTTPConnection("127.0.0.1", 9001, timeout=5)
        c.request("GET", "/status", headers={"Origin": origin} if origin else {})
        r = c.getresponse()
        body = r.read()
        return (r.status, r.getheader("Access-Control-Allow-Origin")) if origin else (r.status, body)
    except OSError:
        return None, b""


def engine_gone(what):
    """No process left with '--httpd TRACE' on its command line."""
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if b"--httpd" in args and TRACE.encode() in args:
            left.append(pid)
    checks.expect(not left, f"{what}: the trace processor still runs (pid {left})")


def mode_big():
    """Past --open-limit, --open runs Perfetto's trace processor (--httpd on
    127.0.0.1:9001) instead of serving the file, links the UI to it, and stops
    it at Ctrl-C or --open-timeout; without the program, one line saying how to
    get it and which --time-range would fit."""
    engine = ENGINE
    if not engine or not os.path.exists(engine):
        checks.skip_reason = "no trace_processor_shell (../shared/tools)"
        return None
    for how in ("timeout", "ctrl-c", "team ui"):
        extra = ["--open-timeout", "8"] if how == "timeout" else []
        ui = UI
        if how == "team ui":  # the engine must let another UI's origin use it (CORS)
            ui = "HTTP://Team.Example:8000/perfetto/"
            extra = ["--perfetto-ui", ui]
        p = subprocess.Popen([BIN, "-q", "--no-compress", "--open", "--open-limit", "1K",
                              "--trace-processor", engine, *extra, "-o", TRACE, SMALL],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = p.stdout.readline().strip().split("?startupCommands=")[0]
        link = ui.rstrip("/") + "/#!/"
        checks.expect(line == link, f"{how}: link {line!r}, expected {link}")
        status, body = engine_status()
        checks.expect(status == 200 and b"v58" in body,
                      f"{how}: the trace processor on 127.0.0.1:9001 answered {status} {body[:80]!r}")
        if how == "team ui":
            status, allowed = engine_status("http://team.example:8000")
            checks.expect(allowed == "http://team.example:8000",
                          f"{how}: the engine lets the UI's origin in: {status} {allowed!r}")
            status, allowed = engine_status("http://evil.example")
            checks.expect(allowed != "http://evil.example",
                          f"{how}: and no other origin: {status} {allowed!r}")
        if how != "timeout":
            p.send_signal(signal.SIGINT)
        try:
            rc = p.wait(timeout=30)
            checks.expect(rc == 0, f"{how}: exit {rc}: {p.stderr.read()[-200:]}")
        except subprocess.TimeoutExpired:
            checks.expect(False, f"{how}: still running")
            p.kill()
        engine_gone(how)
    r = subprocess.run([BIN, "-q", "--no-compress", "--open", "--open-limit", "1K", "-o", TRACE,
                        SMALL], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PATH="/usr/bin:/bin"))
    checks.expect(r.returncode == 0 and len(r.stderr.strip().splitlines()) == 1 and
                  "get.perfetto.dev" in r.stderr and "--time-range" in r.stderr,
                  f"without the program: exit {r.returncode}, {r.stderr!r}")
    return None


def port_9001_free():
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", 9001)) != 0


def process_left(pid_file):
    """The pid a fake engine's listener wrote, if that process still runs."""
    try:
        with open(pid_file) as f:
            pid = int(f.read())
        with open(f"/proc/{pid}/stat") as f:
            return pid if f.read().rsplit(")", 1)[1].split()[0] != "Z" else None
    except (OSError, ValueError):
        return None


def fake_engine(name, body):
    """An executable shell script in WORK standing in for trace_processor_shell:
    $ARGS gets its arguments one a line, $PIDS the pid of what listens."""
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\nARGS={WORK}/{name}.args\nPIDS={WORK}/{name}.pid\n"
                f"PY={sys.executable}\nprintf '%s\\n' \"$@\" > $ARGS\n{body}")
    os.chmod(path, 0o755)
    return path


# Listens on 127.0.0.1:9001 as the engine does once the trace is loaded.
LISTEN = ("$PY -c 'import os, socket, sys, time\n"
          "s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
          "s.bind((\"127.0.0.1\", 9001)); s.listen()\n"
          "open(sys.argv[1], \"w\").write(str(os.getpid())); time.sleep(1000)' $PIDS")


def open_through(engine, extra=(), trace=TRACE, cwd=None):
    return subprocess.Popen([BIN, "-q", "--no-compress", "--open", "--open-limit", "1K",
                             "--trace-processor", engine, *extra, "-o", trace, SMALL],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                            env=dict(os.environ, TMPDIR=WORK))  # the engine's log, if killed


def ended(p, what, within=15):
    """(exit status, stdout, stderr) once p ended; None when it did not."""
    try:
        out, err = p.communicate(timeout=within)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        checks.expect(False, f"{what}: still running {within} s later")
        p.kill()
        p.communicate()
        return None


def mode_engine():
    """--open's handling of the native engine, through fake engines."""
    # An engine that never listens: --open-timeout bounds its start.
    never = fake_engine("never-listens", "exec sleep 1000\n")
    t0 = time.monotonic()
    p = open_through(never, ["--open-timeout", "2"])
    r = ended(p, "--open-timeout 2, an engine that never listens")
    if r:
        rc, out, err = r
        took = time.monotonic() - t0
        checks.expect(rc == 1 and out == "" and "within 2s" in err and never in err and took < 10,
                      f"--open-timeout 2, never listens: exit {rc} after {took:.1f} s, "
                      f"stdout {out!r}, stderr {err!r}")
    # Ctrl-C while it loads: the interrupt's status, no link.
    p = open_through(never)
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    r = ended(p, "Ctrl-C while the engine loads")
    if r:
        rc, out, err = r
        checks.expect(rc == 7 and out == "" and "interrupted" in err,
                      f"Ctrl-C while the engine loads: exit {rc}, stdout {out!r}, stderr {err!r}")
    # A wrapper that forks the listener and waits: all of it ends with us.
    wrapper = fake_engine("wrapper", LISTEN + " &\nwait\n")
    for how in ("SIGTERM", "SIGINT", "timeout", "SIGKILL"):
        os.path.exists(wrapper + ".pid") and os.remove(wrapper + ".pid")
        p = open_through(wrapper, ["--open-timeout", "3"] if how == "timeout" else [])
        line = p.stdout.readline().strip().split("?startupCommands=")[0]
        checks.expect(line == UI + "/#!/", f"wrapper, {how}: link {line!r}")
        if how != "timeout":
            p.send_signal(getattr(signal, how))
        r = ended(p, f"wrapper, {how}")
        if r:
            expected = -signal.SIGKILL if how == "SIGKILL" else 0
            checks.expect(r[0] == expected, f"wrapper, {how}: exit {r[0]}, stderr {r[2]!r}")
        for _ in range(50):  # killed outright, the engine's keeper ends it
            if process_left(wrapper + ".pid") is None:
                break
            time.sleep(0.1)
        left = process_left(wrapper + ".pid")
        checks.expect(left is None and port_9001_free(),
                      f"wrapper, {how}: the engine's child still runs (pid {left}) or holds "
                      f"9001 ({not port_9001_free()})")
        if left:
            os.kill(left, signal.SIGKILL)
    # One that fails: its own last line says why.
    failing = fake_engine("failing", "echo 'Error: could not parse the trace' >&2\nexit 3\n")
    r = ended(open_through(failing), "a failing engine")
    if r:
        checks.expect(r[0] == 1 and r[1] == "" and "could not parse the trace" in r[2],
                      f"a failing engine: exit {r[0]}, stdout {r[1]!r}, stderr {r[2]!r}")
    # A --trace-processor that cannot run: refused, before converting.
    plain = os.path.join(WORK, "not-executable")
    open(plain, "w").close()
    for bad in (os.path.join(WORK, "missing"), plain, WORK):
        os.path.exists(TRACE) and os.remove(TRACE)
        r = ended(open_through(bad), f"--trace-processor {bad}")
        if r:
            checks.expect(r[0] == 2 and bad in r[2] and len(r[2].splitlines()) == 1 and
                          not os.path.exists(TRACE),
                          f"--trace-processor {bad}: exit {r[0]}, stderr {r[2]!r}, trace "
                          f"{'written' if os.path.exists(TRACE) else 'not written'}")
    # A trace named like an option reaches the engine as a path; the nsys SQL
    # package comes with --add-sql-package, a copy that is gone afterwards.
    recorder = fake_engine("recorder", "ls \"$3\" \"$3/stats\" > $ARGS.package\nexec " + LISTEN + "\n")
    r = ended(open_through(recorder, ["--open-timeout", "1"], trace="-dev.perfetto-trace",
                           cwd=WORK), "a trace named -dev.perfetto-trace")
    try:
        with open(recorder + ".args") as f:
            args = f.read().splitlines()
    except OSError:
        args = None
    package = args[2] if args and len(args) == 4 else ""
    checks.expect(r and r[0] == 0 and args and args[:2] == ["--httpd", "--add-sql-package"] and
                  package.endswith("/nsys") and args[3] == "./-dev.perfetto-trace",
                  f"a trace named -dev.perfetto-trace: exit {r and r[0]}, engine argv {args}")
    try:
        with open(recorder + ".args.package") as f:
            listed = f.read().split()
    except OSError:
        listed = []
    checks.expect("cuda.sql" in listed and "gpus.sql" in listed and "common.sql" in listed,
                  f"the engine's --add-sql-package holds the package's modules: {listed}")
    checks.expect(package and not os.path.exists(os.path.dirname(package)),
                  f"the package's copy is removed after: {package}")
    return None


# ui/src/core/startup_command_allowlist.ts at Perfetto v58.2.
ALLOWLIST = {"dev.perfetto." + c for c in (
    "PinTracksByRegex", "ExpandTracksByRegex", "CollapseTracksByRegex", "AddDebugSliceTrack",
    "AddDebugSliceTrackWithPivot", "AddDebugCounterTrack", "AddDebugCounterTrackWithPivot",
    "CreateWorkspace", "SwitchWorkspace", "CopyTracksToWorkspaceByRegex",
    "CopyTracksToWorkspaceByRegexWithAncestors", "RunQuery", "RunQueryAndShowTab",
    "AddNoteAtTimestamp")}
ARG_MAX_STRLEN = 128 * 1024 - 1  # Linux's MAX_ARG_STRLEN less the NUL: xdg-open's argument


def ui_shaped(commands, what):
    """The UI's schema: a list of {"id": str, "args": [str]}, ids allowlisted."""
    ok = isinstance(commands, list) and all(
        isinstance(c, dict) and isinstance(c.get("id"), str) and isinstance(c.get("args"), list)
        and all(isinstance(a, str) for a in c["args"]) for c in commands)
    checks.expect(ok, f"{what}: not the UI's shape: {str(commands)[:200]}")
    blocked = [c.get("id") for c in commands if ok and c["id"] not in ALLOWLIST]
    checks.expect(not blocked, f"{what}: commands the UI blocks: {blocked}")
    return ok


def link_commands(link):
    """The startupCommands of a link, parsed (None: none)."""
    from urllib.parse import parse_qs
    args = parse_qs(link.split("#!/?", 1)[1]) if "#!/?" in link else {}
    return json.loads(args["startupCommands"][0]) if "startupCommands" in args else None


def refused(extra, what, needle):
    os.path.exists(TRACE) and os.remove(TRACE)
    r = subprocess.run([BIN, "-q", "--no-compress", "--open", *extra, "-o", TRACE, SMALL],
                       capture_output=True, text=True, timeout=60)
    checks.expect(r.returncode == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1 and
                  needle in r.stderr and not os.path.exists(TRACE),
                  f"{what}: exit {r.returncode}, stdout {r.stdout[:80]!r}, stderr {r.stderr!r}, "
                  f"trace {'written' if os.path.exists(TRACE) else 'not written'}")


def ranks_view():
    """ranks --trace OUT --open: the overview laid out for the job; the worst
    straggler (rank 2 of the fixture's job) pinned, a note at its worst
    arrival, the stragglers' tab."""
    job = os.path.join(WORK, "job")
    subprocess.run([FIXTURE, "--job", "4", "--straggler", "2", job], check=True,
                   capture_output=True)
    overview = os.path.join(WORK, "job.perfetto-trace")
    p = subprocess.Popen([BIN, "ranks", "--no-convert", "--trace", overview, "--open", job],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    link = ""
    for line in p.stdout:
        if line.startswith(UI + "/#!/?url="):
            link = line.strip()
            break
    commands = link_commands(link) if link else None
    if checks.expect(commands is not None, f"ranks --open: no link ({p.poll()})") and \
            ui_shaped(commands, "ranks --open"):
        by_id = {}
        for c in commands:
            by_id.setdefault(c["id"].rsplit(".", 1)[1], []).append(c["args"])
        pins = by_id.get("PinTracksByRegex", [[""]])
        checks.expect(re.search(pins[0][0], "job: 4 ranks > rank 2") and
                      re.search(pins[0][0], "job: 4 ranks > rank 2 > GPU utilization") and
                      not re.search(pins[0][0], "job: 4 ranks > rank 1") and pins[0][1] == "path",
                      f"ranks --open: the worst straggler pinned: {pins}")
        notes = by_id.get("AddNoteAtTimestamp", [])
        checks.expect(len(notes) == 1 and notes[0][1].startswith("rank 2:") and
                      0 < int(notes[0][0]) < 2_000_000_000, f"ranks --open: notes {notes}")
        tab = by_id.get("RunQueryAndShowTab", [[""]])[0]
        checks.expect("(2, " in tab[0] and tab[1] == "nsys: stragglers",
                      f"ranks --open: the stragglers' tab {tab}")
        if notes and ENGINE and os.path.exists(ENGINE):
            # The note is at rank 2's arrival: one of its collectives starts there.
            query = os.path.join(WORK, "note.sql")
            with open(query, "w") as f:
                f.write(tab[0] + ";\nSELECT count(*) FROM slice s JOIN track t ON s.track_id = t.id"
                        " JOIN track g ON t.parent_id = g.id WHERE g.name = 'rank 2' AND "
                        f"t.name GLOB 'collectives*' AND s.ts = {int(notes[0][0])};\n")
            r = subprocess.run([ENGINE, "-q", query, overview], capture_output=True, text=True,
                               timeout=60)
            rows = r.stdout.strip().splitlines()
            checks.expect(r.returncode == 0 and rows and rows[-1] == "1",
                          f"ranks --open: rank 2's collective at the note: {r.stdout[-200:]!r}"
                          f" {r.stderr[-300:]!r}")
    port = int(link.split("127.0.0.1:")[1].split("/")[0]) if link else 0
    if port:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        c.request("GET", "/job.perfetto-trace", headers={"Origin": UI})
        c.getresponse().read()
        c.close()
    r = ended(p, "ranks --open after the UI's fetch")
    checks.expect(r and r[0] == 0, f"ranks --open: exit {r and r[0]}, {r and r[2][-300:]!r}")
    r = subprocess.run([BIN, "ranks", "--open", job], capture_output=True, text=True, timeout=60)
    checks.expect(r.returncode == 2 and "--trace" in r.stderr,
                  f"ranks --open without --trace: exit {r.returncode}, {r.stderr!r}")


def mode_view():
    """The link's startup commands: ours, a file's, none; bad files refused."""
    srv = Opened([])
    commands = link_commands(srv.link) if srv.ok else None
    checks.expect(len(srv.link) <= ARG_MAX_STRLEN,
                  f"the link is {len(srv.link)} bytes, past {ARG_MAX_STRLEN}")
    if commands is not None and ui_shaped(commands, "the link"):
        ids = [c["id"].rsplit(".", 1)[1] for c in commands]
        checks.expect(ids == ["ExpandTracksByRegex", "PinTracksByRegex", "RunQuery",
                              "RunQueryAndShowTab"], f"the link's commands: {ids}")
        if len(ids) == 4:
            expand, pin, package, tab = commands
            gpus = re.compile(expand["args"][0])
            checks.expect(gpus.search("GPU 0 · NVIDIA H100 80GB HBM3 (0000:1b:00.0)") and
                          gpus.search("GPU 12") and not gpus.search("GPU utilization") and
                          expand["args"][1] == "name", f"the GPU groups' regex: {expand}")
            checks.expect(re.search(pin["args"][0], "GPU utilization") and pin["args"][1] == "name",
                          f"the pinned rows' regex: {pin}")
            script = package["args"][0]
            checks.expect("nsys_cuda_gpu_kern_sum" in script and "nsys_kernels" in script and
                          "\n" not in script and "-- " not in script,
                          "the package's script: the CUDA tables, without comments or lines")
            if ENGINE and os.path.exists(ENGINE):
                query = os.path.join(WORK, "link.sql")
                with open(query, "w") as f:
                    f.write(script + ";\nSELECT count(*) AS n FROM nsys_cuda_gpu_kern_sum;\n")
                r = subprocess.run([ENGINE, "-q", query, TRACE], capture_output=True, text=True,
                                   timeout=120)
                rows = r.stdout.strip().splitlines()
                checks.expect(r.returncode == 0 and rows[-1].isdigit() and int(rows[-1]) > 0,
                              f"the link's package in trace_processor_shell: exit {r.returncode},"
                              f" {r.stdout[-200:]!r} {r.stderr[-300:]!r}")
                with open(query, "w") as f:
                    f.write(script + ";\n" + tab["args"][0] + ";\n")
                r = subprocess.run([ENGINE, "-q", query, TRACE], capture_output=True, text=True,
                                   timeout=120)
                checks.expect(r.returncode == 0 and len(r.stdout.strip().splitlines()) > 1,
                              f"the tab's query: exit {r.returncode}, {r.stderr[-300:]!r}")
    srv.ui_fetch()
    srv.stop()
    kept = os.path.join(WORK, "view.perfetto-trace")  # the refusals below remove TRACE
    os.path.exists(TRACE) and os.replace(TRACE, kept)

    mine = [{"id": "dev.perfetto.PinTracksByRegex", "args": ["^GPU 1", "name"]},
            {"id": "dev.perfetto.AddNoteAtTimestamp", "args": ["1000", "here \u00b7 \"there\""]}]
    view = os.path.join(WORK, "view.json")
    with open(view, "w") as f:
        json.dump(mine, f, indent=2)
    srv = Opened(["--open-view", view])
    checks.expect(srv.ok and link_commands(srv.link) == mine,
                  f"--open-view FILE: the link's commands {srv.ok and link_commands(srv.link)}")
    srv.ui_fetch()
    srv.stop()
    srv = Opened(["--open-view", "none"])
    checks.expect(srv.ok and "startupCommands" not in srv.link,
                  f"--open-view none: a plain link: {srv.link[:200]!r}")
    srv.ui_fetch()
    srv.stop()

    def bad(name, text):
        path = os.path.join(WORK, name)
        with open(path, "w") as f:
            f.write(text)
        return path
    for name, text, needle in (
            ("not-json.json", "{expand: GPU 0}", "not"),
            ("cut.json", '[{"id": "dev.perfetto.RunQuery", "args": ["select 1"]', "not JSON"),
            ("object.json", '{"id": "dev.perfetto.RunQuery", "args": []}', "array"),
            ("no-args.json", '[{"id": "dev.perfetto.RunQuery"}]', "args"),
            ("number-arg.json", '[{"id": "dev.perfetto.AddNoteAtTimestamp", "args": [1, "x"]}]',
             "args"),
            ("blocked.json", '[{"id": "dev.perfetto.RunQuery", "args": ["select 1"]},'
                             ' {"id": "dev.perfetto.OpenCommandPalette", "args": []}]',
             "dev.perfetto.OpenCommandPalette"),
            ("too-long.json", json.dumps([{"id": "dev.perfetto.RunQuery",
                                           "args": ["select 1 -- " + "x" * 140000]}]),
             "too-long.json: the link would be")):
        refused(["--open-view", bad(name, text)], f"--open-view {name}", needle)
    refused(["--open-view", os.path.join(WORK, "missing.json")], "--open-view missing.json",
            "missing.json")
    r = subprocess.run([BIN, "-q", "--open-view", "none", "-o", TRACE, SMALL],
                       capture_output=True, text=True, timeout=60)
    checks.expect(r.returncode == 2 and "--open" in r.stderr,
                  f"--open-view without --open: exit {r.returncode}, {r.stderr!r}")

    ranks_view()

    r = subprocess.run([BIN, "sql", "--ui-settings"], capture_output=True, text=True, timeout=60)
    try:
        settings = json.loads(r.stdout)
    except ValueError as e:
        settings = {}
        checks.expect(False, f"sql --ui-settings: not JSON ({e}): {r.stdout[:200]!r}")
    checks.expect(r.returncode == 0 and set(settings) == {"startupCommands",
                                                          "perfetto.CoreCommands#Macros"},
                  f"sql --ui-settings: exit {r.returncode}, keys {list(settings)}")
    ui_shaped(settings.get("startupCommands", []), "--ui-settings startupCommands")
    macros = settings.get("perfetto.CoreCommands#Macros", [])
    names = [m.get("name") for m in macros]
    checks.expect(len(macros) >= 4 and all(isinstance(m.get("id"), str) for m in macros) and
                  "nsys: kernel summary" in names and "nsys: GPU gaps as a debug track" in names
                  and "nsys: NVTX on the GPU" in names, f"--ui-settings macros: {names}")
    for m in macros:
        if not ui_shaped(m.get("run"), f"--ui-settings macro {m.get('name')}"):
            continue
        if not (ENGINE and os.path.exists(ENGINE)):
            continue
        # Each macro's SQL runs on our trace: its modules, then its query.
        script = [c["args"][0] for c in m["run"] if c["id"].endswith(".RunQuery")]
        queries = [c["args"][0] for c in m["run"] if not c["id"].endswith(".RunQuery")]
        query = os.path.join(WORK, "macro.sql")
        with open(query, "w") as f:
            f.write(";\n".join(script + [f"SELECT count(*) FROM ({q})" for q in queries]) + ";\n")
        r = subprocess.run([ENGINE, "-q", query, kept], capture_output=True, text=True, timeout=120)
        checks.expect(r.returncode == 0 and len(script) == 1,
                      f"--ui-settings macro {m.get('name')} in trace_processor_shell: exit "
                      f"{r.returncode}, {r.stderr[-300:]!r}")
    with open("/dev/full", "w") as full:
        r = subprocess.run([BIN, "sql", "--ui-settings"], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    checks.expect(r.returncode == 6, f"sql --ui-settings on a full disk: exit {r.returncode}")
    return None


srv = {"host": mode_host, "fetches": mode_fetches, "end": mode_end, "big": mode_big,
       "engine": mode_engine, "view": mode_view}[MODE]()
if srv is None:
    checks.finish()
try:
    if srv.ok and srv.proc.poll() is None:
        srv.ui_fetch()
finally:
    srv.stop()
checks.finish()
