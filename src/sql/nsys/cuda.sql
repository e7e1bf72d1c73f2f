-- nsys.cuda: CUDA work and calls, one typed row each: kernels, memcpys,
-- memsets, synchronizations (GPU side) and CUDA runtime/driver API calls
-- (CPU side), linked through the converter's flows (call -> work).
-- Times are the trace's integer nanoseconds. See docs/sql.md.

INCLUDE PERFETTO MODULE nsys.gpus;

-- The launching call of each GPU operation: the flow into it.
CREATE PERFETTO TABLE _nsys_launch(
  -- The GPU operation's slice id.
  op_id LONG,
  -- The CUDA API call's slice id.
  call_id LONG
) AS
SELECT f.slice_in AS op_id, min(f.slice_out) AS call_id
FROM flow f
JOIN slice o ON o.id = f.slice_in
WHERE o.category IN ('kernel', 'memcpy', 'memset', 'sync')
GROUP BY f.slice_in;

-- The GPU-side columns every operation shares.
CREATE PERFETTO TABLE _nsys_gpu_op(
  -- Slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration, ns.
  dur LONG,
  -- Slice name.
  name STRING,
  -- 'kernel', 'memcpy', 'memset' or 'sync'.
  category STRING,
  -- Track id.
  track_id LONG,
  -- Arg set id.
  arg_set_id LONG,
  -- GPU group.
  gpu_track_id LONG,
  -- Device of the row (its context's device).
  device LONG,
  -- Process id.
  pid LONG,
  -- Process.
  upid LONG,
  -- Context.
  context LONG,
  -- Stream.
  stream LONG,
  -- The row's own deviceId.
  reported_device LONG,
  -- Correlation id.
  correlation_id LONG,
  -- Launching call.
  api_call_id LONG,
  -- Its start.
  api_call_ts LONG,
  -- Its duration.
  api_call_dur LONG,
  -- Its name.
  api_call_name STRING,
  -- Its thread.
  api_call_utid LONG
) AS
SELECT
  s.id,
  s.ts,
  s.dur,
  s.name,
  s.category,
  s.track_id,
  s.arg_set_id,
  g.gpu_track_id,
  g.device,
  g.pid,
  pu.upid,
  extract_arg(s.arg_set_id, 'debug.context') AS context,
  extract_arg(s.arg_set_id, 'debug.stream') AS stream,
  extract_arg(s.arg_set_id, 'debug.device') AS reported_device,
  -- On the op only when no call in the trace carries it (the flow leads there).
  coalesce(extract_arg(s.arg_set_id, 'debug.correlation id'),
           extract_arg(c.arg_set_id, 'debug.correlation id')) AS correlation_id,
  l.call_id AS api_call_id,
  c.ts AS api_call_ts,
  c.dur AS api_call_dur,
  c.name AS api_call_name,
  tt.utid AS api_call_utid
FROM slice s
JOIN nsys_gpu_tracks g ON g.track_id = s.track_id
LEFT JOIN _nsys_pid_upid pu ON pu.pid = g.pid
LEFT JOIN _nsys_launch l ON l.op_id = s.id
LEFT JOIN slice c ON c.id = l.call_id
LEFT JOIN thread_track tt ON tt.id = c.track_id
WHERE s.category IN ('kernel', 'memcpy', 'memset', 'sync');

-- "(x, y, z)" -> component i (0, 1, 2).
CREATE PERFETTO FUNCTION _nsys_dim(dims STRING, i LONG)
RETURNS LONG AS
SELECT cast_int!(str_split(substr($dims, 2, length($dims) - 2), ', ', $i));

-- One row per CUDA kernel.
CREATE PERFETTO TABLE nsys_kernels(
  -- Slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration, ns.
  dur LONG,
  -- The name the slice shows (short by default; --kernel-names).
  name STRING,
  -- Short name (shortName).
  short_name STRING,
  -- Demangled name (demangledName).
  demangled_name STRING,
  -- CUDA device id.
  device LONG,
  -- GPU group (nsys_gpus.gpu_track_id).
  gpu_track_id LONG,
  -- CUDA context id.
  context LONG,
  -- CUDA stream id.
  stream LONG,
  -- Process id.
  pid LONG,
  -- Process (process.upid).
  upid LONG,
  -- Grid X.
  grid_x LONG,
  -- Grid Y.
  grid_y LONG,
  -- Grid Z.
  grid_z LONG,
  -- Block X.
  block_x LONG,
  -- Block Y.
  block_y LONG,
  -- Block Z.
  block_z LONG,
  -- Registers per thread.
  registers_per_thread LONG,
  -- Static shared memory, bytes.
  static_shared_memory LONG,
  -- Dynamic shared memory, bytes.
  dynamic_shared_memory LONG,
  -- Local memory per thread, bytes.
  local_memory_per_thread LONG,
  -- Launch type ('Regular', 'Cooperative single device', ...).
  launch_type STRING,
  -- CUDA graph id (graph launches).
  graph_id LONG,
  -- CUDA graph node id.
  graph_node_id LONG,
  -- Correlation id (unique per process).
  correlation_id LONG,
  -- The launching CUDA API call's slice id (nsys_cuda_api_calls.id).
  api_call_id LONG,
  -- The launching call's start, ns.
  api_call_ts LONG,
  -- The launching call's duration, ns.
  api_call_dur LONG,
  -- The launching call's name.
  api_call_name STRING,
  -- The launching thread.
  api_call_utid LONG,
  -- Launch to start: ts - api_call_ts, ns.
  launch_latency LONG,
  -- Track id.
  track_id LONG,
  -- Arg set id.
  arg_set_id LONG
) AS
SELECT
  o.id,
  o.ts,
  o.dur,
  o.name,
  coalesce(extract_arg(o.arg_set_id, 'debug.short name'), o.name) AS short_name,
  extract_arg(o.arg_set_id, 'debug.demangled name') AS demangled_name,
  o.device,
  o.gpu_track_id,
  o.context,
  o.stream,
  o.pid,
  o.upid,
  _nsys_dim(extract_arg(o.arg_set_id, 'debug.grid'), 0) AS grid_x,
  _nsys_dim(extract_arg(o.arg_set_id, 'debug.grid'), 1) AS grid_y,
  _nsys_dim(extract_arg(o.arg_set_id, 'debug.grid'), 2) AS grid_z,
  _nsys_dim(extract_arg(o.arg_set_id, 'debug.block'), 0) AS block_x,
  _nsys_dim(extract_arg(o.arg_set_id, 'debug.block'), 1) AS block_y,
  _nsys_dim(extract_arg(o.arg_set_id, 'debug.block'), 2) AS block_z,
  extract_arg(o.arg_set_id, 'debug.registers per thread') AS registers_per_thread,
  extract_arg(o.arg_set_id, 'debug.static shared memory') AS static_shared_memory,
  extract_arg(o.arg_set_id, 'debug.dynamic shared memory') AS dynamic_shared_memory,
  extract_arg(o.arg_set_id, 'debug.local memory per thread') AS local_memory_per_thread,
  extract_arg(o.arg_set_id, 'debug.launch type') AS launch_type,
  extract_arg(o.arg_set_id, 'debug.graph id') AS graph_id,
  extract_arg(o.arg_set_id, 'debug.graph node id') AS graph_node_id,
  o.correlation_id,
  o.api_call_id,
  o.api_call_ts,
  o.api_call_dur,
  o.api_call_name,
  o.api_call_utid,
  o.ts - o.api_call_ts AS launch_latency,
  o.track_id,
  o.arg_set_id
FROM _nsys_gpu_op o
WHERE o.category = 'kernel'
ORDER BY o.ts, o.id;

-- One row per CUDA memcpy (peer-to-peer and unified-memory migrations included).
CREATE PERFETTO TABLE nsys_memcpys(
  -- Slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration, ns.
  dur LONG,
  -- Slice name ("Memcpy HtoD (Pageable → Device)").
  name STRING,
  -- Bytes copied.
  bytes LONG,
  -- Copy kind ('Host-to-Device', 'Device-to-Host', 'Peer-to-Peer', ...).
  copy_kind STRING,
  -- Source memory kind ('Pageable', 'Pinned', 'Device', ...).
  src_kind STRING,
  -- Destination memory kind.
  dst_kind STRING,
  -- Source device (peer copies).
  src_device LONG,
  -- Destination device (peer copies).
  dst_device LONG,
  -- CUDA device id.
  device LONG,
  -- GPU group.
  gpu_track_id LONG,
  -- CUDA context id.
  context LONG,
  -- CUDA stream id.
  stream LONG,
  -- Process id.
  pid LONG,
  -- Process.
  upid LONG,
  -- CUDA graph node id.
  graph_node_id LONG,
  -- Correlation id.
  correlation_id LONG,
  -- The launching CUDA API call's slice id.
  api_call_id LONG,
  -- Its start, ns.
  api_call_ts LONG,
  -- Its duration, ns.
  api_call_dur LONG,
  -- Its name.
  api_call_name STRING,
  -- Its thread.
  api_call_utid LONG,
  -- Track id.
  track_id LONG,
  -- Arg set id.
  arg_set_id LONG
) AS
SELECT
  o.id, o.ts, o.dur, o.name,
  extract_arg(o.arg_set_id, 'debug.bytes') AS bytes,
  extract_arg(o.arg_set_id, 'debug.kind') AS copy_kind,
  extract_arg(o.arg_set_id, 'debug.source memory') AS src_kind,
  extract_arg(o.arg_set_id, 'debug.destination memory') AS dst_kind,
  extract_arg(o.arg_set_id, 'debug.source device') AS src_device,
  extract_arg(o.arg_set_id, 'debug.destination device') AS dst_device,
  o.device, o.gpu_track_id, o.context, o.stream, o.pid, o.upid,
  extract_arg(o.arg_set_id, 'debug.graph node id') AS graph_node_id,
  o.correlation_id, o.api_call_id, o.api_call_ts, o.api_call_dur, o.api_call_name,
  o.api_call_utid, o.track_id, o.arg_set_id
FROM _nsys_gpu_op o
WHERE o.category = 'memcpy'
ORDER BY o.ts, o.id;

-- One row per CUDA memset.
CREATE PERFETTO TABLE nsys_memsets(
  -- Slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration, ns.
  dur LONG,
  -- Slice name.
  name STRING,
  -- Bytes set.
  bytes LONG,
  -- The value set.
  value LONG,
  -- Memory kind ('Device', 'Pinned', ...).
  memory_kind STRING,
  -- CUDA device id.
  device LONG,
  -- GPU group.
  gpu_track_id LONG,
  -- CUDA context id.
  context LONG,
  -- CUDA stream id.
  stream LONG,
  -- Process id.
  pid LONG,
  -- Process.
  upid LONG,
  -- CUDA graph node id.
  graph_node_id LONG,
  -- Correlation id.
  correlation_id LONG,
  -- The launching CUDA API call's slice id.
  api_call_id LONG,
  -- Its start, ns.
  api_call_ts LONG,
  -- Its duration, ns.
  api_call_dur LONG,
  -- Its name.
  api_call_name STRING,
  -- Its thread.
  api_call_utid LONG,
  -- Track id.
  track_id LONG,
  -- Arg set id.
  arg_set_id LONG
) AS
SELECT
  o.id, o.ts, o.dur, o.name,
  extract_arg(o.arg_set_id, 'debug.bytes') AS bytes,
  extract_arg(o.arg_set_id, 'debug.value') AS value,
  extract_arg(o.arg_set_id, 'debug.memory kind') AS memory_kind,
  o.device, o.gpu_track_id, o.context, o.stream, o.pid, o.upid,
  extract_arg(o.arg_set_id, 'debug.graph node id') AS graph_node_id,
  o.correlation_id, o.api_call_id, o.api_call_ts, o.api_call_dur, o.api_call_name,
  o.api_call_utid, o.track_id, o.arg_set_id
FROM _nsys_gpu_op o
WHERE o.category = 'memset'
ORDER BY o.ts, o.id;

-- One row per CUDA synchronization (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION).
CREATE PERFETTO TABLE nsys_syncs(
  -- Slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration, ns.
  dur LONG,
  -- Slice name (the sync type).
  name STRING,
  -- 'Event sync', 'Stream wait event', 'Stream sync', 'Context sync', ...
  sync_type STRING,
  -- CUDA event id (event syncs).
  event_id LONG,
  -- Device the sync's context runs on (where the row sits).
  device LONG,
  -- The row's own deviceId, as the report records it (may differ: docs/timeline.md).
  reported_device LONG,
  -- GPU group.
  gpu_track_id LONG,
  -- CUDA context id.
  context LONG,
  -- CUDA stream id (4294967295: no stream).
  stream LONG,
  -- Process id.
  pid LONG,
  -- Process.
  upid LONG,
  -- Correlation id.
  correlation_id LONG,
  -- The CUDA API call's slice id.
  api_call_id LONG,
  -- Its start, ns.
  api_call_ts LONG,
  -- Its duration, ns.
  api_call_dur LONG,
  -- Its name.
  api_call_name STRING,
  -- Its thread.
  api_call_utid LONG,
  -- Track id.
  track_id LONG,
  -- Arg set id.
  arg_set_id LONG
) AS
SELECT
  o.id, o.ts, o.dur, o.name,
  extract_arg(o.arg_set_id, 'debug.sync type') AS sync_type,
  extract_arg(o.arg_set_id, 'debug.event id') AS event_id,
  o.device, o.reported_device, o.gpu_track_id, o.context, o.stream, o.pid, o.upid,
  o.correlation_id, o.api_call_id, o.api_call_ts, o.api_call_dur, o.api_call_name,
  o.api_call_utid, o.track_id, o.arg_set_id
FROM _nsys_gpu_op o
WHERE o.category = 'sync'
ORDER BY o.ts, o.id;

-- Kernels, memcpys and memsets together (nsys's "GPU operations").
CREATE PERFETTO VIEW nsys_gpu_ops(
  -- Slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration, ns.
  dur LONG,
  -- Slice name.
  name STRING,
  -- 'kernel', 'memcpy' or 'memset'.
  category STRING,
  -- CUDA device id.
  device LONG,
  -- GPU group.
  gpu_track_id LONG,
  -- CUDA context id.
  context LONG,
  -- CUDA stream id.
  stream LONG,
  -- Process id.
  pid LONG,
  -- Process.
  upid LONG,
  -- Correlation id.
  correlation_id LONG,
  -- Launching call.
  api_call_id LONG,
  -- Track id.
  track_id LONG
) AS
SELECT id, ts, dur, name, category, device, gpu_track_id, context, stream, pid, upid,
       correlation_id, api_call_id, track_id
FROM _nsys_gpu_op
WHERE category IN ('kernel', 'memcpy', 'memset');

-- What each call launched: count and span of its GPU work.
CREATE PERFETTO TABLE _nsys_call_work(
  -- Call slice id.
  call_id LONG,
  -- Kernels, memcpys and memsets.
  gpu_ops LONG,
  -- Kernels.
  kernels LONG,
  -- Syncs.
  syncs LONG,
  -- Summed duration of kernels, memcpys, memsets.
  gpu_ops_dur LONG,
  -- First start.
  gpu_first_ts LONG,
  -- Last end.
  gpu_last_end LONG
) AS
SELECT
  api_call_id AS call_id,
  sum(category != 'sync') AS gpu_ops,
  sum(category = 'kernel') AS kernels,
  sum(category = 'sync') AS syncs,
  sum(iif(category != 'sync', dur, 0)) AS gpu_ops_dur,
  min(iif(category != 'sync', ts, NULL)) AS gpu_first_ts,
  max(iif(category != 'sync', ts + dur, NULL)) AS gpu_last_end
FROM _nsys_gpu_op
WHERE api_call_id IS NOT NULL
GROUP BY api_call_id;

-- One row per CUDA runtime or driver API call.
CREATE PERFETTO TABLE nsys_cuda_api_calls(
  -- Slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration, ns.
  dur LONG,
  -- Name as shown ("cudaLaunchKernel").
  name STRING,
  -- Full versioned name ("cudaLaunchKernel_v7000").
  full_name STRING,
  -- 'runtime' or 'driver'.
  api STRING,
  -- Thread (thread.utid).
  utid LONG,
  -- Thread id.
  tid LONG,
  -- Process (process.upid).
  upid LONG,
  -- Process id.
  pid LONG,
  -- Correlation id (unique per process).
  correlation_id LONG,
  -- Return value (0: success; the trace writes the arg only for failures).
  return_value LONG,
  -- Nesting depth (driver calls nest under runtime calls).
  depth LONG,
  -- Enclosing call's slice id.
  parent_id LONG,
  -- Kernels, memcpys and memsets it launched.
  gpu_ops LONG,
  -- Kernels it launched.
  kernels LONG,
  -- Synchronizations it recorded.
  syncs LONG,
  -- Summed duration of the kernels, memcpys and memsets it launched, ns.
  gpu_ops_dur LONG,
  -- Start of its first GPU operation.
  gpu_first_ts LONG,
  -- End of its last GPU operation.
  gpu_last_end LONG,
  -- Track id.
  track_id LONG,
  -- Arg set id.
  arg_set_id LONG
) AS
SELECT
  s.id,
  s.ts,
  s.dur,
  s.name,
  coalesce(extract_arg(s.arg_set_id, 'debug.full name'), s.name) AS full_name,
  iif(s.category = 'cuda_driver', 'driver', 'runtime') AS api,
  tt.utid,
  th.tid,
  th.upid,
  p.pid,
  extract_arg(s.arg_set_id, 'debug.correlation id') AS correlation_id,
  -- Written only when not 0 (success).
  coalesce(extract_arg(s.arg_set_id, 'debug.return value'), 0) AS return_value,
  s.depth,
  s.parent_id,
  coalesce(w.gpu_ops, 0) AS gpu_ops,
  coalesce(w.kernels, 0) AS kernels,
  coalesce(w.syncs, 0) AS syncs,
  coalesce(w.gpu_ops_dur, 0) AS gpu_ops_dur,
  w.gpu_first_ts,
  w.gpu_last_end,
  s.track_id,
  s.arg_set_id
FROM slice s
LEFT JOIN thread_track tt ON tt.id = s.track_id
LEFT JOIN thread th USING (utid)
LEFT JOIN process p USING (upid)
LEFT JOIN _nsys_call_work w ON w.call_id = s.id
WHERE s.category IN ('cuda_runtime', 'cuda_driver')
ORDER BY s.ts, s.id;
