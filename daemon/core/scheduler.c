/* scheduler.c — see scheduler.h.
 *
 * All times are CLOCK_MONOTONIC seconds.  The one timer is armed for the
 * earliest of the slots' next times, but never before the duty-cycle quiet
 * time ends; it is off while a run is in progress (the run's end re-arms
 * it) and during the look before one.  A slot is the schedule of one
 * enabled probe and survives reloads by name, with its deferral count and
 * latest result.
 *
 * The look: before a run, the host is sampled YIELD_SAMPLES times, as a
 * running probe is (yield.h), with the daemon itself in the probe's place.
 * The run is deferred when the CPUs it may run on had less idle time than
 * [daemon] room times the CPUs the probe keeps busy (its last run's CPU
 * time per second; at most all of them: yield_room_needed), or when
 * others' disk I/O or memory stalls would make it yield at once: on a
 * busy host no probe process is started only to be stopped half a second
 * later, again and again, while a host with room for the probe, however
 * busy its other CPUs, runs it.  What the look saw
 * of others' waits for a CPU is what the run's own watch compares with. */
#include "core/scheduler.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/busy.h"
#include "core/evidence.h"
#include "core/log.h"
#include "core/priority.h"
#include "core/runspec.h"
#include "core/runwatch.h"
#include "core/yield.h"
#include "util/format.h"
#include "util/strutil.h"
#include "util/timeutil.h"

#define STOP_GRACE 3.0          /* SIGTERM .. SIGKILL of a run on stop */
#define STALL_SLACK 30.0        /* how late is "not making progress" */
#define DEFER_RETRY_MAX 900.0   /* backoff cap of deferred runs */
#define SCHEDULE_ACCURACY_USEC 1000 /* how late a due run may start, for timer slack */
#define DEFERRED_FAMILY "benchwatch_probe_deferred_total"
#define DEFERRED_HELP "runs of the probe deferred (before they started) or " \
        "yielded (stopped during the run) because other work needed the resource, " \
        "since the daemon started"

/* The reasons of benchwatch_probe_deferred_total{reason}: the resources of
 * busy_check() and of yield.h, no room for the probe in the look, and a
 * device the plugin found in use (a GPU); every one is always exported. */
enum { REASON_CPU, REASON_IO, REASON_MEMORY, REASON_LOAD, REASON_ROOM, REASON_DEVICE,
       N_REASONS };
static const char *const reason_names[N_REASONS] = { "cpu", "io", "memory", "load", "room",
                                                     "device" };

struct slot {
        char *name;
        char *fingerprint;      /* plugin, timeout, parameters */
        double next;
        double interval;
        unsigned streak;        /* deferrals in a row */
        double deferred;        /* deferrals since the daemon started */
        double deferred_by[N_REASONS];
        /* deferrals and yields by hour (UNIX hour % 24), for the last day */
        unsigned hour_deferred[24], hour_yielded[24];
        long hour_of[24];
        bool tried;             /* run (or deferred) once since the start */
        struct result *last;    /* latest result, as published */
};

struct scheduler {
        sd_event *event;
        sd_event_source *timer;
        const struct config *cfg;       /* the running configuration */
        const struct plugin_registry *reg;
        struct scheduler_callbacks cb;
        void *userdata;
        struct slot *slots;
        size_t n;
        struct runner *running;
        struct param_set *running_params;
        char *running_name;
        double run_started, run_timeout;
        struct evidence_host *evidence; /* the host's counters (NULL: none) */
        struct runwatch run_watch;      /* the host when the run started */
        struct yield_limits yield;      /* of the running probe */
        sd_event_source *look_timer;
        struct yield_monitor *look;     /* the host, before a run of look_name */
        char *look_name;
        unsigned look_samples;
        double look_cpu_wait;           /* others' CPU waits the look saw (0..1) */
        double quiet_until;     /* duty cycle: no run starts before */
        void (*idle)(void *userdata);
        void *idle_userdata;
        bool stopping;
        bool first_pass;        /* scheduler_first_pass(): no pause until every slot was tried */
        unsigned runs, failures;
        double deferrals;
        char *last_probe;
        bool last_ok;
        double last_end;
};

static double random_unit(void)
{
        uint32_t v = 0;
        if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
                v = (uint32_t)(now_ns() * 2654435761u);
        return v / 4294967296.0;
}

static double daemon_opt(const struct scheduler *s, int i)
{
        return s->cfg->daemon->values[i].d;
}

/* Each wait is lengthened by 0..splay x interval. */
static double splay_of(const struct scheduler *s, double interval)
{
        return random_unit() * fmin(daemon_opt(s, CFG_D_SPLAY), 1.0) * interval;
}

/* The first run after start (or of a new probe) waits 0..splay x interval,
 * but at most first_splay (the duty cycle's pause after each run still
 * spaces them: scheduler_first_pass() is for a pass without it). */
static double first_splay_of(const struct scheduler *s, double interval)
{
        double most = fmin(fmin(daemon_opt(s, CFG_D_SPLAY), 1.0) * interval,
                           daemon_opt(s, CFG_D_FIRST_SPLAY));
        return random_unit() * most;
}

static void slot_clear(struct slot *slot)
{
        if (slot->fingerprint)
                explicit_bzero(slot->fingerprint, strlen(slot->fingerprint));
        free(slot->fingerprint);
        free(slot->name);
        result_free(slot->last);
        *slot = (struct slot){ 0 };
}

static struct slot *find_slot(struct scheduler *s, const char *name)
{
        for (size_t i = 0; i < s->n; i++)
                if (!strcmp(s->slots[i].name, name))
                        return &s->slots[i];
        return NULL;
}

static void arm(struct scheduler *s);

/* ---- deferral count ------------------------------------------------------- */

static int reason_index(const char *reason)
{
        for (int i = 0; i < N_REASONS; i++)
                if (reason && !strcmp(reason, reason_names[i]))
                        return i;
        return REASON_LOAD;
}

static const char *reason_name(const char *reason)
{
        return reason_names[reason_index(reason)];
}

/* Sets the probe's deferral counts on res (adding the samples missing). */
static int set_deferred(struct result *res, const struct slot *slot)
{
        int r = 0;
        for (int i = 0; i < N_REASONS && r >= 0; i++) {
                const char *lv[] = { "reason", reason_names[i], NULL };
                double count = slot ? slot->deferred_by[i] : 0;
                struct sample *s = (struct sample *)result_find_sample(res, DEFERRED_FAMILY, lv);
                if (s)
                        s->value = count;
                else
                        r = result_add(res, DEFERRED_FAMILY, DEFERRED_HELP, METRIC_COUNTER,
                                       lv, count, NULL);
        }
        return r;
}

/* The probe's state after a deferral: its latest result with the count
 * brought up to date, or, before its first run, the count alone.  Not a
 * run: the daemon shows it (sink_set_show), it publishes no result. */
static struct result *state_of(const struct slot *slot, const char *plugin)
{
        struct result *res = slot->last ? result_copy(slot->last)
                                        : result_new(slot->name, plugin);
        if (res && set_deferred(res, slot) < 0) {
                result_free(res);
                res = NULL;
        }
        return res;
}

static double retry_delay(const struct slot *slot)
{
        double base = fmin(fmax(slot->interval / 4, 1), 60);
        double cap = fmax(fmin(slot->interval, DEFER_RETRY_MAX), base);
        double d = base * ldexp(1, (int)fmin(slot->streak, 20) - 1);
        return fmin(d, cap);
}

/* One more deferral (or yield) in the hourly buckets of the last day. */
static void count_hourly(struct slot *slot, bool yield)
{
        long hour = (long)(now_wall() / 3600);
        int i = (int)(hour % 24);
        if (slot->hour_of[i] != hour) {
                slot->hour_of[i] = hour;
                slot->hour_deferred[i] = slot->hour_yielded[i] = 0;
        }
        if (yield)
                slot->hour_yielded[i]++;
        else
                slot->hour_deferred[i]++;
}

static void defer(struct scheduler *s, struct slot *slot, const char *plugin,
                  const char *reason, const char *why, bool yield)
{
        char buf[32];
        slot->tried = true;
        count_hourly(slot, yield);
        slot->deferred++;
        slot->deferred_by[reason_index(reason)]++;
        slot->streak++;
        s->deferrals++;
        double delay = retry_delay(slot);
        slot->next = now_mono() + delay;
        /* once per streak: a host that stays busy does not flood the log */
        log_msg(slot->streak == 1 ? LOG_NOTICE : LOG_DEBUG,
                "%s probe '%s' deferred, host busy: %s; next try in %s", plugin,
                slot->name, why, format_duration(delay, buf, sizeof(buf)));
        struct result *state = s->cb.deferred ? state_of(slot, plugin) : NULL;
        if (state) {
                s->cb.deferred(state, reason_name(reason), why, s->userdata);
                /* what the sinks show now, and what a reload hands them */
                result_free(slot->last);
                slot->last = state;
        }
}

/* ---- runs ---------------------------------------------------------------------- */

static void clear_running(struct scheduler *s)
{
        s->running = NULL;
        param_set_free(s->running_params);
        s->running_params = NULL;
        free(s->running_name);
        s->running_name = NULL;
}

/* Whether the first pass is still going: a slot not yet tried. */
static bool in_first_pass(const struct scheduler *s)
{
        for (size_t i = 0; s->first_pass && i < s->n; i++)
                if (!s->slots[i].tried)
                        return true;
        return false;
}

/* After a run of d seconds, none for d x (1/duty_cycle - 1); during the
 * first pass the next probe follows at once.  (conf_daemon_mean_period()
 * tells how far apart runs are by these rules and start()'s splay.) */
static void account_duty(struct scheduler *s, double end)
{
        double dc = daemon_opt(s, CFG_D_DUTY_CYCLE);
        double d = fmax(end - s->run_started, 0);
        s->quiet_until = dc > 0 && dc < 1 && !in_first_pass(s) ? end + d * (1 / dc - 1) : end;
}

/* A run stopped to make way for other work: a deferral, retried later;
 * neither a run nor a failure, and nothing of it reaches the baselines. */
static void yielded(struct scheduler *s, struct slot *slot, struct result *res)
{
        const char *why = res->error ? res->error : "yielded to other work";
        defer(s, slot, res->plugin, res->yielded, why, true);
        result_free(res);
        if (s->cb.changed)
                s->cb.changed(s->userdata);
        arm(s);
}

/* A run's result (or a start's failure) to the sinks, kept as what they
 * show of the probe until its next. */
static void publish(struct scheduler *s, struct slot *slot, struct result *res)
{
        (void)set_deferred(res, slot);
        s->cb.result(res, s->userdata);
        result_free(slot->last);
        slot->last = res;
}

static void on_done(struct runner *rn, struct result *res, void *userdata)
{
        struct scheduler *s = userdata;
        double end = now_mono();
        struct slot *slot = find_slot(s, res->probe);
        if (slot)
                slot->tried = true;
        account_duty(s, end);
        /* what the host went through, beside the figures (runwatch.h) */
        if (res->success && !res->yielded && !s->stopping)
                (void)runwatch_add(&s->run_watch, s->evidence, runner_perfclock(rn), res);
        runner_free(rn); /* safe: the runner touches nothing after done() */
        clear_running(s);
        if (!res->yielded) {
                s->runs++;
                s->failures += !res->success;
                free(s->last_probe);
                s->last_probe = strdup(res->probe);
                s->last_ok = res->success;
                s->last_end = end;
        }
        if (s->stopping) {
                /* cut short by us: not a measurement, and not a failure */
                log_info("%s probe '%s': run interrupted by the stop, result discarded",
                         res->plugin, res->probe);
                result_free(res);
                if (s->idle)
                        s->idle(s->idle_userdata);
                return;
        }
        if (!slot) {
                /* removed by a reload during its run: its figures would be
                 * series no probe makes any more, a failure an alert */
                log_info("%s probe '%s': removed during its run, result discarded",
                         res->plugin, res->probe);
                result_free(res);
                arm(s);
                return;
        }
        if (res->yielded) {
                yielded(s, slot, res);
                return;
        }
        publish(s, slot, res);
        arm(s);
}

static void start(struct scheduler *s, struct slot *slot)
{
        const struct probe_cfg *pc = conf_find_probe(s->cfg, slot->name);
        struct run_spec spec;
        double now = now_mono();
        slot->next = now + slot->interval + splay_of(s, slot->interval);
        if (slot->streak > 1)
                log_info("%s probe '%s': running after %u deferrals", pc->plugin->name,
                         pc->name, slot->streak);
        slot->streak = 0;
        s->running_name = strdup(pc->name);
        if (!s->running_name || param_set_copy(pc->params, &s->running_params) < 0) {
                log_error("%s probe '%s': out of memory", pc->plugin->name, pc->name);
                clear_running(s);
                return;
        }
        runspec_fill(s->cfg, s->reg->dir, s->running_name, pc->plugin, s->running_params,
                     pc->timeout, &spec);
        runspec_yield_limits(s->cfg, false, &s->yield);
        /* under SCHED_IDLE any other task preempts the probe at once: it
         * takes no CPU from others, and a rise of their waits meanwhile is
         * theirs (its own starving still stops it) */
        if (spec.cpu_policy == PRIO_CPU_IDLE)
                s->yield.cpu_wait = 0;
        s->yield.cpu_wait_before = s->look_cpu_wait;
        s->look_cpu_wait = 0;
        spec.yield = &s->yield;
        spec.evidence = s->evidence;
        runwatch_start(&s->run_watch, s->evidence);
        int r = runspec_ensure_dir(spec.cache_dir);
        bool no_dir = r < 0;
        if (r >= 0)
                r = runner_start(s->event, &spec, on_done, s, &s->running);
        if (r < 0) {
                /* a failed run, as the sinks show one: a cache_dir that
                 * cannot be made fails every run, and says so there too */
                struct result *res = runner_failed_start(&spec, r);
                char *why = no_dir ? str_printf("cannot make cache_dir '%s': %s",
                                                spec.cache_dir, strerror(-r)) : NULL;
                if (res && why)
                        (void)result_set_error(res, why);
                free(why);
                log_error("%s probe '%s': %s", pc->plugin->name, pc->name,
                          res ? res->error : strerror(-r));
                clear_running(s);
                s->failures++;
                if (res)
                        publish(s, slot, res);
                return;
        }
        s->run_started = now;
        s->run_timeout = pc->timeout;
        log_debug("%s probe '%s': started (pid %d)", pc->plugin->name, pc->name,
                  (int)runner_pid(s->running));
}

/* ---- the look before a run ------------------------------------------------- */

static void end_look(struct scheduler *s)
{
        yield_monitor_free(s->look);
        s->look = NULL;
        free(s->look_name);
        s->look_name = NULL;
        s->look_samples = 0;
        sd_event_source_set_enabled(s->look_timer, SD_EVENT_OFF);
}

#define NEEDS_MIN 0.1 /* CPUs: a probe that sleeps on its I/O still needs some */

/* The CPUs a run of the probe keeps busy.  A CPU-bound plugin's threads
 * (its concurrency parameter) each want one all the run, whatever its
 * last run got (a run held off the CPU, or one that slept between its
 * phases, used less); of another probe, its last run's CPU time per
 * second of the run (at least NEEDS_MIN), one before its first run. */
static double needs_of(const struct probe_cfg *pc, const struct slot *slot)
{
        const struct bw_plugin *p = pc->plugin;
        int i = p->concurrency_param ? param_index(p->params, p->concurrency_param) : -1;
        if (i >= 0 && (p->caps & BW_CAP_CPU_BOUND) && p->params[i].type == BW_PARAM_INT)
                return fmax((double)pc->params->values[i].i, 1);
        const struct result *last = slot->last;
        const struct sample *cpu = last ? result_find_sample(last, "benchwatch_probe_cpu_seconds",
                                                             NULL) : NULL;
        if (cpu && last->duration > 0)
                return fmax(cpu->value / last->duration, NEEDS_MIN);
        return 1;
}

/* 1 and *ret_why when the look found no room for the probe's run. */
static int no_room(struct scheduler *s, const struct slot *slot, char **ret_why)
{
        const struct probe_cfg *pc = conf_find_probe(s->cfg, slot->name);
        double room = daemon_opt(s, CFG_D_ROOM);
        struct yield_others o;
        yield_monitor_others(s->look, &o);
        s->look_cpu_wait = isnan(o.cpu_wait) ? 0 : o.cpu_wait;
        if (!pc || !(room > 0) || isnan(o.idle_cpus) || !o.cpus)
                return 0;
        double needs = fmin(needs_of(pc, slot), o.cpus);
        double needed = yield_room_needed(room, needs, o.cpus);
        if (o.idle_cpus >= needed)
                return 0;
        /* two decimals: 0.76 idle against 0.80 needed is not "0.8 of 0.8" */
        *ret_why = str_printf("no room: %.2f of %u CPUs idle, the probe keeps %.2f busy and "
                              "needs %.2f idle (room %g)", o.idle_cpus, o.cpus, needs, needed,
                              room);
        return *ret_why ? 1 : -ENOMEM;
}

/* 1 and *ret_why when others waited for a CPU more than max_psi_cpu of
 * the look (PSI "some", no probe running).  The look stands in for the
 * kernel's 10-second average, which at short intervals holds the probe's
 * own last run: a probe beside a busy CPU would defer itself. */
static int pressed(const struct scheduler *s, char **ret_why)
{
        double limit = daemon_opt(s, CFG_D_MAX_PSI_CPU);
        if (!(limit > 0) || !(100 * s->look_cpu_wait > limit))
                return 0;
        *ret_why = str_printf("cpu pressure %.1f%% > %g%% while the daemon looked",
                              100 * s->look_cpu_wait, limit);
        return *ret_why ? 1 : -ENOMEM;
}

/* After the look's samples, whether the run would yield at once or has no
 * room decides: deferred, or started (also when the host cannot be read: a
 * host we cannot watch does not stop it). */
static int on_look(sd_event_source *src, uint64_t usec, void *userdata)
{
        struct scheduler *s = userdata;
        const char *reason = NULL;
        char *why = NULL;
        int r = yield_monitor_sample(s->look, &reason, &why);
        if (r == 0 && ++s->look_samples < YIELD_SAMPLES) {
                sd_event_source_set_time(src, usec + (uint64_t)(YIELD_INTERVAL * 1e6));
                return sd_event_source_set_enabled(src, SD_EVENT_ONESHOT);
        }
        struct slot *slot = find_slot(s, s->look_name);
        if (r == 0 && slot && (r = no_room(s, slot, &why)) > 0)
                reason = reason_names[REASON_ROOM];
        if (r == 0 && slot && (r = pressed(s, &why)) > 0)
                reason = reason_names[REASON_CPU];
        end_look(s);
        /* a reload meanwhile may have removed or rescheduled the probe */
        if (slot && slot->next <= now_mono() + 0.001) {
                const struct probe_cfg *pc = conf_find_probe(s->cfg, slot->name);
                if (r > 0)
                        defer(s, slot, pc->plugin->name, reason, why, false);
                else
                        start(s, slot);
                if (s->cb.changed)
                        s->cb.changed(s->userdata);
        }
        free(why);
        if (!s->running)
                arm(s);
        return 0;
}

/* 0 when the look has begun, -errno when the run should start now.  The
 * look watches others' disk I/O and memory stalls as a run does; room
 * stands in for the CPU checks, which need a run to compare with. */
static int begin_look(struct scheduler *s, const struct slot *slot, const struct probe_cfg *pc)
{
        struct yield_limits lim;
        runspec_yield_limits(s->cfg, false, &lim);
        if (!yield_limits_any(&lim))
                return -ENOENT;
        lim.cpu_wait = 0;
        lim.starved = false;
        int r = yield_monitor_new(&lim, getpid(), pc->plugin->caps, NULL, NULL, &s->look);
        if (r >= 0 && !(s->look_name = strdup(slot->name)))
                r = -ENOMEM;
        if (r >= 0)
                r = sd_event_source_set_time_relative(s->look_timer,
                                                      (uint64_t)(YIELD_INTERVAL * 1e6));
        if (r >= 0)
                r = sd_event_source_set_enabled(s->look_timer, SD_EVENT_ONESHOT);
        if (r < 0)
                end_look(s);
        return r;
}

/* The due slot runs unless the host is busy now or in the look; where
 * there is a look, CPU pressure is judged over it (pressed()).  I/O
 * pressure defers only a probe whose figure others' I/O moves: one that
 * does disk I/O, or drives a server (which may); a cpu or memory probe
 * runs beside a host waiting on its disks. */
static void run_or_defer(struct scheduler *s, struct slot *slot)
{
        const struct probe_cfg *pc = conf_find_probe(s->cfg, slot->name);
        struct yield_limits yl;
        runspec_yield_limits(s->cfg, false, &yl);
        bool io_moves = pc->plugin->caps & (BW_CAP_DISK_IO | BW_CAP_NETWORK);
        const struct busy_limits lim = {
                .max_load = daemon_opt(s, CFG_D_MAX_LOAD),
                .max_psi_cpu = yield_limits_any(&yl) ? 0 : daemon_opt(s, CFG_D_MAX_PSI_CPU),
                .max_psi_io = io_moves ? daemon_opt(s, CFG_D_MAX_PSI_IO) : 0,
                .max_psi_memory = daemon_opt(s, CFG_D_MAX_PSI_MEMORY),
        };
        char *why = NULL;
        const char *reason = NULL;
        int r = busy_check(&lim, &reason, &why);
        if (r > 0)
                defer(s, slot, pc->plugin->name, reason, why, false);
        else if (begin_look(s, slot, pc) < 0)
                start(s, slot);
        free(why);
        if (s->cb.changed)
                s->cb.changed(s->userdata);
}

static struct slot *earliest(struct scheduler *s)
{
        struct slot *due = NULL;
        for (size_t i = 0; i < s->n; i++)
                if (!due || s->slots[i].next < due->next)
                        due = &s->slots[i];
        return due;
}

static int on_timer(sd_event_source *src, uint64_t usec, void *userdata)
{
        struct scheduler *s = userdata;
        if (s->running || s->look || s->stopping)
                return 0;
        double now = now_mono();
        struct slot *due = earliest(s);
        if (due && due->next <= now + 0.001 && s->quiet_until <= now + 0.001)
                run_or_defer(s, due);
        if (!s->running && !s->look)
                arm(s);
        return 0;
}

/* Sleep until the earliest next run, or the end of the quiet time. */
static void arm(struct scheduler *s)
{
        struct slot *due = earliest(s);
        if (s->running || s->look || s->stopping || !due) {
                sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
                return;
        }
        double at = fmax(fmax(due->next, s->quiet_until), now_mono());
        sd_event_source_set_time(s->timer, (uint64_t)ceil(at * 1e6));
        sd_event_source_set_enabled(s->timer, SD_EVENT_ONESHOT);
}

/* ---- configuration ---------------------------------------------------------------- */

/* Everything of a probe that, when it changes, makes it a new probe. */
static char *fingerprint(const struct probe_cfg *pc)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        fprintf(f, "%s\n%.17g\n%.17g\n", pc->plugin->name, pc->interval, pc->timeout);
        const struct param_set *ps = pc->params;
        for (size_t i = 0; i < ps->n; i++) {
                const struct bw_param_value *v = &ps->values[i];
                fprintf(f, "%s=", ps->defs[i].name);
                if (ps->defs[i].flags & BW_PARAM_MULTI)
                        for (size_t k = 0; k < v->n_list; k++)
                                fprintf(f, "%s%s", k ? "," : "", v->list[k]);
                else
                        fputs(param_text(ps, i) ? param_text(ps, i) : "", f);
                fputc('\n', f);
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* The new slot for pc, taking over what old (same name) had. */
static int make_slot(struct scheduler *s, const struct probe_cfg *pc,
                     struct slot *old, struct slot *ret)
{
        ret->name = strdup(pc->name);
        ret->fingerprint = fingerprint(pc);
        if (!ret->name || !ret->fingerprint)
                return -ENOMEM;
        ret->interval = pc->interval;
        bool same = old && !strcmp(old->fingerprint, ret->fingerprint);
        ret->next = same ? old->next : now_mono() + first_splay_of(s, pc->interval);
        if (old) {
                ret->deferred = old->deferred;
                memcpy(ret->deferred_by, old->deferred_by, sizeof(ret->deferred_by));
                memcpy(ret->hour_deferred, old->hour_deferred, sizeof(ret->hour_deferred));
                memcpy(ret->hour_yielded, old->hour_yielded, sizeof(ret->hour_yielded));
                memcpy(ret->hour_of, old->hour_of, sizeof(ret->hour_of));
                ret->streak = same ? old->streak : 0;
                ret->tried = old->tried;
                ret->last = old->last;
                old->last = NULL;
        }
        if (old && !same)
                log_info("%s probe '%s' changed: scheduled afresh", pc->plugin->name, pc->name);
        else if (!old && s->slots)
                log_info("%s probe '%s' added", pc->plugin->name, pc->name);
        return 0;
}

static void log_removed(struct scheduler *s, const struct slot *slots, size_t n)
{
        for (size_t i = 0; s->slots && i < s->n; i++) {
                bool kept = false;
                for (size_t k = 0; k < n && !kept; k++)
                        kept = !strcmp(slots[k].name, s->slots[i].name);
                if (!kept)
                        log_info("probe '%s' removed", s->slots[i].name);
        }
}

int scheduler_reload(struct scheduler *s, const struct config *cfg)
{
        const struct config *old = s->cfg;
        s->cfg = cfg;   /* make_slot's splay is the new configuration's */
        struct slot *slots = calloc(cfg->n_probes + 1, sizeof(*slots));
        size_t n = 0;
        int r = slots ? 0 : -ENOMEM;
        for (size_t i = 0; r >= 0 && i < cfg->n_probes; i++) {
                const struct probe_cfg *pc = &cfg->probes[i];
                if (!pc->enabled)
                        continue;
                r = make_slot(s, pc, find_slot(s, pc->name), &slots[n++]);
        }
        if (r < 0) {
                /* results already taken over go with the half-built slots */
                for (size_t k = 0; slots && k < n; k++)
                        slot_clear(&slots[k]);
                free(slots);
                s->cfg = old;
                return r;
        }
        log_removed(s, slots, n);
        for (size_t i = 0; i < s->n; i++)
                slot_clear(&s->slots[i]);
        free(s->slots);
        s->slots = slots;
        s->n = n;
        arm(s);
        return 0;
}

/* ---- the rest ---------------------------------------------------------------------- */

int scheduler_new(sd_event *e, const struct config *cfg, const struct plugin_registry *reg,
                  const struct scheduler_callbacks *cb, void *userdata, struct scheduler **ret)
{
        struct scheduler *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->event = sd_event_ref(e);
        s->reg = reg;
        s->cb = *cb;
        s->userdata = userdata;
        /* a host we cannot read has no evidence, and still runs its probes */
        (void)evidence_host_new(runwatch_root(), KMSG_FROM_NOW, &s->evidence);
        /* a run starts when due: sd-event's default slack (accuracy 0)
         * is 250 ms, which made a 1-s probe whose run took a second
         * start every 1.25 s */
        int r = sd_event_add_time(e, &s->timer, CLOCK_MONOTONIC, 0, SCHEDULE_ACCURACY_USEC,
                                  on_timer, s);
        if (r >= 0)
                r = sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
        if (r >= 0)
                r = sd_event_add_time(e, &s->look_timer, CLOCK_MONOTONIC, 0,
                                      YIELD_ACCURACY_USEC, on_look, s);
        if (r >= 0)
                r = sd_event_source_set_enabled(s->look_timer, SD_EVENT_OFF);
        if (r >= 0)
                r = scheduler_reload(s, cfg);
        if (r < 0) {
                scheduler_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

void scheduler_first_pass(struct scheduler *s)
{
        double now = now_mono();
        s->first_pass = true;
        /* in the configuration's order: earliest() takes the first of equals */
        for (size_t i = 0; i < s->n; i++)
                if (!s->slots[i].tried)
                        s->slots[i].next = now;
        arm(s);
}

void scheduler_stop(struct scheduler *s, void (*idle)(void *userdata), void *userdata)
{
        s->stopping = true;
        end_look(s);
        s->idle = idle;
        s->idle_userdata = userdata;
        arm(s);
        if (s->running)
                runner_stop(s->running, STOP_GRACE);
        else if (idle)
                idle(userdata);
}

bool scheduler_busy(const struct scheduler *s)
{
        return s->running != NULL;
}

const char *scheduler_stalled(const struct scheduler *s)
{
        double now = now_mono();
        if (s->running)
                return now > s->run_started + s->run_timeout + STOP_GRACE + STALL_SLACK
                               ? "a probe run outlived its deadline and was not reaped"
                               : NULL;
        const struct slot *due = earliest((struct scheduler *)s);
        if (s->stopping || !due)
                return NULL;
        return now > fmax(due->next, s->quiet_until) + STALL_SLACK
                       ? "a due probe run did not start" : NULL;
}

char *scheduler_status(const struct scheduler *s)
{
        char *deferred = s->deferrals ? str_printf(", %.0f deferred (host busy)", s->deferrals)
                                      : strdup("");
        char *st = NULL;
        if (!deferred)
                return NULL;
        if (!s->last_probe)
                st = str_printf("%zu probe(s) scheduled, none run yet%s%s%s", s->n, deferred,
                                s->running_name ? "; running " : "",
                                s->running_name ? s->running_name : "");
        else
                st = str_printf("%zu probe(s); %u run(s), %u failed%s; last: %s %s %.0fs ago%s%s",
                                s->n, s->runs, s->failures, deferred, s->last_probe,
                                s->last_ok ? "ok" : "FAILED", now_mono() - s->last_end,
                                s->running_name ? "; running " : "",
                                s->running_name ? s->running_name : "");
        free(deferred);
        return st;
}

size_t scheduler_count(const struct scheduler *s)
{
        return s->n;
}

const struct result *scheduler_latest(const struct scheduler *s, size_t i)
{
        return i < s->n ? s->slots[i].last : NULL;
}

void scheduler_probe_info(const struct scheduler *s, size_t i, struct scheduler_probe_info *ret)
{
        const struct slot *slot = &s->slots[i];
        double wall = now_wall();
        long hour = (long)(wall / 3600);
        *ret = (struct scheduler_probe_info){
                .name = slot->name,
                .interval = slot->interval,
                .next = wall + fmax(fmax(slot->next, s->quiet_until) - now_mono(), 0),
                .running = s->running_name && !strcmp(s->running_name, slot->name),
        };
        for (int h = 0; h < 24; h++) {
                if (slot->hour_of[h] <= hour - 24 || slot->hour_of[h] > hour)
                        continue;
                ret->deferred_day += slot->hour_deferred[h];
                ret->yielded_day += slot->hour_yielded[h];
        }
}

void scheduler_free(struct scheduler *s)
{
        if (!s)
                return;
        runner_free(s->running);
        param_set_free(s->running_params);
        free(s->running_name);
        for (size_t i = 0; i < s->n; i++)
                slot_clear(&s->slots[i]);
        free(s->slots);
        free(s->last_probe);
        yield_monitor_free(s->look);
        free(s->look_name);
        evidence_host_free(s->evidence);
        sd_event_source_disable_unref(s->look_timer);
        sd_event_source_disable_unref(s->timer);
        sd_event_unref(s->event);
        free(s);
}

char *scheduler_evidence_absent(const struct scheduler *s)
{
        return s->evidence ? evidence_host_absent_text(s->evidence) : NULL;
}
