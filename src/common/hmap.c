#include "hmap.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

struct hmap_chunk {
    hmap_chunk *next;
    size_t used, cap;
    uint8_t data[];
};

enum { ARENA_CHUNK = 64 * 1024 };

static const uint8_t *arena_copy(hmap *m, const void *key, size_t len)
{
    /* One spare byte so string keys stay NUL-terminated for hmap_key_of. */
    size_t need = len + 1;
    hmap_chunk *c = m->arena;
    if (!c || c->cap - c->used < need) {
        size_t cap = need > ARENA_CHUNK ? need : ARENA_CHUNK;
        c = xmalloc(sizeof *c + cap);
        c->next = m->arena;
        c->used = 0;
        c->cap = cap;
        m->arena = c;
    }
    uint8_t *dst = c->data + c->used;
    memcpy(dst, key, len);
    dst[len] = '\0';
    c->used += need;
    return dst;
}

/* A 64-bit hash with good mixing on short keys (names, integer tuples);
 * never returns 0, which marks empty slots. */
uint64_t hmap_hash(const void *key, size_t len)
{
    const uint8_t *p = key;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (len * 0xC2B2AE3D27D4EB4Full);
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ (w * 0xFF51AFD7ED558CCDull)) * 0xC4CEB9FE1A85EC53ull;
        h ^= h >> 29;
        p += 8;
        len -= 8;
    }
    uint64_t tail = 0;
    memcpy(&tail, p, len);
    h = (h ^ (tail * 0xFF51AFD7ED558CCDull)) * 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 32;
    return h ? h : 1;
}

void hmap_init(hmap *m)
{
    memset(m, 0, sizeof *m);
}

void hmap_free(hmap *m)
{
    free(m->slots);
    for (hmap_chunk *c = m->arena; c;) {
        hmap_chunk *next = c->next;
        free(c);
        c = next;
    }
    memset(m, 0, sizeof *m);
}

static hmap_slot *probe(const hmap *m, uint64_t h, const void *key, size_t len)
{
    for (size_t i = h & m->mask;; i = (i + 1) & m->mask) {
        hmap_slot *s = &m->slots[i];
        if (s->hash == 0)
            return s;
        if (s->hash == h && s->key_len == len && memcmp(s->key, key, len) == 0)
            return s;
    }
}

static void grow(hmap *m)
{
    size_t old_cap = m->slots ? m->mask + 1 : 0;
    size_t cap = old_cap ? old_cap * 2 : 64;
    hmap_slot *old = m->slots;
    m->slots = xcalloc(cap, sizeof *m->slots);
    m->mask = cap - 1;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].hash == 0)
            continue;
        size_t j = old[i].hash & m->mask;
        while (m->slots[j].hash != 0)
            j = (j + 1) & m->mask;
        m->slots[j] = old[i];
    }
    free(old);
}

uint64_t *hmap_find(const hmap *m, const void *key, size_t key_len)
{
    if (!m->slots)
        return NULL;
    hmap_slot *s = probe(m, hmap_hash(key, key_len), key, key_len);
    return s->hash ? &s->value : NULL;
}

uint64_t *hmap_upsert(hmap *m, const void *key, size_t key_len, bool *inserted)
{
    /* Keep the load factor under 1/2 so probe chains stay short. */
    if (!m->slots || (m->count + 1) * 2 > m->mask + 1)
        grow(m);
    uint64_t h = hmap_hash(key, key_len);
    hmap_slot *s = probe(m, h, key, key_len);
    if (s->hash == 0) {
        s->hash = h;
        s->key = arena_copy(m, key, key_len);
        s->key_len = key_len;
        s->value = 0;
        m->count++;
        if (inserted)
            *inserted = true;
    } else if (inserted) {
        *inserted = false;
    }
    return &s->value;
}

const char *hmap_key_of(const hmap *m, const uint64_t *value_slot)
{
    (void)m;
    const hmap_slot *s = (const hmap_slot *)((const char *)value_slot - offsetof(hmap_slot, value));
    return (const char *)s->key;
}
