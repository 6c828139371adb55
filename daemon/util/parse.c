/* parse.c — see parse.h. */
#include "util/parse.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
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

/* strtod in the C locale regardless of what the process runs under. */
static int strtod_c(const char *s, double *ret, const char **ret_end)
{
        static locale_t c_locale;
        char *end;
        if (!s || !*s || isspace((unsigned char)*s))
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

const char *format_duration(double seconds, char *buf, unsigned size)
{
        if (seconds >= 86400 && fmod(seconds, 86400) == 0)
                snprintf(buf, size, "%gd", seconds / 86400);
        else if (seconds >= 3600 && fmod(seconds, 3600) == 0)
                snprintf(buf, size, "%gh", seconds / 3600);
        else if (seconds >= 60 && fmod(seconds, 60) == 0)
                snprintf(buf, size, "%gmin", seconds / 60);
        else if (seconds > 0 && seconds < 1)
                snprintf(buf, size, "%gms", seconds * 1e3);
        else
                snprintf(buf, size, "%gs", seconds);
        return buf;
}

const char *format_size(int64_t bytes, char *buf, unsigned size)
{
        static const char suffix[] = "kMGT";
        int k = -1;
        int64_t v = bytes;
        while (k < 3 && v >= 1024 && v % 1024 == 0) {
                v /= 1024;
                k++;
        }
        if (k < 0)
                snprintf(buf, size, "%" PRId64, bytes);
        else
                snprintf(buf, size, "%" PRId64 "%c", v, suffix[k]);
        return buf;
}

/* Three significant digits, trailing zeros kept: 1.00, 26.2, 812. */
static void three_digits(double v, const char *unit, char *buf, unsigned size)
{
        double a = fabs(v);
        int decimals = a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2;
        snprintf(buf, size, "%.*f%s", decimals, v, unit);
}

const char *format_quantity(double v, bool seconds, char *buf, unsigned size)
{
        static const char *const units[] = { " s", " ms", " \u00b5s", " ns" };
        static const char *const suffix[] = { "", "k", "M", "G", "T", "P" };
        double a = fabs(v);
        int k = 0;
        if (!isfinite(v) || v == 0) {
                snprintf(buf, size, "%g%s", v, seconds ? " s" : "");
        } else if (seconds) {
                for (; k < 3 && a < 0.9995; k++) {
                        a *= 1e3;
                        v *= 1e3;
                }
                three_digits(v, units[k], buf, size);
        } else if (a < 0.9995) {
                snprintf(buf, size, "%.3g", v);
        } else {
                for (; k < 5 && a >= 999.5; k++) {
                        a /= 1e3;
                        v /= 1e3;
                }
                three_digits(v, suffix[k], buf, size);
        }
        return buf;
}

const char *format_tick(double v, bool seconds, char *buf, unsigned size)
{
        if (v == 0) {
                snprintf(buf, size, "0");
                return buf;
        }
        format_quantity(v, seconds, buf, size);
        char *dot = strchr(buf, '.');
        if (!dot)
                return buf;
        size_t digits = strspn(dot + 1, "0123456789");
        char *end = dot + 1 + digits, *cut = end;
        while (cut > dot + 1 && cut[-1] == '0')
                cut--;
        if (cut == dot + 1)
                cut = dot;
        memmove(cut, end, strlen(end) + 1);
        return buf;
}
