/* One block of memory for a deep copy that is freed with one free(): the copy's size is
 * added up first (each part rounded up with al_block_round), the block allocated, and the
 * parts taken from it in the same order; strings go at its end.
 *
 *   size_t size = al_block_round(sizeof *out) + al_block_round(n * sizeof *items) + texts;
 *   al_one_block b = {malloc(size), 0};
 *   out = al_block_take(&b, sizeof *out);
 *   char *text = b.base + ...;  name = al_block_put_text(&text, name);
 */
#ifndef AL_ONE_BLOCK_H
#define AL_ONE_BLOCK_H

#include <stdalign.h>
#include <stddef.h>
#include <string.h>

typedef struct al_one_block {
    char *base;
    size_t used;
} al_one_block;

/* N rounded up to the alignment of any object. */
static inline size_t al_block_round(size_t n)
{
    return (n + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
}

/* The next SIZE bytes of B (its size was counted with al_block_round). */
static inline void *al_block_take(al_one_block *b, size_t size)
{
    void *p = b->base + b->used;
    b->used += al_block_round(size);
    return p;
}

/* Bytes string S takes with its terminator; 0 for NULL. */
static inline size_t al_block_text_size(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

/* Copies S to *TEXTS and moves *TEXTS past it; NULL stays NULL. */
static inline const char *al_block_put_text(char **texts, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = *texts;
    memcpy(p, s, n);
    *texts += n;
    return p;
}

#endif
