/* child.c — see child.h. */
#include "core/child.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/codec.h"
#include "core/loader.h"
#include "core/log.h"
#include "core/notes.h"
#include "core/param.h"
#include "core/priority.h"
#include "core/result.h"
#include "util/fdio.h"
#include "util/parse.h"
#include "util/strutil.h"
#include "util/timeutil.h"

#define MAX_REQUEST (1u << 20)

struct child_ctx {
        const struct bw_plugin *plugin;
        const struct param_set *params;
        struct result *result;
        pthread_mutex_t lock;  /* emits may come from plugin threads */
        struct notes *notes;   /* the last run's log lines, or NULL */
        uint64_t progress;
        int emit_error;
};

/* How long an orphaned child may take to wind down after the runner's
 * death before it kills its own process group: nobody else is left to do
 * it.  Short, because nothing a plugin must undo needs the plugin: an
 * unfinished test file is unnamed (O_TMPFILE, gone with the process) or a
 * marked temporary the next run removes, and a half-built sbtest table
 * says "preparing" and is rebuilt. */
#define ORPHAN_GRACE_NS 100000000L

static int stop_requested; /* set by watch_parent, read by the plugin's threads */
static pid_t parent_pid; /* the runner; 0 when not told (run by hand) */

static bool orphaned(void)
{
        return parent_pid > 0 && getppid() != parent_pid;
}

/* Every thread of this process back to the watcher's own nice value (the
 * runner's): an orphan's threads, still at the run's nice 10 on busy CPUs,
 * would otherwise wait for their turn to wind down, and even to die of
 * SIGKILL.  Needs CAP_SYS_NICE or an RLIMIT_NICE that allows it (the unit's
 * LimitNICE=); without, the kill still comes, only later. */
static void unlower_threads(void)
{
        errno = 0;
        int nice = getpriority(PRIO_PROCESS, 0);
        int policy = sched_getscheduler(0);
        struct sched_param sp = { .sched_priority = 0 };
        DIR *d = opendir("/proc/self/task");
        if ((nice == -1 && errno) || policy < 0 || !d) {
                if (d)
                        closedir(d);
                return;
        }
        for (struct dirent *e; (e = readdir(d));) {
                int64_t tid;
                if (e->d_name[0] == '.' || parse_int64(e->d_name, &tid) < 0)
                        continue;
                /* out of SCHED_IDLE first: its threads only run on idle CPUs */
                (void)sched_setscheduler((pid_t)tid, policy, &sp);
                (void)setpriority(PRIO_PROCESS, (id_t)tid, nice);
        }
        closedir(d);
}

/* Posted by watch_parent once it runs: start_watch waits for it, so that
 * a run that ends at once never exits while the thread is still being
 * made (an ASan build's leak check at that exit took the thread's
 * half-made attributes, from pthread_getattr_np, for a leak and aborted
 * the probe: CI's sanitize step, 7 December). */
static sem_t watch_started;

/* The death of the runner is acted on by a thread of its own: SIGTERM is
 * blocked everywhere else, and this thread is made before the run lowers
 * its priority (nice is per thread on Linux), so busy probe threads at
 * nice 10 on busy CPUs do not delay it.  SIGTERM is the runner's stop
 * request, or the kernel's word that the runner died (PR_SET_PDEATHSIG):
 * then no SIGKILL will follow, so after ORPHAN_GRACE_NS this thread kills
 * the whole group itself (this process and anything a plugin started). */
static void *watch_parent(void *arg)
{
        const sigset_t *term = arg;
        /* named, so that a look at the run's threads can tell it apart: it
         * keeps the policy and nice it was made with (the daemon's), where
         * the plugin's threads get [daemon] cpu_policy and nice */
        (void)prctl(PR_SET_NAME, "bw-watch");
        (void)sem_post(&watch_started);
        for (;;) {
                /* a stop already requested: keep an eye on the parent too,
                 * its death signal may have merged with the stop's */
                struct timespec tick = { 0, 100000000L };
                bool stopping = __atomic_load_n(&stop_requested, __ATOMIC_RELAXED);
                int sig = stopping ? sigtimedwait(term, NULL, &tick)
                                         : sigwaitinfo(term, NULL);
                if (sig == SIGTERM && !stopping) {
                        __atomic_store_n(&stop_requested, 1, __ATOMIC_RELAXED);
                        /* a stop (a yield, a deadline, the daemon's end):
                         * the run's threads get this thread's policy and
                         * nice back, so they reach their end now even on
                         * CPUs busy with the work they yield to */
                        unlower_threads();
                }
                if ((sig == SIGTERM || stopping) && orphaned())
                        break;
        }
        unlower_threads();
        struct timespec grace = { 0, ORPHAN_GRACE_NS };
        while (clock_nanosleep(CLOCK_MONOTONIC, 0, &grace, &grace) == EINTR)
                ;
        kill(0, SIGKILL);
        return NULL;
}

/* SIGTERM blocked in this thread (and so in every thread made after) and
 * waited for by watch_parent. */
static int start_watch(void)
{
        static sigset_t term;
        pthread_attr_t attr;
        pthread_t tid;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        int r = -pthread_sigmask(SIG_BLOCK, &term, NULL);
        if (r < 0)
                return r;
        if (sem_init(&watch_started, 0, 0) < 0)
                return -errno;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        r = -pthread_create(&tid, &attr, watch_parent, &term);
        pthread_attr_destroy(&attr);
        while (r == 0 && sem_wait(&watch_started) < 0)
                if (errno != EINTR)
                        return -errno;
        return r;
}

/* Die with the runner: SIGTERM when the thread that spawned us ends, so a
 * stop cleans up what it can and the group still goes after the grace.
 * The parent may have died before the prctl, hence the check against the
 * pid it passed. */
static int follow_parent(int argc, char **argv)
{
        int64_t ppid = 0;
        if (argc > 2 && !strncmp(argv[2], "--parent=", 9) &&
            (parse_int64(argv[2] + 9, &ppid) < 0 || ppid <= 0))
                return -EINVAL;
        parent_pid = (pid_t)ppid;
        int r = start_watch();
        if (r < 0)
                return r;
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0)
                return -errno;
        return orphaned() ? -ESRCH : 0;
}

/* Plugin labels, then the parameters flagged BW_PARAM_LABEL that apply to
 * the run (see bw_param_def.applies). */
static const char **merge_labels(const struct child_ctx *c,
                                 const char *const *labels)
{
        size_t n = 0, k = 0;
        while (labels && labels[n])
                n++;
        const char **v = calloc(n + 2 * c->params->n + 1, sizeof(*v));
        if (!v)
                return NULL;
        for (; k < n; k++)
                v[k] = labels[k];
        for (size_t i = 0; i < c->params->n; i++) {
                const struct bw_param_def *d = &c->params->defs[i];
                if (!(d->flags & BW_PARAM_LABEL) || (d->flags & BW_PARAM_SECRET) ||
                    !param_applies(c->params, i))
                        continue;
                v[k++] = d->name;
                v[k++] = param_text(c->params, i);
        }
        return v;
}

static void emit(const struct bw_host *h, const char *name, const char *help,
                 enum metric_type type, const char *const *labels, double v,
                 const struct bw_hist *hist)
{
        struct child_ctx *c = h->ctx;
        const char **lv = merge_labels(c, labels);
        char *full = str_printf("benchwatch_%s_%s", c->plugin->name, name);
        pthread_mutex_lock(&c->lock);
        int r = lv && full ? result_add(c->result, full, help, type, lv, v, hist)
                           : -ENOMEM;
        if (r < 0 && !c->emit_error)
                c->emit_error = r;
        pthread_mutex_unlock(&c->lock);
        free(lv);
        free(full);
}

static void host_gauge(const struct bw_host *h, const char *name,
                       const char *help, const char *const *labels, double v)
{
        emit(h, name, help, METRIC_GAUGE, labels, v, NULL);
}

static void host_counter(const struct bw_host *h, const char *name,
                         const char *help, const char *const *labels, double v)
{
        emit(h, name, help, METRIC_COUNTER, labels, v, NULL);
}

static void host_latency(const struct bw_host *h, const char *name,
                         const char *help, const char *const *labels,
                         const struct bw_hist *hist)
{
        emit(h, name, help, METRIC_SUMMARY, labels, 0, hist);
}

static bool info_family_ok(const char *family)
{
        size_t n = strlen(family);
        return !strncmp(family, "benchwatch_", 11) && n > 16 &&
               !strcmp(family + n - 5, "_info");
}

static void host_info(const struct bw_host *h, const char *family,
                      const char *help, const char *const *labels)
{
        struct child_ctx *c = h->ctx;
        pthread_mutex_lock(&c->lock);
        int r = info_family_ok(family)
                ? result_add(c->result, family, help, METRIC_GAUGE, labels, 1, NULL)
                : -EINVAL;
        if (r < 0 && !c->emit_error)
                c->emit_error = r;
        pthread_mutex_unlock(&c->lock);
}

static void host_log(const struct bw_host *h, int prio, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void host_log(const struct bw_host *h, int prio, const char *fmt, ...)
{
        struct child_ctx *c = h->ctx;
        va_list ap;
        va_start(ap, fmt);
        char *msg = str_vprintf(fmt, ap);
        va_end(ap);
        char *line = str_printf("%s probe '%s': %s", c->plugin->name, c->result->probe,
                                msg ? msg : fmt);
        pthread_mutex_lock(&c->lock);
        prio = line ? notes_priority(c->notes, prio, line) : prio;
        pthread_mutex_unlock(&c->lock);
        log_msg(prio, "%s", line ? line : fmt);
        free(line);
        free(msg);
}

static int host_fail(const struct bw_host *h, int err, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static int host_fail(const struct bw_host *h, int err, const char *fmt, ...)
{
        struct child_ctx *c = h->ctx;
        va_list ap;
        va_start(ap, fmt);
        char *msg = str_vprintf(fmt, ap);
        va_end(ap);
        pthread_mutex_lock(&c->lock);
        if (!c->result->error)
                result_set_error(c->result, msg ? msg : fmt);
        pthread_mutex_unlock(&c->lock);
        free(msg);
        return err < 0 ? err : -EIO;
}

static void host_progress(const struct bw_host *h, uint64_t n)
{
        struct child_ctx *c = h->ctx;
        __atomic_add_fetch(&c->progress, n, __ATOMIC_RELAXED);
}

static bool host_stopping(const struct bw_host *h)
{
        return __atomic_load_n(&stop_requested, __ATOMIC_RELAXED);
}

/* What the request asks for, and what the kernel really gave: that is
 * what the result reports. */
static void lower_priority(const struct run_request *req, struct priority *ret)
{
        const struct priority want = { req->nice, req->ioprio_class, req->ioprio_level,
                                       req->cpu_policy };
        int r = priority_apply(&want);
        if (r < 0)
                fprintf(stderr, "benchwatch: probe '%s': cannot run at nice %d, I/O %s:%d, "
                        "CPU policy %s: %s\n", req->probe, want.nice,
                        priority_io_class_name(want.io_class), want.io_level,
                        priority_cpu_policy_name(want.cpu_policy), strerror(-r));
        if (priority_current(ret) < 0)
                ret->io_class = -1;
}

struct progress_thread {
        pthread_t tid;
        struct child_ctx *ctx;
        double t0;
        bool done;
        pthread_mutex_t lock;
        pthread_cond_t wake;
};

/* Once a second on stderr, like sysbench's --report-interval. */
static void *progress_loop(void *arg)
{
        struct progress_thread *p = arg;
        uint64_t last = 0;
        pthread_mutex_lock(&p->lock);
        for (unsigned sec = 1;; sec++) {
                double next = p->t0 + sec;
                struct timespec ts = { (time_t)next,
                                       (long)((next - (double)(time_t)next) * 1e9) };
                while (!p->done &&
                       pthread_cond_timedwait(&p->wake, &p->lock, &ts) != ETIMEDOUT)
                        ;
                if (p->done)
                        break;
                uint64_t n = __atomic_load_n(&p->ctx->progress, __ATOMIC_RELAXED);
                fprintf(stderr, "[ %us ] %.2f/s, %llu done\n", sec,
                        (double)(n - last), (unsigned long long)n);
                last = n;
        }
        pthread_mutex_unlock(&p->lock);
        return NULL;
}

static int progress_start(struct progress_thread *p, struct child_ctx *c)
{
        pthread_condattr_t attr;
        p->ctx = c;
        p->t0 = now_mono();
        p->done = false;
        pthread_mutex_init(&p->lock, NULL);
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&p->wake, &attr);
        pthread_condattr_destroy(&attr);
        return -pthread_create(&p->tid, NULL, progress_loop, p);
}

static void progress_stop(struct progress_thread *p)
{
        pthread_mutex_lock(&p->lock);
        p->done = true;
        pthread_cond_signal(&p->wake);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->tid, NULL);
}

/* Defaults, then what the request set; a bad value fails the run. */
static int build_params(const struct bw_plugin *p, const struct run_request *req,
                        struct param_set **ret, struct result *res)
{
        char *why = NULL;
        int r = param_set_new(p->params, ret, &why);
        for (size_t i = 0; r >= 0 && i < req->n_params; i++)
                r = param_set_assign(*ret, req->param_names[i],
                                     req->param_values[i], &why);
        if (r < 0) {
                result_set_error(res, why ? why : strerror(-r));
                free(why);
        }
        return r;
}

static void record_params(struct result *res, const struct param_set *ps)
{
        for (size_t i = 0; i < ps->n; i++)
                if (!(ps->defs[i].flags & BW_PARAM_SECRET))
                        result_add_param(res, ps->defs[i].name, param_text(ps, i));
}

static int call_plugin(struct child_ctx *c, const struct run_request *req)
{
        const struct bw_plugin *p = c->plugin;
        struct bw_host host = {
                .ctx = c, .gauge = host_gauge, .counter = host_counter,
                .latency = host_latency, .log = host_log, .fail = host_fail,
                .progress = host_progress, .stopping = host_stopping,
                .info = host_info,
        };
        struct bw_run run = {
                .probe = req->probe, .values = c->params->values,
                .cache_dir = req->cache_dir, .state_dir = req->state_dir,
                .deadline = now_mono() + req->timeout,
        };
        if (req->cleanup)
                return p->cleanup ? p->cleanup(&run, &host) : 0;
        int r = p->check ? p->check(&run, &host) : 0;
        if (r >= 0)
                r = p->run(&run, &host);
        return r;
}

static long major_faults(void)
{
        struct rusage ru;
        return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_majflt : -1;
}

/* The major page faults of the probe process while the plugin ran (not
 * its start nor the plugin's loading: getrusage before and after), each
 * a read from swap or a file, memory the host took from it.  The run's
 * PSI says that some task stalled (any task's, on a cgroup v1 host); this
 * says that the probe's own memory went (cause.h: memory_pressure). */
static void add_major_faults(struct result *res, long before)
{
        long after = major_faults();
        if (before >= 0 && after >= before)
                (void)result_add(res, "benchwatch_probe_major_page_faults",
                                 "Major page faults of the probe process while its plugin "
                                 "ran (reads from swap or files)", METRIC_GAUGE, NULL,
                                 (double)(after - before), NULL);
}

static void execute(struct child_ctx *c, const struct run_request *req)
{
        struct result *res = c->result;
        char *path = str_printf("%s/%s.so", req->plugin_dir, req->plugin);
        char *why = NULL;
        void *handle = NULL;
        struct param_set *ps = NULL;
        int r = path ? loader_load_file(path, &c->plugin, &handle, &why) : -ENOMEM;
        if (r < 0)
                result_set_error(res, why ? why : "out of memory");
        if (r >= 0)
                r = build_params(c->plugin, req, &ps, res);
        if (r >= 0) {
                struct progress_thread pt;
                bool progress = req->progress && progress_start(&pt, c) == 0;
                c->params = ps;
                record_params(res, ps);
                long faults = major_faults();
                r = call_plugin(c, req);
                if (progress)
                        progress_stop(&pt);
                if (!req->cleanup)
                        add_major_faults(res, faults);
        }
        if (r >= 0 && c->emit_error)
                result_set_error(res, "a figure was emitted twice with different types");
        if (r < 0 && !res->error)
                result_set_error(res, strerror(-r));
        if (r >= 0 && host_stopping(NULL) && !res->error)
                result_set_error(res, "stopped before the end of the run");
        res->success = !res->error;
        if (r == -EBUSY && !res->success && !req->cleanup)
                res->yielded = RESULT_YIELDED_DEVICE; /* plugin.h: made way */
        param_set_free(ps);
        /* the plugin is not dlclose()d: its threads may still be winding down */
        free(path);
        free(why);
}

int child_main(int argc, char **argv)
{
        uint8_t *buf = NULL;
        size_t size = 0;
        struct run_request *req = NULL;
        if (follow_parent(argc, argv) < 0)
                return 2; /* the runner is gone already, or bad usage */
        if (fdio_read_all(STDIN_FILENO, MAX_REQUEST, &buf, &size) < 0 ||
            codec_decode_request(buf, size, &req) < 0) {
                fprintf(stderr, "benchwatch %s: no valid run request on stdin "
                        "(this command is internal to the runner)\n", CHILD_SUBCOMMAND);
                free(buf);
                return 2;
        }
        free(buf);
        log_set_level(req->log_level);
        signal(SIGINT, SIG_IGN); /* the parent decides; Ctrl-C reaches it */
        signal(SIGPIPE, SIG_IGN);
        dup2(STDERR_FILENO, STDOUT_FILENO);
        struct priority prio;
        lower_priority(req, &prio);

        struct child_ctx c = { .lock = PTHREAD_MUTEX_INITIALIZER };
        c.result = result_new(req->probe, req->plugin);
        if (!c.result)
                return 1;
        c.result->started = now_wall_ms();
        if (!req->cleanup)
                c.notes = notes_open(req->state_dir, req->probe);
        double t0 = now_mono();
        execute(&c, req);
        c.result->duration = now_mono() - t0;
        notes_close(c.notes);
        result_add_probe_families(c.result);
        if (prio.io_class >= 0)
                (void)priority_add_metrics(&prio, c.result);

        int r = codec_encode_result(c.result, &buf, &size);
        if (r >= 0)
                r = fdio_write_all(CHILD_RESULT_FD, buf, size);
        free(buf);
        result_free(c.result);
        codec_free_request(req);
        if (orphaned())
                kill(0, SIGKILL); /* nobody will reap what the plugin left */
        return r < 0 ? 1 : 0;
}
