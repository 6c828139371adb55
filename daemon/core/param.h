/* param.h — typed parameter values of one run, parsed against a plugin's
 * declarative table (struct bw_param_def).
 *
 * The core is the only place that turns text into parameter values, so the
 * command line and the config file accept the same spellings and give the
 * same errors, and plugins receive ready, range-checked values. */
#ifndef BENCHWATCH_PARAM_H
#define BENCHWATCH_PARAM_H

#include "core/plugin.h"

struct param_set {
        const struct bw_param_def *defs;
        size_t n;
        struct bw_param_value *values; /* n entries, defaults until assigned */
        char **text;   /* owned strings: per param, the normalised value */
        char ***lists; /* owned BW_PARAM_MULTI lists */
};

int param_index(const struct bw_param_def *defs, const char *name);
/* The duration ps sets, where it does not end before timeout; else 0.
 * Such a run would be cut short every time, and report less than its
 * parameters say.  Only a duration set counts: a default one is a bound,
 * not a promise (a probe may end on requests= or events=, or be meant to
 * meet its deadline). */
double param_duration_past(const struct param_set *ps, double timeout);

/* How an option no longer used starts its help: it is accepted (an old
 * file still loads) and ignored, and a set one is warned of. */
#define PARAM_OBSOLETE_HELP "obsolete, accepted and ignored: "
bool param_obsolete(const struct bw_param_def *d);
/* The obsolete options set in ps, "a, b" (malloc'd); NULL when none (or
 * out of memory). */
char *param_set_obsolete(const struct param_set *ps);

/* A set holding every default. -ENOMEM, or -EINVAL when a plugin's own
 * default does not parse (a bug in the plugin, described in ret_error). */
int param_set_new(const struct bw_param_def *defs, struct param_set **ret,
                  char **ret_error);
/* Parse and store one value. On failure *ret_error (malloc'd) says why,
 * without the parameter name's context (the caller adds file:line or
 * "command line"): "unknown parameter", "'abc' is not a number",
 * "'0' is out of range 1..1024", "'x' is not one of: a, b". */
int param_set_assign(struct param_set *ps, const char *name,
                     const char *value, char **ret_error);
/* "name=value" form, as on the command line. */
int param_set_assign_kv(struct param_set *ps, const char *assignment,
                        char **ret_error);
/* Deep copy, e.g. a configured probe's values overridden on the CLI. */
int param_set_copy(const struct param_set *src, struct param_set **ret);
void param_set_free(struct param_set *ps);

/* The value of a parameter as text (normalised; secrets included): what a
 * child process is sent to rebuild the same set. */
const char *param_text(const struct param_set *ps, size_t i);
const char *param_type_name(enum bw_param_type t);
/* Whether parameter i applies to this run (its def's `applies` holds). */
bool param_applies(const struct param_set *ps, size_t i);
/* d's range as a user writes it: "512..64M", "10ms..24h", "1..1024" (the
 * unit of other types is d->unit); malloc'd, NULL when d has no range or
 * out of memory. */
char *param_range_text(const struct bw_param_def *d);

#endif
