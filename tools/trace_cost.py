#!/usr/bin/env python3
"""trace_cost.py: what a trace costs trace_processor in memory, and where.

    python3 tools/trace_cost.py [--tp TRACE_PROCESSOR_SHELL] TRACE...

For each trace, loads it in trace_processor_shell (Perfetto's native engine,
the one the UI runs in WebAssembly) and prints its peak RSS with the rows it
holds: slices, args, distinct arg sets, flows, counter values. Then loads
variants of the same trace made here, to split the cost:

  no args     the same packets without TrackEvent.debug_annotations: the
              floor of the same slices carrying nothing
  no flows    also without flow ids
  no counters also without counter events

and prints the cost per arg, per flow and per counter value as the
differences between variants divided by the rows each removed, and the
bytes per slice with and without args; a slice's own cost is what is left
without args, flows and counters, less the engine's own memory (a trace of
the first packet alone). The figure that matters to a user is peak RSS
per slice, which decides whether the UI opens it.

--by-kind adds a table per slice category (kernel, cuda_runtime, nvtx...):
its slices, the args of its distinct arg sets (trace_processor stores an
arg set once however many slices share it), its flows, and what these
cost at the unit costs just measured.

The variants are made by re-encoding the protobuf stream (gzip members
or raw), so this needs nothing but Python and the engine. Memory is the
engine's peak resident set (its VmHWM), best of --runs.
"""
import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TP = os.path.join(HERE, "..", "..", "shared", "tools", "trace_processor_shell")

# Field numbers (Perfetto's trace.proto, trace_packet.proto, track_event.proto).
TRACE_PACKET = 1
PACKET_TRACK_EVENT = 11
EVENT_DEBUG_ANNOTATIONS = 4
EVENT_FLOW_FIELDS = {36, 42, 47, 48}  # flow_ids_old, terminating_flow_ids_old, flow_ids, terminating
EVENT_TYPE = 9
TYPE_COUNTER = 4


def read_varint(buf, at):
    value = shift = 0
    while True:
        b = buf[at]
        at += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, at
        shift += 7


def varint(value):
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def fields(buf):
    """(number, wire type, whole field bytes, payload bytes or value) of a message."""
    at, end = 0, len(buf)
    while at < end:
        start = at
        key, at = read_varint(buf, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = read_varint(buf, at)
        elif wire == 1:
            value, at = None, at + 8
        elif wire == 5:
            value, at = None, at + 4
        elif wire == 2:
            n, at = read_varint(buf, at)
            value, at = buf[at:at + n], at + n
        else:
            raise ValueError(f"wire type {wire} not expected")
        yield number, wire, buf[start:at], value


def strip_event(event, drop_args, drop_flows):
    out = bytearray()
    for number, wire, whole, _ in fields(event):
        if drop_args and number == EVENT_DEBUG_ANNOTATIONS:
            continue
        if drop_flows and number in EVENT_FLOW_FIELDS:
            continue
        out += whole
    return bytes(out)


def is_counter(event):
    return any(n == EVENT_TYPE and v == TYPE_COUNTER for n, w, _, v in fields(event) if w == 0)


def strip_packet(packet, drop_args, drop_flows, drop_counters):
    """The packet re-encoded without what is dropped; None to drop it whole."""
    out = bytearray()
    for number, wire, whole, value in fields(packet):
        if number == PACKET_TRACK_EVENT and wire == 2:
            if drop_counters and is_counter(value):
                return None
            event = strip_event(value, drop_args, drop_flows)
            out += varint(PACKET_TRACK_EVENT << 3 | 2) + varint(len(event)) + event
        else:
            out += whole
    return bytes(out)


def raw_stream(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        out = []
        while data:  # concatenated gzip members
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out.append(d.decompress(data))
            data = d.unused_data
        return b"".join(out)
    return data


def write_variant(raw, out_path, drop_args, drop_flows, drop_counters, first_only=False):
    with open(out_path, "wb") as out:
        for number, wire, whole, value in fields(raw):
            if first_only:  # the engine's own memory: a trace of one packet
                out.write(whole)
                return
            if number != TRACE_PACKET or wire != 2:
                out.write(whole)
                continue
            packet = strip_packet(value, drop_args, drop_flows, drop_counters)
            if packet is not None:
                out.write(varint(TRACE_PACKET << 3 | 2) + varint(len(packet)) + packet)


BY_KIND = """
with sets as (select arg_set_id, min(coalesce(category, '')) as category from slice
              where arg_set_id is not null group by arg_set_id),
     set_args as (select s.category, count(*) as n from sets s join args a using (arg_set_id)
                  group by s.category),
     kinds as (select coalesce(category, '') as category, count(*) as slices,
                      count(distinct arg_set_id) as arg_sets from slice group by 1),
     flows as (select coalesce(s.category, '') as category, count(*) as n from flow f
               join slice s on s.id = f.slice_out group by 1)
select k.category, k.slices, coalesce(a.n, 0), k.arg_sets, coalesce(f.n, 0)
from kinds k left join set_args a using (category) left join flows f using (category)
order by k.slices desc;
"""

COUNTS = """
select
  (select count(*) from slice) as slices,
  (select count(*) from args where arg_set_id in (select arg_set_id from slice)) as args,
  (select count(distinct arg_set_id) from slice) as arg_sets,
  (select count(*) from flow) as flows,
  (select count(*) from counter) as counters,
  (select coalesce(sum(value), 0) from stats where severity = 'error') as errors;
"""


def peak_rss(p):
    """The peak RSS of running child p (VmHWM, read until it exits). Not
    ru_maxrss: Linux carries the parent's RSS at fork into it."""
    peak = 0
    while p.poll() is None:
        try:
            with open(f"/proc/{p.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]) * 1024)
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    return peak


def load(tp, trace, runs, query=COUNTS):
    """(peak RSS bytes, {count name: value}) of loading trace and counting;
    with another query, (peak RSS, its rows as lists of strings)."""
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as q:
        q.write(query)
    best, counts = None, {}
    try:
        for _ in range(runs):
            with tempfile.TemporaryFile("w+") as out_file:
                p = subprocess.Popen([tp, "-q", q.name, trace], stdout=out_file,
                                     stderr=subprocess.DEVNULL, text=True)
                rss = peak_rss(p)
                if p.returncode != 0:
                    sys.exit(f"trace_cost: {tp} failed on {trace}")
                out_file.seek(0)
                out = out_file.read()
            best = rss if best is None else min(best, rss)
            lines = [line for line in out.splitlines() if line.strip()]
            if query is not COUNTS:
                counts = [[c.strip('"') for c in line.split(",")] for line in lines[1:]]
                continue
            names = [c.strip('"') for c in lines[-2].split(",")]
            counts = dict(zip(names, (int(v) for v in lines[-1].split(","))))
    finally:
        os.unlink(q.name)
    return best, counts


def per(delta, n):
    return f"{delta / n:.0f}" if n else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tp", default=DEFAULT_TP, help="trace_processor_shell")
    ap.add_argument("--runs", type=int, default=1, help="loads per variant (best kept)")
    ap.add_argument("--by-kind", action="store_true", help="a table per slice category too")
    ap.add_argument("traces", nargs="+")
    args = ap.parse_args()
    if not os.access(args.tp, os.X_OK):
        sys.exit(f"trace_cost: no trace_processor_shell at {args.tp} (--tp)")
    print("| trace | slices | args | arg sets | flows | counter values | peak MB | B/slice | "
          "B/slice, no args | B a bare slice | B/arg | B/flow | B/counter value |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    kinds = []
    for trace in args.traces:
        with tempfile.TemporaryDirectory() as tmp:
            paths = {}
            raw = raw_stream(trace)
            for name, drops in (("base", (False, False, False, True)),
                                ("no args", (True, False, False)),
                                ("no flows", (True, True, False)),
                                ("no counters", (True, True, True))):
                paths[name] = os.path.join(tmp, name.replace(" ", "_") + ".pftrace")
                write_variant(raw, paths[name], *drops)
            del raw
            variants = {name: load(args.tp, path, args.runs) for name, path in paths.items()}
            full = load(args.tp, trace, args.runs)
            by_kind = load(args.tp, trace, 1, BY_KIND)[1] if args.by_kind else []
        rss, c = full
        if c["errors"]:
            print(f"warning: {trace}: {c['errors']} import errors", file=sys.stderr)
        base, no_args, no_flows, no_counters = (variants[k][0] for k in
                                                ("base", "no args", "no flows", "no counters"))
        counters = c["counters"]
        unit = {"slice": (no_counters - base) / max(c["slices"], 1),
                "arg": (rss - no_args) / max(c["args"], 1),
                "flow": (no_args - no_flows) / max(c["flows"], 1)}
        print(f"| {os.path.basename(trace)} | {c['slices']:,} | {c['args']:,} | {c['arg_sets']:,} | "
              f"{c['flows']:,} | {counters:,} | {rss / 1e6:.0f} | {per(rss, c['slices'])} | "
              f"{per(no_args, c['slices'])} | {per(no_counters - base, c['slices'])} | "
              f"{per(rss - no_args, c['args'])} | {per(no_args - no_flows, c['flows'])} | "
              f"{per(no_flows - no_counters, counters)} |", flush=True)
        kinds.append((trace, unit, by_kind))
    for trace, unit, by_kind in kinds:
        if not by_kind:
            continue
        print(f"\n{os.path.basename(trace)}, by kind (MB at the unit costs above: "
              f"{unit['slice']:.0f} B a slice, {unit['arg']:.0f} B an arg, "
              f"{unit['flow']:.0f} B a flow):\n")
        print("| category | slices | args held | arg sets | flows out | MB |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for category, slices, held, sets, flows in by_kind:
            slices, held, sets, flows = int(slices), int(held), int(sets), int(flows)
            mb = (slices * unit["slice"] + held * unit["arg"] + flows * unit["flow"]) / 1e6
            print(f"| {category or '(none)'} | {slices:,} | {held:,} | {sets:,} | {flows:,} | "
                  f"{mb:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
