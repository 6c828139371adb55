/* verdict_text.h — a regression's verdict as one line a person reads.
 *
 * It says what an operator scans a page of alerts for: which figure, how
 * much and how sure, since when, against what, and why:
 *   cpu events/s −14% (95% CI −15..−13%) since 14:02, against the
 *   reference of 40 runs learnt 3 Dec; cause: CPU quota, throttled in 41%
 *   of its CPU quota periods, against 0.0% in the reference
 * Changes use the minus sign (U+2212) and whole percents from 10% up, a
 * tenth below; times are local, the day said when it is not today and the
 * year when it is not this year.  Pure formatting: nothing here logs. */
#ifndef BENCHWATCH_VERDICT_TEXT_H
#define BENCHWATCH_VERDICT_TEXT_H

#include "detect/cause.h"

struct verdict_text {
        const char *figure;           /* for people: "cpu events/s" */
        double change, change_lo, change_hi; /* relative: -0.14, 95% interval */
        double since;                 /* UNIX time the regression began; NAN: not said */
        unsigned reference_runs;      /* 0: not said */
        double reference_time;        /* when the reference was learnt; NAN: not said */
        const struct cause *cause;    /* NULL: none named */
        double now;                   /* UNIX time, for what "today" is */
};

/* The line, malloc'd; NULL when out of memory. */
char *verdict_text_line(const struct verdict_text *v);

/* "−14%", "+4.2%", "−0.5%": a relative change as the line writes it. */
const char *verdict_text_change(double change, char *buf, unsigned size);

#endif
