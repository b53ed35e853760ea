/*
** check_spool.c — unit tests for spool.c (the linker's byte stores: in
** memory within a budget, a temporary file beyond it) and trace_record.c
** (a TraceEvent as a compact record in a spool).
*/
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/spool.h"
#include "trace/trace_record.h"

/* Byte i of the test stream. */
static char byte_at(int64_t i){ return (char)((i*131 + (i>>9)) & 0xff); }

/* Append nTotal bytes in chunks of 1..3000, then read them back at every
** chunk boundary and in reverse; returns whether the spool went to file. */
static int fill_and_check(Spool *s, int64_t nTotal){
  char buf[3000];
  int64_t off = 0, aOff[4096];
  int nOff = 0;
  while( off<nTotal ){
    int64_t n = 1 + (off*7919 % 3000);
    if( n>nTotal-off ) n = nTotal-off;
    for(int64_t i=0; i<n; i++) buf[i] = byte_at(off+i);
    ck_assert_int_eq(spool_append(s, buf, (size_t)n), 0);
    if( nOff<4096 ) aOff[nOff++] = off;
    off += n;
  }
  ck_assert_int_eq(s->n, nTotal);
  for(int k=nOff-1; k>=0; k--){
    int64_t n = k+1<nOff ? aOff[k+1]-aOff[k] : nTotal-aOff[k];
    const char *z = spool_get(s, aOff[k], (size_t)n);
    int64_t bad = -1;
    ck_assert_ptr_nonnull(z);
    for(int64_t i=0; i<n && bad<0; i++){   /* one check call per chunk */
      if( z[i]!=byte_at(aOff[k]+i) ) bad = aOff[k]+i;
    }
    ck_assert_int_eq(bad, -1);
  }
  return s->f!=NULL;
}

/* Within the budget the bytes stay in memory; past it the spool moves
** them to a file and gives its memory back; after a reset it starts
** in memory again; two spools share one budget. */
START_TEST(test_spool_memory_then_file){
  SpoolBudget b = {0, 1<<20};
  Spool s, t;
  spool_init(&s, &b);
  spool_init(&t, &b);
  ck_assert_int_eq(fill_and_check(&s, 300000), 0);
  ck_assert_int_gt(b.used, 0);
  spool_reset(&s);
  /* crosses the budget part-way: the first MiB moves to the file */
  ck_assert_int_eq(fill_and_check(&s, 5000000), 1);
  ck_assert_int_eq(b.used, 0);
  spool_reset(&s);
  ck_assert_int_eq(s.n, 0);
  ck_assert_ptr_null(s.f);
  ck_assert_int_eq(fill_and_check(&s, 700000), 0);
  /* s holds 1 MiB of the budget now: t cannot grow in memory */
  ck_assert_int_eq(fill_and_check(&t, 200000), 1);
  spool_free(&s);
  spool_free(&t);
  ck_assert_int_eq(b.used, 0);
}
END_TEST

/* A budget of 0 (PROFAN_SPOOL_KB=0): a file from the first byte. */
START_TEST(test_spool_no_budget){
  SpoolBudget b = {0, 0};
  Spool s;
  spool_init(&s, &b);
  ck_assert_int_eq(spool_append(&s, "", 0), 0);
  ck_assert_ptr_null(s.f);
  ck_assert_int_eq(fill_and_check(&s, 3000000), 1);
  spool_free(&s);
}
END_TEST

static void set_strings(TraceEvent *e, const char *zName){
  e->zName = zName;
  e->nName = (int)strlen(zName);
  e->zCat = "cuda_runtime";
  e->zInputDims = "[[64, 3, 224, 224], []]";
  e->zInputTypes = "[\"float\", \"\"]";
  e->zConcreteInputs = NULL;
}

/* Every field of a TraceEvent comes back from its record: each 8-byte
** field set to a value of its own (a field left out of the codec decodes
** as 0), the head fields, the strings (NULL as ""), the CollArgs; and an
** event with every field zero takes the head and its strings only. */
START_TEST(test_record_round_trip){
  SpoolBudget b = {0, 1<<20};
  Spool s;
  TraceEvent e, z, d;
  CollArgs coll;
  int64_t len1, len2;
  int64_t *aI[] = { &e.pid, &e.tid, &e.ts, &e.dur, &e.offset, &e.correlation,
    &e.external_id, &e.cbid, &e.sequence, &e.fwd_tid, &e.grid[0], &e.grid[1],
    &e.grid[2], &e.block[0], &e.block[1], &e.block[2], &e.registers,
    &e.shared_mem, &e.bytes, &e.device_type, &e.device_id, &e.addr,
    &e.total_alloc, &e.total_reserved, &e.python_id, &e.python_parent,
    &e.device, &e.stream, &e.rowId, &e.parentId, &e.selfDur, &e.opId,
    &e.topOpId, &e.runtimeId, &e.step };
  double *aR[] = { &e.blocks_per_sm, &e.warps_per_sm, &e.occupancy, &e.flops };
  int nI = (int)(sizeof(aI)/sizeof(aI[0]));
  int nR = (int)(sizeof(aR)/sizeof(aR[0]));
  memset(&e, 0, sizeof(e));
  memset(&coll, 0, sizeof(coll));
  coll.has = 5; strcpy(coll.zCollName, "allreduce"); coll.seq = 77;
  for(int i=0; i<nI; i++) *aI[i] = (i%2 ? -1 : 1) * (((int64_t)1<<40) + i);
  for(int i=0; i<nR; i++) *aR[i] = 0.5 + i;
  e.kind = TEV_KERNEL; e.ph = 'X'; e.has = 0xdeadbeef;
  e.depth = 3; e.inRecompute = 1; e.linked = 1;
  e.pColl = &coll;
  set_strings(&e, "ncclKernel_AllReduce");
  memset(&z, 0, sizeof(z));
  spool_init(&s, &b);
  ck_assert_int_eq(trace_record_append(&s, &e, &len1), 0);
  ck_assert_int_eq(trace_record_append(&s, &z, &len2), 0);
  ck_assert_int_eq(s.n, len1+len2);
  ck_assert_int_eq(len1 % 8, 0);
  ck_assert_int_eq(trace_record_len(spool_get(&s, 0, TRACE_RECORD_HEAD)), len1);
  ck_assert_int_eq(trace_record_len(spool_get(&s, len1, TRACE_RECORD_HEAD)),
                   len2);
  /* the zero event: head and five empty strings */
  ck_assert_int_eq(len2, TRACE_RECORD_HEAD + 8);

  trace_record_decode(spool_get(&s, 0, (size_t)len1), &d);
  for(int i=0; i<nI; i++){
    int64_t off = (const char*)aI[i] - (const char*)&e;
    int64_t v;
    memcpy(&v, (const char*)&d + off, 8);
    ck_assert_int_eq(v, *aI[i]);
  }
  for(int i=0; i<nR; i++){
    int64_t off = (const char*)aR[i] - (const char*)&e;
    double v;
    memcpy(&v, (const char*)&d + off, 8);
    ck_assert(v==*aR[i]);
  }
  ck_assert_int_eq(d.kind, TEV_KERNEL);
  ck_assert_int_eq(d.ph, 'X');
  ck_assert_uint_eq(d.has, 0xdeadbeef);
  ck_assert_int_eq(d.nName, (int)strlen("ncclKernel_AllReduce"));
  ck_assert_int_eq(d.depth, 3);
  ck_assert_int_eq(d.inRecompute, 1);
  ck_assert_int_eq(d.linked, 1);
  ck_assert_str_eq(d.zName, "ncclKernel_AllReduce");
  ck_assert_str_eq(d.zCat, "cuda_runtime");
  ck_assert_str_eq(d.zInputDims, "[[64, 3, 224, 224], []]");
  ck_assert_str_eq(d.zInputTypes, "[\"float\", \"\"]");
  ck_assert_str_eq(d.zConcreteInputs, "");
  ck_assert_ptr_nonnull(d.pColl);
  ck_assert_int_eq(memcmp(d.pColl, &coll, sizeof(coll)), 0);

  trace_record_decode(spool_get(&s, len1, (size_t)len2), &d);
  ck_assert_ptr_null(d.pColl);
  ck_assert_int_eq(d.ts, 0);
  ck_assert_int_eq(d.step, 0);
  ck_assert_str_eq(d.zName, "");
  spool_free(&s);
}
END_TEST

/* Records read back from the file (budget 0) are the records written. */
START_TEST(test_record_from_file){
  SpoolBudget b = {0, 0};
  Spool s;
  TraceEvent e, d;
  char zName[64];
  int64_t off = 0, len;
  memset(&e, 0, sizeof(e));
  spool_init(&s, &b);
  for(int i=0; i<20000; i++){
    e.ts = 1000*(int64_t)i;
    e.step = i%3 - 1;
    snprintf(zName, sizeof(zName), "op_%d", i);
    set_strings(&e, zName);
    ck_assert_int_eq(trace_record_append(&s, &e, &len), 0);
  }
  ck_assert_ptr_nonnull(s.f);
  for(int i=0; i<20000; i++){
    const char *z = spool_get(&s, off, TRACE_RECORD_HEAD);
    len = trace_record_len(z);
    trace_record_decode(spool_get(&s, off, (size_t)len), &d);
    snprintf(zName, sizeof(zName), "op_%d", i);
    ck_assert_int_eq(d.ts, 1000*(int64_t)i);
    ck_assert_int_eq(d.step, i%3 - 1);
    ck_assert_str_eq(d.zName, zName);
    off += len;
  }
  ck_assert_int_eq(off, s.n);
  spool_free(&s);
}
END_TEST

/* Events with random sparse fields (each 8-byte field zero or not, the
** strings of random lengths, empty or NULL, CollArgs or not) come back
** whole, in memory and from the file, each record as long as its head,
** its non-zero fields, its CollArgs and its strings, padded to 8. */
START_TEST(test_record_sparse){
  static const size_t aOff[] = {
    offsetof(TraceEvent, pid), offsetof(TraceEvent, tid),
    offsetof(TraceEvent, ts), offsetof(TraceEvent, dur),
    offsetof(TraceEvent, offset), offsetof(TraceEvent, correlation),
    offsetof(TraceEvent, external_id), offsetof(TraceEvent, cbid),
    offsetof(TraceEvent, sequence), offsetof(TraceEvent, fwd_tid),
    offsetof(TraceEvent, grid[0]), offsetof(TraceEvent, grid[1]),
    offsetof(TraceEvent, grid[2]), offsetof(TraceEvent, block[0]),
    offsetof(TraceEvent, block[1]), offsetof(TraceEvent, block[2]),
    offsetof(TraceEvent, registers), offsetof(TraceEvent, shared_mem),
    offsetof(TraceEvent, bytes), offsetof(TraceEvent, blocks_per_sm),
    offsetof(TraceEvent, warps_per_sm), offsetof(TraceEvent, occupancy),
    offsetof(TraceEvent, flops), offsetof(TraceEvent, mem_gbps),
    offsetof(TraceEvent, device_type), offsetof(TraceEvent, device_id),
    offsetof(TraceEvent, addr), offsetof(TraceEvent, total_alloc),
    offsetof(TraceEvent, total_reserved), offsetof(TraceEvent, python_id),
    offsetof(TraceEvent, python_parent), offsetof(TraceEvent, device),
    offsetof(TraceEvent, stream), offsetof(TraceEvent, rowId),
    offsetof(TraceEvent, parentId), offsetof(TraceEvent, selfDur),
    offsetof(TraceEvent, opId), offsetof(TraceEvent, topOpId),
    offsetof(TraceEvent, runtimeId), offsetof(TraceEvent, step) };
  enum { N = 3000, NW = (int)(sizeof(aOff)/sizeof(aOff[0])) };
  static char azStr[N][5][80];
  static TraceEvent aEv[N];
  static CollArgs aColl[N];
  static int64_t aLen[N];
  uint64_t r = 0x9e3779b97f4a7c15ULL;
  for(int budget=0; budget<2; budget++){
    SpoolBudget b = {0, budget ? 64<<20 : 0};
    Spool s;
    int64_t off = 0;
    spool_init(&s, &b);
    for(int i=0; i<N; i++){
      TraceEvent *e = &aEv[i];
      const char **apz[5] = { &e->zName, &e->zCat, &e->zInputDims,
                              &e->zInputTypes, &e->zConcreteInputs };
      int64_t want = TRACE_RECORD_HEAD;
      memset(e, 0, sizeof(*e));
      for(int k=0; k<NW; k++){
        uint64_t v;
        r = r*6364136223846793005ULL + 1442695040888963407ULL;
        /* zero, or not: whole, its low half only, its high half only */
        v = (r>>33) % 3==0 ? r ^ (r>>17) : 0;
        if( (r>>36) % 3==1 ) v &= 0xffffffffULL;
        if( (r>>36) % 3==2 ) v &= ~0xffffffffULL;
        if( k==NW-1 && (r>>40)%4==0 ) v = (uint64_t)-1;
        memcpy((char*)e + aOff[k], &v, 8);
        want += v ? 8 : 0;
      }
      for(int k=0; k<5; k++){
        int n;
        r = r*6364136223846793005ULL + 1442695040888963407ULL;
        n = (int)((r>>35) % 80);
        if( (r>>50)%3==0 ) n = 0;
        for(int c=0; c<n; c++) azStr[i][k][c] = (char)('a' + (c*7+i+k)%26);
        azStr[i][k][n] = 0;
        *apz[k] = (k==4 && n==0 && (r>>20)%2) ? NULL : azStr[i][k];
        want += n + 1;
      }
      e->nName = (int)strlen(e->zName);
      e->kind = (TraceEventKind)(i%9);
      e->ph = "XiMsf"[i%5];
      e->has = (uint32_t)r;
      e->depth = i%7; e->inRecompute = i%2; e->linked = (i/2)%2;
      if( (r>>44)%4==0 ){
        memset(&aColl[i], 0, sizeof(aColl[i]));
        aColl[i].has = 1 + i%5;
        aColl[i].seq = i;
        e->pColl = &aColl[i];
        want += sizeof(CollArgs);
      }
      ck_assert_int_eq(trace_record_append(&s, e, &aLen[i]), 0);
      ck_assert_int_eq(aLen[i], (want + 7) & ~(int64_t)7);
    }
    ck_assert_int_eq(s.f!=NULL, budget==0);
    for(int i=0; i<N; i++){
      const TraceEvent *e = &aEv[i];
      TraceEvent d;
      const char *z = spool_get(&s, off, TRACE_RECORD_HEAD);
      ck_assert_int_eq(trace_record_len(z), aLen[i]);
      trace_record_decode(spool_get(&s, off, (size_t)aLen[i]), &d);
      for(int k=0; k<NW; k++){
        ck_assert_int_eq(memcmp((const char*)&d + aOff[k],
                                (const char*)e + aOff[k], 8), 0);
      }
      ck_assert_int_eq(d.kind, e->kind);
      ck_assert_int_eq(d.ph, e->ph);
      ck_assert_uint_eq(d.has, e->has);
      ck_assert_int_eq(d.nName, e->nName);
      ck_assert_int_eq(d.depth, e->depth);
      ck_assert_int_eq(d.inRecompute, e->inRecompute);
      ck_assert_int_eq(d.linked, e->linked);
      ck_assert_str_eq(d.zName, e->zName);
      ck_assert_str_eq(d.zCat, e->zCat);
      ck_assert_str_eq(d.zInputDims, e->zInputDims);
      ck_assert_str_eq(d.zInputTypes, e->zInputTypes);
      ck_assert_str_eq(d.zConcreteInputs,
                       e->zConcreteInputs ? e->zConcreteInputs : "");
      if( e->pColl ){
        ck_assert_ptr_nonnull(d.pColl);
        ck_assert_int_eq(memcmp(d.pColl, e->pColl, sizeof(CollArgs)), 0);
      }else{
        ck_assert_ptr_null(d.pColl);
      }
      off += aLen[i];
    }
    ck_assert_int_eq(off, s.n);
    spool_free(&s);
  }
}
END_TEST

Suite *make_spool_suite(void){
  Suite *s = suite_create("spool");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_spool_memory_then_file);
  tcase_add_test(tc, test_spool_no_budget);
  tcase_add_test(tc, test_record_round_trip);
  tcase_add_test(tc, test_record_from_file);
  tcase_add_test(tc, test_record_sparse);
  suite_add_tcase(s, tc);
  return s;
}
