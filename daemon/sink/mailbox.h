/* mailbox.h — a mailbox between the fan-out and a sink's own worker
 * thread: it holds the latest result of every probe, put there by
 * publish() for the worker (Pushgateway, textfile; the remote-write sink
 * uses its lock and condition only), so that publish() never waits for
 * the network or the disk.  A mutex, a condition variable
 * on CLOCK_MONOTONIC and one slot per probe (a private copy of its latest
 * result and a "not yet delivered" flag). */
#ifndef BENCHWATCH_MAILBOX_H
#define BENCHWATCH_MAILBOX_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/result.h"

struct mailbox {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        struct result **results;
        bool *dirty;
        size_t n;
        bool stopping;
};

/* Copy r into its probe's slot, mark it dirty, wake the worker. */
int mailbox_put(struct mailbox *l, const struct result *r);
/* With the lock held: wait until a slot is dirty, stopping is set or the
 * CLOCK_MONOTONIC time `until` (seconds; 0 = no limit) has passed. */
void mailbox_wait(struct mailbox *l, double until);
/* With the lock held: wait until stopping is set or `until` has passed,
 * whatever else happens (a retry backoff). */
void mailbox_sleep(struct mailbox *l, double until);
/* With the lock held: one wait for a put()/stop or `until` (0 = none). */
void mailbox_wait_once(struct mailbox *l, double until);
/* With the lock held: the first dirty slot, or -1. */
int mailbox_next_dirty(const struct mailbox *l);
/* How every sink with a worker opens and closes: init, then the worker
 * thread (on failure nothing is left to undo; 0 or -errno); and stop,
 * join the worker, done. */
int mailbox_start(struct mailbox *l, pthread_t *ret_thread,
                      void *(*worker)(void *), void *arg);
void mailbox_finish(struct mailbox *l, pthread_t thread);

#endif
