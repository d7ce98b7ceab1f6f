/* The generators' random numbers: splitmix64, so a seed gives the same map on every
 * machine (no libc rand). */
#ifndef ALLIUM_GEN_RNG_H
#define ALLIUM_GEN_RNG_H

#include <stdint.h>

typedef struct gen_rng {
    uint64_t s;
} gen_rng;

static inline uint64_t gen_next(gen_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A number in [0, N). */
static inline int gen_pick(gen_rng *r, int n)
{
    return (int) (gen_next(r) % (uint64_t) n);
}

#endif
