-- nsys.analyze.cuda_memcpy_async: `nsys analyze` rule cuda_memcpy_async
-- (nsys 2023.4; 2022.4: cuda-async-memcpy), "Async Memcpy with Pageable Memory": copies launched by
-- cudaMemcpy*Async calls from or to pageable memory, which make the call
-- synchronous; longest first. See docs/sql.md.

INCLUDE PERFETTO MODULE nsys.cuda;
INCLUDE PERFETTO MODULE nsys.analyze.filter;

-- The rule with its options: rows= (negative: all), start=, end= (trace
-- time, ns) and nvtx= ('text' or 'text@domain'), each NULL when not given.
--
-- One row per copy and matching call (_nsys_analyze_memcpys); longest
-- first, equal durations earliest first.
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
  -- Green Context ID (nsys 2023.4; NULL: the converter does not carry green
  -- contexts yet, and nsys prints none for 0, the only value in the corpus).
  green_context_id LONG,
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
SELECT *
FROM _nsys_analyze_memcpys!(
  $start_ns, $end_ns, $nvtx,
  c.full_name LIKE 'cudaMemcpy%Async%',
  m.src_kind = 'Pageable' OR m.dst_kind = 'Pageable'
)
ORDER BY duration_ns DESC, start_ns, memcpy_id, api_call_id
LIMIT $rows;

-- The rule with nsys's defaults (rows=50, no start=, end= or nvtx=).
CREATE PERFETTO VIEW nsys_cuda_memcpy_async_default AS
SELECT * FROM nsys_cuda_memcpy_async(50, NULL, NULL, NULL);
