/*
** check_hta.c — unit tests for hta_path.c, the critical-path walk: a path
** drawn by hand, CPU nesting that breaks the rules, the no-progress guard
** (zero-length ops waiting on each other across streams), empty ranks.
** Every walk must tile its window exactly.
*/
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include "analysis/hta_path.h"

/* Segments in time order, contiguous, covering [t0, t1]. */
static void check_tiles(const HpSeg *a, int n, int64_t t0, int64_t t1){
  int64_t t = t0;
  for(int i=0; i<n; i++){
    ck_assert_int_eq(a[i].ts, t);
    ck_assert_int_gt(a[i].dur, 0);
    t += a[i].dur;
  }
  ck_assert_int_eq(t, t1);
}

static HpCpu cpu(int64_t tid, int64_t ts, int64_t end, int64_t id, int role){
  HpCpu e = { 0, tid, ts, end, id, id, role };
  return e;
}

static HpGpu gpu(int64_t stream, int64_t ts, int64_t end, int64_t id,
                 int64_t lts){
  HpGpu g = { 0, 0, stream, ts, end, id, id, HP_KERNEL, 0, lts>=0, lts, 1,
              0, 0, 0 };
  return g;
}

/* The hand-drawn step of tests/e2e/hta_synth.py (hand_path), in µs. */
START_TEST(test_hand_path){
  HpCpu aC[6];
  HpGpu aG[2];
  static const int aCls[] = { HP_CPU_OP, HP_LAUNCH, HP_KERNEL, HP_KERNEL,
                              HP_SYNC, HP_CPU_OP };
  static const int64_t aDur[] = { 10, 15, 275, 100, 20, 180 };
  HpRank *r;
  HpSeg *a;
  int n = 0;
  aC[0] = cpu(1, 0, 100, 1, HP_CPU_OP);        /* opA */
  aC[1] = cpu(1, 10, 20, 2, HP_LAUNCH);        /* launch K1 */
  aC[2] = cpu(1, 30, 35, 3, HP_LAUNCH);        /* launch K2 */
  aC[3] = cpu(1, 100, 150, 4, HP_CPU_OP);      /* opB */
  aC[4] = cpu(1, 150, 420, 5, HP_SYNC);        /* cudaDeviceSynchronize */
  aC[5] = cpu(1, 420, 600, 6, HP_CPU_OP);      /* opC */
  aG[0] = gpu(7, 25, 300, 10, 10);             /* K1 */
  aG[1] = gpu(9, 300, 400, 11, 30);            /* K2, waits on K1 */
  hta_path_sort(aC, 6, aG, 2);
  r = hta_path_rank_init(aC, 6, aG, 2, 1, 30);
  a = hta_path_walk(r, 0, 600, 0, &n);
  check_tiles(a, n, 0, 600);
  ck_assert_int_eq(n, 6);
  for(int i=0; i<n; i++){
    ck_assert_int_eq(a[i].cls, aCls[i]);
    ck_assert_int_eq(a[i].dur, aDur[i]);
  }
  free(a);
  hta_path_rank_free(r);
}
END_TEST

/* A child running past its parent's end is cut there; a gap follows. */
START_TEST(test_bad_nesting){
  HpCpu aC[2];
  HpRank *r;
  HpSeg *a;
  int n = 0;
  aC[0] = cpu(1, 0, 100, 1, HP_CPU_OP);
  aC[1] = cpu(1, 50, 150, 2, HP_CPU_OP);
  hta_path_sort(aC, 2, NULL, 0);
  r = hta_path_rank_init(aC, 2, NULL, 0, 1, 30);
  a = hta_path_walk(r, 0, 200, 0, &n);
  check_tiles(a, n, 0, 200);
  ck_assert_int_eq(n, 3);
  ck_assert_int_eq(a[0].srcId, 1);            /* [0,50) op 1 */
  ck_assert_int_eq(a[1].srcId, 2);            /* [50,100) op 2, cut */
  ck_assert_int_eq(a[2].cls, HP_IDLE);        /* [100,200) */
  free(a);
  hta_path_rank_free(r);
}
END_TEST

/* Zero-length kernels on two streams, each "waiting" on the other at the
** same instant: the walk must stop and still tile the window. */
START_TEST(test_no_progress_guard){
  HpGpu aG[4];
  HpRank *r;
  HpSeg *a;
  int n = 0;
  aG[0] = gpu(1, 100, 100, 1, 0);
  aG[1] = gpu(2, 100, 100, 2, 0);
  aG[2] = gpu(1, 100, 100, 3, 0);
  aG[3] = gpu(2, 100, 100, 4, 0);
  hta_path_sort(NULL, 0, aG, 4);
  r = hta_path_rank_init(NULL, 0, aG, 4, 1, 30);
  a = hta_path_walk(r, 0, 150, 1, &n);
  check_tiles(a, n, 0, 150);
  free(a);
  hta_path_rank_free(r);
}
END_TEST

/* A launch that found its queue full waits for the GPU: three 100 µs
** kernels back to back on stream 7; the CPU's launch call [50, 202)
** (call 20, of kernel 4, marked blocked) returned 2 µs after kernel 2
** ended.  Walking back from 202: launch 2, kernel 2 (100), kernel 1
** (100, its stream busy since it was launched before) ... down to 0. */
START_TEST(test_blocked_launch){
  HpCpu aC[1];
  HpGpu aG[3];
  HpRank *r;
  HpSeg *a;
  int n = 0;
  aC[0] = cpu(1, 50, 202, 20, HP_LAUNCH);
  aG[0] = gpu(7, 0, 100, 10, -1);             /* launched before */
  aG[1] = gpu(7, 100, 200, 11, -1);
  aG[2] = gpu(7, 200, 300, 12, 50);           /* the blocked call's op */
  aG[2].rt = 20;
  aG[2].blocked = 1;
  hta_path_sort(aC, 1, aG, 3);
  r = hta_path_rank_init(aC, 1, aG, 3, 1, 30);
  a = hta_path_walk(r, 0, 202, 0, &n);
  check_tiles(a, n, 0, 202);
  ck_assert_int_eq(a[n-1].cls, HP_LAUNCH);
  ck_assert_int_eq(a[n-1].dur, 2);
  ck_assert_int_eq(a[n-2].cls, HP_KERNEL);
  ck_assert_int_eq(a[n-2].dur, 100);
  ck_assert_int_eq(a[n-2].srcId, 11);
  free(a);
  hta_path_rank_free(r);
  /* not blocked: the whole call is launch time */
  aG[2].blocked = 0;
  for(int i=0; i<3; i++) if( aG[i].id==12 ) aG[i].blocked = 0;
  r = hta_path_rank_init(aC, 1, aG, 3, 1, 30);
  a = hta_path_walk(r, 50, 202, 0, &n);
  ck_assert_int_eq(n, 1);
  ck_assert_int_eq(a[0].cls, HP_LAUNCH);
  free(a);
  hta_path_rank_free(r);
}
END_TEST

START_TEST(test_empty_rank){
  HpRank *r = hta_path_rank_init(NULL, 0, NULL, 0, 1, 30);
  int n = 0;
  HpSeg *a = hta_path_walk(r, 10, 70, 0, &n);
  check_tiles(a, n, 10, 70);
  ck_assert_int_eq(n, 1);
  ck_assert_int_eq(a[0].cls, HP_IDLE);
  free(a);
  hta_path_rank_free(r);
}
END_TEST

Suite *make_hta_suite(void){
  Suite *s = suite_create("hta");
  TCase *tc = tcase_create("path");
  tcase_add_test(tc, test_hand_path);
  tcase_add_test(tc, test_bad_nesting);
  tcase_add_test(tc, test_no_progress_guard);
  tcase_add_test(tc, test_empty_rank);
  tcase_add_test(tc, test_blocked_launch);
  suite_add_tcase(s, tc);
  return s;
}
