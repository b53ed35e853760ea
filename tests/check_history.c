/*
** check_history.c — unit tests of history.c: median, MAD, robust z-score
** and the Mann-Whitney U test (values checked against the textbook
** formulas: U by counting pairs, normal approximation with tie and
** continuity correction, as scipy.stats.mannwhitneyu(method="asymptotic")).
*/
#include <check.h>
#include <math.h>
#include "history.h"

START_TEST(test_median_mad){
  double a[] = { 5, 1, 3 };
  double b[] = { 4, 1, 3, 2 };
  double c[] = { 1, 2, 3, 4, 100 };
  ck_assert_double_eq_tol(hist_median(a, 3), 3.0, 1e-12);
  ck_assert_double_eq_tol(hist_median(b, 4), 2.5, 1e-12);
  /* |c - 3| = 2 1 0 1 97: MAD is 1, the outlier does not move it */
  ck_assert_double_eq_tol(hist_mad(c, 5), 1.0, 1e-12);
  ck_assert(isnan(hist_median(a, 0)));
}
END_TEST

START_TEST(test_robust_z){
  double a[] = { 10, 11, 9, 10, 10.5, 9.5 };
  double k[] = { 7, 7, 7, 7, 7 };
  /* median 10, |a - 10| = 0 1 1 0 .5 .5: MAD 0.5, scale 0.7413 */
  ck_assert_double_eq_tol(hist_robust_z(12, a, 6), 2.0/(1.4826*0.5), 1e-9);
  ck_assert_double_eq_tol(hist_robust_z(10, a, 6), 0.0, 1e-12);
  /* a constant history: any difference is far outside it */
  ck_assert(hist_robust_z(7.01, k, 5)>1000);
  ck_assert_double_eq_tol(hist_robust_z(7, k, 5), 0.0, 1e-12);
  ck_assert(isnan(hist_robust_z(1, k, 0)));
}
END_TEST

START_TEST(test_mann_whitney){
  double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };
  double c[] = { 1, 2, 2, 3 }, d[] = { 2, 3, 3, 4 };
  double e[] = { 5, 3, 9, 1, 7, 2 }, f[] = { 4, 8, 6, 10, 0, 11 };
  double g[] = { 4, 4, 4 };
  HistMw r = hist_mann_whitney(a, 5, b, 5);
  ck_assert_double_eq_tol(r.u, 25, 1e-12);
  ck_assert_double_eq_tol(r.z, 2.5067182457620487, 1e-9);
  ck_assert_double_eq_tol(r.p, 0.012185780355344818, 1e-9);
  r = hist_mann_whitney(b, 5, a, 5);              /* symmetric */
  ck_assert_double_eq_tol(r.u, 0, 1e-12);
  ck_assert_double_eq_tol(r.z, -2.5067182457620487, 1e-9);
  ck_assert_double_eq_tol(r.p, 0.012185780355344818, 1e-9);
  r = hist_mann_whitney(c, 4, d, 4);              /* ties */
  ck_assert_double_eq_tol(r.u, 13, 1e-12);
  ck_assert_double_eq_tol(r.z, 1.365698202000489, 1e-9);
  ck_assert_double_eq_tol(r.p, 0.17203370892182296, 1e-9);
  r = hist_mann_whitney(e, 6, f, 6);
  ck_assert_double_eq_tol(r.u, 24, 1e-12);
  ck_assert_double_eq_tol(r.p, 0.37847759324467894, 1e-9);
  r = hist_mann_whitney(g, 3, g, 3);              /* all equal */
  ck_assert_double_eq_tol(r.p, 1.0, 1e-12);
  r = hist_mann_whitney(a, 1, b, 5);              /* too small: no p */
  ck_assert(isnan(r.p));
  r = hist_mann_whitney(a, 0, b, 5);
  ck_assert(isnan(r.u));
}
END_TEST

Suite *make_history_suite(void){
  Suite *s = suite_create("history");
  TCase *tc = tcase_create("stats");
  tcase_add_test(tc, test_median_mad);
  tcase_add_test(tc, test_robust_z);
  tcase_add_test(tc, test_mann_whitney);
  suite_add_tcase(s, tc);
  return s;
}
