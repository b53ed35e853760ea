/*
** gate_stats.h — the paired statistics of the regression gate: the
** one-sample Hodges-Lehmann shift of paired differences (the median of
** their Walsh averages) with its exact distribution-free interval from
** the Wilcoxon signed-rank distribution, and Student's t for the few
** pairs that have no such interval (fewer than 5 at 0.05).
**
** Pipeline position: read side (comparison and history), used by
** history.c's gate.  Nothing here touches the database or prints.
*/
#ifndef PROFAN_GATE_STATS_H
#define PROFAN_GATE_STATS_H

#include <stdint.h>

/* A shift with its confidence interval (the two-sample Hodges-Lehmann
** shift of history.h, the paired one here). */
typedef struct HistShift {
  double est;       /* the median of the differences (Walsh averages) */
  double lo, hi;    /* the interval; -inf/+inf when k is 0 */
  int64_t k;        /* differences trimmed at each end */
} HistShift;

/*
** P(W+ <= w) for the Wilcoxon signed-rank statistic of n pairs without
** ties or zeros under the null hypothesis: exact (the coefficients of
** prod_{i=1..n} (1 + q^i) / 2^n) for n <= HIST_SR_EXACT_MAX, else the
** normal approximation with continuity correction.  0 for w < 0.
*/
#define HIST_SR_EXACT_MAX 300
double history_sr_cdf(int n, double w);

/*
** The k of the paired interval: the largest k with P(W+ <= k - 1) <=
** alpha, so that [A(k), A(M + 1 - k)] of the M = n(n+1)/2 sorted Walsh
** averages covers the true shift with probability at least 1 - 2 alpha.
** 0 when no k qualifies (n < 5 at alpha 0.05).
*/
int64_t history_sr_k(int n, double alpha);

/*
** The k-th smallest (1-based, 1 <= k <= n(n+1)/2) Walsh average
** (d[i] + d[j]) / 2, i <= j, of d sorted ascending.  Bisection over the
** value with a counting pass: no n^2 array.
*/
double history_kth_walsh(const double *d, int n, int64_t k);

/* The p-quantile (0 < p < 1) of Student's t with df >= 1 degrees of
** freedom (the exact distribution function for integer df, inverted by
** bisection). */
double history_t_quantile(double p, int df);

/*
** The shift of paired differences d[0..n) (n >= 1; not modified): est
** the median of the Walsh averages; [lo, hi] their interval at level
** 1 - 2 alpha (k > 0), else, for n >= 2, mean -/+ t(1 - alpha, n - 1) s
** / sqrt(n) (k is then 0 and *pT set to 1), else -inf, +inf.  pT may be
** NULL.
*/
HistShift history_paired_shift(const double *d, int n, double alpha,
                               int *pT);

#endif
