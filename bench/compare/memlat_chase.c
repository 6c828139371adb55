/* memlat_chase.c — bench/compare/memlat.sh's reference, sharing no code
 * with benchwatch's memory plugin.
 * chase BYTES STRIDE MS: ns per dependent load over a random cycle of
 * BYTES/STRIDE lines; median of 7 laps of MS/7 milliseconds each. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double seconds(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t state = 0x2545F4914F6CDD1DULL;
static uint64_t xorshift64(void)
{
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
}

static int by_value(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

#define HOP p = (char **)*p;
#define HOP8 HOP HOP HOP HOP HOP HOP HOP HOP

int main(int argc, char **argv)
{
        if (argc != 4)
                return 2;
        size_t bytes = strtoull(argv[1], NULL, 10);
        size_t stride = strtoull(argv[2], NULL, 10);
        double lap = atof(argv[3]) / 1e3 / 7;
        size_t lines = bytes / stride, two_mb = (size_t)2 << 20;
        char *raw = mmap(NULL, bytes + two_mb, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED || lines < 2)
                return 1;
        char *base = (char *)(((uintptr_t)raw + two_mb - 1) & ~(uintptr_t)(two_mb - 1));
        madvise(base, bytes, MADV_HUGEPAGE);
        memset(base, 0, bytes);
        uint32_t *order = malloc(lines * sizeof(*order));
        if (!order)
                return 1;
        for (size_t i = 0; i < lines; i++)
                order[i] = (uint32_t)i;
        for (size_t i = lines - 1; i > 0; i--) {
                size_t j = xorshift64() % (i + 1);
                uint32_t t = order[i];
                order[i] = order[j];
                order[j] = t;
        }
        for (size_t k = 0; k < lines; k++)
                *(char **)(base + (size_t)order[k] * stride) =
                        base + (size_t)order[(k + 1) % lines] * stride;
        char **p = (char **)(base + (size_t)order[0] * stride);
        free(order);
        for (size_t k = 0; k < lines; k++) /* warm up: one lap */
                p = (char **)*p;
        double ns[7];
        for (int r = 0; r < 7; r++) {
                uint64_t n = 0;
                double t0 = seconds(), t;
                do {
                        for (int k = 0; k < 512; k++) {
                                HOP8
                        }
                        n += 4096;
                        t = seconds();
                } while (t - t0 < lap);
                ns[r] = (t - t0) * 1e9 / (double)n;
        }
        qsort(ns, 7, sizeof(ns[0]), by_value);
        printf("%.4f%s\n", ns[3], p ? "" : " ");
        return 0;
}
