#!/usr/bin/env python3
"""serve attack B: Host and Origin. A request whose Host is not one of the
server's names (DNS rebinding: Host: evil.example) gets 403 with JSON
{"error": ...}, whatever it asks (the page, the config, the list, a report, a
trace, a delete, an upload), and changes nothing. Allowed: loopback names and
addresses (any port), the bound address (with 0.0.0.0: any IP address and the
machine's name), and the names given with --allow-host (repeatable,
case-insensitive, port ignored). No Host at all: a 4xx. State-changing
requests (POST, DELETE) with a foreign Origin (another site, null, another
port) or, without Origin, Sec-Fetch-Site: cross-site get 403 and store or
delete nothing; with the Origin of the Host, or no Origin (curl), they work.
GETs with a foreign Origin are only checked for not failing (the browser's
same-origin policy protects reads).
  check_serve_host_origin.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR"""
import json
import os
import socket
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import Checks, fresh_dir, make_fixture, multipart, start_or_fail  # noqa: E402

BIN, FIXTURE, WORK = map(os.path.abspath, sys.argv[1:4])
checks = Checks("serve_refuses_foreign_host_and_origin")
fresh_dir(WORK)
BOX = fresh_dir(os.path.join(WORK, "box"))
REPORT = make_fixture(FIXTURE, os.path.join(WORK, "report.sqlite"), seed=5, events=300)
with open(REPORT, "rb") as f:
    CONTENT = f.read()

srv = start_or_fail(checks, BIN, BOX, ["--workers", "2"])
if not srv:
    checks.finish()
P = srv.port
OTHER = P + 1 if P < 65535 else P - 1
GOOD = f"127.0.0.1:{P}"
keeper = srv.add_keeper(REPORT, checks)
victim = srv.add_keeper(REPORT, checks, "victim.sqlite")  # kept: every delete here is refused
if not keeper or not victim:
    checks.finish()


def call(method, path, headers, body=None, server=None):
    """(status, JSON or None, raw body); errors are a status of None."""
    server = server or srv
    try:
        status, _, data = server.request(method, path, body, headers)
    except OSError as e:
        return None, None, repr(e).encode()
    try:
        return status, json.loads(data), data
    except ValueError:
        return status, None, data


def upload_call(headers, server=None, name="o.sqlite"):
    body, h = multipart({}, name, CONTENT)
    h.update(headers)
    return call("POST", "/api/reports", h, body, server)


def nothing_changed(what, before, server=None):
    server = server or srv
    now = server.wait_dirs(before, timeout=2)
    checks.expect(now == before, f"{what}: stored or deleted nothing (new "
                                 f"{sorted(now - before)}, gone {sorted(before - now)})")
    status, listed = server.get_json("/api/reports", {"Host": server.hostport})
    ids = {r["id"] for r in (listed or {}).get("reports", [])}
    checks.expect(status == 200 and set(server.keepers) <= ids and ids <= before,
                  f"{what}: list unchanged ({status}; missing "
                  f"{sorted(set(server.keepers) - ids)}, new {sorted(ids - before)})")


def refused(what, status, reply, raw, server=None, before=None):
    checks.expect(status == 403 and isinstance(reply, dict) and
                  isinstance(reply.get("error"), str) and reply["error"],
                  f"{what}: expected 403 with JSON {{\"error\": ...}}, got {status} {raw[:120]!r}")
    if before is not None:
        nothing_changed(what, before, server)


def ensure_victim():
    """Uploads the victim again if an attack deleted it (that failure is
    recorded), so that each later check stands on its own."""
    global victim
    if os.path.isdir(os.path.join(srv.reports, victim)):
        return
    srv.keepers.pop(victim, None)
    victim = srv.add_keeper(REPORT, checks, "victim.sqlite") or victim


# Foreign Host on every route: 403, JSON, nothing changed.
def ROUTES():
    return [("GET", "/"), ("GET", "/index.html"), ("GET", "/api/config"),
            ("GET", "/api/reports"), ("GET", f"/api/reports/{victim}"),
            ("GET", f"/api/reports/{victim}/trace"), ("GET", "/api/reports/0123456789abcdef/trace"),
            ("HEAD", f"/api/reports/{victim}/trace"), ("DELETE", f"/api/reports/{victim}"),
            ("POST", "/api/reports")]
FOREIGN_HOSTS = ["evil.example", f"evil.example:{P}", "localhost.evil.example",
                 f"127.0.0.1.evil.example:{P}", f"evil.example:{P}.127.0.0.1",
                 "0x7f.evil.example", f"{P}.evil.example", "evil.example."]
for host in FOREIGN_HOSTS:
    for method, path in ROUTES():
        ensure_victim()
        before = srv.report_dirs()
        what = f"{method} {path} with Host: {host}"
        if method == "POST":
            status, reply, raw = upload_call({"Host": host})
        else:
            status, reply, raw = call(method, path, {"Host": host})
        if method == "HEAD":  # no body to carry the JSON
            checks.expect(status == 403, f"{what}: expected 403, got {status}")
            continue
        refused(what, status, reply, raw, before=before if method in ("POST", "DELETE") else None)
ensure_victim()
srv.healthy(checks, "foreign Host headers")

# The server's own names: loopback names and addresses, any port.
for host in ["localhost", f"localhost:{P}", "app.localhost", GOOD, "127.0.0.1", "127.1.2.3",
             f"[::1]:{P}", "[::1]"]:
    for path in ("/api/config", "/"):
        status, _, raw = call("GET", path, {"Host": host})
        checks.expect(status == 200, f"GET {path} with Host: {host}: {status} {raw[:100]!r}")
# Bound to 127.0.0.1, other addresses are not its names.
OTHER_ADDRESSES = ["10.0.0.1", f"10.0.0.1:{P}", "192.168.1.5:8080", "[fe80::1]:8080"]
for host in OTHER_ADDRESSES:
    status, reply, raw = call("GET", "/api/reports", {"Host": host})
    refused(f"loopback server: GET /api/reports with Host: {host}", status, reply, raw)

# Bound to every address (0.0.0.0): any IP address (clients reach it by any of the
# machine's addresses, or through NAT; an address is not a name a rebinding page can
# take over) and the machine's own name; names from elsewhere are still refused.
box3 = fresh_dir(os.path.join(WORK, "box3"))
srv3 = start_or_fail(checks, BIN, box3, bind="0.0.0.0")
if srv3:
    for host in OTHER_ADDRESSES + [f"localhost:{srv3.port}", socket.gethostname()]:
        status, _, raw = call("GET", "/api/config", {"Host": host}, server=srv3)
        checks.expect(status == 200, f"0.0.0.0: GET with Host: {host}: {status} {raw[:80]!r}")
    for host in ("evil.example", f"evil.example:{srv3.port}"):
        status, reply, raw = call("GET", "/api/reports", {"Host": host}, server=srv3)
        refused(f"0.0.0.0: GET /api/reports with Host: {host}", status, reply, raw)
    checks.expect(srv3.stop() == 0, f"0.0.0.0 server stops: {srv3.proc.returncode}")

# No Host at all (HTTP/1.1), or an empty one: a 4xx.
for what, head in (("no Host header", b"GET /api/config HTTP/1.1\r\n\r\n"),
                   ("an empty Host header", b"GET /api/config HTTP/1.1\r\nHost:\r\n\r\n"),
                   ("DELETE without Host", None)):
    ensure_victim()
    head = head or f"DELETE /api/reports/{victim} HTTP/1.1\r\n\r\n".encode()
    code, reply = srv.raw(head)
    checks.expect(code is not None and 400 <= code < 500, f"{what}: {code} {reply[:80]!r}")
checks.expect(os.path.isdir(os.path.join(srv.reports, victim)),
              "the report is not deleted by a DELETE without Host")
ensure_victim()
srv.healthy(checks, "requests without Host")

# Foreign Origins on state-changing requests: 403, nothing stored or deleted.
FOREIGN_ORIGINS = ["http://evil.example", "null", f"http://localhost:{OTHER}",
                   f"http://127.0.0.1:{OTHER}", f"http://127.0.0.1:{P}.evil.example",
                   f"http://evil.example:{P}", "https://ui.perfetto.dev"]
for origin in FOREIGN_ORIGINS:
    before = srv.report_dirs()
    status, reply, raw = upload_call({"Origin": origin})
    refused(f"POST with Origin: {origin}", status, reply, raw, before=before)
    before = srv.report_dirs()
    status, reply, raw = call("DELETE", f"/api/reports/{victim}", {"Origin": origin})
    refused(f"DELETE with Origin: {origin}", status, reply, raw, before=before)
    ensure_victim()
before = srv.report_dirs()
status, reply, raw = upload_call({"Sec-Fetch-Site": "cross-site"})
refused("POST without Origin, with Sec-Fetch-Site: cross-site", status, reply, raw,
        before=before)
before = srv.report_dirs()
status, reply, raw = upload_call({"Origin": "http://evil.example",
                                  "Sec-Fetch-Site": "same-origin"})
refused("POST with Origin: http://evil.example claiming Sec-Fetch-Site: same-origin", status,
        reply, raw, before=before)

# Reads with a foreign Origin and a good Host: nothing asserted but no 5xx.
for origin in ("http://evil.example", "null"):
    for path in ("/api/config", "/api/reports", f"/api/reports/{victim}/trace"):
        status, _, _ = call("GET", path, {"Origin": origin})
        checks.expect(status is not None and status < 500,
                      f"GET {path} with Origin: {origin}: {status}")

# The page's own origin, and scripts without Origin, work.
made = []
for what, headers in (("no Origin (curl)", {}),
                      (f"Origin: http://{GOOD}", {"Origin": f"http://{GOOD}"}),
                      (f"Origin: http://{GOOD} and Sec-Fetch-Site: same-origin (a browser)",
                       {"Origin": f"http://{GOOD}", "Sec-Fetch-Site": "same-origin"}),
                      (f"Origin: http://localhost:{P}, Host: localhost:{P}",
                       {"Origin": f"http://localhost:{P}", "Host": f"localhost:{P}"}),
                      ("Sec-Fetch-Site: none (typed by the user)", {"Sec-Fetch-Site": "none"})):
    status, reply, raw = upload_call(headers)
    if checks.expect(status == 201 and reply and reply.get("id"),
                     f"POST with {what}: {status} {raw[:120]!r}"):
        made.append((what, headers, reply["id"]))
for what, headers, rid in made:
    d = srv.wait_done(rid, 60)
    checks.expect(d.get("state") == "done", f"upload with {what} converted: {d.get('state')}")
    status, reply, raw = call("DELETE", f"/api/reports/{rid}", headers)
    checks.expect(status == 200 and not os.path.exists(os.path.join(srv.reports, rid)),
                  f"DELETE with {what}: {status} {raw[:120]!r}")
srv.healthy(checks, "Origin checks")

# --allow-host: the names a proxy or DNS gives the server, and no others.
box2 = fresh_dir(os.path.join(WORK, "box2"))
srv2 = start_or_fail(checks, BIN, box2, ["--allow-host", "nsys.example.com",
                                          "--allow-host", "Team.Example"])
if srv2:
    P2 = srv2.port
    for host in ("nsys.example.com", f"nsys.example.com:{P2}", "NSYS.Example.COM:8443",
                 "team.example", f"TEAM.example:{P2}", f"127.0.0.1:{P2}", f"localhost:{P2}"):
        status, _, raw = call("GET", "/api/config", {"Host": host}, server=srv2)
        checks.expect(status == 200, f"--allow-host: GET with Host: {host}: {status} {raw[:80]!r}")
    for host in ("other.example.com", f"other.example.com:{P2}", "nsys.example.com.evil.example",
                 "evil-nsys.example.com", "example.com", "xnsys.example.com", "team.example.evil"):
        status, reply, raw = call("GET", "/api/reports", {"Host": host}, server=srv2)
        refused(f"--allow-host: GET /api/reports with Host: {host}", status, reply, raw)
    before = srv2.report_dirs()
    status, reply, raw = upload_call({"Host": "other.example.com"}, srv2)
    refused("--allow-host: POST with Host: other.example.com", status, reply, raw, srv2, before)
    status, reply, raw = upload_call({"Host": "nsys.example.com",
                                      "Origin": "http://other.example.com"}, srv2)
    refused("--allow-host: POST with Host: nsys.example.com, Origin: http://other.example.com",
            status, reply, raw, srv2, before)
    for what, headers in (
            ("Host and Origin nsys.example.com",
             {"Host": "nsys.example.com", "Origin": "http://nsys.example.com"}),
            ("Host nsys.example.com, Origin https://nsys.example.com (TLS at the proxy)",
             {"Host": "nsys.example.com", "Origin": "https://nsys.example.com"}),
            (f"Host 127.0.0.1:{P2}, Origin https://nsys.example.com (nginx's default "
             "proxy_pass rewrites Host)",
             {"Host": f"127.0.0.1:{P2}", "Origin": "https://nsys.example.com"})):
        status, reply, raw = upload_call(headers, srv2)
        checks.expect(status == 201, f"--allow-host: POST with {what}: {status} {raw[:120]!r}")
    srv2.healthy(checks, "--allow-host checks")
    checks.expect(srv2.stop() == 0, f"second server stops: {srv2.proc.returncode}")
    checks.expect(not srv2.outside(), f"nothing outside the second --dir: {srv2.outside()}")

srv.healthy(checks, "all Host and Origin checks")
checks.expect(os.path.isdir(os.path.join(srv.reports, victim)), "the victim report survived")
checks.expect(srv.stop() == 0, f"Ctrl-C: exit {srv.proc.returncode}")
checks.finish()
