/* A pool of 64-bit keys (the content keys of a previous world's brushes), each of which
 * can be taken once: the brushes of a new world find their copies in the old one with it,
 * a brush appearing twice taking two copies. */
#ifndef AL_KEY_POOL_H
#define AL_KEY_POOL_H

#include <stdbool.h>
#include <stdint.h>

typedef struct al_key_pool {
    const uint64_t *keys; /* NULL: the pool is empty */
    int32_t *head;        /* per bucket: the first index with a key in it, -1 */
    int32_t *next;        /* per index */
    uint8_t *taken;       /* per index */
    uint64_t mask;
} al_key_pool;

/* P over the COUNT keys at KEYS, which must outlive it (KEYS NULL: an empty pool). False
 * if memory runs out; P is then empty and may still be freed. */
bool al_key_pool_init(al_key_pool *p, const uint64_t *keys, int32_t count);

/* The index of a key equal to KEY not yet taken, now taken; -1 if there is none. */
int32_t al_key_pool_take(al_key_pool *p, uint64_t key);

/* Whether index I has been taken. */
static inline bool al_key_pool_taken(const al_key_pool *p, int32_t i)
{
    return p->taken && p->taken[i];
}

void al_key_pool_free(al_key_pool *p);

#endif
