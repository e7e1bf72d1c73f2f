/* The Kineto JSON writer: a second encoding of what the track builder
 * writes (a pw_backend, pw_writer.h), as PyTorch's profiler writes its
 * Chrome trace JSON, so that HTA, TraceLens, chrome://tracing and
 * Perfetto's JSON importer read it.
 *
 * Where events go. JSON has no track tree, only (pid, tid) pairs: a track
 * is placed by its pw_chrome_place or its parent's. CPU rows take their
 * process and thread; GPU rows take the device as pid and, for a stream's
 * work, the stream as tid (Kineto's choice); other rows (NVTX start/end,
 * syncs, projected NVTX, graph ranges) a tid of their own from 2^30 up.
 * Each event lands in the file of its process's rank (kineto_files.h);
 * rows of a GPU that belong to no process in the file of the rank on that
 * GPU; the rest in the report's first file.
 *
 * Nesting. JSON importers nest complete events by time on their thread,
 * and a slice that partially overlaps another on one (pid, tid) is an
 * import error in Perfetto (it sorts by start, longer first). Several of
 * our rows share a thread there (a thread's CUDA API, NVTX and OS runtime
 * rows), so each (pid, tid) keeps the stack of its open slices, and a
 * slice that would not nest goes to an overflow thread beside it, named
 * after it. Memory grows with open slices and rows, not with events.
 *
 * Slices are written whole when they begin (their end is known then:
 * pw_event.end), as "X" events with ts and dur in microseconds to three
 * decimals, the exact nanoseconds. Flows are Kineto's "ac2g" s/f pairs,
 * from whichever end comes first. Counters are "C" events, instants "i". */
#ifndef NSYSP_KINETO_KINETO_WRITER_H
#define NSYSP_KINETO_KINETO_WRITER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "kineto_files.h"
#include "nsys/nsys_meta.h"
#include "perfetto/pw_writer.h"

typedef struct kineto_writer kineto_writer;

/* Opens every file of files (each written to a temporary file until the
 * writer finishes) and writes its header: the report's GPUs as
 * deviceProperties (metas[report]), distributedInfo, and
 * baseTimeNanoseconds (the UTC time of ts 0; INT64_MIN leaves it out).
 * files must outlive the writer. NULL on failure, with err set. */
kineto_writer *kineto_writer_new(const kineto_files *files, const char *const *inputs,
                                 const nsys_meta *const *metas, int64_t base_utc_ns,
                                 int compress_level, size_t compressors,
                                 volatile sig_atomic_t *cancel, buf *err);

/* The events written from now on are of report index (merged reports
 * come one after the other). */
void kineto_writer_set_report(kineto_writer *w, size_t report);

/* The backend that writes into w; its finish frees w. */
pw_backend kineto_writer_backend(kineto_writer *w);

/* Events left out so far (CPU samples, context switches). */
uint64_t kineto_writer_not_written(const kineto_writer *w);

#endif
