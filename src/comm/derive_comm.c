/*
** derive_comm.c — per-run communication tables, computed once at the end
** of an ingest: collective (one row per communication kernel, comm_pattern
** of schema/001-baseline.sql, with its arguments, and one per host
** collective range, comm_cpu_pattern of schema/090-cpu-comm.sql: gloo,
** MPI) and comm_fit (latency/bandwidth least squares).
** comm_overlap (communication vs. computation) comes from derive_trace.c's
** GPU sweep, which reads the kernels in the order it needs anyway.
**
** Pipeline position: "derive".  Reads kernel, cpu_op, annotation,
** runtime_call, coll_args and run_file; writes only the tables
** above, and through derive_straggler.c rank_clock and collective_window
** (the straggler analysis, host collectives' windows included); rows of
** the run are replaced, so it may run again.
**
** Where a collective's arguments come from, best first:
**   1. coll_args of the kernel itself (kineto >= 2023-10);
**   2. coll_args of the record_param_comms op enclosing the launch (the
**      cudaLaunchKernel with the kernel's correlation id lies inside it on
**      the same thread), else the op with the kernel's External id;
**   3. the enclosing nccl:* annotation: its name gives the op, its input
**      shapes (coll_args src 'annotation') the element count and dtype;
**   4. the kernel name (op, algorithm, protocol, dtype).
** A missing group size falls back to the file's distributedInfo
** world_size (the default group), a missing dtype to the kernel name's.
**
** Both passes that need every kernel of the run (which kernels are
** collectives, the compute time before each) read the GPU rows kept of
** the run for the HTA pass (trace_spans.h, by the writer or the
** stored-rows feeder: trace_keep.h) and look the collectives up by id.
** On the 10x A100 bench trace (85,680 kernels, 600 collectives) scanning
** the kernel table instead took ~35 ms of the pass's ~41 ms.
**
** Memory: the fit holds one (op, group size) sample set; the kept-rows
** path the run's communication name ids and collective kernel ids.
*/
#include "input/load_kinds.h"
#include "comm/derive_straggler.h"
#include "core/db.h"
#include "trace/load_collective.h"
#include "trace/trace_spans.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kept kernels (SpanHtaGpu class 0) of the run, one callback each
** with its rank, until xKernel returns non-zero (returned). */
static int kept_kernels(const TraceSpans *pSpans,
                        int (*xKernel)(void*, int64_t, const SpanHtaGpu*),
                        void *ctx){
  int64_t rank;
  SpanHtaGpu *aG;
  size_t nC, nG;
  int r, rc = 0;
  for(int i=0; rc==0
      && (r = trace_spans_hta_file(pSpans, i, &rank, NULL, &nC, &aG, &nG))!=0;
      i++){
    if( r<0 ) continue;
    for(size_t j=0; j<nG && rc==0; j++){
      if( aG[j].cls==0 ) rc = xKernel(ctx, rank, &aG[j]);
    }
    free(aG);
  }
  return rc;
}

/* Everything known about one collective while it is assembled. */
typedef struct Coll {
  const char *zOp;          /* static */
  char zC10d[64];
  const char *zAlgo, *zProto;
  const char *zDtype;       /* static canonical name */
  int elemSize;
  int64_t inN, outN, groupSize;
  char zPgName[64], zPgDesc[48], zPgRanks[COLL_RANKS_MAX];
  const char *zFrom;
  int64_t opRow, annRow;
} Coll;

/* Fold the coll_args row (src, rowId) into c; only fills what is still
** unknown.  Returns 1 if a row was found, 0 if not, -1 on error. */
static int merge_args(sqlite3_stmt *q, int64_t runId, const char *zSrc,
                      int64_t rowId, Coll *c){
  int rc, found = 0;
  sqlite3_bind_int64(q, 1, runId);
  sqlite3_bind_text(q, 2, zSrc, -1, SQLITE_STATIC);
  sqlite3_bind_int64(q, 3, rowId);
  while( (rc = sqlite3_step(q))==SQLITE_ROW ){
    const char *z;
    found = 1;
    if( c->zC10d[0]==0 && (z = (const char*)sqlite3_column_text(q, 0))!=0 ){
      snprintf(c->zC10d, sizeof(c->zC10d), "%s", z);
    }
    if( (z = (const char*)sqlite3_column_text(q, 1))!=0 && c->zDtype==NULL ){
      int sz;
      const char *zD = load_collective_dtype(z, strlen(z), &sz);
      if( zD ){ c->zDtype = zD; c->elemSize = sz; }
    }
    if( c->inN<0 && sqlite3_column_type(q, 2)!=SQLITE_NULL ){
      c->inN = sqlite3_column_int64(q, 2);
    }
    if( c->outN<0 && sqlite3_column_type(q, 3)!=SQLITE_NULL ){
      c->outN = sqlite3_column_int64(q, 3);
    }
    if( c->groupSize<0 && sqlite3_column_type(q, 4)!=SQLITE_NULL ){
      c->groupSize = sqlite3_column_int64(q, 4);
    }
    if( c->zPgName[0]==0 && (z = (const char*)sqlite3_column_text(q, 5))!=0 ){
      snprintf(c->zPgName, sizeof(c->zPgName), "%s", z);
    }
    if( c->zPgDesc[0]==0 && (z = (const char*)sqlite3_column_text(q, 6))!=0 ){
      snprintf(c->zPgDesc, sizeof(c->zPgDesc), "%s", z);
    }
    if( c->zPgRanks[0]==0 && (z = (const char*)sqlite3_column_text(q, 7))!=0 ){
      snprintf(c->zPgRanks, sizeof(c->zPgRanks), "%s", z);
    }
  }
  sqlite3_reset(q);
  return rc==SQLITE_DONE ? found : -1;
}

/* The innermost parent of kind containing time t on (rank, tid), or by
** External id when t is unknown.  Returns its row id and name (copied
** into zName), or 0. */
static int64_t find_parent(sqlite3_stmt *qTs, sqlite3_stmt *qExt, int kind,
                           int64_t rank, int hasLaunch, int64_t tid,
                           int64_t t, int64_t ext, char *zName, size_t nName){
  int64_t id = 0;
  if( hasLaunch ){
    sqlite3_bind_int(qTs, 1, kind);
    sqlite3_bind_int64(qTs, 2, rank);
    sqlite3_bind_int64(qTs, 3, tid);
    sqlite3_bind_int64(qTs, 4, t);
    while( id==0 && sqlite3_step(qTs)==SQLITE_ROW ){
      if( sqlite3_column_int64(qTs, 1)>=t ){
        id = sqlite3_column_int64(qTs, 0);
        snprintf(zName, nName, "%s", (const char*)sqlite3_column_text(qTs, 2));
      }
    }
    sqlite3_reset(qTs);
  }
  if( id==0 && ext>0 ){
    sqlite3_bind_int(qExt, 1, kind);
    sqlite3_bind_int64(qExt, 2, rank);
    sqlite3_bind_int64(qExt, 3, ext);
    if( sqlite3_step(qExt)==SQLITE_ROW ){
      id = sqlite3_column_int64(qExt, 0);
      snprintf(zName, nName, "%s", (const char*)sqlite3_column_text(qExt, 1));
    }
    sqlite3_reset(qExt);
  }
  return id;
}

/* The statements of build_collectives: kernels of the run, coll_args by
** row, enclosing parents by time and by External id, the insert. */
typedef struct CollStmts {
  sqlite3_stmt *qK, *qArgs, *qTs, *qExt, *qIns;
} CollStmts;

/* Steps 1-3 for the kernel at qK's current row: its own args, the
** record_param_comms op enclosing its launch, the nccl:* annotation.
** Returns 0, or -1 on a SQLite error. */
static int coll_gather(CollStmts *s, int64_t runId, Coll *c){
  sqlite3_stmt *qK = s->qK;
  int64_t kid = sqlite3_column_int64(qK, 0);
  int64_t rank = sqlite3_column_int64(qK, 1);
  int hasLaunch = sqlite3_column_type(qK, 10)!=SQLITE_NULL;
  int64_t tid = sqlite3_column_int64(qK, 9);
  int64_t tLaunch = sqlite3_column_int64(qK, 10);
  int64_t ext = sqlite3_column_int64(qK, 8);
  char zParent[96];
  int r;
  /* 1. the kernel's own args */
  r = merge_args(s->qArgs, runId, "kernel", kid, c);
  if( r<0 ) return -1;
  if( r ) c->zFrom = "kernel";
  /* 2. record_param_comms enclosing the launch */
  c->opRow = find_parent(s->qTs, s->qExt, 0, rank, hasLaunch, tid, tLaunch,
                         ext, zParent, sizeof(zParent));
  if( c->opRow ){
    r = merge_args(s->qArgs, runId, "cpu_op", c->opRow, c);
    if( r<0 ) return -1;
    if( r && c->zFrom==NULL ) c->zFrom = "cpu_op";
  }
  /* 3. the nccl:* annotation */
  c->annRow = find_parent(s->qTs, s->qExt, 1, rank, hasLaunch, tid, tLaunch,
                          0, zParent, sizeof(zParent));
  if( c->annRow ){
    if( c->zC10d[0]==0 ){
      snprintf(c->zC10d, sizeof(c->zC10d), "%.63s", zParent);
    }
    r = merge_args(s->qArgs, runId, "annotation", c->annRow, c);
    if( r<0 ) return -1;
    if( c->zFrom==NULL ) c->zFrom = "annotation";
  }
  return 0;
}

/* Step 4: the op from the c10d name, else the kernel name's parse kOp,
** else the comm_pattern op (qK column 12), else the CamelCase prefix of
** older kernel names; then the defaults still unknown. */
static void coll_resolve(sqlite3_stmt *qK, const char *zName,
                         const char *kOp, const char *kDtype, int kSize,
                         Coll *c){
  if( c->zC10d[0] ){
    c->zOp = load_collective_op_name(c->zC10d, strlen(c->zC10d));
  }
  if( c->zOp==NULL || strcmp(c->zOp, "other")==0 ) c->zOp = kOp;
  if( (c->zOp==NULL || strcmp(c->zOp, "other")==0)
      && sqlite3_column_type(qK, 12)==SQLITE_TEXT ){
    /* not an NCCL name: the op its comm_pattern row names */
    const char *zP = (const char*)sqlite3_column_text(qK, 12);
    c->zOp = load_collective_op_name(zP, strlen(zP));
  }
  if( c->zOp==NULL || strcmp(c->zOp, "other")==0 ){
    /* older names say it in CamelCase: ncclAllReduceRingLLKernel_sum_f32 */
    const char *zParen = strchr(zName, '(');
    c->zOp = load_collective_op_name(zName, zParen ? (size_t)(zParen-zName)
                                              : strlen(zName));
  }
  if( c->zDtype==NULL && kDtype ){ c->zDtype = kDtype; c->elemSize = kSize; }
  if( c->zFrom==NULL ) c->zFrom = "name";
  if( c->groupSize<0 && sqlite3_column_type(qK, 11)!=SQLITE_NULL
      && c->zPgName[0]==0 ){
    c->groupSize = sqlite3_column_int64(qK, 11);
  }
}

/* Insert the collective row of the kernel at qK's current row.  Returns 0,
** or -1 on a SQLite error. */
static int coll_insert(sqlite3_stmt *qIns, sqlite3_stmt *qK, int64_t runId,
                       const Coll *c){
  int64_t bytes = -1;
  if( c->elemSize>0 && (c->inN>=0 || c->outN>=0) ){
    int64_t m = c->inN > c->outN ? c->inN : c->outN;
    bytes = m * c->elemSize;
  }
  sqlite3_bind_int64(qIns, 1, runId);
  sqlite3_bind_int64(qIns, 2, sqlite3_column_int64(qK, 1));
  sqlite3_bind_value(qIns, 3, sqlite3_column_value(qK, 2));
  sqlite3_bind_int64(qIns, 4, sqlite3_column_int64(qK, 0));
  sqlite3_bind_value(qIns, 5, sqlite3_column_value(qK, 3));
  sqlite3_bind_value(qIns, 6, sqlite3_column_value(qK, 4));
  sqlite3_bind_value(qIns, 7, sqlite3_column_value(qK, 5));
  sqlite3_bind_value(qIns, 8, sqlite3_column_value(qK, 6));
  sqlite3_bind_text(qIns, 9, c->zOp, -1, SQLITE_STATIC);
  db_bind_text_or_null(qIns, 10, c->zC10d[0] ? c->zC10d : NULL, -1);
  db_bind_text_or_null(qIns, 11, c->zAlgo, -1);
  db_bind_text_or_null(qIns, 12, c->zProto, -1);
  db_bind_text_or_null(qIns, 13, c->zDtype, -1);
  db_bind_int_or_null(qIns, 14, c->elemSize>0, c->elemSize);
  db_bind_int_or_null(qIns, 15, c->inN>=0, c->inN);
  db_bind_int_or_null(qIns, 16, c->outN>=0, c->outN);
  db_bind_int_or_null(qIns, 17, bytes>=0, bytes);
  db_bind_int_or_null(qIns, 18, c->groupSize>0, c->groupSize);
  db_bind_text_or_null(qIns, 19, c->zPgName[0] ? c->zPgName : NULL, -1);
  db_bind_text_or_null(qIns, 20, c->zPgDesc[0] ? c->zPgDesc : NULL, -1);
  db_bind_text_or_null(qIns, 21, c->zPgRanks[0] ? c->zPgRanks : NULL, -1);
  sqlite3_bind_double(qIns, 22,
                      load_collective_bus_factor(c->zOp, c->groupSize));
  sqlite3_bind_text(qIns, 23, c->zFrom, -1, SQLITE_STATIC);
  db_bind_int_or_null(qIns, 24, c->opRow>0, c->opRow);
  db_bind_int_or_null(qIns, 25, c->annRow>0, c->annRow);
  if( sqlite3_step(qIns)!=SQLITE_DONE ) return -1;
  sqlite3_reset(qIns);
  sqlite3_clear_bindings(qIns);
  return 0;
}

/* Prepare the statements of build_collectives into s (the collective
** kernels' ids are in temp.cm_kernel).  Returns 0, or -1 with pErr set
** (the caller finalizes whatever was prepared). */
static int coll_prepare(sqlite3 *db, CollStmts *s, PfError *pErr){
  s->qK = db_prepare(db,
    db_statement("derive-comm-select-cm-kernel"), pErr);
  s->qArgs = db_prepare(db,
    db_statement("derive-comm-select-coll-args"), pErr);
  s->qTs = db_prepare(db,
    db_statement("derive-comm-parent-before"), pErr);
  s->qExt = db_prepare(db,
    db_statement("derive-comm-parent-by-ext"), pErr);
  s->qIns = db_prepare(db,
    db_statement("derive-comm-insert-collective"), pErr);
  return s->qK && s->qArgs && s->qTs && s->qExt && s->qIns ? 0 : -1;
}

/* The kernel ids of temp.cm_kernel and the names they must have. */
typedef struct KeptColl {
  sqlite3_stmt *qIns;
  const int64_t *aName;
  int nName;
} KeptColl;

/* kept_kernels callback: a collective's id into temp.cm_kernel. */
static int coll_kept(void *ctx, int64_t rank, const SpanHtaGpu *g){
  KeptColl *k = ctx;
  (void)rank;
  if( !util_id_in(k->aName, k->nName, g->name) ) return 0;
  sqlite3_bind_int64(k->qIns, 1, g->id);
  sqlite3_step(k->qIns);
  return sqlite3_reset(k->qIns)!=SQLITE_OK;
}

/* temp.cm_kernel from the kept rows.  Returns 0 or -1 with pErr set. */
static int coll_kernels_kept(sqlite3 *db, const TraceSpans *pSpans,
                             const int64_t *aName, int nName, PfError *pErr){
  KeptColl k;
  int rc;
  k.qIns = db_prepare(db, "INSERT INTO temp.cm_kernel(id) VALUES(?1)", pErr);
  if( k.qIns==NULL ) return -1;
  k.aName = aName;
  k.nName = nName;
  rc = kept_kernels(pSpans, coll_kept, &k);
  if( rc ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "derive comm: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(k.qIns);
  return rc ? -1 : 0;
}

/* ---------------------------------------------- host collectives */

/*
** One collective row per host collective range of the run (cpu_op or
** user annotation named in temp.cm_cpu_name): no kernel, the range's
** start and duration, the op from the name (or its pattern), sizes from
** the range's coll_args (input shapes of a Kineto annotation), the group
** size from the file's world size when nothing says it.  s: the
** statements of build_collectives (coll_args lookup, insert).  Returns 0,
** or -1 with pErr set.
*/
static int host_collectives(sqlite3 *db, int64_t runId, CollStmts *s,
                            PfError *pErr){
  sqlite3_stmt *q;
  int st;
  /* no host collective names: nothing to read (the statement scans the
  ** run's operators) */
  if( !db_int(db, 0, "SELECT EXISTS (SELECT 1 FROM temp.cm_cpu_name)") ){
    return 0;
  }
  q = db_prepare(db,
    db_statement("derive-comm-host-collectives"),
    pErr);
  if( q==NULL ) return -1;
  sqlite3_bind_int64(q, 1, runId);
  while( (st = sqlite3_step(q))==SQLITE_ROW ){
    const char *zSrc = (const char*)sqlite3_column_text(q, 0);
    const char *zName = (const char*)sqlite3_column_text(q, 6);
    int64_t row = sqlite3_column_int64(q, 1);
    int isOp = strcmp(zSrc, "cpu_op")==0;
    Coll c;
    int64_t bytes = -1;
    int r;
    memset(&c, 0, sizeof(c));
    c.inN = c.outN = c.groupSize = -1;
    r = merge_args(s->qArgs, runId, zSrc, row, &c);
    if( r<0 ) break;
    c.zFrom = r ? (isOp ? "cpu_op" : "annotation") : "name";
    c.zOp = sqlite3_column_type(q, 7)==SQLITE_TEXT
          ? load_collective_op_name((const char*)sqlite3_column_text(q, 7),
                                    (size_t)sqlite3_column_bytes(q, 7))
          : load_collective_op_name(zName, strlen(zName));
    if( c.groupSize<0 && c.zPgName[0]==0
        && sqlite3_column_type(q, 8)!=SQLITE_NULL ){
      c.groupSize = sqlite3_column_int64(q, 8);
    }
    if( c.elemSize>0 && (c.inN>=0 || c.outN>=0) ){
      bytes = (c.inN > c.outN ? c.inN : c.outN) * c.elemSize;
    }
    sqlite3_bind_int64(s->qIns, 1, runId);
    sqlite3_bind_int64(s->qIns, 2, sqlite3_column_int64(q, 2));
    sqlite3_bind_int64(s->qIns, 3, sqlite3_column_int64(q, 3));
    sqlite3_bind_null(s->qIns, 4);               /* no kernel */
    sqlite3_bind_int64(s->qIns, 7, sqlite3_column_int64(q, 4));
    sqlite3_bind_int64(s->qIns, 8, sqlite3_column_int64(q, 5));
    sqlite3_bind_text(s->qIns, 9, c.zOp, -1, SQLITE_STATIC);
    sqlite3_bind_text(s->qIns, 10, zName, -1, SQLITE_TRANSIENT);
    db_bind_text_or_null(s->qIns, 13, c.zDtype, -1);
    db_bind_int_or_null(s->qIns, 14, c.elemSize>0, c.elemSize);
    db_bind_int_or_null(s->qIns, 15, c.inN>=0, c.inN);
    db_bind_int_or_null(s->qIns, 16, c.outN>=0, c.outN);
    db_bind_int_or_null(s->qIns, 17, bytes>=0, bytes);
    db_bind_int_or_null(s->qIns, 18, c.groupSize>0, c.groupSize);
    db_bind_text_or_null(s->qIns, 19, c.zPgName[0] ? c.zPgName : NULL, -1);
    db_bind_text_or_null(s->qIns, 20, c.zPgDesc[0] ? c.zPgDesc : NULL, -1);
    db_bind_text_or_null(s->qIns, 21, c.zPgRanks[0] ? c.zPgRanks : NULL, -1);
    sqlite3_bind_double(s->qIns, 22,
                        load_collective_bus_factor(c.zOp, c.groupSize));
    sqlite3_bind_text(s->qIns, 23, c.zFrom, -1, SQLITE_STATIC);
    db_bind_int_or_null(s->qIns, 24, isOp, row);
    db_bind_int_or_null(s->qIns, 25, !isOp, row);
    r = sqlite3_step(s->qIns);
    sqlite3_reset(s->qIns);
    sqlite3_clear_bindings(s->qIns);
    if( r!=SQLITE_DONE ) break;
  }
  sqlite3_finalize(q);
  if( st!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "derive comm: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

/* Build the collective rows of the run from its kept rows. */
static int build_collectives(sqlite3 *db, int64_t runId,
                             const TraceSpans *pSpans, PfError *pErr){
  CollStmts s = {0};
  int rc = -1, src, nName = 0;
  int64_t *aName = NULL;
  if( db_exec_run(db,
     db_statement("derive-comm-setup"), runId, pErr) ) return -1;
  aName = db_id_set(db, "SELECT id FROM temp.cm_name ORDER BY id", runId,
                    &nName, pErr);
  if( aName==NULL
      || coll_kernels_kept(db, pSpans, aName, nName, pErr) ) goto done;
  if( coll_prepare(db, &s, pErr) ) goto done;
  sqlite3_bind_int64(s.qK, 1, runId);
  while( (src = sqlite3_step(s.qK))==SQLITE_ROW ){
    Coll c;
    const char *zName = (const char*)sqlite3_column_text(s.qK, 7);
    const char *kOp, *kDtype;
    int kSize;
    memset(&c, 0, sizeof(c));
    c.inN = c.outN = c.groupSize = -1;
    load_collective_parse_kernel(zName, &kOp, &c.zAlgo, &c.zProto, &kDtype,
                            &kSize);
    if( coll_gather(&s, runId, &c) ) goto db_error;
    coll_resolve(s.qK, zName, kOp, kDtype, kSize, &c);
    if( coll_insert(s.qIns, s.qK, runId, &c) ) goto db_error;
  }
  if( src!=SQLITE_DONE ) goto db_error;
  if( host_collectives(db, runId, &s, pErr) ) goto done;
  /* order of each collective within its rank and process group: the
  ** cross-rank matching key for the skew analysis */
  if( db_exec_run(db,
      db_statement("derive-comm-build-collectives"),
      runId, pErr) ) goto done;
  if( derive_straggler_run(db, runId, pSpans, aName, nName, pErr) ){
    goto done;
  }
  rc = 0;
  goto done;
db_error:
  pf_error_set(pErr, ERRPOS_NONE, 0, "derive comm: %s", sqlite3_errmsg(db));
done:
  sqlite3_finalize(s.qK);
  sqlite3_finalize(s.qArgs);
  sqlite3_finalize(s.qTs);
  sqlite3_finalize(s.qExt);
  sqlite3_finalize(s.qIns);
  free(aName);
  {
    PfError e2 = {0};
    if( db_exec_run(db,
       db_statement("derive-comm-cleanup"), runId, rc ? &e2 : pErr) ) rc = -1;
  }
  return rc;
}

/* ------------------------------------------------------ alpha-beta fit */

typedef struct Samples {
  double *x, *y;
  int n, cap;
} Samples;

/* The fit through the origin, y = b x, of the samples (alpha fixed at
** 0): b = sum xy / sum xx; its standard error and the residual error
** with n - 1 degrees of freedom, R² against y = 0 (uncentred, as for
** any fit without an intercept), bound to qIns's 9-13. */
static void fit_origin(sqlite3_stmt *qIns, const Samples *s){
  double sxx = 0, sxy = 0, syy = 0, sse = 0, b;
  for(int i=0; i<s->n; i++){
    sxx += s->x[i]*s->x[i];
    sxy += s->x[i]*s->y[i];
    syy += s->y[i]*s->y[i];
  }
  b = sxy/sxx;
  for(int i=0; i<s->n; i++){
    double r = s->y[i] - b*s->x[i];
    sse += r*r;
  }
  sqlite3_bind_double(qIns, 9, b);
  if( s->n>1 ){
    double s2 = sse/(s->n-1);
    sqlite3_bind_double(qIns, 11, sqrt(s2/sxx));
    sqlite3_bind_double(qIns, 12, sqrt(s2));
  }
  if( syy>0 ) sqlite3_bind_double(qIns, 13, 1.0 - sse/syy);
}

/* Least squares y = a + b x over the samples, centred (two passes) so
** that byte counts near 1e10 keep their precision.  A latency cannot be
** negative: when the free intercept a is, alpha is fixed at 0 and the
** slope fitted through the origin (fit_origin; alpha_fixed 1). */
static int fit_flush(sqlite3_stmt *qIns, int64_t runId, const char *zOp,
                     int hasGroup, int64_t group, Samples *s){
  double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0, mn = 0, mxv = 0;
  int nSizes = 0, rc;
  for(int i=0; i<s->n; i++){ mx += s->x[i]; my += s->y[i]; }
  mx /= s->n;
  my /= s->n;
  for(int i=0; i<s->n; i++){
    double dx = s->x[i]-mx, dy = s->y[i]-my;
    sxx += dx*dx;
    sxy += dx*dy;
    syy += dy*dy;
    if( i==0 || s->x[i]!=s->x[i-1] ) nSizes++;   /* x sorted */
    if( i==0 || s->x[i]<mn ) mn = s->x[i];
    if( i==0 || s->x[i]>mxv ) mxv = s->x[i];
  }
  sqlite3_bind_int64(qIns, 1, runId);
  sqlite3_bind_text(qIns, 2, zOp, -1, SQLITE_TRANSIENT);
  db_bind_int_or_null(qIns, 3, hasGroup, group);
  sqlite3_bind_int(qIns, 4, s->n);
  sqlite3_bind_int(qIns, 5, nSizes);
  sqlite3_bind_int64(qIns, 6, (int64_t)mn);
  sqlite3_bind_int64(qIns, 7, (int64_t)mxv);
  sqlite3_bind_int(qIns, 14, 0);
  if( nSizes>=2 && sxx>0 && my - (sxy/sxx)*mx<0 ){
    sqlite3_bind_double(qIns, 8, 0.0);
    sqlite3_bind_int(qIns, 14, 1);
    fit_origin(qIns, s);
  }else if( nSizes>=2 && sxx>0 ){
    double b = sxy/sxx, a = my - b*mx;
    double sse = syy - b*sxy;
    if( sse<0 ) sse = 0;
    sqlite3_bind_double(qIns, 8, a);
    sqlite3_bind_double(qIns, 9, b);
    if( s->n>2 ){
      double s2 = sse/(s->n-2);
      sqlite3_bind_double(qIns, 10, sqrt(s2*(1.0/s->n + mx*mx/sxx)));
      sqlite3_bind_double(qIns, 11, sqrt(s2/sxx));
      sqlite3_bind_double(qIns, 12, sqrt(s2));
    }
    if( syy>0 ) sqlite3_bind_double(qIns, 13, 1.0 - sse/syy);
  }
  rc = sqlite3_step(qIns);
  sqlite3_reset(qIns);
  sqlite3_clear_bindings(qIns);
  s->n = 0;
  return rc==SQLITE_DONE ? 0 : -1;
}

static int build_fit(sqlite3 *db, int64_t runId, PfError *pErr){
  sqlite3_stmt *q = db_prepare(db,
    db_statement("derive-comm-select-collective-build-fit"), pErr);
  sqlite3_stmt *qIns = db_prepare(db,
    db_statement("derive-comm-insert-comm-fit"),
    pErr);
  Samples s;
  char zOp[32] = "";
  int64_t group = 0;
  int hasGroup = 0, rc = 0, st;
  memset(&s, 0, sizeof(s));
  if( q==NULL || qIns==NULL ){ rc = -1; goto done; }
  sqlite3_bind_int64(q, 1, runId);
  while( (st = sqlite3_step(q))==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(q, 0);
    int hg = sqlite3_column_type(q, 1)!=SQLITE_NULL;
    int64_t g = sqlite3_column_int64(q, 1);
    if( s.n>0 && (strcmp(z, zOp)!=0 || hg!=hasGroup || g!=group) ){
      if( fit_flush(qIns, runId, zOp, hasGroup, group, &s) ){
        st = SQLITE_ERROR;
        break;
      }
    }
    snprintf(zOp, sizeof(zOp), "%s", z);
    hasGroup = hg;
    group = g;
    if( s.n==s.cap ){
      s.cap = s.cap ? s.cap*2 : 64;
      s.x = xrealloc(s.x, (size_t)s.cap*sizeof(double));
      s.y = xrealloc(s.y, (size_t)s.cap*sizeof(double));
    }
    s.x[s.n] = (double)sqlite3_column_int64(q, 2);
    s.y[s.n] = (double)sqlite3_column_int64(q, 3);
    s.n++;
  }
  if( st==SQLITE_DONE && s.n>0
      && fit_flush(qIns, runId, zOp, hasGroup, group, &s) ){
    st = SQLITE_ERROR;
  }
  if( st!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "derive comm: %s", sqlite3_errmsg(db));
    rc = -1;
  }
done:
  free(s.x);
  free(s.y);
  sqlite3_finalize(q);
  sqlite3_finalize(qIns);
  return rc;
}

int derive_comm_run(sqlite3 *db, int64_t runId, const TraceSpans *pSpans,
                    PfError *pErr){
  if( db_exec_run(db,
      db_statement("derive-comm-delete-collective"), runId, pErr) ) return -1;
  /* no trace rows (a run of snapshots, dumps or logs): no collectives */
  if( pSpans==NULL ) return 0;
  if( db_exec_run(db,
     db_statement("derive-comm-host-names"), runId, pErr) ) return -1;
  if( db_int(db, 0, db_statement("derive-comm-select-kernel"),
             (long long)runId)==0 ){
    return db_exec_run(db, db_statement("derive-comm-cleanup"), runId, pErr);
  }
  if( build_collectives(db, runId, pSpans, pErr) ) return -1;
  if( build_fit(db, runId, pErr) ) return -1;
  return db_exec_run(db, "DROP TABLE IF EXISTS temp.cm_name;", runId, pErr);
}
