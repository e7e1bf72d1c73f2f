-- nsys.extras.gpu_utilization: GPU utilization per device over time, as
-- nsys-ui shows it on a collapsed CUDA HW row, and as the converter's
-- "GPU utilization" counter in each GPU group holds it.
--
-- A device is busy while at least one kernel, memcpy or memset runs on it,
-- on any stream of any process: the union of their intervals (operations
-- that touch make one busy stretch; operations of no duration none;
-- syncs are not work). Utilization over a time window is the busy time in
-- it divided by its length: time utilization, never above 100%, whatever
-- the number of streams busy at once. See docs/sql.md.

INCLUDE PERFETTO MODULE intervals.overlap;
INCLUDE PERFETTO MODULE intervals.intersect;
INCLUDE PERFETTO MODULE nsys.cuda;

-- The busy stretches of each GPU: the union of its kernels, memcpys and
-- memsets, one row per maximal stretch with work, in time order.
CREATE PERFETTO TABLE nsys_gpu_busy(
  -- Row id (0, 1, ...), for the intervals stdlib.
  id LONG,
  -- GPU group (nsys_gpus.gpu_track_id).
  gpu_track_id LONG,
  -- CUDA device id.
  device LONG,
  -- Start of the stretch, ns.
  ts LONG,
  -- Its length, ns.
  dur LONG
) AS
WITH u AS (
  SELECT ts, dur, gpu_track_id
  FROM interval_merge_overlapping_partitioned!(
    (SELECT ts, dur, gpu_track_id FROM nsys_gpu_ops WHERE dur > 0 AND gpu_track_id IS NOT NULL),
    (gpu_track_id)
  )
)
SELECT
  row_number() OVER (ORDER BY u.gpu_track_id, u.ts) - 1 AS id,
  u.gpu_track_id,
  g.device,
  u.ts,
  u.dur
FROM u
LEFT JOIN nsys_gpus g USING (gpu_track_id)
ORDER BY u.gpu_track_id, u.ts;

-- GPU utilization as steps, the values of the "GPU utilization" counter:
-- from each GPU's first operation to the end of its last one, its busy
-- stretches (value 100) and the idle gaps between them (value 0). The
-- counter holds the same steps (100 at each stretch's start, 0 at its end).
CREATE PERFETTO TABLE nsys_gpu_utilization(
  -- GPU group (nsys_gpus.gpu_track_id).
  gpu_track_id LONG,
  -- CUDA device id.
  device LONG,
  -- Start of the step, ns.
  ts LONG,
  -- Its length, ns.
  dur LONG,
  -- Percent of the step the GPU has work: 100 (busy) or 0 (idle).
  value DOUBLE
) AS
SELECT gpu_track_id, device, ts, dur, 100.0 AS value
FROM nsys_gpu_busy
UNION ALL
SELECT gpu_track_id, device, ts + dur AS ts, next_ts - (ts + dur) AS dur, 0.0 AS value
FROM (
  SELECT
    gpu_track_id, device, ts, dur,
    lead(ts) OVER (PARTITION BY gpu_track_id ORDER BY ts) AS next_ts
  FROM nsys_gpu_busy
)
WHERE next_ts IS NOT NULL
ORDER BY gpu_track_id, ts;

-- Per GPU: busy and idle time from its first operation's start to its last
-- one's end, and the utilization over that span and over the whole trace.
CREATE PERFETTO TABLE nsys_gpu_utilization_summary(
  -- GPU group.
  gpu_track_id LONG,
  -- CUDA device id.
  device LONG,
  -- Start of the first kernel, memcpy or memset, ns.
  first_ts LONG,
  -- End of the last one, ns.
  last_end LONG,
  -- last_end - first_ts, ns.
  span_ns LONG,
  -- Time with work (the union), ns.
  busy_ns LONG,
  -- span_ns - busy_ns.
  idle_ns LONG,
  -- Busy stretches.
  stretches LONG,
  -- 100 * busy_ns / span_ns.
  utilization_pct DOUBLE,
  -- 100 * busy_ns / the trace's duration.
  trace_utilization_pct DOUBLE
) AS
SELECT
  gpu_track_id,
  device,
  min(ts) AS first_ts,
  max(ts + dur) AS last_end,
  max(ts + dur) - min(ts) AS span_ns,
  sum(dur) AS busy_ns,
  max(ts + dur) - min(ts) - sum(dur) AS idle_ns,
  count(*) AS stretches,
  100.0 * sum(dur) / (max(ts + dur) - min(ts)) AS utilization_pct,
  100.0 * sum(dur) / (SELECT max(end_ts - start_ts, 1) FROM trace_bounds) AS trace_utilization_pct
FROM nsys_gpu_busy
GROUP BY gpu_track_id, device
ORDER BY gpu_track_id;

-- GPU utilization in bins of bin_ns nanoseconds (NULL or <= 0: the trace's
-- duration / 1000, rounded up), from the start of the trace to its end: the
-- percentage of each bin the GPU has work, as nsys-ui's heat map shows it.
-- Every GPU of nsys_gpu_busy gets every bin (idle ones 0); the last bin
-- ends with the trace.
CREATE PERFETTO FUNCTION nsys_gpu_utilization_bins(
  -- Bin width, ns.
  bin_ns LONG
)
RETURNS TABLE(
  -- GPU group.
  gpu_track_id LONG,
  -- CUDA device id.
  device LONG,
  -- Bin index, from 0.
  bin LONG,
  -- Start of the bin, ns.
  ts LONG,
  -- Its length, ns.
  dur LONG,
  -- Time with work in the bin, ns.
  busy_ns LONG,
  -- 100 * busy_ns / dur.
  value DOUBLE
) AS
WITH RECURSIVE
  bounds AS (
    SELECT
      start_ts,
      end_ts,
      iif(
        $bin_ns IS NULL OR $bin_ns <= 0,
        max((end_ts - start_ts + 999) / 1000, 1),
        $bin_ns
      ) AS width
    FROM trace_bounds
  ),
  idx(i) AS (
    SELECT 0
    UNION ALL
    SELECT i + 1 FROM idx, bounds WHERE start_ts + (i + 1) * width < end_ts
  ),
  gpus AS (SELECT DISTINCT gpu_track_id, device FROM nsys_gpu_busy),
  bins AS (
    SELECT
      row_number() OVER (ORDER BY g.gpu_track_id, idx.i) AS id,
      g.gpu_track_id,
      g.device,
      idx.i AS bin,
      b.start_ts + idx.i * b.width AS ts,
      min(b.width, b.end_ts - (b.start_ts + idx.i * b.width)) AS dur
    FROM gpus g CROSS JOIN idx CROSS JOIN bounds b
  ),
  busy AS (SELECT id, ts, dur, gpu_track_id FROM nsys_gpu_busy),
  ii AS (
    SELECT id_0 AS bin_id, sum(dur) AS busy_ns
    FROM _interval_intersect!((bins, busy), (gpu_track_id))
    GROUP BY id_0
  )
SELECT
  bins.gpu_track_id,
  bins.device,
  bins.bin,
  bins.ts,
  bins.dur,
  coalesce(ii.busy_ns, 0) AS busy_ns,
  100.0 * coalesce(ii.busy_ns, 0) / max(bins.dur, 1) AS value
FROM bins
LEFT JOIN ii ON ii.bin_id = bins.id
ORDER BY bins.gpu_track_id, bins.ts;
