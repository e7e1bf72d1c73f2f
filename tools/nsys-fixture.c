/*
 * nsys-fixture: deterministic generator of synthetic Nsight Systems SQLite exports.
 *
 * Writes a file shaped like the output of `nsys export --type sqlite` (table names,
 * column names, order and declared types, ENUM tables, metadata, id encodings, the
 * lazily created event tables) and fills it with a plausible multi-process, multi-GPU
 * CUDA workload. Used to build the bundled sample report, test inputs and benchmark
 * inputs. The same options and seed always produce the same file.
 *
 * Usage: nsys-fixture [OPTIONS] OUT.sqlite        (OUT is replaced if it exists)
 *   -s, --seed N          PRNG seed (default 1)
 *   -n, --events N        approximate total number of event rows (default 10000)
 *       --schema S        modern | 2022 | legacy (default modern)
 *       --gpus N          devices (default 2)
 *       --processes N     processes using CUDA (default 2)
 *       --threads N       CPU threads per process issuing CUDA calls (default 2)
 *       --streams N       streams per (process, device), null stream included (default 3)
 *       --overlap-pct P   percent of kernels that start before the previous kernel on
 *                         the same stream ended (programmatic dependent launch); default 0.
 *                         Only kernels launched while their predecessor still runs can
 *                         overlap: about 40% of kernels with the default mix.
 *       --negative-ts     the first API calls and kernels start before 0 (session start)
 *       --graphs N        CUDA graph launches per process (default 0), spread through the
 *                         timeline; see "CUDA graphs" below
 *       --graph-trace     also write CUPTI_ACTIVITY_KIND_GRAPH_TRACE, one whole-graph row per
 *                         graph launch (modern schema, needs --graphs). nsys writes either
 *                         these rows (--cuda-graph-trace=graph) or per-node kernel rows
 *                         (=node); this fixture then writes both.
 *       --nvtx-stream-names  name the devices, contexts and some streams as nvtxNameCudaDeviceA,
 *                         nvtxNameCuContextA and nvtxNameCudaStreamA would:
 *                         TARGET_INFO_NVTX_CUDA_{DEVICE,CONTEXT,STREAM} (modern and 2022 schemas)
 *       --nvtx            NVTX annotations of a training loop: NVTX_EVENTS + ENUM_NSYS_EVENT_TYPE
 *                         (modern and 2022 schemas); see "NVTX" below
 *       --osrt            OS runtime library calls: OSRT_API + OSRT_CALLCHAINS (all schemas)
 *       --sched N         context switches on N CPUs (1-256): SCHED_EVENTS (modern and 2022)
 *       --samples HZ      CPU samples, about HZ per second of a thread's running time:
 *                         COMPOSITE_EVENTS + SAMPLING_CALLCHAINS (modern and 2022)
 *                         These three: see "CPU side" below.
 *       --gpu-metrics HZ  GPU metrics sampled HZ times a second (10-200000): GPU_METRICS +
 *                         TARGET_INFO_GPU_METRICS (modern), GENERIC_EVENTS/_SOURCES/_TYPES (2022)
 *       --memory-usage    CUDA_GPU_MEMORY_USAGE_EVENTS (modern and 2022)
 *       --libraries       CUBLAS_EVENTS, CUDNN_EVENTS (modern and 2022)
 *       --mpi             MPI_* tables (modern)
 *       --openacc         CUPTI_ACTIVITY_KIND_OPENACC_DATA/_LAUNCH/_OTHER (modern and 2022)
 *       --openmp          OPENMP_EVENT_KIND_* tables, three OpenMP worker threads per process
 *                         (modern and 2022)
 *       --um-faults       CUDA_UM_CPU_PAGE_FAULT_EVENTS, CUDA_UM_GPU_PAGE_FAULT_EVENTS (modern
 *                         and 2022)
 *       --diagnostics     DIAGNOSTIC_EVENT (modern)
 *       --all-tables      all of these the schema has, --gpu-metrics at 1000 Hz unless given
 *                         These nine: see "Further tables" below.
 *   -v, --verbose         print row counts and timings to stderr
 *   -h, --help
 *
 * Schema shapes, copied from real exports:
 *   modern  nsys 2026.2.1, schema 3.25.0: META_DATA_EXPORT + META_DATA_CAPTURE,
 *           greenContextId / graphId / cluster columns, TARGET_INFO_CUDA_CONTEXT_INFO.
 *   2022    nsys 2022.4.2.1, schema 3.0.0: EXPORT_META_DATA (with NVIDIA's misspelled
 *           EXPORT_OUTUPT_* keys), ENUM_CUDA_KRENEL_LAUNCH_TYPE, TARGET_INFO_CUDA_NULL_STREAM.
 *   legacy  nsys 2020.3: no metadata, ENUM, PROCESSES or ANALYSIS_DETAILS tables,
 *           TARGET_INFO_GPU keyed by deviceId (+ TARGET_INFO_CUDA_GPU), no kernel
 *           mangledName, no runtime callchainId, one-line CREATE TABLE statements.
 *   Column comments of the real CREATE TABLE statements are not reproduced.
 *   Tables none of the real exports at hand have (CUDA_GRAPH_EVENTS, CUDA_GRAPH_NODE_EVENTS,
 *   CUPTI_ACTIVITY_KIND_GRAPH_TRACE, TARGET_INFO_NVTX_CUDA_DEVICE/CONTEXT) follow NVIDIA's
 *   "SQLite Schema Reference" (2026.4, schema 3.28.1), whose column lists for them match the
 *   2024-era reference; TARGET_INFO_NVTX_CUDA_STREAM also matches a real 2023.1 (3.1.2) export.
 *
 * Workload model: every CPU thread issues CUDA API calls back to back. GPU work is
 * queued FIFO per stream and starts after its launching call began; blocking syncs
 * keep the calling thread busy until the GPU work they wait for has finished. Rows
 * are kept in a min-heap and written once the simulation clock has passed their
 * start, so every table is filled in start order.
 *
 * CUDA graphs (--graphs N): each process owns a few graphs (N/4 rounded up, at most 4)
 * of 3-8 kernel nodes and launches them in turn, N launches in all, at evenly spaced
 * points of the run. Before its first launch a graph is built on the launching thread:
 * cudaGraphCreate, one cudaGraphAddKernelNode per node, cudaGraphInstantiate. A launch
 * is one cudaGraphLaunch_v10000 call; its kernels run back to back, never overlapping,
 * on one stream of the graph's device, after the call began, and all carry the call's
 * correlationId. Graph ids are per process, like CUPTI's: graphs and executable graphs
 * draw from one counter starting at 1, and graphNodeId = owner id << 32 | node index,
 * owner being the graph for the nodes added to it and the executable graph for the
 * copies cudaGraphInstantiate makes. Kernels carry the executable graph's node ids
 * (graphNodeId) and, modern schema, the source graph's id (graphId); GRAPH_TRACE rows
 * carry both graphId and graphExecId. Modern schema only: CUDA_GRAPH_EVENTS (graph
 * created, eventClass 95; executable graph created, 94) and CUDA_GRAPH_NODE_EVENTS
 * (node created, eventClass 77, and its copy in the executable graph with
 * originalGraphNodeId set) are instants (start == end) inside the API call that caused
 * them, on its thread, named (nameId) after that call.
 *
 * CPU side (--osrt, --sched, --samples; any of them turns on the host model below):
 *   Shapes: OSRT_API / OSRT_CALLCHAINS as in 2020.3 (quasiben nvtx-examples exports: OSRT_API
 *   with correlationId, always 0; unwindMethod REFERENCES UnwindMethodType(number), that table
 *   written with the first callchain), 2022.4 (nvtx_workload-sampled, schema 3.0.0) and
 *   2024.6+ (ISC25 cpu report, 3.17.1; same up to 3.20.3). SCHED_EVENTS, COMPOSITE_EVENTS and
 *   SAMPLING_CALLCHAINS as in 3.0.0 and 3.17.1 (threadState/threadBlock from 3.16); no 2020.3
 *   export at hand has them, so --sched and --samples refuse --schema legacy. The callchain
 *   tables have the table constraint PRIMARY KEY (id, stackDepth). With the CPU side on,
 *   StringIds starts with the five "[Unknown]", "[kernel.kallsyms]", "[Max depth]", ... entries
 *   real exports with CPU data start with, so every other string id moves, and the ENUM tables
 *   ENUM_STACK_UNWIND_METHOD, ENUM_SAMPLING_THREAD_STATE (+ ENUM_SCHEDULING_THREAD_BLOCK,
 *   modern) are written. Every table stays in start order; real 2022-2023 exports are, 2024.6+
 *   ones are a few sorted runs one after the other.
 *   Semantics as in the real exports: stackDepth 0 is the innermost frame (OSRT: the libc
 *   function behind the call, e.g. __GI___ioctl for ioctl; samples: the sampled function),
 *   growing towards _start / __GI___clone3; symbol and module are never NULL (StringIds ids;
 *   unresolved frames are named after their address, unresolved = 1). Flags: 2024.6+ write
 *   kernelMode/thumbCode/unresolved as 0/1, 2022.4 as 1 or NULL, 2020.3 NULL; specialEntry is
 *   always NULL; only samples have unwindMethod (8, LBR). A "[Max depth]" entry (NULL
 *   originalIP) ends truncated sample stacks, "[Broken backtraces]" those of [NSys] threads;
 *   "0x0" in module "[Unknown]" ends OSRT stacks the unwinder gave up on; one frame has an
 *   empty name ("", resolved), as 8% of the 2025.1 report's sampled frames do. Kernel frames (module "[kernel.kallsyms]", kernelMode 1, originalIP the
 *   address as a signed, so negative, integer) are only ever the leaf of a sample.
 *   OSRT_API: eventClass 27, returnValue 0 (as in every real export), nestingLevel 0, or 1 for
 *   the calls made inside another one (pthread_create > mmap64, mprotect; fork >
 *   pthread_cond_signal, the pairs real exports show); calls last >= 1 us (nsys's
 *   --osrt-threshold) and have a callchain (callchainId 1, 2, ... in start order; 0 = none,
 *   never NULL) exactly when they last >= 80 us (--osrt-backtrace-threshold). Per process one
 *   "OS runtime libraries profiling started" instant (eventClass 31) before its first call and
 *   two "... finished" (32) at its end, on the process (TID 0), nestingLevel NULL.
 *   SCHED_EVENTS: every thread alternates sched-in (isSchedIn 1) and sched-out (0) on one CPU,
 *   starting with an in and ending with an out; a CPU runs one thread at a time and stays idle
 *   at least 1 us between two. threadState 0, 5 (Terminated) on the last sched-out of the
 *   report's threads, threadBlock NULL. COMPOSITE_EVENTS: ids 1, 2, ... in start order,
 *   threadState 1 (Running), cpuCycles 1 (all that real exports hold: one row per sample, not
 *   a cycle count), only while the thread runs, on its CPU; every sample has a callchain.
 *   Model: each process starts up first (Python imports; the first process forks lscpu; the
 *   main thread creates the autograd threads, then CUDA initialisation cuda-EvtHandlr and the
 *   CUPTI worker thread), which moves the CUDA calls later. Between CUDA calls a thread does
 *   host work (about 130 us on average, with a long tail) and, in 22% of the gaps, 1-3 OS
 *   runtime calls; cudaMalloc/cudaFree make ioctls; long blocking calls (pthread_cond_wait,
 *   sem_wait, pthread_mutex_lock, read, nanosleep, poll, ...) and CUDA syncs longer than 30 us
 *   sleep. cuda-EvtHandlr polls and the CUPTI worker thread waits in sem_timedwait (100 ms
 *   timeouts), [NSys] wakes every few ms. With --sched, a kernel worker bound to CPU 3
 *   ("kworker/3:1-events", in PROCESSES, and in ThreadNames in the modern schema) preempts
 *   what runs there; lscpu is named in ThreadNames only, as child processes are in real
 *   reports. Other processes preempt the threads now and then (time slices 0.4-16 ms, CFS-like
 *   0.75-3 ms when threads wait for a CPU). Samples are taken every 1/HZ (+-3%) of a thread's
 *   running time (CPU-clock sampling); their stacks come from 14 fixed call paths (Python,
 *   PyTorch, CUDA runtime, stripped libcuda) or from the OSRT call the thread is in, with a
 *   kernel leaf frame in ~4% of them. --samples without --sched samples on 8 CPUs. The CPU side
 *   draws from its own random stream, yet the CUDA rows differ from a run without it: the
 *   threads' timing decides the order of their draws. CUDA calls ignore the scheduling: with
 *   more threads than CPUs a thread may make CUDA calls while it waits for a CPU.
 *   Mix (--osrt --sched 8 --samples 1000, default topology, any -n, modern or 2022): of the
 *   event rows -n counts, ~72.5% CUDA, ~11% OSRT_API, ~11% SCHED_EVENTS, ~5.6%
 *   COMPOSITE_EVENTS; callchain rows come on top (~0.12 OSRT_CALLCHAINS and ~0.43
 *   SAMPLING_CALLCHAINS rows per event row). -n 1000000 spans ~17 s of timeline (CUDA alone:
 *   ~4.8 s). Each option alone: ~13% OSRT, ~13% SCHED or ~7% samples. More CUDA threads than
 *   CPUs means fewer samples per row.
 *
 * NVTX (--nvtx; refused with --schema legacy):
 *   Shape: NVTX_EVENTS columns as in the 3.25.0 (2026.2.1) and 3.0.0 (2022.4) exports (binaryData
 *   modern only), ENUM_NSYS_EVENT_TYPE rows as in both. Filled as real exports fill them (the
 *   local nvtx_workload export, a PyTorch/NCCL 2026.2.1 report): push/pop ranges eventType 59,
 *   start/end ranges 60 (rangeId 1, 2, ... per process; endGlobalTid only when another thread
 *   ended the range), marks 34, category naming 33, domain creation 75; end NULL for instants;
 *   domainId 0 (default domain) or 1 ("NCCL", created per process by a 75 row with text "NCCL");
 *   registered strings as textId with text NULL, their StringIds entries after every other
 *   string; colors ARGB (0xFF......), payloads in int64Value.
 *   Model: each CUDA thread runs training steps: "step N" (color, payload N) around 24-160 of its
 *   CUDA calls, then in 40% of the cases 1-6 calls outside any step. Inside a step, the phases
 *   forward, backward, optimizer.step (35/50/15% of its calls; registered strings, categories 1-3
 *   named "forward", "backward", "optimizer" by 33 rows, colors) and in those layer ranges of 1-8
 *   calls ("embedding", "layers.K.self_attn", "layers.K.mlp.backward", "AdamW.step", ...) with a
 *   few calls left bare between them: ranges are 1-3 deep. NCCL kernel launches are wrapped in
 *   the NCCL domain: a lone "ncclSend" around the call, or (25%) "ncclGroupStart", "ncclSend",
 *   "ncclRecv" just before it and "ncclGroupEnd" around it. A quarter of the steps end with a
 *   mark ("lr_scheduler.step", "checkpoint", ...). Pushes lie in the host time just before a
 *   call (at most 4 us, or a third of the time since the thread's previous call), pops just after
 *   it (at most 2 us, or a third of the gap before the thread's next OS runtime call or CUDA
 *   call): on a thread, ranges nest properly (the NCCL ones innermost), contain whole CUDA calls
 *   and start and end outside its OS runtime calls. Start/end ranges: per process, bursts of 1-3
 *   ("prefetch batch" with its batch number, "h2d copy", "async checkpoint save"), the first
 *   0.1-2 ms after its first call, then every 80-400 ms; they may overlap one another, are meant
 *   to last 50 us to 250 ms and end right after the first call of their thread that ends later,
 *   the thread being in 30% of the cases another thread of the process. Ranges still open when
 *   the run ends close just after their thread's last call.
 *   Mix: NVTX rows count towards -n, ~12% of the rows (~11% with --osrt --sched 4); -n 1000000
 *   gives ~122k NVTX rows: ~121k push/pop (12k of them NCCL), 1.2k marks, ~70 start/end ranges.
 *   With --diagnostics, DIAGNOSTIC_EVENT reports the NVTX row count of each process instead of
 *   "No NVTX events collected", and that the NVTX injection was initialized.
 *   --nvtx draws from a random stream of its own after each CUDA step: the CUDA and CPU-side rows
 *   differ from those of a run without it only because -n is reached sooner. NVTX rows wait in a
 *   heap until no row still to come can start before them (memory bounded by the longest open
 *   range, not by -n) and are written in start order. They are not coordinated with the further
 *   tables' host rows: a library, OpenACC, OpenMP or MPI row may straddle a push or a pop.
 *
 * Further tables (--gpu-metrics, --memory-usage, --libraries, --mpi, --openacc, --openmp,
 * --um-faults, --diagnostics; all off by default, refused with --schema legacy):
 *   Shapes: NVIDIA's SQLite Schema Reference for 2026.4 (schema 3.28.1) for the modern schema;
 *   full `nsys export --lazy=false` exports of nsys 2022.4.2.1 (3.0.0) for 2022, which has no
 *   MPI tables, no DIAGNOSTIC_EVENT and no GPU_METRICS (--mpi and --diagnostics need modern).
 *   Columns newer than 3.7.2 (2023.4) whose first version is unknown are written in the modern
 *   schema although it claims 3.25.0: GPU_METRICS.rawTimestamp, OPENACC correlationId,
 *   CUDA_GPU_MEMORY_USAGE_EVENTS.streamId, MPI commUid, CUDA_UM_CPU_PAGE_FAULT_EVENTS.sourceFile
 *   and sourceLine. Their ENUM tables are written with them (ENUM_CUDA_DEV_MEM_EVENT_OPER,
 *   ENUM_CUDA_UNIF_MEM_ACCESS_TYPE, ENUM_OPENACC_*, ENUM_OPENMP_*, ENUM_DIAGNOSTIC_*; rows copied
 *   from the 3.0.0/3.17.1 and 3.25.0 exports).
 *   These options only watch the CUDA simulation: each draws from a random stream of its own,
 *   so the CUDA (and CPU-side) rows and their string ids stay those of a run without them; their
 *   strings come after every other one, and their rows come on top of -n. The rows are kept
 *   aside and written after the simulation, each table in start order. On a CUDA thread they
 *   either lie in the time its CUDA calls leave free or contain whole calls (a library call or
 *   OpenACC construct starts up to 1.5 us before the call and ends after it), never partly
 *   overlapping a CUDA call, an OS runtime call or one another.
 *   --gpu-metrics: one sample per GPU every 1e9/HZ ns, from just before 0 to just before the end
 *     of the session, all metrics of a sample with one timestamp; a value describes the interval
 *     up to the next sample and follows the GPU rows in it (SM Active from kernel time, PCIe
 *     RX/TX from host-to-device/device-to-host copies, DRAM from device copies and memsets,
 *     NVLink from peer copies). Modern: 16 metrics named as in nsys's GH100 metric set
 *     ("SM Active [Throughput %]", "GPC Clock Frequency [MHz]", ...), metricId 0-15, typeName
 *     the metric set's name (a guess: no real value is known); values are integers, percentages
 *     except the clocks, which are in Hz despite "[MHz]", as exports are reported to store them.
 *     rawTimestamp = timestamp (time source SessionNs). 2022: the 22 fields of the real A100
 *     export, in its order, JSON text byte-for-byte in its format, timestamp NULL, rawTimestamp
 *     session ns. typeId = 0x0001_SSSS_0000_00DD: VM 1, source 1 + GPU, the GPU in the low byte
 *     (gpuId = typeId & 0xFF); one source and one type per GPU (sourceId = typeId with the low
 *     byte 0). GPU 0 gets the real export's ids.
 *   --memory-usage: the existing cudaMalloc/cudaFree calls allocate and free: an allocation on
 *     the thread's device (memKind 2, Device), a free of one of the process's live blocks with
 *     its address and bytes (a cudaFree without a live block frees nothing), correlationId the
 *     call's; some blocks are never freed. Each process's first CUDA call loads its module:
 *     three named __device__ variables (memKind 5, Device Static, correlationId NULL).
 *   --libraries: cuBLAS calls (eventClass 29) around 60% of GEMM kernel launches, cuDNN calls
 *     (28) around 15% of the other launches (a quarter of them covering the next CUDA call too),
 *     and short calls (cublasSetStream_v2, cudnnSetTensorNdDescriptor, ...) in 12% of the free
 *     gaps of 2.5 us or more.
 *   --mpi: one rank per process (MPI_RANKS: its main thread), calls on the main thread in free
 *     gaps: MPI_Init (in the first gap of 30 us or more), MPI_Comm_rank, MPI_Comm_size,
 *     MPI_Comm_dup, then cycles of Irecv/Isend from/to the neighbour ranks with MPI_Test and
 *     MPI_Wait on their requests (every third cycle blocking MPI_Send/MPI_Recv), a collective
 *     (Allreduce, Bcast with a root, Barrier, Allgather, Reduce to 0) and every other cycle an
 *     MPI_Iallreduce and its MPI_Wait. Tags, sizes and collectives are the same on every rank.
 *     MPICH-style handles (MPI_COMM_WORLD 0x44000000, its duplicate 0x84000002, requests
 *     0xac00000n reused), commUid the same on every rank; MPI_COMMUNICATORS: both communicators
 *     per rank, members "0,1,..." (format not known). At the end rank 0 is left in MPI_Barrier and
 *     the last rank in MPI_Recv with end NULL (unfinished); the others call MPI_Finalize.
 *   --openacc: directives of an NVHPC program around CUDA calls: Compute Construct > Enqueue
 *     Launch around 20% of kernel launches (one launch of the runtime's own, srcFile
 *     "(runtime)", no construct), Enter Data/Update > Enqueue Upload around host-to-device
 *     copies, Exit Data/Update > Enqueue Download around device-to-host ones, Wait around stream
 *     and device syncs; names as nsys's openacc_sum prints them, DeviceType 4 (nvidia), cu*Id of
 *     the call's stream, gangs/workers/vector from the kernel's grid and block. The Enqueue
 *     events and Wait carry the CUDA call's correlationId (modern). Taken before --libraries.
 *   --openmp: each process runs a team of its main thread and three worker threads
 *     (pid + threads + 3 + k, "OpenMP Worker Thread" in ThreadNames; the main thread is named
 *     "OpenMP Initial Thread" as nsys names it). Parallel regions take 60% of the main thread's
 *     free gaps of 40 us or more; names, kinds and ids as in a real 2022.4 export of a libomp
 *     program: per team thread Implicit Task > [Waiting for Lock, Mutex released (instant,
 *     nameId 4294967295)] [Waiting to enter Critical Region, Critical Region] Single Region
 *     (Executor/Waiting) > Explicit Task Creation (instant) and Implicit Barrier > Explicit Task
 *     (executor); parallelId and taskId counted per process from 2. OPENMP_EVENT_KIND_THREAD:
 *     the team's threads until the end of the session.
 *   --um-faults: 5% of kernels take 1-3 GPU fault groups (ranges, which may overlap), 10% of
 *     synchronising calls are followed by 1-6 CPU faults (instants) in managed memory.
 *   --diagnostics: messages with the texts real 2024.6-2025.3 exports have: daemon warnings
 *     before 0 (VM-level globalPid), "Profiling has started." at 0 and "Profiling has stopped."
 *     at the session end (globalPid 0xFE00000000000000), per process the injection's messages,
 *     an error, the analysis' counts (timestampType 2), and one message after the stop. Real
 *     exports never leave globalPid NULL; two VM-level messages here do (the schema allows it).
 *
 * Build: cc -std=c11 -O2 -o nsys-fixture nsys-fixture.c -lsqlite3
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_COLUMNS 48

static const char *const usage_text =
    "usage: nsys-fixture [OPTIONS] OUT.sqlite\n"
    "  -s, --seed N          PRNG seed (default 1)\n"
    "  -n, --events N        approximate total number of event rows (default 10000)\n"
    "      --schema S        modern | 2022 | legacy (default modern)\n"
    "      --gpus N          devices (default 2)\n"
    "      --processes N     processes using CUDA (default 2)\n"
    "      --threads N       CPU threads per process issuing CUDA calls (default 2)\n"
    "      --streams N       streams per (process, device), null stream included (default 3)\n"
    "      --overlap-pct P   percent of kernels starting before the previous kernel on\n"
    "                        their stream ended (default 0)\n"
    "      --negative-ts     first API calls and kernels start before 0\n"
    "      --graphs N        CUDA graph launches per process (default 0): each a\n"
    "                        cudaGraphLaunch whose 3-8 kernels share its correlationId\n"
    "      --graph-trace     also write CUPTI_ACTIVITY_KIND_GRAPH_TRACE rows (modern\n"
    "                        schema, needs --graphs). Real exports have either these\n"
    "                        (--cuda-graph-trace=graph) or per-node kernel rows (=node);\n"
    "                        the fixture then has both\n"
    "      --nvtx-stream-names  name devices, contexts and some streams through NVTX\n"
    "                        (TARGET_INFO_NVTX_CUDA_*; modern and 2022 schemas)\n"
    "      --nvtx            NVTX_EVENTS (modern and 2022 schemas): nested push/pop\n"
    "                        ranges around the CUDA calls, start/end ranges, marks, an\n"
    "                        \"NCCL\" domain, registered strings, categories; ~12% of -n\n"
    "      --osrt            OS runtime library calls (OSRT_API, OSRT_CALLCHAINS)\n"
    "      --sched N         thread scheduling on N CPUs, 1-256 (SCHED_EVENTS; modern\n"
    "                        and 2022 schemas)\n"
    "      --samples HZ      CPU samples at about HZ per second of running time\n"
    "                        (COMPOSITE_EVENTS, SAMPLING_CALLCHAINS; modern and 2022)\n"
    "                        The CPU side adds host work between CUDA calls; see the\n"
    "                        source's header for the model and the row mix\n"
    "      --gpu-metrics HZ  GPU metrics sampled HZ times a second, 10-200000 (GPU_METRICS\n"
    "                        + TARGET_INFO_GPU_METRICS; 2022: GENERIC_EVENTS)\n"
    "      --memory-usage    CUDA_GPU_MEMORY_USAGE_EVENTS\n"
    "      --libraries       CUBLAS_EVENTS, CUDNN_EVENTS\n"
    "      --mpi             MPI_* tables (modern schema)\n"
    "      --openacc         CUPTI_ACTIVITY_KIND_OPENACC_DATA/_LAUNCH/_OTHER\n"
    "      --openmp          OPENMP_EVENT_KIND_* tables\n"
    "      --um-faults       CUDA_UM_CPU/GPU_PAGE_FAULT_EVENTS\n"
    "      --diagnostics     DIAGNOSTIC_EVENT (modern schema)\n"
    "      --all-tables      all of the above the schema has (--gpu-metrics 1000)\n"
    "                        These need --schema modern or 2022 and leave the CUDA rows\n"
    "                        as they are; see the source's header\n"
    "  -v, --verbose         print row counts and timings to stderr\n"
    "  -h, --help            show this help\n";

/* ------------------------------------------------------------------------------------
 * Errors and memory
 * ---------------------------------------------------------------------------------- */

_Noreturn static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("nsys-fixture: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(EXIT_FAILURE);
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    if (!p)
        die("out of memory");
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xrealloc(NULL, n), s, n);
}

/* ------------------------------------------------------------------------------------
 * Deterministic PRNG (splitmix64): no rand(), no time(), same stream on every platform
 * ---------------------------------------------------------------------------------- */

struct rng {
    uint64_t state;
};

static uint64_t rng_next(struct rng *r)
{
    uint64_t z = (r->state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [0, n); the modulo bias is irrelevant for the small n used here. */
static uint64_t rng_below(struct rng *r, uint64_t n)
{
    return n ? rng_next(r) % n : 0;
}

static int64_t rng_range(struct rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)rng_below(r, (uint64_t)(hi - lo) + 1);
}

static bool rng_percent(struct rng *r, int64_t pct)
{
    return (int64_t)rng_below(r, 100) < pct;
}

/* Value in [lo, hi] (lo > 0) with a short-biased log shape: an octave is chosen as the
 * smaller of two uniform draws, then a value uniformly inside it. Durations and sizes
 * get many small values and a long tail without needing libm. */
static int64_t rng_log_range(struct rng *r, int64_t lo, int64_t hi)
{
    int octaves = 0;
    while (octaves < 62 && (lo << (octaves + 1)) <= hi)
        octaves++;
    uint64_t a = rng_below(r, (uint64_t)octaves + 1);
    uint64_t b = rng_below(r, (uint64_t)octaves + 1);
    int k = (int)(a < b ? a : b);
    int64_t first = lo << k;
    int64_t last = k < 62 && (lo << (k + 1)) - 1 < hi ? (lo << (k + 1)) - 1 : hi;
    return rng_range(r, first, last);
}

/* Index drawn with probability weights[i] / sum(weights). */
static size_t rng_weighted(struct rng *r, const int *weights, size_t n)
{
    int64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += weights[i];
    int64_t x = (int64_t)rng_below(r, (uint64_t)total);
    for (size_t i = 0; i < n; i++) {
        if (x < weights[i])
            return i;
        x -= weights[i];
    }
    return n - 1;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* ------------------------------------------------------------------------------------
 * Binary min-heap of fixed-size elements
 * ---------------------------------------------------------------------------------- */

struct heap {
    unsigned char *data;
    size_t count, capacity, elem_size;
    bool (*less)(const void *, const void *);
    unsigned char *hole; /* scratch element: sifting moves a hole instead of swapping */
};

static void heap_init(struct heap *h, size_t elem_size, bool (*less)(const void *, const void *))
{
    *h = (struct heap){.elem_size = elem_size, .less = less};
    h->hole = xrealloc(NULL, elem_size);
}

static void heap_free(struct heap *h)
{
    free(h->data);
    free(h->hole);
}

static void *heap_at(const struct heap *h, size_t i)
{
    return h->data + i * h->elem_size;
}

static void heap_push(struct heap *h, const void *elem)
{
    if (h->count == h->capacity) {
        h->capacity = h->capacity ? 2 * h->capacity : 256;
        h->data = xrealloc(h->data, h->capacity * h->elem_size);
    }
    size_t i = h->count++;
    while (i > 0 && h->less(elem, heap_at(h, (i - 1) / 2))) {
        memcpy(heap_at(h, i), heap_at(h, (i - 1) / 2), h->elem_size);
        i = (i - 1) / 2;
    }
    memcpy(heap_at(h, i), elem, h->elem_size);
}

static void heap_pop(struct heap *h, void *out)
{
    memcpy(out, heap_at(h, 0), h->elem_size);
    if (--h->count == 0)
        return;
    memcpy(h->hole, heap_at(h, h->count), h->elem_size);
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= h->count)
            break;
        if (child + 1 < h->count && h->less(heap_at(h, child + 1), heap_at(h, child)))
            child++;
        if (!h->less(heap_at(h, child), h->hole))
            break;
        memcpy(heap_at(h, i), heap_at(h, child), h->elem_size);
        i = child;
    }
    memcpy(heap_at(h, i), h->hole, h->elem_size);
}

/* ------------------------------------------------------------------------------------
 * Schema shapes: every column is tagged with the schemas that have it
 * ---------------------------------------------------------------------------------- */

enum schema { SCHEMA_MODERN, SCHEMA_2022, SCHEMA_LEGACY };

#define S_MODERN (1u << SCHEMA_MODERN)
#define S_2022 (1u << SCHEMA_2022)
#define S_LEGACY (1u << SCHEMA_LEGACY)
#define S_NEW (S_MODERN | S_2022) /* exports with metadata and ENUM tables (>= 2022) */
#define S_ALL (S_MODERN | S_2022 | S_LEGACY)

enum value_type { V_NULL, V_INT, V_TEXT };

struct value {
    enum value_type type;
    int64_t i;
    const char *s;
};

static struct value vint(int64_t i)
{
    return (struct value){.type = V_INT, .i = i};
}

static struct value vtext(const char *s)
{
    return (struct value){.type = V_TEXT, .s = s};
}

enum { NN = 1, PK = 2 }; /* NOT NULL, PRIMARY KEY */

struct column {
    const char *name;
    const char *type;
    unsigned flags;
    unsigned schemas;
    struct value def; /* value written unless the row sets the column */
    const char *references; /* column constraint after NOT NULL / PRIMARY KEY, NULL: none */
};

/* Column with a NULL default, with an integer default, with a text default; one with a
 * REFERENCES constraint (3.0.0 wrote a few as real SQL, later versions as comments). */
#define COL(name, type, flags, schemas) {name, type, flags, schemas, {V_NULL, 0, NULL}, NULL}
#define COLI(name, type, flags, schemas, i) {name, type, flags, schemas, {V_INT, i, NULL}, NULL}
#define COLT(name, type, flags, schemas, s) {name, type, flags, schemas, {V_TEXT, 0, s}, NULL}
#define COLR(name, type, flags, schemas, refs) {name, type, flags, schemas, {V_NULL, 0, NULL}, refs}
#define INT "INTEGER"
#define TXT "TEXT"

/* CUPTI writes UINT32_MAX where a stream or event does not apply. */
#define CUPTI_NONE INT64_C(4294967295)
#define VM_ID (INT64_C(1) << 48) /* globalVid of the (only) machine: hw/VM id 1 */

struct table_def {
    const char *name;
    unsigned schemas;
    const struct column *cols;
    size_t ncols;
    const char *primary_key; /* table constraint, NULL: none */
};

enum { SID_ID, SID_VALUE, SID__N };
static const struct column string_ids_cols[] = {
    [SID_ID] = COL("id", INT, NN | PK, S_ALL),
    [SID_VALUE] = COL("value", TXT, NN, S_ALL),
};

enum { KV_NAME, KV_VALUE, KV__N };
static const struct column key_value_cols[] = {
    [KV_NAME] = COL("name", TXT, NN, S_NEW),
    [KV_VALUE] = COL("value", TXT, 0, S_NEW),
};

enum { AD_GLOBAL_VID, AD_DURATION, AD_START, AD_STOP, AD__N };
static const struct column analysis_cols[] = {
    [AD_GLOBAL_VID] = COLI("globalVid", INT, NN, S_NEW, VM_ID),
    [AD_DURATION] = COL("duration", INT, NN, S_NEW),
    [AD_START] = COL("startTime", INT, NN, S_NEW),
    [AD_STOP] = COL("stopTime", INT, NN, S_NEW),
};

enum { SST_UTC_NS, SST_UTC, SST_LOCAL, SST_CLOCK, SST__N };
static const struct column session_start_cols[] = {
    [SST_UTC_NS] = COL("utcEpochNs", INT, 0, S_NEW),
    [SST_UTC] = COL("utcTime", TXT, 0, S_NEW),
    [SST_LOCAL] = COL("localTime", TXT, 0, S_NEW),
    /* Event timestamps are session-relative, so the session started at clock 0. */
    [SST_CLOCK] = COLI("systemClockNs", INT, 0, S_MODERN, 0),
};

enum { PR_GLOBAL_PID, PR_PID, PR_NAME, PR__N };
static const struct column processes_cols[] = {
    [PR_GLOBAL_PID] = COL("globalPid", INT, 0, S_NEW),
    [PR_PID] = COL("pid", INT, 0, S_NEW),
    [PR_NAME] = COL("name", TXT, 0, S_NEW),
};

enum { TN_NAME_ID, TN_PRIORITY, TN_GLOBAL_TID, TN__N };
static const struct column thread_names_cols[] = {
    [TN_NAME_ID] = COL("nameId", INT, NN, S_ALL),
    [TN_PRIORITY] = COL("priority", INT, 0, S_ALL),
    [TN_GLOBAL_TID] = COL("globalTid", INT, 0, S_ALL),
};

enum {
    GPU_VM_ID, GPU_ID, GPU_DEVICE_ID, GPU_NAME, GPU_BUS, GPU_DISCRETE, GPU_L2, GPU_TOTAL_MEM,
    GPU_MEM_BW, GPU_CLOCK, GPU_SMS, GPU_PW_ID, GPU_UUID, GPU_LUID, GPU_CHIP, GPU_CU_DEVICE,
    GPU_CTXSW_PATH, GPU_CTRL_PATH, GPU_REVISION, GPU_NODE_MASK, GPU_CONST_MEM, GPU_MAX_IPC,
    GPU_REGS_BLOCK, GPU_SHMEM_BLOCK, GPU_SHMEM_OPTIN, GPU_SHMEM_SM, GPU_REGS_SM, GPU_WARP,
    GPU_ASYNC, GPU_WARPS_SM, GPU_BLOCKS_SM, GPU_THREADS_BLOCK, GPU_BLOCK_X, GPU_BLOCK_Y,
    GPU_BLOCK_Z, GPU_GRID_X, GPU_GRID_Y, GPU_GRID_Z, GPU_CC_MAJOR, GPU_CC_MINOR, GPU_SM_MAJOR,
    GPU_SM_MINOR, GPU__N
};
static const struct column gpu_cols[] = {
    [GPU_VM_ID] = COLI("vmId", INT, NN, S_ALL, VM_ID),
    [GPU_ID] = COL("id", INT, NN, S_NEW),
    [GPU_DEVICE_ID] = COL("deviceId", INT, NN, S_LEGACY), /* pre-2021 key of the same row */
    [GPU_NAME] = COL("name", TXT, 0, S_ALL),
    [GPU_BUS] = COL("busLocation", TXT, 0, S_ALL),
    [GPU_DISCRETE] = COLI("isDiscrete", INT, 0, S_ALL, 1),
    [GPU_L2] = COL("l2CacheSize", INT, 0, S_NEW),
    [GPU_TOTAL_MEM] = COL("totalMemory", INT, 0, S_NEW),
    [GPU_MEM_BW] = COL("memoryBandwidth", INT, 0, S_NEW),
    [GPU_CLOCK] = COL("clockRate", INT, 0, S_NEW),
    [GPU_SMS] = COL("smCount", INT, 0, S_NEW),
    [GPU_PW_ID] = COLI("pwGpuId", INT, 0, S_NEW, 0),
    [GPU_UUID] = COL("uuid", TXT, 0, S_NEW),
    [GPU_LUID] = COLI("luid", INT, 0, S_NEW, 0),
    [GPU_CHIP] = COL("chipName", TXT, 0, S_NEW),
    [GPU_CU_DEVICE] = COL("cuDevice", INT, 0, S_NEW),
    [GPU_CTXSW_PATH] = COLT("ctxswDevPath", TXT, 0, S_NEW, ""),
    [GPU_CTRL_PATH] = COLT("ctrlDevPath", TXT, 0, S_NEW, ""),
    [GPU_REVISION] = COLI("revision", INT, 0, S_NEW, 161),
    [GPU_NODE_MASK] = COLI("nodeMask", INT, 0, S_NEW, 0),
    [GPU_CONST_MEM] = COLI("constantMemory", INT, 0, S_NEW, 65536),
    [GPU_MAX_IPC] = COL("maxIPC", INT, 0, S_NEW),
    [GPU_REGS_BLOCK] = COLI("maxRegistersPerBlock", INT, 0, S_NEW, 65536),
    [GPU_SHMEM_BLOCK] = COLI("maxShmemPerBlock", INT, 0, S_NEW, 49152),
    [GPU_SHMEM_OPTIN] = COL("maxShmemPerBlockOptin", INT, 0, S_NEW),
    [GPU_SHMEM_SM] = COL("maxShmemPerSm", INT, 0, S_NEW),
    [GPU_REGS_SM] = COLI("maxRegistersPerSm", INT, 0, S_NEW, 65536),
    [GPU_WARP] = COLI("threadsPerWarp", INT, 0, S_NEW, 32),
    [GPU_ASYNC] = COL("asyncEngines", INT, 0, S_NEW),
    [GPU_WARPS_SM] = COL("maxWarpsPerSm", INT, 0, S_NEW),
    [GPU_BLOCKS_SM] = COL("maxBlocksPerSm", INT, 0, S_NEW),
    [GPU_THREADS_BLOCK] = COLI("maxThreadsPerBlock", INT, 0, S_NEW, 1024),
    [GPU_BLOCK_X] = COLI("maxBlockDimX", INT, 0, S_NEW, 1024),
    [GPU_BLOCK_Y] = COLI("maxBlockDimY", INT, 0, S_NEW, 1024),
    [GPU_BLOCK_Z] = COLI("maxBlockDimZ", INT, 0, S_NEW, 64),
    [GPU_GRID_X] = COLI("maxGridDimX", INT, 0, S_NEW, 2147483647),
    [GPU_GRID_Y] = COLI("maxGridDimY", INT, 0, S_NEW, 65535),
    [GPU_GRID_Z] = COLI("maxGridDimZ", INT, 0, S_NEW, 65535),
    [GPU_CC_MAJOR] = COL("computeMajor", INT, 0, S_NEW),
    [GPU_CC_MINOR] = COL("computeMinor", INT, 0, S_NEW),
    [GPU_SM_MAJOR] = COL("smMajor", INT, 0, S_NEW),
    [GPU_SM_MINOR] = COL("smMinor", INT, 0, S_NEW),
};

/* Legacy per-process CUDA device properties (units as 2020.3 wrote them). */
enum {
    CG_VM_ID, CG_NAME, CG_PCI_BUS, CG_MEM_BW, CG_MEM_SIZE, CG_CONST_MEM, CG_L2, CG_WARP,
    CG_CLOCK, CG_COPY_ENGINES, CG_SMS, CG_MAX_IPC, CG_WARPS_SM, CG_BLOCKS_SM, CG_REGS_BLOCK,
    CG_SHMEM_BLOCK, CG_THREADS_BLOCK, CG_BLOCK_X, CG_BLOCK_Y, CG_BLOCK_Z, CG_GRID_X, CG_GRID_Y,
    CG_GRID_Z, CG_CC_MAJOR, CG_CC_MINOR, CG_DEVICE_ID, CG_PID, CG_SHMEM_SM, CG_REGS_SM, CG__N
};
static const struct column cuda_gpu_cols[] = {
    [CG_VM_ID] = COLI("vmId", INT, NN, S_LEGACY, VM_ID),
    [CG_NAME] = COL("name", TXT, NN, S_LEGACY),
    [CG_PCI_BUS] = COL("pciBusId", TXT, 0, S_LEGACY),
    [CG_MEM_BW] = COLI("globalMemoryBandwidth", INT, NN, S_LEGACY, 4026531840),
    [CG_MEM_SIZE] = COL("globalMemorySize", INT, NN, S_LEGACY), /* MiB */
    [CG_CONST_MEM] = COLI("constantMemorySize", INT, NN, S_LEGACY, 65536),
    [CG_L2] = COL("l2CacheSize", INT, NN, S_LEGACY),
    [CG_WARP] = COLI("numThreadsPerWarp", INT, NN, S_LEGACY, 32),
    [CG_CLOCK] = COL("coreClockRate", INT, NN, S_LEGACY), /* kHz */
    [CG_COPY_ENGINES] = COL("numMemcpyEngines", INT, NN, S_LEGACY),
    [CG_SMS] = COL("numMultiprocessors", INT, NN, S_LEGACY),
    [CG_MAX_IPC] = COL("maxIPC", INT, NN, S_LEGACY),
    [CG_WARPS_SM] = COL("maxWarpsPerMultiprocessor", INT, NN, S_LEGACY),
    [CG_BLOCKS_SM] = COL("maxBlocksPerMultiprocessor", INT, NN, S_LEGACY),
    [CG_REGS_BLOCK] = COLI("maxRegistersPerBlock", INT, NN, S_LEGACY, 65536),
    [CG_SHMEM_BLOCK] = COLI("maxSharedMemoryPerBlock", INT, NN, S_LEGACY, 49152),
    [CG_THREADS_BLOCK] = COLI("maxThreadsPerBlock", INT, NN, S_LEGACY, 1024),
    [CG_BLOCK_X] = COLI("maxBlockDimX", INT, NN, S_LEGACY, 1024),
    [CG_BLOCK_Y] = COLI("maxBlockDimY", INT, NN, S_LEGACY, 1024),
    [CG_BLOCK_Z] = COLI("maxBlockDimZ", INT, NN, S_LEGACY, 64),
    [CG_GRID_X] = COLI("maxGridDimX", INT, NN, S_LEGACY, 2147483647),
    [CG_GRID_Y] = COLI("maxGridDimY", INT, NN, S_LEGACY, 65535),
    [CG_GRID_Z] = COLI("maxGridDimZ", INT, NN, S_LEGACY, 65535),
    [CG_CC_MAJOR] = COL("computeCapabilityMajor", INT, NN, S_LEGACY),
    [CG_CC_MINOR] = COL("computeCapabilityMinor", INT, NN, S_LEGACY),
    [CG_DEVICE_ID] = COL("deviceId", INT, NN, S_LEGACY),
    [CG_PID] = COL("pid", INT, 0, S_LEGACY),
    [CG_SHMEM_SM] = COL("maxSharedMemoryPerMultiprocessor", INT, 0, S_LEGACY),
    [CG_REGS_SM] = COLI("maxRegistersPerMultiprocessor", INT, 0, S_LEGACY, 65536),
};

enum { CS_STREAM_ID, CS_HW_ID, CS_VM_ID, CS_PROCESS_ID, CS_CONTEXT_ID, CS_PRIORITY, CS_FLAG, CS__N };
static const struct column cuda_stream_cols[] = {
    [CS_STREAM_ID] = COL("streamId", INT, NN, S_ALL),
    [CS_HW_ID] = COLI("hwId", INT, NN, S_ALL, 0),
    [CS_VM_ID] = COLI("vmId", INT, NN, S_ALL, 1),
    [CS_PROCESS_ID] = COL("processId", INT, NN, S_ALL),
    [CS_CONTEXT_ID] = COL("contextId", INT, NN, S_ALL),
    [CS_PRIORITY] = COL("priority", INT, NN, S_ALL),
    [CS_FLAG] = COL("flag", INT, NN, S_ALL),
};

/* One row per CUDA context: TARGET_INFO_CUDA_NULL_STREAM (<= 2022) and its successor
 * TARGET_INFO_CUDA_CONTEXT_INFO share their leading columns. */
enum {
    CX_NULL_STREAM, CX_HW_ID, CX_VM_ID, CX_PROCESS_ID, CX_DEVICE_ID, CX_CONTEXT_ID, CX_PARENT,
    CX_GREEN, CX__N
};
static const struct column null_stream_cols[] = {
    [CX_NULL_STREAM] = COL("streamId", INT, NN, S_2022 | S_LEGACY),
    [CX_HW_ID] = COLI("hwId", INT, NN, S_2022 | S_LEGACY, 0),
    [CX_VM_ID] = COLI("vmId", INT, NN, S_2022 | S_LEGACY, 1),
    [CX_PROCESS_ID] = COL("processId", INT, NN, S_2022 | S_LEGACY),
    [CX_DEVICE_ID] = COL("deviceId", INT, NN, S_2022 | S_LEGACY),
    [CX_CONTEXT_ID] = COL("contextId", INT, NN, S_2022 | S_LEGACY),
};
static const struct column context_info_cols[] = {
    [CX_NULL_STREAM] = COL("nullStreamId", INT, NN, S_MODERN),
    [CX_HW_ID] = COLI("hwId", INT, NN, S_MODERN, 0),
    [CX_VM_ID] = COLI("vmId", INT, NN, S_MODERN, 1),
    [CX_PROCESS_ID] = COL("processId", INT, NN, S_MODERN),
    [CX_DEVICE_ID] = COL("deviceId", INT, NN, S_MODERN),
    [CX_CONTEXT_ID] = COL("contextId", INT, NN, S_MODERN),
    [CX_PARENT] = COLI("parentContextId", INT, 0, S_MODERN, 0),
    [CX_GREEN] = COLI("isGreenContext", INT, 0, S_MODERN, 0),
};

enum { RT_START, RT_END, RT_CLASS, RT_GLOBAL_TID, RT_CORR, RT_NAME_ID, RT_RETURN, RT_CALLCHAIN, RT__N };
static const struct column runtime_cols[] = {
    [RT_START] = COL("start", INT, NN, S_ALL),
    [RT_END] = COL("end", INT, NN, S_ALL),
    [RT_CLASS] = COL("eventClass", INT, NN, S_ALL),
    [RT_GLOBAL_TID] = COL("globalTid", INT, 0, S_ALL),
    [RT_CORR] = COL("correlationId", INT, 0, S_ALL),
    [RT_NAME_ID] = COL("nameId", INT, NN, S_ALL),
    [RT_RETURN] = COL("returnValue", INT, NN, S_ALL),
    [RT_CALLCHAIN] = COL("callchainId", INT, 0, S_NEW),
};

/* The four GPU activity tables start with the same eight columns. */
enum { GPU_START, GPU_END, GPU_DEVICE, GPU_CONTEXT, GPU_GREEN_CONTEXT, GPU_STREAM, GPU_CORR,
       GPU_GLOBAL_PID, GPU__COMMON };
#define GPU_COMMON_COLUMNS(green_context)                                     \
    [GPU_START] = COL("start", INT, NN, S_ALL),                               \
    [GPU_END] = COL("end", INT, NN, S_ALL),                                   \
    [GPU_DEVICE] = COL("deviceId", INT, NN, S_ALL),                           \
    [GPU_CONTEXT] = COL("contextId", INT, NN, S_ALL),                         \
    [GPU_GREEN_CONTEXT] = green_context,                                      \
    [GPU_STREAM] = COL("streamId", INT, NN, S_ALL),                           \
    [GPU_CORR] = COL("correlationId", INT, 0, S_ALL),                         \
    [GPU_GLOBAL_PID] = COL("globalPid", INT, 0, S_ALL)

enum {
    K_DEMANGLED = GPU__COMMON, K_SHORT, K_MANGLED, K_LAUNCH_TYPE, K_CACHE_CONFIG, K_REGS,
    K_GRID_X, K_GRID_Y, K_GRID_Z, K_BLOCK_X, K_BLOCK_Y, K_BLOCK_Z, K_STATIC_SMEM, K_DYNAMIC_SMEM,
    K_LOCAL_PER_THREAD, K_LOCAL_TOTAL, K_GRID_ID, K_SMEM_EXECUTED, K_GRAPH_NODE, K_SMEM_LIMIT,
    K_QMD_BULK_RELEASE, K_QMD_PREEXIT, K_QMD_LAST_CTA, K_GRAPH_ID, K_CLUSTER_X, K_CLUSTER_Y,
    K_CLUSTER_Z, K_CLUSTER_POLICY, K_MAX_CLUSTER_SIZE, K_MAX_ACTIVE_CLUSTERS, K_SMEM_PERCENT,
    K_TENSOR_SIZES, K__N
};
static const struct column kernel_cols[] = {
    GPU_COMMON_COLUMNS(COLI("greenContextId", INT, 0, S_MODERN, 0)),
    [K_DEMANGLED] = COL("demangledName", INT, NN, S_ALL),
    [K_SHORT] = COL("shortName", INT, NN, S_ALL),
    [K_MANGLED] = COL("mangledName", INT, 0, S_NEW),
    [K_LAUNCH_TYPE] = COLI("launchType", INT, 0, S_ALL, 1),
    [K_CACHE_CONFIG] = COLI("cacheConfig", INT, 0, S_ALL, 1),
    [K_REGS] = COL("registersPerThread", INT, NN, S_ALL),
    [K_GRID_X] = COL("gridX", INT, NN, S_ALL),
    [K_GRID_Y] = COL("gridY", INT, NN, S_ALL),
    [K_GRID_Z] = COL("gridZ", INT, NN, S_ALL),
    [K_BLOCK_X] = COL("blockX", INT, NN, S_ALL),
    [K_BLOCK_Y] = COL("blockY", INT, NN, S_ALL),
    [K_BLOCK_Z] = COL("blockZ", INT, NN, S_ALL),
    [K_STATIC_SMEM] = COL("staticSharedMemory", INT, NN, S_ALL),
    [K_DYNAMIC_SMEM] = COL("dynamicSharedMemory", INT, NN, S_ALL),
    [K_LOCAL_PER_THREAD] = COLI("localMemoryPerThread", INT, NN, S_ALL, 0),
    [K_LOCAL_TOTAL] = COL("localMemoryTotal", INT, NN, S_ALL),
    [K_GRID_ID] = COL("gridId", INT, NN, S_ALL),
    [K_SMEM_EXECUTED] = COL("sharedMemoryExecuted", INT, 0, S_ALL),
    [K_GRAPH_NODE] = COL("graphNodeId", INT, 0, S_ALL),
    [K_SMEM_LIMIT] = COLI("sharedMemoryLimitConfig", INT, 0, S_NEW, 0),
    [K_QMD_BULK_RELEASE] = COL("qmdBulkReleaseDone", INT, 0, S_MODERN),
    [K_QMD_PREEXIT] = COL("qmdPreexitDone", INT, 0, S_MODERN),
    [K_QMD_LAST_CTA] = COL("qmdLastCtaDone", INT, 0, S_MODERN),
    [K_GRAPH_ID] = COL("graphId", INT, 0, S_MODERN),
    [K_CLUSTER_X] = COLI("clusterX", INT, 0, S_MODERN, 0),
    [K_CLUSTER_Y] = COLI("clusterY", INT, 0, S_MODERN, 0),
    [K_CLUSTER_Z] = COLI("clusterZ", INT, 0, S_MODERN, 0),
    [K_CLUSTER_POLICY] = COLI("clusterSchedulingPolicy", INT, 0, S_MODERN, 1),
    [K_MAX_CLUSTER_SIZE] = COLI("maxPotentialClusterSize", INT, 0, S_MODERN, 0),
    [K_MAX_ACTIVE_CLUSTERS] = COLI("maxActiveClusters", INT, 0, S_MODERN, 0),
    [K_SMEM_PERCENT] = COL("sharedMemoryRequestedPercentage", INT, 0, S_MODERN),
    [K_TENSOR_SIZES] = COLT("tensorSizeMinusOneElements", TXT, NN, S_MODERN, "[]"),
};

enum {
    MC_BYTES = GPU__COMMON, MC_COPY_KIND, MC_DEPRECATED_SRC, MC_SRC_KIND, MC_DST_KIND,
    MC_SRC_DEVICE, MC_SRC_CONTEXT, MC_DST_DEVICE, MC_DST_CONTEXT, MC_MIGRATION, MC_GRAPH_NODE,
    MC_VIRTUAL_ADDRESS, MC_COPY_COUNT, MC__N
};
static const struct column memcpy_cols[] = {
    GPU_COMMON_COLUMNS(COLI("greenContextId", INT, 0, S_MODERN, 0)),
    [MC_BYTES] = COL("bytes", INT, NN, S_ALL),
    [MC_COPY_KIND] = COL("copyKind", INT, NN, S_ALL),
    [MC_DEPRECATED_SRC] = COL("deprecatedSrcId", INT, 0, S_ALL),
    [MC_SRC_KIND] = COL("srcKind", INT, 0, S_ALL),
    [MC_DST_KIND] = COL("dstKind", INT, 0, S_ALL),
    [MC_SRC_DEVICE] = COL("srcDeviceId", INT, 0, S_ALL), /* peer-to-peer copies only */
    [MC_SRC_CONTEXT] = COL("srcContextId", INT, 0, S_ALL),
    [MC_DST_DEVICE] = COL("dstDeviceId", INT, 0, S_ALL),
    [MC_DST_CONTEXT] = COL("dstContextId", INT, 0, S_ALL),
    [MC_MIGRATION] = COL("migrationCause", INT, 0, S_NEW),
    [MC_GRAPH_NODE] = COL("graphNodeId", INT, 0, S_ALL),
    [MC_VIRTUAL_ADDRESS] = COL("virtualAddress", INT, 0, S_NEW),
    [MC_COPY_COUNT] = COLI("copyCount", INT, 0, S_MODERN, 1),
};

enum { MS_VALUE = GPU__COMMON, MS_BYTES, MS_GRAPH_NODE, MS_MEM_KIND, MS__N };
static const struct column memset_cols[] = {
    GPU_COMMON_COLUMNS(COLI("greenContextId", INT, 0, S_MODERN, 0)),
    [MS_VALUE] = COL("value", INT, NN, S_ALL),
    [MS_BYTES] = COL("bytes", INT, NN, S_ALL),
    [MS_GRAPH_NODE] = COL("graphNodeId", INT, 0, S_ALL),
    [MS_MEM_KIND] = COL("memKind", INT, 0, S_ALL),
};

enum { SY_DEPRECATED_TYPE = GPU__COMMON, SY_TYPE, SY_EVENT_ID, SY_EVENT_SYNC_ID, SY__N };
static const struct column sync_cols[] = {
    GPU_COMMON_COLUMNS(COL("greenContextId", INT, 0, S_MODERN)), /* NULL in real exports */
    [SY_DEPRECATED_TYPE] = COL("deprecatedSyncType", INT, 0, S_MODERN),
    [SY_TYPE] = COL("syncType", INT, NN, S_ALL),
    [SY_EVENT_ID] = COL("eventId", INT, NN, S_ALL),
    [SY_EVENT_SYNC_ID] = COL("eventSyncId", INT, 0, S_MODERN),
};

/* Whole-graph GPU range of one graph launch (--cuda-graph-trace=graph): the common GPU
 * columns (the stream the graph was launched on, the launch call's correlationId and the
 * process's globalPid), then the launched graph and executable graph. */
enum { GT_GRAPH_ID = GPU__COMMON, GT_GRAPH_EXEC_ID, GT__N };
static const struct column graph_trace_cols[] = {
    GPU_COMMON_COLUMNS(COLI("greenContextId", INT, 0, S_MODERN, 0)),
    [GT_GRAPH_ID] = COL("graphId", INT, NN, S_MODERN),
    [GT_GRAPH_EXEC_ID] = COL("graphExecId", INT, NN, S_MODERN),
};

/* Host-side graph and graph-node creation: instants inside the API call that caused
 * them, on its thread (globalTid), nameId naming that call. */
enum { GE_START, GE_END, GE_CLASS, GE_GLOBAL_TID, GE_NAME_ID, GE_GRAPH_ID, GE_ORIGINAL, GE_EXEC_ID, GE__N };
static const struct column graph_event_cols[] = {
    [GE_START] = COL("start", INT, NN, S_MODERN),
    [GE_END] = COL("end", INT, NN, S_MODERN),
    [GE_CLASS] = COL("eventClass", INT, NN, S_MODERN),
    [GE_GLOBAL_TID] = COL("globalTid", INT, 0, S_MODERN),
    [GE_NAME_ID] = COL("nameId", INT, NN, S_MODERN),
    [GE_GRAPH_ID] = COL("graphId", INT, 0, S_MODERN),
    [GE_ORIGINAL] = COL("originalGraphId", INT, 0, S_MODERN), /* set for cloned graphs only */
    [GE_EXEC_ID] = COL("graphExecId", INT, 0, S_MODERN),      /* set for instantiations only */
};

enum { GN_START, GN_END, GN_CLASS, GN_GLOBAL_TID, GN_NAME_ID, GN_NODE_ID, GN_ORIGINAL, GN__N };
static const struct column graph_node_event_cols[] = {
    [GN_START] = COL("start", INT, NN, S_MODERN),
    [GN_END] = COL("end", INT, NN, S_MODERN),
    [GN_CLASS] = COL("eventClass", INT, NN, S_MODERN),
    [GN_GLOBAL_TID] = COL("globalTid", INT, 0, S_MODERN),
    [GN_NAME_ID] = COL("nameId", INT, NN, S_MODERN),
    [GN_NODE_ID] = COL("graphNodeId", INT, NN, S_MODERN),
    [GN_ORIGINAL] = COL("originalGraphNodeId", INT, 0, S_MODERN), /* set for node copies only */
};
_Static_assert((int)GE_NAME_ID == (int)GN_NAME_ID, "graph tables share their first five columns");

/* Names given through NVTX resource naming. Keys as in TARGET_INFO_CUDA_STREAM and
 * TARGET_INFO_CUDA_CONTEXT_INFO: hwId/vmId of the machine, processId the plain pid (not
 * a globalPid), contextId/streamId the CUPTI ids of the activity tables. Device names
 * are not per process. The three tables share one enum: the entries a table lacks stay
 * zeroed, which no schema has. */
enum { NV_NAME, NV_HW_ID, NV_VM_ID, NV_PROCESS_ID, NV_DEVICE_ID, NV_CONTEXT_ID, NV_STREAM_ID, NV__N };
static const struct column nvtx_device_cols[] = {
    [NV_NAME] = COL("name", TXT, NN, S_NEW),
    [NV_HW_ID] = COLI("hwId", INT, NN, S_NEW, 0),
    [NV_VM_ID] = COLI("vmId", INT, NN, S_NEW, 1),
    [NV_DEVICE_ID] = COL("deviceId", INT, NN, S_NEW),
};
static const struct column nvtx_context_cols[] = {
    [NV_NAME] = COL("name", TXT, NN, S_NEW),
    [NV_HW_ID] = COLI("hwId", INT, NN, S_NEW, 0),
    [NV_VM_ID] = COLI("vmId", INT, NN, S_NEW, 1),
    [NV_PROCESS_ID] = COL("processId", INT, NN, S_NEW),
    [NV_DEVICE_ID] = COL("deviceId", INT, NN, S_NEW),
    [NV_CONTEXT_ID] = COL("contextId", INT, NN, S_NEW),
};
static const struct column nvtx_stream_cols[] = {
    [NV_NAME] = COL("name", TXT, NN, S_NEW),
    [NV_HW_ID] = COLI("hwId", INT, NN, S_NEW, 0),
    [NV_VM_ID] = COLI("vmId", INT, NN, S_NEW, 1),
    [NV_PROCESS_ID] = COL("processId", INT, NN, S_NEW),
    [NV_DEVICE_ID] = COL("deviceId", INT, NN, S_NEW),
    [NV_CONTEXT_ID] = COL("contextId", INT, NN, S_NEW),
    [NV_STREAM_ID] = COL("streamId", INT, NN, S_NEW),
};

/* OS runtime library calls. 2020.3 still wrote a correlationId column (always 0 there). The
 * "OS runtime libraries profiling started/finished" rows (eventClass 31/32) are instants of
 * the whole process: globalTid with TID 0, nestingLevel NULL. */
enum { OS_START, OS_END, OS_CLASS, OS_GLOBAL_TID, OS_CORR, OS_NAME_ID, OS_RETURN, OS_NESTING, OS_CALLCHAIN,
       OS__N };
static const struct column osrt_cols[] = {
    [OS_START] = COL("start", INT, NN, S_ALL),
    [OS_END] = COL("end", INT, NN, S_ALL),
    [OS_CLASS] = COL("eventClass", INT, NN, S_ALL),
    [OS_GLOBAL_TID] = COL("globalTid", INT, 0, S_ALL),
    [OS_CORR] = COLI("correlationId", INT, 0, S_LEGACY, 0),
    [OS_NAME_ID] = COL("nameId", INT, NN, S_ALL),
    [OS_RETURN] = COLI("returnValue", INT, NN, S_ALL, 0), /* 0 in every real export */
    [OS_NESTING] = COL("nestingLevel", INT, 0, S_ALL),
    [OS_CALLCHAIN] = COLI("callchainId", INT, NN, S_ALL, 0), /* 0: no backtrace */
};

/* OSRT_CALLCHAINS and SAMPLING_CALLCHAINS: one row per frame, stackDepth 0 the innermost
 * (the traced libc function, the sampled instruction), PRIMARY KEY (id, stackDepth).
 * 2020.3 declared unwindMethod as a reference to its UnwindMethodType table. */
enum { CC_ID, CC_SYMBOL, CC_MODULE, CC_KERNEL_MODE, CC_THUMB, CC_UNRESOLVED, CC_SPECIAL, CC_IP, CC_UNWIND,
       CC_UNWIND_LEGACY, CC_DEPTH, CC__N };
static const struct column callchain_cols[] = {
    [CC_ID] = COL("id", INT, NN, S_ALL),
    [CC_SYMBOL] = COL("symbol", INT, NN, S_ALL),
    [CC_MODULE] = COL("module", INT, NN, S_ALL),
    [CC_KERNEL_MODE] = COL("kernelMode", INT, 0, S_ALL),
    [CC_THUMB] = COL("thumbCode", INT, 0, S_ALL),
    [CC_UNRESOLVED] = COL("unresolved", INT, 0, S_ALL),
    [CC_SPECIAL] = COL("specialEntry", INT, 0, S_ALL), /* NULL in every real export */
    [CC_IP] = COL("originalIP", INT, 0, S_ALL),
    [CC_UNWIND] = COL("unwindMethod", INT, 0, S_NEW),
    [CC_UNWIND_LEGACY] = COL("unwindMethod", "INTEGER REFERENCES UnwindMethodType(number)", 0, S_LEGACY),
    [CC_DEPTH] = COL("stackDepth", INT, NN, S_ALL),
};

enum { UM_NUMBER, UM_NAME, UM__N };
static const struct column unwind_type_cols[] = {
    [UM_NUMBER] = COL("number", INT, PK, S_LEGACY),
    [UM_NAME] = COL("name", TXT, NN, S_LEGACY),
};

/* Context switches of the traced processes' threads. threadState/threadBlock came with
 * 2024.6: threadState 0 (Unknown) except 5 (Terminated) on a thread's last sched-out,
 * threadBlock NULL, in every real export. */
enum { SE_START, SE_CPU, SE_IS_IN, SE_GLOBAL_TID, SE_THREAD_STATE, SE_THREAD_BLOCK, SE__N };
static const struct column sched_cols[] = {
    [SE_START] = COL("start", INT, NN, S_NEW),
    [SE_CPU] = COL("cpu", INT, NN, S_NEW),
    [SE_IS_IN] = COL("isSchedIn", INT, NN, S_NEW),
    [SE_GLOBAL_TID] = COL("globalTid", INT, 0, S_NEW),
    [SE_THREAD_STATE] = COLI("threadState", INT, 0, S_MODERN, 0),
    [SE_THREAD_BLOCK] = COL("threadBlock", INT, 0, S_MODERN),
};

/* CPU samples: threadState 1 (Running) and cpuCycles 1 in every real export. */
enum { CE_ID, CE_START, CE_CPU, CE_THREAD_STATE, CE_GLOBAL_TID, CE_CPU_CYCLES, CE__N };
static const struct column composite_cols[] = {
    [CE_ID] = COL("id", INT, NN | PK, S_NEW),
    [CE_START] = COL("start", INT, NN, S_NEW),
    [CE_CPU] = COL("cpu", INT, 0, S_NEW),
    [CE_THREAD_STATE] = COLI("threadState", INT, 0, S_NEW, 1),
    [CE_GLOBAL_TID] = COL("globalTid", INT, 0, S_NEW),
    [CE_CPU_CYCLES] = COLI("cpuCycles", INT, NN, S_NEW, 1),
};

/* NVTX (--nvtx): columns as in the 3.0.0 (2022.4) and 3.25.0 (2026.2) exports; binaryData
 * came later than 3.0.0. end is NULL for instants (marks, category and domain naming rows),
 * rangeId set for start/end ranges only, endGlobalTid only for ranges ended on another
 * thread; textId is a registered string's StringIds id (text then NULL). */
enum {
    NX_START, NX_END, NX_EVENT_TYPE, NX_RANGE_ID, NX_CATEGORY, NX_COLOR, NX_TEXT, NX_GLOBAL_TID, NX_END_GLOBAL_TID,
    NX_TEXT_ID, NX_DOMAIN_ID, NX_UINT64, NX_INT64, NX_DOUBLE, NX_UINT32, NX_INT32, NX_FLOAT, NX_JSON_TEXT_ID,
    NX_JSON_TEXT, NX_BINARY, NX__N
};
static const struct column nvtx_event_cols[] = {
    [NX_START] = COL("start", INT, NN, S_NEW),
    [NX_END] = COL("end", INT, 0, S_NEW),
    [NX_EVENT_TYPE] = COL("eventType", INT, NN, S_NEW),
    [NX_RANGE_ID] = COL("rangeId", INT, 0, S_NEW),
    [NX_CATEGORY] = COL("category", INT, 0, S_NEW),
    [NX_COLOR] = COL("color", INT, 0, S_NEW),
    [NX_TEXT] = COL("text", TXT, 0, S_NEW),
    [NX_GLOBAL_TID] = COL("globalTid", INT, 0, S_NEW),
    [NX_END_GLOBAL_TID] = COL("endGlobalTid", INT, 0, S_NEW),
    [NX_TEXT_ID] = COL("textId", INT, 0, S_NEW),
    [NX_DOMAIN_ID] = COL("domainId", INT, 0, S_NEW),
    [NX_UINT64] = COL("uint64Value", INT, 0, S_NEW),
    [NX_INT64] = COL("int64Value", INT, 0, S_NEW),
    [NX_DOUBLE] = COL("doubleValue", "REAL", 0, S_NEW),
    [NX_UINT32] = COL("uint32Value", INT, 0, S_NEW),
    [NX_INT32] = COL("int32Value", INT, 0, S_NEW),
    [NX_FLOAT] = COL("floatValue", "REAL", 0, S_NEW),
    [NX_JSON_TEXT_ID] = COL("jsonTextId", INT, 0, S_NEW),
    [NX_JSON_TEXT] = COL("jsonText", TXT, 0, S_NEW),
    [NX_BINARY] = COL("binaryData", TXT, 0, S_MODERN),
};

/* ---- Tables of --gpu-metrics, --memory-usage, --libraries, --mpi, --openacc, --openmp,
 * --um-faults and --diagnostics. Column lists: NVIDIA's SQLite Schema Reference (2026.4,
 * schema 3.28.1) for the modern shape, full `nsys export --lazy=false` exports of nsys
 * 2022.4.2.1 (3.0.0) for the 2022 shape; see "Further tables" in the header. */

/* GPU metrics, 2023 on: one row per (sample, GPU, metric). 3.7.2 had no rawTimestamp and a
 * nullable timestamp; 3.28.1 has both, NOT NULL. */
enum { GM_RAW_TS, GM_TS, GM_TYPE_ID, GM_METRIC_ID, GM_VALUE, GM__N };
static const struct column gpu_metrics_cols[] = {
    [GM_RAW_TS] = COL("rawTimestamp", INT, NN, S_MODERN),
    [GM_TS] = COL("timestamp", INT, NN, S_MODERN),
    [GM_TYPE_ID] = COL("typeId", INT, NN, S_MODERN),
    [GM_METRIC_ID] = COL("metricId", INT, NN, S_MODERN),
    [GM_VALUE] = COL("value", INT, NN, S_MODERN),
};

enum { GI_TYPE_ID, GI_SOURCE_ID, GI_TYPE_NAME, GI_METRIC_ID, GI_METRIC_NAME, GI__N };
static const struct column gpu_metric_info_cols[] = {
    [GI_TYPE_ID] = COL("typeId", INT, NN, S_MODERN),
    [GI_SOURCE_ID] = COL("sourceId", INT, NN, S_MODERN),
    [GI_TYPE_NAME] = COL("typeName", TXT, NN, S_MODERN),
    [GI_METRIC_ID] = COL("metricId", INT, NN, S_MODERN),
    [GI_METRIC_NAME] = COL("metricName", TXT, NN, S_MODERN),
};

/* GPU metrics, 2022.4 (3.0.0): generic events with JSON text; the REFERENCES clauses are
 * real SQL there. (3.28.1 has structured versions of these tables; not written.) */
enum { GS_SOURCE_ID, GS_DATA, GS__N };
static const struct column generic_source_cols[] = {
    [GS_SOURCE_ID] = COL("sourceId", INT, NN | PK, S_2022),
    [GS_DATA] = COL("data", TXT, NN, S_2022),
};
enum { GT2_TYPE_ID, GT2_SOURCE_ID, GT2_DATA, GT2__N };
static const struct column generic_type_cols[] = {
    [GT2_TYPE_ID] = COL("typeId", INT, NN | PK, S_2022),
    [GT2_SOURCE_ID] = COLR("sourceId", INT, NN, S_2022, "GENERIC_EVENT_SOURCES"),
    [GT2_DATA] = COL("data", TXT, NN, S_2022),
};
enum { GE2_RAW_TS, GE2_TS, GE2_TYPE_ID, GE2_DATA, GE2__N };
static const struct column generic_event_cols[] = {
    [GE2_RAW_TS] = COL("rawTimestamp", INT, NN, S_2022),
    [GE2_TS] = COL("timestamp", INT, 0, S_2022), /* NULL in every row of the real export */
    [GE2_TYPE_ID] = COLR("typeId", INT, NN, S_2022, "GENERIC_EVENT_TYPES(typeId)"),
    [GE2_DATA] = COL("data", TXT, NN, S_2022),
};

/* --cuda-memory-usage: instants; streamId came after 3.7.2. */
enum {
    MU_START, MU_GLOBAL_PID, MU_DEVICE, MU_CONTEXT, MU_ADDRESS, MU_PC, MU_BYTES, MU_MEM_KIND, MU_OPER,
    MU_NAME, MU_CORR, MU_STREAM, MU_LOCAL_POOL_ADDR, MU_LOCAL_POOL_THRESHOLD, MU_LOCAL_POOL_SIZE,
    MU_LOCAL_POOL_USED, MU_IMPORTED_POOL_ADDR, MU_IMPORTED_POOL_PID, MU__N
};
static const struct column memory_usage_cols[] = {
    [MU_START] = COL("start", INT, NN, S_NEW),
    [MU_GLOBAL_PID] = COL("globalPid", INT, NN, S_NEW),
    [MU_DEVICE] = COL("deviceId", INT, NN, S_NEW),
    [MU_CONTEXT] = COL("contextId", INT, NN, S_NEW),
    [MU_ADDRESS] = COL("address", INT, NN, S_NEW),
    [MU_PC] = COL("pc", INT, NN, S_NEW),
    [MU_BYTES] = COL("bytes", INT, NN, S_NEW),
    [MU_MEM_KIND] = COL("memKind", INT, NN, S_NEW),
    [MU_OPER] = COL("memoryOperationType", INT, NN, S_NEW),
    [MU_NAME] = COL("name", TXT, 0, S_NEW),
    [MU_CORR] = COL("correlationId", INT, 0, S_NEW),
    [MU_STREAM] = COL("streamId", INT, 0, S_MODERN),
    [MU_LOCAL_POOL_ADDR] = COL("localMemoryPoolAddress", INT, 0, S_NEW),
    [MU_LOCAL_POOL_THRESHOLD] = COL("localMemoryPoolReleaseThreshold", INT, 0, S_NEW),
    [MU_LOCAL_POOL_SIZE] = COL("localMemoryPoolSize", INT, 0, S_NEW),
    [MU_LOCAL_POOL_USED] = COL("localMemoryPoolUtilizedSize", INT, 0, S_NEW),
    [MU_IMPORTED_POOL_ADDR] = COL("importedMemoryPoolAddress", INT, 0, S_NEW),
    [MU_IMPORTED_POOL_PID] = COL("importedMemoryPoolProcessId", INT, 0, S_NEW),
};

/* CUBLAS_EVENTS and CUDNN_EVENTS: same columns, unchanged since 3.0.0. */
enum { LB_START, LB_END, LB_CLASS, LB_GLOBAL_TID, LB_NAME_ID, LB__N };
static const struct column library_cols[] = {
    [LB_START] = COL("start", INT, NN, S_NEW),
    [LB_END] = COL("end", INT, NN, S_NEW),
    [LB_CLASS] = COL("eventClass", INT, NN, S_NEW),
    [LB_GLOBAL_TID] = COL("globalTid", INT, 0, S_NEW),
    [LB_NAME_ID] = COL("nameId", INT, NN, S_NEW),
};

/* MPI (2023.4 on). The four event tables start with the same four columns; end is NULL
 * for calls unfinished when the capture stopped; commUid came after 3.7.2. */
enum { MP_START, MP_END, MP_GLOBAL_TID, MP_TEXT_ID, MP__COMMON };
#define MPI_COMMON_COLUMNS                               \
    [MP_START] = COL("start", INT, NN, S_MODERN),        \
    [MP_END] = COL("end", INT, 0, S_MODERN),             \
    [MP_GLOBAL_TID] = COL("globalTid", INT, 0, S_MODERN), \
    [MP_TEXT_ID] = COL("textId", INT, 0, S_MODERN)
enum { P2P_COMM = MP__COMMON, P2P_COMM_UID, P2P_TAG, P2P_REMOTE, P2P_SIZE, P2P_REQUEST, P2P__N };
static const struct column mpi_p2p_cols[] = {
    MPI_COMMON_COLUMNS,
    [P2P_COMM] = COL("commHandle", INT, 0, S_MODERN),
    [P2P_COMM_UID] = COL("commUid", INT, 0, S_MODERN),
    [P2P_TAG] = COL("tag", INT, 0, S_MODERN),
    [P2P_REMOTE] = COL("remoteRank", INT, 0, S_MODERN),
    [P2P_SIZE] = COL("size", INT, 0, S_MODERN),
    [P2P_REQUEST] = COL("requestHandle", INT, 0, S_MODERN),
};
enum { CO_COMM = MP__COMMON, CO_COMM_UID, CO_ROOT, CO_SIZE, CO_RECV_SIZE, CO_REQUEST, CO__N };
static const struct column mpi_collective_cols[] = {
    MPI_COMMON_COLUMNS,
    [CO_COMM] = COL("commHandle", INT, 0, S_MODERN),
    [CO_COMM_UID] = COL("commUid", INT, 0, S_MODERN),
    [CO_ROOT] = COL("rootRank", INT, 0, S_MODERN),
    [CO_SIZE] = COL("size", INT, 0, S_MODERN),
    [CO_RECV_SIZE] = COL("recvSize", INT, 0, S_MODERN),
    [CO_REQUEST] = COL("requestHandle", INT, 0, S_MODERN),
};
enum { SW_REQUEST = MP__COMMON, SW__N };
static const struct column mpi_start_wait_cols[] = {
    MPI_COMMON_COLUMNS,
    [SW_REQUEST] = COL("requestHandle", INT, 0, S_MODERN),
};
static const struct column mpi_other_cols[] = {MPI_COMMON_COLUMNS};

enum { MR_GLOBAL_TID, MR_RANK, MR__N };
static const struct column mpi_rank_cols[] = {
    [MR_GLOBAL_TID] = COL("globalTid", INT, NN, S_MODERN),
    [MR_RANK] = COL("rank", INT, NN, S_MODERN),
};
enum { MC2_RANK, MC2_TIMESTAMP, MC2_COMM, MC2_PARENT, MC2_LOCAL_RANK, MC2_SIZE, MC2_GROUP_ROOT,
       MC2_GROUP_ROOT_UID, MC2_MEMBERS, MC2_COMM_UID, MC2__N };
static const struct column mpi_communicator_cols[] = {
    [MC2_RANK] = COL("rank", INT, 0, S_MODERN),
    [MC2_TIMESTAMP] = COL("timestamp", INT, 0, S_MODERN),
    [MC2_COMM] = COL("commHandle", INT, 0, S_MODERN),
    [MC2_PARENT] = COL("parentHandle", INT, 0, S_MODERN),
    [MC2_LOCAL_RANK] = COL("localRank", INT, 0, S_MODERN),
    [MC2_SIZE] = COL("size", INT, 0, S_MODERN),
    [MC2_GROUP_ROOT] = COL("groupRoot", INT, 0, S_MODERN),
    [MC2_GROUP_ROOT_UID] = COL("groupRootUid", INT, 0, S_MODERN),
    [MC2_MEMBERS] = COL("members", TXT, 0, S_MODERN),
    [MC2_COMM_UID] = COL("commUid", INT, 0, S_MODERN),
};

/* OpenACC (CUPTI): three tables sharing twelve columns (DeviceType is spelled so);
 * correlationId came after 3.7.2. */
enum { AC_START, AC_END, AC_NAME_ID, AC_GLOBAL_TID, AC_EVENT_KIND, AC_DEVICE_TYPE, AC_LINE, AC_CU_DEVICE,
       AC_CU_CONTEXT, AC_CU_STREAM, AC_SRC_FILE, AC_FUNC_NAME, AC_CORR, AC__COMMON };
#define OPENACC_COMMON_COLUMNS                                  \
    [AC_START] = COL("start", INT, NN, S_NEW),                  \
    [AC_END] = COL("end", INT, NN, S_NEW),                      \
    [AC_NAME_ID] = COL("nameId", INT, NN, S_NEW),               \
    [AC_GLOBAL_TID] = COL("globalTid", INT, 0, S_NEW),          \
    [AC_EVENT_KIND] = COL("eventKind", INT, NN, S_NEW),         \
    [AC_DEVICE_TYPE] = COLI("DeviceType", INT, NN, S_NEW, 4),   \
    [AC_LINE] = COL("lineNo", INT, NN, S_NEW),                  \
    [AC_CU_DEVICE] = COL("cuDeviceId", INT, NN, S_NEW),         \
    [AC_CU_CONTEXT] = COL("cuContextId", INT, NN, S_NEW),       \
    [AC_CU_STREAM] = COL("cuStreamId", INT, NN, S_NEW),         \
    [AC_SRC_FILE] = COL("srcFile", INT, 0, S_NEW),              \
    [AC_FUNC_NAME] = COL("funcName", INT, 0, S_NEW),            \
    [AC_CORR] = COL("correlationId", INT, 0, S_MODERN)
enum { AA_BYTES = AC__COMMON, AA_VAR_NAME, AA__N };
static const struct column openacc_data_cols[] = {
    OPENACC_COMMON_COLUMNS,
    [AA_BYTES] = COL("bytes", INT, 0, S_NEW),
    [AA_VAR_NAME] = COL("varName", INT, 0, S_NEW),
};
enum { AL_GANGS = AC__COMMON, AL_WORKERS, AL_VECTOR, AL_KERNEL_NAME, AL__N };
static const struct column openacc_launch_cols[] = {
    OPENACC_COMMON_COLUMNS,
    [AL_GANGS] = COL("numGangs", INT, 0, S_NEW),
    [AL_WORKERS] = COL("numWorkers", INT, 0, S_NEW),
    [AL_VECTOR] = COL("vectorLength", INT, 0, S_NEW),
    [AL_KERNEL_NAME] = COL("kernelName", INT, 0, S_NEW),
};
static const struct column openacc_other_cols[] = {OPENACC_COMMON_COLUMNS};

/* OpenMP (OMPT): tables sharing seven columns, identical in 3.0.0 and 3.28.1. correlationId
 * is "currently unused" (0 in the real export). */
enum { OM_START, OM_END, OM_CLASS, OM_GLOBAL_TID, OM_CORR, OM_NAME_ID, OM_EVENT_KIND, OM__COMMON };
#define OPENMP_COMMON_COLUMNS                                 \
    [OM_START] = COL("start", INT, NN, S_NEW),                \
    [OM_END] = COL("end", INT, NN, S_NEW),                    \
    [OM_CLASS] = COLI("eventClass", INT, NN, S_NEW, 78),      \
    [OM_GLOBAL_TID] = COL("globalTid", INT, 0, S_NEW),        \
    [OM_CORR] = COLI("correlationId", INT, 0, S_NEW, 0),      \
    [OM_NAME_ID] = COL("nameId", INT, NN, S_NEW),             \
    [OM_EVENT_KIND] = COL("eventKind", INT, 0, S_NEW)
enum { OT_THREAD_ID = OM__COMMON, OT_THREAD_TYPE, OT__N };
static const struct column omp_thread_cols[] = {
    OPENMP_COMMON_COLUMNS,
    [OT_THREAD_ID] = COL("threadId", INT, 0, S_NEW),
    [OT_THREAD_TYPE] = COL("threadType", INT, 0, S_NEW),
};
enum { OPR_PARALLEL_ID = OM__COMMON, OPR_PARENT_TASK, OPR__N };
static const struct column omp_parallel_cols[] = {
    OPENMP_COMMON_COLUMNS,
    [OPR_PARALLEL_ID] = COL("parallelId", INT, 0, S_NEW),
    [OPR_PARENT_TASK] = COL("parentTaskId", INT, 0, S_NEW),
};
/* SYNC_REGION and TASK: same columns, kind from different enums */
enum { OS2_PARALLEL_ID = OM__COMMON, OS2_TASK_ID, OS2_KIND, OS2__N };
static const struct column omp_sync_region_cols[] = {
    OPENMP_COMMON_COLUMNS,
    [OS2_PARALLEL_ID] = COL("parallelId", INT, 0, S_NEW),
    [OS2_TASK_ID] = COL("taskId", INT, 0, S_NEW),
    [OS2_KIND] = COL("kind", INT, 0, S_NEW), /* ENUM_OPENMP_SYNC_REGION */
};
static const struct column omp_task_cols[] = {
    OPENMP_COMMON_COLUMNS,
    [OS2_PARALLEL_ID] = COL("parallelId", INT, 0, S_NEW),
    [OS2_TASK_ID] = COL("taskId", INT, 0, S_NEW),
    [OS2_KIND] = COL("kind", INT, 0, S_NEW), /* ENUM_OPENMP_TASK_FLAG */
};
enum { OC_PARENT_TASK = OM__COMMON, OC_NEW_TASK, OC__N };
static const struct column omp_task_create_cols[] = {
    OPENMP_COMMON_COLUMNS,
    [OC_PARENT_TASK] = COL("parentTaskId", INT, 0, S_NEW),
    [OC_NEW_TASK] = COL("newTaskId", INT, 0, S_NEW),
};
enum { OW_KIND = OM__COMMON, OW_PARALLEL_ID, OW_TASK_ID, OW_COUNT, OW__N };
static const struct column omp_workshare_cols[] = {
    OPENMP_COMMON_COLUMNS,
    [OW_KIND] = COL("kind", INT, 0, S_NEW), /* ENUM_OPENMP_WORK */
    [OW_PARALLEL_ID] = COL("parallelId", INT, 0, S_NEW),
    [OW_TASK_ID] = COL("taskId", INT, 0, S_NEW),
    [OW_COUNT] = COL("count", INT, 0, S_NEW),
};
/* MUTEX_WAIT and MUTEX_RELEASED: same columns; CRITICAL_SECTION lacks taskId. */
enum { OX_KIND = OM__COMMON, OX_WAIT_ID, OX_TASK_ID, OX__N };
static const struct column omp_mutex_cols[] = {
    OPENMP_COMMON_COLUMNS,
    [OX_KIND] = COL("kind", INT, 0, S_NEW), /* ENUM_OPENMP_MUTEX */
    [OX_WAIT_ID] = COL("waitId", INT, 0, S_NEW),
    [OX_TASK_ID] = COL("taskId", INT, 0, S_NEW),
};
static const struct column omp_critical_cols[] = {
    OPENMP_COMMON_COLUMNS,
    [OX_KIND] = COL("kind", INT, 0, S_NEW),
    [OX_WAIT_ID] = COL("waitId", INT, 0, S_NEW),
};

/* Unified memory page faults. CPU faults are instants; sourceFile/sourceLine came after
 * 3.7.2. */
enum { UC_START, UC_GLOBAL_PID, UC_ADDRESS, UC_PC, UC_INSTRUCTION, UC_MODULE, UC_UNRESOLVED, UC_SOURCE_FILE,
       UC_SOURCE_LINE, UC__N };
static const struct column um_cpu_fault_cols[] = {
    [UC_START] = COL("start", INT, NN, S_NEW),
    [UC_GLOBAL_PID] = COL("globalPid", INT, NN, S_NEW),
    [UC_ADDRESS] = COL("address", INT, NN, S_NEW),
    [UC_PC] = COL("originalFaultPc", INT, 0, S_NEW),
    [UC_INSTRUCTION] = COL("CpuInstruction", INT, NN, S_NEW),
    [UC_MODULE] = COL("module", INT, NN, S_NEW),
    [UC_UNRESOLVED] = COL("unresolvedFaultPc", INT, 0, S_NEW),
    [UC_SOURCE_FILE] = COL("sourceFile", INT, 0, S_MODERN),
    [UC_SOURCE_LINE] = COL("sourceLine", INT, 0, S_MODERN),
};
enum { UG_START, UG_END, UG_GLOBAL_PID, UG_DEVICE, UG_ADDRESS, UG_FAULTS, UG_ACCESS, UG__N };
static const struct column um_gpu_fault_cols[] = {
    [UG_START] = COL("start", INT, NN, S_NEW),
    [UG_END] = COL("end", INT, NN, S_NEW),
    [UG_GLOBAL_PID] = COL("globalPid", INT, NN, S_NEW),
    [UG_DEVICE] = COL("deviceId", INT, NN, S_NEW),
    [UG_ADDRESS] = COL("address", INT, NN, S_NEW),
    [UG_FAULTS] = COL("numberOfPageFaults", INT, NN, S_NEW),
    [UG_ACCESS] = COL("faultAccessType", INT, NN, S_NEW),
};

/* nsys's own messages (2024.6 on; same columns in every export that has the table). */
enum { DG_TIMESTAMP, DG_TIMESTAMP_TYPE, DG_SOURCE, DG_SEVERITY, DG_TEXT, DG_GLOBAL_PID, DG__N };
static const struct column diagnostic_cols[] = {
    [DG_TIMESTAMP] = COL("timestamp", INT, NN, S_MODERN),
    [DG_TIMESTAMP_TYPE] = COL("timestampType", INT, NN, S_MODERN),
    [DG_SOURCE] = COL("source", INT, NN, S_MODERN),
    [DG_SEVERITY] = COL("severity", INT, NN, S_MODERN),
    [DG_TEXT] = COL("text", TXT, NN, S_MODERN),
    [DG_GLOBAL_PID] = COL("globalPid", INT, 0, S_MODERN),
};

enum table_id {
    T_STRING_IDS, T_META_EXPORT, T_META_CAPTURE, T_EXPORT_META, T_ANALYSIS, T_SESSION_START,
    T_PROCESSES, T_THREAD_NAMES, T_GPU, T_CUDA_GPU, T_CUDA_STREAM, T_NULL_STREAM, T_CONTEXT_INFO,
    T_RUNTIME, T_KERNEL, T_MEMCPY, T_MEMSET, T_SYNC, T_NVTX_DEVICE, T_NVTX_CONTEXT, T_NVTX_STREAM,
    T_GRAPH_TRACE, T_GRAPH_EVENTS, T_GRAPH_NODE_EVENTS, T_OSRT, T_OSRT_CALLCHAINS, T_UNWIND_TYPE,
    T_SCHED, T_COMPOSITE, T_SAMPLING_CALLCHAINS, T_NVTX_EVENTS,
    /* further tables (options of their own) */
    T_GPU_METRIC_INFO, T_GPU_METRICS, T_GENERIC_TYPES, T_GENERIC_SOURCES, T_GENERIC_EVENTS, T_MEMORY_USAGE,
    T_CUBLAS, T_CUDNN, T_MPI_RANKS, T_MPI_P2P, T_MPI_COLLECTIVES, T_MPI_START_WAIT, T_MPI_OTHER,
    T_MPI_COMMUNICATORS, T_ACC_DATA, T_ACC_LAUNCH, T_ACC_OTHER, T_OMP_THREAD, T_OMP_PARALLEL, T_OMP_SYNC_REGION,
    T_OMP_TASK, T_OMP_TASK_CREATE, T_OMP_WORKSHARE, T_OMP_MUTEX_WAIT, T_OMP_MUTEX_RELEASED, T_OMP_CRITICAL,
    T_UM_CPU_FAULTS, T_UM_GPU_FAULTS, T_DIAGNOSTIC, T__COUNT
};

#define TABLE(name, schemas, cols) {name, schemas, cols, ARRAY_LEN(cols), NULL}
#define TABLE_PK(name, schemas, cols, pk) {name, schemas, cols, ARRAY_LEN(cols), pk}
static const struct table_def table_defs[T__COUNT] = {
    [T_STRING_IDS] = TABLE("StringIds", S_ALL, string_ids_cols),
    [T_META_EXPORT] = TABLE("META_DATA_EXPORT", S_MODERN, key_value_cols),
    [T_META_CAPTURE] = TABLE("META_DATA_CAPTURE", S_MODERN, key_value_cols),
    [T_EXPORT_META] = TABLE("EXPORT_META_DATA", S_2022, key_value_cols),
    [T_ANALYSIS] = TABLE("ANALYSIS_DETAILS", S_NEW, analysis_cols),
    [T_SESSION_START] = TABLE("TARGET_INFO_SESSION_START_TIME", S_NEW, session_start_cols),
    [T_PROCESSES] = TABLE("PROCESSES", S_NEW, processes_cols),
    [T_THREAD_NAMES] = TABLE("ThreadNames", S_ALL, thread_names_cols),
    [T_GPU] = TABLE("TARGET_INFO_GPU", S_ALL, gpu_cols),
    [T_CUDA_GPU] = TABLE("TARGET_INFO_CUDA_GPU", S_LEGACY, cuda_gpu_cols),
    [T_CUDA_STREAM] = TABLE("TARGET_INFO_CUDA_STREAM", S_ALL, cuda_stream_cols),
    [T_NULL_STREAM] = TABLE("TARGET_INFO_CUDA_NULL_STREAM", S_2022 | S_LEGACY, null_stream_cols),
    [T_CONTEXT_INFO] = TABLE("TARGET_INFO_CUDA_CONTEXT_INFO", S_MODERN, context_info_cols),
    [T_RUNTIME] = TABLE("CUPTI_ACTIVITY_KIND_RUNTIME", S_ALL, runtime_cols),
    [T_KERNEL] = TABLE("CUPTI_ACTIVITY_KIND_KERNEL", S_ALL, kernel_cols),
    [T_MEMCPY] = TABLE("CUPTI_ACTIVITY_KIND_MEMCPY", S_ALL, memcpy_cols),
    [T_MEMSET] = TABLE("CUPTI_ACTIVITY_KIND_MEMSET", S_ALL, memset_cols),
    [T_SYNC] = TABLE("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", S_ALL, sync_cols),
    [T_NVTX_DEVICE] = TABLE("TARGET_INFO_NVTX_CUDA_DEVICE", S_NEW, nvtx_device_cols),
    [T_NVTX_CONTEXT] = TABLE("TARGET_INFO_NVTX_CUDA_CONTEXT", S_NEW, nvtx_context_cols),
    [T_NVTX_STREAM] = TABLE("TARGET_INFO_NVTX_CUDA_STREAM", S_NEW, nvtx_stream_cols),
    [T_GRAPH_TRACE] = TABLE("CUPTI_ACTIVITY_KIND_GRAPH_TRACE", S_MODERN, graph_trace_cols),
    [T_GRAPH_EVENTS] = TABLE("CUDA_GRAPH_EVENTS", S_MODERN, graph_event_cols),
    [T_GRAPH_NODE_EVENTS] = TABLE("CUDA_GRAPH_NODE_EVENTS", S_MODERN, graph_node_event_cols),
    [T_OSRT] = TABLE("OSRT_API", S_ALL, osrt_cols),
    [T_OSRT_CALLCHAINS] = TABLE_PK("OSRT_CALLCHAINS", S_ALL, callchain_cols, "id, stackDepth"),
    [T_UNWIND_TYPE] = TABLE("UnwindMethodType", S_LEGACY, unwind_type_cols),
    [T_SCHED] = TABLE("SCHED_EVENTS", S_NEW, sched_cols),
    [T_COMPOSITE] = TABLE("COMPOSITE_EVENTS", S_NEW, composite_cols),
    [T_SAMPLING_CALLCHAINS] = TABLE_PK("SAMPLING_CALLCHAINS", S_NEW, callchain_cols, "id, stackDepth"),
    [T_NVTX_EVENTS] = TABLE("NVTX_EVENTS", S_NEW, nvtx_event_cols),
    [T_GPU_METRIC_INFO] = TABLE("TARGET_INFO_GPU_METRICS", S_MODERN, gpu_metric_info_cols),
    [T_GPU_METRICS] = TABLE("GPU_METRICS", S_MODERN, gpu_metrics_cols),
    [T_GENERIC_TYPES] = TABLE("GENERIC_EVENT_TYPES", S_2022, generic_type_cols),
    [T_GENERIC_SOURCES] = TABLE("GENERIC_EVENT_SOURCES", S_2022, generic_source_cols),
    [T_GENERIC_EVENTS] = TABLE("GENERIC_EVENTS", S_2022, generic_event_cols),
    [T_MEMORY_USAGE] = TABLE("CUDA_GPU_MEMORY_USAGE_EVENTS", S_NEW, memory_usage_cols),
    [T_CUBLAS] = TABLE("CUBLAS_EVENTS", S_NEW, library_cols),
    [T_CUDNN] = TABLE("CUDNN_EVENTS", S_NEW, library_cols),
    [T_MPI_RANKS] = TABLE("MPI_RANKS", S_MODERN, mpi_rank_cols),
    [T_MPI_P2P] = TABLE("MPI_P2P_EVENTS", S_MODERN, mpi_p2p_cols),
    [T_MPI_COLLECTIVES] = TABLE("MPI_COLLECTIVES_EVENTS", S_MODERN, mpi_collective_cols),
    [T_MPI_START_WAIT] = TABLE("MPI_START_WAIT_EVENTS", S_MODERN, mpi_start_wait_cols),
    [T_MPI_OTHER] = TABLE("MPI_OTHER_EVENTS", S_MODERN, mpi_other_cols),
    [T_MPI_COMMUNICATORS] = TABLE("MPI_COMMUNICATORS", S_MODERN, mpi_communicator_cols),
    [T_ACC_DATA] = TABLE("CUPTI_ACTIVITY_KIND_OPENACC_DATA", S_NEW, openacc_data_cols),
    [T_ACC_LAUNCH] = TABLE("CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH", S_NEW, openacc_launch_cols),
    [T_ACC_OTHER] = TABLE("CUPTI_ACTIVITY_KIND_OPENACC_OTHER", S_NEW, openacc_other_cols),
    [T_OMP_THREAD] = TABLE("OPENMP_EVENT_KIND_THREAD", S_NEW, omp_thread_cols),
    [T_OMP_PARALLEL] = TABLE("OPENMP_EVENT_KIND_PARALLEL", S_NEW, omp_parallel_cols),
    [T_OMP_SYNC_REGION] = TABLE("OPENMP_EVENT_KIND_SYNC_REGION", S_NEW, omp_sync_region_cols),
    [T_OMP_TASK] = TABLE("OPENMP_EVENT_KIND_TASK", S_NEW, omp_task_cols),
    [T_OMP_TASK_CREATE] = TABLE("OPENMP_EVENT_KIND_TASK_CREATE", S_NEW, omp_task_create_cols),
    [T_OMP_WORKSHARE] = TABLE("OPENMP_EVENT_KIND_WORKSHARE", S_NEW, omp_workshare_cols),
    [T_OMP_MUTEX_WAIT] = TABLE("OPENMP_EVENT_KIND_MUTEX_WAIT", S_NEW, omp_mutex_cols),
    [T_OMP_MUTEX_RELEASED] = TABLE("OPENMP_EVENT_KIND_MUTEX_RELEASED", S_NEW, omp_mutex_cols),
    [T_OMP_CRITICAL] = TABLE("OPENMP_EVENT_KIND_CRITICAL_SECTION", S_NEW, omp_critical_cols),
    [T_UM_CPU_FAULTS] = TABLE("CUDA_UM_CPU_PAGE_FAULT_EVENTS", S_NEW, um_cpu_fault_cols),
    [T_UM_GPU_FAULTS] = TABLE("CUDA_UM_GPU_PAGE_FAULT_EVENTS", S_NEW, um_gpu_fault_cols),
    [T_DIAGNOSTIC] = TABLE("DIAGNOSTIC_EVENT", S_MODERN, diagnostic_cols),
};

/* ------------------------------------------------------------------------------------
 * ENUM tables (>= 2022), rows as in the real exports. Names are stored without the
 * prefix every row of a table shares.
 * ---------------------------------------------------------------------------------- */

/* What optional output needs: the CPU side (--osrt, --sched, --samples) or one of the
 * further tables' options. */
enum feature {
    FEAT_CPU = 1 << 0, FEAT_GPU_METRICS = 1 << 1, FEAT_MEMORY = 1 << 2, FEAT_LIBRARIES = 1 << 3,
    FEAT_MPI = 1 << 4, FEAT_OPENACC = 1 << 5, FEAT_OPENMP = 1 << 6, FEAT_UM = 1 << 7, FEAT_DIAG = 1 << 8,
    FEAT_NVTX = 1 << 9, /* --nvtx: not in gen.features (no further-table hooks); see write_enums() */
};

struct enum_row {
    unsigned schemas;
    int64_t id;
    const char *name, *label;
};

struct enum_def {
    const char *table;
    unsigned schemas;
    const char *prefix;
    const struct enum_row *rows;
    size_t nrows;
    unsigned needs; /* FEAT_* bits: written only when one of them is on; 0: always */
};

enum { EN_ID, EN_NAME, EN_LABEL, EN__N };
static const struct column enum_cols[] = {
    [EN_ID] = COL("id", INT, NN | PK, S_NEW),
    [EN_NAME] = COL("name", TXT, 0, S_NEW),
    [EN_LABEL] = COL("label", TXT, 0, S_NEW),
};

/* ENUM_CUDA_MEMCPY_OPER ids (copyKind) */
enum { COPY_HTOD = 1, COPY_DTOH = 2, COPY_DTOD = 8, COPY_PTOP = 10 };
static const struct enum_row memcpy_oper_rows[] = {
    {S_NEW, 0, "UNKNOWN", "Unknown"},
    {S_NEW, 1, "HTOD", "Host-to-Device"},
    {S_NEW, 2, "DTOH", "Device-to-Host"},
    {S_NEW, 3, "HTOA", "Host-to-Array"},
    {S_NEW, 4, "ATOH", "Array-to-Host"},
    {S_NEW, 5, "ATOA", "Array-to-Array"},
    {S_NEW, 6, "ATOD", "Array-to-Device"},
    {S_NEW, 7, "DTOA", "Device-to-Array"},
    {S_NEW, 8, "DTOD", "Device-to-Device"},
    {S_NEW, 9, "HTOH", "Host-to-Host"},
    {S_NEW, 10, "PTOP", "Peer-to-Peer"},
    {S_NEW, 11, "UVM_HTOD", "Unified Host-to-Device"},
    {S_NEW, 12, "UVM_DTOH", "Unified Device-to-Host"},
    {S_NEW, 13, "UVM_DTOD", "Unified Device-to-Device"},
};

/* ENUM_CUDA_MEM_KIND ids (srcKind, dstKind, memKind): nsys numbering, not CUPTI's. */
enum { MEM_PAGEABLE = 0, MEM_PINNED = 1, MEM_DEVICE = 2, MEM_MANAGED = 4, MEM_DEVICE_STATIC = 5 };
static const struct enum_row mem_kind_rows[] = {
    {S_NEW, 0, "PAGEABLE", "Pageable"},
    {S_NEW, 1, "PINNED", "Pinned"},
    {S_NEW, 2, "DEVICE", "Device"},
    {S_NEW, 3, "ARRAY", "Array"},
    {S_NEW, 4, "MANAGED", "Managed"},
    {S_NEW, 5, "DEVICE_STATIC", "Device Static"},
    {S_NEW, 6, "MANAGED_STATIC", "Managed Static"},
    {S_NEW, 7, "UNKNOWN", "Unknown"},
};

/* ENUM_CUPTI_SYNC_TYPE ids (syncType) */
enum { SYNC_EVENT = 1, SYNC_STREAM_WAIT_EVENT = 2, SYNC_STREAM = 3, SYNC_CONTEXT = 4 };
static const struct enum_row sync_type_rows[] = {
    {S_NEW, 0, "UNKNOWN", "Unknown"},
    {S_NEW, 1, "EVENT_SYNCHRONIZE", "Event sync"},
    {S_NEW, 2, "STREAM_WAIT_EVENT", "Stream wait sync"},
    {S_NEW, 3, "STREAM_SYNCHRONIZE", "Stream sync"},
    {S_NEW, 4, "CONTEXT_SYNCHRONIZE", "Context sync"},
};

static const struct enum_row launch_type_rows[] = {
    {S_NEW, 0, "UNKNOWN", "Unknown"},
    {S_NEW, 1, "REGULAR", "Regular"},
    {S_NEW, 2, "COOPERATIVE_SINGLE_DEVICE", "Coop Single Device"},
    {S_NEW, 3, "COOPERATIVE_MULTI_DEVICE", "Coop Multi Device"},
};

/* ENUM_CUPTI_STREAM_TYPE ids (TARGET_INFO_CUDA_STREAM.flag); 2020.3 wrote 0 everywhere. */
enum { STREAM_FLAG_UNKNOWN = 0, STREAM_FLAG_NON_BLOCKING = 2, STREAM_FLAG_NULL = 3 };
static const struct enum_row stream_type_rows[] = {
    {S_MODERN, 0, "UNKNOWN", "Unknown stream type"},
    {S_MODERN, 1, "DEFAULT", "Default stream"},
    {S_MODERN, 2, "NON_BLOCKING", "Non-blocking stream"},
    {S_MODERN, 3, "NULL", "Null stream"},
};

static const struct enum_row cache_config_rows[] = {
    {S_NEW, 0, "NONE", "None"},
    {S_NEW, 1, "SHARED", "Shared"},
    {S_NEW, 2, "L1", "L1"},
    {S_NEW, 3, "EQUAL", "Equal"},
};

static const struct enum_row smem_limit_rows[] = {
    {S_NEW, 0, "DEFAULT", "Default"},
    {S_NEW, 1, "OPTIN", "Opt in"},
};

static const struct enum_row migration_rows[] = {
    {S_NEW, 0, "UNKNOWN", "Unknown"},
    {S_NEW, 1, "USER", "User prefetch"},
    {S_NEW, 2, "COHERENCE", "Page fault"},
    {S_NEW, 3, "PREFETCH", "Speculative prefecth"}, /* sic */
    {S_NEW, 4, "EVICTION", "Eviction"},
    {S_NEW, 5, "ACCESS_COUNTERS", "Access counters"},
};

/* ENUM_NSYS_EVENT_CLASS ids (RUNTIME.eventClass, CUDA_GRAPH_[NODE_]EVENTS.eventClass) */
enum {
    CLASS_CUDA_RUNTIME = 0, CLASS_CUDA_DRIVER = 1, CLASS_GRAPH_NODE_CREATION = 77,
    CLASS_GRAPHEXEC_CREATION = 94, CLASS_GRAPH_CREATION = 95
};
static const struct enum_row event_class_rows[] = {
    {S_NEW, 0, "CUDA_RUNTIME", "CUDA runtime"},
    {S_NEW, 1, "CUDA_DRIVER", "CUDA driver"},
    {S_NEW, 2, "GL", "GL"},
    {S_NEW, 3, "TSP_OVERHEAD", "TSP overhead"},
    {S_NEW, 4, "GL_DEBUG", "GL debug"},
    {S_NEW, 5, "GL_WORKLOAD", "GL workload"},
    {S_NEW, 6, "NVTX_START", "NVTX start"},
    {S_NEW, 7, "NVTX_FINISH", "NVTX finish"},
    {S_NEW, 8, "GL_START", "GL start"},
    {S_NEW, 9, "GL_FINISH", "GL finish"},
    {S_NEW, 10, "CUDA_START", "CUDA start"},
    {S_NEW, 11, "CUDA_FINISH", "CUDA finish"},
    {S_NEW, 12, "CUDA_INIT_ERROR", "CUDA init error"},
    {S_NEW, 13, "CUDA_EGL_DRIVER", "CUDA EGL driver"},
    {S_NEW, 18, "VSYNC", "Vsync"},
    {S_NEW, 26, "CUDA_API", "CUDA API"},
    {S_NEW, 27, "OS_RUNTIME", "OSRT runtime"},
    {S_NEW, 28, "CUDNN", "cuDNN"},
    {S_NEW, 29, "CUBLAS", "cuBLAS"},
    {S_NEW, 31, "OS_RUNTIME_START", "OSRT start"},
    {S_NEW, 32, "OS_RUNTIME_FINISH", "OSRT finish"},
    {S_NEW, 33, "CUDNN_START", "cuDNN start"},
    {S_NEW, 34, "CUDNN_FINISH", "cuDNN finish"},
    {S_NEW, 35, "CUBLAS_START", "cuBLAS start"},
    {S_NEW, 36, "CUBLAS_FINISH", "cuBLAS finish"},
    {S_NEW, 37, "THREAD_BLOCK", "Thread block"},
    {S_NEW, 38, "NVMEDIA", "NVmedia"},
    {S_NEW, 39, "NVMEDIA_START", "NVmedia start"},
    {S_NEW, 40, "NVMEDIA_FINISH", "NVmedia finish"},
    {S_NEW, 41, "DX12_API", "DX12 API"},
    {S_NEW, 42, "DX12_WORKLOAD", "DX12 workload"},
    {S_NEW, 43, "DX12_START", "DX12 start"},
    {S_NEW, 44, "DX12_FINISH", "DX12 finish"},
    {S_NEW, 45, "OPENACC_START", "OpenACC start"},
    {S_NEW, 46, "OPENACC_FINISH", "OpenACC finish"},
    {S_NEW, 47, "OPENACC_INIT_ERROR", "OpenACC init error"},
    {S_NEW, 48, "OPENACC", "OpenACC"},
    {S_NEW, 49, "CPU_FPS", "CPU FPS"},
    {S_NEW, 50, "GPU_FPS", "GPU FPS"},
    {S_NEW, 51, "GL_MULTI_ERROR", "GL multi-error"},
    {S_NEW, 52, "DX12_DISPLAY", "DX12 display"},
    {S_NEW, 53, "VULKAN_API", "Vulkan API"},
    {S_NEW, 54, "VULKAN_WORKLOAD", "Vulkan workload"},
    {S_NEW, 55, "VULKAN_START", "Vulkan start"},
    {S_NEW, 56, "VULKAN_FINISH", "Vulkan finish"},
    {S_NEW, 57, "SYSTEM_EVENT", "System event"},
    {S_NEW, 58, "GPU_MEMORY", "GPU memory"},
    {S_NEW, 59, "DX12_CREATE_OBJECT", "DX12 create object"},
    {S_NEW, 60, "VULKAN_CREATE_OBJECT", "Vulkan create object"},
    {S_NEW, 61, "CUSTOM_ETW_TRACE", "Custom ETW trace"},
    {S_2022, 62, "SLI", "SLI"},
    {S_MODERN, 62, "SLI_DEPRECATED", "SLI (Deprecated)"},
    {S_2022, 63, "SLI_START", "SLI start"},
    {S_MODERN, 63, "SLI_START_DEPRECATED", "SLI start (Deprecated)"},
    {S_2022, 64, "SLI_FINISH", "SLI finish"},
    {S_MODERN, 64, "SLI_FINISH_DEPRECATED", "SLI finish (Deprecated)"},
    {S_NEW, 65, "DX12_DEBUG_API", "DX12 debug API"},
    {S_NEW, 66, "VULKAN_DEBUG_API", "Vulkan debug API"},
    {S_NEW, 67, "CUDABACKTRACE", "CUDA backtrace"},
    {S_NEW, 68, "CUDABACKTRACE_START", "CUDA backtrace start"},
    {S_NEW, 69, "CUDABACKTRACE_FINISH", "CUDA backtrace finish"},
    {S_NEW, 70, "WDDM", "WDDM"},
    {S_NEW, 71, "DX11_API", "DX11 API"},
    {S_NEW, 72, "DX11_START", "DX11 start"},
    {S_NEW, 73, "DX11_FINISH", "DX11 finish"},
    {S_NEW, 74, "DX11_CREATE_OBJECT", "DX11 create object"},
    {S_NEW, 75, "DX11_DEBUG_API", "DX11 debug API"},
    {S_NEW, 76, "DXCOMMON_API", "DX common API"},
    {S_NEW, 77, "CUDA_GRAPH_NODE_CREATION", "CUDA graph node creation"},
    {S_NEW, 78, "OPENMP", "OpenMP"},
    {S_NEW, 79, "OPENMP_START", "OpenMP start"},
    {S_NEW, 80, "OPENMP_FINISH", "OpenMP finish"},
    {S_NEW, 81, "NVAPI", "NV API"},
    {S_NEW, 82, "ETWDXGKRNL", "ETW DXG KRNL"},
    {S_2022, 83, "NVENC", "NVENC"},
    {S_MODERN, 83, "NVENCODE", "NVENCODE"},
    {S_2022, 84, "NVENC_START", "NVENC start"},
    {S_MODERN, 84, "NVENCODE_START", "NVENCODE start"},
    {S_2022, 85, "NVENC_FINISH", "NVENC finish"},
    {S_MODERN, 85, "NVENCODE_FINISH", "NVENCODE finish"},
    {S_2022, 86, "NVDEC", "NVDEC"},
    {S_MODERN, 86, "NVDECODE", "NVDECODE"},
    {S_2022, 87, "NVDEC_START", "NVDEC start"},
    {S_MODERN, 87, "NVDECODE_START", "NVDECODE start"},
    {S_2022, 88, "NVDEC_FINISH", "NVDEC finish"},
    {S_MODERN, 88, "NVDECODE_FINISH", "NVDECODE finish"},
    {S_NEW, 89, "NVJPEG", "nvJPEG"},
    {S_NEW, 90, "NVJPEG_START", "nvJPEG start"},
    {S_NEW, 91, "NVJPEG_FINISH", "nvJPEG finish"},
    {S_NEW, 92, "DX12_BATCH_WORKLOAD", "DX12 batch workload"},
    {S_NEW, 93, "VULKAN_BATCH_WORKLOAD", "Vulkan batch workload"},
    {S_NEW, 94, "CUDA_GRAPHEXEC_CREATION", "CUDA graph exec creation"},
    {S_NEW, 95, "CUDA_GRAPH_CREATION", "CUDA graph creation"},
    {S_NEW, 96, "CUDA_GRAPH_CLONE", "CUDA graph clone"},
    {S_MODERN, 98, "OPENCL", "OpenCL event"},
    {S_MODERN, 99, "OPENCL_START", "OpenCL start"},
    {S_MODERN, 100, "OPENCL_FINISH", "OpenCL finish"},
    {S_MODERN, 101, "OPENCL_INIT_ERROR", "OpenCL Init error"},
    {S_MODERN, 102, "CUDA_JIT", "CUDA JIT"},
    {S_MODERN, 103, "CUDA_OVERHEAD", "CUDA overhead"},
    {S_MODERN, 104, "OPENXR", "OpenXR event"},
    {S_MODERN, 105, "OPENXR_START", "OpenXR start"},
    {S_MODERN, 106, "OPENXR_FINISH", "OpenXR finish"},
    {S_MODERN, 107, "SYSCALL", "Syscall"},
    {S_MODERN, 108, "TEGRA_INTERNAL", "Tegra Internal API"},
    {S_MODERN, 109, "TEGRA_INTERNAL_START", "Tegra Internal API start"},
    {S_MODERN, 110, "TEGRA_INTERNAL_FINISH", "Tegra Internal API finish"},
    {S_MODERN, 111, "CUDA_GRAPH_EXEC_NODE_SET_PARAMS", "CUDA graph exec-node set params"},
};

/* ENUM_STACK_UNWIND_METHOD ids (SAMPLING_CALLCHAINS.unwindMethod). 2020.3 wrote the names of
 * 0-8 to its UnwindMethodType table. */
enum { UNWIND_UNKNOWN = 0, UNWIND_LBR = 8 };
static const struct enum_row unwind_method_rows[] = {
    {S_NEW | S_LEGACY, 0, "Unknown", "Unknown"},
    {S_NEW | S_LEGACY, 1, "FramePointer", "Frame pointer"},
    {S_NEW | S_LEGACY, 2, "UnwindTable", "Unwind table"},
    {S_NEW | S_LEGACY, 3, "LR_FramePointer", "LR frame pointer"},
    {S_NEW | S_LEGACY, 4, "LR_UnwindTable", "LR unwind table"},
    {S_NEW | S_LEGACY, 5, "KernelContext", "Kernel context"},
    {S_NEW | S_LEGACY, 6, "DWARF_EH", "DWARF EH"},
    {S_NEW | S_LEGACY, 7, "DWARF_DF", "DWARF DF"},
    {S_NEW | S_LEGACY, 8, "LBR", "LBR"},
    {S_NEW, 1000, "Undefined", "Undefined"},
};

/* ENUM_SAMPLING_THREAD_STATE ids (COMPOSITE_EVENTS.threadState, SCHED_EVENTS.threadState) */
enum { THREAD_STATE_UNKNOWN = 0, THREAD_STATE_RUNNING = 1, THREAD_STATE_TERMINATED = 5 };
static const struct enum_row thread_state_rows[] = {
    {S_NEW, 0, "Unknown", "Unknown"},
    {S_NEW, 1, "Running", "Running"},
    {S_NEW, 2, "Interruptible", "Interruptible"},
    {S_NEW, 3, "Uninterruptible", "Uninterruptible"},
    {S_NEW, 4, "Stopped", "Stopped"},
    {S_NEW, 5, "Terminated", "Terminated"},
    {S_NEW, 6, "Unscheduled", "Unscheduled"},
    {S_NEW, 7, "Waiting", "Waiting"},
    {S_NEW, 8, "OSRuntime", "OS runtime"},
    {S_NEW, 9, "Initialized", "Initialized"},
    {S_NEW, 10, "Transition", "Transition"},
};

/* ENUM_SCHEDULING_THREAD_BLOCK (SCHED_EVENTS.threadBlock, NULL in real exports); 2024.6 on */
static const struct enum_row thread_block_rows[] = {
    {S_MODERN, 0, "NonBlocked", "NonBlocked"},       {S_MODERN, 1, "Unknown", "Unknown"},
    {S_MODERN, 2, "SigSuspend", "SigSuspend"},       {S_MODERN, 3, "Stopped", "Stopped"},
    {S_MODERN, 4, "Nanosleep", "Nanosleep"},         {S_MODERN, 5, "Intr", "Intr"},
    {S_MODERN, 6, "Mutex", "Mutex"},                 {S_MODERN, 7, "CondVar", "CondVar"},
    {S_MODERN, 8, "Sem", "Sem"},                     {S_MODERN, 9, "Join", "Join"},
    {S_MODERN, 10, "SigWaitInfo", "SigWaitInfo"},    {S_MODERN, 11, "WaitCtx", "WaitCtx"},
    {S_MODERN, 12, "Send", "Send"},                  {S_MODERN, 13, "Receive", "Receive"},
    {S_MODERN, 14, "Reply", "Reply"},                {S_MODERN, 15, "Stack", "Stack"},
    {S_MODERN, 16, "WaitThread", "WaitThread"},      {S_MODERN, 17, "WaitPage", "WaitPage"},
    {S_MODERN, 18, "NetSend", "NetSend"},            {S_MODERN, 19, "NetReply", "NetReply"},
    {S_MODERN, 20, "FreePage", "FreePage"},          {S_MODERN, 21, "PageIn", "PageIn"},
    {S_MODERN, 22, "PoolAllocation", "PoolAllocation"}, {S_MODERN, 23, "DelayExecution", "DelayExecution"},
    {S_MODERN, 24, "Suspended", "Suspended"},        {S_MODERN, 25, "UserRequest", "UserRequest"},
    {S_MODERN, 26, "EventPair", "EventPair"},        {S_MODERN, 27, "Queue", "Queue"},
    {S_MODERN, 28, "LPCReceive", "LPCReceive"},      {S_MODERN, 29, "LPCReply", "LPCReply"},
    {S_MODERN, 30, "VirtualMemory", "VirtualMemory"}, {S_MODERN, 31, "PageOut", "PageOut"},
    {S_MODERN, 32, "Rendezvous", "Rendezvous"},      {S_MODERN, 33, "KeyedEvent", "KeyedEvent"},
    {S_MODERN, 34, "Terminated", "Terminated"},      {S_MODERN, 35, "ProcessInSwap", "ProcessInSwap"},
    {S_MODERN, 36, "CPURateControl", "CPURateControl"}, {S_MODERN, 37, "WrCalloutStack", "WrCalloutStack"},
    {S_MODERN, 38, "Kernel", "Kernel"},              {S_MODERN, 39, "Resource", "Resource"},
    {S_MODERN, 40, "PushLock", "PushLock"},          {S_MODERN, 41, "WindowsMutex", "WindowsMutex"},
    {S_MODERN, 42, "QuantumEnd", "QuantumEnd"},      {S_MODERN, 43, "DispatchInt", "DispatchInt"},
    {S_MODERN, 44, "Preempted", "Preempted"},        {S_MODERN, 45, "YieldExecution", "YieldExecution"},
    {S_MODERN, 46, "FastMutex", "FastMutex"},        {S_MODERN, 47, "GuardedMutex", "GuardedMutex"},
    {S_MODERN, 48, "Rundown", "Rundown"},            {S_MODERN, 49, "ReadyToRun", "ReadyToRun"},
    {S_MODERN, 50, "AlertByThreadId", "AlertByThreadId"}, {S_MODERN, 51, "DeferredPreempt", "DeferredPreempt"},
    {S_MODERN, 52, "PhysicalFault", "PhysicalFault"},
};

/* ENUM tables of the further tables (written with their option), rows as in the 3.0.0
 * export (= 3.17.1) and, for the diagnostics, the 3.25.0 one; the labels' typos are
 * NVIDIA's. 3.25.0 renamed the access types (see enum_defs). */
enum { MEM_OPER_ALLOC = 0, MEM_OPER_FREE = 1 };
enum { UM_ACCESS_UNKNOWN = 0, UM_ACCESS_READ = 1, UM_ACCESS_WRITE = 2, UM_ACCESS_ATOMIC = 3, UM_ACCESS_PREFETCH = 4 };
static const struct enum_row dev_mem_oper_rows[] = {
    {S_NEW, 0, "ALLOCATION", "Allocation"},
    {S_NEW, 1, "DEALLOCATION", "Deallocation"},
};

static const struct enum_row um_access_rows[] = {
    {S_NEW, 0, "UNKNOWN", "Unknown"},
    {S_NEW, 1, "READ", "Read"},
    {S_NEW, 2, "WRITE", "Write"},
    {S_NEW, 3, "ATOMIC", "Atomic"},
    {S_NEW, 4, "PREFETCH", "Prefetch"},
};

static const struct enum_row openacc_device_rows[] = {
    {S_NEW, 0, "none", "None"},
    {S_NEW, 1, "default", "Default"},
    {S_NEW, 2, "host", "Host"},
    {S_NEW, 3, "not_host", "Not host"},
    {S_NEW, 4, "nvidia", "NVIDIA"},
    {S_NEW, 5, "radeon", "Radeon"},
    {S_NEW, 6, "xeonphi", "Xeon Phi"},
    {S_NEW, 7, "pgi_opencl", "PGI OpenCL"},
    {S_NEW, 8, "nvidia_opencl", "NVIDIA OpenCL"},
    {S_NEW, 9, "opencl", "OpenCL"},
};

static const struct enum_row openacc_event_kind_rows[] = {
    {S_NEW, 0, "INVALID", "Invalid"},
    {S_NEW, 1, "DEVICE_INIT", "Device init"},
    {S_NEW, 2, "DEVICE_SHUTDOWN", "Device shutdown"},
    {S_NEW, 3, "RUNTIME_SHUTDOWN", "Runtime shutdown"},
    {S_NEW, 4, "ENQUEUE_LAUNCH", "Enqueue launch"},
    {S_NEW, 5, "ENQUEUE_UPLOAD", "Enqueue upload"},
    {S_NEW, 6, "ENQUEUE_DOWNLOAD", "Enqueue download"},
    {S_NEW, 7, "WAIT", "Wait"},
    {S_NEW, 8, "IMPLICIT_WAIT", "Implicit wait"},
    {S_NEW, 9, "COMPUTE_CONSTRUCT", "Compute construct"},
    {S_NEW, 10, "UPDATE", "UPDATE"},
    {S_NEW, 11, "ENTER_DATA", "Enter data"},
    {S_NEW, 12, "EXIT_DATA", "Exit data"},
    {S_NEW, 13, "CREATE", "Create"},
    {S_NEW, 14, "DELETE", "Delete"},
    {S_NEW, 15, "ALLOC", "Alloc"},
    {S_NEW, 16, "FREE", "Free"},
};

static const struct enum_row openmp_event_kind_rows[] = {
    {S_NEW, 0, "INVALID", "Invalid"},
    {S_NEW, 1, "THREAD_BEGIN", "Thread begin"},
    {S_NEW, 2, "THREAD_END", "Thread end"},
    {S_NEW, 3, "PARALLEL_BEGIN", "Parallel begin"},
    {S_NEW, 4, "PARALLEL_END", "Parallel End"},
    {S_NEW, 5, "SYNC_REGION_WAIT_BEGIN", "Sync region wait begin"},
    {S_NEW, 6, "SYNC_REGION_WAIT_END", "Sync region wait end"},
    {S_NEW, 7, "SYNC_REGION_BEGIN", "Sync region begin"},
    {S_NEW, 8, "SYNC_REGION_END", "Sync region end"},
    {S_NEW, 9, "TASK_BEGIN", "Task begin"},
    {S_NEW, 10, "TASK_END", "Task end"},
    {S_NEW, 11, "MASTER_BEGIN", "Master begin"},
    {S_NEW, 12, "MASTER_END", "Master end"},
    {S_NEW, 13, "REDUCTION_BEGIN", "Reduction begin"},
    {S_NEW, 14, "REDUCTION_END", "Reduction end"},
    {S_NEW, 15, "TASK_CREATE", "Task create"},
    {S_NEW, 16, "TASK_SCHEDULE", "Task schedule"},
    {S_NEW, 17, "CANCEL", "Cancel"},
    {S_NEW, 18, "MUTEX_ACQUIRE", "Mutex acquire"},
    {S_NEW, 19, "MUTEX_ACQUIRED", "Mutex acquired"},
    {S_NEW, 20, "MUTEX_RELEASED", "Mutex released"},
    {S_NEW, 21, "LOCK_INIT", "Lock init"},
    {S_NEW, 22, "LOCK_DESTROY", "Lock destroy"},
    {S_NEW, 23, "WORKSHARE_BEGIN", "Workshare begin"},
    {S_NEW, 24, "WORKSHARE_END", "Workshare end"},
    {S_NEW, 25, "DISPATCH", "Dispatch"},
    {S_NEW, 26, "FLUSH", "Flush"},
    {S_NEW, 27, "THREAD", "Thread"},
    {S_NEW, 28, "PARALLEL", "Parallel"},
    {S_NEW, 29, "SYNC_REGION_WAIT", "Sync region wait"},
    {S_NEW, 30, "SYNC_REGION", "Sync region"},
    {S_NEW, 31, "TASK", "Task"},
    {S_NEW, 32, "MASTER", "Master"},
    {S_NEW, 33, "REDUCTION", "Reduction"},
    {S_NEW, 34, "MUTEX_WAIT", "Mutex wait"},
    {S_NEW, 35, "CRITICAL_SECTION", "Critical section"},
    {S_NEW, 36, "WORKSHARE", "Workshare"},
};

static const struct enum_row openmp_thread_rows[] = {
    {S_NEW, 1, "initial", "Initial"},
    {S_NEW, 2, "worker", "Worker"},
    {S_NEW, 3, "other", "Internal"},
    {S_NEW, 4, "unknown", "Unknown"},
};

static const struct enum_row openmp_dispatch_rows[] = {
    {S_NEW, 1, "iteration", "Iteration"},
    {S_NEW, 2, "section", "Section"},
};

static const struct enum_row openmp_sync_region_rows[] = {
    {S_NEW, 1, "barrier", "Barrier"},
    {S_NEW, 2, "barrier_implicit", "Implicit barrier"},
    {S_NEW, 3, "barrier_explicit", "Explicit barrier"},
    {S_NEW, 4, "barrier_implementation", "Implementation barrier"},
    {S_NEW, 5, "taskwait", "Task wait"},
    {S_NEW, 6, "taskgroup", "Task group"},
    {S_NEW, 7, "reduction", "Reduction"},
};

static const struct enum_row openmp_work_rows[] = {
    {S_NEW, 1, "loop", "Loop region"},
    {S_NEW, 2, "sections", "Sections region"},
    {S_NEW, 3, "single_executor", "Single region executor"},
    {S_NEW, 4, "single_other", "Single region waiting"},
    {S_NEW, 5, "workshare", "Workshare retion"},
    {S_NEW, 6, "distribute", "Distribute region"},
    {S_NEW, 7, "taskloop", "Task loop region"},
};

static const struct enum_row openmp_mutex_rows[] = {
    {S_NEW, 1, "lock", "Wait for lock"},
    {S_NEW, 2, "test_lock", "Testing lock"},
    {S_NEW, 3, "nest_lock", "Wait for nested lock"},
    {S_NEW, 4, "test_nest_lock", "Testing nested lock"},
    {S_NEW, 5, "critical", "Wait for critical section entry"},
    {S_NEW, 6, "atomic", "Wait for atomic region entry"},
    {S_NEW, 7, "ordered", "Wait for ordered region entry"},
};

/* bit flags */
static const struct enum_row openmp_task_flag_rows[] = {
    {S_NEW, 1, "initial", "Initial"},
    {S_NEW, 2, "implicit", "Implitic"},
    {S_NEW, 4, "explicit", "Explicit"},
    {S_NEW, 8, "target", "Target"},
    {S_NEW, 134217728, "undeferred", "Undeferred"},
    {S_NEW, 268435456, "untied", "United"},
    {S_NEW, 536870912, "final", "Final"},
    {S_NEW, 1073741824, "mergeable", "Mergeable"},
    {S_NEW, 2147483648, "merged", "Merged"},
};

static const struct enum_row openmp_task_status_rows[] = {
    {S_NEW, 1, "complete", "Completed"},
    {S_NEW, 2, "yield", "Yielded"},
    {S_NEW, 3, "cancel", "Cancelled"},
    {S_NEW, 4, "detach", "Detached"},
    {S_NEW, 5, "early_fulfill", "Early fulfilled"},
    {S_NEW, 6, "late_fulfill", "Late fulfilled"},
    {S_NEW, 7, "switch", "Switched Out"},
};

static const struct enum_row diag_severity_rows[] = {
    {S_MODERN, 0, "UnknownLevel", "Unknown"},
    {S_MODERN, 1, "Info", "Info"},
    {S_MODERN, 2, "Warning", "Warning"},
    {S_MODERN, 3, "Error", "Error"},
    {S_MODERN, 4, "Verbose", "Verbose"},
};

static const struct enum_row diag_source_rows[] = {
    {S_MODERN, 0, "UnknownSource", "Unknown source"},
    {S_MODERN, 1, "Injection", "Injection"},
    {S_MODERN, 2, "Daemon", "Daemon"},
    {S_MODERN, 3, "Analysis", "Analysis"},
};

static const struct enum_row diag_timestamp_rows[] = {
    {S_MODERN, 0, "UnknownTimestamp", "Unknown timestamp"},
    {S_MODERN, 1, "TargetTimestamp", "Target timestamp"},
    {S_MODERN, 2, "HostTimestamp", "Host timestamp"},
};

/* ENUM_NSYS_EVENT_TYPE (NVTX_EVENTS.eventType), written with --nvtx: every row of the 3.0.0 and
 * 3.25.0 exports (name and label equal, no prefix). */
enum { NVTX_CATEGORY = 33, NVTX_MARK = 34, NVTX_PUSH_POP = 59, NVTX_START_END = 60, NVTX_DOMAIN_CREATE = 75 };
#define ET(schemas, id, name) {schemas, id, name, name}
static const struct enum_row event_type_rows[] = {
    ET(S_NEW, 0, "Unknown"), ET(S_NEW, 1, "CpuCycles"), ET(S_NEW, 2, "Instructions"),
    ET(S_NEW, 3, "CacheReferences"), ET(S_NEW, 4, "L1CacheDataWriteMisses"),
    ET(S_NEW, 5, "L1CacheDataReadMisses"), ET(S_NEW, 6, "L1CacheInstructionMisses"),
    ET(S_NEW, 7, "L2CacheDataWriteMisses"), ET(S_NEW, 8, "L2CacheDataReadMisses"),
    ET(S_NEW, 9, "L2CacheInstructionMisses"), ET(S_NEW, 10, "BranchInstructions"),
    ET(S_NEW, 11, "BranchMisses"), ET(S_NEW, 12, "BusCycles"), ET(S_NEW, 13, "CpuClock"),
    ET(S_NEW, 14, "TaskClock"), ET(S_NEW, 15, "PageFault"), ET(S_NEW, 16, "ContextSwitches"),
    ET(S_NEW, 17, "CpuMigrations"), ET(S_NEW, 18, "PageFaultsMin"), ET(S_NEW, 19, "PageFaultsMax"),
    ET(S_NEW, 20, "AlignmentFaults"), ET(S_NEW, 21, "EmulationFaults"), ET(S_NEW, 22, "ThreadState"),
    ET(S_NEW, 23, "Frames"), ET(S_NEW, 24, "Annotations"), ET(S_NEW, 25, "SchedSwitch"),
    ET(S_NEW, 26, "SchedWakeup"), ET(S_NEW, 27, "Command"), ET(S_NEW, 28, "Mmap"), ET(S_NEW, 29, "MemUsage"),
    ET(S_NEW, 30, "Emc"), ET(S_NEW, 31, "Composite"), ET(S_NEW, 32, "NvtxEvents"),
    ET(S_NEW, 33, "NvtxCategory"), ET(S_NEW, 34, "NvtxMark"), ET(S_NEW, 35, "NvtxPushRange"),
    ET(S_NEW, 36, "NvtxPopRange"), ET(S_NEW, 37, "NvtxStartRange"), ET(S_NEW, 38, "NvtxEndRange"),
    ET(S_NEW, 39, "NvtxThread"), ET(S_NEW, 40, "PowerRate"), ET(S_NEW, 41, "Sched"),
    ET(S_NEW, 42, "CpuCyclesSelf"), ET(S_NEW, 43, "CpuCyclesTotal"), ET(S_NEW, 44, "CpuCyclesSelfPlus"),
    ET(S_NEW, 45, "Cuda"), ET(S_NEW, 46, "CudaDevice"), ET(S_NEW, 47, "TraceProcess"),
    ET(S_NEW, 48, "TraceFunctions"), ET(S_NEW, 49, "Diagnostic"), ET(S_NEW, 50, "GlWorkload"),
    ET(S_NEW, 51, "BandwidthUsage"), ET(S_NEW, 52, "KhrDebugMark"), ET(S_NEW, 53, "KhrDebugPushRange"),
    ET(S_NEW, 54, "KhrDebugPopRange"), ET(S_NEW, 55, "KhrDebugGpuMark"),
    ET(S_NEW, 56, "KhrDebugGpuPushRange"), ET(S_NEW, 57, "KhrDebugGpuPopRange"), ET(S_NEW, 58, "GpuCtxsw"),
    ET(S_NEW, 59, "NvtxPushPopRange"), ET(S_NEW, 60, "NvtxStartEndRange"), ET(S_NEW, 61, "ProfTime"),
    ET(S_NEW, 62, "KhrDebugPushPopRange"), ET(S_NEW, 63, "KhrDebugGpuPushPopRange"),
    ET(S_NEW, 64, "NvtxtCategory"), ET(S_NEW, 65, "NvtxtMark"), ET(S_NEW, 66, "NvtxtPushRange"),
    ET(S_NEW, 67, "NvtxtPopRange"), ET(S_NEW, 68, "NvtxtStartRange"), ET(S_NEW, 69, "NvtxtEndRange"),
    ET(S_NEW, 70, "NvtxtPushPopRange"), ET(S_NEW, 71, "NvtxtStartEndRange"), ET(S_NEW, 72, "NvtxtMetaThread"),
    ET(S_NEW, 73, "NvtxtMetaProcess"), ET(S_NEW, 74, "NvtxtMetaFileDisplay"),
    ET(S_NEW, 75, "NvtxDomainCreate"), ET(S_NEW, 76, "NvtxDomainDestroy"), ET(S_NEW, 77, "NvnGpuCmdBuf"),
    ET(S_NEW, 78, "TraceVSync"), ET(S_NEW, 79, "CudaDeviceKernel"), ET(S_NEW, 80, "CudaDeviceMemory"),
    ET(S_NEW, 81, "Pmu"), ET(S_NEW, 82, "NvnGpuDraw"), ET(S_NEW, 83, "NvnGpuCompute"),
    ET(S_NEW, 84, "NvnGpuDebug"), ET(S_NEW, 85, "OS runtime libraries"), ET(S_NEW, 86, "CuDNN"),
    ET(S_NEW, 87, "CuBLAS"), ET(S_NEW, 88, "NvMedia"), ET(S_NEW, 89, "OpenACC"), ET(S_NEW, 90, "Correlation"),
    ET(S_NEW, 91, "DX12"), ET(S_NEW, 92, "DX12Workload"), ET(S_NEW, 93, "PmuRawEvent"),
    ET(S_NEW, 94, "GraphicsFrame"), ET(S_NEW, 95, "Vulkan"), ET(S_NEW, 96, "VulkanWorkload"),
    ET(S_NEW, 97, "NvtxNameCudaDevice"), ET(S_NEW, 98, "NvtxNameCudaContext"),
    ET(S_NEW, 99, "NvtxNameCudaStream"), ET(S_NEW, 100, "SystemEvent"), ET(S_NEW, 101, "GpuMemoryEvent"),
    ET(S_NEW, 102, "DX12CreateObject"), ET(S_NEW, 103, "VulkanCreateObject"),
    ET(S_NEW, 104, "UnitTraceEvent"), ET(S_NEW, 105, "CustomETWEvent"), ET(S_NEW, 106, "CudaSyncEvent"),
    ET(S_2022, 107, "SLIEvent"), ET(S_MODERN, 107, "SLIEvent (DEPRECATED)"), ET(S_NEW, 108, "CudaBacktrace"),
    ET(S_NEW, 109, "WddmEvent"), ET(S_NEW, 110, "DX11"), ET(S_NEW, 111, "DX11CreateObject"),
    ET(S_NEW, 112, "DXGI"), ET(S_NEW, 113, "CudaGraphNodeCreation"), ET(S_NEW, 114, "OpenMP"),
    ET(S_NEW, 115, "UncorePmuEvent"), ET(S_NEW, 116, "UncorePmuCarmel"),
    ET(S_NEW, 117, "CudaDeviceMemoryUsage"), ET(S_NEW, 118, "ETWDxgKrnlEvent"),
    ET(S_NEW, 119, "CudaUvmCpuPageFaultEvent"), ET(S_NEW, 120, "CudaUvmGpuPageFaultEvent"),
    ET(S_NEW, 121, "NICMetricsValuesEvent"), ET(S_NEW, 122, "NICMetricsListEvent"),
    ET(S_NEW, 123, "InterruptHandler"), ET(S_2022, 124, "NVENC"), ET(S_MODERN, 124, "NvEncode"),
    ET(S_2022, 125, "NVDEC"), ET(S_MODERN, 125, "NVDecode"), ET(S_NEW, 126, "nvJPEG"),
    ET(S_NEW, 127, "CudaEventRecord"), ET(S_NEW, 128, "PerfEventCountEvent"),
    ET(S_NEW, 129, "CudaDeviceMemoryPool"), ET(S_NEW, 130, "CudaDeviceGraph"),
    ET(S_NEW, 131, "CudaGraphExecCreation"), ET(S_NEW, 132, "CudaGraphCreation"),
    ET(S_NEW, 133, "CudaGraphClone"), ET(S_MODERN, 134, "GpuMemoryTransferEvent"),
    ET(S_MODERN, 135, "GlTrace"), ET(S_MODERN, 136, "GpuVideoEngineWorkload"),
    ET(S_MODERN, 137, "IBSwitchMetricsValuesEvent"), ET(S_MODERN, 138, "GenericEvent"),
    ET(S_MODERN, 139, "UncorePmuT23xScf"), ET(S_MODERN, 140, "UncorePmuT23xDsu"),
    ET(S_MODERN, 141, "IBSwitchCongestionEvent"), ET(S_MODERN, 142, "CudaDeviceMemcpy"),
    ET(S_MODERN, 143, "PerfMetricValueEvent"), ET(S_MODERN, 144, "OpenXREvent"),
    ET(S_MODERN, 145, "TegraInternalEvent"), ET(S_MODERN, 146, "TraceStartFinish"),
    ET(S_MODERN, 147, "Syscall"), ET(S_MODERN, 148, "CudaConfidentialComputeKeyRotation"),
    ET(S_MODERN, 149, "CudaGraphExecNodeSetParams"), ET(S_MODERN, 150, "NvApi"),
    ET(S_MODERN, 151, "CudaHostFunc"), ET(S_MODERN, 152, "CudaApi"), ET(S_MODERN, 153, "Overhead"),
    ET(S_MODERN, 154, "CudaOverhead"),
};
#undef ET

#define ENUM_TABLE(table, schemas, prefix, rows) {table, schemas, prefix, rows, ARRAY_LEN(rows), 0}
#define ENUM_TABLE_CPU(table, schemas, rows) {table, schemas, "", rows, ARRAY_LEN(rows), FEAT_CPU}
#define ENUM_TABLE_FOR(table, schemas, prefix, rows, needs) {table, schemas, prefix, rows, ARRAY_LEN(rows), needs}
static const struct enum_def enum_defs[] = {
    ENUM_TABLE_FOR("ENUM_NSYS_EVENT_TYPE", S_NEW, "", event_type_rows, FEAT_NVTX),
    ENUM_TABLE("ENUM_NSYS_EVENT_CLASS", S_NEW, "TRACE_PROCESS_EVENT_", event_class_rows),
    ENUM_TABLE("ENUM_CUDA_MEMCPY_OPER", S_NEW, "CUDA_MEMCPY_KIND_", memcpy_oper_rows),
    ENUM_TABLE("ENUM_CUDA_MEM_KIND", S_NEW, "CUDA_MEMOPR_MEMORY_KIND_", mem_kind_rows),
    /* nsys spelled this table KRENEL until schema 3.1 */
    ENUM_TABLE("ENUM_CUDA_KRENEL_LAUNCH_TYPE", S_2022, "CUDA_KERNEL_LAUNCH_TYPE_", launch_type_rows),
    ENUM_TABLE("ENUM_CUDA_KERNEL_LAUNCH_TYPE", S_MODERN, "CUDA_KERNEL_LAUNCH_TYPE_", launch_type_rows),
    ENUM_TABLE("ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG", S_NEW, "CUDA_SHARED_MEM_LIMIT_", smem_limit_rows),
    ENUM_TABLE("ENUM_CUDA_UNIF_MEM_MIGRATION", S_NEW, "CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_",
               migration_rows),
    ENUM_TABLE("ENUM_CUDA_FUNC_CACHE_CONFIG", S_NEW, "CU_FUNC_CACHE_PREFER_", cache_config_rows),
    /* absent from the 3.0.0 export */
    ENUM_TABLE("ENUM_CUPTI_STREAM_TYPE", S_MODERN, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_",
               stream_type_rows),
    ENUM_TABLE("ENUM_CUPTI_SYNC_TYPE", S_NEW, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_", sync_type_rows),
    /* Exports with CPU-side data; their names have no common prefix. */
    ENUM_TABLE_CPU("ENUM_STACK_UNWIND_METHOD", S_NEW, unwind_method_rows),
    ENUM_TABLE_CPU("ENUM_SAMPLING_THREAD_STATE", S_NEW, thread_state_rows),
    ENUM_TABLE_CPU("ENUM_SCHEDULING_THREAD_BLOCK", S_MODERN, thread_block_rows),
    /* Those of the further tables. */
    ENUM_TABLE_FOR("ENUM_CUDA_DEV_MEM_EVENT_OPER", S_NEW, "CUDA_DEV_MEM_EVENT_OPR_", dev_mem_oper_rows,
                   FEAT_MEMORY),
    ENUM_TABLE_FOR("ENUM_CUDA_UNIF_MEM_ACCESS_TYPE", S_2022, "CUDA_UNIFIED_MEMORY_ACCESS_TYPE_", um_access_rows,
                   FEAT_UM),
    ENUM_TABLE_FOR("ENUM_CUDA_UNIF_MEM_ACCESS_TYPE", S_MODERN, "CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_",
                   um_access_rows, FEAT_UM),
    ENUM_TABLE_FOR("ENUM_OPENACC_DEVICE", S_NEW, "acc_device_", openacc_device_rows, FEAT_OPENACC),
    ENUM_TABLE_FOR("ENUM_OPENACC_EVENT_KIND", S_NEW, "CUPTI_OPENACC_EVENT_KIND_", openacc_event_kind_rows,
                   FEAT_OPENACC),
    ENUM_TABLE_FOR("ENUM_OPENMP_EVENT_KIND", S_NEW, "OPENMP_EVENT_KIND_", openmp_event_kind_rows, FEAT_OPENMP),
    ENUM_TABLE_FOR("ENUM_OPENMP_THREAD", S_NEW, "ompt_thread_", openmp_thread_rows, FEAT_OPENMP),
    ENUM_TABLE_FOR("ENUM_OPENMP_DISPATCH", S_NEW, "ompt_dispatch_", openmp_dispatch_rows, FEAT_OPENMP),
    ENUM_TABLE_FOR("ENUM_OPENMP_SYNC_REGION", S_NEW, "ompt_sync_region_", openmp_sync_region_rows, FEAT_OPENMP),
    ENUM_TABLE_FOR("ENUM_OPENMP_WORK", S_NEW, "ompt_work_", openmp_work_rows, FEAT_OPENMP),
    ENUM_TABLE_FOR("ENUM_OPENMP_MUTEX", S_NEW, "ompt_mutex_", openmp_mutex_rows, FEAT_OPENMP),
    ENUM_TABLE_FOR("ENUM_OPENMP_TASK_FLAG", S_NEW, "ompt_task_", openmp_task_flag_rows, FEAT_OPENMP),
    ENUM_TABLE_FOR("ENUM_OPENMP_TASK_STATUS", S_NEW, "ompt_task_", openmp_task_status_rows, FEAT_OPENMP),
    ENUM_TABLE_FOR("ENUM_DIAGNOSTIC_SEVERITY_LEVEL", S_MODERN, "", diag_severity_rows, FEAT_DIAG),
    ENUM_TABLE_FOR("ENUM_DIAGNOSTIC_SOURCE_TYPE", S_MODERN, "", diag_source_rows, FEAT_DIAG),
    ENUM_TABLE_FOR("ENUM_DIAGNOSTIC_TIMESTAMP_SOURCE", S_MODERN, "", diag_timestamp_rows, FEAT_DIAG),
};

/* ------------------------------------------------------------------------------------
 * Per-schema constants: metadata, GPU model, built-in strings
 * ---------------------------------------------------------------------------------- */

struct key_value {
    unsigned schemas;
    const char *key, *value;
};

static const struct key_value export_meta[] = {
    {S_NEW, "EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"},
    {S_MODERN, "EXPORT_PRODUCT_VERSION", "2026.2.1.210"},
    {S_2022, "EXPORT_PRODUCT_VERSION", "2022.4.2.1"},
    {S_MODERN, "EXPORT_PRODUCT_DATE", "2026.2"},
    {S_2022, "EXPORT_PRODUCT_DATE", "2022.4"},
    {S_MODERN, "EXPORT_SCHEMA_VERSION", "3.25.0"},
    {S_2022, "EXPORT_SCHEMA_VERSION", "3.0.0"},
    {S_NEW, "EXPORT_SCHEMA_VERSION_MAJOR", "3"},
    {S_MODERN, "EXPORT_SCHEMA_VERSION_MINOR", "25"},
    {S_2022, "EXPORT_SCHEMA_VERSION_MINOR", "0"},
    {S_NEW, "EXPORT_SCHEMA_VERSION_MICRO", "0"},
    {S_MODERN, "EXPORT_SCHEMA_VERSION_CKSUM", "306658267 182758"},
    {S_2022, "EXPORT_SCHEMA_VERSION_CKSUM", "4042420554 115894"},
    {S_NEW, "EXPORT_PLATFORM", "linux-desktop"},
    {S_NEW, "EXPORT_ARCH", "x64"},
    {S_2022, "EXPORT_TIME", "0.02"},
    {S_MODERN, "EXPORT_TIME_UTC", "2026-05-26T09:21:58"},
    {S_MODERN, "EXPORT_TIME_LOCAL", "2026-05-26T09:21:58 +0000 UTC"},
    {S_2022, "EXPORT_TIME_UTC", "2023-01-26T01:13:20"},
    {S_2022, "EXPORT_TIME_LOCAL", "2023-01-26T01:13:20"},
    {S_NEW, "EXPORT_HOST", "nsys-fixture"},
    {S_NEW, "EXPORT_USER", ""},
    {S_MODERN, "EXPORT_PARAM_EXPORT_TYPE", "SQLite"},
    {S_MODERN, "EXPORT_PARAM_INPUT_FILE", "report1.nsys-rep"},
    {S_MODERN, "EXPORT_PARAM_OUTPUT_FILE", "report1.sqlite"},
    {S_MODERN, "EXPORT_PARAM_INPUT_PATH", "/tmp/report1.nsys-rep"},
    {S_MODERN, "EXPORT_PARAM_OUTPUT_PATH", "/tmp/report1.sqlite"},
    {S_MODERN, "EXPORT_PARAM_INPUT_PATH_ABS", "/tmp/report1.nsys-rep"},
    {S_MODERN, "EXPORT_PARAM_OUTPUT_PATH_ABS", "/tmp/report1.sqlite"},
    {S_MODERN, "EXPORT_PARAM_PROGRESS", "true"},
    {S_MODERN, "EXPORT_PARAM_OVERWRITE", "true"},
    {S_MODERN, "EXPORT_PARAM_APPEND", "false"},
    {S_MODERN, "EXPORT_PARAM_LAZY", "true"},
    {S_MODERN, "EXPORT_PARAM_USE_SHUFFLE", "true"},
    {S_MODERN, "EXPORT_PARAM_INCLUDE_JSON", "false"},
    {S_MODERN, "EXPORT_PARAM_INCLUDE_BLOBS", "false"},
    {S_MODERN, "EXPORT_PARAM_TIME_NORMALIZE", "false"},
    {S_MODERN, "EXPORT_PARAM_TIME_SHIFT", "0"},
    {S_MODERN, "EXPORT_PARAM_TABLES_TO_EXPORT", ""},
    {S_MODERN, "EXPORT_PARAM_TIMES_TO_EXPORT", ""},
    {S_MODERN, "EXPORT_CONFIG_TIME_SHIFT", "0"},
    {S_MODERN, "EXPORT_TIME", "0.41 sec"},
    /* 2022.4 keys, NVIDIA's spelling */
    {S_2022, "EXPORT_INPUT_FILE", "report1.nsys-rep"},
    {S_2022, "EXPORT_OUTUPT_FILE", "report1.sqlite"},
    {S_2022, "EXPORT_INPUT_PATH", "/tmp/report1.nsys-rep"},
    {S_2022, "EXPORT_OUTUPT_PATH", "/tmp/report1.sqlite"},
    {S_2022, "EXPORT_INPUT_PATH_ABS", "/tmp/report1.nsys-rep"},
    {S_2022, "EXPORT_OUTUPT_PATH_ABS", "/tmp/report1.sqlite"},
    {S_2022, "EXPORT_OVERWRITE", "true"},
    {S_2022, "EXPORT_LAZY", "true"},
};

static const struct key_value capture_meta[] = {
    {S_MODERN, "DEVICE_ID", "Local (CLI)"},
    {S_MODERN, "CAPTURE_EVENT_TYPE", "NvtxEvents"},
    {S_MODERN, "CAPTURE_EVENT_TYPE", "Cuda"},
    {S_MODERN, "RATE_HZ", "0"},
    {S_MODERN, "START_TRIGGER", "Immediate"},
    {S_MODERN, "STOP_TRIGGER", "AppExit"},
    {S_MODERN, "DEVICE_TYPE", "Unix"},
    {S_MODERN, "DEVICE_DISPLAY_NAME", "nsys-fixture"},
    {S_MODERN, "CUDA_TRACE_SCOPE", "ProcessTree"},
    {S_MODERN, "PROCESS_0:HOW_TO_ATTACH", "LaunchAnother"},
    {S_MODERN, "PROCESS_0:COMMAND", "python3"},
    {S_MODERN, "PROCESS_0:ARGUMENT_0", "train.py"},
    {S_MODERN, "PROCESS_0:WORKING_DIR", "/workspace"},
    {S_MODERN, "PROCESS_0:PID", "0"},
    {S_MODERN, "PROCESS_0:COLLECT_NVTX_TRACE", "true"},
    {S_MODERN, "PROCESS_0:COLLECT_CUDA_TRACE", "true"},
    {S_MODERN, "PROFILING_SESSION_UUID", "5b0c3d6e-2f41-4a8e-9c57-0d1e2f3a4b5c"},
    {S_MODERN, "INCLUDE_CHILDREN", "true"},
};

struct gpu_model {
    const char *name, *chip;
    int64_t l2, total_memory, memory_bandwidth, clock_hz;
    int sms, cc_major, cc_minor, shmem_optin, shmem_per_sm, async_engines, warps_per_sm,
        blocks_per_sm, max_ipc;
};

struct schema_info {
    const char *name;
    const struct gpu_model gpu;
    const char *const *builtin_strings; /* StringIds rows nsys writes before any event */
    size_t nbuiltin;
    int64_t utc_epoch_ns;
    const char *utc_time;
    const char *bus_format;
};

static const char *const modern_builtins[] = {"GpuMetrics", "SocMetrics", "GenericCounters", "mm_",
                                              "task_submit", "[NSys]", "[NSys Comms]"};
static const char *const y2022_builtins[] = {"QnxKernelTrace", "GpuMetrics", "mm_", "task_submit",
                                             "class_id", "syncpt_id", "syncpt_thresh", "pid"};
static const char *const legacy_builtins[] = {"[Unknown]", "[kernel.kallsyms]", "[Max depth]",
                                              "[Broken backtraces]", "[Called from Java]",
                                              "QnxKernelTrace", "mm_", "task_submit"};

static const struct schema_info schemas[] = {
    [SCHEMA_MODERN] = {"modern",
                       {"NVIDIA H100 80GB HBM3", "GH100", 52428800, INT64_C(85029158912),
                        INT64_C(3352320000000), 1980000000, 132, 9, 0, 232448, 233472, 3, 64, 32, 0},
                       modern_builtins, ARRAY_LEN(modern_builtins), INT64_C(1779787126655288414),
                       "2026-05-26T09:18:46", "0000:%02x:00.0"},
    [SCHEMA_2022] = {"2022",
                     {"NVIDIA A100-SXM4-40GB", "GA100", 41943040, INT64_C(42505273344),
                      INT64_C(1555200000000), 1410000000, 108, 8, 0, 166912, 167936, 3, 64, 32, 4},
                     y2022_builtins, ARRAY_LEN(y2022_builtins), INT64_C(1674695591359662545),
                     "2023-01-26T01:13:11", "0000:%02X:00.0"},
    [SCHEMA_LEGACY] = {"legacy",
                       {"Quadro RTX 8000", "TU102", 6291456, INT64_C(50962169856),
                        INT64_C(672000000000), 1770000000, 72, 7, 5, 65536, 65536, 3, 32, 16, 4},
                       legacy_builtins, ARRAY_LEN(legacy_builtins), 0, NULL, "0000:%02X:00.0"},
};

/* PCI bus numbers of the first devices, like a typical 8-GPU server. */
static const int bus_numbers[] = {0x1b, 0x43, 0x52, 0x61, 0x9d, 0xc3, 0xd1, 0xdf};

/* ------------------------------------------------------------------------------------
 * Workload vocabulary: API calls and kernels
 * ---------------------------------------------------------------------------------- */

enum api_id {
    API_NONE, API_LAUNCH_KERNEL, API_CU_LAUNCH_KERNEL, API_CU_LAUNCH_KERNEL_EX, API_MEMCPY_ASYNC,
    API_CU_MEMCPY_ASYNC, API_MEMSET_ASYNC, API_CU_MEMSET_ASYNC, API_STREAM_SYNC,
    API_CU_STREAM_SYNC, API_EVENT_SYNC, API_DEVICE_SYNC, API_STREAM_WAIT_EVENT, API_GET_DEVICE,
    API_EVENT_RECORD, API_STREAM_IS_CAPTURING, API_GET_LAST_ERROR, API_EVENT_QUERY,
    API_CU_GET_PROC_ADDRESS, API_CU_KERNEL_GET_ATTRIBUTE, API_MALLOC, API_FREE,
    /* Only with --graphs, and interned last, so that other StringIds keep their ids. */
    API_GRAPH_CREATE, API_GRAPH_ADD_KERNEL_NODE, API_GRAPH_INSTANTIATE, API_GRAPH_LAUNCH, API__COUNT
};
#define API_FIRST_GRAPH API_GRAPH_CREATE

struct api_def {
    const char *name;
    int event_class;
    int64_t min_ns, max_ns; /* duration when the call does not block */
    int misc_weight;        /* > 0: issued on its own, without GPU work */
    enum api_id nested;     /* driver call sometimes traced inside this runtime call */
};

static const struct api_def api_defs[API__COUNT] = {
    [API_LAUNCH_KERNEL] = {"cudaLaunchKernel_v7000", CLASS_CUDA_RUNTIME, 3000, 12000, 0, API_CU_LAUNCH_KERNEL},
    [API_CU_LAUNCH_KERNEL] = {"cuLaunchKernel", CLASS_CUDA_DRIVER, 2500, 9000, 0, API_NONE},
    [API_CU_LAUNCH_KERNEL_EX] = {"cuLaunchKernelEx", CLASS_CUDA_DRIVER, 3000, 11000, 0, API_NONE},
    [API_MEMCPY_ASYNC] = {"cudaMemcpyAsync_v3020", CLASS_CUDA_RUNTIME, 3500, 15000, 0, API_CU_MEMCPY_ASYNC},
    [API_CU_MEMCPY_ASYNC] = {"cuMemcpyAsync", CLASS_CUDA_DRIVER, 2500, 12000, 0, API_NONE},
    [API_MEMSET_ASYNC] = {"cudaMemsetAsync_v3020", CLASS_CUDA_RUNTIME, 3000, 10000, 0, API_CU_MEMSET_ASYNC},
    [API_CU_MEMSET_ASYNC] = {"cuMemsetD8Async", CLASS_CUDA_DRIVER, 2500, 8000, 0, API_NONE},
    [API_STREAM_SYNC] = {"cudaStreamSynchronize_v3020", CLASS_CUDA_RUNTIME, 2000, 6000, 0, API_CU_STREAM_SYNC},
    [API_CU_STREAM_SYNC] = {"cuStreamSynchronize", CLASS_CUDA_DRIVER, 1500, 5000, 0, API_NONE},
    [API_EVENT_SYNC] = {"cudaEventSynchronize_v3020", CLASS_CUDA_RUNTIME, 2000, 6000, 0, API_NONE},
    [API_DEVICE_SYNC] = {"cudaDeviceSynchronize_v3020", CLASS_CUDA_RUNTIME, 2000, 6000, 0, API_NONE},
    [API_STREAM_WAIT_EVENT] = {"cudaStreamWaitEvent_v3020", CLASS_CUDA_RUNTIME, 1500, 4000, 0, API_NONE},
    [API_GET_DEVICE] = {"cudaGetDevice_v3020", CLASS_CUDA_RUNTIME, 300, 900, 20, API_NONE},
    [API_EVENT_RECORD] = {"cudaEventRecord_v3020", CLASS_CUDA_RUNTIME, 1500, 4000, 20, API_NONE},
    [API_STREAM_IS_CAPTURING] = {"cudaStreamIsCapturing_v10000", CLASS_CUDA_RUNTIME, 400, 1500, 15, API_NONE},
    [API_GET_LAST_ERROR] = {"cudaGetLastError_v3020", CLASS_CUDA_RUNTIME, 200, 600, 15, API_NONE},
    [API_EVENT_QUERY] = {"cudaEventQuery_v3020", CLASS_CUDA_RUNTIME, 1000, 4000, 10, API_NONE},
    [API_CU_GET_PROC_ADDRESS] = {"cuGetProcAddress_v2", CLASS_CUDA_DRIVER, 200, 800, 8, API_NONE},
    [API_CU_KERNEL_GET_ATTRIBUTE] = {"cuKernelGetAttribute", CLASS_CUDA_DRIVER, 200, 600, 8, API_NONE},
    [API_MALLOC] = {"cudaMalloc_v3020", CLASS_CUDA_RUNTIME, 5000, 200000, 2, API_NONE},
    [API_FREE] = {"cudaFree_v3020", CLASS_CUDA_RUNTIME, 3000, 100000, 2, API_NONE},
    [API_GRAPH_CREATE] = {"cudaGraphCreate_v10000", CLASS_CUDA_RUNTIME, 1500, 5000, 0, API_NONE},
    [API_GRAPH_ADD_KERNEL_NODE] = {"cudaGraphAddKernelNode_v10000", CLASS_CUDA_RUNTIME, 1500, 6000, 0, API_NONE},
    [API_GRAPH_INSTANTIATE] = {"cudaGraphInstantiate_v10000", CLASS_CUDA_RUNTIME, 20000, 200000, 0, API_NONE},
    [API_GRAPH_LAUNCH] = {"cudaGraphLaunch_v10000", CLASS_CUDA_RUNTIME, 4000, 25000, 0, API_NONE},
};

#define CUDA_ERROR_NOT_READY 600 /* what cudaEventQuery returns while work is pending */

struct kernel_def {
    const char *short_name, *demangled, *mangled; /* extern "C" kernels: all three equal */
    int weight;
    enum api_id launch;
    int64_t min_ns, max_ns;
    int regs, grid[3], block[3];
    int static_smem, dynamic_smem, smem_executed, smem_limit_config;
    int cluster[3], max_cluster_size, max_active_clusters;
    int64_t local_memory_total;
};

/* Names as nsys writes them (NVIDIA's demangler style); mostly taken from real PyTorch,
 * cuBLAS, NCCL, flash-attention and Triton reports. */
static const struct kernel_def kernel_defs[] = {
    {"vectorized_elementwise_kernel",
     "void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>, "
     "std::array<char *, (unsigned long)3>>(int, T2, T3)",
     "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EEEEviT0_T1_",
     30, API_LAUNCH_KERNEL, 2000, 200000, 32, {46800, 1, 1}, {128, 1, 1}, 0, 0, 32768, 0,
     {0, 0, 0}, 0, 0, 250871808},
    {"elementwise_kernel",
     "void at::native::elementwise_kernel<(int)128, (int)4, void at::native::gpu_kernel_impl<"
     "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float>>>"
     "(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)",
     "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implINS0_13BinaryFunctorIfffNS0_"
     "15binary_internal10MulFunctorIfEEEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
     15, API_LAUNCH_KERNEL, 4000, 300000, 32, {46800, 1, 1}, {128, 1, 1}, 0, 0, 32768, 0,
     {0, 0, 0}, 0, 0, 250871808},
    {"reduce_kernel",
     "void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float, "
     "at::native::MeanOps<float, float, float, float>, unsigned int, float, (int)4, (int)4>>(T3)",
     "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7MeanOpsIffffEEjfLi4ELi4EEEEEvT1_",
     10, API_LAUNCH_KERNEL, 4000, 100000, 32, {975, 1, 1}, {32, 16, 1}, 16, 0, 32768, 0,
     {0, 0, 0}, 0, 0, 250871808},
    {"vectorized_layer_norm_kernel",
     "void at::native::<unnamed>::vectorized_layer_norm_kernel<float, float, (bool)0>(int, T2, "
     "const T1 *, const T1 *, const T1 *, T2 *, T2 *, T1 *)",
     "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a28vectorized_layer_norm_"
     "kernelIffLb0EEEviT0_PKT_S6_S6_PS3_S7_PS4_",
     10, API_LAUNCH_KERNEL, 8000, 150000, 39, {15600, 1, 1}, {32, 4, 1}, 0, 24, 32768, 0,
     {0, 0, 0}, 0, 0, 250871808},
    {"gemm_kernel", "void gemm_kernel<float, (int)128>(const T1 *, const T1 *, T1 *, int, int, int)",
     "_Z11gemm_kernelIfLi128EEvPKT_S2_PS0_iii", 10, API_LAUNCH_KERNEL, 40000, 1000000, 128,
     {64, 32, 1}, {128, 1, 1}, 32768, 0, 65536, 0, {0, 0, 0}, 0, 0, 787218432},
    {"flash_fwd_kernel",
     "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<(int)128, (int)128, (int)64, (int)4, "
     "(bool)0, (bool)0, cutlass::bfloat16_t, Flash_kernel_traits<(int)128, (int)128, (int)64, (int)4, "
     "cutlass::bfloat16_t>>, (bool)0, (bool)0, (bool)0, (bool)0, (bool)0, (bool)1, (bool)0, (bool)0>"
     "(flash::Flash_fwd_params)",
     "_ZN5flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi128ELi128ELi64ELi4ELb0ELb0EN7cutlass10"
     "bfloat16_tE19Flash_kernel_traitsILi128ELi128ELi64ELi4ES3_EELb0ELb0ELb0ELb0ELb0ELb1ELb0ELb0EEEvNS_"
     "16Flash_fwd_paramsE",
     4, API_LAUNCH_KERNEL, 200000, 2000000, 255, {122, 1, 12}, {128, 1, 1}, 0, 65536, 135168, 1,
     {0, 0, 0}, 0, 0, 787218432},
    {"nvjet_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNN", "nvjet_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNN",
     "nvjet_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNN", 8, API_CU_LAUNCH_KERNEL_EX, 20000, 1000000, 168,
     {2, 66, 1}, {384, 1, 1}, 0, 213196, 233472, 1, {2, 1, 1}, 16, 66, 285474816},
    {"triton_poi_fused_add_mul_0", "triton_poi_fused_add_mul_0", "triton_poi_fused_add_mul_0", 8,
     API_CU_LAUNCH_KERNEL, 2000, 50000, 24, {1024, 1, 1}, {128, 1, 1}, 0, 0, 16384, 0, {0, 0, 0}, 0,
     0, 250871808},
    {"ncclDevKernel_SendRecv", "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<(unsigned long)4096>)",
     "_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE", 4, API_LAUNCH_KERNEL, 20000,
     2000000, 96, {32, 1, 1}, {640, 1, 1}, 21568, 82240, 135168, 1, {0, 0, 0}, 0, 0, 285474816},
};

/* Operation mix. Each GPU operation also produces its launching API row, so with these
 * weights rows come out at about 28% kernels, 8% memcpy, 4% memset, 4% sync and 56%
 * runtime/driver API (launches, nested driver calls and calls without GPU work). */
enum op { OP_KERNEL, OP_MEMCPY, OP_MEMSET, OP_SYNC, OP_MISC, OP__COUNT };
static const int op_weights[OP__COUNT] = {
    [OP_KERNEL] = 56, [OP_MEMCPY] = 16, [OP_MEMSET] = 8, [OP_SYNC] = 8, [OP_MISC] = 12,
};

enum copy_choice { CP_HTOD, CP_DTOH, CP_DTOD, CP_PTOP, CP__COUNT };
static const int copy_weights[CP__COUNT] = {[CP_HTOD] = 35, [CP_DTOH] = 25, [CP_DTOD] = 25, [CP_PTOP] = 15};

enum sync_choice { SC_STREAM, SC_EVENT, SC_WAIT_EVENT, SC_DEVICE, SC__COUNT };
static const int sync_weights[SC__COUNT] = {
    [SC_STREAM] = 45, [SC_EVENT] = 20, [SC_WAIT_EVENT] = 25, [SC_DEVICE] = 10,
};

#define NESTED_DRIVER_PCT 15 /* runtime calls with a traced driver call inside */
#define ORPHAN_PERMILLE 10   /* GPU rows whose launching call was not traced */
#define HOME_DEVICE_PCT 85   /* operations a thread sends to its own device */
#define MAX_BYTES (INT64_C(64) << 20)

/* ------------------------------------------------------------------------------------
 * CPU-side vocabulary (--osrt, --sched, --samples): modules, frames, call paths, OS
 * runtime calls. Names, modules and value shapes follow real exports; see "CPU side".
 * ---------------------------------------------------------------------------------- */

#define OSRT_BACKTRACE_NS 80000 /* nsys --osrt-backtrace-threshold: longer calls get a callchain */
#define BLOCK_NS 30000          /* blocking calls and CUDA syncs longer than this sleep */
#define SYSTEM_CPUS 8           /* CPUs the samples run on when --sched is not given */

/* Modules (OSRT_CALLCHAINS/SAMPLING_CALLCHAINS.module) with the base their frames' addresses
 * (originalIP) are computed from. */
enum module_id {
    MOD_UNKNOWN, MOD_KERNEL, MOD_MAX_DEPTH, MOD_BROKEN, MOD_PYTHON, MOD_LIBC, MOD_LIBSTDCXX, MOD_TORCH_PYTHON,
    MOD_TORCH_CPU, MOD_TORCH_CUDA, MOD_C10_CUDA, MOD_CUDART, MOD_LIBCUDA, MOD_CUPTI, MOD_INJECTION,
    MOD_LSCPU, MOD__COUNT
};

struct module_def {
    const char *path;
    uint64_t base;
};

#define TORCH_LIB "/usr/local/lib/python3.10/dist-packages/torch/lib/"
#define NSYS_LIB "/opt/nvidia/nsight-systems/2025.1.1/target-linux-x64/"
static const struct module_def module_defs[MOD__COUNT] = {
    [MOD_UNKNOWN] = {"[Unknown]", 0},
    [MOD_KERNEL] = {"[kernel.kallsyms]", UINT64_C(0xffffffff9a000000)},
    [MOD_MAX_DEPTH] = {"[Max depth]", 0},
    [MOD_BROKEN] = {"[Broken backtraces]", 0},
    [MOD_PYTHON] = {"/usr/bin/python3.10", UINT64_C(0x55d4c8a00000)},
    [MOD_LIBC] = {"/usr/lib/x86_64-linux-gnu/libc.so.6", UINT64_C(0x7f8e2f000000)},
    [MOD_LIBSTDCXX] = {"/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", UINT64_C(0x7f8e2f400000)},
    [MOD_TORCH_PYTHON] = {TORCH_LIB "libtorch_python.so", UINT64_C(0x7f8e10000000)},
    [MOD_TORCH_CPU] = {TORCH_LIB "libtorch_cpu.so", UINT64_C(0x7f8de0000000)},
    [MOD_TORCH_CUDA] = {TORCH_LIB "libtorch_cuda.so", UINT64_C(0x7f8d90000000)},
    [MOD_C10_CUDA] = {TORCH_LIB "libc10_cuda.so", UINT64_C(0x7f8e2e800000)},
    [MOD_CUDART] = {"/usr/local/cuda/lib64/libcudart.so.12", UINT64_C(0x7f8e2e000000)},
    [MOD_LIBCUDA] = {"/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", UINT64_C(0x7f8d60000000)},
    [MOD_CUPTI] = {NSYS_LIB "libcupti.so.12.8", UINT64_C(0x7f8d50000000)},
    [MOD_INJECTION] = {NSYS_LIB "libToolsInjection64.so", UINT64_C(0x7f8d48000000)},
    [MOD_LSCPU] = {"/usr/bin/lscpu", UINT64_C(0x5612f3e00000)},
};

/* Frames. A NULL symbol is an unresolved one (stripped library, kernel): nsys then names the
 * frame after its address ("0x7f8d6012a4b7", unresolved = 1). */
struct frame_def {
    const char *symbol;
    enum module_id module;
    uint32_t offset; /* originalIP - module base */
};

enum frame_id {
    F_MAX_DEPTH, F_BROKEN, F_UNKNOWN_0, F_START, F_LIBC_START_MAIN, F_LIBC_CALL_MAIN, F_PY_BYTES_MAIN, F_PY_RUN_MAIN,
    F_PY_EVAL, F_PY_VECTORCALL, F_PY_MAKE_TP_CALL, F_PY_GETATTR, F_PY_LOOKDICT, F_PY_READINTO, F_PY_READ,
    F_OS_FORK, F_INT_MALLOC, F_CLONE3, F_START_THREAD, F_THREAD_ROUTINE, F_STD_THREAD_START,
    F_ENGINE_THREAD_INIT, F_ENGINE_THREAD_MAIN, F_ENGINE_EVALUATE, F_READY_QUEUE_POP, F_START_DEVICE_THREADS,
    F_MUL_BACKWARD, F_CONDVAR_WAIT, F_THPV_ADD, F_THPV_TO, F_THPV_ITEM, F_ADD_OP, F_ITER_BUILD, F_COPY,
    F_ADD_KERNEL, F_EMPTY, F_GPU_KERNEL, F_MUL_KERNEL, F_COPY_KERNEL, F_LOCAL_SCALAR, F_CACHING_MALLOC,
    F_CUDA_LAUNCH, F_CUDA_MEMCPY, F_CUDA_SYNC, F_CUDA_MALLOC, F_LIBCUDA_1, F_LIBCUDA_2, F_LIBCUDA_3,
    F_LIBCUDA_4, F_LIBCUDA_5, F_LIBCUDA_6, F_CUPTI_1, F_CUPTI_2, F_CUPTI_3, F_INJ_1, F_INJ_2, F_INJ_3,
    F_INJ_4, F_LSCPU_START, F_LSCPU_MAIN, F_LSCPU_1, F_IOCTL, F_READ, F_WRITE, F_OPEN64, F_CLOSE, F_FOPEN,
    F_FCLOSE, F_MMAP, F_MUNMAP, F_MPROTECT, F_MUTEX_LOCK, F_COND_WAIT, F_COND_SIGNAL, F_SEM_WAIT,
    F_SEM_TIMEDWAIT, F_POLL, F_NANOSLEEP, F_SCHED_YIELD, F_PTHREAD_CREATE, F_FORK, F_KERNEL_1, F_KERNEL_2,
    F_KERNEL_3, F_KERNEL_4, F__COUNT
};
#define F_FIRST_KERNEL F_KERNEL_1

static const struct frame_def frame_defs[F__COUNT] = {
    /* Special entries (no address): the end of a truncated stack, of one the unwinder lost;
     * then a frame the unwinder could not read. */
    [F_MAX_DEPTH] = {"[Max depth]", MOD_MAX_DEPTH, 0},
    [F_BROKEN] = {"[Broken backtraces]", MOD_BROKEN, 0},
    [F_UNKNOWN_0] = {"0x0", MOD_UNKNOWN, 0},
    [F_START] = {"_start", MOD_PYTHON, 0x2a3b65},
    [F_LIBC_START_MAIN] = {"__libc_start_main@@GLIBC_2", MOD_LIBC, 0x29e40}, /* sic: cut at the dot */
    [F_LIBC_CALL_MAIN] = {"__libc_start_call_main", MOD_LIBC, 0x29d90},
    [F_PY_BYTES_MAIN] = {"Py_BytesMain", MOD_PYTHON, 0x2a3a7d},
    [F_PY_RUN_MAIN] = {"Py_RunMain", MOD_PYTHON, 0x2a39d6},
    [F_PY_EVAL] = {"_PyEval_EvalFrameDefault", MOD_PYTHON, 0x15b2c1},
    [F_PY_VECTORCALL] = {"_PyFunction_Vectorcall", MOD_PYTHON, 0x16c5ac},
    [F_PY_MAKE_TP_CALL] = {"_PyObject_MakeTpCall", MOD_PYTHON, 0x15e8b3},
    [F_PY_GETATTR] = {"_PyObject_GenericGetAttrWithDict", MOD_PYTHON, 0x1600f0},
    [F_PY_LOOKDICT] = {"lookdict_unicode_nodummy", MOD_PYTHON, 0x17aa10},
    [F_PY_READINTO] = {"_io_FileIO_readinto", MOD_PYTHON, 0x259c47},
    [F_PY_READ] = {"_Py_read", MOD_PYTHON, 0x2741e3},
    [F_OS_FORK] = {"os_fork_impl", MOD_PYTHON, 0x28c1a2},
    [F_INT_MALLOC] = {"_int_malloc", MOD_LIBC, 0xa2f8a},
    [F_CLONE3] = {"__GI___clone3", MOD_LIBC, 0x12684f},
    [F_START_THREAD] = {"start_thread", MOD_LIBC, 0x94ac2},
    [F_THREAD_ROUTINE] = {"execute_native_thread_routine", MOD_LIBSTDCXX, 0xdc252},
    [F_STD_THREAD_START] = {"std::thread::_M_start_thread(std::unique_ptr<std::thread::_State, "
                            "std::default_delete<std::thread::_State> >, void (*)())",
                            MOD_LIBSTDCXX, 0xdc318},
    [F_ENGINE_THREAD_INIT] = {"torch::autograd::Engine::thread_init(int, std::shared_ptr<torch::autograd::"
                              "ReadyQueue> const&, bool)", MOD_TORCH_CPU, 0x4a8b1e2},
    [F_ENGINE_THREAD_MAIN] = {"torch::autograd::Engine::thread_main(std::shared_ptr<torch::autograd::"
                              "GraphTask> const&)", MOD_TORCH_CPU, 0x4a89c57},
    [F_ENGINE_EVALUATE] = {"torch::autograd::Engine::evaluate_function(std::shared_ptr<torch::autograd::"
                           "GraphTask>&, torch::autograd::Node*, torch::autograd::InputBuffer&, "
                           "std::shared_ptr<torch::autograd::ReadyQueue> const&)", MOD_TORCH_CPU, 0x4a87f31},
    [F_READY_QUEUE_POP] = {"torch::autograd::ReadyQueue::pop()", MOD_TORCH_CPU, 0x4a84d9e},
    [F_START_DEVICE_THREADS] = {"torch::autograd::Engine::start_device_threads()", MOD_TORCH_CPU, 0x4a85a73},
    [F_MUL_BACKWARD] = {"torch::autograd::generated::MulBackward0::apply(std::vector<at::Tensor, "
                        "std::allocator<at::Tensor> >&&)", MOD_TORCH_CPU, 0x3f1c5d0},
    [F_CONDVAR_WAIT] = {"std::condition_variable::wait(std::unique_lock<std::mutex>&)", MOD_LIBSTDCXX, 0xd6f9c},
    [F_THPV_ADD] = {"torch::autograd::THPVariable_add(_object*, _object*, _object*)", MOD_TORCH_PYTHON, 0x5b8f21},
    [F_THPV_TO] = {"torch::autograd::THPVariable_to(_object*, _object*, _object*)", MOD_TORCH_PYTHON, 0x5e2a47},
    [F_THPV_ITEM] = {"torch::autograd::THPVariable_item(_object*, _object*)", MOD_TORCH_PYTHON, 0x5e0b93},
    [F_ADD_OP] = {"at::_ops::add_Tensor::call(at::Tensor const&, at::Tensor const&, c10::Scalar const&)",
                  MOD_TORCH_CPU, 0x1d6e0a5},
    [F_ITER_BUILD] = {"at::TensorIteratorBase::build(at::TensorIteratorConfig&)", MOD_TORCH_CPU, 0x1281c3e},
    [F_COPY] = {"at::native::copy_(at::Tensor&, at::Tensor const&, bool)", MOD_TORCH_CPU, 0x1101f4c},
    [F_ADD_KERNEL] = {"at::native::add_kernel(at::TensorIteratorBase&, c10::Scalar const&)", MOD_TORCH_CUDA,
                      0x1c4b7e0},
    [F_EMPTY] = {"", MOD_TORCH_CUDA, 0x1c4a8d3}, /* resolved to an empty name, as 2025.1 writes some */
    [F_GPU_KERNEL] = {"void at::native::gpu_kernel_impl<at::native::CUDAFunctor_add<float> >(at::"
                      "TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)",
                      MOD_TORCH_CUDA, 0x1c49a12},
    [F_MUL_KERNEL] = {"at::native::mul_kernel_cuda(at::TensorIteratorBase&)", MOD_TORCH_CUDA, 0x1d0a3f7},
    [F_COPY_KERNEL] = {"at::native::copy_kernel_cuda(at::TensorIterator&, bool)", MOD_TORCH_CUDA, 0x1b9e62d},
    [F_LOCAL_SCALAR] = {"at::native::_local_scalar_dense_cuda(at::Tensor const&)", MOD_TORCH_CUDA, 0x1f3c8b0},
    [F_CACHING_MALLOC] = {"c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(int, "
                          "unsigned long, CUstream_st*)", MOD_C10_CUDA, 0x2c9e1},
    [F_CUDA_LAUNCH] = {"cudaLaunchKernel", MOD_CUDART, 0x6f2a3},
    [F_CUDA_MEMCPY] = {"cudaMemcpyAsync", MOD_CUDART, 0x6a8c4},
    [F_CUDA_SYNC] = {"cudaStreamSynchronize", MOD_CUDART, 0x6c1e9},
    [F_CUDA_MALLOC] = {"cudaMalloc", MOD_CUDART, 0x5e9f0},
    [F_LIBCUDA_1] = {NULL, MOD_LIBCUDA, 0x2b4a1f7},
    [F_LIBCUDA_2] = {NULL, MOD_LIBCUDA, 0x2a81c3d},
    [F_LIBCUDA_3] = {NULL, MOD_LIBCUDA, 0x2cf0e58},
    [F_LIBCUDA_4] = {NULL, MOD_LIBCUDA, 0x2e1d6a9},
    [F_LIBCUDA_5] = {NULL, MOD_LIBCUDA, 0x29b7f12},
    [F_LIBCUDA_6] = {NULL, MOD_LIBCUDA, 0x2a0c5e4},
    [F_CUPTI_1] = {NULL, MOD_CUPTI, 0x3b2c71},
    [F_CUPTI_2] = {NULL, MOD_CUPTI, 0x3a9e05},
    [F_CUPTI_3] = {NULL, MOD_CUPTI, 0x41f6ba},
    [F_INJ_1] = {NULL, MOD_INJECTION, 0x8d1c0f},
    [F_INJ_2] = {NULL, MOD_INJECTION, 0x8c4e73},
    [F_INJ_3] = {NULL, MOD_INJECTION, 0x6a31d9},
    [F_INJ_4] = {NULL, MOD_INJECTION, 0x6b0f48},
    [F_LSCPU_START] = {"_start", MOD_LSCPU, 0x5c45},
    [F_LSCPU_MAIN] = {"main", MOD_LSCPU, 0x4a1b},
    [F_LSCPU_1] = {NULL, MOD_LSCPU, 0x8c2e},
    /* libc functions behind the traced OS runtime calls */
    [F_IOCTL] = {"__GI___ioctl", MOD_LIBC, 0x11eabb},
    [F_READ] = {"__libc_read", MOD_LIBC, 0x1147cc},
    [F_WRITE] = {"__libc_write", MOD_LIBC, 0x114867},
    [F_OPEN64] = {"__libc_open64", MOD_LIBC, 0x1142e8},
    [F_CLOSE] = {"__libc_close", MOD_LIBC, 0x114f67},
    [F_FOPEN] = {"_IO_new_fopen", MOD_LIBC, 0x7f6de},
    [F_FCLOSE] = {"_IO_new_fclose", MOD_LIBC, 0x7e2f3},
    [F_MMAP] = {"__GI___mmap64", MOD_LIBC, 0x11ebd6},
    [F_MUNMAP] = {"__GI___munmap", MOD_LIBC, 0x11ec8b},
    [F_MPROTECT] = {"__GI___mprotect", MOD_LIBC, 0x11ed1b},
    [F_MUTEX_LOCK] = {"___pthread_mutex_lock", MOD_LIBC, 0x97ef4},
    [F_COND_WAIT] = {"pthread_cond_wait@@GLIBC_2", MOD_LIBC, 0x93a1c},
    [F_COND_SIGNAL] = {"pthread_cond_signal@@GLIBC_2", MOD_LIBC, 0x93c82},
    [F_SEM_WAIT] = {"sem_wait@@GLIBC_2", MOD_LIBC, 0x9e5e1},
    [F_SEM_TIMEDWAIT] = {"sem_timedwait@@GLIBC_2", MOD_LIBC, 0x9e6b2},
    [F_POLL] = {"__GI___poll", MOD_LIBC, 0x118bcf},
    [F_NANOSLEEP] = {"__GI___nanosleep", MOD_LIBC, 0xeb7a5},
    [F_SCHED_YIELD] = {"__GI___sched_yield", MOD_LIBC, 0x1012fb},
    [F_PTHREAD_CREATE] = {"pthread_create@@GLIBC_2", MOD_LIBC, 0x94f63},
    [F_FORK] = {"__libc_fork", MOD_LIBC, 0xea5b4},
    /* kernel frames: only ever the leaf of a sample (kernelMode 1), never resolved */
    [F_KERNEL_1] = {NULL, MOD_KERNEL, 0xa00080},
    [F_KERNEL_2] = {NULL, MOD_KERNEL, 0x2d41c7},
    [F_KERNEL_3] = {NULL, MOD_KERNEL, 0x6c8a13},
    [F_KERNEL_4] = {NULL, MOD_KERNEL, 0x1b2e90},
};

/* A call path, outermost frame first. */
struct path {
    const uint8_t *frames;
    uint8_t n;
};
#define PATH(...) {(const uint8_t[]){__VA_ARGS__}, (uint8_t)sizeof((const uint8_t[]){__VA_ARGS__})}
#define MAX_CHAIN 16

/* What the threads of a process are: CUDA threads (the main one runs Python, the others are
 * autograd workers), nsys's and CUDA's helper threads, the child process, a kernel worker. */
enum cpu_role { ROLE_MAIN, ROLE_WORKER, ROLE_NSYS, ROLE_CUPTI, ROLE_EVT, ROLE_CHILD, ROLE_KWORKER, ROLE__COUNT };

/* Outer frames of every OSRT callchain of a thread. */
static const struct path role_prefix[ROLE__COUNT] = {
    [ROLE_MAIN] = PATH(F_START, F_LIBC_START_MAIN, F_LIBC_CALL_MAIN, F_PY_BYTES_MAIN, F_PY_RUN_MAIN, F_PY_EVAL),
    [ROLE_WORKER] = PATH(F_CLONE3, F_START_THREAD, F_THREAD_ROUTINE, F_ENGINE_THREAD_MAIN),
    [ROLE_CUPTI] = PATH(F_CLONE3, F_START_THREAD, F_CUPTI_1, F_CUPTI_2),
    [ROLE_EVT] = PATH(F_CLONE3, F_START_THREAD, F_LIBCUDA_4, F_LIBCUDA_5),
    [ROLE_CHILD] = PATH(F_LSCPU_START, F_LIBC_START_MAIN, F_LIBC_CALL_MAIN, F_LSCPU_MAIN),
};
/* Used instead when the chain would get longer than 8 frames: the unwinder gave up. */
static const struct path short_main_prefix = PATH(F_UNKNOWN_0, F_PY_EVAL);
#define MAX_OSRT_CHAIN 8

/* OS runtime calls. The durations are those of the calls nsys records (>= 1 us, its
 * --osrt-threshold); a call that blocks sleeps (is scheduled out) when it lasts >= BLOCK_NS. */
enum osrt_fn {
    OS_STARTED, OS_FINISHED, OS_IOCTL, OS_IOCTL_CUDA, OS_READ, OS_WRITE, OS_OPEN64, OS_CLOSE, OS_FOPEN,
    OS_FCLOSE, OS_MMAP64, OS_MUNMAP, OS_MPROTECT, OS_MUTEX_LOCK, OS_COND_WAIT, OS_COND_SIGNAL, OS_SEM_WAIT,
    OS_SEM_TIMEDWAIT, OS_POLL, OS_NANOSLEEP, OS_SCHED_YIELD, OS_PTHREAD_CREATE, OS_PTHREAD_CREATE_CUDA,
    OS_FORK, OS__COUNT
};

/* ENUM_NSYS_EVENT_CLASS ids of OSRT_API rows */
enum { CLASS_OS_RUNTIME = 27, CLASS_OS_RUNTIME_START = 31, CLASS_OS_RUNTIME_FINISH = 32 };

struct osrt_def {
    const char *name;
    int event_class;
    enum frame_id leaf;
    struct path main_mid, worker_mid; /* frames between the role's prefix and the leaf */
    int64_t min_ns, max_ns;           /* usual duration */
    int long_pct;                     /* calls that take long_min..long_max instead */
    int64_t long_min, long_max;
    bool blocks;
    int main_weight, worker_weight, child_weight; /* calls between CUDA calls / in the child */
};

static const struct osrt_def osrt_defs[OS__COUNT] = {
    [OS_STARTED] = {.name = "OS runtime libraries profiling started", .event_class = CLASS_OS_RUNTIME_START},
    [OS_FINISHED] = {.name = "OS runtime libraries profiling finished", .event_class = CLASS_OS_RUNTIME_FINISH},
    [OS_IOCTL] = {"ioctl", CLASS_OS_RUNTIME, F_IOCTL, {NULL, 0}, {NULL, 0}, 1200, 20000, 3, 80000, 900000,
                  false, 4, 0, 0},
    /* inside cudaMalloc/cudaFree */
    [OS_IOCTL_CUDA] = {"ioctl", CLASS_OS_RUNTIME, F_IOCTL, PATH(F_CACHING_MALLOC, F_CUDA_MALLOC, F_LIBCUDA_2),
                       {NULL, 0}, 1500, 30000, 8, 80000, 400000, false, 0, 0, 0},
    [OS_READ] = {"read", CLASS_OS_RUNTIME, F_READ, PATH(F_PY_READINTO, F_PY_READ), {NULL, 0}, 1500, 40000, 6,
                 90000, 4000000, true, 14, 0, 30},
    [OS_WRITE] = {"write", CLASS_OS_RUNTIME, F_WRITE, {NULL, 0}, {NULL, 0}, 1500, 25000, 1, 80000, 300000,
                  false, 7, 0, 6},
    [OS_OPEN64] = {"open64", CLASS_OS_RUNTIME, F_OPEN64, {NULL, 0}, {NULL, 0}, 3000, 40000, 2, 80000, 500000,
                   false, 5, 0, 20},
    [OS_CLOSE] = {"close", CLASS_OS_RUNTIME, F_CLOSE, {NULL, 0}, {NULL, 0}, 1000, 8000, 0, 0, 0, false, 4, 0, 18},
    [OS_FOPEN] = {"fopen", CLASS_OS_RUNTIME, F_FOPEN, {NULL, 0}, {NULL, 0}, 3000, 60000, 2, 80000, 700000,
                  false, 2, 0, 8},
    [OS_FCLOSE] = {"fclose", CLASS_OS_RUNTIME, F_FCLOSE, {NULL, 0}, {NULL, 0}, 1000, 20000, 0, 0, 0, false, 2,
                   0, 6},
    [OS_MMAP64] = {"mmap64", CLASS_OS_RUNTIME, F_MMAP, PATH(F_INT_MALLOC), {NULL, 0}, 1500, 25000, 1, 80000,
                   200000, false, 5, 1, 8},
    [OS_MUNMAP] = {"munmap", CLASS_OS_RUNTIME, F_MUNMAP, {NULL, 0}, {NULL, 0}, 2000, 40000, 2, 80000, 300000,
                   false, 4, 1, 4},
    [OS_MPROTECT] = {"mprotect", CLASS_OS_RUNTIME, F_MPROTECT, {NULL, 0}, {NULL, 0}, 1000, 4000, 0, 0, 0,
                     false, 0, 0, 0},
    [OS_MUTEX_LOCK] = {"pthread_mutex_lock", CLASS_OS_RUNTIME, F_MUTEX_LOCK, PATH(F_THPV_ADD, F_ADD_OP),
                       PATH(F_ENGINE_EVALUATE), 1000, 30000, 4, 80000, 2000000, true, 16, 12, 0},
    [OS_COND_WAIT] = {"pthread_cond_wait", CLASS_OS_RUNTIME, F_COND_WAIT, {NULL, 0},
                      PATH(F_READY_QUEUE_POP, F_CONDVAR_WAIT), 20000, 3000000, 0, 0, 0, true, 5, 20, 0},
    [OS_COND_SIGNAL] = {"pthread_cond_signal", CLASS_OS_RUNTIME, F_COND_SIGNAL, {NULL, 0},
                        PATH(F_ENGINE_EVALUATE), 1000, 6000, 0, 0, 0, false, 4, 8, 0},
    [OS_SEM_WAIT] = {"sem_wait", CLASS_OS_RUNTIME, F_SEM_WAIT, {NULL, 0}, {NULL, 0}, 20000, 2000000, 0, 0, 0,
                     true, 2, 0, 0},
    /* CUPTI worker thread: waits for buffers, 100 ms timeout */
    [OS_SEM_TIMEDWAIT] = {"sem_timedwait", CLASS_OS_RUNTIME, F_SEM_TIMEDWAIT, {NULL, 0}, {NULL, 0}, 99900000,
                          100200000, 10, 1000000, 100000000, true, 0, 0, 0},
    /* cuda-EvtHandlr: polls its event fds, 100 ms timeout */
    [OS_POLL] = {"poll", CLASS_OS_RUNTIME, F_POLL, {NULL, 0}, {NULL, 0}, 99800000, 100300000, 8, 500000,
                 100000000, true, 0, 0, 0},
    [OS_NANOSLEEP] = {"nanosleep", CLASS_OS_RUNTIME, F_NANOSLEEP, {NULL, 0}, {NULL, 0}, 55000, 1100000, 0, 0, 0,
                      true, 2, 0, 0},
    [OS_SCHED_YIELD] = {"sched_yield", CLASS_OS_RUNTIME, F_SCHED_YIELD, {NULL, 0}, {NULL, 0}, 1000, 6000, 0, 0,
                        0, false, 5, 2, 0},
    /* start-up only: the main thread creates the autograd threads ... */
    [OS_PTHREAD_CREATE] = {"pthread_create", CLASS_OS_RUNTIME, F_PTHREAD_CREATE,
                           PATH(F_START_DEVICE_THREADS, F_STD_THREAD_START), {NULL, 0}, 25000, 120000, 0, 0, 0,
                           false, 0, 0, 0},
    /* ... CUDA initialisation its helper threads ... */
    [OS_PTHREAD_CREATE_CUDA] = {"pthread_create", CLASS_OS_RUNTIME, F_PTHREAD_CREATE,
                                PATH(F_CUDA_MALLOC, F_LIBCUDA_1, F_LIBCUDA_6), {NULL, 0}, 30000, 150000, 0, 0,
                                0, false, 0, 0, 0},
    /* ... and the first process starts lscpu */
    [OS_FORK] = {"fork", CLASS_OS_RUNTIME, F_FORK, PATH(F_OS_FORK), {NULL, 0}, 150000, 700000, 0, 0, 0, false,
                 0, 0, 0},
};

/* What a thread is doing, for the call path of its samples: CUDA call kinds, host code,
 * an OS runtime call (ACT_OSRT + enum osrt_fn). */
enum { ACT_HOST, ACT_LAUNCH, ACT_COPY, ACT_SYNC, ACT_ALLOC, ACT_AUX, ACT_OSRT = 16 };

enum sample_path_id {
    SP_MAIN_HOST_1, SP_MAIN_HOST_2, SP_MAIN_HOST_3, SP_MAIN_HOST_4, SP_MAIN_LAUNCH, SP_MAIN_COPY, SP_MAIN_SYNC,
    SP_MAIN_ALLOC, SP_WORKER_HOST, SP_WORKER_LAUNCH, SP_NSYS, SP_CUPTI, SP_EVT, SP_CHILD, SP__COUNT
};

/* Sampled call paths: a small fixed set, so stacks repeat as in real reports. Most LBR-style
 * stacks nsys writes end in a "[Max depth]" entry instead of reaching _start or clone3.
 * kernel_pct: samples taken in the kernel, which get one kernel frame as their leaf. */
struct sample_path_def {
    struct path path;
    int kernel_pct;
};

static const struct sample_path_def sample_paths[SP__COUNT] = {
    [SP_MAIN_HOST_1] = {PATH(F_START, F_LIBC_START_MAIN, F_LIBC_CALL_MAIN, F_PY_BYTES_MAIN, F_PY_RUN_MAIN,
                             F_PY_EVAL, F_PY_VECTORCALL, F_PY_EVAL, F_PY_GETATTR), 2},
    [SP_MAIN_HOST_2] = {PATH(F_MAX_DEPTH, F_PY_EVAL, F_PY_MAKE_TP_CALL, F_THPV_ADD, F_ADD_OP, F_ITER_BUILD), 2},
    [SP_MAIN_HOST_3] = {PATH(F_MAX_DEPTH, F_PY_EVAL, F_PY_VECTORCALL, F_PY_EVAL, F_PY_LOOKDICT), 2},
    [SP_MAIN_HOST_4] = {PATH(F_START, F_LIBC_START_MAIN, F_LIBC_CALL_MAIN, F_PY_BYTES_MAIN, F_PY_RUN_MAIN,
                             F_PY_EVAL, F_PY_MAKE_TP_CALL, F_INT_MALLOC), 10},
    [SP_MAIN_LAUNCH] = {PATH(F_MAX_DEPTH, F_PY_EVAL, F_THPV_ADD, F_ADD_OP, F_ADD_KERNEL, F_EMPTY,
                             F_GPU_KERNEL, F_CUDA_LAUNCH, F_LIBCUDA_1, F_LIBCUDA_2), 15},
    [SP_MAIN_COPY] = {PATH(F_MAX_DEPTH, F_PY_EVAL, F_THPV_TO, F_COPY, F_COPY_KERNEL, F_CUDA_MEMCPY, F_LIBCUDA_1,
                           F_LIBCUDA_3), 15},
    [SP_MAIN_SYNC] = {PATH(F_MAX_DEPTH, F_PY_EVAL, F_THPV_ITEM, F_LOCAL_SCALAR, F_CUDA_SYNC, F_LIBCUDA_4,
                           F_SCHED_YIELD), 50},
    [SP_MAIN_ALLOC] = {PATH(F_MAX_DEPTH, F_PY_EVAL, F_THPV_ADD, F_ADD_OP, F_CACHING_MALLOC, F_CUDA_MALLOC,
                            F_LIBCUDA_2, F_IOCTL), 60},
    [SP_WORKER_HOST] = {PATH(F_CLONE3, F_START_THREAD, F_THREAD_ROUTINE, F_ENGINE_THREAD_INIT,
                             F_ENGINE_THREAD_MAIN, F_ENGINE_EVALUATE, F_MUL_BACKWARD, F_ITER_BUILD), 2},
    [SP_WORKER_LAUNCH] = {PATH(F_CLONE3, F_START_THREAD, F_THREAD_ROUTINE, F_ENGINE_THREAD_INIT,
                               F_ENGINE_THREAD_MAIN, F_ENGINE_EVALUATE, F_MUL_BACKWARD, F_MUL_KERNEL,
                               F_CUDA_LAUNCH, F_LIBCUDA_1, F_LIBCUDA_2), 15},
    [SP_NSYS] = {PATH(F_BROKEN, F_INJ_1, F_INJ_2, F_INJ_3, F_INJ_4), 10},
    [SP_CUPTI] = {PATH(F_CLONE3, F_START_THREAD, F_CUPTI_1, F_CUPTI_3, F_INT_MALLOC), 10},
    [SP_EVT] = {PATH(F_CLONE3, F_START_THREAD, F_LIBCUDA_4, F_LIBCUDA_5, F_POLL), 70},
    [SP_CHILD] = {PATH(F_LSCPU_START, F_LIBC_START_MAIN, F_LIBC_CALL_MAIN, F_LSCPU_MAIN, F_LSCPU_1, F_READ), 40},
};
#define OSRT_SAMPLE_KERNEL_PCT 60 /* samples inside an OS runtime call */

/* ------------------------------------------------------------------------------------
 * Vocabulary of the further tables: library calls, MPI calls, OpenACC constructs, OpenMP
 * event names, unified-memory fault sites, GPU metrics. See "Further tables".
 * ---------------------------------------------------------------------------------- */

/* cuBLAS / cuDNN calls (CUBLAS_EVENTS / CUDNN_EVENTS nameId). WRAP ones contain the kernel
 * launch they make (and sometimes the next CUDA call); SHORT ones run on their own. */
enum library_use { LIB_USE_GEMM, LIB_USE_DNN, LIB_USE_SHORT };
enum library_fn {
    LIB_GEMM_EX, LIB_SGEMM, LIB_GEMM_BATCHED, LIB_SGEMM_BATCHED, LIB_SET_STREAM, LIB_SET_MATH_MODE,
    LIB_SET_WORKSPACE, LIB_GET_MATH_MODE, DNN_CONV_FWD, DNN_CONV_BWD_DATA, DNN_CONV_BWD_FILTER,
    DNN_BN_FWD_TRAINING, DNN_SOFTMAX_FWD, DNN_ADD_TENSOR, DNN_SET_STREAM, DNN_SET_TENSOR_DESC,
    DNN_SET_FILTER_DESC, DNN_SET_CONV_DESC, DNN_GET_CONV_WORKSPACE, DNN_CREATE_TENSOR_DESC,
    DNN_DESTROY_TENSOR_DESC, LIB__COUNT
};
#define CLASS_CUDNN 28
#define CLASS_CUBLAS 29
static const struct {
    const char *name;
    bool cudnn;
    enum library_use use;
} library_fns[LIB__COUNT] = {
    [LIB_GEMM_EX] = {"cublasGemmEx", false, LIB_USE_GEMM},
    [LIB_SGEMM] = {"cublasSgemm_v2", false, LIB_USE_GEMM},
    [LIB_GEMM_BATCHED] = {"cublasGemmStridedBatchedEx", false, LIB_USE_GEMM},
    [LIB_SGEMM_BATCHED] = {"cublasSgemmStridedBatched", false, LIB_USE_GEMM},
    [LIB_SET_STREAM] = {"cublasSetStream_v2", false, LIB_USE_SHORT},
    [LIB_SET_MATH_MODE] = {"cublasSetMathMode", false, LIB_USE_SHORT},
    [LIB_SET_WORKSPACE] = {"cublasSetWorkspace_v2", false, LIB_USE_SHORT},
    [LIB_GET_MATH_MODE] = {"cublasGetMathMode", false, LIB_USE_SHORT},
    [DNN_CONV_FWD] = {"cudnnConvolutionForward", true, LIB_USE_DNN},
    [DNN_CONV_BWD_DATA] = {"cudnnConvolutionBackwardData", true, LIB_USE_DNN},
    [DNN_CONV_BWD_FILTER] = {"cudnnConvolutionBackwardFilter", true, LIB_USE_DNN},
    [DNN_BN_FWD_TRAINING] = {"cudnnBatchNormalizationForwardTraining", true, LIB_USE_DNN},
    [DNN_SOFTMAX_FWD] = {"cudnnSoftmaxForward", true, LIB_USE_DNN},
    [DNN_ADD_TENSOR] = {"cudnnAddTensor", true, LIB_USE_DNN},
    [DNN_SET_STREAM] = {"cudnnSetStream", true, LIB_USE_SHORT},
    [DNN_SET_TENSOR_DESC] = {"cudnnSetTensorNdDescriptor", true, LIB_USE_SHORT},
    [DNN_SET_FILTER_DESC] = {"cudnnSetFilterNdDescriptor", true, LIB_USE_SHORT},
    [DNN_SET_CONV_DESC] = {"cudnnSetConvolutionNdDescriptor", true, LIB_USE_SHORT},
    [DNN_GET_CONV_WORKSPACE] = {"cudnnGetConvolutionForwardWorkspaceSize", true, LIB_USE_SHORT},
    [DNN_CREATE_TENSOR_DESC] = {"cudnnCreateTensorDescriptor", true, LIB_USE_SHORT},
    [DNN_DESTROY_TENSOR_DESC] = {"cudnnDestroyTensorDescriptor", true, LIB_USE_SHORT},
};

/* MPI calls (textId) and the table each goes to. Handles and request values as MPICH
 * writes them (MPI_COMM_WORLD 0x44000000, a duplicated communicator 0x84000002, requests
 * 0xac00000n, reused once completed). */
enum mpi_fn {
    MF_INIT, MF_COMM_RANK, MF_COMM_SIZE, MF_COMM_DUP, MF_IRECV, MF_ISEND, MF_TEST, MF_WAIT, MF_SEND, MF_RECV,
    MF_ALLREDUCE, MF_BCAST, MF_BARRIER, MF_ALLGATHER, MF_REDUCE, MF_IALLREDUCE, MF_FINALIZE, MF__COUNT
};
static const struct {
    const char *name;
    enum table_id table;
} mpi_fns[MF__COUNT] = {
    [MF_INIT] = {"MPI_Init", T_MPI_OTHER},
    [MF_COMM_RANK] = {"MPI_Comm_rank", T_MPI_OTHER},
    [MF_COMM_SIZE] = {"MPI_Comm_size", T_MPI_OTHER},
    [MF_COMM_DUP] = {"MPI_Comm_dup", T_MPI_OTHER},
    [MF_IRECV] = {"MPI_Irecv", T_MPI_P2P},
    [MF_ISEND] = {"MPI_Isend", T_MPI_P2P},
    [MF_TEST] = {"MPI_Test", T_MPI_START_WAIT},
    [MF_WAIT] = {"MPI_Wait", T_MPI_START_WAIT},
    [MF_SEND] = {"MPI_Send", T_MPI_P2P},
    [MF_RECV] = {"MPI_Recv", T_MPI_P2P},
    [MF_ALLREDUCE] = {"MPI_Allreduce", T_MPI_COLLECTIVES},
    [MF_BCAST] = {"MPI_Bcast", T_MPI_COLLECTIVES},
    [MF_BARRIER] = {"MPI_Barrier", T_MPI_COLLECTIVES},
    [MF_ALLGATHER] = {"MPI_Allgather", T_MPI_COLLECTIVES},
    [MF_REDUCE] = {"MPI_Reduce", T_MPI_COLLECTIVES},
    [MF_IALLREDUCE] = {"MPI_Iallreduce", T_MPI_COLLECTIVES},
    [MF_FINALIZE] = {"MPI_Finalize", T_MPI_OTHER},
};
#define MPI_COMM_WORLD_HANDLE INT64_C(0x44000000)
#define MPI_COMM_DUP_HANDLE INT64_C(0x84000002)
#define MPI_REQUEST_BASE INT64_C(0xac000000)

/* OpenACC event names as nsys writes them (openacc_sum shows "Compute Construct@layers.c:118"),
 * their ENUM_OPENACC_EVENT_KIND ids and tables. */
enum acc_event {
    ACC_ENQUEUE_LAUNCH, ACC_ENQUEUE_UPLOAD, ACC_ENQUEUE_DOWNLOAD, ACC_WAIT, ACC_COMPUTE, ACC_UPDATE,
    ACC_ENTER_DATA, ACC_EXIT_DATA, ACC__COUNT
};
static const struct {
    const char *name;
    int kind;
    enum table_id table;
} acc_events[ACC__COUNT] = {
    [ACC_ENQUEUE_LAUNCH] = {"Enqueue Launch", 4, T_ACC_LAUNCH},
    [ACC_ENQUEUE_UPLOAD] = {"Enqueue Upload", 5, T_ACC_DATA},
    [ACC_ENQUEUE_DOWNLOAD] = {"Enqueue Download", 6, T_ACC_DATA},
    [ACC_WAIT] = {"Wait", 7, T_ACC_OTHER},
    [ACC_COMPUTE] = {"Compute Construct", 9, T_ACC_OTHER},
    [ACC_UPDATE] = {"Update", 10, T_ACC_OTHER},
    [ACC_ENTER_DATA] = {"Enter Data", 11, T_ACC_OTHER},
    [ACC_EXIT_DATA] = {"Exit Data", 12, T_ACC_OTHER},
};

/* Directives of an NVHPC-compiled program. Launch sites: the construct (outer, NULL for a
 * launch of the runtime's own) and the kernel (extra); data sites: the construct and the
 * variable (extra). */
enum acc_site_kind { ACC_SITE_LAUNCH, ACC_SITE_UPLOAD, ACC_SITE_DOWNLOAD, ACC_SITE_WAIT };
static const struct {
    enum acc_site_kind kind;
    int outer; /* enum acc_event, -1: none */
    const char *file, *func;
    int line;
    const char *extra;
} acc_sites[] = {
    {ACC_SITE_LAUNCH, ACC_COMPUTE, "layers.c", "conv_forward", 77, "_8layers_c_conv_forward_77_gpu"},
    {ACC_SITE_LAUNCH, ACC_COMPUTE, "layers.c", "relu_forward", 109, "_8layers_c_relu_forward_109_gpu"},
    {ACC_SITE_LAUNCH, ACC_COMPUTE, "layers.c", "softmax_forward", 407, "_8layers_c_softmax_forward_407_gpu"},
    {ACC_SITE_LAUNCH, ACC_COMPUTE, "main.c", "train_step", 202, "main_202_gpu"},
    {ACC_SITE_LAUNCH, -1, "(runtime)", NULL, 44, "__pgi_uacc_cuda_fill_44_gpu"},
    {ACC_SITE_UPLOAD, ACC_ENTER_DATA, "layers.c", "conv_forward", 60, "W[:l->weights_size]"},
    {ACC_SITE_UPLOAD, ACC_UPDATE, "main.c", "train_step", 218, "X[:l->in_size]"},
    {ACC_SITE_UPLOAD, ACC_ENTER_DATA, "main.c", "main", 127, "images[:n*784]"},
    {ACC_SITE_DOWNLOAD, ACC_EXIT_DATA, "layers.c", "conv_forward", 118, "Y[:l->out_size]"},
    {ACC_SITE_DOWNLOAD, ACC_UPDATE, "main.c", "train_step", 234, "loss[:1]"},
    {ACC_SITE_WAIT, -1, "layers.c", "conv_forward", 118, NULL},
    {ACC_SITE_WAIT, -1, "main.c", "train_step", 212, NULL},
};

/* OpenMP event names, as in a real 2022.4 export of an OMPT (libomp) program. The thread
 * names are those nsys gave the threads there (also ThreadNames). */
enum omp_name {
    ON_PARALLEL, ON_IMPLICIT_TASK, ON_EXPLICIT_TASK, ON_IMPLICIT_BARRIER, ON_WAIT_LOCK, ON_WAIT_CRITICAL,
    ON_CRITICAL, ON_SINGLE_EXECUTOR, ON_SINGLE_WAITING, ON_TASK_CREATION, ON_INITIAL_THREAD, ON_WORKER_THREAD,
    ON__COUNT
};
static const char *const omp_names[ON__COUNT] = {
    [ON_PARALLEL] = "Parallel Region",
    [ON_IMPLICIT_TASK] = "Implicit Task",
    [ON_EXPLICIT_TASK] = "Explicit Task",
    [ON_IMPLICIT_BARRIER] = "Implicit Barrier",
    [ON_WAIT_LOCK] = "Waiting for Lock",
    [ON_WAIT_CRITICAL] = "Waiting to enter Critical Region",
    [ON_CRITICAL] = "Critical Region",
    [ON_SINGLE_EXECUTOR] = "Single Region (Executor)",
    [ON_SINGLE_WAITING] = "Single Region (Waiting)",
    [ON_TASK_CREATION] = "Explicit Task Creation",
    [ON_INITIAL_THREAD] = "OpenMP Initial Thread",
    [ON_WORKER_THREAD] = "OpenMP Worker Thread",
};
#define OMP_WORKERS 3                   /* OMP_NUM_THREADS=4: the CUDA main thread and three */
#define OMP_NO_NAME INT64_C(4294967295) /* MUTEX_RELEASED nameId in every real row */
/* ENUM_OPENMP_EVENT_KIND ids of the tables written */
enum { OMPK_TASK_CREATE = 15, OMPK_MUTEX_RELEASED = 20, OMPK_THREAD = 27, OMPK_PARALLEL = 28,
       OMPK_SYNC_REGION = 30, OMPK_TASK = 31, OMPK_MUTEX_WAIT = 34, OMPK_CRITICAL = 35, OMPK_WORKSHARE = 36 };

/* Code touching managed memory on the CPU (CUDA_UM_CPU_PAGE_FAULT_EVENTS.CpuInstruction);
 * a NULL symbol is unresolved and named after its address. */
static const struct {
    const char *symbol;
    enum module_id module;
    uint32_t offset;
} um_cpu_sites[] = {
    {"__memmove_avx_unaligned_erms", MOD_LIBC, 0x1a0b3d},
    {"at::native::copy_(at::Tensor&, at::Tensor const&, bool)", MOD_TORCH_CPU, 0x1101f4c},
    {"at::native::_local_scalar_dense_cpu(at::Tensor const&)", MOD_TORCH_CPU, 0x1a7c3b2},
    {NULL, MOD_TORCH_CUDA, 0x1c4b9a0},
};

/* GPU metrics. Each metric shows one quantity of the sampling model; the modern names are
 * those of nsys's GH100 metric set (2023.4 GpuMetrics/gh100.config: "<metric> [<unit>]"),
 * the 2022 ones those of the real 2022.4 A100 export, in its order (no units). */
enum gm_quantity {
    GQ_GPC_CLOCK, GQ_SYS_CLOCK, GQ_GR_ACTIVE, GQ_SM_ACTIVE, GQ_SM_ISSUE, GQ_TENSOR, GQ_WARPS, GQ_UNALLOCATED,
    GQ_DRAM_READ, GQ_DRAM_WRITE, GQ_NVL_RX, GQ_NVL_TX, GQ_NVL_RX_REQ, GQ_NVL_TX_REQ, GQ_NVL_PROTOCOL,
    GQ_PCIE_RX, GQ_PCIE_TX, GQ_ZERO, GQ__COUNT
};
struct gm_metric {
    const char *name;
    enum gm_quantity quantity;
};
static const struct gm_metric gm_metrics_modern[] = {
    {"GPC Clock Frequency [MHz]", GQ_GPC_CLOCK},
    {"SYS Clock Frequency [MHz]", GQ_SYS_CLOCK},
    {"GR Active [Throughput %]", GQ_GR_ACTIVE},
    {"SM Active [Throughput %]", GQ_SM_ACTIVE},
    {"SM Issue [Throughput %]", GQ_SM_ISSUE},
    {"Tensor Active [Throughput %]", GQ_TENSOR},
    {"Compute Warps in Flight [Throughput %]", GQ_WARPS},
    {"Unallocated Warps in Active SMs [Throughput %]", GQ_UNALLOCATED},
    {"DRAM Read Bandwidth [Throughput %]", GQ_DRAM_READ},
    {"DRAM Write Bandwidth [Throughput %]", GQ_DRAM_WRITE},
    {"NVLink RX Responses User Data [Throughput %]", GQ_NVL_RX},
    {"NVLink TX Responses User Data [Throughput %]", GQ_NVL_TX},
    {"NVLink RX Requests User Data [Throughput %]", GQ_NVL_RX_REQ},
    {"NVLink TX Requests User Data [Throughput %]", GQ_NVL_TX_REQ},
    {"PCIe RX Throughput [Throughput %]", GQ_PCIE_RX},
    {"PCIe TX Throughput [Throughput %]", GQ_PCIE_TX},
};
static const struct gm_metric gm_metrics_2022[] = {
    {"DRAM Read Throughput", GQ_DRAM_READ},
    {"Unallocated Warps in Active SMs", GQ_UNALLOCATED},
    {"Compute Warps In Flight", GQ_WARPS},
    {"Pixel Warps In Flight", GQ_ZERO},
    {"Vertex/Tess/Geometry Warps In Flight", GQ_ZERO},
    {"Tensor Active", GQ_TENSOR},
    {"SYS Clock Frequency", GQ_SYS_CLOCK},
    {"GPC Clock Frequency", GQ_GPC_CLOCK},
    {"GR Active", GQ_GR_ACTIVE},
    {"SM Active", GQ_SM_ACTIVE},
    {"SM Issue", GQ_SM_ISSUE},
    {"NVLink TX Requests User Data", GQ_NVL_TX_REQ},
    {"NVLink TX Responses Protocol Data", GQ_NVL_PROTOCOL},
    {"NVLink TX Responses User Data", GQ_NVL_TX},
    {"PCIe TX Throughput", GQ_PCIE_TX},
    {"PCIe RX Throughput", GQ_PCIE_RX},
    {"NVLink TX Requests Protocol Data", GQ_NVL_PROTOCOL},
    {"NVLink RX Responses User Data", GQ_NVL_RX},
    {"NVLink RX Responses Protocol Data", GQ_NVL_PROTOCOL},
    {"NVLink RX Requests User Data", GQ_NVL_RX_REQ},
    {"NVLink RX Requests Protocol Data", GQ_NVL_PROTOCOL},
    {"DRAM Write Throughput", GQ_DRAM_WRITE},
};
#define GPU_METRICS_TYPE_NAME "General Metrics for NVIDIA GH100 (any frequency)"

/* Busy time per sampling interval of a device's engines (ns, at most the interval). */
enum { GB_SM, GB_H2D, GB_D2H, GB_DRAM, GB_NVL_TX, GB_NVL_RX, GB__COUNT };
struct gm_bin {
    uint32_t busy[GB__COUNT];
};

/* A row of a further table, kept until the simulation is over: f[i] is the value of the
 * table's column i (XDEF: its default, XNULL: NULL; TEXT columns: an index into
 * gen.xtexts). */
#define XNULL INT64_MIN
#define XDEF (INT64_MIN + 1)
#define XCOLS 20
struct xrow {
    int64_t key; /* start: rows are written sorted by (table, key, seq) */
    uint64_t seq;
    enum table_id table;
    int64_t f[XCOLS];
};

/* A CUDA call as the per-call options see it. */
struct host_call {
    enum api_id api;
    int64_t start, end, correlation_id;
    int32_t stream;    /* index into gen.streams, -1: none */
    int32_t kernel;    /* index into kernel_defs, -1: not a launch */
    int32_t copy_kind; /* memcpy calls */
    int64_t bytes;     /* memcpy and memset calls */
};

/* Host-side layers on a CUDA thread: what its calls leave free, and an open wrap (a
 * library call or an OpenACC construct around one or more CUDA calls). */
enum wrap_kind { WRAP_NONE, WRAP_LIBRARY, WRAP_OPENACC };
struct host_thread {
    int64_t last_end;   /* end of its last CUDA call, INT64_MIN: none yet */
    int64_t free_from;  /* end of the last row placed after that call (>= last_end) */
    int64_t window_end; /* the thread is free until here after its last call (INT64_MAX: until
                         * its next call) */
    enum wrap_kind wrap;
    int wrap_left;      /* further calls the wrap will cover */
    bool close_pending; /* the wrap covers the last call and ends after it */
    int64_t wrap_start[2]; /* inner and outer (OpenACC) start */
    uint32_t wrap_what;    /* enum library_fn, or index into acc_sites */
    struct host_call wrap_call;
};

struct mem_block {
    int64_t address, bytes, device;
};

struct host_process {
    bool seen;
    int64_t first_start, last_end, cuda_rows; /* its CUDA calls, its CUDA rows (diagnostics) */
    /* --memory-usage: live cudaMalloc blocks, next address per device */
    struct mem_block *live;
    size_t nlive, live_capacity;
    int64_t *next_address;
    /* --mpi: position in the call sequence */
    bool mpi_initialized;
    int mpi_pre;  /* calls done of MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Comm_dup */
    int64_t mpi_cycle;
    int mpi_pos;
    /* --openmp */
    int64_t omp_parallel_id, omp_task_id, omp_first, omp_last, omp_regions;
    /* --um-faults */
    int64_t managed_base;
};


/* --nvtx: what a PyTorch-style training loop annotates. Names with a number take it from
 * nvtx_row.num; from NVN_FIRST_REGISTERED on they are registered strings (textId). */
enum nvtx_name {
    NVN_STEP, NVN_EMBEDDING, NVN_NORM, NVN_ATTN, NVN_MLP, NVN_MLP_BWD, NVN_ATTN_BWD, NVN_NORM_BWD, NVN_CLIP,
    NVN_ADAMW, NVN_ZERO_GRAD, NVN_LR_STEP, NVN_CHECKPOINT, NVN_SKIPPED, NVN_PREFETCH, NVN_H2D, NVN_SAVE,
    NVN_NCCL_DOMAIN, NVN_CAT_FORWARD, NVN_CAT_BACKWARD, NVN_CAT_OPTIMIZER,
    NVN_FORWARD, NVN_BACKWARD, NVN_OPTIMIZER, NVN_GROUP_START, NVN_SEND, NVN_RECV, NVN_GROUP_END, NVN__COUNT
};
#define NVN_FIRST_REGISTERED NVN_FORWARD
static const char *const nvtx_names[NVN__COUNT] = {
    [NVN_STEP] = "step %" PRId64,
    [NVN_EMBEDDING] = "embedding",
    [NVN_NORM] = "layers.%" PRId64 ".input_layernorm",
    [NVN_ATTN] = "layers.%" PRId64 ".self_attn",
    [NVN_MLP] = "layers.%" PRId64 ".mlp",
    [NVN_MLP_BWD] = "layers.%" PRId64 ".mlp.backward",
    [NVN_ATTN_BWD] = "layers.%" PRId64 ".self_attn.backward",
    [NVN_NORM_BWD] = "layers.%" PRId64 ".input_layernorm.backward",
    [NVN_CLIP] = "clip_grad_norm_",
    [NVN_ADAMW] = "AdamW.step",
    [NVN_ZERO_GRAD] = "zero_grad",
    [NVN_LR_STEP] = "lr_scheduler.step",
    [NVN_CHECKPOINT] = "checkpoint",
    [NVN_SKIPPED] = "grad scaler: inf/nan, step skipped",
    [NVN_PREFETCH] = "prefetch batch",
    [NVN_H2D] = "h2d copy",
    [NVN_SAVE] = "async checkpoint save",
    [NVN_NCCL_DOMAIN] = "NCCL",
    [NVN_CAT_FORWARD] = "forward",
    [NVN_CAT_BACKWARD] = "backward",
    [NVN_CAT_OPTIMIZER] = "optimizer",
    [NVN_FORWARD] = "forward",
    [NVN_BACKWARD] = "backward",
    [NVN_OPTIMIZER] = "optimizer.step",
    [NVN_GROUP_START] = "ncclGroupStart",
    [NVN_SEND] = "ncclSend",
    [NVN_RECV] = "ncclRecv",
    [NVN_GROUP_END] = "ncclGroupEnd",
};
#define NVTX_NCCL_DOMAIN 1 /* domainId of the "NCCL" domain (per process, as nsys counts) */

/* A row of NVTX_EVENTS, kept until every row that may start before it exists. */
struct nvtx_row {
    int64_t start, end;     /* end INT64_MIN: NULL */
    uint64_t seq;
    int64_t global_tid, end_global_tid; /* end_global_tid 0: NULL */
    int64_t range_id;       /* 0: NULL */
    int64_t payload;        /* int64Value, INT64_MIN: NULL */
    int64_t num;            /* the number in the name */
    uint32_t color;         /* ARGB, 0: NULL */
    uint8_t event_type, name, category, domain; /* category 0: NULL */
};

#define NVTX_LEVELS 3 /* step > phase > layer */

/* An open push/pop range and the CUDA calls it still encloses (the current one included). */
struct nvtx_open {
    struct nvtx_row row;
    int64_t left;
};

struct nvtx_thread {
    struct nvtx_open stack[NVTX_LEVELS];
    int depth;
    int phase;                   /* phase of the open step: 0 forward, 1 backward, 2 optimizer */
    int64_t phase_len[3];        /* calls per phase of the open step */
    int64_t steps, phase_items;  /* steps opened; layer ranges opened in the phase */
    int64_t skip_outer, skip_inner; /* calls still to leave outside a step / a layer range */
    int64_t last_returned; /* its last CUDA call's end */
    int64_t last_time;     /* its last NVTX event, or that end if later */
};

/* A start/end range waiting for its end thread's first CUDA call after `due`. */
struct nvtx_pending {
    struct nvtx_row row;
    int64_t due;
    size_t end_thread; /* index into gen.threads */
};

struct nvtx_process {
    bool named; /* domain and categories created */
    int64_t next_range_id, next_burst, batches, rows;
    struct nvtx_pending *pending;
    size_t npending, pending_capacity;
};

/* ------------------------------------------------------------------------------------
 * Generator state
 * ---------------------------------------------------------------------------------- */

struct options {
    uint64_t seed;
    int64_t events, gpus, processes, threads, streams, overlap_pct, graphs;
    int64_t sched_cpus, samples_hz; /* 0: off */
    int64_t gpu_metrics_hz;         /* 0: off */
    enum schema schema;
    bool negative_ts, graph_trace, nvtx_stream_names, nvtx, osrt, verbose;
    bool memory_usage, libraries, mpi, openacc, openmp, um_faults, diagnostics, all_tables;
    const char *out;
};

struct table {
    const struct table_def *def;
    sqlite3_stmt *insert; /* NULL until the first row: event tables are created lazily */
    struct value vals[MAX_COLUMNS];
    int64_t rows;
};

struct process {
    int64_t pid, global_pid;
    const char *name;
    int64_t next_correlation_id, next_event_id, next_event_sync_id;
    size_t first_stream; /* streams of device d: first_stream + d * streams .. + streams - 1 */
    size_t first_graph, ngraphs; /* its graphs: gen.graphs[first_graph ..] */
    int64_t next_graph_id;       /* graphs and executable graphs, as CUPTI numbers them */
    int64_t graph_launches;      /* done so far */
};

#define MAX_GRAPH_NODES 8
#define MAX_GRAPHS_PER_PROCESS 4

/* A CUDA graph of kernel nodes and its one executable graph, built before its first launch. */
struct graph {
    bool built;
    int64_t device;
    int64_t graph_id, exec_id;
    size_t nnodes;
    uint32_t kernel[MAX_GRAPH_NODES]; /* index into kernel_defs */
};

struct thread {
    int64_t global_tid;
    int64_t index_in_process; /* 0: main thread (tid == pid) */
    size_t process;
    int64_t home_device;
    int64_t free_at; /* when its previous call returned and it may issue the next one */
};

struct stream {
    int64_t id, device, context, priority;
    size_t process;
    bool null_stream;
    int64_t busy_until;        /* end of the last operation queued on it */
    bool last_was_kernel;
    int64_t last_kernel_start, last_kernel_end;
};

enum row_kind {
    R_API, R_KERNEL, R_MEMCPY, R_MEMSET, R_SYNC, R_GRAPH_TRACE, R_GRAPH_EVENT, R_GRAPH_NODE_EVENT, R_OSRT,
    R_SCHED, R_SAMPLE
};

/* A row waiting in the heap until the simulation clock passes its start. */
struct row {
    int64_t start, end;
    uint64_t seq; /* tie-break: equal starts keep generation order */
    int64_t correlation_id;
    enum row_kind kind;
    uint32_t thread; /* R_API */
    uint32_t stream; /* GPU rows: index into gen.streams */
    union {
        struct {
            enum api_id api;
            int32_t return_value;
        } api;
        struct {
            uint32_t def;
            int64_t grid_id;
            int64_t graph_node_id, graph_id; /* 0 unless launched by a graph */
        } kernel;
        struct {
            int64_t graph_id, exec_id;
        } graph_trace;
        struct { /* R_GRAPH_EVENT: ids of graphs; R_GRAPH_NODE_EVENT: ids of nodes */
            enum api_id api; /* the call it happened in */
            int32_t event_class;
            int64_t id, original_id, exec_id; /* 0: NULL */
        } graph_event;
        struct {
            int64_t bytes, peer_device; /* peer_device < 0 unless peer-to-peer */
            int32_t copy_kind, src_kind, dst_kind;
        } copy;
        struct {
            int64_t bytes;
            int32_t value, mem_kind;
        } fill;
        struct {
            int32_t type;
            int64_t stream_id, event_id, event_sync_id;
        } sync;
        struct {
            int64_t global_tid;
            uint8_t fn, role; /* enum osrt_fn, enum cpu_role (callchain) */
            int8_t nesting;   /* -1: NULL */
            bool callchain;
        } osrt;
        struct {
            int64_t global_tid;
            int32_t cpu;
            uint8_t is_in, thread_state;
        } sched;
        struct {
            int64_t global_tid;
            int32_t cpu;
            uint16_t path;        /* < SP__COUNT: sample_paths; else OSRT chain (role, fn) */
            uint8_t kernel_frame; /* 0: user-mode sample */
            uint16_t leaf_offset; /* sampled IP past the leaf's address */
        } sample;
    } u;
};

struct thread_key {
    int64_t free_at;
    size_t index;
};

struct string_table {
    char **items; /* StringIds.id == index */
    size_t count, capacity;
};

struct kernel_names {
    int64_t short_name, demangled, mangled;
};

/* CPU side: every thread the scheduling model knows (the CUDA threads first, same index as
 * gen.threads), what its generator has decided it does, and where the scheduler put it. */
struct intent {
    int64_t at;
    int32_t kind; /* enum intent_kind, or an ACT_* activity, or a thread index (run queue) */
    uint32_t stamp;
};

struct queue { /* ring buffer, times nondecreasing */
    struct intent *items;
    size_t head, count, capacity;
};

enum intent_kind { IN_WAKE, IN_BLOCK, IN_EXIT };
enum run_state { RS_OFF, RS_WAITING, RS_RUNNING, RS_PREEMPTED };

struct cpu_thread {
    int64_t global_tid;
    enum cpu_role role;
    int32_t process;   /* -1: not the report's (kernel worker) */
    int32_t bound_cpu; /* -1 unless a per-CPU kernel thread */
    bool sampled, exiting;
    enum run_state state;
    int32_t cpu, last_cpu;
    int64_t slice_end, resume_at, sample_due, sample_left;
    uint32_t version, queue_stamp;
    int32_t activity, queued_activity;
    struct queue intents; /* IN_* for the scheduler */
    struct queue acts;    /* activity changes, read when sampling */
    /* helper threads that wake up periodically */
    int64_t next_wake;    /* INT64_MAX: not periodic */
    enum osrt_fn wait_fn; /* OS__COUNT: sleeps without a traced call */
    bool call_pending;    /* its OSRT row waits for the call's end */
    int64_t call_start, call_end;
};

struct cpu_core {
    int32_t thread;        /* -1: idle */
    int32_t bound_waiting; /* per-CPU thread waiting for this CPU, -1: none */
    int64_t free_at;       /* idle CPUs: when a thread may be switched in */
    uint32_t version;
};

struct sched_key {
    int64_t at;
    uint32_t entity; /* < ncthreads: a thread; else a CPU */
    uint32_t version;
};

struct gen {
    struct options opt;
    const struct schema_info *info;
    unsigned mask; /* S_* bit of opt.schema */
    sqlite3 *db;
    struct rng rng;
    struct table tables[T__COUNT];
    struct string_table strings;
    int64_t api_name_ids[API__COUNT];
    struct kernel_names kernel_name_ids[ARRAY_LEN(kernel_defs)];
    int64_t launcher_pid;
    struct process *processes;
    struct thread *threads;
    size_t nthreads;
    struct stream *streams;
    size_t nstreams;
    struct graph *graphs;
    size_t ngraphs;
    int64_t graph_launches_left; /* all processes */
    int64_t *next_grid_id; /* per device */
    struct heap ready_threads, pending_rows;
    uint64_t next_seq;
    int64_t rows_planned, max_end, kernels, overlapping_kernels;
    enum api_id step_api; /* the last call begun: the main call of a step */
    /* CPU side */
    bool cpu_on;    /* --osrt, --sched or --samples: host model, helper threads */
    bool sched_on;  /* scheduling model (--sched or --samples) */
    struct rng cpu_rng; /* own stream: the CUDA calls stay the same draws */
    int64_t osrt_name_ids[OS__COUNT];
    int64_t frame_symbol_ids[F__COUNT], frame_module_ids[F__COUNT];
    struct cpu_thread *cthreads;
    size_t ncthreads, child, kworker; /* indices; SIZE_MAX: none */
    struct cpu_core *cpus;
    int32_t ncpus, kworker_cpu;
    int64_t child_pid, kworker_pid;
    struct heap sched_events;
    struct queue run_queue; /* threads waiting for a CPU */
    int64_t sample_period;
    int64_t flush_floor; /* rows before the earliest pending helper call may be written */
    int64_t *process_start, *process_end;
    int64_t next_callchain_id, next_sample_id;
    int64_t osrt_rows, sched_rows, sample_rows;
    bool unwind_types_written;
    bool dry; /* generators only draw their numbers */
    /* further tables */
    unsigned features;  /* FEAT_* bits on */
    bool host_on;       /* host_note() and host_step_end() have work: per-call options */
    struct rng gm_rng, mem_rng, lib_rng, mpi_rng, acc_rng, omp_rng, um_rng, diag_rng;
    struct xrow *xrows; /* rows of the further tables, written after the simulation */
    size_t nxrows, xrows_capacity;
    char **xtexts;      /* their TEXT values */
    size_t nxtexts, xtexts_capacity;
    struct host_thread *hthreads; /* per CUDA thread (gen.threads) */
    struct host_process *hprocs;  /* per process */
    int64_t lib_name_ids[LIB__COUNT], mpi_name_ids[MF__COUNT], acc_name_ids[ACC__COUNT],
        omp_name_ids[ON__COUNT];
    int64_t acc_file_ids[ARRAY_LEN(acc_sites)], acc_func_ids[ARRAY_LEN(acc_sites)],
        acc_extra_ids[ARRAY_LEN(acc_sites)];
    int64_t um_symbol_ids[ARRAY_LEN(um_cpu_sites)], um_module_ids[ARRAY_LEN(um_cpu_sites)];
    int64_t gm_period, gm_t0; /* GPU metrics: sample k covers [t0 + k period, + period) */
    struct gm_bin **gm_bins;  /* per device, per sample: busy time of its engines */
    size_t *gm_nbins;
    /* --nvtx: own random stream; rows kept in a heap until no earlier one can come */
    bool nvtx_on;
    struct rng nvtx_rng;
    int32_t step_kernel;  /* kernel_defs index the step's call launched, -1: none */
    int32_t nccl_kernel;  /* kernel_defs index of the NCCL kernel */
    int64_t nvtx_name_ids[NVN__COUNT]; /* registered strings */
    struct nvtx_thread *nvtx_threads;  /* per CUDA thread (gen.threads) */
    struct nvtx_process *nvtx_procs;
    struct heap nvtx_heap;
    uint64_t nvtx_seq;
    int64_t nvtx_rows;
    unsigned nvtx_flush_countdown;
};

/* ------------------------------------------------------------------------------------
 * SQLite plumbing: CREATE TABLE text, lazily prepared INSERTs
 * ---------------------------------------------------------------------------------- */

static void check_sqlite(struct gen *g, int rc, const char *what)
{
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
        die("%s: %s", what, sqlite3_errmsg(g->db));
}

static void exec_sql(struct gen *g, const char *sql)
{
    check_sqlite(g, sqlite3_exec(g->db, sql, NULL, NULL, NULL), sql);
}

struct strbuf {
    char text[8192];
    size_t len;
};

static void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(sb->text + sb->len, sizeof sb->text - sb->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof sb->text - sb->len)
        die("SQL statement too long");
    sb->len += (size_t)n;
}

static bool column_present(const struct gen *g, const struct column *c)
{
    return (c->schemas & g->mask) != 0;
}

/* nsys >= 2021 writes one aligned column per line; 2020.3 wrote a single line. */
static void build_create_sql(const struct gen *g, const struct table_def *def, struct strbuf *sb)
{
    bool one_line = g->opt.schema == SCHEMA_LEGACY;
    const char *sep = "";
    sb_printf(sb, "CREATE TABLE %s (", def->name);
    for (size_t i = 0; i < def->ncols; i++) {
        const struct column *c = &def->cols[i];
        if (!column_present(g, c))
            continue;
        if (one_line) {
            sb_printf(sb, "%s%s %s%s%s", sep, c->name, c->type, c->flags & NN ? " NOT NULL" : "",
                      c->flags & PK ? " PRIMARY KEY" : "");
            sep = ", ";
        } else {
            sb_printf(sb, "%s\n    %-25s   %s", sep, c->name, c->type);
            if (c->flags & NN) /* constraints start in a column 10 characters after the type */
                sb_printf(sb, "%*sNOT NULL", (int)(10 - strlen(c->type)), "");
            if (c->flags & PK)
                sb_printf(sb, "   PRIMARY KEY");
            if (c->references)
                sb_printf(sb, "   REFERENCES %s", c->references);
            sep = ",";
        }
    }
    if (def->primary_key) /* real exports leave a blank line before the table constraint */
        sb_printf(sb, one_line ? ", PRIMARY KEY (%s)" : ",\n\n    PRIMARY KEY (%s)", def->primary_key);
    sb_printf(sb, one_line ? ")" : "\n)");
}

static void table_open(struct gen *g, struct table *t)
{
    if (t->def->ncols > MAX_COLUMNS)
        die("table %s has more than %d columns", t->def->name, MAX_COLUMNS);
    struct strbuf sb = {.len = 0};
    build_create_sql(g, t->def, &sb);
    exec_sql(g, sb.text);

    sb.len = 0;
    sb_printf(&sb, "INSERT INTO %s VALUES (", t->def->name);
    const char *sep = "";
    for (size_t i = 0; i < t->def->ncols; i++) {
        if (column_present(g, &t->def->cols[i])) {
            sb_printf(&sb, "%s?", sep);
            sep = ", ";
        }
    }
    sb_printf(&sb, ")");
    check_sqlite(g, sqlite3_prepare_v2(g->db, sb.text, -1, &t->insert, NULL), sb.text);
}

static void table_close(struct table *t)
{
    sqlite3_finalize(t->insert);
    t->insert = NULL;
}

/* Starts a row: creates the table on first use and loads the column defaults. */
static struct value *table_row(struct gen *g, struct table *t)
{
    if (!t->insert)
        table_open(g, t);
    for (size_t i = 0; i < t->def->ncols; i++)
        t->vals[i] = t->def->cols[i].def;
    return t->vals;
}

static void table_insert(struct gen *g, struct table *t)
{
    int param = 1;
    for (size_t i = 0; i < t->def->ncols; i++) {
        if (!column_present(g, &t->def->cols[i]))
            continue;
        const struct value *v = &t->vals[i];
        int rc = v->type == V_INT    ? sqlite3_bind_int64(t->insert, param, v->i)
                 : v->type == V_TEXT ? sqlite3_bind_text(t->insert, param, v->s, -1, SQLITE_STATIC)
                                     : sqlite3_bind_null(t->insert, param);
        check_sqlite(g, rc, "bind");
        param++;
    }
    check_sqlite(g, sqlite3_step(t->insert), t->def->name);
    sqlite3_reset(t->insert);
    t->rows++;
}

static struct value *row_begin(struct gen *g, enum table_id id)
{
    return table_row(g, &g->tables[id]);
}

static void row_end(struct gen *g, enum table_id id)
{
    table_insert(g, &g->tables[id]);
}

/* ------------------------------------------------------------------------------------
 * StringIds
 * ---------------------------------------------------------------------------------- */

/* Returns the StringIds id of s, adding it if new. Only used while setting up (a few
 * hundred strings), so a linear search is enough. */
static int64_t intern(struct gen *g, const char *s)
{
    struct string_table *st = &g->strings;
    for (size_t i = 0; i < st->count; i++)
        if (strcmp(st->items[i], s) == 0)
            return (int64_t)i;
    if (st->count == st->capacity) {
        st->capacity = st->capacity ? 2 * st->capacity : 64;
        st->items = xrealloc(st->items, st->capacity * sizeof *st->items);
    }
    st->items[st->count] = xstrdup(s);
    return (int64_t)st->count++;
}

static void write_string_ids(struct gen *g)
{
    for (size_t i = 0; i < g->strings.count; i++) {
        struct value *v = row_begin(g, T_STRING_IDS);
        v[SID_ID] = vint((int64_t)i);
        v[SID_VALUE] = vtext(g->strings.items[i]);
        row_end(g, T_STRING_IDS);
    }
}

/* ------------------------------------------------------------------------------------
 * Setup: processes, threads, contexts, streams
 * ---------------------------------------------------------------------------------- */

static int64_t global_pid(int64_t pid)
{
    return (INT64_C(1) << 48) | (pid << 24);
}

static int64_t context_id(const struct gen *g, size_t process, int64_t device)
{
    return 1 + (int64_t)process * g->opt.gpus + device;
}

static struct stream *stream_of(const struct gen *g, size_t process, int64_t device, int64_t k)
{
    return &g->streams[g->processes[process].first_stream + (size_t)(device * g->opt.streams + k)];
}

static const char *const process_names[] = {"python3", "train.py", "pt_main_thread", "python"};

/* Distinct graphs a process launches in turn: one per 4 launches, at most 4. */
static size_t graphs_per_process(int64_t launches)
{
    int64_t n = (launches + 3) / 4;
    return (size_t)(n < MAX_GRAPHS_PER_PROCESS ? n : MAX_GRAPHS_PER_PROCESS);
}

static void setup_topology(struct gen *g)
{
    const struct options *o = &g->opt;
    size_t nproc = (size_t)o->processes;
    g->processes = xcalloc(nproc, sizeof *g->processes);
    g->nthreads = nproc * (size_t)o->threads;
    g->threads = xcalloc(g->nthreads, sizeof *g->threads);
    g->nstreams = nproc * (size_t)(o->gpus * o->streams);
    g->streams = xcalloc(g->nstreams, sizeof *g->streams);
    g->next_grid_id = xcalloc((size_t)o->gpus, sizeof *g->next_grid_id);
    for (int64_t d = 0; d < o->gpus; d++)
        g->next_grid_id[d] = 1;
    size_t graphs_each = graphs_per_process(o->graphs);
    g->ngraphs = nproc * graphs_each;
    g->graphs = xcalloc(g->ngraphs, sizeof *g->graphs);
    g->graph_launches_left = o->graphs * o->processes;

    g->launcher_pid = 3900 + (int64_t)rng_below(&g->rng, 64);
    /* A block of 128 pids per process leaves room for its tids (pid + k). */
    size_t next_stream = 0;
    for (size_t p = 0; p < nproc; p++) {
        struct process *pr = &g->processes[p];
        pr->pid = 4000 + 128 * (int64_t)p + (int64_t)rng_below(&g->rng, 32);
        pr->global_pid = global_pid(pr->pid);
        pr->name = process_names[p % ARRAY_LEN(process_names)];
        pr->next_correlation_id = 1 + (int64_t)rng_below(&g->rng, 200);
        pr->next_event_id = 1;
        pr->next_event_sync_id = 1;
        pr->first_stream = next_stream;
        pr->first_graph = p * graphs_each;
        pr->ngraphs = graphs_each;
        pr->next_graph_id = 1;
        /* Stream ids are numbered per process, contexts one after another, starting
         * with each context's null stream; 7 is the first id real exports show. */
        int64_t stream_id = 7;
        for (int64_t d = 0; d < o->gpus; d++) {
            for (int64_t k = 0; k < o->streams; k++) {
                struct stream *s = &g->streams[next_stream++];
                s->id = stream_id++;
                s->device = d;
                s->context = context_id(g, p, d);
                s->process = p;
                s->null_stream = k == 0;
                /* Like PyTorch, one high-priority stream when there are several. */
                s->priority = k == o->streams - 1 && k >= 2 ? CUPTI_NONE : 0;
                s->busy_until = INT64_MIN / 2;
                s->last_kernel_end = INT64_MIN / 2;
            }
        }
        for (int64_t k = 0; k < o->threads; k++) {
            struct thread *t = &g->threads[p * (size_t)o->threads + (size_t)k];
            t->global_tid = pr->global_pid | (pr->pid + k); /* main thread: tid == pid */
            t->index_in_process = k;
            t->process = p;
            t->home_device = ((int64_t)p + k) % o->gpus;
            /* Stagger the first calls; with --negative-ts they precede session start. */
            t->free_at = o->negative_ts ? -200000 + rng_range(&g->rng, 0, 60000)
                                        : rng_range(&g->rng, 1000, 50000);
        }
    }
}

/* Which CPU-side threads exist (no random draws: ThreadNames and PROCESSES need them before
 * the simulation). lscpu gets a pid in the first process's block, after its threads; the
 * kernel worker is bound to CPU 3 (or the last one). */
static void setup_cpu_config(struct gen *g)
{
    const struct options *o = &g->opt;
    g->cpu_on = o->osrt || o->sched_cpus > 0 || o->samples_hz > 0;
    g->sched_on = o->sched_cpus > 0 || o->samples_hz > 0;
    g->child = g->kworker = SIZE_MAX;
    g->flush_floor = INT64_MAX;
    g->cpu_rng.state = o->seed ^ UINT64_C(0x6A09E667F3BCC909);
    if (!g->cpu_on)
        return;
    g->child = g->nthreads + 3 * (size_t)o->processes;
    g->child_pid = g->processes[0].pid + 64;
    if (o->sched_cpus > 0) {
        g->kworker = g->child + 1;
        g->kworker_cpu = (int32_t)(o->sched_cpus > 3 ? 3 : o->sched_cpus - 1);
        g->kworker_pid = 212 + g->kworker_cpu;
    }
}

/* Which further tables are on; their random streams (more SHA-2 initial values, like
 * cpu_rng's) and per-thread, per-process state. No draws from gen.rng. */
static void setup_features(struct gen *g)
{
    const struct options *o = &g->opt;
    unsigned f = g->cpu_on ? FEAT_CPU : 0;
    f |= (o->gpu_metrics_hz ? FEAT_GPU_METRICS : 0) | (o->memory_usage ? FEAT_MEMORY : 0) |
         (o->libraries ? FEAT_LIBRARIES : 0) | (o->mpi ? FEAT_MPI : 0) | (o->openacc ? FEAT_OPENACC : 0) |
         (o->openmp ? FEAT_OPENMP : 0) | (o->um_faults ? FEAT_UM : 0) | (o->diagnostics ? FEAT_DIAG : 0);
    g->features = f;
    if (!(f & ~(unsigned)FEAT_CPU))
        return;
    g->host_on = (f & ~(unsigned)(FEAT_CPU | FEAT_GPU_METRICS)) != 0;
    g->gm_rng.state = o->seed ^ UINT64_C(0xBB67AE8584CAA73B);
    g->mem_rng.state = o->seed ^ UINT64_C(0x3C6EF372FE94F82B);
    g->lib_rng.state = o->seed ^ UINT64_C(0xA54FF53A5F1D36F1);
    g->mpi_rng.state = o->seed ^ UINT64_C(0x510E527FADE682D1);
    g->acc_rng.state = o->seed ^ UINT64_C(0x9B05688C2B3E6C1F);
    g->omp_rng.state = o->seed ^ UINT64_C(0x1F83D9ABFB41BD6B);
    g->um_rng.state = o->seed ^ UINT64_C(0x5BE0CD19137E2179);
    g->diag_rng.state = o->seed ^ UINT64_C(0xCBBB9D5DC1059ED8);
    g->hthreads = xcalloc(g->nthreads, sizeof *g->hthreads);
    for (size_t i = 0; i < g->nthreads; i++)
        g->hthreads[i] = (struct host_thread){.last_end = INT64_MIN, .window_end = INT64_MAX,
                                              .free_from = o->negative_ts ? INT64_MIN / 4 : 0};
    g->hprocs = xcalloc((size_t)o->processes, sizeof *g->hprocs);
    for (size_t p = 0; p < (size_t)o->processes; p++) {
        struct host_process *hp = &g->hprocs[p];
        hp->first_start = INT64_MAX;
        hp->last_end = INT64_MIN;
        hp->next_address = xcalloc((size_t)o->gpus, sizeof *hp->next_address);
        for (int64_t d = 0; d < o->gpus; d++) /* 128 GiB of address space per device */
            hp->next_address[d] = INT64_C(0x7f2a00000000) + d * INT64_C(0x2000000000);
        hp->omp_parallel_id = hp->omp_task_id = 1; /* the implicit region and the initial task */
        hp->omp_first = INT64_MAX;
        hp->omp_last = INT64_MIN;
        hp->managed_base = INT64_C(0x7f1c00000000);
    }
    if (f & FEAT_GPU_METRICS) {
        g->gm_period = INT64_C(1000000000) / o->gpu_metrics_hz;
        g->gm_t0 = -(int64_t)rng_below(&g->gm_rng, (uint64_t)g->gm_period); /* sampling began before 0 */
        g->gm_bins = xcalloc((size_t)o->gpus, sizeof *g->gm_bins);
        g->gm_nbins = xcalloc((size_t)o->gpus, sizeof *g->gm_nbins);
    }
}

/* ThreadNames rows: the CUDA threads of every process, the launcher's main thread and
 * the threads the profiler injects into every traced process. */
struct thread_name {
    int64_t global_tid, priority;
    const char *name;
};

/* With the CPU side on, also: each process's cuda-EvtHandlr (pid + threads + 2), the child
 * process (lscpu, named in ThreadNames only, as in real reports) and, with --sched in the
 * modern schema, the kernel worker that SCHED_EVENTS shows (ThreadNames lists all processes'
 * threads from 2024.6 on; PROCESSES lists it in both schemas). */
static bool kworker_named(const struct gen *g)
{
    return g->kworker != SIZE_MAX && g->opt.schema == SCHEMA_MODERN;
}

static size_t thread_name_count(const struct gen *g)
{
    size_t n = 1 + g->nthreads + 2 * (size_t)g->opt.processes;
    if (g->cpu_on)
        n += (size_t)g->opt.processes + 1;
    if (g->opt.openmp)
        n += OMP_WORKERS * (size_t)g->opt.processes;
    return n + (kworker_named(g) ? 1 : 0);
}

static void kworker_name(const struct gen *g, char *buf, size_t size)
{
    snprintf(buf, size, "kworker/%" PRId32 ":1-events", g->kworker_cpu);
}

/* Entry i of the ThreadNames list; buf holds generated names. openmp: as --openmp names
 * the threads (else the list stops before the OpenMP workers). */
static struct thread_name thread_name_of(const struct gen *g, size_t i, char *buf, size_t size, bool openmp)
{
    if (i == 0)
        return (struct thread_name){global_pid(g->launcher_pid) | g->launcher_pid, 20, "bash"};
    i--;
    if (i < g->nthreads) {
        const struct thread *t = &g->threads[i];
        if (t->index_in_process == 0) /* with OpenMP, nsys names it after its OMPT thread type */
            return (struct thread_name){t->global_tid, 20,
                                        openmp ? omp_names[ON_INITIAL_THREAD] : g->processes[t->process].name};
        snprintf(buf, size, "pt_autograd_%" PRId64, t->index_in_process - 1);
        return (struct thread_name){t->global_tid, 20, buf};
    }
    i -= g->nthreads;
    if (i < 2 * (size_t)g->opt.processes) {
        const struct process *p = &g->processes[i / 2];
        int64_t tid = p->pid + g->opt.threads + (int64_t)(i % 2);
        return (struct thread_name){p->global_pid | tid, 10, i % 2 ? "CUPTI worker thread" : "[NSys]"};
    }
    i -= 2 * (size_t)g->opt.processes;
    if (g->cpu_on) {
        if (i < (size_t)g->opt.processes) {
            const struct process *p = &g->processes[i];
            return (struct thread_name){p->global_pid | (p->pid + g->opt.threads + 2), 20, "cuda-EvtHandlr"};
        }
        i -= (size_t)g->opt.processes;
        if (i == 0)
            return (struct thread_name){global_pid(g->child_pid) | g->child_pid, 20, "lscpu"};
        i--;
        if (kworker_named(g)) {
            if (i == 0) {
                kworker_name(g, buf, size);
                return (struct thread_name){global_pid(g->kworker_pid) | g->kworker_pid, 20, buf};
            }
            i--;
        }
    }
    /* --openmp: the team's worker threads (pid + threads + 3 + k) */
    const struct process *p = &g->processes[i / OMP_WORKERS];
    int64_t tid = p->pid + g->opt.threads + 3 + (int64_t)(i % OMP_WORKERS);
    return (struct thread_name){p->global_pid | tid, 20, omp_names[ON_WORKER_THREAD]};
}

static struct thread_name thread_name_at(const struct gen *g, size_t i, char *buf, size_t size)
{
    return thread_name_of(g, i, buf, size, g->opt.openmp);
}

/* Every string gets its StringIds id here, before StringIds is written. */
/* nsys puts these first when a report has CPU-side data (2020.3 always did). */
static const char *const cpu_builtins[] = {"[Unknown]", "[kernel.kallsyms]", "[Max depth]",
                                           "[Broken backtraces]", "[Called from Java]"};

static void setup_cpu_strings(struct gen *g);
static void setup_feature_strings(struct gen *g);

static void setup_strings(struct gen *g)
{
    char buf[48];
    if (g->cpu_on && g->opt.schema != SCHEMA_LEGACY)
        for (size_t i = 0; i < ARRAY_LEN(cpu_builtins); i++)
            intern(g, cpu_builtins[i]);
    for (size_t i = 0; i < g->info->nbuiltin; i++)
        intern(g, g->info->builtin_strings[i]);
    for (size_t a = 0; a < API_FIRST_GRAPH; a++)
        if (api_defs[a].name)
            g->api_name_ids[a] = intern(g, api_defs[a].name);
    for (size_t k = 0; k < ARRAY_LEN(kernel_defs); k++) {
        g->kernel_name_ids[k].short_name = intern(g, kernel_defs[k].short_name);
        g->kernel_name_ids[k].demangled = intern(g, kernel_defs[k].demangled);
        g->kernel_name_ids[k].mangled = intern(g, kernel_defs[k].mangled);
    }
    /* the names without --openmp's: its names come last, so that no other id moves */
    size_t omp_threads = g->opt.openmp ? OMP_WORKERS * (size_t)g->opt.processes : 0;
    for (size_t i = 0; i < thread_name_count(g) - omp_threads; i++)
        intern(g, thread_name_of(g, i, buf, sizeof buf, false).name);
    if (g->opt.graphs > 0)
        for (size_t a = API_FIRST_GRAPH; a < API__COUNT; a++)
            g->api_name_ids[a] = intern(g, api_defs[a].name);
    if (g->cpu_on)
        setup_cpu_strings(g);
    setup_feature_strings(g);
    if (g->opt.nvtx) /* registered strings, last of all */
        for (size_t i = NVN_FIRST_REGISTERED; i < NVN__COUNT; i++)
            g->nvtx_name_ids[i] = intern(g, nvtx_names[i]);
}

/* OS runtime call names, and the symbols and modules of the frames (unresolved frames are
 * named after their address). */
static void setup_cpu_strings(struct gen *g)
{
    char buf[32];
    if (g->opt.osrt)
        for (size_t f = 0; f < OS__COUNT; f++)
            g->osrt_name_ids[f] = intern(g, osrt_defs[f].name);
    if (!g->opt.osrt && !g->opt.samples_hz)
        return;
    for (size_t f = 0; f < F__COUNT; f++) {
        const struct frame_def *d = &frame_defs[f];
        const char *symbol = d->symbol;
        if (!symbol) {
            snprintf(buf, sizeof buf, "0x%" PRIx64, module_defs[d->module].base + d->offset);
            symbol = buf;
        }
        g->frame_symbol_ids[f] = intern(g, symbol);
        g->frame_module_ids[f] = intern(g, module_defs[d->module].path);
    }
}

/* The further tables' names, after every other string. */
static void setup_feature_strings(struct gen *g)
{
    char buf[32];
    if (g->features & FEAT_LIBRARIES)
        for (size_t i = 0; i < LIB__COUNT; i++)
            g->lib_name_ids[i] = intern(g, library_fns[i].name);
    if (g->features & FEAT_MPI)
        for (size_t i = 0; i < MF__COUNT; i++)
            g->mpi_name_ids[i] = intern(g, mpi_fns[i].name);
    if (g->features & FEAT_OPENACC) {
        for (size_t i = 0; i < ACC__COUNT; i++)
            g->acc_name_ids[i] = intern(g, acc_events[i].name);
        for (size_t i = 0; i < ARRAY_LEN(acc_sites); i++) {
            g->acc_file_ids[i] = intern(g, acc_sites[i].file);
            if (acc_sites[i].func)
                g->acc_func_ids[i] = intern(g, acc_sites[i].func);
            if (acc_sites[i].extra)
                g->acc_extra_ids[i] = intern(g, acc_sites[i].extra);
        }
    }
    if (g->features & FEAT_OPENMP)
        for (size_t i = 0; i < ON__COUNT; i++)
            g->omp_name_ids[i] = intern(g, omp_names[i]);
    if (g->features & FEAT_UM) {
        for (size_t i = 0; i < ARRAY_LEN(um_cpu_sites); i++) {
            const char *symbol = um_cpu_sites[i].symbol;
            if (!symbol) {
                snprintf(buf, sizeof buf, "0x%" PRIx64, module_defs[um_cpu_sites[i].module].base + um_cpu_sites[i].offset);
                symbol = buf;
            }
            g->um_symbol_ids[i] = intern(g, symbol);
            g->um_module_ids[i] = intern(g, module_defs[um_cpu_sites[i].module].path);
        }
    }
}

/* ------------------------------------------------------------------------------------
 * Metadata and target-information tables (always written)
 * ---------------------------------------------------------------------------------- */

static void write_key_values(struct gen *g, enum table_id id, const struct key_value *kv, size_t n)
{
    if (!(table_defs[id].schemas & g->mask))
        return;
    for (size_t i = 0; i < n; i++) {
        if (!(kv[i].schemas & g->mask))
            continue;
        struct value *v = row_begin(g, id);
        v[KV_NAME] = vtext(kv[i].key);
        v[KV_VALUE] = vtext(kv[i].value);
        row_end(g, id);
    }
}

static void write_metadata(struct gen *g)
{
    write_key_values(g, T_META_EXPORT, export_meta, ARRAY_LEN(export_meta));
    write_key_values(g, T_EXPORT_META, export_meta, ARRAY_LEN(export_meta));
    write_key_values(g, T_META_CAPTURE, capture_meta, ARRAY_LEN(capture_meta));
}

static void write_session_start(struct gen *g)
{
    if (!(table_defs[T_SESSION_START].schemas & g->mask))
        return;
    struct value *v = row_begin(g, T_SESSION_START);
    v[SST_UTC_NS] = vint(g->info->utc_epoch_ns);
    v[SST_UTC] = vtext(g->info->utc_time);
    v[SST_LOCAL] = vtext(g->info->utc_time);
    row_end(g, T_SESSION_START);
}

static void write_process(struct gen *g, int64_t pid, const char *name)
{
    struct value *v = row_begin(g, T_PROCESSES);
    v[PR_GLOBAL_PID] = vint(global_pid(pid));
    v[PR_PID] = vint(pid);
    v[PR_NAME] = vtext(name);
    row_end(g, T_PROCESSES);
}

static void write_processes(struct gen *g)
{
    if (!(table_defs[T_PROCESSES].schemas & g->mask))
        return;
    char buf[48];
    write_process(g, g->launcher_pid, "bash");
    for (size_t p = 0; p < (size_t)g->opt.processes; p++)
        write_process(g, g->processes[p].pid, g->processes[p].name);
    if (g->kworker != SIZE_MAX) {
        kworker_name(g, buf, sizeof buf);
        write_process(g, g->kworker_pid, buf);
    }
}

static void write_thread_names(struct gen *g)
{
    char buf[48];
    for (size_t i = 0; i < thread_name_count(g); i++) {
        struct thread_name tn = thread_name_at(g, i, buf, sizeof buf);
        int64_t name_id = intern(g, tn.name); /* already interned by setup_strings */
        struct value *v = row_begin(g, T_THREAD_NAMES);
        v[TN_NAME_ID] = vint(name_id);
        v[TN_PRIORITY] = vint(tn.priority);
        v[TN_GLOBAL_TID] = vint(tn.global_tid);
        row_end(g, T_THREAD_NAMES);
    }
}

static void format_bus(const struct gen *g, int64_t device, char *buf, size_t size)
{
    int bus = device < (int64_t)ARRAY_LEN(bus_numbers) ? bus_numbers[device] : (int)(0x20 + device) & 0xff;
    snprintf(buf, size, g->info->bus_format, bus);
}

static void write_gpus(struct gen *g)
{
    const struct gpu_model *m = &g->info->gpu;
    char bus[32], uuid[48];
    for (int64_t d = 0; d < g->opt.gpus; d++) {
        uint64_t a = rng_next(&g->rng);
        uint64_t b = rng_next(&g->rng);
        format_bus(g, d, bus, sizeof bus);
        snprintf(uuid, sizeof uuid, "%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%012" PRIx64,
                 a >> 32, (a >> 16) & 0xFFFF, a & 0xFFFF, b >> 48, b & UINT64_C(0xFFFFFFFFFFFF));
        struct value *v = row_begin(g, T_GPU);
        v[GPU_ID] = v[GPU_DEVICE_ID] = v[GPU_CU_DEVICE] = vint(d);
        v[GPU_NAME] = vtext(m->name);
        v[GPU_BUS] = vtext(bus);
        v[GPU_L2] = vint(m->l2);
        v[GPU_TOTAL_MEM] = vint(m->total_memory);
        v[GPU_MEM_BW] = vint(m->memory_bandwidth);
        v[GPU_CLOCK] = vint(m->clock_hz);
        v[GPU_SMS] = vint(m->sms);
        v[GPU_UUID] = vtext(uuid);
        v[GPU_CHIP] = vtext(m->chip);
        v[GPU_MAX_IPC] = vint(m->max_ipc);
        v[GPU_SHMEM_OPTIN] = vint(m->shmem_optin);
        v[GPU_SHMEM_SM] = vint(m->shmem_per_sm);
        v[GPU_ASYNC] = vint(m->async_engines);
        v[GPU_WARPS_SM] = vint(m->warps_per_sm);
        v[GPU_BLOCKS_SM] = vint(m->blocks_per_sm);
        v[GPU_CC_MAJOR] = v[GPU_SM_MAJOR] = vint(m->cc_major);
        v[GPU_CC_MINOR] = v[GPU_SM_MINOR] = vint(m->cc_minor);
        row_end(g, T_GPU);
    }
}

/* 2020.3 repeats the device properties per (process, device). */
static void write_cuda_gpus(struct gen *g)
{
    if (!(table_defs[T_CUDA_GPU].schemas & g->mask))
        return;
    const struct gpu_model *m = &g->info->gpu;
    char bus[32];
    for (size_t p = 0; p < (size_t)g->opt.processes; p++) {
        for (int64_t d = 0; d < g->opt.gpus; d++) {
            format_bus(g, d, bus, sizeof bus);
            struct value *v = row_begin(g, T_CUDA_GPU);
            v[CG_NAME] = vtext(m->name);
            v[CG_PCI_BUS] = vtext(bus);
            v[CG_MEM_SIZE] = vint(m->total_memory >> 20);
            v[CG_L2] = vint(m->l2);
            v[CG_CLOCK] = vint(m->clock_hz / 1000);
            v[CG_COPY_ENGINES] = vint(m->async_engines);
            v[CG_SMS] = vint(m->sms);
            v[CG_MAX_IPC] = vint(m->max_ipc);
            v[CG_WARPS_SM] = vint(m->warps_per_sm);
            v[CG_BLOCKS_SM] = vint(m->blocks_per_sm);
            v[CG_CC_MAJOR] = vint(m->cc_major);
            v[CG_CC_MINOR] = vint(m->cc_minor);
            v[CG_DEVICE_ID] = vint(d);
            v[CG_PID] = vint(g->processes[p].pid);
            v[CG_SHMEM_SM] = vint(m->shmem_per_sm);
            row_end(g, T_CUDA_GPU);
        }
    }
}

static void write_streams(struct gen *g)
{
    for (size_t i = 0; i < g->nstreams; i++) {
        const struct stream *s = &g->streams[i];
        struct value *v = row_begin(g, T_CUDA_STREAM);
        v[CS_STREAM_ID] = vint(s->id);
        v[CS_PROCESS_ID] = vint(g->processes[s->process].pid);
        v[CS_CONTEXT_ID] = vint(s->context);
        v[CS_PRIORITY] = vint(s->priority);
        v[CS_FLAG] = vint(g->opt.schema == SCHEMA_LEGACY ? STREAM_FLAG_UNKNOWN
                          : s->null_stream              ? STREAM_FLAG_NULL
                                                        : STREAM_FLAG_NON_BLOCKING);
        row_end(g, T_CUDA_STREAM);
    }
}

static void write_contexts(struct gen *g)
{
    enum table_id id = g->opt.schema == SCHEMA_MODERN ? T_CONTEXT_INFO : T_NULL_STREAM;
    for (size_t i = 0; i < g->nstreams; i++) {
        const struct stream *s = &g->streams[i];
        if (!s->null_stream)
            continue;
        struct value *v = row_begin(g, id);
        v[CX_NULL_STREAM] = vint(s->id);
        v[CX_PROCESS_ID] = vint(g->processes[s->process].pid);
        v[CX_DEVICE_ID] = vint(s->device);
        v[CX_CONTEXT_ID] = vint(s->context);
        row_end(g, id);
    }
}

/* Names for streams 1..4 of every (process, device); the null stream and any further
 * streams stay unnamed. Names repeat across processes and devices, as in real reports. */
static const char *const nvtx_stream_names[] = {NULL, "compute", "h2d copies", "d2h copies", "nccl"};

/* What nvtxNameCudaDeviceA, nvtxNameCuContextA and nvtxNameCudaStreamA calls leave in an
 * export (--nvtx-stream-names). */
static void write_nvtx_names(struct gen *g)
{
    char name[64];
    if (!g->opt.nvtx_stream_names)
        return;
    for (int64_t d = 0; d < g->opt.gpus; d++) {
        snprintf(name, sizeof name, "cuda:%" PRId64, d);
        struct value *v = row_begin(g, T_NVTX_DEVICE);
        v[NV_NAME] = vtext(name);
        v[NV_DEVICE_ID] = vint(d);
        row_end(g, T_NVTX_DEVICE);
    }
    for (size_t p = 0; p < (size_t)g->opt.processes; p++) {
        for (int64_t d = 0; d < g->opt.gpus; d++) {
            snprintf(name, sizeof name, "rank %zu cuda:%" PRId64, p, d);
            struct value *v = row_begin(g, T_NVTX_CONTEXT);
            v[NV_NAME] = vtext(name);
            v[NV_PROCESS_ID] = vint(g->processes[p].pid);
            v[NV_DEVICE_ID] = vint(d);
            v[NV_CONTEXT_ID] = vint(context_id(g, p, d));
            row_end(g, T_NVTX_CONTEXT);
        }
    }
    for (size_t i = 0; i < g->nstreams; i++) {
        const struct stream *s = &g->streams[i];
        size_t k = i - g->processes[s->process].first_stream - (size_t)(s->device * g->opt.streams);
        if (k >= ARRAY_LEN(nvtx_stream_names) || !nvtx_stream_names[k])
            continue;
        struct value *v = row_begin(g, T_NVTX_STREAM);
        v[NV_NAME] = vtext(nvtx_stream_names[k]);
        v[NV_PROCESS_ID] = vint(g->processes[s->process].pid);
        v[NV_DEVICE_ID] = vint(s->device);
        v[NV_CONTEXT_ID] = vint(s->context);
        v[NV_STREAM_ID] = vint(s->id);
        row_end(g, T_NVTX_STREAM);
    }
}

static void write_enums(struct gen *g)
{
    char name[96];
    for (size_t e = 0; e < ARRAY_LEN(enum_defs); e++) {
        const struct enum_def *ed = &enum_defs[e];
        if (!(ed->schemas & g->mask))
            continue;
        if (ed->needs && !(ed->needs & (g->features | (g->opt.nvtx ? FEAT_NVTX : 0))))
            continue;
        const struct table_def def = TABLE(ed->table, ed->schemas, enum_cols);
        struct table t = {.def = &def};
        for (size_t i = 0; i < ed->nrows; i++) {
            if (!(ed->rows[i].schemas & g->mask))
                continue;
            snprintf(name, sizeof name, "%s%s", ed->prefix, ed->rows[i].name);
            struct value *v = table_row(g, &t);
            v[EN_ID] = vint(ed->rows[i].id);
            v[EN_NAME] = vtext(name);
            v[EN_LABEL] = vtext(ed->rows[i].label);
            table_insert(g, &t);
        }
        table_close(&t);
    }
}

/* The session starts at 0 and ends 1 ms after the last event; events before 0
 * (--negative-ts) lie outside, as in real reports that captured activity from before the
 * collection window. */
static int64_t session_stop(const struct gen *g)
{
    return max64(g->max_end, 0) + 1000000;
}

static void write_analysis_details(struct gen *g)
{
    if (!(table_defs[T_ANALYSIS].schemas & g->mask))
        return;
    int64_t stop = session_stop(g);
    struct value *v = row_begin(g, T_ANALYSIS);
    v[AD_DURATION] = vint(stop);
    v[AD_START] = vint(0);
    v[AD_STOP] = vint(stop);
    row_end(g, T_ANALYSIS);
}

/* ------------------------------------------------------------------------------------
 * Event rows: written from the pending heap in start order
 * ---------------------------------------------------------------------------------- */

static void write_runtime(struct gen *g, const struct row *r)
{
    const struct api_def *a = &api_defs[r->u.api.api];
    struct value *v = row_begin(g, T_RUNTIME);
    v[RT_START] = vint(r->start);
    v[RT_END] = vint(r->end);
    v[RT_CLASS] = vint(a->event_class);
    v[RT_GLOBAL_TID] = vint(g->threads[r->thread].global_tid);
    v[RT_CORR] = vint(r->correlation_id);
    v[RT_NAME_ID] = vint(g->api_name_ids[r->u.api.api]);
    v[RT_RETURN] = vint(r->u.api.return_value);
    row_end(g, T_RUNTIME);
}

static struct value *gpu_row_begin(struct gen *g, enum table_id id, const struct row *r)
{
    const struct stream *s = &g->streams[r->stream];
    struct value *v = row_begin(g, id);
    v[GPU_START] = vint(r->start);
    v[GPU_END] = vint(r->end);
    v[GPU_DEVICE] = vint(s->device);
    v[GPU_CONTEXT] = vint(s->context);
    v[GPU_STREAM] = vint(s->id);
    v[GPU_CORR] = vint(r->correlation_id);
    v[GPU_GLOBAL_PID] = vint(g->processes[s->process].global_pid);
    return v;
}

static void write_kernel(struct gen *g, const struct row *r)
{
    const struct kernel_def *k = &kernel_defs[r->u.kernel.def];
    const struct kernel_names *names = &g->kernel_name_ids[r->u.kernel.def];
    struct value *v = gpu_row_begin(g, T_KERNEL, r);
    v[K_DEMANGLED] = vint(names->demangled);
    v[K_SHORT] = vint(names->short_name);
    v[K_MANGLED] = vint(names->mangled);
    v[K_REGS] = vint(k->regs);
    v[K_GRID_X] = vint(k->grid[0]);
    v[K_GRID_Y] = vint(k->grid[1]);
    v[K_GRID_Z] = vint(k->grid[2]);
    v[K_BLOCK_X] = vint(k->block[0]);
    v[K_BLOCK_Y] = vint(k->block[1]);
    v[K_BLOCK_Z] = vint(k->block[2]);
    v[K_STATIC_SMEM] = vint(k->static_smem);
    v[K_DYNAMIC_SMEM] = vint(k->dynamic_smem);
    v[K_LOCAL_TOTAL] = vint(k->local_memory_total);
    v[K_GRID_ID] = vint(r->u.kernel.grid_id);
    v[K_SMEM_EXECUTED] = vint(k->smem_executed);
    v[K_SMEM_LIMIT] = vint(k->smem_limit_config);
    v[K_CLUSTER_X] = vint(k->cluster[0]);
    v[K_CLUSTER_Y] = vint(k->cluster[1]);
    v[K_CLUSTER_Z] = vint(k->cluster[2]);
    v[K_MAX_CLUSTER_SIZE] = vint(k->max_cluster_size);
    v[K_MAX_ACTIVE_CLUSTERS] = vint(k->max_active_clusters);
    if (r->u.kernel.graph_node_id) {
        v[K_GRAPH_NODE] = vint(r->u.kernel.graph_node_id);
        v[K_GRAPH_ID] = vint(r->u.kernel.graph_id);
    }
    row_end(g, T_KERNEL);
}

static void write_memcpy(struct gen *g, const struct row *r)
{
    struct value *v = gpu_row_begin(g, T_MEMCPY, r);
    v[MC_BYTES] = vint(r->u.copy.bytes);
    v[MC_COPY_KIND] = vint(r->u.copy.copy_kind);
    v[MC_SRC_KIND] = vint(r->u.copy.src_kind);
    v[MC_DST_KIND] = vint(r->u.copy.dst_kind);
    /* Real exports fill the device/context pairs only for peer-to-peer copies. */
    if (r->u.copy.peer_device >= 0) {
        const struct stream *s = &g->streams[r->stream];
        v[MC_SRC_DEVICE] = vint(s->device);
        v[MC_SRC_CONTEXT] = vint(s->context);
        v[MC_DST_DEVICE] = vint(r->u.copy.peer_device);
        v[MC_DST_CONTEXT] = vint(context_id(g, s->process, r->u.copy.peer_device));
    }
    row_end(g, T_MEMCPY);
}

static void write_memset(struct gen *g, const struct row *r)
{
    struct value *v = gpu_row_begin(g, T_MEMSET, r);
    v[MS_VALUE] = vint(r->u.fill.value);
    v[MS_BYTES] = vint(r->u.fill.bytes);
    v[MS_MEM_KIND] = vint(r->u.fill.mem_kind);
    row_end(g, T_MEMSET);
}

static void write_sync(struct gen *g, const struct row *r)
{
    struct value *v = gpu_row_begin(g, T_SYNC, r);
    v[GPU_STREAM] = vint(r->u.sync.stream_id);
    v[SY_TYPE] = vint(r->u.sync.type);
    v[SY_EVENT_ID] = vint(r->u.sync.event_id);
    v[SY_EVENT_SYNC_ID] = vint(r->u.sync.event_sync_id);
    row_end(g, T_SYNC);
}

static void write_graph_trace(struct gen *g, const struct row *r)
{
    struct value *v = gpu_row_begin(g, T_GRAPH_TRACE, r);
    v[GT_GRAPH_ID] = vint(r->u.graph_trace.graph_id);
    v[GT_GRAPH_EXEC_ID] = vint(r->u.graph_trace.exec_id);
    row_end(g, T_GRAPH_TRACE);
}

static struct value vid(int64_t id)
{
    return id ? vint(id) : (struct value){.type = V_NULL};
}

/* CUDA_GRAPH_EVENTS and CUDA_GRAPH_NODE_EVENTS share their first five columns. */
static void write_graph_event(struct gen *g, const struct row *r)
{
    enum table_id id = r->kind == R_GRAPH_EVENT ? T_GRAPH_EVENTS : T_GRAPH_NODE_EVENTS;
    struct value *v = row_begin(g, id);
    v[GE_START] = vint(r->start);
    v[GE_END] = vint(r->end);
    v[GE_CLASS] = vint(r->u.graph_event.event_class);
    v[GE_GLOBAL_TID] = vint(g->threads[r->thread].global_tid);
    v[GE_NAME_ID] = vint(g->api_name_ids[r->u.graph_event.api]);
    if (id == T_GRAPH_EVENTS) {
        v[GE_GRAPH_ID] = vid(r->u.graph_event.id);
        v[GE_ORIGINAL] = vid(r->u.graph_event.original_id);
        v[GE_EXEC_ID] = vid(r->u.graph_event.exec_id);
    } else {
        v[GN_NODE_ID] = vint(r->u.graph_event.id);
        v[GN_ORIGINAL] = vid(r->u.graph_event.original_id);
    }
    row_end(g, id);
}

/* The frames of an OSRT callchain, outermost first: the thread's outer frames, the caller
 * frames of the call, the libc function. */
static size_t osrt_chain(enum cpu_role role, enum osrt_fn fn, uint8_t *out)
{
    const struct osrt_def *d = &osrt_defs[fn];
    struct path prefix = role_prefix[role];
    struct path mid = role == ROLE_MAIN     ? d->main_mid
                      : role == ROLE_WORKER ? d->worker_mid
                                            : (struct path){NULL, 0};
    if (role == ROLE_MAIN && prefix.n + mid.n + 1 > MAX_OSRT_CHAIN)
        prefix = short_main_prefix;
    size_t n = 0;
    for (size_t i = 0; i < prefix.n; i++)
        out[n++] = prefix.frames[i];
    for (size_t i = 0; i < mid.n; i++)
        out[n++] = mid.frames[i];
    out[n++] = (uint8_t)d->leaf;
    return n;
}

static int64_t frame_ip(enum frame_id f)
{
    const struct frame_def *d = &frame_defs[f];
    return (int64_t)(module_defs[d->module].base + d->offset); /* kernel addresses come out negative */
}

/* Writes one callchain, innermost frame (stackDepth 0) first. Flags as the real exports have
 * them: 2024.6+ write 0/1 everywhere, 2022.4 1 or NULL, 2020.3 NULL; only samples carry an
 * unwind method (LBR), and "[Max depth]" entries have no address. */
static void write_callchain(struct gen *g, enum table_id table, int64_t id, const uint8_t *frames, size_t n,
                            int kernel_frame, int64_t leaf_offset)
{
    bool sample = table == T_SAMPLING_CALLCHAINS;
    bool modern = g->opt.schema == SCHEMA_MODERN, legacy = g->opt.schema == SCHEMA_LEGACY;
    int64_t depth = 0;
    for (size_t k = 0; k < n + (kernel_frame ? 1 : 0); k++) {
        int frame = kernel_frame ? (k == 0 ? kernel_frame : frames[n - k]) : frames[n - 1 - k];
        enum frame_id f = (enum frame_id)frame;
        bool special = f == F_MAX_DEPTH || f == F_BROKEN;
        bool kernel = frame_defs[f].module == MOD_KERNEL;
        bool unresolved = !frame_defs[f].symbol || f == F_UNKNOWN_0;
        struct value null = {.type = V_NULL};
        struct value *v = row_begin(g, table);
        v[CC_ID] = vint(id);
        v[CC_SYMBOL] = vint(g->frame_symbol_ids[f]);
        v[CC_MODULE] = vint(g->frame_module_ids[f]);
        v[CC_KERNEL_MODE] = modern ? vint(kernel) : kernel && !legacy ? vint(1) : null;
        v[CC_THUMB] = modern ? vint(0) : null;
        v[CC_UNRESOLVED] = modern ? vint(unresolved) : unresolved && !legacy ? vint(1) : null;
        v[CC_IP] = special ? null : vint(frame_ip(f) + (depth == 0 && !unresolved ? leaf_offset : 0));
        v[CC_UNWIND] = !sample ? null : !special ? vint(UNWIND_LBR) : modern ? vint(UNWIND_UNKNOWN) : null;
        v[CC_DEPTH] = vint(depth++);
        row_end(g, table);
    }
    /* 2020.3 wrote its unwind-method names next to its first callchain */
    if (legacy && !g->unwind_types_written) {
        g->unwind_types_written = true;
        for (size_t i = 0; i < ARRAY_LEN(unwind_method_rows); i++) {
            if (!(unwind_method_rows[i].schemas & S_LEGACY))
                continue;
            struct value *v = row_begin(g, T_UNWIND_TYPE);
            v[UM_NUMBER] = vint(unwind_method_rows[i].id);
            v[UM_NAME] = vtext(unwind_method_rows[i].name);
            row_end(g, T_UNWIND_TYPE);
        }
    }
}

/* callchainIds are numbered from 1 in start order; 0 means no backtrace. */
static void write_osrt(struct gen *g, const struct row *r)
{
    const struct osrt_def *d = &osrt_defs[r->u.osrt.fn];
    int64_t callchain = r->u.osrt.callchain ? ++g->next_callchain_id : 0;
    struct value *v = row_begin(g, T_OSRT);
    v[OS_START] = vint(r->start);
    v[OS_END] = vint(r->end);
    v[OS_CLASS] = vint(d->event_class);
    v[OS_GLOBAL_TID] = vint(r->u.osrt.global_tid);
    v[OS_NAME_ID] = vint(g->osrt_name_ids[r->u.osrt.fn]);
    v[OS_NESTING] = r->u.osrt.nesting < 0 ? (struct value){.type = V_NULL} : vint(r->u.osrt.nesting);
    v[OS_CALLCHAIN] = vint(callchain);
    row_end(g, T_OSRT);
    if (callchain) {
        uint8_t frames[MAX_CHAIN];
        size_t n = osrt_chain((enum cpu_role)r->u.osrt.role, (enum osrt_fn)r->u.osrt.fn, frames);
        write_callchain(g, T_OSRT_CALLCHAINS, callchain, frames, n, 0, 0);
    }
}

static void write_sched(struct gen *g, const struct row *r)
{
    struct value *v = row_begin(g, T_SCHED);
    v[SE_START] = vint(r->start);
    v[SE_CPU] = vint(r->u.sched.cpu);
    v[SE_IS_IN] = vint(r->u.sched.is_in);
    v[SE_GLOBAL_TID] = vint(r->u.sched.global_tid);
    v[SE_THREAD_STATE] = vint(r->u.sched.thread_state);
    row_end(g, T_SCHED);
}

/* Sample ids are numbered from 1 in start order; every sample has a callchain. */
static void write_sample(struct gen *g, const struct row *r)
{
    int64_t id = ++g->next_sample_id;
    struct value *v = row_begin(g, T_COMPOSITE);
    v[CE_ID] = vint(id);
    v[CE_START] = vint(r->start);
    v[CE_CPU] = vint(r->u.sample.cpu);
    v[CE_GLOBAL_TID] = vint(r->u.sample.global_tid);
    row_end(g, T_COMPOSITE);
    uint8_t buf[MAX_CHAIN];
    const uint8_t *frames = buf;
    size_t n;
    if (r->u.sample.path < SP__COUNT) {
        frames = sample_paths[r->u.sample.path].path.frames;
        n = sample_paths[r->u.sample.path].path.n;
    } else {
        unsigned code = r->u.sample.path - SP__COUNT;
        n = osrt_chain((enum cpu_role)(code / OS__COUNT), (enum osrt_fn)(code % OS__COUNT), buf);
    }
    write_callchain(g, T_SAMPLING_CALLCHAINS, id, frames, n, r->u.sample.kernel_frame, r->u.sample.leaf_offset);
}

static void write_row(struct gen *g, const struct row *r)
{
    switch (r->kind) {
    case R_API: write_runtime(g, r); break;
    case R_KERNEL: write_kernel(g, r); break;
    case R_MEMCPY: write_memcpy(g, r); break;
    case R_MEMSET: write_memset(g, r); break;
    case R_SYNC: write_sync(g, r); break;
    case R_GRAPH_TRACE: write_graph_trace(g, r); break;
    case R_GRAPH_EVENT:
    case R_GRAPH_NODE_EVENT: write_graph_event(g, r); break;
    case R_OSRT: write_osrt(g, r); break;
    case R_SCHED: write_sched(g, r); break;
    case R_SAMPLE: write_sample(g, r); break;
    }
}

static bool row_less(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    return x->start != y->start ? x->start < y->start : x->seq < y->seq;
}

static bool thread_less(const void *a, const void *b)
{
    const struct thread_key *x = a, *y = b;
    return x->free_at != y->free_at ? x->free_at < y->free_at : x->index < y->index;
}

static void gpu_row_observed(struct gen *g, const struct row *r);

static void push_row(struct gen *g, struct row *r)
{
    if (g->features & (FEAT_GPU_METRICS | FEAT_UM | FEAT_DIAG))
        gpu_row_observed(g, r);
    r->seq = g->next_seq++;
    g->max_end = max64(g->max_end, r->end);
    g->rows_planned++;
    heap_push(&g->pending_rows, r);
}

/* Every row generated from now on starts at or after `now`, so whatever is pending
 * before it can be written without breaking start order. */
static void flush_rows(struct gen *g, int64_t now)
{
    struct row r;
    while (g->pending_rows.count && ((const struct row *)heap_at(&g->pending_rows, 0))->start <= now) {
        heap_pop(&g->pending_rows, &r);
        write_row(g, &r);
    }
}

/* A CUDA call being generated. */
struct call {
    enum api_id api;
    int64_t start, end, correlation_id;
};

/* ------------------------------------------------------------------------------------
 * Further tables (--gpu-metrics, --memory-usage, --libraries, --mpi, --openacc, --openmp,
 * --um-faults, --diagnostics). They watch the CUDA simulation without changing it: each
 * option draws from a random stream of its own, and its rows are kept aside (xrows) and
 * written after the simulation, every table sorted by start.
 * ---------------------------------------------------------------------------------- */

#define WRAP_LEAD_MAX 1500 /* a wrap starts at most this long before the call it covers */
#define SESSION_GLOBAL_PID INT64_C(-144115188075855872) /* 0xFE00000000000000: "no process" */

/* A row of a further table; end (> INT64_MIN) extends the session, as push_row does. The
 * pointer is valid until the next call. */
static int64_t *xrow_new(struct gen *g, enum table_id table, int64_t key, int64_t end)
{
    if (table_defs[table].ncols > XCOLS)
        die("internal error: table %s has more than %d columns", table_defs[table].name, XCOLS);
    if (g->nxrows == g->xrows_capacity) {
        g->xrows_capacity = g->xrows_capacity ? 2 * g->xrows_capacity : 1024;
        g->xrows = xrealloc(g->xrows, g->xrows_capacity * sizeof *g->xrows);
    }
    struct xrow *x = &g->xrows[g->nxrows];
    x->key = key;
    x->seq = g->nxrows++;
    x->table = table;
    for (size_t i = 0; i < XCOLS; i++)
        x->f[i] = XDEF;
    if (end != INT64_MIN)
        g->max_end = max64(g->max_end, end);
    return x->f;
}

static int64_t xtext(struct gen *g, const char *s)
{
    if (g->nxtexts == g->xtexts_capacity) {
        g->xtexts_capacity = g->xtexts_capacity ? 2 * g->xtexts_capacity : 64;
        g->xtexts = xrealloc(g->xtexts, g->xtexts_capacity * sizeof *g->xtexts);
    }
    g->xtexts[g->nxtexts] = xstrdup(s);
    return (int64_t)g->nxtexts++;
}

static int xrow_compare(const void *a, const void *b)
{
    const struct xrow *x = a, *y = b;
    if (x->table != y->table)
        return x->table < y->table ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void write_xrows(struct gen *g)
{
    if (g->nxrows)
        qsort(g->xrows, g->nxrows, sizeof *g->xrows, xrow_compare);
    for (size_t n = 0; n < g->nxrows; n++) {
        const struct xrow *x = &g->xrows[n];
        const struct table_def *def = &table_defs[x->table];
        struct value *v = row_begin(g, x->table);
        for (size_t i = 0; i < def->ncols; i++) {
            int64_t f = x->f[i];
            if (f == XDEF)
                continue;
            v[i] = f == XNULL                          ? (struct value){.type = V_NULL}
                   : strcmp(def->cols[i].type, TXT) == 0 ? vtext(g->xtexts[f])
                                                         : vint(f);
        }
        row_end(g, x->table);
    }
}

/* --- GPU metrics: busy time of each device's engines per sampling interval ----------- */

static void gm_add(struct gen *g, int64_t device, int64_t start, int64_t end, int engine)
{
    int64_t period = g->gm_period, t0 = g->gm_t0;
    start = max64(start, t0);
    if (end <= start)
        return;
    size_t first = (size_t)((start - t0) / period), last = (size_t)((end - 1 - t0) / period);
    size_t *n = &g->gm_nbins[device];
    if (last >= *n) {
        size_t grown = max64((int64_t)last + 1, 2 * (int64_t)*n);
        g->gm_bins[device] = xrealloc(g->gm_bins[device], grown * sizeof **g->gm_bins);
        memset(g->gm_bins[device] + *n, 0, (grown - *n) * sizeof **g->gm_bins);
        *n = grown;
    }
    for (size_t k = first; k <= last; k++) {
        int64_t lo = max64(start, t0 + (int64_t)k * period), hi = min64(end, t0 + (int64_t)(k + 1) * period);
        uint32_t *busy = &g->gm_bins[device][k].busy[engine];
        *busy = (uint32_t)min64(period, (int64_t)*busy + (hi - lo)); /* overlapping work counts once */
    }
}

/* What the sampler reads for device d in interval k: integers, percentages except the
 * clocks. Clocks are written in Hz although the modern names say [MHz]: exports appear to
 * store the raw value and apply the metric set's multiplier (1e-6) only for display. */
static void gm_values(struct gen *g, int64_t device, size_t k, int64_t *q)
{
    struct rng *r = &g->gm_rng;
    static const struct gm_bin idle;
    const struct gm_bin *bin = k < g->gm_nbins[device] ? &g->gm_bins[device][k] : &idle;
    int64_t busy[GB__COUNT];
    for (int i = 0; i < GB__COUNT; i++)
        busy[i] = (int64_t)bin->busy[i] * 100 / g->gm_period;
    int64_t clock = g->info->gpu.clock_hz;
    int64_t sm = busy[GB_SM] * rng_range(r, 75, 100) / 100;
    q[GQ_GPC_CLOCK] = (busy[GB_SM] ? clock : clock * 82 / 100) - rng_range(r, 0, 9000000);
    q[GQ_SYS_CLOCK] = clock * 80 / 100 + rng_range(r, -400000, 400000);
    q[GQ_GR_ACTIVE] = max64(busy[GB_SM], max64(busy[GB_H2D], max64(busy[GB_D2H], busy[GB_DRAM])));
    q[GQ_SM_ACTIVE] = sm;
    q[GQ_SM_ISSUE] = sm * rng_range(r, 20, 60) / 100;
    q[GQ_TENSOR] = sm * rng_range(r, 0, 45) / 100;
    q[GQ_WARPS] = sm * rng_range(r, 30, 85) / 100;
    q[GQ_UNALLOCATED] = sm * rng_range(r, 5, 35) / 100;
    q[GQ_DRAM_READ] = min64(100, busy[GB_DRAM] * 55 / 100 + sm * rng_range(r, 5, 35) / 100 + busy[GB_D2H] / 6);
    q[GQ_DRAM_WRITE] = min64(100, busy[GB_DRAM] * 45 / 100 + sm * rng_range(r, 3, 25) / 100 + busy[GB_H2D] / 6);
    q[GQ_NVL_RX] = busy[GB_NVL_RX] * rng_range(r, 40, 70) / 100;
    q[GQ_NVL_TX] = busy[GB_NVL_TX] * rng_range(r, 40, 70) / 100;
    q[GQ_NVL_RX_REQ] = busy[GB_NVL_TX] * rng_range(r, 2, 8) / 100; /* requests flow against the data */
    q[GQ_NVL_TX_REQ] = busy[GB_NVL_RX] * rng_range(r, 2, 8) / 100;
    q[GQ_NVL_PROTOCOL] = (busy[GB_NVL_RX] + busy[GB_NVL_TX]) * rng_range(r, 1, 4) / 100;
    q[GQ_PCIE_RX] = busy[GB_H2D] * rng_range(r, 45, 75) / 100; /* one draw per statement */
    q[GQ_PCIE_RX] = min64(100, q[GQ_PCIE_RX] + (int64_t)rng_below(r, 2));
    q[GQ_PCIE_TX] = busy[GB_D2H] * rng_range(r, 45, 75) / 100;
    q[GQ_PCIE_TX] = min64(100, q[GQ_PCIE_TX] + (int64_t)rng_below(r, 2));
    q[GQ_ZERO] = 0;
}

/* typeId <Hardware:8><VM:8><Source:16><Type:32> with the GPU in the low byte of Type (the
 * schema reference's gpuId = typeId & 0xFF); a source per GPU. GPU 0 gets the ids of the
 * real one-GPU 2022 export: 0x0001000100000000 for both. */
static int64_t gm_source_id(int64_t device)
{
    return VM_ID | (1 + device) << 32;
}

static int64_t gm_type_id(int64_t device)
{
    return gm_source_id(device) | device;
}

/* JSON text as nsys 2022.4 wrote it: four-space indent, "/" escaped. */
static void json_string(struct strbuf *sb, const char *s)
{
    sb_printf(sb, "\"");
    for (; *s; s++)
        sb_printf(sb, *s == '/' ? "\\/" : *s == '"' ? "\\\"" : *s == '\\' ? "\\\\" : "%c", *s);
    sb_printf(sb, "\"");
}

static void write_gpu_metrics(struct gen *g)
{
    if (!(g->features & FEAT_GPU_METRICS))
        return;
    bool modern = g->opt.schema == SCHEMA_MODERN;
    const struct gm_metric *metrics = modern ? gm_metrics_modern : gm_metrics_2022;
    size_t nmetrics = modern ? ARRAY_LEN(gm_metrics_modern) : ARRAY_LEN(gm_metrics_2022);
    struct strbuf sb;
    for (int64_t d = 0; d < g->opt.gpus; d++) {
        if (modern) {
            for (size_t m = 0; m < nmetrics; m++) {
                struct value *v = row_begin(g, T_GPU_METRIC_INFO);
                v[GI_TYPE_ID] = vint(gm_type_id(d));
                v[GI_SOURCE_ID] = vint(gm_source_id(d));
                v[GI_TYPE_NAME] = vtext(GPU_METRICS_TYPE_NAME);
                v[GI_METRIC_ID] = vint((int64_t)m);
                v[GI_METRIC_NAME] = vtext(metrics[m].name);
                row_end(g, T_GPU_METRIC_INFO);
            }
        } else { /* the real export created the types table first */
            sb.len = 0;
            sb_printf(&sb, "{\n    \"Name\": \"\",\n    \"Fields\": [\n");
            for (size_t m = 0; m < nmetrics; m++) {
                sb_printf(&sb, "        {\n            \"Name\": ");
                json_string(&sb, metrics[m].name);
                sb_printf(&sb, "\n        }%s\n", m + 1 < nmetrics ? "," : "");
            }
            sb_printf(&sb, "    ]\n}\n");
            struct value *v = row_begin(g, T_GENERIC_TYPES);
            v[GT2_TYPE_ID] = vint(gm_type_id(d));
            v[GT2_SOURCE_ID] = vint(gm_source_id(d));
            v[GT2_DATA] = vtext(sb.text);
            row_end(g, T_GENERIC_TYPES);
        }
    }
    for (int64_t d = 0; !modern && d < g->opt.gpus; d++) {
        struct value *v = row_begin(g, T_GENERIC_SOURCES);
        v[GS_SOURCE_ID] = vint(gm_source_id(d));
        v[GS_DATA] = vtext("{\n    \"Name\": \"GpuMetrics\",\n    \"TimeSource\": \"SessionNs\",\n"
                           "    \"SourceGroup\": \"Unknown\"\n}\n");
        row_end(g, T_GENERIC_SOURCES);
    }
    /* Samples from just before the session start to just before its end; a value holds
     * until the next sample of its GPU. */
    int64_t stop = session_stop(g), q[GQ__COUNT];
    for (size_t k = 0;; k++) {
        int64_t at = g->gm_t0 + (int64_t)k * g->gm_period;
        if (at > stop - g->gm_period)
            break;
        for (int64_t d = 0; d < g->opt.gpus; d++) {
            gm_values(g, d, k, q);
            if (modern) {
                for (size_t m = 0; m < nmetrics; m++) {
                    struct value *v = row_begin(g, T_GPU_METRICS);
                    v[GM_RAW_TS] = v[GM_TS] = vint(at); /* time source SessionNs */
                    v[GM_TYPE_ID] = vint(gm_type_id(d));
                    v[GM_METRIC_ID] = vint((int64_t)m);
                    v[GM_VALUE] = vint(q[metrics[m].quantity]);
                    row_end(g, T_GPU_METRICS);
                }
                continue;
            }
            sb.len = 0;
            sb_printf(&sb, "{\n");
            for (size_t m = 0; m < nmetrics; m++) {
                sb_printf(&sb, "    ");
                json_string(&sb, metrics[m].name);
                sb_printf(&sb, ": \"%" PRId64 "\"%s\n", q[metrics[m].quantity], m + 1 < nmetrics ? "," : "");
            }
            sb_printf(&sb, "}\n");
            struct value *v = row_begin(g, T_GENERIC_EVENTS);
            v[GE2_RAW_TS] = vint(at); /* session ns; timestamp stays NULL */
            v[GE2_TYPE_ID] = vint(gm_type_id(d));
            v[GE2_DATA] = vtext(sb.text);
            row_end(g, T_GENERIC_EVENTS);
        }
    }
}

/* --- unified memory ---------------------------------------------------------------- */

/* Some kernels touch managed memory that is not resident: fault groups while they run,
 * a few overlapping one another. */
static void um_gpu_faults(struct gen *g, const struct stream *s, const struct row *r)
{
    static const int access_weights[] = {
        [UM_ACCESS_UNKNOWN] = 2, [UM_ACCESS_READ] = 55, [UM_ACCESS_WRITE] = 35,
        [UM_ACCESS_ATOMIC] = 5, [UM_ACCESS_PREFETCH] = 3,
    };
    struct rng *rr = &g->um_rng;
    if (!rng_percent(rr, 5))
        return;
    const struct host_process *hp = &g->hprocs[s->process];
    int64_t span = r->end - r->start;
    for (int64_t n = rng_range(rr, 1, 3); n > 0; n--) {
        int64_t start = r->start + rng_range(rr, 0, span * 2 / 3);
        int64_t end = start + rng_log_range(rr, 1500, 60000);
        int64_t *f = xrow_new(g, T_UM_GPU_FAULTS, start, end);
        f[UG_START] = start;
        f[UG_END] = end;
        f[UG_GLOBAL_PID] = g->processes[s->process].global_pid;
        f[UG_DEVICE] = s->device;
        f[UG_ADDRESS] = hp->managed_base + (int64_t)rng_below(rr, 4096) * 65536;
        f[UG_FAULTS] = rng_log_range(rr, 1, 512);
        f[UG_ACCESS] = (int64_t)rng_weighted(rr, access_weights, ARRAY_LEN(access_weights));
    }
}

/* After a synchronisation the host reads results in managed memory: CPU faults (instants
 * of the process). */
static void um_cpu_faults(struct gen *g, size_t process, const struct host_call *hc)
{
    struct rng *r = &g->um_rng;
    if (!rng_percent(r, 10))
        return;
    const struct host_process *hp = &g->hprocs[process];
    int64_t at = hc->end + rng_range(r, 200, 1500);
    for (int64_t n = rng_range(r, 1, 6); n > 0; n--) {
        size_t site = (size_t)rng_below(r, ARRAY_LEN(um_cpu_sites));
        bool resolved = um_cpu_sites[site].symbol != NULL;
        int64_t *f = xrow_new(g, T_UM_CPU_FAULTS, at, at);
        f[UC_START] = at;
        f[UC_GLOBAL_PID] = g->processes[process].global_pid;
        f[UC_ADDRESS] = hp->managed_base + (int64_t)rng_below(r, 65536) * 4096;
        f[UC_PC] = (int64_t)(module_defs[um_cpu_sites[site].module].base + um_cpu_sites[site].offset) +
                   (resolved ? (int64_t)rng_below(r, 0x40) : 0);
        f[UC_INSTRUCTION] = g->um_symbol_ids[site];
        f[UC_MODULE] = g->um_module_ids[site];
        f[UC_UNRESOLVED] = resolved ? 0 : 1;
        at += rng_range(r, 300, 4000);
    }
}

/* --- GPU memory usage ------------------------------------------------------------------- */

static void memory_row(struct gen *g, size_t process, int64_t at, int64_t device, int64_t address, int64_t bytes,
                       int64_t mem_kind, int64_t oper, int64_t pc, int64_t correlation_id, const char *name)
{
    int64_t text = name ? xtext(g, name) : XNULL;
    int64_t *f = xrow_new(g, T_MEMORY_USAGE, at, at);
    f[MU_START] = at;
    f[MU_GLOBAL_PID] = g->processes[process].global_pid;
    f[MU_DEVICE] = device;
    f[MU_CONTEXT] = context_id(g, process, device);
    f[MU_ADDRESS] = address;
    f[MU_PC] = pc;
    f[MU_BYTES] = bytes;
    f[MU_MEM_KIND] = mem_kind;
    f[MU_OPER] = oper;
    f[MU_NAME] = text;
    f[MU_CORR] = correlation_id ? correlation_id : XNULL;
}

/* Loading the process's CUDA module during its first call allocates its __device__
 * variables: named, no call of their own, never freed. */
static void memory_static(struct gen *g, const struct thread *t, const struct host_call *hc)
{
    static const struct {
        const char *name;
        int64_t bytes;
    } statics[] = {{"gpu_rng_state", 4096}, {"kernel_error_flag", 512}, {"lookup_table", 1 << 20}};
    int64_t address = INT64_C(0x7f3e40000000) + t->home_device * INT64_C(0x10000000);
    int64_t pc = (int64_t)(module_defs[MOD_LIBCUDA].base + 0x2a0c5e4);
    for (size_t i = 0; i < ARRAY_LEN(statics); i++) {
        memory_row(g, t->process, hc->start + (hc->end - hc->start) / 2 + (int64_t)i, t->home_device, address,
                   statics[i].bytes, MEM_DEVICE_STATIC, MEM_OPER_ALLOC, pc, 0, statics[i].name);
        address += INT64_C(0x200000);
    }
}

/* cudaMalloc allocates on the thread's device; cudaFree frees one of the process's live
 * blocks (same address and bytes), or nothing (cudaFree(0)). */
static void memory_call(struct gen *g, const struct thread *t, const struct host_call *hc)
{
    struct rng *r = &g->mem_rng;
    struct host_process *hp = &g->hprocs[t->process];
    int64_t at = hc->start + (hc->end - hc->start) * 3 / 4;
    int64_t cudart = (int64_t)module_defs[MOD_CUDART].base;
    if (hc->api == API_MALLOC) {
        int64_t device = t->home_device, granule = INT64_C(2) << 20;
        int64_t bytes = (rng_log_range(r, 1024, INT64_C(4) << 30) + 511) / 512 * 512;
        int64_t address = hp->next_address[device];
        hp->next_address[device] += (bytes + granule - 1) / granule * granule;
        if (hp->nlive == hp->live_capacity) {
            hp->live_capacity = hp->live_capacity ? 2 * hp->live_capacity : 16;
            hp->live = xrealloc(hp->live, hp->live_capacity * sizeof *hp->live);
        }
        hp->live[hp->nlive++] = (struct mem_block){address, bytes, device};
        memory_row(g, t->process, at, device, address, bytes, MEM_DEVICE, MEM_OPER_ALLOC, cudart + 0x5ea1c,
                   hc->correlation_id, NULL);
    } else if (hp->nlive) {
        size_t i = (size_t)rng_below(r, hp->nlive);
        struct mem_block b = hp->live[i];
        hp->live[i] = hp->live[--hp->nlive];
        memory_row(g, t->process, at, b.device, b.address, b.bytes, MEM_DEVICE, MEM_OPER_FREE, cudart + 0x5f2c4,
                   hc->correlation_id, NULL);
    }
}

/* --- watching the GPU rows ----------------------------------------------------------- */

static void gpu_row_observed(struct gen *g, const struct row *r)
{
    if (r->kind == R_API) {
        g->hprocs[g->threads[r->thread].process].cuda_rows++;
        return;
    }
    if (r->kind != R_KERNEL && r->kind != R_MEMCPY && r->kind != R_MEMSET && r->kind != R_SYNC)
        return;
    const struct stream *s = &g->streams[r->stream];
    g->hprocs[s->process].cuda_rows++;
    if ((g->features & FEAT_GPU_METRICS) && r->kind != R_SYNC) {
        int engine = GB_SM;
        if (r->kind == R_MEMSET)
            engine = GB_DRAM;
        else if (r->kind == R_MEMCPY)
            engine = r->u.copy.copy_kind == COPY_HTOD   ? GB_H2D
                     : r->u.copy.copy_kind == COPY_DTOH ? GB_D2H
                     : r->u.copy.copy_kind == COPY_PTOP ? GB_NVL_TX
                                                        : GB_DRAM;
        gm_add(g, s->device, r->start, r->end, engine);
        if (engine == GB_NVL_TX)
            gm_add(g, r->u.copy.peer_device, r->start, r->end, GB_NVL_RX);
    }
    if ((g->features & FEAT_UM) && r->kind == R_KERNEL)
        um_gpu_faults(g, s, r);
}

/* --- library calls and OpenACC constructs around CUDA calls ------------------------- */

static void push_library_row(struct gen *g, const struct thread *t, enum library_fn fn, int64_t start, int64_t end)
{
    bool cudnn = library_fns[fn].cudnn;
    int64_t *f = xrow_new(g, cudnn ? T_CUDNN : T_CUBLAS, start, end);
    f[LB_START] = start;
    f[LB_END] = end;
    f[LB_CLASS] = cudnn ? CLASS_CUDNN : CLASS_CUBLAS;
    f[LB_GLOBAL_TID] = t->global_tid;
    f[LB_NAME_ID] = g->lib_name_ids[fn];
}

/* inner: the event of the CUDA call itself, which carries its correlationId (modern). */
static void push_acc_row(struct gen *g, const struct thread *t, enum acc_event ev, size_t site,
                         const struct host_call *hc, int64_t start, int64_t end, bool inner)
{
    enum table_id table = acc_events[ev].table;
    const struct stream *s = hc->stream >= 0 ? &g->streams[hc->stream] : stream_of(g, t->process, t->home_device, 0);
    int64_t *f = xrow_new(g, table, start, end);
    f[AC_START] = start;
    f[AC_END] = end;
    f[AC_NAME_ID] = g->acc_name_ids[ev];
    f[AC_GLOBAL_TID] = t->global_tid;
    f[AC_EVENT_KIND] = acc_events[ev].kind;
    f[AC_LINE] = acc_sites[site].line;
    f[AC_CU_DEVICE] = s->device;
    f[AC_CU_CONTEXT] = s->context;
    f[AC_CU_STREAM] = s->id;
    f[AC_SRC_FILE] = g->acc_file_ids[site];
    f[AC_FUNC_NAME] = acc_sites[site].func ? g->acc_func_ids[site] : XNULL;
    f[AC_CORR] = inner ? hc->correlation_id : XNULL;
    if (table == T_ACC_DATA) {
        f[AA_BYTES] = hc->bytes;
        f[AA_VAR_NAME] = g->acc_extra_ids[site];
    } else if (table == T_ACC_LAUNCH) {
        const struct kernel_def *k = &kernel_defs[hc->kernel >= 0 ? hc->kernel : 0];
        f[AL_GANGS] = (int64_t)k->grid[0] * k->grid[1] * k->grid[2];
        f[AL_WORKERS] = k->block[1];
        f[AL_VECTOR] = k->block[0];
        f[AL_KERNEL_NAME] = g->acc_extra_ids[site];
    }
}

static bool is_graph_api(enum api_id api)
{
    return api >= API_FIRST_GRAPH;
}

/* Whether an OpenACC directive made this call: kernel launches (compute constructs),
 * host-device copies (data constructs and updates), stream syncs (wait). */
static bool acc_wants(struct gen *g, const struct host_call *hc, uint32_t *site)
{
    struct rng *r = &g->acc_rng;
    enum acc_site_kind kind;
    int pct;
    if (hc->kernel >= 0) {
        kind = ACC_SITE_LAUNCH, pct = 20;
    } else if (hc->api == API_MEMCPY_ASYNC && (hc->copy_kind == COPY_HTOD || hc->copy_kind == COPY_DTOH)) {
        kind = hc->copy_kind == COPY_HTOD ? ACC_SITE_UPLOAD : ACC_SITE_DOWNLOAD, pct = 25;
    } else if (hc->api == API_STREAM_SYNC || hc->api == API_DEVICE_SYNC) {
        kind = ACC_SITE_WAIT, pct = 30;
    } else {
        return false;
    }
    if (!rng_percent(r, pct))
        return false;
    uint64_t n = 0;
    for (size_t i = 0; i < ARRAY_LEN(acc_sites); i++)
        n += acc_sites[i].kind == kind;
    uint64_t pick = rng_below(r, n);
    for (size_t i = 0; i < ARRAY_LEN(acc_sites); i++)
        if (acc_sites[i].kind == kind && pick-- == 0)
            *site = (uint32_t)i;
    return true;
}

/* Whether cuBLAS (GEMM kernels) or cuDNN (other kernels) made this launch; cuDNN calls
 * sometimes cover the next CUDA call too. */
static bool library_wants(struct gen *g, const struct host_call *hc, uint32_t *fn, int *more)
{
    struct rng *r = &g->lib_rng;
    if (hc->kernel < 0)
        return false;
    const struct kernel_def *k = &kernel_defs[hc->kernel];
    bool gemm = k->launch == API_CU_LAUNCH_KERNEL_EX || strncmp(k->short_name, "gemm", 4) == 0;
    if (!rng_percent(r, gemm ? 60 : 15))
        return false;
    enum library_use use = gemm ? LIB_USE_GEMM : LIB_USE_DNN;
    uint64_t n = 0;
    for (size_t i = 0; i < LIB__COUNT; i++)
        n += library_fns[i].use == use;
    uint64_t pick = rng_below(r, n);
    for (size_t i = 0; i < LIB__COUNT; i++)
        if (library_fns[i].use == use && pick-- == 0)
            *fn = (uint32_t)i;
    *more = use == LIB_USE_DNN && rng_percent(r, 25) ? 1 : 0;
    return true;
}

/* Opens a wrap around hc when there is room before it (the call before it, or the last
 * row placed after that, ends at free_from). */
static void wrap_open(struct gen *g, struct host_thread *ht, const struct host_call *hc)
{
    int64_t room = hc->start - ht->free_from;
    if (room < 600)
        return;
    int64_t lead = min64(WRAP_LEAD_MAX, room / 3);
    uint32_t what = 0;
    int more = 0;
    if ((g->features & FEAT_OPENACC) && acc_wants(g, hc, &what)) {
        ht->wrap = WRAP_OPENACC;
        ht->wrap_start[0] = hc->start - rng_range(&g->acc_rng, 1, lead / 2);
        ht->wrap_start[1] = ht->wrap_start[0] - rng_range(&g->acc_rng, 1, lead / 2);
    } else if ((g->features & FEAT_LIBRARIES) && library_wants(g, hc, &what, &more)) {
        ht->wrap = WRAP_LIBRARY;
        ht->wrap_start[0] = ht->wrap_start[1] = hc->start - rng_range(&g->lib_rng, 1, lead);
    } else {
        return;
    }
    ht->wrap_what = what;
    ht->wrap_left = more;
    ht->wrap_call = *hc;
    ht->close_pending = more == 0;
}

/* Ends the open wrap after the thread's last call, inside the room before window_end. */
static void wrap_close(struct gen *g, const struct thread *t, struct host_thread *ht, int64_t window_end)
{
    struct rng *r = ht->wrap == WRAP_OPENACC ? &g->acc_rng : &g->lib_rng;
    int64_t trail = max64(2, min64(WRAP_LEAD_MAX, (window_end - ht->last_end) / 3));
    int64_t inner_end = ht->last_end + rng_range(r, 1, trail / 2);
    int64_t outer_end = inner_end + rng_range(r, 0, trail - trail / 2 - 1);
    if (ht->wrap == WRAP_LIBRARY) {
        push_library_row(g, t, (enum library_fn)ht->wrap_what, ht->wrap_start[0], inner_end);
        ht->free_from = inner_end;
    } else {
        size_t site = ht->wrap_what;
        static const enum acc_event inner[] = {
            [ACC_SITE_LAUNCH] = ACC_ENQUEUE_LAUNCH, [ACC_SITE_UPLOAD] = ACC_ENQUEUE_UPLOAD,
            [ACC_SITE_DOWNLOAD] = ACC_ENQUEUE_DOWNLOAD, [ACC_SITE_WAIT] = ACC_WAIT,
        };
        push_acc_row(g, t, inner[acc_sites[site].kind], site, &ht->wrap_call, ht->wrap_start[0], inner_end, true);
        ht->free_from = inner_end;
        if (acc_sites[site].outer >= 0) {
            push_acc_row(g, t, (enum acc_event)acc_sites[site].outer, site, &ht->wrap_call, ht->wrap_start[1],
                         outer_end, false);
            ht->free_from = outer_end;
        }
    }
    ht->wrap = WRAP_NONE;
    ht->wrap_left = 0;
    ht->close_pending = false;
}

/* --- MPI: one rank per process, its calls on the main thread --------------------------- */

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Per-cycle parameters every rank agrees on: message sizes, the collective. */
static uint64_t mpi_cycle_mix(const struct gen *g, int64_t cycle)
{
    return mix64(g->opt.seed ^ ((uint64_t)cycle + 1) * UINT64_C(0x9E3779B97F4A7C15));
}

static int64_t mpi_comm_uid(const struct gen *g, bool dup)
{
    return (int64_t)(mix64(g->opt.seed ^ (dup ? UINT64_C(0x4455500000000001) : UINT64_C(0x574F524C44))) >> 1);
}

struct mpi_op {
    enum mpi_fn fn;
    int64_t request; /* 0: none */
};

/* Cycle c of every rank: an exchange with its neighbours (nonblocking with a test and
 * waits, every third cycle blocking send/recv), a collective, every other cycle a
 * nonblocking allreduce and its wait. */
static size_t mpi_cycle_ops(const struct gen *g, int64_t c, struct mpi_op *ops)
{
    static const enum mpi_fn collectives[10] = {MF_ALLREDUCE, MF_ALLREDUCE, MF_ALLREDUCE, MF_ALLREDUCE,
                                                MF_ALLREDUCE, MF_BCAST, MF_BCAST, MF_BARRIER, MF_ALLGATHER,
                                                MF_REDUCE};
    int64_t a = MPI_REQUEST_BASE, b = MPI_REQUEST_BASE + 1, x = MPI_REQUEST_BASE + 2;
    size_t n = 0;
    if (c % 3 == 2) {
        ops[n++] = (struct mpi_op){MF_SEND, 0};
        ops[n++] = (struct mpi_op){MF_RECV, 0};
    } else {
        ops[n++] = (struct mpi_op){MF_IRECV, a};
        ops[n++] = (struct mpi_op){MF_ISEND, b};
        ops[n++] = (struct mpi_op){MF_TEST, a};
        ops[n++] = (struct mpi_op){MF_WAIT, a};
        ops[n++] = (struct mpi_op){MF_WAIT, b};
    }
    ops[n++] = (struct mpi_op){collectives[mpi_cycle_mix(g, c) % 10], 0};
    if (c % 2 == 1) {
        ops[n++] = (struct mpi_op){MF_IALLREDUCE, x};
        ops[n++] = (struct mpi_op){MF_WAIT, x};
    }
    return n;
}

static const enum mpi_fn mpi_startup[] = {MF_INIT, MF_COMM_RANK, MF_COMM_SIZE, MF_COMM_DUP};

static struct mpi_op mpi_next(const struct gen *g, const struct host_process *hp)
{
    if (hp->mpi_pre < (int)ARRAY_LEN(mpi_startup))
        return (struct mpi_op){mpi_startup[hp->mpi_pre], 0};
    struct mpi_op ops[10];
    mpi_cycle_ops(g, hp->mpi_cycle, ops);
    return ops[hp->mpi_pos];
}

static void mpi_advance(const struct gen *g, struct host_process *hp)
{
    struct mpi_op ops[10];
    if (hp->mpi_pre < (int)ARRAY_LEN(mpi_startup)) {
        hp->mpi_pre++;
    } else if ((size_t)++hp->mpi_pos >= mpi_cycle_ops(g, hp->mpi_cycle, ops)) {
        hp->mpi_pos = 0;
        hp->mpi_cycle++;
    }
}

static bool mpi_long(enum mpi_fn fn)
{
    return fn == MF_INIT || fn == MF_COMM_DUP || fn == MF_FINALIZE ||
           (mpi_fns[fn].table == T_MPI_COLLECTIVES && fn != MF_IALLREDUCE);
}

/* The free window a call needs. */
static int64_t mpi_need(enum mpi_fn fn)
{
    return mpi_long(fn) ? 30000 : fn == MF_SEND || fn == MF_RECV ? 4000 : 2500;
}

static int64_t mpi_p2p_size(const struct gen *g, int64_t cycle)
{
    return INT64_C(4096) << (mpi_cycle_mix(g, cycle) % 9);
}

static int64_t mpi_duration(struct gen *g, enum mpi_fn fn, int64_t room, int64_t cycle)
{
    struct rng *r = &g->mpi_rng;
    if (fn == MF_INIT)
        return rng_range(r, room / 2, room * 4 / 5);
    if (mpi_long(fn))
        return rng_range(r, room / 4, max64(room / 4, min64(room * 3 / 4, 2000000)));
    if (fn == MF_WAIT)
        return rng_range(r, room / 5, max64(room / 5, min64(room * 2 / 3, 300000)));
    if (fn == MF_SEND || fn == MF_RECV)
        return min64(room * 2 / 3, rng_range(r, 1500, 3000) + mpi_p2p_size(g, cycle) / 8);
    return rng_range(r, 400, max64(400, min64(3000, room / 2)));
}

/* end XNULL: unfinished when the capture stopped. */
static void mpi_emit(struct gen *g, const struct thread *t, const struct host_process *hp, struct mpi_op op,
                     int64_t start, int64_t end)
{
    int64_t nranks = g->opt.processes, rank = (int64_t)t->process, c = hp->mpi_cycle;
    uint64_t mix = mpi_cycle_mix(g, c);
    enum table_id table = mpi_fns[op.fn].table;
    int64_t *f = xrow_new(g, table, start, end == XNULL ? start : end);
    f[MP_START] = start;
    f[MP_END] = end;
    f[MP_GLOBAL_TID] = t->global_tid;
    f[MP_TEXT_ID] = g->mpi_name_ids[op.fn];
    if (table == T_MPI_P2P) {
        bool send = op.fn == MF_SEND || op.fn == MF_ISEND;
        f[P2P_COMM] = MPI_COMM_WORLD_HANDLE;
        f[P2P_COMM_UID] = mpi_comm_uid(g, false);
        f[P2P_TAG] = 100 + c % 50;
        f[P2P_REMOTE] = send ? (rank + 1) % nranks : (rank + nranks - 1) % nranks;
        f[P2P_SIZE] = mpi_p2p_size(g, c);
        f[P2P_REQUEST] = op.request ? op.request : XNULL;
    } else if (table == T_MPI_COLLECTIVES) {
        int64_t size = INT64_C(4) << ((mix >> 8) % 17);
        bool dup = op.fn == MF_ALLREDUCE || op.fn == MF_ALLGATHER || op.fn == MF_IALLREDUCE;
        f[CO_COMM] = dup ? MPI_COMM_DUP_HANDLE : MPI_COMM_WORLD_HANDLE;
        f[CO_COMM_UID] = mpi_comm_uid(g, dup);
        f[CO_ROOT] = op.fn == MF_BCAST ? c % nranks : op.fn == MF_REDUCE ? 0 : XNULL;
        f[CO_SIZE] = op.fn == MF_BARRIER ? XNULL : size;
        f[CO_RECV_SIZE] = op.fn == MF_BARRIER || (op.fn == MF_REDUCE && rank != 0) ? XNULL
                          : op.fn == MF_ALLGATHER                                 ? size * nranks
                                                                                  : size;
        f[CO_REQUEST] = op.request ? op.request : XNULL;
    } else if (table == T_MPI_START_WAIT) {
        f[SW_REQUEST] = op.request;
    }
}

/* MPI_COMM_WORLD (at MPI_Init) or its duplicate, as one rank sees it. */
static void mpi_communicator(struct gen *g, size_t process, int64_t at, bool dup)
{
    struct strbuf sb = {.len = 0};
    for (int64_t r = 0; r < g->opt.processes; r++) /* local rank of each global rank */
        sb_printf(&sb, "%s%" PRId64, r ? "," : "", r);
    int64_t members = xtext(g, sb.text);
    int64_t *f = xrow_new(g, T_MPI_COMMUNICATORS, at, INT64_MIN);
    f[MC2_RANK] = (int64_t)process;
    f[MC2_TIMESTAMP] = at;
    f[MC2_COMM] = dup ? MPI_COMM_DUP_HANDLE : MPI_COMM_WORLD_HANDLE;
    f[MC2_PARENT] = dup ? MPI_COMM_WORLD_HANDLE : XNULL;
    f[MC2_LOCAL_RANK] = (int64_t)process;
    f[MC2_SIZE] = g->opt.processes;
    f[MC2_GROUP_ROOT] = 0;
    f[MC2_GROUP_ROOT_UID] = mpi_comm_uid(g, dup);
    f[MC2_MEMBERS] = members;
    f[MC2_COMM_UID] = mpi_comm_uid(g, dup);
}

/* The rank's next calls, as many as fit in the main thread's free window [a, b]; one
 * long call (MPI_Init, a collective) at most. */
static bool mpi_fill(struct gen *g, const struct thread *t, struct host_thread *ht, int64_t a, int64_t b)
{
    struct rng *r = &g->mpi_rng;
    struct host_process *hp = &g->hprocs[t->process];
    bool placed = false;
    for (int k = 0; k < 4; k++) {
        struct mpi_op op = mpi_next(g, hp);
        if (b - a < mpi_need(op.fn) + 800)
            break;
        int64_t start = a + rng_range(r, 150, 600);
        int64_t end = start + max64(200, mpi_duration(g, op.fn, b - 150 - start, hp->mpi_cycle));
        mpi_emit(g, t, hp, op, start, end);
        if (op.fn == MF_INIT || op.fn == MF_COMM_DUP)
            mpi_communicator(g, t->process, end, op.fn == MF_COMM_DUP);
        hp->mpi_initialized = true;
        mpi_advance(g, hp);
        a = ht->free_from = end;
        placed = true;
        if (mpi_long(op.fn))
            break;
    }
    return placed;
}

/* After the rank's last CUDA call: the last rank (and rank 0 when there is one rank) are
 * left in a call the capture did not see end (NULL end), rank 0 in MPI_Barrier, the last
 * one in MPI_Recv; the others leave through MPI_Barrier and MPI_Finalize. */
static void mpi_finish(struct gen *g, size_t process)
{
    struct rng *r = &g->mpi_rng;
    const struct thread *t = &g->threads[process * (size_t)g->opt.threads];
    struct host_thread *ht = &g->hthreads[process * (size_t)g->opt.threads];
    struct host_process *hp = &g->hprocs[process];
    int64_t *f = xrow_new(g, T_MPI_RANKS, (int64_t)process, INT64_MIN);
    f[MR_GLOBAL_TID] = t->global_tid;
    f[MR_RANK] = (int64_t)process;
    int64_t at = max64(ht->free_from, t->free_at) + rng_range(r, 2000, 10000);
    if (!hp->mpi_initialized) {
        int64_t end = at + rng_range(r, 300000, 900000);
        mpi_emit(g, t, hp, (struct mpi_op){MF_INIT, 0}, at, end);
        mpi_communicator(g, process, end, false);
        at = end + rng_range(r, 2000, 10000);
    }
    bool last = process + 1 == (size_t)g->opt.processes;
    if (process == 0 || last) {
        mpi_emit(g, t, hp, (struct mpi_op){process == 0 ? MF_BARRIER : MF_RECV, 0}, at, XNULL);
        return;
    }
    int64_t end = at + rng_range(r, 20000, 80000);
    mpi_emit(g, t, hp, (struct mpi_op){MF_BARRIER, 0}, at, end);
    at = end + rng_range(r, 1000, 3000);
    mpi_emit(g, t, hp, (struct mpi_op){MF_FINALIZE, 0}, at, at + rng_range(r, 50000, 200000));
}

/* --- OpenMP: parallel regions of the main thread and three worker threads -------------- */

static int64_t omp_worker_tid(const struct gen *g, size_t process, int k)
{
    const struct process *p = &g->processes[process];
    return p->global_pid | (p->pid + g->opt.threads + 3 + k);
}

static int64_t *omp_row(struct gen *g, enum table_id table, int64_t global_tid, enum omp_name name,
                        int64_t event_kind, int64_t start, int64_t end)
{
    int64_t *f = xrow_new(g, table, start, end);
    f[OM_START] = start;
    f[OM_END] = end;
    f[OM_GLOBAL_TID] = global_tid;
    f[OM_NAME_ID] = name == ON__COUNT ? OMP_NO_NAME : g->omp_name_ids[name];
    f[OM_EVENT_KIND] = event_kind;
    return f;
}

/* One parallel region in the main thread's free window [a, b]. On each of the team's
 * threads: implicit task > (lock wait, lock released; critical wait, critical region;
 * single region; implicit barrier), each inside the one before it ends; the single's
 * executor creates an explicit task (instant) and runs it in its barrier. */
static void omp_region(struct gen *g, const struct thread *t, struct host_thread *ht, int64_t a, int64_t b)
{
    struct rng *r = &g->omp_rng;
    struct host_process *hp = &g->hprocs[t->process];
    const struct process *pr = &g->processes[t->process];
    int64_t p0 = a + rng_range(r, 300, 1500);
    int64_t avail = b - 300 - p0;
    int64_t p1 = p0 + rng_range(r, avail / 3, avail * 4 / 5);
    int64_t parallel = ++hp->omp_parallel_id, first_task = hp->omp_task_id + 1;
    hp->omp_task_id += 1 + OMP_WORKERS;
    int64_t *f = omp_row(g, T_OMP_PARALLEL, t->global_tid, ON_PARALLEL, OMPK_PARALLEL, p0, p1);
    f[OPR_PARALLEL_ID] = parallel;
    f[OPR_PARENT_TASK] = 1; /* the initial task */
    int executor = (int)rng_below(r, 1 + OMP_WORKERS);
    bool lock = rng_percent(r, 60), critical = rng_percent(r, 40), explicit_task = rng_percent(r, 70);
    int64_t explicit_id = explicit_task ? ++hp->omp_task_id : 0;
    int64_t lock_id = INT64_C(0x7ffc00000000) + (pr->pid << 12) + 0x1f24; /* omp_lock_t on the stack */
    int64_t critical_id = INT64_C(0x556b2c400000) + (pr->pid << 8) + 0x180; /* the critical's lock */
    for (int m = 0; m <= OMP_WORKERS; m++) {
        int64_t tid = m == 0 ? t->global_tid : omp_worker_tid(g, t->process, m - 1);
        int64_t task = first_task + m;
        int64_t s = p0 + rng_range(r, 150, 400); /* one draw per statement (evaluation order) */
        s += m * rng_range(r, 300, 1200);
        int64_t e = p1 - rng_range(r, 100, 400);
        f = omp_row(g, T_OMP_TASK, tid, ON_IMPLICIT_TASK, OMPK_TASK, s, e);
        f[OS2_PARALLEL_ID] = parallel;
        f[OS2_TASK_ID] = task;
        f[OS2_KIND] = 2; /* implicit */
        int64_t barrier = e - max64((e - s) / 6, 800); /* the latest the barrier starts */
        int64_t budget = barrier - s;
        int64_t at = s + rng_range(r, 50, max64(50, budget / 20));
        if (lock) {
            int64_t w = rng_range(r, 100, max64(100, budget / 10)), h = rng_range(r, 100, max64(100, budget / 10));
            f = omp_row(g, T_OMP_MUTEX_WAIT, tid, ON_WAIT_LOCK, OMPK_MUTEX_WAIT, at, at + w);
            f[OX_KIND] = 1; /* lock */
            f[OX_WAIT_ID] = lock_id;
            f[OX_TASK_ID] = task;
            at += w + h;
            f = omp_row(g, T_OMP_MUTEX_RELEASED, tid, ON__COUNT, OMPK_MUTEX_RELEASED, at, at);
            f[OX_KIND] = 1;
            f[OX_WAIT_ID] = lock_id;
            f[OX_TASK_ID] = task;
            at += rng_range(r, 50, 300);
        }
        if (critical) {
            int64_t w = rng_range(r, 100, max64(100, budget / 12)), h = rng_range(r, 100, max64(100, budget / 12));
            f = omp_row(g, T_OMP_MUTEX_WAIT, tid, ON_WAIT_CRITICAL, OMPK_MUTEX_WAIT, at, at + w);
            f[OX_KIND] = 5; /* critical */
            f[OX_WAIT_ID] = critical_id;
            f[OX_TASK_ID] = task;
            f = omp_row(g, T_OMP_CRITICAL, tid, ON_CRITICAL, OMPK_CRITICAL, at + w, at + w + h);
            f[OX_KIND] = 5;
            f[OX_WAIT_ID] = critical_id;
            at += w + h + rng_range(r, 50, 300);
        }
        int64_t single = m == executor ? rng_range(r, max64(200, budget / 10), max64(200, budget / 5))
                                       : rng_range(r, 100, max64(100, budget / 12));
        f = omp_row(g, T_OMP_WORKSHARE, tid, m == executor ? ON_SINGLE_EXECUTOR : ON_SINGLE_WAITING, OMPK_WORKSHARE,
                    at, at + single);
        f[OW_KIND] = m == executor ? 3 : 4; /* single executor / other */
        f[OW_PARALLEL_ID] = parallel;
        f[OW_TASK_ID] = task;
        f[OW_COUNT] = 1;
        if (m == executor && explicit_task) {
            f = omp_row(g, T_OMP_TASK_CREATE, tid, ON_TASK_CREATION, OMPK_TASK_CREATE, at + single / 2,
                        at + single / 2);
            f[OC_PARENT_TASK] = task;
            f[OC_NEW_TASK] = explicit_id;
        }
        at += single + rng_range(r, 50, 200);
        int64_t b0 = min64(max64(at, barrier - rng_range(r, 0, (e - s) / 10)), e - 100);
        int64_t b1 = e - rng_range(r, 10, 60);
        f = omp_row(g, T_OMP_SYNC_REGION, tid, ON_IMPLICIT_BARRIER, OMPK_SYNC_REGION, b0, b1);
        f[OS2_PARALLEL_ID] = parallel;
        f[OS2_TASK_ID] = task;
        f[OS2_KIND] = 2; /* barrier_implicit */
        if (m == executor && explicit_task) {
            int64_t ts = b0 + rng_range(r, 1, max64(1, (b1 - b0) / 4));
            int64_t te = ts + rng_range(r, 1, max64(1, (b1 - b0) / 2));
            f = omp_row(g, T_OMP_TASK, tid, ON_EXPLICIT_TASK, OMPK_TASK, ts, te);
            f[OS2_PARALLEL_ID] = parallel;
            f[OS2_TASK_ID] = explicit_id;
            f[OS2_KIND] = 4; /* explicit */
        }
    }
    hp->omp_first = min64(hp->omp_first, p0);
    hp->omp_last = max64(hp->omp_last, p1);
    hp->omp_regions++;
    ht->free_from = p1;
}

/* OPENMP_EVENT_KIND_THREAD: the team's threads, the initial one from before the process's
 * first CUDA call, the workers from the first parallel region, all until the capture
 * stopped (`stop`; the last MPI call of a rank may be unfinished then). */
static void omp_finish(struct gen *g, size_t process, int64_t stop)
{
    struct rng *r = &g->omp_rng;
    const struct host_process *hp = &g->hprocs[process];
    if (!hp->omp_regions)
        return;
    const struct thread *t = &g->threads[process * (size_t)g->opt.threads];
    int64_t *f = omp_row(g, T_OMP_THREAD, t->global_tid, ON_INITIAL_THREAD, OMPK_THREAD,
                         hp->first_start - rng_range(r, 1000, 5000), INT64_MIN);
    f[OM_END] = stop;
    f[OT_THREAD_ID] = 1;
    f[OT_THREAD_TYPE] = 1; /* initial */
    for (int k = 0; k < OMP_WORKERS; k++) {
        f = omp_row(g, T_OMP_THREAD, omp_worker_tid(g, process, k), ON_WORKER_THREAD, OMPK_THREAD,
                    hp->omp_first + 50 * (k + 1), INT64_MIN);
        f[OM_END] = stop;
        f[OT_THREAD_ID] = 2 + k;
        f[OT_THREAD_TYPE] = 2; /* worker */
    }
}

/* --- the per-call hooks ------------------------------------------------------------------ */

/* Every CUDA call a thread makes (traced or not), in order. */
static void host_note(struct gen *g, const struct thread *t, const struct call *c, const struct stream *s,
                      int32_t kernel, int32_t copy_kind, int64_t bytes)
{
    if (!g->host_on)
        return;
    struct host_thread *ht = &g->hthreads[t - g->threads];
    struct host_process *hp = &g->hprocs[t->process];
    struct host_call hc = {c->api, c->start, c->end, c->correlation_id, s ? (int32_t)(s - g->streams) : -1,
                           kernel, copy_kind, bytes};
    if (!hp->seen) {
        hp->seen = true;
        if (g->features & FEAT_MEMORY)
            memory_static(g, t, &hc);
    }
    hp->first_start = min64(hp->first_start, hc.start);
    hp->last_end = max64(hp->last_end, hc.end);
    if (g->features & (FEAT_LIBRARIES | FEAT_OPENACC)) {
        if (ht->wrap != WRAP_NONE && !ht->close_pending && is_graph_api(hc.api))
            ht->close_pending = true; /* libraries do not build graphs */
        if (ht->close_pending)
            wrap_close(g, t, ht, min64(ht->window_end, hc.start));
        if (ht->wrap != WRAP_NONE) {
            if (--ht->wrap_left == 0)
                ht->close_pending = true;
        } else if (!is_graph_api(hc.api)) {
            wrap_open(g, ht, &hc);
        }
    }
    if ((g->features & FEAT_MEMORY) && (hc.api == API_MALLOC || hc.api == API_FREE))
        memory_call(g, t, &hc);
    if ((g->features & FEAT_UM) &&
        (hc.api == API_STREAM_SYNC || hc.api == API_EVENT_SYNC || hc.api == API_DEVICE_SYNC))
        um_cpu_faults(g, t->process, &hc);
    ht->last_end = hc.end;
    ht->free_from = max64(ht->free_from, hc.end);
    ht->window_end = INT64_MAX;
}

/* After a step of t: its last call ended at free_from or before, and nothing else runs on
 * the thread until gap_end. A wrap ends there; else the window may take a parallel region
 * or MPI calls (main thread) or a short library call. */
static void host_step_end(struct gen *g, const struct thread *t, int64_t gap_end)
{
    struct host_thread *ht = &g->hthreads[t - g->threads];
    ht->window_end = gap_end;
    if (ht->close_pending)
        wrap_close(g, t, ht, gap_end);
    if (ht->wrap != WRAP_NONE) /* it covers calls of the next step too */
        return;
    int64_t a = ht->free_from, b = gap_end;
    bool main_thread = t->index_in_process == 0;
    if (main_thread && (g->features & FEAT_OPENMP) && b - a >= 40000 && rng_percent(&g->omp_rng, 60)) {
        omp_region(g, t, ht, a, b);
        return;
    }
    if (main_thread && (g->features & FEAT_MPI) && mpi_fill(g, t, ht, a, b))
        return;
    if ((g->features & FEAT_LIBRARIES) && b - a >= 2500 && rng_percent(&g->lib_rng, 12)) {
        struct rng *r = &g->lib_rng;
        uint64_t n = 0, pick;
        for (size_t i = 0; i < LIB__COUNT; i++)
            n += library_fns[i].use == LIB_USE_SHORT;
        pick = rng_below(r, n);
        size_t fn = 0;
        for (size_t i = 0; i < LIB__COUNT; i++)
            if (library_fns[i].use == LIB_USE_SHORT && pick-- == 0)
                fn = i;
        int64_t start = a + rng_range(r, 100, min64(1000, (b - a) / 4));
        int64_t end = start + rng_range(r, 600, max64(600, min64(4000, (b - start) / 2)));
        push_library_row(g, t, (enum library_fn)fn, start, end);
        ht->free_from = end;
    }
}

/* After the simulation: open wraps end, ranks leave MPI; then, with the session's end
 * known, OpenMP threads end. */
static void host_finish(struct gen *g)
{
    for (size_t i = 0; i < g->nthreads; i++) {
        struct host_thread *ht = &g->hthreads[i];
        if (ht->wrap != WRAP_NONE)
            wrap_close(g, &g->threads[i], ht, ht->window_end != INT64_MAX ? ht->window_end : ht->last_end + 3000);
    }
    for (size_t p = 0; (g->features & FEAT_MPI) && p < (size_t)g->opt.processes; p++)
        mpi_finish(g, p);
    int64_t stop = session_stop(g);
    for (size_t p = 0; (g->features & FEAT_OPENMP) && p < (size_t)g->opt.processes; p++)
        omp_finish(g, p, stop);
}

/* --- DIAGNOSTIC_EVENT ----------------------------------------------------------------- */

enum { DIAG_TARGET_TIME = 1, DIAG_HOST_TIME = 2 };
enum { DIAG_INJECTION = 1, DIAG_DAEMON = 2, DIAG_ANALYSIS = 3 };
enum { DIAG_INFO = 1, DIAG_WARNING = 2, DIAG_ERROR = 3 };

static void diag_row(struct gen *g, int64_t at, int64_t time_type, int64_t source, int64_t severity,
                     const char *text, int64_t global_pid)
{
    int64_t text_id = xtext(g, text);
    int64_t *f = xrow_new(g, T_DIAGNOSTIC, at, INT64_MIN);
    f[DG_TIMESTAMP] = at;
    f[DG_TIMESTAMP_TYPE] = time_type;
    f[DG_SOURCE] = source;
    f[DG_SEVERITY] = severity;
    f[DG_TEXT] = text_id;
    f[DG_GLOBAL_PID] = global_pid;
}

/* Messages as real 2024.6-2025.3 exports have them (texts copied, tabs and line breaks
 * included): the daemon's before 0 (VM-level), "Profiling has started/stopped." for the
 * session, the injection's per process, the analysis' (host timestamps) per process, one
 * error, one message after the stop. Real exports never leave globalPid NULL; two of the
 * VM-level messages here do, as the schema allows. */
static void build_diagnostics(struct gen *g)
{
    struct rng *r = &g->diag_rng;
    char text[512];
    int64_t stop = session_stop(g);
    diag_row(g, -rng_range(r, 2500000, 4000000), DIAG_TARGET_TIME, DIAG_DAEMON, DIAG_WARNING,
             "Unable to collect CPU kernel IP/backtrace samples. perf event paranoid level is 2. \n"
             "Change the paranoid level to 1 to enable CPU kernel sample collection.\nTry\n"
             "sudo sh -c 'echo 1 >/proc/sys/kernel/perf_event_paranoid'\n to change the paranoid level to 1.",
             VM_ID);
    diag_row(g, -rng_range(r, 200000, 2400000), DIAG_TARGET_TIME, DIAG_DAEMON, DIAG_INFO,
             "Intel(c) Last Branch Record (LBR) backtraces collected.", XNULL);
    diag_row(g, 0, DIAG_TARGET_TIME, DIAG_ANALYSIS, DIAG_INFO, "Profiling has started.", SESSION_GLOBAL_PID);
    int64_t session = 1000000 + 10 * g->launcher_pid;
    for (size_t p = 0; p < (size_t)g->opt.processes; p++) {
        const struct process *pr = &g->processes[p];
        const struct host_process *hp = &g->hprocs[p];
        int64_t first = hp->seen ? hp->first_start : 0, last = hp->seen ? hp->last_end : 0;
        int64_t lo = max64(1000, first - rng_range(r, 3000000, 6000000)), step = max64(100, (first - lo) / 6);
        snprintf(text, sizeof text,
                 "Process was launched by the profiler, see /tmp/nvidia/nsight_systems/quadd_session_%" PRId64
                 "/streams/pid_%" PRId64 "_stdout.log and stderr.log for program output",
                 session, pr->pid);
        diag_row(g, lo, DIAG_TARGET_TIME, DIAG_DAEMON, DIAG_INFO, text, pr->global_pid);
        diag_row(g, lo + step, DIAG_TARGET_TIME, DIAG_INJECTION, DIAG_INFO,
                 "Common injection library initialized successfully.", pr->global_pid);
        diag_row(g, lo + 2 * step, DIAG_TARGET_TIME, DIAG_INJECTION, DIAG_INFO,
                 "Buffers holding CUDA trace data will be flushed on CudaProfilerStop() call. See "
                 "--flush-on-cudaprofilerstop to control this behavior.",
                 pr->global_pid);
        diag_row(g, lo + 3 * step, DIAG_TARGET_TIME, DIAG_INJECTION, DIAG_INFO,
                 "Loaded CUPTI library: /opt/nvidia/nsight-systems/2026.2.1/target-linux-x64/libcupti.so.13.0",
                 pr->global_pid);
        diag_row(g, lo + 4 * step, DIAG_TARGET_TIME, DIAG_INJECTION, DIAG_INFO,
                 "CUDA injection initialized successfully.", pr->global_pid);
        if (g->nvtx_on)
            diag_row(g, lo + 4 * step + step / 2, DIAG_TARGET_TIME, DIAG_INJECTION, DIAG_INFO,
                     "NVTX injection initialized successfully.", pr->global_pid);
        int64_t at = min64(stop - 1, last + rng_range(r, 50000, 300000));
        if (p == 0)
            diag_row(g, at - 1, DIAG_TARGET_TIME, DIAG_INJECTION, DIAG_ERROR,
                     "ActivityFlushAll returned 2: CUPTI_ERROR_INVALID_DEVICE", pr->global_pid);
        snprintf(text, sizeof text, "Number of CUPTI events produced: \t%" PRId64 ", CUPTI buffers: 50.",
                 hp->cuda_rows);
        diag_row(g, at, DIAG_TARGET_TIME, DIAG_INJECTION, DIAG_INFO, text, pr->global_pid);
        at = min64(stop - 1, at + rng_range(r, 1000, 20000));
        snprintf(text, sizeof text, "Number of CUDA events collected: \t%" PRId64 ".", hp->cuda_rows);
        diag_row(g, at, DIAG_HOST_TIME, DIAG_ANALYSIS, DIAG_INFO, text, pr->global_pid);
        if (g->nvtx_on) {
            snprintf(text, sizeof text, "Number of NVTX events collected: \t%" PRId64 ".", g->nvtx_procs[p].rows);
            diag_row(g, at + 2000, DIAG_HOST_TIME, DIAG_ANALYSIS, DIAG_INFO, text, pr->global_pid);
        } else {
            diag_row(g, at + 2000, DIAG_HOST_TIME, DIAG_ANALYSIS, DIAG_WARNING,
                     "No NVTX events collected. Does the process use NVTX?", pr->global_pid);
        }
    }
    diag_row(g, stop, DIAG_TARGET_TIME, DIAG_ANALYSIS, DIAG_INFO, "Profiling has stopped.", SESSION_GLOBAL_PID);
    snprintf(text, sizeof text, "Number of IP samples collected: \t%" PRId64 ".", g->sample_rows);
    diag_row(g, stop + rng_range(r, 20000000, 80000000), DIAG_TARGET_TIME, DIAG_DAEMON, DIAG_INFO, text, XNULL);
}

/* After the simulation: whatever the options still owe, then their rows. */
static void finish_further_tables(struct gen *g)
{
    if (!(g->features & ~(unsigned)FEAT_CPU))
        return;
    if (g->host_on)
        host_finish(g);
    if (g->features & FEAT_DIAG)
        build_diagnostics(g);
    write_xrows(g);
    write_gpu_metrics(g);
}

/* ------------------------------------------------------------------------------------
 * NVTX (--nvtx). Each CUDA thread runs training steps: "step N" (push/pop) around 24-160
 * of its CUDA calls, split into the phases forward, backward and optimizer.step (registered
 * strings, with categories), which hold layer ranges of 1-8 calls with a few calls left
 * bare between them. Pushes lie in the host time just before a call, pops just after one,
 * so ranges enclose whole calls and nest. NCCL kernel launches get the NCCL domain's
 * ranges. Per process, start/end ranges (bursts of 1-3, about four a second) end on the
 * first call after their duration, sometimes on another thread, and marks follow some
 * steps. All of this draws from nvtx_rng only, after the call is generated.
 * ---------------------------------------------------------------------------------- */

#define NVTX_PUSH_WINDOW 4000 /* pushes lie at most this long before the call */
#define NVTX_POP_WINDOW 2000  /* pops at most this long after it */
#define NVTX_FLUSH_EVERY 64   /* steps between two flushes of the row heap */

static bool nvtx_less(const void *a, const void *b)
{
    const struct nvtx_row *x = a, *y = b;
    return x->start != y->start ? x->start < y->start : x->seq < y->seq;
}

static void setup_nvtx(struct gen *g)
{
    g->nvtx_on = g->opt.nvtx;
    g->step_kernel = -1;
    if (!g->nvtx_on)
        return;
    g->nvtx_rng.state = g->opt.seed ^ UINT64_C(0x428A2F98D728AE22);
    g->nccl_kernel = -1;
    for (size_t k = 0; k < ARRAY_LEN(kernel_defs); k++)
        if (strncmp(kernel_defs[k].short_name, "nccl", 4) == 0)
            g->nccl_kernel = (int32_t)k;
    g->nvtx_threads = xcalloc(g->nthreads, sizeof *g->nvtx_threads);
    for (size_t i = 0; i < g->nthreads; i++)
        g->nvtx_threads[i].last_returned = g->nvtx_threads[i].last_time = INT64_MIN;
    g->nvtx_procs = xcalloc((size_t)g->opt.processes, sizeof *g->nvtx_procs);
    for (size_t p = 0; p < (size_t)g->opt.processes; p++) {
        g->nvtx_procs[p].next_range_id = 1;
        g->nvtx_procs[p].next_burst = INT64_MIN;
    }
    heap_init(&g->nvtx_heap, sizeof(struct nvtx_row), nvtx_less);
    g->nvtx_flush_countdown = NVTX_FLUSH_EVERY;
}

/* A new row of process p's thread global_tid; it counts towards -n now. */
static struct nvtx_row nvtx_new(struct gen *g, size_t p, uint8_t type, uint8_t name, int64_t global_tid)
{
    g->rows_planned++;
    g->nvtx_rows++;
    g->nvtx_procs[p].rows++;
    return (struct nvtx_row){.end = INT64_MIN, .global_tid = global_tid, .payload = INT64_MIN,
                             .event_type = type, .name = name};
}

/* The row is complete: into the heap. */
static void nvtx_done(struct gen *g, struct nvtx_row *x)
{
    x->seq = g->nvtx_seq++;
    g->max_end = max64(g->max_end, x->end != INT64_MIN ? x->end : x->start);
    heap_push(&g->nvtx_heap, x);
}

static void write_nvtx_row(struct gen *g, const struct nvtx_row *x)
{
    char text[64];
    struct value *v = row_begin(g, T_NVTX_EVENTS);
    v[NX_START] = vint(x->start);
    if (x->end != INT64_MIN)
        v[NX_END] = vint(x->end);
    v[NX_EVENT_TYPE] = vint(x->event_type);
    if (x->range_id)
        v[NX_RANGE_ID] = vint(x->range_id);
    if (x->category)
        v[NX_CATEGORY] = vint(x->category);
    if (x->color)
        v[NX_COLOR] = vint(x->color);
    if (x->name >= NVN_FIRST_REGISTERED) {
        v[NX_TEXT_ID] = vint(g->nvtx_name_ids[x->name]);
    } else {
        snprintf(text, sizeof text, nvtx_names[x->name], x->num);
        v[NX_TEXT] = vtext(text);
    }
    v[NX_GLOBAL_TID] = vint(x->global_tid);
    if (x->end_global_tid)
        v[NX_END_GLOBAL_TID] = vint(x->end_global_tid);
    v[NX_DOMAIN_ID] = vint(x->domain);
    if (x->payload != INT64_MIN)
        v[NX_INT64] = vint(x->payload);
    row_end(g, T_NVTX_EVENTS);
}

/* Writes the rows that start before `floor`: no row still to come or still open does. */
static void nvtx_flush(struct gen *g, int64_t floor)
{
    struct nvtx_row x;
    while (g->nvtx_heap.count && ((const struct nvtx_row *)heap_at(&g->nvtx_heap, 0))->start < floor) {
        heap_pop(&g->nvtx_heap, &x);
        write_nvtx_row(g, &x);
    }
}

/* Time k of n, strictly increasing, strictly inside (a, b); needs b - a > n. */
static int64_t nvtx_slot(int64_t a, int64_t b, int k, int n)
{
    return a + (int64_t)(k + 1) * (b - a) / (n + 1);
}

/* Opens the ranges the thread's next call starts (their starts are set by the caller). */
static void nvtx_plan(struct gen *g, const struct thread *t, struct nvtx_thread *nt)
{
    static const uint32_t phase_colors[3] = {0xFF22AA22, 0xFFAA2222, 0xFFAAAA22};
    static const uint8_t fwd[3] = {NVN_NORM, NVN_ATTN, NVN_MLP}, bwd[3] = {NVN_MLP_BWD, NVN_ATTN_BWD, NVN_NORM_BWD},
                         opt[3] = {NVN_CLIP, NVN_ADAMW, NVN_ZERO_GRAD};
    struct rng *r = &g->nvtx_rng;
    if (nt->depth == 0) {
        if (nt->skip_outer > 0) { /* a call between two steps */
            nt->skip_outer--;
            return;
        }
        int64_t n = rng_range(r, 24, 160);
        nt->phase_len[0] = max64(1, n * rng_range(r, 30, 40) / 100);
        nt->phase_len[2] = max64(1, n * rng_range(r, 8, 15) / 100);
        nt->phase_len[1] = n - nt->phase_len[0] - nt->phase_len[2];
        nt->phase = 0;
        struct nvtx_open *o = &nt->stack[nt->depth++];
        o->row = nvtx_new(g, t->process, NVTX_PUSH_POP, NVN_STEP, t->global_tid);
        o->row.num = o->row.payload = nt->steps++;
        o->row.color = 0xFF3366CC;
        o->left = n;
    }
    if (nt->depth == 1) {
        struct nvtx_open *o = &nt->stack[nt->depth++];
        o->row = nvtx_new(g, t->process, NVTX_PUSH_POP, (uint8_t)(NVN_FORWARD + nt->phase), t->global_tid);
        o->row.category = (uint8_t)(1 + nt->phase);
        o->row.color = phase_colors[nt->phase];
        o->left = nt->phase_len[nt->phase];
        nt->phase_items = 0;
        nt->skip_inner = 0;
    }
    if (nt->depth == 2) {
        if (nt->skip_inner > 0) {
            nt->skip_inner--;
        } else if (rng_percent(r, 75)) {
            int64_t j = nt->phase_items++;
            uint8_t name = nt->phase == 0 ? (j == 0 ? NVN_EMBEDDING : fwd[(j - 1) % 3])
                           : nt->phase == 1 ? bwd[j % 3] : opt[j % 3];
            struct nvtx_open *o = &nt->stack[nt->depth++];
            o->row = nvtx_new(g, t->process, NVTX_PUSH_POP, name, t->global_tid);
            o->row.num = nt->phase == 0 ? (j - 1) / 3 % 32 : 31 - j / 3 % 32;
            o->left = min64(rng_range(r, 1, 8), nt->stack[1].left);
        } else {
            nt->skip_inner = rng_range(r, 0, 2); /* this call and up to two more stay bare */
        }
    }
}

static void nvtx_pending_add(struct nvtx_process *np, const struct nvtx_pending *pe)
{
    if (np->npending == np->pending_capacity) {
        np->pending_capacity = np->pending_capacity ? 2 * np->pending_capacity : 8;
        np->pending = xrealloc(np->pending, np->pending_capacity * sizeof *np->pending);
    }
    np->pending[np->npending++] = *pe;
}

/* Ends pending start/end range i of np at `at` on thread et. */
static void nvtx_pending_end(struct gen *g, struct nvtx_process *np, size_t i, int64_t at)
{
    struct nvtx_pending *pe = &np->pending[i];
    pe->row.end = at;
    int64_t tid = g->threads[pe->end_thread].global_tid;
    if (tid != pe->row.global_tid)
        pe->row.end_global_tid = tid;
    nvtx_done(g, &pe->row);
    np->pending[i] = np->pending[--np->npending];
}

/* After a step of t: its call(s) ran from `start` to `returned`, and nothing else of its own
 * happens before gap_end. */
static void nvtx_step(struct gen *g, const struct thread *t, int64_t start, int64_t returned, int64_t gap_end)
{
    size_t ti = (size_t)(t - g->threads);
    struct nvtx_thread *nt = &g->nvtx_threads[ti];
    struct nvtx_process *np = &g->nvtx_procs[t->process];
    struct rng *r = &g->nvtx_rng;

    /* Before the call: naming rows, start/end ranges, pushes (outer first), NCCL. */
    int64_t pw = nt->last_returned == INT64_MIN ? NVTX_PUSH_WINDOW / 2
                                                : min64((start - nt->last_returned) / 3, NVTX_PUSH_WINDOW);
    if (start >= 0 && start - pw < 0)
        pw = start / 2; /* nothing before 0 unless the CUDA rows are */
    int64_t a = max64(start - pw, nt->last_time);
    int first_new = nt->depth;
    nvtx_plan(g, t, nt);
    int npush = nt->depth - first_new;
    bool naming = !np->named;
    if (np->next_burst == INT64_MIN)
        np->next_burst = start + rng_range(r, 100000, 2000000);
    int burst = start >= np->next_burst ? (int)rng_range(r, 1, 3) : 0;
    bool nccl = g->step_kernel >= 0 && g->step_kernel == g->nccl_kernel;
    bool group = nccl && start - a > 1500 && rng_percent(r, 25); /* else a lone ncclSend */
    int n = (naming ? 4 : 0) + burst + npush + (group ? 7 : nccl ? 1 : 0);
    if (start - a <= n) {
        burst = 0; /* later */
        n = (naming ? 4 : 0) + npush + (nccl ? 1 : 0);
        group = false;
        if (start - a <= n)
            die("internal error: no room for NVTX events before a call at %" PRId64, start);
    }
    int k = 0;
    if (naming) {
        np->named = true;
        struct nvtx_row x = nvtx_new(g, t->process, NVTX_DOMAIN_CREATE, NVN_NCCL_DOMAIN, t->global_tid);
        x.start = nvtx_slot(a, start, k++, n);
        x.domain = NVTX_NCCL_DOMAIN;
        nvtx_done(g, &x);
        for (int c = 0; c < 3; c++) {
            x = nvtx_new(g, t->process, NVTX_CATEGORY, (uint8_t)(NVN_CAT_FORWARD + c), t->global_tid);
            x.start = nvtx_slot(a, start, k++, n);
            x.category = (uint8_t)(1 + c);
            nvtx_done(g, &x);
        }
    }
    if (burst) {
        np->next_burst = start + rng_range(r, 80000000, 400000000);
        for (int b = 0; b < burst; b++) {
            static const uint8_t names[3] = {NVN_PREFETCH, NVN_H2D, NVN_SAVE};
            struct nvtx_pending pe = {.row = nvtx_new(g, t->process, NVTX_START_END, names[b], t->global_tid),
                                      .end_thread = ti};
            pe.row.start = nvtx_slot(a, start, k++, n);
            pe.row.range_id = np->next_range_id++;
            if (b == 0)
                pe.row.payload = np->batches++;
            pe.due = pe.row.start + (b == 0   ? rng_log_range(r, 200000, 80000000)
                                     : b == 1 ? rng_log_range(r, 50000, 20000000)
                                              : rng_log_range(r, 20000000, 250000000));
            if (g->opt.threads > 1 && rng_percent(r, 30)) /* handed to another thread to end */
                pe.end_thread = ti - (size_t)t->index_in_process +
                                (size_t)((t->index_in_process + rng_range(r, 1, g->opt.threads - 1)) % g->opt.threads);
            nvtx_pending_add(np, &pe);
        }
    }
    for (int i = first_new; i < nt->depth; i++)
        nt->stack[i].row.start = nvtx_slot(a, start, k++, n);
    struct nvtx_row wrap = {0};
    if (nccl) {
        if (group) {
            static const uint8_t seq[3] = {NVN_GROUP_START, NVN_SEND, NVN_RECV};
            for (int i = 0; i < 3; i++) {
                struct nvtx_row x = nvtx_new(g, t->process, NVTX_PUSH_POP, seq[i], t->global_tid);
                x.domain = NVTX_NCCL_DOMAIN;
                x.start = nvtx_slot(a, start, k++, n);
                x.end = nvtx_slot(a, start, k++, n);
                nvtx_done(g, &x);
            }
        }
        wrap = nvtx_new(g, t->process, NVTX_PUSH_POP, group ? NVN_GROUP_END : NVN_SEND, t->global_tid);
        wrap.domain = NVTX_NCCL_DOMAIN;
        wrap.start = nvtx_slot(a, start, k++, n);
    }

    /* After the call: NCCL, pops (inner first), a mark after some steps, due start/end ends. */
    struct nvtx_open popped[NVTX_LEVELS];
    int npop = 0;
    for (int i = 0; i < nt->depth; i++)
        nt->stack[i].left--;
    bool step_done = false;
    while (nt->depth > 0 && nt->stack[nt->depth - 1].left == 0) {
        popped[npop++] = nt->stack[--nt->depth];
        if (nt->depth == 1) {
            nt->phase++;
        } else if (nt->depth == 0) {
            nt->skip_outer = rng_percent(r, 60) ? 0 : rng_range(r, 1, 6);
            step_done = true;
        }
    }
    int mark = -1;
    if (step_done && rng_percent(r, 25)) {
        static const int weights[3] = {60, 25, 15};
        mark = NVN_LR_STEP + (int)rng_weighted(r, weights, 3);
    }
    int64_t b = returned + 1 + min64((gap_end - returned) / 3, NVTX_POP_WINDOW);
    int fixed = (nccl ? 1 : 0) + npop + (mark >= 0 ? 1 : 0);
    size_t ends[16];
    int nend = 0;
    for (size_t i = 0; i < np->npending && nend < (int)ARRAY_LEN(ends); i++)
        if (np->pending[i].end_thread == ti && np->pending[i].due < b && b - returned > fixed + nend + 1)
            ends[nend++] = i;
    n = fixed + nend;
    if (n > 0 && b - returned <= n)
        die("internal error: no room for NVTX events after a call at %" PRId64, returned);
    k = 0;
    if (nccl) {
        wrap.end = nvtx_slot(returned, b, k++, n);
        nvtx_done(g, &wrap);
    }
    for (int i = 0; i < npop; i++) {
        popped[i].row.end = nvtx_slot(returned, b, k++, n);
        nvtx_done(g, &popped[i].row);
    }
    if (mark >= 0) {
        struct nvtx_row x = nvtx_new(g, t->process, NVTX_MARK, (uint8_t)mark, t->global_tid);
        x.start = nvtx_slot(returned, b, k++, n);
        nvtx_done(g, &x);
    }
    int64_t last = k > 0 ? nvtx_slot(returned, b, k - 1, n) : INT64_MIN;
    for (int i = nend - 1; i >= 0; i--) /* from the back: removal moves the last entry */
        nvtx_pending_end(g, np, ends[i], last = nvtx_slot(returned, b, k++, n));
    nt->last_returned = returned;
    nt->last_time = last != INT64_MIN ? last : returned;

    /* Every row still to come starts after start - NVTX_PUSH_WINDOW, or is open now. */
    if (--g->nvtx_flush_countdown == 0) {
        g->nvtx_flush_countdown = NVTX_FLUSH_EVERY;
        int64_t floor = start - NVTX_PUSH_WINDOW - 1;
        for (size_t i = 0; i < g->nthreads; i++)
            if (g->nvtx_threads[i].depth > 0)
                floor = min64(floor, g->nvtx_threads[i].stack[0].row.start);
        for (size_t p = 0; p < (size_t)g->opt.processes; p++)
            for (size_t i = 0; i < g->nvtx_procs[p].npending; i++)
                floor = min64(floor, g->nvtx_procs[p].pending[i].row.start);
        nvtx_flush(g, floor);
    }
}

/* After the simulation: every thread pops what it still has open, right after its last
 * NVTX event; start/end ranges still running end on their end thread after that. */
static void nvtx_finish(struct gen *g)
{
    if (!g->nvtx_on)
        return;
    struct rng *r = &g->nvtx_rng;
    for (size_t i = 0; i < g->nthreads; i++) {
        struct nvtx_thread *nt = &g->nvtx_threads[i];
        while (nt->depth > 0) {
            struct nvtx_open *o = &nt->stack[--nt->depth];
            nt->last_time = max64(nt->last_time, o->row.start) + rng_range(r, 50, 400);
            o->row.end = nt->last_time;
            nvtx_done(g, &o->row);
        }
    }
    for (size_t p = 0; p < (size_t)g->opt.processes; p++) {
        struct nvtx_process *np = &g->nvtx_procs[p];
        while (np->npending > 0) {
            struct nvtx_pending *pe = &np->pending[np->npending - 1];
            struct nvtx_thread *nt = &g->nvtx_threads[pe->end_thread];
            nt->last_time = max64(nt->last_time, pe->row.start) + rng_range(r, 50, 400);
            nvtx_pending_end(g, np, np->npending - 1, nt->last_time);
        }
    }
    nvtx_flush(g, INT64_MAX);
}

/* ------------------------------------------------------------------------------------
 * Workload simulation
 * ---------------------------------------------------------------------------------- */

static int64_t next_correlation_id(struct gen *g, struct process *p)
{
    /* Calls nsys does not trace still consume ids, so real ids have small gaps. */
    if (rng_percent(&g->rng, 5))
        p->next_correlation_id += rng_range(&g->rng, 1, 3);
    return p->next_correlation_id++;
}

static struct call call_begin(struct gen *g, const struct thread *t, enum api_id api)
{
    const struct api_def *a = &api_defs[api];
    struct call c = {.api = api, .start = t->free_at};
    g->step_api = api;
    g->step_kernel = -1;
    c.end = c.start + rng_range(&g->rng, a->min_ns, a->max_ns);
    c.correlation_id = next_correlation_id(g, &g->processes[t->process]);
    return c;
}

/* When the driver hands the work to the GPU: late in the call, plus queueing latency. */
static int64_t call_submit_time(struct gen *g, const struct call *c)
{
    return c->start + (c->end - c->start) * 3 / 5 + rng_range(&g->rng, 1000, 4000);
}

static void push_api_row(struct gen *g, const struct thread *t, enum api_id api, int64_t start,
                         int64_t end, int64_t correlation_id, int32_t return_value)
{
    struct row r = {.kind = R_API, .start = start, .end = end, .correlation_id = correlation_id,
                    .thread = (uint32_t)(t - g->threads)};
    r.u.api.api = api;
    r.u.api.return_value = return_value;
    push_row(g, &r);
}

/* Writes the call, sometimes with the driver call the runtime made inside it (own
 * correlation id, strictly inside the runtime call). */
static void call_emit(struct gen *g, const struct thread *t, const struct call *c, int32_t return_value)
{
    push_api_row(g, t, c->api, c->start, c->end, c->correlation_id, return_value);
    enum api_id inner = api_defs[c->api].nested;
    if (inner == API_NONE || !rng_percent(&g->rng, NESTED_DRIVER_PCT))
        return;
    int64_t span = c->end - c->start;
    int64_t start = c->start + 1 + rng_range(&g->rng, span / 10, span / 3);
    int64_t end = c->end - 1 - rng_range(&g->rng, span / 10, span / 4);
    int64_t correlation_id = next_correlation_id(g, &g->processes[t->process]);
    push_api_row(g, t, inner, start, end, correlation_id, 0);
}

/* GPU rows with no API row: the launching call exists but was not traced. */
static void call_emit_traced(struct gen *g, const struct thread *t, const struct call *c)
{
    if ((int64_t)rng_below(&g->rng, 1000) >= ORPHAN_PERMILLE)
        call_emit(g, t, c, 0);
}

static struct stream *pick_stream(struct gen *g, const struct thread *t)
{
    int64_t device = rng_percent(&g->rng, HOME_DEVICE_PCT) ? t->home_device
                                                           : (int64_t)rng_below(&g->rng, (uint64_t)g->opt.gpus);
    return stream_of(g, t->process, device, (int64_t)rng_below(&g->rng, (uint64_t)g->opt.streams));
}

/* Start time of an operation queued on s: FIFO after the previous one, sometimes
 * back to back (gap 0). A kernel may instead start while the previous kernel still
 * runs (programmatic dependent launch), though never before that kernel started.
 * That is only possible when it is launched before the previous kernel ends, so
 * instead of a fixed probability, overlap whenever possible while the share of
 * overlapping kernels is below --overlap-pct. */
static int64_t stream_schedule(struct gen *g, struct stream *s, int64_t ready, int64_t duration, bool kernel)
{
    int64_t start;
    int64_t overlap_lo = max64(ready, s->last_kernel_start + 1), overlap_hi = s->last_kernel_end - 1;
    bool overlap_wanted = g->overlapping_kernels * 100 < g->opt.overlap_pct * g->kernels;
    if (kernel && s->last_was_kernel && overlap_lo <= overlap_hi && overlap_wanted) {
        start = rng_range(&g->rng, overlap_lo, overlap_hi);
        g->overlapping_kernels++;
    } else {
        int64_t gap = rng_percent(&g->rng, 25) ? 0 : rng_range(&g->rng, 300, 3000);
        start = max64(ready, s->busy_until + gap);
    }
    s->busy_until = max64(s->busy_until, start + duration);
    s->last_was_kernel = kernel;
    if (kernel) {
        s->last_kernel_start = start;
        s->last_kernel_end = start + duration;
    }
    return start;
}

static struct row gpu_row(const struct gen *g, enum row_kind kind, const struct stream *s,
                          const struct call *c, int64_t start, int64_t duration)
{
    return (struct row){.kind = kind, .start = start, .end = start + duration,
                        .correlation_id = c->correlation_id, .stream = (uint32_t)(s - g->streams)};
}

static int64_t issue_kernel(struct gen *g, struct thread *t)
{
    int weights[ARRAY_LEN(kernel_defs)];
    for (size_t i = 0; i < ARRAY_LEN(kernel_defs); i++)
        weights[i] = kernel_defs[i].weight;
    size_t k = rng_weighted(&g->rng, weights, ARRAY_LEN(kernel_defs));
    const struct kernel_def *kd = &kernel_defs[k];

    struct stream *s = pick_stream(g, t);
    struct call c = call_begin(g, t, kd->launch);
    g->step_kernel = (int32_t)k;
    int64_t duration = rng_log_range(&g->rng, kd->min_ns, kd->max_ns);
    g->kernels++;
    int64_t start = stream_schedule(g, s, call_submit_time(g, &c), duration, true);
    struct row r = gpu_row(g, R_KERNEL, s, &c, start, duration);
    r.u.kernel.def = (uint32_t)k;
    r.u.kernel.grid_id = g->next_grid_id[s->device]++;
    push_row(g, &r);
    call_emit_traced(g, t, &c);
    host_note(g, t, &c, s, (int32_t)k, 0, 0);
    return c.end;
}

static int64_t issue_memcpy(struct gen *g, struct thread *t)
{
    enum copy_choice choice = (enum copy_choice)rng_weighted(&g->rng, copy_weights, CP__COUNT);
    if (choice == CP_PTOP && g->opt.gpus < 2)
        choice = CP_DTOD;
    struct stream *s = pick_stream(g, t);
    struct call c = call_begin(g, t, API_MEMCPY_ASYNC);
    int64_t bytes = rng_log_range(&g->rng, 4, MAX_BYTES);
    int32_t host_kind = rng_percent(&g->rng, 60) ? MEM_PINNED : MEM_PAGEABLE;
    int32_t copy_kind = COPY_DTOD, src_kind = MEM_DEVICE, dst_kind = MEM_DEVICE;
    int64_t peer_device = -1;
    int64_t bytes_per_us = 1500000; /* achieved bandwidth */
    switch (choice) {
    case CP_HTOD:
        copy_kind = COPY_HTOD;
        src_kind = host_kind;
        bytes_per_us = host_kind == MEM_PINNED ? 24000 : 10000;
        break;
    case CP_DTOH:
        copy_kind = COPY_DTOH;
        dst_kind = host_kind;
        bytes_per_us = host_kind == MEM_PINNED ? 24000 : 10000;
        break;
    case CP_PTOP:
        copy_kind = COPY_PTOP;
        peer_device = (s->device + 1 + (int64_t)rng_below(&g->rng, (uint64_t)g->opt.gpus - 1)) % g->opt.gpus;
        bytes_per_us = 150000;
        break;
    default:
        break;
    }
    int64_t duration = rng_range(&g->rng, 1000, 2000) + bytes * 1000 / bytes_per_us;
    int64_t start = stream_schedule(g, s, call_submit_time(g, &c), duration, false);
    struct row r = gpu_row(g, R_MEMCPY, s, &c, start, duration);
    r.u.copy.bytes = bytes;
    r.u.copy.peer_device = peer_device;
    r.u.copy.copy_kind = copy_kind;
    r.u.copy.src_kind = src_kind;
    r.u.copy.dst_kind = dst_kind;
    push_row(g, &r);
    call_emit_traced(g, t, &c);
    host_note(g, t, &c, s, -1, copy_kind, bytes);
    return c.end;
}

static int64_t issue_memset(struct gen *g, struct thread *t)
{
    struct stream *s = pick_stream(g, t);
    struct call c = call_begin(g, t, API_MEMSET_ASYNC);
    int64_t bytes = rng_log_range(&g->rng, 4, MAX_BYTES);
    int64_t duration = rng_range(&g->rng, 800, 1500) + bytes / 2000; /* ~2 TB/s */
    int64_t start = stream_schedule(g, s, call_submit_time(g, &c), duration, false);
    struct row r = gpu_row(g, R_MEMSET, s, &c, start, duration);
    r.u.fill.bytes = bytes;
    r.u.fill.value = rng_percent(&g->rng, 90) ? 0 : (int32_t)rng_below(&g->rng, 256);
    r.u.fill.mem_kind = rng_percent(&g->rng, 95) ? MEM_DEVICE : MEM_MANAGED;
    push_row(g, &r);
    call_emit_traced(g, t, &c);
    host_note(g, t, &c, s, -1, 0, bytes);
    return c.end;
}

/* Blocking syncs keep the thread inside the call until the awaited work has finished;
 * the SYNCHRONIZATION row lies strictly inside the call. */
static int64_t issue_sync(struct gen *g, struct thread *t)
{
    static const enum api_id apis[SC__COUNT] = {
        [SC_STREAM] = API_STREAM_SYNC, [SC_EVENT] = API_EVENT_SYNC,
        [SC_WAIT_EVENT] = API_STREAM_WAIT_EVENT, [SC_DEVICE] = API_DEVICE_SYNC,
    };
    enum sync_choice choice = (enum sync_choice)rng_weighted(&g->rng, sync_weights, SC__COUNT);
    struct process *p = &g->processes[t->process];
    struct stream *s = pick_stream(g, t);
    struct call c = call_begin(g, t, apis[choice]);
    int32_t type = SYNC_CONTEXT;
    int64_t stream_id = CUPTI_NONE, event_id = CUPTI_NONE, event_sync_id = 0;
    int64_t wait_until = s->busy_until;
    switch (choice) {
    case SC_STREAM:
        type = SYNC_STREAM;
        stream_id = s->id;
        break;
    case SC_EVENT: /* the event was recorded at the tail of s */
        type = SYNC_EVENT;
        event_id = p->next_event_id++;
        event_sync_id = p->next_event_sync_id++;
        break;
    case SC_WAIT_EVENT: /* makes the GPU wait, not the thread */
        type = SYNC_STREAM_WAIT_EVENT;
        stream_id = s->id;
        event_id = p->next_event_id++;
        event_sync_id = p->next_event_sync_id++;
        wait_until = INT64_MIN / 2;
        break;
    default: /* cudaDeviceSynchronize waits for every stream of the context */
        for (int64_t k = 0; k < g->opt.streams; k++)
            wait_until = max64(wait_until, stream_of(g, t->process, s->device, k)->busy_until);
        break;
    }
    int64_t sync_start = c.start + rng_range(&g->rng, 300, 700);
    /* One draw per statement: argument evaluation order would differ between compilers. */
    int64_t min_end = sync_start + rng_range(&g->rng, 300, 1500);
    int64_t sync_end = max64(min_end, wait_until + rng_range(&g->rng, 200, 900));
    c.end = max64(c.end, sync_end + rng_range(&g->rng, 300, 900));
    struct row r = gpu_row(g, R_SYNC, s, &c, sync_start, sync_end - sync_start);
    r.u.sync.type = type;
    r.u.sync.stream_id = stream_id;
    r.u.sync.event_id = event_id;
    r.u.sync.event_sync_id = event_sync_id;
    push_row(g, &r);
    call_emit(g, t, &c, 0);
    host_note(g, t, &c, s, -1, 0, 0);
    return c.end;
}

/* API calls that launch no GPU work (their correlation ids match nothing). */
static int64_t issue_misc(struct gen *g, struct thread *t)
{
    int weights[API__COUNT];
    for (size_t a = 0; a < API__COUNT; a++)
        weights[a] = api_defs[a].misc_weight;
    enum api_id api = (enum api_id)rng_weighted(&g->rng, weights, API__COUNT);
    struct call c = call_begin(g, t, api);
    bool not_ready = api == API_EVENT_QUERY && rng_percent(&g->rng, 50);
    call_emit(g, t, &c, not_ready ? CUDA_ERROR_NOT_READY : 0);
    host_note(g, t, &c, NULL, -1, 0, 0);
    return c.end;
}

/* ------------------------------------------------------------------------------------
 * CUDA graphs (--graphs)
 * ---------------------------------------------------------------------------------- */

static int64_t node_id(int64_t owner_id, size_t node)
{
    return owner_id << 32 | (int64_t)(node + 1);
}

/* Instant row of CUDA_GRAPH_EVENTS or CUDA_GRAPH_NODE_EVENTS (modern schema only). */
static void push_graph_event(struct gen *g, const struct thread *t, enum row_kind kind, enum api_id api,
                             int32_t event_class, int64_t at, int64_t id, int64_t original_id, int64_t exec_id)
{
    if (!(table_defs[T_GRAPH_EVENTS].schemas & g->mask))
        return;
    struct row r = {.kind = kind, .start = at, .end = at, .thread = (uint32_t)(t - g->threads)};
    r.u.graph_event.api = api;
    r.u.graph_event.event_class = event_class;
    r.u.graph_event.id = id;
    r.u.graph_event.original_id = original_id;
    r.u.graph_event.exec_id = exec_id;
    push_row(g, &r);
}

/* Next call of a sequence on t: after the previous one returned and a short gap. */
static struct call graph_call(struct gen *g, struct thread *t, enum api_id api)
{
    struct call c = call_begin(g, t, api);
    push_api_row(g, t, api, c.start, c.end, c.correlation_id, 0);
    host_note(g, t, &c, NULL, -1, 0, 0);
    t->free_at = c.end + rng_range(&g->rng, 300, 2000);
    return c;
}

/* cudaGraphCreate, one cudaGraphAddKernelNode per node and cudaGraphInstantiate, back
 * to back on t from t->free_at on; leaves t->free_at after the last. */
static void build_graph(struct gen *g, struct thread *t, struct graph *gr)
{
    struct process *p = &g->processes[t->process];
    int weights[ARRAY_LEN(kernel_defs)];
    for (size_t i = 0; i < ARRAY_LEN(kernel_defs); i++)
        weights[i] = kernel_defs[i].weight;
    gr->built = true;
    gr->device = t->home_device;
    gr->nnodes = (size_t)rng_range(&g->rng, 3, MAX_GRAPH_NODES);
    gr->graph_id = p->next_graph_id++;

    struct call c = graph_call(g, t, API_GRAPH_CREATE);
    push_graph_event(g, t, R_GRAPH_EVENT, c.api, CLASS_GRAPH_CREATION, c.start + (c.end - c.start) * 2 / 3,
                     gr->graph_id, 0, 0);
    for (size_t k = 0; k < gr->nnodes; k++) {
        gr->kernel[k] = (uint32_t)rng_weighted(&g->rng, weights, ARRAY_LEN(kernel_defs));
        c = graph_call(g, t, API_GRAPH_ADD_KERNEL_NODE);
        push_graph_event(g, t, R_GRAPH_NODE_EVENT, c.api, CLASS_GRAPH_NODE_CREATION,
                         c.start + (c.end - c.start) * 2 / 3, node_id(gr->graph_id, k), 0, 0);
    }
    /* Instantiation creates the executable graph, then copies every node into it. */
    gr->exec_id = p->next_graph_id++;
    c = graph_call(g, t, API_GRAPH_INSTANTIATE);
    int64_t span = c.end - c.start;
    push_graph_event(g, t, R_GRAPH_EVENT, c.api, CLASS_GRAPHEXEC_CREATION, c.start + span / 10, gr->graph_id,
                     0, gr->exec_id);
    for (size_t k = 0; k < gr->nnodes; k++)
        push_graph_event(g, t, R_GRAPH_NODE_EVENT, c.api, CLASS_GRAPH_NODE_CREATION,
                         c.start + span * (int64_t)(k + 2) / (int64_t)(gr->nnodes + 3), node_id(gr->exec_id, k),
                         node_id(gr->graph_id, k), 0);
}

/* Launch j of every process is due once this share of the requested rows is written;
 * processes take turns, so launches of different processes do not bunch up. */
static bool graph_launch_due(const struct gen *g, size_t process)
{
    const struct process *p = &g->processes[process];
    if (p->graph_launches >= g->opt.graphs)
        return false;
    int64_t slots = g->opt.graphs * g->opt.processes + 1;
    int64_t slot = p->graph_launches * g->opt.processes + (int64_t)process + 1;
    return g->rows_planned >= g->opt.events * slot / slots;
}

/* One cudaGraphLaunch: its kernels run back to back on one stream of the graph's device,
 * after the call began and after the work already queued there, and never overlap. */
static int64_t issue_graph_launch(struct gen *g, struct thread *t)
{
    struct process *p = &g->processes[t->process];
    struct graph *gr = &g->graphs[p->first_graph + (size_t)p->graph_launches % p->ngraphs];
    p->graph_launches++;
    g->graph_launches_left--;
    if (!gr->built)
        build_graph(g, t, gr);

    struct stream *s = stream_of(g, t->process, gr->device, (int64_t)rng_below(&g->rng, (uint64_t)g->opt.streams));
    struct call c = call_begin(g, t, API_GRAPH_LAUNCH);
    push_api_row(g, t, c.api, c.start, c.end, c.correlation_id, 0);
    host_note(g, t, &c, s, -1, 0, 0);
    int64_t ready = call_submit_time(g, &c);
    int64_t gap = rng_percent(&g->rng, 25) ? 0 : rng_range(&g->rng, 300, 3000);
    int64_t start = max64(ready, s->busy_until + gap), first_start = start, end = start;
    for (size_t k = 0; k < gr->nnodes; k++) {
        const struct kernel_def *kd = &kernel_defs[gr->kernel[k]];
        if (k > 0)
            start = end + rng_range(&g->rng, 0, 1200);
        int64_t duration = rng_log_range(&g->rng, kd->min_ns, kd->max_ns);
        struct row r = gpu_row(g, R_KERNEL, s, &c, start, duration);
        r.u.kernel.def = gr->kernel[k];
        r.u.kernel.grid_id = g->next_grid_id[s->device]++;
        r.u.kernel.graph_node_id = node_id(gr->exec_id, k);
        r.u.kernel.graph_id = gr->graph_id;
        push_row(g, &r);
        g->kernels++;
        end = start + duration;
    }
    s->busy_until = end;
    s->last_was_kernel = false; /* no programmatic dependent launch into a graph's range */
    if (g->opt.graph_trace) {
        struct row r = gpu_row(g, R_GRAPH_TRACE, s, &c, first_start, end - first_start);
        r.u.graph_trace.graph_id = gr->graph_id;
        r.u.graph_trace.exec_id = gr->exec_id;
        push_row(g, &r);
    }
    return c.end;
}

/* ------------------------------------------------------------------------------------
 * CPU side: threads' host activity, OS runtime calls, scheduling, sampling
 *
 * Generators decide what every thread does (CUDA steps, start-up, helper-thread cycles):
 * they push OSRT rows and tell the scheduler when a thread wants a CPU (IN_WAKE), sleeps
 * (IN_BLOCK) or ends (IN_EXIT), and what it is doing (activity, for the call path of its
 * samples). The scheduler replays these in time order over the CPUs, up to the time all
 * generators have passed, and writes SCHED_EVENTS and COMPOSITE_EVENTS rows.
 * ---------------------------------------------------------------------------------- */

static void queue_push(struct queue *q, int64_t at, int32_t kind, uint32_t stamp)
{
    if (q->count == q->capacity) {
        size_t capacity = q->capacity ? 2 * q->capacity : 16;
        struct intent *items = xrealloc(NULL, capacity * sizeof *items);
        for (size_t i = 0; i < q->count; i++)
            items[i] = q->items[(q->head + i) % q->capacity];
        free(q->items);
        q->items = items;
        q->head = 0;
        q->capacity = capacity;
    }
    q->items[(q->head + q->count++) % q->capacity] = (struct intent){at, kind, stamp};
}

static const struct intent *queue_front(const struct queue *q)
{
    return &q->items[q->head];
}

static const struct intent *queue_back(const struct queue *q)
{
    return &q->items[(q->head + q->count - 1) % q->capacity];
}

static void queue_pop(struct queue *q)
{
    q->head = (q->head + 1) % q->capacity;
    q->count--;
}

static bool sched_less(const void *a, const void *b)
{
    const struct sched_key *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at;
    return x->entity != y->entity ? x->entity < y->entity : x->version < y->version;
}

/* --- what generators tell the scheduler ------------------------------------------ */

static void sched_touch(struct gen *g, size_t i);

static void cpu_intent(struct gen *g, struct cpu_thread *ct, int64_t at, enum intent_kind kind)
{
    if (!g->sched_on || g->dry)
        return;
    if (ct->intents.count && queue_back(&ct->intents)->at > at)
        die("internal error: intents of thread %" PRId64 " out of order", ct->global_tid);
    queue_push(&ct->intents, at, kind, 0);
    if (ct->intents.count == 1) /* its next event may now come earlier */
        sched_touch(g, (size_t)(ct - g->cthreads));
}

static void cpu_act(struct gen *g, struct cpu_thread *ct, int64_t at, int32_t activity)
{
    if (!g->sched_on || g->dry || !ct->sampled || ct->queued_activity == activity)
        return;
    ct->queued_activity = activity;
    queue_push(&ct->acts, at, activity, 0);
}

static void push_osrt_row(struct gen *g, const struct cpu_thread *ct, int64_t global_tid, enum osrt_fn fn,
                          int64_t start, int64_t end, int nesting)
{
    if (!g->opt.osrt || g->dry)
        return;
    struct row r = {.kind = R_OSRT, .start = start, .end = end};
    r.u.osrt.global_tid = global_tid;
    r.u.osrt.fn = (uint8_t)fn;
    r.u.osrt.role = (uint8_t)ct->role;
    r.u.osrt.nesting = (int8_t)nesting;
    r.u.osrt.callchain = nesting == 0 && end - start >= OSRT_BACKTRACE_NS;
    push_row(g, &r);
    g->osrt_rows++;
}

/* "OS runtime libraries profiling started/finished": instants of the process (TID 0). */
static void push_osrt_instant(struct gen *g, const struct cpu_thread *ct, enum osrt_fn fn, int64_t at)
{
    push_osrt_row(g, ct, ct->global_tid & ~INT64_C(0xFFFFFF), fn, at, at, -1);
}

static int64_t osrt_duration(struct rng *r, const struct osrt_def *d)
{
    if (d->long_pct && rng_percent(r, d->long_pct))
        return rng_log_range(r, d->long_min, d->long_max);
    return rng_log_range(r, d->min_ns, d->max_ns);
}

/* One OS runtime call of ct from `start`, with the calls nested in it; returns its end. A
 * long blocking call sleeps. The thread is back at `after` (an activity) when it returns. */
static int64_t osrt_call(struct gen *g, struct cpu_thread *ct, enum osrt_fn fn, int64_t start, int32_t after)
{
    struct rng *r = &g->cpu_rng;
    const struct osrt_def *d = &osrt_defs[fn];
    int64_t end = start + osrt_duration(r, d);
    push_osrt_row(g, ct, ct->global_tid, fn, start, end, 0);
    cpu_act(g, ct, start, ACT_OSRT + (int32_t)fn);
    if (fn == OS_PTHREAD_CREATE || fn == OS_PTHREAD_CREATE_CUDA) {
        /* the new thread's stack: pthread_create > mmap64, mprotect (nestingLevel 1) */
        int64_t a = start + rng_range(r, 2000, 5000), b = a + rng_range(r, 2000, 8000);
        push_osrt_row(g, ct, ct->global_tid, OS_MMAP64, a, b, 1);
        a = b + rng_range(r, 500, 2000);
        push_osrt_row(g, ct, ct->global_tid, OS_MPROTECT, a, a + rng_range(r, 1000, 3000), 1);
    } else if (fn == OS_FORK) {
        /* atfork handlers: fork > pthread_cond_signal */
        int64_t a = start;
        for (int64_t k = rng_range(r, 1, 2); k > 0; k--) {
            a += rng_range(r, 2000, 6000);
            int64_t b = a + rng_range(r, 1000, 4000);
            push_osrt_row(g, ct, ct->global_tid, OS_COND_SIGNAL, a, b, 1);
            a = b;
        }
    }
    if (d->blocks && end - start >= BLOCK_NS) {
        cpu_intent(g, ct, start + rng_range(r, 1000, 3000), IN_BLOCK);
        cpu_intent(g, ct, end - rng_range(r, 1000, 3000), IN_WAKE);
    }
    cpu_act(g, ct, end, after);
    return end;
}

/* --- scheduler --------------------------------------------------------------------- */

static int64_t thread_next_event(const struct cpu_thread *ct)
{
    int64_t next = ct->intents.count ? queue_front(&ct->intents)->at : INT64_MAX;
    if (ct->state == RS_RUNNING) {
        next = min64(next, ct->slice_end);
        if (ct->sampled)
            next = min64(next, ct->sample_due);
    } else if (ct->state == RS_PREEMPTED) {
        next = min64(next, ct->resume_at);
    }
    return next;
}

/* After any change to thread i: (re)schedule its next event; older heap entries go stale. */
static void sched_touch(struct gen *g, size_t i)
{
    struct cpu_thread *ct = &g->cthreads[i];
    int64_t at = thread_next_event(ct);
    ct->version++;
    if (at != INT64_MAX)
        heap_push(&g->sched_events, &(struct sched_key){at, (uint32_t)i, ct->version});
}

static void push_sched_row(struct gen *g, const struct cpu_thread *ct, int64_t at, int32_t cpu, bool in,
                           int thread_state)
{
    if (!g->opt.sched_cpus)
        return;
    struct row r = {.kind = R_SCHED, .start = at, .end = at};
    r.u.sched.global_tid = ct->global_tid;
    r.u.sched.cpu = cpu;
    r.u.sched.is_in = in;
    r.u.sched.thread_state = (uint8_t)thread_state;
    push_row(g, &r);
    g->sched_rows++;
}

/* Time a thread runs before something else preempts it (involuntary context switch):
 * other processes now and then, or, when threads wait for a CPU, a CFS-like time slice. */
static int64_t slice_length(struct gen *g)
{
    if (g->run_queue.count)
        return rng_log_range(&g->cpu_rng, 750000, 3000000);
    return rng_log_range(&g->cpu_rng, 400000, 16000000);
}

static void dispatch(struct gen *g, size_t i, int32_t c, int64_t at)
{
    struct cpu_thread *ct = &g->cthreads[i];
    struct cpu_core *core = &g->cpus[c];
    core->thread = (int32_t)i;
    core->version++;
    ct->state = RS_RUNNING;
    ct->cpu = c;
    ct->slice_end = at + (ct->exiting ? rng_range(&g->cpu_rng, 2000, 12000) : slice_length(g));
    ct->sample_due = at + ct->sample_left;
    push_sched_row(g, ct, at, c, true, THREAD_STATE_UNKNOWN);
}

/* The CPU stays idle for a context switch before the next thread comes in. */
static void sched_out(struct gen *g, size_t i, int64_t at, int thread_state)
{
    struct cpu_thread *ct = &g->cthreads[i];
    struct cpu_core *core = &g->cpus[ct->cpu];
    push_sched_row(g, ct, at, ct->cpu, false, thread_state);
    ct->sample_left = ct->sample_due > at ? ct->sample_due - at : 1;
    ct->last_cpu = ct->cpu;
    ct->cpu = -1;
    core->thread = -1;
    core->free_at = at + rng_range(&g->cpu_rng, 1000, 4000);
    core->version++;
    heap_push(&g->sched_events,
              &(struct sched_key){core->free_at, (uint32_t)(g->ncthreads + (size_t)ct->last_cpu), core->version});
}

static bool cpu_free(const struct gen *g, int32_t c, int64_t at)
{
    const struct cpu_core *core = &g->cpus[c];
    return core->thread < 0 && core->bound_waiting < 0 && core->free_at <= at;
}

/* Thread i wants a CPU at `at`: its previous one if free (mostly), another free one, or it
 * waits in the run queue. A per-CPU kernel thread preempts whatever runs on its CPU. */
static void try_run(struct gen *g, size_t i, int64_t at)
{
    struct cpu_thread *ct = &g->cthreads[i];
    struct rng *r = &g->cpu_rng;
    ct->state = RS_WAITING;
    if (ct->bound_cpu >= 0) {
        int32_t c = ct->bound_cpu;
        struct cpu_core *core = &g->cpus[c];
        if (core->thread < 0 && core->free_at <= at) {
            dispatch(g, i, c, at);
            return;
        }
        if (core->thread >= 0) {
            size_t j = (size_t)core->thread;
            sched_out(g, j, at, THREAD_STATE_UNKNOWN);
            g->cthreads[j].state = RS_PREEMPTED;
            g->cthreads[j].resume_at = at + rng_log_range(r, 3000, 60000);
            sched_touch(g, j);
        }
        core->bound_waiting = (int32_t)i;
        return;
    }
    int32_t chosen = -1;
    if (ct->last_cpu >= 0 && cpu_free(g, ct->last_cpu, at) && rng_percent(r, 85)) {
        chosen = ct->last_cpu;
    } else {
        int64_t seen = 0; /* uniform among the free CPUs */
        for (int32_t c = 0; c < g->ncpus; c++)
            if (cpu_free(g, c, at) && rng_below(r, (uint64_t)++seen) == 0)
                chosen = c;
    }
    if (chosen >= 0)
        dispatch(g, i, chosen, at);
    else
        queue_push(&g->run_queue, at, (int32_t)i, ++ct->queue_stamp);
}

/* An idle CPU can take a thread again: the per-CPU thread waiting for it, else the first
 * thread of the run queue that still waits. */
static void cpu_ready(struct gen *g, int32_t c, int64_t at)
{
    struct cpu_core *core = &g->cpus[c];
    if (core->thread >= 0)
        return;
    if (core->bound_waiting >= 0) {
        size_t i = (size_t)core->bound_waiting;
        core->bound_waiting = -1;
        if (g->cthreads[i].state == RS_WAITING) {
            dispatch(g, i, c, at);
            sched_touch(g, i);
            return;
        }
    }
    while (g->run_queue.count) {
        struct intent e = *queue_front(&g->run_queue);
        queue_pop(&g->run_queue);
        struct cpu_thread *ct = &g->cthreads[e.kind];
        if (ct->state == RS_WAITING && ct->queue_stamp == e.stamp) {
            dispatch(g, (size_t)e.kind, c, at);
            sched_touch(g, (size_t)e.kind);
            return;
        }
    }
}

/* Picks the call path of a sample from what the thread is doing. */
static void emit_sample(struct gen *g, size_t i, int64_t at)
{
    struct cpu_thread *ct = &g->cthreads[i];
    struct rng *r = &g->cpu_rng;
    while (ct->acts.count && queue_front(&ct->acts)->at <= at) {
        ct->activity = queue_front(&ct->acts)->kind;
        queue_pop(&ct->acts);
    }
    if (!g->opt.samples_hz)
        return;
    static const int host_weights[] = {35, 30, 20, 15};
    unsigned path;
    int kernel_pct;
    int32_t act = ct->activity;
    if (act >= ACT_OSRT) {
        path = SP__COUNT + (unsigned)ct->role * OS__COUNT + (unsigned)(act - ACT_OSRT);
        kernel_pct = OSRT_SAMPLE_KERNEL_PCT;
    } else {
        enum sample_path_id sp;
        switch (ct->role) {
        case ROLE_MAIN:
            sp = act == ACT_HOST ? (enum sample_path_id)(SP_MAIN_HOST_1 + rng_weighted(r, host_weights, 4))
                 : act == ACT_COPY  ? SP_MAIN_COPY
                 : act == ACT_SYNC  ? SP_MAIN_SYNC
                 : act == ACT_ALLOC ? SP_MAIN_ALLOC
                                    : SP_MAIN_LAUNCH;
            break;
        case ROLE_WORKER: sp = act == ACT_HOST ? SP_WORKER_HOST : SP_WORKER_LAUNCH; break;
        case ROLE_NSYS: sp = SP_NSYS; break;
        case ROLE_CUPTI: sp = SP_CUPTI; break;
        case ROLE_EVT: sp = SP_EVT; break;
        default: sp = SP_CHILD; break;
        }
        path = sp;
        kernel_pct = sample_paths[sp].kernel_pct;
    }
    struct row row = {.kind = R_SAMPLE, .start = at, .end = at};
    row.u.sample.global_tid = ct->global_tid;
    row.u.sample.cpu = ct->cpu;
    row.u.sample.path = (uint16_t)path;
    row.u.sample.kernel_frame = rng_percent(r, kernel_pct) ? (uint8_t)(F_FIRST_KERNEL + rng_below(r, 4)) : 0;
    row.u.sample.leaf_offset = (uint16_t)rng_below(r, 0x200);
    push_row(g, &row);
    g->sample_rows++;
}

/* One event of thread i at `at`: a sample, what its generator said, the end of its time
 * slice, or the end of a preemption. */
static void thread_event(struct gen *g, size_t i, int64_t at)
{
    struct cpu_thread *ct = &g->cthreads[i];
    struct rng *r = &g->cpu_rng;
    if (ct->state == RS_RUNNING && ct->sampled && ct->sample_due <= at) {
        emit_sample(g, i, at);
        /* about 1/HZ of running time to the next one */
        int64_t jitter = (int64_t)rng_below(r, (uint64_t)g->sample_period / 16 + 1);
        ct->sample_due += g->sample_period - g->sample_period / 32 + jitter;
    } else if (ct->intents.count && queue_front(&ct->intents)->at <= at) {
        int32_t kind = queue_front(&ct->intents)->kind;
        queue_pop(&ct->intents);
        switch (kind) {
        case IN_WAKE:
            if (ct->state == RS_OFF)
                try_run(g, i, at);
            break;
        case IN_BLOCK:
            if (ct->state == RS_RUNNING)
                sched_out(g, i, at, THREAD_STATE_UNKNOWN);
            else if (ct->bound_cpu >= 0 && g->cpus[ct->bound_cpu].bound_waiting == (int32_t)i)
                g->cpus[ct->bound_cpu].bound_waiting = -1;
            ct->state = RS_OFF;
            break;
        default: /* IN_EXIT: the thread runs its exit and is switched out for good */
            ct->exiting = true;
            if (ct->state == RS_RUNNING) {
                sched_out(g, i, at, THREAD_STATE_TERMINATED);
                ct->state = RS_OFF;
            } else if (ct->state != RS_WAITING) {
                try_run(g, i, at);
            }
            break;
        }
    } else if (ct->state == RS_RUNNING && ct->slice_end <= at) {
        sched_out(g, i, at, ct->exiting ? THREAD_STATE_TERMINATED : THREAD_STATE_UNKNOWN);
        if (ct->exiting) {
            ct->state = RS_OFF;
        } else {
            ct->state = RS_PREEMPTED;
            ct->resume_at = at + rng_log_range(r, 2000, 250000);
        }
    } else if (ct->state == RS_PREEMPTED && ct->resume_at <= at) {
        try_run(g, i, at);
    }
    sched_touch(g, i);
}

/* Replays everything due up to `until`. */
static void sched_run(struct gen *g, int64_t until)
{
    struct sched_key k;
    while (g->sched_events.count && ((const struct sched_key *)heap_at(&g->sched_events, 0))->at <= until) {
        heap_pop(&g->sched_events, &k);
        if (k.entity >= g->ncthreads) {
            int32_t c = (int32_t)(k.entity - g->ncthreads);
            if (k.version == g->cpus[c].version)
                cpu_ready(g, c, k.at);
        } else if (k.version == g->cthreads[k.entity].version) {
            thread_event(g, k.entity, k.at);
        }
    }
}

/* --- helper threads: periodic wake-ups ---------------------------------------------- */

static int64_t helper_run_time(struct rng *r, enum cpu_role role)
{
    switch (role) {
    case ROLE_NSYS: return rng_log_range(r, 30000, 400000);
    case ROLE_CUPTI: return rng_log_range(r, 20000, 600000);
    case ROLE_EVT: return rng_log_range(r, 10000, 80000);
    default: return rng_log_range(r, 3000, 40000); /* kernel worker */
    }
}

static int64_t helper_sleep_time(struct rng *r, enum cpu_role role)
{
    return role == ROLE_NSYS ? rng_log_range(r, 5000000, 60000000) : rng_log_range(r, 2000000, 40000000);
}

/* The OSRT row of a helper's wait is written once its end is known: rows before its start
 * must stay unwritten until then. */
static void update_flush_floor(struct gen *g)
{
    g->flush_floor = INT64_MAX;
    for (size_t i = g->nthreads; i < g->ncthreads; i++)
        if (g->cthreads[i].call_pending)
            g->flush_floor = min64(g->flush_floor, g->cthreads[i].call_start);
}

static void finish_helper_call(struct gen *g, struct cpu_thread *ct, int64_t end)
{
    if (!ct->call_pending)
        return;
    ct->call_pending = false;
    push_osrt_row(g, ct, ct->global_tid, ct->wait_fn, ct->call_start, end, 0);
}

/* One cycle of a helper thread: wakes, runs, then waits in its traced call (poll,
 * sem_timedwait) or just sleeps. */
static void helper_cycle(struct gen *g, struct cpu_thread *ct)
{
    struct rng *r = &g->cpu_rng;
    int64_t wake = ct->next_wake;
    finish_helper_call(g, ct, ct->call_end);
    cpu_intent(g, ct, wake, IN_WAKE);
    cpu_act(g, ct, wake, ACT_AUX);
    int64_t wait = wake + helper_run_time(r, ct->role);
    if (ct->wait_fn != OS__COUNT) {
        ct->call_pending = g->opt.osrt;
        ct->call_start = wait;
        ct->call_end = wait + osrt_duration(r, &osrt_defs[ct->wait_fn]);
        cpu_act(g, ct, wait, ACT_OSRT + (int32_t)ct->wait_fn);
        cpu_intent(g, ct, wait + rng_range(r, 1000, 3000), IN_BLOCK);
        ct->next_wake = ct->call_end - rng_range(r, 1000, 3000);
    } else {
        cpu_intent(g, ct, wait, IN_BLOCK);
        ct->next_wake = wait + helper_sleep_time(r, ct->role);
    }
}

static void helpers_advance(struct gen *g, int64_t until)
{
    bool changed = false;
    for (size_t i = g->nthreads; i < g->ncthreads; i++) {
        struct cpu_thread *ct = &g->cthreads[i];
        while (ct->next_wake <= until) {
            helper_cycle(g, ct);
            changed = true;
        }
    }
    if (changed)
        update_flush_floor(g);
}

/* Everything the CPU side knows up to `now` is final: replay it. */
static void cpu_advance(struct gen *g, int64_t now)
{
    helpers_advance(g, now);
    sched_run(g, now);
}

/* --- CUDA threads: what happens around their CUDA calls ------------------------------ */

static int32_t api_activity(enum api_id api)
{
    switch (api) {
    case API_MEMCPY_ASYNC:
    case API_CU_MEMCPY_ASYNC:
    case API_MEMSET_ASYNC:
    case API_CU_MEMSET_ASYNC: return ACT_COPY;
    case API_STREAM_SYNC:
    case API_CU_STREAM_SYNC:
    case API_EVENT_SYNC:
    case API_DEVICE_SYNC: return ACT_SYNC;
    case API_MALLOC:
    case API_FREE: return ACT_ALLOC;
    default: return ACT_LAUNCH;
    }
}

/* Host (Python) work between two CUDA calls: mostly tens of microseconds, sometimes far
 * more (data loading, logging). Sets the pace of the timeline with the CPU side on. */
static int64_t host_work(struct rng *r)
{
    int64_t p = (int64_t)rng_below(r, 100);
    if (p < 70)
        return rng_log_range(r, 8000, 160000);
    if (p < 97)
        return rng_log_range(r, 60000, 800000);
    return rng_log_range(r, 500000, 6000000);
}

#define OSRT_STEP_PCT 22 /* steps with OS runtime calls after their CUDA call */

/* The CPU side of one step of CUDA thread t: its call ran from `start` to `returned`, and
 * cpu_gap() gave the thread until `gap_end`. Blocking syncs sleep; cudaMalloc/cudaFree make
 * ioctls; then host work with a few OS runtime calls. Returns when the next call starts. */
static int64_t cpu_step(struct gen *g, const struct thread *t, int64_t start, int64_t returned, int64_t gap_end)
{
    struct cpu_thread *ct = &g->cthreads[t - g->threads];
    struct rng *r = &g->cpu_rng;
    int32_t act = api_activity(g->step_api);
    cpu_act(g, ct, start, act);
    if (act == ACT_SYNC && returned - start >= BLOCK_NS) {
        /* the driver's blocking wait: the thread sleeps until the GPU work is done */
        cpu_intent(g, ct, start + rng_range(r, 3000, 8000), IN_BLOCK);
        cpu_intent(g, ct, returned - rng_range(r, 2000, 5000), IN_WAKE);
    } else if (act == ACT_ALLOC && returned - start >= 6000) {
        int64_t n = rng_range(r, 1, 3), span = (returned - start - 2000) / n;
        for (int64_t k = 0; k < n && span >= 3000; k++) {
            int64_t a = start + 1000 + k * span + rng_range(r, 0, span / 4);
            int64_t b = a + osrt_duration(r, &osrt_defs[OS_IOCTL_CUDA]);
            b = min64(b, start + 1000 + (k + 1) * span - 500);
            if (b - a < 1000)
                continue;
            push_osrt_row(g, ct, ct->global_tid, OS_IOCTL_CUDA, a, b, 0);
            cpu_act(g, ct, a, ACT_OSRT + OS_IOCTL_CUDA);
            cpu_act(g, ct, b, act);
        }
    }
    cpu_act(g, ct, returned, ACT_HOST);
    int64_t pos = gap_end;
    if (rng_percent(r, OSRT_STEP_PCT)) {
        int weights[OS__COUNT];
        for (size_t f = 0; f < OS__COUNT; f++)
            weights[f] = ct->role == ROLE_MAIN ? osrt_defs[f].main_weight : osrt_defs[f].worker_weight;
        for (int64_t n = rng_percent(r, 20) ? rng_range(r, 2, 3) : 1; n > 0; n--) {
            pos += rng_range(r, 1000, 20000);
            pos = osrt_call(g, ct, (enum osrt_fn)rng_weighted(r, weights, OS__COUNT), pos, ACT_HOST);
        }
    }
    return pos + host_work(r);
}

/* --- start-up and shut-down ----------------------------------------------------------- */

/* lscpu, started by the first process: a few file reads, then it exits. Generated whole. */
static void child_process(struct gen *g, int64_t start)
{
    struct cpu_thread *ct = &g->cthreads[g->child];
    struct rng *r = &g->cpu_rng;
    int weights[OS__COUNT];
    for (size_t f = 0; f < OS__COUNT; f++)
        weights[f] = osrt_defs[f].child_weight;
    cpu_intent(g, ct, start, IN_WAKE);
    cpu_act(g, ct, start, ACT_HOST);
    int64_t pos = start + rng_range(r, 20000, 80000);
    push_osrt_instant(g, ct, OS_STARTED, pos);
    for (int64_t n = rng_range(r, 6, 14); n > 0; n--) {
        int64_t gap = rng_log_range(r, 20000, 300000);
        if (rng_percent(r, 30)) { /* waits for the disk */
            cpu_intent(g, ct, pos + rng_range(r, 1000, 5000), IN_BLOCK);
            cpu_intent(g, ct, pos + gap - rng_range(r, 1000, 5000), IN_WAKE);
        }
        pos = osrt_call(g, ct, (enum osrt_fn)rng_weighted(r, weights, OS__COUNT), pos + gap, ACT_HOST);
    }
    pos += rng_range(r, 20000, 100000);
    push_osrt_instant(g, ct, OS_FINISHED, pos);
    push_osrt_instant(g, ct, OS_FINISHED, pos + rng_range(r, 1000, 3000));
    cpu_intent(g, ct, pos + rng_range(r, 5000, 20000), IN_EXIT);
}

/* The main thread's start-up before its first CUDA call, from `t0`: imports, the first
 * process forks lscpu, the autograd threads are created, then CUDA initialisation creates
 * cuda-EvtHandlr and the CUPTI worker thread. Returns its end. With g->dry set it only makes
 * the same draws, to learn the length beforehand. */
static int64_t process_startup(struct gen *g, size_t p, int64_t t0)
{
    struct rng *r = &g->cpu_rng;
    size_t main_index = p * (size_t)g->opt.threads;
    struct cpu_thread *ct = &g->cthreads[main_index];
    size_t helpers = g->nthreads + 3 * p; /* [NSys], CUPTI worker thread, cuda-EvtHandlr */
    cpu_intent(g, ct, t0, IN_WAKE);
    cpu_act(g, ct, t0, ACT_HOST);
    int64_t pos = t0 + rng_log_range(r, 80000, 400000);
    if (p == 0) {
        pos = osrt_call(g, ct, OS_FORK, pos + rng_range(r, 5000, 40000), ACT_HOST);
        child_process(g, pos - rng_range(r, 20000, 60000)); /* runs before fork returns here */
    }
    /* threads - 1 autograd threads, then cuda-EvtHandlr and the CUPTI worker thread */
    for (int64_t k = 1; k <= g->opt.threads + 1; k++) {
        bool cuda = k >= g->opt.threads;
        pos += rng_range(r, 5000, 40000); /* one draw per statement (evaluation order) */
        if (k == g->opt.threads)
            pos += rng_log_range(r, 50000, 300000);
        pos = osrt_call(g, ct, cuda ? OS_PTHREAD_CREATE_CUDA : OS_PTHREAD_CREATE, pos, ACT_HOST);
        int64_t born = pos - rng_range(r, 2000, 10000);
        int64_t first_call = born + rng_range(r, 10000, 40000);
        if (g->dry)
            continue;
        if (cuda) {
            g->cthreads[helpers + (k == g->opt.threads ? 2 : 1)].next_wake = born;
        } else { /* an autograd thread runs from its birth; its CUDA calls start a bit later */
            struct thread *w = &g->threads[main_index + (size_t)k];
            w->free_at = max64(w->free_at, first_call);
            cpu_intent(g, &g->cthreads[main_index + (size_t)k], born, IN_WAKE);
            cpu_act(g, &g->cthreads[main_index + (size_t)k], born, ACT_HOST);
        }
    }
    return pos + rng_log_range(r, 100000, 600000);
}

static void init_cpu_thread(struct gen *g, size_t i, int64_t global_tid, enum cpu_role role, int32_t process)
{
    struct cpu_thread *ct = &g->cthreads[i];
    *ct = (struct cpu_thread){.global_tid = global_tid, .role = role, .process = process, .bound_cpu = -1,
                              .cpu = -1, .last_cpu = -1, .queued_activity = -1, .next_wake = INT64_MAX,
                              .wait_fn = OS__COUNT};
    ct->sampled = g->opt.samples_hz > 0 && role != ROLE_KWORKER;
    ct->sample_left = 1 + (int64_t)rng_below(&g->cpu_rng, (uint64_t)g->sample_period);
}

/* Before the simulation: the CPU-side threads, every process's start-up (which moves its
 * CUDA threads' first calls back), the helper threads' first wake-ups. */
static void cpu_setup(struct gen *g)
{
    struct rng *r = &g->cpu_rng;
    size_t nproc = (size_t)g->opt.processes;
    g->ncpus = (int32_t)(g->opt.sched_cpus ? g->opt.sched_cpus : SYSTEM_CPUS);
    g->sample_period = g->opt.samples_hz ? INT64_C(1000000000) / g->opt.samples_hz : INT64_C(1000000000);
    g->ncthreads = g->nthreads + 3 * nproc + 1 + (g->kworker != SIZE_MAX ? 1 : 0);
    g->cthreads = xcalloc(g->ncthreads, sizeof *g->cthreads);
    g->cpus = xcalloc((size_t)g->ncpus, sizeof *g->cpus);
    g->process_start = xcalloc(nproc, sizeof *g->process_start);
    g->process_end = xcalloc(nproc, sizeof *g->process_end);
    heap_init(&g->sched_events, sizeof(struct sched_key), sched_less);
    for (int32_t c = 0; c < g->ncpus; c++)
        g->cpus[c] = (struct cpu_core){.thread = -1, .bound_waiting = -1, .free_at = INT64_MIN};
    for (size_t i = 0; i < g->nthreads; i++) {
        const struct thread *t = &g->threads[i];
        init_cpu_thread(g, i, t->global_tid, t->index_in_process == 0 ? ROLE_MAIN : ROLE_WORKER,
                        (int32_t)t->process);
    }
    for (size_t p = 0; p < nproc; p++) {
        const struct process *pr = &g->processes[p];
        int64_t tid = pr->pid + g->opt.threads;
        init_cpu_thread(g, g->nthreads + 3 * p, pr->global_pid | tid, ROLE_NSYS, (int32_t)p);
        init_cpu_thread(g, g->nthreads + 3 * p + 1, pr->global_pid | (tid + 1), ROLE_CUPTI, (int32_t)p);
        g->cthreads[g->nthreads + 3 * p + 1].wait_fn = OS_SEM_TIMEDWAIT;
        init_cpu_thread(g, g->nthreads + 3 * p + 2, pr->global_pid | (tid + 2), ROLE_EVT, (int32_t)p);
        g->cthreads[g->nthreads + 3 * p + 2].wait_fn = OS_POLL;
    }
    init_cpu_thread(g, g->child, global_pid(g->child_pid) | g->child_pid, ROLE_CHILD, 0);
    if (g->kworker != SIZE_MAX) {
        init_cpu_thread(g, g->kworker, global_pid(g->kworker_pid) | g->kworker_pid, ROLE_KWORKER, -1);
        g->cthreads[g->kworker].bound_cpu = g->kworker_cpu;
    }

    int64_t first_start = INT64_MAX;
    for (size_t p = 0; p < nproc; p++) {
        size_t main_index = p * (size_t)g->opt.threads;
        struct rng saved = *r;
        g->dry = true;
        int64_t length = process_startup(g, p, 0);
        g->dry = false;
        *r = saved;
        /* without --negative-ts the start-up lies after 0 and CUDA calls start after it */
        int64_t shift = g->opt.negative_ts ? 0 : length + 1500000;
        for (int64_t k = 0; k < g->opt.threads; k++)
            g->threads[main_index + (size_t)k].free_at += shift;
        int64_t t0 = g->threads[main_index].free_at - length;
        if (process_startup(g, p, t0) != t0 + length) /* same draws as the dry run */
            die("internal error: start-up length changed");
        int64_t start = t0 - rng_range(r, 300000, 1200000);
        g->process_start[p] = start;
        first_start = min64(first_start, start);
        push_osrt_instant(g, &g->cthreads[main_index], OS_STARTED, start + rng_range(r, 50000, 200000));
        g->cthreads[g->nthreads + 3 * p].next_wake = start + rng_range(r, 10000, 80000); /* [NSys] */
    }
    if (g->kworker != SIZE_MAX)
        g->cthreads[g->kworker].next_wake = first_start + rng_range(r, 0, 3000000);
    update_flush_floor(g);
}

/* A helper thread of an ending process: its cycles up to `stop`, its wait cut short, its
 * later plans dropped, then it exits. */
static void helper_stop(struct gen *g, struct cpu_thread *ct, int64_t stop)
{
    while (ct->next_wake <= stop)
        helper_cycle(g, ct);
    if (ct->call_pending) {
        if (ct->call_start <= stop - 1000)
            finish_helper_call(g, ct, stop);
        ct->call_pending = false;
    }
    while (ct->intents.count && queue_back(&ct->intents)->at > stop)
        ct->intents.count--;
    ct->next_wake = INT64_MAX;
    cpu_intent(g, ct, stop + rng_range(&g->cpu_rng, 2000, 10000), IN_EXIT);
}

/* After the simulation: each process ends after its last CUDA call (helper threads first,
 * the main thread last, "profiling finished" twice just before), then everything left is
 * replayed. */
static void cpu_finish(struct gen *g)
{
    struct rng *r = &g->cpu_rng;
    int64_t last = INT64_MIN;
    for (size_t p = 0; p < (size_t)g->opt.processes; p++) {
        int64_t end = INT64_MIN;
        for (int64_t k = 0; k < g->opt.threads; k++)
            end = max64(end, g->threads[p * (size_t)g->opt.threads + (size_t)k].free_at);
        g->process_end[p] = end;
        last = max64(last, end);
    }
    for (size_t p = 0; p < (size_t)g->opt.processes; p++) {
        int64_t end = g->process_end[p];
        size_t main_index = p * (size_t)g->opt.threads;
        for (size_t h = 0; h < 3; h++)
            helper_stop(g, &g->cthreads[g->nthreads + 3 * p + h], end + rng_range(r, 20000, 200000));
        for (int64_t k = 1; k < g->opt.threads; k++)
            cpu_intent(g, &g->cthreads[main_index + (size_t)k], end + rng_range(r, 20000, 200000), IN_EXIT);
        int64_t finished = end + rng_range(r, 250000, 350000);
        push_osrt_instant(g, &g->cthreads[main_index], OS_FINISHED, finished);
        push_osrt_instant(g, &g->cthreads[main_index], OS_FINISHED, finished + rng_range(r, 1000, 3000));
        cpu_intent(g, &g->cthreads[main_index], end + rng_range(r, 400000, 900000), IN_EXIT);
    }
    if (g->kworker != SIZE_MAX) { /* keeps its cycles whole: it does not exit */
        struct cpu_thread *ct = &g->cthreads[g->kworker];
        while (ct->next_wake <= last + 1000000)
            helper_cycle(g, ct);
    }
    update_flush_floor(g);
    sched_run(g, INT64_MAX);
    for (size_t i = 0; i < g->ncthreads; i++)
        if (g->sched_on && g->cthreads[i].state != RS_OFF)
            die("internal error: thread %" PRId64 " still scheduled at the end", g->cthreads[i].global_tid);
}

static void cpu_free_all(struct gen *g)
{
    for (size_t i = 0; i < g->ncthreads; i++) {
        free(g->cthreads[i].intents.items);
        free(g->cthreads[i].acts.items);
    }
    free(g->cthreads);
    free(g->cpus);
    free(g->run_queue.items);
    free(g->process_start);
    free(g->process_end);
    heap_free(&g->sched_events);
}

/* Mostly back-to-back calls from a host loop, sometimes host-side work in between. */
static int64_t cpu_gap(struct gen *g)
{
    return rng_percent(&g->rng, 2) ? rng_log_range(&g->rng, 50000, 2000000) : rng_range(&g->rng, 300, 6000);
}

static void simulate(struct gen *g)
{
    heap_init(&g->ready_threads, sizeof(struct thread_key), thread_less);
    heap_init(&g->pending_rows, sizeof(struct row), row_less);
    if (g->cpu_on)
        cpu_setup(g);
    for (size_t i = 0; i < g->nthreads; i++)
        heap_push(&g->ready_threads, &(struct thread_key){g->threads[i].free_at, i});

    /* Always advance the thread that is free earliest: its next call starts no earlier
     * than anything still to be generated. */
    while (g->rows_planned < g->opt.events || g->graph_launches_left > 0) {
        struct thread_key key;
        heap_pop(&g->ready_threads, &key);
        struct thread *t = &g->threads[key.index];
        int64_t step_start = t->free_at;
        if (g->cpu_on) {
            cpu_advance(g, step_start);
            flush_rows(g, min64(step_start, g->flush_floor));
        } else {
            flush_rows(g, step_start);
        }
        int64_t returned;
        /* Past the requested row count, only graph launches are left to issue (and then
         * all are due): threads of processes that have none left retire. */
        if (graph_launch_due(g, t->process))
            returned = issue_graph_launch(g, t);
        else if (g->rows_planned >= g->opt.events)
            continue;
        else switch ((enum op)rng_weighted(&g->rng, op_weights, OP__COUNT)) {
        case OP_KERNEL: returned = issue_kernel(g, t); break;
        case OP_MEMCPY: returned = issue_memcpy(g, t); break;
        case OP_MEMSET: returned = issue_memset(g, t); break;
        case OP_SYNC: returned = issue_sync(g, t); break;
        default: returned = issue_misc(g, t); break;
        }
        t->free_at = returned + cpu_gap(g);
        int64_t gap_end = t->free_at;
        if (g->cpu_on)
            t->free_at = cpu_step(g, t, step_start, returned, t->free_at);
        if (g->host_on)
            host_step_end(g, t, gap_end);
        if (g->nvtx_on)
            nvtx_step(g, t, step_start, returned, gap_end);
        heap_push(&g->ready_threads, &(struct thread_key){t->free_at, key.index});
    }
    if (g->cpu_on)
        cpu_finish(g);
    flush_rows(g, INT64_MAX);
}

/* ------------------------------------------------------------------------------------
 * Command line
 * ---------------------------------------------------------------------------------- */

enum opt_kind { OPT_INT, OPT_SEED, OPT_SCHEMA, OPT_FLAG, OPT_HELP };

struct opt_def {
    char short_name; /* 0: long form only */
    const char *long_name;
    enum opt_kind kind;
    size_t offset; /* field in struct options */
    int64_t min, max;
};

static const struct opt_def opt_defs[] = {
    {'s', "seed", OPT_SEED, offsetof(struct options, seed), 0, 0},
    {'n', "events", OPT_INT, offsetof(struct options, events), 1, INT64_C(1000000000000)},
    {0, "schema", OPT_SCHEMA, offsetof(struct options, schema), 0, 0},
    {0, "gpus", OPT_INT, offsetof(struct options, gpus), 1, 16},
    {0, "processes", OPT_INT, offsetof(struct options, processes), 1, 64},
    {0, "threads", OPT_INT, offsetof(struct options, threads), 1, 32},
    {0, "streams", OPT_INT, offsetof(struct options, streams), 1, 32},
    {0, "overlap-pct", OPT_INT, offsetof(struct options, overlap_pct), 0, 100},
    {0, "negative-ts", OPT_FLAG, offsetof(struct options, negative_ts), 0, 0},
    {0, "graphs", OPT_INT, offsetof(struct options, graphs), 0, 10000},
    {0, "graph-trace", OPT_FLAG, offsetof(struct options, graph_trace), 0, 0},
    {0, "nvtx-stream-names", OPT_FLAG, offsetof(struct options, nvtx_stream_names), 0, 0},
    {0, "nvtx", OPT_FLAG, offsetof(struct options, nvtx), 0, 0},
    {0, "osrt", OPT_FLAG, offsetof(struct options, osrt), 0, 0},
    {0, "sched", OPT_INT, offsetof(struct options, sched_cpus), 1, 256},
    {0, "samples", OPT_INT, offsetof(struct options, samples_hz), 1, 100000},
    {0, "gpu-metrics", OPT_INT, offsetof(struct options, gpu_metrics_hz), 10, 200000},
    {0, "memory-usage", OPT_FLAG, offsetof(struct options, memory_usage), 0, 0},
    {0, "libraries", OPT_FLAG, offsetof(struct options, libraries), 0, 0},
    {0, "mpi", OPT_FLAG, offsetof(struct options, mpi), 0, 0},
    {0, "openacc", OPT_FLAG, offsetof(struct options, openacc), 0, 0},
    {0, "openmp", OPT_FLAG, offsetof(struct options, openmp), 0, 0},
    {0, "um-faults", OPT_FLAG, offsetof(struct options, um_faults), 0, 0},
    {0, "diagnostics", OPT_FLAG, offsetof(struct options, diagnostics), 0, 0},
    {0, "all-tables", OPT_FLAG, offsetof(struct options, all_tables), 0, 0},
    {'v', "verbose", OPT_FLAG, offsetof(struct options, verbose), 0, 0},
    {'h', "help", OPT_HELP, 0, 0, 0},
};

static const struct opt_def *find_option(const char *arg, const char **inline_value)
{
    *inline_value = NULL;
    for (size_t i = 0; i < ARRAY_LEN(opt_defs); i++) {
        const struct opt_def *d = &opt_defs[i];
        if (arg[1] == '-') {
            size_t n = strlen(d->long_name);
            if (strncmp(arg + 2, d->long_name, n) == 0 && (arg[2 + n] == '\0' || arg[2 + n] == '=')) {
                if (arg[2 + n] == '=')
                    *inline_value = arg + 3 + n;
                return d;
            }
        } else if (d->short_name && arg[1] == d->short_name) {
            if (arg[2])
                *inline_value = arg + 2;
            return d;
        }
    }
    die("unknown option '%s' (try --help)", arg);
}

static void set_option(struct options *o, const struct opt_def *d, const char *value)
{
    void *field = (char *)o + d->offset;
    char *end;
    errno = 0;
    switch (d->kind) {
    case OPT_SEED: {
        unsigned long long seed = strtoull(value, &end, 0);
        if (errno || end == value || *end || value[0] == '-')
            die("--%s: '%s' is not a non-negative integer", d->long_name, value);
        *(uint64_t *)field = seed;
        break;
    }
    case OPT_INT: {
        long long n = strtoll(value, &end, 10);
        if (errno || end == value || *end || n < d->min || n > d->max)
            die("--%s: '%s' is not an integer in [%" PRId64 ", %" PRId64 "]", d->long_name, value, d->min, d->max);
        *(int64_t *)field = n;
        break;
    }
    case OPT_SCHEMA:
        for (size_t i = 0; i < ARRAY_LEN(schemas); i++) {
            if (strcmp(value, schemas[i].name) == 0) {
                *(enum schema *)field = (enum schema)i;
                return;
            }
        }
        die("--schema: '%s' is not one of modern, 2022, legacy", value);
    case OPT_FLAG:
    case OPT_HELP:
        break;
    }
}

static struct options parse_options(int argc, char **argv)
{
    struct options o = {.seed = 1, .events = 10000, .gpus = 2, .processes = 2, .threads = 2,
                        .streams = 3, .schema = SCHEMA_MODERN};
    bool only_positional = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (only_positional || arg[0] != '-' || arg[1] == '\0') {
            if (o.out)
                die("more than one output file given");
            o.out = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_positional = true;
            continue;
        }
        const char *value;
        const struct opt_def *d = find_option(arg, &value);
        if (d->kind == OPT_HELP) {
            fputs(usage_text, stdout);
            exit(EXIT_SUCCESS);
        }
        if (d->kind == OPT_FLAG) {
            if (value)
                die("option '%s' takes no value", arg);
            *(bool *)((char *)&o + d->offset) = true;
            continue;
        }
        if (!value) {
            if (i + 1 >= argc)
                die("option '%s' needs a value", arg);
            value = argv[++i];
        }
        set_option(&o, d, value);
    }
    if (!o.out)
        die("no output file given (try --help)");
    if (o.graph_trace && o.schema != SCHEMA_MODERN)
        die("--graph-trace needs --schema modern");
    if (o.graph_trace && o.graphs == 0)
        die("--graph-trace needs --graphs N with N > 0");
    if (o.nvtx_stream_names && o.schema == SCHEMA_LEGACY)
        die("--nvtx-stream-names needs --schema modern or 2022");
    /* 2020.3 exports have NVTX_EVENTS too (the 3.0.0 columns), but not offered there, like the
     * further tables. */
    if (o.nvtx && o.schema == SCHEMA_LEGACY)
        die("--nvtx needs --schema modern or 2022");
    /* No 2020.3 export at hand has scheduling or sampling tables to copy their shape from. */
    if (o.sched_cpus && o.schema == SCHEMA_LEGACY)
        die("--sched needs --schema modern or 2022");
    if (o.samples_hz && o.schema == SCHEMA_LEGACY)
        die("--samples needs --schema modern or 2022");
    /* The further tables: 2020.3 exports have none of them; 2022.4 (3.0.0) has no MPI
     * tables and no DIAGNOSTIC_EVENT. --all-tables turns on what the schema has. */
    if (o.all_tables) {
        if (o.schema == SCHEMA_LEGACY)
            die("--all-tables needs --schema modern or 2022");
        if (!o.gpu_metrics_hz)
            o.gpu_metrics_hz = 1000;
        o.memory_usage = o.libraries = o.openacc = o.openmp = o.um_faults = true;
        if (o.schema == SCHEMA_MODERN)
            o.mpi = o.diagnostics = true;
    }
    const struct {
        bool on;
        const char *name;
        unsigned schemas;
    } further[] = {
        {o.gpu_metrics_hz > 0, "--gpu-metrics", S_NEW}, {o.memory_usage, "--memory-usage", S_NEW},
        {o.libraries, "--libraries", S_NEW},            {o.mpi, "--mpi", S_MODERN},
        {o.openacc, "--openacc", S_NEW},                {o.openmp, "--openmp", S_NEW},
        {o.um_faults, "--um-faults", S_NEW},            {o.diagnostics, "--diagnostics", S_MODERN},
    };
    for (size_t i = 0; i < ARRAY_LEN(further); i++)
        if (further[i].on && !(further[i].schemas & (1u << o.schema)))
            die("%s needs --schema modern%s", further[i].name, further[i].schemas & S_2022 ? " or 2022" : "");
    return o;
}

/* ------------------------------------------------------------------------------------
 * Main
 * ---------------------------------------------------------------------------------- */

static void open_output(struct gen *g)
{
    /* The output is ours: start from an empty file. */
    errno = 0;
    if (remove(g->opt.out) != 0 && errno != ENOENT)
        die("cannot replace %s: %s", g->opt.out, strerror(errno));
    if (sqlite3_open_v2(g->opt.out, &g->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        die("cannot create %s: %s", g->opt.out, g->db ? sqlite3_errmsg(g->db) : "out of memory");
    /* One transaction without journal or fsync: a failed run leaves garbage, which is
     * fine for a generated file and makes 10M rows take seconds. */
    exec_sql(g, "PRAGMA journal_mode=OFF");
    exec_sql(g, "PRAGMA synchronous=OFF");
    exec_sql(g, "PRAGMA locking_mode=EXCLUSIVE");
    exec_sql(g, "PRAGMA cache_size=-65536");
    exec_sql(g, "BEGIN");
}

static void close_output(struct gen *g)
{
    exec_sql(g, "COMMIT");
    for (size_t i = 0; i < T__COUNT; i++)
        table_close(&g->tables[i]);
    if (sqlite3_close(g->db) != SQLITE_OK)
        die("cannot close %s: %s", g->opt.out, sqlite3_errmsg(g->db));
    g->db = NULL;
}

static void report(const struct gen *g, double seconds)
{
    fprintf(stderr, "nsys-fixture: %s schema, seed %" PRIu64 ", %.2f s\n", g->info->name, g->opt.seed, seconds);
    for (size_t i = 0; i < T__COUNT; i++)
        if (g->tables[i].rows)
            fprintf(stderr, "  %-36s %12" PRId64 "\n", table_defs[i].name, g->tables[i].rows);
    fprintf(stderr, "  event rows %" PRId64 ", overlapping kernels %" PRId64 ", last end %" PRId64 " ns\n",
            g->rows_planned, g->overlapping_kernels, g->max_end);
    if (g->opt.graphs)
        fprintf(stderr, "  graph launches %" PRId64 " per process, %zu graphs per process\n", g->opt.graphs,
                g->processes[0].ngraphs);
    if (g->cpu_on) {
        double n = (double)(g->rows_planned ? g->rows_planned : 1);
        fprintf(stderr, "  CPU side: OSRT %.1f%%, sched %.1f%%, samples %.1f%% of event rows, %" PRId32 " CPUs\n",
                100.0 * (double)g->osrt_rows / n, 100.0 * (double)g->sched_rows / n,
                100.0 * (double)g->sample_rows / n, g->ncpus);
    }
    if (g->nvtx_on)
        fprintf(stderr, "  NVTX %.1f%% of event rows\n",
                100.0 * (double)g->nvtx_rows / (double)(g->rows_planned ? g->rows_planned : 1));
}

static void gen_free(struct gen *g)
{
    for (size_t i = 0; i < g->strings.count; i++)
        free(g->strings.items[i]);
    free(g->strings.items);
    free(g->processes);
    free(g->threads);
    free(g->streams);
    free(g->graphs);
    free(g->next_grid_id);
    heap_free(&g->ready_threads);
    heap_free(&g->pending_rows);
    if (g->cpu_on)
        cpu_free_all(g);
    for (size_t i = 0; i < g->nxtexts; i++)
        free(g->xtexts[i]);
    free(g->xtexts);
    free(g->xrows);
    free(g->hthreads);
    for (size_t p = 0; g->hprocs && p < (size_t)g->opt.processes; p++) {
        free(g->hprocs[p].live);
        free(g->hprocs[p].next_address);
    }
    free(g->hprocs);
    for (size_t d = 0; g->gm_bins && d < (size_t)g->opt.gpus; d++)
        free(g->gm_bins[d]);
    free(g->gm_bins);
    free(g->gm_nbins);
    if (g->nvtx_on) {
        for (size_t p = 0; p < (size_t)g->opt.processes; p++)
            free(g->nvtx_procs[p].pending);
        free(g->nvtx_procs);
        free(g->nvtx_threads);
        heap_free(&g->nvtx_heap);
    }
}

int main(int argc, char **argv)
{
    struct gen g = {.opt = parse_options(argc, argv), .max_end = INT64_MIN};
    clock_t t0 = clock();
    g.info = &schemas[g.opt.schema];
    g.mask = 1u << g.opt.schema;
    g.rng.state = g.opt.seed;
    for (size_t i = 0; i < T__COUNT; i++)
        g.tables[i].def = &table_defs[i];

    open_output(&g);
    setup_topology(&g);
    setup_cpu_config(&g);
    setup_features(&g);
    setup_nvtx(&g);
    setup_strings(&g);
    write_string_ids(&g);
    write_metadata(&g);
    write_session_start(&g);
    write_processes(&g);
    write_thread_names(&g);
    write_gpus(&g);
    write_cuda_gpus(&g);
    write_streams(&g);
    write_contexts(&g);
    write_nvtx_names(&g);
    if (g.mask & S_NEW)
        write_enums(&g);
    simulate(&g);
    nvtx_finish(&g);
    finish_further_tables(&g);
    write_analysis_details(&g);
    close_output(&g);

    if (g.opt.verbose)
        report(&g, (double)(clock() - t0) / CLOCKS_PER_SEC);
    gen_free(&g);
    return EXIT_SUCCESS;
}
