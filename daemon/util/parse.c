/* parse.c — see parse.h. */
#include "util/parse.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int parse_int64(const char *s, int64_t *ret)
{
        char *end;
        if (!s || !*s || isspace((unsigned char)*s))
                return -EINVAL;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (*end)
                return -EINVAL;
        *ret = v;
        return 0;
}

/* strtod in the C locale regardless of what the process runs under, of
 * decimal numbers only: strtod's hexadecimal ("0x10", 16) is no number a
 * configuration or a file benchwatch writes holds, and integers refuse it. */
static int strtod_c(const char *s, double *ret, const char **ret_end)
{
        static locale_t c_locale;
        char *end;
        if (!s || !*s || isspace((unsigned char)*s))
                return -EINVAL;
        const char *digits = *s == '-' || *s == '+' ? s + 1 : s;
        if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
                return -EINVAL;
        if (!c_locale)
                c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
        locale_t old = c_locale ? uselocale(c_locale) : (locale_t)0;
        double v = strtod(s, &end);
        if (old)
                uselocale(old);
        if (end == s)
                return -EINVAL;
        /* Overflow gives +-HUGE_VAL; underflow (ERANGE too) gives the
         * nearest double, a subnormal or 0, which is kept so that every
         * finite double written with %.17g reads back (baselines). */
        if (!isfinite(v))
                return -ERANGE;
        *ret = v;
        *ret_end = end;
        return 0;
}

int parse_double(const char *s, double *ret)
{
        const char *end;
        double v;
        int r = strtod_c(s, &v, &end);
        if (r < 0)
                return r;
        if (*end)
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_bool(const char *s, bool *ret)
{
        static const char *const yes[] = { "1", "yes", "true", "on", NULL };
        static const char *const no[] = { "0", "no", "false", "off", NULL };
        if (!s)
                return -EINVAL;
        for (unsigned i = 0; yes[i]; i++) {
                if (!strcasecmp(s, yes[i])) {
                        *ret = true;
                        return 0;
                }
                if (!strcasecmp(s, no[i])) {
                        *ret = false;
                        return 0;
                }
        }
        return -EINVAL;
}

struct unit {
        const char *suffix;
        double factor;
};

/* A number with an optional unit suffix from table (exact, case-sensitive
 * match; an empty suffix means the base unit). */
static int parse_with_unit(const char *s, const struct unit *table,
                           double *ret)
{
        const char *end;
        double v;
        int r = strtod_c(s, &v, &end);
        if (r < 0)
                return r;
        if (v < 0)
                return -ERANGE;
        while (*end == ' ')
                end++;
        for (const struct unit *u = table; u->suffix; u++) {
                if (strcmp(end, u->suffix))
                        continue;
                double x = v * u->factor;
                if (!isfinite(x))
                        return -ERANGE;
                *ret = x;
                return 0;
        }
        return -EINVAL;
}

int parse_duration(const char *s, double *ret_seconds)
{
        static const struct unit units[] = {
                { "", 1 },        { "s", 1 },       { "sec", 1 },
                { "ns", 1e-9 },   { "us", 1e-6 },   { "ms", 1e-3 },
                { "m", 60 },      { "min", 60 },    { "h", 3600 },
                { "d", 86400 },   { NULL, 0 },
        };
        return parse_with_unit(s, units, ret_seconds);
}

int parse_size(const char *s, int64_t *ret_bytes)
{
        static const struct unit units[] = {
                { "", 1 },
                { "k", 1024.0 },  { "K", 1024.0 },  { "KiB", 1024.0 },
                { "M", 1048576.0 }, { "MiB", 1048576.0 },
                { "G", 1073741824.0 }, { "GiB", 1073741824.0 },
                { "T", 1099511627776.0 }, { "TiB", 1099511627776.0 },
                { NULL, 0 },
        };
        double v;
        int r = parse_with_unit(s, units, &v);
        if (r < 0)
                return r;
        if (v >= 9.2e18)
                return -ERANGE;
        if (v != floor(v))
                return -EINVAL; /* "1.5" bytes; "1.5k" is fine */
        *ret_bytes = (int64_t)v;
        return 0;
}
