/* compare.h — several probes' results side by side, as `benchwatch run A B`
 * prints them.
 *
 * People compare two devices (a SAN volume and a local disk) by putting two
 * sysbench outputs next to each other; this is that, as one table: a column
 * per probe, a row per figure — the union over the probes, "-" where a
 * probe has no such figure — and on top each probe's plugin and the
 * parameters (and device facts) in which the probes differ.  A row is a
 * figure and its labels that are not parameters (op="read"), so probes run
 * with other parameter values line up; a latency is five rows, min, avg,
 * p95, p99 and max.  The JSON form is every probe's usual `run` JSON in
 * one array. */
#ifndef BENCHWATCH_COMPARE_H
#define BENCHWATCH_COMPARE_H

#include <stdio.h>

#include "core/param.h"
#include "core/plugin.h"
#include "core/result.h"

struct compare_column {
        const char *name;               /* the probe, as given */
        const struct bw_plugin *plugin;
        const struct param_set *params; /* as run */
        const struct result *result;    /* never NULL */
};

/* The table; 0, -ENOMEM or -EIO. */
int compare_table(FILE *f, const struct compare_column *cols, size_t n);
/* {"results":[<report_format_json of each>]}; 0 or -EIO. */
int compare_json(FILE *f, const struct compare_column *cols, size_t n);

#endif
