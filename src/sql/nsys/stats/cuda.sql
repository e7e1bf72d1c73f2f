-- nsys.stats.cuda: the CUDA reports of `nsys stats`, report for report, over
-- the typed tables of nsys.cuda. Each table is named nsys_ + the report's nsys
-- 2023.4 name (2022.4 name in brackets) and holds the same rows and numbers:
--
--   nsys_cuda_api_sum          (cudaapisum)     CUDA API calls per name
--   nsys_cuda_api_gpu_sum      (apigpusum)      CUDA API calls, kernels and memory operations
--   nsys_cuda_gpu_kern_sum     (none)           kernels per name
--   nsys_cuda_gpu_kern_gb_sum  (gpukernsum)     kernels per name, grid and block
--   nsys_cuda_gpu_mem_time_sum (gpumemtimesum)  memory operations per kind, by time
--   nsys_cuda_gpu_mem_size_sum (gpumemsizesum)  memory operations per kind, by size (MB)
--   nsys_cuda_gpu_sum          (gpusum)         kernels and memory operations
--   nsys_cuda_gpu_trace        (gputrace)       every kernel, memcpy and memset
--   nsys_cuda_kern_exec_sum    (kernexecsum)    launch, queue and kernel time per
--                                               thread, device, call and kernel
--   nsys_cuda_kern_exec_trace  (kernexectrace)  every kernel with its launching call
--   nsys_cuda_api_trace        (cudaapitrace)   every CUDA API call
--
-- Columns are in nsys's order, named after its CSV header in snake case
-- ('Time (%)' -> time_pct, 'Total Time (ns)' -> total_time_ns, ...). As in
-- nsys: percentages, averages, medians and standard deviations are rounded to
-- one decimal as nsys rounds them (_nsys_stats_round); the median of an even
-- count is the mean of the two middle values; the standard deviation is the
-- sample one (n - 1), 0 for a single value. Sizes in MB are bytes / 1e6, not
-- rounded: nsys prints them with 3 decimals. Kernel names are the demangled
-- names; the *_by_name table functions take 'base' for the short names (nsys's
-- :base option). Memcpys are named as 2023.4 names them ('[CUDA memcpy
-- Host-to-Device]'); nsys_cuda_memcpy_name_2022 gives 2022.4's. See docs/sql.md.

INCLUDE PERFETTO MODULE nsys.cuda;
INCLUDE PERFETTO MODULE nsys.stats.common;

-- A CUDA API name as nsys reports it: the full name less a '_vNNNN' version
-- suffix (the 6 characters from the last-but-five being '_v').
CREATE PERFETTO FUNCTION _nsys_cuda_api_name(full_name STRING)
RETURNS STRING AS
SELECT iif(substr($full_name, -6, 2) = '_v', substr($full_name, 1, length($full_name) - 6), $full_name);

-- nsys's name of a memcpy from its copy kind label, as nsys 2023.4 prints it:
-- '[CUDA memcpy Host-to-Device]' ('[CUDA memcpy ' || the ENUM_CUDA_MEMCPY_OPER
-- label || ']').
CREATE PERFETTO FUNCTION _nsys_cuda_memcpy_op(copy_kind STRING)
RETURNS STRING AS
SELECT '[CUDA memcpy ' || $copy_kind || ']';

-- nsys 2022.4's name of a memory operation ('[CUDA memcpy HtoD]') from the
-- name the reports give it ('[CUDA memcpy Host-to-Device]'); any other name
-- (kernels, '[CUDA memset]', calls) as it is. For comparing with 2022.4's
-- output: SELECT nsys_cuda_memcpy_name_2022(operation), ... (docs/sql.md).
CREATE PERFETTO FUNCTION nsys_cuda_memcpy_name_2022(
  -- A row's operation or name.
  name STRING
)
RETURNS STRING AS
SELECT CASE $name
  WHEN '[CUDA memcpy Host-to-Device]' THEN '[CUDA memcpy HtoD]'
  WHEN '[CUDA memcpy Device-to-Host]' THEN '[CUDA memcpy DtoH]'
  WHEN '[CUDA memcpy Host-to-Array]' THEN '[CUDA memcpy HtoA]'
  WHEN '[CUDA memcpy Array-to-Host]' THEN '[CUDA memcpy AtoH]'
  WHEN '[CUDA memcpy Array-to-Array]' THEN '[CUDA memcpy AtoA]'
  WHEN '[CUDA memcpy Array-to-Device]' THEN '[CUDA memcpy AtoD]'
  WHEN '[CUDA memcpy Device-to-Array]' THEN '[CUDA memcpy DtoA]'
  WHEN '[CUDA memcpy Device-to-Device]' THEN '[CUDA memcpy DtoD]'
  WHEN '[CUDA memcpy Host-to-Host]' THEN '[CUDA memcpy HtoH]'
  WHEN '[CUDA memcpy Peer-to-Peer]' THEN '[CUDA memcpy PtoP]'
  WHEN '[CUDA memcpy Unified Host-to-Device]' THEN '[CUDA Unified Memory memcpy HtoD]'
  WHEN '[CUDA memcpy Unified Device-to-Host]' THEN '[CUDA Unified Memory memcpy DtoH]'
  WHEN '[CUDA memcpy Unified Device-to-Device]' THEN '[CUDA Unified Memory memcpy DtoD]'
  ELSE $name
END;

-- A kernel's name for the reports: 'base' gives the short name, anything else
-- ('demangled', nsys's default) the demangled name.
CREATE PERFETTO FUNCTION _nsys_cuda_kernel_name(
  -- 'base' or 'demangled'.
  name_kind STRING,
  -- Short name.
  short_name STRING,
  -- Demangled name.
  demangled_name STRING
)
RETURNS STRING AS
SELECT iif($name_kind = 'base', $short_name, coalesce($demangled_name, $short_name));

-- Memory operations as nsys's memory reports see them: every memcpy of a
-- known copy kind and every memset.
CREATE PERFETTO TABLE _nsys_cuda_memops(
  -- '[CUDA memcpy Host-to-Device]', ..., '[CUDA memset]'.
  operation STRING,
  -- Duration, ns.
  dur LONG,
  -- Bytes.
  bytes LONG
) AS
SELECT _nsys_cuda_memcpy_op(copy_kind) AS operation, dur, bytes
FROM nsys_memcpys
WHERE _nsys_cuda_memcpy_op(copy_kind) IS NOT NULL
UNION ALL
SELECT '[CUDA memset]' AS operation, dur, bytes
FROM nsys_memsets;

-- CUDA API Summary (nsys stats cuda_api_sum; 2022.4: cudaapisum): the CUDA
-- runtime and driver calls per name, longest total first. time_pct is the
-- share of the total time of all calls listed.
CREATE PERFETTO VIEW nsys_cuda_api_sum(
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
  -- Name, less a '_vNNNN' version suffix (calls are grouped by full name).
  name STRING
) AS
SELECT time_pct, total_time_ns, num AS num_calls, avg_ns, med_ns, min_ns, max_ns, stddev_ns,
       _nsys_cuda_api_name(grp) AS name
FROM _nsys_stats_summary_ns!((SELECT full_name AS grp, dur AS val FROM nsys_cuda_api_calls))
ORDER BY total_time_ns DESC, grp;

-- CUDA GPU Kernel Summary with a choice of kernel names (nsys stats
-- cuda_gpu_kern_sum[:base]): kernels per name, longest total first (then
-- fewest instances, then name, as nsys orders them). nsys 2022.4's gpukernsum
-- grouped by grid and block too: that is nsys_cuda_gpu_kern_gb_sum.
CREATE PERFETTO FUNCTION nsys_cuda_gpu_kern_sum_by_name(
  -- 'demangled' (nsys's default) or 'base' (short names).
  name_kind STRING
)
RETURNS TABLE(
  -- Share of the summed time of all kernels, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of kernels.
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
  -- Kernel name.
  name STRING
) AS
WITH
  k AS (SELECT _nsys_cuda_kernel_name($name_kind, short_name, demangled_name) AS kname, dur FROM nsys_kernels),
  grps AS (
    SELECT row_number() OVER (ORDER BY kname) AS grp, kname
    FROM (SELECT DISTINCT kname FROM k)
  ),
  s AS (
    SELECT * FROM _nsys_stats_summary_ns!((
      SELECT g.grp, k.dur AS val FROM k JOIN grps g ON g.kname IS k.kname
    ))
  )
SELECT
  s.time_pct, s.total_time_ns, s.num AS instances, s.avg_ns, s.med_ns, s.min_ns, s.max_ns,
  s.stddev_ns, g.kname AS name
FROM s JOIN grps g USING (grp)
ORDER BY s.total_time_ns DESC, s.num, g.grp;

-- CUDA GPU Kernel Summary (nsys stats cuda_gpu_kern_sum): kernels per
-- demangled name, longest total first.
CREATE PERFETTO VIEW nsys_cuda_gpu_kern_sum AS
SELECT * FROM nsys_cuda_gpu_kern_sum_by_name('demangled');

-- CUDA GPU Kernel/Grid/Block Summary with a choice of kernel names (nsys
-- stats cuda_gpu_kern_gb_sum[:base]; 2022.4: gpukernsum): kernels per name,
-- grid and block, longest total first.
CREATE PERFETTO FUNCTION nsys_cuda_gpu_kern_gb_sum_by_name(
  -- 'demangled' (nsys's default) or 'base' (short names).
  name_kind STRING
)
RETURNS TABLE(
  -- Share of the summed time of all kernels, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of kernels.
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
  -- Grid dimensions, printf('%4d %4d %4d').
  gridxyz STRING,
  -- Block dimensions, printf('%4d %4d %4d').
  blockxyz STRING,
  -- Kernel name.
  name STRING
) AS
WITH
  k AS (
    SELECT
      _nsys_cuda_kernel_name($name_kind, short_name, demangled_name) AS kname,
      printf('%4d %4d %4d', grid_x, grid_y, grid_z) AS grid,
      printf('%4d %4d %4d', block_x, block_y, block_z) AS block,
      dur
    FROM nsys_kernels
  ),
  grps AS (
    SELECT row_number() OVER (ORDER BY kname, grid, block) AS grp, kname, grid, block
    FROM (SELECT DISTINCT kname, grid, block FROM k)
  ),
  s AS (
    SELECT * FROM _nsys_stats_summary_ns!((
      SELECT g.grp, k.dur AS val
      FROM k JOIN grps g ON g.kname IS k.kname AND g.grid IS k.grid AND g.block IS k.block
    ))
  )
SELECT
  s.time_pct, s.total_time_ns, s.num AS instances, s.avg_ns, s.med_ns, s.min_ns, s.max_ns,
  s.stddev_ns, g.grid AS gridxyz, g.block AS blockxyz, g.kname AS name
FROM s JOIN grps g USING (grp)
ORDER BY s.total_time_ns DESC, s.num, g.grp;

-- CUDA GPU Kernel/Grid/Block Summary (nsys stats cuda_gpu_kern_gb_sum;
-- 2022.4: gpukernsum): kernels per demangled name, grid and block.
CREATE PERFETTO VIEW nsys_cuda_gpu_kern_gb_sum AS
SELECT * FROM nsys_cuda_gpu_kern_gb_sum_by_name('demangled');

-- GPU Memory Operations Summary by time (nsys stats cuda_gpu_mem_time_sum;
-- 2022.4: gpumemtimesum): memcpys per copy kind and memsets, longest first.
CREATE PERFETTO VIEW nsys_cuda_gpu_mem_time_sum(
  -- Share of the summed time of all memory operations, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of operations.
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
  -- '[CUDA memcpy Host-to-Device]', ..., '[CUDA memset]'.
  operation STRING
) AS
SELECT time_pct, total_time_ns, num AS count, avg_ns, med_ns, min_ns, max_ns, stddev_ns,
       grp AS operation
FROM _nsys_stats_summary_ns!((SELECT operation AS grp, dur AS val FROM _nsys_cuda_memops))
ORDER BY total_time_ns DESC, grp;

-- GPU Memory Operations Summary by size (nsys stats cuda_gpu_mem_size_sum;
-- 2022.4: gpumemsizesum): memcpys per copy kind and memsets, most bytes first.
-- Sizes are MB (bytes / 1e6), unrounded: nsys prints them with 3 decimals.
CREATE PERFETTO VIEW nsys_cuda_gpu_mem_size_sum(
  -- Summed size, MB.
  total_mb DOUBLE,
  -- Number of operations.
  count LONG,
  -- Mean size, MB.
  avg_mb DOUBLE,
  -- Median size, MB.
  med_mb DOUBLE,
  -- Smallest, MB.
  min_mb DOUBLE,
  -- Largest, MB.
  max_mb DOUBLE,
  -- Sample standard deviation, MB.
  stddev_mb DOUBLE,
  -- '[CUDA memcpy Host-to-Device]', ..., '[CUDA memset]'.
  operation STRING
) AS
WITH s AS (SELECT * FROM _nsys_stats_summary!((SELECT operation AS grp, bytes AS val FROM _nsys_cuda_memops)))
SELECT
  s.total / 1e6 AS total_mb,
  s.num AS count,
  s.mean / 1e6 AS avg_mb,
  s.med / 1e6 AS med_mb,
  s.mn / 1e6 AS min_mb,
  s.mx / 1e6 AS max_mb,
  s.stddev / 1e6 AS stddev_mb,
  s.grp AS operation
FROM s
ORDER BY s.total DESC, s.grp;

-- GPU operations, as nsys's GPU summaries see them: kernels (by name kind),
-- memcpys of a known copy kind and memsets.
CREATE PERFETTO FUNCTION _nsys_cuda_gpu_items(
  -- 'demangled' or 'base'.
  name_kind STRING
)
RETURNS TABLE(
  -- Kernel name or memory operation.
  name STRING,
  -- 'CUDA_KERNEL' or 'MEMORY_OPER'.
  category STRING,
  -- Duration, ns.
  dur LONG
) AS
SELECT _nsys_cuda_kernel_name($name_kind, short_name, demangled_name) AS name, 'CUDA_KERNEL' AS category, dur
FROM nsys_kernels
UNION ALL
SELECT operation AS name, 'MEMORY_OPER' AS category, dur
FROM _nsys_cuda_memops;

-- The columns of nsys's GPU summaries over `items` (columns name, category,
-- dur): one row per name (its category the greatest of its rows'). Unordered;
-- order by total_time_ns DESC, operation as nsys does.
CREATE PERFETTO MACRO _nsys_cuda_category_sum(items TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    _ci AS (SELECT name, category, dur FROM $items),
    _cg AS (
      SELECT row_number() OVER (ORDER BY name) AS grp, name, category
      FROM (SELECT name, max(category) AS category FROM _ci GROUP BY name)
    ),
    _cs AS (
      SELECT * FROM _nsys_stats_summary_ns!((
        SELECT _cg.grp, _ci.dur AS val FROM _ci JOIN _cg ON _cg.name IS _ci.name
      ))
    )
  SELECT
    _cs.time_pct, _cs.total_time_ns, _cs.num AS instances, _cs.avg_ns, _cs.med_ns, _cs.min_ns,
    _cs.max_ns, _cs.stddev_ns, _cg.category, _cg.name AS operation
  FROM _cs JOIN _cg USING (grp)
);

-- CUDA GPU Summary with a choice of kernel names (nsys stats
-- cuda_gpu_sum[:base]; 2022.4: gpusum): kernels per name and memory
-- operations per kind, longest total first.
CREATE PERFETTO FUNCTION nsys_cuda_gpu_sum_by_name(
  -- 'demangled' (nsys's default) or 'base' (short names).
  name_kind STRING
)
RETURNS TABLE(
  -- Share of the summed time of all rows, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of operations.
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
  -- 'CUDA_KERNEL' or 'MEMORY_OPER'.
  category STRING,
  -- Kernel name or memory operation.
  operation STRING
) AS
SELECT * FROM _nsys_cuda_category_sum!(_nsys_cuda_gpu_items($name_kind))
ORDER BY total_time_ns DESC, operation;

-- CUDA GPU Summary (nsys stats cuda_gpu_sum; 2022.4: gpusum): kernels per
-- demangled name and memory operations per kind, longest total first.
CREATE PERFETTO VIEW nsys_cuda_gpu_sum AS
SELECT * FROM nsys_cuda_gpu_sum_by_name('demangled');

-- CUDA API and GPU Summary with a choice of kernel names (nsys stats
-- cuda_api_gpu_sum[:base]; 2022.4: apigpusum): CUDA calls per name (versions
-- merged), kernels per name and memory operations per kind, longest first.
CREATE PERFETTO FUNCTION nsys_cuda_api_gpu_sum_by_name(
  -- 'demangled' (nsys's default) or 'base' (short names).
  name_kind STRING
)
RETURNS TABLE(
  -- Share of the summed time of all rows, %, 1 decimal.
  time_pct DOUBLE,
  -- Summed duration, ns.
  total_time_ns LONG,
  -- Number of calls or operations.
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
  -- 'CUDA_API', 'CUDA_KERNEL' or 'MEMORY_OPER'.
  category STRING,
  -- Call name, kernel name or memory operation.
  operation STRING
) AS
SELECT * FROM _nsys_cuda_category_sum!((
  SELECT _nsys_cuda_api_name(full_name) AS name, 'CUDA_API' AS category, dur
  FROM nsys_cuda_api_calls
  UNION ALL
  SELECT * FROM _nsys_cuda_gpu_items($name_kind)
))
ORDER BY total_time_ns DESC, operation;

-- CUDA API and GPU Summary (nsys stats cuda_api_gpu_sum; 2022.4: apigpusum).
CREATE PERFETTO VIEW nsys_cuda_api_gpu_sum AS
SELECT * FROM nsys_cuda_api_gpu_sum_by_name('demangled');

-- CUDA GPU Trace (nsys stats cuda_gpu_trace; 2022.4: gputrace): every kernel,
-- memcpy and memset in start order, in nsys 2023.4's columns (2022.4 had no
-- greenctx). Columns that do not apply are NULL (nsys prints None or nothing).
CREATE PERFETTO VIEW nsys_cuda_gpu_trace(
  -- Start, ns, report time as nsys prints it (trace time less
  -- nsys_gpus.time_shift_ns).
  start_ns LONG,
  -- Duration, ns.
  duration_ns LONG,
  -- Correlation id.
  corrid LONG,
  -- Grid X (kernels).
  grdx LONG,
  -- Grid Y.
  grdy LONG,
  -- Grid Z.
  grdz LONG,
  -- Block X.
  blkx LONG,
  -- Block Y.
  blky LONG,
  -- Block Z.
  blkz LONG,
  -- Registers per thread.
  reg_trd LONG,
  -- Static shared memory, MB (bytes / 1e6).
  stcsmem_mb DOUBLE,
  -- Dynamic shared memory, MB.
  dymsmem_mb DOUBLE,
  -- Bytes copied or set, MB (memcpys, memsets).
  bytes_mb DOUBLE,
  -- Throughput, MB/s: bytes * (1e9 / duration, integer division) / 1e6, as nsys.
  throughput_mb_s DOUBLE,
  -- Source memory kind (memcpys), memory kind (memsets).
  srcmemkd STRING,
  -- Destination memory kind (memcpys).
  dstmemkd STRING,
  -- 'GPU name (device id)'.
  device STRING,
  -- Context id.
  ctx LONG,
  -- Green context id; NULL: the converter does not carry green contexts yet
  -- (nsys prints none for 0, the only value in the corpus's exports).
  greenctx LONG,
  -- Stream id.
  strm LONG,
  -- Demangled kernel name, '[CUDA memcpy Host-to-Device]', ..., '[CUDA memset]'.
  name STRING,
  -- The slice (nsys_kernels.id, nsys_memcpys.id or nsys_memsets.id); not in nsys.
  id LONG
) AS
WITH
  gpu AS (SELECT device, min(name) AS name FROM nsys_gpus GROUP BY device),
  sh AS (SELECT _nsys_time_shift() AS shift),
  ops AS (
    SELECT
      id, ts, dur, correlation_id, grid_x, grid_y, grid_z, block_x, block_y, block_z,
      registers_per_thread, static_shared_memory / 1e6 AS ssm, dynamic_shared_memory / 1e6 AS dsm,
      NULL AS bytes, NULL AS src, NULL AS dst, device, context, stream,
      coalesce(demangled_name, short_name) AS name
    FROM nsys_kernels
    UNION ALL
    SELECT
      id, ts, dur, correlation_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
      bytes, src_kind, dst_kind, device, context, stream, _nsys_cuda_memcpy_op(copy_kind)
    FROM nsys_memcpys
    UNION ALL
    SELECT
      id, ts, dur, correlation_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
      bytes, memory_kind, NULL, device, context, stream, '[CUDA memset]'
    FROM nsys_memsets
  )
SELECT
  o.ts - sh.shift AS start_ns,
  o.dur AS duration_ns,
  o.correlation_id AS corrid,
  o.grid_x AS grdx,
  o.grid_y AS grdy,
  o.grid_z AS grdz,
  o.block_x AS blkx,
  o.block_y AS blky,
  o.block_z AS blkz,
  o.registers_per_thread AS reg_trd,
  o.ssm AS stcsmem_mb,
  o.dsm AS dymsmem_mb,
  o.bytes / 1e6 AS bytes_mb,
  (o.bytes * (1000000000 / o.dur)) / 1e6 AS throughput_mb_s,
  o.src AS srcmemkd,
  o.dst AS dstmemkd,
  printf('%s (%d)', coalesce(gpu.name, ''), o.device) AS device,
  o.context AS ctx,
  NULL AS greenctx,
  o.stream AS strm,
  o.name,
  o.id
FROM ops o
CROSS JOIN sh
LEFT JOIN gpu USING (device)
ORDER BY o.ts, o.id;

-- Kernel launches with their call: the rows of nsys's kernel launch and
-- execution reports (kernels whose launching call is in the trace).
CREATE PERFETTO FUNCTION _nsys_cuda_kern_exec(
  -- 'demangled' or 'base'.
  name_kind STRING
)
RETURNS TABLE(
  -- Process id.
  pid LONG,
  -- Thread id of the launching call.
  tid LONG,
  -- Device.
  device LONG,
  -- Call name (version suffix removed).
  api_name STRING,
  -- Kernel name.
  kernel_name STRING,
  -- Call duration, ns.
  api_dur LONG,
  -- Call end to kernel start, ns; NULL when the kernel starts before the call ends.
  queue_dur LONG,
  -- Kernel duration, ns.
  kernel_dur LONG,
  -- Call start to the later of call end and kernel end, ns.
  total_dur LONG
) AS
SELECT
  k.pid,
  c.tid,
  k.device,
  _nsys_cuda_api_name(c.full_name) AS api_name,
  _nsys_cuda_kernel_name($name_kind, k.short_name, k.demangled_name) AS kernel_name,
  c.dur AS api_dur,
  iif(k.ts - (c.ts + c.dur) >= 0, k.ts - (c.ts + c.dur), NULL) AS queue_dur,
  k.dur AS kernel_dur,
  max(c.ts + c.dur, k.ts + k.dur) - c.ts AS total_dur
FROM nsys_kernels k
JOIN nsys_cuda_api_calls c ON c.id = k.api_call_id;

-- CUDA Kernel Launch & Exec Time Summary with a choice of kernel names (nsys
-- stats cuda_kern_exec_sum[:base]; 2022.4: kernexecsum).
CREATE PERFETTO FUNCTION nsys_cuda_kern_exec_sum_by_name(
  -- 'demangled' (nsys's default) or 'base' (short names).
  name_kind STRING
)
RETURNS TABLE(
  -- Process id of the launching call.
  pid LONG,
  -- Thread id of the launching call.
  tid LONG,
  -- Device the kernel ran on.
  devid LONG,
  -- Number of kernels.
  count LONG,
  -- Number of kernels starting after their call ended (with a queue time).
  qcount LONG,
  -- Total time (call start to the later of call end and kernel end): mean, ns.
  tavg_ns DOUBLE,
  -- Total time: median, ns.
  tmed_ns DOUBLE,
  -- Total time: min, ns.
  tmin_ns LONG,
  -- Total time: max, ns.
  tmax_ns LONG,
  -- Total time: sample standard deviation, ns.
  tstddev_ns DOUBLE,
  -- API (call) time: mean, ns.
  aavg_ns DOUBLE,
  -- API time: median, ns.
  amed_ns DOUBLE,
  -- API time: min, ns.
  amin_ns LONG,
  -- API time: max, ns.
  amax_ns LONG,
  -- API time: sample standard deviation, ns.
  astddev_ns DOUBLE,
  -- Queue time (call end to kernel start, when positive): mean, ns.
  qavg_ns DOUBLE,
  -- Queue time: median, ns.
  qmed_ns DOUBLE,
  -- Queue time: min, ns.
  qmin_ns LONG,
  -- Queue time: max, ns.
  qmax_ns LONG,
  -- Queue time: sample standard deviation, ns (0 without queue times).
  qstddev_ns DOUBLE,
  -- Kernel time: mean, ns.
  kavg_ns DOUBLE,
  -- Kernel time: median, ns.
  kmed_ns DOUBLE,
  -- Kernel time: min, ns.
  kmin_ns LONG,
  -- Kernel time: max, ns.
  kmax_ns LONG,
  -- Kernel time: sample standard deviation, ns.
  kstddev_ns DOUBLE,
  -- Launching call ('cudaLaunchKernel').
  api_name STRING,
  -- Kernel name.
  kernel_name STRING
) AS
WITH
  e AS (SELECT * FROM _nsys_cuda_kern_exec($name_kind)),
  grps AS (
    SELECT row_number() OVER (ORDER BY pid, tid, device, api_name, kernel_name) AS grp,
           pid, tid, device, api_name, kernel_name
    FROM (SELECT DISTINCT pid, tid, device, api_name, kernel_name FROM e)
  ),
  eg AS (
    SELECT g.grp, e.api_dur, e.queue_dur, e.kernel_dur, e.total_dur
    FROM e JOIN grps g
      ON g.pid IS e.pid AND g.tid IS e.tid AND g.device IS e.device
      AND g.api_name IS e.api_name AND g.kernel_name IS e.kernel_name
  ),
  st AS (SELECT * FROM _nsys_stats_summary!((SELECT grp, total_dur AS val FROM eg))),
  sa AS (SELECT * FROM _nsys_stats_summary!((SELECT grp, api_dur AS val FROM eg))),
  sq AS (SELECT * FROM _nsys_stats_summary!((SELECT grp, queue_dur AS val FROM eg))),
  sk AS (SELECT * FROM _nsys_stats_summary!((SELECT grp, kernel_dur AS val FROM eg)))
SELECT
  g.pid,
  g.tid,
  g.device AS devid,
  st.num AS count,
  coalesce(sq.num, 0) AS qcount,
  _nsys_stats_round(st.mean, 1) AS tavg_ns,
  _nsys_stats_round(st.med, 1) AS tmed_ns,
  st.mn AS tmin_ns,
  st.mx AS tmax_ns,
  _nsys_stats_round(st.stddev, 1) AS tstddev_ns,
  _nsys_stats_round(sa.mean, 1) AS aavg_ns,
  _nsys_stats_round(sa.med, 1) AS amed_ns,
  sa.mn AS amin_ns,
  sa.mx AS amax_ns,
  _nsys_stats_round(sa.stddev, 1) AS astddev_ns,
  _nsys_stats_round(sq.mean, 1) AS qavg_ns,
  _nsys_stats_round(sq.med, 1) AS qmed_ns,
  sq.mn AS qmin_ns,
  sq.mx AS qmax_ns,
  _nsys_stats_round(coalesce(sq.stddev, 0.0), 1) AS qstddev_ns,
  _nsys_stats_round(sk.mean, 1) AS kavg_ns,
  _nsys_stats_round(sk.med, 1) AS kmed_ns,
  sk.mn AS kmin_ns,
  sk.mx AS kmax_ns,
  _nsys_stats_round(sk.stddev, 1) AS kstddev_ns,
  g.api_name,
  g.kernel_name
FROM grps g
JOIN st USING (grp)
JOIN sa USING (grp)
JOIN sk USING (grp)
LEFT JOIN sq USING (grp)
ORDER BY st.mean DESC, g.grp;

-- CUDA Kernel Launch & Exec Time Summary (nsys stats cuda_kern_exec_sum;
-- 2022.4: kernexecsum): per process, thread, device, launching call and
-- kernel: the call's time (A), the queue time from the call's end to the
-- kernel's start (Q, when positive), the kernel's time (K) and the total (T),
-- highest mean total first.
CREATE PERFETTO VIEW nsys_cuda_kern_exec_sum AS
SELECT * FROM nsys_cuda_kern_exec_sum_by_name('demangled');

-- CUDA API Trace (nsys stats cuda_api_trace; 2022.4: cudaapitrace): every
-- CUDA runtime and driver call in start order.
CREATE PERFETTO VIEW nsys_cuda_api_trace(
  -- Start, ns, report time (trace time less nsys_gpus.time_shift_ns).
  start_ns LONG,
  -- Duration, ns.
  duration_ns LONG,
  -- Name, less a '_vNNNN' version suffix.
  name STRING,
  -- Return value (0: success).
  result LONG,
  -- Correlation id.
  corrid LONG,
  -- Process id.
  pid LONG,
  -- Thread id.
  tid LONG,
  -- Thread priority: NULL, the converter does not carry it (nsys prints
  -- ThreadNames.priority).
  t_pri LONG,
  -- Thread name.
  thread_name STRING,
  -- The call's slice (nsys_cuda_api_calls.id); not in nsys.
  id LONG
) AS
SELECT
  c.ts - _nsys_time_shift() AS start_ns,
  c.dur AS duration_ns,
  _nsys_cuda_api_name(c.full_name) AS name,
  c.return_value AS result,
  c.correlation_id AS corrid,
  c.pid,
  c.tid,
  NULL AS t_pri,
  t.name AS thread_name,
  c.id
FROM nsys_cuda_api_calls c
LEFT JOIN thread t USING (utid)
ORDER BY c.ts, c.id;

-- CUDA Kernel Launch & Exec Time Trace (nsys stats cuda_kern_exec_trace;
-- 2022.4: kernexectrace): each kernel with its launching call, in call
-- start order: the call (API), the queue time from the call's end to the
-- kernel's start (when positive), the kernel and the total.
CREATE PERFETTO VIEW nsys_cuda_kern_exec_trace(
  -- Call start, ns, report time.
  api_start_ns LONG,
  -- Call duration, ns.
  api_dur_ns LONG,
  -- Call end, when the kernel starts after it; else NULL.
  queue_start_ns LONG,
  -- Call end to kernel start, ns, when positive; else NULL.
  queue_dur_ns LONG,
  -- Kernel start, ns, report time.
  kernel_start_ns LONG,
  -- Kernel duration, ns.
  kernel_dur_ns LONG,
  -- Call start to the later of call end and kernel end, ns.
  total_dur_ns LONG,
  -- Process id.
  pid LONG,
  -- Thread id of the launching call.
  tid LONG,
  -- Device.
  devid LONG,
  -- Launching call, less a '_vNNNN' version suffix.
  api_function STRING,
  -- Grid dimensions, printf('%4d %4d %4d').
  gridxyz STRING,
  -- Block dimensions.
  blockxyz STRING,
  -- Demangled kernel name.
  kernel_name STRING,
  -- The kernel's slice (nsys_kernels.id); not in nsys.
  id LONG
) AS
WITH sh AS (SELECT _nsys_time_shift() AS shift)
SELECT
  c.ts - sh.shift AS api_start_ns,
  c.dur AS api_dur_ns,
  iif(k.ts >= c.ts + c.dur, c.ts + c.dur - sh.shift, NULL) AS queue_start_ns,
  iif(k.ts >= c.ts + c.dur, k.ts - (c.ts + c.dur), NULL) AS queue_dur_ns,
  k.ts - sh.shift AS kernel_start_ns,
  k.dur AS kernel_dur_ns,
  max(c.ts + c.dur, k.ts + k.dur) - c.ts AS total_dur_ns,
  k.pid,
  c.tid,
  k.device AS devid,
  _nsys_cuda_api_name(c.full_name) AS api_function,
  printf('%4d %4d %4d', k.grid_x, k.grid_y, k.grid_z) AS gridxyz,
  printf('%4d %4d %4d', k.block_x, k.block_y, k.block_z) AS blockxyz,
  coalesce(k.demangled_name, k.short_name) AS kernel_name,
  k.id
FROM nsys_kernels k
JOIN nsys_cuda_api_calls c ON c.id = k.api_call_id
CROSS JOIN sh
ORDER BY c.ts, k.id;
