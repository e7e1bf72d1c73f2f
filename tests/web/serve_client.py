"""What the serve attack tests share: a server in a box, requests with any
Host, raw bytes, multipart bodies, and the checks every attack ends with (the
server answers, it is alive, the reports finished before are still listed
and downloadable, nothing was written outside --dir).

A test builds WORK/box/reports; the server runs with --dir WORK/box/reports
and its working directory in WORK/box, so anything it writes outside --dir
lands in WORK/box, where only "reports" may be. Python 3.11 stdlib only."""
import atexit
import ctypes
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

SKIP = 77
BOUNDARY = "----nsysp-attack-boundary"


class Checks:
    """FAIL lines as they happen; the exit status at the end."""

    def __init__(self, name):
        self.name = name
        self.failures = []
        self.skip_reason = None

    def expect(self, ok, what):
        if not ok:
            self.failures.append(what)
            print("FAIL:", what, flush=True)
        return ok

    def note(self, what):
        print("note:", what, flush=True)

    def finish(self):
        if self.failures:
            print(f"{self.name}: {len(self.failures)} failures", flush=True)
            sys.exit(1)
        if self.skip_reason:
            print(f"skip: {self.skip_reason}", flush=True)
            sys.exit(SKIP)
        print(f"{self.name}: ok", flush=True)
        sys.exit(0)


def skip(reason):
    print(f"skip: {reason}", flush=True)
    sys.exit(SKIP)


def fresh_dir(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def make_fixture(fixture, path, seed=1, events=300):
    subprocess.run([fixture, "--seed", str(seed), "--events", str(events), path], check=True,
                   stdout=subprocess.DEVNULL, timeout=60)
    return path


def is_report_id(name):
    return len(name) == 16 and all(c in "0123456789abcdef" for c in name)


def multipart(fields=None, filename=None, content=b"", boundary=BOUNDARY, field="report"):
    """Option fields then the report, as a browser's FormData sends them; the
    file name may be bytes (sent as they are)."""
    parts = []
    for key, value in (fields or {}).items():
        value = value if isinstance(value, bytes) else value.encode()
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n'
                     .encode() + value + b"\r\n")
    if filename is not None:
        name = filename if isinstance(filename, bytes) else filename.encode()
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; '
                     .encode() + b'filename="' + name + b'"\r\n'
                     b"Content-Type: application/octet-stream\r\n\r\n" + content + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def status_of(reply):
    """The status code of an HTTP/1.x reply's first line, or None."""
    if not reply.startswith(b"HTTP/1.") or b" " not in reply:
        return None
    try:
        return int(reply.split(b" ")[1][:3])
    except ValueError:
        return None


def dir_tree(root):
    """{relative path: size} of everything under root (directories: -1)."""
    out = {}
    for parent, dirs, files in os.walk(root):
        for d in dirs:
            out[os.path.relpath(os.path.join(parent, d), root)] = -1
        for f in files:
            p = os.path.join(parent, f)
            try:
                out[os.path.relpath(p, root)] = os.lstat(p).st_size
            except FileNotFoundError:
                pass
    return out


class ServerStartError(Exception):
    pass


STARTED = []  # every server process of this test: none outlives it


def _end_servers():
    for proc in STARTED:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


atexit.register(_end_servers)


def _die_with_parent():
    """In the child: SIGTERM when the test dies (a crash, a ctest timeout)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Server:
    """One `nsys-perfetto serve --port 0 --dir REPORTS -q ARGS`, in BOX."""

    count = 0

    def __init__(self, binary, box, extra=(), env=None, reports=None, bind=None):
        Server.count += 1
        binary, box = os.path.abspath(binary), os.path.abspath(box)
        self.box = box
        self.reports = os.path.abspath(reports or os.path.join(box, "reports"))
        self.keepers = {}  # id -> trace bytes, of reports that must survive
        self.stderr_path = os.path.join(os.path.dirname(box.rstrip("/")),
                                        f"serve-{os.getpid()}-{Server.count}.err")
        argv = [binary, "serve", "--port", "0", "--dir", self.reports, "-q"]
        if bind:
            argv += ["--bind", bind]
        argv += list(extra)
        self.argv = argv
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, cwd=box,
                                         env=env, preexec_fn=_die_with_parent)
        STARTED.append(self.proc)
        line = []
        reader = threading.Thread(target=lambda: line.append(self.proc.stdout.readline()),
                                  daemon=True)
        reader.start()
        reader.join(30)
        url = line[0].decode(errors="replace").strip() if line else ""
        if not url.startswith("http://"):
            self.kill()
            raise ServerStartError(f"{' '.join(argv[1:])}: no URL on stdout (exit "
                                   f"{self.proc.returncode}): {self.stderr()!r}")
        hostport = url[len("http://"):].rstrip("/")
        self.host, port = hostport.rsplit(":", 1)
        self.host = self.host.strip("[]")
        self.port = int(port)
        self.hostport = hostport

    def stderr(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def alive(self):
        return self.proc.poll() is None

    def stop(self, timeout=30):
        """Ctrl-C, as an operator stops it; the exit status (None if killed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                return self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                return None
        return self.proc.returncode

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass

    # Requests.

    def connection(self, timeout=60, source=None):
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout,
                                          source_address=source)

    def request(self, method, path, body=None, headers=None, timeout=60):
        """(status, headers, body); a Host in headers replaces http.client's."""
        conn = self.connection(timeout)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            data = r.read()
            return r.status, r, data
        finally:
            conn.close()

    def get_json(self, path, headers=None):
        status, _, data = self.request("GET", path, headers=headers)
        try:
            return status, json.loads(data)
        except ValueError:
            return status, None

    def upload(self, filename, content, fields=None, headers=None, boundary=BOUNDARY):
        body, h = multipart(fields, filename, content, boundary)
        h.update(headers or {})
        status, _, data = self.request("POST", "/api/reports", body, h)
        try:
            reply = json.loads(data)
        except ValueError:
            reply = {"raw": data[:200]}
        return status, reply

    def wait_done(self, rid, timeout=120):
        end = time.monotonic() + timeout
        d = {}
        while time.monotonic() < end:
            status, d = self.get_json(f"/api/reports/{rid}")
            if d and d.get("state") in ("done", "failed"):
                return d
            time.sleep(0.05)
        return d or {}

    def raw(self, data, read=True, shut=True, timeout=30, source=None):
        """Sends bytes on a fresh connection; (status code or None, reply)."""
        s = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET)
        s.settimeout(timeout)
        try:
            if source:
                s.bind((source, 0))
            s.connect((self.host, self.port))
            try:
                s.sendall(data)
            except (BrokenPipeError, ConnectionResetError):
                pass
            if shut:
                try:
                    s.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
            reply = b""
            if read:
                try:
                    while b"\r\n" not in reply:
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        reply += chunk
                except (ConnectionResetError, socket.timeout):
                    pass
            return status_of(reply), reply
        finally:
            s.close()

    def head(self, method="GET", path="/api/config", extra=b""):
        """A request head with this server's Host."""
        return (f"{method} {path} HTTP/1.1\r\nHost: {self.hostport}\r\n".encode() + extra +
                b"\r\n")

    # The state of --dir.

    def report_dirs(self):
        try:
            return {n for n in os.listdir(self.reports) if is_report_id(n)}
        except FileNotFoundError:
            return set()

    def unfinished(self):
        """Report directories without a finished result (upload parts, inputs)."""
        out = []
        for rid in self.report_dirs():
            try:
                files = set(os.listdir(os.path.join(self.reports, rid)))
            except FileNotFoundError:
                continue
            if "result.json" not in files:
                out.append((rid, sorted(files)))
        return out

    def wait_dirs(self, expected, timeout=10):
        """Waits until --dir's report directories are `expected` (a set); the
        directories there at the end."""
        end = time.monotonic() + timeout
        while True:
            now = self.report_dirs()
            if now == expected or time.monotonic() > end:
                return now
            time.sleep(0.05)

    def outside(self):
        """What is in the box beside --dir: should be nothing."""
        return sorted(set(os.listdir(self.box)) - {os.path.basename(self.reports)})

    # Reports that must survive every attack.

    def add_keeper(self, path, checks, name=None):
        with open(path, "rb") as f:
            status, reply = self.upload(name or os.path.basename(path), f.read())
        if not checks.expect(status == 201, f"keeper upload: {status} {reply}"):
            return None
        rid = reply["id"]
        d = self.wait_done(rid)
        if not checks.expect(d.get("state") == "done", f"keeper converted: {d}"):
            return None
        with open(os.path.join(self.reports, rid, "trace.perfetto-trace"), "rb") as f:
            self.keepers[rid] = f.read()
        return rid

    def healthy(self, checks, after, outside_ok=()):
        """After an attack: answers, alive, keepers intact, nothing outside."""
        alive = checks.expect(self.alive(), f"server alive after {after} (exit "
                                            f"{self.proc.returncode}; stderr {self.stderr()!r})")
        if not alive:
            return False
        ok = True
        try:
            t0 = time.monotonic()
            status, cfg = self.get_json("/api/config")
            ok &= checks.expect(status == 200 and cfg and "address" in cfg,
                                f"GET /api/config after {after}: {status}")
        except (OSError, http.client.HTTPException) as e:
            ok = checks.expect(False, f"GET /api/config after {after}: {e!r} after "
                                      f"{time.monotonic() - t0:.1f} s")
            return False
        if self.keepers:
            try:
                status, listed = self.get_json("/api/reports")
                ids = {r["id"] for r in (listed or {}).get("reports", [])}
                ok &= checks.expect(status == 200 and set(self.keepers) <= ids,
                                    f"finished reports still listed after {after}: "
                                    f"{sorted(set(self.keepers) - ids)} missing")
                for rid, trace in self.keepers.items():
                    status, _, data = self.request("GET", f"/api/reports/{rid}/trace")
                    ok &= checks.expect(status == 200 and data == trace,
                                        f"report {rid} still downloads after {after}: "
                                        f"{status}, {len(data)} of {len(trace)} bytes")
            except (OSError, http.client.HTTPException) as e:
                ok = checks.expect(False, f"reports after {after}: {e!r}")
        extra = [n for n in self.outside() if n not in outside_ok]
        ok &= checks.expect(not extra, f"nothing written outside --dir after {after}: {extra}")
        return ok


def start_or_fail(checks, *args, **kwargs):
    """A Server, or None with the failure recorded (an option not there yet,
    a server that does not start)."""
    try:
        return Server(*args, **kwargs)
    except ServerStartError as e:
        checks.expect(False, f"server starts: {e}")
        return None


def pid_alive(pid):
    """True while pid runs (a zombie counts as gone: it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def pid_exists(pid):
    return os.path.exists(f"/proc/{pid}")
