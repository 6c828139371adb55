/* conf_errors.c — see conf_errors.h. */
#include "core/conf_errors.h"

#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

struct conf_error {
        size_t rank;        /* the file's place in the order read */
        unsigned line;
        size_t seq;         /* the order found: ties keep it */
        char *text;
};

static bool push(char ***v, size_t *n, const char *s)
{
        char **grown = realloc(*v, (*n + 1) * sizeof(**v));
        char *copy = grown ? strdup(s) : NULL;
        if (grown)
                *v = grown;
        if (!copy)
                return false;
        (*v)[(*n)++] = copy;
        return true;
}

static size_t find(char *const *v, size_t n, const char *s)
{
        size_t i = 0;
        while (i < n && strcmp(v[i], s))
                i++;
        return i;
}

void conf_errors_file(struct conf_errors *e, const char *file)
{
        if (find(e->files, e->n_files, file) == e->n_files &&
            !push(&e->files, &e->n_files, file))
                e->oom = true;
}

static void note_section(struct conf_errors *e, const char *section)
{
        if (!section || conf_errors_in(e, section))
                return;
        if (e->n_sections >= CONF_ERRORS_SECTIONS)
                e->many_sections = true;
        else if (!push(&e->sections, &e->n_sections, section))
                e->oom = true;
}

void conf_errors_add(struct conf_errors *e, const char *file, unsigned line,
                     const char *section, char *text)
{
        e->n_all++;
        note_section(e, section);
        if (!text || e->n >= CONF_ERRORS_KEPT) {
                e->oom |= !text;
                free(text);
                return;
        }
        struct conf_error *grown = realloc(e->v, (e->n + 1) * sizeof(*grown));
        if (!grown) {
                free(text);
                e->oom = true;
                return;
        }
        e->v = grown;
        conf_errors_file(e, file); /* one not read (a directory): after those before */
        e->v[e->n] = (struct conf_error){ .rank = find(e->files, e->n_files, file),
                                          .line = line, .seq = e->n, .text = text };
        e->n++;
}

bool conf_errors_in(const struct conf_errors *e, const char *section)
{
        return e->many_sections || find(e->sections, e->n_sections, section) < e->n_sections;
}

static int by_place(const void *a, const void *b)
{
        const struct conf_error *x = a, *y = b;
        if (x->rank != y->rank)
                return x->rank < y->rank ? -1 : 1;
        if (x->line != y->line)
                return x->line < y->line ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

char *conf_errors_text(const struct conf_errors *e, unsigned max)
{
        if (!e->n_all)
                return NULL;
        struct conf_error *sorted = malloc(e->n * sizeof(*sorted));
        if (!sorted)
                return NULL;
        memcpy(sorted, e->v, e->n * sizeof(*sorted));
        qsort(sorted, e->n, sizeof(*sorted), by_place);
        size_t shown = e->n < max ? e->n : max;
        char *text = strdup(""), *more;
        for (size_t i = 0; text && i < shown; i++) {
                more = str_printf("%s%s%s", text, i ? "\n" : "", sorted[i].text);
                free(text);
                text = more;
        }
        if (text && e->n_all > shown) {
                more = str_printf("%s\n(%zu more errors not shown)", text, e->n_all - shown);
                free(text);
                text = more;
        }
        free(sorted);
        return text;
}

void conf_errors_free(struct conf_errors *e)
{
        for (size_t i = 0; i < e->n; i++)
                free(e->v[i].text);
        for (size_t i = 0; i < e->n_files; i++)
                free(e->files[i]);
        for (size_t i = 0; i < e->n_sections; i++)
                free(e->sections[i]);
        free(e->v);
        free(e->files);
        free(e->sections);
        *e = (struct conf_errors){ 0 };
}
