/*
** history.h — comparison and history helpers: named baselines, the
** statistics of the regression gate (median, MAD, robust z-score,
** Mann-Whitney U, the Hodges-Lehmann shift with its distribution-free
** confidence interval), the gate's decision (history_gate) and the choice
** of comparable runs for its history (history_comparable).
**
** Pipeline position: read side, used by cmd_history.c (`profan tag`,
** `baseline`, `diff`, `trend`, `check`).  Nothing here prints.
*/
#ifndef PROFAN_HISTORY_H
#define PROFAN_HISTORY_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"
#include "history/gate_stats.h"

/*
** Resolve a baseline reference: a name set with `profan baseline set`,
** else anything runref_resolve() accepts (id, run name, "latest").
** Returns the run id, or -1 with pErr set.
*/
int64_t history_resolve_baseline(sqlite3 *db, const char *zRef, PfError *pErr);

/*
** Median of the n values in a (n >= 1); a is sorted in place.  Returns
** NaN when n == 0.
*/
double history_median(double *a, int n);

/*
** Median absolute deviation of the n values in a (unscaled); a is sorted
** in place and left sorted.  Returns NaN when n == 0.
*/
double history_mad(double *a, int n);

/*
** Robust z-score of x against the n values in a: (x - median) /
** (1.4826 * MAD).  A MAD of 0 is raised to 1e-6 of |median| (or 1e-12),
** so any real difference from a constant history is a large z.  a is
** sorted in place.  Returns NaN when n == 0.
*/
double history_robust_z(double x, double *a, int n);

/* Result of history_mann_whitney(). */
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
HistMw history_mann_whitney(const double *a, int na, const double *b, int nb);

/*
** P(U <= u) for the Mann-Whitney U statistic of samples of sizes n and m
** without ties under the null hypothesis: exact (the coefficients of
** the Gaussian binomial [n+m choose n]) when n*m <= HIST_EXACT_MAX, else
** the normal approximation with continuity correction.  0 for u < 0.
*/
#define HIST_EXACT_MAX 40000
double history_mw_cdf(int n, int m, double u);

/*
** The k of the Hodges-Lehmann interval: the largest k with
** P(U <= k - 1) <= alpha, so that [D(k), D(n*m + 1 - k)] of the sorted
** pairwise differences covers the true shift with probability at least
** 1 - 2 alpha.  0 when no k qualifies (the interval is unbounded).
*/
int64_t history_hl_k(int n, int m, double alpha);

/*
** The k-th smallest (1-based, 1 <= k <= na*nb) of the differences
** b[j] - a[i], with a and b sorted ascending.  Bisection over the value
** with a counting pass: no n*m array, so 1,000 steps a side are cheap.
*/
double history_kth_diff(const double *a, int na, const double *b, int nb,
                     int64_t k);

/* Hodges-Lehmann shift of b against a with its confidence interval:
** HistShift (gate_stats.h). */
/*
** Shift of sample b against sample a (neither modified; na, nb >= 1),
** interval at level 1 - 2 alpha.  Exact in the order statistics, no
** randomness: the same input always gives the same interval.
*/
HistShift history_hl_shift(const double *a, int na, const double *b, int nb,
                        double alpha);

/* Everything history_gate() decides from (one metric of one check). */
typedef struct GateIn {
  int dir;              /* 1 higher is worse, -1 lower is worse, 0 both */
  double thrPct;        /* threshold, % of the baseline */
  double alpha;         /* each end of the shift interval */
  double alphaOk;       /* each end of the wider interval of "ok" */
  double zMax;          /* robust z limit of the history test */
  int minSteps;         /* fewer samples a side: no step test */
  int minHistory;       /* fewer history values: no history test */
  int comparable;       /* the run has the baseline's fingerprint */
  int hasA, hasB;       /* the metric exists in baseline / run */
  double a, b;          /* its values */
  const double *sa, *sb;/* per-step samples, or NULL */
  int nA, nB;           /* their sizes (0 when the metric has none) */
  const double *hist;   /* the metric in the comparable history */
  int nHist;
  int paired;           /* sa[i] and sb[i] are the same step (nA == nB) */
  const double *sw;     /* work evidence: per step steady in both, the log
                        ** of run / baseline GPU time of the matched GPU
                        ** activities (gate_work.c); NULL: none */
  int nW;
  int64_t nWorkPairs;   /* matched activities behind sw */
  const double *sp;     /* the same evidence per matched pair (the log of
                        ** run / baseline time of each), used when the nW
                        ** steps are too few for a distribution-free
                        ** interval; NULL: none */
  int64_t nP;
} GateIn;

/* history_gate()'s verdict; cmd_history.c (check_print_verdict) turns the
** verdicts of a check into its exit code. */
typedef enum GateVerdict {
  GATE_OK, GATE_IMPROVED, GATE_NOISE, GATE_INCONCLUSIVE, GATE_REGRESSION,
  GATE_MISSING, GATE_NOT_COMPARABLE
} GateVerdict;

typedef struct GateOut {
  GateVerdict v;
  double changePct;     /* 100 (b - a) / |a| of the values */
  double shiftPct;      /* Hodges-Lehmann shift of the samples, % of a */
  double loPct, hiPct;  /* its interval, % (NaN without a step test) */
  double lo2Pct, hi2Pct;/* the wider interval at alphaOk, % (or NaN) */
  double z;             /* robust z in the history (NaN: no test) */
  int usedHist;         /* history values used (0: no history test) */
  int paired;           /* the step test paired the samples by step */
  int tInterval;        /* its interval is Student's t (too few pairs for
                        ** a distribution-free one) */
  double wPct, wLoPct, wHiPct; /* the work evidence's shift and interval,
                        ** % (NaN: none) */
  int wByPair;          /* they are over the matched pairs, not steps */
  char zReason[512];    /* why, in words */
} GateOut;

/* The verdict's name: ok, improved, noise, inconclusive, regression,
** missing, not comparable. */
const char *history_verdict_name(GateVerdict v);

/*
** Decide one metric.  With nA and nB >= minSteps, the step test: the
** shift est of the samples in the bad direction, its interval [lo, hi]
** at alpha and [lo2, hi2] at alphaOk (<= alpha), threshold t.  Paired
** samples (paired: the same steps of two runs with the same schedule)
** give the one-sample shift of their differences (gate_stats.c), others
** the two-sample Hodges-Lehmann shift.  Then:
**   regression    lo > 0, hi >= t and est >= t/2 (surely worse, and
**                 nearer the threshold than no change);
**   ok            hi < t and (est < t/2 or hi2 < t) (improved when
**                 hi < 0 and est <= -t);
** and, when neither holds and there is work evidence (sw: the GPU work
** of the same steps, nW >= minSteps) with shift w and interval
** [wlo, whi] at alpha (over the nW steps when they give a
** distribution-free interval, 5 or more at alpha 0.05; else over the
** matched pairs sp, thousands, whose spread is the work's own and not
** the steps' noise: the arms below use it only on the side of t/2 the
** steps' shift est is on):
**   regression    hi >= t, est >= t/2, wlo > 0 and w >= t/2 (the steps
**                 can reach the threshold, their shift is nearer it than
**                 no change, and the work is surely slower);
**   ok            est < t/2 and whi < t/2 (the steps' shift is nearer no
**                 change and the work surely within half the threshold:
**                 the slower steps are stalls outside the GPU work);
**   inconclusive  otherwise, with the reason and what would settle it in
**                 zReason.
** A true shift of t is called ok with probability at most alpha through
** the first arm (in practice far less: est < t/2 as well) and alphaOk
** through the second.  Without enough samples: the values' change
** against the threshold (beyond it: inconclusive; for a step metric with
** some samples but too few, beyond t/2: 1 or 2 steps cannot tell their
** noise, so only a change nearer no change than t passes).  A regression or
** inconclusive verdict goes to the history when it holds minHistory
** values: noise when the run's robust z there is within zMax,
** regression when beyond it and the change exceeds the threshold.
** dir 0 decides both directions and keeps the worse.  Samples must be
** positive (they are compared as ratios); others are compared as
** differences relative to |a|.
*/
void history_gate(const GateIn *in, GateOut *out);

/* Whether two runs are the same workload, and why not. */
typedef struct HistCompat {
  int ok;               /* 1 comparable */
  int ranksA, ranksB;
  int kShared, kAll;    /* top kernels in both / in either */
  int oShared, oAll;    /* top operators in both / in either */
  int fShared, fAll;    /* top snapshot source files in both / in either */
  char zWhy[200];       /* empty when ok, else the first difference */
} HistCompat;

/*
** Compare the fingerprint of run idB with run idA (history_window.c):
** rank count, top kernels and operators (views run_rank_count and
** run_fingerprint, gate_param fingerprint_min_shared_pct) and the tags
** named in azTag[0..nTag) (equal values, or absent in both).  forHistory
** (idB would enter idA's history) adds the configuration: input kinds,
** snapshot source files, step time, kernel mix, peak memory (gate_param
** fingerprint_*), and without tags (nTag 0) the lineage (gate_param
** history_lineage).  Returns 0, or -1 with pErr set on an SQL error.
*/
int history_comparable(sqlite3 *db, int64_t idA, int64_t idB,
                    const char *const *azTag, int nTag, int forHistory,
                    HistCompat *p, PfError *pErr);

/* The lineage of a run name: every run of digits as one '#'
** ("nightly-2026-11-28" -> "nightly-#-#-#"), into zOut[nOut]. */
void history_lineage(const char *zName, char *zOut, size_t nOut);

/* A run left out of the history, and why. */
typedef struct HistLeftOut {
  int64_t id;
  char zName[48];       /* run name (sanitized, maybe cut) */
  char zWhy[200];
} HistLeftOut;

#define HIST_MAX_LEFT_OUT 20

/* The comparable history of a check. */
typedef struct HistWindow {
  int64_t *aId;         /* comparable runs, newest first (free with ..free) */
  int n;
  HistLeftOut aOut[HIST_MAX_LEFT_OUT];  /* the newest runs left out */
  int nOut;             /* in aOut */
  int nOutTotal;        /* all runs left out */
} HistWindow;

/*
** The history of a check of run idB against baseline idA: the baseline
** and the runs before it (id < idA, never idB), newest first, that carry
** tag zTagKey=zTagVal (when zTagKey is not NULL) and are comparable with
** the baseline as history (history_comparable with azSame and
** forHistory), at most nLast.  Runs looked
** at and left out are recorded with the reason.  Returns 0, or -1 with
** pErr set; free the window with history_window_free() either way.
*/
int history_window(sqlite3 *db, int64_t idA, int64_t idB, int nLast,
                const char *zTagKey, const char *zTagVal,
                const char *const *azSame, int nSame, HistWindow *w,
                PfError *pErr);
void history_window_free(HistWindow *w);

/* The settings of one check (defaults: table gate_param). */
typedef struct GateParams {
  double thrPct, alpha, alphaOk, zMax;
  int minSteps, minHistory;
  int workMinPairs;     /* gate_param work_min_pairs (0: no work test) */
} GateParams;

/* One metric of one check: its inputs as loaded and the decision. */
typedef struct HistCheck {
  const char *zMetric;  /* borrowed */
  int dir;              /* metric_direction */
  int hasA, hasB;
  double a, b;          /* values in baseline and run */
  int nA, nB;           /* per-step samples (view run_step_sample): the
                        ** steady ones, or when paired the steps steady
                        ** in either run */
  int paired;           /* the runs have the same schedule: samples
                        ** paired by step number */
  int nW;               /* steps of the work evidence (0: none) */
  int64_t nWorkPairs;   /* matched GPU activities in them */
  double p;             /* two-sided p of the samples (Mann-Whitney, or
                        ** signed-rank when paired), or NaN */
  GateOut o;
} HistCheck;

/*
** Load metric c->zMetric of baseline idA and run idB (run_metric,
** run_step_sample, metric_direction) and of the history runs in w, and
** decide with history_gate().  comparable: the run has the baseline's
** fingerprint.  When both runs have the same schedule (the same step
** numbers on the same ranks: history_same_schedule) the samples are
** paired by step number over the steps steady in either run (a step
** warm-up or cut in both stays out), and a step-time
** metric (step_time_*) gets the work evidence of those steps
** (gate_work.c).  Returns 0, or -1 with pErr set.
*/
int history_check_metric(sqlite3 *db, int64_t idA, int64_t idB, int comparable,
                      const HistWindow *w, const GateParams *g, HistCheck *c,
                      PfError *pErr);

/* 1 when runs idA and idB have the same schedule: the same (rank, step)
** pairs in table step (and at least one); 0 otherwise, -1 with pErr set
** on an SQL error. */
int history_same_schedule(sqlite3 *db, int64_t idA, int64_t idB,
                          PfError *pErr);

/* Exit codes of `profan check` (2 and 3 are the usual usage / SQL). */
#define GATE_EXIT_PASS 0
#define GATE_EXIT_REGRESSION 1
#define GATE_EXIT_MISSING 4
#define GATE_EXIT_INCONCLUSIVE 5

/*
** A gate parameter from table gate_param, or dflt when the row is
** missing (an older database).
*/
double history_gate_param(sqlite3 *db, const char *zName, double dflt);

#endif
