/* history_plot.c — see history_plot.h. */
#include "cmd/history_plot.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/svg.h"
#include "util/format.h"

#define W 900
#define PANEL_H 220
#define ML 80   /* margins of a panel */
#define MR 30
#define MT 34
#define MB 40
#define HEAD 40 /* the title above every panel */
#define FOOT 30 /* the legend below them */

struct panel {
        const char *key;
        double t0, t1, y0, y1;
        double top;       /* y of the panel's top in the picture */
        bool seconds;     /* a latency: ticks in s/ms/µs */
};

static double px(const struct panel *p, double t)
{
        double span = p->t1 > p->t0 ? p->t1 - p->t0 : 1;
        return ML + (t - p->t0) / span * (W - ML - MR);
}

static double py(const struct panel *p, double v)
{
        double span = p->y1 > p->y0 ? p->y1 - p->y0 : 1;
        return p->top + PANEL_H - MB - (v - p->y0) / span * (PANEL_H - MT - MB);
}

/* Time and value ranges of one series, with the band, padded by 5%. */
static void ranges(struct panel *p, const struct history_entry *e, size_t n, double thr)
{
        p->t0 = p->y0 = INFINITY;
        p->t1 = p->y1 = -INFINITY;
        for (size_t i = 0; i < n; i++) {
                if (strcmp(e[i].key, p->key))
                        continue;
                p->t0 = fmin(p->t0, e[i].t);
                p->t1 = fmax(p->t1, e[i].t);
                p->y0 = fmin(p->y0, e[i].value);
                p->y1 = fmax(p->y1, e[i].value);
                if (isfinite(e[i].reference)) {
                        p->y0 = fmin(p->y0, e[i].reference * (1 - thr));
                        p->y1 = fmax(p->y1, e[i].reference * (1 + thr));
                }
        }
        double pad = (p->y1 - p->y0) * 0.05 + fabs(p->y1) * 1e-6;
        p->y0 = fmax(p->y0 - pad, 0);
        p->y1 += pad;
        p->seconds = history_key_in_seconds(p->key);
}

static void axes(FILE *f, const struct panel *p)
{
        char buf[32];
        fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-size=\"13\">", ML, p->top + 20);
        svg_text(f, p->key);
        fputs("</text>\n", f);
        for (int k = 0; k <= 4; k++) {
                double v = p->y0 + (p->y1 - p->y0) * k / 4, y = py(p, v);
                fprintf(f,
                        "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n"
                        "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" "
                        "text-anchor=\"end\">%s</text>\n",
                        ML, y, W - MR, y, ML - 6, y + 4,
                        format_quantity(v, p->seconds, buf, sizeof(buf)));
        }
        /* UTC ticks, as precise as the span needs */
        double span = p->t1 - p->t0;
        for (int k = 0; k <= 4; k++) {
                double t = p->t0 + span * k / 4;
                time_t tt = (time_t)t;
                struct tm tm;
                size_t ok = gmtime_r(&tt, &tm) == NULL ? 0 :
                            span < 7200 ? strftime(buf, sizeof(buf), "%H:%M:%S", &tm) :
                            span < 4 * 86400 ? strftime(buf, sizeof(buf), "%m-%d %H:%M", &tm) :
                            strftime(buf, sizeof(buf), "%Y-%m-%d", &tm);
                if (!ok)
                        snprintf(buf, sizeof(buf), "?");
                fprintf(f,
                        "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\" "
                        "text-anchor=\"%s\">%s</text>\n",
                        px(p, t), p->top + PANEL_H - MB + 16,
                        k == 0   ? "start"
                        : k == 4 ? "end"
                                 : "middle",
                        buf);
        }
        fprintf(f,
                "<text x=\"%d\" y=\"%.0f\" font-size=\"11\" text-anchor=\"end\" "
                "fill=\"#666\">UTC</text>\n",
                W - MR, p->top + PANEL_H - MB + 30);
        fprintf(f,
                "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"none\" "
                "stroke=\"#999\"/>\n",
                ML, p->top + MT, W - ML - MR, PANEL_H - MT - MB);
}

/* The band and the reference line, one rectangle per stretch of runs with
 * the same reference. */
static void band(FILE *f, const struct panel *p, const struct history_entry *e, size_t n,
                 double thr)
{
        size_t start = SIZE_MAX, last = SIZE_MAX;
        for (size_t i = 0; i <= n; i++) {
                bool mine = i < n && !strcmp(e[i].key, p->key);
                if (i < n && !mine)
                        continue;
                bool same = mine && last != SIZE_MAX && e[i].reference == e[last].reference;
                if (start != SIZE_MAX && !same && isfinite(e[start].reference)) {
                        double ref = e[start].reference, x0 = px(p, e[start].t);
                        double x1 = px(p, i < n ? e[i].t : e[last].t);
                        fprintf(f,
                                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                                "fill=\"#2ca02c\" fill-opacity=\"0.15\"/>\n"
                                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                                "stroke=\"#2ca02c\" "
                                "stroke-dasharray=\"6 4\"/>\n",
                                x0, py(p, ref * (1 + thr)), fmax(x1 - x0, 1),
                                py(p, ref * (1 - thr)) - py(p, ref * (1 + thr)), x0, py(p, ref), x1,
                                py(p, ref));
                }
                if (!same)
                        start = i;
                if (mine)
                        last = i;
        }
}

static void points(FILE *f, const struct panel *p, const struct history_entry *e, size_t n)
{
        fputs("<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"", f);
        for (size_t i = 0; i < n; i++)
                if (!strcmp(e[i].key, p->key))
                        fprintf(f, "%.1f,%.1f ", px(p, e[i].t), py(p, e[i].value));
        fputs("\"/>\n", f);
        for (size_t i = 0; i < n; i++) {
                if (strcmp(e[i].key, p->key) || (e[i].state == HISTORY_OK && e[i].counted))
                        continue;
                const char *colour = e[i].state == HISTORY_REGRESSION ? "#d62728" :
                                     e[i].state == HISTORY_LEARNING ? "#999999" : "#1f77b4";
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" stroke=\"%s\"/>\n",
                        px(p, e[i].t), py(p, e[i].value), e[i].counted ? colour : "white", colour);
        }
}

static void legend(FILE *f, double y, double thr)
{
        fprintf(f,
                "<g font-size=\"12\"><line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" "
                "stroke=\"#1f77b4\" stroke-width=\"2\"/>"
                "<text x=\"%d\" y=\"%.0f\">figure</text>"
                "<rect x=\"%d\" y=\"%.0f\" width=\"24\" height=\"10\" fill=\"#2ca02c\" "
                "fill-opacity=\"0.15\" stroke=\"#2ca02c\" stroke-dasharray=\"6 4\"/>"
                "<text x=\"%d\" y=\"%.0f\">reference \u00b1%.0f%%</text>"
                "<circle cx=\"%d\" cy=\"%.0f\" r=\"4\" fill=\"#d62728\"/><text x=\"%d\" "
                "y=\"%.0f\">in regression</text>"
                "<circle cx=\"%d\" cy=\"%.0f\" r=\"4\" fill=\"#999999\"/><text x=\"%d\" "
                "y=\"%.0f\">learning</text>"
                "<circle cx=\"%d\" cy=\"%.0f\" r=\"4\" fill=\"white\" stroke=\"#1f77b4\"/><text "
                "x=\"%d\" y=\"%.0f\">not counted</text></g>\n",
                ML, y - 4, ML + 24, y - 4, ML + 30, y, ML + 100, y - 10, ML + 130, y, thr * 100,
                ML + 260, y - 4, ML + 270, y, ML + 380, y - 4, ML + 390, y, ML + 470, y - 4,
                ML + 480, y);
}

int history_plot_svg(FILE *f, const char *probe, const struct history_entry *e, size_t n,
                     double threshold)
{
        const char **keys = n ? calloc(n, sizeof(*keys)) : NULL;
        size_t nk = 0;
        if (!keys)
                return n ? -ENOMEM : -EINVAL;
        for (size_t i = 0; i < n; i++) {
                size_t k = 0;
                while (k < nk && strcmp(keys[k], e[i].key))
                        k++;
                if (k == nk)
                        keys[nk++] = e[i].key;
        }
        double height = HEAD + nk * PANEL_H + FOOT;
        fprintf(f,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
                "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" "
                "fill=\"white\"/>\n"
                "<text x=\"%d\" y=\"26\" font-size=\"16\" font-weight=\"bold\">benchwatch history: "
                "probe ",
                W, height, ML);
        svg_text(f, probe);
        fputs("</text>\n", f);
        for (size_t k = 0; k < nk; k++) {
                struct panel p = { .key = keys[k], .top = HEAD + k * PANEL_H };
                ranges(&p, e, n, threshold);
                axes(f, &p);
                band(f, &p, e, n, threshold);
                points(f, &p, e, n);
        }
        legend(f, height - 10, threshold);
        fputs("</svg>\n", f);
        free(keys);
        return ferror(f) ? -EIO : 0;
}
