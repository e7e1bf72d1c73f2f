#!/usr/bin/env python3
"""serve attack G: racing requests never get a 5xx. Two and ten concurrent
DELETEs of one finished report: exactly one 200, the others 404. GET trace,
GET report and DELETE at once: each 200 or 404, and a 200 trace is the whole
trace. GET /api/reports while reports are deleted: always 200 with valid
JSON. DELETEs of a report still converting: 200, 404 or 409, at most one
200, and the report ends either removed or finished, never half-removed.
Then the server answers and the other reports are intact.
  check_serve_races.py NSYS_PERFETTO NSYS_FIXTURE WORKDIR"""
import http.client
import json
import os
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import Checks, fresh_dir, make_fixture, start_or_fail  # noqa: E402

BIN, FIXTURE, WORK = map(os.path.abspath, sys.argv[1:4])
checks = Checks("serve_racing_requests_never_5xx")
fresh_dir(WORK)
BOX = fresh_dir(os.path.join(WORK, "box"))
REPORT = make_fixture(FIXTURE, os.path.join(WORK, "report.sqlite"), seed=15, events=300)
BIG = make_fixture(FIXTURE, os.path.join(WORK, "big.sqlite"), seed=16, events=200000)
with open(REPORT, "rb") as f:
    CONTENT = f.read()

srv = start_or_fail(checks, BIN, BOX, ["--workers", "2"])
if not srv:
    checks.finish()
srv.add_keeper(REPORT, checks, "keeper.sqlite")


def done_report():
    """A finished report; (id, its trace)."""
    status, reply = srv.upload("racer.sqlite", CONTENT)
    if not checks.expect(status == 201, f"upload: {status} {reply}"):
        return None, b""
    rid = reply["id"]
    d = srv.wait_done(rid, 60)
    checks.expect(d.get("state") == "done", f"converted: {d.get('state')}")
    with open(os.path.join(srv.reports, rid, "trace.perfetto-trace"), "rb") as f:
        return rid, f.read()


def race(requests):
    """Sends the requests at once (connections opened first); per request
    (status or the exception, body)."""
    barrier = threading.Barrier(len(requests))
    out = [None] * len(requests)

    def one(i, method, path):
        conn = http.client.HTTPConnection(srv.host, srv.port, timeout=60)
        try:
            conn.connect()
            barrier.wait(10)
            conn.request(method, path)
            r = conn.getresponse()
            out[i] = (r.status, r.read())
        except (OSError, http.client.HTTPException, threading.BrokenBarrierError) as e:
            out[i] = (repr(e), b"")
        finally:
            conn.close()

    threads = [threading.Thread(target=one, args=(i, m, p)) for i, (m, p) in enumerate(requests)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def no_5xx(what, results):
    bad = [(s, b[:80]) for s, b in results if not isinstance(s, int) or s >= 500]
    checks.expect(not bad, f"{what}: no 5xx and no dropped request: {bad}")


def valid_json(body):
    try:
        json.loads(body.decode("utf-8"))
        return True
    except (UnicodeDecodeError, ValueError):
        return False


# Two and ten DELETEs at once: one 200, the others 404.
for n, rounds in ((2, 4), (10, 5)):
    for _ in range(rounds):
        rid, _ = done_report()
        if not rid:
            continue
        results = race([("DELETE", f"/api/reports/{rid}")] * n)
        codes = sorted(s if isinstance(s, int) else -1 for s, _ in results)
        no_5xx(f"{n} DELETEs at once", results)
        checks.expect(codes == [200] + [404] * (n - 1),
                      f"{n} DELETEs at once: one 200 and {n - 1} 404, got {codes} "
                      f"{[b[:60] for s, b in results if s != 200 and s != 404]}")
        checks.expect(all(valid_json(b) for s, b in results if isinstance(s, int)),
                      f"{n} DELETEs at once: JSON answers")
        checks.expect(not os.path.exists(os.path.join(srv.reports, rid)),
                      f"{n} DELETEs at once: the report is removed")
srv.healthy(checks, "concurrent DELETEs")

# GET trace, GET report and DELETE at once.
for _ in range(6):
    rid, trace = done_report()
    if not rid:
        continue
    requests = ([("GET", f"/api/reports/{rid}/trace")] * 4 + [("GET", f"/api/reports/{rid}")] * 2
                + [("DELETE", f"/api/reports/{rid}")] * 2)
    results = race(requests)
    no_5xx("GET trace, GET report and DELETE at once", results)
    for (method, path), (status, body) in zip(requests, results):
        checks.expect(status in (200, 404), f"{method} {path} racing a DELETE: {status}")
        if path.endswith("/trace") and status == 200:
            checks.expect(body == trace, f"a trace read while deleted is whole: {len(body)} of "
                                         f"{len(trace)} bytes")
        elif status in (200, 404):
            checks.expect(valid_json(body), f"{method} {path} racing a DELETE: JSON {body[:80]!r}")
    deletes = sorted(s for (m, _), (s, _) in zip(requests, results) if m == "DELETE")
    checks.expect(deletes == [200, 404], f"two DELETEs racing GETs: one 200, one 404: {deletes}")
srv.healthy(checks, "GETs racing DELETEs")

# The list, read over and over while reports are deleted.
rids = [done_report()[0] for _ in range(6)]
rids = [r for r in rids if r]
stop = threading.Event()
listings, list_bad = [0], []


def read_list():
    while not stop.is_set():
        try:
            status, _, body = srv.request("GET", "/api/reports")
        except (OSError, http.client.HTTPException) as e:
            list_bad.append(repr(e))
            continue
        listings[0] += 1
        if status != 200 or not valid_json(body):
            list_bad.append((status, body[:120]))
        else:
            states = {r["id"]: r.get("state") for r in json.loads(body)["reports"]}
            odd = {i: s for i, s in states.items() if s not in ("queued", "exporting", "converting",
                                                                 "summarizing", "done", "failed")}
            if odd and not set(odd) <= set(rids):
                list_bad.append(("a state that is none of the API's", odd))


readers = [threading.Thread(target=read_list) for _ in range(4)]
for t in readers:
    t.start()
for rid in rids:
    results = race([("DELETE", f"/api/reports/{rid}")] * 3 + [("GET", f"/api/reports/{rid}")] * 2)
    no_5xx("DELETEs while the list is read", results)
    time.sleep(0.05)
time.sleep(0.3)
stop.set()
for t in readers:
    t.join()
checks.expect(not list_bad, f"GET /api/reports while deleting: always 200 and JSON "
                            f"({listings[0]} reads): {list_bad[:3]}")
srv.healthy(checks, "reading the list while deleting")

# DELETEs of a report still converting (a big one): 200, 404 or 409, at
# most one 200; it ends removed, or finished and listed, never half-way.
for _ in range(2):
    with open(BIG, "rb") as f:
        status, reply = srv.upload("converting.sqlite", f.read())
    if not checks.expect(status == 201, f"big upload: {status} {reply}"):
        continue
    rid = reply["id"]
    results = race([("DELETE", f"/api/reports/{rid}")] * 10)
    no_5xx("DELETEs of a report being converted", results)
    codes = [s for s, _ in results]
    checks.expect(all(c in (200, 404, 409) for c in codes) and codes.count(200) <= 1,
                  f"DELETEs of a report being converted: 200/404/409, at most one 200: {codes}")
    end = time.monotonic() + 60
    while time.monotonic() < end:
        status, d = srv.get_json(f"/api/reports/{rid}")
        if status == 404 or (d and d.get("state") in ("done", "failed")):
            break
        time.sleep(0.1)
    time.sleep(0.5)
    on_disk = os.path.exists(os.path.join(srv.reports, rid))
    status, listed = srv.get_json("/api/reports")
    entry = next((r for r in (listed or {}).get("reports", []) if r["id"] == rid), None)
    if 200 in codes:
        checks.expect(not on_disk and entry is None,
                      f"a report deleted while converting is gone: on disk {on_disk}, "
                      f"listed {entry}")
    else:
        checks.expect(on_disk and entry and entry.get("state") == "done",
                      f"a report whose DELETEs were refused is finished and listed: {entry}")
        status, _ = srv.get_json(f"/api/reports/{rid}")
        result = race([("DELETE", f"/api/reports/{rid}")] * 3)
        checks.expect(sorted(s for s, _ in result) == [200, 404, 404],
                      f"then deleted: {[s for s, _ in result]}")
srv.healthy(checks, "DELETEs of reports being converted")
checks.expect(not srv.unfinished(), f"no unfinished report left: {srv.unfinished()}")
checks.expect(srv.report_dirs() == set(srv.keepers),
              f"only the keeper is left: {sorted(srv.report_dirs())}")
checks.expect(srv.stop() == 0, f"Ctrl-C: exit {srv.proc.returncode}")
checks.finish()
