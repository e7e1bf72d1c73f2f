-- nsys.cpu: the CPU-side sources of a trace converted by nsys-perfetto, one
-- typed row each: OS runtime calls (OSRT_API), OpenACC events
-- (CUPTI_ACTIVITY_KIND_OPENACC_*), OpenMP events (OPENMP_EVENT_KIND_*),
-- unified-memory CPU page faults (CUDA_UM_CPU_PAGE_FAULT_EVENTS) and MPI
-- calls (MPI_*_EVENTS). They read the slices the converter writes on each
-- thread's `OS runtime`, `OpenACC`, `OpenMP` and `MPI` rows and on the
-- process's `Unified memory` row, with their args. Times are the trace's
-- integer nanoseconds. See docs/sql.md.

-- The thread and process of every slice of these sources: thread rows give
-- the thread; process rows (events nsys recorded on thread id 0, page
-- faults) the process only.
CREATE PERFETTO TABLE _nsys_cpu_slice(
  -- Slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration, ns.
  dur LONG,
  -- Name.
  name STRING,
  -- 'osrt', 'openacc', 'openmp', 'mpi' or 'unified_memory'.
  category STRING,
  -- Thread (NULL on a process row).
  utid LONG,
  -- Thread id.
  tid LONG,
  -- Process.
  upid LONG,
  -- Process id.
  pid LONG,
  -- Nesting depth on its row.
  depth LONG,
  -- Enclosing slice.
  parent_id LONG,
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
  s.category,
  tt.utid,
  th.tid,
  coalesce(th.upid, pt.upid) AS upid,
  p.pid,
  s.depth,
  s.parent_id,
  s.track_id,
  s.arg_set_id
FROM slice s
LEFT JOIN thread_track tt ON tt.id = s.track_id
LEFT JOIN thread th ON th.utid = tt.utid
LEFT JOIN process_track pt ON pt.id = s.track_id
LEFT JOIN process p ON p.upid = coalesce(th.upid, pt.upid)
WHERE s.category IN ('osrt', 'openacc', 'openmp', 'mpi')
   OR (s.category = 'unified_memory' AND s.name = 'CPU page fault');

-- One row per OS runtime call (OSRT_API): pthread, file, socket and sleep
-- calls, nested as nsys recorded them.
CREATE PERFETTO TABLE nsys_osrt_calls(
  -- Slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration, ns.
  dur LONG,
  -- Function name ("pthread_cond_wait").
  name STRING,
  -- Return value.
  return_value LONG,
  -- Nesting level (0: outermost), as nsys recorded it.
  nesting_level LONG,
  -- nsys's event class: 27 for a traced call; the profiler's own marker
  -- rows ("OS runtime libraries profiling started/finished", 31 and 32)
  -- have none of the args of a call and are NULL here unless the trace
  -- records the class.
  event_class LONG,
  -- Thread (thread.utid); NULL for rows nsys recorded on thread id 0.
  utid LONG,
  -- Thread id.
  tid LONG,
  -- Process (process.upid).
  upid LONG,
  -- Process id.
  pid LONG,
  -- Depth on the thread's OS runtime row.
  depth LONG,
  -- Enclosing call's slice id.
  parent_id LONG,
  -- Track id.
  track_id LONG,
  -- Arg set id.
  arg_set_id LONG
) AS
SELECT
  c.id,
  c.ts,
  c.dur,
  c.name,
  extract_arg(c.arg_set_id, 'debug.return value') AS return_value,
  extract_arg(c.arg_set_id, 'debug.nesting level') AS nesting_level,
  coalesce(
    extract_arg(c.arg_set_id, 'debug.event class'),
    iif(extract_arg(c.arg_set_id, 'debug.nesting level') IS NOT NULL, 27, NULL)
  ) AS event_class,
  c.utid, c.tid, c.upid, c.pid, c.depth, c.parent_id, c.track_id, c.arg_set_id
FROM _nsys_cpu_slice c
WHERE c.category = 'osrt'
ORDER BY c.ts, c.id;

-- One row per OpenACC event (CUPTI_ACTIVITY_KIND_OPENACC_DATA, _LAUNCH,
-- _OTHER), named as nsys names them: "Enter Data@file.c:40".
CREATE PERFETTO TABLE nsys_openacc_events(
  -- Slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration, ns.
  dur LONG,
  -- Event name, then "@file:line" when the source is known.
  name STRING,
  -- Event kind ('Enqueue launch', 'Enter data', 'Wait', ...).
  event_kind STRING,
  -- OpenACC device type.
  device_type LONG,
  -- Source line.
  line LONG,
  -- CUDA device id.
  device LONG,
  -- CUDA context id.
  context LONG,
  -- CUDA stream id.
  stream LONG,
  -- Function name.
  function STRING,
  -- Variable name (data events).
  variable STRING,
  -- Kernel name (launch events).
  kernel STRING,
  -- Bytes (data events).
  bytes LONG,
  -- Gangs (launch events).
  gangs LONG,
  -- Workers (launch events).
  workers LONG,
  -- Vector length (launch events).
  vector_length LONG,
  -- Thread (thread.utid).
  utid LONG,
  -- Thread id.
  tid LONG,
  -- Process (process.upid).
  upid LONG,
  -- Process id.
  pid LONG,
  -- Track id.
  track_id LONG,
  -- Arg set id.
  arg_set_id LONG
) AS
SELECT
  c.id,
  c.ts,
  c.dur,
  c.name,
  extract_arg(c.arg_set_id, 'debug.event kind') AS event_kind,
  extract_arg(c.arg_set_id, 'debug.device type') AS device_type,
  extract_arg(c.arg_set_id, 'debug.line') AS line,
  extract_arg(c.arg_set_id, 'debug.device') AS device,
  extract_arg(c.arg_set_id, 'debug.context') AS context,
  extract_arg(c.arg_set_id, 'debug.stream') AS stream,
  extract_arg(c.arg_set_id, 'debug.function') AS function,
  extract_arg(c.arg_set_id, 'debug.variable') AS variable,
  extract_arg(c.arg_set_id, 'debug.kernel') AS kernel,
  extract_arg(c.arg_set_id, 'debug.bytes') AS bytes,
  extract_arg(c.arg_set_id, 'debug.gangs') AS gangs,
  extract_arg(c.arg_set_id, 'debug.workers') AS workers,
  extract_arg(c.arg_set_id, 'debug.vector length') AS vector_length,
  c.utid, c.tid, c.upid, c.pid, c.track_id, c.arg_set_id
FROM _nsys_cpu_slice c
WHERE c.category = 'openacc'
ORDER BY c.ts, c.id;

-- The names the converter gives OpenMP events whose nameId has no string
-- (nsys writes 0xFFFFFFFF there for MUTEX_RELEASED): one per table.
CREATE PERFETTO FUNCTION _nsys_openmp_fallback_name(
  -- The slice name.
  name STRING
)
RETURNS BOOL AS
SELECT $name IN (
  'Thread', 'Parallel region', 'Sync region wait', 'Sync region', 'Task', 'Master region',
  'Reduction', 'Task creation', 'Task schedule', 'Cancel', 'Mutex wait', 'Mutex released',
  'Critical section', 'Lock init', 'Lock destroy', 'Workshare', 'Dispatch', 'Flush'
);

-- One row per OpenMP event (OPENMP_EVENT_KIND_*, OMPT): parallel regions,
-- tasks, barriers, locks... Events with no duration (task creation, mutex
-- release) have dur 0.
CREATE PERFETTO TABLE nsys_openmp_events(
  -- Slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration, ns (0 for instants).
  dur LONG,
  -- Event name ("Parallel Region", "Implicit Barrier", ...).
  name STRING,
  -- 1 when nsys has no name for it (the name is the converter's label of
  -- its table, "Mutex released"...).
  unnamed LONG,
  -- The OPENMP_EVENT_KIND_* table it came from (its eventKind), when the
  -- trace records it; else NULL.
  event_kind STRING,
  -- OMPT kind (sync region kind, mutex kind, ...).
  kind LONG,
  -- Parallel region id.
  parallel_id LONG,
  -- Task id.
  task_id LONG,
  -- Parent task id.
  parent_task_id LONG,
  -- New task id (task creation).
  new_task_id LONG,
  -- Prior task id (task schedule).
  prior_task_id LONG,
  -- Next task id (task schedule).
  next_task_id LONG,
  -- OpenMP thread id.
  thread_id LONG,
  -- Wait id (locks, critical sections).
  wait_id LONG,
  -- Count (workshare iterations...).
  count LONG,
  -- Thread (thread.utid).
  utid LONG,
  -- Thread id.
  tid LONG,
  -- Process (process.upid).
  upid LONG,
  -- Process id.
  pid LONG,
  -- Depth on the thread's OpenMP row.
  depth LONG,
  -- Enclosing event's slice id.
  parent_id LONG,
  -- Track id.
  track_id LONG,
  -- Arg set id.
  arg_set_id LONG
) AS
SELECT
  c.id,
  c.ts,
  c.dur,
  c.name,
  coalesce(
    extract_arg(c.arg_set_id, 'debug.unnamed'),
    _nsys_openmp_fallback_name(c.name)
  ) AS unnamed,
  cast_string!(extract_arg(c.arg_set_id, 'debug.event kind')) AS event_kind,
  extract_arg(c.arg_set_id, 'debug.kind') AS kind,
  extract_arg(c.arg_set_id, 'debug.parallel id') AS parallel_id,
  extract_arg(c.arg_set_id, 'debug.task id') AS task_id,
  extract_arg(c.arg_set_id, 'debug.parent task id') AS parent_task_id,
  extract_arg(c.arg_set_id, 'debug.new task id') AS new_task_id,
  extract_arg(c.arg_set_id, 'debug.prior task id') AS prior_task_id,
  extract_arg(c.arg_set_id, 'debug.next task id') AS next_task_id,
  extract_arg(c.arg_set_id, 'debug.thread id') AS thread_id,
  extract_arg(c.arg_set_id, 'debug.wait id') AS wait_id,
  extract_arg(c.arg_set_id, 'debug.count') AS count,
  c.utid, c.tid, c.upid, c.pid, c.depth, c.parent_id, c.track_id, c.arg_set_id
FROM _nsys_cpu_slice c
WHERE c.category = 'openmp'
ORDER BY c.ts, c.id;

-- One row per unified-memory CPU page fault (CUDA_UM_CPU_PAGE_FAULT_EVENTS).
CREATE PERFETTO TABLE nsys_um_cpu_page_faults(
  -- Slice id (an instant).
  id LONG,
  -- Time, ns.
  ts LONG,
  -- Faulting address.
  address LONG,
  -- Program counter of the fault (originalFaultPc).
  fault_pc LONG,
  -- Module of the faulting code.
  module STRING,
  -- The faulting code as nsys resolved it (CpuInstruction: a function
  -- name or an address), when the trace records it; else NULL.
  cpu_instruction STRING,
  -- Process (process.upid).
  upid LONG,
  -- Process id.
  pid LONG,
  -- Track id.
  track_id LONG,
  -- Arg set id.
  arg_set_id LONG
) AS
SELECT
  c.id,
  c.ts,
  extract_arg(c.arg_set_id, 'debug.address') AS address,
  extract_arg(c.arg_set_id, 'debug.fault pc') AS fault_pc,
  extract_arg(c.arg_set_id, 'debug.module') AS module,
  cast_string!(extract_arg(c.arg_set_id, 'debug.cpu instruction')) AS cpu_instruction,
  c.upid, c.pid, c.track_id, c.arg_set_id
FROM _nsys_cpu_slice c
WHERE c.category = 'unified_memory'
ORDER BY c.ts, c.id;

-- Which MPI table a call came from, by its name when the trace does not
-- record it: 'p2p' (point-to-point), 'collectives', 'start-wait'
-- (persistent requests and completion) or 'other'.
CREATE PERFETTO FUNCTION _nsys_mpi_source(
  -- The MPI function name ("MPI_Isend").
  name STRING
)
RETURNS STRING AS
SELECT
  CASE
    WHEN $name IS NULL THEN NULL
    WHEN $name GLOB 'MPI_[A-Z]*'
         AND (lower($name) GLOB 'mpi_*send*' OR lower($name) GLOB 'mpi_*recv*'
              OR lower($name) GLOB 'mpi_*probe*' OR lower($name) GLOB 'mpi_*put*'
              OR lower($name) GLOB 'mpi_*get*' OR lower($name) GLOB 'mpi_*accumulate*')
         AND lower($name) NOT GLOB 'mpi_*_init'
         AND lower($name) NOT GLOB 'mpi_get_*' AND lower($name) NOT GLOB 'mpi_*_get_*'
      THEN 'p2p'
    WHEN lower($name) IN (
      'mpi_start', 'mpi_startall', 'mpi_wait', 'mpi_waitall', 'mpi_waitany', 'mpi_waitsome',
      'mpi_test', 'mpi_testall', 'mpi_testany', 'mpi_testsome')
      THEN 'start-wait'
    WHEN lower($name) GLOB 'mpi_*barrier*' OR lower($name) GLOB 'mpi_*bcast*'
         OR lower($name) GLOB 'mpi_*gather*' OR lower($name) GLOB 'mpi_*scatter*'
         OR lower($name) GLOB 'mpi_*reduce*' OR lower($name) GLOB 'mpi_*alltoall*'
         OR lower($name) GLOB 'mpi_*scan*'
      THEN 'collectives'
    ELSE 'other'
  END;

-- One row per MPI call (MPI_P2P_EVENTS, MPI_COLLECTIVES_EVENTS,
-- MPI_START_WAIT_EVENTS, MPI_OTHER_EVENTS; nsys 2023.4 on).
CREATE PERFETTO TABLE nsys_mpi_calls(
  -- Slice id.
  id LONG,
  -- Start, ns.
  ts LONG,
  -- Duration, ns (calls unfinished at the end of the report end there).
  dur LONG,
  -- MPI function ("MPI_Isend").
  name STRING,
  -- The table it came from: 'p2p', 'collectives', 'start-wait' or 'other'
  -- (from the trace when it records it, else from the function's name).
  source STRING,
  -- The caller's rank (MPI_RANKS).
  rank LONG,
  -- Communicator handle.
  communicator LONG,
  -- Communicator uid.
  communicator_uid LONG,
  -- Tag (point-to-point).
  tag LONG,
  -- Peer rank (point-to-point).
  remote_rank LONG,
  -- Root rank (rooted collectives).
  root_rank LONG,
  -- Bytes sent.
  size LONG,
  -- Bytes received.
  recv_size LONG,
  -- Request handle.
  request LONG,
  -- 1 when the call had not returned at the end of the report.
  unterminated LONG,
  -- Thread (thread.utid).
  utid LONG,
  -- Thread id.
  tid LONG,
  -- Process (process.upid).
  upid LONG,
  -- Process id.
  pid LONG,
  -- Depth on the thread's MPI row.
  depth LONG,
  -- Enclosing call's slice id.
  parent_id LONG,
  -- Track id.
  track_id LONG,
  -- Arg set id.
  arg_set_id LONG
) AS
SELECT
  c.id,
  c.ts,
  c.dur,
  c.name,
  coalesce(extract_arg(c.arg_set_id, 'debug.mpi source'), _nsys_mpi_source(c.name)) AS source,
  extract_arg(c.arg_set_id, 'debug.rank') AS rank,
  extract_arg(c.arg_set_id, 'debug.communicator') AS communicator,
  extract_arg(c.arg_set_id, 'debug.communicator uid') AS communicator_uid,
  extract_arg(c.arg_set_id, 'debug.tag') AS tag,
  extract_arg(c.arg_set_id, 'debug.remote rank') AS remote_rank,
  extract_arg(c.arg_set_id, 'debug.root rank') AS root_rank,
  extract_arg(c.arg_set_id, 'debug.size') AS size,
  extract_arg(c.arg_set_id, 'debug.receive size') AS recv_size,
  extract_arg(c.arg_set_id, 'debug.request') AS request,
  coalesce(extract_arg(c.arg_set_id, 'debug.unterminated'), 0) AS unterminated,
  c.utid, c.tid, c.upid, c.pid, c.depth, c.parent_id, c.track_id, c.arg_set_id
FROM _nsys_cpu_slice c
WHERE c.category = 'mpi'
ORDER BY c.ts, c.id;
