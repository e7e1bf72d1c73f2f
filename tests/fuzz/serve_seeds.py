#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_serve (fuzz_serve.c) into OUTDIR:

    serve_seeds.py OUTDIR
    serve_seeds.py --regressions tests/fuzz/regressions   # remakes serve-*.bin

Each file is what clients send to `nsys-perfetto serve`: the bytes of one
connection, or of several separated by fuzz_serve's separator (SEP below).
The seeds cover every route and method, the Host and Origin checks, keep-
alive and pipelining, Expect: 100-continue, chunked bodies, valid multipart
uploads with every option field, and each malformed multipart shape (a part
without a name, with an unquoted or empty name, without part headers, with
only a filename, without Content-Disposition, a missing, empty or very long
boundary, nested multipart/mixed, truncated bodies, bad chunk sizes).
Report ids are those of fuzz_serve's fixture reports. Nothing here is random:
the same files every time.
"""
import os
import sys

SEP = b"\x00\x01NEXT\x01\x00"  # fuzz_serve.c: SEPARATOR
DONE = "5e5e5e5e5e5e0001"      # fuzz_serve.c: DONE_ID, a converted report
FAILED = "5e5e5e5e5e5e0002"    # FAILED_ID, a failed conversion
FOREIGN = "5e5e5e5e5e5e0003"   # FOREIGN_ID, a directory the server did not make
QUEUED = "5e5e5e5e5e5e0004"    # QUEUED_ID, a report queued for conversion
MISSING = "0123456789abcdef"
HOST = "127.0.0.1:8080"
BOUNDARY = "----nsysPerfettoFuzzBoundary7MA4YWxk"
# A few hundred bytes that start like a SQLite file: never converted (the
# fuzzer's job queue has no workers), only stored.
REPORT = b"SQLite format 3\x00\x02\x00\x01\x01\x00@  " + bytes(range(256)) + b"\r\n--not-the-boundary\r\n" + b"\x00" * 64


def request(method, path, headers=(), body=b"", host=HOST, version="HTTP/1.1"):
    lines = [f"{method} {path} {version}".encode()]
    if host is not None:
        lines.append(f"Host: {host}".encode())
    for h in headers:
        lines.append(h.encode() if isinstance(h, str) else h)
    if body and not any(str(h).lower().startswith(("content-length", "transfer-encoding"))
                        for h in headers):
        lines.append(f"Content-Length: {len(body)}".encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def part(headers, content):
    return b"\r\n".join(h.encode("latin-1") if isinstance(h, str) else h for h in headers) + \
        b"\r\n\r\n" + content


def multipart(parts, boundary=BOUNDARY, close=True):
    b = boundary.encode()
    body = b"".join(b"--" + b + b"\r\n" + p + b"\r\n" for p in parts)
    if close:
        body += b"--" + b + b"--\r\n"
    return body


def report_part(filename="run.sqlite", content=REPORT, name="report"):
    return part([f'Content-Disposition: form-data; name="{name}"; filename="{filename}"',
                 "Content-Type: application/octet-stream"], content)


def field(name, value):
    return part([f'Content-Disposition: form-data; name="{name}"'], value.encode())


def upload(parts, boundary=BOUNDARY, content_type=None, extra=(), body=None, host=HOST,
           close=True):
    if body is None:
        body = multipart(parts, boundary, close)
    if content_type is None:
        content_type = f"multipart/form-data; boundary={boundary}"
    headers = [f"Content-Type: {content_type}"] if content_type else []
    return request("POST", "/api/reports", headers + list(extra), body, host=host)


def chunked(body, sizes=None, bad=None):
    """body in chunks of the given sizes; bad: a raw chunk-size line to use instead."""
    out = b""
    pos = 0
    for s in sizes or [len(body)]:
        piece = body[pos:pos + s]
        pos += s
        size_line = bad if bad is not None else b"%x" % len(piece)
        out += size_line + b"\r\n" + piece + b"\r\n"
    return out + b"0\r\n\r\n"


def seeds():
    s = {}
    # --- Routes and methods.
    s["get-page"] = request("GET", "/")
    s["get-index"] = request("GET", "/index.html")
    s["head-page"] = request("HEAD", "/")
    s["post-page"] = request("POST", "/", ["Content-Length: 0"])
    s["get-config"] = request("GET", "/api/config")
    s["get-list"] = request("GET", "/api/reports")
    s["get-report-done"] = request("GET", f"/api/reports/{DONE}")
    s["get-report-failed"] = request("GET", f"/api/reports/{FAILED}")
    s["get-report-foreign"] = request("GET", f"/api/reports/{FOREIGN}")
    s["get-report-missing"] = request("GET", f"/api/reports/{MISSING}")
    s["get-report-queued"] = request("GET", f"/api/reports/{QUEUED}")
    s["get-trace-queued"] = request("GET", f"/api/reports/{QUEUED}/trace")
    s["delete-queued"] = request("DELETE", f"/api/reports/{QUEUED}")
    s["get-report-bad-id"] = request("GET", "/api/reports/../../etc/passwd")
    s["get-report-upper-id"] = request("GET", "/api/reports/5E5E5E5E5E5E0001")
    s["get-report-long-id"] = request("GET", "/api/reports/" + "a" * 70 + "/trace")
    s["get-trace-done"] = request("GET", f"/api/reports/{DONE}/trace")
    s["head-trace-done"] = request("HEAD", f"/api/reports/{DONE}/trace")
    s["get-trace-failed"] = request("GET", f"/api/reports/{FAILED}/trace")
    s["get-trace-other"] = request("GET", f"/api/reports/{DONE}/result")
    s["get-query"] = request("GET", "/api/reports?x=1&y=%00%ff")
    s["get-encoded"] = request("GET", "/api/%72eports/" + DONE)
    s["delete-done"] = request("DELETE", f"/api/reports/{DONE}")
    s["delete-failed"] = request("DELETE", f"/api/reports/{FAILED}")
    s["delete-foreign"] = request("DELETE", f"/api/reports/{FOREIGN}")
    s["delete-missing"] = request("DELETE", f"/api/reports/{MISSING}")
    s["delete-list"] = request("DELETE", "/api/reports")
    s["delete-twice"] = request("DELETE", f"/api/reports/{DONE}") + \
        request("DELETE", f"/api/reports/{DONE}")
    s["delete-then-get"] = request("DELETE", f"/api/reports/{DONE}") + \
        request("GET", f"/api/reports/{DONE}") + request("GET", "/api/reports")
    s["put-reports"] = request("PUT", "/api/reports", ["Content-Type: text/plain"], b"hello")
    s["options-star"] = request("OPTIONS", "*")
    s["unknown-method"] = request("BREW", "/", ["Content-Length: 0"])
    s["get-with-body"] = request("GET", "/api/config", [], b"{\"a\":1}")
    s["http10-no-host"] = request("GET", "/api/config", host=None, version="HTTP/1.0")
    s["http10-keepalive"] = request("GET", "/", ["Connection: keep-alive"], version="HTTP/1.0") + \
        request("GET", "/api/config", version="HTTP/1.0")
    s["http2-version"] = request("GET", "/", version="HTTP/2.0")
    s["http09"] = b"GET /\r\n\r\n"
    s["bare-lf"] = b"GET /api/config HTTP/1.1\nHost: localhost\n\n"
    s["folded-header"] = b"GET / HTTP/1.1\r\nHost: localhost\r\nX-A: a\r\n b\r\n\r\n"
    s["huge-header"] = request("GET", "/", ["X-Big: " + "x" * 40000])
    s["huge-url"] = request("GET", "/" + "a" * 40000)
    s["many-headers"] = request("GET", "/", [f"X-H{i}: {i}" for i in range(300)])
    s["connection-close"] = request("GET", "/api/config", ["Connection: close"]) + \
        request("GET", "/")

    # --- Host and Origin.
    for name, host in [("localhost", "localhost"), ("localhost-port", "localhost:8080"),
                       ("sub-localhost", "app.localhost"), ("v6", "[::1]:8080"),
                       ("v6-mapped", "[::ffff:127.0.0.1]"), ("allowed", "nsys.example.org"),
                       ("allowed-ip", "10.1.2.3:80"), ("allowed-dot", "NSYS.example.org."),
                       ("any-ip", "192.168.1.20:8080"), ("foreign", "evil.example.com"),
                       ("foreign-port", "evil.example.com:8080"), ("empty", ""),
                       ("bad-port", "localhost:80a"), ("unclosed-v6", "[::1"),
                       ("two-colons", "localhost:1:2")]:
        s[f"host-{name}"] = request("GET", "/api/config", host=host)
    s["host-missing"] = request("GET", "/api/config", host=None)
    s["host-twice"] = request("GET", "/api/config", ["Host: evil.example.com"])
    for name, origin in [("same", "http://127.0.0.1:8080"), ("foreign", "http://evil.example.com"),
                         ("allowed", "https://nsys.example.org"), ("null", "null"),
                         ("path", "http://127.0.0.1:8080/x"), ("allowed-port",
                                                                  "http://nsys.example.org:443")]:
        s[f"origin-{name}-delete"] = request("DELETE", f"/api/reports/{DONE}",
                                             [f"Origin: {origin}"])
        s[f"origin-{name}-upload"] = upload([report_part()], extra=[f"Origin: {origin}"])
    for site in ["same-origin", "none", "cross-site", "same-site"]:
        s[f"fetch-site-{site}"] = request("DELETE", f"/api/reports/{DONE}",
                                          [f"Sec-Fetch-Site: {site}"])
    s["foreign-host-upload"] = upload([report_part()], host="evil.example.com")

    # --- Uploads that are queued.
    s["upload"] = upload([report_part()])
    s["upload-options"] = upload([
        field("kernel_names", "demangled"), field("min_stream_activity", "1.5"),
        field("nvtx_domains", "a, b,,c"), field("nvtx_filter", "^step [0-9]+$"),
        field("time_range", "1.5s:2s"), field("sources", "kernel, nvtx"), report_part()])
    s["upload-nsys-rep"] = upload([report_part("C:\\runs\\prof.nsys-rep")])
    s["upload-qdrep"] = upload([report_part("old.qdrep")])
    s["upload-odd-name"] = upload([report_part("../../\x01evil\xff\xfe<name>.sqlite")])
    s["upload-empty-name"] = upload([report_part("")])
    s["upload-empty-file"] = upload([report_part(content=b"")])
    s["upload-then-list"] = upload([report_part()]) + SEP + request("GET", "/api/reports")
    s["upload-keepalive-list"] = upload([report_part()]) + request("GET", "/api/reports")
    s["upload-expect-continue"] = upload([report_part()], extra=["Expect: 100-continue"])
    s["upload-chunked"] = upload([], extra=["Transfer-Encoding: chunked"],
                                 body=chunked(multipart([report_part()]), [50, 100, 1000]))
    s["upload-lowercase-headers"] = request(
        "POST", "/api/reports", [f"content-type: Multipart/Form-Data; boundary={BOUNDARY}"],
        multipart([part([f'content-disposition: form-data; name="report"; filename="a.sqlite"'],
                        REPORT)]))
    s["upload-quoted-boundary"] = upload([report_part()],
                                         content_type=f'multipart/form-data; boundary="{BOUNDARY}"')
    s["upload-charset"] = upload([report_part()],
                                 content_type=f"multipart/form-data; charset=utf-8; boundary={BOUNDARY}")
    s["upload-preamble"] = upload([], body=b"preamble text\r\n" + multipart([report_part()]))
    s["two-uploads-two-connections"] = upload([report_part("a.sqlite")]) + SEP + \
        upload([report_part("b.sqlite")]) + SEP + request("GET", "/api/reports")

    # --- Uploads refused, well-formed.
    s["upload-no-report"] = upload([field("kernel_names", "short")])
    s["upload-report-not-file"] = upload([field("report", "just text")])
    s["upload-two-reports"] = upload([report_part("a.sqlite"), report_part("b.sqlite")])
    s["upload-empty-then-report"] = upload([report_part("a.sqlite", b""), report_part("b.sqlite")])
    s["upload-unknown-field"] = upload([field("color", "blue"), report_part()])
    s["upload-bad-kernel-names"] = upload([field("kernel_names", "pretty"), report_part()])
    s["upload-bad-percentage"] = upload([field("min_stream_activity", "150%"), report_part()])
    s["upload-bad-time-range"] = upload([field("time_range", "2s:1s"), report_part()])
    s["upload-bad-source"] = upload([field("sources", "kernel,HTTP/1.1 500 x"), report_part()])
    s["upload-bad-regex"] = upload([field("nvtx_filter", "(["), report_part()])
    s["upload-long-option"] = upload([field("nvtx_domains", "d," * 600), report_part()])
    s["upload-option-nul"] = upload([field("nvtx_filter", "a\x00b"), report_part()])
    s["upload-empty-option"] = upload([field("time_range", ""), report_part()])
    s["upload-too-large"] = upload([report_part(content=b"x" * (16 * 1024 + 1))])
    s["upload-declared-too-large"] = request(
        "POST", "/api/reports", [f"Content-Type: multipart/form-data; boundary={BOUNDARY}",
                                 "Content-Length: 99999999999"], b"")
    s["upload-not-multipart"] = request("POST", "/api/reports",
                                        ["Content-Type: application/x-www-form-urlencoded"],
                                        b"report=abc&kernel_names=short")
    s["upload-no-content-type"] = request("POST", "/api/reports", [], REPORT)
    s["upload-empty-body"] = upload([], body=b"")

    # --- Malformed multipart.
    s["mp-no-name"] = upload([part(['Content-Disposition: form-data; filename="a.sqlite"'], REPORT)])
    s["mp-no-name-empty"] = upload([part(['Content-Disposition: form-data; filename="a.sqlite"'], b"")])
    s["mp-unquoted-name"] = upload([part(['Content-Disposition: form-data; name=report; filename="a.sqlite"'], REPORT)])
    s["mp-empty-name"] = upload([part(['Content-Disposition: form-data; name=""; filename="a.sqlite"'], REPORT)])
    s["mp-unterminated-name"] = upload([part(['Content-Disposition: form-data; name="report; filename=a'], REPORT)])
    s["mp-no-part-headers"] = upload([b"\r\n" + REPORT[:40]], close=True)
    s["mp-only-filename"] = upload([part(['Content-Disposition: filename="a.sqlite"'], REPORT)])
    s["mp-no-disposition"] = upload([part(["Content-Type: application/octet-stream"], REPORT)])
    s["mp-disposition-no-space"] = upload([part(['Content-Disposition:form-data; name="report"; filename="a"'], REPORT)])
    s["mp-field-no-name"] = upload([part(["Content-Disposition: form-data"], b"x"), report_part()])
    s["mp-named-then-unnamed"] = upload([report_part(), part(['Content-Disposition: form-data; filename="b"'], b"more")])
    s["mp-no-boundary-param"] = upload([report_part()], content_type="multipart/form-data")
    s["mp-empty-boundary"] = upload([report_part()], boundary="",
                                    content_type="multipart/form-data; boundary=")
    s["mp-long-boundary"] = upload([report_part()], boundary="b" * 200)
    s["mp-huge-boundary"] = upload([report_part()], boundary="B" * 3000)
    s["mp-wrong-boundary"] = upload([report_part()], content_type="multipart/form-data; boundary=other")
    s["mp-nested-mixed"] = upload([part(
        ['Content-Disposition: form-data; name="report"', "Content-Type: multipart/mixed; boundary=inner"],
        b"--inner\r\nContent-Disposition: file; filename=\"a.sqlite\"\r\n\r\n" + REPORT +
        b"\r\n--inner\r\nContent-Disposition: file; filename=\"b.sqlite\"\r\n\r\nB\r\n--inner--")])
    s["mp-nested-no-name"] = upload([part(
        ["Content-Disposition: form-data", "Content-Type: multipart/mixed; boundary=inner"],
        b"--inner\r\nContent-Disposition: file; filename=\"a.sqlite\"\r\n\r\n" + REPORT + b"\r\n--inner--")])
    s["mp-nested-unterminated"] = upload([part(
        ['Content-Disposition: form-data; name="report"', "Content-Type: multipart/mixed; boundary=inner"],
        b"--inner\r\nContent-Disposition: file; filename=\"a\"\r\n\r\nA")], close=False)
    s["mp-truncated"] = upload([report_part()], close=False)
    s["mp-truncated-mid-part"] = upload([], body=multipart([report_part()])[:120])
    s["mp-short-body"] = request(
        "POST", "/api/reports", [f"Content-Type: multipart/form-data; boundary={BOUNDARY}",
                                 "Content-Length: 5000"], multipart([report_part()]))
    s["mp-long-body"] = request(
        "POST", "/api/reports", [f"Content-Type: multipart/form-data; boundary={BOUNDARY}",
                                 "Content-Length: 10"], multipart([report_part()]))
    s["mp-headers-unterminated"] = upload([], body=b"--" + BOUNDARY.encode() +
                                          b"\r\nContent-Disposition: form-data; name=\"report\"")
    s["mp-long-part-header"] = upload([part(["X-Long: " + "h" * 70000], REPORT)])
    s["mp-bare-lf"] = upload([], body=multipart([report_part()]).replace(b"\r\n", b"\n"))
    s["mp-garbage-after-end"] = upload([], body=multipart([report_part()]) + b"trailing junk")
    s["mp-chunked-bad-size"] = upload([], extra=["Transfer-Encoding: chunked"],
                                      body=chunked(multipart([report_part()]), bad=b"zz"))
    s["mp-chunked-huge-size"] = upload([], extra=["Transfer-Encoding: chunked"],
                                       body=b"ffffffffffffffffff\r\n" + multipart([report_part()]))
    s["mp-chunked-negative"] = upload([], extra=["Transfer-Encoding: chunked"],
                                      body=b"-5\r\nabc\r\n0\r\n\r\n")
    s["mp-chunked-extension"] = upload([], extra=["Transfer-Encoding: chunked"],
                                       body=chunked(multipart([report_part()]), bad=b"1f5;ext=1"))
    s["mp-chunked-no-end"] = upload([], extra=["Transfer-Encoding: chunked"],
                                    body=b"10\r\n0123456789abcdef\r\n")
    s["mp-chunked-and-length"] = upload([], extra=["Transfer-Encoding: chunked", "Content-Length: 3"],
                                        body=chunked(multipart([report_part()])))
    s["mp-two-lengths"] = request(
        "POST", "/api/reports", [f"Content-Type: multipart/form-data; boundary={BOUNDARY}",
                                 "Content-Length: 10", "Content-Length: 20"], b"x" * 20)
    s["mp-no-name-keepalive"] = upload([part(['Content-Disposition: form-data; filename="a"'], REPORT)]) + \
        request("GET", "/api/reports")
    s["mp-no-name-expect"] = upload([part(['Content-Disposition: form-data; filename="a"'], REPORT)],
                                    extra=["Expect: 100-continue"])
    # --- The third and fourth connections come in pieces (fuzz_serve.c).
    for name in ["upload-options", "upload", "mp-nested-mixed", "upload-chunked",
                 "upload-two-reports", "upload-expect-continue", "mp-no-name", "get-list"]:
        s[f"pieces-{name}"] = SEP + SEP + s[name]
    return s


def regressions():
    """The inputs of tests/fuzz/regressions/serve-*.bin (see the README there):
    each crashed the server, or broke one of fuzz_serve's checks, before the
    fixes of 2026-11-26 (commit 71a25ef; S4: fixed after it)."""
    r = REPORT[:48]
    no_name = part(['Content-Disposition: form-data; filename="a.sqlite"'], r)
    return {
        # S1: parts without a name: libmicrohttpd's post processor calls back
        # with key NULL, which on_field passed to strcmp. Each shape of it:
        # then a good upload and the list, on two more connections.
        "part-without-name": upload([no_name]) + SEP + upload([report_part(content=r)]) + SEP +
        request("GET", "/api/reports"),
        "part-unquoted-name": upload([part(
            ['Content-Disposition: form-data; name=report; filename="a.sqlite"'], r)]),
        "part-without-headers": upload([b"\r\n" + r]),
        "part-without-disposition": upload([part(["Content-Type: application/octet-stream"], r)]),
        "nested-part-without-name": upload([part(
            ["Content-Disposition: form-data", "Content-Type: multipart/mixed; boundary=inner"],
            b"--inner\r\nContent-Disposition: file; filename=\"a.sqlite\"\r\n\r\n" + r +
            b"\r\n--inner--")]),
        "field-without-name": upload([report_part(content=r),
                                      part(["Content-Disposition: form-data"], b"short")],
                                     extra=["Expect: 100-continue"]),
        # S2: DELETE of a directory of the report form that the server did not
        # make removed its files.
        "delete-unmarked-directory": request("DELETE", f"/api/reports/{FOREIGN}") + SEP +
        request("GET", "/api/reports"),
        # S3: a file name that is not UTF-8, listed: the JSON was not UTF-8.
        "invalid-utf8-name-list": upload([report_part("bad\xff\xfe name\xc3.sqlite", r)]) + SEP +
        request("GET", "/api/reports"),
        # S4 (found on the fixed tree): a POST without a body that expects
        # 100-continue, then the next request: libmicrohttpd called the
        # handler with *size 0 too early, its answer was refused.
        "expect-continue-no-body": b"".join(
            request("POST", "/api/reports",
                    ["Content-Type: multipart/form-data; boundary=xyz", "Expect: 100-continue"] +
                    length, host="localhost") +
            request("GET", "/api/config", host="localhost") + (SEP if length == [] else b"")
            for length in ([], ["Content-Length: 0"])),
    }


def write_all(out, files, prefix="", clean=True):
    os.makedirs(out, exist_ok=True)
    if clean:
        for old in os.listdir(out):
            os.unlink(os.path.join(out, old))
    for name, data in files.items():
        with open(os.path.join(out, prefix + name + (".bin" if prefix else "")), "wb") as f:
            f.write(data)


def main():
    args = sys.argv[1:]
    if args[:1] == ["--regressions"] and len(args) == 2:
        write_all(args[1], regressions(), prefix="serve-", clean=False)
        print(f"serve_seeds: {len(regressions())} regression inputs serve-*.bin in {args[1]}")
        return
    if len(args) != 1:
        sys.exit("usage: serve_seeds.py OUTDIR | --regressions DIR")
    all_seeds = seeds()
    write_all(args[0], all_seeds)
    print(f"serve_seeds: {len(all_seeds)} fuzz_serve seeds in {args[0]}")


if __name__ == "__main__":
    main()
