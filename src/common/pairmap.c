#include "pairmap.h"

#include <stdlib.h>

#include "hmap.h"
#include "xalloc.h"

static size_t home(const pairmap *m, int64_t a, int64_t b)
{
    int64_t key[2] = {a, b};
    return hmap_hash(key, sizeof key) & m->mask;
}

void pairmap_free(pairmap *m)
{
    free(m->slots);
    m->slots = NULL;
    m->mask = m->count = 0;
}

uint64_t *pairmap_find(const pairmap *m, int64_t a, int64_t b)
{
    if (!m->slots)
        return NULL;
    for (size_t i = home(m, a, b);; i = (i + 1) & m->mask) {
        pairmap_slot *s = &m->slots[i];
        if (!s->used)
            return NULL;
        if (s->a == a && s->b == b)
            return &s->value;
    }
}

static void grow(pairmap *m)
{
    size_t old_cap = m->slots ? m->mask + 1 : 0;
    pairmap_slot *old = m->slots;
    size_t cap = old_cap ? old_cap * 2 : 64;
    m->slots = xcalloc(cap, sizeof *m->slots);
    m->mask = cap - 1;
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].used)
            continue;
        size_t j = home(m, old[i].a, old[i].b);
        while (m->slots[j].used)
            j = (j + 1) & m->mask;
        m->slots[j] = old[i];
    }
    free(old);
}

uint64_t *pairmap_upsert(pairmap *m, int64_t a, int64_t b)
{
    uint64_t *v = pairmap_find(m, a, b);
    if (v)
        return v;
    if (!m->slots || (m->count + 1) * 2 > m->mask + 1)
        grow(m);
    size_t i = home(m, a, b);
    while (m->slots[i].used)
        i = (i + 1) & m->mask;
    m->slots[i] = (pairmap_slot){.a = a, .b = b, .value = 0, .used = true};
    m->count++;
    return &m->slots[i].value;
}

void pairmap_remove(pairmap *m, int64_t a, int64_t b)
{
    uint64_t *v = pairmap_find(m, a, b);
    if (!v)
        return;
    size_t i = (size_t)((pairmap_slot *)((char *)v - offsetof(pairmap_slot, value)) - m->slots);
    m->slots[i].used = false;
    m->count--;
    /* Backward-shift deletion: move later members of the probe run into
     * the hole so lookups never stop early. */
    for (size_t j = (i + 1) & m->mask; m->slots[j].used; j = (j + 1) & m->mask) {
        size_t h = home(m, m->slots[j].a, m->slots[j].b);
        bool movable = i <= j ? (h <= i || h > j) : (h <= i && h > j);
        if (movable) {
            m->slots[i] = m->slots[j];
            m->slots[j].used = false;
            i = j;
        }
    }
}
