/*
** check_history.c — unit tests of history.c: median, MAD, robust z-score
** and the Mann-Whitney U test (values checked against the textbook
** formulas: U by counting pairs, normal approximation with tie and
** continuity correction, as scipy.stats.mannwhitneyu(method="asymptotic")),
** the exact U distribution and the Hodges-Lehmann interval (against brute
** force enumeration here), and every branch of the gate's decision
** history_gate(); the paired statistics of gate_stats.c (the signed-rank
** distribution and Walsh averages against brute force enumeration here,
** Student's t against tabulated quantiles) and the gate's boundaries
** pinned on both sides: T/2, T and the work evidence's arms.
*/
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "history/history.h"
#include "history/gate_stats.h"

START_TEST(test_median_mad){
  double a[] = { 5, 1, 3 };
  double b[] = { 4, 1, 3, 2 };
  double c[] = { 1, 2, 3, 4, 100 };
  ck_assert_double_eq_tol(history_median(a, 3), 3.0, 1e-12);
  ck_assert_double_eq_tol(history_median(b, 4), 2.5, 1e-12);
  /* |c - 3| = 2 1 0 1 97: MAD is 1, the outlier does not move it */
  ck_assert_double_eq_tol(history_mad(c, 5), 1.0, 1e-12);
  ck_assert(isnan(history_median(a, 0)));
}
END_TEST

START_TEST(test_robust_z){
  double a[] = { 10, 11, 9, 10, 10.5, 9.5 };
  double k[] = { 7, 7, 7, 7, 7 };
  /* median 10, |a - 10| = 0 1 1 0 .5 .5: MAD 0.5, scale 0.7413 */
  ck_assert_double_eq_tol(history_robust_z(12, a, 6), 2.0/(1.4826*0.5), 1e-9);
  ck_assert_double_eq_tol(history_robust_z(10, a, 6), 0.0, 1e-12);
  /* a constant history: any difference is far outside it */
  ck_assert(history_robust_z(7.01, k, 5)>1000);
  ck_assert_double_eq_tol(history_robust_z(7, k, 5), 0.0, 1e-12);
  ck_assert(isnan(history_robust_z(1, k, 0)));
}
END_TEST

START_TEST(test_mann_whitney){
  double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };
  double c[] = { 1, 2, 2, 3 }, d[] = { 2, 3, 3, 4 };
  double e[] = { 5, 3, 9, 1, 7, 2 }, f[] = { 4, 8, 6, 10, 0, 11 };
  double g[] = { 4, 4, 4 };
  HistMw r = history_mann_whitney(a, 5, b, 5);
  ck_assert_double_eq_tol(r.u, 25, 1e-12);
  ck_assert_double_eq_tol(r.z, 2.5067182457620487, 1e-9);
  ck_assert_double_eq_tol(r.p, 0.012185780355344818, 1e-9);
  r = history_mann_whitney(b, 5, a, 5);              /* symmetric */
  ck_assert_double_eq_tol(r.u, 0, 1e-12);
  ck_assert_double_eq_tol(r.z, -2.5067182457620487, 1e-9);
  ck_assert_double_eq_tol(r.p, 0.012185780355344818, 1e-9);
  r = history_mann_whitney(c, 4, d, 4);              /* ties */
  ck_assert_double_eq_tol(r.u, 13, 1e-12);
  ck_assert_double_eq_tol(r.z, 1.365698202000489, 1e-9);
  ck_assert_double_eq_tol(r.p, 0.17203370892182296, 1e-9);
  r = history_mann_whitney(e, 6, f, 6);
  ck_assert_double_eq_tol(r.u, 24, 1e-12);
  ck_assert_double_eq_tol(r.p, 0.37847759324467894, 1e-9);
  r = history_mann_whitney(g, 3, g, 3);              /* all equal */
  ck_assert_double_eq_tol(r.p, 1.0, 1e-12);
  r = history_mann_whitney(a, 1, b, 5);              /* too small: no p */
  ck_assert(isnan(r.p));
  r = history_mann_whitney(a, 0, b, 5);
  ck_assert(isnan(r.u));
}
END_TEST

/* Brute force: the U of every split of n+m ranks into n and m; returns
** P(U <= u). */
static double brute_cdf(int n, int m, int u){
  int N = n+m, below = 0, total = 0;
  for(unsigned mask=0; mask<(1u<<N); mask++){
    int cnt = __builtin_popcount(mask), U = 0, seenA = 0;
    if( cnt!=n ) continue;
    /* ranks 0..N-1; bits set: sample a; U = pairs (a, b) with b > a */
    for(int r=0; r<N; r++){
      if( mask&(1u<<r) ) seenA++;
      else U += seenA;
    }
    total++;
    if( U<=u ) below++;
  }
  return (double)below/total;
}

START_TEST(test_mw_exact){
  /* [6 choose 3]_q = 1 1 2 3 3 3 3 2 1 1 (20 splits) */
  ck_assert_double_eq_tol(history_mw_cdf(3, 3, 0), 0.05, 1e-12);
  ck_assert_double_eq_tol(history_mw_cdf(3, 3, 1), 0.10, 1e-12);
  ck_assert_double_eq_tol(history_mw_cdf(3, 3, 2), 0.20, 1e-12);
  ck_assert_double_eq_tol(history_mw_cdf(3, 3, 9), 1.0, 1e-12);
  ck_assert_double_eq_tol(history_mw_cdf(3, 3, -1), 0.0, 1e-12);
  for(int n=1; n<=7; n++){
    for(int m=1; m<=7; m++){
      for(int u=0; u<=n*m; u++){
        ck_assert_double_eq_tol(history_mw_cdf(n, m, u), brute_cdf(n, m, u),
                                1e-12);
      }
    }
  }
  /* large samples: the normal approximation, symmetric about nm/2 */
  ck_assert_double_eq_tol(history_mw_cdf(300, 300, 45000-0.5), 0.5, 1e-3);
  ck_assert(history_mw_cdf(300, 300, 30000)<1e-9);
  ck_assert_double_eq_tol(history_mw_cdf(300, 300, 40000),
      0.5*erfc((45000-40000.5)/sqrt(90000*601/12.0)/sqrt(2.0)), 1e-12);
  ck_assert(isnan(history_mw_cdf(0, 3, 1)));
}
END_TEST

START_TEST(test_hl_k){
  /* k: the largest with P(U <= k-1) <= alpha */
  ck_assert_int_eq(history_hl_k(3, 3, 0.05), 1);       /* P(U<=0) = .05 */
  ck_assert_int_eq(history_hl_k(3, 3, 0.049), 0);
  ck_assert_int_eq(history_hl_k(2, 3, 0.05), 0);       /* P(U<=0) = .1 */
  for(int n=3; n<=8; n++){
    for(int m=3; m<=8; m++){
      int64_t k = history_hl_k(n, m, 0.05);
      if( k>0 ) ck_assert(brute_cdf(n, m, (int)k-1)<=0.05+1e-12);
      ck_assert(brute_cdf(n, m, (int)k)>0.05);
    }
  }
  /* normal approximation beyond HIST_EXACT_MAX: nm/2 - 1.645 sd */
  {
    int64_t k = history_hl_k(1000, 1000, 0.05);
    double sd = sqrt(1e6*2001/12.0);
    ck_assert(fabs((double)k-(5e5-1.6449*sd))<2);
  }
}
END_TEST

static int cmp_d(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}

START_TEST(test_kth_diff){
  double a[7], b[9], d[63];
  unsigned seed = 7;
  for(int round=0; round<20; round++){
    int n = 0;
    for(int i=0; i<7; i++){ seed = seed*1103515245u+12345u;
                            a[i] = (seed>>16)%50/7.0; }
    for(int j=0; j<9; j++){ seed = seed*1103515245u+12345u;
                            b[j] = (seed>>16)%50/7.0; }
    qsort(a, 7, sizeof(double), cmp_d);
    qsort(b, 9, sizeof(double), cmp_d);
    for(int i=0; i<7; i++) for(int j=0; j<9; j++) d[n++] = b[j]-a[i];
    qsort(d, 63, sizeof(double), cmp_d);
    for(int k=1; k<=63; k++){
      ck_assert_double_eq(history_kth_diff(a, 7, b, 9, k), d[k-1]);
    }
  }
}
END_TEST

START_TEST(test_hl_shift){
  double a[] = { 3, 1, 2 }, b[] = { 13, 11, 12 };
  double big_a[1000], big_b[1000];
  HistShift h = history_hl_shift(a, 3, b, 3, 0.05);
  ck_assert_double_eq_tol(h.est, 10, 1e-12);     /* differences 8..12 */
  ck_assert_double_eq_tol(h.lo, 8, 1e-12);       /* k = 1: min and max */
  ck_assert_double_eq_tol(h.hi, 12, 1e-12);
  ck_assert_int_eq(h.k, 1);
  ck_assert(a[0]==3 && b[0]==13);               /* input untouched */
  h = history_hl_shift(a, 2, b, 3, 0.05);           /* too small: unbounded */
  ck_assert(isinf(h.lo) && h.lo<0 && isinf(h.hi) && h.hi>0);
  /* 1,000 steps a side: a shift of exactly 2 with uniform noise */
  for(int i=0; i<1000; i++){
    big_a[i] = 100 + (i*37%1000)/1000.0;
    big_b[i] = 102 + (i*91%1000)/1000.0;
  }
  h = history_hl_shift(big_a, 1000, big_b, 1000, 0.05);
  ck_assert_double_eq_tol(h.est, 2, 2e-3);
  ck_assert(h.lo>1.97 && h.lo<2 && h.hi>2 && h.hi<2.03);
}
END_TEST

/* A GateIn with the defaults of gate_param and no samples or history. */
static GateIn gate_in(double a, double b){
  GateIn in;
  memset(&in, 0, sizeof(in));
  in.dir = 1;
  in.thrPct = 5;
  in.alpha = 0.05;
  in.alphaOk = 0.001;
  in.zMax = 3;
  in.minSteps = 3;
  in.minHistory = 5;
  in.comparable = 1;
  in.hasA = in.hasB = 1;
  in.a = a;
  in.b = b;
  return in;
}

static GateVerdict gate(const GateIn *in, GateOut *o){
  history_gate(in, o);
  return o->v;
}

START_TEST(test_gate_steps){
  double base[] = { 100, 101, 99, 100.5, 99.5 };
  double slow[] = { 120, 121.2, 118.8, 120.6, 119.4 };   /* x 1.2 */
  double five[] = { 105, 106.05, 103.95, 105.525, 104.475 };  /* x 1.05 */
  double fast[] = { 80, 80.8, 79.2, 80.4, 79.6 };
  double noisy[] = { 80, 140, 95, 130, 110 };
  GateIn in = gate_in(100, 120);
  GateOut o;
  in.sa = base; in.nA = 5;
  in.sb = slow; in.nB = 5;
  ck_assert_int_eq(gate(&in, &o), GATE_REGRESSION);
  ck_assert_double_eq_tol(o.shiftPct, 20, 1e-9);
  ck_assert_double_eq_tol(o.changePct, 20, 1e-9);
  ck_assert(o.loPct>0 && o.hiPct>=5);
  ck_assert(strstr(o.zReason, "steady steps +20.00%")!=NULL);
  /* exactly the threshold: every step 5 % slower is a regression */
  in.sb = five; in.b = 105;
  ck_assert_int_eq(gate(&in, &o), GATE_REGRESSION);
  /* the same steps: ok; faster beyond the threshold: improved */
  in.sb = base; in.b = 100;
  ck_assert_int_eq(gate(&in, &o), GATE_OK);
  in.sb = fast; in.b = 80;
  ck_assert_int_eq(gate(&in, &o), GATE_IMPROVED);
  /* noisy steps 10 % slower on the median: cannot decide */
  in.sb = noisy; in.b = 110;
  ck_assert_int_eq(gate(&in, &o), GATE_INCONCLUSIVE);
  ck_assert(o.loPct<=0 && o.hiPct>=5);
  ck_assert(strstr(o.zReason, "neither rule out")!=NULL);
  /* an interval touching 0 is not a regression: one step no slower */
  {
    double same[] = { 100, 100, 100 }, tie[] = { 100, 105, 105 };
    GateIn t = gate_in(100, 105);
    t.sa = same; t.nA = 3; t.sb = tie; t.nB = 3;
    ck_assert_int_eq(gate(&t, &o), GATE_INCONCLUSIVE);
    ck_assert_double_eq_tol(o.loPct, 0, 1e-12);
  }
  /* a stricter alpha leaves 3 against 3 steps no interval */
  in.sa = base; in.nA = 3; in.sb = slow; in.nB = 3; in.b = 120;
  ck_assert_int_eq(gate(&in, &o), GATE_REGRESSION);
  in.alpha = 0.01;
  ck_assert_int_eq(gate(&in, &o), GATE_INCONCLUSIVE);
  ck_assert(isinf(o.hiPct));
  in.alpha = 0.05;
  /* a higher threshold: below it, but 3 steps cannot rule out 25 % for
  ** a shift nearer 25 % than 0; at 45 % the 20 % is ok */
  in.thrPct = 25;
  ck_assert_int_eq(gate(&in, &o), GATE_INCONCLUSIVE);
  in.thrPct = 45;
  ck_assert_int_eq(gate(&in, &o), GATE_OK);
}
END_TEST

/* Every branch of the step rule (history_gate's comment), one case each. */
START_TEST(test_gate_step_rule){
  double base4[] = { 100, 100.1, 99.9, 100 };
  double up35[] = { 103.5, 103.6, 103.4, 103.5 };       /* +3.5 %, tight */
  double a3[] = { 100, 100.5, 101 }, b3[] = { 101.5, 102, 107 };
  double big_a[40], big_b[40];
  GateIn in = gate_in(100, 103.5);
  GateOut o;
  /* hi < t, est >= t/2, 4 against 4 steps: no interval at alpha_ok */
  in.sa = base4; in.nA = 4; in.sb = up35; in.nB = 4;
  ck_assert_int_eq(gate(&in, &o), GATE_INCONCLUSIVE);
  ck_assert(o.loPct>0 && o.hiPct<5 && o.shiftPct>=2.5);
  ck_assert(isinf(o.hi2Pct));
  ck_assert(strstr(o.zReason, "more steps would tell")!=NULL);
  /* alpha_ok 0 (or >= alpha) falls back to alpha: then the wider
  ** interval is the interval itself and the same +3.5 % passes */
  in.alphaOk = 0;
  ck_assert_int_eq(gate(&in, &o), GATE_OK);
  ck_assert(strstr(o.zReason, "wider interval stays below")!=NULL);
  in.alphaOk = 0.001;
  /* 40 against 40 tight steps +3 %: the wider interval decides, ok */
  for(int i=0; i<40; i++){
    big_a[i] = 100 + (i*7%10)/100.0;
    big_b[i] = 103 + (i*3%10)/100.0;
  }
  in.sa = big_a; in.nA = 40; in.sb = big_b; in.nB = 40; in.b = 103;
  ck_assert_int_eq(gate(&in, &o), GATE_OK);
  ck_assert(o.hi2Pct<5 && o.hi2Pct>=o.hiPct && o.shiftPct>=2.5);
  ck_assert(strstr(o.zReason, "wider interval stays below")!=NULL);
  /* worse for sure (lo > 0), reaching t, estimate below t/2 */
  {
    GateIn w = gate_in(100.5, 102);
    w.sa = a3; w.nA = 3; w.sb = b3; w.nB = 3;
    ck_assert_int_eq(gate(&w, &o), GATE_INCONCLUSIVE);
    ck_assert_double_eq_tol(o.loPct, 100*(101.5/101-1), 1e-9);
    ck_assert(o.hiPct>=5 && o.shiftPct<2.5);
    ck_assert(strstr(o.zReason, "nearer no change than the threshold")
              !=NULL);
    /* lower is worse: the same steps are better, est -1.5 %: ok */
    w.dir = -1;
    ck_assert_int_eq(gate(&w, &o), GATE_OK);
    ck_assert(strstr(o.zReason, "stays below the threshold")!=NULL);
  }
  /* regression names its reason */
  {
    double s3[] = { 110, 110.5, 111 };
    GateIn r = gate_in(100.5, 110.5);
    r.sa = a3; r.nA = 3; r.sb = s3; r.nB = 3;
    ck_assert_int_eq(gate(&r, &o), GATE_REGRESSION);
    ck_assert(strstr(o.zReason, "worse for sure, and nearer the threshold")
              !=NULL);
  }
  /* improved: the whole interval better and the shift beyond t */
  {
    double f3[] = { 90, 90.5, 91 };
    GateIn r = gate_in(100.5, 90.5);
    r.sa = a3; r.nA = 3; r.sb = f3; r.nB = 3;
    ck_assert_int_eq(gate(&r, &o), GATE_IMPROVED);
    ck_assert(strstr(o.zReason, "better beyond the threshold")!=NULL);
    /* better but not beyond t: ok */
    r.sb = base4; r.nB = 3;
    ck_assert_int_eq(gate(&r, &o), GATE_OK);
  }
}
END_TEST

/* The remaining branches of history_gate: zero baselines, one-sided
** samples, minSteps / minHistory of 0, alpha_ok above alpha, history
** over an ok verdict and over a two-sided metric. */
START_TEST(test_gate_edges){
  double pos[] = { 100, 101, 99 }, neg[] = { -5, 0, 5 };
  double zero_med[] = { -1, 0, 1 };
  double hist[] = { 100, 104, 96, 102, 98, 101 };
  GateIn in = gate_in(0, 0);
  GateOut o;
  /* a baseline value of 0: change 0, +inf or -inf */
  ck_assert_int_eq(gate(&in, &o), GATE_OK);
  ck_assert_double_eq(o.changePct, 0);
  in.b = 3;
  ck_assert_int_eq(gate(&in, &o), GATE_INCONCLUSIVE);
  ck_assert(isinf(o.changePct) && o.changePct>0);
  in.b = -3;
  ck_assert_int_eq(gate(&in, &o), GATE_IMPROVED);
  ck_assert(isinf(o.changePct) && o.changePct<0);
  /* only the baseline missing */
  in.hasA = 0;
  ck_assert_int_eq(gate(&in, &o), GATE_MISSING);
  ck_assert_str_eq(o.zReason, "no value in the baseline");
  /* samples in the run only: too few steps to test */
  in = gate_in(100, 101);
  in.sb = pos; in.nB = 2;
  ck_assert_int_eq(gate(&in, &o), GATE_OK);
  ck_assert(strstr(o.zReason, "(0 in the baseline, 2 in the run")!=NULL);
  /* enough in the baseline, too few in the run */
  in.sa = pos; in.nA = 3;
  ck_assert_int_eq(gate(&in, &o), GATE_OK);
  ck_assert(isnan(o.shiftPct));
  /* minSteps 0: an empty sample still cannot be tested */
  in.minSteps = 0; in.nB = 0;
  ck_assert_int_eq(gate(&in, &o), GATE_OK);
  ck_assert(isnan(o.shiftPct));
  in.nA = 0; in.nB = 3;
  ck_assert_int_eq(gate(&in, &o), GATE_OK);
  ck_assert(isnan(o.shiftPct));
  /* positive baseline, a run sample with zeros and negatives: compared
  ** as differences relative to the baseline's median */
  in = gate_in(100, 0);
  in.sa = pos; in.nA = 3; in.sb = neg; in.nB = 3;
  ck_assert_int_eq(gate(&in, &o), GATE_IMPROVED);
  ck_assert_double_eq_tol(o.shiftPct, -100, 1e-9);
  /* a baseline whose median is 0: differences taken as they are (% of
  ** 1): the same steps, interval [-200 %, +200 %], cannot decide */
  in = gate_in(0, 0);
  in.sa = zero_med; in.nA = 3; in.sb = zero_med; in.nB = 3;
  ck_assert_int_eq(gate(&in, &o), GATE_INCONCLUSIVE);
  ck_assert_double_eq_tol(o.hiPct, 200, 1e-9);    /* max diff 2, x 100 */
  /* alpha_ok above alpha: alpha is used for both */
  {
    double a4[] = { 100, 100.1, 99.9, 100 }, b4[] = { 103.5, 103.6,
                                                     103.4, 103.5 };
    in = gate_in(100, 103.5);
    in.sa = a4; in.nA = 4; in.sb = b4; in.nB = 4;
    in.alphaOk = 0.2;
    ck_assert_int_eq(gate(&in, &o), GATE_OK);
    ck_assert_double_eq(o.hi2Pct, o.hiPct);
  }
  /* a history over an ok verdict: used (z computed), verdict kept */
  in = gate_in(100, 101);
  in.hist = hist; in.nHist = 6;
  ck_assert_int_eq(gate(&in, &o), GATE_OK);
  ck_assert_int_eq(o.usedHist, 6);
  ck_assert(!isnan(o.z));
  /* minHistory 0 with an empty history: no history test */
  in.minHistory = 0; in.nHist = 0; in.b = 120;
  ck_assert_int_eq(gate(&in, &o), GATE_INCONCLUSIVE);
  ck_assert_int_eq(o.usedHist, 0);
  /* two-sided metric: a drop far outside the history is a regression,
  ** a small one inside it noise */
  in = gate_in(100, 80);
  in.dir = 0; in.hist = hist; in.nHist = 6;
  ck_assert_int_eq(gate(&in, &o), GATE_REGRESSION);
  ck_assert(o.z<-3);
  in.b = 94;
  ck_assert_int_eq(gate(&in, &o), GATE_NOISE);
}
END_TEST

START_TEST(test_gate_directions){
  double base[] = { 50, 51, 49, 50.5 };
  double low[] = { 40, 40.8, 39.2, 40.4 };     /* busy share -20 % */
  double high[] = { 60, 61.2, 58.8, 60.6 };
  GateIn in = gate_in(50, 40);
  GateOut o;
  in.dir = -1;                                  /* lower is worse */
  in.sa = base; in.nA = 4; in.sb = low; in.nB = 4;
  ck_assert_int_eq(gate(&in, &o), GATE_REGRESSION);
  ck_assert(o.shiftPct<-19);
  in.sb = high; in.b = 60;
  ck_assert_int_eq(gate(&in, &o), GATE_IMPROVED);
  /* either way: both changes are regressions, never improvements */
  in.dir = 0;
  ck_assert_int_eq(gate(&in, &o), GATE_REGRESSION);
  in.sb = low; in.b = 40;
  ck_assert_int_eq(gate(&in, &o), GATE_REGRESSION);
  in.sb = base; in.b = 50;
  ck_assert_int_eq(gate(&in, &o), GATE_OK);
  /* values only, either way: beyond the threshold is inconclusive */
  in.sa = in.sb = NULL; in.nA = in.nB = 0; in.b = 45;
  ck_assert_int_eq(gate(&in, &o), GATE_INCONCLUSIVE);
  in.b = 49;
  ck_assert_int_eq(gate(&in, &o), GATE_OK);
  /* samples with zeros: compared as differences relative to |a| */
  {
    double za[] = { 0, 1, 2 }, zb[] = { 10, 11, 12 };
    GateIn z = gate_in(1, 11);
    z.sa = za; z.nA = 3; z.sb = zb; z.nB = 3;
    ck_assert_int_eq(gate(&z, &o), GATE_REGRESSION);
    ck_assert_double_eq_tol(o.shiftPct, 1000, 1e-9);   /* 10 / median 1 */
  }
}
END_TEST

START_TEST(test_gate_values_and_history){
  double few_a[] = { 100, 100 }, few_b[] = { 120, 120 };
  double hist[] = { 100, 104, 96, 102, 98, 101 };
  double tight_a[] = { 100, 100.1, 99.9, 100 };
  double tight_b[] = { 107, 107.1, 106.9, 107 };
  GateIn in = gate_in(100, 120);
  GateOut o;
  /* too few steady steps: the values decide, beyond the threshold the
  ** data cannot tell noise */
  in.sa = few_a; in.nA = 2; in.sb = few_b; in.nB = 2;
  ck_assert_int_eq(gate(&in, &o), GATE_INCONCLUSIVE);
  ck_assert(strstr(o.zReason, "too few steady steps to tell noise (2 in"
                   " the baseline, 2 in the run")!=NULL);
  ck_assert(isnan(o.shiftPct));
  in.b = 101;
  ck_assert_int_eq(gate(&in, &o), GATE_OK);
  in.b = 90;
  ck_assert_int_eq(gate(&in, &o), GATE_IMPROVED);
  /* no samples, a history of 6 comparable runs: +20 % is far outside */
  in.sa = in.sb = NULL; in.nA = in.nB = 0; in.b = 120;
  ck_assert_int_eq(gate(&in, &o), GATE_INCONCLUSIVE);   /* no history */
  ck_assert(strstr(o.zReason, "0 comparable runs")!=NULL);
  in.hist = hist; in.nHist = 6;
  ck_assert_int_eq(gate(&in, &o), GATE_REGRESSION);
  ck_assert(o.z>3);
  ck_assert_int_eq(o.usedHist, 6);
  /* the value test's boundary: exactly the threshold is beyond it */
  {
    GateIn v = gate_in(100, 105);
    ck_assert_int_eq(gate(&v, &o), GATE_INCONCLUSIVE);
    v.b = 104.9;
    ck_assert_int_eq(gate(&v, &o), GATE_OK);
  }
  /* noisy steps, +2 % on the values, far outside a tight history: the
  ** history does not make a regression of a change below the threshold */
  {
    double na[] = { 80, 120, 100 }, nb[] = { 82, 122, 102 };
    double tight[] = { 100, 100.1, 99.9, 100, 100.05 };
    GateIn v = gate_in(100, 102);
    v.sa = na; v.nA = 3; v.sb = nb; v.nB = 3;
    v.hist = tight; v.nHist = 5;
    ck_assert_int_eq(gate(&v, &o), GATE_NOISE);
    ck_assert(o.z>3);
  }
  /* +7 % is inside the history's spread (MAD 2): noise */
  in.b = 107;
  ck_assert_int_eq(gate(&in, &o), GATE_NOISE);
  ck_assert(o.z<3);
  /* a larger --z makes the +20 % noise too */
  in.b = 120; in.zMax = 20;
  ck_assert_int_eq(gate(&in, &o), GATE_NOISE);
  in.zMax = 3;
  /* tight steps say +7 % is real; the history says it is noise */
  in.sa = tight_a; in.nA = 4; in.sb = tight_b; in.nB = 4; in.b = 107;
  ck_assert_int_eq(gate(&in, &o), GATE_NOISE);
  in.nHist = 4;                                  /* below min_history */
  ck_assert_int_eq(gate(&in, &o), GATE_REGRESSION);
  ck_assert_int_eq(o.usedHist, 0);
  /* missing values and other workloads come first */
  in.hasB = 0;
  ck_assert_int_eq(gate(&in, &o), GATE_MISSING);
  ck_assert_str_eq(o.zReason, "no value in the run");
  in.hasA = 0;
  ck_assert_int_eq(gate(&in, &o), GATE_MISSING);
  ck_assert_str_eq(o.zReason, "no value in the baseline nor the run");
  in.hasA = in.hasB = 1; in.comparable = 0;
  ck_assert_int_eq(gate(&in, &o), GATE_NOT_COMPARABLE);
  ck_assert_str_eq(history_verdict_name(GATE_NOT_COMPARABLE), "not comparable");
  ck_assert_str_eq(history_verdict_name(GATE_INCONCLUSIVE), "inconclusive");
}
END_TEST


/* P(W+ <= w) by enumerating the 2^n sign patterns of ranks 1..n. */
static double sr_brute(int n, int w){
  int64_t hit = 0, all = (int64_t)1<<n;
  for(int64_t m=0; m<all; m++){
    int sum = 0;
    for(int i=0; i<n; i++) if( m>>i & 1 ) sum += i+1;
    hit += sum<=w;
  }
  return (double)hit/(double)all;
}

START_TEST(test_signed_rank){
  for(int n=1; n<=12; n++){
    int m = n*(n+1)/2;
    for(int w=-1; w<=m; w++){
      ck_assert_double_eq_tol(history_sr_cdf(n, w), w<0 ? 0 : sr_brute(n, w),
                              1e-12);
    }
    /* k: the largest with P(W <= k-1) <= alpha */
    {
      int64_t k = history_sr_k(n, 0.05);
      if( k>0 ) ck_assert(sr_brute(n, (int)k-1)<=0.05);
      ck_assert(sr_brute(n, (int)k)>0.05 || k==m/2);
    }
  }
  ck_assert_int_eq(history_sr_k(4, 0.05), 0);    /* 1/16 > 0.05 */
  ck_assert_int_eq(history_sr_k(5, 0.05), 1);    /* 1/32 */
  ck_assert_int_eq(history_sr_k(6, 0.05), 3);    /* 3/64 <= 0.05 < 5/64 */
  /* the normal approximation beyond the exact range: near the exact */
  ck_assert_double_eq_tol(history_sr_cdf(400, 400*401/4.0), 0.5, 0.01);
  ck_assert(history_sr_k(400, 0.05)>0);
}
END_TEST

static int cmp_d2(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}

START_TEST(test_walsh_and_t){
  double d[9] = { -3, -1, 0, 0.5, 2, 2, 4.5, 7, 11 }, w[45];
  int m = 0;
  for(int i=0; i<9; i++) for(int j=i; j<9; j++) w[m++] = (d[i]+d[j])/2;
  qsort(w, (size_t)m, sizeof(double), cmp_d2);
  for(int k=1; k<=m; k++){
    ck_assert_double_eq(history_kth_walsh(d, 9, k), w[k-1]);
  }
  /* tabulated Student t quantiles */
  ck_assert_double_eq_tol(history_t_quantile(0.95, 1), 6.313752, 1e-5);
  ck_assert_double_eq_tol(history_t_quantile(0.95, 2), 2.919986, 1e-5);
  ck_assert_double_eq_tol(history_t_quantile(0.95, 4), 2.131847, 1e-5);
  ck_assert_double_eq_tol(history_t_quantile(0.975, 10), 2.228139, 1e-5);
  ck_assert_double_eq_tol(history_t_quantile(0.999, 2), 22.32712, 1e-4);
  ck_assert_double_eq_tol(history_t_quantile(0.05, 3), -2.353363, 1e-5);
  /* the paired shift: 5 pairs give [min, max]; 3 pairs Student's t */
  {
    double e5[] = { 0.02, 0.01, 0.03, 0.02, 0.025 }, e3[] = { 1, 2, 3 };
    int t;
    HistShift h = history_paired_shift(e5, 5, 0.05, &t);
    ck_assert_int_eq(t, 0);
    ck_assert_int_eq(h.k, 1);
    ck_assert_double_eq_tol(h.lo, 0.01, 1e-15);
    ck_assert_double_eq_tol(h.hi, 0.03, 1e-15);
    ck_assert_double_eq_tol(h.est, 0.02, 1e-15);
    h = history_paired_shift(e3, 3, 0.05, &t);
    ck_assert_int_eq(t, 1);
    ck_assert_double_eq_tol(h.est, 2, 1e-12);
    ck_assert_double_eq_tol(h.hi-2, 2.919986/sqrt(3.0), 1e-5);
    ck_assert_double_eq_tol(2-h.lo, 2.919986/sqrt(3.0), 1e-5);
    /* identical differences: a zero-width interval */
    e3[0] = e3[1] = e3[2] = 0.5;
    h = history_paired_shift(e3, 3, 0.05, &t);
    ck_assert(h.lo==0.5 && h.hi==0.5 && h.est==0.5);
    h = history_paired_shift(e3, 1, 0.05, &t);
    ck_assert(isinf(h.lo) && isinf(h.hi));
  }
}
END_TEST

/* Paired samples: baseline 100 each, run 100 * exp(x[i]). */
static GateIn paired_in(double *a, double *b, const double *x, int n){
  GateIn in = gate_in(100, 100*exp(x[n/2]));
  for(int i=0; i<n; i++){ a[i] = 100; b[i] = 100*exp(x[i]); }
  in.sa = a; in.nA = n; in.sb = b; in.nB = n; in.paired = 1;
  return in;
}

/* The decision lines, each pinned on both sides: moving T/2 or T (or
** the work evidence's T/2) by 0.05 % turns one of these cases. */
START_TEST(test_gate_boundaries){
  double a[8], b[8], x[8], w[8];
  GateIn in;
  GateOut o;
  /* T/2 on 3 pairs: shift s, spread +-0.5 %: the t interval is about
  ** s +- 0.85 %, inside (0, T); at s = 2.45 % ok, at 2.55 % the shift is
  ** nearer T than no change and 3 pairs have no wider interval below T:
  ** inconclusive ("more steps would tell") */
  for(int side=0; side<2; side++){
    double s = log(side ? 1.0255 : 1.0245);
    x[0] = s-0.005; x[1] = s; x[2] = s+0.005;
    in = paired_in(a, b, x, 3);
    ck_assert_int_eq(gate(&in, &o), side ? GATE_INCONCLUSIVE : GATE_OK);
    ck_assert(o.paired && o.tInterval);
    ck_assert(o.loPct>0 && o.hiPct<5);
    ck_assert(strstr(o.zReason, side ? "more steps would tell"
                     : "the interval stays below the threshold")!=NULL);
  }
  /* the same line on 3 vs 3 unpaired steps (two schedules): +2.45 % and
  ** +2.55 % on a tight baseline */
  for(int side=0; side<2; side++){
    double ua[] = { 100, 100.01, 99.99 }, ub[3];
    double f = side ? 1.0255 : 1.0245;
    for(int i=0; i<3; i++) ub[i] = ua[i]*f;
    in = gate_in(100, 100*f);
    in.sa = ua; in.nA = 3; in.sb = ub; in.nB = 3;
    ck_assert_int_eq(gate(&in, &o), side ? GATE_INCONCLUSIVE : GATE_OK);
    ck_assert(!o.paired);
  }
  /* T on identical pairs: +4.99 % ok (the wider interval is the point),
  ** +5.01 % a regression */
  for(int side=0; side<2; side++){
    for(int i=0; i<3; i++) x[i] = log(side ? 1.0501 : 1.0499);
    in = paired_in(a, b, x, 3);
    ck_assert_int_eq(gate(&in, &o), side ? GATE_REGRESSION : GATE_OK);
  }
  /* the work evidence's ok arm: 5 pairs, one step 30 % slower (a stall);
  ** the steps' interval reaches T, their shift is 0; the GPU work of the
  ** same steps moved by 2.49 %: ok; by 2.51 %: inconclusive */
  for(int side=0; side<2; side++){
    for(int i=0; i<5; i++){
      x[i] = i==3 ? log(1.3) : 0;
      w[i] = log(side ? 1.0251 : 1.0249);
    }
    in = paired_in(a, b, x, 5);
    in.sw = w; in.nW = 5; in.nWorkPairs = 5000;
    ck_assert_int_eq(gate(&in, &o), side ? GATE_INCONCLUSIVE : GATE_OK);
    ck_assert(o.hiPct>=5 && o.shiftPct<2.5);
    ck_assert(strstr(o.zReason, "GPU work +2.4")!=NULL
              || strstr(o.zReason, "GPU work +2.5")!=NULL);
    if( !side ) ck_assert(strstr(o.zReason, "stalls outside")!=NULL);
  }
  /* without work evidence the stall is inconclusive */
  in.sw = NULL; in.nW = 0;
  ck_assert_int_eq(gate(&in, &o), GATE_INCONCLUSIVE);
  ck_assert(strstr(o.zReason, "--same-tag")!=NULL);
  /* fewer work steps than minSteps: no work evidence */
  in.sw = w; in.nW = 2;
  ck_assert_int_eq(gate(&in, &o), GATE_INCONCLUSIVE);
  ck_assert(isnan(o.wPct));
  /* the work evidence's regression arm: steps -1 .. +13 %, shift about
  ** +6 % (interval includes 0); the work +2.51 % for sure: regression;
  ** +2.49 %: inconclusive (the time went outside the kernels) */
  for(int side=0; side<2; side++){
    double st[] = { -0.01, 0.05, 0.06, 0.07, 0.13 };
    for(int i=0; i<5; i++){
      x[i] = log(1+st[i]);
      w[i] = log(side ? 1.0251 : 1.0249);
    }
    in = paired_in(a, b, x, 5);
    in.sw = w; in.nW = 5; in.nWorkPairs = 5000;
    ck_assert_int_eq(gate(&in, &o), side ? GATE_REGRESSION
                                         : GATE_INCONCLUSIVE);
    ck_assert(o.loPct<0 && o.shiftPct>=2.5);
    if( side ){
      ck_assert(strstr(o.zReason, "GPU work of the same steps is surely"
                       " slower too")!=NULL);
    }
  }
  /* too few steps (2 a side): the values' change against T/2; a metric
  ** without per-step samples against T */
  {
    double two[] = { 100, 100 };
    GateIn v = gate_in(100, 102.49);
    v.sa = two; v.nA = 2; v.sb = two; v.nB = 2;
    ck_assert_int_eq(gate(&v, &o), GATE_OK);
    v.b = 102.51;
    ck_assert_int_eq(gate(&v, &o), GATE_INCONCLUSIVE);
    v.sa = v.sb = NULL; v.nA = v.nB = 0; v.b = 104.99;
    ck_assert_int_eq(gate(&v, &o), GATE_OK);
    v.b = 105.01;
    ck_assert_int_eq(gate(&v, &o), GATE_INCONCLUSIVE);
  }
  /* 3 steps (no distribution-free interval): the work evidence over the
  ** matched pairs.  Steps -3, +0.5, +3.5 % (shift < T/2, the t interval
  ** reaching T); the GPU work per step mid - 3 %, mid, mid + 3 %: its t
  ** interval over 3 steps reaches T/2 (inconclusive, the rule before);
  ** 3 x 900 pairs at their step's ratio +-0.01 % put the work's median
  ** (of the Walsh averages) at mid, with a narrow interval: mid 2.49 %
  ** ok, 2.51 % inconclusive */
  {
    static double pw[2700];
    double st[] = { -0.03, 0.005, 0.035 };
    for(int side=0; side<2; side++){
      double mid = log(side ? 1.0251 : 1.0249);
      for(int i=0; i<3; i++){
        x[i] = log(1+st[i]);
        w[i] = mid + 0.03*(i-1);
      }
      for(int i=0; i<2700; i++) pw[i] = w[i/900] + 0.0001*((i%3)-1);
      in = paired_in(a, b, x, 3);
      in.sw = w; in.nW = 3; in.nWorkPairs = 2700;
      ck_assert_int_eq(gate(&in, &o), GATE_INCONCLUSIVE);
      ck_assert(!o.wByPair && o.wHiPct>=2.5);
      in.sp = pw; in.nP = 2700;
      ck_assert_int_eq(gate(&in, &o), side ? GATE_INCONCLUSIVE : GATE_OK);
      ck_assert(o.wByPair && o.hiPct>=5 && o.shiftPct<2.5);
      ck_assert(o.wHiPct-o.wLoPct<0.1);
      ck_assert(strstr(o.zReason, "interval over pairs")!=NULL);
    }
    /* 5 steps have an interval of their own: the pairs are not used */
    for(int i=0; i<5; i++){ x[i] = i==3 ? log(1.3) : 0; w[i] = 0; }
    in = paired_in(a, b, x, 5);
    in.sw = w; in.nW = 5; in.sp = pw; in.nP = 2700;
    ck_assert_int_eq(gate(&in, &o), GATE_OK);
    ck_assert(!o.wByPair && o.wPct==0);
  }
  /* the work arm never makes a regression of steps that rule out T:
  ** +3 % for sure, even the wider interval below T: ok */
  for(int i=0; i<5; i++){ x[i] = log(1.03) + 0.001*i; w[i] = log(1.03); }
  in = paired_in(a, b, x, 5);
  in.sw = w; in.nW = 5;
  ck_assert_int_eq(gate(&in, &o), GATE_OK);
  ck_assert(o.loPct>0 && o.hiPct<5 && o.shiftPct>=2.5);
}
END_TEST

Suite *make_history_suite(void){
  Suite *s = suite_create("history");
  TCase *tc = tcase_create("stats");
  tcase_add_test(tc, test_median_mad);
  tcase_add_test(tc, test_robust_z);
  tcase_add_test(tc, test_mann_whitney);
  tcase_add_test(tc, test_mw_exact);
  tcase_add_test(tc, test_hl_k);
  tcase_add_test(tc, test_kth_diff);
  tcase_add_test(tc, test_hl_shift);
  tcase_add_test(tc, test_gate_steps);
  tcase_add_test(tc, test_gate_step_rule);
  tcase_add_test(tc, test_gate_directions);
  tcase_add_test(tc, test_gate_edges);
  tcase_add_test(tc, test_gate_values_and_history);
  tcase_add_test(tc, test_signed_rank);
  tcase_add_test(tc, test_walsh_and_t);
  tcase_add_test(tc, test_gate_boundaries);
  suite_add_tcase(s, tc);
  return s;
}
