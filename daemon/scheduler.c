/* scheduler.c — see scheduler.h. */
#include "scheduler.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "log.h"
#include "strutil.h"
#include "timeutil.h"

struct slot {
        char *name;
        double next;        /* CLOCK_MONOTONIC seconds */
        double interval;
};

struct sched {
        sd_event *event;
        sd_event_source *timer;
        const struct app *app;
        sched_result_fn fn;
        void *userdata;
        struct slot *slots;
        size_t n;
        struct runner *running;
        struct param_set *running_params;
        char *running_name;
        void (*idle)(void *userdata);
        void *idle_userdata;
        bool stopping;
        unsigned runs, failures;
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

static double splay_of(const struct sched *s, double interval)
{
        double splay = s->app->cfg->daemon->values[CFG_D_SPLAY].d;
        /* splay is a share of the interval; spread the first runs over it */
        return random_unit() * fmin(splay, 1.0) * interval;
}

static void arm(struct sched *s);

static void on_done(struct runner *rn, struct result *res, void *userdata)
{
        struct sched *s = userdata;
        s->runs++;
        s->failures += !res->success;
        free(s->last_probe);
        s->last_probe = strdup(res->probe);
        s->last_ok = res->success;
        s->last_end = now_mono();
        s->running = NULL;
        runner_free(rn); /* safe: the runner touches nothing after done() */
        param_set_free(s->running_params);
        s->running_params = NULL;
        free(s->running_name);
        s->running_name = NULL;
        s->fn(res, s->userdata);
        if (s->stopping) {
                if (s->idle)
                        s->idle(s->idle_userdata);
                return;
        }
        arm(s);
}

static struct slot *find_slot(struct sched *s, const char *name)
{
        for (size_t i = 0; i < s->n; i++)
                if (!strcmp(s->slots[i].name, name))
                        return &s->slots[i];
        return NULL;
}

static void start(struct sched *s, struct slot *slot)
{
        const struct probe_cfg *pc = config_find_probe(s->app->cfg, slot->name);
        struct run_spec spec;
        slot->next = now_mono() + slot->interval;
        if (param_set_copy(pc->params, &s->running_params) < 0) {
                log_error("%s probe '%s': out of memory", pc->plugin->name, pc->name);
                return;
        }
        s->running_name = strdup(pc->name);
        app_run_spec(s->app, s->running_name, pc->plugin, s->running_params, pc->timeout, &spec);
        int r = app_ensure_dir(spec.cache_dir);
        if (r >= 0)
                r = runner_start(s->event, &spec, on_done, s, &s->running);
        if (r < 0) {
                log_error("%s probe '%s': cannot start a run: %s", pc->plugin->name,
                          pc->name, strerror(-r));
                param_set_free(s->running_params);
                s->running_params = NULL;
                free(s->running_name);
                s->running_name = NULL;
                s->running = NULL;
                s->failures++;
        } else {
                log_debug("%s probe '%s': started (pid %d)", pc->plugin->name, pc->name,
                          (int)runner_pid(s->running));
        }
}

static int on_timer(sd_event_source *src, uint64_t usec, void *userdata)
{
        struct sched *s = userdata;
        if (s->running || s->stopping)
                return 0;
        struct slot *due = NULL;
        for (size_t i = 0; i < s->n; i++)
                if (!due || s->slots[i].next < due->next)
                        due = &s->slots[i];
        if (due && due->next <= now_mono() + 0.001)
                start(s, due);
        if (!s->running)
                arm(s);
        return 0;
}

/* Sleep until the earliest next run. */
static void arm(struct sched *s)
{
        double next = INFINITY;
        for (size_t i = 0; i < s->n; i++)
                next = fmin(next, s->slots[i].next);
        if (s->running || s->stopping || !isfinite(next)) {
                sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
                return;
        }
        double at = fmax(next, now_mono());
        sd_event_source_set_time(s->timer, (uint64_t)(at * 1e6));
        sd_event_source_set_enabled(s->timer, SD_EVENT_ONESHOT);
}

int sched_reload(struct sched *s)
{
        const struct config *cfg = s->app->cfg;
        struct slot *slots = calloc(cfg->n_probes + 1, sizeof(*slots));
        size_t n = 0;
        if (!slots)
                return -ENOMEM;
        for (size_t i = 0; i < cfg->n_probes; i++) {
                const struct probe_cfg *pc = &cfg->probes[i];
                if (!pc->enabled)
                        continue;
                struct slot *old = find_slot(s, pc->name);
                slots[n].name = strdup(pc->name);
                if (!slots[n].name) {
                        for (size_t k = 0; k < n; k++)
                                free(slots[k].name);
                        free(slots);
                        return -ENOMEM;
                }
                slots[n].interval = pc->interval;
                slots[n].next = old && old->interval == pc->interval
                                        ? old->next
                                        : now_mono() + splay_of(s, pc->interval);
                n++;
        }
        for (size_t i = 0; i < s->n; i++)
                free(s->slots[i].name);
        free(s->slots);
        s->slots = slots;
        s->n = n;
        arm(s);
        return 0;
}

int sched_new(sd_event *e, const struct app *app, sched_result_fn fn,
              void *userdata, struct sched **ret)
{
        struct sched *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->event = sd_event_ref(e);
        s->app = app;
        s->fn = fn;
        s->userdata = userdata;
        int r = sd_event_add_time(e, &s->timer, CLOCK_MONOTONIC, 0, 0, on_timer, s);
        if (r >= 0)
                r = sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
        if (r >= 0)
                r = sched_reload(s);
        if (r < 0) {
                sched_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

void sched_stop(struct sched *s, void (*idle)(void *userdata), void *userdata)
{
        s->stopping = true;
        s->idle = idle;
        s->idle_userdata = userdata;
        arm(s);
        if (s->running)
                runner_stop(s->running, 3);
        else if (idle)
                idle(userdata);
}

bool sched_busy(const struct sched *s)
{
        return s->running != NULL;
}

char *sched_status(const struct sched *s)
{
        if (!s->last_probe)
                return str_printf("%zu probe(s) scheduled, none run yet%s", s->n,
                                  s->running_name ? ", running one" : "");
        return str_printf("%zu probe(s); %u run(s), %u failed; last: %s %s %.0fs ago%s%s",
                          s->n, s->runs, s->failures, s->last_probe,
                          s->last_ok ? "ok" : "FAILED", now_mono() - s->last_end,
                          s->running_name ? "; running " : "",
                          s->running_name ? s->running_name : "");
}

void sched_free(struct sched *s)
{
        if (!s)
                return;
        runner_free(s->running);
        param_set_free(s->running_params);
        free(s->running_name);
        for (size_t i = 0; i < s->n; i++)
                free(s->slots[i].name);
        free(s->slots);
        free(s->last_probe);
        sd_event_source_disable_unref(s->timer);
        sd_event_unref(s->event);
        free(s);
}
