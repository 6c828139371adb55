/* strutil.h — allocation-checked string building, so no module needs a
 * fixed buffer for text a user controls. */
#ifndef BENCHWATCH_STRUTIL_H
#define BENCHWATCH_STRUTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* A malloc'd formatted string, or NULL when out of memory. */
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *str_vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Whether s ends with suffix (a family's "_per_second", "_info"). */
bool str_has_suffix(const char *s, const char *suffix);
/* Terminal columns of UTF-8 text (code points; "64.5 µs" is 7), for
 * aligning tables where printf's widths count bytes. */
size_t str_width(const char *s);
/* A malloc'd copy of s that is valid UTF-8: each byte that does not begin
 * a well-formed sequence (an overlong one, a surrogate, past U+10FFFF, cut
 * short) becomes U+FFFD.  Prometheus' label values must be UTF-8: one
 * Latin-1 byte in a value made node_exporter drop the whole textfile, and
 * the Pushgateway refuse the push.  NULL when out of memory. */
char *str_utf8_dup(const char *s);

#endif
