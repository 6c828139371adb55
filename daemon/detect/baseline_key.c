/* baseline_key.c — see baseline_key.h. */
#include "detect/baseline_key.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_escaped(FILE *f, const char *v)
{
        for (; *v; v++) {
                if (*v == '\\' || *v == '"')
                        fputc('\\', f);
                if (*v == '\n')
                        fputs("\\n", f);
                else
                        fputc(*v, f);
        }
}

int baseline_key_build(const char *metric, const struct label *l, size_t n, char **ret)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        fputs(metric, f);
        for (size_t i = 0; i < n; i++) {
                fprintf(f, "%s%s=\"", i ? "," : "{", l[i].name);
                put_escaped(f, l[i].value);
                fputc('"', f);
        }
        if (n)
                fputc('}', f);
        bool bad = ferror(f);
        if (fclose(f) != 0 || bad) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        return 0;
}

static int cmp_label(const void *a, const void *b)
{
        return strcmp(((const struct label *)a)->name,
                      ((const struct label *)b)->name);
}

void baseline_key_sort(struct label *labels, size_t n)
{
        if (n)
                qsort(labels, n, sizeof(*labels), cmp_label);
}

int baseline_key_push_label(struct label **l, size_t *n, const char *name,
                             size_t name_len, char *value)
{
        struct label *nl = realloc(*l, (*n + 1) * sizeof(**l));
        if (!nl)
                return -ENOMEM;
        *l = nl;
        nl[*n].name = strndup(name, name_len);
        if (!nl[*n].name)
                return -ENOMEM;
        nl[*n].value = value;
        (*n)++;
        return 0;
}

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:"
#define LABEL_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

/* A quoted label value with \\, \" and \n escapes; *p is past the opening
 * quote and ends past the closing one. */
static int parse_label_value(const char **p, char **ret)
{
        const char *s = *p;
        char *v = malloc(strlen(s) + 1), *o = v;
        if (!v)
                return -ENOMEM;
        for (; *s && *s != '"'; s++) {
                if (*s == '\\') {
                        s++;
                        if (*s != '\\' && *s != '"' && *s != 'n')
                                break;
                        *o++ = *s == 'n' ? '\n' : *s;
                } else
                        *o++ = *s;
        }
        if (*s != '"') {
                free(v);
                return -EINVAL;
        }
        *o = '\0';
        *p = s + 1;
        *ret = v;
        return 0;
}

int baseline_key_parse(const char *key, char **metric, struct label **labels,
                       size_t *n_labels)
{
        const char *p = key;
        size_t n = strspn(p, NAME_CHARS);
        char *again = NULL;
        int r = n ? 0 : -EINVAL;

        if (r >= 0 && !(*metric = strndup(p, n)))
                r = -ENOMEM;
        p += n;
        if (r >= 0 && *p == '{') {
                do {
                        p++;
                        n = strspn(p, LABEL_CHARS);
                        const char *name = p;
                        char *v = NULL;
                        if (!n || p[n] != '=' || p[n + 1] != '"') {
                                r = -EINVAL;
                                break;
                        }
                        p += n + 2;
                        r = parse_label_value(&p, &v);
                        if (r >= 0)
                                r = baseline_key_push_label(labels, n_labels, name, n, v);
                        if (r < 0)
                                free(v);
                } while (r >= 0 && *p == ',');
                if (r >= 0 && *p++ != '}')
                        r = -EINVAL;
        }
        if (r >= 0 && *p)
                r = -EINVAL;
        for (size_t i = 1; i < *n_labels && r >= 0; i++)
                if (strcmp((*labels)[i - 1].name, (*labels)[i].name) >= 0)
                        r = -EINVAL; /* unsorted or repeated */
        if (r >= 0)
                r = baseline_key_build(*metric, *labels, *n_labels, &again);
        if (r >= 0 && strcmp(again, key))
                r = -EINVAL;
        free(again);
        return r;
}
