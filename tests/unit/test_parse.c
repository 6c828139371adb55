/* test_parse.c — units and checked conversions: every spelling operators
 * write, and the ones that must be refused. */
#include <errno.h>
#include <locale.h>

#include "test.h"
#include "util/parse.h"

static double dur(const char *s)
{
        double v = -1;
        CHECK(parse_duration(s, &v) == 0);
        return v;
}

static int64_t size(const char *s)
{
        int64_t v = -1;
        CHECK(parse_size(s, &v) == 0);
        return v;
}

int main(void)
{
        double d;
        int64_t i;
        bool b;
        /* a locale with a decimal comma must not change what "1.5" means */
        setlocale(LC_ALL, "de_DE.UTF-8");
        CHECK(dur("500ms") == 0.5 && dur("2s") == 2 && dur("15min") == 900);
        CHECK(dur("1h") == 3600 && dur("30") == 30 && dur("1.5s") == 1.5);
        CHECK(dur("250us") == 250e-6 && dur("2m") == 120 && dur("1d") == 86400);
        CHECK(parse_duration("", &d) == -EINVAL && parse_duration("5 parsecs", &d) == -EINVAL);
        CHECK(parse_duration("-1s", &d) == -ERANGE && parse_duration("1e400", &d) == -ERANGE);
        CHECK(parse_duration("10S", &d) == -EINVAL && parse_duration(" 1s", &d) == -EINVAL);
        CHECK(size("16k") == 16384 && size("1M") == 1048576 && size("4G") == 4294967296);
        CHECK(size("512") == 512 && size("1.5k") == 1536 && size("2T") == 2199023255552);
        CHECK(size("16KiB") == 16384);
        CHECK(parse_size("1.5", &i) == -EINVAL && parse_size("16q", &i) == -EINVAL);
        CHECK(parse_size("99999999T", &i) == -ERANGE);
        CHECK(parse_int64("42", &i) == 0 && i == 42);
        CHECK(parse_int64("-7", &i) == 0 && i == -7);
        CHECK(parse_int64("4x", &i) == -EINVAL && parse_int64("", &i) == -EINVAL);
        CHECK(parse_int64("99999999999999999999", &i) == -ERANGE);
        CHECK(parse_double("0.25", &d) == 0 && d == 0.25);
        CHECK(parse_double("nan", &d) == -ERANGE && parse_double("1,5", &d) == -EINVAL);
        CHECK(parse_bool("yes", &b) == 0 && b && parse_bool("Off", &b) == 0 && !b);
        CHECK(parse_bool("maybe", &b) == -EINVAL);
        char buf[32];
        CHECK(!strcmp(format_duration(900, buf, sizeof(buf)), "15min"));
        CHECK(!strcmp(format_duration(0.5, buf, sizeof(buf)), "500ms"));
        CHECK(!strcmp(format_size(16384, buf, sizeof(buf)), "16k"));
        CHECK(!strcmp(format_size(1000, buf, sizeof(buf)), "1000"));
        CHECK(!strcmp(format_size(17179869184, buf, sizeof(buf)), "16G"));
        CHECK(!strcmp(format_duration(3600, buf, sizeof(buf)), "1h"));
        CHECK(!strcmp(format_duration(30 * 86400, buf, sizeof(buf)), "30d"));
        CHECK(!strcmp(format_duration(0.1, buf, sizeof(buf)), "100ms"));
        CHECK(!strcmp(format_tick(35000, false, buf, sizeof(buf)), "35k"));
        CHECK(!strcmp(format_tick(17500, false, buf, sizeof(buf)), "17.5k"));
        CHECK(!strcmp(format_tick(0.0225, true, buf, sizeof(buf)), "22.5 ms"));
        CHECK(!strcmp(format_tick(0.0005, true, buf, sizeof(buf)), "500 \u00b5s"));
        CHECK(!strcmp(format_tick(0, true, buf, sizeof(buf)), "0"));
        CHECK(!strcmp(format_tick(100, false, buf, sizeof(buf)), "100"));
        printf("test_parse: ok\n");
        return 0;
}
