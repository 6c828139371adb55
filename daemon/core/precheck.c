/* precheck.c — see precheck.h.  The host handed to `check` records the
 * first failure and ignores figures: a check measures nothing. */
#include "core/precheck.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/strutil.h"
#include "util/timeutil.h"

static void no_figure(const struct bw_host *h, const char *name,
                      const char *help, const char *const *labels, double v)
{
        (void)h, (void)name, (void)help, (void)labels, (void)v;
}

static void no_latency(const struct bw_host *h, const char *name,
                       const char *help, const char *const *labels,
                       const struct bw_hist *hist)
{
        (void)h, (void)name, (void)help, (void)labels, (void)hist;
}

static void no_log(const struct bw_host *h, int priority, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void no_log(const struct bw_host *h, int priority, const char *fmt, ...)
{
        (void)h, (void)priority, (void)fmt;
}

static int record_fail(const struct bw_host *h, int err, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static int record_fail(const struct bw_host *h, int err, const char *fmt, ...)
{
        char **why = h->ctx;
        if (*why)
                return err;
        va_list ap;
        va_start(ap, fmt);
        *why = str_vprintf(fmt, ap);
        va_end(ap);
        return err;
}

static void no_progress(const struct bw_host *h, uint64_t n)
{
        (void)h, (void)n;
}

static bool not_stopping(const struct bw_host *h)
{
        (void)h;
        return false;
}

int precheck_run(const struct bw_plugin *p, const char *probe,
                 const struct bw_param_value *values, const char *cache_dir,
                 const char *state_dir, char **ret_error)
{
        char *why = NULL;
        struct bw_host host = {
                .ctx = &why, .gauge = no_figure, .counter = no_figure,
                .latency = no_latency, .log = no_log, .fail = record_fail,
                .progress = no_progress, .stopping = not_stopping,
        };
        struct bw_run run = {
                .probe = probe, .values = values, .cache_dir = cache_dir,
                .state_dir = state_dir, .deadline = now_mono() + 60,
        };
        int r;

        if ((p->caps & BW_CAP_NEEDS_ROOT) && geteuid() != 0) {
                *ret_error = str_printf("plugin %s needs root", p->name);
                return -EPERM;
        }
        r = p->check ? p->check(&run, &host) : 0;
        if (r >= 0) {
                free(why);
                return 0;
        }
        *ret_error = why ? why : str_printf("%s", "invalid parameters");
        return r;
}
