/* nsys packs ids into 64-bit integers: globalTid = hardware/VM id (bits
 * 63..48), PID (47..24), TID (23..0); a globalPid is the same with the TID
 * bits zero. Correlation ids, stream ids and NVTX domain ids are unique only
 * within a process, so keys built from them must include the globalPid. */
#ifndef NSYSP_NSYS_IDS_H
#define NSYSP_NSYS_IDS_H

#include <stdint.h>

static inline int32_t nsys_pid_of(int64_t global_tid)
{
    return (int32_t)(((uint64_t)global_tid >> 24) & 0xFFFFFF);
}

static inline int32_t nsys_tid_of(int64_t global_tid)
{
    return (int32_t)((uint64_t)global_tid & 0xFFFFFF);
}

static inline int64_t nsys_global_pid_of(int64_t global_tid)
{
    return (int64_t)((uint64_t)global_tid & 0xFFFFFFFFFF000000ull);
}

/* The same masks for fixed SQL: globalTid & NSYS_GPID_MASK_SQL is the
 * globalPid, & NSYS_PID_MASK_SQL the PID still shifted by 24. */
#define NSYS_GPID_MASK_SQL "0xFFFFFFFFFF000000"
#define NSYS_PID_MASK_SQL "0x0000FFFFFF000000"

#endif
