-- nsys.recipes.stats: one report's rows of NVIDIA's statistics recipes (nsys
-- 2023.4's `nsys recipe`), as `nsys-perfetto recipe NAME` writes them into
-- rank_stats.csv for that report:
--   nsys_recipe_cuda_api_sum           cuda_api_sum
--   nsys_recipe_cuda_gpu_kern_sum      cuda_gpu_kern_sum (demangled names)
--   nsys_recipe_cuda_gpu_mem_time_sum  cuda_gpu_mem_time_sum
--   nsys_recipe_cuda_gpu_mem_size_sum  cuda_gpu_mem_size_sum (bytes)
--   nsys_recipe_osrt_sum               osrt_sum
-- Each is the report's `nsys stats` table (nsys.stats.cuda, nsys.stats.cpu)
-- with the quartiles the recipes add (q1, q3); the job's tables (all_stats)
-- combine reports, which is the command's work. See docs/recipes.md.

INCLUDE PERFETTO MODULE nsys.stats.cuda;
INCLUDE PERFETTO MODULE nsys.stats.cpu;

-- The lower and upper quartiles of the non-NULL `val` per `grp`, as nsys's
-- SQL takes them: of the sorted values, the distinct values at or around
-- rank n * p (both neighbours when n * p is whole), averaged (a single value
-- is kept as it is). Columns: grp, q1, q3.
CREATE PERFETTO MACRO _nsys_recipe_quartiles(src TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    _d AS (SELECT grp, val, count(*) AS c FROM $src WHERE val IS NOT NULL GROUP BY grp, val),
    _w AS (
      SELECT grp, val, c,
             sum(c) OVER (PARTITION BY grp ORDER BY val
                          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS thru,
             sum(c) OVER (PARTITION BY grp) AS n
      FROM _d
    ),
    _q1 AS (
      SELECT grp, iif(count(*) = 1, min(val), sum(val) * 1.0 / count(*)) AS q
      FROM _w WHERE thru >= n / 4.0 AND thru - c <= n / 4.0 GROUP BY grp
    ),
    _q3 AS (
      SELECT grp, iif(count(*) = 1, min(val), sum(val) * 1.0 / count(*)) AS q
      FROM _w WHERE thru >= n * 3 / 4.0 AND thru - c <= n * 3 / 4.0 GROUP BY grp
    )
  SELECT _q1.grp, _q1.q AS q1, _q3.q AS q3 FROM _q1 JOIN _q3 USING (grp)
);

-- The duration columns of a recipe's rank_stats over `src` (grp, val):
-- grp, time_pct, total_time_ns, num, avg_ns, q1_ns, med_ns, q3_ns, min_ns,
-- max_ns, stddev_ns.
CREATE PERFETTO MACRO _nsys_recipe_durations(src TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT s.grp, s.time_pct, s.total_time_ns, s.num, s.avg_ns, q.q1 AS q1_ns, s.med_ns,
         q.q3 AS q3_ns, s.min_ns, s.max_ns, s.stddev_ns
  FROM _nsys_stats_summary_ns!($src) AS s
  JOIN _nsys_recipe_quartiles!($src) AS q USING (grp)
);

-- cuda_api_sum's rows of this report: CUDA API calls per name.
CREATE PERFETTO VIEW nsys_recipe_cuda_api_sum(
  -- Name, less a '_vNNNN' version suffix.
  name STRING,
  -- Share of the summed time of all calls, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of calls.
  num_calls LONG,
  -- Mean duration, ns, 1 decimal.
  avg_ns DOUBLE,
  -- Lower quartile, ns.
  q1_ns DOUBLE,
  -- Median duration, ns, 1 decimal.
  med_ns DOUBLE,
  -- Upper quartile, ns.
  q3_ns DOUBLE,
  -- Shortest, ns.
  min_ns LONG,
  -- Longest, ns.
  max_ns LONG,
  -- Sample standard deviation, ns, 1 decimal.
  stddev_ns DOUBLE
) AS
SELECT _nsys_cuda_api_name(grp) AS name, time_pct, total_time_ns, num AS num_calls, avg_ns, q1_ns,
       med_ns, q3_ns, min_ns, max_ns, stddev_ns
FROM _nsys_recipe_durations!((SELECT full_name AS grp, dur AS val FROM nsys_cuda_api_calls))
ORDER BY total_time_ns DESC, grp;

-- cuda_gpu_kern_sum's rows of this report: kernels per demangled name.
CREATE PERFETTO VIEW nsys_recipe_cuda_gpu_kern_sum(
  -- Demangled kernel name.
  name STRING,
  -- Share of the summed time of all kernels, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of kernels.
  instances LONG,
  -- Mean duration, ns, 1 decimal.
  avg_ns DOUBLE,
  -- Lower quartile, ns.
  q1_ns DOUBLE,
  -- Median duration, ns, 1 decimal.
  med_ns DOUBLE,
  -- Upper quartile, ns.
  q3_ns DOUBLE,
  -- Shortest, ns.
  min_ns LONG,
  -- Longest, ns.
  max_ns LONG,
  -- Sample standard deviation, ns, 1 decimal.
  stddev_ns DOUBLE
) AS
SELECT grp AS name, time_pct, total_time_ns, num AS instances, avg_ns, q1_ns, med_ns, q3_ns,
       min_ns, max_ns, stddev_ns
FROM _nsys_recipe_durations!((
  SELECT _nsys_cuda_kernel_name('demangled', short_name, demangled_name) AS grp, dur AS val
  FROM nsys_kernels
))
ORDER BY total_time_ns DESC, num, grp;

-- cuda_gpu_mem_time_sum's rows of this report: memory operations by time.
CREATE PERFETTO VIEW nsys_recipe_cuda_gpu_mem_time_sum(
  -- '[CUDA memcpy Host-to-Device]', ..., '[CUDA memset]'.
  operation STRING,
  -- Share of the summed time of all operations, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of operations.
  count LONG,
  -- Mean duration, ns, 1 decimal.
  avg_ns DOUBLE,
  -- Lower quartile, ns.
  q1_ns DOUBLE,
  -- Median duration, ns, 1 decimal.
  med_ns DOUBLE,
  -- Upper quartile, ns.
  q3_ns DOUBLE,
  -- Shortest, ns.
  min_ns LONG,
  -- Longest, ns.
  max_ns LONG,
  -- Sample standard deviation, ns, 1 decimal.
  stddev_ns DOUBLE
) AS
SELECT grp AS operation, time_pct, total_time_ns, num AS count, avg_ns, q1_ns, med_ns, q3_ns,
       min_ns, max_ns, stddev_ns
FROM _nsys_recipe_durations!((SELECT operation AS grp, dur AS val FROM _nsys_cuda_memops))
ORDER BY total_time_ns DESC, grp;

-- cuda_gpu_mem_size_sum's rows of this report: memory operations by size,
-- in bytes, unrounded (as the recipe prints them).
CREATE PERFETTO VIEW nsys_recipe_cuda_gpu_mem_size_sum(
  -- '[CUDA memcpy Host-to-Device]', ..., '[CUDA memset]'.
  operation STRING,
  -- Summed size, bytes.
  total_bytes LONG,
  -- Number of operations.
  count LONG,
  -- Mean size, bytes.
  avg_bytes DOUBLE,
  -- Lower quartile, bytes.
  q1_bytes DOUBLE,
  -- Median size, bytes.
  med_bytes DOUBLE,
  -- Upper quartile, bytes.
  q3_bytes DOUBLE,
  -- Smallest, bytes.
  min_bytes LONG,
  -- Largest, bytes.
  max_bytes LONG,
  -- Sample standard deviation, bytes.
  stddev_bytes DOUBLE
) AS
WITH src AS (SELECT operation AS grp, bytes AS val FROM _nsys_cuda_memops)
SELECT s.grp AS operation, s.total AS total_bytes, s.num AS count, s.mean AS avg_bytes,
       q.q1 AS q1_bytes, s.med AS med_bytes, q.q3 AS q3_bytes, s.mn AS min_bytes,
       s.mx AS max_bytes, s.stddev AS stddev_bytes
FROM _nsys_stats_summary!(src) AS s
JOIN _nsys_recipe_quartiles!(src) AS q USING (grp)
ORDER BY s.total DESC, s.grp;

-- osrt_sum's rows of this report: OS runtime calls per function.
CREATE PERFETTO VIEW nsys_recipe_osrt_sum(
  -- Function name.
  name STRING,
  -- Share of the summed time of all calls, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of calls.
  num_calls LONG,
  -- Mean duration, ns, 1 decimal.
  avg_ns DOUBLE,
  -- Lower quartile, ns.
  q1_ns DOUBLE,
  -- Median duration, ns, 1 decimal.
  med_ns DOUBLE,
  -- Upper quartile, ns.
  q3_ns DOUBLE,
  -- Shortest, ns.
  min_ns LONG,
  -- Longest, ns.
  max_ns LONG,
  -- Sample standard deviation, ns, 1 decimal.
  stddev_ns DOUBLE
) AS
SELECT grp AS name, time_pct, total_time_ns, num AS num_calls, avg_ns, q1_ns, med_ns, q3_ns,
       min_ns, max_ns, stddev_ns
FROM _nsys_recipe_durations!((
  SELECT name AS grp, dur AS val FROM nsys_osrt_calls WHERE event_class = 27
))
ORDER BY total_time_ns DESC, grp;
