/* fuzz_status.c — libFuzzer target for the status file reader
 * (cmd/status_file.c): <state_dir>/status.txt, which the daemon replaces
 * after every run and `benchwatch status` reads, perhaps one of another
 * version or one a hand changed.
 *
 * Input: the file's bytes.  A file that is accepted has probes with names,
 * each found by its name, and sinks with names; written back and read
 * again, it holds the same probes and sinks with the same figures. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/status_file.h"

#include "fuzz.h"

static char dir[64];

static void remove_dir(void)
{
        char path[128];
        snprintf(path, sizeof(path), "%s/" STATUS_FILE_NAME, dir);
        unlink(path);
        rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof(dir), "%s/fuzz_status.XXXXXX",
                 tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
        if (!mkdtemp(dir))
                abort();
        atexit(remove_dir);
        return 0;
}

static bool same(double a, double b)
{
        return a == b || (isnan(a) && isnan(b));
}

/* What the writer keeps of a probe, the reader gives back. */
static void compare(const struct status_file *a, const struct status_file *b)
{
        if (a->n_probes != b->n_probes || a->n_sinks != b->n_sinks || a->pid != b->pid)
                abort();
        for (size_t i = 0; i < a->n_probes; i++) {
                const struct status_file_probe *p = &a->probes[i], *q = &b->probes[i];
                if (strcmp(p->name, q->name) || strcmp(p->plugin, q->plugin) ||
                    !same(p->interval, q->interval) || !same(p->last, q->last) ||
                    p->ok != q->ok || p->counted != q->counted ||
                    p->deferred_day != q->deferred_day || !!p->wait_reason != !!q->wait_reason)
                        abort();
        }
        for (size_t i = 0; i < a->n_sinks; i++)
                if (strcmp(a->sinks[i].name, b->sinks[i].name) ||
                    !same(a->sinks[i].last_ok, b->sinks[i].last_ok))
                        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        FILE *f = fmemopen((void *)data, size, "r");
        struct status_file *sf = NULL, *again = NULL;
        char *err = NULL;
        if (!f)
                return 0;
        int r = status_file_parse(f, &sf);
        fclose(f);
        if (r < 0) {
                if (r != -EBADMSG && r != -ENOMEM)
                        abort();
                return 0;
        }
        for (size_t i = 0; i < sf->n_probes; i++)
                if (!sf->probes[i].name || !sf->probes[i].plugin ||
                    status_file_find(sf, sf->probes[i].name) == NULL)
                        abort();
        for (size_t i = 0; i < sf->n_sinks; i++)
                if (!sf->sinks[i].name || !status_file_find_sink(sf, sf->sinks[i].name))
                        abort();
        if (status_file_write(dir, sf, &err) < 0 || status_file_read(dir, &again, &err) < 0)
                abort(); /* what it read, it writes and reads back */
        compare(sf, again);
        status_file_free(again);
        status_file_free(sf);
        return 0;
}
