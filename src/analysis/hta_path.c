/*
** hta_path.c — critical path of a step, walked backwards from its end.
**
** Pipeline position: "derive" (derive_hta.c loads rows, calls this,
** stores the result).  Pure computation over arrays: no SQL.
**
** The CPU side of a rank is flattened per thread into disjoint pieces,
** each owned by the innermost event (cpu_op or runtime call) running in
** it.  The walk holds a position (CPU thread or GPU op, time t) and moves
** t back to the start of what the position waited on, emitting one
** segment per move, until t reaches the step start:
**   CPU piece of a cpu_op / plain runtime call / launch call: its own
**     time (cpu_op, runtime, launch), then the same thread before it;
**   CPU piece of a sync call: the GPU op launched before the call that
**     ended last while the call blocked; the wait after that end is sync,
**     and the walk continues on that GPU op; no such op: sync on the CPU;
**     a launch call whose own GPU op ended before it returned (a copy
**     from pageable memory) is treated the same way;
**   CPU piece of a launch call that found its stream's queue full
**     (HpGpu.blocked): the call waited for the GPU to make room, so the
**     walk continues on the op of that stream that ended last before
**     the call returned (launch = the call after that end);
**   CPU gap: another thread that launches GPU work and runs at t (the
**     waiting thread waits for it), else idle back to the latest end of
**     any thread;
**   GPU op: its own time (kernel, memcpy, memset), then at its start the
**     latest of what it needed: the previous op of its stream (gpu_wait
**     from that op's end), its launch call (launch from the call's start,
**     then the launching thread), or, when it started more than waitNs
**     after both, an op of another stream of the device that ended in
**     between (an event wait we cannot see: gpu_wait).
** Every move takes t back, so the segments tile [t0, t1]; a position
** that stops making progress ends the walk with idle (never loops).
*/
#include "analysis/hta_path.h"
#include "core/msort.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

static const char *const azClass[HP_NCLASS] = {
  "cpu_op", "runtime", "launch", "sync", "kernel", "memcpy", "memset",
  "idle", "gpu_wait"
};

const char *hta_path_class_name(int cls){
  return cls>=0 && cls<HP_NCLASS ? azClass[cls] : "?";
}

/* A flattened CPU piece [ts, end) owned by aCpu[ev]. */
typedef struct HpPiece { int64_t ts, end; int ev; } HpPiece;

/* One thread's pieces: aPc[lo..hi). */
typedef struct HpThread { int64_t tid; int lo, hi; int launches; } HpThread;

struct HpRank {
  const HpCpu *aCpu;
  HpPiece *aPc; int nPc;
  HpThread *aThr; int nThr;
  const HpGpu *aGpu; int nGpu;   /* sorted by device, stream, ts */
  int *aByEnd;                   /* aGpu indexes sorted by end */
  int64_t *aBlockRt; int *aBlockG; int nBlock;  /* blocked launches by
                                                ** call id, sorted */
  int64_t mainTid, waitNs;
};

static int cmp_cpu(const void *a, const void *b){
  const HpCpu *x = a, *y = b;
  if( x->rank!=y->rank ) return x->rank<y->rank ? -1 : 1;
  if( x->tid!=y->tid ) return x->tid<y->tid ? -1 : 1;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  if( x->end!=y->end ) return x->end>y->end ? -1 : 1;   /* parent first */
  if( (x->role==HP_CPU_OP)!=(y->role==HP_CPU_OP) ){
    return x->role==HP_CPU_OP ? -1 : 1;                 /* op encloses call */
  }
  return x->id<y->id ? -1 : x->id>y->id;
}

static int cmp_gpu(const void *a, const void *b){
  const HpGpu *x = a, *y = b;
  if( x->rank!=y->rank ) return x->rank<y->rank ? -1 : 1;
  if( x->device!=y->device ) return x->device<y->device ? -1 : 1;
  if( x->stream!=y->stream ) return x->stream<y->stream ? -1 : 1;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->id<y->id ? -1 : x->id>y->id;
}

static const HpGpu *g_sortGpu;   /* qsort has no context argument */
static int cmp_end(const void *a, const void *b){
  const HpGpu *x = &g_sortGpu[*(const int*)a], *y = &g_sortGpu[*(const int*)b];
  if( x->end!=y->end ) return x->end<y->end ? -1 : 1;
  return *(const int*)a - *(const int*)b;
}

static void add_piece(HpRank *r, int64_t ts, int64_t end, int ev){
  if( end<=ts ) return;
  r->aPc[r->nPc].ts = ts;
  r->aPc[r->nPc].end = end;
  r->aPc[r->nPc].ev = ev;
  r->nPc++;
}

/* Flatten the events of one thread, aCpu[lo..hi), into pieces owned by
** the innermost event; a child sticking out of its parent is cut at the
** parent's end. */
static void flatten_thread(HpRank *r, int lo, int hi, int *aStack,
                           int64_t *aEnd){
  int sp = 0;
  int64_t cur = INT64_MIN;
  for(int i=lo; i<hi; i++){
    const HpCpu *e = &r->aCpu[i];
    int64_t end = e->end;
    while( sp>0 && aEnd[sp-1]<=e->ts ){
      if( cur<aEnd[sp-1] ) add_piece(r, cur, aEnd[sp-1], aStack[sp-1]);
      if( cur<aEnd[sp-1] ) cur = aEnd[sp-1];
      sp--;
    }
    if( sp>0 && cur<e->ts ) add_piece(r, cur, e->ts, aStack[sp-1]);
    if( cur<e->ts ) cur = e->ts;
    if( sp>0 && end>aEnd[sp-1] ) end = aEnd[sp-1];
    aStack[sp] = i;
    aEnd[sp] = end;
    sp++;
  }
  while( sp>0 ){
    if( cur<aEnd[sp-1] ){
      add_piece(r, cur, aEnd[sp-1], aStack[sp-1]);
      cur = aEnd[sp-1];
    }
    sp--;
  }
}

static void build_threads(HpRank *r, int nCpu){
  int *aStack = xmalloc(sizeof(int)*((size_t)nCpu+1));
  int64_t *aEnd = xmalloc(sizeof(int64_t)*((size_t)nCpu+1));
  r->aPc = xmalloc(sizeof(HpPiece)*(2*(size_t)nCpu+1));
  r->aThr = xmalloc(sizeof(HpThread)*((size_t)nCpu+1));
  for(int lo=0; lo<nCpu; ){
    int hi = lo;
    HpThread *t = &r->aThr[r->nThr++];
    t->tid = r->aCpu[lo].tid;
    t->launches = 0;
    while( hi<nCpu && r->aCpu[hi].tid==t->tid ){
      if( r->aCpu[hi].role==HP_LAUNCH ) t->launches = 1;
      hi++;
    }
    t->lo = r->nPc;
    flatten_thread(r, lo, hi, aStack, aEnd);
    t->hi = r->nPc;
    lo = hi;
  }
  free(aStack);
  free(aEnd);
}

/* Typed sorts (msort.h): the compares inline, whole structs moved. */
DEFINE_MSORT(sort_cpu, HpCpu, cmp_cpu)
DEFINE_MSORT(sort_gpu, HpGpu, cmp_gpu)
DEFINE_MSORT(sort_end, int, cmp_end)

typedef struct HpBlock { int64_t rt; int g; } HpBlock;
static int cmp_block(const void *a, const void *b){
  const HpBlock *x = a, *y = b;
  if( x->rt!=y->rt ) return x->rt<y->rt ? -1 : 1;
  return x->g - y->g;
}
DEFINE_MSORT(sort_block, HpBlock, cmp_block)

/* The launches that found their queue full, by call id (few: a sorted
** array and a binary search). */
static void index_blocked(HpRank *r){
  HpBlock *a;
  int n = 0;
  for(int i=0; i<r->nGpu; i++) n += r->aGpu[i].blocked!=0;
  r->aBlockRt = xmalloc(sizeof(int64_t)*((size_t)n+1));
  r->aBlockG = xmalloc(sizeof(int)*((size_t)n+1));
  if( n==0 ) return;
  a = xmalloc(sizeof(HpBlock)*(size_t)n);
  for(int i=0; i<r->nGpu; i++){
    if( r->aGpu[i].blocked ){
      a[r->nBlock].rt = r->aGpu[i].rt;
      a[r->nBlock++].g = i;
    }
  }
  sort_block(a, (size_t)n);
  for(int i=0; i<n; i++){ r->aBlockRt[i] = a[i].rt; r->aBlockG[i] = a[i].g; }
  free(a);
}

void hta_path_sort(HpCpu *aCpu, int nCpu, HpGpu *aGpu, int nGpu){
  if( nCpu>0 ) sort_cpu(aCpu, (size_t)nCpu);
  if( nGpu>0 ) sort_gpu(aGpu, (size_t)nGpu);
}

HpRank *hta_path_rank_init(const HpCpu *aCpu, int nCpu, const HpGpu *aGpu,
                           int nGpu, int64_t mainTid, int64_t waitNs){
  HpRank *r = xcalloc(1, sizeof(HpRank));
  r->aCpu = aCpu;
  r->aGpu = aGpu;
  r->nGpu = nGpu;
  r->mainTid = mainTid;
  r->waitNs = waitNs;
  build_threads(r, nCpu);
  r->aByEnd = xmalloc(sizeof(int)*((size_t)nGpu+1));
  for(int i=0; i<nGpu; i++) r->aByEnd[i] = i;
  g_sortGpu = aGpu;
  if( nGpu>0 ) sort_end(r->aByEnd, (size_t)nGpu);
  index_blocked(r);
  return r;
}

void hta_path_rank_set_main(HpRank *r, int64_t mainTid){
  r->mainTid = mainTid;
}

void hta_path_rank_free(HpRank *r){
  if( r==NULL ) return;
  free(r->aPc);
  free(r->aThr);
  free(r->aByEnd);
  free(r->aBlockRt);
  free(r->aBlockG);
  free(r);
}

/* ---- lookups ---------------------------------------------------------- */

static const HpThread *find_thread(const HpRank *r, int64_t tid){
  for(int i=0; i<r->nThr; i++) if( r->aThr[i].tid==tid ) return &r->aThr[i];
  return NULL;
}

/* Index of the last piece of thread t starting before time x, or -1. */
static int last_before(const HpRank *r, const HpThread *t, int64_t x){
  int lo = t->lo, hi = t->hi;          /* answer in [lo-1, hi) */
  while( lo<hi ){
    int mid = lo + (hi-lo)/2;
    if( r->aPc[mid].ts<x ) lo = mid+1; else hi = mid;
  }
  return lo-1>=t->lo ? lo-1 : -1;
}

/* Index in aByEnd of the last GPU op ending at or before x, or -1. */
static int last_end_by(const HpRank *r, int64_t x){
  int lo = 0, hi = r->nGpu;
  while( lo<hi ){
    int mid = lo + (hi-lo)/2;
    if( r->aGpu[r->aByEnd[mid]].end<=x ) lo = mid+1; else hi = mid;
  }
  return lo-1;
}

/* ---- the walk --------------------------------------------------------- */

#define HP_SCAN 256   /* candidates looked at per sync / cross-stream search */

typedef struct Walk {
  const HpRank *r;
  int64_t t0, t;
  int onGpu;
  const HpThread *thr;       /* CPU position */
  int g;                     /* GPU position: aGpu index */
  HpSeg *a; int n, nAlloc;
} Walk;

static void emit(Walk *w, int cls, int64_t a, int64_t b, int src,
                 int64_t srcId, int64_t name, int64_t lane){
  if( a<w->t0 ) a = w->t0;
  if( b<=a ) return;
  if( w->n==w->nAlloc ){
    w->nAlloc = w->nAlloc ? 2*w->nAlloc : 64;
    w->a = xrealloc(w->a, sizeof(HpSeg)*(size_t)w->nAlloc);
  }
  w->a[w->n].ts = a;
  w->a[w->n].dur = b-a;
  w->a[w->n].cls = cls;
  w->a[w->n].src = src;
  w->a[w->n].srcId = srcId;
  w->a[w->n].name = name;
  w->a[w->n].lane = lane;
  w->n++;
}

static void emit_gpu(Walk *w, int cls, int64_t a, int64_t b, int g){
  const HpGpu *p = &w->r->aGpu[g];
  emit(w, cls, a, b, p->cls==HP_KERNEL ? HP_SRC_KERNEL : HP_SRC_MEM, p->id,
       p->name, p->stream);
}

/* The GPU op a call e that returned at t waited for: ended last in
** (e->ts, t] and, for a sync call, launched by then; for a launch call
** (a copy from pageable memory blocks until done), launched by e itself.
** -1 when none. */
static int sync_target(const HpRank *r, const HpCpu *e, int64_t t){
  for(int k=last_end_by(r, t), n=0; k>=0 && n<HP_SCAN; k--, n++){
    const HpGpu *p = &r->aGpu[r->aByEnd[k]];
    if( p->end<=e->ts ) break;
    if( e->role==HP_LAUNCH ){
      if( p->hasLaunch && p->lts==e->ts && p->ltid==e->tid ){
        return r->aByEnd[k];
      }
    }else if( !p->hasLaunch || p->lts<=e->ts ){
      return r->aByEnd[k];
    }
  }
  return -1;
}

/* The GPU op a launch call e, which found its stream's queue full,
** waited for: the op of that stream that ended last in (e->ts, t].
** -1 when e did not block or no such op is found. */
static int queue_target(const HpRank *r, const HpCpu *e, int64_t t){
  int lo = 0, hi = r->nBlock;
  const HpGpu *b;
  while( lo<hi ){
    int mid = lo + (hi-lo)/2;
    if( r->aBlockRt[mid]<e->id ) lo = mid+1; else hi = mid;
  }
  if( lo>=r->nBlock || r->aBlockRt[lo]!=e->id ) return -1;
  b = &r->aGpu[r->aBlockG[lo]];
  for(int k=last_end_by(r, t), n=0; k>=0 && n<HP_SCAN; k--, n++){
    const HpGpu *p = &r->aGpu[r->aByEnd[k]];
    if( p->end<=e->ts ) break;
    if( p->device==b->device && p->stream==b->stream ) return r->aByEnd[k];
  }
  return -1;
}

/* The CPU position is in no piece: follow a launching thread running at
** t, else go idle back to the latest end on any thread. */
static void cpu_gap(Walk *w){
  const HpRank *r = w->r;
  const HpThread *best = NULL;
  int64_t bestEnd = INT64_MIN;
  for(int i=0; i<r->nThr; i++){
    const HpThread *t = &r->aThr[i];
    int k = last_before(r, t, w->t);
    if( k<0 ) continue;
    if( r->aPc[k].end>=w->t ){
      if( t!=w->thr && t->launches ){ w->thr = t; return; }
      continue;
    }
    if( r->aPc[k].end>bestEnd ){ bestEnd = r->aPc[k].end; best = t; }
  }
  if( best==NULL || bestEnd<=w->t0 ){
    emit(w, HP_IDLE, w->t0, w->t, 0, 0, 0, w->thr ? w->thr->tid : 0);
    w->t = w->t0;
    return;
  }
  emit(w, HP_IDLE, bestEnd, w->t, 0, 0, 0, w->thr ? w->thr->tid : 0);
  w->t = bestEnd;
  w->thr = best;
}

static void step_cpu(Walk *w){
  const HpRank *r = w->r;
  int k = w->thr ? last_before(r, w->thr, w->t) : -1;
  const HpPiece *pc;
  const HpCpu *e;
  if( k<0 || r->aPc[k].end<w->t ){ cpu_gap(w); return; }
  pc = &r->aPc[k];
  e = &r->aCpu[pc->ev];
  if( e->role==HP_LAUNCH ){
    int g = queue_target(r, e, w->t);
    if( g>=0 ){
      emit(w, HP_LAUNCH, r->aGpu[g].end, w->t, HP_SRC_RUNTIME, e->id,
           e->name, e->tid);
      w->t = r->aGpu[g].end;
      w->onGpu = 1;
      w->g = g;
      return;
    }
  }
  if( e->role==HP_SYNC || e->role==HP_LAUNCH ){
    int g = sync_target(r, e, w->t);
    if( g>=0 ){
      emit(w, HP_SYNC, r->aGpu[g].end, w->t, HP_SRC_RUNTIME, e->id, e->name,
           e->tid);
      w->t = r->aGpu[g].end;
      w->onGpu = 1;
      w->g = g;
      return;
    }
  }
  emit(w, e->role, pc->ts, w->t,
       e->role==HP_CPU_OP ? HP_SRC_OP : HP_SRC_RUNTIME, e->id, e->name, e->tid);
  w->t = pc->ts;
}

/* An op of another stream of the device that ended in [from, to], the
** latest; -1 when none. */
static int cross_stream(const HpRank *r, const HpGpu *g, int64_t from,
                        int64_t to){
  for(int k=last_end_by(r, to), n=0; k>=0 && n<HP_SCAN; k--, n++){
    const HpGpu *p = &r->aGpu[r->aByEnd[k]];
    if( p->end<from ) break;
    if( p->device==g->device && p->stream!=g->stream ) return r->aByEnd[k];
  }
  return -1;
}

static void step_gpu(Walk *w){
  const HpRank *r = w->r;
  const HpGpu *g = &r->aGpu[w->g];
  int prev = w->g-1;
  int64_t ready = INT64_MIN, at;
  int q;
  emit_gpu(w, g->cls, g->ts, w->t, w->g);
  if( g->ts<w->t ) w->t = g->ts;
  at = w->t;                        /* wait segments end here */
  if( at<=w->t0 ) return;
  if( prev>=0 && (r->aGpu[prev].device!=g->device
                  || r->aGpu[prev].stream!=g->stream) ) prev = -1;
  if( prev>=0 ) ready = r->aGpu[prev].end;
  if( g->hasLaunch && g->lts>ready ) ready = g->lts;
  if( ready==INT64_MIN ){
    emit(w, HP_GPU_WAIT, w->t0, at, 0, 0, 0, g->stream);
    w->t = w->t0;
    return;
  }
  if( g->ts-ready>r->waitNs && (q = cross_stream(r, g, ready, at))>=0 ){
    emit(w, HP_GPU_WAIT, r->aGpu[q].end, at, 0, 0, 0, g->stream);
    w->t = r->aGpu[q].end;
    w->g = q;
    return;
  }
  if( prev>=0 && (!g->hasLaunch || g->lts<r->aGpu[prev].end) ){
    const HpGpu *p = &r->aGpu[prev];
    emit(w, HP_GPU_WAIT, p->end, at, 0, 0, 0, g->stream);
    if( p->end<w->t ) w->t = p->end;
    w->g = prev;
    return;
  }
  emit(w, HP_LAUNCH, g->lts, at, g->cls==HP_KERNEL ? HP_SRC_KERNEL : HP_SRC_MEM,
       g->id, g->name, g->ltid);
  if( g->lts<w->t ) w->t = g->lts;
  w->onGpu = 0;
  w->thr = find_thread(r, g->ltid);
}

/* Start: the main thread at t1, or the last GPU op ending by t1. */
static void walk_start(Walk *w, int startGpu, int64_t t1){
  const HpRank *r = w->r;
  w->thr = find_thread(r, r->mainTid);
  if( w->thr==NULL && r->nThr>0 ) w->thr = &r->aThr[0];
  if( startGpu || w->thr==NULL ){
    int k = last_end_by(r, t1);
    if( k<0 ){
      emit(w, HP_IDLE, w->t0, t1, 0, 0, 0, 0);
      w->t = w->t0;
      return;
    }
    w->g = r->aByEnd[k];
    emit(w, HP_GPU_WAIT, r->aGpu[w->g].end, t1, 0, 0, 0,
         r->aGpu[w->g].stream);
    w->t = r->aGpu[w->g].end;
    w->onGpu = 1;
  }
}

HpSeg *hta_path_walk(const HpRank *r, int64_t t0, int64_t t1, int startGpu,
                     int *pn){
  Walk w;
  int stuck = 0;
  memset(&w, 0, sizeof(w));
  w.r = r;
  w.t0 = t0;
  w.t = t1;
  walk_start(&w, startGpu, t1);
  while( w.t>t0 ){
    int64_t before = w.t;
    if( w.onGpu ) step_gpu(&w); else step_cpu(&w);
    if( w.t<before ){ stuck = 0; continue; }
    if( ++stuck>16 ){               /* no progress: close with idle */
      emit(&w, HP_IDLE, t0, w.t, 0, 0, 0, 0);
      break;
    }
  }
  /* moved back in time: reverse into time order */
  for(int i=0, j=w.n-1; i<j; i++, j--){
    HpSeg s = w.a[i]; w.a[i] = w.a[j]; w.a[j] = s;
  }
  *pn = w.n;
  return w.a;
}
