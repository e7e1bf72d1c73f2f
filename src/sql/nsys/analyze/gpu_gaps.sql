-- nsys.analyze.gpu_gaps: `nsys analyze` rule gpu_gaps (nsys 2023.4;
-- 2022.4: gpu-starv), "GPU Starvation": the times a GPU sits idle for
-- longer than gap= milliseconds.
-- For each process and device, the span from its first GPU operation's start
-- to its last one's end is searched for gaps between kernels, memcpys and
-- memsets. See docs/sql.md.

INCLUDE PERFETTO MODULE nsys.cuda;
INCLUDE PERFETTO MODULE nsys.analyze.filter;

-- The rule with its options: gap= (minimum gap, ms; nsys default 500),
-- rows= (negative: all), start=, end= (report time, ns) and nvtx= ('text' or
-- 'text@domain'), each NULL when not given.
--
-- Gaps are longer than gap= ms (strictly), numbered and ordered longest
-- first (then by start); rows= keeps the first ones.
CREATE PERFETTO FUNCTION nsys_gpu_gaps(
  -- gap= (ms; nsys default 500).
  gap_ms LONG,
  -- rows= (nsys default 50; negative: no limit).
  rows LONG,
  -- start= in report time (ns), or NULL.
  start_ns LONG,
  -- end= in report time (ns), or NULL.
  end_ns LONG,
  -- nvtx=, or NULL.
  nvtx STRING
)
RETURNS TABLE(
  -- Row#: 1 for the longest gap.
  row_num LONG,
  -- Duration (ns): the gap's length.
  duration_ns LONG,
  -- Start (ns): the gap's start, the end of the work before it (report time).
  start_ns LONG,
  -- PID.
  pid LONG,
  -- Device ID.
  device_id LONG,
  -- Context ID: context of the operation the gap follows.
  context_id LONG,
  -- The gap's end: the start of the work after it (report time).
  gap_end_ns LONG
) AS
WITH
  ops AS (SELECT * FROM _nsys_analyze_gpu_ops($start_ns, $end_ns, $nvtx)),
  starts AS (
    SELECT ts, pid, device,
           row_number() OVER (PARTITION BY pid, device ORDER BY ts) AS rn
    FROM ops
  ),
  ends AS (
    SELECT end_ts, pid, device, context,
           row_number() OVER (PARTITION BY pid, device ORDER BY end_ts) AS rn
    FROM ops
  ),
  gaps AS (
    SELECT s.ts - e.end_ts AS duration, e.end_ts AS gap_start, s.ts AS gap_end,
           e.pid, e.device, e.context
    FROM starts s
    JOIN ends e ON e.pid = s.pid AND e.device = s.device AND e.rn = s.rn - 1
    WHERE s.ts - e.end_ts > $gap_ms * 1000000 AND e.end_ts < s.ts
  )
SELECT
  row_number() OVER (ORDER BY duration DESC, gap_start) AS row_num,
  duration AS duration_ns,
  gap_start AS start_ns,
  pid,
  device AS device_id,
  context AS context_id,
  gap_end AS gap_end_ns
FROM gaps
ORDER BY row_num
LIMIT $rows;

-- The rule with nsys's defaults (gap=500, rows=50, no start=, end= or nvtx=).
CREATE PERFETTO VIEW nsys_gpu_gaps_default AS
SELECT * FROM nsys_gpu_gaps(500, 50, NULL, NULL, NULL);
