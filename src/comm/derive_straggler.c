/*
** derive_straggler.c — what the straggler analysis needs of each
** collective, computed once at ingest (schema/050-straggler-clock.sql):
**
**   1. each rank's clock offset from the collectives' end times
**      (rank_clock.c), stored in rank_clock;
**   2. each collective's arrival on the common clock, the group's last
**      arrival, and the time the kernel waited for it (at most its
**      duration);
**   3. the window before each collective (from the end of the rank's
**      previous collective, the first: from its first GPU activity, to
**      this one's start): the GPU work that ended in it (kernels that are
**      not communication, memcpy, memset; at most the window), the rest
**      GPU idle, and of that idle the part right before the collective
**      when its kernel had already been launched (queued: the GPU waited
**      on something else, not on the host);
**   4. the part of each wait that no compute kernel of the rank overlapped
**      (exposed waiting: what exposed-comm subtracts and hands to the
**      straggler finding);
**   5. the window of a host collective (gloo / MPI range, no kernel) from
**      the host instead (host_windows): from the end of the rank's
**      previous host collective (the first: its first CPU op) to this
**      one's start, compute the time in it covered by the rank's CPU ops.
** Every collective_window row is written once, here.
**
** One pass over the run's GPU rows (the rows the writer kept while
** loading, or trace_feed.c fed from the tables: no sort) adds each one to
** the window holding its end (binary search) and clips the compute
** kernels to the waits they overlap.
**
** Pipeline position: "derive", called by derive_comm.c after the
** collective rows and their sequence numbers are written.  Memory: one
** record per collective, the per-rank and per-group arrays, and one
** piece per (compute kernel, wait) overlap.
*/
#include "comm/derive_straggler.h"
#include "comm/rank_clock.h"
#include "core/db.h"
#include "core/msort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One collective of one rank and the window before it. */
typedef struct Win {
  int64_t id, rank, grp;     /* grp: 1.. per (process group, seq) */
  int64_t t0, t1, end;       /* window [t0, t1]; t1 = start; end of kernel */
  int64_t comp;              /* GPU work ending in the window */
  int64_t lastBusy;          /* latest end of that work (t0 when none) */
  int64_t launchEnd;         /* end of its launch call, -1 unknown */
  int64_t arrival, wait, exposedWait;
  int iRank;                 /* index of rank in the run's ranks */
  int bClock;                /* an op whose ends agree across ranks */
  int bHost;                 /* a host collective (no kernel) */
} Win;

/* A compute kernel's overlap with wait i. */
typedef struct Piece {
  int64_t i, lo, hi;
} Piece;

/* The windows being filled and what the pass needs. */
typedef struct Fill {
  Win *a;
  int n;
  int64_t *aMaxWait;         /* per rank index: longest wait */
  Piece *aPiece;
  size_t nPiece, nAlloc;
  const int64_t *aName;      /* communication names (kept-rows path) */
  int nName;
} Fill;

/* The first window of a (sorted by rank, t1) with (rank, t1) >= the key. */
static int win_lower(const Win *a, int n, int64_t rank, int64_t t){
  int lo = 0, hi = n;
  while( lo<hi ){
    int mid = (lo+hi)/2;
    if( a[mid].rank<rank || (a[mid].rank==rank && a[mid].t1<t) ) lo = mid+1;
    else hi = mid;
  }
  return lo;
}

/* A GPU row of rank that is not communication: its work goes to the
** window holding its end; a kernel's overlap with the waits goes to the
** pieces. */
static void fill_row(Fill *f, int64_t rank, int64_t ts, int64_t end,
                     int bKernel){
  int i = win_lower(f->a, f->n, rank, end);
  Win *w;
  if( i<f->n && f->a[i].rank==rank && f->a[i].t0<end ){
    w = &f->a[i];
    w->comp += end - ts;
    if( end>w->lastBusy ) w->lastBusy = end;
  }
  if( !bKernel ) return;
  /* the waits of rank that start before end: walk back while a wait
  ** could still reach ts */
  for(int j=i-1; j>=0 && f->a[j].rank==rank; j--){
    Win *x = &f->a[j];
    int64_t lo = ts>x->t1 ? ts : x->t1;
    int64_t hi = end<x->t1+x->wait ? end : x->t1+x->wait;
    if( x->t1 + f->aMaxWait[x->iRank] <= ts ) break;
    if( hi<=lo ) continue;
    if( f->nPiece==f->nAlloc ){
      f->nAlloc = f->nAlloc ? 2*f->nAlloc : 256;
      f->aPiece = xrealloc(f->aPiece, f->nAlloc*sizeof(Piece));
    }
    f->aPiece[f->nPiece].i = j;
    f->aPiece[f->nPiece].lo = lo;
    f->aPiece[f->nPiece].hi = hi;
    f->nPiece++;
  }
}

/* The kept GPU rows of every file into f (communication kernels left
** out): the rows the writer kept while loading, or that trace_feed.c fed
** from the tables (merge, rebuild), one path either way. */
static void fill_kept(const TraceSpans *pSpans, Fill *f){
  int64_t rank;
  SpanHtaGpu *aG;
  size_t nC, nG;
  int r;
  for(int i=0; (r = trace_spans_hta_file(pSpans, i, &rank, NULL, &nC, &aG,
                                         &nG))!=0; i++){
    if( r<0 ) continue;
    for(size_t j=0; j<nG; j++){
      if( aG[j].cls==0 && util_id_in(f->aName, f->nName, aG[j].name) ){
        continue;
      }
      fill_row(f, rank, aG[j].ts, aG[j].end, aG[j].cls==0);
    }
    free(aG);
  }
}

/* The collectives of the run, by rank and start, with their group and
** launch; *pn of them in a new array (caller frees), NULL when none or
** on error (pErr set, *pn -1). */
static Win *load_windows(sqlite3 *db, int64_t runId, int *pn, PfError *pErr){
  sqlite3_stmt *q = db_prepare(db,
    db_statement("derive-straggler-load-windows"), pErr);
  Win *a = NULL;
  int n = 0, nAlloc = 0, nRank = 0, st;
  int64_t prevRank = INT64_MIN, prevEnd = 0;
  *pn = -1;
  if( q==NULL ) return NULL;
  sqlite3_bind_int64(q, 1, runId);
  while( (st = sqlite3_step(q))==SQLITE_ROW ){
    int64_t rank = sqlite3_column_int64(q, 1), ts = sqlite3_column_int64(q, 2);
    int64_t w0 = rank==prevRank ? prevEnd
               : sqlite3_column_type(q, 4)==SQLITE_NULL ? ts
               : sqlite3_column_int64(q, 4);
    Win *w;
    if( n==nAlloc ){
      nAlloc = nAlloc ? nAlloc*2 : 64;
      a = xrealloc(a, (size_t)nAlloc*sizeof(Win));
    }
    w = &a[n++];
    memset(w, 0, sizeof(*w));
    if( rank!=prevRank ) nRank++;
    w->id = sqlite3_column_int64(q, 0);
    w->rank = rank;
    w->iRank = nRank-1;
    w->t1 = ts;
    w->t0 = w0<ts ? w0 : ts;
    w->end = sqlite3_column_int64(q, 3);
    w->lastBusy = w->t0;
    w->launchEnd = sqlite3_column_type(q, 5)==SQLITE_NULL ? -1
                 : sqlite3_column_int64(q, 5);
    w->grp = sqlite3_column_int64(q, 6);
    w->bClock = sqlite3_column_int(q, 7);
    w->bHost = sqlite3_column_int(q, 8);
    prevRank = rank;
    prevEnd = w->end;
  }
  sqlite3_finalize(q);
  if( st!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "derive straggler: %s",
                 sqlite3_errmsg(db));
    free(a);
    return NULL;
  }
  *pn = n;
  return a;
}

/* Estimate the clocks of the ranks of a (nRank of them) into aEst and
** store them in rank_clock when two or more ranks share collectives.
** Returns 0 or -1 (pErr). */
static int estimate_clocks(sqlite3 *db, int64_t runId, const Win *a, int n,
                           int nRank, ClockEst *aEst, PfError *pErr){
  ClockObs *aObs = xmalloc(sizeof(ClockObs)*(size_t)(n ? n : 1));
  sqlite3_stmt *ins;
  size_t m = 0;
  int nHave, rc = 0;
  for(int i=0; i<n; i++){
    if( !a[i].bClock ) continue;
    aObs[m].group = a[i].grp;
    aObs[m].end = a[i].end;
    aObs[m].rank = a[i].iRank;
    m++;
  }
  nHave = rank_clock_estimate(aObs, m, nRank, aEst);
  free(aObs);
  if( nHave<2 ) return 0;
  ins = db_prepare(db, db_statement("derive-straggler-estimate-clocks"), pErr);
  if( ins==NULL ) return -1;
  for(int i=0; i<n && rc==0; i++){
    const ClockEst *e = &aEst[a[i].iRank];
    if( (i>0 && a[i-1].iRank==a[i].iRank) || e->nUsed==0 ) continue;
    sqlite3_bind_int64(ins, 1, runId);
    sqlite3_bind_int64(ins, 2, a[i].rank);
    sqlite3_bind_int64(ins, 3, e->offset);
    sqlite3_bind_int64(ins, 4, e->nUsed);
    sqlite3_bind_int64(ins, 5, e->spread);
    rc = db_step_done(db, ins, pErr);
  }
  sqlite3_finalize(ins);
  return rc;
}

/* Arrivals on the common clock, each group's last arrival and each
** kernel's wait for it; the longest wait per rank into aMaxWait. */
static void arrivals(Win *a, int n, const ClockEst *aEst, int64_t *aMaxWait){
  int64_t nGrp = 0, *aLast, *aCount;
  for(int i=0; i<n; i++) if( a[i].grp>nGrp ) nGrp = a[i].grp;
  aLast = xmalloc(sizeof(int64_t)*(size_t)(nGrp+1));
  aCount = xcalloc((size_t)nGrp+1, sizeof(int64_t));
  for(int i=0; i<n; i++){
    a[i].arrival = a[i].t1 - aEst[a[i].iRank].offset;
    if( aCount[a[i].grp]++==0 || a[i].arrival>aLast[a[i].grp] ){
      aLast[a[i].grp] = a[i].arrival;
    }
  }
  for(int i=0; i<n; i++){
    int64_t w = aLast[a[i].grp] - a[i].arrival, d = a[i].end - a[i].t1;
    if( aCount[a[i].grp]<2 || w<0 ) w = 0;
    a[i].wait = w<d ? w : d;
    if( a[i].wait>aMaxWait[a[i].iRank] ) aMaxWait[a[i].iRank] = a[i].wait;
  }
  free(aLast);
  free(aCount);
}

static int piece_cmp(const Piece *x, const Piece *y){
  if( x->i!=y->i ) return x->i<y->i ? -1 : 1;
  return (x->lo>y->lo) - (x->lo<y->lo);
}
DEFINE_MSORT(piece_sort, Piece, piece_cmp)

/* exposedWait of every window: its wait minus the union of its pieces. */
static void exposed_waits(Fill *f){
  size_t k = 0;
  for(int i=0; i<f->n; i++) f->a[i].exposedWait = f->a[i].wait;
  piece_sort(f->aPiece, f->nPiece);
  while( k<f->nPiece ){
    int64_t i = f->aPiece[k].i, covered = 0;
    int64_t lo = f->aPiece[k].lo, hi = f->aPiece[k].hi;
    for(k++; k<f->nPiece && f->aPiece[k].i==i; k++){
      if( f->aPiece[k].lo>hi ){
        covered += hi - lo;
        lo = f->aPiece[k].lo;
        hi = f->aPiece[k].hi;
      }else if( f->aPiece[k].hi>hi ){
        hi = f->aPiece[k].hi;
      }
    }
    covered += hi - lo;
    f->a[i].exposedWait -= covered;
  }
}

/* The union of the sorted spans s[0..n) (rank's) into the windows of a
** (the host windows: disjoint and sorted per rank) it meets. */
static void host_fill(Win *a, int n, int64_t rank, const Span *s, size_t nS){
  size_t j = 0;
  while( j<nS ){
    int64_t u0 = s[j].ts, u1 = s[j].end;
    for(j++; j<nS && s[j].ts<=u1; j++){
      if( s[j].end>u1 ) u1 = s[j].end;     /* extends the interval */
    }
    if( u1<=u0 ) continue;
    for(int i=win_lower(a, n, rank, u0+1);
        i<n && a[i].rank==rank && a[i].t0<u1; i++){
      int64_t lo = a[i].t0>u0 ? a[i].t0 : u0;
      int64_t hi = a[i].t1<u1 ? a[i].t1 : u1;
      if( hi>lo ) a[i].comp += hi - lo;
    }
  }
}

/*
** The windows of the host collectives of a[0..n) (gloo / MPI ranges, no
** kernel): from the end of the rank's previous host collective (the
** first: the rank's first CPU op) to this one's start; compute is the
** time in it covered by the rank's CPU ops on any thread (the union of
** their intervals), leaving out the communication ranges themselves and
** the ProfilerStep#N ranges (the legacy exporter writes them as ops; they
** span everything); the rest is host time outside every profiled op
** (Python, data loading, sleeping).  The ops are the kept SPAN_HOST spans
** of each rank (trace_spans.h), merged into disjoint intervals in one
** pass; the first op is the rank's first kept top-level op.  Each host
** window replaces the GPU window of its collective in a.  Returns 0, or
** -1 with pErr set.
*/
static int host_windows(Win *a, int n, const TraceSpans *pSpans,
                        PfError *pErr){
  Win *h = NULL;
  int *aAt = NULL, nH = 0;
  for(int i=0; i<n; i++) nH += a[i].bHost;
  if( nH==0 ) return 0;
  h = xcalloc((size_t)nH, sizeof(Win));
  aAt = xcalloc((size_t)nH, sizeof(int));
  nH = 0;
  for(int i=0; i<n; i++){
    if( !a[i].bHost ) continue;
    h[nH] = a[i];
    /* from the previous host collective of the rank, else its start */
    h[nH].t0 = nH>0 && h[nH-1].rank==a[i].rank
             ? (h[nH-1].end<a[i].t1 ? h[nH-1].end : a[i].t1) : a[i].t1;
    h[nH].comp = 0;
    aAt[nH++] = i;
  }
  for(int i=0; i<nH; ){
    int64_t rank = h[i].rank;
    size_t nS;
    Span *s = trace_spans_rank_cpu(pSpans, rank, SPAN_CPU, &nS);
    if( nS>0 && s[0].ts<h[i].t0 ) h[i].t0 = s[0].ts;   /* the first op */
    free(s);
    s = trace_spans_rank_cpu(pSpans, rank, SPAN_HOST, &nS);
    host_fill(h, nH, rank, s, nS);
    free(s);
    while( i<nH && h[i].rank==rank ) i++;
  }
  for(int i=0; i<nH; i++){
    a[aAt[i]].t0 = h[i].t0;
    a[aAt[i]].comp = h[i].comp;
  }
  free(h);
  free(aAt);
  return trace_spans_check(pSpans, pErr) ? -1 : 0;
}

/* Write the collective_window rows of a.  Returns 0 or -1 (pErr). */
static int write_windows(sqlite3 *db, int64_t runId, const Win *a, int n,
                         PfError *pErr){
  sqlite3_stmt *ins = db_prepare(db,
      db_statement("derive-straggler-write-windows"), pErr);
  int rc = 0;
  if( ins==NULL ) return -1;
  for(int i=0; i<n && rc==0; i++){
    const Win *w = &a[i];
    int64_t win = w->t1 - w->t0, c = w->comp<win ? w->comp : win;
    /* the idle stretch right before the collective, and the part of it
    ** after the launch call had returned */
    int64_t gap = w->t1 - w->lastBusy, from, queued = 0;
    if( w->launchEnd>=0 && gap>0 ){
      from = w->launchEnd>w->lastBusy ? w->launchEnd : w->lastBusy;
      queued = w->t1 - from;
      if( queued<0 ) queued = 0;
    }
    if( queued>win-c ) queued = win - c;
    sqlite3_bind_int64(ins, 1, w->id);
    sqlite3_bind_int64(ins, 2, runId);
    sqlite3_bind_int64(ins, 3, win);
    sqlite3_bind_int64(ins, 4, c);
    sqlite3_bind_int64(ins, 5, win - c);
    sqlite3_bind_int64(ins, 6, w->arrival);
    sqlite3_bind_int64(ins, 7, w->wait);
    sqlite3_bind_int64(ins, 8, w->exposedWait);
    sqlite3_bind_int64(ins, 9, queued);
    rc = db_step_done(db, ins, pErr);
  }
  sqlite3_finalize(ins);
  return rc;
}

int derive_straggler_run(sqlite3 *db, int64_t runId, const TraceSpans *pSpans,
                         const int64_t *aName, int nName, PfError *pErr){
  Fill f;
  ClockEst *aEst;
  int n, nRank, rc = -1;
  Win *a = load_windows(db, runId, &n, pErr);
  if( a==NULL ) return n<0 ? -1 : 0;
  nRank = a[n-1].iRank + 1;
  aEst = xcalloc((size_t)nRank, sizeof(ClockEst));
  memset(&f, 0, sizeof(f));
  f.a = a;
  f.n = n;
  f.aName = aName;
  f.nName = nName;
  f.aMaxWait = xcalloc((size_t)nRank, sizeof(int64_t));
  if( estimate_clocks(db, runId, a, n, nRank, aEst, pErr) ) goto done;
  arrivals(a, n, aEst, f.aMaxWait);
  fill_kept(pSpans, &f);
  exposed_waits(&f);
  if( host_windows(a, n, pSpans, pErr) ) goto done;
  rc = write_windows(db, runId, a, n, pErr);
done:
  free(f.aPiece);
  free(f.aMaxWait);
  free(aEst);
  free(a);
  return rc;
}
