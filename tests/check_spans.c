/*
** check_spans.c — unit tests for trace_spans.c: the interval store behind
** the GPU and wall-time sweeps (sorting, gathering a rank, fix-ups, ids
** of any size).
*/
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include "trace/trace_spans.h"

static int cmp_ts_end(const void *a, const void *b){
  const Span *x = a, *y = b;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->end<y->end ? -1 : x->end>y->end;
}

/* nRun ascending runs (like one per thread) of n spans in all, plus the
** same spans sorted by qsort as the reference. */
static void check_sort(size_t n, int nRun, unsigned seed){
  Span *a = malloc(n*sizeof(Span)), *b = malloc(n*sizeof(Span));
  size_t per = n/(size_t)nRun + 1;
  srand(seed);
  for(size_t i=0; i<n; i++){
    size_t run = i/per, k = i%per;
    a[i].ts = (int64_t)(k*1000 + (size_t)(rand()%900)) + (int64_t)run;
    if( rand()%7==0 && i>0 && i%per ) a[i].ts = a[i-1].ts;   /* ties */
    if( i%per && a[i].ts<a[i-1].ts ) a[i].ts = a[i-1].ts;     /* ascending */
    a[i].end = a[i].ts + rand()%50;
    b[i] = a[i];
  }
  qsort(b, n, sizeof(Span), cmp_ts_end);
  trace_spans_sort(a, n);
  for(size_t i=0; i<n; i++){
    ck_assert_int_eq(a[i].ts, b[i].ts);
    if( i>0 ) ck_assert_int_le(a[i-1].ts, a[i].ts);
  }
  free(a);
  free(b);
}

/* Few runs are merged, many go to qsort: the same order either way (ts;
** within equal ts the merge keeps arrival order, so only ts is compared). */
START_TEST(test_sort_runs){
  check_sort(1, 1, 1);
  check_sort(1000, 1, 2);          /* already sorted */
  check_sort(1000, 2, 3);
  check_sort(10007, 3, 4);         /* odd number of runs */
  check_sort(100000, 255, 5);
  check_sort(100000, 300, 6);      /* past MAX_RUNS: qsort */
  check_sort(5000, 5000, 7);       /* every element its own run */
}
END_TEST

/* Rows of two files of one rank and one of another: gathered per rank,
** sorted, moved by the fix-up of their file only; kept in memory, and in
** temporary files from the first byte (a spool budget of 0). */
static void gather_rank(int inFile){
  TraceSpans *p;
  SpanGpu *g;
  Span *c;
  int64_t *aRank;
  size_t n;
  int nRank;
  if( inFile ) setenv("PROFAN_SPOOL_KB", "0", 1);
  p = trace_spans_new();
  unsetenv("PROFAN_SPOOL_KB");
  ck_assert_ptr_nonnull(p);
  trace_spans_gpu(p, 10, SPAN_KERNEL, 500, 10, 0, 7);
  trace_spans_gpu(p, 10, SPAN_MEMCPY, 100, 5, 0, 8);
  trace_spans_gpu(p, 10, SPAN_KERNEL, 100, 20, 1, 9);
  trace_spans_gpu(p, 11, SPAN_KERNEL, 300, 1, 0, 7);
  trace_spans_gpu(p, 12, SPAN_KERNEL, 50, 1, 0, 7);
  trace_spans_gpu(p, 10, SPAN_KERNEL, 100, 30, 0, 6);
  trace_spans_cpu(p, 10, SPAN_RUNTIME, 40, 5);
  trace_spans_cpu(p, 11, SPAN_RUNTIME, 20, 5);
  trace_spans_cpu(p, 12, SPAN_CPU, 1, 1);
  trace_spans_file_done(p, 10, 0, 3);
  trace_spans_file_done(p, 11, 1000, 3);     /* shifted by 1000 ns */
  trace_spans_file_done(p, 12, 0, 1);

  aRank = trace_spans_ranks(p, &nRank);
  ck_assert_int_eq(nRank, 2);
  ck_assert_int_eq(aRank[0], 1);
  ck_assert_int_eq(aRank[1], 3);
  free(aRank);

  /* rank 3, device 0 by ts, the longest first at equal ts; then device 1 */
  g = trace_spans_rank_gpu(p, 3, &n);
  ck_assert_uint_eq(n, 5);
  ck_assert_int_eq(g[0].ts, 100); ck_assert_int_eq(g[0].dur, 30);
  ck_assert_int_eq(g[1].ts, 100); ck_assert_int_eq(g[1].kind, SPAN_MEMCPY);
  ck_assert_int_eq(g[2].ts, 500);
  ck_assert_int_eq(g[3].ts, 1300);            /* file 11, shifted */
  ck_assert_int_eq(g[4].device, 1);
  free(g);

  c = trace_spans_rank_cpu(p, 3, SPAN_RUNTIME, &n);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(c[0].ts, 40);
  ck_assert_int_eq(c[1].ts, 1020);
  ck_assert_int_eq(c[1].end, 1025);
  free(c);
  ck_assert_ptr_null(trace_spans_rank_cpu(p, 3, SPAN_CPU, &n));
  ck_assert_uint_eq(n, 0);
  ck_assert_int_eq(trace_spans_check(p, NULL), 0);
  trace_spans_free(p);
}

START_TEST(test_gather_rank){
  gather_rank(0);
  gather_rank(1);
}
END_TEST

/* Every row is kept, whatever its ids: a name id past 2^31 and a device
** past 2^32 come back as they went in (the store once gave up on them and
** the sweeps read the rows back instead). */
START_TEST(test_wide_ids){
  TraceSpans *p = trace_spans_new();
  SpanGpu *g;
  size_t n;
  trace_spans_gpu(p, 1, SPAN_KERNEL, 0, 1, (int64_t)5<<30, (int64_t)1<<40);
  trace_spans_gpu(p, 1, SPAN_KERNEL, 2, 1, -1, 3);
  trace_spans_file_done(p, 1, 0, 0);
  g = trace_spans_rank_gpu(p, 0, &n);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(g[0].device, -1);
  ck_assert_int_eq(g[1].device, (int64_t)5<<30);
  ck_assert_int_eq(g[1].name, (int64_t)1<<40);
  free(g);
  trace_spans_free(p);
}
END_TEST

/* The HTA rows of a file come back on the side asked for only (a NULL
** array pointer: that side is not copied, its count is still given), with
** the file's time shift, from memory and from temporary files alike; the
** store can be read again after a one-sided read. */
static void hta_sides(int inFile){
  TraceSpans *p;
  SpanHtaCpu c = {0}, *aC = &c;
  SpanHtaGpu g = {0}, *aG = &g;
  int64_t rank = -1;
  size_t nC = 99, nG = 99;
  if( inFile ) setenv("PROFAN_SPOOL_KB", "0", 1);
  p = trace_spans_new();
  unsetenv("PROFAN_SPOOL_KB");
  for(int i=0; i<3; i++){
    c.tid = 1; c.ts = 100*i; c.end = 100*i+50; c.id = i+1; c.name = 7;
    trace_spans_hta_cpu(p, 5, &c);
  }
  g.device = 0; g.stream = 7; g.ts = 20; g.end = 30; g.id = 9;
  trace_spans_hta_gpu(p, 5, &g);
  trace_spans_file_done(p, 5, 1000, 2);
  ck_assert_int_eq(trace_spans_hta_file(p, 0, &rank, NULL, &nC, &aG, &nG), 1);
  ck_assert_ptr_ne(aG, &g);             /* a new array */
  ck_assert_int_eq(rank, 2);
  ck_assert_uint_eq(nC, 3);
  ck_assert_uint_eq(nG, 1);
  ck_assert_int_eq(aG[0].ts, 1020);
  ck_assert_int_eq(aG[0].end, 1030);
  ck_assert_int_eq(aG[0].id, 9);
  free(aG);
  aG = &g;
  nC = nG = 99;
  ck_assert_int_eq(trace_spans_hta_file(p, 0, &rank, &aC, &nC, NULL, &nG), 1);
  ck_assert_ptr_ne(aC, &c);
  ck_assert_uint_eq(nC, 3);
  ck_assert_uint_eq(nG, 1);
  for(int i=0; i<3; i++){
    ck_assert_int_eq(aC[i].ts, 1000+100*i);
    ck_assert_int_eq(aC[i].end, 1050+100*i);
    ck_assert_int_eq(aC[i].id, i+1);
  }
  free(aC);
  ck_assert_int_eq(trace_spans_hta_file(p, 1, &rank, NULL, &nC, NULL, &nG), 0);
  ck_assert_int_eq(trace_spans_check(p, NULL), 0);
  trace_spans_free(p);
}

START_TEST(test_hta_sides){
  hta_sides(0);
  hta_sides(1);
}
END_TEST

Suite *make_spans_suite(void){
  Suite *s = suite_create("spans");
  TCase *tc = tcase_create("spans");
  tcase_add_test(tc, test_sort_runs);
  tcase_add_test(tc, test_gather_rank);
  tcase_add_test(tc, test_wide_ids);
  tcase_add_test(tc, test_hta_sides);
  suite_add_tcase(s, tc);
  return s;
}
