/* history.c — see history.h.  Numbers are written with printf and read
 * with parse_double(): benchwatch never calls setlocale(3), so both are
 * in the C locale. */
#include "detect/history.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "detect/baseline_store.h"
#include "util/atomicfile.h"
#include "util/fdio.h"
#include "util/parse.h"
#include "util/strutil.h"

#define HEADER "benchwatch-history 1\n"
#define HEADER_LEN (sizeof(HEADER) - 1)
#define TAIL_CHUNK 4096

/* "<state_dir>/history-<probe>.txt", malloc'd; -EINVAL for a bad name. */
static int history_path(const char *state_dir, const char *probe, char **ret_path)
{
        return baseline_store_probe_file(state_dir, "history", probe, ret_path);
}

static bool key_ok(const char *key)
{
        return key && *key && !strchr(key, '\n');
}

/* The lines of one run, malloc'd. */
static int format_entries(const struct history_entry *e, size_t n, char **ret, size_t *ret_len)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                if (!key_ok(e[i].key) || !isfinite(e[i].value))
                        continue;
                fprintf(f, "%.3f %d %c %.9g ", e[i].t, e[i].counted ? 1 : 0, (char)e[i].state,
                        e[i].value);
                if (isfinite(e[i].reference))
                        fprintf(f, "%.9g", e[i].reference);
                else
                        fputc('-', f);
                fprintf(f, " %s\n", e[i].key);
        }
        bool bad = ferror(f);
        if (fclose(f) != 0 || bad) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        *ret_len = len;
        return 0;
}

/* Offset just past the last '\n' before `size` (0 if none). */
static int last_newline_end(int fd, off_t size, off_t *ret)
{
        char buf[TAIL_CHUNK];
        off_t end = size;
        while (end > 0) {
                off_t start = end > TAIL_CHUNK ? end - TAIL_CHUNK : 0;
                ssize_t got = pread(fd, buf, (size_t)(end - start), start);
                if (got < 0)
                        return -errno;
                for (ssize_t i = got - 1; i >= 0; i--)
                        if (buf[i] == '\n') {
                                *ret = start + i + 1;
                                return 0;
                        }
                end = start;
        }
        *ret = 0;
        return 0;
}

/* A crash in the middle of an append left a last line without its
 * newline: cut it off.  *ret_size is the size after that. */
static int cut_torn_tail(int fd, off_t size, off_t *ret_size)
{
        char c;
        off_t keep = size;
        if (size > 0 && pread(fd, &c, 1, size - 1) == 1 && c != '\n') {
                int r = last_newline_end(fd, size, &keep);
                if (r < 0)
                        return r;
                if (ftruncate(fd, keep) < 0)
                        return -errno;
        }
        *ret_size = keep;
        return 0;
}

/* Header, the newest whole lines of old[] that fit beside `add` in half of
 * max_bytes, then add: written over the file atomically. */
static int compact(const char *dir, const char *path, const char *old, size_t old_len,
                   const char *add, size_t add_len, size_t max_bytes)
{
        size_t room =
                max_bytes / 2 > HEADER_LEN + add_len ? max_bytes / 2 - HEADER_LEN - add_len : 0;
        const char *body =
                old_len >= HEADER_LEN && !memcmp(old, HEADER, HEADER_LEN) ? old + HEADER_LEN : old;
        size_t body_len = old_len - (size_t)(body - old);
        size_t from = body_len > room ? body_len - room : 0;
        while (from > 0 && from < body_len && body[from - 1] != '\n')
                from++; /* start at a whole line */
        size_t keep = body_len - from, len = HEADER_LEN + keep + add_len;
        char *buf = malloc(len);
        if (!buf)
                return -ENOMEM;
        memcpy(buf, HEADER, HEADER_LEN);
        memcpy(buf + HEADER_LEN, body + from, keep);
        memcpy(buf + HEADER_LEN + keep, add, add_len);
        int r = atomicfile_write(dir, path, buf, len, 0644);
        free(buf);
        return r;
}

static int append_or_compact(const char *dir, const char *path, int fd, const char *add,
                             size_t add_len, size_t max_bytes)
{
        struct stat st;
        off_t size = 0;
        if (fstat(fd, &st) < 0)
                return -errno;
        int r = cut_torn_tail(fd, st.st_size, &size);
        if (r < 0)
                return r;
        if (size == 0 && (r = fdio_write_all(fd, HEADER, HEADER_LEN)) < 0)
                return r;
        size = size ? size : (off_t)HEADER_LEN;
        if ((size_t)size + add_len <= max_bytes)
                return fdio_write_all(fd, add, add_len);
        uint8_t *old = NULL;
        size_t old_len = 0;
        if (lseek(fd, 0, SEEK_SET) < 0)
                return -errno;
        r = fdio_read_all(fd, (size_t)size + TAIL_CHUNK, &old, &old_len);
        if (r >= 0)
                r = compact(dir, path, (const char *)old, old_len, add, add_len, max_bytes);
        free(old);
        return r;
}

int history_append(const char *state_dir, const char *probe,
                   const struct history_entry *e, size_t n, size_t max_bytes,
                   char **ret_error)
{
        char *path = NULL, *add = NULL;
        size_t add_len = 0;
        int fd = -1;
        int r = history_path(state_dir, probe, &path);
        if (r >= 0)
                r = format_entries(e, n, &add, &add_len);
        if (r >= 0 && add_len &&
            (fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) < 0)
                r = -errno;
        if (r >= 0 && add_len)
                r = append_or_compact(state_dir, path, fd, add, add_len, max_bytes);
        if (fd >= 0)
                close(fd);
        if (r < 0 && ret_error)
                *ret_error = str_printf("cannot append to the history of probe '%s' in '%s': %s",
                                        probe, path ? path : state_dir, strerror(-r));
        free(add);
        free(path);
        return r;
}

/* "<t> <counted> <state> <value> <reference|-> <key>" */
static int parse_entry(char *line, struct history_entry *ret)
{
        char *f[5], *rest = line;
        for (int i = 0; i < 5; i++)
                if (!(f[i] = strsep(&rest, " ")) || !rest)
                        return -EINVAL;
        struct history_entry e = { .reference = NAN };
        if (parse_double(f[0], &e.t) < 0 || strlen(f[1]) != 1 || (*f[1] != '0' && *f[1] != '1') ||
            strlen(f[2]) != 1 || !strchr("LOR", *f[2]) || parse_double(f[3], &e.value) < 0 ||
            (strcmp(f[4], "-") && parse_double(f[4], &e.reference) < 0) || !*rest)
                return -EINVAL;
        e.counted = *f[1] == '1';
        e.state = (enum history_state)*f[2];
        if (!(e.key = strdup(rest)))
                return -ENOMEM;
        *ret = e;
        return 0;
}

struct reader {
        struct history_entry *v;
        size_t n, size;
        unsigned skipped, first_bad;
};

static int keep_entry(struct reader *rd, const struct history_entry *e)
{
        if (rd->n == rd->size) {
                size_t size = rd->size ? 2 * rd->size : 256;
                struct history_entry *nv = realloc(rd->v, size * sizeof(*nv));
                if (!nv)
                        return -ENOMEM;
                rd->v = nv;
                rd->size = size;
        }
        rd->v[rd->n++] = *e;
        return 0;
}

static int read_lines(FILE *f, double since, struct reader *rd)
{
        char *line = NULL;
        size_t cap = 0;
        ssize_t len;
        unsigned no = 1;
        int r = 0;
        while (r >= 0 && (len = getline(&line, &cap, f)) > 0) {
                struct history_entry e;
                no++;
                if (line[len - 1] != '\n')
                        break; /* torn by a crash: the next append cuts it */
                line[len - 1] = '\0';
                int pr = (size_t)len - 1 == strlen(line) ? parse_entry(line, &e) : -EINVAL;
                if (pr == -ENOMEM)
                        r = pr;
                else if (pr < 0 && rd->skipped++ == 0)
                        rd->first_bad = no;
                else if (pr >= 0 && e.t < since)
                        free(e.key);
                else if (pr >= 0 && (r = keep_entry(rd, &e)) < 0)
                        free(e.key);
        }
        free(line);
        return r;
}

int history_parse(FILE *f, double since, struct history_entry **ret, size_t *ret_n,
                  unsigned *ret_skipped, unsigned *ret_first_bad)
{
        struct reader rd = { 0 };
        char head[sizeof(HEADER) + 1];
        int r = 0;
        /* empty, or a header torn by a crash (the file ends in it): no
         * entries yet; a first line longer than the header is no header */
        bool got = fgets(head, sizeof(head), f);
        bool started = got && strchr(head, '\n');
        if ((started && strcmp(head, HEADER)) || (got && !started && !feof(f)))
                r = -EBADMSG;
        if (started && r >= 0)
                r = read_lines(f, since, &rd);
        if (r < 0) {
                history_entries_free(rd.v, rd.n);
                return r;
        }
        *ret = rd.v;
        *ret_n = rd.n;
        *ret_skipped = rd.skipped;
        *ret_first_bad = rd.first_bad;
        return 0;
}

int history_read(const char *state_dir, const char *probe, double since,
                 struct history_entry **ret, size_t *ret_n, unsigned *ret_skipped,
                 unsigned *ret_first_bad, char **ret_error)
{
        char *path = NULL;
        int r = history_path(state_dir, probe, &path);
        FILE *f = r >= 0 ? fopen(path, "re") : NULL;
        if (r >= 0 && !f && errno != ENOENT)
                r = -errno;
        if (r >= 0 && !f) { /* no history yet */
                *ret = NULL;
                *ret_n = 0;
                *ret_skipped = *ret_first_bad = 0;
        } else if (r >= 0) {
                r = history_parse(f, since, ret, ret_n, ret_skipped, ret_first_bad);
        }
        if (f)
                fclose(f);
        if (r == -EBADMSG && ret_error)
                *ret_error = str_printf("'%s' is not a benchwatch history (its first line "
                                        "is not \"benchwatch-history 1\")", path);
        else if (r < 0 && ret_error)
                *ret_error = str_printf("cannot read the history of probe '%s' in '%s': %s",
                                        probe, path ? path : state_dir, strerror(-r));
        free(path);
        return r;
}

void history_entries_free(struct history_entry *e, size_t n)
{
        for (size_t i = 0; e && i < n; i++)
                free(e[i].key);
        free(e);
}

bool history_key_in_seconds(const char *key)
{
        const char *brace = strchr(key, '{');
        size_t len = brace ? (size_t)(brace - key) : strlen(key);
        return len > 8 && !strncmp(key + len - 8, "_seconds", 8);
}
