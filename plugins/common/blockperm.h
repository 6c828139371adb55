/* blockperm.h — block numbers in random order, every block once a pass,
 * as fio's random map draws them by default.
 *
 * fio's randread (without --norandommap) reads each block of the file once
 * before it reads any block again, then starts a new pass in a new order.
 * Drawing offsets independently (with replacement) reads some blocks two or
 * more times within a pass and leaves others out: a cache that holds part
 * of the file (the host's page cache under a virtual disk, a controller's
 * or a SAN's cache) then serves more of the reads, and the IOPS are more
 * than the device gives fio (measured: docs/reports/benchmarks.md).
 *
 * A pass is a keyed bijection of the smallest power-of-two range that holds
 * the blocks (an add, then multiply and xor-shift rounds, each invertible
 * modulo 2^k) applied to a counter; values past the last block are skipped
 * (under two draws per block on average).  No map, O(1) memory, a new key
 * each pass.  Header-only: the disk plugin calls it once per I/O. */
#ifndef BENCHWATCH_BLOCKPERM_H
#define BENCHWATCH_BLOCKPERM_H

#include <stdint.h>

#include "sbrand.h"

struct blockperm {
        uint64_t n;         /* blocks */
        uint64_t mask;      /* 2^k - 1, the smallest >= n - 1 */
        unsigned shift;     /* of the xor-shifts: about k / 2, at least 1 */
        uint64_t pos;       /* counter within the pass, 0 .. mask */
        uint64_t add, mul[2]; /* this pass's key (multipliers odd) */
        uint64_t seed;      /* splitmix64 state for the next keys */
};

static inline void blockperm_rekey(struct blockperm *p)
{
        p->add = sb_splitmix64(&p->seed);
        p->mul[0] = sb_splitmix64(&p->seed) | 1;
        p->mul[1] = sb_splitmix64(&p->seed) | 1;
        p->pos = 0;
}

/* 1 <= n <= 2^63 blocks; seed picks the orders of all the passes. */
static inline void blockperm_init(struct blockperm *p, uint64_t n, uint64_t seed)
{
        unsigned k = 0;
        while ((n - 1) >> k)
                k++;
        p->n = n;
        p->mask = (UINT64_C(1) << k) - 1;
        p->shift = k > 1 ? (k + 1) / 2 : 1;
        p->seed = seed;
        blockperm_rekey(p);
}

/* The pass's bijection of 0 .. mask. */
static inline uint64_t blockperm_mix(const struct blockperm *p, uint64_t x)
{
        x = (x + p->add) & p->mask;
        x = (x * p->mul[0]) & p->mask;
        x ^= x >> p->shift;
        x = (x * p->mul[1]) & p->mask;
        x ^= x >> p->shift;
        return x;
}

/* The next block, 0 .. n - 1. */
static inline uint64_t blockperm_next(struct blockperm *p)
{
        for (;;) {
                if (p->pos > p->mask)
                        blockperm_rekey(p);
                uint64_t b = blockperm_mix(p, p->pos++);
                if (b < p->n)
                        return b;
        }
}

#endif
