/* test_params.c — parameter validation against a declarative table: types,
 * ranges, enums, repeatable values, defaults and the error texts users see;
 * parameters that apply only with another's value, and plugins whose
 * `applies` is malformed. */
#include <errno.h>

#include "core/params.h"
#include "test.h"

static const char *const modes[] = { "read", "write", NULL };
static const struct bw_param_def defs[] = {
        { "threads", BW_PARAM_INT, "1", 1, 64, NULL, NULL, "threads", BW_PARAM_LABEL, NULL },
        { "ratio", BW_PARAM_DOUBLE, "0.7", 0, 1, NULL, NULL, "ratio", 0, NULL },
        { "direct", BW_PARAM_BOOL, "yes", 0, 0, NULL, NULL, "O_DIRECT", 0, NULL },
        { "mode", BW_PARAM_ENUM, "read", 0, 0, modes, NULL, "mode", 0, NULL },
        { "duration", BW_PARAM_DURATION, "10s", 0.001, 86400, NULL, "s", "time", 0, NULL },
        { "block_size", BW_PARAM_SIZE, "16k", 512, 1 << 30, NULL, "bytes", "bs", 0, NULL },
        { "header", BW_PARAM_STRING, "", 0, 0, NULL, NULL, "hdr", BW_PARAM_MULTI, NULL },
        { "url", BW_PARAM_STRING, "http://127.0.0.1/", 0, 0, NULL, NULL, "url", 0, NULL },
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
                { "n", BW_PARAM_INT, "ten", 0, 0, NULL, NULL, "", 0, NULL }, { .name = NULL },
        };
        CHECK(param_set_new(broken, &ps, &why) < 0);
        CHECK_STR_CONTAINS(why, "default of parameter 'n' is invalid");
        free(why);

        /* applies: rwmix only with mode=rw, fsync with write|rw */
        static const char *const rw[] = { "read", "write", "rw", NULL };
        static const struct bw_param_def cond[] = {
                { "mode", BW_PARAM_ENUM, "read", 0, 0, rw, NULL, "", BW_PARAM_LABEL, NULL },
                { "rwmix", BW_PARAM_INT, "50", 0, 100, NULL, NULL, "", BW_PARAM_LABEL, "mode=rw" },
                { "fsync", BW_PARAM_INT, "0", 0, 9, NULL, NULL, "", BW_PARAM_LABEL, "mode=write|rw" },
                { NULL },
        };
        CHECK(param_set_new(cond, &ps, &why) == 0);
        CHECK(param_applies(ps, 0) && !param_applies(ps, 1) && !param_applies(ps, 2));
        CHECK(param_set_assign_kv(ps, "mode=write", &why) == 0);
        CHECK(!param_applies(ps, 1) && param_applies(ps, 2));
        CHECK(param_set_assign_kv(ps, "mode=rw", &why) == 0);
        CHECK(param_applies(ps, 1) && param_applies(ps, 2));
        param_set_free(ps);
        static const struct bw_param_def bad_name[] = {
                { "x", BW_PARAM_INT, "1", 0, 9, NULL, NULL, "", 0, "mood=rw" }, { NULL },
        };
        CHECK(param_set_new(bad_name, &ps, &why) < 0);
        CHECK_STR_CONTAINS(why, "parameter 'x': applies 'mood=rw' does not name another parameter");
        free(why);
        static const struct bw_param_def bad_choice[] = {
                { "mode", BW_PARAM_ENUM, "read", 0, 0, rw, NULL, "", 0, NULL },
                { "x", BW_PARAM_INT, "1", 0, 9, NULL, NULL, "", 0, "mode=rw|randrw" }, { NULL },
        };
        CHECK(param_set_new(bad_choice, &ps, &why) < 0);
        CHECK_STR_CONTAINS(why, "'randrw' is not a choice of 'mode'");
        free(why);
        printf("test_params: ok\n");
        return 0;
}
