/* log.c — see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeutil.h"

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

static bool to_journal(void)
{
        if (use_prefix < 0)
                use_prefix = getenv("JOURNAL_STREAM") != NULL;
        return use_prefix;
}

void log_msg(int priority, const char *fmt, ...)
{
        if (priority > max_level)
                return;
        va_list ap;
        va_start(ap, fmt);
        if (to_journal())
                fprintf(stderr, "<%d>", priority);
        else if (priority <= LOG_ERR)
                fputs("benchwatch: error: ", stderr);
        else if (priority == LOG_WARNING)
                fputs("benchwatch: warning: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
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
