/* fuzz_history.c — libFuzzer target for the history reader (history.c):
 * <state_dir>/history-<probe>.txt, appended after every run, cut short by
 * a crash or edited by hand, read by `benchwatch history` and `status`.
 *
 * Input: the file's bytes.  Whatever it holds, a read either refuses the
 * file (not a history) or returns entries whose times are at or after
 * `since`, with a state of L, O or R and a key, and counts the lines it
 * skipped, the first of which it names; reading everything gives at least
 * as many entries as reading from a later time. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/history.h"

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        return 0;
}

static int read_since(const uint8_t *data, size_t size, double since, size_t *ret_n)
{
        FILE *f = fmemopen((void *)data, size, "r");
        struct history_entry *e = NULL;
        size_t n = 0;
        unsigned skipped = 0, first_bad = 0;
        if (!f)
                return -ENOMEM;
        int r = history_parse(f, since, &e, &n, &skipped, &first_bad);
        fclose(f);
        if (r < 0) {
                if (r != -EBADMSG && r != -ENOMEM)
                        abort();
                return r;
        }
        if ((skipped == 0) != (first_bad == 0) || (skipped && first_bad < 2))
                abort(); /* the first bad line is named, and is not the header */
        for (size_t i = 0; i < n; i++) {
                if (!(e[i].t >= since) || !strchr("LOR", (int)e[i].state) || !e[i].key ||
                    !*e[i].key || strchr(e[i].key, '\n'))
                        abort();
        }
        history_entries_free(e, n);
        *ret_n = n;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        size_t all = 0, later = 0;
        int r = read_since(data, size, -INFINITY, &all);
        int r2 = read_since(data, size, 1e9, &later);
        if ((r < 0) != (r2 < 0) || (r >= 0 && later > all))
                abort();
        return 0;
}
