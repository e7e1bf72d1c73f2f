-- nsys.analyze.cuda_memset_sync: `nsys analyze` rule cuda_memset_sync
-- (nsys 2023.4; 2022.4: cuda-sync-memset), "Synchronous Memset": memsets of pinned host memory or
-- unified (managed) memory launched by synchronous cudaMemset* calls; longest
-- first. See docs/sql.md.

INCLUDE PERFETTO MODULE nsys.cuda;
INCLUDE PERFETTO MODULE nsys.analyze.filter;

-- The rule with its options: rows= (negative: all), start=, end= (trace
-- time, ns) and nvtx= ('text' or 'text@domain'), each NULL when not given.
--
-- As nsys 2022.4 does, a memset is matched with the CUDA calls of the same
-- correlation id in any process (one row per match; correlation ids repeat
-- across processes), and start=/end=/nvtx= filter the memsets, not the
-- calls. Longest first, equal durations earliest first.
CREATE PERFETTO FUNCTION nsys_cuda_memset_sync(
  -- rows= (nsys default 50; negative: no limit).
  rows LONG,
  -- start= in report time (ns), or NULL.
  start_ns LONG,
  -- end= in report time (ns), or NULL.
  end_ns LONG,
  -- nvtx=, or NULL.
  nvtx STRING
)
RETURNS TABLE(
  -- Duration (ns): the memset's duration on the GPU.
  duration_ns LONG,
  -- Start (ns): its start on the GPU (report time).
  start_ns LONG,
  -- Memory Kind ('Pinned' or 'Managed').
  memory_kind STRING,
  -- Bytes (MB): bytes / 1e6, as nsys prints by default (csv:mem=B prints bytes).
  bytes_mb DOUBLE,
  -- PID.
  pid LONG,
  -- Device ID.
  device_id LONG,
  -- Context ID.
  context_id LONG,
  -- Green Context ID (nsys 2023.4; NULL: the converter does not carry green
  -- contexts yet, and nsys prints none for 0, the only value in the corpus).
  green_context_id LONG,
  -- Stream ID.
  stream_id LONG,
  -- API Name: the call's full versioned name ('cudaMemset_v3020').
  api_name STRING,
  -- Bytes set.
  bytes LONG,
  -- The memset's slice id (nsys_memsets.id).
  memset_id LONG,
  -- The matched call's slice id (nsys_cuda_api_calls.id).
  api_call_id LONG
) AS
SELECT
  m.dur AS duration_ns,
  m.ts - w.shift AS start_ns,
  m.memory_kind,
  m.bytes / 1e6 AS bytes_mb,
  m.pid,
  m.device AS device_id,
  m.context AS context_id,
  NULL AS green_context_id,
  m.stream AS stream_id,
  c.full_name AS api_name,
  m.bytes,
  m.id AS memset_id,
  c.id AS api_call_id
FROM _nsys_analyze_window($start_ns, $end_ns, $nvtx) w
CROSS JOIN nsys_memsets m
JOIN nsys_cuda_api_calls c
  ON c.correlation_id = m.correlation_id
  AND c.full_name LIKE 'cudaMemset%'
  AND c.full_name NOT LIKE '%async%'
WHERE m.memory_kind IN ('Pinned', 'Managed')
  AND _nsys_analyze_keep!(w, m.ts, m.dur, m.pid, NULL)
ORDER BY m.dur DESC, m.ts, m.id, c.id
LIMIT $rows;

-- The rule with nsys's defaults (rows=50, no start=, end= or nvtx=).
CREATE PERFETTO VIEW nsys_cuda_memset_sync_default AS
SELECT * FROM nsys_cuda_memset_sync(50, NULL, NULL, NULL);
