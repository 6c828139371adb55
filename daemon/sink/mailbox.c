/* mailbox.c — the latest result of every probe, for the sinks that
 * deliver from a worker thread of their own (see mailbox.h). */
#include "sink/mailbox.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int box_init(struct mailbox *l)
{
        pthread_condattr_t attr;
        int r;

        memset(l, 0, sizeof(*l));
        r = pthread_condattr_init(&attr);
        if (r)
                return -r;
        r = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        if (!r)
                r = pthread_cond_init(&l->cond, &attr);
        pthread_condattr_destroy(&attr);
        if (r)
                return -r;
        r = pthread_mutex_init(&l->lock, NULL);
        if (r) {
                pthread_cond_destroy(&l->cond);
                return -r;
        }
        return 0;
}

static void box_done(struct mailbox *l)
{
        for (size_t i = 0; i < l->n; i++)
                result_free(l->results[i]);
        free(l->results);
        free(l->dirty);
        pthread_mutex_destroy(&l->lock);
        pthread_cond_destroy(&l->cond);
}

/* With the lock held: the slot of `probe`, appended when new. */
static int slot_of(struct mailbox *l, const char *probe)
{
        for (size_t i = 0; i < l->n; i++)
                if (l->results[i] && !strcmp(l->results[i]->probe, probe))
                        return (int)i;
        struct result **nr = realloc(l->results, (l->n + 1) * sizeof(*nr));
        if (!nr)
                return -ENOMEM;
        l->results = nr;
        bool *nd = realloc(l->dirty, (l->n + 1) * sizeof(*nd));
        if (!nd)
                return -ENOMEM;
        l->dirty = nd;
        l->results[l->n] = NULL;
        l->dirty[l->n] = false;
        return (int)l->n++;
}

int mailbox_put(struct mailbox *l, const struct result *r)
{
        struct result *copy = result_copy(r);
        struct result *old = NULL;
        int i;

        if (!copy)
                return -ENOMEM;
        pthread_mutex_lock(&l->lock);
        i = slot_of(l, r->probe);
        if (i >= 0) {
                old = l->results[i];
                l->results[i] = copy;
                l->dirty[i] = true;
                pthread_cond_signal(&l->cond);
        }
        pthread_mutex_unlock(&l->lock);
        result_free(i >= 0 ? old : copy);
        return i < 0 ? i : 0;
}

int mailbox_next_dirty(const struct mailbox *l)
{
        for (size_t i = 0; i < l->n; i++)
                if (l->dirty[i])
                        return (int)i;
        return -1;
}

void mailbox_wait(struct mailbox *l, double until)
{
        struct timespec ts;

        if (until > 0) {
                ts.tv_sec = (time_t)until;
                ts.tv_nsec = (long)((until - floor(until)) * 1e9);
        }
        while (!l->stopping && mailbox_next_dirty(l) < 0) {
                if (until <= 0)
                        pthread_cond_wait(&l->cond, &l->lock);
                else if (pthread_cond_timedwait(&l->cond, &l->lock, &ts) == ETIMEDOUT)
                        return;
        }
}

void mailbox_sleep(struct mailbox *l, double until)
{
        struct timespec ts = { .tv_sec = (time_t)until,
                               .tv_nsec = (long)((until - floor(until)) * 1e9) };

        while (!l->stopping)
                if (pthread_cond_timedwait(&l->cond, &l->lock, &ts) == ETIMEDOUT)
                        return;
}

void mailbox_wait_once(struct mailbox *l, double until)
{
        struct timespec ts = { .tv_sec = (time_t)until,
                               .tv_nsec = (long)((until - floor(until)) * 1e9) };

        if (l->stopping)
                return;
        if (until > 0)
                pthread_cond_timedwait(&l->cond, &l->lock, &ts);
        else
                pthread_cond_wait(&l->cond, &l->lock);
}

/* Tell the worker to finish. */
static void box_stop(struct mailbox *l)
{
        pthread_mutex_lock(&l->lock);
        l->stopping = true;
        pthread_cond_broadcast(&l->cond);
        pthread_mutex_unlock(&l->lock);
}

int mailbox_start(struct mailbox *l, pthread_t *ret_thread,
                      void *(*worker)(void *), void *arg)
{
        int r = box_init(l);
        if (r < 0)
                return r;
        r = -pthread_create(ret_thread, NULL, worker, arg);
        if (r < 0)
                box_done(l);
        return r;
}

void mailbox_finish(struct mailbox *l, pthread_t thread)
{
        box_stop(l);
        pthread_join(thread, NULL);
        box_done(l);
}
