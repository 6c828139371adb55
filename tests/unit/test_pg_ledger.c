/* test_pg_ledger.c — the Pushgateway groups kept across restarts: a first
 * start has nothing stale and writes its groups; a later start whose
 * configuration lost a probe (or changed a grouping label) finds exactly
 * the groups it no longer has; a forgotten group leaves the file; of two
 * overlapping ledgers (a reload) only the newer writes; a file that is not
 * a list makes nothing stale and is replaced. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink/pg_ledger.h"
#include "test.h"
#include "util/fdio.h"

#define G(probe) "http://gw:9091/metrics/job/benchwatch/instance/h" probe

static char dir[] = "/tmp/test_pg_ledger.XXXXXX";
static char path[256];

static char *file_text(void)
{
        char *text = NULL;
        size_t len;
        CHECK(fdio_read_file(path, 1 << 20, &text, &len, NULL) >= 0);
        return text;
}

static void put(const char *text)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(fd >= 0 && fdio_write_all(fd, text, strlen(text)) == 0);
        close(fd);
}

static void open_with(const char *const *groups, size_t n, struct pg_ledger *ret)
{
        CHECK(pg_ledger_open(dir, groups, n, ret) == 0);
}

static void test_stale(void)
{
        const char *const first[] = { G(""), G("/probe/a"), G("/probe/b"), G("/probe/c") };
        const char *const second[] = { G(""), G("/probe/a") };
        struct pg_ledger l;
        open_with(first, 4, &l);
        CHECK(l.n_stale == 0);
        char *text = file_text();
        CHECK(!strcmp(text, "benchwatch-pushgateway-groups 1\n" G("") "\n" G("/probe/a") "\n"
                      G("/probe/b") "\n" G("/probe/c") "\n"));
        free(text);
        pg_ledger_done(&l);

        open_with(second, 2, &l); /* b and c removed from the configuration */
        CHECK(l.n_stale == 2 && !strcmp(l.stale[0], G("/probe/b")) &&
              !strcmp(l.stale[1], G("/probe/c")));
        /* a restart before the deletions: still stale */
        struct pg_ledger again;
        open_with(second, 2, &again);
        CHECK(again.n_stale == 2);
        pg_ledger_done(&l);
        pg_ledger_forget(&again, 0);
        CHECK(again.n_stale == 1);
        text = file_text();
        CHECK(!strcmp(text, "benchwatch-pushgateway-groups 1\n" G("") "\n" G("/probe/a") "\n"
                      G("/probe/c") "\n"));
        free(text);
        pg_ledger_forget(&again, 0);
        CHECK(again.n_stale == 0);
        pg_ledger_forget(&again, 0); /* none left: nothing happens */
        CHECK(again.n_stale == 0);
        pg_ledger_done(&again);
        open_with(second, 2, &l);
        CHECK(l.n_stale == 0);
        pg_ledger_done(&l);
}

/* A reload: the new ledger owns the file; the old one's deletion no
 * longer writes it (the new one's list is kept). */
static void test_overlap(void)
{
        const char *const old_groups[] = { G(""), G("/probe/a"), G("/probe/x") };
        const char *const new_groups[] = { G(""), G("/probe/b") };
        struct pg_ledger old, young;
        put("benchwatch-pushgateway-groups 1\n" G("/probe/gone") "\n");
        open_with(old_groups, 3, &old);
        CHECK(old.n_stale == 1);
        open_with(new_groups, 2, &young);
        CHECK(young.n_stale == 3); /* gone, a and x */
        pg_ledger_forget(&old, 0);
        char *text = file_text();
        CHECK_STR_CONTAINS(text, G("/probe/gone") "\n");
        CHECK_STR_CONTAINS(text, G("/probe/b") "\n");
        free(text);
        pg_ledger_done(&old);
        pg_ledger_done(&young);
}

/* Not a list: nothing stale (nothing deleted on its word), replaced. */
static void test_bad_file(void)
{
        static const char *const bad[] = {
                "benchwatch-pushgateway-groups 2\n" G("/probe/a") "\n",
                "benchwatch-pushgateway-groups 1\n" G("/probe/a"),      /* cut short */
                "benchwatch-pushgateway-groups 1\n\n",
                "benchwatch-pushgateway-groups 1\nftp://x\n",
                "",
        };
        const char *const groups[] = { G("") };
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
                struct pg_ledger l;
                put(bad[i]);
                open_with(groups, 1, &l);
                CHECK(l.n_stale == 0);
                char *text = file_text();
                CHECK(!strcmp(text, "benchwatch-pushgateway-groups 1\n" G("") "\n"));
                free(text);
                pg_ledger_done(&l);
        }
        /* a directory it cannot write (a full state_dir): the list is
         * kept in memory, stale groups and all, and forgetting works */
        const char *const one[] = { G("") };
        struct pg_ledger l;
        put("benchwatch-pushgateway-groups 1\n" G("/probe/gone") "\n");
        CHECK(pg_ledger_open("/nonexistent/dir", one, 1, &l) == 0);
        CHECK(l.n_stale == 0 && l.n_current == 1);
        pg_ledger_done(&l);
        if (geteuid() != 0) { /* root writes a read-only directory all the same */
                CHECK(chmod(dir, 0500) == 0);
                CHECK(pg_ledger_open(dir, one, 1, &l) == 0);
                CHECK(l.n_stale == 1);
                pg_ledger_forget(&l, 0);
                CHECK(l.n_stale == 0);
                pg_ledger_done(&l);
                CHECK(chmod(dir, 0700) == 0);
        }
}

int main(void)
{
        CHECK(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/pushgateway-groups", dir);
        test_stale();
        test_overlap();
        test_bad_file();
        unlink(path);
        CHECK(rmdir(dir) == 0);
        printf("test_pg_ledger: ok\n");
        return test_failures != 0;
}
