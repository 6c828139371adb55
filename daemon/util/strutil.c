/* strutil.c — see strutil.h. */
#include "util/strutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *str_vprintf(const char *fmt, va_list ap)
{
        char *s;
        if (vasprintf(&s, fmt, ap) < 0)
                return NULL;
        return s;
}

char *str_printf(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *s = str_vprintf(fmt, ap);
        va_end(ap);
        return s;
}

/* The length of the well-formed UTF-8 sequence at s (RFC 3629, Unicode's
 * table 3-7), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
        unsigned char c = s[0];
        unsigned char lo = 0x80, hi = 0xbf;
        size_t n;
        if (c < 0x80)
                return 1;
        if (c >= 0xc2 && c <= 0xdf)
                n = 2;
        else if (c >= 0xe0 && c <= 0xef)
                n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
        else if (c >= 0xf0 && c <= 0xf4)
                n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
        else
                return 0;
        if (s[1] < lo || s[1] > hi)
                return 0;
        for (size_t i = 2; i < n; i++)
                if (s[i] < 0x80 || s[i] > 0xbf)
                        return 0;
        return n;
}

char *str_utf8_dup(const char *s)
{
        size_t bad = 0, len = strlen(s);
        for (size_t i = 0, n; i < len; i += n ? n : 1)
                bad += !(n = utf8_len((const unsigned char *)s + i));
        char *d = malloc(len + 2 * bad + 1), *o = d;
        if (!d)
                return NULL;
        for (size_t i = 0, n; i < len; i += n ? n : 1) {
                n = utf8_len((const unsigned char *)s + i);
                if (n) {
                        memcpy(o, s + i, n);
                        o += n;
                } else {
                        memcpy(o, "\xef\xbf\xbd", 3); /* U+FFFD */
                        o += 3;
                }
        }
        *o = 0;
        return d;
}

bool str_has_suffix(const char *s, const char *suffix)
{
        size_t n = strlen(s), m = strlen(suffix);
        return n >= m && !strcmp(s + n - m, suffix);
}

size_t str_width(const char *s)
{
        size_t n = 0;
        for (; *s; s++)
                n += ((unsigned char)*s & 0xc0) != 0x80;
        return n;
}
