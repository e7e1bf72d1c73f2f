-- nsys.stats.common: what every `nsys stats` table of the package computes
-- the way nsys 2022.4 computes it: its summary statistics and its rounding.

-- x rounded to n decimals as nsys 2022.4 rounds: SQLite 3.40's round(), which
-- adds half a unit of the last decimal plus x * 3e-16 (when n + exponent / 3
-- < 15) and truncates, so that a value a hair under a tie, like the mean
-- 36166.35 (a double just under it), rounds up to 36166.4. The SQLite of
-- trace_processor rounds such values down. NULL stays NULL; a value beyond
-- 2^52 is returned as is.
CREATE PERFETTO FUNCTION _nsys_stats_round(
  -- The value.
  x DOUBLE,
  -- Decimals, 1 to 14.
  n LONG
)
RETURNS DOUBLE AS
SELECT
  CASE
    WHEN $x IS NULL THEN NULL
    WHEN abs($x) > 4503599627370496.0 THEN $x
    -- Integer and fraction parts are exact; the fraction scaled loses nothing
    -- that matters, where scaling x itself would (x * 10 near 2^53).
    ELSE iif($x < 0, -1.0, 1.0) * (
      floor(abs($x)) * pow(10, $n) + floor(
        (abs($x) - floor(abs($x))) * pow(10, $n) + 0.5
        + iif(abs($x) < pow(2, 3 * (15 - $n)), abs($x) * pow(10, $n) * 3e-16, 0.0)
      )
    ) / pow(10, $n)
  END;

-- Summary statistics of the non-NULL `val` per `grp`, as nsys's SQL computes
-- them: total, count, mean, median (mean of the two middle values for an even
-- count), min, max and sample standard deviation (n - 1; 0 for one value).
-- `src` has the columns grp (not NULL) and val. Groups without a non-NULL val
-- are absent. Columns: grp, total, num, mean, med, mn, mx, stddev.
CREATE PERFETTO MACRO _nsys_stats_summary(src TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    _v AS (SELECT grp, val FROM $src WHERE val IS NOT NULL),
    _g AS (
      SELECT grp, sum(val) AS total, count(*) AS num, avg(val) AS mean, min(val) AS mn,
             max(val) AS mx
      FROM _v GROUP BY grp
    ),
    _r AS (SELECT grp, val, row_number() OVER (PARTITION BY grp ORDER BY val) AS rn FROM _v),
    _m AS (
      SELECT _r.grp, avg(_r.val) AS med
      FROM _r JOIN _g USING (grp)
      WHERE _r.rn = (_g.num + 1) / 2 OR _r.rn = _g.num / 2 + 1
      GROUP BY _r.grp
    ),
    _s AS (
      SELECT _v.grp, sum((_v.val - _g.mean) * (_v.val - _g.mean)) AS ss
      FROM _v JOIN _g USING (grp)
      GROUP BY _v.grp
    )
  SELECT
    _g.grp,
    _g.total,
    _g.num,
    _g.mean,
    _m.med,
    _g.mn,
    _g.mx,
    iif(_g.num > 1, sqrt(_s.ss / (_g.num - 1)), 0.0) AS stddev
  FROM _g JOIN _m USING (grp) JOIN _s USING (grp)
);

-- _nsys_stats_summary over `src` (columns grp, val) as the columns of nsys's
-- duration summaries: time_pct (share of the summed total of all groups),
-- total_time_ns, num, then avg_ns, med_ns, stddev_ns rounded to 1 decimal
-- (_nsys_stats_round) and min_ns, max_ns. Unordered.
CREATE PERFETTO MACRO _nsys_stats_summary_ns(src TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    _ss AS (SELECT * FROM _nsys_stats_summary!($src)),
    _st AS (SELECT sum(total) AS total FROM _ss)
  SELECT
    _ss.grp,
    _nsys_stats_round(_ss.total * 100.0 / _st.total, 1) AS time_pct,
    _ss.total AS total_time_ns,
    _ss.num,
    _nsys_stats_round(_ss.mean, 1) AS avg_ns,
    _nsys_stats_round(_ss.med, 1) AS med_ns,
    _ss.mn AS min_ns,
    _ss.mx AS max_ns,
    _nsys_stats_round(_ss.stddev, 1) AS stddev_ns
  FROM _ss, _st
);
