/* test.h — the few assertion macros the C unit tests share: each failure
 * prints file, line, the expression and (for numbers) both values. */
#ifndef BENCHWATCH_TEST_H
#define BENCHWATCH_TEST_H

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

#endif
