/* An open-addressing hash map from byte-string keys to uint64 values.
 *
 * Keys are copied into the map's own arena, so callers may pass stack
 * buffers (a string, or a few integers packed side by side for a tuple key).
 * Memory grows with the number of distinct keys only. */
#ifndef NSYSP_COMMON_HMAP_H
#define NSYSP_COMMON_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hmap_slot {
    uint64_t hash;          /* 0 marks an empty slot */
    const uint8_t *key;
    size_t key_len;
    uint64_t value;
} hmap_slot;

typedef struct hmap_chunk hmap_chunk;

typedef struct hmap {
    hmap_slot *slots;
    size_t mask;            /* capacity - 1; capacity is a power of two */
    size_t count;
    hmap_chunk *arena;      /* key storage */
} hmap;

void hmap_init(hmap *m);
void hmap_free(hmap *m);

/* Returns a pointer to the value of key, or NULL when absent. The pointer is
 * valid until the next insertion. */
uint64_t *hmap_find(const hmap *m, const void *key, size_t key_len);

/* Returns the value slot of key, inserting it with value 0 when absent
 * (*inserted tells which). Valid until the next insertion. */
uint64_t *hmap_upsert(hmap *m, const void *key, size_t key_len, bool *inserted);

/* The stored copy of a key, for callers that want to keep the string. */
const char *hmap_key_of(const hmap *m, const uint64_t *value_slot);

uint64_t hmap_hash(const void *key, size_t len);

#endif
