/* report_format.h — a result for people and scripts at the terminal.
 *
 * `table` reads like sysbench's summary (parameters, figures, a latency
 * block per distribution), `json` is for scripts, `prometheus` is the text
 * exposition format (prom_text.h).  `report_format_line` is the one-line
 * summary the daemon prints as each result arrives. */
#ifndef BENCHWATCH_REPORT_FORMAT_H
#define BENCHWATCH_REPORT_FORMAT_H

#include <stdio.h>

#include "core/plugin.h"
#include "core/result.h"

enum output_format { FORMAT_TABLE, FORMAT_PROMETHEUS, FORMAT_JSON };

int report_format_parse(const char *s, enum output_format *ret);
/* report: the plugin's layout for the table format, or NULL. */
int report_format_write(FILE *f, enum output_format fmt, const struct result *r,
                        const struct bw_report_line *report);
void report_format_table(FILE *f, const struct result *r);
void report_format_json(FILE *f, const struct result *r);
/* "cpu 'cpu': ok in 10.0s: events_per_second=1234.5 latency p95=0.81ms" */
void report_format_line(FILE *f, const struct result *r);
/* The priority the run measured at (priority.h), if the result has it:
 * "priority:               nice 10, I/O best-effort level 7", and as a
 * JSON member ,"priority":{"nice":10,"io_class":"best-effort","io_level":7}. */
void report_format_priority(FILE *f, const struct result *r);
void report_format_json_priority(FILE *f, const struct result *r);
/* One table cell of width terminal columns (UTF-8 aware: "64.5 µs");
 * width < 0 left-aligns, as printf's "%-*s"; a leading space separates it. */
void report_format_cell(FILE *f, const char *s, int width);
/* "events_per_second" of benchwatch_cpu_events_per_second (plugin "cpu");
 * other names (benchwatch_regression, or anything a broken child sent)
 * whole. */
const char *report_format_short_name(const char *name, const char *plugin);
/* JSON string literal with escapes, for every module that writes JSON. */
void report_format_json_string(FILE *f, const char *s);

#endif
