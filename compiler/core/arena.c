/* Arena with marks (see arena.h). Chunks form a singly linked list from the oldest; the
 * current chunk is the last one that holds allocations, later chunks are spares kept by a
 * release. */
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct chunk {
    struct chunk *next;
    size_t size; /* usable bytes after the header */
    size_t used;
    size_t before; /* bytes used in all earlier chunks, for al_arena_used */
    _Alignas(16) unsigned char data[];
} chunk;

struct al_arena {
    chunk *first;
    chunk *current;
    size_t chunk_size;
    size_t peak;
};

static chunk *make_chunk(size_t size)
{
    chunk *c = malloc(sizeof *c + size);
    if (!c) return NULL;
    c->next = NULL;
    c->size = size;
    c->used = 0;
    c->before = 0;
    return c;
}

al_arena *al_arena_create(size_t chunk_size)
{
    al_arena *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->chunk_size = chunk_size ? chunk_size : (size_t) 1 << 20;
    a->first = make_chunk(a->chunk_size);
    if (!a->first) {
        free(a);
        return NULL;
    }
    a->current = a->first;
    return a;
}

void al_arena_destroy(al_arena *arena)
{
    if (!arena) return;
    chunk *c = arena->first;
    while (c) {
        chunk *next = c->next;
        free(c);
        c = next;
    }
    free(arena);
}

void *al_arena_alloc(al_arena *arena, size_t size)
{
    size = (size + 15) & ~(size_t) 15;
    chunk *c = arena->current;
    while (c->used + size > c->size) {
        /* Move to the next spare chunk that fits, or append a new one. A spare that is too
         * small for this request is freed: it would otherwise be skipped forever. */
        chunk *next = c->next;
        if (next && next->size >= size) {
            next->used = 0;
            next->before = c->before + c->used;
            arena->current = c = next;
            continue;
        }
        size_t want = size > arena->chunk_size ? size : arena->chunk_size;
        chunk *fresh = make_chunk(want);
        if (!fresh) return NULL;
        fresh->next = next ? next->next : NULL;
        if (next) free(next);
        fresh->before = c->before + c->used;
        c->next = fresh;
        arena->current = c = fresh;
    }
    void *p = c->data + c->used;
    c->used += size;
    size_t total = c->before + c->used;
    if (total > arena->peak) arena->peak = total;
    return p;
}

void *al_arena_calloc(al_arena *arena, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) return NULL;
    void *p = al_arena_alloc(arena, count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

al_arena_mark al_arena_get_mark(const al_arena *arena)
{
    al_arena_mark m = {arena->current, arena->current->used};
    return m;
}

void al_arena_release(al_arena *arena, al_arena_mark mark)
{
    chunk *c = mark.chunk;
    c->used = mark.used;
    arena->current = c;
}

size_t al_arena_used(const al_arena *arena)
{
    return arena->current->before + arena->current->used;
}

size_t al_arena_peak(const al_arena *arena)
{
    return arena->peak;
}
