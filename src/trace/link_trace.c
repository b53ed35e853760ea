/*
** link_trace.c — in-stream linkage of one trace file (see link_trace.h).
**
** Pipeline position: normalize, in the parser worker thread of each file.
**
** CPU ops: a stack per thread; an op's parent is the innermost open op
** that has not ended when it starts.  An op is emitted when it closes, so
** its self time (dur minus direct children) is known.  Each op's interval
** is also appended to a spool of its thread.  (A spool, spool.h, is
** memory while the linker's spools hold at most SPOOL_BUDGET bytes, a
** temporary file beyond it; events in spools are compact records,
** trace_record.h.)
**
** Traces of the 2021 profiler write each thread's ops in END order (an op
** after the ops it encloses).  A thread's first ops are deferred until
** they show which order the thread uses (a start going back: end order; an
** end going back: start order).  Ops of end-order threads stay deferred in
** a spool (32 bytes each in an index) until the first runtime call
** or the end of the file, then go through the stack in start order; an op
** that arrives after that and encloses one already placed sends the run to
** the database sweep, as before.
**
** A runtime call that comes before every op of the file may be enclosed by
** ops that come later (a 2021 trace that writes its ops after the calls).
** From such a call to the end of the file every runtime call and GPU
** record goes to a second spool instead (call-defer mode); at the
** end of the file, once every op is placed, they are replayed in file
** order through the same paths, so that the cursor sees every op.  Ops
** are still placed (and numbered) when a call comes, as without it.
**
** Runtime calls: per thread, a cursor re-reads that thread's op intervals
** in start order alongside the (time-ordered) runtime calls, keeping the
** stack of ops open at the call: the innermost is the launching op, the
** outermost the top-level op.  A call earlier than the previous one on the
** same thread rewinds the cursor (rare; counted).
**
** Steps: ops, runtime calls and GPU records get the ProfilerStep holding
** their start (a GPU record: its launch's).  Kineto writes each thread's
** events in turn, so another thread's ops can come before the main
** thread's ProfilerStep annotation (dlrm).  A row that would go out
** without a step waits in a step-hold spool instead; a step annotation
** that may hold some of them sends out, in order, the held rows that have
** a step now, and the others (with the GPU records of their calls) wait
** on in order for a later step (tracelens-mi300 writes the annotations
** of three steps before the other threads' ops of all three); the end of
** the file sends out what is left.  The hold is bounded (HOLD_MAX bytes;
** HOLD_MAX_NOSTEP before the file's first step, room for the 8 MB of ops
** hta-mtia writes before its step: a trace without steps stops holding
** there).  Only a row that did go out without a step and lies in a
** step that comes later, or steps that overlap, send the file to be
** linked again from its rows (LinkStats.needSteps, trace_relink.c).
**
** GPU records: Kineto writes a kernel a few records before or after its
** runtime call; an export writes every call first and the GPU records
** after all of them.  Every call with a correlation id goes into the
** call map: the calls of the last two generations (65,536 calls each) in
** hash tables, the older ones appended to a spill spool.  A record whose
** call is in the tables goes out linked at once; otherwise it waits in a
** bounded window keyed by correlation id for its call to come.  A record
** that leaves the window (or is still there at the end of the file) goes
** to the late spool; at the end of the file each late record takes its
** call from the tables or the spill (one read of the spill per 2^20 late
** records) and goes out, linked to its call whatever the order of the
** file, or unlinked when the file has no call of its correlation.  The
** last call of a correlation wins (ids repeat only across processes).
*/
#include "trace/link_trace.h"
#include "core/group_map.h"
#include "core/msort.h"
#include "core/spool.h"
#include "trace/trace_record.h"
#include "trace/trace_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PEND_MAX 4096            /* GPU records waiting for their launch */
#define PEND_HASH (1<<17)
#define CALLS_SLOTS (1<<17)      /* slots of each generation of the call map */
#define LATE_CHUNK (1<<20)       /* late records resolved together */
#define UNDECIDED_MAX 256        /* ops deferred until an order shows */
#define DEFER_MAX (1<<21)        /* deferred ops of a file (64 MiB of index) */
#define SPOOL_BUDGET (32<<20)    /* bytes of temporary records in memory */
#define HOLD_MAX (64<<20)        /* step-hold bytes once the file has a step */
#define HOLD_MAX_NOSTEP (16<<20) /* ... before its first step */
#define REHOLD_MAX (4*(int64_t)HOLD_MAX) /* bytes held again, all releases */

/* Order of a thread's CPU ops in the file. */
enum { OM_UNDECIDED = 0, OM_START, OM_END };

/* A deferred op: where its record lies in the defer spool. */
typedef struct DeferRec {
  int64_t ts, seq, off;
  int64_t len;
} DeferRec;

/* An open CPU op, with owned copies of its strings. */
typedef struct Frame {
  TraceEvent ev;
  Buf name, cat, dims, types, conc;
  CollArgs coll;              /* valid when hasColl */
  int hasColl;
  int64_t end, childDur;
  int recompute;
} Frame;

/* One op interval in a thread's spool. */
typedef struct SpillRec {
  int64_t ts, end, id;
  int64_t recompute;
} SpillRec;

/* An op open at the runtime cursor's position. */
typedef struct CurFrame { int64_t end, id; int recompute; } CurFrame;

typedef struct Thread {
  int64_t tid;
  Frame *aFrame;              /* open ops, innermost last */
  int nFrame, nFrameAlloc;
  Frame *aHold;               /* ops sharing one start time, not yet placed */
  int nHold, nHoldAlloc;
  int64_t lastOpTs;
  Spool spill;                /* op intervals (SpillRec) in start order */
  int64_t nSpill;             /* records written */
  int runtimeSeen;
  /* runtime cursor */
  int64_t iRead;              /* index of the next record to read */
  CurFrame *aCur;
  int nCur, nCurAlloc;
  int64_t lastRtTs;
  /* ops deferred until the thread's order is known (see the top) */
  int mode;                   /* OM_* */
  DeferRec *aDef;
  int nDef, nDefAlloc;
  int nUndecided;             /* ops seen while OM_UNDECIDED */
  int64_t lastDefTs, lastDefEnd;
} Thread;

typedef struct Step { int64_t step, ts, end; } Step;

/* A GPU record waiting for its runtime call. */
typedef struct Pend {
  TraceEvent ev;
  Buf name, cat;              /* owned copies, memory reused per slot */
  CollArgs coll;              /* valid when hasColl */
  int hasColl;
  int next;                   /* hash chain: next slot + 1, 0 ends */
  int live;
} Pend;

/* A runtime call as its GPU records need it.  In a table, runtimeId 0
** marks an empty slot (row ids are never 0). */
typedef struct CallLink {
  int64_t corr, runtimeId, opId, step;
} CallLink;

/* Every runtime call of the file by correlation id, exactly: the calls
** of the last two generations (CALLS_SLOTS/2 calls each) in two
** open-addressing tables, and every call of the older ones in a spool
** (records in generation order), so that a GPU record finds its call
** however far from it the file wrote it (see the head of the file). */
typedef struct CallMap {
  CallLink *aYoung, *aOld;
  int64_t nYoung;             /* calls in aYoung */
  Spool spill;                /* CallLink records of older generations */
  int64_t nSpilled;
} CallMap;

struct Linker {
  int64_t idBase;             /* ids are idBase + n (trace_ids.h) */
  LinkEmitFn xEmit;
  void *ctx;
  LinkStats st;
  Thread *aTh;
  int nTh, nThAlloc, iLastTh;
  int64_t opSeq, rtSeq;
  Step *aStep;
  int nStep, nStepAlloc;
  int64_t minNullTs, maxNullTs;  /* ops and calls that went out stepless */
  SpoolBudget budget;         /* memory of the spools below and aTh's */
  Spool hold;                 /* step hold: rows waiting for a step */
  Spool rehold;               /* rows still stepless when a step came */
  int64_t nHeld, holdBytes, holdMax;
  int64_t minHeldTs, maxHeldTs;  /* ops and calls in the hold */
  int holdOff;                /* this file holds no more */
  int releasePending;         /* a step came: send the held rows out */
  int keepStepless;           /* this release holds rows still stepless */
  int64_t reholdBytes;        /* bytes held again by releases so far */
  Pend *aPend;                /* ring of PEND_MAX */
  int pendHead, nPend;
  int nPendUsed;              /* slots [0, nPendUsed) ever filled */
  int *aBucket;               /* PEND_HASH chain heads: slot + 1, 0 empty */
  CallMap calls;              /* every runtime call by correlation */
  SpoolBudget callBudget;     /* memory of calls.spill and late */
  Spool late;                 /* GPU records that left the window without
                              ** their call: linked at the end of the file */
  int64_t nLate;
  Spool defer;                /* records of deferred ops */
  int64_t nDeferred, deferSeq;
  Spool callDefer;            /* runtime calls and GPU records, in order */
  int64_t nCallDeferred;
  int64_t nOpsSeen;           /* CPU ops fed so far */
  int callDeferMode, replaying;
  PfError *pErr;
};

Linker *link_trace_new(int64_t idBase, LinkEmitFn xEmit, void *ctx){
  Linker *p = xcalloc(1, sizeof(*p));
  p->idBase = idBase;
  p->xEmit = xEmit;
  p->ctx = ctx;
  p->iLastTh = -1;
  p->minNullTs = INT64_MAX;
  p->maxNullTs = INT64_MIN;
  p->holdMax = HOLD_MAX_NOSTEP;
  spool_budget_init(&p->budget, SPOOL_BUDGET);
  spool_init(&p->hold, &p->budget);
  spool_init(&p->rehold, &p->budget);
  p->minHeldTs = INT64_MAX;
  p->maxHeldTs = INT64_MIN;
  spool_init(&p->defer, &p->budget);
  spool_init(&p->callDefer, &p->budget);
  spool_budget_init(&p->callBudget, SPOOL_BUDGET);
  spool_init(&p->calls.spill, &p->callBudget);
  spool_init(&p->late, &p->callBudget);
  return p;
}

static void frames_free(Frame *a, int n){
  for(int i=0; i<n; i++){
    Frame *f = &a[i];
    buf_free(&f->name); buf_free(&f->cat); buf_free(&f->dims);
    buf_free(&f->types); buf_free(&f->conc);
  }
  free(a);
}

static void thread_free(Thread *t){
  frames_free(t->aFrame, t->nFrameAlloc);
  frames_free(t->aHold, t->nHoldAlloc);
  free(t->aCur);
  free(t->aDef);
  spool_free(&t->spill);
}

void link_trace_free(Linker *p){
  if( p==NULL ) return;
  for(int i=0; i<p->nTh; i++) thread_free(&p->aTh[i]);
  free(p->aTh);
  free(p->aStep);
  if( p->aPend ){
    /* the rest were never touched: reading them would fault pages in */
    for(int i=0; i<p->nPendUsed; i++){
      buf_free(&p->aPend[i].name);
      buf_free(&p->aPend[i].cat);
    }
  }
  util_array_free(p->aPend, PEND_MAX*sizeof(Pend));
  util_array_free(p->aBucket, PEND_HASH*sizeof(int));
  util_array_free(p->calls.aYoung, CALLS_SLOTS*sizeof(CallLink));
  util_array_free(p->calls.aOld, CALLS_SLOTS*sizeof(CallLink));
  spool_free(&p->calls.spill);
  spool_free(&p->late);
  spool_free(&p->defer);
  spool_free(&p->callDefer);
  spool_free(&p->hold);
  spool_free(&p->rehold);
  free(p);
}

const LinkStats *link_trace_stats(const Linker *p){ return &p->st; }

static Thread *thread_get(Linker *p, int64_t tid){
  Thread *t;
  if( p->iLastTh>=0 && p->aTh[p->iLastTh].tid==tid ) return &p->aTh[p->iLastTh];
  for(int i=0; i<p->nTh; i++){
    if( p->aTh[i].tid==tid ){ p->iLastTh = i; return &p->aTh[i]; }
  }
  if( p->nTh==p->nThAlloc ){
    p->nThAlloc = p->nThAlloc ? p->nThAlloc*2 : 8;
    p->aTh = xrealloc(p->aTh, (size_t)p->nThAlloc*sizeof(Thread));
  }
  t = &p->aTh[p->nTh];
  memset(t, 0, sizeof(*t));
  t->tid = tid;
  spool_init(&t->spill, &p->budget);
  t->lastOpTs = INT64_MIN;
  t->lastRtTs = INT64_MIN;
  p->iLastTh = p->nTh++;
  return t;
}

static int emit(Linker *p, const TraceEvent *e);

/* ---------------------------------------------------------------- steps */

/* Step number containing t, or -1. */
static int64_t step_of(const Linker *p, int64_t t){
  int lo = 0, hi = p->nStep;
  while( lo<hi ){
    int mid = (lo+hi)/2;
    if( p->aStep[mid].ts<=t ) lo = mid+1; else hi = mid;
  }
  lo--;
  if( lo>=0 && t<p->aStep[lo].end ) return p->aStep[lo].step;
  return -1;
}

static void step_add(Linker *p, int64_t step, int64_t ts, int64_t dur){
  int64_t end = ts + dur;
  int i;
  for(i=p->nStep; i>0 && p->aStep[i-1].ts>ts; i--){}
  /* the same step twice (two ProfilerStep records of one range) */
  if( i>0 && p->aStep[i-1].ts==ts && p->aStep[i-1].end==end
      && p->aStep[i-1].step==step ) return;
  /* a row that went out without a step may lie in it, or it overlaps a
  ** step rows were given: only the database can redo those */
  if( (p->maxNullTs>=ts && p->minNullTs<end)
      || (i>0 && p->aStep[i-1].end>ts)
      || (i<p->nStep && p->aStep[i].ts<end) ){
    p->st.needSteps = 1;
  }
  if( p->nHeld>0 && ts<=p->maxHeldTs && end>p->minHeldTs ){
    p->releasePending = 1;
  }
  p->holdMax = HOLD_MAX;
  if( p->nStep==p->nStepAlloc ){
    p->nStepAlloc = p->nStepAlloc ? p->nStepAlloc*2 : 16;
    p->aStep = xrealloc(p->aStep, (size_t)p->nStepAlloc*sizeof(Step));
  }
  for(i=p->nStep; i>0 && p->aStep[i-1].ts>ts; i--) p->aStep[i] = p->aStep[i-1];
  p->aStep[i].step = step;
  p->aStep[i].ts = ts;
  p->aStep[i].end = ts + dur;
  p->nStep++;
}

/* --------------------------------------------------------------- CPU ops */

/* Case-insensitive: does z contain "checkpoint" or "recompute"?  One pass
** (this runs for every CPU op). */
static int is_recompute_name(const char *z){
  for(; *z; z++){
    char c = (char)(*z | 0x20);
    if( c=='c' && strncasecmp(z, "checkpoint", 10)==0 ) return 1;
    if( c=='r' && strncasecmp(z, "recompute", 9)==0 ) return 1;
  }
  return 0;
}

/* Close the innermost open op of t and emit it. */
static int frame_pop(Linker *p, Thread *t){
  Frame *f = &t->aFrame[--t->nFrame];
  int64_t self = f->ev.dur - f->childDur;
  f->ev.selfDur = self<0 ? 0 : self;
  f->ev.zName = buf_str(&f->name);
  f->ev.zCat = buf_str(&f->cat);
  f->ev.zInputDims = buf_str(&f->dims);
  f->ev.zInputTypes = buf_str(&f->types);
  f->ev.zConcreteInputs = buf_str(&f->conc);
  f->ev.pColl = f->hasColl ? &f->coll : NULL;
  return emit(p, &f->ev);
}

static void copy_str(Buf *b, const char *z){
  buf_reset(b);
  buf_append(b, z, strlen(z));
}

/* Grow a frame array by doubling; new frames are zeroed. */
static Frame *frames_grow(Frame *a, int *pnAlloc){
  int n = *pnAlloc ? *pnAlloc*2 : 16;
  a = xrealloc(a, (size_t)n*sizeof(Frame));
  memset(&a[*pnAlloc], 0, (size_t)(n-*pnAlloc)*sizeof(Frame));
  *pnAlloc = n;
  return a;
}

static void buf_swap(Buf *a, Buf *b){
  Buf t = *a;
  *a = *b;
  *b = t;
}

/* Place held op h on thread t's stack.  Its strings move to the stack
** frame (h gets that frame's old buffers to reuse): no copy. */
static int place_op(Linker *p, Thread *t, Frame *h){
  const TraceEvent *e = &h->ev;
  int64_t end = e->ts + e->dur;
  Frame *f;
  SpillRec rec;
  /* close ops that ended before this one starts, and ops that end before
  ** it ends (clock skew: treat as siblings) */
  while( t->nFrame>0 && (t->aFrame[t->nFrame-1].end<=e->ts
                         || t->aFrame[t->nFrame-1].end<end) ){
    if( frame_pop(p, t) ) return 1;
  }
  if( t->nFrame==t->nFrameAlloc ){
    t->aFrame = frames_grow(t->aFrame, &t->nFrameAlloc);
  }
  f = &t->aFrame[t->nFrame];
  f->ev = *e;
  buf_swap(&f->name, &h->name);
  buf_swap(&f->cat, &h->cat);
  buf_swap(&f->dims, &h->dims);
  buf_swap(&f->types, &h->types);
  buf_swap(&f->conc, &h->conc);
  f->hasColl = h->hasColl;
  if( f->hasColl ) f->coll = h->coll;
  f->end = end;
  f->childDur = 0;
  /* the stored id when relinking the rows of a database (trace_relink.c),
  ** else the next of the file */
  if( f->ev.rowId==0 ){
    f->ev.rowId = p->idBase + (++p->opSeq);
    if( p->opSeq>p->st.nIds ) p->st.nIds = p->opSeq;
  }
  f->ev.parentId = t->nFrame>0 ? t->aFrame[t->nFrame-1].ev.rowId : 0;
  f->ev.depth = t->nFrame;
  f->ev.step = step_of(p, e->ts);
  f->ev.linked = 1;
  f->recompute = is_recompute_name(e->zName)
              || (t->nFrame>0 && t->aFrame[t->nFrame-1].recompute);
  if( t->nFrame>0 ) t->aFrame[t->nFrame-1].childDur += e->dur;
  t->nFrame++;
  /* remember the interval for the runtime cursor */
  rec.ts = e->ts;
  rec.end = end;
  rec.id = f->ev.rowId;
  rec.recompute = f->recompute;
  if( spool_append(&t->spill, &rec, sizeof(rec)) ){
    pf_error_set(p->pErr, ERRPOS_NONE, 0, "cannot write a temporary file");
    return 1;
  }
  t->nSpill++;
  return 0;
}


/* Does op a come before op b of the same start: longer first; of one
** length, the lower External id first (the profiler numbers an op before
** the ops it calls), one without after one with; else the file's order
** (trace_relink.c orders rows the same way). */
static int held_before(const TraceEvent *a, const TraceEvent *b){
  int ha = (a->has & TF_EXTERNAL_ID)!=0, hb = (b->has & TF_EXTERNAL_ID)!=0;
  if( a->dur!=b->dur ) return a->dur>b->dur;
  if( ha!=hb ) return ha;
  return ha && a->external_id<b->external_id;
}

/* Place the held ops of t (one start time) in held_before order, so that
** an op is the parent of the ops after it that it encloses. */
static int place_held(Linker *p, Thread *t){
  int rc = 0;
  for(int i=1; i<t->nHold; i++){         /* insertion sort, stable */
    for(int j=i; j>0 && held_before(&t->aHold[j].ev, &t->aHold[j-1].ev);
        j--){
      Frame tmp = t->aHold[j];
      t->aHold[j] = t->aHold[j-1];
      t->aHold[j-1] = tmp;
    }
  }
  for(int i=0; i<t->nHold && rc==0; i++){
    Frame *h = &t->aHold[i];
    h->ev.zName = buf_str(&h->name);
    h->ev.zCat = buf_str(&h->cat);
    h->ev.zInputDims = buf_str(&h->dims);
    h->ev.zInputTypes = buf_str(&h->types);
    h->ev.zConcreteInputs = buf_str(&h->conc);
    h->ev.pColl = h->hasColl ? &h->coll : NULL;
    rc = place_op(p, t, h);
  }
  t->nHold = 0;
  return rc;
}

/* Place op e of thread t (ops of t arrive in start order).  stepDone:
** its ProfilerStep number (2021 traces) was taken when it was deferred. */
static int cpu_op_start(Linker *p, Thread *t, const TraceEvent *e,
                        int stepDone){
  Frame *h;
  /* 2021-era traces record ProfilerStep#N as an op (category Operator):
  ** a step as much as the user_annotation of later generations */
  if( !stepDone ){
    int64_t nStep = trace_args_step_number(e->zName);
    if( nStep>=0 ) step_add(p, nStep, e->ts, e->dur);
  }
  /* an op that starts before a runtime call already linked on this thread
  ** may enclose it: only the database sweep can fix that */
  if( e->ts<t->lastRtTs || e->ts<t->lastOpTs ) p->st.needCpuSweep = 1;
  t->lastOpTs = e->ts;
  if( t->nHold>0 && t->aHold[0].ev.ts!=e->ts && place_held(p, t) ) return 1;
  if( t->nHold==t->nHoldAlloc ){
    t->aHold = frames_grow(t->aHold, &t->nHoldAlloc);
  }
  h = &t->aHold[t->nHold++];
  h->ev = *e;
  copy_str(&h->name, e->zName);
  copy_str(&h->cat, e->zCat);
  copy_str(&h->dims, e->zInputDims);
  copy_str(&h->types, e->zInputTypes);
  copy_str(&h->conc, e->zConcreteInputs);
  h->hasColl = e->pColl!=NULL;
  if( h->hasColl ) h->coll = *e->pColl;
  return 0;
}

/* Append the record of e to spool s (trace_record.h); *pLen gets its
** length.  Returns 0, or 1 with pErr set. */
static int record_write(Linker *p, Spool *s, const TraceEvent *e,
                        int64_t *pLen){
  if( trace_record_append(s, e, pLen)==0 ) return 0;
  pf_error_set(p->pErr, ERRPOS_NONE, 0, "cannot write a temporary file");
  return 1;
}

/* Append op e of thread t to the defer spool.  Returns 0, or 1 with pErr
** set when the file cannot be written. */
static int defer_add(Linker *p, Thread *t, const TraceEvent *e){
  DeferRec *r;
  int64_t len;
  int64_t nStep = trace_args_step_number(e->zName);
  /* the step is known now; its ops are placed later */
  if( nStep>=0 ) step_add(p, nStep, e->ts, e->dur);
  if( record_write(p, &p->defer, e, &len) ) return 1;
  if( t->nDef==t->nDefAlloc ){
    t->nDefAlloc = t->nDefAlloc ? t->nDefAlloc*2 : 256;
    t->aDef = xrealloc(t->aDef, (size_t)t->nDefAlloc*sizeof(DeferRec));
  }
  r = &t->aDef[t->nDef++];
  r->ts = e->ts;
  r->seq = p->deferSeq++;
  r->off = p->defer.n - len;
  r->len = len;
  p->nDeferred++;
  t->lastDefTs = e->ts;
  t->lastDefEnd = e->ts + e->dur;
  return 0;
}

static int defer_cmp(const DeferRec *x, const DeferRec *y){
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->seq<y->seq ? -1 : x->seq>y->seq;
}
DEFINE_MSORT(defer_sort, DeferRec, defer_cmp)

/* The record at offset off of spool s (8-byte aligned, within s->n),
** its length in *pLen.  NULL, with pErr set, when the spool cannot be
** read. */
static const char *record_at(Linker *p, Spool *s, int64_t off,
                             int64_t *pLen){
  const char *z = spool_get(s, off, TRACE_RECORD_HEAD);
  if( z ){
    *pLen = trace_record_len(z);
    if( off+*pLen>s->n ){
      z = NULL;
    }else if( s->f ){
      /* a file's window may end inside the record: read it whole */
      z = spool_get(s, off, (size_t)*pLen);
    }
  }
  if( z==NULL ){
    pf_error_set(p->pErr, ERRPOS_NONE, 0, "cannot read a temporary file");
  }
  return z;
}

/* Read the records of spool s in order, calling xRecord for each (the
** decoded event, its strings pointing into the spool, and the record's
** bytes), then empty it.  Returns 0, or what xRecord returned, or 1 with
** pErr set when the spool cannot be read. */
static int records_replay(Linker *p, Spool *s,
                          int (*xRecord)(Linker*, TraceEvent*, const char*,
                                         int64_t, void*),
                          void *ctx){
  int64_t off = 0;
  int rc = 0;
  while( rc==0 && off<s->n ){
    int64_t len;
    const char *z = record_at(p, s, off, &len);
    TraceEvent ev;
    if( z==NULL ){
      rc = 1;
      break;
    }
    trace_record_decode(z, &ev);
    rc = xRecord(p, &ev, z, len, ctx);
    off += len;
  }
  spool_reset(s);
  return rc;
}

/* ------------------------------------------------------------ step hold */

/* Does e's row carry a step: of its own start (an op, a runtime call) or
** of its launch (a GPU record)? 1, 2, or 0. */
static int step_kind(const TraceEvent *e){
  switch( e->kind ){
    case TEV_CPU_OP: case TEV_RUNTIME: case TEV_DRIVER: return 1;
    case TEV_KERNEL: case TEV_MEMCPY: case TEV_MEMSET: return 2;
    default: return 0;
  }
}

/* An op or call going out without a step: a later step holding ts sends
** the run to the database. */
static void null_note(Linker *p, int64_t ts){
  if( ts<p->minNullTs ) p->minNullTs = ts;
  if( ts>p->maxNullTs ) p->maxNullTs = ts;
}

static int hold_release(Linker *p, int keepStepless);
static int calls_step(Linker *p, const TraceEvent *e);

/* Note row e, whose record of len bytes was just added to the step hold
** (p->hold, or p->rehold while the hold is read). */
static void hold_note(Linker *p, const TraceEvent *e, int64_t len){
  p->nHeld++;
  p->holdBytes += len;
  if( step_kind(e)==1 ){
    if( e->ts<p->minHeldTs ) p->minHeldTs = e->ts;
    if( e->ts>p->maxHeldTs ) p->maxHeldTs = e->ts;
  }
}

/* Append row e to the step hold s.  Returns 0, or 1 with pErr set. */
static int hold_add(Linker *p, Spool *s, const TraceEvent *e){
  int64_t len;
  if( record_write(p, s, e, &len) ) return 1;
  hold_note(p, e, len);
  return 0;
}

/* The emit callback, for rows the linker has finished.  A row without a
** step waits in the step-hold spool while the file holds. */
static int emit(Linker *p, const TraceEvent *e){
  int k = step_kind(e);
  TraceEvent ev;
  if( k==0 ) return p->xEmit(p->ctx, e);
  if( k==1 && e->step<0 && p->nStep>0 ){
    ev = *e;                      /* a step may have come since it opened */
    ev.step = step_of(p, e->ts);
    e = &ev;
  }
  /* a GPU record without a launch gets no step here: the database gives
  ** it the step holding its own start */
  if( e->step<0 && !p->holdOff && (k==1 || (e->linked && e->runtimeId)) ){
    if( hold_add(p, &p->hold, e) ) return 1;
    if( p->holdBytes<=p->holdMax ) return 0;
    /* full: a file with no step so far likely has none */
    if( p->nStep==0 ) p->holdOff = 1;
    return hold_release(p, 0);
  }
  if( k==1 && e->step<0 ) null_note(p, e->ts);
  return p->xEmit(p->ctx, e);
}

/* A held row's step now.  m maps a held runtime call's row id to its
** step + 1 (GroupMap: a group created by a lookup is 0, "no step"), or
** to HELD_AGAIN when the call waits on in the hold.  Returns 1 when e
** waits on (p->keepStepless: an op or call still without a step, a GPU
** record whose call waits on), else 0 with e->step set, a call's step
** remembered and a stepless row noted. */
#define HELD_AGAIN (-1)
static int hold_step(Linker *p, TraceEvent *e, GroupMap *m){
  int64_t *pv;
  if( step_kind(e)==1 ){
    e->step = step_of(p, e->ts);
    if( e->kind!=TEV_CPU_OP && e->rowId!=0 ){
      pv = group_map_get(m, e->rowId, 0, 0, 0, NULL);
      *pv = e->step<0 && p->keepStepless ? HELD_AGAIN : e->step + 1;
    }
    if( e->step<0 && p->keepStepless ) return 1;
    if( e->step<0 ) null_note(p, e->ts);
  }else if( e->linked && e->runtimeId!=0 ){
    int64_t v = *(int64_t*)group_map_get(m, e->runtimeId, 0, 0, 0, NULL);
    if( v==HELD_AGAIN ) return 1;
    e->step = v - 1;
  }
  return 0;
}

/* records_replay callback of hold_release: step, then the emit callback,
** or back to the hold (p->rehold) for a row that waits on: its record
** as it was when its step did not change (it does not: -1 stays). */
static int hold_record(Linker *p, TraceEvent *e, const char *zRec,
                       int64_t len, void *ctx){
  int64_t step = e->step;
  if( hold_step(p, e, (GroupMap*)ctx) ){
    if( e->step!=step ){
      int64_t n = p->holdBytes;
      if( hold_add(p, &p->rehold, e) ) return 1;
      p->reholdBytes += p->holdBytes - n;
      return 0;
    }
    if( spool_append(&p->rehold, zRec, (size_t)len) ){
      pf_error_set(p->pErr, ERRPOS_NONE, 0, "cannot write a temporary file");
      return 1;
    }
    hold_note(p, e, len);
    p->reholdBytes += len;
    return 0;
  }
  if( step_kind(e)==1 && e->kind!=TEV_CPU_OP && e->rowId!=0
      && (e->has & TF_CORRELATION) && calls_step(p, e) ){
    return 1;
  }
  p->st.nHeld++;
  return p->xEmit(p->ctx, e);
}

/* Send the held rows out in order with the steps known now (the calls of
** GPU records held after them came before them in the file).  When a
** step came (keepStepless), the rows it leaves without a step wait on,
** in their order, for a later step: only a full hold or the end of the
** file sends a row out stepless.  Each release reads every held row: once
** REHOLD_MAX bytes were held again (steps that each hold a few of many
** held rows), releases send every row out as before.  Returns 0 or 1
** (pErr, or the emit callback's stop). */
static int hold_release(Linker *p, int keepStepless){
  GroupMap m;
  Spool tmp;
  int rc;
  p->releasePending = 0;
  if( p->nHeld==0 ) return 0;
  p->keepStepless = keepStepless && p->reholdBytes<REHOLD_MAX;
  p->nHeld = p->holdBytes = 0;
  p->minHeldTs = INT64_MAX;
  p->maxHeldTs = INT64_MIN;
  group_map_init(&m, sizeof(int64_t));
  rc = records_replay(p, &p->hold, hold_record, &m);
  group_map_free(&m);
  tmp = p->hold;                  /* the rows waiting on are the hold */
  p->hold = p->rehold;
  p->rehold = tmp;
  return rc;
}

/* Place the deferred ops of t in start order (a subtree's records lie
** together in the spool: its reads stay in one window).  Returns 0 or 1
** (pErr). */
static int defer_release(Linker *p, Thread *t){
  int rc = 0;
  if( t->nDef==0 ) return 0;
  defer_sort(t->aDef, (size_t)t->nDef);
  for(int i=0; i<t->nDef && rc==0; i++){
    const char *z = spool_get(&p->defer, t->aDef[i].off,
                              (size_t)t->aDef[i].len);
    TraceEvent ev;
    if( z==NULL ){
      pf_error_set(p->pErr, ERRPOS_NONE, 0, "cannot read a temporary file");
      return 1;
    }
    trace_record_decode(z, &ev);
    rc = cpu_op_start(p, t, &ev, 1);
  }
  p->nDeferred -= t->nDef;
  t->nDef = 0;
  if( p->nDeferred==0 ) spool_reset(&p->defer);
  return rc;
}

/* Place every deferred op of the file. */
static int defer_release_all(Linker *p){
  for(int i=0; i<p->nTh; i++){
    if( defer_release(p, &p->aTh[i]) ) return 1;
  }
  return 0;
}

static int cpu_op(Linker *p, const TraceEvent *e){
  Thread *t = thread_get(p, e->tid);
  int64_t end = e->ts + e->dur;
  p->nOpsSeen++;
  if( t->mode==OM_START ) return cpu_op_start(p, t, e, 0);
  if( t->mode==OM_UNDECIDED && t->nDef>0 ){
    if( e->ts<t->lastDefTs && end>=t->lastDefEnd ){
      t->mode = OM_END;
    }else if( end<t->lastDefEnd || t->nUndecided>=UNDECIDED_MAX ){
      t->mode = OM_START;
      if( defer_release(p, t) ) return 1;
      return cpu_op_start(p, t, e, 0);
    }
  }else if( t->mode==OM_END && end<t->lastDefEnd ){
    p->st.needCpuSweep = 1;           /* neither order */
  }
  if( t->mode==OM_UNDECIDED ) t->nUndecided++;
  if( p->nDeferred>=DEFER_MAX && defer_release_all(p) ) return 1;
  return defer_add(p, t, e);
}

/* Close every open op of every thread. */
static int flush_ops(Linker *p){
  if( defer_release_all(p) ) return 1;
  for(int i=0; i<p->nTh; i++){
    Thread *t = &p->aTh[i];
    if( place_held(p, t) ) return 1;
    while( t->nFrame>0 ) if( frame_pop(p, t) ) return 1;
  }
  return 0;
}

/* ------------------------------------------------------- runtime cursor */

/* The spill record at t's read position, without consuming it; 0 at the
** end (or on a read error, with pErr set). */
static int spill_peek(Linker *p, Thread *t, SpillRec *pRec){
  const char *z;
  if( t->iRead>=t->nSpill ) return 0;
  z = spool_get(&t->spill, t->iRead*(int64_t)sizeof(SpillRec),
                sizeof(SpillRec));
  if( z==NULL ){
    pf_error_set(p->pErr, ERRPOS_NONE, 0, "cannot read a temporary file");
    return 0;
  }
  memcpy(pRec, z, sizeof(SpillRec));
  return 1;
}

static void cur_push(Thread *t, const SpillRec *r){
  CurFrame *c;
  if( t->nCur==t->nCurAlloc ){
    t->nCurAlloc = t->nCurAlloc ? t->nCurAlloc*2 : 16;
    t->aCur = xrealloc(t->aCur, (size_t)t->nCurAlloc*sizeof(CurFrame));
  }
  c = &t->aCur[t->nCur++];
  c->end = r->end;
  c->id = r->id;
  c->recompute = (int)r->recompute;
}

/* Move t's cursor to time ts; afterwards aCur holds the ops open at ts. */
static void cursor_seek(Linker *p, Thread *t, int64_t ts){
  SpillRec r;
  if( t->nSpill==0 ){
    /* no op yet: an op that comes later and starts before ts may enclose
    ** this call (cpu_op_start sends the run to the database sweep) */
    if( ts>t->lastRtTs ) t->lastRtTs = ts;
    return;
  }
  if( ts<t->lastRtTs ){
    /* out of order: start again from the first op */
    t->iRead = 0;
    t->nCur = 0;
    p->st.nRewinds++;
  }
  t->lastRtTs = ts;
  while( spill_peek(p, t, &r) && r.ts<=ts ){
    t->iRead++;
    while( t->nCur>0 && (t->aCur[t->nCur-1].end<=r.ts
                         || t->aCur[t->nCur-1].end<r.end) ) t->nCur--;
    cur_push(t, &r);
  }
  while( t->nCur>0 && t->aCur[t->nCur-1].end<=ts ) t->nCur--;
}

/* ---------------------------------------------------------- GPU records */

static unsigned corr_hash(int64_t c){
  uint64_t x = (uint64_t)c * 0x9e3779b97f4a7c15ULL;
  return (unsigned)(x>>40);
}

/* The slot of correlation c in table a: its own, or the empty one where
** it would go. */
static CallLink *calls_slot(CallLink *a, int64_t c){
  unsigned i = corr_hash(c) & (CALLS_SLOTS-1);
  while( a[i].runtimeId!=0 && a[i].corr!=c ) i = (i+1) & (CALLS_SLOTS-1);
  return &a[i];
}

/* The call of correlation c in the two tables in memory, or NULL. */
static CallLink *calls_find(CallMap *m, int64_t c){
  CallLink *l = calls_slot(m->aYoung, c);
  if( l->runtimeId!=0 ) return l;
  l = calls_slot(m->aOld, c);
  return l->runtimeId!=0 ? l : NULL;
}

/* A new generation: the old table's calls go to the spill, the young
** table becomes the old one.  Returns 0, or 1 with pErr set. */
static int calls_rotate(Linker *p){
  CallMap *m = &p->calls;
  CallLink *a = m->aOld;
  for(unsigned i=0; i<CALLS_SLOTS; i++){
    if( a[i].runtimeId==0 ) continue;
    if( spool_append(&m->spill, &a[i], sizeof(CallLink)) ){
      pf_error_set(p->pErr, ERRPOS_NONE, 0, "cannot write a temporary file");
      return 1;
    }
    m->nSpilled++;
  }
  memset(a, 0, CALLS_SLOTS*sizeof(CallLink));
  m->aOld = m->aYoung;
  m->aYoung = a;
  m->nYoung = 0;
  return 0;
}

/* Remember call l (the last call of a correlation wins).  0 or 1 (pErr). */
static int calls_put(Linker *p, const CallLink *l){
  CallMap *m = &p->calls;
  CallLink *s = calls_slot(m->aYoung, l->corr);
  if( s->runtimeId==0 ){
    if( m->nYoung>=CALLS_SLOTS/2 ){
      if( calls_rotate(p) ) return 1;
      s = calls_slot(m->aYoung, l->corr);
    }
    m->nYoung++;
  }
  *s = *l;
  return 0;
}

/* Held call e got its step: later GPU records of its correlation get it
** too (a call already spilled is put in again: the tables come first).
** 0 or 1 (pErr). */
static int calls_step(Linker *p, const TraceEvent *e){
  CallLink *c = calls_find(&p->calls, e->correlation), l;
  if( c && c->runtimeId==e->rowId ){
    c->step = e->step;
    return 0;
  }
  if( c ) return 0;          /* a later call of the correlation came */
  l.corr = e->correlation;
  l.runtimeId = e->rowId;
  l.opId = e->opId;
  l.step = e->step;
  return calls_put(p, &l);
}

/* Emit a pending record (linked or not) and free its slot. */
static int pend_emit(Linker *p, int i, const CallLink *pLink){
  Pend *q = &p->aPend[i];
  int rc;
  q->ev.zName = buf_str(&q->name);
  q->ev.zCat = buf_str(&q->cat);
  q->ev.pColl = q->hasColl ? &q->coll : NULL;
  if( pLink ){
    q->ev.runtimeId = pLink->runtimeId;
    q->ev.opId = pLink->opId;
    q->ev.step = pLink->step;
    q->ev.linked = 1;
  }
  rc = emit(p, &q->ev);
  q->live = 0;
  return rc;
}

/* Move pending record i to the late spool (its call may come later in
** the file, or be in the spill) and free its slot.  0 or 1 (pErr). */
static int pend_late(Linker *p, int i){
  Pend *q = &p->aPend[i];
  int64_t len;
  q->ev.zName = buf_str(&q->name);
  q->ev.zCat = buf_str(&q->cat);
  q->ev.pColl = q->hasColl ? &q->coll : NULL;
  q->live = 0;
  p->nLate++;
  return record_write(p, &p->late, &q->ev, &len);
}

/* Remove slot i from its hash chain. */
static void pend_unlink(Linker *p, int i){
  unsigned h = corr_hash(p->aPend[i].ev.correlation) & (PEND_HASH-1);
  int *pp = &p->aBucket[h];
  while( *pp>0 && *pp!=i+1 ) pp = &p->aPend[*pp-1].next;
  if( *pp==i+1 ) *pp = p->aPend[i].next;
}

/* Drop dead slots from the head of the ring; send the oldest live one to
** the late spool when the ring is full. */
static int pend_make_room(Linker *p){
  while( p->nPend>0 && !p->aPend[p->pendHead].live ){
    p->pendHead = (p->pendHead+1) % PEND_MAX;
    p->nPend--;
  }
  if( p->nPend==PEND_MAX ){
    int i = p->pendHead;
    pend_unlink(p, i);
    if( pend_late(p, i) ) return 1;
    p->pendHead = (p->pendHead+1) % PEND_MAX;
    p->nPend--;
  }
  return 0;
}

/* The link of GPU record e from call l. */
static void link_from(TraceEvent *e, const CallLink *l){
  e->runtimeId = l->runtimeId;
  e->opId = l->opId;
  e->step = l->step;
  e->linked = 1;
}

static int gpu_record(Linker *p, const TraceEvent *e){
  TraceEvent ev = *e;
  const CallLink *c;
  int i;
  unsigned h;
  Pend *q;
  ev.step = -1;
  if( !(e->has & TF_CORRELATION) ) return emit(p, &ev);
  c = calls_find(&p->calls, e->correlation);
  if( c ){
    link_from(&ev, c);
    return emit(p, &ev);
  }
  if( pend_make_room(p) ) return 1;
  i = (p->pendHead + p->nPend) % PEND_MAX;
  if( i>=p->nPendUsed ) p->nPendUsed = i+1;
  q = &p->aPend[i];
  q->ev = ev;
  copy_str(&q->name, e->zName);
  copy_str(&q->cat, e->zCat);
  q->hasColl = e->pColl!=NULL;
  if( q->hasColl ) q->coll = *e->pColl;
  q->ev.zInputDims = q->ev.zInputTypes = q->ev.zConcreteInputs = "";
  q->live = 1;
  h = corr_hash(e->correlation) & (PEND_HASH-1);
  q->next = p->aBucket[h];
  p->aBucket[h] = i+1;
  p->nPend++;
  if( p->nPend>p->st.nPendingMax ) p->st.nPendingMax = p->nPend;
  return 0;
}

static int runtime_call(Linker *p, const TraceEvent *e){
  Thread *t = thread_get(p, e->tid);
  TraceEvent ev = *e;
  CallLink c;
  /* the cursor needs the ops: place every deferred one (all threads, so
  ** that each op's step is known before calls ask for it) */
  if( p->nDeferred>0 && defer_release_all(p) ) return 1;
  if( t->nHold>0 && place_held(p, t) ) return 1;
  cursor_seek(p, t, e->ts);
  t->runtimeSeen = 1;
  if( ev.rowId==0 ){
    ev.rowId = p->idBase + (++p->rtSeq);
    if( p->rtSeq>p->st.nIds ) p->st.nIds = p->rtSeq;
  }
  ev.opId = t->nCur>0 ? t->aCur[t->nCur-1].id : 0;
  ev.topOpId = t->nCur>0 ? t->aCur[0].id : 0;
  ev.inRecompute = t->nCur>0 ? t->aCur[t->nCur-1].recompute : 0;
  ev.step = step_of(p, e->ts);
  ev.linked = 1;
  if( emit(p, &ev) ) return 1;
  if( !(e->has & TF_CORRELATION) ) return 0;
  c.corr = e->correlation;
  c.runtimeId = ev.rowId;
  c.opId = ev.opId;
  c.step = ev.step;
  if( calls_put(p, &c) ) return 1;
  /* release the records that were waiting for this call */
  {
    unsigned h = corr_hash(e->correlation) & (PEND_HASH-1);
    int *pp = &p->aBucket[h];
    while( *pp>0 ){
      int i = *pp-1;
      if( p->aPend[i].ev.correlation==e->correlation ){
        *pp = p->aPend[i].next;
        if( pend_emit(p, i, &c) ) return 1;
      }else{
        pp = &p->aPend[i].next;
      }
    }
  }
  return 0;
}

/* ------------------------------------------------------ late records */

/* The late records of the file resolved: each gets its call from the
** tables in memory or, failing that, from the spill (one read of it per
** LATE_CHUNK records: the last spilled call of the correlation), then goes
** out, linked or not (no call of its correlation in the file). */
typedef struct LateRes {
  GroupMap links;             /* correlation -> CallLink (runtimeId 0:
                              ** none) of this chunk's records */
  int64_t nSkip, nTake;       /* records of the spool: before / in chunk */
  int64_t iRec;
} LateRes;

/* records_replay-style pass over the late spool: note the chunk's
** correlations (pass 0), or emit the chunk's records (pass 1). */
static int late_pass(Linker *p, LateRes *r, int pass){
  int64_t off = 0;
  r->iRec = 0;
  while( off<p->late.n ){
    int64_t len;
    const char *z = record_at(p, &p->late, off, &len);
    TraceEvent ev;
    if( z==NULL ) return 1;
    off += len;
    if( r->iRec++ < r->nSkip ) continue;
    if( r->iRec > r->nSkip + r->nTake ) break;
    trace_record_decode(z, &ev);
    if( pass==0 ){
      CallLink *l = group_map_get(&r->links, ev.correlation, 0, 0, 0, NULL);
      const CallLink *c = calls_find(&p->calls, ev.correlation);
      if( c ) *l = *c;
    }else{
      const CallLink *l = group_map_get(&r->links, ev.correlation, 0, 0, 0,
                                        NULL);
      if( l->runtimeId!=0 ) link_from(&ev, l);
      if( emit(p, &ev) ) return 1;
    }
  }
  return 0;
}

/* Fill the chunk's links missing from the tables from the spill (a later
** record of a correlation replaces an earlier one).  0 or 1 (pErr). */
static int late_from_spill(Linker *p, LateRes *r){
  CallMap *m = &p->calls;
  for(int64_t i=0; i<m->nSpilled; i++){
    const char *z = spool_get(&m->spill, i*(int64_t)sizeof(CallLink),
                              sizeof(CallLink));
    CallLink c;
    int g;
    if( z==NULL ){
      pf_error_set(p->pErr, ERRPOS_NONE, 0, "cannot read a temporary file");
      return 1;
    }
    memcpy(&c, z, sizeof(c));
    if( group_map_find(&r->links, c.corr, 0, 0, 0, &g)
        && calls_find(m, c.corr)==NULL ){
      *(CallLink*)group_map_val(&r->links, g) = c;
    }
  }
  return 0;
}

/* Resolve and emit every late record.  0 or 1 (pErr, or the emit
** callback's stop). */
static int late_release(Linker *p){
  LateRes r;
  int rc = 0;
  if( p->nLate==0 ) return 0;
  memset(&r, 0, sizeof(r));
  for(r.nSkip=0; rc==0 && r.nSkip<p->nLate; r.nSkip+=LATE_CHUNK){
    group_map_init(&r.links, sizeof(CallLink));
    r.nTake = LATE_CHUNK;
    rc = late_pass(p, &r, 0);
    if( rc==0 && p->calls.nSpilled>0 ) rc = late_from_spill(p, &r);
    if( rc==0 ) rc = late_pass(p, &r, 1);
    group_map_free(&r.links);
  }
  p->st.nLate += p->nLate;
  p->nLate = 0;
  spool_reset(&p->late);
  return rc;
}

/* ------------------------------------------------------ call deferral */

/* Does runtime call e start call-defer mode?  Yes when the file has had
** no op yet (a trace that writes its ops after the calls): an op that
** comes later may enclose it.  (Not for a thread with no op in a file
** whose ops came first: such threads usually never get one.) */
static int call_starts_defer(Linker *p, const TraceEvent *e){
  (void)e;
  return p->nOpsSeen==0;
}

static int call_defer(Linker *p, const TraceEvent *e){
  int64_t len;
  /* the ops are placed (and numbered) when the call comes, as in
  ** runtime_call(): the call waits, the ops do not */
  if( e->kind==TEV_RUNTIME || e->kind==TEV_DRIVER ){
    Thread *t;
    if( p->nDeferred>0 && defer_release_all(p) ) return 1;
    t = thread_get(p, e->tid);
    if( t->nHold>0 && place_held(p, t) ) return 1;
  }
  p->callDeferMode = 1;
  p->nCallDeferred++;
  return record_write(p, &p->callDefer, e, &len);
}

static int link_event(Linker *p, const TraceEvent *e);

/* records_replay callback of call_replay: through the linker again. */
static int call_record(Linker *p, TraceEvent *e, const char *zRec,
                       int64_t len, void *ctx){
  (void)zRec; (void)len; (void)ctx;
  return link_event(p, e);
}

/* Replay the records of the call-defer spool in file order (every op is
** placed by now).  Returns 0 or 1 (pErr). */
static int call_replay(Linker *p){
  int rc;
  if( p->callDefer.n==0 ) return 0;
  p->replaying = 1;
  rc = records_replay(p, &p->callDefer, call_record, NULL);
  p->replaying = 0;
  return rc;
}

/* ------------------------------------------------------------------ API */

static int link_event(Linker *p, const TraceEvent *e){
  switch( e->kind ){
    case TEV_CPU_OP:
      return cpu_op(p, e);
    case TEV_RUNTIME:
    case TEV_DRIVER:
      if( !p->replaying
          && (p->callDeferMode || call_starts_defer(p, e)) ){
        return call_defer(p, e);
      }
      return runtime_call(p, e);
    case TEV_KERNEL:
    case TEV_MEMCPY:
    case TEV_MEMSET:
      if( p->callDeferMode && !p->replaying ) return call_defer(p, e);
      return gpu_record(p, e);
    case TEV_USER_ANNOTATION: {
      int64_t n = trace_args_step_number(e->zName);
      if( n>=0 ) step_add(p, n, e->ts, e->dur);
      return emit(p, e);
    }
    default:
      return emit(p, e);
  }
}

void link_trace_step(Linker *p, int64_t step, int64_t ts, int64_t dur){
  step_add(p, step, ts, dur);
}

void link_trace_steps_given(Linker *p){
  p->holdOff = 1;              /* no row waits for a step still to come */
}

int link_trace_event(Linker *p, const TraceEvent *e, PfError *pErr){
  p->pErr = pErr;
  if( p->aPend==NULL ){
    /* zero mappings of their own: a small trace touches a few pages of
    ** these 5 MiB (calloc from the heap cleared them all: 15 M of the
    ** parser thread's 36 M instructions on a 1 MB trace) */
    p->aPend = util_array_zeroed(PEND_MAX*sizeof(Pend));
    p->aBucket = util_array_zeroed(PEND_HASH*sizeof(int));
    p->calls.aYoung = util_array_zeroed(CALLS_SLOTS*sizeof(CallLink));
    p->calls.aOld = util_array_zeroed(CALLS_SLOTS*sizeof(CallLink));
  }
  if( link_event(p, e) ) return 1;
  /* annotations in a row (steps written together) release once, after */
  if( !p->releasePending || e->kind==TEV_USER_ANNOTATION ) return 0;
  return hold_release(p, 1);
}

int link_trace_finish(Linker *p, PfError *pErr){
  p->pErr = pErr;
  if( flush_ops(p) ) return 1;
  if( p->nCallDeferred>0 && getenv("PROFAN_TIMING") ){
    fprintf(stderr, "profan: linker: %lld runtime calls and GPU records"
            " replayed after the ops\n", (long long)p->nCallDeferred);
  }
  if( call_replay(p) ) return 1;
  /* every step of the file is known: the held rows go out */
  p->holdOff = 1;
  if( hold_release(p, 0) ) return 1;
  if( p->aPend ){
    /* records whose runtime call did not come while they waited: their
    ** call is in the spill, or there is none in the file */
    while( p->nPend>0 ){
      int i = p->pendHead;
      if( p->aPend[i].live && pend_late(p, i) ) return 1;
      p->pendHead = (p->pendHead+1) % PEND_MAX;
      p->nPend--;
    }
  }
  return late_release(p);
}
