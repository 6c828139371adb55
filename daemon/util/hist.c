/* hist.c — see hist.h for why the buckets look like this. */
#include "util/hist.h"

#include <math.h>
#include <string.h>

#define SUB (1u << BW_HIST_SUB_BITS)

void bw_hist_init(struct bw_hist *h)
{
        memset(h, 0, sizeof(*h));
        h->min_ns = UINT64_MAX;
}

unsigned bw_hist_bucket(uint64_t ns)
{
        if (ns < 2 * SUB)
                return (unsigned)ns;
        if (ns >> 63)
                ns = INT64_MAX; /* the last bucket holds the rest */
        unsigned msb = 63u - (unsigned)__builtin_clzll(ns);
        unsigned shift = msb - BW_HIST_SUB_BITS;
        return shift * SUB + (unsigned)(ns >> shift);
}

uint64_t bw_hist_bucket_low(unsigned idx)
{
        if (idx < 2 * SUB)
                return idx;
        unsigned shift = idx / SUB - 1;
        return (uint64_t)(idx - shift * SUB) << shift;
}

uint64_t bw_hist_bucket_high(unsigned idx)
{
        if (idx < 2 * SUB)
                return idx;
        unsigned shift = idx / SUB - 1;
        return bw_hist_bucket_low(idx) + ((uint64_t)1 << shift) - 1;
}

void bw_hist_merge(struct bw_hist *into, const struct bw_hist *from)
{
        if (!from->count)
                return;
        for (unsigned i = 0; i < BW_HIST_BUCKETS; i++)
                into->buckets[i] += from->buckets[i];
        into->count += from->count;
        into->sum_ns += from->sum_ns;
        if (from->min_ns < into->min_ns)
                into->min_ns = from->min_ns;
        if (from->max_ns > into->max_ns)
                into->max_ns = from->max_ns;
}

double bw_hist_quantile_ns(const struct bw_hist *h, double q)
{
        if (!h->count)
                return 0;
        if (q >= 1)
                return (double)h->max_ns;
        if (q <= 0)
                return (double)h->min_ns;
        uint64_t rank = (uint64_t)ceil(q * (double)h->count), seen = 0;
        if (rank == 0)
                rank = 1;
        for (unsigned i = 0; i < BW_HIST_BUCKETS; i++) {
                seen += h->buckets[i];
                if (seen < rank)
                        continue;
                double mid = ((double)bw_hist_bucket_low(i) +
                              (double)bw_hist_bucket_high(i)) / 2;
                if (mid < (double)h->min_ns)
                        mid = (double)h->min_ns;
                if (mid > (double)h->max_ns)
                        mid = (double)h->max_ns;
                return mid;
        }
        return (double)h->max_ns;
}

double bw_hist_mean_ns(const struct bw_hist *h)
{
        return h->count ? (double)h->sum_ns / (double)h->count : 0;
}
