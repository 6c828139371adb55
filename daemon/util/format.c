/* format.c — see format.h. */
#include "util/format.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

const char *format_duration_about(double seconds, char *buf, unsigned size)
{
        double s = fabs(seconds);
        double unit = s < 120 ? 1 : s < 7200 ? 60 : s < 172800 ? 3600 : 86400;
        return format_duration(fmax(round(s / unit), unit == 1 ? 0 : 1) * unit, buf, size);
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
