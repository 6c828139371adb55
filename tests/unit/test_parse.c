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
        CHECK(parse_duration("0x10", &d) == -EINVAL && parse_duration("0X1p4s", &d) == -EINVAL);
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
        CHECK(parse_double("-0x1", &d) == -EINVAL && parse_double("0e1", &d) == 0 && d == 0);
        CHECK(parse_bool("yes", &b) == 0 && b && parse_bool("Off", &b) == 0 && !b);
        CHECK(parse_bool("maybe", &b) == -EINVAL);
        printf("test_parse: ok\n");
        return 0;
}
