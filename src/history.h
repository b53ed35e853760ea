/*
** history.h — comparison and history helpers: named baselines and the
** statistics of the regression gate (median, MAD, robust z-score,
** Mann-Whitney U with the normal approximation).
**
** Pipeline position: read side, used by cmd_history.c (`profan tag`,
** `baseline`, `diff`, `trend`, `check`).  Nothing here prints.
*/
#ifndef PROFAN_HISTORY_H
#define PROFAN_HISTORY_H

#include <sqlite3.h>
#include <stdint.h>
#include "util.h"

/*
** Resolve a baseline reference: a name set with `profan baseline set`,
** else anything runref_resolve() accepts (id, run name, "latest").
** Returns the run id, or -1 with pErr set.
*/
int64_t hist_resolve_baseline(sqlite3 *db, const char *zRef, PfError *pErr);

/*
** Median of the n values in a (n >= 1); a is sorted in place.  Returns
** NaN when n == 0.
*/
double hist_median(double *a, int n);

/*
** Median absolute deviation of the n values in a (unscaled); a is sorted
** in place and left sorted.  Returns NaN when n == 0.
*/
double hist_mad(double *a, int n);

/*
** Robust z-score of x against the n values in a: (x - median) /
** (1.4826 * MAD).  A MAD of 0 is raised to 1e-6 of |median| (or 1e-12),
** so any real difference from a constant history is a large z.  a is
** sorted in place.  Returns NaN when n == 0.
*/
double hist_robust_z(double x, double *a, int n);

/* Result of hist_mann_whitney(). */
typedef struct HistMw {
  double u;         /* U statistic of sample b (pairs where b > a, ties 0.5) */
  double z;         /* normal approximation, tie- and continuity-corrected */
  double p;         /* two-sided p-value; NaN when either sample is < 2 */
} HistMw;

/*
** Mann-Whitney U test of samples a[0..na) and b[0..nb) (two-sided, normal
** approximation with tie correction and continuity correction).  Neither
** input is modified.  z > 0 means b tends to be larger than a.
*/
HistMw hist_mann_whitney(const double *a, int na, const double *b, int nb);

#endif
