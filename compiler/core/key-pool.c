/* A pool of keys each taken once: chained buckets over a power-of-two table. */
#include "key-pool.h"

#include <stdlib.h>
#include <string.h>

bool al_key_pool_init(al_key_pool *p, const uint64_t *keys, int32_t count)
{
    memset(p, 0, sizeof *p);
    if (!keys || count < 0) return true;
    uint64_t size = 16;
    while (size < 2u * (uint64_t) count) size <<= 1;
    p->head = malloc(size * sizeof *p->head);
    p->next = malloc(((size_t) count + 1) * sizeof *p->next);
    p->taken = calloc((size_t) count + 1, 1);
    if (!p->head || !p->next || !p->taken) {
        al_key_pool_free(p);
        return false;
    }
    p->mask = size - 1;
    for (uint64_t i = 0; i < size; i++) p->head[i] = -1;
    for (int32_t i = count - 1; i >= 0; i--) {
        uint64_t bucket = keys[i] & p->mask;
        p->next[i] = p->head[bucket];
        p->head[bucket] = i;
    }
    p->keys = keys;
    return true;
}

int32_t al_key_pool_take(al_key_pool *p, uint64_t key)
{
    if (!p->keys) return -1;
    for (int32_t i = p->head[key & p->mask]; i >= 0; i = p->next[i])
        if (!p->taken[i] && p->keys[i] == key) {
            p->taken[i] = 1;
            return i;
        }
    return -1;
}

void al_key_pool_free(al_key_pool *p)
{
    free(p->head);
    free(p->next);
    free(p->taken);
    memset(p, 0, sizeof *p);
}
