/* log.c — see log.h. */
#include "core/log.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <systemd/sd-journal.h>

#include "util/timeutil.h"

static int max_level = LOG_INFO;
static int use_prefix = -1;

void log_set_level(int priority)
{
        max_level = priority;
}

int log_get_level(void)
{
        return max_level;
}

bool log_to_journal(void)
{
        if (use_prefix < 0)
                use_prefix = getenv("JOURNAL_STREAM") != NULL;
        return use_prefix;
}

void log_msg(int priority, const char *fmt, ...)
{
        if (priority > max_level)
                return;
        char *msg = NULL, prefix[24] = "";
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = NULL;
        va_end(ap);
        if (log_to_journal())
                snprintf(prefix, sizeof(prefix), "<%d>", priority);
        else if (priority <= LOG_ERR)
                snprintf(prefix, sizeof(prefix), "benchwatch: error: ");
        else if (priority == LOG_WARNING)
                snprintf(prefix, sizeof(prefix), "benchwatch: warning: ");
        /* a line in one write: the sink threads log too, and so does a
         * probe's process on the same stream, and a journal line merged
         * with another's loses its priority and its meaning (the fault
         * campaign read a restart's "started" line that way) */
        fprintf(stderr, "%s%s\n", prefix, msg ? msg : fmt);
        free(msg);
}

void log_event(int priority, const char *const *fields, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *msg = NULL;
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = NULL;
        va_end(ap);
        if (priority > max_level || !msg) {
                free(msg);
                return;
        }
        size_t n = 0;
        while (fields && fields[n])
                n++;
        struct iovec iov[n + 3];
        char *m = NULL, prio[16];
        snprintf(prio, sizeof(prio), "PRIORITY=%d", priority);
        int r = -1;
        if (log_to_journal() && asprintf(&m, "MESSAGE=%s", msg) >= 0) {
                iov[0] = (struct iovec){ m, strlen(m) };
                iov[1] = (struct iovec){ prio, strlen(prio) };
                iov[2] = (struct iovec){ (char *)"SYSLOG_IDENTIFIER=benchwatch", 28 };
                for (size_t i = 0; i < n; i++)
                        iov[3 + i] = (struct iovec){ (char *)fields[i], strlen(fields[i]) };
                r = sd_journal_sendv(iov, (int)(n + 3));
        }
        if (r < 0)
                log_msg(priority, "%s", msg);
        free(m);
        free(msg);
}

int log_ratelimit_ok(struct log_ratelimit *rl)
{
        double now = now_mono();
        if (rl->last && now - rl->last < rl->interval) {
                rl->suppressed++;
                return 0;
        }
        rl->last = now;
        return 1;
}
