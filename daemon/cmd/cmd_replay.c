/* cmd_replay.c — `benchwatch replay FILE`: what would benchwatch have
 * flagged in this history?
 *
 * The series (series_file.h: one value a line, or timestamp,value) goes
 * through exactly the daemon's detector with the configured [regression]
 * settings, every run counted, and each run's state, reference, change and
 * evidence is printed, with every regression entered and left, so that an
 * operator can try the detector on years of their own sysbench or fio
 * numbers before trusting it with alerts. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "detect/detector.h"
#include "detect/series_file.h"
#include "detect/tracker.h"
#include "encode/report_format.h"
#include "util/format.h"

struct replay_opts {
        enum output_format fmt;
        enum detector_direction dir;
        const char *file;
};

static const char *state_text(const struct detector_verdict *v)
{
        if (!v->valid)
                return "learning";
        return v->regression ? "REGRESSION" : "ok";
}

static const char *event_text(const struct detector_verdict *v)
{
        return v->transition == DETECTOR_ENTERED ? "entered" :
               v->transition == DETECTOR_LEFT ? "left" : "";
}

static void time_text(double t, char *buf, size_t size)
{
        time_t tt = (time_t)t;
        struct tm tm;
        if (isnan(t) || !gmtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
                snprintf(buf, size, "-");
}

static void print_json_number(const char *name, double v)
{
        if (isfinite(v))
                printf(",\"%s\":%.9g", name, v);
        else
                printf(",\"%s\":null", name);
}

static void print_run(const struct replay_opts *o, size_t i, const struct series_point *p,
                      const struct detector_verdict *v)
{
        if (o->fmt == FORMAT_JSON) {
                printf("%s{\"run\":%zu", i ? "," : "", i + 1);
                print_json_number("time", p->t);
                print_json_number("value", v->value);
                printf(",\"state\":\"%s\"", state_text(v));
                print_json_number("reference", v->valid ? v->reference : NAN);
                print_json_number("change", v->valid ? v->change : NAN);
                print_json_number("change_low", v->valid ? v->change_lo : NAN);
                print_json_number("change_high", v->valid ? v->change_hi : NAN);
                print_json_number("evidence", v->valid ? v->evidence : NAN);
                printf(",\"event\":\"%s\"}", event_text(v));
                return;
        }
        char when[32], value[24], ch[16] = "", ev[16] = "", ref[24] = "";
        time_text(p->t, when, sizeof(when));
        /* the file's unit is its own: three significant digits, no unit */
        format_quantity(v->value, false, value, sizeof(value));
        if (v->valid) {
                format_quantity(v->reference, false, ref, sizeof(ref));
                snprintf(ch, sizeof(ch), "%+.1f%%", v->change * 100);
                snprintf(ev, sizeof(ev), "%.2f", v->evidence);
        }
        printf("%6zu %-20s %12s %-10s %12s %8s %8s  %s\n", i + 1, when, value,
               state_text(v), ref, ch, ev, event_text(v));
}

struct tally {
        unsigned entered, left;
        size_t pinned_at;           /* run that pinned the reference, 0 if none */
        struct detector_verdict at_pin;
};

static int replay(const struct replay_opts *o, const struct tracker_settings *ts,
                  const struct series_point *pts, size_t n, struct tally *t)
{
        struct detector d;
        detector_init(&d);
        for (size_t i = 0; i < n; i++) {
                struct detector_verdict v;
                bool was_pinned = d.pinned;
                /* without timestamps the reference is dated by its run number */
                double when = isnan(pts[i].t) ? (double)(i + 1) : pts[i].t;
                int r = detector_update(&d, &ts->det, o->dir, pts[i].value, when, true, &v);
                if (r < 0)
                        return r;
                print_run(o, i, &pts[i], &v);
                t->entered += v.transition == DETECTOR_ENTERED;
                t->left += v.transition == DETECTOR_LEFT;
                if (!was_pinned && d.pinned) {
                        t->pinned_at = i + 1;
                        t->at_pin = v;
                }
        }
        return 0;
}

static void print_summary(const struct replay_opts *o, const struct tracker_settings *ts,
                          size_t n, const struct tally *t)
{
        if (o->fmt == FORMAT_JSON) {
                printf("],\"runs\":%zu,\"pinned_at_run\":%zu,\"regressions\":%u,\"recoveries\":%u}"
                       "\n",
                       n, t->pinned_at, t->entered, t->left);
                return;
        }
        printf("\n%zu run(s) of %s (%s is worse): ", n, o->file,
               o->dir == DETECTOR_HIGHER_IS_BETTER ? "lower" : "higher");
        if (!t->pinned_at) {
                printf("still learning: the reference is pinned after %u runs\n",
                       ts->det.reference_runs);
                return;
        }
        char ref[24];
        format_quantity(t->at_pin.reference, false, ref, sizeof(ref));
        printf("reference pinned at run %zu (%s, noise %.1f%% a run); %u regression(s) "
               "entered, %u left\n", t->pinned_at, ref, t->at_pin.noise * 100, t->entered,
               t->left);
}

static void replay_usage(FILE *f)
{
        fprintf(f, "Usage: benchwatch replay FILE [--format=table|json] [--lower-is-better]\n\n"
                   "Runs a series (one value a line, or timestamp,value; '-' reads standard\n"
                   "input) through the daemon's detector with the configured [regression]\n"
                   "settings and prints each run's state, reference, change and evidence,\n"
                   "and every regression it would have raised.  Figures are taken as\n"
                   "\"higher is better\" (IOPS, events/s) unless --lower-is-better (latency).\n"
                   "Exit status: 0 no regression at the end, 1 in a regression at the end,\n"
                   "2 a bad file or usage.\n");
}

static int parse_replay_args(int argc, char **argv, struct replay_opts *o)
{
        static const struct option opts[] = {
                { "format", required_argument, NULL, 'f' },
                { "lower-is-better", no_argument, NULL, 'l' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        int c;
        while ((c = cli_getopt("replay", argc, argv, "h", opts)) != -1) {
                if (c == 'l')
                        o->dir = DETECTOR_LOWER_IS_BETTER;
                else if (c == 'f' && report_format_parse(optarg, &o->fmt) == 0 &&
                         o->fmt != FORMAT_PROMETHEUS)
                        continue;
                else {
                        if (c == 'f')
                                log_error("replay: unknown format '%s' (table or json)", optarg);
                        replay_usage(c == 'h' ? stdout : stderr);
                        return c == 'h' ? EXIT_OK : EXIT_USAGE;
                }
        }
        if (argc - optind != 1) {
                if (argc == optind)
                        log_error("replay: which file? (one FILE argument)");
                else
                        log_error("replay: one file, not %d", argc - optind);
                replay_usage(stderr);
                return EXIT_USAGE;
        }
        o->file = argv[optind];
        return -1;
}

int cmd_replay(struct app *app, int argc, char **argv)
{
        struct replay_opts o = { .fmt = FORMAT_TABLE, .dir = DETECTOR_HIGHER_IS_BETTER };
        struct series_point *pts = NULL;
        struct tally t = { 0 };
        char *why = NULL;
        size_t n = 0;
        int ex = parse_replay_args(argc, argv, &o);
        if (ex >= 0)
                return ex;
        if ((ex = app_init(app)) != EXIT_OK)
                return ex;
        struct tracker_settings ts;
        tracker_settings(app->cfg, &ts);
        int r = series_file_read(o.file, &pts, &n, &why);
        if (r < 0) {
                log_error("replay: %s", why ? why : strerror(-r));
                free(why);
                app_done(app);
                /* a bad file is bad input; one that cannot be read, the environment */
                return r == -EINVAL || r == -EISDIR ? EXIT_USAGE : EXIT_ENV;
        }
        if (o.fmt == FORMAT_JSON)
                printf("{\"file\":");
        if (o.fmt == FORMAT_JSON) {
                report_format_json_string(stdout, o.file);
                printf(",\"results\":[");
        } else
                printf("%6s %-20s %12s %-10s %12s %8s %8s  %s\n", "run", "time", "value", "state",
                       "reference", "change", "evidence", "event");
        r = replay(&o, &ts, pts, n, &t);
        if (r >= 0)
                print_summary(&o, &ts, n, &t);
        else
                log_error("replay: %s: %s", o.file, strerror(-r));
        free(pts);
        app_done(app);
        return r < 0 ? EXIT_ENV : t.entered > t.left ? EXIT_FAILED : EXIT_OK;
}
