/* runner.c — see runner.h. */
#include "core/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/child.h"
#include "core/codec.h"
#include "core/log.h"
#include "core/perfclock.h"
#include "core/rundelay.h"
#include "core/sysparse.h"
#include "util/fdio.h"
#include "util/strutil.h"
#include "util/timeutil.h"

#define MAX_RESULT (64u << 20)

extern char **environ;

struct runner {
        sd_event *event;
        sd_event_source *io, *child, *deadline, *grace, *yield_timer, *delay_timer;
        runner_done_fn done;
        void *userdata;
        char *probe, *plugin;
        pid_t pid;
        int fd;              /* read end of the result pipe */
        uint8_t *buf;
        size_t size, cap;
        bool eof, exited, timed_out, stopping, overflow, finished;
        int status;
        double timeout, started_wall, started_mono;
        double oom_kills;       /* the host's OOM kills when it started, or NAN */
        struct yield_monitor *yield;
        const char *yielded;    /* the resource the run made way for */
        char *yield_why;
        bool io_bound, disk_io;
        struct rundelay *delay; /* the probe's threads' waits for a CPU */
        struct perfclock *perf; /* their cycles (NULL: refused or none) */
};

#define YIELD_GRACE 1.0 /* SIGTERM .. SIGKILL of a run that yields: it makes way promptly */
#define KILL_ACCURACY_USEC 1000 /* of the deadline and grace timers: sd-event's
                                 * default (0) lets them fire up to 250 ms late
                                 * where no other timer wakes the loop */

static const char *executable = "/proc/self/exe";
static const char *vmstat = "/proc/vmstat";

void runner_set_executable(const char *path)
{
        executable = path;
}

void runner_set_vmstat(const char *path)
{
        vmstat = path;
}

/* How many processes the kernel's OOM killer has killed since boot
 * ("oom_kill", Linux 4.13+), NAN where it does not say. */
static double oom_kills(void)
{
        char buf[16384]; /* about 4 KiB in 6.x */
        double n;
        if (fdio_read_small(vmstat, buf, sizeof(buf)) < 0 ||
            sysparse_keyed(buf, "oom_kill", &n) < 0)
                return NAN;
        return n;
}

pid_t runner_pid(const struct runner *rn)
{
        return rn->pid;
}

const struct perfclock *runner_perfclock(const struct runner *rn)
{
        return rn ? rn->perf : NULL;
}

/* Only explicitly set values travel; the child applies the same defaults. */
static int build_request(const struct run_spec *s, uint8_t **ret, size_t *ret_size)
{
        const struct param_set *ps = s->params;
        size_t cap = 0, n = 0;
        for (size_t i = 0; i < ps->n; i++)
                if (ps->values[i].is_set)
                        cap += (ps->defs[i].flags & BW_PARAM_MULTI) ? ps->values[i].n_list : 1;
        const char **names = calloc(cap + 1, sizeof(char *));
        const char **values = calloc(cap + 1, sizeof(char *));
        for (size_t i = 0; names && values && i < ps->n; i++) {
                const struct bw_param_value *v = &ps->values[i];
                if (!v->is_set)
                        continue;
                bool multi = ps->defs[i].flags & BW_PARAM_MULTI;
                for (size_t k = 0; k < (multi ? v->n_list : 1); k++) {
                        names[n] = ps->defs[i].name;
                        values[n++] = multi ? v->list[k] : param_text(ps, i);
                }
        }
        struct run_request req = {
                .probe = (char *)s->probe, .plugin = (char *)s->plugin->name,
                .param_names = (char **)names, .param_values = (char **)values,
                .n_params = n, .plugin_dir = (char *)s->plugin_dir,
                .cache_dir = (char *)s->cache_dir, .state_dir = (char *)s->state_dir,
                .timeout = s->timeout, .progress = s->progress,
                .cleanup = s->cleanup, .nice = s->nice,
                .ioprio_class = s->ioprio_class, .ioprio_level = s->ioprio_level,
                .cpu_policy = s->cpu_policy, .log_level = log_get_level(),
        };
        int r = names && values ? codec_encode_request(&req, ret, ret_size) : -ENOMEM;
        free(names);
        free(values);
        return r;
}

static int spawn_child(int req_fd, int res_fd, pid_t *ret_pid)
{
        posix_spawn_file_actions_t fa;
        posix_spawnattr_t attr;
        sigset_t none;
        char parent[32];
        snprintf(parent, sizeof(parent), "--parent=%d", (int)getpid());
        char *argv[] = { (char *)"benchwatch", (char *)CHILD_SUBCOMMAND, parent, NULL };
        sigemptyset(&none);
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, req_fd, STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&fa, res_fd, CHILD_RESULT_FD);
        posix_spawnattr_init(&attr);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                                POSIX_SPAWN_SETSIGDEF);
        posix_spawnattr_setpgroup(&attr, 0);
        posix_spawnattr_setsigmask(&attr, &none);
        sigset_t all;
        sigfillset(&all);
        posix_spawnattr_setsigdefault(&attr, &all);
        int r = posix_spawn(ret_pid, executable, &fa, &attr, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&attr);
        return -r;
}

static char *describe_failure(struct runner *rn)
{
        if (rn->timed_out)
                return str_printf("timed out after %gs: the probe was killed", rn->timeout);
        if (rn->overflow)
                return str_printf("the probe sent more than %u bytes of result", MAX_RESULT);
        /* a SIGKILL the runner did not send, while the OOM killer killed */
        double oom = WIFSIGNALED(rn->status) && WTERMSIG(rn->status) == SIGKILL &&
                     !rn->stopping && !rn->yielded ? oom_kills() : NAN;
        if (oom > rn->oom_kills)
                return str_printf("the probe process was killed, most likely by the kernel's "
                                  "OOM killer (SIGKILL while oom_kill in %s rose from %.0f "
                                  "to %.0f): its memory cgroup or the host ran out of memory",
                                  vmstat, rn->oom_kills, oom);
        if (WIFSIGNALED(rn->status))
                return str_printf("the probe process was killed by signal %s%s",
                                  sigabbrev_np(WTERMSIG(rn->status))
                                          ? sigabbrev_np(WTERMSIG(rn->status))
                                          : "?",
                                  WCOREDUMP(rn->status) ? " (core dumped)" : "");
        if (WIFEXITED(rn->status) && WEXITSTATUS(rn->status))
                return str_printf("the probe process exited with status %d without a result",
                                  WEXITSTATUS(rn->status));
        if (rn->stopping)
                return str_printf("stopped before the end of the run");
        return str_printf("the probe process ended without sending a result");
}

/* The result the child sent, or a failed one saying what went wrong. */
static struct result *make_result(struct runner *rn)
{
        struct result *res = NULL;
        char *why = NULL;
        bool clean_exit = WIFEXITED(rn->status) && !rn->timed_out && !rn->overflow;
        if (clean_exit && rn->size) {
                if (codec_decode_result(rn->buf, rn->size, &res, &why) < 0) {
                        char *w = str_printf("the probe process sent an unreadable result: %s",
                                             why ? why : "?");
                        free(why);
                        why = w;
                }
        }
        if (!res) {
                if (!why)
                        why = describe_failure(rn);
                res = result_new(rn->probe, rn->plugin);
                if (!res) {
                        free(why);
                        return NULL;
                }
                result_set_error(res, why ? why : "out of memory");
                res->started = rn->started_wall;
                res->duration = now_mono() - rn->started_mono;
                result_add_probe_families(res);
        }
        free(why);
        return res;
}

/* A run stopped to make way for other work is a deferral with a reason,
 * unless it had ended with its figures anyway. */
static void mark_yielded(struct runner *rn, struct result *res)
{
        if (!rn->yielded || res->success)
                return;
        char *why = str_printf("yielded to other work: %s", rn->yield_why);
        if (why)
                result_set_error(res, why);
        free(why);
        res->yielded = rn->yielded;
}

/* What the run went through, beside its figures (tracker.h judges by
 * them): what its threads got and waited for (schedstat) and, from the
 * yield monitor, what other processes took meanwhile. */
static void add_run_figures(struct runner *rn, struct result *res)
{
        double wall = now_mono() - rn->started_mono;
        if (rn->delay && rundelay_threads(rn->delay) && wall > 0) {
                (void)result_add(res, "benchwatch_probe_run_delay_ratio",
                                 "Time the probe's threads were runnable but not running "
                                 "(schedstat run delay, summed over its threads) per second "
                                 "of the run", METRIC_GAUGE, NULL,
                                 rundelay_seconds(rn->delay) / wall, NULL);
                (void)result_add(res, "benchwatch_probe_cpu_seconds",
                                 "Time the probe's threads ran on a CPU during the run "
                                 "(schedstat, summed over its threads)", METRIC_GAUGE, NULL,
                                 rundelay_cpu_seconds(rn->delay), NULL);
                double share = rundelay_wait_share(rn->delay);
                if (!isnan(share))
                        (void)result_add(res, "benchwatch_probe_cpu_wait_ratio",
                                         "Of the time the probe's threads wanted a CPU, the "
                                         "share they waited for one (run delay over run delay "
                                         "plus time on a CPU)", METRIC_GAUGE, NULL, share, NULL);
        }
        if (!rn->yield)
                return;
        struct yield_others o;
        yield_monitor_others(rn->yield, &o);
        (void)result_add(res, "benchwatch_probe_others_cpu_ratio",
                         "Share of the host's CPU time used by other processes during the run",
                         METRIC_GAUGE, NULL, o.cpu, NULL);
        if (!isnan(o.cpu_wait))
                (void)result_add(res, "benchwatch_probe_others_cpu_wait_ratio",
                                 "Share of the run's time in which tasks other than the "
                                 "probe's waited for a CPU (PSI cpu some less the probe's run "
                                 "delay: a lower bound)", METRIC_GAUGE, NULL, o.cpu_wait, NULL);
        if (!isnan(o.io))
                (void)result_add(res, "benchwatch_probe_others_disk_bytes_per_second",
                                 "Bytes other processes read and wrote on the host's disks "
                                 "per second during the run", METRIC_GAUGE, NULL, o.io, NULL);
        if (!isnan(o.memory))
                (void)result_add(res, "benchwatch_probe_others_memory_stall_ratio",
                                 "Share of the run's time in which some task stalled on "
                                 "memory (PSI some)", METRIC_GAUGE, NULL, o.memory, NULL);
}

static void maybe_finish(struct runner *rn)
{
        if (!rn->eof || !rn->exited || rn->finished)
                return;
        rn->finished = true;
        rn->deadline = sd_event_source_disable_unref(rn->deadline);
        rn->grace = sd_event_source_disable_unref(rn->grace);
        rn->yield_timer = sd_event_source_disable_unref(rn->yield_timer);
        rn->delay_timer = sd_event_source_disable_unref(rn->delay_timer);
        struct result *res = make_result(rn);
        if (res && res->success)
                add_run_figures(rn, res);
        if (res) {
                res->io_bound = rn->io_bound;
                res->disk_io = rn->disk_io;
                mark_yielded(rn, res);
        }
        rn->done(rn, res, rn->userdata);
}

static int on_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        struct runner *rn = userdata;
        if (rn->delay && !rn->exited)
                (void)rundelay_sample(rn->delay); /* the run is over: its last waits */
        for (;;) {
                if (rn->size == rn->cap) {
                        size_t ncap = rn->cap ? rn->cap * 2 : 65536;
                        uint8_t *nb = ncap <= MAX_RESULT ? realloc(rn->buf, ncap) : NULL;
                        if (!nb) {
                                rn->overflow = true;
                                kill(-rn->pid, SIGKILL);
                                break;
                        }
                        rn->buf = nb;
                        rn->cap = ncap;
                }
                ssize_t n = read(fd, rn->buf + rn->size, rn->cap - rn->size);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return 0;
                if (n <= 0)
                        break;
                rn->size += (size_t)n;
        }
        rn->eof = true;
        rn->io = sd_event_source_disable_unref(rn->io);
        maybe_finish(rn);
        return 0;
}

static int on_exit_child(sd_event_source *s, const siginfo_t *si, void *userdata)
{
        struct runner *rn = userdata;
        /* sd-event reaps the child after this callback; keep its status */
        if (si->si_code == CLD_EXITED)
                rn->status = W_EXITCODE(si->si_status, 0);
        else
                rn->status = si->si_status | (si->si_code == CLD_DUMPED ? WCOREFLAG : 0);
        rn->exited = true;
        /* anything the plugin left in the group goes with it */
        kill(-rn->pid, SIGKILL);
        rn->child = sd_event_source_disable_unref(rn->child);
        maybe_finish(rn);
        return 0;
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata)
{
        struct runner *rn = userdata;
        rn->timed_out = true;
        kill(-rn->pid, SIGKILL);
        return 0;
}

static int on_yield_tick(sd_event_source *s, uint64_t usec, void *userdata)
{
        struct runner *rn = userdata;
        char *why = NULL;
        if (rn->exited || rn->stopping)
                return 0;
        int r = yield_monitor_sample(rn->yield, &rn->yielded, &why);
        if (r > 0) {
                rn->yield_why = why;
                runner_stop(rn, YIELD_GRACE);
                return 0;
        }
        rn->yielded = NULL;
        if (r < 0)
                return 0; /* the probe is ending: no more samples */
        sd_event_source_set_time(s, usec + (uint64_t)(YIELD_INTERVAL * 1e6));
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int on_delay_tick(sd_event_source *s, uint64_t usec, void *userdata)
{
        struct runner *rn = userdata;
        if (rn->exited || rundelay_sample(rn->delay) == -ENOENT)
                return 0;
        sd_event_source_set_time(s, usec + (uint64_t)(RUNDELAY_INTERVAL * 1e6));
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

/* The probe's threads' run delay; a process we cannot watch has none. */
static int start_delay_watch(struct runner *rn)
{
        if (rundelay_new("/proc", rn->pid, &rn->delay) < 0)
                return 0;
        (void)rundelay_sample(rn->delay);
        return sd_event_add_time_relative(rn->event, &rn->delay_timer, CLOCK_MONOTONIC,
                                          (uint64_t)(RUNDELAY_INTERVAL * 1e6),
                                          YIELD_ACCURACY_USEC, on_delay_tick, rn);
}

/* Watch the host beside the run; a host we cannot watch does not stop it. */
static int start_yield_watch(struct runner *rn, const struct run_spec *spec)
{
        if (!yield_limits_any(spec->yield))
                return 0;
        if (yield_monitor_new(spec->yield, rn->pid, spec->plugin->caps, rn->delay,
                              spec->evidence, &rn->yield) < 0)
                return 0;
        return sd_event_add_time_relative(rn->event, &rn->yield_timer, CLOCK_MONOTONIC,
                                          (uint64_t)(YIELD_INTERVAL * 1e6),
                                          YIELD_ACCURACY_USEC, on_yield_tick, rn);
}

int runner_start(sd_event *e, const struct run_spec *spec, runner_done_fn done,
                 void *userdata, struct runner **ret)
{
        uint8_t *req = NULL;
        size_t req_size = 0;
        int req_pipe[2] = { -1, -1 }, res_pipe[2] = { -1, -1 };
        struct runner *rn = calloc(1, sizeof(*rn));
        int r = rn ? build_request(spec, &req, &req_size) : -ENOMEM;
        if (r >= 0 && req_size > 65536)
                r = -E2BIG; /* would not fit the pipe before the child reads */
        if (r >= 0 && (pipe2(req_pipe, O_CLOEXEC) < 0 || pipe2(res_pipe, O_CLOEXEC) < 0))
                r = -errno;
        if (rn)
                rn->fd = res_pipe[0]; /* closed with rn, whatever fails below */
        if (r >= 0) {
                rn->event = sd_event_ref(e);
                rn->done = done;
                rn->userdata = userdata;
                rn->timeout = spec->timeout;
                rn->io_bound = spec->plugin->caps & BW_CAP_WAITS;
                rn->disk_io = spec->plugin->caps & BW_CAP_DISK_IO;
                rn->probe = strdup(spec->probe);
                rn->plugin = strdup(spec->plugin->name);
                rn->started_wall = now_wall_ms();
                rn->started_mono = now_mono();
                rn->oom_kills = oom_kills();
                r = rn->probe && rn->plugin ? spawn_child(req_pipe[0], res_pipe[1], &rn->pid)
                                            : -ENOMEM;
        }
        if (req_pipe[0] >= 0)
                close(req_pipe[0]);
        if (res_pipe[1] >= 0)
                close(res_pipe[1]);
        if (r >= 0) {
                /* the probe's clock, where the kernel allows it, before the
                 * child has its request and starts its threads */
                if (perfclock_open(rn->pid, &rn->perf) < 0)
                        rn->perf = NULL;
                r = fdio_write_all(req_pipe[1], req, req_size); /* small: fits the pipe */
                if (r == -EPIPE)
                        r = 0; /* the child died at once: its exit status tells */
        }
        if (req_pipe[1] >= 0)
                close(req_pipe[1]);
        if (req)
                explicit_bzero(req, req_size);
        free(req);
        if (r >= 0) {
                fcntl(rn->fd, F_SETFL, O_NONBLOCK);
                r = sd_event_add_io(e, &rn->io, rn->fd, EPOLLIN, on_readable, rn);
        }
        if (r >= 0)
                r = sd_event_add_child(e, &rn->child, rn->pid, WEXITED,
                                       on_exit_child, rn);
        if (r >= 0)
                r = sd_event_add_time_relative(e, &rn->deadline, CLOCK_MONOTONIC,
                                               (uint64_t)(spec->timeout * 1e6),
                                               KILL_ACCURACY_USEC, on_deadline, rn);
        if (r >= 0)
                r = start_delay_watch(rn);
        if (r >= 0)
                r = start_yield_watch(rn, spec);
        if (r < 0) {
                if (rn && rn->pid > 0) {
                        kill(-rn->pid, SIGKILL);
                        waitpid(rn->pid, NULL, 0);
                        rn->pid = 0;
                }
                runner_free(rn);
                return r;
        }
        *ret = rn;
        return 0;
}

static int on_grace(sd_event_source *s, uint64_t usec, void *userdata)
{
        struct runner *rn = userdata;
        kill(-rn->pid, SIGKILL);
        return 0;
}

void runner_stop(struct runner *rn, double grace)
{
        if (!rn || rn->exited || rn->stopping)
                return;
        rn->stopping = true;
        kill(-rn->pid, SIGTERM);
        sd_event_add_time_relative(rn->event, &rn->grace, CLOCK_MONOTONIC,
                                   (uint64_t)(grace * 1e6), KILL_ACCURACY_USEC, on_grace, rn);
}

void runner_free(struct runner *rn)
{
        if (!rn)
                return;
        if (rn->pid > 0 && !rn->exited) {
                kill(-rn->pid, SIGKILL);
                waitpid(rn->pid, NULL, 0);
        }
        sd_event_source_disable_unref(rn->io);
        sd_event_source_disable_unref(rn->child);
        sd_event_source_disable_unref(rn->deadline);
        sd_event_source_disable_unref(rn->grace);
        sd_event_source_disable_unref(rn->yield_timer);
        sd_event_source_disable_unref(rn->delay_timer);
        rundelay_free(rn->delay);
        perfclock_free(rn->perf);
        yield_monitor_free(rn->yield);
        free(rn->yield_why);
        if (rn->fd > 0)
                close(rn->fd);
        sd_event_unref(rn->event);
        free(rn->buf);
        free(rn->probe);
        free(rn->plugin);
        free(rn);
}

struct sync_state {
        sd_event *event;
        struct runner *rn;
        struct result *res;
};

static void sync_done(struct runner *rn, struct result *res, void *userdata)
{
        struct sync_state *st = userdata;
        st->res = res;
        sd_event_exit(st->event, 0);
}

static int sync_signal(sd_event_source *s, const struct signalfd_siginfo *si,
                       void *userdata)
{
        struct sync_state *st = userdata;
        runner_stop(st->rn, 3);
        return 0;
}

struct result *runner_failed_start(const struct run_spec *spec, int err)
{
        struct result *res = result_new(spec->probe, spec->plugin->name);
        if (!res)
                return NULL;
        char *why = str_printf("cannot start the probe process: %s",
                               err == -E2BIG ? "its parameters are over the 64 KiB a "
                                               "probe process is handed" : strerror(-err));
        result_set_error(res, why ? why : "cannot start the probe process");
        free(why);
        res->started = now_wall_ms();
        result_add_probe_families(res);
        return res;
}

struct result *runner_run_sync(const struct run_spec *spec)
{
        struct sync_state st = { 0 };
        sigset_t mask, old;
        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigprocmask(SIG_BLOCK, &mask, &old);
        int r = sd_event_new(&st.event);
        if (r >= 0)
                r = sd_event_add_signal(st.event, NULL, SIGINT, sync_signal, &st);
        if (r >= 0)
                r = sd_event_add_signal(st.event, NULL, SIGTERM, sync_signal, &st);
        if (r >= 0)
                r = runner_start(st.event, spec, sync_done, &st, &st.rn);
        if (r >= 0)
                r = sd_event_loop(st.event);
        runner_free(st.rn);
        sd_event_unref(st.event);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return st.res ? st.res : runner_failed_start(spec, r < 0 ? r : -EIO);
}
