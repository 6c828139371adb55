/* test.h — the assertion macros the C tests share: each failure prints
 * file, line, the expression and (for numbers) both values.  CHECK* stop the
 * test at the first failure; EXPECT* count it in test_failures and go on, so
 * one run reports every broken case (main returns test_failures != 0). */
#ifndef BENCHWATCH_TEST_H
#define BENCHWATCH_TEST_H

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond) do { if (!(cond)) { \
        fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        exit(1); } } while (0)
#define CHECK_NEAR(a, b, rel) do { double a_ = (a), b_ = (b); \
        if (!(fabs(a_ - b_) <= (rel) * fabs(b_))) { \
        fprintf(stderr, "%s:%d: %s = %.9g, expected %.9g within %g%%\n", \
                __FILE__, __LINE__, #a, a_, b_, (rel) * 100); exit(1); } } while (0)
#define CHECK_STR_CONTAINS(s, sub) do { const char *s_ = (s); \
        if (!s_ || !strstr(s_, (sub))) { \
        fprintf(stderr, "%s:%d: '%s' does not contain '%s'\n", __FILE__, __LINE__, \
                s_ ? s_ : "(null)", (sub)); exit(1); } } while (0)

static unsigned test_failures __attribute__((unused));

#define EXPECT(cond) do { if (!(cond)) { \
        fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        test_failures++; } } while (0)
#define EXPECT_NEAR_ABS(a, b, tol) do { double a_ = (a), b_ = (b); \
        if (!(fabs(a_ - b_) <= (tol))) { \
        fprintf(stderr, "%s:%d: %s = %.9g, want %.9g (+-%g)\n", \
                __FILE__, __LINE__, #a, a_, b_, (double)(tol)); \
        test_failures++; } } while (0)

static inline int test_remove_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
        (void)st, (void)type, (void)f;
        return remove(path);
}

/* A test's scratch directory, removed with all it holds: 0, or -1 with errno
 * (what nftw and remove say; a missing directory is ENOENT). */
static inline int test_rm_tree(const char *dir)
{
        return nftw(dir, test_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
