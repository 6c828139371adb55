/* hist.h — latency histogram with a bounded relative error.
 *
 * Log-linear buckets (HdrHistogram's idea): values are nanoseconds; below 128
 * every value has its own bucket, above that each power of two is split into
 * 64 buckets, so a bucket is never wider than 1/64 of its lower edge and the
 * bucket midpoint reported for a quantile is within 0.8% of any value in it,
 * from 1 ns to centuries.  Recording is a count-leading-zeros and an add, so
 * it costs nothing next to the I/O, request or event being timed; one
 * histogram per thread, merged at the end, avoids sharing cache lines.
 *
 * Part of the plugin ABI (plugin.h): plugins record into a struct bw_hist
 * inline and pass it to the core, so a change to the struct or to the
 * bucket layout must change its size or bump BW_PLUGIN_ABI_VERSION; the
 * loader refuses a plugin built with another sizeof(struct bw_hist). */
#ifndef BENCHWATCH_HIST_H
#define BENCHWATCH_HIST_H

#include <stdint.h>

#define BW_HIST_SUB_BITS 6
#define BW_HIST_BUCKETS ((64 - BW_HIST_SUB_BITS) * (1 << BW_HIST_SUB_BITS))

struct bw_hist {
        uint64_t count;
        uint64_t sum_ns;
        uint64_t min_ns;
        uint64_t max_ns;
        uint64_t buckets[BW_HIST_BUCKETS];
};

void bw_hist_init(struct bw_hist *h);
unsigned bw_hist_bucket(uint64_t ns);
uint64_t bw_hist_bucket_low(unsigned idx);
uint64_t bw_hist_bucket_high(unsigned idx); /* inclusive */

static inline void bw_hist_record(struct bw_hist *h, uint64_t ns)
{
        h->buckets[bw_hist_bucket(ns)]++;
        h->count++;
        h->sum_ns += ns;
        if (ns < h->min_ns)
                h->min_ns = ns;
        if (ns > h->max_ns)
                h->max_ns = ns;
}

void bw_hist_merge(struct bw_hist *into, const struct bw_hist *from);
/* q in [0,1]; the value (ns) at or below which a share q of samples lie,
 * with bw_hist relative error; q == 1 is the exact maximum. 0 when empty. */
double bw_hist_quantile_ns(const struct bw_hist *h, double q);
double bw_hist_mean_ns(const struct bw_hist *h);

#endif
