-- nsys.gpus: the GPUs of a trace converted by nsys-perfetto, and the GPU rows
-- (CUDA streams, their sync rows, the Synchronization rows) with the device,
-- process, context and stream they hold the work of.
--
-- The converter writes these facts into the track descriptions as
-- "key: value" lines (one per line); this module reads them back.

-- The value of `key` in a track description made of "key: value" lines, or
-- NULL when the description has no such line.
CREATE PERFETTO FUNCTION _nsys_desc(
  -- The description (track source arg `description`).
  description STRING,
  -- The key, e.g. 'device'.
  key STRING
)
RETURNS STRING AS
SELECT
  CASE
    WHEN $description IS NULL OR instr(char(10) || $description, char(10) || $key || ': ') = 0
      THEN NULL
    ELSE substr(
      char(10) || $description || char(10),
      instr(char(10) || $description, char(10) || $key || ': ') + length($key) + 3,
      instr(
        substr(
          char(10) || $description || char(10),
          instr(char(10) || $description, char(10) || $key || ': ') + length($key) + 3
        ),
        char(10)
      ) - 1
    )
  END;

-- Every track with its description (NULL when it has none).
CREATE PERFETTO TABLE _nsys_track_desc(
  -- Track id.
  track_id LONG,
  -- Parent track id.
  parent_id LONG,
  -- Track name.
  name STRING,
  -- The description the converter wrote.
  description STRING
) AS
SELECT
  t.id AS track_id,
  t.parent_id,
  t.name,
  extract_arg(t.source_arg_set_id, 'description') AS description
FROM track t;

-- The GPUs: one row per GPU group of the trace (one per device and report).
-- Properties come from the report's TARGET_INFO_GPU and are NULL when the
-- report does not have them (older exports have only the name, or nothing).
CREATE PERFETTO TABLE nsys_gpus(
  -- The GPU group's track id (key of the GPU in the other nsys tables).
  gpu_track_id LONG,
  -- CUDA device id (kernels' deviceId).
  device LONG,
  -- The group's name as shown in the UI ("GPU 0 · NVIDIA H100 ... (bus)").
  track_name STRING,
  -- Device name ("NVIDIA H100 80GB HBM3").
  name STRING,
  -- PCI bus location ("0000:1b:00.0").
  bus_location STRING,
  -- Device UUID.
  uuid STRING,
  -- Chip name ("GH100").
  chip STRING,
  -- Number of SMs.
  sm_count LONG,
  -- Total memory, bytes.
  total_memory LONG,
  -- Memory bandwidth, bytes per second.
  memory_bandwidth LONG,
  -- SM clock rate, Hz.
  clock_rate LONG,
  -- L2 cache size, bytes.
  l2_cache_size LONG,
  -- Compute capability, major.
  compute_major LONG,
  -- Compute capability, minor.
  compute_minor LONG,
  -- Compute capability as 'major.minor'.
  compute_capability STRING,
  -- 1 for a discrete GPU.
  is_discrete LONG,
  -- Threads per warp.
  threads_per_warp LONG,
  -- Max threads per block.
  max_threads_per_block LONG,
  -- Max warps per SM.
  max_warps_per_sm LONG,
  -- Max blocks per SM.
  max_blocks_per_sm LONG,
  -- Max registers per block.
  max_registers_per_block LONG,
  -- Max registers per SM.
  max_registers_per_sm LONG,
  -- Max shared memory per block, bytes.
  max_shared_memory_per_block LONG,
  -- Max shared memory per SM, bytes.
  max_shared_memory_per_sm LONG,
  -- Async copy engines.
  async_engines LONG,
  -- Name given with nvtxNameCudaDevice, if any.
  nvtx_name STRING,
  -- The report's label when several reports were merged into one trace.
  report STRING,
  -- Trace time minus report time, ns: the constant the converter added to
  -- every timestamp of the report (non-zero when the report holds negative
  -- timestamps; docs/timeline.md, "Exact data"). 0 in traces made before it was recorded.
  time_shift_ns LONG
) AS
SELECT
  track_id AS gpu_track_id,
  cast_int!(_nsys_desc(description, 'device')) AS device,
  name AS track_name,
  _nsys_desc(description, 'name') AS name,
  _nsys_desc(description, 'bus location') AS bus_location,
  _nsys_desc(description, 'uuid') AS uuid,
  _nsys_desc(description, 'chip') AS chip,
  cast_int!(_nsys_desc(description, 'sm count')) AS sm_count,
  cast_int!(_nsys_desc(description, 'total memory')) AS total_memory,
  cast_int!(_nsys_desc(description, 'memory bandwidth')) AS memory_bandwidth,
  cast_int!(_nsys_desc(description, 'clock rate')) AS clock_rate,
  cast_int!(_nsys_desc(description, 'l2 cache size')) AS l2_cache_size,
  cast_int!(_nsys_desc(description, 'compute major')) AS compute_major,
  cast_int!(_nsys_desc(description, 'compute minor')) AS compute_minor,
  _nsys_desc(description, 'compute major') || '.' || _nsys_desc(description, 'compute minor')
    AS compute_capability,
  cast_int!(_nsys_desc(description, 'is discrete')) AS is_discrete,
  cast_int!(_nsys_desc(description, 'threads per warp')) AS threads_per_warp,
  cast_int!(_nsys_desc(description, 'max threads per block')) AS max_threads_per_block,
  cast_int!(_nsys_desc(description, 'max warps per sm')) AS max_warps_per_sm,
  cast_int!(_nsys_desc(description, 'max blocks per sm')) AS max_blocks_per_sm,
  cast_int!(_nsys_desc(description, 'max registers per block')) AS max_registers_per_block,
  cast_int!(_nsys_desc(description, 'max registers per sm')) AS max_registers_per_sm,
  cast_int!(_nsys_desc(description, 'max shared memory per block'))
    AS max_shared_memory_per_block,
  cast_int!(_nsys_desc(description, 'max shared memory per sm')) AS max_shared_memory_per_sm,
  cast_int!(_nsys_desc(description, 'async engines')) AS async_engines,
  _nsys_desc(description, 'nvtx name') AS nvtx_name,
  _nsys_desc(description, 'report') AS report,
  coalesce(cast_int!(_nsys_desc(description, 'time shift')), 0) AS time_shift_ns
FROM _nsys_track_desc
WHERE parent_id IS NULL AND _nsys_desc(description, 'device') IS NOT NULL
ORDER BY report, device;

-- The time shift of the trace's (first) report: trace time minus report
-- time, ns (nsys_gpus.time_shift_ns); 0 without GPU groups. Report times
-- (what nsys prints) are trace times less it.
CREATE PERFETTO FUNCTION _nsys_time_shift()
RETURNS LONG AS
SELECT coalesce((SELECT time_shift_ns FROM nsys_gpus ORDER BY report, device LIMIT 1), 0);

-- The GPU rows: every lane track of a CUDA stream row, a stream's sync and
-- graph rows, and a process's Synchronization row, with what it holds.
CREATE PERFETTO TABLE nsys_gpu_tracks(
  -- The track id (a slice's track_id).
  track_id LONG,
  -- The GPU group it sits in (nsys_gpus.gpu_track_id).
  gpu_track_id LONG,
  -- Device the work ran on (its context's device).
  device LONG,
  -- Process id (as in the process table).
  pid LONG,
  -- CUDA context id; NULL on a Synchronization row.
  context LONG,
  -- CUDA stream id; NULL on a Synchronization row.
  stream LONG,
  -- Track name ("Stream 7", "Stream 7 sync", "Synchronization").
  name STRING
) AS
WITH RECURSIVE up(track_id, ancestor_id, parent_id) AS (
  SELECT track_id, track_id, parent_id
  FROM _nsys_track_desc
  WHERE _nsys_desc(description, 'pid') IS NOT NULL
  UNION ALL
  SELECT up.track_id, t.track_id, t.parent_id
  FROM up JOIN _nsys_track_desc t ON t.track_id = up.parent_id
)
SELECT
  d.track_id,
  up.ancestor_id AS gpu_track_id,
  cast_int!(_nsys_desc(d.description, 'device')) AS device,
  cast_int!(_nsys_desc(d.description, 'pid')) AS pid,
  cast_int!(_nsys_desc(d.description, 'context')) AS context,
  cast_int!(_nsys_desc(d.description, 'stream')) AS stream,
  d.name
FROM _nsys_track_desc d
JOIN up ON up.track_id = d.track_id AND up.parent_id IS NULL
WHERE _nsys_desc(d.description, 'pid') IS NOT NULL;

-- pid -> upid (the latest process with that pid).
CREATE PERFETTO TABLE _nsys_pid_upid(
  -- Process id.
  pid LONG,
  -- Its upid.
  upid LONG
) AS
SELECT pid, max(upid) AS upid FROM process WHERE pid IS NOT NULL GROUP BY pid;
