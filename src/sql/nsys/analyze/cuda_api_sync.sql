-- nsys.analyze.cuda_api_sync: `nsys analyze` rule cuda_api_sync (nsys
-- 2023.4; 2022.4: cuda-sync-api), "Synchronous APIs": the CUDA calls that block the host until the
-- work issued before them is done (cudaDeviceSynchronize*,
-- cudaStreamSynchronize*), longest first. See docs/sql.md.

INCLUDE PERFETTO MODULE nsys.cuda;
INCLUDE PERFETTO MODULE nsys.analyze.filter;

-- The rule with its options: rows= (at most this many rows, longest first,
-- equal durations earliest first; negative: all), start=, end= (report time,
-- ns; NULL: not given) and nvtx= ('text' or 'text@domain'; NULL: not given).
CREATE PERFETTO FUNCTION nsys_cuda_api_sync(
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
  -- Duration (ns): the call's duration.
  duration_ns LONG,
  -- Start (ns): the call's start (report time).
  start_ns LONG,
  -- PID.
  pid LONG,
  -- TID.
  tid LONG,
  -- API Name: the full versioned name ('cudaStreamSynchronize_v3020').
  api_name STRING,
  -- The call's slice id (nsys_cuda_api_calls.id).
  api_call_id LONG
) AS
SELECT
  c.dur AS duration_ns,
  c.ts - w.shift AS start_ns,
  c.pid,
  c.tid,
  c.full_name AS api_name,
  c.id AS api_call_id
FROM _nsys_analyze_window($start_ns, $end_ns, $nvtx) w
CROSS JOIN nsys_cuda_api_calls c
WHERE (c.full_name LIKE 'cudaDeviceSynchronize%' OR c.full_name LIKE 'cudaStreamSynchronize%')
  AND _nsys_analyze_keep!(w, c.ts, c.dur, c.pid, c.tid)
ORDER BY c.dur DESC, c.ts, c.id
LIMIT $rows;

-- The rule with nsys's defaults (rows=50, no start=, end= or nvtx=).
CREATE PERFETTO VIEW nsys_cuda_api_sync_default AS
SELECT * FROM nsys_cuda_api_sync(50, NULL, NULL, NULL);
