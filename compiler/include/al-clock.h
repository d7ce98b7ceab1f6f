/* Monotonic time for stage timings and benchmarks. */
#ifndef AL_CLOCK_H
#define AL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds on the monotonic clock. */
static inline uint64_t al_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static inline double al_clock_ms_since(uint64_t start_ns)
{
    return (double) (al_clock_ns() - start_ns) / 1e6;
}

#endif
