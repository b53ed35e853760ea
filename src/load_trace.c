/*
** load_trace.c — the trace writer: one prepared INSERT per table, bound and
** reset per event, inside the ingest's single transaction.
**
** Pipeline position: "load".  Interns names through Intern; derives a few
** per-row fields on the way in (memcpy direction, FLOP estimate).  Linkage
** columns (runtime_id, op_id, step ...) come filled from the in-stream
** linker, or stay NULL for derive_trace.c's database sweeps.  It also
** totals GPU activity per (file, kind, name) as rows go in, for
** gpu_op_summary (memory grows with the distinct names, not the rows),
** and, when the in-stream linker did the linking, the tables of
** schema/009-query-summaries.sql (so that derive_summary.c need not read
** the rows back).
*/
#include "load_trace.h"
#include "derive_summary.h"
#include "trace_args.h"

#include <stdlib.h>
#include <string.h>

enum { S_KERNEL, S_MEMOP, S_CPU_OP, S_RUNTIME, S_SYNC, S_ANNOT, S_MEMORY,
       S_PYTHON, S_DEVICE, S_RPC, S_STEP_OP, S_N };

static const char *azInsert[S_N] = {
  "INSERT INTO kernel(run_id,rank,file_id,device,stream,ts,dur,name_id,"
  "correlation,external_id,grid_x,grid_y,grid_z,block_x,block_y,block_z,"
  "registers,shared_mem,blocks_per_sm,warps_per_sm,occupancy_pct,"
  "runtime_id,op_id,step)"
  " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,"
  "?19,?20,?21,?22,?23,?24)",
  "INSERT INTO gpu_mem_op(run_id,rank,file_id,device,stream,ts,dur,name_id,"
  "kind,direction,src_kind,dst_kind,bytes,correlation,external_id,"
  "runtime_id,op_id,step)"
  " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)",
  "INSERT INTO cpu_op(run_id,rank,file_id,pid,tid,ts,dur,name_id,"
  "external_id,sequence,fwd_tid,input_dims_id,input_types_id,"
  "concrete_inputs_id,"
  "flops,flops_source,id,parent_id,depth,self_dur,step)"
  " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,"
  "?19,?20,?21)",
  "INSERT INTO runtime_call(run_id,rank,file_id,pid,tid,ts,dur,name_id,kind,"
  "correlation,external_id,cbid,id,op_id,top_op_id,in_recompute,step)"
  " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)",
  "INSERT INTO gpu_sync(run_id,rank,file_id,device,stream,ts,dur,name_id,"
  "correlation) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)",
  "INSERT INTO annotation(run_id,rank,file_id,kind,pid,tid,ts,dur,name_id,"
  "external_id) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
  "INSERT INTO memory_event(run_id,rank,file_id,ts,name,device_type,device,"
  "addr,bytes,total_allocated,total_reserved)"
  " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)",
  "INSERT INTO python_function(run_id,rank,file_id,pid,tid,ts,dur,name_id,"
  "python_id,parent_python_id) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
  "INSERT INTO device(run_id,rank,file_id,device,name,total_mem_bytes,"
  "compute_major,compute_minor,num_sms) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)",
  /* record_param_comms ops, so that derive_comm.c need not scan cpu_op */
  "INSERT OR IGNORE INTO temp.rpc_op(id) VALUES(?1)",
  /* ProfilerStep#N ops (2021 traces: category Operator), so that
  ** derive_trace.c finds the steps without scanning cpu_op */
  "INSERT OR IGNORE INTO temp.step_op(id) VALUES(?1)",
};

/* GPU activity totals of one (file, kind, name): a gpu_op_summary row
** before files of one rank are merged.  kind: 0 kernel, 1 memcpy,
** 2 memset; n==0 marks an empty slot. */
typedef struct SumEnt {
  int64_t fileId, nameId, rank;
  int64_t n, total, mn, mx;
  int kind;
} SumEnt;

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

/* Final rank of a file (rows may have gone in with a guessed one). */
typedef struct FileRank { int64_t fileId, rank; } FileRank;

/* ------------------------------------------------- 009 summary totals */

/*
** The totals of schema/009-query-summaries.sql (what derive_summary.c
** computes from the rows when the database did the linking), kept while
** the rows go in.  Groups are keyed by file until the files' final ranks
** are known.  Ids made by the in-stream linker are (fileId << 32) + n,
** n = 1, 2, ... per file and table, so per-file arrays indexed by n map an
** op or runtime call to its group:
**  - an op is emitted when it closes, after its children, so a child
**    waits in its parent's chain (Pend, a few per open op) until the
**    parent's name is known; an op's slot in SumFile.aOp is its group
**    (>= 0), OP_UNSEEN, OP_WAIT (seen, waiting for its parent), or the
**    head of the chain of its children that wait (<= OP_CHAIN);
**  - GPU rows add to their op at the end of the file (GpuRef), when every
**    op's group is known, and to their runtime call at once (the linker
**    emits a call before the GPU rows it launched; GPU rows that come
**    first wait in aLate);
**  - FLOP sums are floating point: they are added at the end in op id
**    order, the order of the database pass;
**  - a kernel inserted without a step may get one from derive_trace.c:
**    its rowid is kept (runs of consecutive rowids) and derive_summary.c
**    adds it by its final step.
** Memory: 4 bytes per op and 13 per runtime call of the files being read,
** 16 per GPU row with an op until its file ends, 40 per op with FLOPs.
** Anything unexpected (a row without linker ids, a child after its
** parent) sets bad: the database pass runs instead.
*/
#define OP_UNSEEN (-1)
#define OP_WAIT (-2)
#define OP_CHAIN (-3)

/* A child op waiting for its parent's name. */
typedef struct Pend {
  int64_t dur, self;
  int name, seq;        /* name_id, id within the file */
  int next;             /* next in the chain or the free list, -1 = end */
} Pend;

/* A GPU row launched by op seq, added to it at the end of the file. */
typedef struct GpuRef { int64_t dur; int seq, isKernel; } GpuRef;

/* A GPU row that came before its runtime call. */
typedef struct LateGpu { int64_t ts, dur; int seq, isKernel; } LateGpu;

/* An op with a FLOP count. */
typedef struct FlopsOp {
  int64_t rowId, kNs;
  double flops;
  int name, src, hasKernel;
} FlopsOp;

/* The rows of one file, while it is being read. */
typedef struct SumFile {
  int64_t fileId;
  int *aOp;             /* per op id - 1, see above */
  int nOp, nOpAlloc;
  int64_t *aRtTs;       /* per runtime call id - 1: ts */
  int *aRtGroup;        /* its group in rt, -1 = not seen */
  unsigned char *aRtRc; /* in_recompute = 1 */
  int nRt, nRtAlloc;
  GpuRef *aGpu;
  int nGpu, nGpuAlloc;
  LateGpu *aLate;
  int nLate, nLateAlloc;
  FlopsOp *aFl;
  int nFl, nFlAlloc;
} SumFile;

/* A run of kernel rowids inserted without a step. */
typedef struct RowRun { int64_t first, last; } RowRun;

typedef struct SumState {
  int bad;              /* the totals cannot be trusted */
  SummaryTotals t;      /* keyed by fileId instead of rank */
  SumFile *aFile;       /* files being read */
  int nFile, nFileAlloc;
  int iLast;            /* the file of the last row, if < nFile */
  Pend *aPend;
  int nPend, nPendAlloc, iFree;
  FlopsOp *aFl;         /* ops with FLOPs of files already read */
  int nFl, nFlAlloc;
  RowRun *aRun;
  int nRun, nRunAlloc;
} SumState;

/* Array a of *pnAlloc elements of sz bytes, grown to hold n (the array
** returned replaces a, which the caller owns). */
static void *grow(void *a, int *pnAlloc, int n, size_t sz){
  int nNew = *pnAlloc ? *pnAlloc : 64;
  if( n<=*pnAlloc ) return a;
  while( nNew<n ) nNew *= 2;
  *pnAlloc = nNew;
  return xrealloc(a, (size_t)nNew*sz);
}

static void sumfile_free(SumFile *f){
  free(f->aOp);
  free(f->aRtTs);
  free(f->aRtGroup);
  free(f->aRtRc);
  free(f->aGpu);
  free(f->aLate);
  free(f->aFl);
}

static void sumstate_free(SumState *p){
  for(int i=0; i<p->nFile; i++) sumfile_free(&p->aFile[i]);
  free(p->aFile);
  free(p->aPend);
  free(p->aFl);
  free(p->aRun);
  summary_totals_free(&p->t);
}

/* The state of file fileId, created when new. */
static SumFile *sum_file(SumState *p, int64_t fileId){
  SumFile *f;
  if( p->iLast<p->nFile && p->aFile[p->iLast].fileId==fileId ){
    return &p->aFile[p->iLast];       /* rows come in batches of one file */
  }
  for(int i=p->nFile-1; i>=0; i--){
    if( p->aFile[i].fileId==fileId ){
      p->iLast = i;
      return &p->aFile[i];
    }
  }
  p->aFile = grow(p->aFile, &p->nFileAlloc, p->nFile+1, sizeof(SumFile));
  p->iLast = p->nFile;
  f = &p->aFile[p->nFile++];
  memset(f, 0, sizeof(*f));
  f->fileId = fileId;
  return f;
}

/* The index (1, 2, ...) of linker id within file f, or 0 when it is not
** one of f's. */
static int id_seq(const SumFile *f, int64_t id){
  int64_t n = id - (f->fileId<<32);
  return n>=1 && n<=INT32_MAX/2 ? (int)n : 0;
}

/* Make op slots up to seq exist. */
static void op_slots(SumFile *f, int seq){
  if( seq<=f->nOp ) return;
  f->aOp = grow(f->aOp, &f->nOpAlloc, seq, sizeof(int));
  for(int i=f->nOp; i<seq; i++) f->aOp[i] = OP_UNSEEN;
  f->nOp = seq;
}

/* Add an op's own totals to group (file, name, parentName); its group. */
static int op_add(SumState *p, int64_t fileId, int64_t name,
                  int64_t parentName, int64_t dur, int64_t self){
  int g;
  OpSum *o = group_get(&p->t.ops, fileId, name, parentName, 0, &g);
  o->calls++;
  o->totalNs += dur;
  o->selfNs += self;
  return g;
}

/* The children waiting in chain h get their group under parent name
** parentName; the chain's entries are freed. */
static void chain_resolve(SumState *p, SumFile *f, int h, int64_t parentName){
  while( h>=0 ){
    Pend *c = &p->aPend[h];
    int next = c->next;
    f->aOp[c->seq-1] = op_add(p, f->fileId, c->name, parentName, c->dur,
                              c->self);
    c->next = p->iFree;
    p->iFree = h;
    h = next;
  }
}

/* One cpu_op row: shapes and FLOPs now, cpu_op_summary once its parent's
** name is known. */
static void sum_op(SumState *p, const TraceTarget *t, const TraceEvent *e,
                   int64_t name, int64_t dims, double flops, int64_t src){
  SumFile *f = sum_file(p, t->fileId);
  int seq = id_seq(f, e->rowId), chain, slot;
  int64_t self = e->linked ? e->selfDur : e->dur;
  if( dims!=0 ){
    ShapeSum *sh = group_get(&p->t.shapes, t->fileId, name, dims, 0, NULL);
    sh->calls++;
  }
  if( seq==0 || !e->linked ){ p->bad = 1; return; }
  op_slots(f, seq);
  chain = f->aOp[seq-1];
  if( chain>OP_UNSEEN || chain==OP_WAIT ){ p->bad = 1; return; }  /* twice */
  if( src ){
    FlopsOp *fl;
    f->aFl = grow(f->aFl, &f->nFlAlloc, f->nFl+1, sizeof(FlopsOp));
    fl = &f->aFl[f->nFl++];
    memset(fl, 0, sizeof(*fl));
    fl->rowId = e->rowId;
    fl->flops = flops;
    fl->name = (int)name;
    fl->src = (int)src;
  }
  if( e->parentId<=0 ){
    f->aOp[seq-1] = op_add(p, t->fileId, name, 0, e->dur, self);
  }else{
    int ps = id_seq(f, e->parentId);
    if( ps==0 ){ p->bad = 1; return; }
    op_slots(f, ps);
    slot = f->aOp[ps-1];
    if( slot>=0 ){                          /* parent already placed */
      f->aOp[seq-1] = op_add(p, t->fileId, name, p->t.ops.aKey[slot].b,
                             e->dur, self);
    }else if( slot==OP_WAIT ){
      p->bad = 1;
      return;
    }else{                                  /* wait in its chain */
      int h;
      Pend *c;
      if( p->iFree>=0 ){
        h = p->iFree;
        p->iFree = p->aPend[h].next;
      }else{
        p->aPend = grow(p->aPend, &p->nPendAlloc, p->nPend+1, sizeof(Pend));
        h = p->nPend++;
      }
      c = &p->aPend[h];
      c->dur = e->dur;
      c->self = self;
      c->name = (int)name;
      c->seq = seq;
      c->next = slot==OP_UNSEEN ? -1 : OP_CHAIN - slot;
      f->aOp[ps-1] = OP_CHAIN - h;
      f->aOp[seq-1] = OP_WAIT;
    }
  }
  if( chain<=OP_CHAIN ) chain_resolve(p, f, OP_CHAIN - chain, name);
}

/* One runtime/driver call. */
static void sum_runtime(SumState *p, const TraceTarget *t,
                        const TraceEvent *e, int64_t name){
  SumFile *f = sum_file(p, t->fileId);
  int seq = id_seq(f, e->rowId), g;
  RtSum *r;
  if( seq==0 || !e->linked ){ p->bad = 1; return; }
  r = group_get(&p->t.rt, t->fileId, name, e->kind==TEV_RUNTIME ? 1 : 2, 0,
                &g);
  r->calls++;
  r->totalNs += e->dur;
  if( r->calls==1 || e->dur>r->maxNs ) r->maxNs = e->dur;
  if( seq>f->nRt ){
    if( seq>f->nRtAlloc ){
      f->aRtTs = grow(f->aRtTs, &f->nRtAlloc, seq, sizeof(int64_t));
      f->aRtGroup = xrealloc(f->aRtGroup, (size_t)f->nRtAlloc*sizeof(int));
      f->aRtRc = xrealloc(f->aRtRc, (size_t)f->nRtAlloc);
    }
    for(int i=f->nRt; i<seq; i++) f->aRtGroup[i] = -1;
    f->nRt = seq;
  }
  if( f->aRtGroup[seq-1]>=0 ){ p->bad = 1; return; }    /* twice */
  f->aRtTs[seq-1] = e->ts;
  f->aRtGroup[seq-1] = g;
  f->aRtRc[seq-1] = (unsigned char)(e->inRecompute==1);
}

/* What a GPU row launched by call seq of file f adds to the call. */
static void rt_launch(SumState *p, SumFile *f, int seq, int64_t ts,
                      int64_t dur, int isKernel){
  RtSum *r = group_val(&p->t.rt, f->aRtGroup[seq-1]);
  int64_t d = ts - f->aRtTs[seq-1];
  if( r->launches==0 || d>r->maxDelay ) r->maxDelay = d;
  r->launches++;
  r->delayNs += d;
  r->nShort += dur<10000;
  if( isKernel && f->aRtRc[seq-1] ){ r->rcN++; r->rcNs += dur; }
}

/* One kernel (isKernel) or memcpy/memset row, inserted as rowid. */
static void sum_gpu(SumState *p, const TraceTarget *t, const TraceEvent *e,
                    int isKernel, int64_t rowid){
  SumFile *f = sum_file(p, t->fileId);
  if( e->linked && e->opId>0 ){
    int seq = id_seq(f, e->opId);
    GpuRef *g;
    if( seq==0 ){ p->bad = 1; return; }
    f->aGpu = grow(f->aGpu, &f->nGpuAlloc, f->nGpu+1, sizeof(GpuRef));
    g = &f->aGpu[f->nGpu++];
    g->dur = e->dur;
    g->seq = seq;
    g->isKernel = isKernel;
  }
  if( e->linked && e->runtimeId>0 ){
    int seq = id_seq(f, e->runtimeId);
    if( seq==0 ){ p->bad = 1; return; }
    if( seq<=f->nRt && f->aRtGroup[seq-1]>=0 ){
      rt_launch(p, f, seq, e->ts, e->dur, isKernel);
    }else{
      LateGpu *l;
      f->aLate = grow(f->aLate, &f->nLateAlloc, f->nLate+1, sizeof(LateGpu));
      l = &f->aLate[f->nLate++];
      l->ts = e->ts;
      l->dur = e->dur;
      l->seq = seq;
      l->isKernel = isKernel;
    }
  }
  if( !isKernel ) return;
  if( e->linked && e->step>=0 ){
    StepSum *st = group_get(&p->t.steps, t->fileId, e->step, 0, 0, NULL);
    st->n++;
    st->ns += e->dur;
  }else if( p->nRun>0 && p->aRun[p->nRun-1].last+1==rowid ){
    p->aRun[p->nRun-1].last = rowid;
  }else{
    p->aRun = grow(p->aRun, &p->nRunAlloc, p->nRun+1, sizeof(RowRun));
    p->aRun[p->nRun].first = p->aRun[p->nRun].last = rowid;
    p->nRun++;
  }
}

static int cmp_flops_op(const void *a, const void *b){
  int64_t x = ((const FlopsOp*)a)->rowId, y = ((const FlopsOp*)b)->rowId;
  return x<y ? -1 : x>y;
}

/* The op with FLOPs whose id is rowId in f->aFl (sorted), or NULL. */
static FlopsOp *flops_find(SumFile *f, int64_t rowId){
  int lo = 0, hi = f->nFl;
  while( lo<hi ){
    int mid = (lo+hi)/2;
    if( f->aFl[mid].rowId<rowId ) lo = mid+1; else hi = mid;
  }
  return lo<f->nFl && f->aFl[lo].rowId==rowId ? &f->aFl[lo] : NULL;
}

/* After the last row of file fileId: ops whose parent never came (their
** parent name is 0, as in the database pass), GPU rows to their ops and
** late calls; the file's FLOP ops join the run's; its arrays are freed. */
static void sum_file_end(SumState *p, int64_t fileId){
  int i;
  SumFile *f;
  for(i=0; i<p->nFile && p->aFile[i].fileId!=fileId; i++){}
  if( i==p->nFile ) return;
  f = &p->aFile[i];
  for(int k=0; k<f->nOp; k++){
    if( f->aOp[k]<=OP_CHAIN ){
      int h = OP_CHAIN - f->aOp[k];
      f->aOp[k] = OP_UNSEEN;
      chain_resolve(p, f, h, 0);
    }
  }
  if( f->nFl>1 ) qsort(f->aFl, (size_t)f->nFl, sizeof(FlopsOp), cmp_flops_op);
  for(int k=0; k<f->nGpu; k++){
    const GpuRef *g = &f->aGpu[k];
    OpSum *o;
    if( g->seq>f->nOp || f->aOp[g->seq-1]<0 ) continue;  /* no such op */
    o = group_val(&p->t.ops, f->aOp[g->seq-1]);
    o->gpuN++;
    o->gpuNs += g->dur;
    if( g->isKernel && f->nFl>0 ){
      FlopsOp *fl = flops_find(f, (f->fileId<<32) + g->seq);
      if( fl ){ fl->hasKernel = 1; fl->kNs += g->dur; }
    }
  }
  for(int k=0; k<f->nLate; k++){
    const LateGpu *l = &f->aLate[k];
    if( l->seq<=f->nRt && f->aRtGroup[l->seq-1]>=0 ){
      rt_launch(p, f, l->seq, l->ts, l->dur, l->isKernel);
    }
  }
  p->aFl = grow(p->aFl, &p->nFlAlloc, p->nFl+f->nFl, sizeof(FlopsOp));
  if( f->nFl ) memcpy(&p->aFl[p->nFl], f->aFl, (size_t)f->nFl*sizeof(FlopsOp));
  p->nFl += f->nFl;
  sumfile_free(f);
  p->aFile[i] = p->aFile[--p->nFile];
}


struct TraceLoader {
  sqlite3 *db;
  Intern *pIntern;
  sqlite3_stmt *aStmt[S_N];
  Ins aIns[S_N];                /* aIns[i].s == aStmt[i] */
  int64_t nRows;
  SumEnt *aSum;                 /* open addressing, nSum a power of two */
  int nSum, nSumUsed;
  FileRank *aFile;
  int nFile, nFileAlloc;
  SumState sum;                 /* 009 summary totals */
  TraceSpans *pSpans;           /* intervals for the sweeps, or NULL */
  int64_t nGpuNoStep;           /* kernel/gpu_mem_op rows with step NULL */
  int64_t durTotal;             /* sum of every row's dur so far, ns */
};

/* Every per-event duration is capped (parse_trace.c, 39 hours), but many
** valid events can still add up past what an int64 holds, and every sum
** over them (sum_add's totals, the 009 summaries, SQL's sum() in the
** queries, two such sums added) would overflow.  The durations of all the
** rows one ingest writes must add up to at most 2^62 ns (146 years of
** busy time); the event that goes past it refuses the ingest. */
#define LOAD_DUR_TOTAL_MAX ((int64_t)1<<62)

void load_trace_set_spans(TraceLoader *p, TraceSpans *pSpans){
  p->pSpans = pSpans;
}

TraceLoader *load_trace_new(sqlite3 *db, Intern *pIntern, PfError *pErr){
  TraceLoader *p = xcalloc(1, sizeof(*p));
  p->db = db;
  p->pIntern = pIntern;
  summary_totals_init(&p->sum.t);
  p->sum.iFree = -1;
  if( db_exec(db, "CREATE TEMP TABLE IF NOT EXISTS rpc_op"
              "(id INTEGER PRIMARY KEY);"
              "CREATE TEMP TABLE IF NOT EXISTS step_op"
              "(id INTEGER PRIMARY KEY)", pErr)
      || summary_pending_create(db, pErr) ){
    summary_totals_free(&p->sum.t);
    free(p);
    return NULL;
  }
  for(int i=0; i<S_N; i++){
    if( sqlite3_prepare_v3(db, azInsert[i], -1, SQLITE_PREPARE_PERSISTENT,
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
  free(p->aSum);
  free(p->aFile);
  sumstate_free(&p->sum);
  free(p);
}

/* ------------------------------------------------- gpu_op_summary totals */

static unsigned sum_slot(int64_t fileId, int kind, int64_t nameId,
                         int nSum){
  uint64_t h = (uint64_t)nameId*0x9e3779b97f4a7c15ULL
             ^ (uint64_t)(fileId*4 + kind)*0xc2b2ae3d27d4eb4fULL;
  return (unsigned)(h>>32) & (unsigned)(nSum-1);
}

static SumEnt *sum_find(SumEnt *a, int nSum, int64_t fileId, int kind,
                        int64_t nameId){
  unsigned i = sum_slot(fileId, kind, nameId, nSum);
  while( a[i].n>0 && (a[i].nameId!=nameId || a[i].fileId!=fileId
                      || a[i].kind!=kind) ){
    i = (i+1) & (unsigned)(nSum-1);
  }
  return &a[i];
}

/* Count one GPU activity of duration dur. */
static void sum_add(TraceLoader *p, int64_t fileId, int kind, int64_t nameId,
                    int64_t dur){
  SumEnt *e;
  if( (p->nSumUsed+1)*2 > p->nSum ){
    int nNew = p->nSum ? p->nSum*2 : 1024;
    SumEnt *a = xcalloc((size_t)nNew, sizeof(SumEnt));
    for(int i=0; i<p->nSum; i++){
      SumEnt *o = &p->aSum[i];
      if( o->n>0 ) *sum_find(a, nNew, o->fileId, o->kind, o->nameId) = *o;
    }
    free(p->aSum);
    p->aSum = a;
    p->nSum = nNew;
  }
  e = sum_find(p->aSum, p->nSum, fileId, kind, nameId);
  if( e->n==0 ){
    e->fileId = fileId;
    e->kind = kind;
    e->nameId = nameId;
    e->mn = e->mx = dur;
    p->nSumUsed++;
  }
  e->n++;
  e->total += dur;
  if( dur<e->mn ) e->mn = dur;
  if( dur>e->mx ) e->mx = dur;
}

void load_trace_file_rank(TraceLoader *p, int64_t fileId, int64_t rank){
  if( p->nFile==p->nFileAlloc ){
    p->nFileAlloc = p->nFileAlloc ? p->nFileAlloc*2 : 16;
    p->aFile = xrealloc(p->aFile, (size_t)p->nFileAlloc*sizeof(FileRank));
  }
  p->aFile[p->nFile].fileId = fileId;
  p->aFile[p->nFile].rank = rank;
  p->nFile++;
  sum_file_end(&p->sum, fileId);
}

static int cmp_sum(const void *a, const void *b){
  const SumEnt *x = a, *y = b;
  if( x->rank!=y->rank ) return x->rank<y->rank ? -1 : 1;
  if( x->kind!=y->kind ) return x->kind<y->kind ? -1 : 1;
  if( x->nameId!=y->nameId ) return x->nameId<y->nameId ? -1 : 1;
  return 0;
}

int load_trace_summary(TraceLoader *p, int64_t runId, PfError *pErr){
  static const char *azKind[] = {"kernel", "memcpy", "memset"};
  sqlite3_stmt *s;
  SumEnt *a;
  int n = 0, rc = 0;
  if( p->nSumUsed==0 ) return 0;
  /* pack the used slots, give each its file's final rank, merge files of
  ** one rank */
  a = xcalloc((size_t)p->nSumUsed, sizeof(SumEnt));
  for(int i=0; i<p->nSum; i++){
    if( p->aSum[i].n==0 ) continue;
    a[n] = p->aSum[i];
    for(int k=0; k<p->nFile; k++){
      if( p->aFile[k].fileId==a[n].fileId ){
        a[n].rank = p->aFile[k].rank;
        break;
      }
    }
    n++;
  }
  qsort(a, (size_t)n, sizeof(SumEnt), cmp_sum);
  s = db_prepare(p->db,
    "INSERT INTO gpu_op_summary(run_id, rank, kind, name_id, n, total_ns,"
    " min_ns, max_ns) VALUES(?1,?2,?3,?4,?5,?6,?7,?8)", pErr);
  if( s==NULL ){ free(a); return -1; }
  for(int i=0; i<n && rc==0; ){
    SumEnt m = a[i];
    int j = i+1;
    while( j<n && cmp_sum(&a[j], &m)==0 ){
      m.n += a[j].n;
      m.total += a[j].total;
      if( a[j].mn<m.mn ) m.mn = a[j].mn;
      if( a[j].mx>m.mx ) m.mx = a[j].mx;
      j++;
    }
    sqlite3_bind_int64(s, 1, runId);
    sqlite3_bind_int64(s, 2, m.rank);
    sqlite3_bind_text(s, 3, azKind[m.kind], -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, m.nameId);
    sqlite3_bind_int64(s, 5, m.n);
    sqlite3_bind_int64(s, 6, m.total);
    sqlite3_bind_int64(s, 7, m.mn);
    sqlite3_bind_int64(s, 8, m.mx);
    if( sqlite3_step(s)!=SQLITE_DONE ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s",
                   sqlite3_errmsg(p->db));
      rc = -1;
    }
    sqlite3_reset(s);
    i = j;
  }
  sqlite3_finalize(s);
  free(a);
  return rc;
}

/* The final rank of file fileId, or -1 when unknown. */
static int64_t file_rank(const TraceLoader *p, int64_t fileId){
  for(int k=0; k<p->nFile; k++){
    if( p->aFile[k].fileId==fileId ) return p->aFile[k].rank;
  }
  return -1;
}

/* Rekey the per-file groups of p->sum by the files' final ranks into *pT
** (files of one rank merged).  Returns 0, or -1 when a file's rank is
** unknown. */
static int sum_by_rank(const TraceLoader *p, SummaryTotals *pT){
  const SummaryTotals *s = &p->sum.t;
  for(int g=0; g<s->ops.nGroup; g++){
    const GroupKey *k = &s->ops.aKey[g];
    const OpSum *o = group_val(&s->ops, g);
    int64_t rank = file_rank(p, k->a);
    OpSum *d;
    if( rank<0 ) return -1;
    d = group_get(&pT->ops, rank, k->b, k->c, 0, NULL);
    d->calls += o->calls;
    d->totalNs += o->totalNs;
    d->selfNs += o->selfNs;
    d->gpuN += o->gpuN;
    d->gpuNs += o->gpuNs;
  }
  for(int g=0; g<s->shapes.nGroup; g++){
    const GroupKey *k = &s->shapes.aKey[g];
    int64_t rank = file_rank(p, k->a);
    ShapeSum *d;
    if( rank<0 ) return -1;
    d = group_get(&pT->shapes, rank, k->b, k->c, 0, NULL);
    d->calls += ((const ShapeSum*)group_val(&s->shapes, g))->calls;
  }
  for(int g=0; g<s->rt.nGroup; g++){
    const GroupKey *k = &s->rt.aKey[g];
    const RtSum *r = group_val(&s->rt, g);
    int64_t rank = file_rank(p, k->a);
    RtSum *d;
    if( rank<0 ) return -1;
    d = group_get(&pT->rt, rank, k->b, k->c, 0, NULL);
    if( d->calls==0 ){ *d = *r; continue; }
    d->calls += r->calls;
    d->totalNs += r->totalNs;
    if( r->maxNs>d->maxNs ) d->maxNs = r->maxNs;
    if( r->launches>0 && (d->launches==0 || r->maxDelay>d->maxDelay) ){
      d->maxDelay = r->maxDelay;
    }
    d->launches += r->launches;
    d->delayNs += r->delayNs;
    d->nShort += r->nShort;
    d->rcN += r->rcN;
    d->rcNs += r->rcNs;
  }
  for(int g=0; g<s->steps.nGroup; g++){
    const GroupKey *k = &s->steps.aKey[g];
    const StepSum *st = group_val(&s->steps, g);
    int64_t rank = file_rank(p, k->a);
    StepSum *d;
    if( rank<0 ) return -1;
    d = group_get(&pT->steps, rank, k->b, 0, 0, NULL);
    d->n += st->n;
    d->ns += st->ns;
  }
  return 0;
}

/* cpu_op_flops_summary: FLOPs added in op id order, as in the database
** pass.  Returns 0, or -1 when a file's rank is unknown. */
static int sum_flops(TraceLoader *p, SummaryTotals *pT){
  SumState *s = &p->sum;
  if( s->nFl>1 ) qsort(s->aFl, (size_t)s->nFl, sizeof(FlopsOp), cmp_flops_op);
  for(int pass=0; pass<2; pass++){
    for(int i=0; i<s->nFl; i++){
      const FlopsOp *f = &s->aFl[i];
      int64_t rank = file_rank(p, f->rowId>>32);
      FlopsSum *fs;
      if( rank<0 ) return -1;
      fs = group_get(&pT->flops, rank, f->name, f->src, 0, NULL);
      if( pass==0 ){
        fs->calls++;
        fs->flops += f->flops;
      }else if( f->hasKernel ){
        fs->kCalls++;
        fs->kFlops += f->flops;
        fs->kNs += f->kNs;
      }
    }
  }
  return 0;
}

/* Record in SUMMARY_PENDING_TABLE that the summaries of run runId are
** written, and the kernels inserted without a step. */
static int sum_pending(TraceLoader *p, int64_t runId, PfError *pErr){
  sqlite3_stmt *s = db_prepare(p->db, "INSERT INTO " SUMMARY_PENDING_TABLE
                               " VALUES(?1,?2,?3)", pErr);
  int rc = 0;
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  for(int i=-1; i<p->sum.nRun && rc==0; i++){
    sqlite3_bind_int64(s, 2, i<0 ? 0 : p->sum.aRun[i].first);
    sqlite3_bind_int64(s, 3, i<0 ? -1 : p->sum.aRun[i].last);
    rc = db_step_done(p->db, s, pErr);
  }
  sqlite3_finalize(s);
  return rc;
}

int load_trace_summaries(TraceLoader *p, int64_t runId, int dbLinks,
                         PfError *pErr){
  const char *zEnv = getenv("PROFAN_SUMMARY");
  SummaryTotals t;
  int rc;
  if( dbLinks || p->sum.bad || p->sum.nFile>0
      || (zEnv && strcmp(zEnv, "db")==0) ) return 0;
  summary_totals_init(&t);
  /* the codes sum_op() and sum_runtime() use */
  text_code(&t.src, "arg");
  text_code(&t.src, "estimate");
  text_code(&t.kind, "runtime");
  text_code(&t.kind, "driver");
  if( sum_by_rank(p, &t) || sum_flops(p, &t) ){
    summary_totals_free(&t);
    return 0;
  }
  rc = summary_totals_write(p->db, runId, &t, pErr)
       || sum_pending(p, runId, pErr) ? -1 : 1;
  summary_totals_free(&t);
  return rc;
}

int64_t load_trace_gpu_without_step(const TraceLoader *p){
  return p->nGpuNoStep;
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

/* Bind runtime_id, op_id, step of a GPU row at columns i, i+1, i+2. */
static void bind_gpu_link(TraceLoader *p, Ins *b, int i, const TraceEvent *e){
  if( !(e->linked && e->step>=0) ) p->nGpuNoStep++;
  b_int_or_null(b, i, e->linked && e->runtimeId>0, e->runtimeId);
  b_int_or_null(b, i+1, e->linked && e->opId>0, e->opId);
  b_int_or_null(b, i+2, e->linked && e->step>=0, e->step);
}

/* After the row of e was written: its collective args (NCCL kernels,
** record_param_comms) or, for nccl:* annotations, the input shapes, to
** coll_args (load_collective.c).  Returns 0 or -1 with pErr. */
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
    if( eSrc!=COLL_SRC_ANNOTATION || strncmp(e->zName, "nccl:", 5)!=0 ){
      return 0;
    }
    collective_args_reset(&a);
    if( collective_args_from_dims(&a, e->zInputDims, e->zInputTypes) ){
      return 0;
    }
    pa = &a;
  }
  rowId = (eSrc==COLL_SRC_CPU_OP && e->rowId>0) ? e->rowId
        : sqlite3_last_insert_rowid(p->db);
  return load_collective_row(p->db, t->runId, t->rank, t->fileId, rowId,
                             eSrc, pa, pErr);
}

int load_trace_event(TraceLoader *p, const TraceTarget *t,
                     const TraceEvent *e, PfError *pErr){
  Ins *b = NULL;
  int64_t nameId = 0, dev = -1, stream;
  int hasDev = 0, hasStream;
  MemcpyKind mk;                /* its texts are bound after the switch */
  double fl = -1;               /* cpu_op: FLOPs, when zSrc */
  const char *zSrc = NULL;

  if( e->dur>0 ){
    if( e->dur > LOAD_DUR_TOTAL_MAX - p->durTotal ){
      pf_error_set(pErr, ERRPOS_BYTE, e->offset,
                   "durations add up past 2^62 ns (146 years) in one ingest;"
                   " refused");
      return -1;
    }
    p->durTotal += e->dur;
  }
  if( e->kind!=TEV_MEMORY ){
    nameId = intern_id(p->pIntern, e->zName, (size_t)e->nName, pErr);
    if( nameId<0 ) return -1;
  }
  switch( e->kind ){
    case TEV_KERNEL:
      b = &p->aIns[S_KERNEL];
      gpu_place(e, &dev, &hasDev, &stream, &hasStream);
      bind_head(b, t, e, hasDev, dev, hasStream, stream, nameId);
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
      bind_gpu_link(p, b, 22, e);
      break;
    case TEV_MEMCPY:
    case TEV_MEMSET: {
      b = &p->aIns[S_MEMOP];
      gpu_place(e, &dev, &hasDev, &stream, &hasStream);
      bind_head(b, t, e, hasDev, dev, hasStream, stream, nameId);
      b_static(b, 9, e->kind==TEV_MEMCPY ? "memcpy" : "memset");
      trace_memcpy_kind(e->zName, &mk);
      b_text_or_null(b, 10, mk.zDirection, -1);
      b_text_or_null(b, 11, mk.zSrc, -1);
      b_text_or_null(b, 12, mk.zDst, -1);
      b_int_or_null(b, 13, HAS(TF_BYTES), e->bytes);
      b_int_or_null(b, 14, HAS(TF_CORRELATION), e->correlation);
      b_int_or_null(b, 15, HAS(TF_EXTERNAL_ID), e->external_id);
      bind_gpu_link(p, b, 16, e);
      break;
    }
    case TEV_CPU_OP: {
      b = &p->aIns[S_CPU_OP];
      bind_head(b, t, e, HAS(TF_PID), e->pid, HAS(TF_TID), e->tid, nameId);
      b_int_or_null(b, 9, HAS(TF_EXTERNAL_ID), e->external_id);
      b_int_or_null(b, 10, HAS(TF_SEQUENCE), e->sequence);
      b_int_or_null(b, 11, HAS(TF_FWD_TID), e->fwd_tid);
      if( bind_interned(p, b, 12, e->zInputDims, pErr)
          || bind_interned(p, b, 13, e->zInputTypes, pErr)
          || bind_interned(p, b, 14, e->zConcreteInputs, pErr) ) return -1;
      if( HAS(TF_FLOPS) ){ fl = e->flops; zSrc = "arg"; }
      else{
        fl = trace_estimate_flops(e->zName, e->zInputDims);
        if( fl>=0 ) zSrc = "estimate";
      }
      b_real_or_null(b, 15, zSrc!=NULL, fl);
      b_static(b, 16, zSrc);
      b_int_or_null(b, 17, e->rowId>0, e->rowId);
      b_int_or_null(b, 18, e->linked && e->parentId>0, e->parentId);
      b_int_or_null(b, 19, e->linked, e->depth);
      b_int_or_null(b, 20, e->linked, e->selfDur);
      b_int_or_null(b, 21, e->linked && e->step>=0, e->step);
      break;
    }
    case TEV_RUNTIME:
    case TEV_DRIVER:
      b = &p->aIns[S_RUNTIME];
      bind_head(b, t, e, HAS(TF_PID), e->pid, HAS(TF_TID), e->tid, nameId);
      b_static(b, 9, e->kind==TEV_RUNTIME ? "runtime" : "driver");
      b_int_or_null(b, 10, HAS(TF_CORRELATION), e->correlation);
      b_int_or_null(b, 11, HAS(TF_EXTERNAL_ID), e->external_id);
      b_int_or_null(b, 12, HAS(TF_CBID), e->cbid);
      b_int_or_null(b, 13, e->rowId>0, e->rowId);
      b_int_or_null(b, 14, e->linked && e->opId>0, e->opId);
      b_int_or_null(b, 15, e->linked && e->topOpId>0, e->topOpId);
      b_int_or_null(b, 16, e->linked, e->inRecompute);
      b_int_or_null(b, 17, e->linked && e->step>=0, e->step);
      break;
    case TEV_SYNC:
      b = &p->aIns[S_SYNC];
      gpu_place(e, &dev, &hasDev, &stream, &hasStream);
      bind_head(b, t, e, hasDev, dev, hasStream, stream, nameId);
      b_int_or_null(b, 9, HAS(TF_CORRELATION), e->correlation);
      break;
    case TEV_USER_ANNOTATION:
    case TEV_GPU_ANNOTATION:
      b = &p->aIns[S_ANNOT];
      bind_target(b, t);
      b_static(b, 4, e->kind==TEV_USER_ANNOTATION ? "user" : "gpu_user");
      b_int_or_null(b, 5, HAS(TF_PID), e->pid);
      b_int_or_null(b, 6, HAS(TF_TID), e->tid);
      b_int(b, 7, e->ts);
      b_int(b, 8, e->dur);
      b_int(b, 9, nameId);
      b_int_or_null(b, 10, HAS(TF_EXTERNAL_ID), e->external_id);
      break;
    case TEV_MEMORY:
      b = &p->aIns[S_MEMORY];
      bind_target(b, t);
      b_int(b, 4, e->ts);
      b_text_or_null(b, 5, e->zName, e->nName);
      b_int_or_null(b, 6, HAS(TF_DEVICE_TYPE), e->device_type);
      b_int_or_null(b, 7, HAS(TF_DEVICE_ID), e->device_id);
      b_int_or_null(b, 8, HAS(TF_ADDR), e->addr);
      b_int_or_null(b, 9, HAS(TF_BYTES), e->bytes);
      b_int_or_null(b, 10, HAS(TF_TOTAL_ALLOC), e->total_alloc);
      b_int_or_null(b, 11, HAS(TF_TOTAL_RESERVED), e->total_reserved);
      break;
    case TEV_PYTHON:
      b = &p->aIns[S_PYTHON];
      bind_head(b, t, e, HAS(TF_PID), e->pid, HAS(TF_TID), e->tid, nameId);
      b_int_or_null(b, 9, HAS(TF_PYTHON_ID), e->python_id);
      b_int_or_null(b, 10, HAS(TF_PYTHON_PARENT), e->python_parent);
      break;
    default:
      return 0;
  }
  if( ins_row(p, b, pErr) ) return -1;
  p->nRows++;
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
  switch( e->kind ){
    case TEV_KERNEL:
      sum_add(p, t->fileId, 0, nameId, e->dur);
      sum_gpu(&p->sum, t, e, 1, sqlite3_last_insert_rowid(p->db));
      trace_spans_gpu(p->pSpans, t->fileId, SPAN_KERNEL, e->ts, e->dur,
                      hasDev ? dev : -1, nameId);
      break;
    case TEV_MEMCPY:
    case TEV_MEMSET:
      sum_add(p, t->fileId, e->kind==TEV_MEMCPY ? 1 : 2, nameId, e->dur);
      sum_gpu(&p->sum, t, e, 0, 0);
      trace_spans_gpu(p->pSpans, t->fileId,
                      e->kind==TEV_MEMCPY ? SPAN_MEMCPY : SPAN_MEMSET,
                      e->ts, e->dur, hasDev ? dev : -1, nameId);
      break;
    case TEV_CPU_OP: {
      const Bound *d = &p->aIns[S_CPU_OP].aCur[12];   /* input_dims_id */
      sum_op(&p->sum, t, e, nameId, d->type==B_INT ? d->i : 0, fl,
             zSrc==NULL ? 0 : zSrc[0]=='a' ? 1 : 2);  /* "arg", "estimate" */
      /* the wall-time sweep wants top-level ops: nesting known in-stream */
      if( !e->linked ) trace_spans_give_up(p->pSpans);
      else if( e->depth==0 ){
        trace_spans_cpu(p->pSpans, t->fileId, SPAN_CPU, e->ts, e->dur);
      }
      break;
    }
    case TEV_RUNTIME:
    case TEV_DRIVER:
      sum_runtime(&p->sum, t, e, nameId);
      trace_spans_cpu(p->pSpans, t->fileId, SPAN_RUNTIME, e->ts, e->dur);
      break;
    default:
      break;
  }
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
      ? sqlite3_mprintf("UPDATE %s SET ts=ts+%lld, rank=%lld WHERE file_id=%lld",
                        azTab[i], (long long)dTs, (long long)rank,
                        (long long)fileId)
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
