-- nsys.analyze.gpu_time_util: `nsys analyze` rule gpu_time_util (nsys
-- 2023.4; 2022.4: gpu-low-util), "GPU Time Utilization": for each process
-- and device, the span from its first GPU operation's start to its last
-- one's end is cut into chunks= equal chunks, and the chunks where kernels, memcpys and memsets keep the
-- GPU busy less than threshold= percent of the time are shown, consecutive
-- ones merged (weighted average). Time utilization, not resource
-- utilization: concurrent operations add up (and may pass 100%). See
-- docs/sql.md.

INCLUDE PERFETTO MODULE nsys.cuda;
INCLUDE PERFETTO MODULE nsys.analyze.filter;
INCLUDE PERFETTO MODULE nsys.stats.common;

-- nsys_gpu_time_util and nsys_gpu_time_util_2022 (below): the rule as nsys
-- 2023.4 finds it, and with merge_idle_chunks as 2022.4 does.
CREATE PERFETTO FUNCTION _nsys_gpu_time_util(
  -- threshold= (percent; nsys default 50).
  threshold LONG,
  -- chunks= (nsys default 30; 1 to 1000, else no rows).
  chunks LONG,
  -- rows= (nsys default 50; negative: no limit).
  rows LONG,
  -- start= in report time (ns), or NULL.
  start_ns LONG,
  -- end= in report time (ns), or NULL.
  end_ns LONG,
  -- nvtx=, or NULL.
  nvtx STRING,
  -- Keep only the first process's and device's empty chunk of each number.
  merge_idle_chunks BOOL
)
RETURNS TABLE(
  -- Row#: 1 for the least used region.
  row_num LONG,
  -- In-Use (%): time the GPU was in use, percent, rounded to 0.1.
  in_use_pct DOUBLE,
  -- Duration (ns) of the region (one chunk or several consecutive ones).
  duration_ns LONG,
  -- Start (ns) of the region (report time).
  start_ns LONG,
  -- PID.
  pid LONG,
  -- Device ID.
  device_id LONG,
  -- Context ID.
  context_id LONG
) AS
WITH RECURSIVE
  ids(range_id) AS (
    SELECT 0 WHERE $chunks BETWEEN 1 AND 1000
    UNION ALL
    SELECT range_id + 1 FROM ids WHERE range_id + 1 < $chunks
  ),
  ops AS (SELECT * FROM _nsys_analyze_gpu_ops($start_ns, $end_ns, $nvtx)),
  -- Per process and device: the span of its work, cut in chunks.
  rng AS (
    SELECT
      pid,
      device,
      max(context) AS context,
      min(ts) AS r_start,
      max(end_ts) AS r_end,
      (max(end_ts) - min(ts) + $chunks - 1) / $chunks AS chunk_size
    FROM ops
    GROUP BY device, pid
  ),
  chunk AS (
    SELECT
      i.range_id,
      r.pid,
      r.device,
      r.context,
      i.range_id * r.chunk_size + r.r_start AS c_start,
      min((i.range_id + 1) * r.chunk_size + r.r_start, r.r_end) AS c_end
    FROM rng r
    CROSS JOIN ids i
    WHERE i.range_id * r.chunk_size + r.r_start < min((i.range_id + 1) * r.chunk_size + r.r_start, r.r_end)
  ),
  -- Each operation with the chunks it may touch (first to last).
  seg(pid, device, ts, end_ts, i, last_i) AS (
    SELECT
      o.pid,
      o.device,
      o.ts,
      o.end_ts,
      (o.ts - r.r_start) / r.chunk_size,
      iif(o.end_ts > r.r_start, (o.end_ts - r.r_start - 1) / r.chunk_size, -1)
    FROM rng r
    JOIN ops o ON o.pid = r.pid AND o.device = r.device
    WHERE r.chunk_size > 0
    UNION ALL
    SELECT pid, device, ts, end_ts, i + 1, last_i FROM seg WHERE i < last_i
  ),
  -- Chunks with work: the time it covers (concurrent work adds up).
  busy AS (
    SELECT
      c.range_id,
      c.pid,
      c.device,
      sum(min(s.end_ts, c.c_end) - max(s.ts, c.c_start)) AS busy
    FROM seg s
    JOIN chunk c ON c.pid = s.pid AND c.device = s.device AND c.range_id = s.i
    WHERE s.i <= s.last_i AND s.ts < c.c_end AND s.end_ts > c.c_start
    GROUP BY c.pid, c.device, c.range_id
  ),
  used AS (
    SELECT
      c.range_id, c.pid, c.device, c.context, c.c_start, c.c_end,
      c.c_end - c.c_start AS size,
      CAST(b.busy AS DOUBLE) / (c.c_end - c.c_start) * 100 AS pct
    FROM chunk c
    JOIN busy b USING (pid, device, range_id)
  ),
  -- Chunks without work: one per chunk number (nsys groups them so).
  idle AS (
    SELECT
      c.range_id, c.pid, c.device, c.context, c.c_start, c.c_end,
      c.c_end - c.c_start AS size,
      0.0 AS pct,
      row_number() OVER (PARTITION BY c.range_id ORDER BY c.device, c.pid) AS k
    FROM chunk c
    LEFT JOIN busy b USING (pid, device, range_id)
    WHERE b.range_id IS NULL
  ),
  low AS (
    SELECT range_id, pid, device, context, c_start, c_end, size, pct
    FROM used
    WHERE pct < $threshold
    UNION ALL
    SELECT range_id, pid, device, context, c_start, c_end, size, pct
    FROM idle
    WHERE (k = 1 OR NOT $merge_idle_chunks) AND pct < $threshold
  ),
  runs AS (
    SELECT
      *,
      range_id - row_number() OVER (PARTITION BY pid, device ORDER BY range_id) AS run_id
    FROM low
  ),
  merged AS (
    SELECT
      min(c_start) AS start,
      max(c_end) - min(c_start) AS duration,
      -- round(x, 1) as nsys's SQLite (3.40) does it (nsys.stats.common).
      _nsys_stats_round(sum(size * pct) / sum(size), 1) AS average,
      pid,
      device,
      context
    FROM runs
    GROUP BY run_id, device, pid
    ORDER BY run_id, device, pid
    LIMIT $rows
  )
SELECT
  row_number() OVER (ORDER BY average, duration) AS row_num,
  average AS in_use_pct,
  duration AS duration_ns,
  start AS start_ns,
  pid,
  device AS device_id,
  context AS context_id
FROM merged
ORDER BY row_num
LIMIT $rows;

-- The rule with its options: threshold= (percent; nsys default 50),
-- chunks= (1 to 1000; nsys default 30), rows= (negative: all), start=, end=
-- (report time, ns) and nvtx= ('text' or 'text@domain'), each NULL when not
-- given.
--
-- Chunks last ceil(span / chunks) ns, so the last one may be shorter (or
-- chunks be fewer). As nsys does:
--  - rows= keeps the first regions in (run, device, pid) order, a run being
--    the consecutive low chunks of one process and device, and those are
--    then numbered and ordered by in-use percentage, then duration;
--  - the context is the largest context id of the process's work on the
--    device (nsys takes one of them);
--  - In-Use (%) is rounded to one decimal as nsys's SQLite 3.40 rounds.
-- nsys 2022.4 differs in one way: nsys_gpu_time_util_2022.
CREATE PERFETTO FUNCTION nsys_gpu_time_util(
  -- threshold= (percent; nsys default 50).
  threshold LONG,
  -- chunks= (nsys default 30; 1 to 1000, else no rows).
  chunks LONG,
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
  -- Row#: 1 for the least used region.
  row_num LONG,
  -- In-Use (%): time the GPU was in use, percent, rounded to 0.1.
  in_use_pct DOUBLE,
  -- Duration (ns) of the region (one chunk or several consecutive ones).
  duration_ns LONG,
  -- Start (ns) of the region (report time).
  start_ns LONG,
  -- PID.
  pid LONG,
  -- Device ID.
  device_id LONG,
  -- Context ID.
  context_id LONG
) AS
SELECT * FROM _nsys_gpu_time_util($threshold, $chunks, $rows, $start_ns, $end_ns, $nvtx, FALSE);

-- The rule as nsys 2022.4's gpu-low-util finds it (same arguments and
-- columns): chunks that no operation touches (0% in use) are merged across
-- processes and devices by chunk number: of the empty chunks numbered k, only
-- the first process's and device's (by device, then pid) is kept, so an idle
-- stretch of one device may end a low region of another device early (2023.4
-- keeps each). With one process and one device the two agree.
CREATE PERFETTO FUNCTION nsys_gpu_time_util_2022(
  -- threshold= (percent; nsys default 50).
  threshold LONG,
  -- chunks= (nsys default 30; 1 to 1000, else no rows).
  chunks LONG,
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
  -- Row#: 1 for the least used region.
  row_num LONG,
  -- In-Use (%): time the GPU was in use, percent, rounded to 0.1.
  in_use_pct DOUBLE,
  -- Duration (ns) of the region (one chunk or several consecutive ones).
  duration_ns LONG,
  -- Start (ns) of the region (report time).
  start_ns LONG,
  -- PID.
  pid LONG,
  -- Device ID.
  device_id LONG,
  -- Context ID.
  context_id LONG
) AS
SELECT * FROM _nsys_gpu_time_util($threshold, $chunks, $rows, $start_ns, $end_ns, $nvtx, TRUE);

-- The rule with nsys's defaults (threshold=50, chunks=30, rows=50, no
-- start=, end= or nvtx=).
CREATE PERFETTO VIEW nsys_gpu_time_util_default AS
SELECT * FROM nsys_gpu_time_util(50, 30, 50, NULL, NULL, NULL);
