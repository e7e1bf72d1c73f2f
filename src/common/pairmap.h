/* An open-addressing hash map from a pair of int64 to uint64 that can also
 * remove entries, for state that must shrink again (pending flows), where
 * hmap only grows. */
#ifndef NSYSP_COMMON_PAIRMAP_H
#define NSYSP_COMMON_PAIRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pairmap_slot {
    int64_t a, b;
    uint64_t value;
    bool used;
} pairmap_slot;

typedef struct pairmap {
    pairmap_slot *slots;
    size_t mask;
    size_t count;
} pairmap;

void pairmap_free(pairmap *m);
/* The value slot of (a, b), inserted as 0 when absent. */
uint64_t *pairmap_upsert(pairmap *m, int64_t a, int64_t b);
uint64_t *pairmap_find(const pairmap *m, int64_t a, int64_t b);
void pairmap_remove(pairmap *m, int64_t a, int64_t b);

#endif
