/* parse.h — checked conversions of the text operators write into numbers.
 *
 * Durations ("500ms", "2s", "15min", "1h"; a bare number is seconds), sizes
 * ("16k", "1M", "4G", binary multiples; a bare number is bytes), integers,
 * doubles and booleans, always in the C locale and with the whole string
 * consumed.  The same functions serve config files and the command line, so
 * both accept exactly the same spellings.  Returns 0 or -EINVAL / -ERANGE;
 * outputs are untouched on failure.  Nothing here logs. */
#ifndef BENCHWATCH_PARSE_H
#define BENCHWATCH_PARSE_H

#include <stdbool.h>
#include <stdint.h>

int parse_int64(const char *s, int64_t *ret);
int parse_double(const char *s, double *ret);
int parse_bool(const char *s, bool *ret);
int parse_duration(const char *s, double *ret_seconds);
int parse_size(const char *s, int64_t *ret_bytes);

#endif
