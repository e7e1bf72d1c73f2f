-- nsys.extras.compute_comm: compute against communication per GPU.
--
-- Communication kernels are NCCL's: kernels whose short name starts with
-- "nccl" (ncclKernel_AllReduce_RING_LL_Sum_float, ncclDevKernel_Generic,
-- ...); every other kernel is compute. Memcpys and memsets are neither.
-- On each GPU, compute time and communication time are the unions of the
-- kernels of each kind (concurrent kernels count once), overlapped time is
-- the intersection of the two unions (communication while compute runs on
-- the same GPU), and exposed communication is communication with no
-- compute under it: comm_ns - overlap_ns. Built on the stdlib's
-- intervals.intersect. See docs/sql.md.

INCLUDE PERFETTO MODULE intervals.overlap;
INCLUDE PERFETTO MODULE intervals.intersect;
INCLUDE PERFETTO MODULE nsys.cuda;

-- 1 when a kernel's short name is an NCCL communication kernel's.
CREATE PERFETTO FUNCTION nsys_is_comm_kernel(
  -- nsys_kernels.short_name.
  short_name STRING
)
RETURNS BOOL AS
SELECT coalesce($short_name GLOB 'nccl*' OR $short_name GLOB 'NCCL*', 0);

-- The union of each GPU's compute kernels and of its communication kernels:
-- one row per maximal stretch of each kind.
CREATE PERFETTO TABLE nsys_compute_comm_intervals(
  -- Row id, for the intervals stdlib.
  id LONG,
  -- GPU group (nsys_gpus.gpu_track_id).
  gpu_track_id LONG,
  -- 'compute' or 'comm'.
  kind STRING,
  -- Start, ns.
  ts LONG,
  -- Length, ns.
  dur LONG
) AS
WITH
  k AS (
    SELECT
      ts, dur, gpu_track_id,
      iif(nsys_is_comm_kernel(short_name), 'comm', 'compute') AS kind
    FROM nsys_kernels
    WHERE dur > 0 AND gpu_track_id IS NOT NULL
  ),
  u AS (
    SELECT ts, dur, gpu_track_id, kind
    FROM interval_merge_overlapping_partitioned!(k, (gpu_track_id, kind))
  )
SELECT
  row_number() OVER (ORDER BY gpu_track_id, kind, ts) - 1 AS id,
  gpu_track_id, kind, ts, dur
FROM u
ORDER BY gpu_track_id, kind, ts;

-- The stretches where communication and compute run at once on a GPU
-- (the intersection of the two unions).
CREATE PERFETTO TABLE nsys_compute_comm_overlap_intervals(
  -- GPU group.
  gpu_track_id LONG,
  -- Start, ns.
  ts LONG,
  -- Length, ns.
  dur LONG,
  -- The compute stretch (nsys_compute_comm_intervals.id).
  compute_id LONG,
  -- The communication stretch (nsys_compute_comm_intervals.id).
  comm_id LONG
) AS
WITH
  compute AS (SELECT id, ts, dur, gpu_track_id FROM nsys_compute_comm_intervals WHERE kind = 'compute'),
  comm AS (SELECT id, ts, dur, gpu_track_id FROM nsys_compute_comm_intervals WHERE kind = 'comm')
SELECT gpu_track_id, ts, dur, id_0 AS compute_id, id_1 AS comm_id
FROM _interval_intersect!((compute, comm), (gpu_track_id))
WHERE dur > 0
ORDER BY gpu_track_id, ts;

-- Per GPU with kernels: compute, communication, overlapped and exposed
-- communication time.
CREATE PERFETTO TABLE nsys_compute_comm_overlap(
  -- GPU group.
  gpu_track_id LONG,
  -- CUDA device id.
  device LONG,
  -- Compute kernels (not NCCL).
  compute_kernels LONG,
  -- NCCL kernels.
  comm_kernels LONG,
  -- Time compute kernels run (their union), ns.
  compute_ns LONG,
  -- Time NCCL kernels run (their union), ns.
  comm_ns LONG,
  -- Communication while compute runs (intersection of the unions), ns.
  overlap_ns LONG,
  -- Communication with no compute under it: comm_ns - overlap_ns.
  exposed_comm_ns LONG,
  -- Compute with no communication beside it: compute_ns - overlap_ns.
  compute_only_ns LONG,
  -- 100 * overlap_ns / comm_ns (NULL without communication).
  overlap_pct DOUBLE,
  -- 100 * exposed_comm_ns / comm_ns (NULL without communication).
  exposed_comm_pct DOUBLE
) AS
WITH
  counts AS (
    SELECT
      gpu_track_id,
      sum(nsys_is_comm_kernel(short_name) = 0) AS compute_kernels,
      sum(nsys_is_comm_kernel(short_name) = 1) AS comm_kernels
    FROM nsys_kernels
    WHERE gpu_track_id IS NOT NULL
    GROUP BY gpu_track_id
  ),
  unions AS (
    SELECT
      gpu_track_id,
      sum(iif(kind = 'compute', dur, 0)) AS compute_ns,
      sum(iif(kind = 'comm', dur, 0)) AS comm_ns
    FROM nsys_compute_comm_intervals
    GROUP BY gpu_track_id
  ),
  overlaps AS (
    SELECT gpu_track_id, sum(dur) AS overlap_ns
    FROM nsys_compute_comm_overlap_intervals
    GROUP BY gpu_track_id
  ),
  t AS (
    SELECT
      c.gpu_track_id,
      g.device,
      c.compute_kernels,
      c.comm_kernels,
      coalesce(u.compute_ns, 0) AS compute_ns,
      coalesce(u.comm_ns, 0) AS comm_ns,
      coalesce(o.overlap_ns, 0) AS overlap_ns
    FROM counts c
    LEFT JOIN unions u USING (gpu_track_id)
    LEFT JOIN overlaps o USING (gpu_track_id)
    LEFT JOIN nsys_gpus g USING (gpu_track_id)
  )
SELECT
  gpu_track_id,
  device,
  compute_kernels,
  comm_kernels,
  compute_ns,
  comm_ns,
  overlap_ns,
  comm_ns - overlap_ns AS exposed_comm_ns,
  compute_ns - overlap_ns AS compute_only_ns,
  iif(comm_ns > 0, 100.0 * overlap_ns / comm_ns, NULL) AS overlap_pct,
  iif(comm_ns > 0, 100.0 * (comm_ns - overlap_ns) / comm_ns, NULL) AS exposed_comm_pct
FROM t
ORDER BY gpu_track_id;
