/* baseline_store.c — see baseline_store.h. */
#include "detect/baseline_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/atomicfile.h"
#include "util/fdio.h"
#include "util/parse.h"
#include "util/strutil.h"

/* Far more than any baseline benchwatch writes: a bigger file is not ours. */
#define FILE_MAX (16u << 20)

int baseline_store_probe_file(const char *state_dir, const char *what, const char *probe,
                              char **ret_path)
{
        if (!state_dir || !baseline_probe_name_ok(probe))
                return -EINVAL;
        char *p = str_printf("%s/%s-%s.txt", state_dir, what, probe);
        if (!p)
                return -ENOMEM;
        *ret_path = p;
        return 0;
}

int baseline_store_path(const char *state_dir, const char *probe, char **ret_path)
{
        return baseline_store_probe_file(state_dir, "baseline", probe, ret_path);
}

static uint64_t fnv1a(const char *p, size_t n)
{
        uint64_t h = 0xcbf29ce484222325u;
        for (size_t i = 0; i < n; i++) {
                h ^= (unsigned char)p[i];
                h *= 0x100000001b3u;
        }
        return h;
}

static void format_values(FILE *f, const char *word, const double *v, unsigned n)
{
        fputs(word, f);
        for (unsigned k = 0; k < n; k++)
                fprintf(f, " %.17g", v[k]);
        fputc('\n', f);
}

static void format_series(FILE *f, const struct baseline_series *s)
{
        const struct detector *d = &s->det;
        fprintf(f, "series %s\ndirection %s\nreference %d %.17g\n", s->key,
                s->direction == DETECTOR_LOWER_IS_BETTER ? "lower" : "higher",
                d->pinned ? 1 : 0, d->pinned_at);
        format_values(f, "values", d->ref, d->n_ref);
        format_values(f, "recent", d->recent, d->n_recent);
        fprintf(f, "state %d %u %.17g %.17g %.17g %.17g %.17g %u\n", d->regression ? 1 : 0,
                d->segment, d->cusum, d->fast, d->clear, d->shift, d->last_z, d->n_judged);
}

static void format_context(FILE *f, const char *word, const struct context *c)
{
        for (size_t i = 0; i < c->n; i++) {
                fprintf(f, "%s %s ", word, c->items[i].name);
                for (const char *p = c->items[i].value; *p; p++)
                        if (*p == '\\')
                                fputs("\\\\", f);
                        else if (*p == '\n')
                                fputs("\\n", f);
                        else
                                fputc(*p, f);
                fputc('\n', f);
        }
}

static int format_baseline(const struct baseline *b, char **ret, size_t *ret_len)
{
        char *buf = NULL;
        size_t len = 0;
        locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
        if (!c)
                return -ENOMEM;
        locale_t old = uselocale(c);
        FILE *f = open_memstream(&buf, &len);
        int r = f ? 0 : -ENOMEM;
        if (f) {
                fprintf(f, "benchwatch-baseline %d\nprobe %s\n",
                        BASELINE_FORMAT_VERSION, b->probe);
                format_context(f, "context", &b->context);
                format_context(f, "seen", &b->seen);
                for (size_t i = 0; i < b->n_series; i++)
                        format_series(f, &b->series[i]);
                fflush(f);
                fprintf(f, "end %zu %016" PRIx64 "\n", b->n_series, fnv1a(buf, len));
                bool bad = ferror(f);
                r = fclose(f) != 0 || bad ? -ENOMEM : 0;
        }
        uselocale(old);
        freelocale(c);
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret = buf;
        *ret_len = len;
        return 0;
}

static void set_error(char **ret_error, char *msg)
{
        if (ret_error)
                *ret_error = msg;
        else
                free(msg);
}

int baseline_store_save(const struct baseline *b, const char *state_dir,
                        char **ret_error)
{
        char *path = NULL, *data = NULL;
        size_t len;
        int r = baseline_store_path(state_dir, b->probe, &path);
        if (r >= 0)
                r = format_baseline(b, &data, &len);
        if (r >= 0)
                r = atomicfile_write(state_dir, path, data, len, 0644);
        if (r < 0)
                set_error(ret_error, str_printf("cannot write baseline of probe '%s' to '%s': %s",
                                                b->probe, path ? path : state_dir, strerror(-r)));
        free(data);
        free(path);
        return r;
}

int baseline_store_reset(const char *state_dir, const char *probe)
{
        char *path;
        int r = baseline_store_path(state_dir, probe, &path);
        if (r < 0)
                return r;
        r = unlink(path) < 0 ? -errno : 0;
        if (r >= 0)
                r = atomicfile_fsync_dir(state_dir);
        free(path);
        return r;
}

static int read_file(const char *path, char **ret, size_t *ret_len, double *ret_mtime)
{
        struct stat st;
        int r = fdio_read_file(path, FILE_MAX, ret, ret_len, &st);

        if (r == -EISDIR)
                return -EINVAL; /* not a regular file, as any other */
        if (r >= 0)
                *ret_mtime = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
        return r;
}

struct parser {
        char *text;       /* whole file, NUL-terminated, split in place */
        char *next;       /* start of the next line */
        unsigned line;    /* number of the line last returned */
        const char *why;  /* what was wrong */
        int64_t version;  /* the file's format version */
        double mtime;     /* the file's modification time (v1 conversion) */
        size_t body_len;  /* bytes before the last line... */
        uint64_t sum;     /* ...and their checksum, taken before splitting */
};

/* The next '\n'-terminated line, NUL-terminated in place; NULL at the end
 * or on a last line without its newline (a truncated file). */
static char *next_line(struct parser *ps)
{
        char *start = ps->next;
        char *nl = strchr(start, '\n');
        if (!nl) {
                ps->why = *start ? "last line incomplete (truncated file)" :
                        "no 'end' line (truncated file)";
                return NULL;
        }
        *nl = '\0';
        ps->next = nl + 1;
        ps->line++;
        return start;
}

/* "word rest": returns rest when the line starts with word and a space. */
static char *after_word(char *line, const char *word)
{
        size_t n = strlen(word);
        if (strncmp(line, word, n) || line[n] != ' ')
                return NULL;
        return line + n + 1;
}

static int parse_uint(const char *s, unsigned max, unsigned *ret)
{
        int64_t v;
        if (!s || parse_int64(s, &v) < 0 || v < 0 || v > max)
                return -EBADMSG;
        *ret = (unsigned)v;
        return 0;
}

/* Space-separated numbers, at most max of them, each finite and > 0. */
static int parse_values(char *rest, double *v, unsigned *n, unsigned max)
{
        char *tok;
        while (rest && (tok = strsep(&rest, " "))) {
                double x;
                if (*n >= max || parse_double(tok, &x) < 0 || !isfinite(x) || x <= 0)
                        return -EBADMSG;
                v[(*n)++] = x;
        }
        return 0;
}

static int parse_finite(const char *s, double *ret)
{
        double v;
        if (!s || parse_double(s, &v) < 0 || !isfinite(v))
                return -EBADMSG;
        *ret = v;
        return 0;
}

/* "<regression> <segment> <cusum> <fast> <clear> <shift> <last_z> [<judged>]"
 * (a file written before the drift test has no <judged>: 0) */
static int parse_state(char *rest, struct detector *d)
{
        unsigned reg;
        char *t[8];
        for (int i = 0; i < 8; i++)
                t[i] = rest ? strsep(&rest, " ") : NULL;
        if (t[7] && parse_uint(t[7], DETECTOR_RECENT_MAX, &d->n_judged) < 0)
                return -EBADMSG;
        if (rest || parse_uint(t[0], 1, &reg) < 0 ||
            parse_uint(t[1], UINT32_MAX, &d->segment) < 0 ||
            parse_finite(t[2], &d->cusum) < 0 || parse_finite(t[3], &d->fast) < 0 ||
            parse_finite(t[4], &d->clear) < 0 || parse_finite(t[5], &d->shift) < 0 ||
            parse_finite(t[6], &d->last_z) < 0 || d->cusum < 0 || d->fast < 0 || d->clear < 0)
                return -EBADMSG;
        d->regression = reg;
        return 0;
}

/* "<pinned 0|1> <UNIX time>" */
static int parse_reference(char *rest, struct detector *d)
{
        unsigned pinned;
        char *t[2];
        for (int i = 0; i < 2; i++)
                t[i] = rest ? strsep(&rest, " ") : NULL;
        if (rest || parse_uint(t[0], 1, &pinned) < 0 || parse_finite(t[1], &d->pinned_at) < 0)
                return -EBADMSG;
        d->pinned = pinned;
        return 0;
}

/* Version 1 (the per-run rule): "<regression> <bad runs> <good runs>". */
static int parse_state_v1(char *rest, struct detector *d)
{
        unsigned reg, bad, good;
        char *t[3];
        for (int i = 0; i < 3; i++)
                t[i] = rest ? strsep(&rest, " ") : NULL;
        if (rest || parse_uint(t[0], 1, &reg) < 0 || parse_uint(t[1], 100, &bad) < 0 ||
            parse_uint(t[2], 100, &good) < 0)
                return -EBADMSG;
        d->regression = reg;
        return 0;
}

/* The next line must be "word" or "word rest"; *ret_rest is rest or NULL. */
static int expect(struct parser *ps, const char *word, char **ret_rest)
{
        char *line = next_line(ps);
        if (!line)
                return -EBADMSG;
        if (!strcmp(line, word)) {
                *ret_rest = NULL;
                return 0;
        }
        char *rest = after_word(line, word);
        if (!rest) {
                ps->why = "line out of place";
                return -EBADMSG;
        }
        *ret_rest = rest;
        return 0;
}

static enum detector_direction parse_direction(const char *s)
{
        if (s && !strcmp(s, "higher"))
                return DETECTOR_HIGHER_IS_BETTER;
        if (s && !strcmp(s, "lower"))
                return DETECTOR_LOWER_IS_BETTER;
        return DETECTOR_NONE;
}

/* Version 1's window of accepted values becomes the reference: pinned
 * when it was full at v1's default (20 runs), else still learning, with
 * what it had.  A v1 regression stays one until evidence clears it. */
static void convert_v1(struct parser *ps, struct detector *d)
{
        memcpy(d->recent,
               d->ref + (d->n_ref > DETECTOR_RECENT_MAX ? d->n_ref - DETECTOR_RECENT_MAX : 0),
               (d->n_ref > DETECTOR_RECENT_MAX ? DETECTOR_RECENT_MAX : d->n_ref) * sizeof(double));
        d->n_recent = d->n_ref > DETECTOR_RECENT_MAX ? DETECTOR_RECENT_MAX : d->n_ref;
        d->pinned = d->n_ref >= 20;
        d->pinned_at = d->pinned ? ps->mtime : 0;
        if (d->regression && d->pinned) {
                d->cusum = 1e6; /* capped at the alarm level by the next run */
                d->shift = 2;
        }
        d->regression = d->regression && d->pinned;
}

/* The lines of one series after its "series <key>" line. */
static int parse_series_body(struct parser *ps, struct detector *det)
{
        char *rest = NULL;
        int r;
        if (ps->version == 1) {
                r = expect(ps, "state", &rest);
                if (r >= 0 && (r = parse_state_v1(rest, det)) < 0)
                        ps->why = "bad state line";
                if (r >= 0)
                        r = expect(ps, "values", &rest);
                if (r >= 0 && (r = parse_values(rest, det->ref, &det->n_ref, DETECTOR_REF_MAX)) < 0)
                        ps->why = "bad values line";
                if (r >= 0)
                        convert_v1(ps, det);
                return r;
        }
        r = expect(ps, "reference", &rest);
        if (r >= 0 && (r = parse_reference(rest, det)) < 0)
                ps->why = "bad reference line";
        if (r >= 0)
                r = expect(ps, "values", &rest);
        if (r >= 0 && (r = parse_values(rest, det->ref, &det->n_ref, DETECTOR_REF_MAX)) < 0)
                ps->why = "bad values line";
        if (r >= 0)
                r = expect(ps, "recent", &rest);
        if (r >= 0 &&
            (r = parse_values(rest, det->recent, &det->n_recent, DETECTOR_RECENT_MAX)) < 0)
                ps->why = "bad recent line";
        if (r >= 0)
                r = expect(ps, "state", &rest);
        if (r >= 0 && (r = parse_state(rest, det)) < 0)
                ps->why = "bad state line";
        return r;
}

/* One series block; its "series <key>" line was just read. */
static int parse_series(struct parser *ps, struct baseline *b, const char *key)
{
        struct detector det;
        enum detector_direction d = DETECTOR_NONE;
        char *dir = NULL;
        unsigned key_line = ps->line;

        detector_init(&det);
        int r = expect(ps, "direction", &dir);
        if (r >= 0 && !(d = parse_direction(dir))) {
                ps->why = "unknown direction";
                r = -EBADMSG;
        }
        if (r >= 0)
                r = parse_series_body(ps, &det);
        if (r >= 0 && det.pinned && det.n_ref < DETECTOR_REF_MIN) {
                ps->why = "pinned reference with too few values";
                r = -EBADMSG;
        }
        if (r >= 0)
                r = baseline_add_series(b, key, d, &det);
        if (r == -EINVAL || r == -EEXIST) {
                ps->why = r == -EINVAL ? "malformed series key" : "series listed twice";
                ps->line = key_line;
                r = -EBADMSG;
        }
        return r;
}

/* "<item> <value>" of a context or seen line, value unescaped in place. */
static int parse_context(struct parser *ps, char *rest, struct context *c)
{
        char *item = rest ? strsep(&rest, " ") : NULL;
        if (ps->version < 3 || !item || !*item || !rest) {
                ps->why = "bad context line";
                return -EBADMSG;
        }
        char *out = rest;
        for (const char *in = rest; *in; in++) {
                if (*in == '\\' && (in[1] == '\\' || in[1] == 'n')) {
                        *out++ = in[1] == 'n' ? '\n' : '\\';
                        in++;
                } else {
                        *out++ = *in;
                }
        }
        *out = 0;
        if (context_get(c, item)) {
                ps->why = "context item listed twice";
                return -EBADMSG;
        }
        return context_set(c, item, rest);
}

/* "end <count> <checksum>" must be the last line and match. */
static int check_end(struct parser *ps, const struct baseline *b, char *rest,
                     const char *line_start)
{
        char want[17];
        unsigned n;
        char *count = strsep(&rest, " ");
        snprintf(want, sizeof(want), "%016" PRIx64, ps->sum);
        if ((size_t)(line_start - ps->text) != ps->body_len || *ps->next) {
                ps->why = "data after the 'end' line";
                return -EBADMSG;
        }
        if (parse_uint(count, UINT32_MAX, &n) < 0 || n != b->n_series) {
                ps->why = "series count does not match (truncated file?)";
                return -EBADMSG;
        }
        if (!rest || strcmp(rest, want)) {
                ps->why = "checksum does not match";
                return -EBADMSG;
        }
        return 0;
}

static int parse_header(struct parser *ps, const char *probe)
{
        char *line = next_line(ps);
        char *rest = line ? after_word(line, "benchwatch-baseline") : NULL;
        if (!rest || parse_int64(rest, &ps->version) < 0) {
                ps->why = "not a benchwatch baseline file";
                return -EBADMSG;
        }
        if (ps->version < 1 || ps->version > BASELINE_FORMAT_VERSION)
                return -EPROTONOSUPPORT;
        int r = expect(ps, "probe", &rest);
        if (r >= 0 && (!rest || strcmp(rest, probe))) {
                ps->why = "written for another probe";
                r = -EBADMSG;
        }
        return r;
}

static int parse_baseline(struct parser *ps, size_t len, const char *probe,
                          struct baseline **ret)
{
        if (len > 0 && ps->text[len - 1] == '\n') {
                const char *last = memrchr(ps->text, '\n', len - 1);
                ps->body_len = last ? (size_t)(last + 1 - ps->text) : 0;
                ps->sum = fnv1a(ps->text, ps->body_len);
        }
        if (strlen(ps->text) != len) {
                ps->why = "contains NUL bytes";
                return -EBADMSG;
        }
        int r = parse_header(ps, probe);
        if (r < 0)
                return r;
        struct baseline *b = baseline_new(probe);
        if (!b)
                return -ENOMEM;
        for (bool end = false; r >= 0 && !end;) {
                char *start = ps->next, *line = next_line(ps), *rest;
                if (!line)
                        r = -EBADMSG;
                else if ((rest = after_word(line, "series")))
                        r = parse_series(ps, b, rest);
                else if ((rest = after_word(line, "context")) && !b->n_series)
                        r = parse_context(ps, rest, &b->context);
                else if ((rest = after_word(line, "seen")) && !b->n_series)
                        r = parse_context(ps, rest, &b->seen);
                else if ((end = (rest = after_word(line, "end"))))
                        r = check_end(ps, b, rest, start);
                else {
                        ps->why = "line out of place";
                        r = -EBADMSG;
                }
        }
        if (r < 0) {
                baseline_free(b);
                return r;
        }
        *ret = b;
        return 0;
}

int baseline_store_parse(char *text, size_t len, const char *probe, double mtime,
                         struct baseline **ret)
{
        struct parser ps = { .text = text, .next = text, .mtime = mtime };
        return parse_baseline(&ps, len, probe, ret);
}

/* <path>.corrupt-<UTC time>: kept for a human to look at, never read;
 * a second one within the same second gets .2, .3, ... (a plain rename
 * would replace the first). */
static int set_aside(const char *path, char **ret_aside)
{
        char stamp[32];
        struct tm tm;
        time_t t = time(NULL);
        if (!gmtime_r(&t, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
                return -EINVAL;
        for (unsigned k = 1; k <= 100; k++) {
                char *aside = k == 1 ? str_printf("%s.corrupt-%s", path, stamp)
                                     : str_printf("%s.corrupt-%s.%u", path, stamp, k);
                if (!aside)
                        return -ENOMEM;
                int r = renameat2(AT_FDCWD, path, AT_FDCWD, aside, RENAME_NOREPLACE) < 0 ?
                        -errno : 0;
                if (r == -EINVAL) /* a filesystem without the flag */
                        r = access(aside, F_OK) == 0 ? -EEXIST :
                            rename(path, aside) < 0 ? -errno : 0;
                if (r == 0) {
                        *ret_aside = aside;
                        return 0;
                }
                free(aside);
                if (r != -EEXIST)
                        return r;
        }
        return -EEXIST;
}

/* What is wrong with the file; aside: it is renamed aside (the daemon's
 * load), else left for the daemon (a command that only reads). */
static char *describe_bad_file(const char *path, int r, const struct parser *ps, bool aside_it)
{
        char *aside = NULL, *what, *msg;
        int ra = aside_it ? set_aside(path, &aside) : 0;
        if (r == -EPROTONOSUPPORT)
                what = str_printf("has format version %" PRId64 " (this benchwatch reads versions "
                                                                "1 to %d)",
                                  ps->version, BASELINE_FORMAT_VERSION);
        else
                what = str_printf("is corrupt (line %u: %s)", ps->line,
                                  ps->why ? ps->why : "unreadable");
        if (!aside_it)
                msg = str_printf("baseline file '%s' %s; the daemon moves it aside at the "
                                 "probe's next run", path, what ? what : "is unusable");
        else if (ra >= 0)
                msg = str_printf("baseline file '%s' %s; moved aside to '%s'",
                                 path, what ? what : "is unusable", aside);
        else
                msg = str_printf("baseline file '%s' %s; could not move it aside: %s",
                                 path, what ? what : "is unusable", strerror(-ra));
        free(what);
        free(aside);
        return msg;
}

static int load_baseline(const char *state_dir, const char *probe, bool aside,
                         struct baseline **ret, char **ret_error)
{
        struct parser ps = { 0 };
        char *path = NULL, *msg = NULL;
        size_t len = 0;
        int r = baseline_store_path(state_dir, probe, &path);
        if (r < 0) {
                set_error(ret_error, str_printf("invalid probe name '%s' for a baseline",
                                                probe ? probe : "(null)"));
                return r;
        }
        r = read_file(path, &ps.text, &len, &ps.mtime);
        if (r == -ENOENT) {
                struct baseline *b = baseline_new(probe);
                r = b ? 0 : -ENOMEM;
                if (b)
                        *ret = b;
        } else if (r == -EFBIG) {
                ps.why = "larger than any baseline benchwatch writes";
                r = -EBADMSG;
        } else if (r >= 0) {
                ps.next = ps.text;
                r = parse_baseline(&ps, len, probe, ret);
        }
        if (r == -EBADMSG || r == -EPROTONOSUPPORT)
                msg = describe_bad_file(path, r, &ps, aside);
        else if (r < 0)
                msg = str_printf("cannot read baseline file '%s': %s", path, strerror(-r));
        if (r < 0)
                set_error(ret_error, msg);
        free(ps.text);
        free(path);
        return r;
}

int baseline_store_load(const char *state_dir, const char *probe,
                        struct baseline **ret, char **ret_error)
{
        return load_baseline(state_dir, probe, true, ret, ret_error);
}

int baseline_store_read(const char *state_dir, const char *probe,
                        struct baseline **ret, char **ret_error)
{
        return load_baseline(state_dir, probe, false, ret, ret_error);
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

void baseline_store_strv_free(char **v)
{
        for (size_t i = 0; v && v[i]; i++)
                free(v[i]);
        free(v);
}

/* "baseline-<probe>.txt" -> probe, or NULL (not ours, or no memory). */
static char *probe_of_file(const char *name)
{
        size_t n = strlen(name);
        if (n <= 13 || strncmp(name, "baseline-", 9) || strcmp(name + n - 4, ".txt"))
                return NULL;
        char *p = strndup(name + 9, n - 13);
        if (p && !baseline_probe_name_ok(p)) {
                free(p);
                return NULL;
        }
        return p;
}

int baseline_store_list(const char *state_dir, char ***ret_probes)
{
        DIR *d = opendir(state_dir);
        if (!d && errno != ENOENT)
                return -errno;
        char **v = calloc(1, sizeof(*v));
        size_t n = 0;
        int r = v ? 0 : -ENOMEM;
        for (struct dirent *de; r >= 0 && d && (de = readdir(d));) {
                char *p = probe_of_file(de->d_name);
                char **nv = p ? realloc(v, (n + 2) * sizeof(*v)) : NULL;
                if (p && !nv)
                        r = -ENOMEM;
                if (!nv) {
                        free(p);
                        continue;
                }
                v = nv;
                v[n++] = p;
                v[n] = NULL;
        }
        if (d)
                closedir(d);
        if (r < 0) {
                baseline_store_strv_free(v);
                return r;
        }
        qsort(v, n, sizeof(*v), cmp_str);
        *ret_probes = v;
        return 0;
}
