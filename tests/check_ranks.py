#!/usr/bin/env python3
"""nsys-perfetto ranks (issue 32).

  corpus  real multi-rank data: the three per-rank reports of one MPI job
          (gpubootcamp mpi report1, report2, report4) and the PyTorch report
          with two ranks on two GPUs (GindaChen mfu_2gpu_before): one row per
          rank, every figure equal to the same figure worked out here in SQL and
          Python (unions of the process's kernels, NCCL kernels, copies and
          sets; the step's instances on its busiest thread); the JSON is valid
          and holds ranks and stragglers; the heatmaps are SVG that renders.
  job     generated jobs (nsys-fixture --job) of 8 to 512 ranks with a planted
          straggler, several seeds: the planted rank is the first straggler;
          without one, no rank is last at most collectives by far.

  partials  --from-partials refuses hostile partial files in one line (exit 4): cut short,
          counts of 2^28, bins unlike the window's, times past 2^62, NaN, a backwards
          window, a name index out of range; a good one folds.
          --trace of 512 ranks imports in trace_processor with no error, one group per
          rank (job mode's extra arguments: pftrace-check and trace_processor_shell).
  once    a report counts once however it is named (issue 42): a link to a rank's report
          in the job's directory, a report given again beside its directory, the same
          report twice (ranks, and the converter's Kineto ranks); stderr says which was
          dropped; --list-reports prints what a run reads (--null: names with newlines).

  outputs  no output (--trace, --heatmaps, the full traces beside the reports, standard
          output, the converter's Kineto files) replaces an input or another output, however
          named (another spelling, a symlink, a hard link): exit 6, one line, nothing written.
  stdout  ranks (table, JSON, --window-of, --partial, --from-partials), summary and diff
          on a full disk (/dev/full): exit 6, one line.
  conversion_status  --trace keeps the conversion's own exit status: 4 for a report whose
          rows the conversion finds corrupt, 7 for an interrupt during a conversion.
  heatmaps  the SVGs are valid XML whatever the step's name holds (U+FFFE, U+FFFF,
          controls), --bins 20000 of 64 ranks stays small (capped, said on stderr),
          a PREFIX too long for a file name is refused, legends in plain units.

  hostile   (issue 42) a 4-rank job (straggler 2) bent as real jobs bend it: a helper
          process with one copy in rank 0's report is no rank (the file-name rule holds,
          every collective is matched, the helper named); two processes in one report go
          by device, then pid; a rank lacking a collective is named; reports without a UTC
          session start are named and aligned (idle time stays the job's, no overflow),
          steps at the int64 limits clamped, a --window past 2^62 refused; rank 0's own
          most repeated range ("log") does not change the job's step, which is the same
          at every thread count, and partials with another step are refused; overlapping
          steps (start/end ranges) get lanes in the overview trace, their durations kept.

  check_ranks.py MODE NSYS_PERFETTO NSYS_FIXTURE WORKDIR [CORPUS.sqlite.gz... | TOOLS...]"""
import gzip
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

MODE, BIN, FIXTURE, WORK = sys.argv[1], *map(os.path.abspath, sys.argv[2:5])
CORPUS = sys.argv[5:]
from testlib import expect, failures  # noqa: E402


def ranks_json(*args):
    r = subprocess.run([BIN, "ranks", "--format", "json", *args], capture_output=True, text=True)
    if not expect(r.returncode == 0, f"ranks {args}: exit {r.returncode} {r.stderr[-300:]}"):
        return None
    return json.loads(r.stdout)


def union(intervals):
    """Total length of the union of [s, e] intervals (touching ones join)."""
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + (cur_e - cur_s if cur_e is not None else 0)


def nearest_rank(sorted_values, p):
    n = len(sorted_values)
    k = max(1, min(n, -(-p * n // 100)))
    return sorted_values[k - 1]


def expected_figures(path, step):
    """{pid: figures} worked out from the report's SQL."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    work = {}
    for gpid, s, e, name in db.execute(
            'SELECT k.globalPid, k.start, k."end", n.value FROM CUPTI_ACTIVITY_KIND_KERNEL AS k '
            'LEFT JOIN StringIds AS n ON n.id = k.shortName WHERE k."end" >= k.start'):
        kind = "comm" if name and name.startswith("nccl") else "compute"
        work.setdefault(gpid >> 24 & 0xFFFFFF, []).append((kind, s, e))
    for table in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
        if table in tables:
            for gpid, s, e in db.execute(f'SELECT globalPid, start, "end" FROM {table} '
                                         'WHERE "end" >= start'):
                work.setdefault(gpid >> 24 & 0xFFFFFF, []).append(("memory", s, e))
    steps = {}
    if step:
        for tid, s, e in db.execute(
                'SELECT e.globalTid, e.start, e."end" FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS '
                's ON s.id = e.textId WHERE e.eventType IN (59, 60, 70, 71) AND e."end" >= e.start'
                ' AND coalesce(e.text, s.value) = ?', (step,)):
            steps.setdefault(tid >> 24 & 0xFFFFFF, {}).setdefault(tid, []).append(e - s)
    out = {}
    for pid, ops in work.items():
        of = lambda *kinds: [(s, e) for k, s, e in ops if k in kinds]
        f = {"busy_ns": union(of("compute", "comm", "memory")),
             "compute_ns": union(of("compute")), "comm_ns": union(of("comm")),
             "memory_ns": union(of("memory"))}
        f["exposed_comm_ns"] = union(of("compute", "comm")) - f["compute_ns"]
        threads = steps.get(pid, {})
        best = max(threads.values(), key=len) if threads else []
        best = sorted(best)
        f["steps"] = len(best)
        f["step_p50_ns"] = nearest_rank(best, 50) if best else None
        f["step_p90_ns"] = nearest_rank(best, 90) if best else None
        f["step_max_ns"] = best[-1] if best else None
        out[pid] = f
    return out


def unpack(gz):
    out = os.path.join(WORK, os.path.basename(gz)[:-3])
    with gzip.open(gz) as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return out


def check_against_sql(what, reports, want_ranks):
    got = ranks_json(*reports)
    if not got:
        return
    expect(len(got["ranks"]) == want_ranks, f"{what}: {len(got['ranks'])} ranks, "
                                            f"expected {want_ranks}")
    expect(sorted(r["rank"] for r in got["ranks"]) == list(range(want_ranks)),
           f"{what}: ranks {[r['rank'] for r in got['ranks']]}")
    step = got["step"]["name"] if got["step"] else None
    want = {}
    for report in reports:
        for pid, f in expected_figures(report, step).items():
            want[(report, pid)] = f
    for r in got["ranks"]:
        f = want.get((r["report"], r["pid"]))
        if not expect(f is not None, f"{what}: rank {r['rank']} (pid {r['pid']}) not expected"):
            continue
        for key, value in f.items():
            expect(r[key] == value, f"{what}: rank {r['rank']} {key} = {r[key]}, SQL says {value}")
    print(f"{what}: {len(got['ranks'])} ranks, rule {got['rank_rule']}, step {step!r}, "
          f"{got['matched']['count']} {got['matched']['what']} matched")
    return got


def heatmaps_render(reports):
    prefix = os.path.join(WORK, "heat")
    r = subprocess.run([BIN, "ranks", "--heatmaps", prefix, *reports], capture_output=True)
    expect(r.returncode == 0, f"--heatmaps: exit {r.returncode}")
    for kind in ("utilization", "steps"):
        path = f"{prefix}-{kind}.svg"
        try:
            root = ET.parse(path).getroot()
            texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
            expect("rank" in texts and ("time" in texts or "step" in texts),
                   f"{kind} heatmap: axis labels missing ({texts[:120]})")
            expect(len(list(root.iter("{http://www.w3.org/2000/svg}rect"))) > 10,
                   f"{kind} heatmap: no cells")
        except (OSError, ET.ParseError) as e:
            expect(False, f"{kind} heatmap: {e}")
        if shutil.which("rsvg-convert"):
            r = subprocess.run(["rsvg-convert", path, "-o", path + ".png"], capture_output=True)
            expect(r.returncode == 0, f"{kind} heatmap does not render: {r.stderr[-200:]}")


def mode_corpus():
    present = [g for g in CORPUS if os.path.exists(g)]
    if not present:
        print("skip: corpus absent")
        sys.exit(77)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    reports = [unpack(g) for g in present]
    mpi = [r for r in reports if "mpi__reports__report" in r]
    torch = [r for r in reports if "GindaChen" in r]
    if mpi:
        got = check_against_sql("MPI job", mpi, len(mpi))
        if got:
            expect(got["rank_rule"] == "order", f"MPI job: rule {got['rank_rule']}")
            expect([r["report"] for r in sorted(got["ranks"], key=lambda r: r["rank"])] == mpi,
                   "MPI job: ranks not in the reports' order")
        heatmaps_render(mpi)
    for report in torch:
        got = check_against_sql("PyTorch, two ranks in one report", [report], 2)
        if got:
            devices = sorted(r["devices"][0] for r in got["ranks"])
            expect(devices == [0, 1], f"PyTorch: devices {devices}")
            expect(got["matched"]["what"] == "collectives" and got["matched"]["count"] > 0,
                   f"PyTorch: collectives matched {got['matched']}")
            expect(all(r["comm_ns"] > 0 for r in got["ranks"]), "PyTorch: no NCCL time")


def mode_job():
    cases = [(8, 1, 3), (8, 2, 0), (64, 3, 41), (64, 4, 7), (512, 5, 300)]
    # Under a sanitizer (NSYSP_SANITIZED), several times slower, up to 64 ranks: the
    # readers' pool and the matching are the same code at 512.
    sanitized = bool(os.environ.get("NSYSP_SANITIZED"))
    if sanitized:
        cases = cases[:-1]
    for n, seed, straggler in cases:
        d = os.path.join(WORK, f"job{n}-{seed}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        r = subprocess.run([FIXTURE, "--job", str(n), "--seed", str(seed), "--straggler",
                            str(straggler), d], capture_output=True, text=True)
        if not expect(r.returncode == 0, f"nsys-fixture --job {n}: {r.stderr[-300:]}"):
            continue
        got = ranks_json(d)
        if not got:
            continue
        expect(len(got["ranks"]) == n and got["rank_rule"] == "file_name",
               f"job {n}: {len(got['ranks'])} ranks by {got['rank_rule']}")
        first = got["stragglers"][0]["rank"] if got["stragglers"] else None
        expect(first == straggler, f"job of {n} ranks, seed {seed}: first straggler {first}, "
                                   f"planted {straggler}")
        print(f"job of {n} ranks, seed {seed}: straggler {first} first "
              f"(last at {got['stragglers'][0]['last_count']} of {got['matched']['count']})")
    # MPI_RANKS numbers the ranks when the names hold none.
    d = os.path.join(WORK, "job-mpi")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    r = subprocess.run([FIXTURE, "--job", "16", "--seed", "9", "--straggler", "11", "--job-mpi",
                        d], capture_output=True, text=True)
    if expect(r.returncode == 0, f"nsys-fixture --job-mpi: {r.stderr[-300:]}"):
        got = ranks_json(d)
        if got:
            expect(got["rank_rule"] == "mpi" and len(got["ranks"]) == 16,
                   f"--job-mpi: {len(got['ranks'])} ranks by {got['rank_rule']}")
            expect(got["stragglers"] and got["stragglers"][0]["rank"] == 11,
                   f"--job-mpi: first straggler {got['stragglers'][:1]}, planted 11")
    n, seed, _ = cases[-1]  # the biggest job
    overview(os.path.join(WORK, f"job{n}-{seed}"), n)


def overview(job_dir, n):
    """--trace of a job: imports with no error (pftrace-check, trace_processor), one group
    per rank with its utilization counter, steps and collectives."""
    tools = [t for t in CORPUS if os.path.exists(t)]
    if not os.path.isdir(job_dir) or len(tools) < 2:
        print("overview trace: not checked (../shared/tools absent)")
        return
    check, tp = tools[:2]
    trace = os.path.join(WORK, "overview.perfetto-trace")
    r = subprocess.run([BIN, "ranks", "--trace", trace, "--no-convert", job_dir],
                       capture_output=True, text=True)
    if not expect(r.returncode == 0, f"--trace: exit {r.returncode} {r.stderr[-300:]}"):
        return
    r = subprocess.run([sys.executable, check, trace], capture_output=True, text=True)
    expect(r.returncode == 0, f"overview trace: pftrace-check: {r.stdout[-400:]}")
    sql = ("SELECT (SELECT count(*) FROM track WHERE name LIKE 'rank %'),"
           " (SELECT count(*) FROM counter_track WHERE name = 'GPU utilization'),"
           " (SELECT count(DISTINCT track_id) FROM slice WHERE name = 'step'),"
           " (SELECT count(*) FROM slice WHERE name LIKE 'nccl%'),"
           " (SELECT count(*) FROM stats WHERE severity IN ('error', 'data_loss') AND value > 0);")
    r = subprocess.run([tp, "-q", "/dev/stdin", trace], input=sql, capture_output=True, text=True)
    row = r.stdout.strip().splitlines()[-1].split(",") if r.returncode == 0 else []
    expect(row[:2] == [str(n), str(n)] and row[2] == str(n) and int(row[3]) > 0 and row[4] == "0",
           f"overview trace in trace_processor: {row} (ranks, counters, step tracks, "
           f"collectives, error stats)")
    print(f"overview trace of {n} ranks: {os.path.getsize(trace)} bytes")
    expect(not [f for f in os.listdir(job_dir) if f.endswith(".perfetto-trace")],
           "--trace --no-convert: full traces written beside the reports")
    # Without --no-convert, each report's full trace goes beside it (a small job).
    small = os.path.join(WORK, "job8-1")
    r = subprocess.run([BIN, "ranks", "--trace", os.path.join(WORK, "small.perfetto-trace"),
                        small], capture_output=True, text=True)
    beside = [f for f in os.listdir(small) if f.endswith(".perfetto-trace")]
    expect(r.returncode == 0 and len(beside) == 8,
           f"--trace: {len(beside)} full traces beside 8 reports (exit {r.returncode})")


def mode_partials():
    """ranks --from-partials reads files from other machines: hostile ones fail in one line
    (exit 4), never crash, never allocate what a count claims; a good one folds."""
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    job = os.path.join(WORK, "job")
    os.makedirs(job)
    subprocess.run([FIXTURE, "--job", "2", "--seed", "1", job], check=True, capture_output=True)
    report = os.path.join(job, "rank0.sqlite")
    r = subprocess.run([BIN, "ranks", "--window-of", report], capture_output=True, text=True)
    start, end = r.stdout.splitlines()[0].split()
    r = subprocess.run([BIN, "ranks", "--partial", "--window", f"{start}:{end}", "--bins", "5",
                        report], capture_output=True, text=True)
    good = r.stdout
    head = good.split("ranks ")[0]
    rank_line = next(l for l in good.splitlines() if l.startswith("rank "))
    counts = rank_line.split()
    cases = {
        "truncated": good[:len(good) // 2],
        "empty": "",
        "huge rank count": head + "ranks 268435456\nend\n",
        "huge name count": good.replace("names 2", "names 268435456", 1),
        "huge step count": good.replace(rank_line, " ".join(counts[:-3] + ["268435456"] +
                                                            counts[-2:]), 1),
        "bins unlike the window's": good.replace(rank_line, " ".join(counts[:-2] + ["2"] +
                                                                     counts[-1:]), 1),
        "a time past 2^62": good.replace(rank_line, " ".join(counts[:4] + ["9223372036854775807"]
                                                             + counts[5:]), 1),
        "NaN utilization": good.replace("\nbins ", "\nbins nan ", 1),
        "window backwards": good.replace(f"window {start} {end}", f"window {end} {start}", 1),
        "name index out of range": good.replace("\ncoll 0 ", "\ncoll 99 ", 1),
    }
    for what, text in cases.items():
        path = os.path.join(WORK, "bad.part")
        with open(path, "w") as f:
            f.write(text)
        r = subprocess.run([BIN, "ranks", "--from-partials", "--heatmaps",
                            os.path.join(WORK, "h"), "--trace", os.path.join(WORK, "t.pftrace"),
                            path], capture_output=True, text=True, timeout=60)
        expect(r.returncode == 4 and len(r.stderr.strip().splitlines()) == 1 and
               "bad.part" in r.stderr, f"{what}: exit {r.returncode}, stderr {r.stderr[-200:]!r}")
    path = os.path.join(WORK, "good.part")
    with open(path, "w") as f:
        f.write(good)
    r = subprocess.run([BIN, "ranks", "--from-partials", "--format", "json", path],
                       capture_output=True, text=True)
    expect(r.returncode == 0 and json.loads(r.stdout)["ranks"][0]["report"] == report,
           f"a good partial: exit {r.returncode} {r.stderr[-200:]}")


def mode_once():
    """The same report under two names is one rank: no tie blamed on a copy, no
    lateness diluted, one Kineto rank file."""
    shutil.rmtree(WORK, ignore_errors=True)
    job = os.path.join(WORK, "job")
    os.makedirs(job)
    subprocess.run([FIXTURE, "--job", "4", "--seed", "2", "--straggler", "2", job], check=True,
                   capture_output=True)

    def ranks(*args):
        return subprocess.run([BIN, "ranks", *args], capture_output=True, text=True, cwd=WORK)

    alone = ranks("--format", "json", "job")
    expect(alone.returncode == 0 and len(json.loads(alone.stdout)["ranks"]) == 4,
           f"a job of 4 reports: exit {alone.returncode} {alone.stderr[-200:]}")
    os.symlink("rank0.sqlite", os.path.join(job, "zz-link.sqlite"))
    os.link(os.path.join(job, "rank3.sqlite"), os.path.join(job, "zz-hard.sqlite"))
    for args, dropped in [(["job"], ["job/zz-hard.sqlite", "job/zz-link.sqlite"]),
                          (["job", "job/rank2.sqlite"], ["job/rank2.sqlite"]),
                          (["job/", "job"], ["job/rank0.sqlite"])]:
        r = ranks("--format", "json", *args)
        what = "ranks " + " ".join(args)
        expect(r.returncode == 0 and r.stdout.replace("job//", "job/") == alone.stdout,
               f"{what}: not the job's 4 ranks (exit {r.returncode} {r.stderr[-300:]})")
        notes = [l for l in r.stderr.splitlines() if "counted once" in l]
        expect(all(any(d + ":" in n for n in notes) for d in dropped),
               f"{what}: stderr does not name each report dropped ({dropped}): {notes}")
    r = ranks("--format", "json", "job/rank1.sqlite", "job/rank1.sqlite")
    expect(r.returncode == 0 and len(json.loads(r.stdout)["ranks"]) == 1 and
           "job/rank1.sqlite: given twice: counted once" in r.stderr,
           f"a report given twice: exit {r.returncode} {r.stdout[:200]} {r.stderr[-200:]}")
    r = ranks("--list-reports", "job", "job/rank1.sqlite")
    expect(r.returncode == 0 and r.stdout.splitlines() ==
           [f"job/rank{k}.sqlite" for k in range(4)],
           f"--list-reports job: exit {r.returncode} {r.stdout!r} {r.stderr[-200:]}")
    names = os.path.join(WORK, "names")
    os.makedirs(names)
    for name in ["r10.sqlite", "r9\nb.sqlite", "r10.nsys-rep", "notes.txt"]:
        shutil.copy(os.path.join(job, "rank1.sqlite"), os.path.join(names, name))
    r = ranks("--list-reports", "--null", "names")
    expect(r.returncode == 0 and r.stdout == "names/r9\nb.sqlite\0names/r10.sqlite\0",
           f"--list-reports --null names: exit {r.returncode} {r.stdout!r} {r.stderr[-200:]}")
    # The converter's ranks: one Kineto file per rank, not per name.
    kineto = os.path.join(WORK, "kineto")
    os.makedirs(kineto)
    shutil.copy(os.path.join(job, "rank1.sqlite"), os.path.join(kineto, "a.sqlite"))
    r = subprocess.run([BIN, "--format", "kineto", "a.sqlite", "a.sqlite"], cwd=kineto,
                       capture_output=True, text=True, timeout=120)
    written = sorted(f for f in os.listdir(kineto) if ".json" in f)
    expect(r.returncode == 0 and written == ["a.json.gz"],
           f"--format kineto a a: exit {r.returncode}, wrote {written} {r.stderr[-200:]}")


def fresh_job(name, *options, ranks=4):
    """A new job of ranks ranks (rank 2 the straggler, where there is one) in WORK/name."""
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    straggler = ["--straggler", "2"] if ranks > 2 else []
    r = subprocess.run([FIXTURE, "--job", str(ranks), *straggler, *options, d],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"nsys-fixture --job: {r.stderr[-300:]}")
    return d


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def refused(what, args, names, stdout=subprocess.DEVNULL, code=6):
    """ranks ARGS exits code with one line on stderr naming names."""
    r = subprocess.run([BIN, *args], stdout=stdout, stderr=subprocess.PIPE, text=True)
    lines = r.stderr.strip().splitlines()
    expect(r.returncode == code and len(lines) == 1 and all(n in r.stderr for n in names),
           f"{what}: exit {r.returncode} (expected {code}), stderr {r.stderr[-300:]!r}")


def mode_outputs():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    job = fresh_job("job")
    reports = sorted(os.path.join(job, f) for f in os.listdir(job) if f.endswith(".sqlite"))
    before = {p: digest(p) for p in reports}
    rank0, rank1, rank3 = reports[0], reports[1], reports[3]

    def nothing_written(what):
        for p in reports:
            expect(digest(p) == before[p], f"{what}: {p} changed")
        extra = [f for f in os.listdir(job) if not f.endswith((".sqlite", ".json"))]
        expect(not extra, f"{what}: wrote {extra}")

    refused("--no-convert --trace REPORT", ["ranks", "--no-convert", "--trace", rank0, job],
            [rank0])
    nothing_written("--trace REPORT")
    trace0 = os.path.join(job, "rank0.perfetto-trace")
    refused("--trace onto rank 0's full trace", ["ranks", "--trace", trace0, job], [rank0])
    nothing_written("--trace onto a full trace")
    spelled = os.path.join(job, "..", os.path.basename(job), "rank1.sqlite")
    refused("--trace REPORT spelled otherwise", ["ranks", "--no-convert", "--trace", spelled,
                                                 job], [rank1])
    link = os.path.join(WORK, "hard-link.sqlite")
    os.link(rank1, link)
    refused("--trace a hard link of a report", ["ranks", "--no-convert", "--trace", link, job],
            [rank1])
    sym = os.path.join(WORK, "sym")
    os.symlink(rank3, sym + "-steps.svg")
    refused("--heatmaps onto a symlink to a report", ["ranks", "--heatmaps", sym, job], [rank3])
    nothing_written("--heatmaps onto a report")
    expect(not os.path.exists(sym + "-utilization.svg"), "--heatmaps: wrote one of two")
    heat = os.path.join(WORK, "h")
    refused("--trace onto a heatmap", ["ranks", "--trace", heat + "-steps.svg", "--heatmaps",
                                       heat, job], ["h-steps.svg"])
    with open(rank0, "ab") as out:  # ranks JOB >> rank0.sqlite
        refused("standard output appended to a report", ["ranks", job], [rank0], stdout=out)
    nothing_written("standard output onto a report")
    # The converter's Kineto JSON and trace: a hard link of the input is the input.
    kineto = os.path.join(WORK, "hard-link.json")
    os.link(rank0, kineto)
    refused("converter --format kineto onto the input", ["--format", "kineto", "-o", kineto,
                                                         rank0], [kineto], code=6)
    nothing_written("converter onto the input")
    # Partials are inputs too.
    part = os.path.join(WORK, "p.part")
    with open(part, "w") as f:
        r = subprocess.run([BIN, "ranks", "--window-of", rank0], capture_output=True, text=True)
        window = r.stdout.strip().replace(" ", ":")
        subprocess.run([BIN, "ranks", "--partial", "--window", window, rank0], stdout=f)
    part_digest = digest(part)
    refused("--from-partials --trace PARTIAL", ["ranks", "--from-partials", "--trace", part,
                                               part], [part])
    expect(digest(part) == part_digest, "--from-partials --trace PARTIAL: the partial changed")
    # What is allowed still works: outputs of their own, full traces beside.
    r = subprocess.run([BIN, "ranks", "--trace", os.path.join(WORK, "job.perfetto-trace"),
                        "--heatmaps", heat, job], capture_output=True, text=True)
    beside = [f for f in os.listdir(job) if f.endswith(".perfetto-trace")]
    expect(r.returncode == 0 and len(beside) == 4,
           f"ranks --trace --heatmaps: exit {r.returncode}, {len(beside)} full traces, "
           f"{r.stderr[-300:]!r}")


def mode_stdout():
    if not os.path.exists("/dev/full"):
        print("skip: no /dev/full")
        sys.exit(77)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    job = fresh_job("job")
    rank0 = os.path.join(job, "rank0.sqlite")
    survey = os.path.join(WORK, "rank0.survey")
    with open(survey, "w") as f:
        subprocess.run([BIN, "ranks", "--window-of", rank0], stdout=f)
    plan = subprocess.run([BIN, "ranks", "--plan", survey], capture_output=True,
                          text=True).stdout.split("\n")[:-1]
    part = os.path.join(WORK, "rank0.part")
    with open(part, "w") as f:
        subprocess.run([BIN, "ranks", "--partial", *plan, rank0], stdout=f)
    cases = {"ranks": ["ranks", job], "ranks --format json": ["ranks", "--format", "json", job],
             "ranks --window-of": ["ranks", "--window-of", rank0],
             "ranks --partial": ["ranks", "--partial", *plan, rank0],
             "ranks --from-partials": ["ranks", "--from-partials", part],
             "summary": ["summary", rank0],
             "diff": ["diff", rank0, os.path.join(job, "rank1.sqlite")]}
    with open("/dev/full", "w") as full:
        for what, args in cases.items():
            refused(f"{what} > /dev/full", args, ["standard output"] if what != "diff" else [],
                    stdout=full)


def mode_conversion_status():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    # A report ranks reads whole, whose runtime API rows (read by the conversion only)
    # are corrupt: the conversion's exit 4, not 6.
    job = fresh_job("corrupt")
    rank1 = os.path.join(job, "rank1.sqlite")
    db = sqlite3.connect(rank1)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = "
                      "'CUPTI_ACTIVITY_KIND_RUNTIME'").fetchone()[0]
    db.close()
    with open(rank1, "r+b") as f:
        f.seek((root - 1) * page_size)
        f.write(b"\xff" * page_size)
    r = subprocess.run([BIN, "ranks", "--format", "json", job], capture_output=True)
    expect(r.returncode == 0, f"the corrupt runtime rows stop ranks itself: {r.returncode}")
    refused("--trace, a corrupt report", ["ranks", "--trace", os.path.join(WORK, "o.pftrace"),
                                          job], ["rank1.sqlite", "corrupt"], code=4)
    # An interrupt while a report converts: 7, not 6, and nothing left behind.
    job = fresh_job("long", "--steps", "20", "--kernels-per-step", "5000", ranks=1)
    overview = os.path.join(WORK, "long.pftrace")
    p = subprocess.Popen([BIN, "ranks", "--threads", "1", "--trace", overview, job],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while p.poll() is None and time.monotonic() < deadline and not any(
            f.startswith(".rank0.perfetto-trace.tmp") for f in os.listdir(job)):
        time.sleep(0.001)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate()
    expect(p.returncode == 7, f"--trace interrupted while converting: exit {p.returncode} "
                              f"{err[-300:]!r}")
    left = [f for f in os.listdir(job) if not f.endswith((".sqlite", ".json"))]
    expect(not left and not os.path.exists(overview), f"interrupted: left {left}")


def mode_heatmaps():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    job = fresh_job("hostile")
    for f in os.listdir(job):
        if f.endswith(".sqlite"):
            db = sqlite3.connect(os.path.join(job, f))
            db.execute("UPDATE NVTX_EVENTS SET text = ? WHERE text = 'step'",
                       ("step \ufffe\uffff\x01\x7f\t<&>\"",))
            db.commit()
            db.close()
    def parsed(path, what):
        try:
            return ET.parse(path).getroot()
        except (OSError, ET.ParseError) as e:
            expect(False, f"{what}: {path}: {e}")
        return None

    prefix = os.path.join(WORK, "hostile")
    r = subprocess.run([BIN, "ranks", "--heatmaps", prefix, job], capture_output=True, text=True)
    expect(r.returncode == 0, f"--heatmaps, a hostile step name: exit {r.returncode}")
    for kind in ("utilization", "steps"):
        root = parsed(f"{prefix}-{kind}.svg", "a hostile step name")
        if root is not None and kind == "steps":
            title = next(root.iter("{http://www.w3.org/2000/svg}text")).text
            expect("step" in title and "\ufffd" in title, f"steps heatmap title {title!r}")
        if shutil.which("rsvg-convert"):
            r = subprocess.run(["rsvg-convert", f"{prefix}-{kind}.svg", "-o", prefix + ".png"],
                               capture_output=True)
            expect(r.returncode == 0, f"{kind} heatmap does not render: {r.stderr[-200:]}")
    # 64 ranks at 20000 bins (90 MB of SVG uncapped): 400 columns, the cap said on stderr.
    big = fresh_job("big", "--steps", "10", ranks=64)
    prefix = os.path.join(WORK, "big")
    r = subprocess.run([BIN, "ranks", "--bins", "20000", "--heatmaps", prefix, big],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    expect(r.returncode == 0 and "20000 bins drawn in 400 columns" in r.stderr,
           f"--bins 20000: exit {r.returncode}, stderr {r.stderr[-300:]!r}")
    size = os.path.getsize(prefix + "-utilization.svg")
    expect(size < 3_000_000, f"--bins 20000 of 64 ranks: {size} bytes of SVG")
    root = parsed(prefix + "-utilization.svg", "--bins 20000")
    if root is not None:
        rects = len(list(root.iter("{http://www.w3.org/2000/svg}rect")))
        expect(64 * 400 <= rects <= 64 * 400 + 100, f"--bins 20000: {rects} cells")
    # A PREFIX whose file names do not fit PATH_MAX (4096), though every part of it
    # does: refused before anything is read or written, not cut short.
    dots = "/." * ((4085 - len(WORK)) // 2)
    refused("--heatmaps PREFIX too long", ["ranks", "--heatmaps", WORK + dots + "/cut", job],
            ["--heatmaps", "too long"])
    expect(not [f for f in os.listdir(WORK) if f.startswith("cut")],
           f"--heatmaps PREFIX too long: wrote {os.listdir(WORK)}")
    # Legends in plain units within the picture (steps of 55 ms, and of seconds).
    slow = fresh_job("slow", "--job-seconds", "40", "--steps", "10", ranks=2)
    for d, unit in ((job, "ms"), (slow, "s")):
        prefix = os.path.join(WORK, "legend")
        subprocess.run([BIN, "ranks", "--heatmaps", prefix, d], capture_output=True)
        root = parsed(prefix + "-steps.svg", "legend")
        if root is None:
            continue
        width = float(root.get("width"))
        texts = [(float(t.get("x")), t.text) for t in root.iter("{http://www.w3.org/2000/svg}text")
                 if t.get("x") and t.text and t.text[0].isdigit()]
        legend = [(x, t) for x, t in texts if x > 900]
        expect(len(legend) == 2 and all(t.endswith(" " + unit) and "e+" not in t and
                                        x + 7 * len(t) <= width for x, t in legend),
               f"steps legend {legend} (width {width}), expected plain {unit}")


def job_copy(name, seed=1):
    """A fresh 4-rank job (straggler 2) in WORK/name."""
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    subprocess.run([FIXTURE, "--job", "4", "--seed", str(seed), "--straggler", "2", d],
                   check=True, capture_output=True)
    return d


def edit(path, *statements):
    db = sqlite3.connect(path)
    for sql, *params in statements:
        db.execute(sql, *params)
    db.commit()
    db.close()


def ranks_run(*args):
    r = subprocess.run([BIN, "ranks", "--format", "json", *args], capture_output=True, text=True)
    expect(r.returncode == 0, f"ranks {args}: exit {r.returncode} {r.stderr[-300:]}")
    sanitizer = [l for l in r.stderr.splitlines() if "runtime error" in l or "Sanitizer" in l]
    expect(not sanitizer, f"ranks {args}: {sanitizer[:2]}")
    return (json.loads(r.stdout) if r.returncode == 0 else None), r.stderr


def straggler_found(got, what, matched=40):
    expect(got and [k["rank"] for k in got["ranks"]] == [0, 1, 2, 3] and
           got["rank_rule"] == "file_name" and got["matched"]["count"] == matched and
           got["stragglers"] and got["stragglers"][0]["rank"] == 2,
           f"{what}: ranks {[k['rank'] for k in got['ranks']] if got else None}, rule "
           f"{got and got['rank_rule']}, matched {got and got['matched']}, first straggler "
           f"{got and got['stragglers'][:1]}")


def hostile_helper():
    d = job_copy("helper")
    rank0 = os.path.join(d, "rank0.sqlite")
    start, = sqlite3.connect(rank0).execute("SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL"
                                            ).fetchone()
    edit(rank0, ("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, \"end\" INTEGER"
                 " NOT NULL, deviceId INTEGER, streamId INTEGER, globalPid INTEGER, bytes INTEGER,"
                 " copyKind INTEGER)",),
         ("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 7, ?, 64, 1)",
          (start + 1000, start + 2000, 1 << 48 | 4242 << 24)))
    got, err = ranks_run(d)
    straggler_found(got, "a helper process with one copy in rank 0's report")
    expect("pid 4242" in err and "rank0.sqlite" in err, f"the helper is not named: {err!r}")
    # Kineto's files number the job alike: four ranks, the helper's copy in rank 0's file.
    kdir = os.path.join(WORK, "kineto-helper") + "/"
    r = subprocess.run([BIN, "--format", "kineto", "-o", kdir,
                        *sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".sqlite"))],
                       capture_output=True, text=True)
    ranks_of = {}
    for name in sorted(os.listdir(kdir)) if os.path.isdir(kdir) else []:
        with gzip.open(os.path.join(kdir, name)) as f:
            trace = json.load(f)
        ranks_of[trace["distributedInfo"]["rank"]] = sum(e.get("cat") == "gpu_memcpy"
                                                         for e in trace["traceEvents"])
    expect(r.returncode == 0 and ranks_of == {0: 1, 1: 0, 2: 0, 3: 0},
           f"Kineto with a helper: exit {r.returncode}, the copies of each rank {ranks_of} "
           f"(want the helper's one copy in rank 0's file) {r.stderr[-200:]}")
    # A rank without its last collective: the others still match; it is named.
    rank3 = os.path.join(d, "rank3.sqlite")
    edit(rank3, ("DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start = (SELECT max(k.start) FROM"
                 " CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON s.id = k.shortName"
                 " WHERE s.value LIKE 'nccl%')",))
    got, err = ranks_run(d)
    straggler_found(got, "rank 3 without its last collective", matched=39)
    expect("rank 3 (" in err and "has 39" in err, f"the rank lacking a collective: {err!r}")
    # A helper that ran kernels, none NCCL, first in its report (device 0, pid 999): with
    # --trace it owned the report's collective names, which go to the next rank.
    d = job_copy("helper-kernels")
    rank0 = os.path.join(d, "rank0.sqlite")
    db = sqlite3.connect(rank0)
    cols = [c[1] for c in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
    gpid, = db.execute("SELECT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1").fetchone()
    picks = ", ".join(str(gpid - (1 << 24)) if c == "globalPid" else f'"{c}"' for c in cols)
    db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT {picks} FROM"
               " CUPTI_ACTIVITY_KIND_KERNEL WHERE shortName IN (SELECT id FROM StringIds WHERE"
               " value LIKE 'gemm%') LIMIT 3")
    db.commit()
    db.close()
    got, err = ranks_run("--trace", os.path.join(WORK, "helper.perfetto-trace"), "--no-convert", d)
    straggler_found(got, "a helper with kernels first in rank 0's report, --trace")
    expect("pid 999" in err, f"the helper with kernels is not named: {err!r}")
    # Two processes in one report: by device, then pid (the lower pid on device 1).
    d = job_copy("two")
    rank0 = os.path.join(d, "rank0.sqlite")
    db = sqlite3.connect(rank0)
    cols = [c[1] for c in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
    gpid, = db.execute("SELECT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1").fetchone()
    other = gpid - (1 << 24)  # pid 999
    picks = ", ".join("? + 0" if c == "globalPid" else "1" if c == "deviceId" else f'"{c}"'
                      for c in cols)
    db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT {picks.replace('? + 0', str(other))}"
               " FROM CUPTI_ACTIVITY_KIND_KERNEL")
    db.commit()
    db.close()
    got, _ = ranks_run(os.path.join(d, "rank0.sqlite"), os.path.join(d, "rank1.sqlite"))
    order = [(k["rank"], k["pid"]) for k in got["ranks"]] if got else None
    expect(order == [(0, 1000), (1, 999), (2, 1001)],
           f"two processes in a report: by device, then pid: {order}")
    # Kineto's distributedInfo numbers them alike: rank 0 is pid 1000's file.
    kineto = os.path.join(WORK, "kineto") + "/"
    subprocess.run([BIN, "--format", "kineto", "-o", kineto, rank0], capture_output=True)
    pids = []
    for k in range(2):
        path = os.path.join(kineto, f"rank0.rank{k}.json.gz")
        with gzip.open(path) if os.path.exists(path) else open(os.devnull) as f:
            d = json.load(f) if os.path.exists(path) else {"traceEvents": []}
        pids.append(1000 in {e.get("pid") for e in d["traceEvents"]})
    expect(pids == [True, False], f"Kineto: pid 1000 in the files of rank 0, 1: {pids}")


def hostile_clock():
    d = job_copy("clock")
    edit(os.path.join(d, "rank1.sqlite"), ("DELETE FROM TARGET_INFO_SESSION_START_TIME",))
    got, err = ranks_run(d)
    straggler_found(got, "rank 1 without a UTC session start")
    expect("rank1.sqlite" in err and "no UTC session start" in err,
           f"the report without a UTC session start is not named: {err!r}")
    idle = max(k["idle_ns"] for k in got["ranks"]) if got else -1
    expect(0 <= idle < 10_000_000, f"idle time of a 1.1 s job: {idle} ns")
    for k in range(4):
        edit(os.path.join(d, f"rank{k}.sqlite"), ("DROP TABLE TARGET_INFO_SESSION_START_TIME",))
    got, err = ranks_run(d)
    straggler_found(got, "no report with a UTC session start")
    expect("no report has a UTC session start" in err, f"no word on the clocks: {err!r}")
    # Steps at the int64 limits are clamped, as the converter clamps times.
    rank0 = os.path.join(d, "rank0.sqlite")
    tid, = sqlite3.connect(rank0).execute("SELECT globalTid FROM NVTX_EVENTS LIMIT 1").fetchone()
    edit(rank0, ("INSERT INTO NVTX_EVENTS (start, \"end\", eventType, globalTid, text) VALUES"
                 " (?, ?, 59, ?, 'step')", (-(1 << 63), (1 << 63) - 1, tid)))
    got, err = ranks_run(d)
    expect(got and all(0 <= (k["step_max_ns"] or -1) < 1 << 63 and k["late_total_ns"] >= 0
                       for k in got["ranks"]), f"a step at the int64 limits: {got and got['ranks']}")
    for window in ["0:9223372036854775807", "-9223372036854775808:0", "-1:5"]:
        r = subprocess.run([BIN, "ranks", "--partial", "--window", window, rank0],
                           capture_output=True, text=True)
        expect(r.returncode == 2 and not r.stdout, f"--window {window}: exit {r.returncode}")


def hostile_step():
    d = job_copy("step")
    rank0 = os.path.join(d, "rank0.sqlite")
    tid, = sqlite3.connect(rank0).execute("SELECT globalTid FROM NVTX_EVENTS LIMIT 1").fetchone()
    for k in range(25):
        edit(rank0, ("INSERT INTO NVTX_EVENTS (start, \"end\", eventType, globalTid, text)"
                     " VALUES (?, ?, 59, ?, 'log')", (k * 10, k * 10 + 5, tid)))
    outputs = set()
    for threads in ["1", "2", "3"]:
        r = subprocess.run([BIN, "ranks", "--threads", threads, d], capture_output=True, text=True)
        outputs.add(r.stdout)
    expect(len(outputs) == 1, f"--threads 1, 2, 3: {len(outputs)} different outputs")
    got, err = ranks_run(d)
    expect(got and got["step"]["name"] == "step" and got["ranks"][0]["steps"] == 20,
           f"rank 0 with 25 log ranges: step {got and got['step']}, rank 0 steps "
           f"{got and got['ranks'][0]['steps']}")
    expect('"step"' in err and "rank0.sqlite" in err, f"no word on rank 0's own step: {err!r}")
    # Partials measured on other steps do not fold.
    parts = []
    r = subprocess.run([BIN, "ranks", "--window-of", rank0], capture_output=True, text=True)
    start, end = r.stdout.splitlines()[0].split()
    for k, step in [(0, "log"), (1, "step")]:
        report = os.path.join(d, f"rank{k}.sqlite")
        parts.append(os.path.join(WORK, f"step{k}.part"))
        with open(parts[-1], "w") as f:
            f.write(subprocess.run([BIN, "ranks", "--partial", "--window", f"{start}:{end}",
                                    "--step", step, report], capture_output=True,
                                   text=True).stdout)
    r = subprocess.run([BIN, "ranks", "--from-partials", *parts], capture_output=True, text=True)
    expect(r.returncode == 4 and "step1.part" in r.stderr and "another step" in r.stderr,
           f"partials of other steps: exit {r.returncode} {r.stderr!r}")


def hostile_overlapping_steps():
    """Pipelined micro-batches: start/end step ranges that overlap by half a step."""
    tools = [t for t in CORPUS if os.path.exists(t)]
    if len(tools) < 2:
        print("overlapping steps: not checked (../shared/tools absent)")
        return
    check, tp = tools[:2]
    d = job_copy("overlap")
    for k in range(4):
        edit(os.path.join(d, f"rank{k}.sqlite"),
             ("UPDATE NVTX_EVENTS SET eventType = 60, \"end\" = \"end\" + (\"end\" - start) / 2"
              " WHERE text = 'step' OR textId IN (SELECT id FROM StringIds WHERE value = 'step')",))
    want = sqlite3.connect(os.path.join(d, "rank0.sqlite")).execute(
        "SELECT count(*), sum(\"end\" - start) FROM NVTX_EVENTS WHERE eventType = 60").fetchone()
    trace = os.path.join(WORK, "overlap.perfetto-trace")
    r = subprocess.run([BIN, "ranks", "--step", "step", "--trace", trace, "--no-convert", d],
                       capture_output=True, text=True)
    if not expect(r.returncode == 0, f"--trace of overlapping steps: {r.stderr[-300:]}"):
        return
    r = subprocess.run([sys.executable, check, trace], capture_output=True, text=True)
    expect(r.returncode == 0, f"overlapping steps: pftrace-check: {r.stdout[-400:]}")
    sql = ("SELECT count(*), sum(s.dur), count(DISTINCT s.track_id) FROM slice AS s"
           " JOIN track AS t ON t.id = s.track_id JOIN track AS g ON g.id = t.parent_id"
           " WHERE s.name = 'step' AND g.name = 'rank 0';")
    r = subprocess.run([tp, "-q", "/dev/stdin", trace], input=sql, capture_output=True, text=True)
    row = r.stdout.strip().splitlines()[-1].replace('"', "").split(",") if r.returncode == 0 else []
    expect(row[:2] == [str(want[0]), str(want[1])] and row[2:] and int(row[2]) >= 2,
           f"rank 0's overlapping steps in trace_processor: {row} (count, total, tracks); "
           f"want {want} on 2 lanes or more")


def mode_hostile():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    hostile_helper()
    hostile_clock()
    hostile_step()
    hostile_overlapping_steps()


{"corpus": mode_corpus, "job": mode_job, "partials": mode_partials, "outputs": mode_outputs,
 "stdout": mode_stdout, "conversion_status": mode_conversion_status,
 "heatmaps": mode_heatmaps, "once": mode_once, "hostile": mode_hostile}[MODE]()
if failures:
    print(f"{len(failures)} failures")
    sys.exit(1)
print("ok")
