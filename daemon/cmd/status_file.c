/* status_file.c — see status_file.h.  The writer builds the whole file in
 * memory and hands it to atomicfile_write(); the reader takes exactly the
 * lines it knows and refuses a file without the header. */
#include "cmd/status_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"
#include "util/parse.h"
#include "util/strutil.h"
#include "util/timeutil.h"

static char *path_of(const char *state_dir)
{
        return str_printf("%s/%s", state_dir, STATUS_FILE_NAME);
}

/* Text on one line: newlines become spaces. */
static void put_text(FILE *f, const char *s)
{
        for (; s && *s; s++)
                fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static void put_probe(FILE *f, const struct status_file_probe *p)
{
        fprintf(f, "probe %s %s %.17g %.17g %.17g %d %d %u %u %.17g\n", p->name, p->plugin,
                p->interval, p->next, p->last, p->ok, p->counted, p->deferred_day,
                p->yielded_day, p->took);
        if (p->why) {
                fprintf(f, "why %s ", p->name);
                put_text(f, p->why);
                fputc('\n', f);
        }
        if (p->wait_reason)
                fprintf(f, "wait %s %.17g %.17g %s\n", p->name, p->waiting_since, p->last_try,
                        p->wait_reason);
}

int status_file_write(const char *state_dir, struct status_file *sf, char **ret_error)
{
        char *buf = NULL, *path = path_of(state_dir);
        size_t len = 0;
        FILE *f = path ? open_memstream(&buf, &len) : NULL;
        if (!f) {
                free(path);
                return -ENOMEM;
        }
        sf->written = now_wall();
        fprintf(f, "benchwatch-status %d\ndaemon %ld %.17g %.17g\n", STATUS_FILE_FORMAT_VERSION,
                sf->pid, sf->started, sf->written);
        for (size_t i = 0; i < sf->n_probes; i++)
                put_probe(f, &sf->probes[i]);
        for (size_t i = 0; i < sf->n_sinks; i++) {
                const struct sink_health_entry *s = &sf->sinks[i];
                fprintf(f, "sink %s %.17g %.17g ", s->name, s->last_ok, s->last_error);
                put_text(f, s->error);
                fputc('\n', f);
        }
        int r = fclose(f) == 0 ? 0 : -ENOMEM;
        if (r >= 0)
                r = atomicfile_write(state_dir, path, buf, len, 0644);
        if (r < 0 && ret_error)
                *ret_error = str_printf("cannot write '%s': %s", path, strerror(-r));
        free(buf);
        free(path);
        return r;
}

/* ---- reading ------------------------------------------------------------------ */

/* The next space-separated word of *s (NUL-terminated in place), or NULL. */
static char *word(char **s)
{
        char *w = *s;
        while (*w == ' ')
                w++;
        if (!*w)
                return NULL;
        char *end = strchr(w, ' ');
        if (end) {
                *end = 0;
                *s = end + 1;
        } else {
                *s = w + strlen(w);
        }
        return w;
}

static int word_double(char **s, double *ret)
{
        const char *w = word(s);
        return w ? parse_double(w, ret) : -EBADMSG;
}

static int word_uint(char **s, unsigned *ret)
{
        const char *w = word(s);
        int64_t v = 0;
        int r = w ? parse_int64(w, &v) : -EBADMSG;
        if (r >= 0 && (v < 0 || v > 1000000000))
                r = -EBADMSG;
        if (r >= 0)
                *ret = (unsigned)v;
        return r;
}

static int read_probe(struct status_file *sf, char *rest)
{
        struct status_file_probe p = { 0 }, *grown;
        const char *name = word(&rest), *plugin = word(&rest);
        unsigned ok = 0, counted = 0;
        int r = name && plugin ? 0 : -EBADMSG;
        if (r >= 0)
                r = word_double(&rest, &p.interval);
        if (r >= 0)
                r = word_double(&rest, &p.next);
        if (r >= 0)
                r = word_double(&rest, &p.last);
        if (r >= 0)
                r = word_uint(&rest, &ok);
        if (r >= 0)
                r = word_uint(&rest, &counted);
        if (r >= 0)
                r = word_uint(&rest, &p.deferred_day);
        if (r >= 0)
                r = word_uint(&rest, &p.yielded_day);
        if (r >= 0 && *rest) /* an older daemon wrote none */
                r = word_double(&rest, &p.took);
        if (r < 0)
                return -EBADMSG;
        grown = realloc(sf->probes, (sf->n_probes + 1) * sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        sf->probes = grown;
        p.ok = ok;
        p.counted = counted;
        p.name = strdup(name);
        p.plugin = strdup(plugin);
        sf->probes[sf->n_probes++] = p;
        return p.name && p.plugin ? 0 : -ENOMEM;
}

static int read_sink(struct status_file *sf, char *rest)
{
        struct sink_health_entry s = { 0 }, *grown;
        const char *name = word(&rest);
        int r = name ? word_double(&rest, &s.last_ok) : -EBADMSG;
        if (r >= 0)
                r = word_double(&rest, &s.last_error);
        if (r < 0)
                return -EBADMSG;
        grown = realloc(sf->sinks, (sf->n_sinks + 1) * sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        sf->sinks = grown;
        s.name = strdup(name);
        s.error = *rest ? strdup(rest) : NULL;
        sf->sinks[sf->n_sinks++] = s;
        return s.name && (s.error || !*rest) ? 0 : -ENOMEM;
}

static int read_wait(struct status_file *sf, char *rest)
{
        const char *name = word(&rest);
        struct status_file_probe *p = name ? (struct status_file_probe *)
                                           status_file_find(sf, name) : NULL;
        double since = 0, last_try = 0;
        int r = p ? word_double(&rest, &since) : -EBADMSG;
        if (r >= 0)
                r = word_double(&rest, &last_try);
        const char *reason = r >= 0 ? word(&rest) : NULL;
        if (!reason)
                return -EBADMSG;
        free(p->wait_reason);
        p->waiting_since = since;
        p->last_try = last_try;
        return (p->wait_reason = strdup(reason)) ? 0 : -ENOMEM;
}

static int read_line(struct status_file *sf, char *line)
{
        char *rest = line;
        const char *kind = word(&rest);
        if (!kind)
                return -EBADMSG;
        if (!strcmp(kind, "daemon")) {
                double pid = 0;
                int r = word_double(&rest, &pid);
                if (r >= 0)
                        r = word_double(&rest, &sf->started);
                if (r >= 0)
                        r = word_double(&rest, &sf->written);
                if (r >= 0 && !(fabs(pid) < 9e18))
                        r = -EBADMSG; /* no pid: and no long could hold it */
                sf->pid = r >= 0 ? (long)pid : 0;
                return r < 0 ? -EBADMSG : 0;
        }
        if (!strcmp(kind, "probe"))
                return read_probe(sf, rest);
        if (!strcmp(kind, "sink"))
                return read_sink(sf, rest);
        if (!strcmp(kind, "wait"))
                return read_wait(sf, rest);
        if (!strcmp(kind, "why")) {
                const char *name = word(&rest);
                struct status_file_probe *p = name ? (struct status_file_probe *)
                                                   status_file_find(sf, name) : NULL;
                if (!p)
                        return -EBADMSG;
                free(p->why);
                return (p->why = strdup(rest)) ? 0 : -ENOMEM;
        }
        return 0; /* a later version's line: ignored */
}

static int read_all(FILE *f, struct status_file *sf)
{
        char *line = NULL;
        size_t size = 0;
        ssize_t n;
        int r = 0;
        bool header = false;
        while (r >= 0 && (n = getline(&line, &size, f)) > 0) {
                if (line[n - 1] != '\n') {
                        r = -EBADMSG;
                        break;
                }
                line[n - 1] = 0;
                if (!header) {
                        char want[32];
                        snprintf(want, sizeof(want), "benchwatch-status %d",
                                 STATUS_FILE_FORMAT_VERSION);
                        r = strcmp(line, want) ? -EBADMSG : 0;
                        header = true;
                } else {
                        r = read_line(sf, line);
                }
        }
        free(line);
        return r < 0 ? r : header ? 0 : -EBADMSG;
}

int status_file_parse(FILE *f, struct status_file **ret)
{
        struct status_file *sf = calloc(1, sizeof(*sf));
        int r = sf ? read_all(f, sf) : -ENOMEM;
        if (r < 0) {
                status_file_free(sf);
                return r;
        }
        *ret = sf;
        return 0;
}

int status_file_read(const char *state_dir, struct status_file **ret, char **ret_error)
{
        char *path = path_of(state_dir);
        FILE *f = NULL;
        int r = path ? 0 : -ENOMEM;
        if (r >= 0 && !(f = fopen(path, "re")))
                r = -errno;
        if (f) {
                r = status_file_parse(f, ret);
                fclose(f);
        }
        if (r < 0 && ret_error && r != -ENOMEM)
                *ret_error = str_printf(r == -EBADMSG ? "'%s' is not a status file"
                                                      : "cannot read '%s': %s",
                                        path, strerror(-r));
        free(path);
        return r;
}

void status_file_probe_clear(struct status_file_probe *p)
{
        free(p->name);
        free(p->plugin);
        free(p->why);
        free(p->wait_reason);
        *p = (struct status_file_probe){ 0 };
}

void status_file_clear(struct status_file *sf)
{
        for (size_t i = 0; i < sf->n_probes; i++)
                status_file_probe_clear(&sf->probes[i]);
        free(sf->probes);
        sink_health_entries_free(sf->sinks, sf->n_sinks);
        *sf = (struct status_file){ 0 };
}

void status_file_free(struct status_file *sf)
{
        if (!sf)
                return;
        status_file_clear(sf);
        free(sf);
}

const struct status_file_probe *status_file_find(const struct status_file *sf, const char *probe)
{
        for (size_t i = 0; sf && i < sf->n_probes; i++)
                if (sf->probes[i].name && !strcmp(sf->probes[i].name, probe))
                        return &sf->probes[i];
        return NULL;
}

const struct sink_health_entry *status_file_find_sink(const struct status_file *sf,
                                                      const char *sink)
{
        for (size_t i = 0; sf && i < sf->n_sinks; i++)
                if (!strcmp(sf->sinks[i].name, sink))
                        return &sf->sinks[i];
        return NULL;
}
