/* rundelay.c — see rundelay.h. */
#include "core/rundelay.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fdio.h"
#include "util/strutil.h"
#include "util/timeutil.h"

struct thread_delay {
        long tid;
        double ns;                  /* run delay */
        double cpu_ns;              /* on a CPU */
};

struct rundelay {
        char *task_dir;             /* <proc>/<pid>/task */
        struct thread_delay *t;
        size_t n, cap;
        size_t runnable;            /* threads in state R at the last sample */
        size_t active;              /* threads that ran since the sample before */
        double sampled_at;          /* now_mono() */
};

int rundelay_new(const char *proc, pid_t pid, struct rundelay **ret)
{
        struct rundelay *d = calloc(1, sizeof(*d));
        if (!d || !(d->task_dir = str_printf("%s/%d/task", proc, (int)pid))) {
                free(d);
                return -ENOMEM;
        }
        *ret = d;
        return 0;
}

/* The thread's slot, added when new; NULL when out of memory. */
static struct thread_delay *slot(struct rundelay *d, long tid)
{
        for (size_t i = 0; i < d->n; i++)
                if (d->t[i].tid == tid)
                        return &d->t[i];
        if (d->n == d->cap) {
                size_t cap = d->cap ? 2 * d->cap : 16;
                struct thread_delay *t = realloc(d->t, cap * sizeof(*t));
                if (!t)
                        return NULL;
                d->t = t;
                d->cap = cap;
        }
        d->t[d->n] = (struct thread_delay){ .tid = tid };
        return &d->t[d->n++];
}

/* Whether the thread is runnable (on a CPU or waiting for one): state R,
 * the field after the command's closing parenthesis in its stat. */
static bool thread_runnable(const struct rundelay *d, const char *name)
{
        char path[512], buf[1024];
        snprintf(path, sizeof(path), "%s/%s/stat", d->task_dir, name);
        if (fdio_read_small(path, buf, sizeof(buf)) < 0)
                return false;
        const char *paren = strrchr(buf, ')');
        return paren && paren[1] == ' ' && paren[2] == 'R';
}

/* "<cpu ns> <run delay ns> <timeslices>" of one thread. */
static int read_thread(struct rundelay *d, const char *name)
{
        char path[512], buf[128];
        unsigned long long run, delay;
        char *end;
        long tid = strtol(name, &end, 10);
        if (*end || tid <= 0)
                return 0;
        snprintf(path, sizeof(path), "%s/%s/schedstat", d->task_dir, name);
        if (fdio_read_small(path, buf, sizeof(buf)) < 0 ||
            sscanf(buf, "%llu %llu", &run, &delay) != 2)
                return 0; /* the thread just exited: its last sample stands */
        struct thread_delay *t = slot(d, tid);
        if (!t)
                return -ENOMEM;
        bool seen = t->cpu_ns > 0 || t->ns > 0; /* a sample before this one */
        if ((double)delay > t->ns)
                t->ns = (double)delay;
        if ((double)run > t->cpu_ns) {
                if (seen)
                        d->active++;
                t->cpu_ns = (double)run;
        }
        if (thread_runnable(d, name))
                d->runnable++;
        return 0;
}

int rundelay_sample(struct rundelay *d)
{
        DIR *dir = opendir(d->task_dir);
        struct dirent *e;
        int r = 0;
        if (!dir)
                return -errno;
        d->runnable = d->active = 0;
        while (r >= 0 && (e = readdir(dir)))
                if (e->d_name[0] != '.')
                        r = read_thread(d, e->d_name);
        closedir(dir);
        d->sampled_at = now_mono();
        return r;
}

double rundelay_seconds(const struct rundelay *d)
{
        double ns = 0;
        for (size_t i = 0; i < d->n; i++)
                ns += d->t[i].ns;
        return ns / 1e9;
}

double rundelay_cpu_seconds(const struct rundelay *d)
{
        double ns = 0;
        for (size_t i = 0; i < d->n; i++)
                ns += d->t[i].cpu_ns;
        return ns / 1e9;
}

double rundelay_wait_share(const struct rundelay *d)
{
        double cpu = rundelay_cpu_seconds(d), wait = rundelay_seconds(d);
        return cpu + wait > 0 ? wait / (cpu + wait) : NAN;
}

size_t rundelay_threads(const struct rundelay *d)
{
        return d->n;
}

size_t rundelay_runnable(const struct rundelay *d)
{
        return d->runnable;
}

size_t rundelay_active(const struct rundelay *d)
{
        return d->active;
}

double rundelay_sampled_at(const struct rundelay *d)
{
        return d->sampled_at;
}

void rundelay_free(struct rundelay *d)
{
        if (!d)
                return;
        free(d->task_dir);
        free(d->t);
        free(d);
}
