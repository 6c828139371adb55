/* test_priority.c — --ionice and --nice are parsed like ionice(1) and
 * nice(1) and bad values refused; what is applied is what is read back;
 * the priority survives a trip through a result. */
#include <errno.h>

#include "priority.h"
#include "result.h"
#include "test.h"

static void parse(void)
{
        int c = -1, l = -1, n = 99;
        CHECK(prio_parse_ionice("idle", &c, &l) == 0 && c == PRIO_IO_IDLE && l == 0);
        CHECK(prio_parse_ionice("best-effort", &c, &l) == 0 && c == PRIO_IO_BEST_EFFORT && l == 4);
        CHECK(prio_parse_ionice("best-effort:7", &c, &l) == 0 && l == 7);
        CHECK(prio_parse_ionice("realtime:0", &c, &l) == 0 && c == PRIO_IO_REALTIME && l == 0);
        CHECK(prio_parse_ionice("2:3", &c, &l) == 0 && c == PRIO_IO_BEST_EFFORT && l == 3);
        CHECK(prio_parse_ionice("idle:1", &c, &l) == -EINVAL);
        CHECK(prio_parse_ionice("best-effort:8", &c, &l) == -EINVAL);
        CHECK(prio_parse_ionice("best-effort:", &c, &l) == -EINVAL);
        CHECK(prio_parse_ionice("best", &c, &l) == -EINVAL);
        CHECK(prio_parse_ionice("none", &c, &l) == -EINVAL);
        CHECK(prio_parse_ionice("0", &c, &l) == -EINVAL);
        CHECK(prio_parse_nice("-20", &n) == 0 && n == -20);
        CHECK(prio_parse_nice("19", &n) == 0 && n == 19);
        CHECK(prio_parse_nice("20", &n) == -EINVAL && n == 19);
        CHECK(prio_parse_nice("5x", &n) == -EINVAL);
}

static void apply_and_read(void)
{
        struct priority now, want = { 0 };
        CHECK(prio_current(&now) == 0);
        want.nice = now.nice < 19 ? now.nice + 1 : 19; /* raising needs no privilege */
        want.io_class = PRIO_IO_IDLE;
        CHECK(prio_apply(&want) == 0);
        CHECK(prio_current(&now) == 0);
        CHECK(now.nice == want.nice && now.io_class == PRIO_IO_IDLE && now.io_level == 0);
        want.io_class = PRIO_IO_NONE; /* leaves the I/O priority alone */
        CHECK(prio_apply(&want) == 0 && prio_current(&now) == 0 && now.io_class == PRIO_IO_IDLE);
}

static void through_result(void)
{
        struct result *r = result_new("p", "cpu");
        struct priority p = { 7, PRIO_IO_BEST_EFFORT, 3 }, back;
        CHECK(r && prio_from_result(r, &back) == -ENOENT);
        CHECK(prio_add_metrics(&p, r) == 0 && prio_from_result(r, &back) == 0);
        CHECK(back.nice == 7 && back.io_class == PRIO_IO_BEST_EFFORT && back.io_level == 3);
        CHECK(!strcmp(prio_io_class_name(back.io_class), "best-effort"));
        result_free(r);
}

int main(void)
{
        parse();
        apply_and_read();
        through_result();
        printf("test_priority: ok\n");
        return 0;
}
