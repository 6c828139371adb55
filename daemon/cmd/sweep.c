/* sweep.c — see sweep.h. */
#include "cmd/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/svg.h"
#include "util/format.h"

void sweep_point_from_result(struct sweep_point *pt, const struct result *r,
                             const char *throughput, const char *bandwidth,
                             const char *latency, double q)
{
        const struct family *tf = result_find(r, throughput);
        const struct family *bf = bandwidth ? result_find(r, bandwidth) : NULL;
        const struct family *lf = result_find(r, latency);
        struct bw_hist h;
        bw_hist_init(&h);
        pt->throughput = 0;
        for (size_t i = 0; tf && i < tf->n_samples; i++)
                pt->throughput += tf->samples[i].value;
        pt->bandwidth = bf && bf->n_samples ? 0 : -1;
        for (size_t i = 0; bf && i < bf->n_samples; i++)
                pt->bandwidth += bf->samples[i].value;
        for (size_t i = 0; lf && lf->type == METRIC_SUMMARY && i < lf->n_samples; i++)
                bw_hist_merge(&h, lf->samples[i].hist);
        pt->ok = r->success && tf && tf->n_samples;
        pt->mean = bw_hist_mean_ns(&h) / 1e9;
        pt->p50 = bw_hist_quantile_ns(&h, 0.5) / 1e9;
        pt->p95 = bw_hist_quantile_ns(&h, 0.95) / 1e9;
        pt->p99 = bw_hist_quantile_ns(&h, 0.99) / 1e9;
        pt->quantile = bw_hist_quantile_ns(&h, q) / 1e9;
}

int sweep_knee(const struct sweep_point *pts, size_t n, double target)
{
        int best = -1;
        for (size_t i = 0; i < n; i++) {
                if (!pts[i].ok || (target > 0 && pts[i].quantile > target))
                        continue;
                if (best < 0 || pts[i].throughput > pts[best].throughput)
                        best = (int)i;
        }
        if (best < 0 || target > 0)
                return best;
        for (size_t i = 0; i < n; i++)
                if (pts[i].ok && pts[i].throughput >= 0.95 * pts[best].throughput)
                        return (int)i;
        return best;
}

/* ---- SVG ------------------------------------------------------------------ */

#define W 760
#define H 420
#define L 80  /* margins */
#define R 80
#define T 50
#define B 60

static double nice_max(double v)
{
        if (v <= 0)
                return 1;
        double p = pow(10, floor(log10(v)));
        for (double m = 1; m <= 10; m += 0.5)
                if (m * p >= v)
                        return m * p;
        return 10 * p;
}

static void polyline(FILE *f, const struct sweep_point *pts, size_t n, bool lat,
                     double ymax, const char *colour)
{
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colour);
        for (size_t i = 0; i < n; i++) {
                if (!pts[i].ok)
                        continue;
                double x = L + (n > 1 ? (double)i / (double)(n - 1) : 0.5) * (W - L - R);
                double v = lat ? pts[i].quantile : pts[i].throughput;
                fprintf(f, "%.1f,%.1f ", x, H - B - v / ymax * (H - T - B));
        }
        fprintf(f, "\"/>\n");
        for (size_t i = 0; i < n; i++) {
                if (!pts[i].ok)
                        continue;
                double x = L + (n > 1 ? (double)i / (double)(n - 1) : 0.5) * (W - L - R);
                double v = lat ? pts[i].quantile : pts[i].throughput;
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", x,
                        H - B - v / ymax * (H - T - B), colour);
        }
}

static void axes(FILE *f, const char *param, const char *tname, double q,
                 double tmax, double lmax, const struct sweep_point *pts, size_t n)
{
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", L, H - B,
                W - R, H - B);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#1f77b4\"/>\n", L, T, L,
                H - B);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d62728\"/>\n", W - R, T,
                W - R, H - B);
        for (int k = 0; k <= 4; k++) {
                double y = H - B - k / 4.0 * (H - T - B);
                char tt[32], lt[32];
                fprintf(f,
                        "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\" "
                        "fill=\"#1f77b4\">%s</text>\n",
                        L - 6, y + 4, format_tick(tmax * k / 4, false, tt, sizeof(tt)));
                fprintf(f,
                        "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"#d62728\">%s</text>\n",
                        W - R + 6, y + 4, format_tick(lmax * k / 4, true, lt, sizeof(lt)));
                fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
                        L, y, W - R, y);
        }
        for (size_t i = 0; i < n; i++) {
                double x = L + (n > 1 ? (double)i / (double)(n - 1) : 0.5) * (W - L - R);
                fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">", x,
                        H - B + 18);
                svg_text(f, pts[i].level);
                fprintf(f, "</text>\n");
        }
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\">",
                (W + L - R) / 2, H - 15);
        svg_text(f, param);
        fprintf(f, "</text>\n"
                "<text x=\"15\" y=\"%d\" font-size=\"13\" fill=\"#1f77b4\" transform=\"rotate(-90 "
                "15 %d)\" text-anchor=\"middle\">", (H - B + T) / 2, (H - B + T) / 2);
        svg_text(f, tname);
        fprintf(f, "</text>\n");
        fprintf(f,
                "<text x=\"%d\" y=\"%d\" font-size=\"13\" fill=\"#d62728\" transform=\"rotate(90 "
                "%d %d)\" text-anchor=\"middle\">p%g latency</text>\n",
                W - 20, (H - B + T) / 2, W - 20, (H - B + T) / 2, q * 100);
}

int sweep_plot_svg(const char *path, const char *title, const char *param,
                   const char *throughput_name, double q,
                   const struct sweep_point *pts, size_t n, int knee)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return -errno;
        FILE *f = fdopen(fd, "w");
        if (!f) {
                int r = -errno;
                close(fd);
                return r;
        }
        double tmax = 0, lmax = 0;
        for (size_t i = 0; i < n; i++)
                if (pts[i].ok) {
                        tmax = fmax(tmax, pts[i].throughput);
                        lmax = fmax(lmax, pts[i].quantile);
                }
        tmax = nice_max(tmax);
        lmax = nice_max(lmax * 1e3) / 1e3;
        fprintf(f,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" "
                "fill=\"white\"/>\n",
                W, H);
        fprintf(f, "<text x=\"%d\" y=\"28\" text-anchor=\"middle\" font-size=\"15\">", W / 2);
        svg_text(f, title);
        fprintf(f, "</text>\n");
        axes(f, param, throughput_name, q, tmax, lmax, pts, n);
        if (knee >= 0) {
                double x = L + (n > 1 ? (double)knee / (double)(n - 1) : 0.5) * (W - L - R);
                fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#2ca02c\" "
                           "stroke-dasharray=\"6,4\" stroke-width=\"2\"/>\n", x, T, x, H - B);
                fprintf(f,
                        "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\" "
                        "fill=\"#2ca02c\">knee</text>\n",
                        x, T - 6);
        }
        polyline(f, pts, n, false, tmax, "#1f77b4");
        polyline(f, pts, n, true, lmax, "#d62728");
        fprintf(f, "</svg>\n");
        return fclose(f) == 0 ? 0 : -EIO;
}
