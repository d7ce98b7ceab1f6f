/* al_parallel_for (see al-parallel.h). */
#include "al-parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

typedef struct pool {
    void (*job)(void *, int, int);
    void *context;
    int count;
    atomic_int next;
} pool;

typedef struct worker_arg {
    pool *pool;
    int worker;
} worker_arg;

static void *run_worker(void *p)
{
    worker_arg *arg = p;
    pool *pl = arg->pool;
    for (;;) {
        int i = atomic_fetch_add(&pl->next, 1);
        if (i >= pl->count) break;
        pl->job(pl->context, i, arg->worker);
    }
    return NULL;
}

int al_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int) n : 1;
}

void al_parallel_for(int count, int threads, void (*job)(void *context, int index, int worker),
                     void *context)
{
    enum { MAX_THREADS = 64 };
    if (count <= 0) return;
    if (threads <= 0) threads = al_cpu_count();
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (threads > count) threads = count;

    pool pl = {.job = job, .context = context, .count = count};
    atomic_init(&pl.next, 0);
    pthread_t ids[MAX_THREADS];
    worker_arg args[MAX_THREADS];
    int started = 0;
    for (int t = 1; t < threads; t++) {
        args[t].pool = &pl;
        args[t].worker = started + 1;
        if (pthread_create(&ids[started], NULL, run_worker, &args[t]) != 0) break;
        started++;
    }
    worker_arg self = {&pl, 0};
    run_worker(&self);
    for (int t = 0; t < started; t++) pthread_join(ids[t], NULL);
}
