/* evidence_store.c — see evidence_store.h. */
#include "detect/evidence_store.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect/baseline_store.h"
#include "util/atomicfile.h"
#include "util/fdio.h"
#include "util/parse.h"
#include "util/strutil.h"

#define FILE_MAX (4u << 20)
#define HEADER "benchwatch-evidence 1\n"

void evidence_store_clear(struct evidence_store *s)
{
        free(s->runs);
        free(s->cause_label);
        free(s->cause_text);
        *s = (struct evidence_store){ 0 };
}

/* One number of a run line: "nan" or a finite one. */
static int figure(const char *w, double *ret)
{
        if (!strcmp(w, "nan")) {
                *ret = NAN;
                return 0;
        }
        int r = parse_double(w, ret);
        return r < 0 || !isfinite(*ret) ? -EBADMSG : 0;
}

/* The next word of *s (single spaces between words), NUL-terminated in
 * place; NULL at the end. */
static char *next_word(char **s)
{
        char *w = *s;
        if (!w || !*w)
                return NULL;
        char *end = strchr(w, ' ');
        if (end)
                *end++ = 0;
        *s = end;
        return *w ? w : NULL;
}

/* A device name a line can hold: [A-Za-z0-9._-], "" included. */
static bool device_ok(const char *d)
{
        size_t n = strspn(d, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                             "0123456789._-");
        return !d[n] && n < EVIDENCE_DEVICE_MAX;
}

/* Whether run r measured device (NULL: "", the probe's one). */
static bool on_device(const struct evidence_run *r, const char *device)
{
        return !strcmp(r->device, device ? device : "");
}

/* "run <time> <ref> <figure> ... [on=<device>]" after its first word. */
static int parse_run(char *rest, struct evidence_run *ret)
{
        char *w = next_word(&rest);
        double ref = 0;
        if (!w || figure(w, &ret->t) < 0 || !isfinite(ret->t))
                return -EBADMSG;
        w = next_word(&rest);
        if (!w || figure(w, &ref) < 0 || (ref != 0 && ref != 1))
                return -EBADMSG;
        ret->reference = ref == 1;
        ret->device[0] = 0;
        bool older = false; /* an older daemon's line: fewer figures, then on= */
        for (int i = 0; i < CAUSE_N_FIGURES; i++) {
                if (!older) {
                        w = next_word(&rest);
                        older = i >= EVIDENCE_STORE_FIGURES_1 && (!w || !strncmp(w, "on=", 3));
                }
                if (older) {
                        ret->fig.f[i] = NAN;
                        continue;
                }
                if (!w || figure(w, &ret->fig.f[i]) < 0)
                        return -EBADMSG;
        }
        if (!older)
                w = next_word(&rest);
        if (w && (strncmp(w, "on=", 3) || !w[3] || !device_ok(w + 3)))
                return -EBADMSG;
        if (w)
                snprintf(ret->device, sizeof(ret->device), "%s", w + 3);
        return next_word(&rest) ? -EBADMSG : 0;
}

static int parse_cause(struct evidence_store *s, char *rest)
{
        char *text = strchr(rest, ' ');
        if (!text || text == rest)
                return -EBADMSG;
        *text++ = 0;
        return evidence_store_set_cause(s, rest, text);
}

static int parse_line(struct evidence_store *s, char *line)
{
        if (!strncmp(line, "cause ", 6))
                return parse_cause(s, line + 6);
        if (strncmp(line, "run ", 4))
                return -EBADMSG;
        struct evidence_run run;
        int r = parse_run(line + 4, &run);
        if (r < 0)
                return r;
        return evidence_store_add(s, run.t, run.reference, run.device, &run.fig);
}

int evidence_store_parse(const char *text, struct evidence_store *ret)
{
        struct evidence_store s = { 0 };
        if (strncmp(text, HEADER, strlen(HEADER)))
                return -EBADMSG;
        char *copy = strdup(text + strlen(HEADER));
        int r = copy ? 0 : -ENOMEM;
        for (char *line = copy, *next; r >= 0 && line && *line; line = next) {
                next = strchr(line, '\n');
                if (!next) {
                        r = -EBADMSG; /* cut short */
                        break;
                }
                *next++ = 0;
                r = parse_line(&s, line);
        }
        free(copy);
        if (r < 0) {
                evidence_store_clear(&s);
                return r;
        }
        *ret = s;
        return 0;
}

static int path_of(const char *state_dir, const char *probe, char **ret)
{
        return baseline_store_probe_file(state_dir, "evidence", probe, ret);
}

int evidence_store_load(const char *state_dir, const char *probe, struct evidence_store *ret,
                        char **ret_error)
{
        char *path = NULL, *text = NULL;
        size_t len = 0;
        int r = path_of(state_dir, probe, &path);
        if (r >= 0)
                r = fdio_read_file(path, FILE_MAX, &text, &len, NULL);
        if (r == -ENOENT) {
                *ret = (struct evidence_store){ 0 };
                r = 0;
        } else if (r >= 0) {
                r = strlen(text) == len ? evidence_store_parse(text, ret) : -EBADMSG;
        }
        if (r < 0 && r != -ENOMEM && ret_error && path)
                *ret_error = str_printf(r == -EBADMSG ? "'%s' is not an evidence file"
                                                      : "cannot read '%s': %s",
                                        path, strerror(-r));
        free(text);
        free(path);
        return r;
}

static void put_figure(FILE *f, double v)
{
        if (isfinite(v))
                fprintf(f, " %.17g", v);
        else
                fputs(" nan", f);
}

int evidence_store_save(const char *state_dir, const char *probe,
                        const struct evidence_store *s, char **ret_error)
{
        char *path = NULL, *buf = NULL;
        size_t len = 0;
        int r = path_of(state_dir, probe, &path);
        FILE *f = r >= 0 ? open_memstream(&buf, &len) : NULL;
        if (!f) {
                free(path);
                return r < 0 ? r : -ENOMEM;
        }
        fputs(HEADER, f);
        if (s->cause_label) {
                fprintf(f, "cause %s ", s->cause_label);
                for (const char *c = s->cause_text; c && *c; c++)
                        fputc(*c == '\n' ? ' ' : *c, f);
                fputc('\n', f);
        }
        for (size_t i = 0; i < s->n; i++) {
                fprintf(f, "run %.17g %d", s->runs[i].t, s->runs[i].reference);
                for (int k = 0; k < CAUSE_N_FIGURES; k++)
                        put_figure(f, s->runs[i].fig.f[k]);
                if (s->runs[i].device[0])
                        fprintf(f, " on=%s", s->runs[i].device);
                fputc('\n', f);
        }
        r = fclose(f) == 0 ? atomicfile_write(state_dir, path, buf, len, 0644) : -ENOMEM;
        if (r < 0 && ret_error)
                *ret_error = str_printf("cannot write '%s': %s", path, strerror(-r));
        free(buf);
        free(path);
        return r;
}

int evidence_store_reset(const char *state_dir, const char *probe)
{
        char *path = NULL;
        int r = path_of(state_dir, probe, &path);
        if (r >= 0 && unlink(path) < 0 && errno != ENOENT)
                r = -errno;
        free(path);
        return r < 0 ? r : 0;
}

/* Drops run i. */
static void drop(struct evidence_store *s, size_t i)
{
        memmove(&s->runs[i], &s->runs[i + 1], (s->n - i - 1) * sizeof(s->runs[0]));
        s->n--;
}

/* The oldest run of device's of the kind (reference or not) beyond its
 * limit goes: each device keeps as many as a probe of one. */
static void trim(struct evidence_store *s, const char *device)
{
        size_t refs = 0, recent = 0;
        for (size_t i = 0; i < s->n; i++)
                if (on_device(&s->runs[i], device))
                        s->runs[i].reference ? refs++ : recent++;
        for (size_t i = 0; i < s->n && (refs > DETECTOR_REF_MAX || recent > EVIDENCE_RECENT_MAX);) {
                bool ref = s->runs[i].reference;
                if (on_device(&s->runs[i], device) &&
                    ((ref && refs > DETECTOR_REF_MAX) || (!ref && recent > EVIDENCE_RECENT_MAX))) {
                        ref ? refs-- : recent--;
                        drop(s, i);
                } else {
                        i++;
                }
        }
}

int evidence_store_add(struct evidence_store *s, double t, bool reference, const char *device,
                       const struct cause_run *fig)
{
        if (device && !device_ok(device))
                return -EINVAL;
        struct evidence_run *runs = realloc(s->runs, (s->n + 1) * sizeof(*runs));
        if (!runs)
                return -ENOMEM;
        s->runs = runs;
        struct evidence_run *r = &s->runs[s->n++];
        *r = (struct evidence_run){ .t = t, .reference = reference, .fig = *fig };
        snprintf(r->device, sizeof(r->device), "%s", device ? device : "");
        trim(s, r->device);
        return 0;
}

void evidence_store_accept(struct evidence_store *s, size_t n)
{
        for (size_t i = 0; i < s->n; i++) {
                size_t later = 0; /* the device's runs after this one */
                for (size_t k = i + 1; k < s->n; k++)
                        later += !strcmp(s->runs[k].device, s->runs[i].device);
                s->runs[i].reference = later < n;
        }
}

int evidence_store_set_cause(struct evidence_store *s, const char *label, const char *text)
{
        char *l = label ? strdup(label) : NULL, *t = label ? strdup(text ? text : "") : NULL;
        if (label && (!l || !t)) {
                free(l);
                free(t);
                return -ENOMEM;
        }
        free(s->cause_label);
        free(s->cause_text);
        s->cause_label = l;
        s->cause_text = t;
        return 0;
}

size_t evidence_store_reference(const struct evidence_store *s, const char *device, size_t skip,
                                struct cause_run *ret, size_t max)
{
        size_t n = 0, all = 0;
        for (size_t i = 0; i < s->n; i++)
                all += on_device(&s->runs[i], device);
        for (size_t i = 0; i < s->n && n < max; i++)
                if (s->runs[i].reference && on_device(&s->runs[i], device))
                        ret[n++] = s->runs[i].fig;
        if (n)
                return n;
        for (size_t i = 0; i < s->n && n + skip < all && n < max; i++)
                if (on_device(&s->runs[i], device))
                        ret[n++] = s->runs[i].fig;
        return n;
}

size_t evidence_store_last(const struct evidence_store *s, const char *device, size_t n,
                           struct cause_run *ret, double *ret_since)
{
        size_t got = 0, from = s->n;
        while (from > 0 && got < n)
                got += on_device(&s->runs[--from], device);
        size_t k = 0;
        *ret_since = NAN;
        for (size_t i = from; i < s->n && k < got; i++) {
                if (!on_device(&s->runs[i], device))
                        continue;
                if (!k)
                        *ret_since = s->runs[i].t;
                if (ret)
                        ret[k] = s->runs[i].fig;
                k++;
        }
        return got;
}
