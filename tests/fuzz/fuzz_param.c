/* fuzz_param.c — libFuzzer target for parameter values: the text after
 * NAME= on the command line and in config files, parsed by the core for
 * every plugin (param.c over util/parse.c).
 *
 * Input: one byte choosing a parameter of a table that holds every type,
 * range and flag, then the value.  A value that is accepted must respect
 * its range, read back as given, survive param_set_copy(), and a size must
 * survive format_size() -> parse_size() unchanged.  (A MULTI parameter
 * has the empty default of every real one: NAME= does not clear a
 * non-empty default list, and no plugin has one.) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/param.h"
#include "util/format.h"
#include "util/parse.h"

#include "fuzz.h"

static const char *const modes[] = { "read", "write", "randread", "", NULL };

static const struct bw_param_def defs[] = {
        { .name = "int", .type = BW_PARAM_INT, .default_value = "1",
          .min = 1, .max = 1024 },
        { .name = "anyint", .type = BW_PARAM_INT, .default_value = "0" },
        { .name = "negint", .type = BW_PARAM_INT, .default_value = "-5",
          .min = -10, .max = -1 },
        { .name = "double", .type = BW_PARAM_DOUBLE, .default_value = "0.5",
          .min = 0, .max = 1 },
        { .name = "anydouble", .type = BW_PARAM_DOUBLE, .default_value = "0" },
        { .name = "bool", .type = BW_PARAM_BOOL, .default_value = "no" },
        { .name = "string", .type = BW_PARAM_STRING, .default_value = "x" },
        { .name = "enum", .type = BW_PARAM_ENUM, .default_value = "read",
          .choices = modes },
        { .name = "duration", .type = BW_PARAM_DURATION, .default_value = "1s",
          .min = 0.001, .max = 86400 },
        { .name = "anyduration", .type = BW_PARAM_DURATION,
          .default_value = "0" },
        { .name = "size", .type = BW_PARAM_SIZE, .default_value = "4k",
          .min = 512, .max = 1099511627776.0, .flags = BW_PARAM_LABEL },
        { .name = "anysize", .type = BW_PARAM_SIZE, .default_value = "0" },
        { .name = "multi", .type = BW_PARAM_STRING, .default_value = "",
          .flags = BW_PARAM_MULTI },
        { .name = "secret", .type = BW_PARAM_STRING, .default_value = "",
          .flags = BW_PARAM_SECRET },
        { .name = NULL },
};
#define N_DEFS (sizeof(defs) / sizeof(defs[0]) - 1)

static void check_value(const struct param_set *ps, size_t i, const char *text)
{
        const struct bw_param_def *d = &defs[i];
        const struct bw_param_value *v = &ps->values[i];
        bool ranged = d->min != 0 || d->max != 0;
        double x = d->type == BW_PARAM_INT || d->type == BW_PARAM_SIZE
                   ? (double)v->i : v->d;
        if (!v->is_set || strcmp(v->s, text) || strcmp(param_text(ps, i), text))
                abort();
        switch (d->type) {
        case BW_PARAM_INT:
        case BW_PARAM_DOUBLE:
        case BW_PARAM_DURATION:
        case BW_PARAM_SIZE:
                if (!isfinite(x) || (ranged && (x < d->min || x > d->max)))
                        abort();
                if ((d->type == BW_PARAM_SIZE || d->type == BW_PARAM_DURATION)
                    && x < 0)
                        abort();
                break;
        case BW_PARAM_ENUM:
                if (v->i < 0 || strcmp(d->choices[v->i], text))
                        abort();
                break;
        default:
                break;
        }
        if (d->type == BW_PARAM_SIZE) {
                char buf[64];
                int64_t back = -1;
                if (parse_size(format_size(v->i, buf, sizeof(buf)), &back) < 0 ||
                    back != v->i)
                        abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 1)
                return 0;
        size_t i = data[0] % N_DEFS;
        bool kv = data[0] & 0x80;
        char *text = strndup((const char *)data + 1, size - 1);
        struct param_set *ps = NULL, *copy = NULL;
        char *err = NULL;
        if (!text || param_set_new(defs, &ps, &err) < 0)
                abort(); /* the defaults are valid */
        int r;
        if (kv) {
                /* the command line's NAME=VALUE, name taken from the input */
                r = param_set_assign_kv(ps, text, &err);
        } else {
                r = param_set_assign(ps, defs[i].name, text, &err);
                if (r == 0)
                        check_value(ps, i, text);
        }
        if ((r < 0) != (err != NULL))
                abort(); /* an error, and only an error, says why */
        if (r == 0 && (param_set_copy(ps, &copy) < 0 ||
                       strcmp(param_text(copy, i), param_text(ps, i))))
                abort();
        param_set_free(copy);
        param_set_free(ps);
        free(err);
        free(text);
        return 0;
}
