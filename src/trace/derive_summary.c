/*
** derive_summary.c — the per-run summary tables of
** schema/009-query-summaries.sql, filled at the end of a trace ingest so
** that the operator, launch, FLOP and per-step named queries read a few
** hundred summary rows instead of every op, runtime call and kernel.
**
** Pipeline position: "derive", called last by derive_trace_run(), inside
** the ingest transaction, when op_id, runtime_id, parent_id, in_recompute
** and step are final.  One pass over each raw table of the run (cpu_op,
** runtime_call, kernel, gpu_mem_op), totals in hash maps:
**   cpu_op        -> cpu_op_summary (per name and parent name),
**                    cpu_op_shape_summary, cpu_op_flops_summary;
**   runtime_call  -> runtime_summary;
**   kernel and gpu_mem_op add what they launched to the op and runtime
**                    call they link to (op_id, runtime_id), and kernels
**                    fill step_kernel_summary.
** Linking a kernel to its op or call needs an id -> row map: ids come in
** runs of consecutive values, so the map is a sorted list of such runs
** (IdIndex; one per file for ops, about one per 200 calls for runtime
** calls read in time order), plus 8 (op) or 13 (call) bytes per row.
** Cost: about 8 % of the instructions of a whole trace ingest (callgrind,
** 1x control trace), nearly all of it SQLite reading the rows back.
** An op whose parent comes later in rowid order (the database fallback of
** the linker) is totalled by a second pass once every op name is known.
** The same totals as SQL GROUP BYs are at the end of 009 (runs ingested
** before it); tests/e2e/test_summaries.py checks that both agree.
**
** When the in-stream linker did all the linking, the trace writer
** (load_trace.c) keeps these totals while inserting and writes them
** through derive_summary_totals_write(); this pass is then skipped and only the
** kernels inserted without a step (SUMMARY_PENDING_TABLE) are added to
** step_kernel_summary by the step derive_trace.c gave them.  The pass runs
** when the database redoes some linkage (ingest.c's fallback flags,
** PROFAN_DB_LINK=1) or with PROFAN_SUMMARY=db.
*/
#include "trace/derive_summary.h"
#include "core/db.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------- id -> row */

/* Ids first .. first+n-1 are rows idx .. idx+n-1. */
typedef struct IdSeg { int64_t first; int idx, n; } IdSeg;

/* Map from row id to the row's position in scan order (0, 1, ...). */
typedef struct IdIndex {
  IdSeg *a;
  int nSeg, nAlloc;
  int n;                 /* rows added */
  int sorted;            /* segments in ascending id order */
} IdIndex;

/* Add the next row's id; returns its position. */
static int id_add(IdIndex *p, int64_t id){
  IdSeg *s = p->nSeg ? &p->a[p->nSeg-1] : NULL;
  if( s && id==s->first+s->n ){
    s->n++;
    return p->n++;
  }
  if( p->nSeg==0 ) p->sorted = 1;
  else if( id<s->first+s->n ) p->sorted = 0;
  if( p->nSeg==p->nAlloc ){
    p->nAlloc = p->nAlloc ? 2*p->nAlloc : 16;
    p->a = xrealloc(p->a, (size_t)p->nAlloc*sizeof(IdSeg));
  }
  p->a[p->nSeg].first = id;
  p->a[p->nSeg].idx = p->n;
  p->a[p->nSeg].n = 1;
  p->nSeg++;
  return p->n++;
}

static int seg_cmp(const void *x, const void *y){
  int64_t a = ((const IdSeg*)x)->first, b = ((const IdSeg*)y)->first;
  return a<b ? -1 : a>b;
}

static void id_sort(IdIndex *p){
  if( !p->sorted && p->nSeg>1 ){
    qsort(p->a, (size_t)p->nSeg, sizeof(IdSeg), seg_cmp);
  }
  p->sorted = 1;
}

/* Position of id, or -1 when absent (or, while the segments are not
** sorted, when it is not in the last one). */
static int id_find(const IdIndex *p, int64_t id){
  int lo = 0, hi = p->nSeg;
  if( p->nSeg==0 ) return -1;
  if( id>=p->a[p->nSeg-1].first ) lo = p->nSeg-1;   /* the usual case */
  else if( !p->sorted ) return -1;
  while( hi-lo>1 ){
    int mid = (lo+hi)/2;
    if( p->a[mid].first<=id ) lo = mid; else hi = mid;
  }
  if( id>=p->a[lo].first && id<p->a[lo].first+p->a[lo].n ){
    return p->a[lo].idx + (int)(id-p->a[lo].first);
  }
  return -1;
}

/* ------------------------------------------------------------ totals */

/* An op with a FLOP count and the kernels it launched. */
typedef struct FlopsOp {
  int pos;               /* position of the op (IdIndex of ops) */
  int group;             /* its cpu_op_flops_summary group */
  int hasKernel;
  double flops;
  int64_t kNs;
} FlopsOp;

typedef struct Summary {
  int64_t runId;
  SummaryTotals t;
  IdIndex opIds;         /* cpu_op id -> position */
  int *aOpGroup;         /* per op position: ops group, -1 until known */
  int *aOpName;          /* per op position: name_id */
  int nOpAlloc;
  int nPending;          /* ops whose parent came later */
  FlopsOp *aFl;          /* ops with flops, in position order */
  int nFl, nFlAlloc;
  IdIndex rtIds;         /* runtime_call id -> position */
  int64_t *aRtTs;        /* per call position: ts */
  int *aRtGroup;         /* per call position: rt group */
  unsigned char *aRtRc;  /* per call position: in_recompute = 1 */
  int nRtAlloc;
} Summary;

static void summary_free(Summary *p){
  derive_summary_totals_free(&p->t);
  free(p->opIds.a);
  free(p->aOpGroup);
  free(p->aOpName);
  free(p->aFl);
  free(p->rtIds.a);
  free(p->aRtTs);
  free(p->aRtGroup);
  free(p->aRtRc);
}

/*
** Prepare "SELECT zCols FROM zTab" over the rows of run ?1.  cpu_op: in
** rowid order over the run's rowid range (db_run_rowids(); parents then come
** before their children, and a rowid scan costs about 30 % less than one
** through the index, a B-tree descent per row).  Other tables: through
** their run_id index (rowid order too since their index is (run_id)).
** NULL with pErr set on error.
*/
static sqlite3_stmt *scan_run(sqlite3 *db, const char *zTab, const char *zCols,
                              int64_t runId, PfError *pErr){
  int64_t lo = 1, hi = 0;
  int ranged = strcmp(zTab, "cpu_op")==0;
  char *zSql;
  sqlite3_stmt *s;
  if( ranged && db_run_rowids(db, "cpu_op", runId, &lo, &hi, pErr) ){
    return NULL;
  }
  zSql = ranged
    ? xasprintf("SELECT %s FROM %s WHERE id BETWEEN ?2 AND ?3 AND +run_id=?1"
                " ORDER BY id", zCols, zTab)
    : xasprintf("SELECT %s FROM %s WHERE run_id=?1", zCols, zTab);
  s = db_prepare(db, zSql, pErr);
  free(zSql);
  if( s ){
    sqlite3_bind_int64(s, 1, runId);
    if( ranged ){
      sqlite3_bind_int64(s, 2, lo);
      sqlite3_bind_int64(s, 3, hi);
    }
  }
  return s;
}

/* Finalize scan s, which stopped with rc; 0 when it ran to the end, else
** -1 with pErr set. */
static int step_error(sqlite3 *db, sqlite3_stmt *s, int rc, PfError *pErr){
  sqlite3_finalize(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

/* Columns of the op scan.  NULLs are coalesced in SQL (ids and string ids
** are never 0): fewer sqlite3_column_* calls per row, the bulk of the C
** side of this pass. */
enum { OP_ID, OP_RANK, OP_NAME, OP_PARENT, OP_DUR, OP_SELF, OP_DIMS, OP_FLOPS,
       OP_SRC };
static const char zOpCols[] =
  "id, rank, name_id, coalesce(parent_id, 0), dur, coalesce(self_dur, dur),"
  " coalesce(input_dims_id, 0), flops, flops_source";

/* Add op s (at position pos) to cpu_op_summary when its parent's name is
** known: 0 without a parent (or a parent not in the run), else the
** parent's name once the parent was seen.  Returns 1 when it must wait
** for the second pass. */
static int op_total(Summary *p, sqlite3_stmt *s, int pos, int lastPass){
  int64_t parentName = 0, parent = sqlite3_column_int64(s, OP_PARENT);
  OpSum *o;
  if( parent!=0 ){
    int k = id_find(&p->opIds, parent);
    if( k>=0 ) parentName = p->aOpName[k];
    else if( !lastPass ) return 1;
  }
  o = group_map_get(&p->t.ops, sqlite3_column_int64(s, OP_RANK),
                sqlite3_column_int64(s, OP_NAME), parentName, 0,
                &p->aOpGroup[pos]);
  o->calls++;
  o->totalNs += sqlite3_column_int64(s, OP_DUR);
  o->selfNs += sqlite3_column_int64(s, OP_SELF);
  return 0;
}

/* First pass over one op row: position, shapes, FLOPs, and its total. */
static void op_row(Summary *p, sqlite3_stmt *s){
  int64_t rank = sqlite3_column_int64(s, OP_RANK);
  int64_t name = sqlite3_column_int64(s, OP_NAME);
  int64_t dims = sqlite3_column_int64(s, OP_DIMS);
  int pos = id_add(&p->opIds, sqlite3_column_int64(s, OP_ID));
  if( pos>=p->nOpAlloc ){
    p->nOpAlloc = p->nOpAlloc ? 2*p->nOpAlloc : 4096;
    p->aOpGroup = xrealloc(p->aOpGroup, (size_t)p->nOpAlloc*sizeof(int));
    p->aOpName = xrealloc(p->aOpName, (size_t)p->nOpAlloc*sizeof(int));
  }
  p->aOpName[pos] = (int)name;
  p->aOpGroup[pos] = -1;
  if( dims!=0 ){
    ShapeSum *sh = group_map_get(&p->t.shapes, rank, name, dims, 0, NULL);
    sh->calls++;
  }
  if( sqlite3_column_type(s, OP_FLOPS)!=SQLITE_NULL ){
    FlopsOp *f;
    FlopsSum *fs;
    double v = sqlite3_column_double(s, OP_FLOPS);
    if( p->nFl==p->nFlAlloc ){
      p->nFlAlloc = p->nFlAlloc ? 2*p->nFlAlloc : 256;
      p->aFl = xrealloc(p->aFl, (size_t)p->nFlAlloc*sizeof(FlopsOp));
    }
    f = &p->aFl[p->nFl++];
    fs = group_map_get(&p->t.flops, rank, name,
                       group_map_text_code(&p->t.src,
                           (const char*)sqlite3_column_text(s, OP_SRC)),
                       0, &f->group);
    fs->calls++;
    fs->flops += v;
    f->pos = pos;
    f->hasKernel = 0;
    f->flops = v;
    f->kNs = 0;
  }
  if( op_total(p, s, pos, 0) ) p->nPending++;
}

/* Every op of the run; a second pass for ops whose parent came later. */
static int scan_ops(sqlite3 *db, Summary *p, PfError *pErr){
  sqlite3_stmt *s = scan_run(db, "cpu_op", zOpCols, p->runId, pErr);
  int rc, pos = 0;
  if( s==NULL ) return -1;
  while( (rc = sqlite3_step(s))==SQLITE_ROW ) op_row(p, s);
  if( step_error(db, s, rc, pErr) ) return -1;
  id_sort(&p->opIds);
  if( p->nPending==0 ) return 0;
  s = scan_run(db, "cpu_op", zOpCols, p->runId, pErr);
  if( s==NULL ) return -1;
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    if( pos<p->opIds.n && p->aOpGroup[pos]<0 ) op_total(p, s, pos, 1);
    pos++;
  }
  return step_error(db, s, rc, pErr);
}

/* Every runtime/driver call of the run. */
static int scan_runtime(sqlite3 *db, Summary *p, PfError *pErr){
  sqlite3_stmt *s = scan_run(db, "runtime_call",
      "id, rank, name_id, kind, ts, dur, in_recompute IS 1", p->runId, pErr);
  int rc;
  if( s==NULL ) return -1;
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    int pos = id_add(&p->rtIds, sqlite3_column_int64(s, 0));
    int64_t dur = sqlite3_column_int64(s, 5);
    RtSum *r;
    if( pos>=p->nRtAlloc ){
      p->nRtAlloc = p->nRtAlloc ? 2*p->nRtAlloc : 4096;
      p->aRtTs = xrealloc(p->aRtTs, (size_t)p->nRtAlloc*sizeof(int64_t));
      p->aRtGroup = xrealloc(p->aRtGroup, (size_t)p->nRtAlloc*sizeof(int));
      p->aRtRc = xrealloc(p->aRtRc, (size_t)p->nRtAlloc);
    }
    r = group_map_get(&p->t.rt, sqlite3_column_int64(s, 1),
                      sqlite3_column_int64(s, 2),
                      group_map_text_code(&p->t.kind,
                          (const char*)sqlite3_column_text(s, 3)),
                      0, &p->aRtGroup[pos]);
    r->calls++;
    r->totalNs += dur;
    if( r->calls==1 || dur>r->maxNs ) r->maxNs = dur;
    p->aRtTs[pos] = sqlite3_column_int64(s, 4);
    p->aRtRc[pos] = (unsigned char)sqlite3_column_int(s, 6);
  }
  id_sort(&p->rtIds);
  return step_error(db, s, rc, pErr);
}

/* The op with FLOPs at op position pos, or NULL (binary search). */
static FlopsOp *flops_op(Summary *p, int pos){
  int lo = 0, hi = p->nFl;
  while( lo<hi ){
    int mid = (lo+hi)/2;
    if( p->aFl[mid].pos<pos ) lo = mid+1; else hi = mid;
  }
  return lo<p->nFl && p->aFl[lo].pos==pos ? &p->aFl[lo] : NULL;
}

/* Columns of the kernel and gpu_mem_op scans. */
enum { G_RANK, G_OP, G_RT, G_TS, G_DUR, G_STEP };

/* One kernel (isKernel) or memcpy/memset: what it adds to the op and the
** runtime call that launched it, and to its step. */
static void gpu_row(Summary *p, sqlite3_stmt *s, int isKernel){
  int64_t dur = sqlite3_column_int64(s, G_DUR);
  int64_t opId = sqlite3_column_int64(s, G_OP);
  int64_t rtId = sqlite3_column_int64(s, G_RT);
  if( opId!=0 ){
    int pos = id_find(&p->opIds, opId);
    if( pos>=0 && p->aOpGroup[pos]>=0 ){
      OpSum *o = group_map_val(&p->t.ops, p->aOpGroup[pos]);
      o->gpuN++;
      o->gpuNs += dur;
      if( isKernel && p->nFl>0 ){
        FlopsOp *f = flops_op(p, pos);
        if( f ){ f->hasKernel = 1; f->kNs += dur; }
      }
    }
  }
  if( rtId!=0 ){
    int pos = id_find(&p->rtIds, rtId);
    if( pos>=0 ){
      RtSum *r = group_map_val(&p->t.rt, p->aRtGroup[pos]);
      int64_t d = sqlite3_column_int64(s, G_TS) - p->aRtTs[pos];
      if( r->launches==0 || d>r->maxDelay ) r->maxDelay = d;
      r->launches++;
      r->delayNs += d;
      r->nShort += dur<10000;
      if( isKernel && p->aRtRc[pos] ){ r->rcN++; r->rcNs += dur; }
    }
  }
  if( isKernel && sqlite3_column_type(s, G_STEP)!=SQLITE_NULL ){
    StepSum *st = group_map_get(&p->t.steps, sqlite3_column_int64(s, G_RANK),
                            sqlite3_column_int64(s, G_STEP), 0, 0, NULL);
    st->n++;
    st->ns += dur;
  }
}

static int scan_gpu(sqlite3 *db, Summary *p, const char *zTab, int isKernel,
                    PfError *pErr){
  sqlite3_stmt *s = scan_run(db, zTab,
      isKernel
        ? "rank, coalesce(op_id, 0), coalesce(runtime_id, 0), ts, dur, step"
        : "rank, coalesce(op_id, 0), coalesce(runtime_id, 0), ts, dur, NULL",
      p->runId, pErr);
  int rc;
  if( s==NULL ) return -1;
  while( (rc = sqlite3_step(s))==SQLITE_ROW ) gpu_row(p, s, isKernel);
  return step_error(db, s, rc, pErr);
}

/* -------------------------------------------------------------- write */

static int write_ops(sqlite3 *db, int64_t runId, const SummaryTotals *p,
                     PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    "INSERT INTO cpu_op_summary VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)", pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  for(int g=0; g<p->ops.nGroup; g++){
    const GroupKey *k = &p->ops.aKey[g];
    const OpSum *o = group_map_val(&p->ops, g);
    sqlite3_bind_int64(s, 2, k->a);
    sqlite3_bind_int64(s, 3, k->b);
    sqlite3_bind_int64(s, 4, k->c);
    sqlite3_bind_int64(s, 5, o->calls);
    sqlite3_bind_int64(s, 6, o->totalNs);
    sqlite3_bind_int64(s, 7, o->selfNs);
    sqlite3_bind_int64(s, 8, o->gpuN);
    sqlite3_bind_int64(s, 9, o->gpuNs);
    if( db_step_done(db, s, pErr) ){ sqlite3_finalize(s); return -1; }
  }
  sqlite3_finalize(s);
  return 0;
}

static int write_shapes(sqlite3 *db, int64_t runId, const SummaryTotals *p,
                        PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    "INSERT INTO cpu_op_shape_summary VALUES(?1,?2,?3,?4,?5)", pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  for(int g=0; g<p->shapes.nGroup; g++){
    const GroupKey *k = &p->shapes.aKey[g];
    sqlite3_bind_int64(s, 2, k->a);
    sqlite3_bind_int64(s, 3, k->b);
    sqlite3_bind_int64(s, 4, k->c);
    sqlite3_bind_int64(s, 5,
                       ((const ShapeSum*)group_map_val(&p->shapes, g))->calls);
    if( db_step_done(db, s, pErr) ){ sqlite3_finalize(s); return -1; }
  }
  sqlite3_finalize(s);
  return 0;
}

static int write_flops(sqlite3 *db, int64_t runId, const SummaryTotals *p,
                       PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    "INSERT INTO cpu_op_flops_summary VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)",
    pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  for(int g=0; g<p->flops.nGroup; g++){
    const GroupKey *k = &p->flops.aKey[g];
    const FlopsSum *fs = group_map_val(&p->flops, g);
    sqlite3_bind_int64(s, 2, k->a);
    sqlite3_bind_int64(s, 3, k->b);
    db_bind_text_or_null(s, 4, group_map_text_of(&p->src, k->c), -1);
    sqlite3_bind_int64(s, 5, fs->calls);
    sqlite3_bind_double(s, 6, fs->flops);
    sqlite3_bind_int64(s, 7, fs->kCalls);
    sqlite3_bind_double(s, 8, fs->kFlops);
    sqlite3_bind_int64(s, 9, fs->kNs);
    if( db_step_done(db, s, pErr) ){ sqlite3_finalize(s); return -1; }
  }
  sqlite3_finalize(s);
  return 0;
}

static int write_runtime(sqlite3 *db, int64_t runId,
                         const SummaryTotals *p, PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    "INSERT INTO runtime_summary"
    " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)", pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  for(int g=0; g<p->rt.nGroup; g++){
    const GroupKey *k = &p->rt.aKey[g];
    const RtSum *r = group_map_val(&p->rt, g);
    sqlite3_bind_int64(s, 2, k->a);
    sqlite3_bind_int64(s, 3, k->b);
    db_bind_text_or_null(s, 4, group_map_text_of(&p->kind, k->c), -1);
    sqlite3_bind_int64(s, 5, r->calls);
    sqlite3_bind_int64(s, 6, r->totalNs);
    sqlite3_bind_int64(s, 7, r->maxNs);
    sqlite3_bind_int64(s, 8, r->launches);
    sqlite3_bind_int64(s, 9, r->delayNs);
    db_bind_int_or_null(s, 10, r->launches>0, r->maxDelay);
    sqlite3_bind_int64(s, 11, r->nShort);
    sqlite3_bind_int64(s, 12, r->rcN);
    sqlite3_bind_int64(s, 13, r->rcNs);
    if( db_step_done(db, s, pErr) ){ sqlite3_finalize(s); return -1; }
  }
  sqlite3_finalize(s);
  return 0;
}

static int write_steps(sqlite3 *db, int64_t runId, const SummaryTotals *p,
                       PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    "INSERT INTO step_kernel_summary VALUES(?1,?2,?3,?4,?5)", pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  for(int g=0; g<p->steps.nGroup; g++){
    const GroupKey *k = &p->steps.aKey[g];
    const StepSum *st = group_map_val(&p->steps, g);
    sqlite3_bind_int64(s, 2, k->a);
    sqlite3_bind_int64(s, 3, k->b);
    sqlite3_bind_int64(s, 4, st->n);
    sqlite3_bind_int64(s, 5, st->ns);
    if( db_step_done(db, s, pErr) ){ sqlite3_finalize(s); return -1; }
  }
  sqlite3_finalize(s);
  return 0;
}

void derive_summary_totals_init(SummaryTotals *p){
  memset(p, 0, sizeof(*p));
  group_map_init(&p->ops, sizeof(OpSum));
  group_map_init(&p->shapes, sizeof(ShapeSum));
  group_map_init(&p->flops, sizeof(FlopsSum));
  group_map_init(&p->rt, sizeof(RtSum));
  group_map_init(&p->steps, sizeof(StepSum));
}

void derive_summary_totals_free(SummaryTotals *p){
  group_map_free(&p->ops);
  group_map_free(&p->shapes);
  group_map_free(&p->flops);
  group_map_free(&p->rt);
  group_map_free(&p->steps);
  group_map_text_free(&p->src);
  group_map_text_free(&p->kind);
}

int derive_summary_totals_write(sqlite3 *db, int64_t runId,
                                const SummaryTotals *p, PfError *pErr){
  if( write_ops(db, runId, p, pErr)
      || write_shapes(db, runId, p, pErr)
      || write_flops(db, runId, p, pErr)
      || write_runtime(db, runId, p, pErr)
      || write_steps(db, runId, p, pErr) ) return -1;
  return 0;
}

/* ------------------------------------------------------------- driver */

/* The kernel totals of ops with FLOPs, in position order (the order a
** GROUP BY over the op rows adds them in). */
static void flops_kernels(Summary *p){
  for(int i=0; i<p->nFl; i++){
    const FlopsOp *f = &p->aFl[i];
    if( f->hasKernel ){
      FlopsSum *fs = group_map_val(&p->t.flops, f->group);
      fs->kCalls++;
      fs->kFlops += f->flops;
      fs->kNs += f->kNs;
    }
  }
}

int derive_summary_pending_create(sqlite3 *db, PfError *pErr){
  return db_exec(db, "CREATE TABLE IF NOT EXISTS " SUMMARY_PENDING_TABLE
                 "(run_id INTEGER, first INTEGER, last INTEGER)", pErr);
}

/* Whether the trace writer wrote the summaries of run runId: 1, 0, or -1
** with pErr set. */
static int writer_wrote(sqlite3 *db, int64_t runId, PfError *pErr){
  sqlite3_stmt *s;
  int r;
  if( derive_summary_pending_create(db, pErr) ) return -1;
  s = db_prepare(db, "SELECT 1 FROM " SUMMARY_PENDING_TABLE
                 " WHERE run_id=?1 LIMIT 1", pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  r = sqlite3_step(s);
  sqlite3_finalize(s);
  if( r==SQLITE_ROW ) return 1;
  if( r==SQLITE_DONE ) return 0;
  pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
  return -1;
}

/* After the trace writer's summaries: the kernels inserted without a step
** that have one now (derive_trace.c assigns the step containing their
** start), added to step_kernel_summary; one range scan of the kernel
** table per run of such rowids (CROSS JOIN: not a scan of every kernel
** probing the runs). */
static int pending_steps(sqlite3 *db, int64_t runId, PfError *pErr){
  char *zSql = xasprintf(
    "INSERT INTO step_kernel_summary(run_id, rank, step, kernels, kernel_ns)"
    " SELECT ?1, k.rank, k.step, count(*), sum(k.dur)"
    " FROM %s p CROSS JOIN kernel k ON k.id BETWEEN p.first AND p.last"
    " WHERE p.run_id=?1 AND k.step IS NOT NULL GROUP BY k.rank, k.step"
    " ON CONFLICT(run_id, rank, step) DO UPDATE"
    " SET kernels=kernels+excluded.kernels,"
    " kernel_ns=kernel_ns+excluded.kernel_ns", SUMMARY_PENDING_TABLE);
  int rc = db_exec_run(db, zSql, runId, pErr);
  free(zSql);
  if( rc ) return -1;
  return db_exec_run(db, "DELETE FROM " SUMMARY_PENDING_TABLE
                     " WHERE run_id=?1", runId, pErr);
}

/* step_kernel_summary of run runId totalled again from its kernels (their
** steps were reassigned after the writer counted them). */
static int recount_steps(sqlite3 *db, int64_t runId, PfError *pErr){
  return db_exec_run(db,
    "DELETE FROM step_kernel_summary WHERE run_id=?1;"
    "INSERT INTO step_kernel_summary(run_id, rank, step, kernels, kernel_ns)"
    " SELECT ?1, rank, step, count(*), sum(dur) FROM kernel"
    " WHERE run_id=?1 AND step IS NOT NULL GROUP BY rank, step;"
    "DELETE FROM " SUMMARY_PENDING_TABLE " WHERE run_id=?1;", runId, pErr);
}

int derive_summary_run(sqlite3 *db, int64_t runId, int stepsRedone,
                       int *pDbPass, PfError *pErr){
  Summary sum;
  int rc = -1, w = writer_wrote(db, runId, pErr);
  if( pDbPass ) *pDbPass = w==0;
  if( w<0 ) return -1;
  if( w ){
    return stepsRedone ? recount_steps(db, runId, pErr)
                       : pending_steps(db, runId, pErr);
  }
  memset(&sum, 0, sizeof(sum));
  sum.runId = runId;
  derive_summary_totals_init(&sum.t);
  if( scan_ops(db, &sum, pErr)==0
      && scan_runtime(db, &sum, pErr)==0
      && scan_gpu(db, &sum, "kernel", 1, pErr)==0
      && scan_gpu(db, &sum, "gpu_mem_op", 0, pErr)==0 ){
    flops_kernels(&sum);
    rc = derive_summary_totals_write(db, runId, &sum.t, pErr);
  }
  summary_free(&sum);
  return rc;
}
