/* notes.c — see notes.h. */
#include "core/notes.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "core/log.h"
#include "util/atomicfile.h"
#include "util/fdio.h"
#include "util/strutil.h"

#define NOTES_MAX_BYTES (64u << 10) /* kept of a run; more is said anew */

struct notes {
        char *dir, *path;
        char *last;     /* the last run's lines, each between newlines */
        char *said;     /* this run's, the same way */
        size_t len;
        bool had_file;
};

struct notes *notes_open(const char *state_dir, const char *probe)
{
        if (!log_to_journal() || !state_dir || !*state_dir)
                return NULL;
        struct notes *n = calloc(1, sizeof(*n));
        char *text = NULL;
        size_t len = 0;
        if (!n)
                return NULL;
        n->dir = strdup(state_dir);
        n->path = str_printf("%s/notes-%s.txt", state_dir, probe);
        n->said = strdup("\n");
        n->len = 1;
        if (!n->dir || !n->path || !n->said) {
                notes_close(n);
                return NULL;
        }
        int r = fdio_read_file(n->path, NOTES_MAX_BYTES, &text, &len, NULL);
        n->had_file = r != -ENOENT;
        n->last = r >= 0 ? str_printf("\n%s", text) : NULL;
        free(text);
        return n;
}

/* Whether line is one of lines ("\nA\nB\n"; NULL: none). */
static bool said_in(const char *lines, const char *line)
{
        size_t k = strlen(line);
        for (const char *p = lines ? lines + 1 : NULL; p && (p = strstr(p, line)); p++)
                if (p[-1] == '\n' && p[k] == '\n')
                        return true;
        return false;
}

int notes_priority(struct notes *n, int priority, const char *line)
{
        if (!n || priority < LOG_NOTICE || !*line || strchr(line, '\n'))
                return priority;
        size_t k = strlen(line);
        if (!said_in(n->said, line) && n->len + k + 1 <= NOTES_MAX_BYTES) {
                char *grown = realloc(n->said, n->len + k + 2);
                if (grown) {
                        memcpy(grown + n->len, line, k);
                        n->len += k + 1;
                        grown[n->len - 1] = '\n';
                        grown[n->len] = 0;
                        n->said = grown;
                }
        }
        return said_in(n->last, line) ? LOG_DEBUG : priority;
}

void notes_close(struct notes *n)
{
        if (!n)
                return;
        /* rewritten only when it changes: no write at a run like the last */
        bool same = n->last && n->said && !strcmp(n->last, n->said);
        if (n->path && n->said && !same && (n->len > 1 || n->had_file))
                (void)atomicfile_write(n->dir, n->path, n->said + 1, n->len - 1, 0644);
        free(n->dir);
        free(n->path);
        free(n->last);
        free(n->said);
        free(n);
}
