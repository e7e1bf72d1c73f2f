-- nsys.recipes.pace: one report's rows of NVIDIA's pace recipes (nsys
-- 2023.4's `nsys recipe`), as `nsys-perfetto recipe NAME --name NAME` writes
-- them for that report (its column of pace_start.csv, pace_end.csv,
-- pace_duration.csv, pace_delta.csv, pace_duration_accum.csv and
-- pace_delta_accum.csv, a row per instance):
--   nsys_recipe_cuda_gpu_kern_pace(name)  cuda_gpu_kern_pace (kernels by short name)
--   nsys_recipe_nvtx_pace(name)           nvtx_pace (NVTX ranges by text)
-- Each instance of the name is an iteration. Times are the report's own (as
-- nsys prints them: trace time less nsys_gpus.time_shift_ns), which is the
-- job's clock when the report is the job's only or earliest one. Instances
-- are in start order: the recipe takes the export's row order, which is
-- start order within a name in every corpus report. The job's tables
-- (pace_delta_stats, stats: all ranks) combine reports, which is the
-- command's work. See docs/recipes.md.

INCLUDE PERFETTO MODULE nsys.cuda;
INCLUDE PERFETTO MODULE nsys.nvtx;

-- The pace of the instances in `src` (columns ts, end_ts, id; report
-- times): per iteration its start, end, duration, delta (the gap since the
-- previous instance's end; the first's: its start) and their running sums.
CREATE PERFETTO MACRO _nsys_recipe_pace(src TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH _i AS (
    SELECT row_number() OVER (ORDER BY ts, id) - 1 AS iteration, ts, end_ts,
           end_ts - ts AS duration,
           ts - lag(end_ts, 1, 0) OVER (ORDER BY ts, id) AS delta
    FROM $src
  )
  SELECT iteration, ts AS start_ns, end_ts AS end_ns, duration AS duration_ns, delta AS delta_ns,
         sum(duration) OVER (ORDER BY iteration ROWS UNBOUNDED PRECEDING) AS duration_accum_ns,
         sum(delta) OVER (ORDER BY iteration ROWS UNBOUNDED PRECEDING) AS delta_accum_ns
  FROM _i
  ORDER BY iteration
);

-- cuda_gpu_kern_pace's rows of this report: each kernel of short name
-- `name` (nsys_kernels.short_name), in start order.
CREATE PERFETTO FUNCTION nsys_recipe_cuda_gpu_kern_pace(
  -- Kernel short name (the recipe's --name).
  name STRING
)
RETURNS TABLE(
  -- Iteration, from 0 (the CSVs' row).
  iteration LONG,
  -- Start, ns, report time (pace_start.csv).
  start_ns LONG,
  -- End, ns, report time (pace_end.csv).
  end_ns LONG,
  -- Duration, ns (pace_duration.csv).
  duration_ns LONG,
  -- Start less the previous instance's end, ns; the first: its start
  -- (pace_delta.csv).
  delta_ns LONG,
  -- Summed durations to here, ns (pace_duration_accum.csv).
  duration_accum_ns LONG,
  -- Summed deltas to here, ns (pace_delta_accum.csv).
  delta_accum_ns LONG
) AS
SELECT * FROM _nsys_recipe_pace!((
  SELECT k.id, k.ts - g.time_shift_ns AS ts, k.ts + k.dur - g.time_shift_ns AS end_ts
  FROM nsys_kernels k JOIN nsys_gpus g USING (gpu_track_id)
  WHERE k.short_name = $name
));

-- nvtx_pace's rows of this report: each NVTX range of text `name` (the
-- whole text, no domain prefix; nsys_nvtx_ranges.text) that ended, in start
-- order.
CREATE PERFETTO FUNCTION nsys_recipe_nvtx_pace(
  -- Range text (the recipe's --name).
  name STRING
)
RETURNS TABLE(
  -- Iteration, from 0 (the CSVs' row).
  iteration LONG,
  -- Start, ns, report time (pace_start.csv).
  start_ns LONG,
  -- End, ns, report time (pace_end.csv).
  end_ns LONG,
  -- Duration, ns (pace_duration.csv).
  duration_ns LONG,
  -- Start less the previous instance's end, ns; the first: its start
  -- (pace_delta.csv).
  delta_ns LONG,
  -- Summed durations to here, ns (pace_duration_accum.csv).
  duration_accum_ns LONG,
  -- Summed deltas to here, ns (pace_delta_accum.csv).
  delta_accum_ns LONG
) AS
SELECT * FROM _nsys_recipe_pace!((
  SELECT id, ts - _nsys_time_shift() AS ts, ts + dur - _nsys_time_shift() AS end_ts
  FROM nsys_nvtx_ranges
  WHERE text = $name AND NOT unterminated
));
