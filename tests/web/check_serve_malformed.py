#!/usr/bin/env python3
"""serve attack A: no request crashes it. Every malformed multipart shape (a
part without a name, an unquoted or empty name, no part headers, only a file
name, no Content-Disposition, no / empty / overlong boundary, only the
closing delimiter, nested multipart/mixed, garbage, a part header without a
colon) gets a 4xx; lying Content-Lengths, bad chunk sizes, NUL bytes in the
path, absurd URLs, unknown methods, HTTP/0.9 and the HTTP/2 preface get a 4xx
(or 501 / 505, or the connection closed). After each: another client gets
200 on GET /api/config, the process is alive, the finished report is still
listed and downloadable, no report directory is left for the refused upload
and nothing is written outside --dir. A server that dies is noted and
restarted, so that one run names every request that kills it.
  check_serve_malformed.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR"""
import os
import random
import socket
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import Checks, Server, fresh_dir, make_fixture, start_or_fail  # noqa: E402

BIN, FIXTURE, WORK = map(os.path.abspath, sys.argv[1:4])
checks = Checks("serve_survives_malformed_requests")
fresh_dir(WORK)
BOX = fresh_dir(os.path.join(WORK, "box"))
REPORT = make_fixture(FIXTURE, os.path.join(WORK, "keeper.sqlite"), seed=3, events=300)
with open(REPORT, "rb") as f:
    FX = f.read()

srv = start_or_fail(checks, BIN, BOX, ["--workers", "2"])
if not srv:
    checks.finish()
srv.add_keeper(REPORT, checks)
KEEPERS = dict(srv.keepers)

B = b"xyzzy-boundary-42"
CT = b"multipart/form-data; boundary=" + B
DISP = b'Content-Disposition: form-data; name="report"; filename="x.sqlite"\r\n'


def post(body, ctype=CT, extra=b"", length=None):
    """A POST /api/reports with this server's Host."""
    head = (f"POST /api/reports HTTP/1.1\r\nHost: {srv.hostport}\r\n".encode() +
            b"Content-Type: " + ctype + b"\r\n" + extra)
    if length is None and b"Transfer-Encoding" not in extra and b"Content-Length" not in extra:
        length = len(body)
    if length is not None:
        head += b"Content-Length: %d\r\n" % length
    return head + b"\r\n" + body


def part(headers, content=FX, boundary=B):
    return b"--" + boundary + b"\r\n" + headers + b"\r\n" + content + b"\r\n"


def end(boundary=B):
    return b"--" + boundary + b"--\r\n"


def good_body(boundary=B):
    return part(DISP + b"Content-Type: application/octet-stream\r\n", boundary=boundary) + \
        end(boundary)


rng = random.Random(20240)
NESTED = (part(b'Content-Disposition: form-data; name="report"\r\n'
               b"Content-Type: multipart/mixed; boundary=inner\r\n",
               b"--inner\r\nContent-Disposition: file; filename=\"x.sqlite\"\r\n"
               b"Content-Type: application/octet-stream\r\n\r\n" + FX + b"\r\n--inner--")
          + end())
LONG_B = b"b" * 8000

# (what, request bytes, what answers are right: "4xx" a 4xx; "4xx|close" a
# 4xx or the connection closed unanswered; "proto" also 501/505; "any" no
# status asked (the client hangs up), only the server's health after.)
MULTIPART = [
    ("a part without a name", post(part(b'Content-Disposition: form-data; filename="x.sqlite"'
                                        b"\r\n") + end()), "4xx"),
    ("an unquoted name", post(part(b'Content-Disposition: form-data; name=report; '
                                   b'filename="x.sqlite"\r\n') + end()), "4xx"),
    ("an empty name", post(part(b'Content-Disposition: form-data; name=""; '
                                b'filename="x.sqlite"\r\n') + end()), "4xx"),
    ("a part without headers", post(part(b"") + end()), "4xx"),
    ("a part with only a file name", post(part(b'Content-Disposition: filename="x.sqlite"\r\n')
                                          + end()), "4xx"),
    ("a part without Content-Disposition",
     post(part(b"Content-Type: application/octet-stream\r\n") + end()), "4xx"),
    ("no boundary in Content-Type", post(good_body(), b"multipart/form-data"), "4xx"),
    ("an empty boundary", post(good_body(b""), b"multipart/form-data; boundary="), "4xx"),
    ("an empty quoted boundary", post(good_body(b""), b'multipart/form-data; boundary=""'),
     "4xx"),
    ("an 8000-byte boundary", post(good_body(LONG_B), b"multipart/form-data; boundary=" +
                                   LONG_B), "4xx"),
    ("a body that is only the closing delimiter", post(end()), "4xx"),
    ("an empty body", post(b""), "4xx"),
    # RFC 2388's form for several files: valid, stored or refused, never a crash.
    ("nested multipart/mixed", post(NESTED), "any"),
    ("garbage bytes", post(rng.randbytes(200000)), "4xx"),
    ("garbage after a good part header", post(b"--" + B + b"\r\n" + DISP + b"\r\n" +
                                              rng.randbytes(50000)), "4xx"),
    # libmicrohttpd's post processor skips part header lines it cannot read.
    ("a part header line without a colon",
     post(part(DISP + b"this line has no colon\r\n") + end()), "any"),
    ("a part header that never ends", post(b"--" + B + b"\r\n" + DISP + b"X: " +
                                           b"a" * 200000), "4xx"),
    ("a 10 KiB field name", post(part(b'Content-Disposition: form-data; name="' + b"n" * 10240
                                      + b'"\r\n', b"1") + good_body()), "4xx"),
    ("a 1 MiB option value", post(part(b'Content-Disposition: form-data; name="nvtx_filter"'
                                       b"\r\n", b"a" * (1 << 20)) + good_body()), "4xx"),
    ("a NUL in an option value", post(part(b'Content-Disposition: form-data; '
                                           b'name="nvtx_domains"\r\n', b"a\0b") + good_body()),
     "4xx"),
    ("two report parts", post(part(DISP) + part(DISP) + end()), "4xx"),
    ("the report field is not a file",
     post(part(b'Content-Disposition: form-data; name="report"\r\n') + end()), "4xx"),
    ("a lone CR-LF between delimiters", post(b"--" + B + b"\r\n\r\n--" + B + b"--\r\n"), "4xx"),
]

PATH_NUL = f"GET /api/con\0fig HTTP/1.1\r\nHost: {srv.hostport}\r\n\r\n".encode()
PROTOCOL = [
    ("an HTTP header line without a colon",
     post(good_body(), extra=b"this header line has no colon\r\n"), "4xx|close"),
    ("Content-Length shorter than the body", post(good_body(), length=len(good_body()) // 2),
     "4xx|close"),
    ("Content-Length not a number", post(good_body(), extra=b"Content-Length: 12abc\r\n"),
     "4xx|close"),
    ("Content-Length negative", post(b"", length=-5), "4xx|close"),
    ("two Content-Lengths that differ",
     post(good_body(), extra=b"Content-Length: 7\r\n", length=len(good_body())),
     "4xx|close"),
    ("Content-Length and chunked both",
     post(b"5\r\nhello\r\n0\r\n\r\n", extra=b"Transfer-Encoding: chunked\r\n", length=5),
     "4xx|close"),
    ("a chunk size that is not hex", post(b"zz\r\nhello\r\n0\r\n\r\n",
                                          extra=b"Transfer-Encoding: chunked\r\n"), "4xx|close"),
    ("a negative chunk size", post(b"-5\r\nhello\r\n0\r\n\r\n",
                                   extra=b"Transfer-Encoding: chunked\r\n"), "4xx|close"),
    ("a chunk size past 64 bits", post(b"1" + b"f" * 40 + b"\r\nhello\r\n0\r\n\r\n",
                                       extra=b"Transfer-Encoding: chunked\r\n"), "4xx|close"),
    ("a chunk longer than said", post(b"3\r\nhello world\r\n0\r\n\r\n",
                                      extra=b"Transfer-Encoding: chunked\r\n"), "4xx|close"),
    ("a chunk size line that never ends", post(b"4" * 100000,
                                               extra=b"Transfer-Encoding: chunked\r\n"),
     "4xx|close"),
    ("an unknown transfer coding", post(good_body(), extra=b"Transfer-Encoding: gzip\r\n"),
     "4xx|close"),
    ("a NUL byte in the path", PATH_NUL, "4xx|close"),
    ("a %00 in the path",
     f"GET /api/reports/%00/trace HTTP/1.1\r\nHost: {srv.hostport}\r\n\r\n".encode(),
     "4xx|close"),
    ("a NUL byte in a header", srv.head(extra=b"X-A: a\0b\r\n"), "any"),
    ("a 30 KB URL", srv.head(path="/" + "a" * 30000), "4xx|close"),
    ("a 1 MiB URL", srv.head(path="/api/reports/" + "a" * (1 << 20)), "4xx|close"),
    ("2000 small headers", srv.head(extra=b"".join(b"X-%d: 1\r\n" % i for i in range(2000))),
     "4xx|close"),
    ("an obsolete folded header", srv.head(extra=b"X-A: a\r\n  folded\r\n"), "any"),
    ("unknown method BREW", srv.head("BREW", "/"), "proto"),
    ("unknown method FOO on the reports", srv.head("FOO", "/api/reports"), "proto"),
    ("PUT on the reports", srv.head("PUT", "/api/reports", b"Content-Length: 0\r\n"), "proto"),
    ("PATCH on a report", srv.head("PATCH", "/api/reports/0123456789abcdef",
                                   b"Content-Length: 0\r\n"), "proto"),
    ("TRACE", srv.head("TRACE", "/"), "proto"),
    ("CONNECT", f"CONNECT evil.example:443 HTTP/1.1\r\nHost: {srv.hostport}\r\n\r\n".encode(),
     "proto"),
    ("a control byte in the method", srv.head("G\x01T", "/"), "proto"),
    ("a 10 KB method", srv.head("X" * 10000, "/"), "proto"),
    ("HTTP/0.9", b"GET /\r\n", "proto"),
    ("HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x12\x04\x00\x00\x00\x00"
                       b"\x00" + bytes(18), "proto"),
    ("HTTP/3.7", f"GET / HTTP/3.7\r\nHost: {srv.hostport}\r\n\r\n".encode(), "proto"),
    ("no version", f"GET /api/config\r\nHost: {srv.hostport}\r\n\r\n".encode(), "proto"),
    ("only CR-LFs", b"\r\n" * 5000, "4xx|close"),
    ("a TLS ClientHello", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + rng.randbytes(500),
     "proto"),
]


WANTED = {"4xx": "a 4xx", "4xx|close": "a 4xx or a close",
          "proto": "a 4xx, 501, 505 or a close", "any": "no 5xx"}


def fine(code, want):
    if want == "any":
        return code is None or code < 500 or code in (501, 505)
    if code is not None and 400 <= code < 500:
        return True
    if want == "4xx":
        return False
    if code is None:
        return True
    return want == "proto" and code in (501, 505)


def restart(why):
    global srv
    checks.note(f"restarting the server after {why}")
    srv.kill()
    srv = start_or_fail(checks, BIN, BOX, ["--workers", "2"])
    if not srv:
        checks.finish()
    srv.keepers = dict(KEEPERS)


def after(what, baseline):
    """The checks every attack ends with; the report directories now."""
    now = srv.wait_dirs(baseline)
    checks.expect(now == baseline, f"no report directory left after {what}: "
                                   f"{sorted(now - baseline)} "
                                   f"{[u for u in srv.unfinished() if u[0] in now - baseline]}")
    if not srv.healthy(checks, what):
        restart(what)
    return srv.report_dirs()


def run(what, data, want):
    baseline = srv.report_dirs()
    t0 = time.monotonic()
    try:
        code, reply = srv.raw(data, timeout=15)
    except OSError as e:
        code, reply = None, repr(e).encode()
    took = time.monotonic() - t0
    ok = fine(code, want)
    checks.expect(ok, f"{what}: answered {code} ({reply[:80]!r}), expected {WANTED[want]}")
    if ok:
        print(f"ok: {what}: {code} in {took:.2f} s", flush=True)
    if code is not None and 200 <= code < 300:  # accepted: wait, then take it as the baseline
        for rid in srv.report_dirs() - baseline:
            srv.wait_done(rid, 30)
        baseline = srv.report_dirs()
    after(what, baseline)


for what, data, want in MULTIPART + PROTOCOL:
    run(what, data, want)

# Content-Length longer than the body, then the client hangs up: no answer
# to read, nothing left behind.
for name, cut in (("longer than the body, then close", 100000),
                  ("longer than the body by 1, then close", 1)):
    baseline = srv.report_dirs()
    body = good_body()
    s = socket.create_connection((srv.host, srv.port), timeout=15)
    s.sendall(post(body, length=len(body) + cut))
    time.sleep(0.3)
    s.close()
    run_what = f"a Content-Length {name}"
    print(f"ok: {run_what}: sent", flush=True)
    after(run_what, baseline)

# The same, but the client just stops sending (no FIN): another client is
# answered meanwhile, and the hung-up upload leaves nothing once it closes.
baseline = srv.report_dirs()
s = socket.create_connection((srv.host, srv.port), timeout=15)
s.sendall(post(good_body(), length=len(good_body()) * 2))
checks.expect(srv.healthy(checks, "an upload that stops sending (while it waits)"),
              "answered while an upload waits for the rest of its body")
s.close()
after("an upload that stopped sending, then closed", baseline)

# Pipelined: a good request then garbage on the same connection.
code, reply = srv.raw(srv.head() + b"\x00\xff garbage \r\n\r\n")
checks.expect(code == 200, f"a good request before garbage on one connection: {code}")
after("a good request followed by garbage", srv.report_dirs())

checks.expect(srv.stop() == 0, f"Ctrl-C after the attacks: exit {srv.proc.returncode}")
checks.expect(not srv.outside(), f"nothing outside --dir at the end: {srv.outside()}")
checks.expect(set(KEEPERS) <= srv.report_dirs(), "the finished report is kept at the end")
checks.finish()
