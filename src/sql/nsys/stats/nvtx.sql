-- nsys.stats.nvtx: the NVTX reports of `nsys stats`, report for report, over
-- the typed tables of nsys.nvtx and nsys.cuda. Each table is named nsys_ +
-- the report's nsys 2023+ name (2022.4 name in brackets):
--
--   nsys_nvtx_sum             (nvtxsum)      ranges per name and style
--   nsys_nvtx_pushpop_sum     (nvtxppsum)    push/pop ranges per name
--   nsys_nvtx_startend_sum    (nvtxsesum)    start/end ranges per name
--   nsys_nvtx_gpu_proj_trace  (nvtxgpuproj)  every range projected onto the GPU
--                                            (2022.4's: nsys_nvtx_gpu_proj_trace_2022)
--   nsys_nvtx_gpu_proj_sum    (2023+ only)   the projections per name and style
--   nsys_nvtx_pushpop_trace   (2023+ only)   every push/pop range in its tree
--   nsys_nvtx_kern_sum        (nvtxkernsum)  kernels per enclosing range, thread
--                                            and kernel name
--
-- They group ranges on their whole text as nsys recorded it
-- (nsys_nvtx_ranges.text), as nsys does. A PyTorch op range, which the
-- converter names by its op (`aten::to`, its text `aten::to, seq = 12,
-- op_id = 998949` in an arg), is a name of its own per call there. The same
-- tables grouped by op (nsys_nvtx_ranges.name), with the same columns:
-- nsys_nvtx_sum_by_op, nsys_nvtx_pushpop_sum_by_op,
-- nsys_nvtx_startend_sum_by_op, nsys_nvtx_gpu_proj_sum_by_op,
-- nsys_nvtx_kern_sum_by_op and nsys_nvtx_kern_sum_by_op_by_name(name_kind);
-- nsys_nvtx_gpu_proj_trace has the op in its `op` column.
--
-- As nsys 2023.4 (and 2022.4, but where docs/sql.md says): a range is named
-- `domain:name` in a named domain, `name` in the default domain or in a
-- domain the report never named; a range
-- still open at the end of the report ends at the last NVTX timestamp; a
-- range contains a GPU operation when the CUDA call that launched it runs
-- entirely inside the range, on the thread that started the range
-- (projections and kernel sums leave out start/end ranges ended on another
-- thread). Columns are in nsys's order, named after its CSV header in snake
-- case; averages, medians, percentages and standard deviations are rounded
-- to one decimal as nsys rounds them. See docs/sql.md.

INCLUDE PERFETTO MODULE nsys.nvtx;
INCLUDE PERFETTO MODULE nsys.cuda;
INCLUDE PERFETTO MODULE nsys.stats.common;
INCLUDE PERFETTO MODULE intervals.intersect;
INCLUDE PERFETTO MODULE graphs.scan;

-- The name nsys's NVTX reports give a range: 'domain:name' in a named
-- domain; the name alone in the default domain and in domains without a
-- name (the converter calls those 'default' and 'domain N').
CREATE PERFETTO FUNCTION _nsys_nvtx_tag(
  -- Domain as nsys_nvtx_ranges has it.
  domain STRING,
  -- Range name.
  name STRING
)
RETURNS STRING AS
SELECT
  iif(
    $domain IS NULL OR $domain = 'default' OR $domain GLOB 'domain [0-9]*',
    $name,
    $domain || ':' || $name
  );

-- The last NVTX timestamp of the trace (start of every range and mark, end
-- of every range that ended): where nsys ends a range still open.
-- Materialised: one row, read for every open range.
CREATE PERFETTO TABLE _nsys_nvtx_last_ts(
  -- The timestamp, ns.
  ts LONG
) AS
SELECT max(
  (SELECT max(ts) FROM nsys_nvtx_ranges),
  coalesce((SELECT max(ts + dur) FROM nsys_nvtx_ranges WHERE NOT unterminated), 0),
  coalesce((SELECT max(ts) FROM nsys_nvtx_marks), 0)
) AS ts;

-- Every NVTX range as nsys's reports see it. Materialised (one row per
-- range): every report reads it, and the projections join it by id.
CREATE PERFETTO TABLE _nsys_nvtx_stats_range(
  -- The range's slice id (nsys_nvtx_ranges.id).
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration, ns (open ranges: to the last NVTX timestamp).
  dur LONG,
  -- End, ns.
  end_ts LONG,
  -- 'domain:text' or 'text': the whole text as recorded (nsys's name).
  tag STRING,
  -- 'PushPop' or 'StartEnd'.
  style STRING,
  -- The thread that started it.
  utid LONG,
  -- Its thread id.
  tid LONG,
  -- Its process id.
  pid LONG,
  -- 1 when it started and ended on the same thread (projections use only these).
  same_thread BOOL,
  -- 'domain:name' or 'name' with the range's name: a PyTorch op range's op.
  op STRING
) AS
SELECT
  r.id,
  r.ts,
  iif(r.unterminated, (SELECT ts FROM _nsys_nvtx_last_ts) - r.ts, r.dur) AS dur,
  iif(r.unterminated, (SELECT ts FROM _nsys_nvtx_last_ts), r.ts + r.dur) AS end_ts,
  _nsys_nvtx_tag(r.domain, r.text) AS tag,
  iif(r.kind = 'push/pop', 'PushPop', 'StartEnd') AS style,
  r.utid,
  r.tid,
  r.pid,
  r.end_tid IS NULL AS same_thread,
  _nsys_nvtx_tag(r.domain, r.name) AS op
FROM nsys_nvtx_ranges r
ORDER BY r.id;

CREATE PERFETTO INDEX _nsys_nvtx_stats_range_by_id ON _nsys_nvtx_stats_range(id);

-- A range summary per name (and style) of the ranges in `src` (columns tag,
-- style, dur): the columns of nsys's NVTX summaries.
CREATE PERFETTO MACRO _nsys_nvtx_range_summary(src TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    _k AS (SELECT quote(tag) || ',' || style AS grp, tag, style, dur FROM $src),
    _n AS (SELECT DISTINCT grp, tag, style FROM _k)
  SELECT
    _s.time_pct, _s.total_time_ns, _s.num AS instances, _s.avg_ns, _s.med_ns, _s.min_ns,
    _s.max_ns, _s.stddev_ns, _n.style AS style, _n.tag AS range
  FROM _nsys_stats_summary_ns!((SELECT grp, dur AS val FROM _k)) _s JOIN _n USING (grp)
  ORDER BY _s.total_time_ns DESC, _n.tag, _n.style
);

-- NVTX Range Summary (nsys stats nvtx_sum; 2022.4: nvtxsum): push/pop and
-- start/end ranges per name and style, longest total first. time_pct is
-- the share of the summed time of all ranges listed.
CREATE PERFETTO VIEW nsys_nvtx_sum(
  -- Share of the summed time of all ranges, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of ranges.
  instances LONG,
  -- Mean duration, ns, 1 decimal.
  avg_ns DOUBLE,
  -- Median duration, ns, 1 decimal.
  med_ns DOUBLE,
  -- Shortest, ns.
  min_ns LONG,
  -- Longest, ns.
  max_ns LONG,
  -- Sample standard deviation, ns, 1 decimal.
  stddev_ns DOUBLE,
  -- 'PushPop' or 'StartEnd'.
  style STRING,
  -- Range name ('domain:name' in a named domain).
  range STRING
) AS
SELECT * FROM _nsys_nvtx_range_summary!(_nsys_nvtx_stats_range);

-- NVTX Push/Pop Range Summary (nsys stats nvtx_pushpop_sum; 2022.4:
-- nvtxppsum): push/pop ranges per name, longest total first.
CREATE PERFETTO VIEW nsys_nvtx_pushpop_sum(
  -- Share of the summed time of all push/pop ranges, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of ranges.
  instances LONG,
  -- Mean duration, ns, 1 decimal.
  avg_ns DOUBLE,
  -- Median duration, ns, 1 decimal.
  med_ns DOUBLE,
  -- Shortest, ns.
  min_ns LONG,
  -- Longest, ns.
  max_ns LONG,
  -- Sample standard deviation, ns, 1 decimal.
  stddev_ns DOUBLE,
  -- Range name.
  range STRING
) AS
SELECT time_pct, total_time_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns, range
FROM _nsys_nvtx_range_summary!((SELECT * FROM _nsys_nvtx_stats_range WHERE style = 'PushPop'));

-- NVTX Start/End Range Summary (nsys stats nvtx_startend_sum; 2022.4:
-- nvtxsesum): start/end ranges per name, longest total first.
CREATE PERFETTO VIEW nsys_nvtx_startend_sum(
  -- Share of the summed time of all start/end ranges, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of ranges.
  instances LONG,
  -- Mean duration, ns, 1 decimal.
  avg_ns DOUBLE,
  -- Median duration, ns, 1 decimal.
  med_ns DOUBLE,
  -- Shortest, ns.
  min_ns LONG,
  -- Longest, ns.
  max_ns LONG,
  -- Sample standard deviation, ns, 1 decimal.
  stddev_ns DOUBLE,
  -- Range name.
  range STRING
) AS
SELECT time_pct, total_time_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns, range
FROM _nsys_nvtx_range_summary!((SELECT * FROM _nsys_nvtx_stats_range WHERE style = 'StartEnd'));

-- nsys_nvtx_sum grouped by op: a PyTorch op range (`aten::to, seq = 12,
-- op_id = 998949`) counts under its op ('aten::to'), other ranges under
-- their name, as nsys_nvtx_ranges.name has it ('domain:name' in a named
-- domain). Same columns; `range` is the op.
CREATE PERFETTO VIEW nsys_nvtx_sum_by_op(
  -- Share of the summed time of all ranges, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of ranges.
  instances LONG,
  -- Mean duration, ns, 1 decimal.
  avg_ns DOUBLE,
  -- Median duration, ns, 1 decimal.
  med_ns DOUBLE,
  -- Shortest, ns.
  min_ns LONG,
  -- Longest, ns.
  max_ns LONG,
  -- Sample standard deviation, ns, 1 decimal.
  stddev_ns DOUBLE,
  -- 'PushPop' or 'StartEnd'.
  style STRING,
  -- Op or range name ('domain:name' in a named domain).
  range STRING
) AS
SELECT * FROM _nsys_nvtx_range_summary!((SELECT id, op AS tag, style, dur FROM _nsys_nvtx_stats_range));

-- nsys_nvtx_pushpop_sum grouped by op (see nsys_nvtx_sum_by_op).
CREATE PERFETTO VIEW nsys_nvtx_pushpop_sum_by_op(
  -- Share of the summed time of all push/pop ranges, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of ranges.
  instances LONG,
  -- Mean duration, ns, 1 decimal.
  avg_ns DOUBLE,
  -- Median duration, ns, 1 decimal.
  med_ns DOUBLE,
  -- Shortest, ns.
  min_ns LONG,
  -- Longest, ns.
  max_ns LONG,
  -- Sample standard deviation, ns, 1 decimal.
  stddev_ns DOUBLE,
  -- Op or range name.
  range STRING
) AS
SELECT time_pct, total_time_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns, range
FROM _nsys_nvtx_range_summary!((
  SELECT id, op AS tag, style, dur FROM _nsys_nvtx_stats_range WHERE style = 'PushPop'
));

-- nsys_nvtx_startend_sum grouped by op (see nsys_nvtx_sum_by_op).
CREATE PERFETTO VIEW nsys_nvtx_startend_sum_by_op(
  -- Share of the summed time of all start/end ranges, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of ranges.
  instances LONG,
  -- Mean duration, ns, 1 decimal.
  avg_ns DOUBLE,
  -- Median duration, ns, 1 decimal.
  med_ns DOUBLE,
  -- Shortest, ns.
  min_ns LONG,
  -- Longest, ns.
  max_ns LONG,
  -- Sample standard deviation, ns, 1 decimal.
  stddev_ns DOUBLE,
  -- Op or range name.
  range STRING
) AS
SELECT time_pct, total_time_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns, range
FROM _nsys_nvtx_range_summary!((
  SELECT id, op AS tag, style, dur FROM _nsys_nvtx_stats_range WHERE style = 'StartEnd'
));

-- x rounded to the nearest 32-bit float (ties to even), as C's (float)x.
CREATE PERFETTO FUNCTION _nsys_f32(
  -- The value.
  x DOUBLE
)
RETURNS DOUBLE AS
SELECT
  CASE
    WHEN $x IS NULL OR $x = 0 THEN $x
    ELSE (
      SELECT iif($x < 0, -1.0, 1.0) * ulp * (
          floor(abs($x) / ulp)
          + (abs($x) / ulp - floor(abs($x) / ulp) > 0.5
             OR (abs($x) / ulp - floor(abs($x) / ulp) = 0.5
                 AND floor(abs($x) / ulp) - 2 * floor(floor(abs($x) / ulp) / 2) = 1))
        )
      FROM (
        SELECT pow(2, e - 23) AS ulp
        FROM (
          SELECT
            CASE
              WHEN pow(2, e0) > abs($x) THEN e0 - 1
              WHEN pow(2, e0 + 1) <= abs($x) THEN e0 + 1
              ELSE e0
            END AS e
          FROM (SELECT floor(log2(abs($x))) AS e0)
        )
      )
    )
  END;

-- The lower bound SQLite's R*Tree module stores for x (32-bit, never above
-- x): nsys's projection finds enclosing ranges through such an index.
CREATE PERFETTO FUNCTION _nsys_rtree_down(
  -- The value.
  x DOUBLE
)
RETURNS DOUBLE AS
SELECT
  iif(_nsys_f32($x) > $x,
      _nsys_f32($x * iif($x < 0, 1.0 + 1.0 / 8388608.0, 1.0 - 1.0 / 8388608.0)),
      _nsys_f32($x));

-- The upper bound SQLite's R*Tree module stores for x (32-bit, never below
-- x). It is not monotonic: a value can be stored above a larger one's bound.
CREATE PERFETTO FUNCTION _nsys_rtree_up(
  -- The value.
  x DOUBLE
)
RETURNS DOUBLE AS
SELECT
  iif(_nsys_f32($x) < $x,
      _nsys_f32($x * iif($x < 0, 1.0 - 1.0 / 8388608.0, 1.0 + 1.0 / 8388608.0)),
      _nsys_f32($x));

-- The ranges the projections and kernel sums use: those that ended on the
-- thread that started them. Each interval is widened by 1 ns for
-- _interval_intersect (half-open), which finds the candidate pairs; the
-- exact, closed containment is tested after. Materialised (one row per
-- range): the tree below and the projections join it by id.
CREATE PERFETTO TABLE _nsys_nvtx_proj_range(
  -- Range slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration + 1, ns.
  dur LONG,
  -- End, ns (nsys's).
  end_ts LONG,
  -- Start as nsys's R*Tree index stores it (32-bit, rounded down), in
  -- report time (trace time less nsys_gpus.time_shift_ns), which nsys
  -- rounds.
  start_down DOUBLE,
  -- End as the index stores it (32-bit, rounded up), report time.
  end_up DOUBLE,
  -- Thread.
  utid LONG
) AS
SELECT id, ts, end_ts - ts + 1 AS dur, end_ts, _nsys_rtree_down((ts - sh.shift) * 1.0) AS start_down,
       _nsys_rtree_up((end_ts - sh.shift) * 1.0) AS end_up, utid
FROM _nsys_nvtx_stats_range
CROSS JOIN (SELECT _nsys_time_shift() AS shift) sh
WHERE same_thread AND utid IS NOT NULL
ORDER BY id;

CREATE PERFETTO INDEX _nsys_nvtx_proj_range_by_id ON _nsys_nvtx_proj_range(id);

-- Each range's parent as nsys's projection defines it: of the other ranges
-- of the thread that contain it, the one that fits tightest (least start
-- gap + end gap); on a tie the one with the lowest id. nsys finds the
-- ranges that contain another through an R*Tree index of 32-bit bounds.
-- 2023.4 stores the bounds scaled to the NVTX time span (rtree_scale), in
-- order, so they decide nothing: containment is exact. 2022.4 stored the
-- times themselves and compared those bounds too: a range ending a few
-- hundred ns after another (at 10 s into the report) may not contain it
-- there (parent_id_2022).
--
-- Comparing every range with every range that contains it grows with the
-- ranges times their depth (a recursion 1,000 deep: 1,000 pairs per range),
-- so a thread whose ranges nest properly is walked as a tree instead: the
-- ranges that contain one are then its ancestors, the nearest fits
-- tightest (its parent span), and a parent is found from depths computed in
-- one sorted sweep.
-- Only the ranges of a thread whose ranges overlap without nesting (start/end
-- ranges may) are compared pair by pair.

-- The spans of `ranges` (columns id, ts, end_ts, utid): see below.
CREATE PERFETTO MACRO _nsys_nvtx_range_spans(ranges TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT
    id,
    dense_rank() OVER (ORDER BY utid, ts, end_ts DESC) AS span_id,
    row_number() OVER (PARTITION BY utid, ts, end_ts ORDER BY id) AS rn
  FROM $ranges
);

-- The distinct intervals ('spans') of those ranges per thread: ranges with
-- the same start and end share one. Spans are numbered per thread by start,
-- longest first, so that a span comes after every span that contains it.
-- A view: only _nsys_nvtx_proj_span reads it.
CREATE PERFETTO VIEW _nsys_nvtx_proj_range_span(
  -- Range slice id.
  id LONG,
  -- Its span.
  span_id LONG,
  -- Its rank among the span's ranges by id (1: the lowest).
  rn LONG
) AS
SELECT * FROM _nsys_nvtx_range_spans!(_nsys_nvtx_proj_range);

-- The spans of `ranges` (columns id, ts, end_ts, utid, start_down, end_up)
-- with their place in the thread's tree of spans; `range_spans` is
-- _nsys_nvtx_range_spans!(ranges). Columns: see _nsys_nvtx_proj_span.
CREATE PERFETTO MACRO _nsys_nvtx_span_tree(
  ranges TableOrSubquery,
  range_spans TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  WITH
    spans AS (
      SELECT
        rs.span_id,
        r.utid,
        r.ts,
        r.end_ts,
        min(r.start_down) AS start_down,
        min(r.end_up) AS end_up,
        count(*) AS n,
        min(r.id) AS first_id,
        min(iif(rs.rn = 2, r.id, NULL)) AS second_id
      FROM $ranges r
      JOIN $range_spans rs USING (id)
      GROUP BY rs.span_id
    ),
    -- A span opens at its start and closes at its end. At one instant, the
    -- spans ending there close innermost first, then spans open outermost
    -- first; a span of one instant opens and closes before the spans ending
    -- there (it is inside them), else after the spans starting there.
    bounds AS (
      SELECT span_id, utid, ts AS t, ts < end_ts AS wide, 1 AS opens FROM spans
      UNION ALL
      SELECT span_id, utid, end_ts AS t, ts < end_ts AS wide, 0 AS opens FROM spans
    ),
    marked AS (
      SELECT
        *,
        sum(wide AND NOT opens) OVER (PARTITION BY utid, t) AS wide_ends,
        sum(wide AND opens) OVER (PARTITION BY utid, t) AS wide_starts
      FROM bounds
    ),
    events AS (
      SELECT
        span_id,
        utid,
        opens,
        -- A span of one instant between a span ending and one starting there
        -- lies in two spans that do not nest.
        NOT wide AND wide_ends > 0 AND wide_starts > 0 AS tangled,
        t,
        CASE WHEN wide THEN iif(opens, 1, 0) WHEN wide_ends > 0 THEN -1 ELSE 2 END AS phase,
        CASE WHEN wide THEN iif(opens, span_id, -span_id) ELSE 1 - opens END AS sub
      FROM marked
    ),
    swept AS (
      SELECT
        span_id,
        utid,
        opens,
        tangled,
        coalesce(sum(iif(opens, 1, -1)) OVER (
          PARTITION BY utid ORDER BY t, phase, sub
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS open_before
      FROM events
    ),
    -- Spans nest properly when each closes with exactly the spans open at its
    -- start still open (else one closed inside it, or it inside another).
    depths AS (
      SELECT
        span_id,
        utid,
        max(iif(opens, open_before, NULL)) AS depth,
        max(iif(opens, open_before, NULL)) + 1 = max(iif(opens, NULL, open_before))
          AND NOT max(tangled) AS ok
      FROM swept
      GROUP BY span_id
    ),
    threads AS (SELECT utid, min(ok) AS nested FROM depths GROUP BY utid),
    -- In a properly nested thread, a span's parent is the last span before it
    -- one level up.
    levels AS (
      SELECT utid, depth AS lvl, span_id, span_id AS candidate FROM depths
      UNION ALL
      SELECT utid, depth - 1 AS lvl, span_id, NULL AS candidate FROM depths WHERE depth > 0
    ),
    parents AS (
      SELECT span_id, parent_span
      FROM (
        SELECT
          span_id,
          candidate,
          max(candidate) OVER (PARTITION BY utid, lvl ORDER BY span_id ROWS UNBOUNDED PRECEDING)
            AS parent_span
        FROM levels
      )
      WHERE candidate IS NULL
    )
  SELECT
    s.span_id, s.utid, s.ts, s.end_ts, s.start_down, s.end_up, s.n, s.first_id, s.second_id,
    th.nested,
    iif(th.nested, d.depth, NULL) AS depth,
    iif(th.nested, p.parent_span, NULL) AS parent_span
  FROM spans s
  JOIN depths d USING (span_id)
  JOIN threads th USING (utid)
  LEFT JOIN parents p USING (span_id)
  ORDER BY s.span_id
);

-- The spans with their place in the thread's tree of spans, when the
-- thread's spans nest properly (nested = 1): depth (the number of spans
-- that contain it) and parent_span (the innermost of those). Materialised:
-- the walk up the tree below joins it by span id at every step, through its
-- index; it has one row per distinct interval, built in one sort.
CREATE PERFETTO TABLE _nsys_nvtx_proj_span(
  -- Span number (per thread in start order, longest first).
  span_id LONG,
  -- Thread.
  utid LONG,
  -- Start, ns.
  ts LONG,
  -- End, ns.
  end_ts LONG,
  -- Start as nsys's R*Tree index stores it (see _nsys_nvtx_proj_range).
  start_down DOUBLE,
  -- End as the index stores it.
  end_up DOUBLE,
  -- Ranges with this interval.
  n LONG,
  -- The lowest of their ids.
  first_id LONG,
  -- The second lowest (NULL for a span of one range).
  second_id LONG,
  -- 1 when every span of the thread nests in the spans that overlap it.
  nested BOOL,
  -- Spans that contain it (nested threads).
  depth LONG,
  -- The innermost span that contains it (nested threads; NULL at the top).
  parent_span LONG
) AS
SELECT * FROM _nsys_nvtx_span_tree!(_nsys_nvtx_proj_range, _nsys_nvtx_proj_range_span)
ORDER BY span_id;

CREATE PERFETTO INDEX _nsys_nvtx_proj_span_by_id ON _nsys_nvtx_proj_span(span_id);

-- Every pair of ranges of `ranges` (columns id, ts, dur: end_ts - ts + 1,
-- end_ts, utid, start_down, end_up) where one contains the other (id: the
-- contained one), with the fit (gap: start gap + end gap) and whether the
-- 32-bit bounds contain it too. Grows with the pairs: for the ranges of
-- threads whose ranges do not nest.
CREATE PERFETTO MACRO _nsys_nvtx_containing(ranges TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    r AS MATERIALIZED (SELECT * FROM $ranges),
    pairs AS (
      SELECT ii.id_0 AS child_id, ii.id_1 AS parent_id
      FROM _interval_intersect!((r, r), (utid)) ii
      WHERE ii.id_0 != ii.id_1
    )
  SELECT
    p.child_id AS id,
    p.parent_id,
    (c.ts - pr.ts) + (pr.end_ts - c.end_ts) AS gap,
    pr.start_down <= c.start_down AND pr.end_up >= c.end_up AS fits_32bit
  FROM pairs p
  JOIN r c ON c.id = p.child_id
  JOIN r pr ON pr.id = p.parent_id
  WHERE pr.ts <= c.ts AND pr.end_ts >= c.end_ts
);

-- Each range's parent (see above). Materialised: the tree below walks it
-- from the roots down by parent_id, through its index.
CREATE PERFETTO TABLE _nsys_nvtx_proj_parent(
  -- Range slice id.
  id LONG,
  -- Parent range slice id (nsys 2023.4).
  parent_id LONG,
  -- Parent range slice id as nsys 2022.4 finds it (32-bit bounds).
  parent_id_2022 LONG
) AS
WITH RECURSIVE
  -- Nested threads. A range that shares its interval with others fits them
  -- exactly: its parent is the lowest id among them (not itself). Any other
  -- span's parent is its parent span's lowest id; in 2022.4, its nearest
  -- ancestor whose 32-bit bounds contain its own: up the tree until one
  -- does (rarely more than one step).
  up(span_id, start_down, end_up, cur) AS (
    SELECT span_id, start_down, end_up, parent_span
    FROM _nsys_nvtx_proj_span
    WHERE nested AND n = 1 AND parent_span IS NOT NULL
    UNION ALL
    SELECT up.span_id, up.start_down, up.end_up, a.parent_span
    FROM up JOIN _nsys_nvtx_proj_span a ON a.span_id = up.cur
    WHERE NOT (a.start_down <= up.start_down AND a.end_up >= up.end_up)
      AND a.parent_span IS NOT NULL
  ),
  span_parent AS (
    SELECT up.span_id, a.first_id AS parent_id
    FROM up JOIN _nsys_nvtx_proj_span a ON a.span_id = up.cur
    WHERE a.start_down <= up.start_down AND a.end_up >= up.end_up
  ),
  nested_parent AS (
    SELECT
      rs.id,
      CASE
        WHEN s.n > 1 THEN iif(rs.id = s.first_id, s.second_id, s.first_id)
        ELSE ps.first_id
      END AS parent_id,
      CASE
        WHEN s.n > 1 THEN iif(rs.id = s.first_id, s.second_id, s.first_id)
        ELSE sp.parent_id
      END AS parent_id_2022
    FROM _nsys_nvtx_proj_range_span rs
    JOIN _nsys_nvtx_proj_span s USING (span_id)
    LEFT JOIN _nsys_nvtx_proj_span ps ON ps.span_id = s.parent_span
    LEFT JOIN span_parent sp USING (span_id)
    WHERE s.nested
  ),
  -- Other threads: every pair of ranges that overlap, the containing ones
  -- ranked by fit.
  tangled AS (
    SELECT r.*
    FROM _nsys_nvtx_proj_range r
    WHERE r.utid IN (SELECT utid FROM _nsys_nvtx_proj_span WHERE NOT nested)
  ),
  fits AS (SELECT * FROM _nsys_nvtx_containing!(tangled)),
  ranked AS (
    SELECT
      id,
      parent_id,
      fits_32bit,
      row_number() OVER (PARTITION BY id ORDER BY gap, parent_id) AS rn,
      row_number() OVER (PARTITION BY id ORDER BY NOT fits_32bit, gap, parent_id) AS rn_2022
    FROM fits
  ),
  tangled_parent AS (
    SELECT t.id, k.parent_id, k22.parent_id AS parent_id_2022
    FROM tangled t
    LEFT JOIN ranked k ON k.id = t.id AND k.rn = 1
    LEFT JOIN ranked k22 ON k22.id = t.id AND k22.rn_2022 = 1 AND k22.fits_32bit
  )
SELECT id, parent_id, parent_id_2022 FROM nested_parent
UNION ALL
SELECT id, parent_id, parent_id_2022 FROM tangled_parent
ORDER BY id;

CREATE PERFETTO INDEX _nsys_nvtx_proj_parent_by_id ON _nsys_nvtx_proj_parent(id);
CREATE PERFETTO INDEX _nsys_nvtx_proj_parent_by_parent ON _nsys_nvtx_proj_parent(parent_id);

-- CUDA calls with their interval widened by 1 ns (see _nsys_nvtx_proj_range).
-- Materialised (one row per launching call): joined by id.
CREATE PERFETTO TABLE _nsys_nvtx_call(
  -- Call slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration + 1, ns.
  dur LONG,
  -- End, ns.
  end_ts LONG,
  -- Thread.
  utid LONG
) AS
SELECT id, ts, dur + 1 AS dur, ts + dur AS end_ts, utid
FROM nsys_cuda_api_calls
WHERE utid IS NOT NULL AND (gpu_ops > 0 OR kernels > 0)
ORDER BY id;

CREATE PERFETTO INDEX _nsys_nvtx_call_by_id ON _nsys_nvtx_call(id);

-- Each CUDA call that launched GPU work, with every range (of those above)
-- that contains it on its thread: as many rows per call as ranges around it
-- (a call at the bottom of a recursion 1,000 deep: 1,000), so a view,
-- computed when a projection or kernel summary is asked for.
CREATE PERFETTO VIEW _nsys_nvtx_call_range(
  -- Call slice id.
  call_id LONG,
  -- Range slice id.
  range_id LONG
) AS
SELECT ii.id_0 AS call_id, ii.id_1 AS range_id
FROM _interval_intersect!((_nsys_nvtx_call, _nsys_nvtx_proj_range), (utid)) ii
JOIN _nsys_nvtx_call c ON c.id = ii.id_0
JOIN _nsys_nvtx_proj_range r ON r.id = ii.id_1
WHERE r.ts <= c.ts AND r.end_ts >= c.end_ts;

-- The ranges that contain GPU work, with what nsys_nvtx_gpu_proj_trace
-- shows of them but their stacks (the projection summaries need no stack),
-- over the range tree of `parents` (columns id, parent_id). Its steps are
-- MATERIALIZED: SQLite would otherwise evaluate them again for every row
-- they are joined to (minutes on 25k ranges).
CREATE PERFETTO MACRO _nsys_nvtx_gpu_proj_of(parents TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    proj AS MATERIALIZED (
      SELECT
        cr.range_id AS id,
        min(o.ts) AS proj_start,
        max(o.ts + o.dur) AS proj_end,
        count(DISTINCT cr.call_id) AS ops
      FROM _nsys_nvtx_call_range cr
      JOIN nsys_gpu_ops o ON o.api_call_id = cr.call_id
      GROUP BY cr.range_id
    ),
    children AS MATERIALIZED (
      SELECT t.parent_id AS id, count(*) AS n
      FROM proj JOIN $parents t USING (id)
      WHERE t.parent_id IS NOT NULL
      GROUP BY t.parent_id
    ),
    -- Levels from the roots down, one step per range (graph_scan: a
    -- recursive CTE over a Perfetto table scans it at every step). The ranges
    -- of proj hold every ancestor of theirs (a parent contains its child, so
    -- the child's calls). Ranges that are each other's tightest fit (same
    -- start and end) never reach a root: nsys leaves their level and stack
    -- empty, and so does this.
    edges AS MATERIALIZED (
      SELECT t.parent_id AS source_node_id, t.id AS dest_node_id
      FROM proj JOIN $parents t USING (id)
      WHERE t.parent_id IS NOT NULL
    ),
    roots AS MATERIALIZED (
      SELECT t.id, 0 AS lvl
      FROM proj JOIN $parents t USING (id)
      WHERE t.parent_id IS NULL
    ),
    tree AS MATERIALIZED (
      SELECT id, lvl
      FROM _graph_scan!(edges, roots, (lvl), (SELECT t.id, t.lvl + 1 AS lvl FROM $table t))
    ),
    sh AS (SELECT _nsys_time_shift() AS shift)
  SELECT
    r.tag AS name,
    p.proj_start - sh.shift AS projected_start_ns,
    p.proj_end - p.proj_start AS projected_duration_ns,
    r.ts - sh.shift AS orig_start_ns,
    r.dur AS orig_duration_ns,
    r.style,
    r.pid,
    r.tid,
    p.ops AS numgpuops,
    t.lvl,
    coalesce(c.n, 0) AS numchild,
    r.id AS rangeid,
    pa.parent_id AS parentid,
    r.op
  FROM proj p
  CROSS JOIN sh
  JOIN _nsys_nvtx_stats_range r USING (id)
  JOIN $parents pa USING (id)
  LEFT JOIN tree t USING (id)
  LEFT JOIN children c USING (id)
);

-- The projected ranges, by nsys 2023.4's range tree.
CREATE PERFETTO VIEW _nsys_nvtx_gpu_proj(
  -- See nsys_nvtx_gpu_proj_trace.
  name STRING,
  -- See nsys_nvtx_gpu_proj_trace.
  projected_start_ns LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  projected_duration_ns LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  orig_start_ns LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  orig_duration_ns LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  style STRING,
  -- See nsys_nvtx_gpu_proj_trace.
  pid LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  tid LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  numgpuops LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  lvl LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  numchild LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  rangeid LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  parentid LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  op STRING
) AS
SELECT * FROM _nsys_nvtx_gpu_proj_of!((SELECT id, parent_id FROM _nsys_nvtx_proj_parent));

-- The projected ranges, by nsys 2022.4's range tree (32-bit bounds).
CREATE PERFETTO VIEW _nsys_nvtx_gpu_proj_2022(
  -- See nsys_nvtx_gpu_proj_trace.
  name STRING,
  -- See nsys_nvtx_gpu_proj_trace.
  projected_start_ns LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  projected_duration_ns LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  orig_start_ns LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  orig_duration_ns LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  style STRING,
  -- See nsys_nvtx_gpu_proj_trace.
  pid LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  tid LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  numgpuops LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  lvl LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  numchild LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  rangeid LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  parentid LONG,
  -- See nsys_nvtx_gpu_proj_trace.
  op STRING
) AS
SELECT * FROM _nsys_nvtx_gpu_proj_of!((
  SELECT id, parent_id_2022 AS parent_id FROM _nsys_nvtx_proj_parent
));

-- The projected ranges of `proj` (_nsys_nvtx_gpu_proj or _2022) with their
-- stacks: each range's stack names its every ancestor, as nsys's does, so
-- this grows with the projected ranges times their depth.
CREATE PERFETTO MACRO _nsys_nvtx_gpu_proj_stacked(proj TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    projected AS MATERIALIZED (SELECT * FROM $proj),
    edges AS MATERIALIZED (
      SELECT parentid AS source_node_id, rangeid AS dest_node_id
      FROM projected
      WHERE parentid IS NOT NULL
    ),
    roots AS MATERIALIZED (
      SELECT rangeid AS id, ':' || rangeid AS range_stack FROM projected WHERE parentid IS NULL
    ),
    -- graph_scan passes its step to SQLite as a string: no single quotes.
    stacks AS MATERIALIZED (
      SELECT id, range_stack
      FROM _graph_scan!(
        edges,
        roots,
        (range_stack),
        (SELECT t.id, t.range_stack || ":" || t.id AS range_stack FROM $table t)
      )
    ),
    stacked AS MATERIALIZED (
      SELECT
        p.name, p.projected_start_ns, p.projected_duration_ns, p.orig_start_ns,
        p.orig_duration_ns, p.style, p.pid, p.tid, p.numgpuops, p.lvl, p.numchild,
        p.rangeid, p.parentid, s.range_stack AS rangestack, p.op
      FROM projected p
      LEFT JOIN stacks s ON s.id = p.rangeid
    )
  SELECT * FROM stacked
);

-- NVTX GPU Projection Trace (nsys stats nvtx_gpu_proj_trace): every range
-- that contains GPU work, projected onto the GPU: from the start of the
-- first kernel, memcpy or memset launched inside it to the end of the last
-- one, in projected start order; then, as nsys 2023.4, one row with no
-- range (name, lvl, rangeid NULL) for the GPU work launched outside every
-- range (its pid and tid: the call of the work that ends last). range_id,
-- parent_id and range_stack are the ranges' slice ids (nsys's are its row
-- ids).
CREATE PERFETTO VIEW nsys_nvtx_gpu_proj_trace(
  -- Range name ('domain:name' in a named domain; NULL: the work outside
  -- every range).
  name STRING,
  -- Start of the first GPU operation, ns (report time as nsys prints it:
  -- trace time less nsys_gpus.time_shift_ns).
  projected_start_ns LONG,
  -- To the end of the last one, ns.
  projected_duration_ns LONG,
  -- The range's start, ns (report time).
  orig_start_ns LONG,
  -- The range's duration, ns.
  orig_duration_ns LONG,
  -- 'PushPop' or 'StartEnd'.
  style STRING,
  -- Process id.
  pid LONG,
  -- Thread id.
  tid LONG,
  -- CUDA calls inside the range that launched GPU work.
  numgpuops LONG,
  -- Level in the thread's range tree (0: outermost).
  lvl LONG,
  -- Projected ranges whose parent it is.
  numchild LONG,
  -- The range's slice id.
  rangeid LONG,
  -- The parent range's slice id (NULL at the top).
  parentid LONG,
  -- The slice ids from the top range down to it: ':12:40:41'.
  rangestack STRING,
  -- The range's op: 'domain:name' or 'name' with nsys_nvtx_ranges.name,
  -- 'aten::to' for the PyTorch op range `aten::to, seq = 12, op_id = 998949`
  -- (name has the whole text, as nsys).
  op STRING
) AS
WITH
  -- GPU work whose call is in no range (nsys 2023.4 groups it under a NULL
  -- range).
  outside AS MATERIALIZED (
    SELECT o.ts, o.ts + o.dur AS end_ts, o.api_call_id, c.pid, c.tid
    FROM nsys_gpu_ops o
    JOIN nsys_cuda_api_calls c ON c.id = o.api_call_id
    WHERE o.api_call_id NOT IN (SELECT call_id FROM _nsys_nvtx_call_range)
  ),
  unranged AS (
    SELECT
      NULL AS name,
      min(ts) - _nsys_time_shift() AS projected_start_ns,
      max(end_ts) - min(ts) AS projected_duration_ns,
      NULL AS orig_start_ns,
      NULL AS orig_duration_ns,
      NULL AS style,
      (SELECT pid FROM outside ORDER BY end_ts DESC LIMIT 1) AS pid,
      (SELECT tid FROM outside ORDER BY end_ts DESC LIMIT 1) AS tid,
      count(DISTINCT api_call_id) AS numgpuops,
      NULL AS lvl,
      0 AS numchild,
      NULL AS rangeid,
      NULL AS parentid,
      NULL AS rangestack,
      NULL AS op
    FROM outside
    -- nsys reports nothing for a report without NVTX.
    WHERE EXISTS (SELECT 1 FROM nsys_nvtx_ranges) OR EXISTS (SELECT 1 FROM nsys_nvtx_marks)
    HAVING count(*) > 0
  )
SELECT * FROM _nsys_nvtx_gpu_proj_stacked!(_nsys_nvtx_gpu_proj)
UNION ALL
SELECT * FROM unranged
ORDER BY projected_start_ns, projected_duration_ns DESC, rangeid;

-- NVTX Range Projection as nsys 2022.4's nvtxgpuproj: its range tree
-- (32-bit bounds: see _nsys_nvtx_proj_parent), no row for the GPU work
-- launched outside every range. Same columns as nsys_nvtx_gpu_proj_trace.
CREATE PERFETTO VIEW nsys_nvtx_gpu_proj_trace_2022(
  -- Range name ('domain:name' in a named domain).
  name STRING,
  -- Start of the first GPU operation, ns (report time as nsys prints it:
  -- trace time less nsys_gpus.time_shift_ns).
  projected_start_ns LONG,
  -- To the end of the last one, ns.
  projected_duration_ns LONG,
  -- The range's start, ns (report time).
  orig_start_ns LONG,
  -- The range's duration, ns.
  orig_duration_ns LONG,
  -- 'PushPop' or 'StartEnd'.
  style STRING,
  -- Process id.
  pid LONG,
  -- Thread id.
  tid LONG,
  -- CUDA calls inside the range that launched GPU work.
  numgpuops LONG,
  -- Level in the thread's range tree (0: outermost).
  lvl LONG,
  -- Projected ranges whose parent it is.
  numchild LONG,
  -- The range's slice id.
  rangeid LONG,
  -- The parent range's slice id (NULL at the top).
  parentid LONG,
  -- The slice ids from the top range down to it: ':12:40:41'.
  rangestack STRING,
  -- The range's op: 'domain:name' or 'name' with nsys_nvtx_ranges.name,
  -- 'aten::to' for the PyTorch op range `aten::to, seq = 12, op_id = 998949`
  -- (name has the whole text, as nsys).
  op STRING
) AS
SELECT * FROM _nsys_nvtx_gpu_proj_stacked!(_nsys_nvtx_gpu_proj_2022)
ORDER BY projected_start_ns, projected_duration_ns DESC, rangeid;

-- NVTX Push/Pop Range Trace (nsys 2023+ nvtx_pushpop_trace; no 2022.4
-- report): every push/pop range with its place in its thread's tree of
-- push/pop ranges, in start order (shortest first). A range's parent is
-- the push/pop range of its thread that contains it most tightly, as in
-- the projection but among push/pop ranges only, and a range still open
-- ends at the last push/pop timestamp (not the last NVTX one). Ranges with
-- identical bounds are each other's parent, reach no root, and are left
-- out with every range inside them, as nsys does. The stack is computed as
-- the projection's (linear in the ranges but for the stacks themselves).
CREATE PERFETTO VIEW nsys_nvtx_pushpop_trace(
  -- Start, ns (report time).
  start_ns LONG,
  -- End, ns.
  end_ns LONG,
  -- Duration, ns.
  duration_ns LONG,
  -- Summed duration of its children, ns.
  durchild_ns LONG,
  -- duration_ns less durchild_ns.
  durnonchild_ns LONG,
  -- Range name ('domain:name' in a named domain).
  name STRING,
  -- Process id.
  pid LONG,
  -- Thread id.
  tid LONG,
  -- Level in the thread's tree (0: outermost).
  lvl LONG,
  -- Ranges whose parent it is.
  numchild LONG,
  -- The range's slice id.
  rangeid LONG,
  -- The parent's slice id (NULL at the top).
  parentid LONG,
  -- The slice ids from the top range down to it: ':12:40:41'.
  rangestack STRING,
  -- The name after two dashes per level.
  nametree STRING
) AS
WITH
  last AS MATERIALIZED (
    SELECT max(max(ts), max(iif(unterminated, NULL, ts + dur))) AS ts
    FROM nsys_nvtx_ranges
    WHERE kind = 'push/pop'
  ),
  ranges AS MATERIALIZED (
    SELECT
      r.id,
      r.ts,
      iif(r.unterminated, l.ts, r.ts + r.dur) - r.ts + 1 AS dur,
      iif(r.unterminated, l.ts, r.ts + r.dur) AS end_ts,
      r.utid,
      NULL AS start_down,
      NULL AS end_up
    FROM nsys_nvtx_ranges r
    CROSS JOIN last l
    WHERE r.kind = 'push/pop'
  ),
  range_spans AS MATERIALIZED (SELECT * FROM _nsys_nvtx_range_spans!(ranges)),
  spans AS MATERIALIZED (SELECT * FROM _nsys_nvtx_span_tree!(ranges, range_spans)),
  tangled AS MATERIALIZED (
    SELECT * FROM ranges WHERE utid IN (SELECT utid FROM spans WHERE NOT nested)
  ),
  ranked AS MATERIALIZED (
    SELECT id, parent_id, row_number() OVER (PARTITION BY id ORDER BY gap, parent_id) AS rn
    FROM _nsys_nvtx_containing!(tangled)
  ),
  parents AS MATERIALIZED (
    SELECT
      rs.id,
      CASE
        WHEN s.n > 1 THEN iif(rs.id = s.first_id, s.second_id, s.first_id)
        ELSE ps.first_id
      END AS parent_id,
      s.ts,
      s.end_ts
    FROM range_spans rs
    JOIN spans s USING (span_id)
    LEFT JOIN spans ps ON ps.span_id = s.parent_span
    WHERE s.nested
    UNION ALL
    SELECT t.id, k.parent_id, t.ts, t.end_ts
    FROM tangled t
    LEFT JOIN ranked k ON k.id = t.id AND k.rn = 1
  ),
  -- Each range with its children's count and time, in one grouping.
  info AS MATERIALIZED (
    SELECT
      id,
      max(parent_id) AS parent_id,
      max(ts) AS ts,
      max(end_ts) AS end_ts,
      sum(child) AS numchild,
      sum(child_dur) AS durchild
    FROM (
      SELECT id, parent_id, ts, end_ts, 0 AS child, 0 AS child_dur FROM parents
      UNION ALL
      SELECT parent_id AS id, NULL, NULL, NULL, 1, end_ts - ts FROM parents WHERE parent_id IS NOT NULL
    )
    GROUP BY id
  ),
  edges AS MATERIALIZED (
    SELECT parent_id AS source_node_id, id AS dest_node_id FROM parents WHERE parent_id IS NOT NULL
  ),
  roots AS MATERIALIZED (
    SELECT id, 0 AS lvl, ':' || id AS range_stack FROM parents WHERE parent_id IS NULL
  ),
  -- graph_scan passes its step to SQLite as a string: no single quotes.
  tree AS MATERIALIZED (
    SELECT id, lvl, range_stack
    FROM _graph_scan!(
      edges,
      roots,
      (lvl, range_stack),
      (SELECT t.id, t.lvl + 1 AS lvl, t.range_stack || ":" || t.id AS range_stack FROM $table t)
    )
  ),
  sh AS (SELECT _nsys_time_shift() AS shift)
SELECT
  i.ts - sh.shift AS start_ns,
  i.end_ts - sh.shift AS end_ns,
  i.end_ts - i.ts AS duration_ns,
  i.durchild AS durchild_ns,
  i.end_ts - i.ts - i.durchild AS durnonchild_ns,
  n.tag AS name,
  n.pid,
  n.tid,
  t.lvl,
  i.numchild,
  i.id AS rangeid,
  i.parent_id AS parentid,
  t.range_stack AS rangestack,
  iif(t.lvl = 0, '', printf('%.*c', 2 * t.lvl, '-')) || n.tag AS nametree
-- info drives, tree is looked up: the other way round SQLite scans info for
-- every row of tree (seconds per thousand ranges on a deep recursion).
FROM info i
JOIN _nsys_nvtx_stats_range n USING (id)
LEFT JOIN tree t USING (id)
CROSS JOIN sh
WHERE t.id IS NOT NULL
ORDER BY start_ns, duration_ns, rangeid;

-- The projections of `src` (columns name, style, projected_duration_ns,
-- orig_duration_ns, numgpuops, lvl, numchild) per name and style: the
-- columns of nsys's NVTX Range Projection Summary.
CREATE PERFETTO MACRO _nsys_nvtx_gpu_proj_summary(src TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    -- MATERIALIZED: read twice below; SQLite would otherwise compute the
    -- projections again for each row.
    k AS MATERIALIZED (
      SELECT quote(name) || ',' || style AS grp, * FROM $src
    ),
    s AS (SELECT * FROM _nsys_stats_summary_ns!((SELECT grp, projected_duration_ns AS val FROM k))),
    e AS (
      SELECT
        grp,
        name,
        style,
        sum(orig_duration_ns) AS range_time,
        sum(numgpuops) AS ops,
        avg(numgpuops) AS avg_ops,
        avg(lvl) AS avg_lvl,
        avg(numchild) AS avg_child
      FROM k
      GROUP BY grp
    )
  SELECT
    e.name AS range,
    e.style,
    s.total_time_ns AS total_proj_time_ns,
    e.range_time AS total_range_time_ns,
    s.num AS range_instances,
    s.avg_ns AS proj_avg_ns,
    s.med_ns AS proj_med_ns,
    s.min_ns AS proj_min_ns,
    s.max_ns AS proj_max_ns,
    s.stddev_ns AS proj_stddev_ns,
    e.ops AS total_gpu_ops,
    _nsys_stats_round(e.avg_ops, 1) AS avg_gpu_ops,
    _nsys_stats_round(e.avg_lvl, 1) AS avg_range_lvl,
    _nsys_stats_round(e.avg_child, 1) AS avg_num_child
  FROM s JOIN e USING (grp)
  ORDER BY s.total_time_ns DESC, e.name, e.style
);

-- NVTX Range Projection Summary (nsys 2023+ nvtx_gpu_proj_sum; no 2022.4
-- report): the projections of nsys_nvtx_gpu_proj_trace per name (the whole
-- text, as nsys) and style, longest total projected time first.
CREATE PERFETTO VIEW nsys_nvtx_gpu_proj_sum(
  -- Range name.
  range STRING,
  -- 'PushPop' or 'StartEnd'.
  style STRING,
  -- Summed projected duration, ns.
  total_proj_time_ns LONG,
  -- Summed duration of the ranges themselves, ns.
  total_range_time_ns LONG,
  -- Number of projected ranges.
  range_instances LONG,
  -- Mean projected duration, ns, 1 decimal.
  proj_avg_ns DOUBLE,
  -- Median projected duration, ns, 1 decimal.
  proj_med_ns DOUBLE,
  -- Shortest projection, ns.
  proj_min_ns LONG,
  -- Longest projection, ns.
  proj_max_ns LONG,
  -- Sample standard deviation of the projected durations, ns, 1 decimal.
  proj_stddev_ns DOUBLE,
  -- Summed numgpuops.
  total_gpu_ops LONG,
  -- Mean numgpuops, 1 decimal.
  avg_gpu_ops DOUBLE,
  -- Mean level, 1 decimal.
  avg_range_lvl DOUBLE,
  -- Mean numchild, 1 decimal.
  avg_num_child DOUBLE
) AS
SELECT * FROM _nsys_nvtx_gpu_proj_summary!(_nsys_nvtx_gpu_proj);

-- nsys_nvtx_gpu_proj_sum grouped by op (nsys_nvtx_gpu_proj_trace.op): a
-- PyTorch op range counts under its op ('aten::to'). Same columns; `range`
-- is the op.
CREATE PERFETTO VIEW nsys_nvtx_gpu_proj_sum_by_op(
  -- Op or range name ('domain:name' in a named domain).
  range STRING,
  -- 'PushPop' or 'StartEnd'.
  style STRING,
  -- Summed projected duration, ns.
  total_proj_time_ns LONG,
  -- Summed duration of the ranges themselves, ns.
  total_range_time_ns LONG,
  -- Number of projected ranges.
  range_instances LONG,
  -- Mean projected duration, ns, 1 decimal.
  proj_avg_ns DOUBLE,
  -- Median projected duration, ns, 1 decimal.
  proj_med_ns DOUBLE,
  -- Shortest projection, ns.
  proj_min_ns LONG,
  -- Longest projection, ns.
  proj_max_ns LONG,
  -- Sample standard deviation of the projected durations, ns, 1 decimal.
  proj_stddev_ns DOUBLE,
  -- Summed numgpuops.
  total_gpu_ops LONG,
  -- Mean numgpuops, 1 decimal.
  avg_gpu_ops DOUBLE,
  -- Mean level, 1 decimal.
  avg_range_lvl DOUBLE,
  -- Mean numchild, 1 decimal.
  avg_num_child DOUBLE
) AS
SELECT * FROM _nsys_nvtx_gpu_proj_summary!((
  SELECT
    op AS name, style, projected_duration_ns, orig_duration_ns, numgpuops, lvl, numchild
  FROM _nsys_nvtx_gpu_proj
));

-- Every kernel with each range that contains its launch (one row per
-- kernel and range; one row with no range for a kernel launched outside
-- every range, or whose call is not in the report). A view, as
-- _nsys_nvtx_call_range.
CREATE PERFETTO VIEW _nsys_nvtx_kernel_range(
  -- Kernel slice id.
  kernel_id LONG,
  -- Duration, ns.
  dur LONG,
  -- Short name.
  short_name STRING,
  -- Demangled name.
  demangled_name STRING,
  -- Process id of the launching call (NULL without one).
  pid LONG,
  -- Thread id of the launching call.
  tid LONG,
  -- Range slice id (NULL: none).
  range_id LONG,
  -- Range name.
  tag STRING,
  -- Range style.
  style STRING,
  -- Range op (_nsys_nvtx_stats_range.op).
  op STRING
) AS
SELECT
  k.id AS kernel_id,
  k.dur,
  k.short_name,
  k.demangled_name,
  c.pid,
  c.tid,
  cr.range_id,
  r.tag,
  r.style,
  r.op
FROM nsys_kernels k
LEFT JOIN nsys_cuda_api_calls c ON c.id = k.api_call_id
LEFT JOIN _nsys_nvtx_call_range cr ON cr.call_id = k.api_call_id
LEFT JOIN _nsys_nvtx_stats_range r ON r.id = cr.range_id;

-- The NVTX Range Kernel Summary of nsys_nvtx_kern_sum_by_name(name_kind),
-- its ranges grouped on their whole text (by_op 0, as nsys) or on their op
-- (by_op 1: a PyTorch op range counts under its op).
CREATE PERFETTO FUNCTION _nsys_nvtx_kern_sum(
  -- 'demangled' or 'base'.
  name_kind STRING,
  -- 1: group ranges by op.
  by_op BOOL
)
RETURNS TABLE(
  -- Range name.
  nvtx_range STRING,
  -- 'PushPop' or 'StartEnd'.
  style STRING,
  -- Process id of the launching thread.
  pid LONG,
  -- Its thread id.
  tid LONG,
  -- Ranges of this name containing these kernels.
  nvtx_inst LONG,
  -- Kernels.
  kern_inst LONG,
  -- Summed kernel duration (per range and kernel), ns.
  total_time_ns LONG,
  -- Mean kernel duration, ns, 1 decimal.
  avg_ns DOUBLE,
  -- Median kernel duration, ns, 1 decimal.
  med_ns DOUBLE,
  -- Shortest kernel, ns.
  min_ns LONG,
  -- Longest kernel, ns.
  max_ns LONG,
  -- Sample standard deviation of kernel durations, ns, 1 decimal.
  stddev_ns DOUBLE,
  -- Kernel name (demangled, or short with 'base').
  kernel_name STRING
) AS
WITH
  kr AS (
    SELECT
      *,
      iif($name_kind = 'base', coalesce(short_name, demangled_name), demangled_name) AS kname,
      iif($by_op, op, tag) AS grp_tag
    FROM _nsys_nvtx_kernel_range
    -- nsys reports nothing for a report without NVTX.
    WHERE EXISTS (SELECT 1 FROM nsys_nvtx_ranges) OR EXISTS (SELECT 1 FROM nsys_nvtx_marks)
  ),
  k AS (
    SELECT
      quote(pid) || ',' || quote(tid) || ',' || quote(grp_tag) || ',' || quote(style) || ','
        || quote(kname) AS grp,
      *
    FROM kr
  ),
  s AS (SELECT * FROM _nsys_stats_summary_ns!((SELECT grp, dur AS val FROM k))),
  e AS (
    SELECT
      grp,
      grp_tag AS tag,
      style,
      pid,
      tid,
      kname,
      count(DISTINCT range_id) AS nvtx_inst,
      count(DISTINCT kernel_id) AS kern_inst
    FROM k
    GROUP BY grp
  )
SELECT
  e.tag AS nvtx_range,
  e.style,
  e.pid,
  e.tid,
  e.nvtx_inst,
  e.kern_inst,
  s.total_time_ns, s.avg_ns, s.med_ns, s.min_ns, s.max_ns, s.stddev_ns,
  e.kname AS kernel_name
FROM s JOIN e USING (grp)
ORDER BY e.tag, e.pid, e.tid, s.total_time_ns DESC, e.kname;

-- NVTX Range Kernel Summary with a choice of kernel names (nsys stats
-- nvtx_kern_sum[:base]; 2022.4: nvtxkernsum): kernels per containing range
-- name (the whole text, as nsys) and style, launching process and thread,
-- and kernel name; by range name, pid, tid, then longest total. A kernel
-- counts once in each range that contains its launch (nested ranges of one
-- name count it again in total_time_ns, not in kern_inst); kernels outside
-- every range have an empty range.
CREATE PERFETTO FUNCTION nsys_nvtx_kern_sum_by_name(
  -- 'demangled' (nsys's default) or 'base' (short names).
  name_kind STRING
)
RETURNS TABLE(
  -- Range name.
  nvtx_range STRING,
  -- 'PushPop' or 'StartEnd'.
  style STRING,
  -- Process id of the launching thread.
  pid LONG,
  -- Its thread id.
  tid LONG,
  -- Ranges of this name containing these kernels.
  nvtx_inst LONG,
  -- Kernels.
  kern_inst LONG,
  -- Summed kernel duration (per range and kernel), ns.
  total_time_ns LONG,
  -- Mean kernel duration, ns, 1 decimal.
  avg_ns DOUBLE,
  -- Median kernel duration, ns, 1 decimal.
  med_ns DOUBLE,
  -- Shortest kernel, ns.
  min_ns LONG,
  -- Longest kernel, ns.
  max_ns LONG,
  -- Sample standard deviation of kernel durations, ns, 1 decimal.
  stddev_ns DOUBLE,
  -- Kernel name (demangled, or short with 'base').
  kernel_name STRING
) AS
SELECT * FROM _nsys_nvtx_kern_sum($name_kind, 0);

-- NVTX Range Kernel Summary (nsys stats nvtx_kern_sum; 2022.4: nvtxkernsum)
-- with nsys's default, demangled kernel names: nsys_nvtx_kern_sum_by_name('demangled').
CREATE PERFETTO VIEW nsys_nvtx_kern_sum AS
SELECT * FROM nsys_nvtx_kern_sum_by_name('demangled');

-- nsys_nvtx_kern_sum_by_name(name_kind) with the ranges grouped by op: a
-- PyTorch op range (`aten::to, seq = 12, op_id = 998949`) counts under its
-- op ('aten::to'), other ranges under their name. Same columns; nvtx_range
-- is the op, nvtx_inst the ranges of that op containing these kernels.
CREATE PERFETTO FUNCTION nsys_nvtx_kern_sum_by_op_by_name(
  -- 'demangled' or 'base' (short names).
  name_kind STRING
)
RETURNS TABLE(
  -- Op or range name.
  nvtx_range STRING,
  -- 'PushPop' or 'StartEnd'.
  style STRING,
  -- Process id of the launching thread.
  pid LONG,
  -- Its thread id.
  tid LONG,
  -- Ranges of this name containing these kernels.
  nvtx_inst LONG,
  -- Kernels.
  kern_inst LONG,
  -- Summed kernel duration (per range and kernel), ns.
  total_time_ns LONG,
  -- Mean kernel duration, ns, 1 decimal.
  avg_ns DOUBLE,
  -- Median kernel duration, ns, 1 decimal.
  med_ns DOUBLE,
  -- Shortest kernel, ns.
  min_ns LONG,
  -- Longest kernel, ns.
  max_ns LONG,
  -- Sample standard deviation of kernel durations, ns, 1 decimal.
  stddev_ns DOUBLE,
  -- Kernel name (demangled, or short with 'base').
  kernel_name STRING
) AS
SELECT * FROM _nsys_nvtx_kern_sum($name_kind, 1);

-- nsys_nvtx_kern_sum grouped by op, with demangled kernel names:
-- nsys_nvtx_kern_sum_by_op_by_name('demangled').
CREATE PERFETTO VIEW nsys_nvtx_kern_sum_by_op AS
SELECT * FROM nsys_nvtx_kern_sum_by_op_by_name('demangled');
