/*
** load_trace.c — the trace writer: one prepared INSERT per table, bound and
** reset per event, inside the ingest's single transaction.
**
** Pipeline position: "load".  Interns names through Intern; derives a few
** per-row fields on the way in (memcpy direction, FLOP estimate).  Linkage
** columns (runtime_id, op_id, step ...) come filled from the in-stream
** linker.  Every row also goes, with the values its columns got, to what
** is kept of it (trace_keep.c: the totals of gpu_op_summary and the 009
** summaries, the intervals and operator calls of the derive passes), so
** that no derive pass reads the rows back.  Operator rows are inserted
** in id order, a few thousand held at a time (OpRow below).
*/
#include "trace/load_trace.h"
#include "core/db.h"
#include "core/db_batch.h"
#include "core/msort.h"
#include "trace/trace_keep.h"
#include "trace/trace_args.h"

#include <stdlib.h>
#include <string.h>

enum { S_KERNEL, S_MEMOP, S_CPU_OP, S_RUNTIME, S_SYNC, S_ANNOT,
       S_PYTHON, S_DEVICE, S_RPC, S_STEP_OP, S_N };

/* by name: statements/NAME.sql */
static const char *azInsert[S_N] = {
  "load-trace-insert-kernel",
  "load-trace-insert-gpu-mem-op",
  "load-trace-insert-cpu-op",
  "load-trace-insert-runtime-call",
  "load-trace-insert-gpu-sync",
  "load-trace-insert-annotation",
  "load-trace-insert-python-function",
  "load-trace-insert-device",
  /* record_param_comms ops, so that derive_comm.c need not scan cpu_op */
  "load-trace-insert-rpc-op",
  /* ProfilerStep#N ops (2021 traces: category Operator), so that
  ** derive_trace.c finds the steps without scanning cpu_op */
  "load-trace-insert-step-op",
};


/* A parameter value of an event insert.  Rows are built as arrays of
** these, then bound.  Bindings survive sqlite3_reset() and a bind call
** costs ~70 instructions, so a parameter that holds the same value as in
** the previous execution is not bound again: the constant run/rank/file
** columns, the repeated pid/tid/device/stream, the columns a trace
** generation leaves NULL (half the bind calls on the bench trace). */
typedef struct Bound {
  int type;             /* B_UNKNOWN, B_NULL, B_INT, B_REAL, B_STATIC, B_TEXT */
  int n;                /* B_TEXT: bytes, or -1 */
  int64_t i;
  double r;
  const char *z;        /* B_STATIC: a literal, compared by address;
                        ** B_TEXT: text valid until the row is bound */
} Bound;
enum { B_UNKNOWN, B_NULL, B_INT, B_REAL, B_STATIC, B_TEXT };
#define MAX_PARAMS 24

/* One event insert statement, the row being built and what it holds.
** (Multi-row INSERTs were tried: 16 rows per execution left the insert
** cost per row within 10 %: the cost is in encoding and inserting each
** row, not in running the statement.) */
typedef struct Ins {
  sqlite3_stmt *s;
  int nCol;
  Bound aCur[MAX_PARAMS+1];     /* the row being built, from index 1 */
  Bound aBound[MAX_PARAMS+1];   /* what s holds */
} Ins;



/* Operator rows waiting to be inserted in id order.  The linker numbers
** ops in start order but sends each out when it closes, after the ops it
** encloses: inserted as they come, an op's row goes in before rows of
** higher ids already on the table's last page, which splits it (7-10 %
** of cpu_op's pages were free space on the bench shapes).  Rows of ops with
** an id are held here and inserted sorted when OPBUF_N are held, before
** a file's fix-ups and at the end of the load (load_trace_flush); nothing
** reads cpu_op during the load.  When the buffer is full, only the lower
** half goes in: the ops that enclose the rows of the higher half come
** after them and still find their place among the held rows (inserting
** all of them left such an op behind the table's last row).  The rows
** still late are the last ops of a thread that goes idle (the autograd
** thread's, on param-linear-2080ti): the linker closes an op when the next
** op of its thread starts, 10,000-22,000 ids later.  Only ints,
** reals and string literals are bound to a cpu_op row, so a held row is a
** copy of its Bound values; a slot a row leaves is reused (aFree). */
#define OPBUF_N 4096
#define OPBUF_KEEP (OPBUF_N/2)  /* rows held on when the buffer is full */
#define OPKEY_MOVE_MAX 64       /* insertion sort's reach, keys */
typedef struct OpRow {
  Bound a[MAX_PARAMS+1];
} OpRow;
typedef struct OpKey {          /* a held row's id and slot, sorted */
  int64_t id;
  int k;
} OpKey;

struct TraceLoader {
  sqlite3 *db;
  Intern *pIntern;
  sqlite3_stmt *aStmt[S_N];
  Ins aIns[S_N];                /* aIns[i].s == aStmt[i] */
  sqlite3_stmt *pColl;          /* coll_args' INSERT, from the first row */
  OpRow *aOp;                   /* held cpu_op rows (OPBUF_N) */
  OpKey *aOpKey;                /* their ids, in the order they came */
  int *aFree;                   /* the free slots of aOp, a stack */
  int nOp, nFree;               /* nOp + nFree == OPBUF_N */
  int opSorted;                 /* 1: aOpKey is in id order already */
  int64_t nRows;
  TraceTotals *pTot;            /* the totals, or NULL */
  TraceSpans *pSpans;           /* intervals for the sweeps, or NULL */
  int64_t durTotal;             /* sum of every row's dur so far, ns */
  /* memory_event rows go MEM_BATCH a statement (a [memory] event is a
  ** narrow row of mostly new values: one row a statement cost 1,900
  ** instructions a row more, SQLite's per-statement work); each takes
  ** SQLite's next rowid, memNext, checked after each write */
  DbBatch mem;
  int64_t memNext;
};
#define MEM_COLS 11
#define MEM_BATCH 64

/* Every per-event duration is capped (parse_trace.c, 39 hours), but many
** valid events can still add up past what an int64 holds, and every sum
** over them (the gpu_op_summary totals, the 009 summaries, SQL's sum() in the
** queries, two such sums added) would overflow.  The durations of all the
** rows one ingest writes must add up to at most 2^62 ns (146 years of
** busy time); the event that goes past it refuses the ingest. */
#define LOAD_DUR_TOTAL_MAX ((int64_t)1<<62)

void load_trace_keep(TraceLoader *p, TraceTotals *pTot, TraceSpans *pSpans){
  p->pTot = pTot;
  p->pSpans = pSpans;
  trace_keep_begin(pTot, pSpans, p->db);
}

TraceLoader *load_trace_new(sqlite3 *db, Intern *pIntern, PfError *pErr){
  TraceLoader *p = xcalloc(1, sizeof(*p));
  p->db = db;
  p->pIntern = pIntern;
  if( db_exec(db, db_statement("load-trace-new"), pErr) ){
    free(p);
    return NULL;
  }
  for(int i=0; i<S_N; i++){
    if( sqlite3_prepare_v3(db, db_statement(azInsert[i]), -1,
                           SQLITE_PREPARE_PERSISTENT,
                           &p->aStmt[i], NULL)!=SQLITE_OK ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
      load_trace_free(p);
      return NULL;
    }
    p->aIns[i].s = p->aStmt[i];
    p->aIns[i].nCol = sqlite3_bind_parameter_count(p->aStmt[i]);
  }
  return p;
}

void load_trace_free(TraceLoader *p){
  if( p==NULL ) return;
  for(int i=0; i<S_N; i++) sqlite3_finalize(p->aStmt[i]);
  sqlite3_finalize(p->pColl);
  free(p->aOp);
  free(p->aOpKey);
  free(p->aFree);
  db_batch_close(&p->mem);
  free(p);
}


int64_t load_trace_rows(const TraceLoader *p){ return p->nRows; }

/* Set parameter i of the row being built. */
static void b_int(Ins *b, int i, int64_t v){
  b->aCur[i].type = B_INT;
  b->aCur[i].i = v;
}
static void b_null(Ins *b, int i){ b->aCur[i].type = B_NULL; }
static void b_int_or_null(Ins *b, int i, int has, int64_t v){
  if( has ) b_int(b, i, v); else b_null(b, i);
}
static void b_real_or_null(Ins *b, int i, int has, double v){
  if( !has ){ b_null(b, i); return; }
  b->aCur[i].type = B_REAL;
  b->aCur[i].r = v;
}
/* z is a string literal (or NULL for SQL NULL). */
static void b_static(Ins *b, int i, const char *z){
  if( z==NULL ){ b_null(b, i); return; }
  b->aCur[i].type = B_STATIC;
  b->aCur[i].z = z;
}
/* Text that changes from row to row ("" binds NULL); not copied: bound
** before the row is done. */
static void b_text_or_null(Ins *b, int i, const char *z, int n){
  if( z==NULL || z[0]==0 ){ b_null(b, i); return; }
  b->aCur[i].type = B_TEXT;
  b->aCur[i].z = z;
  b->aCur[i].n = n;
}

/* Bind v to parameter i of s unless *pHeld says s holds it already. */
static void bind_value(sqlite3_stmt *s, int i, const Bound *v, Bound *pHeld){
  switch( v->type ){
    case B_INT:
      if( pHeld->type==B_INT && pHeld->i==v->i ) return;
      sqlite3_bind_int64(s, i, v->i);
      break;
    case B_REAL:
      if( pHeld->type==B_REAL && memcmp(&pHeld->r, &v->r, sizeof(double))==0 ){
        return;
      }
      sqlite3_bind_double(s, i, v->r);
      break;
    case B_STATIC:
      if( pHeld->type==B_STATIC && pHeld->z==v->z ) return;
      sqlite3_bind_text(s, i, v->z, -1, SQLITE_STATIC);
      break;
    case B_TEXT:
      sqlite3_bind_text(s, i, v->z, v->n, SQLITE_TRANSIENT);
      *pHeld = *v;
      pHeld->type = B_UNKNOWN;    /* the text is gone after this row */
      return;
    default:
      if( pHeld->type==B_NULL ) return;
      sqlite3_bind_null(s, i);
      break;
  }
  *pHeld = *v;
}

/* Run s once; returns 0 or -1 with pErr set. */
static int ins_exec(TraceLoader *p, sqlite3_stmt *s, PfError *pErr){
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(p->db));
    return -1;
  }
  return 0;
}

/* Bind the row built in b->aCur and insert it.  Returns 0 or -1 with pErr. */
static int ins_row(TraceLoader *p, Ins *b, PfError *pErr){
  for(int i=1; i<=b->nCol; i++) bind_value(b->s, i, &b->aCur[i], &b->aBound[i]);
  return ins_exec(p, b->s, pErr);
}

static int op_key_cmp(const OpKey *a, const OpKey *b){
  int64_t x = a->id, y = b->id;
  return (x>y) - (x<y);
}
DEFINE_MSORT(op_key_sort, OpKey, op_key_cmp)

/* Insert the operator rows held so far in id order, but for the nKeep of
** highest id, held on. */
static int flush_ops(TraceLoader *p, int nKeep, PfError *pErr){
  Ins *b = &p->aIns[S_CPU_OP];
  Bound aKeep[MAX_PARAMS+1];    /* the row being built, kept */
  size_t nByte = (size_t)(b->nCol+1) * sizeof(Bound);
  int n = p->nOp, rc = 0;
  if( n<=nKeep ) return 0;
  memcpy(aKeep, b->aCur, nByte);
  /* the keys are sorted, not the 1 KB rows */
  if( !p->opSorted ) op_key_sort(p->aOpKey, (size_t)n);
  p->opSorted = 1;
  for(int k=0; k<n-nKeep && rc==0; k++){
    memcpy(b->aCur, p->aOp[p->aOpKey[k].k].a, nByte);
    p->aFree[p->nFree++] = p->aOpKey[k].k;
    rc = ins_row(p, b, pErr);
  }
  memmove(p->aOpKey, &p->aOpKey[n-nKeep], (size_t)nKeep*sizeof(OpKey));
  p->nOp = nKeep;
  memcpy(b->aCur, aKeep, nByte);
  return rc;
}

/* Insert the cpu_op row built in b->aCur, or hold it (an op with an id
** from the linker; column 17 is id).  Returns 0 or -1 with pErr set. */
static int ins_op_row(TraceLoader *p, Ins *b, PfError *pErr){
  int64_t id;
  int j;
  if( b->aCur[17].type!=B_INT ){
    /* its id is SQLite's next: the held rows go first */
    if( flush_ops(p, 0, pErr) ) return -1;
    return ins_row(p, b, pErr);
  }
  if( p->aOp==NULL ){
    p->aOp = xmalloc(OPBUF_N * sizeof(OpRow));
    p->aOpKey = xmalloc(OPBUF_N * sizeof(OpKey));
    p->aFree = xmalloc(OPBUF_N * sizeof(int));
    for(p->nFree=0; p->nFree<OPBUF_N; p->nFree++){
      p->aFree[p->nFree] = OPBUF_N-1-p->nFree;
    }
  }
  if( p->nOp==OPBUF_N && flush_ops(p, OPBUF_KEEP, pErr) ) return -1;
  id = b->aCur[17].i;
  if( p->nOp==0 ) p->opSorted = 1;
  /* an op comes after the few it encloses: its key moves back past them
  ** (insertion sort); one that would move further leaves the sort to
  ** the flush */
  j = p->nOp;
  while( j>0 && p->aOpKey[j-1].id>id && p->nOp-j<OPKEY_MOVE_MAX ){
    p->aOpKey[j] = p->aOpKey[j-1];
    j--;
  }
  if( j>0 && p->aOpKey[j-1].id>id ) p->opSorted = 0;
  p->aOpKey[j].id = id;
  p->aOpKey[j].k = p->aFree[--p->nFree];
  memcpy(p->aOp[p->aOpKey[j].k].a, b->aCur,
         (size_t)(b->nCol+1) * sizeof(Bound));
  p->nOp++;
  return 0;
}

/* Bind the leading (run_id, rank, file_id) columns. */
static void bind_target(Ins *b, const TraceTarget *t){
  b_int(b, 1, t->runId);
  b_int(b, 2, t->rank);
  b_int(b, 3, t->fileId);
}

#define HAS(bit) ((e->has & (bit))!=0)

/* Bind the columns every event table starts with: (run_id, rank, file_id,
** place1, place2, ts, dur, name_id), where the places are device/stream
** for GPU rows and pid/tid for CPU rows (absent = NULL). */
static void bind_head(Ins *b, const TraceTarget *t,
                      const TraceEvent *e, int has1, int64_t v1,
                      int has2, int64_t v2, int64_t nameId){
  bind_target(b, t);
  b_int_or_null(b, 4, has1, v1);
  b_int_or_null(b, 5, has2, v2);
  b_int(b, 6, e->ts);
  b_int(b, 7, e->dur);
  b_int(b, 8, nameId);
}

/* Device/stream of a GPU row: the row's pid/tid, else args. */
static void gpu_place(const TraceEvent *e, int64_t *pDev, int *pHasDev,
                      int64_t *pStream, int *pHasStream){
  *pHasDev = HAS(TF_PID) || HAS(TF_DEVICE);
  *pDev = HAS(TF_PID) ? e->pid : e->device;
  *pHasStream = HAS(TF_STREAM) || HAS(TF_TID);
  *pStream = HAS(TF_STREAM) ? e->stream : e->tid;
}

/* Bind the string id of text z (interned), or NULL for "".  Returns 0 or
** -1 with pErr set. */
static int bind_interned(TraceLoader *p, Ins *b, int i,
                         const char *z, PfError *pErr){
  int64_t id;
  if( z==NULL || z[0]==0 ){
    b_null(b, i);
    return 0;
  }
  id = intern_id(p->pIntern, z, strlen(z), pErr);
  if( id<0 ) return -1;
  b_int(b, i, id);
  return 0;
}

/* Bind runtime_id, op_id, step of a GPU row at columns i, i+1, i+2 (no
** step: TRACE_STEP_PENDING, which the derive replaces). */
static void bind_gpu_link(Ins *b, int i, const TraceEvent *e){
  b_int_or_null(b, i, e->linked && e->runtimeId>0, e->runtimeId);
  b_int_or_null(b, i+1, e->linked && e->opId>0, e->opId);
  b_int(b, i+2, e->linked && e->step>=0 ? e->step : TRACE_STEP_PENDING);
}

/* After the row of e was written: its collective args (NCCL kernels,
** record_param_comms) or, for the process group's ranges (nccl:*, and
** gloo:* / mpi:* that are the collective itself on the host:
** docs/formats.md §1.11), the input shapes, to coll_args
** (load_collective.c).  Returns 0 or -1 with pErr. */
static int load_trace_coll(TraceLoader *p, const TraceTarget *t,
                           const TraceEvent *e, PfError *pErr){
  int eSrc;
  int64_t rowId;
  CollArgs a;
  const CollArgs *pa = e->pColl;
  if( e->kind==TEV_KERNEL ) eSrc = COLL_SRC_KERNEL;
  else if( e->kind==TEV_CPU_OP ) eSrc = COLL_SRC_CPU_OP;
  else if( e->kind==TEV_USER_ANNOTATION ) eSrc = COLL_SRC_ANNOTATION;
  else return 0;
  if( pa==NULL || pa->has==0 ){
    if( eSrc==COLL_SRC_KERNEL || (strncmp(e->zName, "nccl:", 5)!=0
                                  && strncmp(e->zName, "gloo:", 5)!=0
                                  && strncmp(e->zName, "mpi:", 4)!=0) ){
      return 0;
    }
    if( eSrc==COLL_SRC_CPU_OP && e->zInputDims[0]==0 ) return 0;
    load_collective_args_reset(&a);
    if( load_collective_args_from_dims(&a, e->zInputDims, e->zInputTypes) ){
      return 0;
    }
    pa = &a;
  }
  rowId = (eSrc==COLL_SRC_CPU_OP && e->rowId>0) ? e->rowId
        : sqlite3_last_insert_rowid(p->db);
  return load_collective_row(p->db, &p->pColl, t->runId, t->rank,
                             t->fileId, rowId, eSrc, pa, pErr);
}

/* What binding an event's row leaves for the steps after the insert. */
typedef struct RowInfo {
  int64_t nameId;               /* 0 for memory events (no name id) */
  int64_t dev;                  /* GPU rows: device, when hasDev */
  int hasDev;
  MemcpyKind mk;                /* memcpy/memset: bound as text, so it
                                ** lives until the row is inserted */
  double fl;                    /* cpu_op: FLOPs, when zSrc */
  const char *zSrc;             /* cpu_op: "arg", "estimate" or NULL */
} RowInfo;

static void bind_kernel(Ins *b, const TraceTarget *t,
                        const TraceEvent *e, RowInfo *r){
  int64_t stream;
  int hasStream;
  gpu_place(e, &r->dev, &r->hasDev, &stream, &hasStream);
  bind_head(b, t, e, r->hasDev, r->dev, hasStream, stream, r->nameId);
  b_int_or_null(b, 9, HAS(TF_CORRELATION), e->correlation);
  b_int_or_null(b, 10, HAS(TF_EXTERNAL_ID), e->external_id);
  for(int i=0; i<3; i++){
    b_int_or_null(b, 11+i, HAS(TF_GRID), e->grid[i]);
    b_int_or_null(b, 14+i, HAS(TF_BLOCK), e->block[i]);
  }
  b_int_or_null(b, 17, HAS(TF_REGISTERS), e->registers);
  b_int_or_null(b, 18, HAS(TF_SHARED_MEM), e->shared_mem);
  b_real_or_null(b, 19, HAS(TF_BLOCKS_PER_SM), e->blocks_per_sm);
  b_real_or_null(b, 20, HAS(TF_WARPS_PER_SM), e->warps_per_sm);
  b_real_or_null(b, 21, HAS(TF_OCCUPANCY), e->occupancy);
  bind_gpu_link(b, 22, e);
}

static void bind_memop(Ins *b, const TraceTarget *t,
                       const TraceEvent *e, RowInfo *r){
  int64_t stream;
  int hasStream;
  gpu_place(e, &r->dev, &r->hasDev, &stream, &hasStream);
  bind_head(b, t, e, r->hasDev, r->dev, hasStream, stream, r->nameId);
  b_static(b, 9, e->kind==TEV_MEMCPY ? "memcpy" : "memset");
  trace_args_memcpy_kind(e->zName, &r->mk);
  b_text_or_null(b, 10, r->mk.zDirection, -1);
  b_text_or_null(b, 11, r->mk.zSrc, -1);
  b_text_or_null(b, 12, r->mk.zDst, -1);
  b_int_or_null(b, 13, HAS(TF_BYTES), e->bytes);
  b_int_or_null(b, 14, HAS(TF_CORRELATION), e->correlation);
  b_int_or_null(b, 15, HAS(TF_EXTERNAL_ID), e->external_id);
  bind_gpu_link(b, 16, e);
  b_real_or_null(b, 19, HAS(TF_MEM_GBPS) && e->mem_gbps>0, e->mem_gbps);
}

/* Returns 0 or -1 with pErr set (interning the shapes failed). */
static int bind_cpu_op(TraceLoader *p, Ins *b, const TraceTarget *t,
                       const TraceEvent *e, RowInfo *r, PfError *pErr){
  bind_head(b, t, e, HAS(TF_PID), e->pid, HAS(TF_TID), e->tid, r->nameId);
  b_int_or_null(b, 9, HAS(TF_EXTERNAL_ID), e->external_id);
  b_int_or_null(b, 10, HAS(TF_SEQUENCE), e->sequence);
  b_int_or_null(b, 11, HAS(TF_FWD_TID), e->fwd_tid);
  if( bind_interned(p, b, 12, e->zInputDims, pErr)
      || bind_interned(p, b, 13, e->zInputTypes, pErr)
      || bind_interned(p, b, 14, e->zConcreteInputs, pErr) ) return -1;
  if( HAS(TF_FLOPS) ){ r->fl = e->flops; r->zSrc = "arg"; }
  else{
    r->fl = trace_args_estimate_flops(e->zName, e->zInputDims);
    if( r->fl>=0 ) r->zSrc = "estimate";
  }
  b_real_or_null(b, 15, r->zSrc!=NULL, r->fl);
  b_static(b, 16, r->zSrc);
  b_int_or_null(b, 17, e->rowId>0, e->rowId);
  b_int_or_null(b, 18, e->linked && e->parentId>0, e->parentId);
  b_int_or_null(b, 19, e->linked, e->depth);
  b_int_or_null(b, 20, e->linked, e->selfDur);
  b_int_or_null(b, 21, e->linked && e->step>=0, e->step);
  return 0;
}

static void bind_runtime(Ins *b, const TraceTarget *t, const TraceEvent *e,
                         const RowInfo *r){
  bind_head(b, t, e, HAS(TF_PID), e->pid, HAS(TF_TID), e->tid, r->nameId);
  b_int(b, 9, e->kind==TEV_DRIVER);
  b_int_or_null(b, 10, HAS(TF_CORRELATION), e->correlation);
  b_int_or_null(b, 11, HAS(TF_EXTERNAL_ID), e->external_id);
  b_int_or_null(b, 12, HAS(TF_CBID), e->cbid);
  b_int_or_null(b, 13, e->rowId>0, e->rowId);
  b_int_or_null(b, 14, e->linked && e->opId>0, e->opId);
  b_int_or_null(b, 15, e->linked && e->topOpId>0, e->topOpId);
  b_int_or_null(b, 16, e->linked, e->inRecompute);
  b_int_or_null(b, 17, e->linked && e->step>=0, e->step);
}

static void bind_sync(Ins *b, const TraceTarget *t, const TraceEvent *e,
                      RowInfo *r){
  int64_t stream;
  int hasStream;
  gpu_place(e, &r->dev, &r->hasDev, &stream, &hasStream);
  bind_head(b, t, e, r->hasDev, r->dev, hasStream, stream, r->nameId);
  b_int_or_null(b, 9, HAS(TF_CORRELATION), e->correlation);
}

static void bind_annotation(Ins *b, const TraceTarget *t,
                            const TraceEvent *e, const RowInfo *r){
  bind_target(b, t);
  b_static(b, 4, e->kind==TEV_USER_ANNOTATION ? "user" : "gpu_user");
  b_int_or_null(b, 5, HAS(TF_PID), e->pid);
  b_int_or_null(b, 6, HAS(TF_TID), e->tid);
  b_int(b, 7, e->ts);
  b_int(b, 8, e->dur);
  b_int(b, 9, r->nameId);
  b_int_or_null(b, 10, HAS(TF_EXTERNAL_ID), e->external_id);
}

/* After a write of memory rows: the last got rowid memNext - 1.  0 or -1
** (pErr). */
static int mem_check(TraceLoader *p, PfError *pErr){
  if( sqlite3_last_insert_rowid(p->db)!=p->memNext-1 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: memory_event rows did not"
                 " get consecutive rowids (%lld, not %lld)",
                 (long long)sqlite3_last_insert_rowid(p->db),
                 (long long)(p->memNext-1));
    return -1;
  }
  return 0;
}

/* The row of memory event e, to the batch; its rowid is p->memNext - 1
** after.  0 or -1 (pErr). */
static int add_memory(TraceLoader *p, const TraceTarget *t,
                      const TraceEvent *e, PfError *pErr){
  int64_t a[MEM_COLS];
  char an[MEM_COLS];
  if( p->mem.pMany==NULL ){          /* the first: most traces have none */
    if( db_batch_open(p->db, &p->mem, "load-trace-insert-memory-events",
                      MEM_COLS, MEM_BATCH, pErr) ){
      return -1;
    }
    p->memNext = db_int(p->db, 0, "SELECT max(id) FROM memory_event") + 1;
  }
  memset(an, 0, sizeof(an));
  a[0] = t->runId;
  a[1] = t->rank;
  a[2] = t->fileId;
  a[3] = e->ts;
  a[4] = e->nName==13;              /* "[OutOfMemory]", else "[memory]" */
#define MEM_COL(i, bit, v) a[i] = (v); an[i] = !HAS(bit)
  MEM_COL(5, TF_DEVICE_TYPE, e->device_type);
  MEM_COL(6, TF_DEVICE_ID, e->device_id);
  MEM_COL(7, TF_ADDR, e->addr);
  MEM_COL(8, TF_BYTES, e->bytes);
  MEM_COL(9, TF_TOTAL_ALLOC, e->total_alloc);
  MEM_COL(10, TF_TOTAL_RESERVED, e->total_reserved);
#undef MEM_COL
  p->memNext++;
  if( db_batch_add(p->db, &p->mem, a, an, pErr) ) return -1;
  return p->mem.n==0 ? mem_check(p, pErr) : 0;
}

/* Write the memory_event rows held (64 go a statement). */
static int flush_memory(TraceLoader *p, PfError *pErr){
  if( p->mem.n==0 ) return 0;
  if( db_batch_flush(p->db, &p->mem, pErr) ) return -1;
  return mem_check(p, pErr);
}

int load_trace_flush(TraceLoader *p, PfError *pErr){
  if( flush_ops(p, 0, pErr) ) return -1;
  return flush_memory(p, pErr);
}

static void bind_python(Ins *b, const TraceTarget *t, const TraceEvent *e,
                        const RowInfo *r){
  bind_head(b, t, e, HAS(TF_PID), e->pid, HAS(TF_TID), e->tid, r->nameId);
  b_int_or_null(b, 9, HAS(TF_PYTHON_ID), e->python_id);
  b_int_or_null(b, 10, HAS(TF_PYTHON_PARENT), e->python_parent);
}

/* Bind the row of e in its table's insert; *ppB is that insert, or NULL
** for a kind that is not stored.  Returns 0 or -1 with pErr set. */
static int bind_event(TraceLoader *p, const TraceTarget *t,
                      const TraceEvent *e, RowInfo *r, Ins **ppB,
                      PfError *pErr){
  Ins *b = NULL;
  switch( e->kind ){
    case TEV_KERNEL:
      bind_kernel(b = &p->aIns[S_KERNEL], t, e, r);
      break;
    case TEV_MEMCPY:
    case TEV_MEMSET:
      bind_memop(b = &p->aIns[S_MEMOP], t, e, r);
      break;
    case TEV_CPU_OP:
      if( bind_cpu_op(p, b = &p->aIns[S_CPU_OP], t, e, r, pErr) ) return -1;
      break;
    case TEV_RUNTIME:
    case TEV_DRIVER:
      bind_runtime(b = &p->aIns[S_RUNTIME], t, e, r);
      break;
    case TEV_SYNC:
      bind_sync(b = &p->aIns[S_SYNC], t, e, r);
      break;
    case TEV_USER_ANNOTATION:
    case TEV_GPU_ANNOTATION:
      bind_annotation(b = &p->aIns[S_ANNOT], t, e, r);
      break;
    case TEV_PYTHON:
      bind_python(b = &p->aIns[S_PYTHON], t, e, r);
      break;
    default:
      break;
  }
  *ppB = b;
  return 0;
}

/* After a cpu_op row: its id in temp.rpc_op (record_param_comms) or
** temp.step_op (ProfilerStep#N).  Returns 0 or -1 with pErr set. */
static int insert_op_index(TraceLoader *p, const TraceEvent *e,
                           PfError *pErr){
  if( e->kind==TEV_CPU_OP && e->nName==18
      && memcmp(e->zName, "record_param_comms", 18)==0 ){
    Ins *r = &p->aIns[S_RPC];
    b_int(r, 1, e->rowId>0 ? e->rowId : sqlite3_last_insert_rowid(p->db));
    if( ins_row(p, r, pErr) ) return -1;
  }
  if( e->kind==TEV_CPU_OP && e->nName>12
      && memcmp(e->zName, "ProfilerStep", 12)==0 ){
    Ins *r = &p->aIns[S_STEP_OP];
    b_int(r, 1, e->rowId>0 ? e->rowId : sqlite3_last_insert_rowid(p->db));
    if( ins_row(p, r, pErr) ) return -1;
  }
  return 0;
}

/* Column i of the row just built, as sqlite3_column_int64 reads it back
** (NULL: 0). */
static int64_t cur_int(const Ins *b, int i){
  return b->aCur[i].type==B_INT ? b->aCur[i].i : 0;
}

/* After the row of e (statement b): the row as stored, to what is kept of
** it (trace_keep.c). */
static void after_row(TraceLoader *p, const TraceTarget *t,
                      const TraceEvent *e, const Ins *b, const RowInfo *ri){
  TraceRow r;
  memset(&r, 0, sizeof(r));
  r.kind = e->kind;
  r.fileId = t->fileId;
  r.ts = e->ts;
  r.dur = e->dur;
  r.nameId = ri->nameId;
  r.step = -1;
  r.launchStep = -1;
  switch( e->kind ){
    case TEV_KERNEL:
    case TEV_MEMCPY:
    case TEV_MEMSET: {
      int iRt = e->kind==TEV_KERNEL ? 22 : 16;
      r.id = sqlite3_last_insert_rowid(p->db);
      r.zName = e->zName;
      r.nName = e->nName;
      r.device = ri->dev;
      r.hasDevice = ri->hasDev;
      r.stream = cur_int(b, 5);
      r.runtimeId = cur_int(b, iRt);
      r.opId = cur_int(b, iRt+1);
      if( b->aCur[iRt+2].type==B_INT ) r.step = b->aCur[iRt+2].i;
      /* the linker gives a launched row its call's step, and nothing
      ** else gives a row a step before the derive */
      r.launchStep = r.runtimeId ? r.step : -1;
      r.host = e->kind==TEV_MEMCPY && strcmp(ri->mk.zDirection, "DtoD")!=0;
      break;
    }
    case TEV_CPU_OP:
      r.id = e->rowId>0 ? e->rowId : sqlite3_last_insert_rowid(p->db);
      r.zName = e->zName;
      r.nName = e->nName;
      r.tid = cur_int(b, 5);
      r.parentId = cur_int(b, 18);
      r.linked = b->aCur[19].type==B_INT;
      r.depth = (int)cur_int(b, 19);
      r.selfDur = cur_int(b, 20);
      if( b->aCur[21].type==B_INT ) r.step = b->aCur[21].i;
      r.dimsId = cur_int(b, 12);
      r.typesId = cur_int(b, 13);
      r.concId = cur_int(b, 14);
      r.flops = ri->fl;
      r.flopsSrc = ri->zSrc==NULL ? 0 : ri->zSrc[0]=='a' ? 1 : 2;
      break;
    case TEV_RUNTIME:
    case TEV_DRIVER:
      r.id = e->rowId>0 ? e->rowId : sqlite3_last_insert_rowid(p->db);
      r.tid = cur_int(b, 5);
      r.opId = cur_int(b, 14);
      r.topOpId = cur_int(b, 15);
      r.linked = b->aCur[16].type==B_INT;
      r.inRecompute = (int)cur_int(b, 16);
      if( b->aCur[17].type==B_INT ) r.step = b->aCur[17].i;
      break;
    default:
      return;
  }
  trace_keep_row(p->pTot, p->pSpans, &r);
}

int load_trace_event(TraceLoader *p, const TraceTarget *t,
                     const TraceEvent *e, PfError *pErr){
  Ins *b;
  RowInfo r;
  r.nameId = 0;
  r.dev = -1;
  r.hasDev = 0;
  r.fl = -1;
  r.zSrc = NULL;
  if( e->dur>0 ){
    if( e->dur > LOAD_DUR_TOTAL_MAX - p->durTotal ){
      pf_error_set(pErr, ERRPOS_BYTE, e->offset,
                   "durations add up past 2^62 ns (146 years) in one ingest;"
                   " refused");
      return -1;
    }
    p->durTotal += e->dur;
  }
  if( e->kind==TEV_MEMORY ){
    if( add_memory(p, t, e, pErr) ) return -1;
    p->nRows++;
    /* the memory series' events: CUDA ones with a total (the filter of
    ** trace-feed-memory-event.sql) */
    if( HAS(TF_DEVICE_TYPE) && e->device_type==1 && HAS(TF_TOTAL_ALLOC) ){
      TraceRow m;
      memset(&m, 0, sizeof(m));
      m.kind = TEV_MEMORY;
      m.fileId = t->fileId;
      m.id = p->memNext-1;
      m.ts = e->ts;
      m.step = -1;
      m.total = e->total_alloc;
      trace_keep_row(p->pTot, p->pSpans, &m);
    }
    return 0;
  }
  r.nameId = intern_id(p->pIntern, e->zName, (size_t)e->nName, pErr);
  if( r.nameId<0 ) return -1;
  if( bind_event(p, t, e, &r, &b, pErr) ) return -1;
  if( b==NULL ) return 0;
  if( b==&p->aIns[S_CPU_OP] ? ins_op_row(p, b, pErr) : ins_row(p, b, pErr) ){
    return -1;
  }
  p->nRows++;
  if( insert_op_index(p, e, pErr) ) return -1;
  after_row(p, t, e, b, &r);
  return load_trace_coll(p, t, e, pErr);
}

int load_trace_devices(TraceLoader *p, const TraceTarget *t,
                       const TraceInfo *pInfo, PfError *pErr){
  Ins *b = &p->aIns[S_DEVICE];
  for(int i=0; i<pInfo->nDevices; i++){
    const TraceDevice *d = &pInfo->aDevice[i];
    bind_target(b, t);
    b_int(b, 4, d->id>=0 ? d->id : i);
    b_text_or_null(b, 5, d->zName, -1);
    b_int(b, 6, d->totalGlobalMem);
    b_int(b, 7, d->computeMajor);
    b_int(b, 8, d->computeMinor);
    b_int(b, 9, d->numSms);
    if( ins_row(p, b, pErr) ) return -1;
  }
  return 0;
}

int load_trace_fixup(sqlite3 *db, int64_t fileId, int64_t dTs, int setRank,
                     int64_t rank, PfError *pErr){
  static const char *azTab[] = {
    "kernel", "gpu_mem_op", "cpu_op", "runtime_call", "gpu_sync",
    "annotation", "memory_event", "python_function", 0};
  for(int i=0; azTab[i]; i++){
    char *z = setRank
      ? sqlite3_mprintf(
          db_statement("load-trace-fixup"), azTab[i], (long long)dTs,
                        (long long)rank, (long long)fileId)
      : sqlite3_mprintf("UPDATE %s SET ts=ts+%lld WHERE file_id=%lld",
                        azTab[i], (long long)dTs, (long long)fileId);
    int rc = db_exec(db, z, pErr);
    sqlite3_free(z);
    if( rc ) return -1;
  }
  if( setRank ){
    char *z = sqlite3_mprintf("UPDATE device SET rank=%lld WHERE file_id=%lld",
                              (long long)rank, (long long)fileId);
    int rc = db_exec(db, z, pErr);
    sqlite3_free(z);
    if( rc ) return -1;
  }
  return 0;
}
