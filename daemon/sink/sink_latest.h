/* sink_latest.h — the latest result of every probe, handed from the
 * fan-out to a sink's own worker thread (Pushgateway, textfile; the
 * remote-write sink uses its lock and condition only), so that publish()
 * never waits for the network or the disk.  A mutex, a condition variable
 * on CLOCK_MONOTONIC and one slot per probe (a private copy of its latest
 * result and a "not yet delivered" flag). */
#ifndef BENCHWATCH_SINK_LATEST_H
#define BENCHWATCH_SINK_LATEST_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/result.h"

struct sink_latest {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        struct result **results;
        bool *dirty;
        size_t n;
        bool stopping;
};

/* Copy r into its probe's slot, mark it dirty, wake the worker. */
int sink_latest_put(struct sink_latest *l, const struct result *r);
/* With the lock held: wait until a slot is dirty, stopping is set or the
 * CLOCK_MONOTONIC time `until` (seconds; 0 = no limit) has passed. */
void sink_latest_wait(struct sink_latest *l, double until);
/* With the lock held: wait until stopping is set or `until` has passed,
 * whatever else happens (a retry backoff). */
void sink_latest_sleep(struct sink_latest *l, double until);
/* With the lock held: one wait for a put()/stop or `until` (0 = none). */
void sink_latest_wait_once(struct sink_latest *l, double until);
/* With the lock held: the first dirty slot, or -1. */
int sink_latest_next_dirty(const struct sink_latest *l);
/* How every sink with a worker opens and closes: init, then the worker
 * thread (on failure nothing is left to undo; 0 or -errno); and stop,
 * join the worker, done. */
int sink_latest_start(struct sink_latest *l, pthread_t *ret_thread,
                      void *(*worker)(void *), void *arg);
void sink_latest_finish(struct sink_latest *l, pthread_t thread);

#endif
