-- nsys.recipes.maps: one report's rows of NVIDIA's utilization maps (nsys
-- 2023.4's `nsys recipe`), as `nsys-perfetto recipe NAME` writes them into
-- analysis.csv when the report is the job's only one:
--   nsys_recipe_cuda_gpu_time_util_map(bins, cumulative)  cuda_gpu_time_util_map
-- The window is the report's own session, where the recipe cuts the job's
-- (the earliest session start to the latest end): as the recipe places a
-- session, from the report's time 0 for the session's duration
-- (ANALYSIS_DETAILS, which the converter writes into the GPU groups'
-- descriptions). The other maps read what the trace does not carry (GPU
-- metrics samples, NIC counters) or what the command answers only without
-- data (NCCL, MPI, UCX over GPU time); they have no module. The job's table
-- (every report on one grid) is the command's work. See docs/recipes.md.

INCLUDE PERFETTO MODULE nsys.cuda;

-- x rounded to 1 decimal as numpy rounds (x * 10, half to even, / 10).
CREATE PERFETTO FUNCTION _nsys_recipe_round1(
  -- The value.
  x DOUBLE
)
RETURNS DOUBLE AS
SELECT
  CASE
    WHEN $x IS NULL THEN NULL
    ELSE (
      SELECT iif(y - floor(y) > 0.5 OR (y - floor(y) = 0.5 AND cast(floor(y) AS INT) % 2 != 0),
                 floor(y) + 1, floor(y)) / 10.0
      FROM (SELECT $x * 10.0 AS y)
    )
  END;

-- Each GPU group's report session: its duration, ns, and the report's time
-- shift; NULL duration where the trace does not say (made before this
-- version, or the report has no ANALYSIS_DETAILS).
CREATE PERFETTO TABLE _nsys_recipe_gpu_session(
  -- The GPU group (nsys_gpus.gpu_track_id).
  gpu_track_id LONG,
  -- Session duration, ns.
  duration LONG,
  -- Trace time minus report time, ns.
  time_shift_ns LONG
) AS
SELECT
  g.gpu_track_id,
  cast_int!(_nsys_desc(d.description, 'session end'))
    - cast_int!(_nsys_desc(d.description, 'session start')) AS duration,
  g.time_shift_ns
FROM nsys_gpus g JOIN _nsys_track_desc d ON d.track_id = g.gpu_track_id;

-- cuda_gpu_time_util_map's rows of this report: per process and GPU (pid,
-- then device), for each of `bins` bins of the session, the share of the bin
-- in which a kernel ran, %, to 0.1: kernels that overlap or touch merged
-- first unless `cumulative` (then each adds its own time, and a bin can pass
-- 100); the session's last bin, when the session ends inside it, counted
-- over its part in the session. Bins past the session are NULL (the
-- recipe's NaN). The shares are sums of floating-point parts, taken in
-- SQLite's order, not the recipe's: a share that falls on a tie of the last
-- digit could round the other way (none does in the corpus).
CREATE PERFETTO FUNCTION nsys_recipe_cuda_gpu_time_util_map(
  -- Number of bins (the recipe's --bins; its default is 30).
  bins LONG,
  -- The recipe's --cumulative: 1 to add kernels' times without merging.
  cumulative BOOL
)
RETURNS TABLE(
  -- The bin's start, ns from the session's (the CSV's Duration).
  duration LONG,
  -- Busy share of the bin, %, 1 decimal; NULL outside the session (Kernel).
  kernel DOUBLE,
  -- Process id (PID).
  pid LONG,
  -- CUDA device id (Device ID).
  device_id LONG
) AS
WITH RECURSIVE
  _grid AS (
    SELECT duration AS span, cast(ceil(duration * 1.0 / $bins) AS INT) AS bin_ns
    FROM _nsys_recipe_gpu_session
    WHERE duration IS NOT NULL
    ORDER BY gpu_track_id LIMIT 1
  ),
  _bin(k) AS (SELECT 0 WHERE $bins > 0 UNION ALL SELECT k + 1 FROM _bin WHERE k + 1 < $bins),
  _kern AS (
    SELECT k.pid, k.device, k.ts - s.time_shift_ns AS s, k.ts + k.dur - s.time_shift_ns AS e
    FROM nsys_kernels k JOIN _nsys_recipe_gpu_session s USING (gpu_track_id)
  ),
  -- Merged: a kernel that starts after every earlier one's end opens a range.
  _opened AS (
    SELECT pid, device, s, e,
           iif($cumulative OR s > coalesce(max(e) OVER (
                 PARTITION BY pid, device ORDER BY s, e
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), s - 1), 1, 0) AS opens
    FROM _kern
  ),
  _island AS (
    SELECT pid, device, s, e,
           sum(opens) OVER (PARTITION BY pid, device ORDER BY s, e
                            ROWS UNBOUNDED PRECEDING) AS island
    FROM _opened
  ),
  _range AS (
    SELECT pid, device, min(s) AS s, max(e) AS e FROM _island GROUP BY pid, device, island
  ),
  -- A range in bins: its first and last bin and the parts of them it covers.
  _scaled AS (
    SELECT pid, device, s * 1.0 / bin_ns AS sb, e * 1.0 / bin_ns AS eb FROM _range, _grid
  ),
  _span AS (
    SELECT pid, device, cast(floor(sb) AS INT) AS first, cast(floor(eb) AS INT) AS last,
           min(ceil(sb), eb) - sb AS first_part, eb - max(floor(eb), sb) AS last_part
    FROM _scaled
  ),
  _part AS (
    SELECT pid, device, first AS k, first_part AS part FROM _span
    UNION ALL
    SELECT pid, device, last AS k, last_part AS part FROM _span WHERE last != first
    UNION ALL
    SELECT sp.pid, sp.device, _bin.k, 1.0 AS part
    FROM _span sp JOIN _bin ON _bin.k > sp.first AND _bin.k < sp.last
  ),
  _busy AS (
    SELECT pid, device, k, sum(part) AS share FROM _part GROUP BY pid, device, k
  ),
  -- The session in bins: it starts at bin 0 and ends in bin `last`, which
  -- it covers for `part` (0: it ends on the bin's start).
  _session AS (
    SELECT cast(floor(span * 1.0 / bin_ns) AS INT) AS last,
           span * 1.0 / bin_ns - floor(span * 1.0 / bin_ns) AS part
    FROM _grid
  ),
  _group AS (SELECT DISTINCT pid, device FROM _kern)
SELECT
  _bin.k * _grid.bin_ns AS duration,
  CASE
    WHEN _bin.k > _session.last THEN NULL
    WHEN _bin.k = _session.last AND _session.part != 0 AND _session.last != 0
      THEN _nsys_recipe_round1(coalesce(_busy.share, 0.0) / _session.part * 100)
    ELSE _nsys_recipe_round1(coalesce(_busy.share, 0.0) * 100)
  END AS kernel,
  _group.pid,
  _group.device AS device_id
FROM _group
JOIN _bin
JOIN _grid
JOIN _session
LEFT JOIN _busy ON _busy.pid = _group.pid AND _busy.device = _group.device AND _busy.k = _bin.k
ORDER BY _group.pid, _group.device, _bin.k;
