/* vc_stats: statistics over sorted arrays of durations or values. */
#include "vc_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_f64(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void vc_stats_sort_f64(double *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_f64);
}

/* Reports sort millions of durations per group: an LSD radix sort on the
 * bytes that actually vary is several times faster than qsort there. */
void vc_stats_sort_i64(int64_t *v, size_t n)
{
    if (n < 256) {
        if (n > 1)
            qsort(v, n, sizeof *v, cmp_i64);
        return;
    }
    uint64_t *a = (uint64_t *)v, *tmp = malloc(n * sizeof *tmp);
    if (!tmp) {
        qsort(v, n, sizeof *v, cmp_i64);
        return;
    }
    const uint64_t flip = UINT64_C(1) << 63; /* signed order as unsigned */
    uint64_t all_or = 0, all_and = ~UINT64_C(0);
    for (size_t i = 0; i < n; i++) {
        a[i] ^= flip;
        all_or |= a[i];
        all_and &= a[i];
    }
    uint64_t *src = a, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        if ((((all_or ^ all_and) >> shift) & 0xff) == 0)
            continue; /* every value has the same byte here */
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((src[i] >> shift) & 0xff) + 1]++;
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & 0xff]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    for (size_t i = 0; i < n; i++)
        a[i] ^= flip;
    free(tmp);
}

/* Standard normal upper tail P(Z > z). */
static double normal_upper(double z)
{
    return 0.5 * erfc(z / sqrt(2.0));
}

size_t vc_stats_median_ci_rank(size_t n, double level, double *coverage)
{
    if (n == 0 || !(level > 0 && level < 1))
        return 0;
    double alpha_half = (1 - level) / 2;
    size_t l = 0;
    double tail = 0; /* P(K <= l - 1) for the chosen l */
    if (n <= 5000) {
        /* Walk the binomial CDF from 0 in log space so that 2^-n does not
         * underflow before the terms that matter. */
        double lp = -(double)n * log(2.0), cdf = 0;
        for (size_t k = 0; k < n; k++) {
            cdf += exp(lp);
            if (cdf > alpha_half * (1 + 1e-12))
                break;
            l = k + 1; /* P(K <= k) <= alpha/2: x_(k+1) is a valid lower bound */
            tail = cdf;
            lp += log((double)(n - k)) - log((double)(k + 1));
        }
    } else {
        /* K ~ N(n/2, n/4) with continuity correction; z by bisection. */
        double zlo = 0, zhi = 40;
        for (int i = 0; i < 200; i++) {
            double mid = (zlo + zhi) / 2;
            if (normal_upper(mid) > alpha_half)
                zlo = mid;
            else
                zhi = mid;
        }
        double sd = sqrt((double)n) / 2;
        double k = floor((double)n / 2 - zhi * sd - 0.5); /* P(K <= k) <= alpha/2 */
        if (k >= 0) {
            l = (size_t)k + 1;
            tail = normal_upper(((double)n / 2 - (k + 0.5)) / sd);
        }
    }
    if (l == 0 || l > n - l + 1)
        return 0;
    if (coverage)
        *coverage = 1 - 2 * tail;
    return l;
}

int vc_stats_too_small(size_t n, double q)
{
    if (n == 0)
        return 1;
    if (q <= 0.5)
        return 0;
    return (double)n * (1 - q) <= 1 + 1e-9;
}

size_t vc_stats_min_n(double q)
{
    size_t n = 1;
    while (vc_stats_too_small(n, q) && n < ((size_t)1 << 40))
        n++;
    return n;
}

/* The typed functions, written once for double and int64_t. */
#define VC_STATS_DEFINE(SUF, T)                                                                   \
    double vc_stats_mean_##SUF(const T *v, size_t n)                                              \
    {                                                                                             \
        if (n == 0)                                                                               \
            return NAN;                                                                           \
        double sum = 0;                                                                           \
        for (size_t i = 0; i < n; i++)                                                            \
            sum += (double)v[i];                                                                  \
        return sum / (double)n;                                                                   \
    }                                                                                             \
    double vc_stats_sd_##SUF(const T *v, size_t n)                                                \
    {                                                                                             \
        if (n < 2)                                                                                \
            return NAN;                                                                           \
        double mean = vc_stats_mean_##SUF(v, n), ss = 0;                                          \
        for (size_t i = 0; i < n; i++) {                                                          \
            double d = (double)v[i] - mean;                                                       \
            ss += d * d;                                                                          \
        }                                                                                         \
        return sqrt(ss / (double)(n - 1));                                                        \
    }                                                                                             \
    double vc_stats_median_##SUF(const T *s, size_t n)                                            \
    {                                                                                             \
        if (n == 0)                                                                               \
            return NAN;                                                                           \
        if (n % 2)                                                                                \
            return (double)s[n / 2];                                                              \
        return ((double)s[n / 2 - 1] + (double)s[n / 2]) / 2;                                     \
    }                                                                                             \
    double vc_stats_nearest_rank_##SUF(const T *s, size_t n, double q)                            \
    {                                                                                             \
        if (n == 0 || !(q >= 0 && q <= 1))                                                        \
            return NAN;                                                                           \
        size_t i = (size_t)floor(q * (double)n);                                                  \
        return (double)s[i < n - 1 ? i : n - 1];                                                  \
    }                                                                                             \
    double vc_stats_percentile_##SUF(const T *s, size_t n, double q)                              \
    {                                                                                             \
        if (n == 0 || !(q >= 0 && q <= 1))                                                        \
            return NAN;                                                                           \
        double h = (double)(n - 1) * q;                                                           \
        size_t lo = (size_t)floor(h);                                                             \
        if (lo >= n - 1)                                                                          \
            return (double)s[n - 1];                                                              \
        return (double)s[lo] + (h - (double)lo) * ((double)s[lo + 1] - (double)s[lo]);            \
    }                                                                                             \
    int vc_stats_median_ci_##SUF(const T *s, size_t n, double level, double *lo, double *hi,      \
                                 double *coverage)                                                \
    {                                                                                             \
        size_t l = vc_stats_median_ci_rank(n, level, coverage);                                   \
        if (!l) {                                                                                 \
            *lo = *hi = NAN;                                                                      \
            return 0;                                                                             \
        }                                                                                         \
        *lo = (double)s[l - 1];                                                                   \
        *hi = (double)s[n - l];                                                                   \
        return 1;                                                                                 \
    }                                                                                             \
    void vc_stats_summarize_##SUF(T *v, size_t n, vc_stats_summary_t *o)                          \
    {                                                                                             \
        vc_stats_sort_##SUF(v, n);                                                                \
        o->n = n;                                                                                 \
        o->min = n ? (double)v[0] : NAN;                                                          \
        o->max = n ? (double)v[n - 1] : NAN;                                                      \
        o->mean = vc_stats_mean_##SUF(v, n);                                                      \
        o->sd = vc_stats_sd_##SUF(v, n);                                                          \
        o->p50 = vc_stats_median_##SUF(v, n);                                                     \
        o->nr_p95 = vc_stats_nearest_rank_##SUF(v, n, 0.95);                                      \
        o->nr_p99 = vc_stats_nearest_rank_##SUF(v, n, 0.99);                                      \
        o->p90 = vc_stats_percentile_##SUF(v, n, 0.90);                                           \
        o->p95 = vc_stats_percentile_##SUF(v, n, 0.95);                                           \
        o->p99 = vc_stats_percentile_##SUF(v, n, 0.99);                                           \
        o->ci_coverage = NAN;                                                                     \
        o->ci_ok = vc_stats_median_ci_##SUF(v, n, 0.95, &o->ci_lo, &o->ci_hi, &o->ci_coverage);  \
    }

VC_STATS_DEFINE(f64, double)
VC_STATS_DEFINE(i64, int64_t)
