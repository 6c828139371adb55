/* series_file.c — see series_file.h. */
#include "detect/series_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util/parse.h"
#include "util/strutil.h"

static char *trim(char *s)
{
        while (isspace((unsigned char)*s))
                s++;
        size_t n = strlen(s);
        while (n && isspace((unsigned char)s[n - 1]))
                s[--n] = '\0';
        return s;
}

/* 2026-11-30, 2026-11-30T12:00Z, 2026-11-30T12:00:00Z (UTC). */
static int parse_iso(const char *s, double *ret)
{
        struct tm tm = { 0 };
        const char *formats[] = { "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%MZ",
                                  "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d" };
        for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
                memset(&tm, 0, sizeof(tm));
                const char *end = strptime(s, formats[i], &tm);
                if (end && !*end) {
                        *ret = (double)timegm(&tm);
                        return 0;
                }
        }
        return -EINVAL;
}

static int parse_time(const char *s, double *ret)
{
        double v;
        if (parse_double(s, &v) == 0 && isfinite(v)) {
                *ret = v;
                return 0;
        }
        return parse_iso(s, ret);
}

struct reader {
        const char *name;
        unsigned line;
        int with_time;          /* -1 unknown, 0 no, 1 yes */
        bool seen_data;
        struct series_point *v;
        size_t n, size;
        char *error;
};

static int fail(struct reader *rd, const char *what, const char *text)
{
        rd->error = str_printf("%s:%u: %s%s%s%s", rd->name, rd->line, what,
                               text ? " '" : "", text ? text : "", text ? "'" : "");
        return rd->error ? -EINVAL : -ENOMEM;
}

static int push(struct reader *rd, double t, double value)
{
        if (rd->n == rd->size) {
                size_t size = rd->size ? 2 * rd->size : 256;
                struct series_point *nv = realloc(rd->v, size * sizeof(*nv));
                if (!nv)
                        return -ENOMEM;
                rd->v = nv;
                rd->size = size;
        }
        rd->v[rd->n++] = (struct series_point){ .t = t, .value = value };
        return 0;
}

static int parse_line(struct reader *rd, char *line)
{
        char *s = trim(line), *comma = strchr(s, ',');
        double t = NAN, value;
        if (!*s || *s == '#')
                return 0;
        char *vtext = comma ? trim(comma + 1) : s;
        if (comma)
                *comma = '\0';
        bool header = !rd->seen_data && parse_double(vtext, &value) < 0 &&
                      isalpha((unsigned char)*vtext);
        rd->seen_data = true;
        if (header)
                return 0; /* "timestamp,value" */
        if (comma && parse_time(trim(s), &t) < 0)
                return fail(rd, "not a timestamp (UNIX seconds or 2026-11-30T12:00:00Z):", trim(s));
        if (parse_double(vtext, &value) < 0 || !isfinite(value))
                return fail(rd, "not a number:", vtext);
        if (!(value > 0))
                return fail(rd, "a figure must be a number > 0, not", vtext);
        if (rd->with_time >= 0 && rd->with_time != (comma != NULL))
                return fail(rd, rd->with_time ? "no timestamp, unlike the lines before"
                                              : "a timestamp, unlike the lines before", NULL);
        rd->with_time = comma != NULL;
        if (comma && rd->n && t < rd->v[rd->n - 1].t)
                return fail(rd, "timestamp earlier than the line before:", trim(s));
        return push(rd, t, value);
}

int series_file_parse(FILE *f, const char *name, struct series_point **ret,
                      size_t *ret_n, char **ret_error)
{
        struct reader rd = { .name = name, .with_time = -1 };
        char *line = NULL;
        size_t cap = 0;
        ssize_t len;
        int r = 0;
        while (r >= 0 && (len = getline(&line, &cap, f)) >= 0) {
                rd.line++;
                if ((size_t)len != strlen(line))
                        r = fail(&rd, "contains a NUL byte", NULL);
                else
                        r = parse_line(&rd, line);
        }
        if (r >= 0 && ferror(f)) {
                r = -EIO;
                rd.error = str_printf("%s: read error", name);
        }
        free(line);
        if (r < 0) {
                free(rd.v);
                if (ret_error)
                        *ret_error = rd.error;
                else
                        free(rd.error);
                return r;
        }
        *ret = rd.v;
        *ret_n = rd.n;
        return 0;
}

int series_file_read(const char *path, struct series_point **ret, size_t *ret_n,
                     char **ret_error)
{
        bool use_stdin = !strcmp(path, "-");
        FILE *f = use_stdin ? stdin : fopen(path, "re");
        if (!f) {
                int r = -errno;
                if (ret_error)
                        *ret_error = str_printf("cannot open '%s': %s", path, strerror(-r));
                return r;
        }
        struct stat st;
        if (!use_stdin && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
                fclose(f);
                if (ret_error)
                        *ret_error = str_printf("cannot read '%s': it is a directory", path);
                return -EISDIR;
        }
        int r = series_file_parse(f, use_stdin ? "(standard input)" : path, ret, ret_n, ret_error);
        if (!use_stdin)
                fclose(f);
        return r;
}
