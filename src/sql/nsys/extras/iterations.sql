-- nsys.extras.iterations: iterations of a loop marked with an NVTX range
-- (a training step, a solver iteration): each instance of the range, on
-- its thread, with its CPU time, its GPU projection and the kernels
-- launched inside, and the slowest ones.
--
-- An iteration is one NVTX range (push/pop or start/end). The instances
-- of one loop are the ranges of one name (or name pattern) in one domain
-- started on one thread, numbered in start order. A range's name is
-- nsys_nvtx_ranges.name: a PyTorch op range (`aten::to, seq = 12, op_id =
-- 998949`) is named by its op (`aten::to`), so the calls of one op are
-- one loop, and the repeated ranges group by op. What an iteration
-- launched is the GPU work (kernels, memcpys, memsets) of the CUDA calls
-- that start inside it (ts <= call start < ts + dur) on its thread: the
-- rule of nsys's NVTX GPU projection (nsys_nvtx_gpu_ranges), computed
-- here per range instance with the stdlib's intervals.intersect. See
-- docs/sql.md.

INCLUDE PERFETTO MODULE intervals.overlap;
INCLUDE PERFETTO MODULE intervals.intersect;
INCLUDE PERFETTO MODULE nsys.cuda;
INCLUDE PERFETTO MODULE nsys.nvtx;

-- CUDA API calls as one-nanosecond intervals at their start, for the
-- intersection with ranges (a call is inside a range when it starts there).
CREATE PERFETTO TABLE _nsys_iter_calls(
  -- Call slice id.
  id LONG,
  -- Its start.
  ts LONG,
  -- 1.
  dur LONG,
  -- Its thread.
  utid LONG
) AS
SELECT id, ts, 1 AS dur, utid FROM nsys_cuda_api_calls WHERE utid IS NOT NULL;

-- GPU work with the call that launched it.
CREATE PERFETTO TABLE _nsys_iter_ops(
  -- The launching call.
  call_id LONG,
  -- Start.
  ts LONG,
  -- Duration.
  dur LONG,
  -- 1 for a kernel.
  is_kernel LONG
) AS
SELECT api_call_id AS call_id, ts, dur, category = 'kernel' AS is_kernel
FROM nsys_gpu_ops
WHERE api_call_id IS NOT NULL;

-- The instances of the NVTX ranges named `name` (exact, or a GLOB pattern
-- such as 'step *'; matched on the range's name, a PyTorch op range's op,
-- or on its whole text): one row per range, numbered per (domain, thread)
-- in start order, with what it launched on the GPU.
CREATE PERFETTO FUNCTION nsys_iterations(
  -- Range name, or GLOB pattern.
  name STRING
)
RETURNS TABLE(
  -- The NVTX range's slice id (nsys_nvtx_ranges.id).
  id LONG,
  -- Range name.
  name STRING,
  -- Domain.
  domain STRING,
  -- Thread that started it (thread.utid).
  utid LONG,
  -- Its thread id.
  tid LONG,
  -- Process id.
  pid LONG,
  -- 1, 2, ...: the instance's number in its (domain, thread) loop.
  iteration LONG,
  -- Instances in the loop.
  iterations LONG,
  -- Start, ns.
  ts LONG,
  -- CPU time: the range's duration, ns.
  dur LONG,
  -- CUDA API calls starting inside it on its thread.
  cuda_calls LONG,
  -- GPU operations (kernels, memcpys, memsets) they launched.
  gpu_ops LONG,
  -- Kernels among them.
  kernels LONG,
  -- Summed kernel duration, ns.
  kernel_ns LONG,
  -- GPU projection: start of the first operation, ns (NULL without any).
  gpu_ts LONG,
  -- GPU projection: from gpu_ts to the end of the last operation, ns.
  gpu_dur LONG,
  -- GPU busy time: the union of the operations, ns.
  gpu_busy_ns LONG,
  -- 1 for the slowest instance of its loop (CPU time), 2 next, ...
  cpu_rank LONG,
  -- 1 for the instance with the longest GPU projection, 2 next, ...
  gpu_rank LONG,
  -- The range's whole text (nsys_nvtx_ranges.text: with its seq and
  -- op_id for a PyTorch op range).
  text STRING
) AS
WITH
  r AS (
    SELECT id, ts, dur, name, domain, utid, tid, pid, text
    FROM nsys_nvtx_ranges
    WHERE (name = $name OR name GLOB $name OR text = $name OR text GLOB $name)
      AND utid IS NOT NULL
  ),
  ri AS (SELECT id, ts, dur, utid FROM r WHERE dur > 0),
  c AS (SELECT id, ts, dur, utid FROM _nsys_iter_calls WHERE utid IN (SELECT utid FROM r)),
  rc AS (
    SELECT id_0 AS range_id, id_1 AS call_id
    FROM _interval_intersect!((ri, c), (utid))
  ),
  ops AS (
    SELECT rc.range_id, o.ts, o.dur, o.is_kernel
    FROM rc JOIN _nsys_iter_ops o ON o.call_id = rc.call_id
  ),
  calls AS (SELECT range_id, count(*) AS cuda_calls FROM rc GROUP BY range_id),
  agg AS (
    SELECT
      range_id,
      count(*) AS gpu_ops,
      sum(is_kernel) AS kernels,
      sum(iif(is_kernel, dur, 0)) AS kernel_ns,
      min(ts) AS gpu_ts,
      max(ts + dur) - min(ts) AS gpu_dur
    FROM ops
    GROUP BY range_id
  ),
  busy AS (
    SELECT range_id, sum(dur) AS gpu_busy_ns
    FROM interval_merge_overlapping_partitioned!(
      (SELECT ts, dur, range_id FROM ops WHERE dur > 0),
      (range_id)
    )
    GROUP BY range_id
  ),
  j AS (
    SELECT
      r.*,
      coalesce(calls.cuda_calls, 0) AS cuda_calls,
      coalesce(agg.gpu_ops, 0) AS gpu_ops,
      coalesce(agg.kernels, 0) AS kernels,
      coalesce(agg.kernel_ns, 0) AS kernel_ns,
      agg.gpu_ts,
      agg.gpu_dur,
      coalesce(busy.gpu_busy_ns, 0) AS gpu_busy_ns
    FROM r
    LEFT JOIN calls ON calls.range_id = r.id
    LEFT JOIN agg ON agg.range_id = r.id
    LEFT JOIN busy ON busy.range_id = r.id
  )
SELECT
  id, name, domain, utid, tid, pid,
  row_number() OVER (PARTITION BY domain, utid ORDER BY ts, id) AS iteration,
  count(*) OVER (PARTITION BY domain, utid) AS iterations,
  ts, dur, cuda_calls, gpu_ops, kernels, kernel_ns, gpu_ts, gpu_dur, gpu_busy_ns,
  rank() OVER (PARTITION BY domain, utid ORDER BY dur DESC) AS cpu_rank,
  rank() OVER (PARTITION BY domain, utid ORDER BY coalesce(gpu_dur, -1) DESC) AS gpu_rank,
  text
FROM j
ORDER BY domain, utid, ts, id;

-- Per loop (domain, thread) of nsys_iterations(name): how many
-- iterations, and their CPU time and GPU projection: total, mean, min,
-- p50, p90 (nearest rank: the smallest value with at least that percent
-- of the iterations at or below it) and max, and the slowest iteration.
CREATE PERFETTO FUNCTION nsys_iteration_summary(
  -- Range name, or GLOB pattern.
  name STRING
)
RETURNS TABLE(
  -- The name (the pattern when the loop's ranges have several names).
  name STRING,
  -- Domain.
  domain STRING,
  -- Thread.
  utid LONG,
  -- Thread id.
  tid LONG,
  -- Process id.
  pid LONG,
  -- Iterations.
  iterations LONG,
  -- Summed CPU time, ns.
  total_ns LONG,
  -- Mean CPU time, ns.
  avg_ns DOUBLE,
  -- Shortest, ns.
  min_ns LONG,
  -- Median (nearest rank), ns.
  p50_ns LONG,
  -- 90th percentile (nearest rank), ns.
  p90_ns LONG,
  -- Longest, ns.
  max_ns LONG,
  -- Median GPU projection (gpu_dur), ns.
  gpu_p50_ns LONG,
  -- 90th percentile GPU projection, ns.
  gpu_p90_ns LONG,
  -- Mean GPU busy time, ns.
  gpu_busy_avg_ns DOUBLE,
  -- Kernels launched, all iterations.
  kernels LONG,
  -- The slowest iteration (CPU time): its number.
  slowest_iteration LONG,
  -- Its range's slice id.
  slowest_id LONG
) AS
WITH
  it AS (SELECT * FROM nsys_iterations($name)),
  ranked AS (
    SELECT
      it.*,
      row_number() OVER (PARTITION BY domain, utid ORDER BY dur, id) AS cpu_pos,
      row_number() OVER (PARTITION BY domain, utid ORDER BY coalesce(gpu_dur, 0), id) AS gpu_pos
    FROM it
  )
SELECT
  iif(count(DISTINCT name) = 1, max(name), $name) AS name,
  domain,
  utid,
  max(tid) AS tid,
  max(pid) AS pid,
  count(*) AS iterations,
  sum(dur) AS total_ns,
  avg(dur) AS avg_ns,
  min(dur) AS min_ns,
  min(iif(cpu_pos * 100 >= 50 * iterations, dur, NULL)) AS p50_ns,
  min(iif(cpu_pos * 100 >= 90 * iterations, dur, NULL)) AS p90_ns,
  max(dur) AS max_ns,
  min(iif(gpu_pos * 100 >= 50 * iterations, coalesce(gpu_dur, 0), NULL)) AS gpu_p50_ns,
  min(iif(gpu_pos * 100 >= 90 * iterations, coalesce(gpu_dur, 0), NULL)) AS gpu_p90_ns,
  avg(gpu_busy_ns) AS gpu_busy_avg_ns,
  sum(kernels) AS kernels,
  max(iif(cpu_rank = 1, iteration, NULL)) AS slowest_iteration,
  max(iif(cpu_rank = 1, id, NULL)) AS slowest_id
FROM ranked
GROUP BY domain, utid
ORDER BY domain, utid;

-- The ranges of each thread that no other range of it contains. A range
-- without a parent slice may still be nested: past 256 levels the converter
-- goes on in a further lane of the thread's row, where the range opens at
-- depth 0 (docs/sql.md). So a root is checked against the roots before it:
-- one that starts no later and ends no earlier contains it.
CREATE PERFETTO VIEW _nsys_top_level_ranges(
  -- Range slice id.
  id LONG
) AS
SELECT id
FROM (
  SELECT
    id,
    ts + dur AS end_ts,
    max(ts + dur) OVER (
      PARTITION BY utid ORDER BY ts, dur DESC, id
      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS end_before
  FROM nsys_nvtx_ranges
  WHERE parent_id IS NULL AND utid IS NOT NULL
)
WHERE end_before IS NULL OR end_before < end_ts;

-- The repeated top-level NVTX ranges: one row per (name, domain, thread)
-- with at least two ranges that are not nested in another range, the
-- candidates for a loop's iterations, the longest in total first. Names
-- are nsys_nvtx_ranges.name: the calls of a PyTorch op group by op.
CREATE PERFETTO VIEW nsys_repeated_ranges(
  -- Range name.
  name STRING,
  -- Domain.
  domain STRING,
  -- Thread.
  utid LONG,
  -- Thread id.
  tid LONG,
  -- Process id.
  pid LONG,
  -- Instances.
  count LONG,
  -- Summed duration, ns.
  total_ns LONG,
  -- Mean duration, ns.
  avg_ns DOUBLE,
  -- Shortest, ns.
  min_ns LONG,
  -- Longest, ns.
  max_ns LONG,
  -- 1 when they are calls of a PyTorch op (their text is more than the
  -- name: `aten::to, seq = 12, op_id = 998949`).
  pytorch_op LONG
) AS
SELECT
  name, domain, utid, max(tid) AS tid, max(pid) AS pid,
  count(*) AS count,
  sum(dur) AS total_ns,
  avg(dur) AS avg_ns,
  min(dur) AS min_ns,
  max(dur) AS max_ns,
  max(text IS NOT name) AS pytorch_op
FROM nsys_nvtx_ranges
WHERE id IN (SELECT id FROM _nsys_top_level_ranges) AND name IS NOT NULL
GROUP BY name, domain, utid
HAVING count(*) >= 2
ORDER BY total_ns DESC, count DESC, name, domain, utid;

-- The default loop: the (name, domain) of nsys_repeated_ranges whose
-- instances cover the most time, over all threads (each rank of a
-- data-parallel job runs its own copy of the loop). Ranges of the program's
-- own come before the calls of a PyTorch op (pytorch_op), which repeat at
-- the top level without marking a step.
CREATE PERFETTO VIEW _nsys_top_iteration_range(
  -- Name.
  name STRING,
  -- Domain.
  domain STRING
) AS
SELECT name, domain
FROM nsys_repeated_ranges
GROUP BY name, domain
ORDER BY max(pytorch_op), sum(total_ns) DESC, sum(count) DESC, name, domain
LIMIT 1;

-- nsys_iterations() of the default loop (_nsys_top_iteration_range): the
-- instances of the repeated top-level range that covers the most time, on
-- every thread that runs it. Empty when no top-level range repeats.
CREATE PERFETTO VIEW nsys_top_iterations AS
SELECT i.*
FROM _nsys_top_iteration_range t
JOIN nsys_iterations(t.name) i ON i.domain = t.domain;

-- nsys_iteration_summary() of the default loop.
CREATE PERFETTO VIEW nsys_top_iteration_summary AS
SELECT s.*
FROM _nsys_top_iteration_range t
JOIN nsys_iteration_summary(t.name) s ON s.domain = t.domain;
