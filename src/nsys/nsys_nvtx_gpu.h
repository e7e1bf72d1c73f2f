/* NVTX ranges projected onto the GPU, as nsys-ui's NVTX rows under CUDA HW:
 * a range covers the GPU work launched by the CUDA API calls that start
 * inside it on the same thread; its GPU range runs from the first such
 * operation's start to the last one's end, per device.
 *
 * Computed once, before the events, from the GPU work counted per (process,
 * correlation id, device) for the flows (nsys_links.h): the NVTX ranges and the CUDA API calls are walked together in time order,
 * each thread's open ranges gathering the work of the calls made inside
 * them. Memory holds the open ranges only. The result is the temporary
 * table
 *
 *   nvtx_gpu_ranges(start, end, deviceId, ops, text, textId, domainId,
 *                   globalTid)
 *
 * which the nvtx-gpu source reads like any table. As in NVIDIA's own
 * projection, ranges that end on another thread are left out. */
#ifndef NSYSP_NSYS_NVTX_GPU_H
#define NSYSP_NSYS_NVTX_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "nsys_db.h"

#define NSYS_NVTX_GPU_TABLE "nvtx_gpu_ranges"

/* Builds the table when the report has NVTX ranges, CUDA calls and counted
 * GPU work (nsys_links_build first); ranges still open close at
 * report_end. The ranges and calls are read on n_readers reader threads
 * (nsys_readahead.h; 0: on this one). Returns an nsysp_status. */
int nsys_nvtx_gpu_build(nsys_db *db, const char *api_table, int64_t report_end, size_t n_readers,
                        buf *err);

#endif
