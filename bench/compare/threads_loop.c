/* threads_loop.c — the bare operation of sysbench's threads test, with no
 * benchmark around it: the reference bench/compare/threads-loop.sh puts
 * beside sysbench and benchwatch, to tell which of the two spends more
 * than the operation itself.
 *
 * One worker thread runs events of YIELDS rounds of lock, sched_yield(),
 * unlock on one of LOCKS mutexes (a fetch-and-add counter modulo LOCKS, as
 * sysbench picks them) for SECONDS, then prints events per second.  PAGES
 * (default 0) makes each round also read one byte of that many distinct
 * 4 KiB pages: on a host whose system calls flush the TLB (page-table
 * isolation without PCID) every page a loop touches between calls costs a
 * page walk, so the figure falls with the pages a tool's loop touches.
 *
 *   threads_loop SECONDS YIELDS LOCKS [PAGES] */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PAGE 4096

static pthread_mutex_t *mutexes;
static unsigned n_locks, n_yields, n_pages, next_lock;
static double seconds;
static volatile char *pages;

static double now(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *worker(void *arg)
{
        double t0 = now(), end = t0 + seconds;
        unsigned long events = 0;
        unsigned sink = 0;

        (void)arg;
        while (now() < end) {
                pthread_mutex_t *m = &mutexes[__atomic_fetch_add(&next_lock, 1,
                                              __ATOMIC_RELAXED) % n_locks];
                for (unsigned i = 0; i < n_yields; i++) {
                        pthread_mutex_lock(m);
                        sched_yield();
                        pthread_mutex_unlock(m);
                        for (unsigned p = 0; p < n_pages; p++)
                                sink += (unsigned)pages[(size_t)p * PAGE];
                }
                events++;
        }
        printf("%.3f\n", (double)events / (now() - t0) + 0 * sink);
        return NULL;
}

int main(int argc, char **argv)
{
        pthread_t t;

        if (argc < 4) {
                fprintf(stderr, "usage: threads_loop SECONDS YIELDS LOCKS [PAGES]\n");
                return 2;
        }
        seconds = atof(argv[1]);
        n_yields = (unsigned)atoi(argv[2]);
        n_locks = (unsigned)atoi(argv[3]);
        n_pages = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
        mutexes = calloc(n_locks ? n_locks : 1, sizeof(*mutexes));
        pages = calloc((size_t)n_pages + 1, PAGE);
        if (!mutexes || !pages || !n_locks || seconds <= 0) {
                fprintf(stderr, "threads_loop: bad arguments or no memory\n");
                return 2;
        }
        for (unsigned p = 0; p < n_pages; p++)
                pages[(size_t)p * PAGE] = 1; /* the pages exist before timing */
        for (unsigned i = 0; i < n_locks; i++)
                pthread_mutex_init(&mutexes[i], NULL);
        if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
                return 1;
        return 0;
}
