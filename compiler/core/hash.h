/* FNV-1a, 64 bits: the checksum of stored bytes (compiled worlds, radiosity states). It
 * catches damaged bytes; the cache is not a security boundary. */
#ifndef AL_HASH_H
#define AL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define AL_FNV1A_SEED 14695981039346656037ull

/* H folded with the N bytes at DATA; start from AL_FNV1A_SEED. */
static inline uint64_t al_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

#endif
