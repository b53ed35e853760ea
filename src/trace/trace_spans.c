/*
** trace_spans.c — what the derive passes need of a run's trace rows,
** kept as the rows come (see trace_spans.h).
**
** Pipeline position: between "load" and "derive".  Rows are appended per
** file, in arrival order, to spools (spool.h): memory while the store's
** spools hold at most TRACE_SPANS_BUDGET bytes together, a temporary file
** beyond it; a file's time shift is applied when its rows are read.  A
** rank's spans are gathered into one array and sorted when a sweep asks
** for them.  Traces come nearly sorted (Kineto writes each thread's events
** in time order), so an array already in order is not sorted again.
*/
#include "trace/trace_spans.h"
#include "trace/op_store.h"
#include "core/group_map.h"
#include "core/spool.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of rows the store keeps in memory (PROFAN_SPOOL_KB sets it for
** every spool: the tests put them all in files).  The store is read at
** derive time, when SQLite's cache is full and derive_hta.c holds its
** sorted copy of the HTA rows: 64 MiB made the peak RSS 158 MB at x10 of
** the control trace (issue 35: 150 MB); beyond 16 MiB the rows go to a
** temporary file, read back once, in order, by 1 MiB windows. */
#define TRACE_SPANS_BUDGET ((int64_t)16<<20)

/* The rows of one file: each kind of record in its own spool. */
enum { R_GPU, R_CPU, R_RUNTIME, R_HOST, R_HTA_CPU, R_HTA_GPU, R_MEM, R_N };
static const size_t aRecSize[R_N] = {
  sizeof(SpanGpu), sizeof(Span), sizeof(Span), sizeof(Span),
  sizeof(SpanHtaCpu), sizeof(SpanHtaGpu), sizeof(SpanMem)
};

/* The record kind of a CPU-side span class. */
static int cpu_rec(int cls){
  return cls==SPAN_CPU ? R_CPU : cls==SPAN_HOST ? R_HOST : R_RUNTIME;
}

typedef struct SpanFile {
  int64_t fileId;
  int64_t rank;
  int hasRank;
  int64_t dTs;                  /* time shift of its rows, once known */
  Spool aRec[R_N];              /* records, by kind */
  size_t an[R_N];               /* records in each */
} SpanFile;

/* Why the spans cannot be trusted (TraceSpans.bad; 0: they can). */
enum {
  SPANS_BAD_FILE = 1,       /* a temporary file could not be written or read */
  SPANS_BAD_NOMEM,          /* trace_spans_begin's reads: out of memory */
  SPANS_BAD_DB              /* trace_spans_begin's reads: the database */
};

struct TraceSpans {
  SpanFile *aFile;
  int nFile, nFileAlloc;
  int iLast;                /* the file of the last row */
  SpoolBudget budget;       /* memory of the spools of every file */
  int bad;                  /* SPANS_BAD_* (trace_spans_check) */
  OpStore *pOps;            /* operator calls (op_store.c) */
  char **azHostPat;         /* comm_cpu_pattern GLOBs (trace_spans_begin) */
  int nHostPat;
  GroupMap hostName;        /* name id -> 1 host work, 2 not (SPAN_HOST) */
  GroupMap stepGpu;         /* (file id, launch step) -> LaunchSpan */
  int iStepGpu;             /* the group of the last GPU row's, or -1 */
};

/* The GPU work a step launched in one file, before its time shift. */
typedef struct LaunchSpan {
  int64_t g0, g1;
  int has;
} LaunchSpan;

TraceSpans *trace_spans_new(void){
  TraceSpans *p = xcalloc(1, sizeof(*p));
  spool_budget_init(&p->budget, TRACE_SPANS_BUDGET);
  p->pOps = op_store_new();
  group_map_init(&p->hostName, sizeof(int));
  group_map_init(&p->stepGpu, sizeof(LaunchSpan));
  p->iStepGpu = -1;
  return p;
}

static void file_clear(SpanFile *f){
  for(int k=0; k<R_N; k++) spool_free(&f->aRec[k]);
}

void trace_spans_free(TraceSpans *p){
  if( p==NULL ) return;
  for(int i=0; i<p->nFile; i++) file_clear(&p->aFile[i]);
  free(p->aFile);
  op_store_free(p->pOps);
  for(int i=0; i<p->nHostPat; i++) free(p->azHostPat[i]);
  free(p->azHostPat);
  group_map_free(&p->hostName);
  group_map_free(&p->stepGpu);
  free(p);
}

int trace_spans_check(const TraceSpans *p, PfError *pErr){
  if( p && p->bad==SPANS_BAD_NOMEM ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "out of memory (the names of the"
                 " host's own work, read for the derive passes)");
  }else if( p && p->bad==SPANS_BAD_DB ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: cannot read the names of"
                 " the host's own work (the derive passes)");
  }else if( p && p->bad ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot write or read a temporary"
                 " file (the rows kept for the derive passes)");
  }else{
    return 0;
  }
  pf_error_kind(pErr, PF_KIND_DB);     /* memory, database or disk: exit 7 */
  return -1;
}

/* A failed read of trace_spans_begin on db: memory or the database. */
static void begin_failed(TraceSpans *p, sqlite3 *db){
  p->bad = (sqlite3_errcode(db) & 0xff)==SQLITE_NOMEM ? SPANS_BAD_NOMEM
                                                       : SPANS_BAD_DB;
}

void trace_spans_begin(TraceSpans *p, sqlite3 *db){
  sqlite3_stmt *s = NULL;
  if( p==NULL || p->nHostPat>0 ) return;
  if( sqlite3_prepare_v2(db, "SELECT pattern FROM comm_cpu_pattern", -1, &s,
                         NULL)!=SQLITE_OK ){
    begin_failed(p, db);
    return;
  }
  while( sqlite3_step(s)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(s, 0);
    size_t n;
    if( z==NULL ) continue;
    n = strlen(z) + 1;
    p->azHostPat = xrealloc(p->azHostPat,
                            (size_t)(p->nHostPat+1)*sizeof(char*));
    p->azHostPat[p->nHostPat] = xmalloc(n);
    memcpy(p->azHostPat[p->nHostPat++], z, n);
  }
  if( sqlite3_finalize(s)!=SQLITE_OK ) begin_failed(p, db);
  /* the names of the database that are not host work: the stored-rows
  ** feeder gives no name text (the writer does, for new names too) */
  if( sqlite3_prepare_v2(db, "SELECT id FROM string WHERE text GLOB ?1",
                         -1, &s, NULL)!=SQLITE_OK ){
    begin_failed(p, db);
    return;
  }
  for(int i=-1; i<p->nHostPat; i++){
    sqlite3_bind_text(s, 1, i<0 ? "ProfilerStep#*" : p->azHostPat[i], -1,
                      SQLITE_STATIC);
    while( sqlite3_step(s)==SQLITE_ROW ){
      *(int*)group_map_get(&p->hostName, sqlite3_column_int64(s, 0), 0, 0, 0,
                           NULL) = 2;
    }
    sqlite3_reset(s);
  }
  if( sqlite3_finalize(s)!=SQLITE_OK ) begin_failed(p, db);
}

/* 1 when the CPU op r is the host's own work: its name is neither a
** ProfilerStep#N nor a host collective (comm_cpu_pattern), decided once
** per name id (a name the database holds: by trace_spans_begin). */
static int host_work(TraceSpans *p, const TraceRow *r){
  int *pClass = group_map_get(&p->hostName, r->nameId, 0, 0, 0, NULL);
  if( *pClass==0 && r->zName==NULL ){
    *pClass = 1;
  }else if( *pClass==0 ){
    size_t n = (size_t)r->nName;
    char *z = xmalloc(n + 1);
    int bOut;
    if( n ) memcpy(z, r->zName, n);
    z[n] = 0;
    bOut = sqlite3_strglob("ProfilerStep#*", z)==0;
    for(int i=0; i<p->nHostPat && !bOut; i++){
      bOut = sqlite3_strglob(p->azHostPat[i], z)==0;
    }
    free(z);
    pClass = group_map_get(&p->hostName, r->nameId, 0, 0, 0, NULL);
    *pClass = bOut ? 2 : 1;
  }
  return *pClass==1;
}

OpStore *trace_spans_ops(const TraceSpans *p){
  return p ? p->pOps : NULL;
}

/* The state of file fileId, created when new. */
static SpanFile *span_file(TraceSpans *p, int64_t fileId){
  SpanFile *f;
  if( p->iLast<p->nFile && p->aFile[p->iLast].fileId==fileId ){
    return &p->aFile[p->iLast];       /* rows come in batches of one file */
  }
  for(int i=0; i<p->nFile; i++){
    if( p->aFile[i].fileId==fileId ){
      p->iLast = i;
      return &p->aFile[i];
    }
  }
  if( p->nFile==p->nFileAlloc ){
    p->nFileAlloc = p->nFileAlloc ? p->nFileAlloc*2 : 8;
    p->aFile = xrealloc(p->aFile, (size_t)p->nFileAlloc*sizeof(SpanFile));
  }
  p->iLast = p->nFile;
  f = &p->aFile[p->nFile++];
  memset(f, 0, sizeof(*f));
  f->fileId = fileId;
  for(int k=0; k<R_N; k++) spool_init(&f->aRec[k], &p->budget);
  return f;
}

/* Append record z of kind k to file fileId's spool. */
static void rec_add(TraceSpans *p, int64_t fileId, int k, const void *z){
  SpanFile *f = span_file(p, fileId);
  if( spool_append(&f->aRec[k], z, aRecSize[k]) ){
    p->bad = SPANS_BAD_FILE;
    return;
  }
  f->an[k]++;
}

/* Copy the n records of kind k of file f into a (room for n).  A spool
** read moves its read window, not its content: the store stays const for
** its readers.  Returns 0, or -1 (and the store is bad) when the
** temporary file cannot be read. */
static int rec_copy(const TraceSpans *p, const SpanFile *f, int k, void *a){
  Spool *s = (Spool*)&f->aRec[k];
  size_t sz = aRecSize[k], per = ((size_t)1<<20)/sz;
  for(size_t i=0; i<f->an[k]; i+=per){
    size_t n = f->an[k]-i<per ? f->an[k]-i : per;
    const char *z = spool_get(s, (int64_t)(i*sz), n*sz);
    if( z==NULL ){
      ((TraceSpans*)p)->bad = SPANS_BAD_FILE;
      return -1;
    }
    memcpy((char*)a + i*sz, z, n*sz);
  }
  return 0;
}

void trace_spans_gpu(TraceSpans *p, int64_t fileId, int kind, int64_t ts,
                     int64_t dur, int64_t device, int64_t name){
  SpanGpu g;
  if( p==NULL ) return;
  g.ts = ts;
  g.dur = dur;
  g.device = device;
  g.name = name;
  g.kind = kind;
  g.seq = 0;
  rec_add(p, fileId, R_GPU, &g);
}

void trace_spans_cpu(TraceSpans *p, int64_t fileId, int cls, int64_t ts,
                     int64_t dur){
  Span s;
  if( p==NULL ) return;
  s.ts = ts;
  s.end = ts + dur;
  rec_add(p, fileId, cpu_rec(cls), &s);
}

void trace_spans_file_done(TraceSpans *p, int64_t fileId, int64_t dTs,
                           int64_t rank){
  SpanFile *f;
  if( p==NULL ) return;
  op_store_file_done(p->pOps, fileId, rank);
  f = span_file(p, fileId);
  f->rank = rank;
  f->hasRank = 1;
  f->dTs = dTs;
}

static int cmp_i64(const void *a, const void *b){
  int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return x<y ? -1 : x>y;
}

int64_t *trace_spans_ranks(const TraceSpans *p, int *pn){
  int64_t *a = xmalloc(((size_t)p->nFile + 1)*sizeof(int64_t));
  int n = 0;
  for(int i=0; i<p->nFile; i++){
    if( p->aFile[i].hasRank ) a[n++] = p->aFile[i].rank;
  }
  qsort(a, (size_t)n, sizeof(int64_t), cmp_i64);
  if( n>1 ){
    int k = 1;
    for(int i=1; i<n; i++) if( a[i]!=a[k-1] ) a[k++] = a[i];
    n = k;
  }
  *pn = n;
  return a;
}

/*
** Sort a (n elements of sz bytes) by cmp, stably.  Traces come as a few
** long runs in order (one per thread or stream, or per copy of a scaled
** trace), so the runs are found and merged pairwise: O(n log runs).  Many
** short runs go to qsort() instead (cmp then breaks every tie).
*/
#define MAX_RUNS 256
static void sort_runs(void *a, size_t n, size_t sz,
                      int (*cmp)(const void*, const void*)){
  size_t aRun[MAX_RUNS+1];
  int nRun = 0;
  char *src = a, *dst;
  if( n<2 ) return;
  aRun[nRun++] = 0;
  for(size_t i=1; i<n; i++){
    if( cmp(src+(i-1)*sz, src+i*sz)>0 ){
      if( nRun==MAX_RUNS ){
        qsort(a, n, sz, cmp);
        return;
      }
      aRun[nRun++] = i;
    }
  }
  if( nRun==1 ) return;
  dst = xmalloc(n*sz);
  while( nRun>1 ){
    int k = 0;
    for(int r=0; r<nRun; r+=2){
      size_t lo = aRun[r], mid = r+1<nRun ? aRun[r+1] : n;
      size_t hi = r+2<nRun ? aRun[r+2] : n, i = lo, j = mid, o = lo;
      while( i<mid && j<hi ){
        if( cmp(src+j*sz, src+i*sz)<0 ){ memcpy(dst+o*sz, src+j*sz, sz); j++; }
        else{ memcpy(dst+o*sz, src+i*sz, sz); i++; }
        o++;
      }
      memcpy(dst+o*sz, src+i*sz, (mid-i)*sz);
      o += mid-i;
      memcpy(dst+o*sz, src+j*sz, (hi-j)*sz);
      aRun[k++] = lo;
    }
    nRun = k;
    { char *t = src; src = dst; dst = t; }
  }
  if( src!=(char*)a ) memcpy(a, src, n*sz);
  free(src==(char*)a ? dst : src);
}

static int cmp_gpu(const void *a, const void *b){
  const SpanGpu *x = a, *y = b;
  if( x->device!=y->device ) return x->device<y->device ? -1 : 1;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  if( x->dur!=y->dur ) return x->dur>y->dur ? -1 : 1;     /* longest first */
  if( x->name!=y->name ) return x->name<y->name ? -1 : 1;
  return x->seq<y->seq ? -1 : x->seq>y->seq;
}

static int cmp_span(const void *a, const void *b){
  const Span *x = a, *y = b;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->end<y->end ? -1 : x->end>y->end;
}

SpanGpu *trace_spans_rank_gpu(const TraceSpans *p, int64_t rank, size_t *pn){
  size_t n = 0, k = 0;
  SpanGpu *a;
  for(int i=0; i<p->nFile; i++){
    if( p->aFile[i].hasRank && p->aFile[i].rank==rank ){
      n += p->aFile[i].an[R_GPU];
    }
  }
  *pn = n;
  if( n==0 ) return NULL;
  a = xmalloc(n*sizeof(SpanGpu));
  for(int i=0; i<p->nFile; i++){
    const SpanFile *f = &p->aFile[i];
    if( !f->hasRank || f->rank!=rank ) continue;
    if( rec_copy(p, f, R_GPU, a+k) ){
      free(a);
      *pn = 0;
      return NULL;
    }
    for(size_t j=0; j<f->an[R_GPU]; j++, k++){
      a[k].ts += f->dTs;
      a[k].seq = (int32_t)k;
    }
  }
  sort_runs(a, n, sizeof(SpanGpu), cmp_gpu);     /* one pass when in order */
  return a;
}

Span *trace_spans_rank_cpu(const TraceSpans *p, int64_t rank, int cls,
                           size_t *pn){
  size_t n = 0, k = 0;
  int r = cpu_rec(cls);
  Span *a;
  for(int i=0; i<p->nFile; i++){
    if( p->aFile[i].hasRank && p->aFile[i].rank==rank ){
      n += p->aFile[i].an[r];
    }
  }
  *pn = n;
  if( n==0 ) return NULL;
  a = xmalloc(n*sizeof(Span));
  for(int i=0; i<p->nFile; i++){
    const SpanFile *f = &p->aFile[i];
    if( !f->hasRank || f->rank!=rank ) continue;
    if( rec_copy(p, f, r, a+k) ){
      free(a);
      *pn = 0;
      return NULL;
    }
    for(size_t j=0; j<f->an[r]; j++, k++){
      a[k].ts += f->dTs;
      a[k].end += f->dTs;
    }
  }
  trace_spans_sort(a, n);
  return a;
}

static int cmp_mem(const void *a, const void *b){
  const SpanMem *x = a, *y = b;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->id<y->id ? -1 : x->id>y->id;
}

size_t trace_spans_mem_count(const TraceSpans *p){
  size_t n = 0;
  for(int i=0; i<p->nFile; i++){
    if( p->aFile[i].hasRank ) n += p->aFile[i].an[R_MEM];
  }
  return n;
}

SpanMem *trace_spans_rank_mem(const TraceSpans *p, int64_t rank, size_t *pn){
  size_t n = 0, k = 0;
  SpanMem *a;
  for(int i=0; i<p->nFile; i++){
    if( p->aFile[i].hasRank && p->aFile[i].rank==rank ){
      n += p->aFile[i].an[R_MEM];
    }
  }
  *pn = n;
  if( n==0 ) return NULL;
  a = xmalloc(n*sizeof(SpanMem));
  for(int i=0; i<p->nFile; i++){
    const SpanFile *f = &p->aFile[i];
    if( !f->hasRank || f->rank!=rank ) continue;
    if( rec_copy(p, f, R_MEM, a+k) ){
      free(a);
      *pn = 0;
      return NULL;
    }
    for(size_t j=0; j<f->an[R_MEM]; j++, k++) a[k].ts += f->dTs;
  }
  sort_runs(a, n, sizeof(SpanMem), cmp_mem);     /* one pass when in order */
  return a;
}

void trace_spans_sort(Span *a, size_t n){
  sort_runs(a, n, sizeof(Span), cmp_span);
}

/* GPU row [ts, end) of file fileId was launched in step: widen the step's
** span.  Rows of one step come one after another: the last group is
** tried first. */
static void step_gpu_add(TraceSpans *p, int64_t fileId, int64_t step,
                         int64_t ts, int64_t end){
  LaunchSpan *s;
  const GroupKey *k = p->iStepGpu>=0 ? &p->stepGpu.aKey[p->iStepGpu] : NULL;
  if( k && k->a==fileId && k->b==step ){
    s = group_map_val(&p->stepGpu, p->iStepGpu);
  }else{
    s = group_map_get(&p->stepGpu, fileId, step, 0, 0, &p->iStepGpu);
  }
  if( !s->has ){
    s->has = 1;
    s->g0 = ts;
    s->g1 = end;
    return;
  }
  if( ts<s->g0 ) s->g0 = ts;
  if( end>s->g1 ) s->g1 = end;
}

static int cmp_step_gpu(const void *a, const void *b){
  const StepGpu *x = a, *y = b;
  if( x->rank!=y->rank ) return x->rank<y->rank ? -1 : 1;
  return x->step<y->step ? -1 : x->step>y->step;
}

StepGpu *trace_spans_step_gpu(const TraceSpans *p, size_t *pn){
  StepGpu *a;
  size_t n = 0, k = 0;
  int iFile = 0;
  *pn = 0;
  if( p==NULL || p->stepGpu.nGroup==0 ) return NULL;
  a = xmalloc((size_t)p->stepGpu.nGroup*sizeof(StepGpu));
  for(int g=0; g<p->stepGpu.nGroup; g++){
    const GroupKey *key = &p->stepGpu.aKey[g];
    const LaunchSpan *s = group_map_val(&p->stepGpu, g);
    const SpanFile *f;
    /* groups come in file order: the file of the previous one first */
    if( iFile>=p->nFile || p->aFile[iFile].fileId!=key->a ){
      for(iFile=0; iFile<p->nFile && p->aFile[iFile].fileId!=key->a;
          iFile++){}
    }
    if( iFile>=p->nFile ) continue;
    f = &p->aFile[iFile];
    if( !f->hasRank ) continue;       /* its rows are not the database's */
    a[n].rank = f->rank;
    a[n].step = key->b;
    a[n].g0 = s->g0 + f->dTs;
    a[n].g1 = s->g1 + f->dTs;
    n++;
  }
  qsort(a, n, sizeof(StepGpu), cmp_step_gpu);
  /* files of one rank: one span per step */
  for(size_t i=0; i<n; i++){
    if( k>0 && a[k-1].rank==a[i].rank && a[k-1].step==a[i].step ){
      if( a[i].g0<a[k-1].g0 ) a[k-1].g0 = a[i].g0;
      if( a[i].g1>a[k-1].g1 ) a[k-1].g1 = a[i].g1;
    }else{
      a[k++] = a[i];
    }
  }
  *pn = k;
  if( k==0 ){
    free(a);
    return NULL;
  }
  return a;
}

/* One row as the writer or the stored-rows feeder gives it: its
** interval, its HTA row, its operator call (op_store.c). */
void trace_spans_row(TraceSpans *p, const TraceRow *r){
  if( p==NULL ) return;
  switch( r->kind ){
    case TEV_KERNEL:
    case TEV_MEMCPY:
    case TEV_MEMSET: {
      SpanHtaGpu g;
      OpGpuRow o;
      int cls = r->kind==TEV_KERNEL ? 0 : r->kind==TEV_MEMCPY ? 1 : 2;
      trace_spans_gpu(p, r->fileId, cls==0 ? SPAN_KERNEL : cls==1
                      ? SPAN_MEMCPY : SPAN_MEMSET, r->ts, r->dur,
                      r->hasDevice ? r->device : -1, r->nameId);
      if( r->launchStep>=0 ){
        step_gpu_add(p, r->fileId, r->launchStep, r->ts, r->ts + r->dur);
      }
      g.device = r->hasDevice ? r->device : 0;
      g.stream = r->stream;
      g.ts = r->ts;
      g.end = r->ts + r->dur;
      g.id = r->id;
      g.name = r->nameId;
      g.runtimeId = r->runtimeId;
      g.hasRuntime = r->runtimeId>0;
      g.cls = cls;
      trace_spans_hta_gpu(p, r->fileId, &g);
      o.opId = r->opId;
      o.ts = r->ts;
      o.dur = r->dur;
      o.device = r->device;
      o.hasDev = r->hasDevice;
      o.zName = r->zName;
      o.nName = r->nName;
      o.nameId = r->nameId;
      o.isKernel = cls==0;
      o.isMemcpy = cls==1;
      o.host = r->host;
      o.hasRuntime = r->runtimeId>0;
      op_store_gpu(p->pOps, r->fileId, &o);
      break;
    }
    case TEV_CPU_OP:
      op_store_cpu(p->pOps, r->fileId, r->id, r->nameId, r->dimsId,
                   r->typesId, r->concId);
      if( !r->linked || r->depth==0 ){       /* top-level ops */
        SpanHtaCpu c;
        trace_spans_cpu(p, r->fileId, SPAN_CPU, r->ts, r->dur);
        c.tid = r->tid;
        c.ts = r->ts;
        c.end = r->ts + r->dur;
        c.id = r->id;
        c.name = r->nameId;
        c.isCall = 0;
        c.outside = 0;
        trace_spans_hta_cpu(p, r->fileId, &c);
      }
      /* depth 0 and 1: the ops of a ProfilerStep#N range are the step's
      ** work; an op deeper down lies inside one of those, or inside a
      ** host collective that a step holds (the collective's time) */
      if( (!r->linked || r->depth<=1) && host_work(p, r) ){
        trace_spans_cpu(p, r->fileId, SPAN_HOST, r->ts, r->dur);
      }
      break;
    case TEV_RUNTIME:
    case TEV_DRIVER: {
      SpanHtaCpu c;
      trace_spans_cpu(p, r->fileId, SPAN_RUNTIME, r->ts, r->dur);
      c.tid = r->tid;
      c.ts = r->ts;
      c.end = r->ts + r->dur;
      c.id = r->id;
      c.name = r->nameId;
      c.isCall = 1;
      c.outside = r->opId==0;
      trace_spans_hta_cpu(p, r->fileId, &c);
      break;
    }
    case TEV_MEMORY: {
      SpanMem m;
      m.ts = r->ts;
      m.total = r->total;
      m.id = r->id;
      rec_add(p, r->fileId, R_MEM, &m);
      break;
    }
    default:
      break;
  }
}

/* ------------------------------------------------------- HTA rows */

void trace_spans_hta_cpu(TraceSpans *p, int64_t fileId, const SpanHtaCpu *r){
  if( p==NULL ) return;
  rec_add(p, fileId, R_HTA_CPU, r);
}

void trace_spans_hta_gpu(TraceSpans *p, int64_t fileId, const SpanHtaGpu *r){
  if( p==NULL ) return;
  rec_add(p, fileId, R_HTA_GPU, r);
}

int trace_spans_hta_file(const TraceSpans *p, int i, int64_t *pRank,
                         SpanHtaCpu **paCpu, size_t *pnCpu,
                         SpanHtaGpu **paGpu, size_t *pnGpu){
  const SpanFile *f;
  SpanHtaCpu *aC = NULL;
  SpanHtaGpu *aG = NULL;
  if( p==NULL || i<0 || i>=p->nFile ) return 0;
  f = &p->aFile[i];
  if( !f->hasRank ) return -1;
  /* only the arrays asked for: a copy of the other side would add its
  ** size to the peak of every reader (spans_gpu's CPU copy was 17 MB of
  ** the 158 MB peak at x10 of the control trace) */
  if( paCpu ){
    aC = xmalloc((f->an[R_HTA_CPU]+1)*sizeof(SpanHtaCpu));
    if( rec_copy(p, f, R_HTA_CPU, aC) ){
      free(aC);
      return -1;
    }
    for(size_t j=0; j<f->an[R_HTA_CPU]; j++){
      aC[j].ts += f->dTs;
      aC[j].end += f->dTs;
    }
    *paCpu = aC;
  }
  if( paGpu ){
    aG = xmalloc((f->an[R_HTA_GPU]+1)*sizeof(SpanHtaGpu));
    if( rec_copy(p, f, R_HTA_GPU, aG) ){
      free(aG);
      if( paCpu ) free(aC);
      return -1;
    }
    for(size_t j=0; j<f->an[R_HTA_GPU]; j++){
      aG[j].ts += f->dTs;
      aG[j].end += f->dTs;
    }
    *paGpu = aG;
  }
  *pRank = f->rank;
  *pnCpu = f->an[R_HTA_CPU];
  *pnGpu = f->an[R_HTA_GPU];
  return 1;
}
