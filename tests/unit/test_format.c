/* test_format.c — numbers for people: the spellings parse.h reads back,
 * and figures in people's units with three significant digits. */
#include "test.h"
#include "util/format.h"
#include "util/parse.h"

int main(void)
{
        char buf[32];
        double d;
        int64_t i;
        CHECK(!strcmp(format_duration(900, buf, sizeof(buf)), "15min"));
        CHECK(!strcmp(format_duration(0.5, buf, sizeof(buf)), "500ms"));
        CHECK(!strcmp(format_size(16384, buf, sizeof(buf)), "16k"));
        CHECK(!strcmp(format_size(1000, buf, sizeof(buf)), "1000"));
        CHECK(!strcmp(format_size(17179869184, buf, sizeof(buf)), "16G"));
        CHECK(!strcmp(format_duration(3600, buf, sizeof(buf)), "1h"));
        CHECK(!strcmp(format_duration(30 * 86400, buf, sizeof(buf)), "30d"));
        CHECK(!strcmp(format_duration(0.1, buf, sizeof(buf)), "100ms"));
        /* an estimate: rounded to its largest unit, as status, verify and
         * the journal all say when the first verdict is due */
        CHECK(!strcmp(format_duration_about(17010, buf, sizeof(buf)), "5h"));
        CHECK(!strcmp(format_duration_about(16200, buf, sizeof(buf)), "5h"));
        CHECK(!strcmp(format_duration_about(4000, buf, sizeof(buf)), "67min"));
        CHECK(!strcmp(format_duration_about(95.4, buf, sizeof(buf)), "95s"));
        CHECK(!strcmp(format_duration_about(3 * 86400 + 100, buf, sizeof(buf)), "3d"));
        CHECK(!strcmp(format_tick(35000, false, buf, sizeof(buf)), "35k"));
        CHECK(!strcmp(format_tick(17500, false, buf, sizeof(buf)), "17.5k"));
        CHECK(!strcmp(format_tick(0.0225, true, buf, sizeof(buf)), "22.5 ms"));
        CHECK(!strcmp(format_tick(0.0005, true, buf, sizeof(buf)), "500 \u00b5s"));
        CHECK(!strcmp(format_tick(0, true, buf, sizeof(buf)), "0"));
        CHECK(!strcmp(format_tick(100, false, buf, sizeof(buf)), "100"));
        /* what format_duration and format_size write, parse reads back */
        CHECK(parse_duration(format_duration(0.25, buf, sizeof(buf)), &d) == 0 && d == 0.25);
        CHECK(parse_size(format_size(3 << 20, buf, sizeof(buf)), &i) == 0 && i == 3 << 20);
        CHECK(!strcmp(format_quantity(6.45115e-05, true, buf, sizeof(buf)), "64.5 \u00b5s"));
        CHECK(!strcmp(format_quantity(0.0012, true, buf, sizeof(buf)), "1.20 ms"));
        CHECK(!strcmp(format_quantity(26215, false, buf, sizeof(buf)), "26.2k"));
        CHECK(!strcmp(format_quantity(812, false, buf, sizeof(buf)), "812"));
        CHECK(!strcmp(format_quantity(0.25, false, buf, sizeof(buf)), "0.25"));
        printf("test_format: ok\n");
        return 0;
}
