/* test_hist.c — the latency histogram: bucket geometry, the 1% error bound
 * on every quantile from 1 us to 100 s for known distributions, merging
 * across threads, and the edges (empty, one sample, huge values). */
#include <stdint.h>

#include "test.h"
#include "util/hist.h"

static uint64_t rng = 88172645463325252ull;
static double uniform(void)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return (double)(rng >> 11) / 9007199254740992.0;
}

static int cmp(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return x < y ? -1 : x > y;
}

static void test_geometry(void)
{
        for (unsigned i = 0; i < BW_HIST_BUCKETS; i++) {
                uint64_t lo = bw_hist_bucket_low(i), hi = bw_hist_bucket_high(i);
                CHECK(bw_hist_bucket(lo) == i && bw_hist_bucket(hi) == i);
                if (i + 1 < BW_HIST_BUCKETS)
                        CHECK(bw_hist_bucket_low(i + 1) == hi + 1);
                CHECK((double)(hi - lo) / 2 <= 0.008 * (double)(lo ? lo : 1));
        }
        CHECK(bw_hist_bucket(UINT64_MAX) == BW_HIST_BUCKETS - 1);
}

/* Exact quantile by the same rank definition: the ceil(q*n)-th smallest. */
static void check_distribution(const char *name, uint64_t *v, size_t n)
{
        static const double qs[] = { 0.01, 0.5, 0.9, 0.95, 0.99, 0.999 };
        struct bw_hist h;
        bw_hist_init(&h);
        for (size_t i = 0; i < n; i++)
                bw_hist_record(&h, v[i]);
        qsort(v, n, sizeof(*v), cmp);
        for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
                size_t rank = (size_t)ceil(qs[k] * (double)n);
                double exact = (double)v[rank - 1];
                double got = bw_hist_quantile_ns(&h, qs[k]);
                if (fabs(got - exact) > 0.01 * exact) {
                        fprintf(stderr, "%s q%g: got %.0f exact %.0f\n", name, qs[k], got, exact);
                        exit(1);
                }
        }
        CHECK(bw_hist_quantile_ns(&h, 1) == (double)v[n - 1]);
        CHECK(h.min_ns == v[0] && h.count == n);
}

static void test_distributions(void)
{
        size_t n = 200000;
        uint64_t *v = malloc(n * sizeof(*v));
        CHECK(v);
        /* log-uniform over 1 us .. 100 s: every decade of the range */
        for (size_t i = 0; i < n; i++)
                v[i] = (uint64_t)(1e3 * pow(1e8, uniform()));
        check_distribution("log-uniform 1us..100s", v, n);
        /* exponential around 5 ms, like disk latencies */
        for (size_t i = 0; i < n; i++)
                v[i] = (uint64_t)(-log(1 - uniform()) * 5e6) + 1000;
        check_distribution("exponential 5ms", v, n);
        /* bimodal: cache hits at 80 us, misses at 9 ms */
        for (size_t i = 0; i < n; i++)
                v[i] = (uint64_t)((uniform() < 0.9 ? 80e3 : 9e6) * (0.95 + 0.1 * uniform()));
        check_distribution("bimodal", v, n);
        free(v);
}

static void test_merge(void)
{
        struct bw_hist a, b, all;
        bw_hist_init(&a);
        bw_hist_init(&b);
        bw_hist_init(&all);
        for (uint64_t i = 1; i <= 10000; i++) {
                bw_hist_record(i % 2 ? &a : &b, i * 1000);
                bw_hist_record(&all, i * 1000);
        }
        bw_hist_merge(&a, &b);
        CHECK(memcmp(&a, &all, sizeof(a)) == 0);
        CHECK_NEAR(bw_hist_mean_ns(&a), 5000.5 * 1000, 1e-12);
        CHECK_NEAR(bw_hist_quantile_ns(&a, 0.5), 5000e3, 0.008);
}

static void test_edges(void)
{
        struct bw_hist h;
        bw_hist_init(&h);
        CHECK(bw_hist_quantile_ns(&h, 0.5) == 0 && bw_hist_mean_ns(&h) == 0);
        bw_hist_record(&h, 1234567);
        for (double q = 0.1; q <= 1; q += 0.1)
                CHECK(bw_hist_quantile_ns(&h, q) == 1234567);
        bw_hist_record(&h, UINT64_MAX);
        CHECK(h.max_ns == UINT64_MAX && h.buckets[BW_HIST_BUCKETS - 1] == 1);
}

int main(void)
{
        test_geometry();
        test_distributions();
        test_merge();
        test_edges();
        printf("test_hist: ok\n");
        return 0;
}
