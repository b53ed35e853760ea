/*
** export_derived.c — profan's own tracks in an exported trace, on one
** process per rank named "rank R: profan (derived)": the steps (with
** their phase), the largest GPU idle gaps per device (table gpu_gap) and
** the exposed communication per device (collective kernels with no other
** kernel running, computed over the window's kernels).  Their category
** is "profan", which no trace reader takes for a Kineto event, so a
** re-ingested export holds exactly the rows that were exported.
**
** Counter tracks ("C" events, category "profan"): the launch queue of
** each stream (view hta_queue_length) and the memory bandwidth in use per
** device and kind (view hta_memory_bw_series), HTA's counters of
** generate_trace_with_counters.
**
** Pipeline position: read side, called by export_trace.c.  A new interval
** track is one more row in aTrack (a query returning tid, thread name,
** ts, dur, name, args JSON), a new counter one more row in aCounter;
** only the exposed-communication sweep is code.
*/
#include "report/export_derived.h"
#include "core/db.h"

#include <stdlib.h>
#include <string.h>

typedef struct Dx {
  sqlite3 *db;
  const ExportSpec *pSpec;
  const ExportRank *pR;
  int64_t base;
  ExportPids *pPids;
  ExportSink *pSink;
  Buf *b;
  int64_t n;
  PfError *pErr;
} Dx;

/* One derived interval track.  ?1 run, ?2 rank, ?3/?4 the window; the
** query returns tid, thread name, ts, dur, event name, args (a JSON
** object as text) for the rows overlapping the window. */
typedef struct Track {
  const char *zWhat;
  const char *zSql;            /* name of its statements/NAME.sql */
} Track;

static const Track aTrack[] = {
  /* The phase of each step: the view step_steady (schema 011), the one
  ** definition of warm-up, cut and steady steps. */
  { "steps",
    "export-derived-steps" },
  /* The step's critical path (hta_critical_path, derive_hta): one chain
  ** of segments in time order, each named by its class and its longest
  ** contributor. */
  { "critical path",
    "export-derived-critical-path" },
  { "GPU idle gaps",
    "export-derived-gpu-idle-gaps" },
};
#define N_TRACK ((int)(sizeof(aTrack)/sizeof(aTrack[0])))

/* One counter track family.  ?1 run, ?2 rank, ?3/?4 the window; the
** query returns counter name, ts, value key, value: the change points
** inside the window and the value holding at its start (the last change
** before it, moved to the start). */
typedef struct Counter {
  const char *zWhat;
  const char *zSql;            /* name of its statements/NAME.sql */
} Counter;

static const Counter aCounter[] = {
  { "launch queue",
    "export-derived-launch-queue" },
  { "memory bandwidth",
    "export-derived-memory-bandwidth" },
};
#define N_COUNTER ((int)(sizeof(aCounter)/sizeof(aCounter[0])))

static void dx_event(Dx *x, int64_t tid, const char *zThread, int64_t ts,
                     int64_t dur, const char *zName, const char *zArgs){
  int64_t pid = export_pids_get(x->pPids, x->pR->rank, EXPORT_PID_PROFAN, 0,
                                tid, zThread);
  buf_puts(x->b, ",\n{\"ph\":\"X\",\"cat\":\"profan\",\"name\":");
  export_json_str(x->b, zName, -1);
  buf_printf(x->b, ",\"pid\":%lld,\"tid\":%lld,\"ts\":", (long long)pid,
             (long long)tid);
  export_json_us(x->b, ts - x->base);
  buf_puts(x->b, ",\"dur\":");
  export_json_us(x->b, dur);
  buf_puts(x->b, ",\"args\":");
  buf_puts(x->b, zArgs && zArgs[0]=='{' ? zArgs : "{}");
  buf_putc(x->b, '}');
  x->n++;
  if( x->b->n > 256*1024 ) export_sink_flush_buf(x->pSink, x->b);
}

static int dx_fail(Dx *x, sqlite3_stmt *s){
  pf_error_set(x->pErr, ERRPOS_NONE, 0, "database: %s",
               sqlite3_errmsg(x->db));
  sqlite3_finalize(s);
  return -1;
}

static int write_track(Dx *x, const Track *t){
  sqlite3_stmt *s = db_prepare(x->db, db_statement(t->zSql), x->pErr);
  int rc;
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, x->pSpec->runId);
  sqlite3_bind_int64(s, 2, x->pR->rank);
  sqlite3_bind_int64(s, 3, x->pR->lo);
  sqlite3_bind_int64(s, 4, x->pR->hi);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    dx_event(x, sqlite3_column_int64(s, 0),
             (const char*)sqlite3_column_text(s, 1),
             sqlite3_column_int64(s, 2), sqlite3_column_int64(s, 3),
             (const char*)sqlite3_column_text(s, 4),
             (const char*)sqlite3_column_text(s, 5));
  }
  if( rc!=SQLITE_DONE ) return dx_fail(x, s);
  sqlite3_finalize(s);
  return 0;
}

static int write_counter(Dx *x, const Counter *c){
  sqlite3_stmt *s = db_prepare(x->db, db_statement(c->zSql), x->pErr);
  int64_t pid = export_pids_get(x->pPids, x->pR->rank, EXPORT_PID_PROFAN,
                                0, 3, "counters");
  int rc;
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, x->pSpec->runId);
  sqlite3_bind_int64(s, 2, x->pR->rank);
  sqlite3_bind_int64(s, 3, x->pR->lo);
  sqlite3_bind_int64(s, 4, x->pR->hi);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    buf_puts(x->b, ",\n{\"ph\":\"C\",\"cat\":\"profan\",\"name\":");
    export_json_str(x->b, (const char*)sqlite3_column_text(s, 0), -1);
    buf_printf(x->b, ",\"pid\":%lld,\"tid\":3,\"ts\":", (long long)pid);
    export_json_us(x->b, sqlite3_column_int64(s, 1) - x->base);
    buf_puts(x->b, ",\"args\":{");
    export_json_str(x->b, (const char*)sqlite3_column_text(s, 2), -1);
    buf_printf(x->b, ":%.6g}}", sqlite3_column_double(s, 3));
    x->n++;
    if( x->b->n > 256*1024 ) export_sink_flush_buf(x->pSink, x->b);
  }
  if( rc!=SQLITE_DONE ) return dx_fail(x, s);
  sqlite3_finalize(s);
  return 0;
}

/* ------------------------------------------- exposed communication */

typedef struct Iv { int64_t ts, end; } Iv;
typedef struct IvList { Iv *a; int n, nAlloc; } IvList;

/* Add [ts, end) to a union kept sorted and merged; rows come by start. */
static void iv_add(IvList *l, int64_t ts, int64_t end){
  if( l->n>0 && ts<=l->a[l->n-1].end ){
    if( end>l->a[l->n-1].end ) l->a[l->n-1].end = end;
    return;
  }
  if( l->n==l->nAlloc ){
    l->nAlloc = l->nAlloc ? 2*l->nAlloc : 64;
    l->a = xrealloc(l->a, (size_t)l->nAlloc*sizeof(Iv));
  }
  l->a[l->n].ts = ts;
  l->a[l->n].end = end;
  l->n++;
}

/* Emit comm minus comp of one device, then empty both. */
static void exposed_flush(Dx *x, int64_t dev, IvList *pComm, IvList *pComp){
  int j = 0;
  char zThread[64];
  snprintf(zThread, sizeof(zThread), "GPU %lld exposed communication",
           (long long)dev);
  for(int i=0; i<pComm->n; i++){
    int64_t a = pComm->a[i].ts, e = pComm->a[i].end;
    while( j<pComp->n && pComp->a[j].end<=a ) j++;
    for(int k=j; a<e; k++){
      int64_t cut = k<pComp->n && pComp->a[k].ts<e ? pComp->a[k].ts : e;
      if( cut>a ){
        char zArgs[64];
        snprintf(zArgs, sizeof(zArgs), "{\"ms\":%.3f}", (double)(cut-a)/1e6);
        dx_event(x, 1000 + dev, zThread, a, cut-a, "exposed communication",
                 zArgs);
      }
      if( k>=pComp->n || pComp->a[k].ts>=e ) break;
      a = pComp->a[k].end;
    }
  }
  pComm->n = 0;
  pComp->n = 0;
}

/* The window's kernels of every rank by rank, device and start, in one
** pass over the run's kernels (joined with temp.export_win); a kernel is
** communication when it has a collective row (derive_comm.c). */
static int write_exposed(Dx *x){
  sqlite3_stmt *s;
  IvList comm = {0}, comp = {0};
  int64_t lo = 0, hi = -1, dev = 0, rank = 0;
  int rc, any = 0;
  if( db_run_rowids(x->db, "kernel", x->pSpec->runId, &lo, &hi, x->pErr) ){
    return -1;
  }
  s = db_prepare(x->db,
    db_statement("export-derived-write-exposed"), x->pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, x->pSpec->runId);
  sqlite3_bind_int64(s, 2, lo);
  sqlite3_bind_int64(s, 3, hi);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    int64_t r = sqlite3_column_int64(s, 0);
    int64_t d = sqlite3_column_int64(s, 1);
    int64_t ts = sqlite3_column_int64(s, 2);
    int64_t end = ts + sqlite3_column_int64(s, 3);
    if( any && (d!=dev || r!=rank) ) exposed_flush(x, dev, &comm, &comp);
    if( !any || r!=rank ) x->pR = export_spec_rank(x->pSpec, x->pR, r);
    dev = d;
    rank = r;
    any = 1;
    iv_add(sqlite3_column_int(s, 4) ? &comm : &comp, ts, end);
  }
  if( rc==SQLITE_DONE && any ) exposed_flush(x, dev, &comm, &comp);
  free(comm.a);
  free(comp.a);
  if( rc!=SQLITE_DONE ) return dx_fail(x, s);
  sqlite3_finalize(s);
  return 0;
}

int64_t export_derived_write(sqlite3 *db, const ExportSpec *pSpec,
                             int64_t base, ExportPids *pPids,
                             ExportSink *pSink, Buf *pOut, PfError *pErr){
  Dx x;
  memset(&x, 0, sizeof(x));
  x.db = db;
  x.pSpec = pSpec;
  x.base = base;
  x.pPids = pPids;
  x.pSink = pSink;
  x.b = pOut;
  x.pErr = pErr;
  for(int r=0; r<pSpec->nRank; r++){
    x.pR = &pSpec->aRank[r];
    for(int i=0; i<N_TRACK; i++){
      if( write_track(&x, &aTrack[i]) ) return -1;
    }
    for(int i=0; i<N_COUNTER; i++){
      if( write_counter(&x, &aCounter[i]) ) return -1;
    }
  }
  if( write_exposed(&x) ) return -1;
  return x.n;
}
