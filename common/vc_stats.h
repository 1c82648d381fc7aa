/* vc_stats: the statistics of a set of durations or values (design.md,
 * "Statistics"). Pure functions over arrays: sort once, then read
 * percentiles off the sorted array.
 *
 * Two percentile rules exist on purpose:
 *  - nearest rank as the seed benchmarks compute it, sorted[min(floor(q*n), n-1)],
 *    used by the seed-format tables so they reproduce the originals exactly;
 *  - linear interpolation between order statistics (Hyndman & Fan type 7, the
 *    default of R, NumPy and Excel's PERCENTILE.INC), used by the "better
 *    statistics" sections.
 * The median is the usual one (mean of the two middle values for even n),
 * which is also the type-7 0.5 quantile.
 *
 * Every function exists for double (_f64) and int64_t (_i64) arrays; results
 * are doubles. Functions on empty input return NAN. */
#ifndef VC_STATS_H
#define VC_STATS_H

#include <stddef.h>
#include <stdint.h>

void vc_stats_sort_f64(double *v, size_t n);
void vc_stats_sort_i64(int64_t *v, size_t n);

/* On any order of the values. sd is the sample standard deviation (n - 1
 * in the denominator), NAN for n < 2. */
double vc_stats_mean_f64(const double *v, size_t n);
double vc_stats_mean_i64(const int64_t *v, size_t n);
double vc_stats_sd_f64(const double *v, size_t n);
double vc_stats_sd_i64(const int64_t *v, size_t n);

/* The functions below want a sorted array. q is in [0, 1]. */
double vc_stats_median_f64(const double *sorted, size_t n);
double vc_stats_median_i64(const int64_t *sorted, size_t n);
/* The seeds' rule: sorted[min(floor(q*n), n-1)]. */
double vc_stats_nearest_rank_f64(const double *sorted, size_t n, double q);
double vc_stats_nearest_rank_i64(const int64_t *sorted, size_t n, double q);
/* Linear interpolation (type 7): h = (n-1)q, sorted[floor h] + frac(h) * (next - it). */
double vc_stats_percentile_f64(const double *sorted, size_t n, double q);
double vc_stats_percentile_i64(const int64_t *sorted, size_t n, double q);

/* A distribution-free confidence interval for the median from order
 * statistics: the narrowest symmetric pair (x_(l), x_(n-l+1)) whose binomial
 * coverage P(l <= K <= n-l), K ~ Bin(n, 1/2), is at least `level` (0.95).
 * Exact binomial up to n = 5000, normal approximation above.
 * Returns 1 and fills lo, hi (and *coverage if not NULL) when n is large
 * enough, 0 when it is not (n < 6 for 95%). */
int vc_stats_median_ci_f64(const double *sorted, size_t n, double level, double *lo,
                           double *hi, double *coverage);
int vc_stats_median_ci_i64(const int64_t *sorted, size_t n, double level, double *lo,
                           double *hi, double *coverage);
/* The 1-based rank l of the lower bound (the upper is n - l + 1), 0 when n is
 * too small; *coverage gets the exact coverage when not NULL. */
size_t vc_stats_median_ci_rank(size_t n, double level, double *coverage);

/* 1 when n samples are too few for the q-quantile to mean anything: under
 * the nearest-rank rule it is then the maximum (n <= 1/(1-q); p99 of 20
 * runs, p95 of 20 runs). 0 otherwise. */
int vc_stats_too_small(size_t n, double q);
/* The smallest n for which vc_stats_too_small(n, q) is 0. */
size_t vc_stats_min_n(double q);

/* All of the above at once, for reports. */
typedef struct {
    size_t n;
    double min, max, mean, sd;
    double p50;                  /* median */
    double nr_p95, nr_p99;       /* nearest rank (seeds) */
    double p90, p95, p99;        /* interpolated */
    int ci_ok;                   /* the median CI below is meaningful */
    double ci_lo, ci_hi, ci_coverage;
} vc_stats_summary_t;

/* Sorts v in place and fills *out (fields NAN where n is too small). */
void vc_stats_summarize_i64(int64_t *v, size_t n, vc_stats_summary_t *out);
void vc_stats_summarize_f64(double *v, size_t n, vc_stats_summary_t *out);

#endif
