/* strutil.h — allocation-checked string building, so no module needs a
 * fixed buffer for text a user controls. */
#ifndef BENCHWATCH_STRUTIL_H
#define BENCHWATCH_STRUTIL_H

#include <stdarg.h>

/* A malloc'd formatted string, or NULL when out of memory. */
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *str_vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
