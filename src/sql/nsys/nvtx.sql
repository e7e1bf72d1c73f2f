-- nsys.nvtx: NVTX ranges and marks (CPU side), and their projections onto
-- the GPU written by the converter. See docs/sql.md.
--
-- A PyTorch op range (emit_nvtx: `aten::to, seq = 12, op_id = 998949`) is
-- named by its op in the trace (`aten::to`), its parts in args: `name` is
-- the op, `text` the text as recorded (the name for any other range),
-- `seq`, `op_id`, `sizes`, `input_op_ids` its parts. The trace holds the
-- whole text in arg `text` only when the parts do not give it back (a
-- number with leading zeros); `text` here is that arg, else the text
-- rebuilt as PyTorch prints it.

INCLUDE PERFETTO MODULE nsys.gpus;

-- An NVTX slice's whole text, from its name and args (see above).
CREATE PERFETTO MACRO _nsys_nvtx_text(name Expr, args Expr) RETURNS Expr AS
coalesce(
  extract_arg($args, 'debug.text'),
  CASE
    WHEN extract_arg($args, 'debug.op_id') IS NOT NULL
      OR extract_arg($args, 'debug.seq') IS NOT NULL
      OR extract_arg($args, 'debug.sizes') IS NOT NULL
      OR extract_arg($args, 'debug.input_op_ids') IS NOT NULL
    THEN $name
      || coalesce(', seq = ' || extract_arg($args, 'debug.seq'), '')
      || coalesce(', op_id = ' || extract_arg($args, 'debug.op_id'), '')
      || coalesce(', sizes = ' || extract_arg($args, 'debug.sizes'), '')
      || coalesce(', input_op_ids = ' || extract_arg($args, 'debug.input_op_ids'), '')
  END,
  $name);

-- NVTX ranges and marks with their thread.
CREATE PERFETTO TABLE _nsys_nvtx(
  -- Slice id.
  id LONG,
  -- Start.
  ts LONG,
  -- Duration.
  dur LONG,
  -- Name.
  name STRING,
  -- 'push/pop', 'start/end' or 'mark'.
  kind STRING,
  -- Domain.
  domain STRING,
  -- Category.
  category STRING,
  -- Colour.
  color STRING,
  -- Payload.
  payload STRING,
  -- Thread.
  utid LONG,
  -- Process.
  upid LONG,
  -- Tid from the arg.
  arg_tid LONG,
  -- End thread.
  end_tid LONG,
  -- Still open.
  unterminated BOOL,
  -- Depth.
  depth LONG,
  -- Parent.
  parent_id LONG,
  -- Track.
  track_id LONG,
  -- Args.
  arg_set_id LONG,
  -- The text as recorded (the name, or the whole PyTorch range text).
  text STRING,
  -- PyTorch op range: sequence number.
  seq LONG,
  -- PyTorch op range: op id.
  op_id LONG,
  -- PyTorch op range: input sizes.
  sizes STRING,
  -- PyTorch op range: input op ids.
  input_op_ids STRING
) AS
SELECT
  s.id,
  s.ts,
  s.dur,
  s.name,
  CASE
    WHEN extract_arg(s.arg_set_id, 'debug.mark') THEN 'mark'
    WHEN tt.utid IS NOT NULL THEN 'push/pop'
    ELSE 'start/end'
  END AS kind,
  coalesce(extract_arg(s.arg_set_id, 'debug.domain'), 'default') AS domain,
  cast_string!(extract_arg(s.arg_set_id, 'debug.category')) AS category,
  extract_arg(s.arg_set_id, 'debug.color') AS color,
  cast_string!(extract_arg(s.arg_set_id, 'debug.payload')) AS payload,
  tt.utid,
  coalesce(th.upid, pt.upid) AS upid,
  extract_arg(s.arg_set_id, 'debug.tid') AS arg_tid,
  extract_arg(s.arg_set_id, 'debug.end thread') AS end_tid,
  coalesce(extract_arg(s.arg_set_id, 'debug.unterminated'), 0) AS unterminated,
  s.depth,
  s.parent_id,
  s.track_id,
  s.arg_set_id,
  _nsys_nvtx_text!(s.name, s.arg_set_id) AS text,
  extract_arg(s.arg_set_id, 'debug.seq') AS seq,
  extract_arg(s.arg_set_id, 'debug.op_id') AS op_id,
  extract_arg(s.arg_set_id, 'debug.sizes') AS sizes,
  extract_arg(s.arg_set_id, 'debug.input_op_ids') AS input_op_ids
FROM slice s
LEFT JOIN thread_track tt ON tt.id = s.track_id
LEFT JOIN thread th ON th.utid = tt.utid
LEFT JOIN process_track pt ON pt.id = s.track_id
WHERE s.category = 'nvtx';

-- One row per NVTX range: push/pop ranges (nested, per thread) and
-- start/end ranges (per process, may end on another thread).
CREATE PERFETTO TABLE nsys_nvtx_ranges(
  -- Slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration, ns (to the end of the report for unterminated ranges).
  dur LONG,
  -- Range name: its text or registered string; for a PyTorch op range
  -- (`aten::to, seq = 12, op_id = 998949`), its op (`aten::to`).
  name STRING,
  -- 'push/pop' or 'start/end'.
  kind STRING,
  -- Domain name ('default' for the default domain).
  domain STRING,
  -- Category name (or its number when unnamed); NULL without one.
  category STRING,
  -- Colour, '#RRGGBB'.
  color STRING,
  -- Payload, as text.
  payload STRING,
  -- The thread that started it (thread.utid).
  utid LONG,
  -- Its thread id.
  tid LONG,
  -- Process (process.upid).
  upid LONG,
  -- Process id.
  pid LONG,
  -- The thread that ended it, when another one (start/end ranges).
  end_tid LONG,
  -- 1 when the report ended with the range still open.
  unterminated LONG,
  -- Nesting depth on its row.
  depth LONG,
  -- Enclosing range's slice id.
  parent_id LONG,
  -- Track id.
  track_id LONG,
  -- Arg set id.
  arg_set_id LONG,
  -- The text as recorded: the whole text of a PyTorch op range (name is
  -- its op), else the name.
  text STRING,
  -- PyTorch op range: its sequence number (`seq = N`), else NULL.
  seq LONG,
  -- PyTorch op range: its op id (`op_id = K`), else NULL.
  op_id LONG,
  -- PyTorch op range: its input sizes (`[[2, 3], []]`), else NULL.
  sizes STRING,
  -- PyTorch op range: its input op ids (`[(12,0), (13,1)]`), else NULL.
  input_op_ids STRING
) AS
WITH r AS (
  SELECT
    n.*,
    coalesce(n.utid, (
      SELECT max(t.utid) FROM thread t WHERE t.tid = n.arg_tid AND t.upid = n.upid
    )) AS start_utid
  FROM _nsys_nvtx n
  WHERE n.kind != 'mark'
)
SELECT
  r.id, r.ts, r.dur, r.name, r.kind, r.domain, r.category, r.color, r.payload,
  r.start_utid AS utid,
  coalesce(th.tid, r.arg_tid) AS tid,
  r.upid,
  p.pid,
  r.end_tid,
  r.unterminated,
  r.depth, r.parent_id, r.track_id, r.arg_set_id,
  r.text, r.seq, r.op_id, r.sizes, r.input_op_ids
FROM r
LEFT JOIN thread th ON th.utid = r.start_utid
LEFT JOIN process p ON p.upid = r.upid
ORDER BY r.ts, r.id;

-- One row per NVTX mark (nvtxMark: an instant).
CREATE PERFETTO TABLE nsys_nvtx_marks(
  -- Slice id.
  id LONG,
  -- Time, ns.
  ts LONG,
  -- Mark text.
  name STRING,
  -- Domain name.
  domain STRING,
  -- Category.
  category STRING,
  -- Colour.
  color STRING,
  -- Payload, as text.
  payload STRING,
  -- Thread.
  utid LONG,
  -- Thread id.
  tid LONG,
  -- Process.
  upid LONG,
  -- Process id.
  pid LONG,
  -- Track id.
  track_id LONG,
  -- Arg set id.
  arg_set_id LONG,
  -- The text as recorded (see nsys_nvtx_ranges.text).
  text STRING
) AS
SELECT
  n.id, n.ts, n.name, n.domain, n.category, n.color, n.payload,
  n.utid, th.tid, n.upid, p.pid, n.track_id, n.arg_set_id, n.text
FROM _nsys_nvtx n
LEFT JOIN thread th ON th.utid = n.utid
LEFT JOIN process p ON p.upid = n.upid
WHERE n.kind = 'mark'
ORDER BY n.ts, n.id;

-- NVTX ranges projected onto the GPU (the GPU groups' NVTX rows): from the
-- first GPU operation's start to the last one's end, over the work launched
-- by the CUDA calls made inside the range on its thread.
CREATE PERFETTO TABLE nsys_nvtx_gpu_ranges(
  -- Slice id.
  id LONG,
  -- Start of the first GPU operation, ns.
  ts LONG,
  -- To the end of the last one, ns.
  dur LONG,
  -- Range name (a PyTorch op range's op, as nsys_nvtx_ranges.name).
  name STRING,
  -- Domain name.
  domain STRING,
  -- GPU operations covered.
  gpu_ops LONG,
  -- Process id of the range.
  pid LONG,
  -- Thread id of the range.
  tid LONG,
  -- CUDA device id of the GPU group.
  device LONG,
  -- GPU group.
  gpu_track_id LONG,
  -- Nesting depth.
  depth LONG,
  -- Enclosing projection.
  parent_id LONG,
  -- Track id.
  track_id LONG,
  -- Arg set id.
  arg_set_id LONG,
  -- The text as recorded: the whole text of a PyTorch op range (name is
  -- its op), else the name.
  text STRING,
  -- PyTorch op range: its sequence number (`seq = N`), else NULL.
  seq LONG,
  -- PyTorch op range: its op id (`op_id = K`), else NULL.
  op_id LONG,
  -- PyTorch op range: its input sizes (`[[2, 3], []]`), else NULL.
  sizes STRING,
  -- PyTorch op range: its input op ids (`[(12,0), (13,1)]`), else NULL.
  input_op_ids STRING
) AS
WITH RECURSIVE up(track_id, ancestor_id, parent_id) AS (
  SELECT DISTINCT s.track_id, t.id, t.parent_id
  FROM slice s JOIN track t ON t.id = s.track_id
  WHERE s.category = 'nvtx_gpu'
  UNION ALL
  SELECT up.track_id, t.id, t.parent_id FROM up JOIN track t ON t.id = up.parent_id
)
SELECT
  s.id, s.ts, s.dur, s.name,
  coalesce(extract_arg(s.arg_set_id, 'debug.domain'), 'default') AS domain,
  extract_arg(s.arg_set_id, 'debug.GPU operations') AS gpu_ops,
  extract_arg(s.arg_set_id, 'debug.pid') AS pid,
  extract_arg(s.arg_set_id, 'debug.tid') AS tid,
  g.device,
  g.gpu_track_id,
  s.depth, s.parent_id, s.track_id, s.arg_set_id,
  _nsys_nvtx_text!(s.name, s.arg_set_id) AS text,
  extract_arg(s.arg_set_id, 'debug.seq') AS seq,
  extract_arg(s.arg_set_id, 'debug.op_id') AS op_id,
  extract_arg(s.arg_set_id, 'debug.sizes') AS sizes,
  extract_arg(s.arg_set_id, 'debug.input_op_ids') AS input_op_ids
FROM slice s
JOIN up ON up.track_id = s.track_id AND up.parent_id IS NULL
LEFT JOIN nsys_gpus g ON g.gpu_track_id = up.ancestor_id
WHERE s.category = 'nvtx_gpu'
ORDER BY s.ts, s.id;
