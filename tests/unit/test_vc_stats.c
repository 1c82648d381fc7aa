/* Tests of vc_stats: every expected value is derived here by hand or by a
 * formula independent of the implementation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "vc_stats.h"

#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-9 * (1 + fabs((double)(b))))

static void test_one_to_twenty(void **state)
{
    (void)state;
    int64_t v[20];
    for (int i = 0; i < 20; i++)
        v[i] = 20 - i; /* reversed: summarize must sort */
    vc_stats_summary_t s;
    vc_stats_summarize_i64(v, 20, &s);
    assert_int_equal(s.n, 20);
    for (int i = 0; i < 20; i++)
        assert_int_equal(v[i], i + 1);
    NEAR(s.min, 1);
    NEAR(s.max, 20);
    NEAR(s.mean, 10.5);
    NEAR(s.p50, 10.5);                 /* (10 + 11) / 2 */
    NEAR(s.sd, sqrt(20.0 * 21 / 12));  /* sd of 1..n is sqrt(n(n+1)/12) */
    NEAR(s.nr_p95, 20);                /* sorted[min(19, 19)] */
    NEAR(s.nr_p99, 20);
    NEAR(s.p95, 19.05);                /* h = 19*0.95 = 18.05 -> 19 + 0.05 */
    NEAR(s.p99, 19.81);                /* h = 18.81 */
    NEAR(s.p90, 18.1);
    assert_true(s.ci_ok);
    NEAR(s.ci_lo, 6);                  /* x_(6), x_(15) for n = 20 */
    NEAR(s.ci_hi, 15);
    /* 1 - 2 P(K <= 5), K ~ Bin(20, 1/2): (1+20+190+1140+4845+15504) / 2^20 */
    NEAR(s.ci_coverage, 1 - 2 * 21700.0 / 1048576.0);
}

static void test_nearest_rank_vs_interpolated(void **state)
{
    (void)state;
    double v[7] = {3.5, 1, 9, 2, 7, 4, 100};
    vc_stats_sort_f64(v, 7); /* 1 2 3.5 4 7 9 100 */
    NEAR(vc_stats_median_f64(v, 7), 4);
    NEAR(vc_stats_nearest_rank_f64(v, 7, 0.5), 4);   /* floor(3.5) = 3 */
    NEAR(vc_stats_nearest_rank_f64(v, 7, 0.95), 100); /* floor(6.65) = 6 */
    NEAR(vc_stats_nearest_rank_f64(v, 7, 0.80), 9);   /* floor(5.6) = 5 */
    NEAR(vc_stats_percentile_f64(v, 7, 0.80), 7 + 0.8 * 2); /* h = 4.8 */
    NEAR(vc_stats_percentile_f64(v, 7, 0), 1);
    NEAR(vc_stats_percentile_f64(v, 7, 1), 100);
    double mean = (1 + 2 + 3.5 + 4 + 7 + 9 + 100) / 7.0, ss = 0;
    for (int i = 0; i < 7; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    NEAR(vc_stats_mean_f64(v, 7), mean);
    NEAR(vc_stats_sd_f64(v, 7), sqrt(ss / 6));
}

static void test_empty_and_single(void **state)
{
    (void)state;
    double one = 42;
    assert_true(isnan(vc_stats_median_f64(NULL, 0)));
    assert_true(isnan(vc_stats_mean_f64(NULL, 0)));
    assert_true(isnan(vc_stats_percentile_f64(NULL, 0, 0.5)));
    assert_true(isnan(vc_stats_sd_f64(&one, 1)));
    NEAR(vc_stats_median_f64(&one, 1), 42);
    NEAR(vc_stats_nearest_rank_f64(&one, 1, 0.99), 42);
    NEAR(vc_stats_percentile_f64(&one, 1, 0.99), 42);
    vc_stats_summary_t s;
    vc_stats_summarize_f64(NULL, 0, &s);
    assert_int_equal(s.n, 0);
    assert_false(s.ci_ok);
    assert_true(isnan(s.p50));
}

static void test_too_small(void **state)
{
    (void)state;
    assert_true(vc_stats_too_small(20, 0.99));  /* p99 of 20 runs is the max */
    assert_true(vc_stats_too_small(20, 0.95));  /* so is p95: floor(19) = n - 1 */
    assert_false(vc_stats_too_small(21, 0.95)); /* floor(19.95) = 19 < 20 */
    assert_true(vc_stats_too_small(100, 0.99));
    assert_false(vc_stats_too_small(101, 0.99));
    assert_false(vc_stats_too_small(2, 0.5));
    assert_true(vc_stats_too_small(0, 0.5));
    assert_int_equal(vc_stats_min_n(0.95), 21);
    assert_int_equal(vc_stats_min_n(0.99), 101);
    /* consistent with the nearest-rank rule: too small <=> the pick is the last */
    for (size_t n = 1; n < 300; n++) {
        size_t i = (size_t)floor(0.99 * (double)n);
        assert_int_equal(vc_stats_too_small(n, 0.99), i >= n - 1);
    }
}

static void test_median_ci_small_n(void **state)
{
    (void)state;
    double cov;
    assert_int_equal(vc_stats_median_ci_rank(5, 0.95, &cov), 0); /* 1 - 2/32 < 0.95 */
    assert_int_equal(vc_stats_median_ci_rank(6, 0.95, &cov), 1);
    NEAR(cov, 1 - 2.0 / 64);
    int64_t v[5] = {1, 2, 3, 4, 5};
    double lo, hi;
    assert_int_equal(vc_stats_median_ci_i64(v, 5, 0.95, &lo, &hi, NULL), 0);
    assert_true(isnan(lo) && isnan(hi));
}

/* Exact rank by summing the binomial directly with long double, for
 * comparison with the implementation's log-space walk and normal tail. */
static size_t exact_rank(size_t n)
{
    long double lp = -(long double)n * logl(2.0L), cdf = 0;
    size_t l = 0;
    for (size_t k = 0; k < n; k++) {
        cdf += expl(lp);
        if (cdf > 0.025L)
            break;
        l = k + 1;
        lp += logl((long double)(n - k)) - logl((long double)(k + 1));
    }
    return l;
}

static void test_median_ci_large_n(void **state)
{
    (void)state;
    size_t ns[] = {7, 50, 999, 4000, 5000};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        assert_int_equal(vc_stats_median_ci_rank(ns[i], 0.95, NULL), exact_rank(ns[i]));
    /* Above 5000 the normal approximation is within one rank of exact. */
    size_t big[] = {5001, 12000, 40000};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        long r = (long)vc_stats_median_ci_rank(big[i], 0.95, NULL);
        long e = (long)exact_rank(big[i]);
        assert_true(labs(r - e) <= 1);
    }
    double cov;
    size_t l = vc_stats_median_ci_rank(10000000, 0.95, &cov);
    assert_true(l > 4990000 && l < 5000000);
    assert_true(cov >= 0.95 && cov < 0.951);
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void test_sort_i64_matches_qsort(void **state)
{
    (void)state;
    size_t n = 100000;
    int64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        a[i] = (i % 3 == 0) ? -(int64_t)(x % 1000000007) : (int64_t)(x >> 1);
        if (i % 101 == 0)
            a[i] = INT64_MIN;
        b[i] = a[i];
    }
    vc_stats_sort_i64(a, n);
    qsort(b, n, sizeof *b, cmp64);
    for (size_t i = 0; i < n; i++)
        assert_true(a[i] == b[i]);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_to_twenty),
        cmocka_unit_test(test_nearest_rank_vs_interpolated),
        cmocka_unit_test(test_empty_and_single),
        cmocka_unit_test(test_too_small),
        cmocka_unit_test(test_median_ci_small_n),
        cmocka_unit_test(test_median_ci_large_n),
        cmocka_unit_test(test_sort_i64_matches_qsort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
