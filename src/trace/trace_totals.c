/*
** trace_totals.c — the totals the trace writer keeps of every row: per-name
** GPU activity for gpu_op_summary, and the tables of
** schema/009-query-summaries.sql.  The one implementation of these
** numbers: the SQL at the end of 009 (tests/oracle/summaries.sql) is
** their specification, checked against these on every fixture.
**
** Pipeline position: "load" and "derive".  Rows come from one of two
** feeders through trace_keep.c: the writer as it inserts them
** (load_trace.c), or the stored-rows feeder (trace_feed.c) after a file
** was linked again, for a merge or a rebuild.  derive_trace.c gives the
** kernels that had no step when they came theirs (trace_totals_step_add)
** and writes the summaries once every step is final.  Memory grows with
** the distinct names and the ops and calls of the files being read, not
** with the rows.
*/
#include "trace/trace_totals.h"
#include "trace/derive_summary.h"
#include "core/db.h"
#include "trace/trace_ids.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

/* GPU activity totals of one (file, kind, name): a gpu_op_summary row
** before files of one rank are merged.  kind: 0 kernel, 1 memcpy,
** 2 memset; n==0 marks an empty slot. */
typedef struct SumEnt {
  int64_t fileId, nameId, rank;
  int64_t n, total, mn, mx;
  int kind;
} SumEnt;

/* Final rank of a file (rows may have gone in with a guessed one). */
typedef struct FileRank { int64_t fileId, rank; } FileRank;

/* ------------------------------------------------- 009 summary totals */

/*
** The totals of schema/009-query-summaries.sql, kept as the rows come.
** Groups are keyed by file until the files' final ranks are known.  Ids
** made by the in-stream linker are idBase + n, n = 1, 2, ... per file and
** table (trace_ids.h), so per-file arrays indexed by n map an op or runtime
** call to its group:
**  - an op's group needs its parent's name: an op whose parent has not
**    come yet waits in its parent's chain (Pend) until it does (the
**    writer gets an op when it closes, after its children; the stored
**    rows come in id order, parents first); an op's slot in SumFile.aOp is
**    its group (>= 0), OP_UNSEEN, OP_WAIT (seen, its parent not yet), or
**    the head of the chain of its children that wait (<= OP_CHAIN), and
**    aOpName its name once seen;
**  - GPU rows add to their op at the end of the file (GpuRef), when every
**    op's group is known, and to their runtime call at once when it came
**    first (else they wait in aLate);
**  - FLOP sums are floating point: they are added at the end in op id
**    order, whatever order the rows came in;
**  - a kernel or memcpy/memset row without a step may get one from
**    derive_trace.c: its rowid is kept (runs of consecutive rowids) for
**    it, and a kernel's time is added to its step then
**    (trace_totals_step_add).
** Memory: 8 bytes per op and 13 per runtime call of the files being read,
** 16 per GPU row with an op until its file ends, 40 per op with FLOPs.
** A row whose ids are not the linker's, or an op or call seen twice,
** makes the totals unusable (trace_totals_write_summaries fails): the
** writer and the feeder never give one.
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
  int64_t rowId, kNs, fileId;
  double flops;
  int name, src, hasKernel;
} FlopsOp;

/* The rows of one file, while it is being read. */
typedef struct SumFile {
  int64_t fileId;
  int64_t idBase, idLast;  /* its linker ids: idBase + n (trace_ids.h) */
  int *aOp;             /* per op id - 1, see above */
  int *aOpName;         /* per op id - 1: name_id once seen, else 0 */
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
  int64_t badId;        /* a row id not the linker's, or seen twice; 0 */
  sqlite3 *db;          /* where the files' id ranges are read */
  SummaryTotals t;      /* keyed by fileId instead of rank */
  SumFile *aFile;       /* files being read */
  int nFile, nFileAlloc;
  int iLast;            /* the file of the last row, if < nFile */
  Pend *aPend;
  int nPend, nPendAlloc, iFree;
  FlopsOp *aFl;         /* ops with FLOPs of files already read */
  int nFl, nFlAlloc;
  RowRun *aRun[2];      /* kernel / gpu_mem_op rowids without a step */
  int nRun[2], nRunAlloc[2];
  GroupMap lateSteps;   /* (rank, step) -> StepSum: kernels given a step
                        ** after the load */
} SumState;

/* Array a of *pnAlloc elements of sz bytes, grown to hold n (the array
** returned replaces a, which the caller owns and frees with
** util_array_free(a, nAlloc*sz)). */
static void *grow(void *a, int *pnAlloc, int n, size_t sz){
  int nNew = *pnAlloc ? *pnAlloc : 64;
  if( n<=*pnAlloc ) return a;
  while( nNew<n ) nNew *= 2;
  a = util_array_grow(a, (size_t)*pnAlloc*sz, (size_t)nNew*sz);
  *pnAlloc = nNew;
  return a;
}

static void sumfile_free(SumFile *f){
  util_array_free(f->aOp, (size_t)f->nOpAlloc*sizeof(int));
  util_array_free(f->aOpName, (size_t)f->nOpAlloc*sizeof(int));
  util_array_free(f->aRtTs, (size_t)f->nRtAlloc*sizeof(int64_t));
  free(f->aRtGroup);
  free(f->aRtRc);
  util_array_free(f->aGpu, (size_t)f->nGpuAlloc*sizeof(GpuRef));
  util_array_free(f->aLate, (size_t)f->nLateAlloc*sizeof(LateGpu));
  util_array_free(f->aFl, (size_t)f->nFlAlloc*sizeof(FlopsOp));
}

static void sumstate_free(SumState *p){
  for(int i=0; i<p->nFile; i++) sumfile_free(&p->aFile[i]);
  util_array_free(p->aFile, (size_t)p->nFileAlloc*sizeof(SumFile));
  util_array_free(p->aPend, (size_t)p->nPendAlloc*sizeof(Pend));
  util_array_free(p->aFl, (size_t)p->nFlAlloc*sizeof(FlopsOp));
  for(int k=0; k<2; k++){
    util_array_free(p->aRun[k], (size_t)p->nRunAlloc[k]*sizeof(RowRun));
  }
  group_map_free(&p->lateSteps);
  derive_summary_totals_free(&p->t);
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
  if( p->db==NULL || trace_ids_range(p->db, fileId, &f->idBase, &f->idLast,
                                     &(PfError){0}) ){
    if( p->badId==0 ) p->badId = fileId;   /* no id of it is the linker's */
    f->idBase = f->idLast = 0;
  }
  return f;
}

/* The index (1, 2, ...) of linker id within file f, or 0 when it is not
** one of f's. */
static int id_seq(const SumFile *f, int64_t id){
  int64_t n = id - f->idBase;
  return n>=1 && id<=f->idLast && n<=INT32_MAX/2 ? (int)n : 0;
}

/* Make op slots up to seq exist. */
static void op_slots(SumFile *f, int seq){
  int nAlloc;
  if( seq<=f->nOp ) return;
  nAlloc = f->nOpAlloc;
  f->aOp = grow(f->aOp, &f->nOpAlloc, seq, sizeof(int));
  f->aOpName = grow(f->aOpName, &nAlloc, seq, sizeof(int));
  for(int i=f->nOp; i<seq; i++){
    f->aOp[i] = OP_UNSEEN;
    f->aOpName[i] = 0;
  }
  f->nOp = seq;
}

/* Add an op's own totals to group (file, name, parentName); its group. */
static int op_add(SumState *p, int64_t fileId, int64_t name,
                  int64_t parentName, int64_t dur, int64_t self){
  int g;
  OpSum *o = group_map_get(&p->t.ops, fileId, name, parentName, 0, &g);
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

/* Row r (an op, whose id is not the linker's or came twice): the totals
** cannot be used. */
static void sum_bad(SumState *p, int64_t id){
  if( p->badId==0 ) p->badId = id ? id : -1;
}

/* Op seq of f waits in the chain of its parent slot ps (unseen). */
static void chain_wait(SumState *p, SumFile *f, int ps, int seq,
                       int64_t name, int64_t dur, int64_t self){
  int h, slot = f->aOp[ps-1];
  Pend *c;
  if( p->iFree>=0 ){
    h = p->iFree;
    p->iFree = p->aPend[h].next;
  }else{
    p->aPend = grow(p->aPend, &p->nPendAlloc, p->nPend+1, sizeof(Pend));
    h = p->nPend++;
  }
  c = &p->aPend[h];
  c->dur = dur;
  c->self = self;
  c->name = (int)name;
  c->seq = seq;
  c->next = slot==OP_UNSEEN ? -1 : OP_CHAIN - slot;
  f->aOp[ps-1] = OP_CHAIN - h;
  f->aOp[seq-1] = OP_WAIT;
}

/* One cpu_op row: shapes and FLOPs now, cpu_op_summary once its parent's
** name is known. */
static void sum_op(SumState *p, const TraceRow *r){
  SumFile *f = sum_file(p, r->fileId);
  int seq = id_seq(f, r->id), chain;
  int64_t self = r->linked ? r->selfDur : r->dur;
  if( r->dimsId!=0 ){
    ShapeSum *sh = group_map_get(&p->t.shapes, r->fileId, r->nameId,
                                 r->dimsId, 0, NULL);
    sh->calls++;
  }
  if( seq==0 ){ sum_bad(p, r->id); return; }
  op_slots(f, seq);
  chain = f->aOp[seq-1];
  if( chain>OP_UNSEEN || chain==OP_WAIT ){ sum_bad(p, r->id); return; }
  f->aOpName[seq-1] = (int)r->nameId;
  if( r->flopsSrc ){
    FlopsOp *fl;
    f->aFl = grow(f->aFl, &f->nFlAlloc, f->nFl+1, sizeof(FlopsOp));
    fl = &f->aFl[f->nFl++];
    memset(fl, 0, sizeof(*fl));
    fl->rowId = r->id;
    fl->fileId = r->fileId;
    fl->flops = r->flops;
    fl->name = (int)r->nameId;
    fl->src = r->flopsSrc;
  }
  if( r->parentId<=0 ){
    f->aOp[seq-1] = op_add(p, r->fileId, r->nameId, 0, r->dur, self);
  }else{
    int ps = id_seq(f, r->parentId);
    if( ps==0 ){ sum_bad(p, r->id); return; }
    op_slots(f, ps);
    if( f->aOpName[ps-1]!=0 ){              /* parent seen: its name */
      f->aOp[seq-1] = op_add(p, r->fileId, r->nameId, f->aOpName[ps-1],
                             r->dur, self);
    }else{                                  /* wait in its chain */
      chain_wait(p, f, ps, seq, r->nameId, r->dur, self);
    }
  }
  if( chain<=OP_CHAIN ) chain_resolve(p, f, OP_CHAIN - chain, r->nameId);
}

/* One runtime/driver call. */
static void sum_runtime(SumState *p, const TraceRow *row){
  SumFile *f = sum_file(p, row->fileId);
  int seq = id_seq(f, row->id), g;
  RtSum *r;
  if( seq==0 ){ sum_bad(p, row->id); return; }
  r = group_map_get(&p->t.rt, row->fileId, row->nameId,
                    row->kind==TEV_RUNTIME ? 1 : 2, 0, &g);
  r->calls++;
  r->totalNs += row->dur;
  if( r->calls==1 || row->dur>r->maxNs ) r->maxNs = row->dur;
  if( seq>f->nRt ){
    if( seq>f->nRtAlloc ){
      f->aRtTs = grow(f->aRtTs, &f->nRtAlloc, seq, sizeof(int64_t));
      f->aRtGroup = xrealloc(f->aRtGroup, (size_t)f->nRtAlloc*sizeof(int));
      f->aRtRc = xrealloc(f->aRtRc, (size_t)f->nRtAlloc);
    }
    for(int i=f->nRt; i<seq; i++) f->aRtGroup[i] = -1;
    f->nRt = seq;
  }
  if( f->aRtGroup[seq-1]>=0 ){ sum_bad(p, row->id); return; }   /* twice */
  f->aRtTs[seq-1] = row->ts;
  f->aRtGroup[seq-1] = g;
  f->aRtRc[seq-1] = (unsigned char)(row->linked && row->inRecompute==1);
}

/* What a GPU row launched by call seq of file f adds to the call. */
static void rt_launch(SumState *p, SumFile *f, int seq, int64_t ts,
                      int64_t dur, int isKernel){
  RtSum *r = group_map_val(&p->t.rt, f->aRtGroup[seq-1]);
  int64_t d = ts - f->aRtTs[seq-1];
  if( r->launches==0 || d>r->maxDelay ) r->maxDelay = d;
  r->launches++;
  r->delayNs += d;
  r->nShort += dur<10000;
  if( isKernel && f->aRtRc[seq-1] ){ r->rcN++; r->rcNs += dur; }
}

/* Note rowid of table k (0 kernel, 1 gpu_mem_op) as one without a step. */
static void run_add(SumState *p, int k, int64_t rowid){
  if( p->nRun[k]>0 && p->aRun[k][p->nRun[k]-1].last+1==rowid ){
    p->aRun[k][p->nRun[k]-1].last = rowid;
    return;
  }
  p->aRun[k] = grow(p->aRun[k], &p->nRunAlloc[k], p->nRun[k]+1,
                    sizeof(RowRun));
  p->aRun[k][p->nRun[k]].first = p->aRun[k][p->nRun[k]].last = rowid;
  p->nRun[k]++;
}

/* One kernel or memcpy/memset row. */
static void sum_gpu(SumState *p, const TraceRow *r){
  SumFile *f = sum_file(p, r->fileId);
  int isKernel = r->kind==TEV_KERNEL;
  if( r->opId>0 ){
    int seq = id_seq(f, r->opId);
    GpuRef *g;
    if( seq==0 ){ sum_bad(p, r->opId); return; }
    f->aGpu = grow(f->aGpu, &f->nGpuAlloc, f->nGpu+1, sizeof(GpuRef));
    g = &f->aGpu[f->nGpu++];
    g->dur = r->dur;
    g->seq = seq;
    g->isKernel = isKernel;
  }
  if( r->runtimeId>0 ){
    int seq = id_seq(f, r->runtimeId);
    if( seq==0 ){ sum_bad(p, r->runtimeId); return; }
    if( seq<=f->nRt && f->aRtGroup[seq-1]>=0 ){
      rt_launch(p, f, seq, r->ts, r->dur, isKernel);
    }else{
      LateGpu *l;
      f->aLate = grow(f->aLate, &f->nLateAlloc, f->nLate+1, sizeof(LateGpu));
      l = &f->aLate[f->nLate++];
      l->ts = r->ts;
      l->dur = r->dur;
      l->seq = seq;
      l->isKernel = isKernel;
    }
  }
  if( r->step<0 ){
    run_add(p, isKernel ? 0 : 1, r->id);
  }else if( isKernel ){
    StepSum *st = group_map_get(&p->t.steps, r->fileId, r->step, 0, 0, NULL);
    st->n++;
    st->ns += r->dur;
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
    o = group_map_val(&p->t.ops, f->aOp[g->seq-1]);
    o->gpuN++;
    o->gpuNs += g->dur;
    if( g->isKernel && f->nFl>0 ){
      FlopsOp *fl = flops_find(f, f->idBase + g->seq);
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

/* The totals of one ingest. */
struct TraceTotals {
  SumEnt *aSum;                 /* open addressing, nSum a power of two */
  int nSum, nSumUsed;
  FileRank *aFile;              /* final rank of each file read */
  int nFile, nFileAlloc;
  SumState sum;                 /* 009 summary totals */
};

void trace_totals_begin(TraceTotals *p, sqlite3 *db){
  p->sum.db = db;
}

TraceTotals *trace_totals_new(void){
  TraceTotals *p = xcalloc(1, sizeof(*p));
  derive_summary_totals_init(&p->sum.t);
  group_map_init(&p->sum.lateSteps, sizeof(StepSum));
  p->sum.iFree = -1;
  return p;
}

void trace_totals_free(TraceTotals *p){
  if( p==NULL ) return;
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
static void sum_add(TraceTotals *p, int64_t fileId, int kind, int64_t nameId,
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

void trace_totals_file_rank(TraceTotals *p, int64_t fileId, int64_t rank){
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

int trace_totals_write_gpu(TraceTotals *p, sqlite3 *db, int64_t runId,
                           PfError *pErr){
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
  s = db_prepare(db,
    db_statement("trace-totals-write-gpu"), pErr);
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
                   sqlite3_errmsg(db));
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
static int64_t file_rank(const TraceTotals *p, int64_t fileId){
  for(int k=0; k<p->nFile; k++){
    if( p->aFile[k].fileId==fileId ) return p->aFile[k].rank;
  }
  return -1;
}

/* Rekey the per-file groups of p->sum by the files' final ranks into *pT
** (files of one rank merged).  Returns 0, or -1 when a file's rank is
** unknown. */
static int sum_by_rank(const TraceTotals *p, SummaryTotals *pT){
  const SummaryTotals *s = &p->sum.t;
  for(int g=0; g<s->ops.nGroup; g++){
    const GroupKey *k = &s->ops.aKey[g];
    const OpSum *o = group_map_val(&s->ops, g);
    int64_t rank = file_rank(p, k->a);
    OpSum *d;
    if( rank<0 ) return -1;
    d = group_map_get(&pT->ops, rank, k->b, k->c, 0, NULL);
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
    d = group_map_get(&pT->shapes, rank, k->b, k->c, 0, NULL);
    d->calls += ((const ShapeSum*)group_map_val(&s->shapes, g))->calls;
  }
  for(int g=0; g<s->rt.nGroup; g++){
    const GroupKey *k = &s->rt.aKey[g];
    const RtSum *r = group_map_val(&s->rt, g);
    int64_t rank = file_rank(p, k->a);
    RtSum *d;
    if( rank<0 ) return -1;
    d = group_map_get(&pT->rt, rank, k->b, k->c, 0, NULL);
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
    const StepSum *st = group_map_val(&s->steps, g);
    int64_t rank = file_rank(p, k->a);
    StepSum *d;
    if( rank<0 ) return -1;
    d = group_map_get(&pT->steps, rank, k->b, 0, 0, NULL);
    d->n += st->n;
    d->ns += st->ns;
  }
  for(int g=0; g<p->sum.lateSteps.nGroup; g++){   /* keyed by rank */
    const GroupKey *k = &p->sum.lateSteps.aKey[g];
    const StepSum *st = group_map_val(&p->sum.lateSteps, g);
    StepSum *d = group_map_get(&pT->steps, k->a, k->b, 0, 0, NULL);
    d->n += st->n;
    d->ns += st->ns;
  }
  return 0;
}

/* cpu_op_flops_summary: FLOPs added in op id order, as in the database
** pass.  Returns 0, or -1 when a file's rank is unknown. */
static int sum_flops(TraceTotals *p, SummaryTotals *pT){
  SumState *s = &p->sum;
  if( s->nFl>1 ) qsort(s->aFl, (size_t)s->nFl, sizeof(FlopsOp), cmp_flops_op);
  for(int pass=0; pass<2; pass++){
    for(int i=0; i<s->nFl; i++){
      const FlopsOp *f = &s->aFl[i];
      int64_t rank = file_rank(p, f->fileId);
      FlopsSum *fs;
      if( rank<0 ) return -1;
      fs = group_map_get(&pT->flops, rank, f->name, f->src, 0, NULL);
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

int trace_totals_write_summaries(TraceTotals *p, sqlite3 *db,
                                 int64_t runId, PfError *pErr){
  SummaryTotals t;
  int rc;
  if( p->sum.badId ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "summaries: row %lld was not made"
                 " by the trace linker (or came twice)",
                 (long long)p->sum.badId);
    return -1;
  }
  if( p->sum.nFile>0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "summaries: a trace file has no"
                 " final rank");
    return -1;
  }
  derive_summary_totals_init(&t);
  /* the codes sum_op() and sum_runtime() use */
  group_map_text_code(&t.src, "arg");
  group_map_text_code(&t.src, "estimate");
  group_map_text_code(&t.kind, "runtime");
  group_map_text_code(&t.kind, "driver");
  if( sum_by_rank(p, &t) || sum_flops(p, &t) ){
    derive_summary_totals_free(&t);
    pf_error_set(pErr, ERRPOS_NONE, 0, "summaries: a trace file has no"
                 " final rank");
    return -1;
  }
  rc = derive_summary_totals_write(db, runId, &t, pErr);
  derive_summary_totals_free(&t);
  return rc;
}

int trace_totals_stepless(const TraceTotals *p, int isKernel, int i,
                          int64_t *pFirst, int64_t *pLast){
  int k = isKernel ? 0 : 1;
  if( i<0 || i>=p->sum.nRun[k] ) return 0;
  *pFirst = p->sum.aRun[k][i].first;
  *pLast = p->sum.aRun[k][i].last;
  return 1;
}

void trace_totals_step_add(TraceTotals *p, int64_t rank, int64_t step,
                           int64_t dur){
  StepSum *st = group_map_get(&p->sum.lateSteps, rank, step, 0, 0, NULL);
  st->n++;
  st->ns += dur;
}

void trace_totals_row(TraceTotals *p, const TraceRow *r){
  switch( r->kind ){
    case TEV_KERNEL:
      sum_add(p, r->fileId, 0, r->nameId, r->dur);
      sum_gpu(&p->sum, r);
      break;
    case TEV_MEMCPY:
    case TEV_MEMSET:
      sum_add(p, r->fileId, r->kind==TEV_MEMCPY ? 1 : 2, r->nameId, r->dur);
      sum_gpu(&p->sum, r);
      break;
    case TEV_CPU_OP:
      sum_op(&p->sum, r);
      break;
    case TEV_RUNTIME:
    case TEV_DRIVER:
      sum_runtime(&p->sum, r);
      break;
    default:
      break;
  }
}
