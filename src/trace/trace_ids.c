/*
** trace_ids.c — a trace file's operator and runtime-call id range (see
** trace_ids.h, schema/129-trace-id-base.sql).
**
** Pipeline position: ingest.c reserves a range per trace file before
** the parse, ingest_trace.c shrinks it after the load; op_store.c,
** trace_totals.c and trace_relink.c read it.
*/
#include "trace/trace_ids.h"
#include "core/db.h"

/* an op or runtime call is at least {"ph":"X"} */
#define TRACE_IDS_EVENT_BYTES 10
/* deflate's largest ratio of output to input bytes */
#define TRACE_IDS_DEFLATE_RATIO 1032

int64_t trace_ids_bound(int64_t nBytes, int isGzip){
  int64_t n = nBytes<0 ? 0 : nBytes;
  if( isGzip ){
    if( n > INT64_MAX/TRACE_IDS_DEFLATE_RATIO ) return INT64_MAX/2;
    n *= TRACE_IDS_DEFLATE_RATIO;
  }
  return n/TRACE_IDS_EVENT_BYTES + 1;
}

/* The two integers of statement zStmt's one row, ?1 .. ?n bound to
** a[0 .. n).  0, or -1 with pErr set (zNone, with a[0], when there is no
** row). */
static int two_ints(sqlite3 *db, const char *zStmt, const int64_t *a, int n,
                    int64_t *p1, int64_t *p2, const char *zNone,
                    PfError *pErr){
  sqlite3_stmt *s = db_prepare(db, db_statement(zStmt), pErr);
  int rc;
  if( s==NULL ) return -1;
  for(int i=0; i<n; i++) sqlite3_bind_int64(s, i+1, a[i]);
  rc = sqlite3_step(s);
  if( rc==SQLITE_ROW ){
    *p1 = sqlite3_column_int64(s, 0);
    *p2 = sqlite3_column_int64(s, 1);
    rc = sqlite3_step(s);
  }else if( rc==SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, zNone, (long long)a[0]);
    sqlite3_finalize(s);
    return -1;
  }
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return -1;
  }
  sqlite3_finalize(s);
  return 0;
}

int trace_ids_reserve(sqlite3 *db, int64_t runId, int64_t fileId,
                      int64_t nMax, int64_t *pBase, int64_t *pLast,
                      PfError *pErr){
  int64_t a[3];
  a[0] = fileId;
  a[1] = runId;
  a[2] = nMax;
  return two_ints(db, "trace-ids-reserve", a, 3, pBase, pLast,
                  "trace file %lld: no id range recorded", pErr);
}

int trace_ids_used(sqlite3 *db, int64_t fileId, int64_t nUsed,
                   PfError *pErr){
  sqlite3_stmt *s = db_prepare(db, db_statement("trace-ids-used"), pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, fileId);
  sqlite3_bind_int64(s, 2, nUsed);
  if( db_step_done(db, s, pErr) ){
    sqlite3_finalize(s);
    return -1;
  }
  sqlite3_finalize(s);
  return 0;
}

int trace_ids_range(sqlite3 *db, int64_t fileId, int64_t *pBase,
                    int64_t *pLast, PfError *pErr){
  return two_ints(db, "trace-ids-range", &fileId, 1, pBase, pLast,
                  "trace file %lld has no row id range (trace_id_base)",
                  pErr);
}
