/* log.h — the daemon's log: stderr on a terminal, the journal's priority
 * prefixes ("<4>...") when stderr is connected to journald (systemd sets
 * JOURNAL_STREAM), so one call reads well in both places.  Library-like
 * modules do not log; they return errors for their caller to log once. */
#ifndef BENCHWATCH_LOG_H
#define BENCHWATCH_LOG_H

#include <stdbool.h>
#include <syslog.h>

void log_set_level(int priority);
/* The most verbose priority logged: a probe's process logs up to it too. */
int log_get_level(void);
/* Whether lines go to journald (JOURNAL_STREAM set), with priority prefixes. */
bool log_to_journal(void);
void log_msg(int priority, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

/* An event of its own in the journal, with structured fields (each
 * "NAME=value", NULL-terminated) beside MESSAGE and PRIORITY, when the
 * daemon runs under journald; elsewhere the message alone, as log_msg. */
void log_event(int priority, const char *const *fields, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Rate limiting for failures that repeat every cycle: true when a message
 * with this key may be printed now (at most one per interval seconds). */
struct log_ratelimit {
        double interval;
        double last;
        unsigned suppressed;
};
int log_ratelimit_ok(struct log_ratelimit *rl);

#endif
