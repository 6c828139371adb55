/* test_sweep.c — the knee of a concurrency sweep: the best throughput whose
 * latency quantile stays under the target, or without a target the lowest
 * level within 5% of the best; a SAN's shape (IOPS flat after 40 threads
 * while latency climbs) must put the knee at 40. */
#include <stdio.h>
#include <unistd.h>

#include "cmd/sweep.h"
#include "test.h"

int main(void)
{
        /* threads, IOPS, p95 latency (s) — shaped like a SAN's sweep */
        static const char *const levels[] = { "10", "20", "30", "40", "50", "60", "100" };
        static const double iops[] = { 3100, 5200, 6700, 7340, 7390, 7400, 7380 };
        static const double p95[] = { 0.0040, 0.0052, 0.0071, 0.0092, 0.0121, 0.0150, 0.0260 };
        struct sweep_point pts[7];
        for (size_t i = 0; i < 7; i++)
                pts[i] = (struct sweep_point){ .level = levels[i], .ok = true,
                                               .throughput = iops[i], .quantile = p95[i],
                                               .p95 = p95[i] };
        /* no target: where more concurrency stops paying (within 5% of best) */
        CHECK(sweep_knee(pts, 7, 0) == 3);
        /* a 10 ms p95 target: the best IOPS that keeps it is at 40 threads */
        CHECK(sweep_knee(pts, 7, 0.010) == 3);
        /* a tighter target moves the knee down, a loose one up */
        CHECK(sweep_knee(pts, 7, 0.006) == 1);
        CHECK(sweep_knee(pts, 7, 0.020) == 5);
        /* nothing qualifies */
        CHECK(sweep_knee(pts, 7, 0.001) == -1);
        /* a failed level is never the knee */
        pts[3].ok = false;
        CHECK(sweep_knee(pts, 7, 0.010) == 2);
        pts[3].ok = true;

        char path[] = "/tmp/bwtest-sweep.XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        close(fd);
        CHECK(sweep_plot_svg(path, "sweep disk <root> & co", "threads", "iops", 0.95, pts, 7,
                             3) == 0);
        FILE *f = fopen(path, "r");
        char buf[16384];
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = 0;
        fclose(f);
        unlink(path);
        CHECK_STR_CONTAINS(buf, "<svg");
        CHECK_STR_CONTAINS(buf, "knee");
        CHECK_STR_CONTAINS(buf, "</svg>");
        /* ticks in the units people read: 7.5k IOPS, 30 ms, never 7500 or 3e+01 */
        CHECK_STR_CONTAINS(buf, ">7.5k</text>");
        CHECK_STR_CONTAINS(buf, ">30 ms</text>");
        CHECK_STR_CONTAINS(buf, "p95 latency</text>");
        CHECK(!strstr(buf, "e+0") && !strstr(buf, "e-0"));
        /* text a user gave is escaped as history's SVG escapes it, not dropped */
        CHECK_STR_CONTAINS(buf, ">sweep disk &lt;root&gt; &amp; co</text>");
        printf("test_sweep: ok\n");
        return 0;
}
