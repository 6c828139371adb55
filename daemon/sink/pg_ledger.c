/* pg_ledger.c — see pg_ledger.h. */
#include "sink/pg_ledger.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "util/atomicfile.h"
#include "util/fdio.h"
#include "util/strutil.h"

#define HEADER "benchwatch-pushgateway-groups 1\n"
#define FILE_MAX (1u << 20)

/* the ledgers of a reload overlap: the newest one owns the file */
static pthread_mutex_t ledger_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned ledger_generation;

static void free_list(char **v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

static bool listed(char *const *v, size_t n, const char *s)
{
        for (size_t i = 0; i < n; i++)
                if (!strcmp(v[i], s))
                        return true;
        return false;
}

/* The groups of the file's text not in l->current, into l->stale. */
static int take_stale(struct pg_ledger *l, char *text)
{
        size_t cap = 0;
        for (char *line = text + strlen(HEADER), *next; *line; line = next) {
                next = strchr(line, '\n');
                if (!next)
                        return -EBADMSG; /* cut short */
                *next++ = 0;
                if (!*line || strncmp(line, "http", 4))
                        return -EBADMSG;
                if (listed(l->current, l->n_current, line) || listed(l->stale, l->n_stale, line))
                        continue;
                if (l->n_stale == cap) {
                        cap = cap ? 2 * cap : 8;
                        char **v = realloc(l->stale, cap * sizeof(*v));
                        if (!v)
                                return -ENOMEM;
                        l->stale = v;
                }
                if (!(l->stale[l->n_stale] = strdup(line)))
                        return -ENOMEM;
                l->n_stale++;
        }
        return 0;
}

/* With ledger_lock held: the file as l has it, if l is the newest; a
 * failure is logged (the list stays in memory). */
static void save(const struct pg_ledger *l)
{
        char *buf = NULL;
        size_t len = 0;
        if (l->generation != ledger_generation)
                return;
        FILE *f = open_memstream(&buf, &len);
        int r = f ? 0 : -ENOMEM;
        if (f) {
                fputs(HEADER, f);
                for (size_t i = 0; i < l->n_current; i++)
                        fprintf(f, "%s\n", l->current[i]);
                for (size_t i = 0; i < l->n_stale; i++)
                        fprintf(f, "%s\n", l->stale[i]);
                r = ferror(f) | fclose(f) ? -ENOMEM : 0;
        }
        if (r >= 0)
                r = atomicfile_write(l->dir, l->path, buf, len, 0600);
        if (r < 0)
                log_warning("pushgateway: cannot write '%s': %s (the groups to delete are "
                            "kept in memory until the daemon stops)", l->path, strerror(-r));
        free(buf);
}

int pg_ledger_open(const char *state_dir, const char *const *current, size_t n,
                   struct pg_ledger *ret)
{
        struct pg_ledger l = { 0 };
        char *text = NULL;
        size_t len;
        int r = 0;
        l.dir = strdup(state_dir);
        l.path = str_printf("%s/pushgateway-groups", state_dir);
        l.current = calloc(n ? n : 1, sizeof(*l.current));
        if (!l.dir || !l.path || !l.current)
                r = -ENOMEM;
        for (size_t i = 0; r >= 0 && i < n; i++, l.n_current++)
                if (!(l.current[i] = strdup(current[i])))
                        r = -ENOMEM;
        if (r >= 0) {
                int e = fdio_read_file(l.path, FILE_MAX, &text, &len, NULL);
                if (e >= 0 && (strlen(text) != len || strncmp(text, HEADER, strlen(HEADER))))
                        e = -EBADMSG;
                if (e >= 0)
                        e = take_stale(&l, text);
                if (e == -ENOMEM)
                        r = e;
                else if (e < 0 && e != -ENOENT) {
                        /* deleting nothing on the word of a list not ours */
                        log_warning("pushgateway: cannot read '%s' (%s): starting a new "
                                    "list; a group of a probe removed before stays on the "
                                    "gateway (`benchwatch push --delete PROBE` deletes it)",
                                    l.path, e == -EBADMSG ? "not a list of groups"
                                                          : strerror(-e));
                        free_list(l.stale, l.n_stale);
                        l.stale = NULL;
                        l.n_stale = 0;
                }
                free(text);
        }
        if (r >= 0) {
                pthread_mutex_lock(&ledger_lock);
                l.generation = ++ledger_generation;
                save(&l);
                pthread_mutex_unlock(&ledger_lock);
        }
        if (r < 0) {
                pg_ledger_done(&l);
                return r;
        }
        *ret = l;
        return 0;
}

void pg_ledger_forget(struct pg_ledger *l, size_t i)
{
        if (i >= l->n_stale)
                return;
        free(l->stale[i]);
        memmove(&l->stale[i], &l->stale[i + 1], (l->n_stale - i - 1) * sizeof(*l->stale));
        l->n_stale--;
        pthread_mutex_lock(&ledger_lock);
        save(l);
        pthread_mutex_unlock(&ledger_lock);
}

void pg_ledger_done(struct pg_ledger *l)
{
        free_list(l->current, l->n_current);
        free_list(l->stale, l->n_stale);
        free(l->dir);
        free(l->path);
        memset(l, 0, sizeof(*l));
}
