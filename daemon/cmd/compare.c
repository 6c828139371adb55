/* compare.c — see compare.h.
 *
 * The table is a list of lines (the header's, then one per figure row),
 * each rendered twice by the same function: once to measure the columns
 * (UTF-8 aware: "64.5 µs"), once to print them. */
#include "cmd/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/priority.h"
#include "encode/report_format.h"
#include "util/format.h"
#include "util/strutil.h"

#define MIB 1048576.0
#define MIN_WIDTH 9
#define GAP 2 /* spaces between columns, beside report_format_cell's one */
#define CELL_SIZE 48

enum { STAT_VALUE = -1, STAT_MIN, STAT_AVG, STAT_P95, STAT_P99, STAT_MAX, N_STATS };
static const char *const stat_names[] = { "min", "avg", "p95", "p99", "max" };

enum line_kind { L_NAMES, L_PLUGIN, L_PARAM, L_INFO, L_BLANK, L_FIGURE, L_RUN };

struct line {
        enum line_kind kind;
        const char *name;   /* L_PARAM: the parameter; L_INFO: the label */
        const char *family; /* L_INFO: the info family; L_FIGURE: the figure's */
        char *key;          /* L_FIGURE: labels that are not parameters */
        int stat;           /* L_FIGURE: STAT_* */
        char *title;        /* L_FIGURE: malloc'd; otherwise NULL */
};

struct grid {
        const struct compare_column *cols;
        size_t n_cols;
        bool mixed; /* more than one plugin: titles name theirs */
        struct line *lines;
        size_t n_lines, cap;
};

static bool is_param(const struct compare_column *c, const char *label)
{
        return param_index(c->plugin->params, label) >= 0;
}

static bool skipped_family(const struct family *fam)
{
        return !strncmp(fam->name, "benchwatch_probe_", 17) || str_has_suffix(fam->name, "_info");
}

/* "op=read" — the labels of s that are not parameters; "" for none. */
static char *sample_key(const struct compare_column *c, const struct sample *s)
{
        char *key = strdup("");
        for (size_t i = 0; key && i < s->n_labels; i++) {
                if (is_param(c, s->labels[i].name))
                        continue;
                char *k = str_printf("%s%s%s=%s", key, *key ? "," : "",
                                     s->labels[i].name, s->labels[i].value);
                free(key);
                key = k;
        }
        return key;
}

static const struct sample *find_sample(const struct compare_column *c,
                                        const struct line *l)
{
        const struct family *fam = result_find(c->result, l->family);
        for (size_t k = 0; fam && k < fam->n_samples; k++) {
                char *key = sample_key(c, &fam->samples[k]);
                bool same = key && !strcmp(key, l->key);
                free(key);
                if (same)
                        return &fam->samples[k];
        }
        return NULL;
}

static int add_line(struct grid *g, struct line l)
{
        if (g->n_lines == g->cap) {
                size_t cap = g->cap ? 2 * g->cap : 32;
                struct line *v = realloc(g->lines, cap * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                g->lines = v;
                g->cap = cap;
        }
        g->lines[g->n_lines++] = l;
        return 0;
}

static bool has_line(const struct grid *g, enum line_kind kind, const char *family,
                     const char *name_or_key)
{
        for (size_t i = 0; i < g->n_lines; i++) {
                const struct line *l = &g->lines[i];
                if (l->kind != kind || (family && strcmp(l->family, family)))
                        continue;
                if (!strcmp(kind == L_FIGURE ? l->key : l->name, name_or_key))
                        return true;
        }
        return false;
}

/* ---- titles ----------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix, size_t *ret_stem)
{
        size_t n = strlen(s), m = strlen(suffix);
        if (n < m || strcmp(s + n - m, suffix))
                return false;
        *ret_stem = n - m;
        return true;
}

/* "IOPS", "MiB/s", "events/s", "latency", "errors", "working set MiB". */
static char *people_name(const char *figure)
{
        static const struct { const char *suffix, *unit; } units[] = {
                { "bytes_per_second", "MiB/s" }, { "_per_second", "/s" },
                { "_seconds", "" }, { "_bytes", " MiB" }, { "_total", "" },
        };
        if (!strcmp(figure, "iops"))
                return strdup("IOPS");
        size_t stem = strlen(figure);
        const char *unit = "";
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
                if (ends_with(figure, units[i].suffix, &stem)) {
                        unit = units[i].unit;
                        break;
                }
        if (stem && figure[stem - 1] == '_' && *unit != '/')
                stem--;
        char *s = str_printf("%.*s%s%s", (int)stem, figure,
                             stem && *unit == 'M' ? " " : "", unit);
        for (char *c = s; c && *c; c++)
                *c = *c == '_' ? ' ' : *c;
        return s;
}

/* "read latency p95", "disk read IOPS" (several plugins), "failed
 * requests [reason=timeout]". */
static char *figure_title(const struct grid *g, const struct compare_column *c,
                          const struct family *fam, const struct sample *s, int stat)
{
        char *name = people_name(report_format_short_name(fam->name, c->result->plugin));
        char *others = strdup("");
        const char *op = NULL;
        for (size_t i = 0; name && others && i < s->n_labels; i++) {
                const struct label *lb = &s->labels[i];
                if (is_param(c, lb->name))
                        continue;
                if (!strcmp(lb->name, "op") && !op) {
                        op = lb->value;
                        continue;
                }
                char *o = str_printf("%s%s%s=%s", others, *others ? "," : "", lb->name,
                                     lb->value);
                free(others);
                others = o;
        }
        char *t = name && others
                ? str_printf("%s%s%s%s%s%s%s%s%s%s", g->mixed ? c->plugin->name : "",
                             g->mixed ? " " : "", op ? op : "", op ? " " : "", name,
                             stat >= 0 ? " " : "", stat >= 0 ? stat_names[stat] : "",
                             *others ? " [" : "", others, *others ? "]" : "")
                : NULL;
        free(name);
        free(others);
        return t;
}

/* ---- building the lines ------------------------------------------------------ */

static int add_figures(struct grid *g, const struct compare_column *c)
{
        const struct result *r = c->result;
        for (size_t i = 0; i < r->n_families; i++) {
                const struct family *fam = &r->families[i];
                for (size_t k = 0; !skipped_family(fam) && k < fam->n_samples; k++) {
                        const struct sample *s = &fam->samples[k];
                        char *key = sample_key(c, s);
                        if (!key)
                                return -ENOMEM;
                        if (has_line(g, L_FIGURE, fam->name, key)) {
                                free(key);
                                continue;
                        }
                        int first = s->hist ? STAT_MIN : STAT_VALUE;
                        int last = s->hist ? STAT_MAX : STAT_VALUE;
                        for (int st = first; st <= last; st++) {
                                struct line l = { .kind = L_FIGURE, .family = fam->name,
                                                  .stat = st };
                                l.key = st == first ? key : strdup(key);
                                l.title = figure_title(g, c, fam, s, st);
                                if (!l.key || !l.title || add_line(g, l) < 0) {
                                        free(l.title);
                                        free(l.key);
                                        return -ENOMEM;
                                }
                        }
                }
        }
        return 0;
}

static const char *param_cell(const struct compare_column *c, const char *name)
{
        int i = param_index(c->plugin->params, name);
        if (i < 0 || !param_applies(c->params, (size_t)i))
                return "-";
        const char *v = param_text(c->params, (size_t)i);
        return v && *v ? v : "\"\"";
}

static const char *info_cell(const struct compare_column *c, const struct line *l)
{
        const struct family *fam = result_find(c->result, l->family);
        const char *v = fam && fam->n_samples ? result_sample_label(&fam->samples[0], l->name)
                                              : NULL;
        return v && *v ? v : "-";
}

/* Whether the probes' cells of a header line differ (so it is shown). */
static bool cells_differ(const struct grid *g, const struct line *l)
{
        for (size_t i = 1; i < g->n_cols; i++) {
                const char *a = l->kind == L_PARAM ? param_cell(&g->cols[0], l->name)
                                                   : info_cell(&g->cols[0], l);
                const char *b = l->kind == L_PARAM ? param_cell(&g->cols[i], l->name)
                                                   : info_cell(&g->cols[i], l);
                if (strcmp(a, b))
                        return true;
        }
        return false;
}

static int add_params(struct grid *g)
{
        for (size_t i = 0; i < g->n_cols; i++)
                for (const struct bw_param_def *d = g->cols[i].plugin->params; d->name; d++) {
                        struct line l = { .kind = L_PARAM, .name = d->name };
                        if (d->flags & BW_PARAM_SECRET || has_line(g, L_PARAM, NULL, d->name) ||
                            !cells_differ(g, &l))
                                continue;
                        if (add_line(g, l) < 0)
                                return -ENOMEM;
                }
        return 0;
}

/* The facts of info metrics (benchwatch_disk_info's device, model...). */
static int add_infos(struct grid *g)
{
        for (size_t i = 0; i < g->n_cols; i++) {
                const struct result *r = g->cols[i].result;
                for (size_t k = 0; k < r->n_families; k++) {
                        const struct family *fam = &r->families[k];
                        if (!str_has_suffix(fam->name, "_info") || !fam->n_samples)
                                continue;
                        const struct sample *s = &fam->samples[0];
                        for (size_t j = 0; j < s->n_labels; j++) {
                                struct line l = { .kind = L_INFO, .family = fam->name,
                                                  .name = s->labels[j].name };
                                if (has_line(g, L_INFO, fam->name, l.name) || !cells_differ(g, &l))
                                        continue;
                                if (add_line(g, l) < 0)
                                        return -ENOMEM;
                        }
                }
        }
        return 0;
}

static int grid_build(struct grid *g)
{
        for (size_t i = 1; i < g->n_cols; i++)
                g->mixed |= strcmp(g->cols[i].plugin->name, g->cols[0].plugin->name) != 0;
        int r = add_line(g, (struct line){ .kind = L_NAMES });
        if (r == 0)
                r = add_line(g, (struct line){ .kind = L_PLUGIN });
        if (r == 0)
                r = add_params(g);
        if (r == 0)
                r = add_infos(g);
        if (r == 0)
                r = add_line(g, (struct line){ .kind = L_BLANK });
        for (size_t i = 0; r == 0 && i < g->n_cols; i++)
                r = add_figures(g, &g->cols[i]);
        if (r == 0)
                r = add_line(g, (struct line){ .kind = L_BLANK });
        if (r == 0)
                r = add_line(g, (struct line){ .kind = L_RUN });
        return r;
}

static void grid_free(struct grid *g)
{
        for (size_t i = 0; i < g->n_lines; i++) {
                free(g->lines[i].key);
                free(g->lines[i].title);
        }
        free(g->lines);
}

/* ---- rendering --------------------------------------------------------------- */

static const char *figure_cell(const struct line *l, const struct sample *s, char *buf,
                               unsigned size)
{
        const char *fig = l->family;
        size_t stem;
        if (l->stat >= 0) {
                const struct bw_hist *h = s->hist;
                double ns = l->stat == STAT_MIN ? (h->count ? (double)h->min_ns : 0)
                          : l->stat == STAT_AVG ? bw_hist_mean_ns(h)
                          : l->stat == STAT_P95 ? bw_hist_quantile_ns(h, 0.95)
                          : l->stat == STAT_P99 ? bw_hist_quantile_ns(h, 0.99)
                                                : (double)h->max_ns;
                return format_quantity(ns / 1e9, true, buf, size);
        }
        double v = s->value;
        if (ends_with(fig, "bytes_per_second", &stem) || ends_with(fig, "_bytes", &stem))
                return format_quantity(v / MIB, false, buf, size);
        if (ends_with(fig, "_seconds", &stem))
                return format_quantity(v, true, buf, size);
        if (v == floor(v) && fabs(v) < 1000) {
                snprintf(buf, size, "%.0f", v); /* a count */
                return buf;
        }
        return format_quantity(v, false, buf, size);
}

static const char *line_title(const struct line *l)
{
        switch (l->kind) {
        case L_NAMES: return "probe";
        case L_PLUGIN: return "plugin";
        case L_PARAM:
        case L_INFO: return l->name;
        case L_FIGURE: return l->title;
        case L_RUN: return "run";
        case L_BLANK: break;
        }
        return "";
}

static const char *line_cell(const struct line *l, const struct compare_column *c,
                             char *buf, unsigned size)
{
        const struct sample *s;
        switch (l->kind) {
        case L_NAMES: return c->name;
        case L_PLUGIN: return c->plugin->name;
        case L_PARAM: return param_cell(c, l->name);
        case L_INFO: return info_cell(c, l);
        case L_BLANK: return "";
        case L_RUN:
                snprintf(buf, size, "%s ", c->result->success ? "ok in" : "FAILED after");
                format_quantity(c->result->duration, true, buf + strlen(buf),
                                size - (unsigned)strlen(buf));
                return buf;
        case L_FIGURE:
                if (!c->result->success)
                        return "FAILED";
                s = find_sample(c, l);
                if (!s || (l->stat >= 0) != (s->hist != NULL))
                        return "-";
                return figure_cell(l, s, buf, size);
        }
        return "";
}

static const struct result *with_priority(const struct grid *g)
{
        struct priority p;
        for (size_t i = 0; i < g->n_cols; i++)
                if (priority_from_result(g->cols[i].result, &p) == 0)
                        return g->cols[i].result;
        return NULL;
}

static void print_grid(FILE *f, const struct grid *g, const int *width, int title_width)
{
        char buf[CELL_SIZE];
        for (size_t i = 0; i < g->n_lines; i++) {
                const struct line *l = &g->lines[i];
                if (l->kind == L_BLANK) {
                        fputc('\n', f);
                        continue;
                }
                report_format_cell(f, line_title(l), -title_width);
                for (size_t c = 0; c < g->n_cols; c++)
                        report_format_cell(f, line_cell(l, &g->cols[c], buf, sizeof(buf)),
                                           width[c] + GAP);
                fputc('\n', f);
        }
}

int compare_table(FILE *f, const struct compare_column *cols, size_t n)
{
        struct grid g = { .cols = cols, .n_cols = n };
        int *width = calloc(n, sizeof(*width));
        int r = width ? grid_build(&g) : -ENOMEM, title_width = 0;
        char buf[CELL_SIZE];
        for (size_t c = 0; width && c < n; c++)
                width[c] = MIN_WIDTH;
        for (size_t i = 0; r == 0 && i < g.n_lines; i++) {
                int w = (int)str_width(line_title(&g.lines[i]));
                title_width = w > title_width ? w : title_width;
                for (size_t c = 0; c < n; c++) {
                        w = (int)str_width(line_cell(&g.lines[i], &cols[c], buf, sizeof(buf)));
                        width[c] = w > width[c] ? w : width[c];
                }
        }
        if (r == 0) {
                fprintf(f, "benchwatch %s: %zu probes, one after the other\n\n",
                        PACKAGE_VERSION, n);
                print_grid(f, &g, width, title_width + 2);
                const struct result *prio = with_priority(&g);
                if (prio) {
                        fputc('\n', f);
                        report_format_priority(f, prio);
                }
                for (size_t c = 0; c < n; c++)
                        if (!cols[c].result->success)
                                fprintf(f, "%s probe '%s' FAILED: %s\n", cols[c].plugin->name,
                                        cols[c].name, cols[c].result->error
                                                ? cols[c].result->error : "unknown error");
        }
        grid_free(&g);
        free(width);
        return r < 0 ? r : ferror(f) ? -EIO : 0;
}

int compare_json(FILE *f, const struct compare_column *cols, size_t n)
{
        fputs("{\"results\":[\n", f);
        for (size_t i = 0; i < n; i++) {
                if (i)
                        fputc(',', f);
                report_format_json(f, cols[i].result);
        }
        fputs("]}\n", f);
        return ferror(f) ? -EIO : 0;
}
