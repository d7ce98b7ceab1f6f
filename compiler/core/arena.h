/* Arena: bump allocation with marks, for the compiler's short-lived geometry.
 *
 * A BSP build allocates millions of small windings and index arrays whose lifetimes nest
 * exactly like the recursion (everything a subtree allocated is garbage once the subtree's
 * nodes are emitted). al_arena_mark / al_arena_release give that stack discipline, so a
 * block's build holds only the memory of the path it is on. Chunks freed by a release are
 * kept for reuse, so a build does not churn malloc.
 *
 * An arena is used by one thread at a time.
 */
#ifndef AL_ARENA_H
#define AL_ARENA_H

#include <stddef.h>

typedef struct al_arena al_arena;

typedef struct al_arena_mark {
    void *chunk;
    size_t used;
} al_arena_mark;

/* A new empty arena whose chunks are at least CHUNK_SIZE bytes (0: 1 MiB). NULL if memory
 * runs out. */
al_arena *al_arena_create(size_t chunk_size);

/* Frees every chunk. NULL is a no-op. */
void al_arena_destroy(al_arena *arena);

/* SIZE bytes aligned to 16, uninitialised; NULL if memory runs out. */
void *al_arena_alloc(al_arena *arena, size_t size);

/* As al_arena_alloc, zero-filled. */
void *al_arena_calloc(al_arena *arena, size_t count, size_t size);

al_arena_mark al_arena_get_mark(const al_arena *arena);

/* Frees everything allocated since MARK was taken (the chunks are kept for reuse). */
void al_arena_release(al_arena *arena, al_arena_mark mark);

/* Bytes handed out and not released. */
size_t al_arena_used(const al_arena *arena);

/* Most bytes ever handed out at once. */
size_t al_arena_peak(const al_arena *arena);

#endif
