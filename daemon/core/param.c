/* param.c — see param.h. */
#include "core/param.h"
#include "util/strutil.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/parse.h"

static size_t param_count(const struct bw_param_def *defs)
{
        size_t n = 0;
        while (defs && defs[n].name)
                n++;
        return n;
}

int param_index(const struct bw_param_def *defs, const char *name)
{
        for (size_t i = 0; defs && defs[i].name; i++)
                if (!strcmp(defs[i].name, name))
                        return (int)i;
        return -ENOENT;
}

double param_duration_past(const struct param_set *ps, double timeout)
{
        int k = param_index(ps->defs, "duration");
        if (k < 0 || ps->defs[k].type != BW_PARAM_DURATION || !ps->values[k].is_set ||
            !(ps->values[k].d >= timeout)) /* no timeout (NaN) bounds nothing */
                return 0;
        return ps->values[k].d;
}

bool param_obsolete(const struct bw_param_def *d)
{
        return d->help && !strncmp(d->help, PARAM_OBSOLETE_HELP, strlen(PARAM_OBSOLETE_HELP));
}

char *param_set_obsolete(const struct param_set *ps)
{
        char *list = NULL;
        for (size_t i = 0; ps && i < ps->n; i++) {
                if (!ps->values[i].is_set || !param_obsolete(&ps->defs[i]))
                        continue;
                char *l = str_printf("%s%s%s", list ? list : "", list ? ", " : "",
                                     ps->defs[i].name);
                free(list);
                if (!l)
                        return NULL;
                list = l;
        }
        return list;
}

const char *param_type_name(enum bw_param_type t)
{
        switch (t) {
        case BW_PARAM_INT: return "integer";
        case BW_PARAM_DOUBLE: return "number";
        case BW_PARAM_BOOL: return "boolean";
        case BW_PARAM_STRING: return "string";
        case BW_PARAM_ENUM: return "choice";
        case BW_PARAM_DURATION: return "duration";
        case BW_PARAM_SIZE: return "size";
        }
        return "?";
}


static bool has_range(const struct bw_param_def *d)
{
        return d->min != 0 || d->max != 0;
}


/* One end of a range in the syntax of d's type. */
static const char *bound_text(const struct bw_param_def *d, double v,
                              char *buf, unsigned size)
{
        if (d->type == BW_PARAM_DURATION)
                return format_duration(v, buf, size);
        if (d->type == BW_PARAM_SIZE && v >= 0 && v < 9.2e18)
                return format_size((int64_t)v, buf, size);
        if (v == floor(v) && fabs(v) <= 1e15)
                snprintf(buf, size, "%.0f", v);
        else
                snprintf(buf, size, "%g", v);
        return buf;
}

char *param_range_text(const struct bw_param_def *d)
{
        char lo[32], hi[32];
        if (!has_range(d))
                return NULL;
        return str_printf("%s..%s", bound_text(d, d->min, lo, sizeof(lo)),
                          bound_text(d, d->max, hi, sizeof(hi)));
}

/* "'text' is out of range 1..1024 I/Os" (sizes and durations carry their
 * unit in the numbers), or without the range when d has none. */
static char *out_of_range(const struct bw_param_def *d, const char *text)
{
        char *range = param_range_text(d);
        bool own_unit = d->type == BW_PARAM_SIZE || d->type == BW_PARAM_DURATION;
        const char *unit = own_unit || !d->unit ? "" : d->unit;
        char *s = str_printf("'%s' is out of range%s%s%s%s", text, range ? " " : "",
                             range ? range : "", range && *unit ? " " : "",
                             range ? unit : "");
        free(range);
        return s;
}

/* Why text is not a `what` for d: too large (or small) for one, or not
 * one. */
static char *not_a(const struct bw_param_def *d, const char *text, int r,
                   const char *what)
{
        if (r == -ERANGE)
                return out_of_range(d, text);
        return str_printf("'%s' is not %s", text, what);
}

static int check_range(const struct bw_param_def *d, const char *text,
                       double v, char **ret_error)
{
        if (!has_range(d) || (v >= d->min && v <= d->max))
                return 0;
        *ret_error = out_of_range(d, text);
        return -ERANGE;
}

static char *choices_text(const char *const *choices)
{
        size_t len = 1, at = 0;
        for (size_t i = 0; choices[i]; i++)
                len += strlen(choices[i]) + 2;
        char *s = malloc(len);
        if (!s)
                return NULL;
        for (size_t i = 0; choices[i]; i++) {
                size_t l = strlen(choices[i]);
                if (i) {
                        memcpy(s + at, ", ", 2);
                        at += 2;
                }
                memcpy(s + at, choices[i], l);
                at += l;
        }
        s[at] = 0;
        return s;
}

/* Parse text for definition d into *v (v->s is set by the caller). */
static int parse_value(const struct bw_param_def *d, const char *text,
                       struct bw_param_value *v, char **ret_error)
{
        int r = 0;
        switch (d->type) {
        case BW_PARAM_INT:
                r = parse_int64(text, &v->i);
                if (r < 0) {
                        *ret_error = not_a(d, text, r, "an integer");
                        return r;
                }
                return check_range(d, text, (double)v->i, ret_error);
        case BW_PARAM_DOUBLE:
                r = parse_double(text, &v->d);
                if (r < 0) {
                        *ret_error = not_a(d, text, r, "a number");
                        return r;
                }
                return check_range(d, text, v->d, ret_error);
        case BW_PARAM_BOOL:
                r = parse_bool(text, &v->b);
                if (r < 0)
                        *ret_error = str_printf("'%s' is not a boolean (yes/no, "
                                            "true/false, on/off, 1/0)", text);
                return r;
        case BW_PARAM_STRING:
                return 0;
        case BW_PARAM_ENUM:
                for (size_t i = 0; d->choices && d->choices[i]; i++)
                        if (!strcmp(d->choices[i], text)) {
                                v->i = (int64_t)i;
                                return 0;
                        }
                {
                        char *c = choices_text(d->choices);
                        *ret_error = str_printf("'%s' is not one of: %s", text,
                                            c ? c : "?");
                        free(c);
                }
                return -EINVAL;
        case BW_PARAM_DURATION:
                r = parse_duration(text, &v->d);
                if (r < 0) {
                        *ret_error = not_a(d, text, r, "a duration (e.g. "
                                                  "500ms, 2s, 15min, 1h)");
                        return r;
                }
                return check_range(d, text, v->d, ret_error);
        case BW_PARAM_SIZE:
                r = parse_size(text, &v->i);
                if (r < 0) {
                        *ret_error = not_a(d, text, r, "a size (e.g. 512, "
                                                  "16k, 1M, 4G)");
                        return r;
                }
                return check_range(d, text, (double)v->i, ret_error);
        }
        return -EINVAL;
}

static int append_list(struct param_set *ps, size_t i, const char *text)
{
        size_t n = ps->values[i].n_list;
        char **l = realloc(ps->lists[i], (n + 2) * sizeof(char *));
        if (!l)
                return -ENOMEM;
        ps->lists[i] = l;
        l[n] = strdup(text);
        if (!l[n])
                return -ENOMEM;
        l[n + 1] = NULL;
        ps->values[i].list = (const char *const *)l;
        ps->values[i].n_list = n + 1;
        return 0;
}

static int store(struct param_set *ps, size_t i, const char *text,
                 bool is_set, char **ret_error)
{
        const struct bw_param_def *d = &ps->defs[i];
        struct bw_param_value v = ps->values[i];
        int r = parse_value(d, text, &v, ret_error);
        if (r < 0)
                return r;
        char *copy = strdup(text);
        if (!copy)
                return -ENOMEM;
        if ((d->flags & BW_PARAM_MULTI) && *text) {
                if (is_set && !ps->values[i].is_set) {
                        /* the first explicit value replaces the default */
                        for (size_t k = 0; k < v.n_list; k++)
                                free(ps->lists[i][k]);
                        free(ps->lists[i]);
                        ps->lists[i] = NULL;
                        ps->values[i].n_list = 0;
                        ps->values[i].list = NULL;
                }
                r = append_list(ps, i, text);
                if (r < 0) {
                        free(copy);
                        return r;
                }
                v.list = ps->values[i].list;
                v.n_list = ps->values[i].n_list;
        }
        free(ps->text[i]);
        ps->text[i] = copy;
        v.s = copy;
        v.is_set = is_set;
        ps->values[i] = v;
        return 0;
}

/* "name=v1|v2": 0 with the index of name and the values part, or -EINVAL. */
static int split_applies(const struct bw_param_def *defs, const char *applies,
                         int *ret_index, const char **ret_values)
{
        const char *eq = strchr(applies, '=');
        char name[64];
        if (!eq || eq == applies || (size_t)(eq - applies) >= sizeof(name) || !eq[1])
                return -EINVAL;
        memcpy(name, applies, (size_t)(eq - applies));
        name[eq - applies] = 0;
        *ret_index = param_index(defs, name);
        *ret_values = eq + 1;
        return *ret_index < 0 ? -EINVAL : 0;
}

/* Whether text is one of the '|'-separated values. */
static bool among(const char *values, const char *text)
{
        size_t n = strlen(text);
        for (const char *v = values; v;) {
                const char *bar = strchr(v, '|');
                size_t len = bar ? (size_t)(bar - v) : strlen(v);
                if (len == n && !strncmp(v, text, n))
                        return true;
                v = bar ? bar + 1 : NULL;
        }
        return false;
}

bool param_applies(const struct param_set *ps, size_t i)
{
        const char *values;
        int k;
        if (!ps->defs[i].applies)
                return true;
        if (split_applies(ps->defs, ps->defs[i].applies, &k, &values) < 0)
                return true; /* refused at load (check_applies) */
        return among(values, param_text(ps, (size_t)k));
}

/* A plugin's `applies` must name another parameter, and for a choice list
 * only its choices. */
static char *check_applies(const struct bw_param_def *defs, size_t i)
{
        const char *values;
        int k;
        if (!defs[i].applies)
                return NULL;
        if (split_applies(defs, defs[i].applies, &k, &values) < 0 || (size_t)k == i)
                return str_printf("parameter '%s': applies '%s' does not name another "
                                  "parameter as name=value|value", defs[i].name,
                                  defs[i].applies);
        for (const char *v = values; defs[k].type == BW_PARAM_ENUM && v;) {
                const char *bar = strchr(v, '|');
                size_t len = bar ? (size_t)(bar - v) : strlen(v);
                bool known = false;
                for (const char *const *c = defs[k].choices; c && *c && !known; c++)
                        known = strlen(*c) == len && !strncmp(*c, v, len);
                if (!known)
                        return str_printf("parameter '%s': applies '%s': '%.*s' is not a "
                                          "choice of '%s'", defs[i].name, defs[i].applies,
                                          (int)len, v, defs[k].name);
                v = bar ? bar + 1 : NULL;
        }
        return NULL;
}

int param_set_new(const struct bw_param_def *defs, struct param_set **ret,
                  char **ret_error)
{
        struct param_set *ps = calloc(1, sizeof(*ps));
        if (!ps)
                return -ENOMEM;
        ps->defs = defs;
        ps->n = param_count(defs);
        ps->values = calloc(ps->n + 1, sizeof(*ps->values));
        ps->text = calloc(ps->n + 1, sizeof(char *));
        ps->lists = calloc(ps->n + 1, sizeof(char **));
        if (!ps->values || !ps->text || !ps->lists) {
                param_set_free(ps);
                return -ENOMEM;
        }
        for (size_t i = 0; i < ps->n; i++) {
                char *why = check_applies(defs, i);
                if (why) {
                        if (ret_error)
                                *ret_error = why;
                        else
                                free(why);
                        param_set_free(ps);
                        return -EINVAL;
                }
                const char *def = defs[i].default_value ? defs[i].default_value : "";
                int r = store(ps, i, def, false, &why);
                if (r < 0) {
                        if (ret_error)
                                *ret_error = str_printf("default of parameter '%s' "
                                        "is invalid: %s", defs[i].name,
                                        why ? why : strerror(-r));
                        free(why);
                        param_set_free(ps);
                        return r;
                }
        }
        *ret = ps;
        return 0;
}

int param_set_assign(struct param_set *ps, const char *name,
                     const char *value, char **ret_error)
{
        int i = param_index(ps->defs, name);
        if (i < 0) {
                *ret_error = str_printf("unknown parameter '%s'", name);
                return -ENOENT;
        }
        char *why = NULL;
        int r = store(ps, (size_t)i, value, true, &why);
        if (r < 0) {
                *ret_error = str_printf("%s: %s", name, why ? why : strerror(-r));
                free(why);
        }
        return r;
}

int param_set_assign_kv(struct param_set *ps, const char *assignment,
                        char **ret_error)
{
        const char *eq = strchr(assignment, '=');
        if (!eq || eq == assignment) {
                *ret_error = str_printf("'%s' is not of the form NAME=VALUE",
                                    assignment);
                return -EINVAL;
        }
        char *name = strndup(assignment, (size_t)(eq - assignment));
        if (!name)
                return -ENOMEM;
        int r = param_set_assign(ps, name, eq + 1, ret_error);
        free(name);
        return r;
}

int param_set_copy(const struct param_set *src, struct param_set **ret)
{
        struct param_set *ps;
        int r = param_set_new(src->defs, &ps, NULL);
        if (r < 0)
                return r;
        for (size_t i = 0; i < src->n; i++) {
                if (!src->values[i].is_set)
                        continue;
                char *why = NULL;
                if (src->defs[i].flags & BW_PARAM_MULTI) {
                        for (size_t k = 0; k < src->values[i].n_list && r >= 0; k++)
                                r = store(ps, i, src->values[i].list[k], true, &why);
                } else {
                        r = store(ps, i, src->text[i], true, &why);
                }
                free(why);
                if (r < 0) {
                        param_set_free(ps);
                        return r;
                }
        }
        *ret = ps;
        return 0;
}

void param_set_free(struct param_set *ps)
{
        if (!ps)
                return;
        for (size_t i = 0; i < ps->n; i++) {
                if (ps->text)
                        free(ps->text[i]);
                if (ps->lists && ps->lists[i]) {
                        for (size_t k = 0; ps->lists[i][k]; k++)
                                free(ps->lists[i][k]);
                        free(ps->lists[i]);
                }
        }
        free(ps->text);
        free(ps->lists);
        free(ps->values);
        free(ps);
}

const char *param_text(const struct param_set *ps, size_t i)
{
        return ps->text[i];
}
