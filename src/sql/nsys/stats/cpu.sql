-- nsys.stats.cpu: the CPU-side reports of `nsys stats`, report for report,
-- over the typed tables of nsys.cpu. Each table is named nsys_ + the report's
-- nsys 2023+ name (2022.4 name in brackets):
--
--   nsys_osrt_sum               (osrtsum)          OS runtime calls per function
--   nsys_openacc_sum            (openaccsum)       OpenACC events per name
--   nsys_openmp_sum             (openmpevtsum)     OpenMP events per table and name
--   nsys_um_cpu_page_faults_sum (umcpupagefaults)  unified-memory CPU page faults
--                                                  per faulting instruction
--   nsys_mpi_event_sum          (2023.4+ only)     MPI calls per table and name
--   nsys_mpi_event_trace        (2023.4+ only)     every MPI call
--
-- Columns are in nsys's order, named after its CSV header in snake case;
-- averages, medians, percentages and standard deviations are rounded to one
-- decimal as nsys rounds them (_nsys_stats_round); the median of an
-- even count is the mean of the two middle values; the standard deviation is
-- the sample one (n - 1), 0 for a single value. See docs/sql.md.

INCLUDE PERFETTO MODULE nsys.cpu;
INCLUDE PERFETTO MODULE nsys.gpus;
INCLUDE PERFETTO MODULE nsys.stats.common;

-- The summary columns of nsys's CPU reports over `src` (columns grp, name,
-- val): one row per grp, longest total first; time_pct is the share of the
-- summed time of all rows.
CREATE PERFETTO MACRO _nsys_cpu_summary(src TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    _k AS (SELECT grp, name, val FROM $src),
    _n AS (SELECT grp, min(name) AS name FROM _k GROUP BY grp)
  SELECT
    _s.time_pct, _s.total_time_ns, _s.num, _s.avg_ns, _s.med_ns, _s.min_ns, _s.max_ns,
    _s.stddev_ns, _n.name AS name, _s.grp AS grp
  FROM _nsys_stats_summary_ns!((SELECT grp, val FROM _k)) _s JOIN _n USING (grp)
  ORDER BY _s.total_time_ns DESC, _s.grp
);

-- OS Runtime Summary (nsys stats osrt_sum; 2022.4: osrtsum): the OS runtime
-- calls per function, longest total first (nsys's own marker rows, event
-- classes other than 27, are left out as nsys leaves them out).
CREATE PERFETTO VIEW nsys_osrt_sum(
  -- Share of the summed time of all calls, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of calls.
  num_calls LONG,
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
  -- Function name.
  name STRING
) AS
SELECT time_pct, total_time_ns, num AS num_calls, avg_ns, med_ns, min_ns, max_ns, stddev_ns, name
FROM _nsys_cpu_summary!((
  SELECT name AS grp, name, dur AS val FROM nsys_osrt_calls WHERE event_class = 27
));

-- OpenACC Summary (nsys stats openacc_sum; 2022.4: openaccsum): the OpenACC
-- events per name ("Compute Construct@file.c:47"), longest total first.
CREATE PERFETTO VIEW nsys_openacc_sum(
  -- Share of the summed time of all events, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of events.
  num_calls LONG,
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
  -- Event name, with "@file:line" when the source is known.
  name STRING
) AS
SELECT time_pct, total_time_ns, num AS num_calls, avg_ns, med_ns, min_ns, max_ns, stddev_ns, name
FROM _nsys_cpu_summary!((SELECT name AS grp, name, dur AS val FROM nsys_openacc_events));

-- OpenMP Event Summary (nsys stats openmp_sum; 2022.4: openmpevtsum): the
-- OpenMP events per OPENMP_EVENT_KIND_* table and name, longest total first.
-- Events nsys has no name for have an empty name (one row per table).
CREATE PERFETTO VIEW nsys_openmp_sum(
  -- Share of the summed time of all events, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of events.
  count LONG,
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
  -- Event name (NULL when nsys has none).
  name STRING
) AS
SELECT time_pct, total_time_ns, num AS count, avg_ns, med_ns, min_ns, max_ns, stddev_ns, name
FROM _nsys_cpu_summary!((
  SELECT
    quote(event_kind) || ',' || name AS grp,
    iif(unnamed, NULL, name) AS name,
    dur AS val
  FROM nsys_openmp_events
));

-- Unified Memory CPU Page Faults Summary (nsys stats um_cpu_page_faults_sum;
-- 2022.4: umcpupagefaults): the CPU page faults on managed memory per
-- faulting instruction (a function name, or an address), most first.
CREATE PERFETTO VIEW nsys_um_cpu_page_faults_sum(
  -- Page faults.
  cpu_page_faults LONG,
  -- The faulting code as nsys resolved it (CpuInstruction).
  cpu_instruction_address STRING
) AS
SELECT count(*) AS cpu_page_faults, cpu_instruction AS cpu_instruction_address
FROM nsys_um_cpu_page_faults
GROUP BY cpu_instruction
ORDER BY cpu_page_faults DESC, cpu_instruction_address;

-- MPI Event Summary (nsys 2023.4+ mpi_event_sum; 2022.4 has no MPI report):
-- the MPI calls per table ('p2p', 'collectives', 'start-wait', 'other') and
-- name, longest total first. As in nsys, a call unfinished at the end of the
-- report counts in instances, not in the times.
CREATE PERFETTO VIEW nsys_mpi_event_sum(
  -- Share of the summed time of all calls, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration of the finished calls, ns.
  total_time_ns LONG,
  -- Number of calls.
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
  -- 'p2p', 'collectives', 'start-wait' or 'other': the MPI_*_EVENTS table.
  source STRING,
  -- MPI function.
  name STRING
) AS
WITH
  k AS (
    SELECT quote(source) || ',' || quote(name) AS grp, source, name, iif(unterminated, NULL, dur) AS val
    FROM nsys_mpi_calls
  ),
  g AS (SELECT grp, source, name, count(*) AS instances FROM k GROUP BY grp),
  s AS (SELECT * FROM _nsys_stats_summary_ns!((SELECT grp, val FROM k)))
SELECT
  s.time_pct, s.total_time_ns, g.instances, s.avg_ns, s.med_ns, s.min_ns, s.max_ns,
  s.stddev_ns, g.source, g.name
FROM g LEFT JOIN s USING (grp)
ORDER BY s.total_time_ns DESC, g.grp;

-- MPI Event Trace (nsys 2023.4+ mpi_event_trace): every MPI call in start
-- order. A call unfinished at the end of the report has no end or duration,
-- as in nsys. Sizes are MB (bytes / 1e6), unrounded: nsys prints 3 decimals.
CREATE PERFETTO VIEW nsys_mpi_event_trace(
  -- Start, ns, report time (trace time less nsys_gpus.time_shift_ns).
  start_ns LONG,
  -- End, ns, report time; NULL for an unfinished call.
  end_ns LONG,
  -- Duration, ns; NULL for an unfinished call.
  duration_ns LONG,
  -- MPI function.
  event STRING,
  -- Process id.
  pid LONG,
  -- Thread id.
  tid LONG,
  -- Tag (point-to-point).
  tag LONG,
  -- The caller's rank.
  rank LONG,
  -- Peer rank (point-to-point).
  peerrank LONG,
  -- Root rank (rooted collectives).
  rootrank LONG,
  -- Message size, MB (point-to-point).
  size_mb DOUBLE,
  -- Bytes sent, MB (collectives).
  collsendsize_mb DOUBLE,
  -- Bytes received, MB (collectives).
  collrecvsize_mb DOUBLE,
  -- The call's slice (nsys_mpi_calls.id); not in nsys.
  id LONG
) AS
WITH sh AS (SELECT _nsys_time_shift() AS shift)
SELECT
  c.ts - sh.shift AS start_ns,
  iif(c.unterminated, NULL, c.ts + c.dur - sh.shift) AS end_ns,
  iif(c.unterminated, NULL, c.dur) AS duration_ns,
  c.name AS event,
  c.pid,
  c.tid,
  c.tag,
  c.rank,
  c.remote_rank AS peerrank,
  c.root_rank AS rootrank,
  iif(c.source = 'p2p', c.size / 1e6, NULL) AS size_mb,
  iif(c.source = 'collectives', c.size / 1e6, NULL) AS collsendsize_mb,
  iif(c.source = 'collectives', c.recv_size / 1e6, NULL) AS collrecvsize_mb,
  c.id
FROM nsys_mpi_calls c
CROSS JOIN sh
ORDER BY c.ts, c.id;
