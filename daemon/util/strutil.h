/* strutil.h — allocation-checked string building, so no module needs a
 * fixed buffer for text a user controls. */
#ifndef BENCHWATCH_STRUTIL_H
#define BENCHWATCH_STRUTIL_H

#include <stdarg.h>
#include <stddef.h>

/* A malloc'd formatted string, or NULL when out of memory. */
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *str_vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Terminal columns of UTF-8 text (code points; "64.5 µs" is 7), for
 * aligning tables where printf's widths count bytes. */
size_t str_width(const char *s);

#endif
