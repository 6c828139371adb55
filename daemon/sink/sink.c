/* sink.c — the sink registry and the fan-out (see sink.h). */
#include "sink/sink.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink/sink_journal.h"
#include "sink/sink_pushgateway.h"
#include "sink/sink_remote_write.h"
#include "sink/sink_textfile.h"
#include "sink/sinkconf.h"

const struct sink_type *const sink_types[] = {
        &sink_pushgateway_type,
        &sink_remote_write_type,
        &sink_journal_type,
        &sink_journal_syslog_type,
        &sink_textfile_type,
        NULL,
};

const struct sink_type *sink_type_find(const char *section)
{
        for (size_t i = 0; sink_types[i]; i++)
                if (!strcmp(sink_types[i]->section, section))
                        return sink_types[i];
        return NULL;
}

/* ---- the fan-out ------------------------------------------------------------ */

struct sink_set {
        struct sink **sinks;
        size_t n;
        struct sink_health *health; /* a reference; shared with the set replaced */
};

static char *section_error(const char *section, const char *why)
{
        char *e = NULL;

        if (asprintf(&e, "[%s]: %s", section, why ? why : strerror(ENOMEM)) < 0)
                return NULL;
        return e;
}

/* Create the sink of type t, or leave *ret NULL when it is not enabled. */
static int create_one(const struct sink_type *t, const struct param_set *opts,
                      const struct sink_env *env, struct sink **ret,
                      char **ret_error)
{
        struct param_set *defaults = NULL;
        char *why = NULL;
        int r = 0;

        *ret = NULL;
        if (!opts && !t->default_on)
                return 0;
        if (!opts) {
                r = param_set_new(t->options, &defaults, &why);
                if (r < 0)
                        goto out;
                opts = defaults;
        }
        if (param_index(opts->defs, "enabled") >= 0 && !sinkconf_opt(opts, "enabled")->b)
                goto out;
        r = t->create(opts, env, ret, &why);
out:
        if (r < 0)
                *ret_error = section_error(t->section, why);
        free(why);
        param_set_free(defaults);
        return r < 0 ? r : 0;
}

void sink_set_free(struct sink_set *set)
{
        if (!set)
                return;
        for (size_t i = 0; i < set->n; i++)
                set->sinks[i]->free(set->sinks[i]);
        free(set->sinks);
        sink_health_unref(set->health);
        free(set);
}

/* A sink that stands in for another type (sink->stand_in) gives way to a
 * configured sink of a type that supersedes it: where journald is missing,
 * [journal] writes to syslog, and with an explicit [syslog] too every
 * result would be logged twice. */
static void drop_superseded(struct sink_set *set)
{
        for (size_t i = 0; i < set->n; i++) {
                const struct sink_type *t = sink_type_find(set->sinks[i]->name);
                if (!t || !t->supersedes)
                        continue;
                for (size_t k = 0; k < set->n; k++)
                        if (set->sinks[k]->stand_in &&
                            !strcmp(set->sinks[k]->name, t->supersedes)) {
                                set->sinks[k]->free(set->sinks[k]);
                                memmove(&set->sinks[k], &set->sinks[k + 1],
                                        (set->n - k - 1) * sizeof(*set->sinks));
                                set->n--;
                                return;
                        }
        }
}

int sink_set_new(const struct param_set *const *opts,
                 const struct sink_env *env, const struct sink_set *prev,
                 struct sink_set **ret, char **ret_error)
{
        size_t n_types = 0;
        struct sink_set *set;
        int r = 0;

        while (sink_types[n_types])
                n_types++;
        set = calloc(1, sizeof(*set));
        if (set)
                set->sinks = calloc(n_types, sizeof(*set->sinks));
        if (set && prev)
                set->health = sink_health_ref(prev->health);
        else if (set && sink_health_new(&set->health) < 0)
                set->health = NULL;
        if (!set || !set->sinks || !set->health) {
                sink_set_free(set);
                return -ENOMEM;
        }
        struct sink_env e = { .state_dir = env ? env->state_dir : NULL,
                              .probes = env ? env->probes : NULL, .health = set->health };
        for (size_t i = 0; i < n_types && r >= 0; i++) {
                struct sink *s = NULL;
                r = create_one(sink_types[i], opts ? opts[i] : NULL, &e, &s,
                               ret_error);
                if (s)
                        set->sinks[set->n++] = s;
        }
        if (r < 0) {
                sink_set_free(set);
                return r;
        }
        drop_superseded(set);
        *ret = set;
        return 0;
}

int sink_set_show(struct sink_set *set, const struct result *r)
{
        int first = 0;

        for (size_t i = 0; set && i < set->n; i++) {
                int e = set->sinks[i]->show ? set->sinks[i]->show(set->sinks[i], r) : 0;
                if (e < 0 && first == 0)
                        first = e;
        }
        return first;
}

int sink_set_publish(struct sink_set *set, const struct result *res)
{
        int first = 0;

        for (size_t i = 0; set && i < set->n; i++) {
                int r = set->sinks[i]->publish(set->sinks[i], res);
                if (r < 0 && first == 0)
                        first = r;
        }
        return first;
}

size_t sink_set_count(const struct sink_set *set)
{
        return set ? set->n : 0;
}

struct sink_health *sink_set_health(const struct sink_set *set)
{
        return set ? set->health : NULL;
}
