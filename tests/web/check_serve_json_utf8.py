#!/usr/bin/env python3
"""serve attack D: the JSON is always valid UTF-8. Reports uploaded under
file names that are not UTF-8 (raw bytes in the multipart filename), or of
300 bytes of 2- and 3-byte characters (cut at 255 bytes inside a
character), with control characters or markup, and option values that are
not UTF-8: GET /api/reports and GET /api/reports/ID decode as strict UTF-8
and parse as JSON, in every state (queued, converting, done, failed); the
names shown are valid UTF-8 (bad bytes become U+FFFD), at most 255 bytes, and
what is kept of a long name is its beginning. The download's
Content-Disposition is plain ASCII.
  check_serve_json_utf8.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR"""
import json
import os
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import Checks, fresh_dir, make_fixture, start_or_fail  # noqa: E402

BIN, FIXTURE, WORK = map(os.path.abspath, sys.argv[1:4])
checks = Checks("serve_json_is_valid_utf8")
fresh_dir(WORK)
BOX = fresh_dir(os.path.join(WORK, "box"))
REPORT = make_fixture(FIXTURE, os.path.join(WORK, "report.sqlite"), seed=9, events=2000)
with open(REPORT, "rb") as f:
    CONTENT = f.read()

srv = start_or_fail(checks, BIN, BOX, ["--workers", "2"])
if not srv:
    checks.finish()
srv.add_keeper(REPORT, checks)

NAMES = {  # what is sent -> what the name shown may be built from
    "not UTF-8": b"\xff\xfe bad \xc3(.sqlite",
    "a lone continuation byte and an overlong NUL": b"a\x80b\xc0\x80c.sqlite",
    "a surrogate encoded in UTF-8": b"x\xed\xa0\x80y.sqlite",
    "a 4-byte sequence past U+10FFFF": b"p\xf4\x90\x80\x80q.sqlite",
    "300 bytes of 3-byte characters, cut inside one": ("a" + "漢" * 100 + ".sqlite").encode(),
    "300 bytes of 2-byte characters, cut inside one": ("é" * 150 + ".sqlite").encode(),
    "a 4-byte character cut at 255": ("ab" + "😀" * 70 + ".sqlite").encode(),
    "control characters and markup": b"a\x01b\x1b[31m<script>\"q\"\\.sqlite",
    "a path": b"../../../etc/\xff/passwd.sqlite",
}


def strict_json(what, data):
    """The parsed JSON, or None with the failure recorded."""
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        near = data[max(0, e.start - 20):e.end + 20]
        checks.expect(False, f"{what}: not UTF-8: {e} near {near!r}")
        return None
    try:
        return json.loads(text)
    except ValueError as e:
        checks.expect(False, f"{what}: not JSON: {e}")
        return None


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def valid_strings(what, value):
    """No lone surrogates from \\ud800-style escapes: every string encodes."""
    for s in strings(value):
        try:
            s.encode("utf-8", errors="strict")
        except UnicodeEncodeError:
            checks.expect(False, f"{what}: a string with a lone surrogate: {s!r}")
            return


def check_name(what, name, sent):
    if name is None:  # the JSON could not be read: recorded already
        return
    if not checks.expect(isinstance(name, str), f"{what}: a name: {name!r}"):
        return
    encoded = name.encode("utf-8", errors="surrogatepass")
    checks.expect(len(encoded) <= 255, f"{what}: name at most 255 bytes: {len(encoded)}")
    checks.expect(name.strip(), f"{what}: a name is shown: {name!r}")
    if any(c.encode() in sent for c in ("漢", "é", "😀")):  # long, valid: its beginning kept
        kept = name.rstrip("\ufffd")
        full = sent.decode()
        checks.expect(full.startswith(kept) and len(kept.encode()) >= 240,
                      f"{what}: the name kept is the beginning of the one sent "
                      f"({len(kept.encode())} bytes): {name!r}")
    elif any(b in sent.rsplit(b"/", 1)[-1] for b in (b"\xff", b"\x80", b"\xed", b"\xf4")):
        checks.expect("\ufffd" in name, f"{what}: invalid bytes shown as U+FFFD: {name!r}")
        # the valid parts stay
        for piece in (b" bad ", b"passwd", b"y.sqlite", b"q.sqlite", b"c.sqlite"):
            if piece in sent:
                checks.expect(piece.decode() in name, f"{what}: {piece!r} kept in {name!r}")


def check_everything(after):
    status, _, data = srv.request("GET", "/api/reports")
    listed = strict_json(f"GET /api/reports {after}", data)
    checks.expect(status == 200, f"GET /api/reports {after}: {status}")
    if listed is None:  # each report alone, still
        by_id = {rid: {} for rid in srv.report_dirs()}
    else:
        valid_strings(f"GET /api/reports {after}", listed)
        by_id = {r.get("id"): r for r in listed.get("reports", [])}
    labels = {rid: f"{what} ({kind})" for (what, kind), rid in uploads.items()}
    for rid in list(by_id):
        label = f"GET /api/reports/{rid} [{labels.get(rid, 'keeper')}] {after}"
        status, _, data = srv.request("GET", f"/api/reports/{rid}")
        one = strict_json(label, data)
        checks.expect(status == 200, f"{label}: {status}")
        if one is not None:
            valid_strings(label, one)
            by_id[rid] = dict(by_id[rid], detail=one)
            for key in ("name", "state", "error"):  # when the list could not be read
                if key not in by_id[rid] and key in one:
                    by_id[rid][key] = one[key]
    return by_id


# Each name twice: a report that converts and one that fails (its error
# names the file). The list is read while they are queued and converting.
uploads = {}
stop = threading.Event()
during = []


def poll_while_converting():
    while not stop.is_set():
        for what, data in (("list", srv.request("GET", "/api/reports")[2]),):
            try:
                json.loads(data.decode("utf-8", errors="strict"))
            except (UnicodeDecodeError, ValueError) as e:
                during.append(f"{what}: {e}")
        for rid in list(uploads.values()):
            data = srv.request("GET", f"/api/reports/{rid}")[2]
            try:
                json.loads(data.decode("utf-8", errors="strict"))
            except (UnicodeDecodeError, ValueError) as e:
                during.append(f"report {rid}: {e}: {data[:100]!r}")
        stop.wait(0.02)


poller = threading.Thread(target=poll_while_converting)
poller.start()
try:
    for what, sent in NAMES.items():
        for kind, content in (("converted", CONTENT), ("failed", b"not a report\n" * 100)):
            status, reply = srv.upload(sent, content)
            if checks.expect(status == 201 and reply.get("id"),
                             f"upload named {what} ({kind}): {status} {reply}"):
                uploads[(what, kind)] = reply["id"]
            else:
                checks.expect(status is not None and status < 500,
                              f"upload named {what}: no 5xx: {status}")
    # Option values that are not UTF-8: refused, or shown as valid JSON.
    for field, value in (("nvtx_domains", b"dom\xff\xfeain"), ("nvtx_filter", b"a\xc3(b"),
                         ("time_range", b"1s:\xff"), ("sources", b"kernel,\xe6\xbc")):
        status, reply = srv.upload("options.sqlite", CONTENT, {field: value})
        checks.expect(status in (201, 400), f"{field} not UTF-8: 201 or 400, got {status} {reply}")
        if status == 201:
            uploads[(f"{field} not UTF-8", "options")] = reply["id"]
    # Finished when result.json is there (the JSON served may not parse).
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not all(
            os.path.exists(os.path.join(srv.reports, rid, "result.json"))
            for rid in uploads.values()):
        time.sleep(0.1)
finally:
    stop.set()
    poller.join()
checks.expect(not during, f"valid UTF-8 JSON while queued and converting: {during[:3]}")

by_id = check_everything("after conversion")
for (what, kind), rid in uploads.items():
    entry = by_id.get(rid)
    if not checks.expect(entry is not None, f"{what} ({kind}) listed"):
        continue
    detail = entry.get("detail") or {}
    if "state" not in entry:  # neither the list nor the report could be read: recorded
        continue
    if kind in ("converted", "failed"):
        want = "done" if kind == "converted" else "failed"
        checks.expect(entry.get("state") == want, f"{what} ({kind}): state {entry.get('state')} "
                                                  f"{entry.get('error', '')!r}")
        check_name(f"{what} ({kind}), in the list", entry.get("name"), NAMES[what])
        check_name(f"{what} ({kind}), alone", detail.get("name"), NAMES[what])
        if kind == "failed":
            checks.expect("\n" not in (entry.get("error") or ""), f"{what}: one-line error")
    if entry.get("state") == "done":
        status, resp, data = srv.request("GET", f"/api/reports/{rid}/trace")
        disposition = resp.getheader("Content-Disposition", "")
        checks.expect(status == 200 and data[:2] == b"\x1f\x8b", f"{what}: trace downloads")
        checks.expect(disposition.isascii() and "\r" not in disposition and
                      "/" not in disposition.split("filename=", 1)[-1],
                      f"{what}: Content-Disposition is plain ASCII: {disposition!r}")

# Nothing named by the client was made anywhere.
found = [os.path.join(p, f) for p, ds, fs in os.walk(WORK) for f in fs + ds
         if f in ("passwd.sqlite", "passwd") or f.startswith(("..", "\udcff"))]
checks.expect(not found, f"no file made under a client's name: {found}")
srv.healthy(checks, "names that are not UTF-8")
checks.expect(srv.stop() == 0, f"Ctrl-C: exit {srv.proc.returncode}")
# The names survive a restart the same way.
srv2 = start_or_fail(checks, BIN, BOX)
if srv2:
    srv = srv2
    check_everything("after a restart")
    checks.expect(srv2.stop() == 0, f"Ctrl-C after the restart: exit {srv2.proc.returncode}")
checks.finish()
