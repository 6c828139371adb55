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

/* Human-readable spellings, for help text and reports. */
const char *format_duration(double seconds, char *buf, unsigned size);
const char *format_size(int64_t bytes, char *buf, unsigned size);
/* A figure for people, three significant digits: seconds as "64.5 µs",
 * "1.20 ms", "2.35 s"; anything else as "812", "26.2k", "1.00M", "4.56G"
 * (below 1: "0.25", "6.4e-05"). */
const char *format_quantity(double v, bool seconds, char *buf, unsigned size);
/* The same without trailing zeros, for axis ticks: "26k", "17.5k", "0",
 * "500 µs", "1.5 ms". */
const char *format_tick(double v, bool seconds, char *buf, unsigned size);

#endif
