/* strutil.c — see strutil.h. */
#include "util/strutil.h"

#include <stdio.h>

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

size_t str_width(const char *s)
{
        size_t n = 0;
        for (; *s; s++)
                n += ((unsigned char)*s & 0xc0) != 0x80;
        return n;
}
