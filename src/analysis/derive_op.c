/*
** derive_op.c — fills the operator model's per-run tables of schema
** 022-op-model-stored.sql from their definitions there (027, 028): the
** run's operator signatures (op_sig from op_sig_calc) and their model
** (op_sig_model from op_sig_model_calc), op_gpu_time from the view
** op_call_time_calc (each call's kernel/memset/memcpy union and
** signature) and op_run_metric from op_metric_calc (GEMM and attention
** efficiency, kernels without a launch, exposed memcpy time).
**
** op_sig, op_gpu_time and the kernels-without-launch metric come from
** the operator calls kept of the run's rows (op_store.c, owned by the
** spans of trace_spans.c, fed by the writer or the stored-rows feeder:
** trace_keep.h), and the exposed memcpy time from the GPU spans: on the
** 10x A100 bench trace the views took 1.0 s of CPU here, mostly sorting
** and reading back rows the writer had just written.  The views
** (op_sig_calc, op_call_time_calc, op_metric_calc) stay in the schema as
** their specification: tests/e2e/test_oracle.py checks these rows
** against them on every fixture and order.  The model and the roofline
** metrics are the views' (op_sig_model_calc, op_metric_roof_calc): they
** have no other implementation.
**
** Pipeline position: "derive", called by derive_run.c after
** derive_hta_run, inside the ingest transaction.  Writes only op_gpu_time,
** op_sig, op_sig_model, op_run_metric and (emptied again) op_target.
** Every view it reads is scoped to the op_target run (or to the
** signatures not yet modeled), so its cost does not grow with the runs
** already stored.
*/
#include "analysis/derive_op.h"
#include "core/db.h"
#include "trace/op_store.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* With PROFAN_TIMING set, print the time since *pT1 (wall) and the CPU
** time of this thread since *pC1, and reset both. */
static void timing(const char *zWhat, double *pT1, double *pC1){
  if( getenv("PROFAN_TIMING") ){
    double t = util_now_ms(), c = util_thread_cpu_ms();
    fprintf(stderr, "profan:   op %-24s%8.1f ms, cpu %8.1f ms\n", zWhat,
            t - *pT1, c - *pC1);
    *pT1 = t;
    *pC1 = c;
  }
}

/* Add [ts, te) to a union whose spans so far started at or before ts
** (*pEnd: their running end, when *pHas). */
static void union_add(int64_t *pEnd, int64_t *pNs, int *pHas, int64_t ts,
                      int64_t te){
  int64_t lo = (*pHas && *pEnd>ts) ? *pEnd : ts;
  if( te>lo ) *pNs += te - lo;
  if( !*pHas || te>*pEnd ) *pEnd = te;
  *pHas = 1;
}

/* The exposed memcpy time of op_metric_memcpy_calc from the GPU spans:
** per (rank, device), |kernels U copies| - |kernels| when it has a copy
** (memsets are neither), summed.  Spans come sorted by device and start,
** so each union is the sum of what a span adds past the running end. */
static int memcpy_from_spans(const TraceSpans *pSpans, sqlite3 *db,
                             int64_t runId, PfError *pErr){
  int nRank = 0, any = 0, rc = 0;
  int64_t *aRank = trace_spans_ranks(pSpans, &nRank);
  int64_t exposed = 0;
  sqlite3_stmt *s;
  for(int i=0; i<nRank; i++){
    size_t n = 0, j = 0;
    SpanGpu *a = trace_spans_rank_gpu(pSpans, aRank[i], &n);
    while( j<n ){
      int64_t dev = a[j].device;
      int64_t end[3] = {0, 0, 0}, ns[3] = {0, 0, 0};
      int has[3] = {0, 0, 0};        /* all, kernels, copies */
      for(; j<n && a[j].device==dev; j++){
        int64_t ts = a[j].ts, te = a[j].ts + a[j].dur;
        int c = a[j].kind==SPAN_KERNEL ? 1 : a[j].kind==SPAN_MEMCPY ? 2 : 0;
        if( c==0 ) continue;
        union_add(&end[0], &ns[0], &has[0], ts, te);
        union_add(&end[c], &ns[c], &has[c], ts, te);
      }
      if( has[2] ){
        exposed += ns[0] - ns[1];
        any = 1;
      }
    }
    free(a);
  }
  free(aRank);
  if( !any ) return 0;
  s = db_prepare(db, db_statement("derive-op-memcpy-from-spans"), pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  sqlite3_bind_double(s, 2, (double)exposed/1e6);
  if( sqlite3_step(s)!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s",
                 sqlite3_errmsg(db));
    rc = -1;
  }
  sqlite3_finalize(s);
  return rc;
}

/* 1 when op_sig has a signature not modeled yet (or on an error, which
** the statements after it then report). */
static int has_unmodeled(sqlite3 *db){
  sqlite3_stmt *s = NULL;
  int r = 1;
  if( sqlite3_prepare_v2(db, "SELECT 1 FROM op_sig WHERE modeled=0",
                         -1, &s, NULL)==SQLITE_OK ){
    r = sqlite3_step(s)!=SQLITE_DONE;
  }
  sqlite3_finalize(s);
  return r;
}

/* 1 when z[0..n) is the identifier zWord as a whole word somewhere. */
static int has_word(const char *z, size_t n, const char *zWord){
  size_t w = strlen(zWord);
  for(size_t i=0; i+w<=n; i++){
    if( memcmp(z+i, zWord, w)==0
     && (i==0 || !(isalnum((unsigned char)z[i-1]) || z[i-1]=='_'))
     && (i+w==n || !(isalnum((unsigned char)z[i+w]) || z[i+w]=='_')) ){
      return 1;
    }
  }
  return 0;
}

/* The arms of zSel (a compound SELECT: "A UNION ALL B ..."), each one's
** start and end put in aArm (at most nMax); returns how many, or 0 when
** the text has another shape.  Arms are split at UNION ALL outside
** parentheses, quotes and comments. */
static int split_arms(const char *zSel, const char **aArm, int nMax){
  int depth = 0, n = 0;
  const char *z = zSel;
  aArm[n++] = z;
  while( *z ){
    if( *z=='\'' || *z=='"' ){
      char q = *z++;
      while( *z && *z!=q ) z++;
      if( *z ) z++;
    }else if( z[0]=='-' && z[1]=='-' ){
      while( *z && *z!='\n' ) z++;
    }else if( *z=='(' ){ depth++; z++; }
    else if( *z==')' ){ depth--; z++; }
    else if( depth==0 && sqlite3_strnicmp(z, "UNION ALL", 9)==0
             && (z==zSel || isspace((unsigned char)z[-1]))
             && isspace((unsigned char)z[9]) ){
      if( n+3>nMax ) return 0;
      aArm[n++] = z;                   /* the end of the arm before */
      aArm[n++] = z + 9;
      z += 9;
    }else z++;
  }
  aArm[n++] = z;
  return n/2;
}

/* The SELECT of op_sig_model_calc without the arms that cannot give a row
** for the signatures not modeled yet (derive-op-idle-arms.sql), or NULL
** (then the whole view).  sqlite3_malloc'ed: the caller frees it. */
static char *model_select(sqlite3 *db){
  enum { MAX_ARM = 16 };
  const char *aArm[2*MAX_ARM];
  char *zSel = db_view_select(db, "op_sig_model_calc");
  sqlite3_stmt *s = NULL;
  sqlite3_str *pOut;
  int nArm = zSel ? split_arms(zSel, aArm, 2*MAX_ARM) : 0;
  int aDrop[MAX_ARM] = {0}, nKept = 0;
  if( nArm<2 ) return zSel;
  if( sqlite3_prepare_v2(db, db_statement("derive-op-idle-arms"), -1, &s,
                         NULL)!=SQLITE_OK ){
    sqlite3_finalize(s);
    return zSel;                      /* the statement after reports it */
  }
  while( sqlite3_step(s)==SQLITE_ROW ){
    const char *zView = (const char *)sqlite3_column_text(s, 0);
    for(int i=0; zView && i<nArm; i++){
      const char *a = aArm[2*i];
      if( has_word(a, (size_t)(aArm[2*i+1]-a), zView) ) aDrop[i] = 1;
    }
  }
  sqlite3_finalize(s);
  pOut = sqlite3_str_new(db);
  for(int i=0; i<nArm; i++){
    if( aDrop[i] ) continue;
    if( nKept++ ) sqlite3_str_appendall(pOut, "UNION ALL");
    sqlite3_str_append(pOut, aArm[2*i], (int)(aArm[2*i+1]-aArm[2*i]));
  }
  sqlite3_free(zSel);
  return nKept ? sqlite3_str_finish(pOut)
               : (sqlite3_free(sqlite3_str_finish(pOut)), NULL);
}

/* The model of the signatures not modeled yet: op_sig_model_calc's
** SELECT (model_select) in derive-op-insert-op-sig-model.sql. */
static int model_signatures(sqlite3 *db, int64_t runId, PfError *pErr){
  char *zSel = model_select(db);
  char *zSql;
  int rc;
  if( zSel==NULL ){
    return db_exec_run_view(db, db_statement("derive-op-insert-op-sig-model"),
                            "op_sig_model_calc", runId, pErr);
  }
  zSql = sqlite3_mprintf(db_statement("derive-op-insert-op-sig-model"), zSel);
  rc = db_exec_run(db, zSql, runId, pErr);
  sqlite3_free(zSql);
  sqlite3_free(zSel);
  return rc;
}

/* The calls, signatures and launch counts from the store, the model and
** roofline metrics from the views, the exposed memcpy time from the
** spans. */
static int derive_op_store(sqlite3 *db, int64_t runId, OpStore *pOps,
                           const TraceSpans *pSpans, PfError *pErr){
  double t1 = util_now_ms(), c1 = util_thread_cpu_ms();
  if( db_exec_run(db,
        db_statement("derive-op-delete-op-target"), runId, pErr)
      || op_store_write_calls(pOps, db, runId, pErr) ) return -1;
  timing("calls", &t1, &c1);
  /* a run whose signatures are all modeled already (the same model
  ** traced again) skips preparing and running the arms */
  if( has_unmodeled(db)
      && model_signatures(db, runId, pErr) ){
    return -1;
  }
  timing("model", &t1, &c1);
  if( db_exec_run_view(db, db_statement("derive-op-delete-op-run-metric"),
                       "op_metric_roof_calc", runId, pErr)
      || op_store_write_unlaunched(pOps, db, runId, pErr) ){
    return -1;
  }
  timing("roofline", &t1, &c1);
  if( op_store_has_memcpy(pOps)
      && memcpy_from_spans(pSpans, db, runId, pErr) ) return -1;
  timing("memcpy", &t1, &c1);
  return db_exec_run(db, "DELETE FROM op_target", runId, pErr);
}

int derive_op_run(sqlite3 *db, int64_t runId, const TraceSpans *pSpans,
                  PfError *pErr){
  OpStore *pOps = trace_spans_ops(pSpans);
  if( pOps==NULL ) return 0;             /* no trace rows */
  if( op_store_check(pOps, pErr) ) return -1;
  return derive_op_store(db, runId, pOps, pSpans, pErr);
}
