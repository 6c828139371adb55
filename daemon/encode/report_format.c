/* report_format.c — see report_format.h. */
#include "encode/report_format.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/priority.h"
#include "encode/prom_text.h"
#include "util/format.h"
#include "util/strutil.h"

int report_format_parse(const char *s, enum output_format *ret)
{
        static const char *const names[] = { "table", "prometheus", "json" };
        for (unsigned i = 0; i < 3; i++)
                if (!strcmp(s, names[i])) {
                        *ret = (enum output_format)i;
                        return 0;
                }
        return -EINVAL;
}

static bool is_param_label(const struct result *r, const char *name)
{
        for (size_t i = 0; i < r->n_params; i++)
                if (!strcmp(r->params[i].name, name))
                        return true;
        return false;
}

const char *report_format_short_name(const char *name, const char *plugin)
{
        size_t n = strlen(plugin);
        if (strncmp(name, "benchwatch_", 11) || strncmp(name + 11, plugin, n) ||
            name[11 + n] != '_' || !name[12 + n])
                return name;
        return name + 12 + n;
}

/* "    bytes_per_second [operation=copy]" and its columns; width: where
 * the value's column starts (the longest name's end, at least 40). */
static int figure_name(FILE *f, const struct result *r, const struct family *fam,
                       const struct sample *s, int width)
{
        int n = fprintf(f, "    %s", report_format_short_name(fam->name, r->plugin));
        bool first = true;
        for (size_t i = 0; i < s->n_labels; i++) {
                if (is_param_label(r, s->labels[i].name))
                        continue;
                n += fprintf(f, "%s%s=%s", first ? " [" : ",", s->labels[i].name,
                             s->labels[i].value);
                first = false;
        }
        if (!first)
                n += fprintf(f, "]");
        fputc(':', f);
        if (width > 0)
                fprintf(f, "%*s", n < width ? width - n : 1, "");
        return n;
}

/* The value column of the table's figures: past the longest name. */
static int names_width(const struct result *r)
{
        int width = 40;
        FILE *null = fopen("/dev/null", "we");
        for (size_t i = 0; null && i < r->n_families; i++)
                for (size_t k = 0; k < r->families[i].n_samples; k++) {
                        int n = figure_name(null, r, &r->families[i],
                                            &r->families[i].samples[k], 0);
                        if (r->families[i].type != METRIC_SUMMARY &&
                            strncmp(r->families[i].name, "benchwatch_probe_", 17) && n >= width)
                                width = n < 60 ? n + 1 : width;
                }
        if (null)
                fclose(null);
        return width;
}

static void table_value(FILE *f, const char *name, double v)
{
        /* bytes as sysbench says them: MiB, the CPU-time twin alike */
        if (str_has_suffix(name, "_bytes_per_second"))
                fprintf(f, "%14.2f MiB/s\n", v / 1048576.0);
        else if (str_has_suffix(name, "_bytes_per_cpu_second"))
                fprintf(f, "%14.2f MiB per CPU second\n", v / 1048576.0);
        else if ((str_has_suffix(name, "_bytes") || str_has_suffix(name, "_bytes_total")) &&
                 v == floor(v) && v >= 1048576)
                fprintf(f, "%11.0f    (%.1f MiB)\n", v, v / 1048576.0);
        else if (str_has_suffix(name, "_seconds")) {
                char buf[32];
                report_format_cell(f, format_quantity(v, true, buf, sizeof(buf)), 13);
                fputc('\n', f);
        } else if (v == floor(v) && fabs(v) < 1e15)
                fprintf(f, "%11.0f\n", v); /* a count */
        else
                fprintf(f, "%14.2f\n", v);
}

/* One line of the latency block: a time in ns as people read it. */
static void latency_line(FILE *f, const char *label, double ns)
{
        char buf[32];
        fprintf(f, "         %-30s", label);
        report_format_cell(f, format_quantity(ns / 1e9, true, buf, sizeof(buf)), 14);
        fputc('\n', f);
}

static void table_latency(FILE *f, const struct result *r, const struct family *fam,
                          const struct sample *s)
{
        static const char *const qname[] = { "50th percentile", "90th percentile",
                                             "95th percentile", "99th percentile",
                                             "99.9th percentile", "max" };
        const struct bw_hist *h = s->hist;
        fprintf(f, "\n");
        figure_name(f, r, fam, s, 0);
        fprintf(f, "\n");
        latency_line(f, "min:", h->count ? (double)h->min_ns : 0);
        latency_line(f, "avg:", bw_hist_mean_ns(h));
        for (size_t q = 0; q < result_n_quantiles; q++) {
                char label[32];
                snprintf(label, sizeof(label), "%s:", qname[q]);
                latency_line(f, label, bw_hist_quantile_ns(h, result_quantiles[q]));
        }
        latency_line(f, "sum:", (double)h->sum_ns);
        fprintf(f, "         %-30s %14llu\n", "count:", (unsigned long long)h->count);
}

void report_format_table(FILE *f, const struct result *r)
{
        fprintf(f, "benchwatch %s: probe '%s' (plugin %s)\n\n", PACKAGE_VERSION,
                r->probe, r->plugin);
        fprintf(f, "Parameters:\n");
        for (size_t i = 0; i < r->n_params; i++)
                fprintf(f, "    %-20s %s\n", r->params[i].name,
                        *r->params[i].value ? r->params[i].value : "(not set)");
        fprintf(f, "\nFigures:\n");
        int width = names_width(r);
        for (size_t i = 0; i < r->n_families; i++) {
                const struct family *fam = &r->families[i];
                if (!strncmp(fam->name, "benchwatch_probe_", 17))
                        continue;
                for (size_t k = 0; k < fam->n_samples; k++) {
                        if (fam->type == METRIC_SUMMARY)
                                continue;
                        figure_name(f, r, fam, &fam->samples[k], width);
                        table_value(f, fam->name, fam->samples[k].value);
                }
        }
        for (size_t i = 0; i < r->n_families; i++)
                for (size_t k = 0; r->families[i].type == METRIC_SUMMARY &&
                                   k < r->families[i].n_samples; k++)
                        table_latency(f, r, &r->families[i], &r->families[i].samples[k]);
        fputc('\n', f);
        report_format_priority(f, r);
        fprintf(f, "Run: %s in %.2fs%s%s\n", r->success ? "succeeded" : "FAILED",
                r->duration, r->error ? ": " : "", r->error ? r->error : "");
}

void report_format_cell(FILE *f, const char *s, int width)
{
        int extra = (int)(strlen(s) - str_width(s));
        fprintf(f, " %*s", width < 0 ? width - extra : width + extra, s);
}

void report_format_json_string(FILE *f, const char *s)
{
        if (!s) {
                fputs("null", f);
                return;
        }
        fputc('"', f);
        for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
                if (*c == '"' || *c == '\\')
                        fprintf(f, "\\%c", *c);
                else if (*c == '\n')
                        fputs("\\n", f);
                else if (*c < 0x20)
                        fprintf(f, "\\u%04x", *c);
                else
                        fputc(*c, f);
        }
        fputc('"', f);
}

static void json_number(FILE *f, double v)
{
        if (isfinite(v))
                fprintf(f, "%.17g", v);
        else
                fputs("null", f);
}

static void json_labels(FILE *f, const struct label *l, size_t n)
{
        fputc('{', f);
        for (size_t i = 0; i < n; i++) {
                if (i)
                        fputc(',', f);
                report_format_json_string(f, l[i].name);
                fputc(':', f);
                report_format_json_string(f, l[i].value);
        }
        fputc('}', f);
}

static void json_summary(FILE *f, const struct bw_hist *h)
{
        fprintf(f, ",\"count\":%llu,\"sum\":", (unsigned long long)h->count);
        json_number(f, (double)h->sum_ns / 1e9);
        fputs(",\"min\":", f);
        json_number(f, h->count ? (double)h->min_ns / 1e9 : 0);
        fputs(",\"max\":", f);
        json_number(f, (double)h->max_ns / 1e9);
        fputs(",\"mean\":", f);
        json_number(f, bw_hist_mean_ns(h) / 1e9);
        fputs(",\"quantiles\":{", f);
        for (size_t q = 0; q < result_n_quantiles; q++) {
                fprintf(f, "%s\"%g\":", q ? "," : "", result_quantiles[q]);
                json_number(f, bw_hist_quantile_ns(h, result_quantiles[q]) / 1e9);
        }
        /* the non-empty buckets, [upper bound in seconds, samples in it]:
         * what pools runs exactly, where quantiles cannot be averaged */
        fputs("},\"histogram\":[", f);
        bool first = true;
        for (unsigned i = 0; i < BW_HIST_BUCKETS; i++) {
                if (!h->buckets[i])
                        continue;
                fputs(first ? "[" : ",[", f);
                json_number(f, (double)bw_hist_bucket_high(i) / 1e9);
                fprintf(f, ",%llu]", (unsigned long long)h->buckets[i]);
                first = false;
        }
        fputc(']', f);
}

static void json_family(FILE *f, const struct family *fam)
{
        static const char *const types[] = { "gauge", "counter", "summary" };
        fputs("{\"name\":", f);
        report_format_json_string(f, fam->name);
        fprintf(f, ",\"type\":\"%s\",\"help\":", types[fam->type]);
        report_format_json_string(f, fam->help);
        fputs(",\"samples\":[", f);
        for (size_t k = 0; k < fam->n_samples; k++) {
                const struct sample *s = &fam->samples[k];
                fputs(k ? ",{\"labels\":" : "{\"labels\":", f);
                json_labels(f, s->labels, s->n_labels);
                if (s->hist) {
                        json_summary(f, s->hist);
                } else {
                        fputs(",\"value\":", f);
                        json_number(f, s->value);
                }
                fputc('}', f);
        }
        fputs("]}", f);
}

void report_format_json_priority(FILE *f, const struct result *r)
{
        struct priority p;
        if (priority_from_result(r, &p) < 0)
                return;
        fprintf(f, ",\"priority\":{\"nice\":%d,\"io_class\":", p.nice);
        report_format_json_string(f, priority_io_class_name(p.io_class));
        fprintf(f, ",\"io_level\":%d,\"cpu_policy\":", p.io_level);
        report_format_json_string(f, priority_cpu_policy_name(p.cpu_policy));
        fputs(",\"from\":", f);
        report_format_json_string(f, r->priority_from);
        fputc('}', f);
}

void report_format_priority(FILE *f, const struct result *r)
{
        struct priority p;
        if (priority_from_result(r, &p) < 0)
                return;
        fprintf(f, "%-24snice %d, I/O %s", "priority:", p.nice, priority_io_class_name(p.io_class));
        if (p.io_class != PRIO_IO_IDLE)
                fprintf(f, " level %d", p.io_level);
        if (p.cpu_policy != PRIO_CPU_OTHER)
                fprintf(f, ", CPU policy %s", priority_cpu_policy_name(p.cpu_policy));
        if (r->priority_from && !strcmp(r->priority_from, PRIO_FROM_DAEMON))
                fputs(" (the daemon's: [daemon] nice, ioprio_*)", f);
        else if (r->priority_from && !strcmp(r->priority_from, PRIO_FROM_ONE_OFF))
                fputs(" (a one-off run's, as a classic tool's; --nice, --ionice to change)", f);
        else if (r->priority_from)
                fputs(" (--nice, --ionice)", f);
        fputc('\n', f);
}

void report_format_json(FILE *f, const struct result *r)
{
        fputs("{\"probe\":", f);
        report_format_json_string(f, r->probe);
        fputs(",\"plugin\":", f);
        report_format_json_string(f, r->plugin);
        fprintf(f, ",\"success\":%s,\"error\":", r->success ? "true" : "false");
        report_format_json_string(f, r->error);
        fputs(",\"started\":", f);
        json_number(f, r->started);
        fputs(",\"duration\":", f);
        json_number(f, r->duration);
        fputs(",\"params\":", f);
        json_labels(f, r->params, r->n_params);
        report_format_json_priority(f, r);
        fputs(",\"metrics\":[", f);
        for (size_t i = 0; i < r->n_families; i++) {
                if (i)
                        fputc(',', f);
                json_family(f, &r->families[i]);
        }
        fputs("]}\n", f);
}

/* ---- a plugin's own layout ------------------------------------------------- */

static const struct family *report_family(const struct result *r, const char *figure)
{
        for (size_t i = 0; i < r->n_families; i++)
                if (!strcmp(report_format_short_name(r->families[i].name, r->plugin), figure))
                        return &r->families[i];
        return NULL;
}

static bool report_number(const struct result *r, const struct bw_report_line *l,
                          double *ret)
{
        const struct family *fam = report_family(r, l->figure);
        struct bw_hist h;
        double v = 0;
        if (!fam || !fam->n_samples)
                return false;
        bw_hist_init(&h);
        for (size_t i = 0; i < fam->n_samples; i++) {
                v += fam->samples[i].value;
                if (fam->samples[i].hist)
                        bw_hist_merge(&h, fam->samples[i].hist);
        }
        if (l->show == BW_SHOW_MEAN)
                v = bw_hist_mean_ns(&h) / 1e9;
        else if (l->show == BW_SHOW_RECIPROCAL)
                v = v ? 1 / v : 0;
        v *= l->scale ? l->scale : 1;
        for (size_t i = 0; l->times_param && i < r->n_params; i++)
                if (!strcmp(r->params[i].name, l->times_param))
                        v *= strtod(r->params[i].value, NULL);
        *ret = v;
        return true;
}

/* ab's block under its heading: the share of requests served within a
 * time, in ms; none at all where none was timed (a run that failed: a
 * table of zeros would read as requests served at once). */
static void percentile_hist(const struct result *r, const char *figure, struct bw_hist *ret)
{
        const struct family *fam = report_family(r, figure);
        bw_hist_init(ret);
        for (size_t i = 0; fam && i < fam->n_samples; i++)
                if (fam->samples[i].hist)
                        bw_hist_merge(ret, fam->samples[i].hist);
}

static void report_percentiles(FILE *f, const struct result *r, const char *heading,
                               const char *figure, int decimals)
{
        static const int pct[] = { 50, 66, 75, 80, 90, 95, 98, 99, 100 };
        struct bw_hist h;
        percentile_hist(r, figure, &h);
        if (!h.count)
                return;
        fprintf(f, "%s\n", heading);
        for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
                fprintf(f, " %3d%% %8.*f%s\n", pct[i], decimals,
                        bw_hist_quantile_ns(&h, pct[i] / 100.0) / 1e6,
                        pct[i] == 100 ? " (longest request)" : "");
}

static void report_param(FILE *f, const struct result *r, const struct bw_report_line *l)
{
        for (size_t i = 0; i < r->n_params; i++)
                if (!strcmp(r->params[i].name, l->figure))
                        fprintf(f, "%-24s%s\n", l->label, r->params[i].value);
}

/* Whether line l, not a heading, prints anything for r. */
static bool line_shown(const struct result *r, const struct bw_report_line *l)
{
        struct bw_hist h;
        double v;
        switch (l->show) {
        case BW_SHOW_HEADING:
                return false;
        case BW_SHOW_PARAM:
                for (size_t i = 0; i < r->n_params; i++)
                        if (!strcmp(r->params[i].name, l->figure))
                                return true;
                return false;
        case BW_SHOW_PERCENTILES:
                percentile_hist(r, l->figure, &h);
                return h.count > 0;
        default:
                return report_number(r, l, &v);
        }
}

/* A heading only above something: an empty one (a blank line) when the
 * line after it prints, a titled one over indented lines when one of
 * them does (a gpu run with stream=no has no "Device memory"); a titled
 * one over none, always. */
static bool heading_shown(const struct result *r, const struct bw_report_line *l)
{
        if (!*l->label)
                return l[1].label && line_shown(r, l + 1);
        const struct bw_report_line *u = l + 1;
        if (!u->label || u->label[0] != ' ')
                return true;
        for (; u->label && u->label[0] == ' '; u++)
                if (line_shown(r, u))
                        return true;
        return false;
}

/* The table in the plugin's own layout (ab's summary for http). */
static void plugin_layout(FILE *f, const struct result *r,
                          const struct bw_report_line *report)
{
        for (const struct bw_report_line *l = report; l->label; l++) {
                double v;
                if (l->show == BW_SHOW_HEADING && heading_shown(r, l))
                        fprintf(f, "%s\n", l->label);
                if (l->show == BW_SHOW_PERCENTILES)
                        report_percentiles(f, r, l->label, l->figure, l->decimals);
                else if (l->show == BW_SHOW_PARAM)
                        report_param(f, r, l);
                else if (l->show != BW_SHOW_HEADING && report_number(r, l, &v)) {
                        fprintf(f, "%-24s", l->label);
                        fprintf(f, "%.*f", l->decimals, v);
                        fprintf(f, "%s%s\n", l->unit ? " " : "", l->unit ? l->unit : "");
                }
        }
        report_format_priority(f, r);
        fprintf(f, "\nRun: %s in %.2fs%s%s\n", r->success ? "succeeded" : "FAILED", r->duration,
                r->error ? ": " : "", r->error ? r->error : "");
}

int report_format_write(FILE *f, enum output_format fmt, const struct result *r,
                        const struct bw_report_line *report)
{
        switch (fmt) {
        case FORMAT_TABLE:
                if (report)
                        plugin_layout(f, r, report);
                else
                        report_format_table(f, r);
                break;
        case FORMAT_JSON:
                report_format_json(f, r);
                break;
        case FORMAT_PROMETHEUS:
                return prom_text_write(f, &r, 1);
        }
        return ferror(f) ? -EIO : 0;
}


void report_format_line(FILE *f, const struct result *r)
{
        fprintf(f, "%s '%s': ", r->plugin, r->probe);
        if (!r->success) {
                fprintf(f, "FAILED after %.1fs: %s\n", r->duration,
                        r->error ? r->error : "unknown error");
                return;
        }
        fprintf(f, "ok in %.1fs:", r->duration);
        size_t shown = 0;
        for (size_t i = 0; i < r->n_families && shown < 4; i++) {
                const struct family *fam = &r->families[i];
                /* figures, not the runner's evidence, totals or info metrics
                 * (benchwatch_disk_info, 1: facts in labels) */
                if (!strncmp(fam->name, "benchwatch_probe_", 17) || !fam->n_samples ||
                    fam->type == METRIC_COUNTER || str_has_suffix(fam->name, "_info"))
                        continue;
                const char *name = report_format_short_name(fam->name, r->plugin);
                const struct sample *s = &fam->samples[0];
                char a[32], b[32];
                bool sec = str_has_suffix(name, "_seconds");
                if (s->hist)
                        fprintf(f, " %s p50=%s p95=%s", name,
                                format_quantity(bw_hist_quantile_ns(s->hist, 0.5) / 1e9, true, a,
                                                sizeof(a)),
                                format_quantity(bw_hist_quantile_ns(s->hist, 0.95) / 1e9, true, b,
                                                sizeof(b)));
                else
                        fprintf(f, " %s=%s", name, format_quantity(s->value, sec, a, sizeof(a)));
                shown++;
        }
        fputc('\n', f);
}
