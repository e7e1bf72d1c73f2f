-- nsys.analyze.cuda_memcpy_sync: `nsys analyze` rule cuda_memcpy_sync
-- (nsys 2023.4; 2022.4: cuda-sync-memcpy), "Synchronous Memcpy": copies launched by synchronous
-- cudaMemcpy* calls (no Async in the name) that block the host, leaving out
-- host-to-device copies of 64,000 bytes or less and copies within one device;
-- longest first. See docs/sql.md.

INCLUDE PERFETTO MODULE nsys.cuda;
INCLUDE PERFETTO MODULE nsys.analyze.filter;

-- The rule with its options: rows= (negative: all), start=, end= (trace
-- time, ns) and nvtx= ('text' or 'text@domain'), each NULL when not given.
--
-- One row per copy and matching call (_nsys_analyze_memcpys); longest
-- first, equal durations earliest first.
CREATE PERFETTO FUNCTION nsys_cuda_memcpy_sync(
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
  -- API Name: the call's full versioned name ('cudaMemcpy_v3020').
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
  c.full_name LIKE 'cudaMemcpy%' AND c.full_name NOT LIKE '%Async%',
  NOT (m.bytes <= 64000 AND m.copy_kind = 'Host-to-Device')
    AND NOT (m.src_device IS NOT NULL AND m.src_device = m.dst_device)
)
ORDER BY duration_ns DESC, start_ns, memcpy_id, api_call_id
LIMIT $rows;

-- The rule with nsys's defaults (rows=50, no start=, end= or nvtx=).
CREATE PERFETTO VIEW nsys_cuda_memcpy_sync_default AS
SELECT * FROM nsys_cuda_memcpy_sync(50, NULL, NULL, NULL);
