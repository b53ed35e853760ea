/*
** trace_feed.c — a run's stored trace rows to what is kept of them (see
** trace_feed.h).
**
** Pipeline position: between "load" and "derive".  One pass over each
** table in rowid order over the run's rowid range (cpu_op, runtime_call,
** memory_event) or through its run_id index (kernel, gpu_mem_op): the
** totals and spans take rows in any order.  Each row becomes the
** TraceRow the writer would have built when inserting it (NULL columns as
** 0, step -1).
*/
#include "trace/trace_feed.h"
#include "core/db.h"
#include "trace/trace_keep.h"

#include <string.h>

/* One table: its query (?1 run, ?2 ?3 its rowid range) and the kind of
** its rows. */
typedef struct FeedTab {
  const char *zTab;
  TraceEventKind eKind;
  const char *zSql;            /* name of its statements/NAME.sql */
} FeedTab;

/* Columns of every query: id, file_id, ts, dur, name_id, then per table
** (see row_of). */
static const FeedTab aTab[] = {
  { "cpu_op", TEV_CPU_OP,
    "trace-feed-cpu-op" },
  { "runtime_call", TEV_RUNTIME,
    "trace-feed-runtime-call" },
  { "kernel", TEV_KERNEL,
    "trace-feed-kernel" },
  { "gpu_mem_op", TEV_MEMCPY,
    "trace-feed-gpu-mem-op" },
  { "memory_event", TEV_MEMORY,
    "trace-feed-memory-event" },
};

static int64_t col_int(sqlite3_stmt *s, int i){
  return sqlite3_column_int64(s, i);
}

static int64_t col_step(sqlite3_stmt *s, int i){
  return sqlite3_column_type(s, i)==SQLITE_NULL ? -1
       : sqlite3_column_int64(s, i);
}

/* The row at s of table t as the writer would have kept it. */
static void row_of(const FeedTab *t, sqlite3_stmt *s, TraceRow *r){
  const char *zSrc;
  memset(r, 0, sizeof(*r));
  r->kind = t->eKind;
  r->launchStep = -1;
  r->id = col_int(s, 0);
  r->fileId = col_int(s, 1);
  r->ts = col_int(s, 2);
  r->dur = col_int(s, 3);
  r->nameId = col_int(s, 4);
  switch( t->eKind ){
    case TEV_CPU_OP:
      r->tid = col_int(s, 5);
      r->parentId = col_int(s, 6);
      r->linked = sqlite3_column_type(s, 7)!=SQLITE_NULL;
      r->depth = sqlite3_column_int(s, 7);
      r->selfDur = col_int(s, 8);
      r->step = col_step(s, 9);
      r->dimsId = col_int(s, 10);
      r->typesId = col_int(s, 11);
      r->concId = col_int(s, 12);
      zSrc = (const char*)sqlite3_column_text(s, 14);
      if( zSrc ){
        r->flops = sqlite3_column_double(s, 13);
        r->flopsSrc = strcmp(zSrc, "arg")==0 ? 1 : 2;
      }
      break;
    case TEV_RUNTIME:
      if( sqlite3_column_int(s, 10) ) r->kind = TEV_DRIVER;
      r->tid = col_int(s, 5);
      r->opId = col_int(s, 6);
      r->topOpId = col_int(s, 7);
      r->linked = sqlite3_column_type(s, 8)!=SQLITE_NULL;
      r->inRecompute = sqlite3_column_int(s, 8);
      r->step = col_step(s, 9);
      break;
    case TEV_MEMORY:
      r->total = col_int(s, 5);
      break;
    default:                                /* kernel, gpu_mem_op */
      r->hasDevice = sqlite3_column_type(s, 5)!=SQLITE_NULL;
      r->device = col_int(s, 5);
      r->stream = col_int(s, 6);
      r->runtimeId = col_int(s, 7);
      r->opId = col_int(s, 8);
      r->step = col_step(s, 9);
      r->launchStep = col_step(s, 10);
      if( t->eKind==TEV_KERNEL ){
        r->zName = (const char*)sqlite3_column_text(s, 11);
        r->nName = sqlite3_column_bytes(s, 11);
        if( r->zName==NULL ) r->zName = "";
      }else{
        r->kind = sqlite3_column_int(s, 11) ? TEV_MEMSET : TEV_MEMCPY;
        r->host = r->kind==TEV_MEMCPY && sqlite3_column_int(s, 12);
      }
      break;
  }
}

/* Every row of table t of run runId.  Returns 0 or -1 (pErr). */
static int feed_table(sqlite3 *db, const FeedTab *t, int64_t runId,
                      TraceTotals *pTot, TraceSpans *pSpans, PfError *pErr){
  int empty, rc;
  sqlite3_stmt *s = db_prepare_run_range(db, db_statement(t->zSql), t->zTab,
                                         runId, &empty, pErr);
  if( s==NULL ) return empty ? 0 : -1;
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    TraceRow r;
    row_of(t, s, &r);
    trace_keep_row(pTot, pSpans, &r);
  }
  sqlite3_finalize(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

int trace_feed_run(sqlite3 *db, int64_t runId, TraceTotals *pTot,
                   TraceSpans *pSpans, PfError *pErr){
  sqlite3_stmt *s;
  int rc;
  trace_keep_begin(pTot, pSpans, db);
  for(size_t i=0; i<sizeof(aTab)/sizeof(aTab[0]); i++){
    if( feed_table(db, &aTab[i], runId, pTot, pSpans, pErr) ) return -1;
  }
  s = db_prepare(db, db_statement("trace-feed-run"), pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    trace_keep_file_done(pTot, pSpans, sqlite3_column_int64(s, 0), 0,
                         sqlite3_column_int64(s, 1));
  }
  sqlite3_finalize(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}
