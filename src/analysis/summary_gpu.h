/* The GPU time behind CUDA calls and NVTX ranges, for the summary.
 *
 * A call's GPU work is the kernels, memory copies and memory sets with its
 * (process, correlation id); correlation ids repeat across processes. A
 * range (or a cuBLAS/cuDNN call) covers the calls made on its thread that
 * start and end inside it, as NVIDIA's nvtxgpuproj report counts them; its
 * projection runs from the first covered operation's start to the last
 * one's end, whatever the device. Temporary tables hold the result:
 *
 *   temp.summary_calls(tid, start, end, nameId, first, last, busy)
 *     the CUDA calls that launched GPU work: its first start, last end and
 *     summed duration (busy);
 *   temp.summary_nvtx(id, tid, start, end, name, other_thread)
 *     every NVTX push/pop and start/end range: "DOMAIN:name" for ranges of
 *     a named domain, as nsys stats names them, a range still open ending
 *     at the last NVTX timestamp; other_thread when it ended on another
 *     thread than its own (a view);
 *   temp.summary_ranges(name, proj, busy)
 *     the NVTX ranges that covered some, on their own thread.
 *
 * All exist (maybe empty) once summary_gpu_build succeeded. */
#ifndef NSYSP_ANALYSIS_SUMMARY_GPU_H
#define NSYSP_ANALYSIS_SUMMARY_GPU_H

#include "nsys/nsys_db.h"

#define SUMMARY_CALLS_TABLE "temp.summary_calls"
#define SUMMARY_NVTX_VIEW "temp.summary_nvtx"
#define SUMMARY_RANGES_TABLE "temp.summary_ranges"

/* Returns an nsysp_status (err set on failure). */
int summary_gpu_build(nsys_db *db, buf *err);

#endif
