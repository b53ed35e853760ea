/*
** trace_relink.c — the stored rows of one trace file through the
** in-stream linker again (see trace_relink.h).
**
** Pipeline position: "link", after the load (ingest.c) or for `profan
** rebuild`.  The rows are read in the one order the linker links in a
** single pass, whatever the order of the file they came from:
**   1. the file's ProfilerStep#N annotations and ops, as steps;
**   2. its ops by (thread, start, longest first, External id, id): the
**      order link_trace.c places ops of one start in;
**   3. its runtime and driver calls by (thread, start, id);
**   4. its kernels, then its memcpy/memset rows (the call map links them
**      whatever their order).
** Ops and calls keep their ids (the linker keeps an id it is fed); GPU
** rows carry theirs through it.  Each emitted row updates its link
** columns where they differ ("... WHERE id=? AND (col IS NOT ? ...)").
** Memory: the linker's (its spools), not the file's rows.
*/
#include "trace/trace_relink.h"
#include "core/db.h"
#include "trace/link_trace.h"
#include "trace/trace_args.h"
#include "trace/trace_ids.h"

#include <string.h>

enum { U_OP, U_CALL, U_KERNEL, U_MEMOP, U_N };

/* by name: statements/NAME.sql */
static const char *const azUpdate[U_N] = {
  "trace-relink-update-cpu-op",
  "trace-relink-update-runtime-call",
  "trace-relink-update-kernel",
  "trace-relink-update-gpu-mem-op",
};

typedef struct Relink {
  sqlite3 *db;
  sqlite3_stmt *aUpd[U_N];
  int64_t nChanged;
  PfError *pErr;
} Relink;

/* The emit callback: write the link columns of the row e is. */
static int relink_emit(void *ctx, const TraceEvent *e){
  Relink *r = ctx;
  sqlite3_stmt *s;
  int lk = e->linked;
  switch( e->kind ){
    case TEV_CPU_OP:
      s = r->aUpd[U_OP];
      db_bind_int_or_null(s, 2, lk && e->parentId>0, e->parentId);
      db_bind_int_or_null(s, 3, lk, e->depth);
      db_bind_int_or_null(s, 4, lk, e->selfDur);
      db_bind_int_or_null(s, 5, lk && e->step>=0, e->step);
      break;
    case TEV_RUNTIME:
    case TEV_DRIVER:
      s = r->aUpd[U_CALL];
      db_bind_int_or_null(s, 2, lk && e->opId>0, e->opId);
      db_bind_int_or_null(s, 3, lk && e->topOpId>0, e->topOpId);
      db_bind_int_or_null(s, 4, lk, e->inRecompute);
      db_bind_int_or_null(s, 5, lk && e->step>=0, e->step);
      break;
    case TEV_KERNEL:
    case TEV_MEMCPY:
    case TEV_MEMSET:
      s = r->aUpd[e->kind==TEV_KERNEL ? U_KERNEL : U_MEMOP];
      db_bind_int_or_null(s, 2, lk && e->runtimeId>0, e->runtimeId);
      db_bind_int_or_null(s, 3, lk && e->opId>0, e->opId);
      db_bind_int_or_null(s, 4, lk && e->step>=0, e->step);
      break;
    default:
      return 0;
  }
  sqlite3_bind_int64(s, 1, e->rowId);
  if( db_step_done(r->db, s, r->pErr) ) return 1;
  r->nChanged += sqlite3_changes(r->db);
  return 0;
}

/* The rows of one kind, in the order of the query (columns: id, tid,
** ts, dur, name, correlation, kind text; ops: external_id), into the
** linker. */
typedef struct Feed {
  TraceEventKind eKind;        /* TEV_CPU_OP, TEV_RUNTIME, TEV_KERNEL,
                               ** TEV_MEMCPY (memcpy/memset by column 6) */
  const char *zSql;            /* statements/ name; ?1 run, ?2 file,
                               ** ?3 ?4 id range */
} Feed;

static const Feed aFeed[] = {
  { TEV_CPU_OP,
    "trace-relink-select-cpu-op" },
  { TEV_RUNTIME,
    "trace-relink-select-runtime-call" },
  { TEV_KERNEL,
    "trace-relink-select-kernel" },
  { TEV_MEMCPY,
    "trace-relink-select-gpu-mem-op" },
};

/* The event of the row at s for feed f. */
static void row_event(const Feed *f, sqlite3_stmt *s, TraceEvent *e){
  memset(e, 0, sizeof(*e));
  e->kind = f->eKind;
  /* column 6: runtime_call.driver (1: a driver call), gpu_mem_op.kind */
  if( f->eKind==TEV_RUNTIME && sqlite3_column_int(s, 6) ){
    e->kind = TEV_DRIVER;
  }
  if( f->eKind==TEV_MEMCPY ){
    const char *zKind = (const char*)sqlite3_column_text(s, 6);
    if( zKind && strcmp(zKind, "memset")==0 ) e->kind = TEV_MEMSET;
  }
  e->ph = 'X';
  e->rowId = sqlite3_column_int64(s, 0);
  e->tid = sqlite3_column_int64(s, 1);       /* NULL: thread 0, as parsed */
  e->ts = sqlite3_column_int64(s, 2);
  e->dur = sqlite3_column_int64(s, 3);
  e->zName = (const char*)sqlite3_column_text(s, 4);
  if( e->zName==NULL ) e->zName = "";
  e->nName = (int)strlen(e->zName);
  e->zCat = e->zInputDims = e->zInputTypes = e->zConcreteInputs = "";
  e->has = TF_TS | TF_DUR;
  if( sqlite3_column_type(s, 1)!=SQLITE_NULL ) e->has |= TF_TID;
  if( sqlite3_column_type(s, 5)!=SQLITE_NULL ){
    e->correlation = sqlite3_column_int64(s, 5);
    e->has |= TF_CORRELATION;
  }
  if( f->eKind==TEV_CPU_OP && sqlite3_column_type(s, 7)!=SQLITE_NULL ){
    e->external_id = sqlite3_column_int64(s, 7);
    e->has |= TF_EXTERNAL_ID;
  }
  e->step = -1;
}

/* Every ProfilerStep#N of the file (CPU annotations, 2021 step ops) to
** the linker first.  Returns 0 or -1 (pErr). */
static int feed_steps(sqlite3 *db, Linker *pLink, int64_t runId,
                      int64_t fileId, int64_t idBase, int64_t idLast,
                      PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    db_statement("trace-relink-feed-steps"), pErr);
  int rc;
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  sqlite3_bind_int64(s, 2, fileId);
  sqlite3_bind_int64(s, 3, idBase);
  sqlite3_bind_int64(s, 4, idLast);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    int64_t n = trace_args_step_number((const char*)sqlite3_column_text(s, 0));
    if( n>=0 ){
      link_trace_step(pLink, n, sqlite3_column_int64(s, 1),
                      sqlite3_column_int64(s, 2));
    }
  }
  sqlite3_finalize(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

/* The rows of feed f into the linker.  Returns 0 or -1 (pErr). */
static int feed_rows(sqlite3 *db, Linker *pLink, const Feed *f,
                     int64_t runId, int64_t fileId, int64_t idBase,
                     int64_t idLast, PfError *pErr){
  sqlite3_stmt *s = db_prepare(db, db_statement(f->zSql), pErr);
  int rc, bad = 0;
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  sqlite3_bind_int64(s, 2, fileId);
  sqlite3_bind_int64(s, 3, idBase);
  sqlite3_bind_int64(s, 4, idLast);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    TraceEvent e;
    row_event(f, s, &e);
    if( link_trace_event(pLink, &e, pErr) ){ bad = 1; break; }
  }
  sqlite3_finalize(s);
  if( bad ) return -1;
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

int trace_relink_file(sqlite3 *db, int64_t runId, int64_t fileId,
                      int64_t *pnChanged, PfError *pErr){
  Relink r;
  Linker *pLink = NULL;
  int64_t idBase, idLast;
  int rc = -1;
  memset(&r, 0, sizeof(r));
  r.db = db;
  r.pErr = pErr;
  for(int i=0; i<U_N; i++){
    r.aUpd[i] = db_prepare(db, db_statement(azUpdate[i]), pErr);
    if( r.aUpd[i]==NULL ) goto done;
  }
  if( trace_ids_range(db, fileId, &idBase, &idLast, pErr) ) goto done;
  pLink = link_trace_new(idBase, relink_emit, &r);
  if( feed_steps(db, pLink, runId, fileId, idBase, idLast, pErr) ){
    goto done;
  }
  link_trace_steps_given(pLink);
  for(size_t i=0; i<sizeof(aFeed)/sizeof(aFeed[0]); i++){
    if( feed_rows(db, pLink, &aFeed[i], runId, fileId, idBase, idLast,
                  pErr) ){
      goto done;
    }
  }
  if( link_trace_finish(pLink, pErr) ) goto done;
  if( pnChanged ) *pnChanged = r.nChanged;
  rc = 0;
done:
  link_trace_free(pLink);
  for(int i=0; i<U_N; i++) sqlite3_finalize(r.aUpd[i]);
  return rc;
}
