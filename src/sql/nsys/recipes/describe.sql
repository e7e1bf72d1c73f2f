-- nsys.recipes.describe: one report's rows of NVIDIA's describe recipes (nsys
-- 2023.4's `nsys recipe`), as `nsys-perfetto recipe NAME` writes them into
-- rank_stats.csv for that report:
--   nsys_recipe_nvtx_sum   nvtx_sum (every NVTX range, by its text)
--   nsys_recipe_nccl_sum   nccl_sum (the ranges of the NVTX domain NCCL)
--   nsys_recipe_mpi_sum    mpi_sum (MPI calls, by function)
-- Each is pandas' describe() of the ranges' durations per text: count, mean,
-- sample deviation, min, quartiles by linear interpolation, max, sum. The
-- recipe's deviation is a running (Welford) one whose last digits depend on
-- the row order; here it is the two-pass one (tests allow 1e-9 relative).
-- The job's tables (all_stats) combine reports, which is the command's work.
-- See docs/recipes.md.

INCLUDE PERFETTO MODULE nsys.nvtx;
INCLUDE PERFETTO MODULE nsys.cpu;

-- pandas' describe() of the durations `val` per `grp` (neither NULL), a
-- row per grp. Columns: grp, count, mean, std (NULL for one value), min,
-- q1, median, q3, max, sum.
CREATE PERFETTO MACRO _nsys_recipe_describe(src TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    _g AS (
      SELECT grp, count(*) AS n, sum(val) AS total, min(val) AS mn, max(val) AS mx
      FROM $src GROUP BY grp
    ),
    -- A quantile p sits at p * (n - 1) in the sorted values: the value at
    -- its whole part (at, 0-based) and the next, weighted by its fraction.
    _p AS (
      SELECT grp, n, total, mn, mx, total * 1.0 / n AS mean,
             cast(0.25 * (n - 1) AS INT) AS at1, 0.25 * (n - 1) - cast(0.25 * (n - 1) AS INT) AS f1,
             cast(0.5 * (n - 1) AS INT) AS at2, 0.5 * (n - 1) - cast(0.5 * (n - 1) AS INT) AS f2,
             cast(0.75 * (n - 1) AS INT) AS at3, 0.75 * (n - 1) - cast(0.75 * (n - 1) AS INT) AS f3
      FROM _g
    ),
    _r AS (
      SELECT grp, val, row_number() OVER (PARTITION BY grp ORDER BY val) - 1 AS k FROM $src
    ),
    _a AS (
      SELECT _p.grp,
             sum((_r.val - _p.mean) * (_r.val - _p.mean)) AS ss,
             max(iif(_r.k = _p.at1, _r.val, NULL)) AS lo1, max(iif(_r.k = _p.at1 + 1, _r.val, NULL)) AS hi1,
             max(iif(_r.k = _p.at2, _r.val, NULL)) AS lo2, max(iif(_r.k = _p.at2 + 1, _r.val, NULL)) AS hi2,
             max(iif(_r.k = _p.at3, _r.val, NULL)) AS lo3, max(iif(_r.k = _p.at3 + 1, _r.val, NULL)) AS hi3
      FROM _r JOIN _p USING (grp)
      GROUP BY _p.grp
    )
  SELECT
    _p.grp,
    _p.n AS count,
    _p.mean,
    iif(_p.n > 1, sqrt(_a.ss / (_p.n - 1)), NULL) AS std,
    _p.mn AS min,
    iif(_p.f1 = 0, _a.lo1 * 1.0, _a.lo1 + (_a.hi1 - _a.lo1) * _p.f1) AS q1,
    iif(_p.f2 = 0, _a.lo2 * 1.0, _a.lo2 + (_a.hi2 - _a.lo2) * _p.f2) AS median,
    iif(_p.f3 = 0, _a.lo3 * 1.0, _a.lo3 + (_a.hi3 - _a.lo3) * _p.f3) AS q3,
    _p.mx AS max,
    _p.total AS sum
  FROM _p JOIN _a USING (grp)
);

-- The ranges the recipes describe: those that ended (the recipe leaves out
-- a range without an end) and last, by their text as recorded.
CREATE PERFETTO VIEW _nsys_recipe_nvtx_ranges AS
SELECT text, domain, dur
FROM nsys_nvtx_ranges
WHERE NOT unterminated AND dur > 0 AND text IS NOT NULL;

-- nvtx_sum's rows of this report: NVTX ranges per text (the whole text, no
-- domain prefix), texts in byte order as pandas groups them. The recipe
-- prints min, max and sum as floats (123.0) when the report's NVTX table has
-- a row without an end (any mark); they are whole numbers either way.
CREATE PERFETTO VIEW nsys_recipe_nvtx_sum(
  -- Range text.
  text STRING,
  -- Number of ranges.
  count LONG,
  -- Mean duration, ns.
  mean DOUBLE,
  -- Sample standard deviation, ns; NULL for one range.
  std DOUBLE,
  -- Shortest, ns.
  min LONG,
  -- Lower quartile (linear), ns.
  q1 DOUBLE,
  -- Median, ns.
  median DOUBLE,
  -- Upper quartile (linear), ns.
  q3 DOUBLE,
  -- Longest, ns.
  max LONG,
  -- Summed duration, ns.
  sum LONG
) AS
SELECT grp AS text, count, mean, std, min, q1, median, q3, max, sum
FROM _nsys_recipe_describe!((SELECT text AS grp, dur AS val FROM _nsys_recipe_nvtx_ranges))
ORDER BY grp;

-- nccl_sum's rows of this report: the ranges of the NVTX domain named
-- 'NCCL' per text, as nsys_recipe_nvtx_sum.
CREATE PERFETTO VIEW nsys_recipe_nccl_sum(
  -- Range text.
  text STRING,
  -- Number of ranges.
  count LONG,
  -- Mean duration, ns.
  mean DOUBLE,
  -- Sample standard deviation, ns; NULL for one range.
  std DOUBLE,
  -- Shortest, ns.
  min LONG,
  -- Lower quartile (linear), ns.
  q1 DOUBLE,
  -- Median, ns.
  median DOUBLE,
  -- Upper quartile (linear), ns.
  q3 DOUBLE,
  -- Longest, ns.
  max LONG,
  -- Summed duration, ns.
  sum LONG
) AS
SELECT grp AS text, count, mean, std, min, q1, median, q3, max, sum
FROM _nsys_recipe_describe!((
  SELECT text AS grp, dur AS val FROM _nsys_recipe_nvtx_ranges WHERE domain = 'NCCL'
))
ORDER BY grp;

-- mpi_sum's rows of this report: MPI calls (the four MPI tables) that
-- returned and last, per function, as nsys_recipe_nvtx_sum.
CREATE PERFETTO VIEW nsys_recipe_mpi_sum(
  -- MPI function.
  text STRING,
  -- Number of calls.
  count LONG,
  -- Mean duration, ns.
  mean DOUBLE,
  -- Sample standard deviation, ns; NULL for one call.
  std DOUBLE,
  -- Shortest, ns.
  min LONG,
  -- Lower quartile (linear), ns.
  q1 DOUBLE,
  -- Median, ns.
  median DOUBLE,
  -- Upper quartile (linear), ns.
  q3 DOUBLE,
  -- Longest, ns.
  max LONG,
  -- Summed duration, ns.
  sum LONG
) AS
SELECT grp AS text, count, mean, std, min, q1, median, q3, max, sum
FROM _nsys_recipe_describe!((
  SELECT name AS grp, dur AS val FROM nsys_mpi_calls WHERE NOT unterminated AND dur > 0
))
ORDER BY grp;
