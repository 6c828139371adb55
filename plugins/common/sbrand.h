/* sbrand.h — random numbers as sysbench draws them, one copy for every
 * plugin.
 *
 * sysbench 1.0 (sb_rand.c) draws from xoroshiro128+ with the generator's
 * 2016 constants (rotate 55, shift 14, rotate 36: Debian's sysbench 1.0.20
 * binary rotates right by 9 and 28, which is the same) and maps a draw to
 * [0, 1) by putting its top 52 bits into the mantissa of a double in
 * [1, 2) and subtracting 1 (sb_rand_uniform_double()).  splitmix64 seeds
 * it and makes test data: incompressible, cheap, and the same everywhere.
 * Header-only: the plugins' inner loops call these per word. */
#ifndef BENCHWATCH_SBRAND_H
#define BENCHWATCH_SBRAND_H

#include <stdint.h>

static inline uint64_t sb_rotl(uint64_t x, int k)
{
        return (x << k) | (x >> (64 - k));
}

/* sysbench's xoroshiro_next(). */
static inline uint64_t sb_xoroshiro_next(uint64_t s[2])
{
        uint64_t s0 = s[0], s1 = s[1], result = s0 + s1;

        s1 ^= s0;
        s[0] = sb_rotl(s0, 55) ^ s1 ^ (s1 << 14);
        s[1] = sb_rotl(s1, 36);
        return result;
}

/* sysbench's sb_rand_uniform_double(): [0, 1). */
static inline double sb_uniform_double(uint64_t s[2])
{
        union { uint64_t i; double d; } u;

        u.i = UINT64_C(0x3FF) << 52 | sb_xoroshiro_next(s) >> 12;
        return u.d - 1.0;
}

/* splitmix64: the next value of the sequence whose state is *x. */
static inline uint64_t sb_splitmix64(uint64_t *x)
{
        uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));

        z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
        return z ^ (z >> 31);
}

/* A xoroshiro state from one 64-bit seed, as the generator's authors
 * advise (never all zero). */
static inline void sb_seed(uint64_t s[2], uint64_t seed)
{
        s[0] = sb_splitmix64(&seed);
        s[1] = sb_splitmix64(&seed);
        if (!s[0] && !s[1])
                s[1] = 1;
}

#endif
