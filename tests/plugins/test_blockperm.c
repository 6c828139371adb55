/* test_blockperm.c — the disk plugin's random map (plugins/common/blockperm.h):
 * every pass reads every block exactly once, passes come in different
 * orders, and the order is scattered over the file, not a walk. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/test.h"
#include "common/blockperm.h"

/* Three passes over n blocks: each holds every block once. */
static void check_passes(uint64_t n, uint64_t seed)
{
        struct blockperm p;
        uint8_t *seen = calloc(n, 1);
        uint64_t *first = calloc(n, sizeof(*first));
        uint64_t same = 0;
        CHECK(seen && first);
        blockperm_init(&p, n, seed);
        for (int pass = 0; pass < 3; pass++) {
                memset(seen, 0, n);
                for (uint64_t i = 0; i < n; i++) {
                        uint64_t b = blockperm_next(&p);
                        CHECK(b < n);
                        CHECK(!seen[b]);
                        seen[b] = 1;
                        if (pass == 0)
                                first[i] = b;
                        else if (pass == 1)
                                same += first[i] == b;
                }
        }
        /* the second pass is a new order (not a repeat of the first) */
        if (n >= 16)
                CHECK(same < n / 4);
        free(seen);
        free(first);
}

/* The first sixteenth of a pass lands evenly on the file's sixteenths,
 * and next blocks are rarely neighbours (not a sequential walk). */
static void check_scatter(uint64_t n, uint64_t seed)
{
        struct blockperm p;
        uint64_t bins[16] = { 0 }, near = 0, prev = 0, draws = n / 16;
        blockperm_init(&p, n, seed);
        for (uint64_t i = 0; i < draws; i++) {
                uint64_t b = blockperm_next(&p);
                bins[b * 16 / n]++;
                if (i && (b == prev + 1 || b + 1 == prev))
                        near++;
                prev = b;
        }
        for (int i = 0; i < 16; i++) {
                CHECK(bins[i] * 16 > draws * 8 / 10);
                CHECK(bins[i] * 16 < draws * 12 / 10);
        }
        CHECK(near * 100 < draws);
}

int main(void)
{
        static const uint64_t sizes[] = { 1, 2, 3, 5, 8, 64, 65, 1000, 4096,
                                          65536, 100003 };
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
                for (uint64_t seed = 1; seed < 4; seed++)
                        check_passes(sizes[i], seed * 0x9e3779b97f4a7c15u);
        check_scatter(65536, 42);
        check_scatter(1 << 20, 7);
        check_scatter(100003, 3);
        /* a different seed, a different order */
        struct blockperm a, b;
        unsigned same = 0;
        blockperm_init(&a, 65536, 1);
        blockperm_init(&b, 65536, 2);
        for (int i = 0; i < 1000; i++)
                same += blockperm_next(&a) == blockperm_next(&b);
        CHECK(same < 10);
        fprintf(stderr, "test_blockperm: all passed\n");
        return 0;
}
