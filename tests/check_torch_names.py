#!/usr/bin/env python3
"""PyTorch's op range names on a real PyTorch report (the GindaChen mfu_2gpu
pair of the corpus: emit_nvtx names like "aten::to, seq = 45330, op_id =
990728"), in the trace and in the summary:

- the trace names every such range by its op ("aten::to"), with args seq and
  op_id (and sizes, input_op_ids) that give its whole text back, so no "text"
  arg is written; no slice name carries "op_id =" or "seq =";
- the ranges are intact: the same slices as with --raw-names, slice by slice
  (track kind, ts, dur), and each slice's text arg (else its name) equals the
  name --raw-names gives it;
- the trace imports in trace_processor with no error stat;
- summary groups by op (no name with "op_id ="; a few hundred names, not
  thousands) and its NVTX totals equal --raw-names' summed per op;
  summary --raw-names keeps the whole texts.

  check_torch_names.py NSYS_PERFETTO TRACE_PROCESSOR REPORT.sqlite.gz WORKDIR"""
import collections
import csv
import gzip
import io
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_names import torch_text  # noqa: E402

BIN, TP, REPORT_GZ, WORK = sys.argv[1:5]
if not os.path.exists(REPORT_GZ) or not os.path.exists(TP):
    print(f"skip: {REPORT_GZ} or {TP} absent (../shared)")
    sys.exit(77)
from testlib import expect, failures  # noqa: E402

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
report = os.path.join(WORK, "report.sqlite")
with gzip.open(REPORT_GZ) as src, open(report, "wb") as dst:
    shutil.copyfileobj(src, dst)

TORCH = re.compile(r"^(.+?)(, seq = \d+)?(, op_id = \d+)?(, sizes = \[.*\])?"
                   r"(, input_op_ids = \[.*\])?$")


def convert(name, *extra):
    out = os.path.join(WORK, name)
    subprocess.run([BIN, "-q", *extra, "-o", out, report], check=True)
    return out


def query(trace, sql):
    r = subprocess.run([TP, "-q", "/dev/stdin", trace], input=sql.encode(), capture_output=True)
    if not expect(r.returncode == 0, f"trace_processor: {r.stderr.decode()[-300:]}"):
        return []
    lines = r.stdout.decode().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith('"'))
    return list(csv.reader(lines[start:]))[1:]


SLICES = """
SELECT s.category, s.ts, s.dur, s.name, extract_arg(s.arg_set_id, 'debug.text'),
       extract_arg(s.arg_set_id, 'debug.seq'), extract_arg(s.arg_set_id, 'debug.op_id'),
       extract_arg(s.arg_set_id, 'debug.sizes'), extract_arg(s.arg_set_id, 'debug.input_op_ids')
FROM slice s WHERE s.category IN ('nvtx', 'nvtx_gpu') ORDER BY s.category, s.ts, s.dur, s.name;
"""
ERRORS = "SELECT name, idx, value FROM stats WHERE severity IN ('error', 'data_loss') AND value > 0;"

op_trace = convert("op.perfetto-trace")
raw_trace = convert("raw.perfetto-trace", "--raw-names")


def with_text(rows):
    """Rows as (category, ts, dur, name, text, seq, op_id): text the op range's whole text,
    its arg when written, else rebuilt from the name and parts ("[NULL]": not an op range)."""
    out, written = [], 0
    for category, ts, dur, name, text, seq, op_id, sizes, ids in rows:
        args = {k: v for k, v in (('text', text), ('seq', seq), ('op_id', op_id),
                                  ('sizes', sizes), ('input_op_ids', ids)) if v != "[NULL]"}
        written += 'text' in args
        whole = torch_text(name, args)
        out.append((category, ts, dur, name, "[NULL]" if whole is None else whole, seq, op_id))
    return out, written


ops, texts_written = with_text(query(op_trace, SLICES))
raws, _ = with_text(query(raw_trace, SLICES))
# The parts give every text of this report back: no text arg is written.
expect(texts_written == 0, f"{texts_written} text args written that the parts give back")
expect(len(ops) > 10000, f"only {len(ops)} NVTX slices in the trace")
expect(not query(op_trace, ERRORS), f"import errors: {query(op_trace, ERRORS)}")
named_by_op = 0
for row in ops:
    category, ts, dur, name, text, seq, op_id = row
    if not expect(", op_id = " not in name and ", seq = " not in name,
                  f"a slice still named by its whole text: {name!r}"):
        break
    if text != "[NULL]":
        named_by_op += 1
        m = TORCH.match(text)
        if not expect(m and m.group(1) == name, f"{name!r}: text arg {text!r} is not its op's"):
            break
        expect((seq == "[NULL]") == (m.group(2) is None) and
               (op_id == "[NULL]") == (m.group(3) is None),
               f"{text!r}: args seq={seq} op_id={op_id}")
expect(named_by_op > 10000, f"only {named_by_op} slices named by their op")
# Intact: slice for slice, the raw name is the op slice's text (else its name).
as_raw = sorted((c, int(t), int(d), text if text != "[NULL]" else name)
                for c, t, d, name, text, *_ in ops)
raw = sorted((c, int(t), int(d), name) for c, t, d, name, *_ in raws)
expect(as_raw == raw, f"the slices differ from --raw-names' ({len(as_raw)} against {len(raw)})")
expect(all(t == "[NULL]" for _, _, _, _, t, _, _ in raws), "--raw-names wrote text args")


def summary(*extra):
    r = subprocess.run([BIN, "summary", "--csv", *extra, report], capture_output=True)
    expect(r.returncode == 0, f"summary {extra}: exit {r.returncode}")
    return list(csv.DictReader(io.StringIO(r.stdout.decode())))


by_op = [r for r in summary() if r["category"] == "nvtx"]
by_text = [r for r in summary("--raw-names") if r["category"] == "nvtx"]
total = [k for k in by_op[0] if k.endswith("total_ns")][0]
count = [k for k in by_op[0] if k.endswith("count")][0]
expect(not any("op_id =" in r["name"] for r in by_op), "summary lists names with op_id =")
expect(len(by_op) < 400 and len(by_text) > 10000,
       f"summary: {len(by_op)} names by op, {len(by_text)} by text")
summed = collections.Counter()
counted = collections.Counter()
for r in by_text:
    m = TORCH.match(r["name"])
    op = m.group(1) if m and (m.group(2) or m.group(3) or m.group(4) or m.group(5)) else r["name"]
    summed[op] += int(r[total])
    counted[op] += int(r[count])
expect({r["name"]: int(r[total]) for r in by_op} == dict(summed),
       "summary by op: totals differ from --raw-names' summed per op")
expect({r["name"]: int(r[count]) for r in by_op} == dict(counted),
       "summary by op: counts differ from --raw-names' summed per op")

if failures:
    print(f"{len(failures)} failures")
    sys.exit(1)
print(f"ok: {named_by_op} slices named by op; {len(by_op)} NVTX names by op, "
      f"{len(by_text)} by text")
