#!/usr/bin/env python3
"""nsys-perfetto serve without a browser: 8 uploads at once, each converted
to its own trace and summary (checked against the report's SQL, and one
against `summary --csv`: the same rows, memory named as nsys stats 2023.4); refusals
with a 4xx and no file left behind (a 2 GB upload past --max-upload, one
past it while streaming, a truncated multipart, a multipart without its end,
bad ids, a huge header, not multipart, bad options); a conversion that fails
shows one line naming the uploaded file; two reports compared; delete; Ctrl-C mid-upload removes
the partial upload; the reports survive a restart. After every bad request
the server still answers. With NSYS_REP (made by the .nsys-rep test when
nsys is here), a .nsys-rep upload is exported with the server's nsys.
  check_serve.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR [NSYS_REP]"""
import csv
import http.client
import io
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time

BIN, FIXTURE, WORK = sys.argv[1:4]
NSYS_REP = sys.argv[4] if len(sys.argv) > 4 else ""
REPORTS = os.path.join(WORK, "reports")
MAX_UPLOAD = 4 << 20
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from testlib import expect, failures  # noqa: E402

def start():
    proc = subprocess.Popen([BIN, "serve", "--port", "0", "--dir", REPORTS, "--max-upload",
                             str(MAX_UPLOAD), "--workers", "2", "-q"],
                            stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip()
    host, port = url[len("http://"):].rstrip("/").split(":")
    return proc, host, int(port)


def request(method, path, body=None, headers=None):
    conn = http.client.HTTPConnection(HOST, PORT, timeout=60)
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, data


def answers(after):
    status, data = request("GET", "/api/config")
    expect(status == 200 and json.loads(data)["address"] == f"{HOST}:{PORT}",
           f"server answers after {after}: {status}")


def multipart(fields, filename=None, content=b""):
    """fields then the report, as a browser's FormData sends them."""
    boundary = "----nsysp-test-boundary"
    parts = []
    for key, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n'
                     f"{value}\r\n".encode())
    if filename is not None:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="report"; '
                     f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
                     .encode() + content + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def upload(filename, content, fields=None):
    body, headers = multipart(fields or {}, filename, content)
    status, data = request("POST", "/api/reports", body, headers)
    return status, json.loads(data)


def wait_done(rid):
    for _ in range(1200):
        status, data = request("GET", f"/api/reports/{rid}")
        d = json.loads(data)
        if d.get("state") in ("done", "failed"):
            return d
        time.sleep(0.1)
    return {}


def leftovers():
    """Report directories without a finished result (upload parts, inputs)."""
    out = []
    for rid in os.listdir(REPORTS):
        if not os.path.isdir(os.path.join(REPORTS, rid)):
            continue  # the server's lock file
        try:
            files = set(os.listdir(os.path.join(REPORTS, rid)))
        except FileNotFoundError:  # removed while listed
            continue
        if "result.json" not in files:
            out.append((rid, sorted(files)))
    return out


def no_leftovers(after):
    for _ in range(300):  # the request's end is noticed by the server's thread
        if not leftovers():
            break
        time.sleep(0.1)
    expect(not leftovers(), f"no files left after {after}: {leftovers()}")


def raw(data, read=True, shut=True):
    """Sends bytes on a fresh connection; returns the status line's code."""
    s = socket.create_connection((HOST, PORT), timeout=60)
    try:
        s.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass
    if shut:
        try:
            s.shutdown(socket.SHUT_WR)
        except OSError:  # the server answered and closed already
            pass
    reply = b""
    if read:
        try:
            while b"\r\n" not in reply:
                chunk = s.recv(4096)
                if not chunk:
                    break
                reply += chunk
        except ConnectionResetError:
            pass
    s.close()
    return int(reply.split(b" ")[1]) if reply.startswith(b"HTTP/1.") else None


def kernel_sql(report):
    """Per short kernel name: count and total duration, from the report."""
    db = sqlite3.connect(f"file:{report}?mode=ro", uri=True)
    rows = db.execute("SELECT s.value, count(*), sum(k.end - k.start) FROM "
                      "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
                      "GROUP BY s.value").fetchall()
    return {name: (n, total) for name, n, total in rows}


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

# Bad command lines: one line, status 2, nothing served.
for args in (["--max-upload", "lots"], ["--bind", "example.com"], ["--perfetto-ui", "ftp://x"],
             ["--workers", "0"], ["--port", "70000"], ["extra"]):
    r = subprocess.run([BIN, "serve", "--dir", REPORTS] + args, capture_output=True, text=True,
                       timeout=30)
    expect(r.returncode == 2 and r.stderr.count("\n") in (1, 2) and not r.stdout,
           f"serve {args}: {r.returncode} {r.stderr!r}")

proc, HOST, PORT = start()
r = subprocess.run([BIN, "serve", "--dir", os.path.join(WORK, "other"), "--port", str(PORT)],
                   capture_output=True, text=True, timeout=30)
expect(r.returncode == 2 and "cannot listen" in r.stderr, f"port in use: {r.returncode} {r.stderr!r}")
expect(HOST == "127.0.0.1", f"binds 127.0.0.1 by default: {HOST}")

# 8 reports at once, each its own.
reports = []
for seed in range(1, 9):
    path = os.path.join(WORK, f"fixture-{seed}.sqlite")
    subprocess.run([FIXTURE, "--seed", str(seed), "--events", "2000", path], check=True,
                   stdout=subprocess.DEVNULL)
    reports.append(path)
ids = [None] * len(reports)


def send(i):
    with open(reports[i], "rb") as f:
        status, reply = upload(os.path.basename(reports[i]), f.read(),
                               {"kernel_names": "short", "min_stream_activity": ""})
    expect(status == 201, f"upload {i}: {status} {reply}")
    ids[i] = reply.get("id")


threads = [threading.Thread(target=send, args=(i,)) for i in range(len(reports))]
for t in threads:
    t.start()
for t in threads:
    t.join()
expect(len(set(ids)) == len(ids) and all(ids), f"8 distinct ids: {ids}")
for i, rid in enumerate(ids):
    if not rid:
        continue
    d = wait_done(rid)
    expect(d.get("state") == "done", f"report {i} converted: {d.get('state')} {d.get('error')}")
    if d.get("state") != "done":
        continue
    expect(d["name"] == os.path.basename(reports[i]), f"report {i} name {d['name']}")
    sql = kernel_sql(reports[i])
    kernel_rows = [r for r in d["summary"]["rows"] if r["category"] == "kernel"]
    expect(kernel_rows and d["summary"]["categories"]["kernel"] == len(sql),
           f"report {i}: kernel names {d['summary']['categories'].get('kernel')} vs SQL {len(sql)}")
    for r in kernel_rows:
        expect(sql.get(r["name"]) == (r["count"], r["total_ns"]),
               f"report {i} kernel {r['name']}: {r['count']} {r['total_ns']} vs SQL {sql.get(r['name'])}")
    kernels = next(s for s in d["stats"]["sources"] if s["name"] == "kernel")
    expect(kernels["rows"] == sum(n for n, _ in sql.values()) == kernels["events"],
           f"report {i} kernel accounting {kernels}")
    status, trace = request("GET", f"/api/reports/{rid}/trace")
    with open(os.path.join(REPORTS, rid, "trace.perfetto-trace"), "rb") as f:
        expect(status == 200 and trace == f.read() and trace[:2] == b"\x1f\x8b"
               and len(trace) == d["trace_bytes"], f"report {i} trace download")
    expect(not os.path.exists(os.path.join(REPORTS, rid, "input.sqlite")), "input removed")
    if i == 0:
        # The page's rows are `summary`'s, under nsys stats 2023.4's names.
        out = subprocess.run([BIN, "summary", "--csv", reports[i]], check=True,
                             capture_output=True, text=True).stdout
        cli = {(r[0], r[1]): (int(r[2]), int(r[3]), int(r[5]), int(r[6]))
               for r in list(csv.reader(io.StringIO(out)))[1:]}
        page = {(r["category"], r["name"]): (r["count"], r["total_ns"], r["min_ns"], r["max_ns"])
                for r in d["summary"]["rows"]}
        same = all(cli.get(k) == v for k, v in page.items())
        expect(page and same, f"report {i}: the page's summary rows are summary's")
        expect(any(c == "memory" and n.startswith("[CUDA memcpy ") for c, n in page),
               f"report {i}: memory rows named as nsys stats 2023.4: {sorted(page)[:8]}")
status, data = request("GET", "/api/reports")
listed = [r["id"] for r in json.loads(data)["reports"]]
expect(sorted(listed) == sorted(ids), f"list has the 8 reports: {listed}")
created = [r["created"] for r in json.loads(data)["reports"]]
expect(created == sorted(created, reverse=True), "list newest first")
answers("8 uploads at once")

# A 2 GB upload (a sparse file) past --max-upload: refused from its headers.
sparse = os.path.join(WORK, "big.sqlite")
with open(sparse, "wb") as f:
    f.truncate(2 << 30)
head, headers = multipart({}, "big.sqlite", b"")
length = len(head) + os.path.getsize(sparse)
s = socket.create_connection((HOST, PORT), timeout=60)
s.sendall(f"POST /api/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {headers['Content-Type']}\r\n"
          f"Content-Length: {length}\r\n\r\n".encode())
sent, reply = 0, b""
with open(sparse, "rb") as f:
    s.settimeout(0.2)
    while sent < (64 << 20) and b"\r\n" not in reply:  # the server answers long before 2 GB
        try:
            s.sendall(f.read(1 << 20))
            sent += 1 << 20
        except (BrokenPipeError, ConnectionResetError):
            break
        try:
            reply += s.recv(4096)
        except socket.timeout:
            pass
    s.settimeout(30)
    try:
        while b"\r\n" not in reply:
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
    except (ConnectionResetError, socket.timeout):
        pass
s.close()
expect(reply.startswith(b"HTTP/1.1 413"), f"2 GB upload refused with 413 after {sent >> 20} MiB: "
       f"{reply[:60]!r}")
no_leftovers("the 2 GB upload")
answers("the 2 GB upload")

# Past --max-upload while streaming (chunked: no length to refuse it by).
body, headers = multipart({}, "chunked.sqlite", b"\0" * (MAX_UPLOAD + (1 << 20)))
chunked = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 65536]), body[i:i + 65536])
                   for i in range(0, len(body), 65536)) + b"0\r\n\r\n"
code = raw(b"POST /api/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
           b"Content-Type: " + headers["Content-Type"].encode() + b"\r\n\r\n" + chunked)
expect(code == 413, f"chunked upload past --max-upload: {code}")
no_leftovers("the chunked upload")
answers("the chunked upload")

# Truncated: the connection ends halfway through the body.
with open(reports[0], "rb") as f:
    body, headers = multipart({}, "truncated.sqlite", f.read())
head = (f"POST /api/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {headers['Content-Type']}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n").encode()


def upload_under_way():
    """Waits until the server streams an upload to disk."""
    for _ in range(100):
        if any("upload.part" in files for _, files in leftovers()):
            return True
        time.sleep(0.05)
    return False


s = socket.create_connection((HOST, PORT), timeout=60)
s.sendall(head + body[:len(body) // 2])
expect(upload_under_way(), "truncated upload under way")
s.close()
no_leftovers("a truncated upload")
answers("a truncated upload")

# The whole length arrives, but the multipart body stops short of its end.
cut = body[:len(body) // 2]
code = raw(f"POST /api/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {headers['Content-Type']}\r\n"
           f"Content-Length: {len(cut)}\r\n\r\n".encode() + cut)
expect(code == 400, f"multipart without its end: {code}")
no_leftovers("a multipart without its end")
answers("a multipart without its end")

# Garbage instead of multipart, and not multipart at all.
status, _ = request("POST", "/api/reports", b"x" * 1000,
                    {"Content-Type": "multipart/form-data; boundary=zz"})
expect(status == 400, f"garbage multipart: {status}")
status, _ = request("POST", "/api/reports", b"{}", {"Content-Type": "application/json"})
expect(status == 415, f"not multipart: {status}")
status, reply = upload("a.sqlite", b"x", {"time_range": "soon"})
expect(status == 400 and "time range" in reply.get("error", ""), f"bad option: {status} {reply}")
status, reply = upload("a.sqlite", b"x", {"evil": "1"})
expect(status == 400, f"unknown form field: {status} {reply}")
status, reply = upload(None, b"")
expect(status == 400 and "no report" in reply.get("error", ""), f"no file: {status} {reply}")
no_leftovers("refused uploads")
answers("refused uploads")

# Bad ids, unknown ids and paths.
for path in ("/api/reports/zzz", "/api/reports/0123456789abcdef", "/api/reports/0123456789ABCDEF",
             "/api/reports/../../etc/passwd", "/api/reports/%2e%2e%2fname/trace",
             "/api/reports/0123456789abcdef/trace", "/nothing"):
    status, _ = request("GET", path)
    expect(status == 404, f"GET {path}: {status}")
status, _ = request("DELETE", "/api/reports/0123456789abcdef")
expect(status == 404, f"DELETE unknown id: {status}")
answers("bad ids")

# A huge header.
code = raw(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Huge: " + b"a" * (256 << 10) + b"\r\n\r\n")
expect(code is not None and 400 <= code < 500, f"huge header: {code}")
answers("a huge header")

# A conversion that fails: one line naming the uploaded file.
status, reply = upload("notes.sqlite", b"not a report at all\n" * 100)
d = wait_done(reply.get("id", "x"))
expect(d.get("state") == "failed" and d["error"].startswith("notes.sqlite:")
       and "\n" not in d["error"] and REPORTS not in d["error"], f"failed conversion: {d}")

# A .nsys-rep goes through the server's nsys, as on the command line.
if NSYS_REP and os.path.exists(NSYS_REP) and shutil.which("nsys"):
    with open(NSYS_REP, "rb") as f:
        status, reply = upload("captured.nsys-rep", f.read())
    d = wait_done(reply.get("id", "x"))
    expect(d.get("state") == "done" and any(s["name"] == "osrt" and s["rows"] > 0
                                            for s in d["stats"]["sources"]),
           f".nsys-rep upload exported and converted: {d.get('state')} {d.get('error')}")
    ids.append(reply.get("id"))
else:
    print("note: no .nsys-rep or no nsys; .nsys-rep upload not checked")

# Compare two reports (nsys-perfetto diff's JSON): a report with itself
# changes nothing; two different reports name their kernels' changes, and
# the totals are those of the reports' own summaries.
status, data = request("GET", f"/api/compare?before={ids[0]}&after={ids[0]}")
same = json.loads(data) if status == 200 else {}
expect(status == 200 and same.get("verdict") == "pass" and same["rows"] and
       all(r["status"] == "unchanged" for r in same["rows"]), f"compare with itself: {status}")
status, data = request("GET", f"/api/compare?before={ids[0]}&after={ids[1]}&gate=5")
diff = json.loads(data) if status == 200 else {"rows": []}
kernels0 = {r["name"]: r["total_ns"] for r in wait_done(ids[0])["summary"]["rows"]
            if r["category"] == "kernel"}
checked = [r for r in diff["rows"] if r["category"] == "kernel" and r["name"] in kernels0]
expect(status == 200 and diff.get("verdict") in ("pass", "fail") and checked and
       all(r["before"]["total_ns"] == kernels0[r["name"]] for r in checked),
       f"compare two reports: {status} {len(checked)} kernel rows checked")
for query, want in ((f"before={ids[0]}", 400), (f"before={ids[0]}&after=zz", 400),
                    (f"before={ids[0]}&after=0123456789abcdef", 404),
                    (f"before={ids[0]}&after={ids[1]}&gate=-3", 400)):
    status, _ = request("GET", f"/api/compare?{query}")
    expect(status == want, f"compare ?{query}: {status}, expected {want}")

# Delete.
status, _ = request("DELETE", f"/api/reports/{ids[0]}")
expect(status == 200 and not os.path.exists(os.path.join(REPORTS, ids[0])), f"delete: {status}")
status, _ = request("GET", f"/api/reports/{ids[0]}/trace")
expect(status == 404, f"deleted trace: {status}")

# Ctrl-C in the middle of an upload: the part file goes too.
s = socket.create_connection((HOST, PORT), timeout=60)
s.sendall(head + body[:len(body) // 2])
expect(upload_under_way(), "upload under way at Ctrl-C")
proc.send_signal(signal.SIGINT)
expect(proc.wait(timeout=60) == 0, f"exit status after Ctrl-C: {proc.returncode}")
s.close()
expect(not leftovers(), f"Ctrl-C removed the partial upload: {leftovers()}")

# The reports are still there for the next server.
proc, HOST, PORT = start()
status, data = request("GET", "/api/reports")
expect(len(json.loads(data)["reports"]) == len(ids), "the converted and failed reports are "
       "there after a restart")
proc.send_signal(signal.SIGINT)
proc.wait(timeout=60)

print(f"{len(failures)} failures" if failures else "ok")
sys.exit(1 if failures else 0)
