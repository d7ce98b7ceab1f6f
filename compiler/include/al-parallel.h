/* A parallel for-loop over independent jobs, on POSIX threads.
 *
 * The compiler's heavy work (one BSP per block) is a list of independent jobs of very
 * different sizes; workers take the next job from a shared counter so the two cores stay
 * busy until the list is empty. Jobs must not touch shared mutable state.
 */
#ifndef AL_PARALLEL_H
#define AL_PARALLEL_H

/* Runs JOB(context, index, worker) for every index in [0, count) on up to THREADS threads
 * (the calling thread is one of them; worker is 0..threads-1, so jobs can use per-worker
 * scratch). Returns when every job has run. THREADS <= 0 means one per online CPU. If a
 * thread cannot be started the remaining workers do its share. */
void al_parallel_for(int count, int threads, void (*job)(void *context, int index, int worker),
                     void *context);

/* Number of online CPUs, at least 1. */
int al_cpu_count(void);

#endif
