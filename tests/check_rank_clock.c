/*
** check_rank_clock.c — unit tests of rank_clock.c: clock offsets from
** collective end times (one shifted rank of eight, several shifted ranks,
** two ranks, chained process groups, a rank without a shared collective,
** jitter), centred on the median rank.
*/
#include <check.h>
#include <stdlib.h>
#include "comm/rank_clock.h"

/* nColl collectives of every rank of nRank, all ending at 1e9 + 1e6 k
** plus aShift[r] plus a deterministic jitter of at most jit ns. */
static size_t fill(ClockObs *a, int nRank, int nColl, const int64_t *aShift,
                   int64_t jit){
  size_t n = 0;
  for(int k=0; k<nColl; k++){
    for(int r=0; r<nRank; r++){
      a[n].group = k;
      a[n].rank = r;
      a[n].end = 1000000000LL + 1000000LL*k + aShift[r]
               + (jit ? ((k*7 + r*13) % (2*jit+1)) - jit : 0);
      n++;
    }
  }
  return n;
}

START_TEST(test_one_shifted_rank){
  ClockObs a[8*8];
  ClockEst e[8];
  int64_t sh[8] = { 0, 0, 0, 1000000, 0, 0, 0, 0 };
  size_t n = fill(a, 8, 8, sh, 0);
  ck_assert_int_eq(rank_clock_estimate(a, n, 8, e), 8);
  for(int r=0; r<8; r++){
    ck_assert_int_eq(e[r].offset, r==3 ? 1000000 : 0);
    ck_assert_int_eq(e[r].nUsed, 8);
    ck_assert_int_eq(e[r].spread, 0);
  }
}
END_TEST

START_TEST(test_jitter_and_several_shifts){
  ClockObs a[8*20];
  ClockEst e[8];
  int64_t sh[8] = { 0, 2500000, 0, -700000, 0, 0, 5000000, 0 };
  size_t n = fill(a, 8, 20, sh, 3000);          /* ends within +-3 us */
  rank_clock_estimate(a, n, 8, e);
  for(int r=0; r<8; r++){
    ck_assert_msg(llabs(e[r].offset - sh[r]) <= 3000, "rank %d: %lld", r,
                  (long long)e[r].offset);
    ck_assert(e[r].spread <= 6000);
  }
}
END_TEST

START_TEST(test_two_ranks_centred){
  ClockObs a[2*5];
  ClockEst e[2];
  int64_t sh[2] = { 0, 400000 };
  size_t n = fill(a, 2, 5, sh, 0);
  rank_clock_estimate(a, n, 2, e);
  /* only the difference is known: centred on the median rank */
  ck_assert_int_eq(e[1].offset - e[0].offset, 400000);
  ck_assert_int_eq(e[0].offset, -200000);
}
END_TEST

START_TEST(test_chained_groups_and_a_loner){
  /* groups {0,1} and {1,2}: rank 2's clock is tied to rank 0 through
  ** rank 1; rank 3 shares nothing */
  ClockObs a[13];
  ClockEst e[4];
  int64_t sh[3] = { 0, 300000, 900000 };
  size_t n = 0;
  for(int k=0; k<3; k++){
    a[n++] = (ClockObs){ 10+k, 5000000 + sh[0], 0 };
    a[n++] = (ClockObs){ 10+k, 5000000 + sh[1], 1 };
    a[n++] = (ClockObs){ 20+k, 9000000 + sh[1], 1 };
    a[n++] = (ClockObs){ 20+k, 9000000 + sh[2], 2 };
  }
  a[n++] = (ClockObs){ 99, 1, 3 };
  ck_assert_int_eq(rank_clock_estimate(a, n, 4, e), 3);
  /* pairs chained through a rank converge by halving: within 2 ns */
  ck_assert(llabs(e[1].offset - e[0].offset - 300000) <= 2);
  ck_assert(llabs(e[2].offset - e[1].offset - 600000) <= 2);
  ck_assert_int_eq(e[3].offset, 0);
  ck_assert_int_eq(e[3].nUsed, 0);
  ck_assert_int_eq(e[1].nUsed, 6);
}
END_TEST

START_TEST(test_empty){
  ClockEst e[2];
  ck_assert_int_eq(rank_clock_estimate(NULL, 0, 2, e), 0);
  ck_assert_int_eq(e[0].offset, 0);
  ck_assert_int_eq(e[1].nUsed, 0);
}
END_TEST

Suite *make_rank_clock_suite(void){
  Suite *s = suite_create("rank_clock");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_one_shifted_rank);
  tcase_add_test(tc, test_jitter_and_several_shifts);
  tcase_add_test(tc, test_two_ranks_centred);
  tcase_add_test(tc, test_chained_groups_and_a_loner);
  tcase_add_test(tc, test_empty);
  suite_add_tcase(s, tc);
  return s;
}
