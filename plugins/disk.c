/* disk.c — random and sequential block I/O, as fio and sysbench fileio do it.
 *
 * Operators watch disks for IOPS that sag and latency that creeps up as a
 * device wears, so this plugin reproduces the two classic tools' unit of
 * work: `threads` synchronous workers (sysbench's style) each keeping
 * `iodepth` I/Os in flight through libaio (io_submit/io_getevents, fio's
 * style), block_size-aligned offsets in random order, every block once a
 * pass (fio's random map, its default; randommap=no draws each with
 * replacement, as fio --norandommap and sysbench do) or walked
 * sequentially, O_DIRECT by default.  With iodepth=1 a worker uses pread/pwrite, which is what
 * sysbench's sync mode and fio's psync do and costs one system call per I/O.
 *
 * Honest numbers: O_DIRECT must really bypass the page cache, so it is
 * checked (open, STATX_DIOALIGN, then a read whose page must not appear in
 * the cache) and refused with a clear message where it is not honoured,
 * rather than reporting memory speed.  With `rate` the schedule is
 * open-loop and latency counts from each I/O's intended start.  Work per
 * I/O is a random number, a clock read, the system call and a histogram
 * add, so the probe costs less CPU per I/O than fio itself. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libaio.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "common/blockperm.h"
#include "common/sbrand.h"
#include "common/testfile.h"
#include "core/plugin.h"
#include "util/hist.h"
#include "util/timeutil.h"

enum { P_MODE, P_BLOCK_SIZE, P_IODEPTH, P_THREADS, P_DIRECT, P_RWMIX,
       P_FSYNC, P_PATH, P_SIZE, P_DURATION, P_REQUESTS, P_RATE, P_RANDOMMAP };
enum { M_RANDREAD, M_RANDWRITE, M_RANDRW, M_READ, M_WRITE };
enum { OP_READ, OP_WRITE };

static const char *const mode_names[] = {
        "randread", "randwrite", "randrw", "read", "write", NULL };
static const char *const op_names[] = { "read", "write" };

#define MAX_BUFFERS (1ull << 30) /* threads x iodepth x block_size */
#define STOP_MARGIN 1.0          /* seconds kept before the run's deadline */
#define PROGRESS_BATCH 64
#define REAP_SLEPT_NS 5000       /* an io_getevents this long slept: waited */
#define CPU_BOUND_WAITED 0.1     /* of its run a worker waited for the disk */
#define CPU_BOUND_SLEEPS 0.25    /* a sync worker's sleeps an I/O */
#define CPU_BOUND_MIN_IOS 1000   /* CPU-bound below either, over this many I/Os */

struct job {
        const struct bw_host *h;
        int mode, fd;
        uint64_t bs, nblocks, requests, fsync_every;
        unsigned iodepth, threads, rwmix_read;
        bool randommap;        /* every block once a pass (fio's default) */
        uint64_t interval_ns;  /* per worker, 0 = no rate cap */
        uint64_t start_ns, end_ns;
        pthread_mutex_t lock;  /* the start gate: workers say they are */
        pthread_cond_t cond;   /* ready, then wait for go */
        unsigned ready;
        bool go;
};

struct slot {
        struct iocb iocb;
        uint64_t start_ns;
        int op;
};

struct worker {
        struct job *job;
        pthread_t tid;
        unsigned idx;
        io_context_t ctx;
        char *bufs;
        struct slot *slots;
        struct iocb **submit;
        unsigned *free_slots, n_free;
        uint64_t rng, quota, issued, seq_lo, seq_hi, seq_next, due_ns;
        uint64_t writes_since_sync, fsyncs, unreported, last_ns;
        uint64_t ios[2], errors[2];
        uint64_t sleeps;       /* the thread's voluntary context switches */
        uint64_t waited_ns;    /* in io_getevents or rate= sleeps: not on a CPU */
        int first_err;
        struct blockperm perm; /* randommap: this worker's passes */
        struct bw_hist hist[2];
};

static bool mode_writes(int mode)
{
        return mode == M_RANDWRITE || mode == M_RANDRW || mode == M_WRITE;
}

static bool mode_reads(int mode)
{
        return mode == M_RANDREAD || mode == M_RANDRW || mode == M_READ;
}

static bool mode_random(int mode)
{
        return mode == M_RANDREAD || mode == M_RANDWRITE || mode == M_RANDRW;
}

/* The next I/O: its operation and byte offset. */
static inline int next_io(struct worker *w, uint64_t *ret_off)
{
        const struct job *j = w->job;
        uint64_t x = sb_splitmix64(&w->rng), blk;
        int op = mode_writes(j->mode) ? OP_WRITE : OP_READ;
        /* the low half decides the operation, the high half (which the
         * multiply-shift below mostly uses) the block: independent */
        if (j->mode == M_RANDRW)
                op = (((x & 0xffffffffu) * 100) >> 32) < j->rwmix_read
                        ? OP_READ : OP_WRITE;
        if (mode_random(j->mode) && j->randommap)
                blk = blockperm_next(&w->perm);
        else if (mode_random(j->mode))
                blk = (uint64_t)(((unsigned __int128)x * j->nblocks) >> 64);
        else {
                blk = w->seq_next++;
                if (w->seq_next >= w->seq_hi)
                        w->seq_next = w->seq_lo;
        }
        *ret_off = blk * j->bs;
        w->issued++;
        return op;
}

static void report_progress(struct worker *w, bool force)
{
        if (w->unreported && (force || w->unreported >= PROGRESS_BATCH)) {
                w->job->h->progress(w->job->h, w->unreported);
                w->unreported = 0;
        }
}

static void sync_now(struct worker *w)
{
        if (fdatasync(w->job->fd) < 0 && !w->first_err)
                w->first_err = -errno;
        w->fsyncs++;
        w->writes_since_sync = 0;
}

/* Account for one finished I/O: res is bytes done or -errno. */
static inline void complete(struct worker *w, int op, long res, uint64_t lat)
{
        if (res == (long)w->job->bs) {
                w->ios[op]++;
                bw_hist_record(&w->hist[op], lat);
        } else {
                w->errors[op]++;
                if (!w->first_err)
                        w->first_err = res < 0 ? (int)res : -EIO;
        }
        w->unreported++;
        if (op == OP_WRITE && w->job->fsync_every &&
            ++w->writes_since_sync >= w->job->fsync_every)
                sync_now(w);
}

/* Whether the worker may issue another I/O at time now. */
static inline bool may_issue(struct worker *w, uint64_t now)
{
        const struct job *j = w->job;
        if (j->requests && w->issued >= w->quota)
                return false;
        return now < j->end_ns;
}

/* iodepth 1: one pread/pwrite at a time, the clock read once per I/O. */
static void run_sync(struct worker *w)
{
        const struct job *j = w->job;
        uint64_t t = now_ns(), off;
        char *buf = w->bufs;
        while (may_issue(w, t) && !j->h->stopping(j->h)) {
                uint64_t t0 = t;
                if (j->interval_ns) {
                        if (w->due_ns >= j->end_ns)
                                break;
                        if (w->due_ns > t)
                                sleep_until_ns(w->due_ns);
                        t0 = w->due_ns;
                        w->due_ns += j->interval_ns;
                }
                int op = next_io(w, &off);
                ssize_t n = op == OP_READ ? pread(j->fd, buf, j->bs, (off_t)off)
                                          : pwrite(j->fd, buf, j->bs, (off_t)off);
                t = now_ns();
                complete(w, op, n < 0 ? -errno : (long)n, t - t0);
                report_progress(w, false);
        }
        w->last_ns = t;
}

/* Prepare as many I/Os as the queue depth and the rate schedule allow. */
static unsigned fill(struct worker *w, unsigned inflight, uint64_t now,
                     bool *stop)
{
        const struct job *j = w->job;
        unsigned n = 0;
        uint64_t off;
        while (inflight + n < j->iodepth) {
                if (!may_issue(w, now)) {
                        *stop = true;
                        break;
                }
                if (j->interval_ns && w->due_ns > now)
                        break;
                struct slot *s = &w->slots[w->free_slots[--w->n_free]];
                s->op = next_io(w, &off);
                char *buf = (char *)s->iocb.u.c.buf;
                if (s->op == OP_READ)
                        io_prep_pread(&s->iocb, j->fd, buf, j->bs, (long long)off);
                else
                        io_prep_pwrite(&s->iocb, j->fd, buf, j->bs, (long long)off);
                s->iocb.data = s;
                s->start_ns = j->interval_ns ? w->due_ns : now;
                w->due_ns += j->interval_ns;
                w->submit[n++] = &s->iocb;
        }
        return n;
}

/* Submit n prepared I/Os; those the kernel refuses complete as errors. */
static unsigned submit(struct worker *w, unsigned n)
{
        unsigned done = 0;
        while (done < n) {
                int r = io_submit(w->ctx, (long)(n - done), w->submit + done);
                if (r > 0) {
                        done += (unsigned)r;
                        continue;
                }
                struct slot *s = w->submit[done]->data;
                complete(w, s->op, r < 0 ? r : -EIO, 0);
                w->free_slots[w->n_free++] = (unsigned)(s - w->slots);
                n--;
                memmove(w->submit + done, w->submit + done + 1,
                        (n - done) * sizeof(*w->submit));
        }
        return done;
}

/* Waits for one completion and accounts for it; returns how many ended.
 * One event per call, as fio's default iodepth_batch_complete_max=1: each
 * finished I/O is replaced at once by a lone io_submit, so the queue stays
 * at iodepth.  Reaping every ready event and resubmitting them as one
 * batch (which the block layer plugs) makes them travel in waves that
 * drain the device's queue: measured on virtio, 25% fewer IOPS than fio
 * at iodepth 32 and 0.8 ms instead of 0.55 ms per I/O in /proc/diskstats. */
static unsigned reap(struct worker *w, unsigned inflight, bool waiting)
{
        struct timespec ts, *tmo = NULL;
        struct io_event ev;
        uint64_t now = now_ns();
        uint64_t until = w->due_ns < w->job->end_ns ? w->due_ns : w->job->end_ns;
        if (waiting && until > now) {
                uint64_t d = until - now;
                ts = (struct timespec){ (time_t)(d / 1000000000u),
                                        (long)(d % 1000000000u) };
                tmo = &ts;
        }
        int n = io_getevents(w->ctx, 1, 1, &ev, tmo);
        uint64_t asked = now;
        now = now_ns();
        if (now - asked > REAP_SLEPT_NS)
                w->waited_ns += now - asked;
        if (n < 0 && n != -EINTR) { /* cannot happen with a valid context */
                if (!w->first_err)
                        w->first_err = n;
                w->errors[OP_READ] += inflight;
                return inflight;
        }
        if (n == 1) {
                struct slot *s = ev.data;
                complete(w, s->op, (long)ev.res, now - s->start_ns);
                w->free_slots[w->n_free++] = (unsigned)(s - w->slots);
        }
        w->last_ns = now;
        report_progress(w, false);
        return n == 1 ? 1 : 0;
}

/* iodepth > 1: keep the queue full through libaio. */
static void run_async(struct worker *w)
{
        const struct job *j = w->job;
        unsigned inflight = 0;
        bool stop = false;
        uint64_t now = now_ns();
        for (;;) {
                if (!stop) {
                        unsigned n = fill(w, inflight, now, &stop);
                        inflight += submit(w, n);
                        stop = stop || j->h->stopping(j->h);
                }
                if (!inflight) {
                        if (stop)
                                break;
                        uint64_t slept = now_ns();
                        sleep_until_ns(w->due_ns < j->end_ns ? w->due_ns : j->end_ns);
                        now = now_ns();
                        w->waited_ns += now - slept;
                        continue;
                }
                bool waiting = !stop && j->interval_ns && inflight < j->iodepth;
                inflight -= reap(w, inflight, waiting);
                now = w->last_ns;
        }
}

static void *worker_main(void *arg)
{
        struct worker *w = arg;
        struct job *j = w->job;
        pthread_mutex_lock(&j->lock);
        j->ready++;
        pthread_cond_broadcast(&j->cond);
        while (!j->go)
                pthread_cond_wait(&j->cond, &j->lock);
        pthread_mutex_unlock(&j->lock);
        /* stagger the rate schedules so the threads do not issue in bursts */
        w->due_ns = j->start_ns + j->interval_ns * w->idx / j->threads;
        struct rusage ru0, ru1;
        getrusage(RUSAGE_THREAD, &ru0);
        if (j->iodepth == 1)
                run_sync(w);
        else
                run_async(w);
        getrusage(RUSAGE_THREAD, &ru1);
        w->sleeps = (uint64_t)(ru1.ru_nvcsw - ru0.ru_nvcsw);
        report_progress(w, true);
        return NULL;
}

static void worker_free(struct worker *w)
{
        if (w->ctx)
                io_destroy(w->ctx);
        free(w->bufs);
        free(w->slots);
        free(w->submit);
        free(w->free_slots);
}

static int worker_init(struct worker *w, struct job *j, unsigned idx,
                       unsigned align)
{
        unsigned d = j->iodepth;
        w->job = j;
        w->idx = idx;
        w->rng = now_ns() ^ ((uint64_t)idx << 48) ^ (uint64_t)getpid();
        bw_hist_init(&w->hist[0]);
        bw_hist_init(&w->hist[1]);
        w->seq_lo = w->seq_next = j->nblocks * idx / j->threads;
        w->seq_hi = j->nblocks * (idx + 1) / j->threads;
        w->quota = j->requests / j->threads + (idx < j->requests % j->threads);
        /* each worker its own map of the whole file, as each fio job has */
        blockperm_init(&w->perm, j->nblocks ? j->nblocks : 1, sb_splitmix64(&w->rng));
        if (posix_memalign((void **)&w->bufs, align < 4096 ? 4096 : align,
                           d * j->bs))
                return -ENOMEM;
        for (uint64_t i = 0; i < d * j->bs / 8; i++)
                ((uint64_t *)w->bufs)[i] = sb_splitmix64(&w->rng) | 1;
        if (d == 1)
                return 0;
        w->slots = calloc(d, sizeof(*w->slots));
        w->submit = calloc(d, sizeof(*w->submit));
        w->free_slots = calloc(d, sizeof(*w->free_slots));
        if (!w->slots || !w->submit || !w->free_slots)
                return -ENOMEM;
        for (unsigned i = 0; i < d; i++) {
                w->slots[i].iocb.u.c.buf = w->bufs + (size_t)i * j->bs;
                w->free_slots[w->n_free++] = d - 1 - i;
        }
        return io_setup((int)d, &w->ctx);
}


/* Start the clock once every worker is ready to go; on a failed thread
 * creation the ones already started see an empty window and return. */
static int start_workers(struct job *j, struct worker *ws, double duration,
                         double stop_by)
{
        int r = 0;
        unsigned n;
        for (n = 0; n < j->threads && r == 0; n++)
                r = -pthread_create(&ws[n].tid, NULL, worker_main, &ws[n]);
        if (r < 0)
                n--;
        pthread_mutex_lock(&j->lock);
        while (r == 0 && j->ready < n)
                pthread_cond_wait(&j->cond, &j->lock);
        j->start_ns = now_ns();
        uint64_t end = (uint64_t)(stop_by * 1e9);
        if (duration > 0 && j->start_ns + (uint64_t)(duration * 1e9) < end)
                end = j->start_ns + (uint64_t)(duration * 1e9);
        if (end < j->start_ns)
                end = j->start_ns; /* the deadline has passed already */
        j->end_ns = r < 0 ? 0 : end;
        j->go = true;
        pthread_cond_broadcast(&j->cond);
        pthread_mutex_unlock(&j->lock);
        for (unsigned i = 0; i < n; i++)
                pthread_join(ws[i].tid, NULL);
        return r;
}

struct totals {
        uint64_t ios[2], errors[2], issued, last_ns, fsyncs;
        int first_err;
        struct bw_hist hist[2];
};

static void sum_up(const struct worker *ws, unsigned n, struct totals *t)
{
        memset(t, 0, sizeof(*t));
        bw_hist_init(&t->hist[0]);
        bw_hist_init(&t->hist[1]);
        for (unsigned i = 0; i < n; i++) {
                for (int op = 0; op < 2; op++) {
                        t->ios[op] += ws[i].ios[op];
                        t->errors[op] += ws[i].errors[op];
                        bw_hist_merge(&t->hist[op], &ws[i].hist[op]);
                }
                t->issued += ws[i].issued;
                t->fsyncs += ws[i].fsyncs;
                if (ws[i].last_ns > t->last_ns)
                        t->last_ns = ws[i].last_ns;
                if (!t->first_err)
                        t->first_err = ws[i].first_err;
        }
}

/* A run bounded by time lasts its whole window (a rate-capped one may
 * idle at its end); one bounded by requests ends with its last I/O. */
static double elapsed(const struct job *j, const struct totals *t)
{
        uint64_t end = t->last_ns;
        if ((!j->requests || t->issued < j->requests) && j->end_ns > end)
                end = j->end_ns;
        return (double)(end - j->start_ns) / 1e9;
}

static void emit(const struct bw_host *h, const struct job *j,
                 const struct totals *t)
{
        double secs = elapsed(j, t);
        for (int op = 0; op < 2; op++) {
                if (op == OP_READ ? !mode_reads(j->mode) : !mode_writes(j->mode))
                        continue;
                const char *const labels[] = { "op", op_names[op], NULL };
                double iops = secs > 0 ? (double)t->ios[op] / secs : 0;
                h->gauge(h, "iops", "I/O operations completed per second",
                         labels, iops);
                h->gauge(h, "bytes_per_second", "Bytes transferred per second",
                         labels, iops * (double)j->bs);
                h->latency(h, "latency_seconds", "Latency of one I/O, from "
                           "submission (or its intended start under a rate "
                           "cap) to completion", labels, &t->hist[op]);
                h->counter(h, "errors_total", "I/Os that failed or were short",
                           labels, (double)t->errors[op]);
        }
        if (mode_writes(j->mode))
                h->counter(h, "fsyncs_total", "fdatasync calls during the "
                           "measurement (fsync=N)", (const char *const[]){ NULL },
                           (double)t->fsyncs);
}

/* Judge the run once the workers are done; 0 when the figures stand. */
static int verdict(const struct bw_host *h, const struct job *j,
                   const struct totals *t, const char *path)
{
        uint64_t errors = t->errors[0] + t->errors[1];
        if (h->stopping(h))
                return h->fail(h, -EINTR, "disk run on '%s' interrupted", path);
        if (errors && !(t->ios[0] + t->ios[1]))
                return h->fail(h, t->first_err, "I/O on '%s' failed: %s", path,
                               strerror(-t->first_err));
        if (!(t->ios[0] + t->ios[1]))
                return h->fail(h, -ETIME, "no I/O on '%s' completed in the "
                               "%.3f s measured (machine overloaded?)", path,
                               (double)(j->end_ns - j->start_ns) / 1e9);
        if (errors)
                h->log(h, LOG_WARNING, "%" PRIu64 " I/Os on '%s' failed, first: %s",
                       errors, path, strerror(-t->first_err));
        if (j->requests && t->issued < j->requests)
                h->log(h, LOG_WARNING, "stopped after %" PRIu64 " of %" PRIu64
                       " requests at the time limit", t->issued, j->requests);
        return 0;
}

/* A worker that seldom waited for the disk set the pace itself: the figure
 * is its CPU's.  With iodepth > 1 it waits in io_getevents (a call that
 * took over REAP_SLEPT_NS slept; one that found an event ready takes 1-2
 * us, which is CPU; a CPU that another task took from it there counts as
 * waiting, so on a busy host the notice errs toward silence) and between
 * I/Os paced by rate=: 34-39% of the run
 * on this VM's disk at queue depths 4 and 32, none for cached reads
 * (direct=no), which complete in io_submit.  With iodepth 1 the wait is
 * inside pread, so a worker's sleeps (voluntary context switches) tell:
 * one an I/O from a disk, 0.06 for cached reads.  (Sleeps cannot judge
 * the queued case: at depth 32 the completions come in batches, 0.03
 * sleeps an I/O with a third of the run waiting; nor can the time on a
 * CPU, which steal and run delay keep at 0.74-0.80 of a CPU-bound run on
 * a VM.)  There the classic tool counts fewer: fio spent 14-15 us of CPU
 * an I/O where this probe spent 10-11 (16k random reads, queue depth 8,
 * 3-s runs on this VM), and with both on one CPU the probe counted 7% more
 * I/Os (docs/reports/benchmarks.md). */
static void note_cpu_bound(const struct bw_host *h, const struct job *j,
                           const struct worker *ws)
{
        for (unsigned i = 0; i < j->threads; i++) {
                /* its own run: with requests= it ends before end_ns */
                double wall = (double)(ws[i].last_ns > j->start_ns ?
                                       ws[i].last_ns - j->start_ns : 0);
                uint64_t ios = ws[i].ios[OP_READ] + ws[i].ios[OP_WRITE];
                bool seldom = j->iodepth > 1
                        ? (double)ws[i].waited_ns / wall < CPU_BOUND_WAITED
                        : (double)ws[i].sleeps / (double)(ios ? ios : 1) < CPU_BOUND_SLEEPS;
                if (ios < CPU_BOUND_MIN_IOS || !(wall > 0) || !seldom)
                        continue;
                h->log(h, LOG_NOTICE, "a worker seldom waited for the disk: its CPU set "
                       "the pace, and the figure is this host's CPU's more than the "
                       "disk's (more threads or a deeper iodepth reach the disk's own "
                       "limit); fio, which spends more CPU an I/O, counts fewer I/Os "
                       "on such a run");
                return;
        }
}

static int run_job(const struct bw_host *h, struct job *j, const char *path,
                   unsigned align, double duration, double stop_by)
{
        struct worker *ws = calloc(j->threads, sizeof(*ws));
        struct totals *t = malloc(sizeof(*t));
        int r = ws && t ? 0 : -ENOMEM;
        unsigned n = 0;
        for (; r == 0 && n < j->threads; n++)
                r = worker_init(&ws[n], j, n, align);
        if (r == -EAGAIN)
                r = h->fail(h, r, "cannot set up %u x %u asynchronous I/Os: "
                            "raise fs.aio-max-nr or lower threads/iodepth",
                            j->threads, j->iodepth);
        else if (r < 0)
                r = h->fail(h, r, "cannot set up the I/O workers: %s",
                            strerror(-r));
        if (r == 0 && (r = start_workers(j, ws, duration, stop_by)) < 0)
                r = h->fail(h, r, "cannot start I/O threads: %s", strerror(-r));
        if (r == 0) {
                sum_up(ws, j->threads, t);
                if (mode_writes(j->mode) && fdatasync(j->fd) < 0 && !t->first_err)
                        t->first_err = -errno; /* end-of-run sync, not timed */
                r = verdict(h, j, t, path);
        }
        if (r == 0)
                note_cpu_bound(h, j, ws);
        if (r == 0)
                emit(h, j, t);
        for (unsigned i = 0; ws && i < n; i++)
                worker_free(&ws[i]);
        free(ws);
        free(t);
        return r;
}

static int disk_check(const struct bw_run *run, const struct bw_host *h)
{
        const struct bw_param_value *v = run->values;
        uint64_t bs = (uint64_t)v[P_BLOCK_SIZE].i, size = (uint64_t)v[P_SIZE].i;
        uint64_t threads = (uint64_t)v[P_THREADS].i;
        struct stat st;
        if (v[P_DIRECT].b && bs % 512)
                return h->fail(h, -EINVAL, "block_size %" PRIu64 " is not a "
                               "multiple of 512 bytes, as O_DIRECT needs (or "
                               "set direct=no)", bs);
        if (bs > size || (!mode_random((int)v[P_MODE].i) && size / bs < threads))
                return h->fail(h, -EINVAL, "size %" PRIu64 " holds too few "
                               "blocks of %" PRIu64 " bytes for %" PRIu64
                               " threads", size, bs, threads);
        if (threads * (uint64_t)v[P_IODEPTH].i * bs > MAX_BUFFERS)
                return h->fail(h, -EINVAL, "threads x iodepth x block_size "
                               "exceeds %llu bytes of buffers", MAX_BUFFERS);
        if (mode_writes((int)v[P_MODE].i) && *v[P_PATH].s &&
            stat(v[P_PATH].s, &st) == 0 && S_ISBLK(st.st_mode))
                return h->fail(h, -EPERM, "'%s' is a block device: benchwatch "
                               "never writes to a device; use mode=randread "
                               "or mode=read, or a file path", v[P_PATH].s);
        return *v[P_PATH].s ? testfile_check_place(h, v[P_PATH].s) : 0;
}

static void job_init(struct job *j, const struct bw_host *h,
                     const struct bw_param_value *v, uint64_t size, int fd)
{
        memset(j, 0, sizeof(*j));
        j->h = h;
        j->fd = fd;
        j->mode = (int)v[P_MODE].i;
        j->bs = (uint64_t)v[P_BLOCK_SIZE].i;
        j->nblocks = size / j->bs;
        j->iodepth = (unsigned)v[P_IODEPTH].i;
        j->threads = (unsigned)v[P_THREADS].i;
        j->rwmix_read = (unsigned)v[P_RWMIX].i;
        j->randommap = v[P_RANDOMMAP].b;
        j->fsync_every = (uint64_t)v[P_FSYNC].i;
        j->requests = (uint64_t)v[P_REQUESTS].i;
        if (v[P_RATE].i)
                j->interval_ns = (uint64_t)(1e9 * j->threads / (double)v[P_RATE].i);
        pthread_mutex_init(&j->lock, NULL);
        pthread_cond_init(&j->cond, NULL);
}

static int disk_measure(const struct bw_run *run, const struct bw_host *h,
                        const struct testfile *tf)
{
        const struct bw_param_value *v = run->values;
        int mode = (int)v[P_MODE].i;
        unsigned align = 4096;
        struct job j;
        if (tf->is_device && mode_writes(mode))
                return h->fail(h, -EPERM, "'%s' is a block device: benchwatch "
                               "never writes to a device", tf->path);
        int fd = testfile_open(h, tf, mode_writes(mode), v[P_DIRECT].b,
                               (uint64_t)v[P_BLOCK_SIZE].i, &align);
        if (fd < 0)
                return fd;
        job_init(&j, h, v, tf->size, fd);
        int r = 0;
        if (j.nblocks < (mode_random(mode) ? 1 : j.threads))
                r = h->fail(h, -EINVAL, "'%s' holds fewer blocks of %" PRIu64
                            " bytes than threads", tf->path, j.bs);
        /* requests= alone runs until done; duration= bounds it when given */
        double duration = j.requests && !v[P_DURATION].is_set ? 0 : v[P_DURATION].d;
        if (r == 0)
                r = run_job(h, &j, tf->path, align, duration,
                            run->deadline - STOP_MARGIN);
        pthread_mutex_destroy(&j.lock);
        pthread_cond_destroy(&j.cond);
        close(fd);
        return r;
}

static int disk_run(const struct bw_run *run, const struct bw_host *h)
{
        const struct bw_param_value *v = run->values;
        int r = disk_check(run, h);
        if (r < 0)
                return r;
        return testfile_run(run, h, "disk", v[P_PATH].s, (uint64_t)v[P_SIZE].i,
                            v[P_SIZE].is_set, run->deadline - STOP_MARGIN,
                            disk_measure);
}

static int disk_cleanup(const struct bw_run *run, const struct bw_host *h)
{
        return testfile_cleanup(run, h, "disk", run->values[P_PATH].s);
}

static const struct bw_param_def disk_params[] = {
        [P_MODE] = {
                .name = "mode", .type = BW_PARAM_ENUM,
                .default_value = "randread", .choices = mode_names,
                .help = "randread, randwrite, randrw (rwmix_read% reads) or "
                        "sequential read, write",
                .flags = BW_PARAM_LABEL,
        },
        [P_BLOCK_SIZE] = {
                .name = "block_size", .type = BW_PARAM_SIZE,
                .default_value = "16k", .min = 512, .max = 64 << 20,
                .unit = "bytes",
                .help = "size of every I/O; offsets are multiples of it",
                .flags = BW_PARAM_LABEL,
        },
        [P_IODEPTH] = {
                .name = "iodepth", .type = BW_PARAM_INT,
                .default_value = "1", .min = 1, .max = 1024, .unit = "I/Os",
                .help = "I/Os each thread keeps in flight with libaio; 1 is a "
                        "synchronous pread/pwrite per I/O",
                .flags = BW_PARAM_LABEL,
        },
        [P_THREADS] = {
                .name = "threads", .type = BW_PARAM_INT,
                .default_value = "1", .min = 1, .max = 1024,
                .help = "workers, each with its own queue of iodepth I/Os",
                .flags = BW_PARAM_LABEL,
        },
        [P_DIRECT] = {
                .name = "direct", .type = BW_PARAM_BOOL,
                .default_value = "yes",
                .help = "O_DIRECT: bypass the page cache (checked to be "
                        "honoured; with no, the file's cached pages are "
                        "dropped first)",
                .flags = BW_PARAM_LABEL,
        },
        [P_RWMIX] = {
                .name = "rwmix_read", .type = BW_PARAM_INT,
                .default_value = "50", .min = 0, .max = 100, .unit = "%",
                .help = "share of reads in mode=randrw (fio's rwmixread, same "
                        "default)",
                .flags = BW_PARAM_LABEL, .applies = "mode=randrw",
        },
        [P_FSYNC] = {
                .name = "fsync", .type = BW_PARAM_INT,
                .default_value = "0", .min = 0, .max = 1e9, .unit = "writes",
                .help = "fdatasync after every N writes of a thread, inside "
                        "the measurement; 0: only once after it (as sysbench's "
                        "--file-fsync-end)",
                .flags = BW_PARAM_LABEL,
                .applies = "mode=randwrite|randrw|write",
        },
        [P_PATH] = {
                .name = "path", .type = BW_PARAM_STRING,
                .default_value = "",
                .help = "test file (created and marked by benchwatch; an "
                        "existing file it did not create is refused) or block "
                        "device (read modes only); default "
                        "<cache_dir>/disk-<probe>.dat",
        },
        [P_SIZE] = {
                .name = "size", .type = BW_PARAM_SIZE,
                .default_value = "1G", .min = 1 << 20, .max = 1ull << 50,
                .unit = "bytes",
                .help = "size of the test file; on a device the region used "
                        "(default: all of it)",
        },
        [P_DURATION] = {
                .name = "duration", .type = BW_PARAM_DURATION,
                .default_value = "10s", .min = 0.01, .max = 86400, .unit = "s",
                .help = "measured time; if requests is set and duration is "
                        "not, only requests (and the probe's timeout) bound it",
        },
        [P_REQUESTS] = {
                .name = "requests", .type = BW_PARAM_INT,
                .default_value = "0", .min = 0, .max = 1e15, .unit = "I/Os",
                .help = "stop after exactly this many I/Os; 0: run for duration",
        },
        [P_RATE] = {
                .name = "rate", .type = BW_PARAM_INT,
                .default_value = "0", .min = 0, .max = 1e9, .unit = "IOPS",
                .help = "cap on I/Os per second over all threads, 0: none; "
                        "open-loop: latency counts from each I/O's intended "
                        "start",
        },
        [P_RANDOMMAP] = {
                .name = "randommap", .type = BW_PARAM_BOOL,
                .default_value = "yes",
                .help = "random modes: read or write every block once before "
                        "any again, a new order each pass (fio's default); no: "
                        "draw each offset independently, with replacement (fio "
                        "--norandommap, sysbench fileio), which a cache "
                        "holding part of the file serves more often",
                .applies = "mode=randread|randwrite|randrw",
        },
        { .name = NULL },
};

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "disk",
        .description = "random and sequential block I/O with O_DIRECT and "
                "libaio (fio, sysbench fileio): IOPS, bytes/s, latency",
        .caps = BW_CAP_DISK_IO,
        .params = disk_params,
        .concurrency_param = "threads",
        .throughput_metric = "iops",
        .check = disk_check,
        .run = disk_run,
        .cleanup = disk_cleanup,
};
