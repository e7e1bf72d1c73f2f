-- nsys.analyze.filter: the options every `nsys analyze` rule shares
-- (start=, end=, nvtx=), as the rules of nsys 2022.4 apply them, the GPU
-- work the GPU rules look at, and the copies the memcpy rules look at. Internal: the rule modules (nsys.analyze.*)
-- include it. See docs/sql.md.
--
-- nsys keeps the rows of a table that overlap [start, end):
--   start in [S, E), or end in [S, E), or start < S and end >= E;
-- with nvtx=TEXT[@DOMAIN], S and E default to the first such range (by start),
-- and rows are also restricted to its thread (tables with a thread: CUDA API
-- calls) or its process (GPU work), or to its process alone when the range's
-- tid equals its pid (nsys takes those for start/end ranges).

INCLUDE PERFETTO MODULE nsys.cuda;
INCLUDE PERFETTO MODULE nsys.nvtx;

-- The selection the options make: one row, or none when nsys would refuse
-- them (the NVTX range does not exist; start after end). start= and end= are
-- report times (nsys's); the window is in trace time (report time plus the
-- shift, nsys_gpus.time_shift_ns), which `shift` gives for the outputs.
CREATE PERFETTO FUNCTION _nsys_analyze_window(
  -- start= (report time, ns), or NULL.
  start_ns LONG,
  -- end= (report time, ns), or NULL.
  end_ns LONG,
  -- nvtx= ('text' for the default domain, 'text@domain' otherwise), or NULL.
  nvtx STRING
)
RETURNS TABLE(
  -- 1 when rows are filtered at all.
  filtered LONG,
  -- Window start (S), trace time.
  win_start LONG,
  -- Window end (E), trace time.
  win_end LONG,
  -- Process the NVTX range restricts to, or NULL.
  pid LONG,
  -- Thread the NVTX range restricts to, or NULL.
  tid LONG,
  -- 1 when calls are restricted to the thread (else to the process).
  by_thread LONG,
  -- Trace time minus report time (_nsys_time_shift()).
  shift LONG
) AS
WITH
  sh AS (SELECT _nsys_time_shift() AS shift),
  r AS (
    SELECT ts, dur, pid, tid
    FROM nsys_nvtx_ranges
    WHERE $nvtx IS NOT NULL
      AND text || iif(domain = 'default' OR domain GLOB 'domain [0-9]*', '', '@' || domain) = $nvtx
    ORDER BY ts, id
    LIMIT 1
  ),
  w AS (
    SELECT 0 AS filtered, NULL AS win_start, NULL AS win_end, NULL AS pid, NULL AS tid, 0 AS by_thread
    WHERE $start_ns IS NULL AND $end_ns IS NULL AND $nvtx IS NULL
    UNION ALL
    SELECT 1, coalesce($start_ns, 0) + sh.shift, coalesce($end_ns + sh.shift, 9223372036854775807),
      NULL, NULL, 0
    FROM sh
    WHERE $nvtx IS NULL AND ($start_ns IS NOT NULL OR $end_ns IS NOT NULL)
    UNION ALL
    SELECT 1, coalesce($start_ns + sh.shift, r.ts), coalesce($end_ns + sh.shift, r.ts + r.dur), r.pid,
      r.tid, r.pid != r.tid
    FROM r CROSS JOIN sh
  )
SELECT filtered, win_start, win_end, pid, tid, by_thread, sh.shift
FROM w CROSS JOIN sh
WHERE filtered = 0 OR win_start <= win_end;

-- Whether a row (start ts, duration dur, process pid, thread tid or NULL for
-- GPU work) is kept by the selection w (a row of _nsys_analyze_window).
CREATE PERFETTO MACRO _nsys_analyze_keep(
  w Expr, ts Expr, dur Expr, pid Expr, tid Expr
)
RETURNS Expr AS
(
  $w.filtered = 0
  OR (
    (
      ($ts >= $w.win_start AND $ts < $w.win_end)
      OR ($ts + $dur >= $w.win_start AND $ts + $dur < $w.win_end)
      OR ($ts < $w.win_start AND $ts + $dur >= $w.win_end)
    )
    AND (
      $w.pid IS NULL
      OR ($pid = $w.pid AND ($tid IS NULL OR $w.by_thread = 0 OR $tid = $w.tid))
    )
  )
);

-- The GPU work the GPU rules look at: kernels, memcpys and memsets that
-- start after time 0 (report time), kept by the start=/end=/nvtx= selection;
-- times are report times (nsys's: trace time less the shift).
CREATE PERFETTO FUNCTION _nsys_analyze_gpu_ops(
  -- start= in report time (ns), or NULL.
  start_ns LONG,
  -- end= in report time (ns), or NULL.
  end_ns LONG,
  -- nvtx=, or NULL.
  nvtx STRING
)
RETURNS TABLE(
  -- Slice id.
  id LONG,
  -- Start, report time.
  ts LONG,
  -- End, report time.
  end_ts LONG,
  -- Process id.
  pid LONG,
  -- Device.
  device LONG,
  -- Context.
  context LONG
) AS
SELECT o.id, o.ts - w.shift AS ts, o.ts + o.dur - w.shift AS end_ts, o.pid, o.device, o.context
FROM _nsys_analyze_window($start_ns, $end_ns, $nvtx) w
CROSS JOIN nsys_gpu_ops o
WHERE o.ts - w.shift > 0 AND _nsys_analyze_keep!(w, o.ts, o.dur, o.pid, NULL);

-- The copies a memcpy rule reports, in its columns, unordered: each copy
-- (m, nsys_memcpys) that `copy` accepts and the selection of start_ns, end_ns
-- and nvtx keeps, once per CUDA call (c, nsys_cuda_api_calls) of its
-- correlation id that `call` accepts. As nsys 2022.4 does, calls match in
-- any process (correlation ids repeat across processes) and the selection
-- filters the copies, not the calls.
CREATE PERFETTO MACRO _nsys_analyze_memcpys(
  start_ns Expr, end_ns Expr, nvtx Expr, call Expr, copy Expr
)
RETURNS TableOrSubquery AS
(
  SELECT
    m.dur AS duration_ns,
    m.ts - w.shift AS start_ns,
    m.src_kind,
    m.dst_kind,
    m.bytes / 1e6 AS bytes_mb,
    m.pid,
    m.device AS device_id,
    m.context AS context_id,
    NULL AS green_context_id,
    m.stream AS stream_id,
    c.full_name AS api_name,
    m.bytes,
    m.id AS memcpy_id,
    c.id AS api_call_id
  FROM _nsys_analyze_window($start_ns, $end_ns, $nvtx) w
  CROSS JOIN nsys_memcpys m
  JOIN nsys_cuda_api_calls c
    ON c.correlation_id = m.correlation_id AND ($call)
  WHERE ($copy) AND _nsys_analyze_keep!(w, m.ts, m.dur, m.pid, NULL)
);
