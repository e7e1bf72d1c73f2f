-- nsys.analyze.cuda_memcpy_async: `nsys analyze` rule cuda-async-memcpy
-- (nsys 2022.4), "Async Memcpy with Pageable Memory": copies launched by
-- cudaMemcpy*Async calls from or to pageable memory, which make the call
-- synchronous; longest first. See docs/sql.md.

INCLUDE PERFETTO MODULE nsys.cuda;
INCLUDE PERFETTO MODULE nsys.analyze.filter;

-- The rule with its options: rows= (negative: all), start=, end= (trace
-- time, ns) and nvtx= ('text' or 'text@domain'), each NULL when not given.
--
-- As nsys 2022.4 does, a copy is matched with the CUDA calls of the same
-- correlation id in any process (one row per match; correlation ids repeat
-- across processes), and start=/end=/nvtx= filter the copies, not the
-- calls. Longest first, equal durations earliest first.
CREATE PERFETTO FUNCTION nsys_cuda_memcpy_async(
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
  -- Duration (ns): the copy's duration on the GPU.
  duration_ns LONG,
  -- Start (ns): the copy's start on the GPU (report time).
  start_ns LONG,
  -- Src Kind ('Pageable', 'Pinned', 'Device', ...).
  src_kind STRING,
  -- Dst Kind.
  dst_kind STRING,
  -- Bytes (MB): bytes / 1e6, as nsys prints by default (csv:mem=B prints bytes).
  bytes_mb DOUBLE,
  -- PID.
  pid LONG,
  -- Device ID.
  device_id LONG,
  -- Context ID.
  context_id LONG,
  -- Stream ID.
  stream_id LONG,
  -- API Name: the call's full versioned name ('cudaMemcpyAsync_v3020').
  api_name STRING,
  -- Bytes copied.
  bytes LONG,
  -- The copy's slice id (nsys_memcpys.id).
  memcpy_id LONG,
  -- The matched call's slice id (nsys_cuda_api_calls.id).
  api_call_id LONG
) AS
SELECT
  m.dur AS duration_ns,
  m.ts - w.shift AS start_ns,
  m.src_kind,
  m.dst_kind,
  m.bytes / 1e6 AS bytes_mb,
  m.pid,
  m.device AS device_id,
  m.context AS context_id,
  m.stream AS stream_id,
  c.full_name AS api_name,
  m.bytes,
  m.id AS memcpy_id,
  c.id AS api_call_id
FROM _nsys_analyze_window($start_ns, $end_ns, $nvtx) w
CROSS JOIN nsys_memcpys m
JOIN nsys_cuda_api_calls c
  ON c.correlation_id = m.correlation_id
  AND c.full_name LIKE 'cudaMemcpy%Async%'
WHERE (m.src_kind = 'Pageable' OR m.dst_kind = 'Pageable')
  AND _nsys_analyze_keep!(w, m.ts, m.dur, m.pid, NULL)
ORDER BY m.dur DESC, m.ts, m.id, c.id
LIMIT $rows;

-- The rule with nsys's defaults (rows=50, no start=, end= or nvtx=).
CREATE PERFETTO VIEW nsys_cuda_memcpy_async_default AS
SELECT * FROM nsys_cuda_memcpy_async(50, NULL, NULL, NULL);
