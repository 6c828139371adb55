/* test_param.c — parameter validation against a declarative table: types,
 * ranges, enums, repeatable values, defaults and the error texts users see;
 * parameters that apply only with another's value, and plugins whose
 * `applies` is malformed. */
#include <errno.h>

#include "core/param.h"
#include "test.h"

static const char *const modes[] = { "read", "write", NULL };
static const struct bw_param_def defs[] = {
        { .name = "threads", .type = BW_PARAM_INT, .default_value = "1", .min = 1, .max = 64,
          .help = "threads", .flags = BW_PARAM_LABEL },
        { .name = "ratio", .type = BW_PARAM_DOUBLE, .default_value = "0.7", .min = 0, .max = 1,
          .help = "ratio" },
        { .name = "direct", .type = BW_PARAM_BOOL, .default_value = "yes", .help = "O_DIRECT" },
        { .name = "mode", .type = BW_PARAM_ENUM, .default_value = "read", .choices = modes,
          .help = "mode" },
        { .name = "duration", .type = BW_PARAM_DURATION, .default_value = "10s", .min = 0.001,
          .max = 86400, .unit = "s", .help = "time" },
        { .name = "block_size", .type = BW_PARAM_SIZE, .default_value = "16k", .min = 512,
          .max = 1 << 30, .unit = "bytes", .help = "bs" },
        { .name = "header", .type = BW_PARAM_STRING, .default_value = "", .help = "hdr",
          .flags = BW_PARAM_MULTI },
        { .name = "url", .type = BW_PARAM_STRING, .default_value = "http://127.0.0.1/",
          .help = "url" },
        { .name = NULL },
};

/* The assignment fails and its message contains `want`. */
static void expect_error(struct param_set *ps, const char *kv, const char *want)
{
        char *why = NULL;
        CHECK(param_set_assign_kv(ps, kv, &why) < 0);
        CHECK_STR_CONTAINS(why, want);
        free(why);
}

int main(void)
{
        struct param_set *ps, *copy;
        char *why = NULL;
        CHECK(param_set_new(defs, &ps, &why) == 0);
        CHECK(ps->n == 8);
        CHECK(ps->values[0].i == 1 && !ps->values[0].is_set);
        CHECK(ps->values[1].d == 0.7 && ps->values[2].b && ps->values[3].i == 0);
        CHECK(ps->values[4].d == 10 && ps->values[5].i == 16384);
        CHECK(ps->values[6].n_list == 0);

        CHECK(param_set_assign_kv(ps, "threads=8", &why) == 0 && ps->values[0].i == 8);
        CHECK(ps->values[0].is_set && !strcmp(param_text(ps, 0), "8"));
        CHECK(param_set_assign_kv(ps, "mode=write", &why) == 0 && ps->values[3].i == 1);
        CHECK(param_set_assign_kv(ps, "duration=500ms", &why) == 0 && ps->values[4].d == 0.5);
        CHECK(param_set_assign_kv(ps, "block_size=4k", &why) == 0 && ps->values[5].i == 4096);
        CHECK(param_set_assign_kv(ps, "header=A: 1", &why) == 0);
        CHECK(param_set_assign_kv(ps, "header=B: 2", &why) == 0);
        CHECK(ps->values[6].n_list == 2 && !strcmp(ps->values[6].list[1], "B: 2"));
        CHECK(param_set_assign_kv(ps, "url=http://x/?a=b", &why) == 0);
        CHECK(!strcmp(ps->values[7].s, "http://x/?a=b"));

        expect_error(ps, "threads=0", "threads: '0' is out of range 1..64");
        expect_error(ps, "threads=two", "'two' is not an integer");
        expect_error(ps, "mode=rnd", "'rnd' is not one of: read, write");
        expect_error(ps, "direct=perhaps", "not a boolean");
        expect_error(ps, "duration=5x", "not a duration");
        expect_error(ps, "block_size=16q", "not a size");
        /* ranges in the units people write, never 1.07374e+09 */
        expect_error(ps, "block_size=100", "block_size: '100' is out of range 512..1G");
        expect_error(ps, "duration=-1", "duration: '-1' is out of range 1ms..1d");
        expect_error(ps, "duration=2d", "duration: '2d' is out of range 1ms..1d");
        expect_error(ps, "ratio=2", "ratio: '2' is out of range 0..1");
        expect_error(ps, "nosuch=1", "unknown parameter 'nosuch'");
        expect_error(ps, "novalue", "NAME=VALUE");
        /* a failed assignment leaves the old value */
        CHECK(ps->values[0].i == 8 && ps->values[3].i == 1);

        CHECK(param_set_copy(ps, &copy) == 0);
        CHECK(copy->values[0].i == 8 && copy->values[6].n_list == 2);
        CHECK(!copy->values[1].is_set && copy->values[1].d == 0.7);
        param_set_free(copy);
        param_set_free(ps);

        static const struct bw_param_def broken[] = {
                { .name = "n", .type = BW_PARAM_INT, .default_value = "ten", .help = "" },
                { .name = NULL },
        };
        CHECK(param_set_new(broken, &ps, &why) < 0);
        CHECK_STR_CONTAINS(why, "default of parameter 'n' is invalid");
        free(why);

        /* applies: rwmix only with mode=rw, fsync with write|rw */
        static const char *const rw[] = { "read", "write", "rw", NULL };
        static const struct bw_param_def cond[] = {
                { .name = "mode", .type = BW_PARAM_ENUM, .default_value = "read", .choices = rw,
                  .help = "", .flags = BW_PARAM_LABEL },
                { .name = "rwmix", .type = BW_PARAM_INT, .default_value = "50", .min = 0,
                  .max = 100, .help = "", .flags = BW_PARAM_LABEL, .applies = "mode=rw" },
                { .name = "fsync", .type = BW_PARAM_INT, .default_value = "0", .min = 0, .max = 9,
                  .help = "", .flags = BW_PARAM_LABEL, .applies = "mode=write|rw" },
                { .name = NULL },
        };
        CHECK(param_set_new(cond, &ps, &why) == 0);
        CHECK(param_applies(ps, 0) && !param_applies(ps, 1) && !param_applies(ps, 2));
        CHECK(param_set_assign_kv(ps, "mode=write", &why) == 0);
        CHECK(!param_applies(ps, 1) && param_applies(ps, 2));
        CHECK(param_set_assign_kv(ps, "mode=rw", &why) == 0);
        CHECK(param_applies(ps, 1) && param_applies(ps, 2));
        param_set_free(ps);
        static const struct bw_param_def bad_name[] = {
                { .name = "x", .type = BW_PARAM_INT, .default_value = "1", .min = 0, .max = 9,
                  .help = "", .applies = "mood=rw" },
                { .name = NULL },
        };
        CHECK(param_set_new(bad_name, &ps, &why) < 0);
        CHECK_STR_CONTAINS(why, "parameter 'x': applies 'mood=rw' does not name another parameter");
        free(why);
        static const struct bw_param_def bad_choice[] = {
                { .name = "mode", .type = BW_PARAM_ENUM, .default_value = "read", .choices = rw,
                  .help = "" },
                { .name = "x", .type = BW_PARAM_INT, .default_value = "1", .min = 0, .max = 9,
                  .help = "", .applies = "mode=rw|randrw" },
                { .name = NULL },
        };
        CHECK(param_set_new(bad_choice, &ps, &why) < 0);
        CHECK_STR_CONTAINS(why, "'randrw' is not a choice of 'mode'");
        free(why);
        printf("test_param: ok\n");
        return 0;
}
