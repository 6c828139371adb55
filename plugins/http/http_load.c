/* http_load.c — the http plugin's load schedule and tallies (see
 * http_load.h): apart from the plugin file so that both engines, and the
 * plugin that drives them, depend on it and not on each other. */
#include "http_load.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/timeutil.h"

const char *const http_fail_names[HTTP_FAIL_MAX] = {
        [HTTP_FAIL_CONNECT] = "connect", [HTTP_FAIL_RECEIVE] = "receive",
        [HTTP_FAIL_LENGTH] = "length",   [HTTP_FAIL_TIMEOUT] = "timeout",
        [HTTP_FAIL_STATUS] = "status",
};

void http_load_init(struct http_load *l, const struct http_cfg *cfg,
                    const struct bw_host *h, double deadline)
{
        memset(l, 0, sizeof(*l));
        bw_hist_init(&l->hist);
        l->cfg = cfg;
        l->h = h;
        double now = now_mono(), left = deadline - now;
        /* finish comfortably before the core kills the run */
        double margin = left > 10 ? 1 : left / 10;
        double stop = deadline - margin;
        double end = stop;
        if (cfg->duration > 0 && now + cfg->duration < end)
                end = now + cfg->duration;
        double hard = end + (double)cfg->timeout_ns / 1e9 + 0.05;
        if (hard > stop)
                hard = stop;
        l->t0_ns = (uint64_t)(now * 1e9);
        l->end_ns = (uint64_t)(end * 1e9);
        l->hard_ns = (uint64_t)(hard * 1e9);
}

static uint64_t intended(const struct http_load *l, uint64_t k)
{
        return l->t0_ns + l->phase_ns + (uint64_t)((double)k * 1e9 / l->cfg->rate);
}

static bool may_issue(const struct http_load *l)
{
        return !l->stop && (!l->cfg->requests || l->issued < l->cfg->requests);
}

bool http_load_more(struct http_load *l, uint64_t now)
{
        if (!may_issue(l))
                return false;
        if (l->cfg->rate > 0)
                return intended(l, l->issued) < l->end_ns;
        return now < l->end_ns;
}

uint64_t http_load_due(const struct http_load *l)
{
        if (l->cfg->rate <= 0 || !may_issue(l))
                return UINT64_MAX;
        uint64_t t = intended(l, l->issued);
        return t < l->end_ns ? t : UINT64_MAX;
}

bool http_load_next(struct http_load *l, uint64_t now, uint64_t *ret_intended)
{
        if (l->cfg->rate <= 0) {
                if (!http_load_more(l, now))
                        return false;
                l->issued++;
                *ret_intended = now;
                return true;
        }
        for (;;) {
                uint64_t t = http_load_due(l);
                if (t > now)
                        return false;
                l->issued++;
                if (t + l->cfg->timeout_ns >= now) {
                        *ret_intended = t;
                        return true;
                }
                /* waited for a free connection past its timeout */
                http_load_fail(l, now, HTTP_FAIL_TIMEOUT);
        }
}

static bool expected(const struct http_cfg *cfg, int status)
{
        if (cfg->expect_any)
                return true;
        if (status < 0 || status >= 600)
                return false;
        return cfg->expect[status / 8] & (1u << (status % 8));
}

void http_load_done(struct http_load *l, uint64_t now, uint64_t intended_ns,
                    int status)
{
        l->finished++;
        l->complete++;
        l->last_ns = now;
        bw_hist_record(&l->hist, now > intended_ns ? now - intended_ns : 0);
        if (status < 200 || status > 299)
                l->non_2xx++;
        if (!expected(l->cfg, status))
                l->failed[HTTP_FAIL_STATUS]++;
        if (++l->unreported >= 64)
                http_load_flush(l);
}

void http_load_flush(struct http_load *l)
{
        if (l->unreported)
                l->h->progress(l->h, l->unreported);
        l->unreported = 0;
}

void http_load_fail(struct http_load *l, uint64_t now, enum http_fail why)
{
        l->finished++;
        l->failed[why]++;
        l->last_ns = now;
        if (++l->unreported >= 64)
                http_load_flush(l);
}

void http_load_abort(struct http_load *l, int err, const char *fmt, ...)
{
        va_list ap;
        int none = 0;
        l->stop = true;
        if (l->abort_err)
                return;
        l->abort_err = err;
        va_start(ap, fmt);
        vsnprintf(l->abort_msg, sizeof(l->abort_msg), fmt, ap);
        va_end(ap);
        /* the first thread to give up speaks for the run */
        if (l->parent && __atomic_compare_exchange_n(&l->parent->abort_err, &none, err,
                                                     false, __ATOMIC_ACQ_REL,
                                                     __ATOMIC_ACQUIRE))
                memcpy(l->parent->abort_msg, l->abort_msg, sizeof(l->abort_msg));
}

bool http_load_halted(const struct http_load *l)
{
        return l->abort_err ||
               (l->parent && __atomic_load_n(&l->parent->abort_err, __ATOMIC_ACQUIRE));
}

void http_load_merge(struct http_load *into, const struct http_load *from)
{
        into->issued += from->issued;
        into->finished += from->finished;
        into->complete += from->complete;
        for (int i = 0; i < HTTP_FAIL_MAX; i++)
                into->failed[i] += from->failed[i];
        into->non_2xx += from->non_2xx;
        into->bytes += from->bytes;
        into->cpu_ns += from->cpu_ns;
        if (from->last_ns > into->last_ns)
                into->last_ns = from->last_ns;
        bw_hist_merge(&into->hist, &from->hist);
}
