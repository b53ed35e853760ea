/*
** check_link.c — unit tests for the in-stream linker (link_trace.c): op
** nesting and self time, equal start times, runtime call -> op, kernel ->
** runtime call in both orders, CUDA-graph fan-out, steps, and the fallback
** flags when the file's order breaks the linker's assumptions.
*/
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace/link_trace.h"

typedef struct Out {
  int n;
  TraceEvent a[64];
  char az[64][32];
} Out;

static int collect(void *ctx, const TraceEvent *e){
  Out *o = ctx;
  if( o->n<64 ){
    o->a[o->n] = *e;
    snprintf(o->az[o->n], 32, "%s", e->zName);
    o->n++;
  }
  return 0;
}

/* The emitted event named z (first one). */
static const TraceEvent *find(const Out *o, const char *z){
  for(int i=0; i<o->n; i++) if( strcmp(o->az[i], z)==0 ) return &o->a[i];
  ck_abort_msg("event %s not emitted", z);
  return NULL;
}

static TraceEvent ev(TraceEventKind k, const char *zName, int64_t tid,
                     int64_t ts, int64_t dur, int64_t corr){
  TraceEvent e;
  memset(&e, 0, sizeof(e));
  e.kind = k;
  e.ph = 'X';
  e.zName = zName;
  e.nName = (int)strlen(zName);
  e.zCat = "";
  e.zInputDims = e.zInputTypes = e.zConcreteInputs = "";
  e.tid = tid;
  e.ts = ts;
  e.dur = dur;
  e.has = TF_TS | TF_DUR | TF_TID;
  if( corr ){ e.correlation = corr; e.has |= TF_CORRELATION; }
  return e;
}

static void feed(Linker *p, TraceEvent e){
  PfError err = {0};
  ck_assert_int_eq(link_trace_event(p, &e, &err), 0);
}

START_TEST(test_nesting_self_time_and_launch){
  Out o;
  PfError err = {0};
  Linker *p;
  memset(&o, 0, sizeof(o));
  p = link_trace_new((int64_t)1<<32, collect, &o);
  feed(p, ev(TEV_USER_ANNOTATION, "ProfilerStep#7", 1, 0, 1000, 0));
  feed(p, ev(TEV_CPU_OP, "outer", 1, 10, 100, 0));
  feed(p, ev(TEV_CPU_OP, "inner", 1, 20, 30, 0));
  feed(p, ev(TEV_CPU_OP, "inner2", 1, 60, 20, 0));
  feed(p, ev(TEV_CPU_OP, "after", 1, 200, 10, 0));
  /* kernel first, then its launch (the usual Kineto order) */
  feed(p, ev(TEV_KERNEL, "k1", 7, 500, 5, 42));
  feed(p, ev(TEV_RUNTIME, "cudaLaunchKernel", 1, 25, 2, 42));
  /* launch first, kernel after */
  feed(p, ev(TEV_RUNTIME, "cudaLaunchKernel2", 1, 65, 2, 43));
  feed(p, ev(TEV_KERNEL, "k2", 7, 600, 5, 43));
  /* a kernel whose launch never comes */
  feed(p, ev(TEV_KERNEL, "k3", 7, 700, 5, 99));
  ck_assert_int_eq(link_trace_finish(p, &err), 0);
  {
    const TraceEvent *outer = find(&o, "outer"), *inner = find(&o, "inner");
    const TraceEvent *inner2 = find(&o, "inner2"), *after = find(&o, "after");
    const TraceEvent *rt = find(&o, "cudaLaunchKernel");
    const TraceEvent *rt2 = find(&o, "cudaLaunchKernel2");
    const TraceEvent *k1 = find(&o, "k1"), *k2 = find(&o, "k2");
    const TraceEvent *k3 = find(&o, "k3");
    ck_assert_int_eq(outer->rowId, (1LL<<32) + 1);
    ck_assert_int_eq(outer->parentId, 0);
    ck_assert_int_eq(outer->depth, 0);
    ck_assert_int_eq(outer->selfDur, 100 - 30 - 20);
    ck_assert_int_eq(outer->step, 7);
    ck_assert_int_eq(inner->parentId, outer->rowId);
    ck_assert_int_eq(inner->depth, 1);
    ck_assert_int_eq(inner2->parentId, outer->rowId);
    ck_assert_int_eq(after->parentId, 0);
    ck_assert_int_eq(rt->opId, inner->rowId);
    ck_assert_int_eq(rt->topOpId, outer->rowId);
    ck_assert_int_eq(rt2->opId, inner2->rowId);
    ck_assert_int_eq(k1->runtimeId, rt->rowId);
    ck_assert_int_eq(k1->opId, inner->rowId);
    ck_assert_int_eq(k1->step, 7);
    ck_assert_int_eq(k2->runtimeId, rt2->rowId);
    ck_assert_int_eq(k2->opId, inner2->rowId);
    ck_assert(!k3->linked);
    ck_assert(!link_trace_stats(p)->needCpuSweep);
    ck_assert(!link_trace_stats(p)->needSteps);
  }
  link_trace_free(p);
}
END_TEST

START_TEST(test_equal_start_longest_is_parent){
  Out o;
  PfError err = {0};
  Linker *p;
  memset(&o, 0, sizeof(o));
  p = link_trace_new((int64_t)2<<32, collect, &o);
  /* the child comes first in the file, with the same start */
  feed(p, ev(TEV_CPU_OP, "child", 1, 10, 5, 0));
  feed(p, ev(TEV_CPU_OP, "parent", 1, 10, 50, 0));
  feed(p, ev(TEV_RUNTIME, "launch", 1, 12, 1, 5));
  ck_assert_int_eq(link_trace_finish(p, &err), 0);
  ck_assert_int_eq(find(&o, "child")->parentId, find(&o, "parent")->rowId);
  ck_assert_int_eq(find(&o, "parent")->selfDur, 45);
  ck_assert_int_eq(find(&o, "launch")->opId, find(&o, "child")->rowId);
  link_trace_free(p);
}
END_TEST

/* Two ops of one interval (whole microseconds make them common): the
** lower External id is the caller, whichever the file writes first. */
START_TEST(test_equal_interval_external_id){
  Out o;
  PfError err = {0};
  Linker *p;
  TraceEvent a = ev(TEV_CPU_OP, "aten::slice", 1, 10, 2, 0);
  TraceEvent b = ev(TEV_CPU_OP, "aten::narrow", 1, 10, 2, 0);
  a.external_id = 11; a.has |= TF_EXTERNAL_ID;
  b.external_id = 10; b.has |= TF_EXTERNAL_ID;
  memset(&o, 0, sizeof(o));
  p = link_trace_new((int64_t)2<<32, collect, &o);
  feed(p, a);
  feed(p, b);
  feed(p, ev(TEV_RUNTIME, "launch", 1, 11, 1, 5));
  ck_assert_int_eq(link_trace_finish(p, &err), 0);
  ck_assert_int_eq(find(&o, "aten::slice")->parentId,
                   find(&o, "aten::narrow")->rowId);
  ck_assert_int_eq(find(&o, "aten::narrow")->depth, 0);
  ck_assert_int_eq(find(&o, "launch")->opId, find(&o, "aten::slice")->rowId);
  link_trace_free(p);
}
END_TEST

START_TEST(test_graph_launch_fans_out){
  Out o;
  PfError err = {0};
  Linker *p;
  memset(&o, 0, sizeof(o));
  p = link_trace_new((int64_t)3<<32, collect, &o);
  feed(p, ev(TEV_CPU_OP, "replay", 1, 0, 100, 0));
  feed(p, ev(TEV_RUNTIME, "cudaGraphLaunch", 1, 10, 5, 77));
  feed(p, ev(TEV_KERNEL, "ga", 7, 20, 5, 77));
  feed(p, ev(TEV_KERNEL, "gb", 7, 30, 5, 77));
  ck_assert_int_eq(link_trace_finish(p, &err), 0);
  ck_assert_int_eq(find(&o, "ga")->runtimeId, find(&o, "cudaGraphLaunch")->rowId);
  ck_assert_int_eq(find(&o, "gb")->runtimeId, find(&o, "cudaGraphLaunch")->rowId);
  ck_assert_int_eq(find(&o, "gb")->opId, find(&o, "replay")->rowId);
  link_trace_free(p);
}
END_TEST

START_TEST(test_out_of_order_flags){
  Out o;
  PfError err = {0};
  Linker *p;
  memset(&o, 0, sizeof(o));
  p = link_trace_new((int64_t)4<<32, collect, &o);
  feed(p, ev(TEV_CPU_OP, "a", 1, 100, 10, 0));
  feed(p, ev(TEV_RUNTIME, "r", 1, 105, 1, 1));
  /* an op that starts before a call already linked: db sweep needed */
  feed(p, ev(TEV_CPU_OP, "late", 1, 50, 100, 0));
  /* a step annotation after the rows it holds: they waited for it */
  feed(p, ev(TEV_USER_ANNOTATION, "ProfilerStep#1", 1, 0, 1000, 0));
  ck_assert_int_eq(link_trace_finish(p, &err), 0);
  ck_assert(link_trace_stats(p)->needCpuSweep);
  ck_assert(!link_trace_stats(p)->needSteps);
  ck_assert_int_eq(find(&o, "a")->step, 1);
  ck_assert_int_eq(find(&o, "r")->step, 1);
  link_trace_free(p);
}
END_TEST

/* dlrm's order: another thread's ops, calls and kernels before the main
** thread's ProfilerStep annotations.  The rows wait in the step hold and
** go out with their step, the kernels with their launch's (through the
** held call, and through the call cache for a kernel that comes after
** the release); rows outside every step go out at the end without one. */
START_TEST(test_step_after_other_threads_rows){
  Out o;
  PfError err = {0};
  Linker *p;
  memset(&o, 0, sizeof(o));
  p = link_trace_new((int64_t)5<<32, collect, &o);
  feed(p, ev(TEV_CPU_OP, "bw", 2, 120, 50, 0));
  feed(p, ev(TEV_KERNEL, "kb", 7, 400, 5, 11));      /* before its launch */
  feed(p, ev(TEV_RUNTIME, "launch_b", 2, 130, 2, 11));
  feed(p, ev(TEV_CPU_OP, "bw2", 2, 200, 10, 0));
  feed(p, ev(TEV_CPU_OP, "bw_out", 2, 5000, 10, 0)); /* in no step */
  /* bw went out (closed by bw2) before the step: it waited */
  feed(p, ev(TEV_USER_ANNOTATION, "ProfilerStep#3", 1, 100, 200, 0));
  feed(p, ev(TEV_CPU_OP, "fw", 1, 110, 5, 0));
  feed(p, ev(TEV_KERNEL, "kb2", 7, 420, 5, 11));     /* the call, cached */
  feed(p, ev(TEV_USER_ANNOTATION, "ProfilerStep#4", 1, 300, 200, 0));
  ck_assert_int_eq(link_trace_finish(p, &err), 0);
  ck_assert_int_eq(find(&o, "bw")->step, 3);
  ck_assert_int_eq(find(&o, "launch_b")->step, 3);
  ck_assert_int_eq(find(&o, "kb")->step, 3);
  ck_assert_int_eq(find(&o, "kb2")->step, 3);
  ck_assert_int_eq(find(&o, "kb")->runtimeId, find(&o, "launch_b")->rowId);
  ck_assert_int_eq(find(&o, "fw")->step, 3);
  ck_assert_int_eq(find(&o, "bw_out")->step, -1);
  ck_assert(!link_trace_stats(p)->needSteps);
  ck_assert_int_gt(link_trace_stats(p)->nHeld, 0);
  link_trace_free(p);
}
END_TEST

/* The tracelens-mi300 order: the annotations of two steps come before
** the other thread's rows of both.  The first step sends out the held
** rows it holds; those of the second (an op, a call, the call's kernel)
** wait on for it, and nothing is left to link again from the rows. */
START_TEST(test_step_keeps_the_rows_of_a_later_step){
  Out o;
  PfError err = {0};
  Linker *p;
  memset(&o, 0, sizeof(o));
  p = link_trace_new((int64_t)9<<32, collect, &o);
  feed(p, ev(TEV_CPU_OP, "a1", 2, 120, 1, 0));
  feed(p, ev(TEV_CPU_OP, "a2", 2, 350, 10, 0));
  feed(p, ev(TEV_RUNTIME, "r2", 2, 352, 2, 21));
  feed(p, ev(TEV_KERNEL, "k2", 7, 400, 5, 21));
  feed(p, ev(TEV_CPU_OP, "a3", 2, 5000, 10, 0));    /* in no step */
  feed(p, ev(TEV_USER_ANNOTATION, "ProfilerStep#3", 1, 100, 200, 0));
  feed(p, ev(TEV_CPU_OP, "fw", 1, 110, 5, 0));
  ck_assert_int_eq(find(&o, "a1")->step, 3);
  feed(p, ev(TEV_USER_ANNOTATION, "ProfilerStep#4", 1, 300, 200, 0));
  ck_assert_int_eq(link_trace_finish(p, &err), 0);
  ck_assert_int_eq(find(&o, "a2")->step, 4);
  ck_assert_int_eq(find(&o, "r2")->step, 4);
  ck_assert_int_eq(find(&o, "k2")->step, 4);
  ck_assert_int_eq(find(&o, "k2")->runtimeId, find(&o, "r2")->rowId);
  ck_assert_int_eq(find(&o, "a3")->step, -1);
  ck_assert_int_eq(find(&o, "fw")->step, 3);
  ck_assert(!link_trace_stats(p)->needSteps);
  link_trace_free(p);
}
END_TEST

/* A step after more rows than the hold keeps before a file's first step
** (16 MiB: a trace without steps stops holding): the rows that went out
** without it make the file one to link again from its rows; so do
** overlapping steps. */
START_TEST(test_late_step_after_the_hold_and_overlap){
  Out o;
  PfError err = {0};
  Linker *p;
  memset(&o, 0, sizeof(o));
  p = link_trace_new((int64_t)6<<32, collect, &o);
  for(int i=0; i<400000; i++){
    feed(p, ev(TEV_CPU_OP, i==0 ? "bw0" : "bw", 2, 120 + 2*i, 1, 0));
  }
  feed(p, ev(TEV_RUNTIME, "r2", 2, 2000000, 1, 0));
  feed(p, ev(TEV_USER_ANNOTATION, "ProfilerStep#3", 1, 100, 1000000, 0));
  ck_assert_int_eq(link_trace_finish(p, &err), 0);
  ck_assert_int_eq(find(&o, "bw0")->step, -1);
  ck_assert(link_trace_stats(p)->needSteps);
  ck_assert_int_gt(link_trace_stats(p)->nHeld, 0);
  link_trace_free(p);
  memset(&o, 0, sizeof(o));
  p = link_trace_new((int64_t)7<<32, collect, &o);
  feed(p, ev(TEV_USER_ANNOTATION, "ProfilerStep#3", 1, 100, 200, 0));
  feed(p, ev(TEV_USER_ANNOTATION, "ProfilerStep#3", 1, 100, 200, 0));
  ck_assert_int_eq(link_trace_finish(p, &err), 0);
  ck_assert(!link_trace_stats(p)->needSteps);     /* the same range twice */
  link_trace_free(p);
  memset(&o, 0, sizeof(o));
  p = link_trace_new((int64_t)8<<32, collect, &o);
  feed(p, ev(TEV_USER_ANNOTATION, "ProfilerStep#3", 1, 100, 200, 0));
  feed(p, ev(TEV_USER_ANNOTATION, "ProfilerStep#4", 1, 250, 200, 0));
  ck_assert_int_eq(link_trace_finish(p, &err), 0);
  ck_assert(link_trace_stats(p)->needSteps);
  link_trace_free(p);
}
END_TEST

START_TEST(test_runtime_rewind){
  Out o;
  PfError err = {0};
  Linker *p;
  memset(&o, 0, sizeof(o));
  p = link_trace_new((int64_t)5<<32, collect, &o);
  feed(p, ev(TEV_CPU_OP, "a", 1, 0, 10, 0));
  feed(p, ev(TEV_CPU_OP, "b", 1, 20, 10, 0));
  feed(p, ev(TEV_RUNTIME, "rb", 1, 25, 1, 1));
  feed(p, ev(TEV_RUNTIME, "ra", 1, 5, 1, 2));     /* earlier than rb */
  ck_assert_int_eq(link_trace_finish(p, &err), 0);
  ck_assert_int_eq(find(&o, "rb")->opId, find(&o, "b")->rowId);
  ck_assert_int_eq(find(&o, "ra")->opId, find(&o, "a")->rowId);
  ck_assert_int_eq(link_trace_stats(p)->nRewinds, 1);
  link_trace_free(p);
}
END_TEST

/* A 2021 trace that writes its ops after the calls, in END order: the
** calls and GPU records wait until the end of the file, then are linked to
** the ops (no database sweep). */
START_TEST(test_calls_before_ops){
  Out o;
  PfError err = {0};
  Linker *p;
  memset(&o, 0, sizeof(o));
  p = link_trace_new((int64_t)7<<32, collect, &o);
  feed(p, ev(TEV_KERNEL, "k1", 7, 500, 5, 42));
  feed(p, ev(TEV_RUNTIME, "r1", 1, 25, 2, 42));
  feed(p, ev(TEV_RUNTIME, "r2", 1, 65, 2, 43));
  feed(p, ev(TEV_KERNEL, "k2", 7, 600, 5, 43));
  feed(p, ev(TEV_CPU_OP, "inner", 1, 20, 30, 0));
  feed(p, ev(TEV_CPU_OP, "outer", 1, 10, 100, 0));
  ck_assert_int_eq(link_trace_finish(p, &err), 0);
  {
    const TraceEvent *outer = find(&o, "outer"), *inner = find(&o, "inner");
    const TraceEvent *r1 = find(&o, "r1"), *r2 = find(&o, "r2");
    ck_assert_int_eq(inner->parentId, outer->rowId);
    ck_assert_int_eq(r1->opId, inner->rowId);
    ck_assert_int_eq(r1->topOpId, outer->rowId);
    ck_assert_int_eq(r2->opId, outer->rowId);
    ck_assert_int_eq(find(&o, "k1")->runtimeId, r1->rowId);
    ck_assert_int_eq(find(&o, "k1")->opId, inner->rowId);
    ck_assert_int_eq(find(&o, "k2")->opId, outer->rowId);
  }
  ck_assert(!link_trace_stats(p)->needCpuSweep);
  link_trace_free(p);
}
END_TEST

/* Kernels counted by the emit callback of test_late_records: linked to
** the call of their correlation (call k has correlation k and row id
** idBase + k there, idBase = 6 << 32). */
typedef struct KCount { int64_t nKernel, nRight, nUnlinked; } KCount;

static int count_kernels(void *ctx, const TraceEvent *e){
  KCount *k = ctx;
  if( e->kind!=TEV_KERNEL ) return 0;
  k->nKernel++;
  if( !e->linked || e->runtimeId==0 ) k->nUnlinked++;
  else if( e->runtimeId==(6LL<<32) + e->correlation ) k->nRight++;
  return 0;
}

/* GPU records whose launch comes after they left the window of waiting
** records, and records whose call is older than the two generations of
** calls kept in memory (in the spill), are linked at the end of the
** file, each to its own call; a record with no call stays unlinked. */
START_TEST(test_late_records){
  PfError err = {0};
  KCount k = {0, 0, 0};
  Linker *p = link_trace_new((int64_t)6<<32, count_kernels, &k);
  /* an op first: calls are linked as they come (no call-defer mode) */
  feed(p, ev(TEV_CPU_OP, "op", 1, 0, 1, 0));
  /* 5000 kernels before their launches: 904 leave the window */
  for(int i=1; i<=5000; i++) feed(p, ev(TEV_KERNEL, "early", 7, i, 1, i));
  ck_assert_int_eq(link_trace_stats(p)->nPendingMax, 4096);
  /* 200,000 launches: the oldest go to the spill */
  for(int i=1; i<=200000; i++){
    feed(p, ev(TEV_RUNTIME, "launch", 1, 10000+i, 1, i));
  }
  /* kernels far after their launch (spilled), and one with no launch */
  for(int i=10; i<20; i++) feed(p, ev(TEV_KERNEL, "far", 7, 300000+i, 1, i));
  feed(p, ev(TEV_KERNEL, "orphan", 7, 400000, 1, 999999));
  ck_assert_int_eq(link_trace_finish(p, &err), 0);
  ck_assert_int_eq(k.nKernel, 5011);
  ck_assert_int_eq(k.nRight, 5010);
  ck_assert_int_eq(k.nUnlinked, 1);
  ck_assert_int_eq(link_trace_stats(p)->nLate, 904 + 10 + 1);
  link_trace_free(p);
}
END_TEST

Suite *make_link_suite(void){
  Suite *s = suite_create("link");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_nesting_self_time_and_launch);
  tcase_add_test(tc, test_equal_start_longest_is_parent);
  tcase_add_test(tc, test_equal_interval_external_id);
  tcase_add_test(tc, test_graph_launch_fans_out);
  tcase_add_test(tc, test_out_of_order_flags);
  tcase_add_test(tc, test_step_after_other_threads_rows);
  tcase_add_test(tc, test_step_keeps_the_rows_of_a_later_step);
  tcase_add_test(tc, test_runtime_rewind);
  tcase_add_test(tc, test_calls_before_ops);
  tcase_add_test(tc, test_late_records);
  suite_add_tcase(s, tc);
  /* tagged "large": 400,000 rows to fill the 16 MiB hold, 1 CPU-s
  ** natively but 37 under valgrind, which leaves the tag out
  ** (scripts/analyze.sh, CK_EXCLUDE_TAGS); every other run has it */
  tc = tcase_create("large");
  tcase_set_tags(tc, "large");
  tcase_add_test(tc, test_late_step_after_the_hold_and_overlap);
  suite_add_tcase(s, tc);
  return s;
}
