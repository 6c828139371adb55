/* format.h — numbers for people: the spellings parse.h reads back
 * ("15min", "16k"), and figures in people's units ("64.5 µs", "26.2k")
 * for reports, tables, plots and log lines, so that no module prints a
 * raw %g where a person reads it.  Nothing here logs. */
#ifndef BENCHWATCH_FORMAT_H
#define BENCHWATCH_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

/* The spellings parse_duration() and parse_size() read, for help text and
 * reports: 900 -> "15min", 16384 -> "16k". */
const char *format_duration(double seconds, char *buf, unsigned size);
/* A duration to say "about" of (an estimate, an age), rounded to its
 * largest unit: 95 -> "95s", 4000 -> "67min", 17010 -> "5h", 3 days ->
 * "3d"; never "0" of a unit above the second. */
const char *format_duration_about(double seconds, char *buf, unsigned size);
const char *format_size(int64_t bytes, char *buf, unsigned size);
/* A figure for people, three significant digits: seconds as "64.5 µs",
 * "1.20 ms", "2.35 s"; anything else as "812", "26.2k", "1.00M", "4.56G"
 * (below 1: "0.25", "6.4e-05"). */
const char *format_quantity(double v, bool seconds, char *buf, unsigned size);
/* The same without trailing zeros, for axis ticks: "26k", "17.5k", "0",
 * "500 µs", "1.5 ms". */
const char *format_tick(double v, bool seconds, char *buf, unsigned size);

#endif
