/*
** db.c — opening, creating and migrating profan databases, and the small
** statement helpers every command uses.
**
** Pipeline position: "load" (ingest writes through here) and every reader.
** A database is recognised by PRAGMA application_id; its schema version is
** PRAGMA user_version = the number NNN of the last schema/NNN-NAME.sql
** file applied (schema/001-baseline.sql, which counts as
** PROFAN_SCHEMA_BASELINE, then files numbered above it, gaps allowed).
*/
#define PROFAN_DB_IMPL      /* the real sqlite3_step and binds in here */
#include "core/db.h"
#include "core/db_config.h"
#include "core/embedded.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>
#include <unistd.h>

const char *db_statement(const char *zName){
  size_t n = strlen(zName);
  for(int i=0; embedded_statement[i].zName; i++){
    const char *z = embedded_statement[i].zName;
    if( strncmp(z, zName, n)==0 && strcmp(z+n, ".sql")==0 ){
      return embedded_statement[i].zText;
    }
  }
  util_fatal("internal error: no statement statements/%s.sql", zName);
}

int db_table_columns(sqlite3 *db, const char *zTab, char **pzCols,
                     char **pzParams, PfError *pErr){
  sqlite3_stmt *p = db_prepare(db, db_statement("table-columns"), pErr);
  int n = -1;
  *pzCols = *pzParams = NULL;
  if( p==NULL ) return -1;
  sqlite3_bind_text(p, 1, zTab, -1, SQLITE_STATIC);
  if( sqlite3_step(p)==SQLITE_ROW ){
    const char *zC = (const char *)sqlite3_column_text(p, 0);
    const char *zP = (const char *)sqlite3_column_text(p, 1);
    n = sqlite3_column_int(p, 2);
    *pzCols = xstrdup(zC ? zC : "");
    *pzParams = xstrdup(zP ? zP : "");
  }else{
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(p);
  return n;
}

int db_schema_file_number(const char *zName){
  if( zName==NULL ) return -1;
  for(int i=0; i<3; i++){
    if( zName[i]<'0' || zName[i]>'9' ) return -1;
  }
  if( zName[3]!='-' ) return -1;
  return (zName[0]-'0')*100 + (zName[1]-'0')*10 + (zName[2]-'0');
}

int db_schema_file_version(const char *zName){
  int n = db_schema_file_number(zName);
  return n==1 ? PROFAN_SCHEMA_BASELINE : n;
}

int db_schema_version(void){
  int v = 0;
  for(int i=0; embedded_schema[i].zName; i++){
    v = db_schema_file_version(embedded_schema[i].zName);
  }
  return v;
}

static void txn_poison(sqlite3 *db, int rc);

int db_exec(sqlite3 *db, const char *zSql, PfError *pErr){
  char *zErr = NULL;
  int rc;
  if( zSql==NULL ){
    /* the caller's sqlite3_mprintf() ran out of memory (sqlite3_exec
    ** would run NULL as an empty script) */
    if( pErr ) pf_error_set(pErr, ERRPOS_NONE, 0, "out of memory");
    txn_poison(db, SQLITE_NOMEM);
    return SQLITE_NOMEM;
  }
  rc = sqlite3_exec(db, zSql, NULL, NULL, &zErr);
  if( rc!=SQLITE_OK ){
    /* out of memory: SQLite's message may name what it was doing ("unable
    ** to open a temporary database file ...", "disk I/O error" for
    ** SQLITE_IOERR_NOMEM) instead: say what it is */
    int nomem = (rc & 0xff)==SQLITE_NOMEM || rc==SQLITE_IOERR_NOMEM;
    if( pErr ) pf_error_set(pErr, ERRPOS_NONE, 0, "%s",
                            nomem ? "out of memory"
                            : zErr ? zErr : sqlite3_errstr(rc));
    sqlite3_free(zErr);
  }
  return rc;
}

/* The commit hook of an armed guard: no commit gets through. */
static int guard_veto(void *pArg){
  (void)pArg;
  return 1;
}

/* The error that made SQLite roll back the guarded transaction by itself
** (first one; SQLITE_OK when none).  One writing connection per process. */
static int gLostRc;
/* The guard of db_begin() is armed (one writing connection per process). */
static int gArmed;

/* The error of a failed bind on this thread, for the next step. */
static _Thread_local int tBindRc;

static int bind_done(int rc){
  if( (rc & 0xff)==SQLITE_NOMEM || (rc & 0xff)==SQLITE_TOOBIG ) tBindRc = rc;
  return rc;
}

int db_bind_text_checked(sqlite3_stmt *p, int i, const char *z, int n,
                         void (*xDel)(void*)){
  return bind_done(sqlite3_bind_text(p, i, z, n, xDel));
}
int db_bind_blob_checked(sqlite3_stmt *p, int i, const void *z, int n,
                         void (*xDel)(void*)){
  return bind_done(sqlite3_bind_blob(p, i, z, n, xDel));
}
int db_bind_value_checked(sqlite3_stmt *p, int i, const sqlite3_value *v){
  return bind_done(sqlite3_bind_value(p, i, v));
}

/* An out-of-memory or I/O error that a caller may not act on (a default
** value returned instead, a failed bind): inside a guarded transaction,
** end it as SQLite itself does after such errors, so that the caller
** cannot go on to commit a result built on a missing value. */
static void txn_poison(sqlite3 *db, int rc){
  int r = rc & 0xff;
  if( r!=SQLITE_NOMEM && r!=SQLITE_IOERR && r!=SQLITE_FULL
      && r!=SQLITE_TOOBIG ){
    return;
  }
  if( gArmed && !sqlite3_get_autocommit(db) ){
    if( gLostRc==SQLITE_OK ) gLostRc = rc;
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  }
}

int db_step_checked(sqlite3_stmt *p){
  int rc = tBindRc;
  if( rc==SQLITE_OK ) return sqlite3_step(p);
  tBindRc = SQLITE_OK;
  txn_poison(sqlite3_db_handle(p), rc);
  return rc;
}
/* the helpers below step statements their callers bound */
#define sqlite3_step db_step_checked

/* The rollback hook of an armed guard: profan's own ROLLBACK disarms it
** first, so this is SQLite ending the transaction after an error. */
static void guard_rolled_back(void *pArg){
  sqlite3 *db = pArg;
  if( gLostRc==SQLITE_OK ){
    gLostRc = db_config_last_env_rc();
    if( gLostRc==SQLITE_OK ) gLostRc = sqlite3_extended_errcode(db);
    if( gLostRc==SQLITE_OK ) gLostRc = SQLITE_ABORT_ROLLBACK;
  }
}

static void guard_arm(sqlite3 *db, int on){
  gArmed = on;
  sqlite3_commit_hook(db, on ? guard_veto : NULL, NULL);
  sqlite3_rollback_hook(db, on ? guard_rolled_back : NULL, db);
}

int db_begin(sqlite3 *db, PfError *pErr){
  PfError e = {0};
  if( db_exec(db, "BEGIN IMMEDIATE", &e) ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s", e.zMsg);
    return -1;
  }
  gLostRc = SQLITE_OK;
  db_config_reset_env();
  guard_arm(db, 1);
  return 0;
}

int db_txn_lost(sqlite3 *db){
  return sqlite3_get_autocommit(db)!=0;
}

const char *db_lost_reason(sqlite3 *db){
  if( !db_txn_lost(db)
      && sqlite3_extended_errcode(db)!=SQLITE_CONSTRAINT_COMMITHOOK ){
    return NULL;
  }
  if( gLostRc==SQLITE_OK || gLostRc==SQLITE_ABORT_ROLLBACK
      || gLostRc==SQLITE_CONSTRAINT_COMMITHOOK ){
    return "the transaction was rolled back after an earlier error";
  }
  return gLostRc==SQLITE_IOERR_NOMEM ? "out of memory"
                                     : sqlite3_errstr(gLostRc);
}

int db_lost_errcode(void){
  return gLostRc;
}

/* db_hold_signals_after_commit(): set by the command line. */
static sqlite3 *gHoldAfterCommit;

void db_hold_signals_after_commit(sqlite3 *db){
  gHoldAfterCommit = db;
}

int db_commit(sqlite3 *db, PfError *pErr){
  PfError e = {0};
  const char *zLost = db_lost_reason(db);
  sigset_t set, old;
  guard_arm(db, 0);
  if( zLost && db_txn_lost(db) ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot commit: %s", zLost);
    return -1;
  }
  if( gHoldAfterCommit==db ){
    /* a signal during the COMMIT waits: stored or not, the command says
    ** which (see db.h) */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, &old);
  }
  if( db_exec(db, "COMMIT", &e) ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot commit: %s", e.zMsg);
    /* the COMMIT's own error ended the transaction: that is the reason */
    if( db_txn_lost(db) && gLostRc==SQLITE_OK ){
      gLostRc = sqlite3_extended_errcode(db);
    }
    if( !db_txn_lost(db) ) guard_arm(db, 1);
    if( gHoldAfterCommit==db ) pthread_sigmask(SIG_SETMASK, &old, NULL);
    return -1;
  }
  return 0;
}

int db_begin_wait(sqlite3 *db, double timeout, DbWaitFn xWait, void *pArg,
                  double *pWaited, PfError *pErr){
  double t0 = util_now_ms(), waited;
  int bSaid = 0, rc;
  PfError e = {0};
  sqlite3_busy_timeout(db, 0);
  for(;;){
    rc = db_begin(db, &e)==0 ? SQLITE_OK : sqlite3_errcode(db);
    if( (rc & 0xff)!=SQLITE_BUSY && (rc & 0xff)!=SQLITE_LOCKED ) break;
    if( !bSaid && xWait ) xWait(pArg, 0, 0);
    bSaid = 1;
    if( timeout>=0 && util_now_ms()-t0>=timeout*1000.0 ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "the database is still locked by"
                   " another writer after %g s (--timeout); nothing written",
                   timeout);
      pf_error_kind(pErr, PF_KIND_DB);
      sqlite3_busy_timeout(db, 10000);
      return -1;
    }
    usleep(20000);
  }
  waited = (util_now_ms() - t0)/1000.0;
  if( pWaited ) *pWaited = waited;
  sqlite3_busy_timeout(db, 10000);
  if( rc!=SQLITE_OK ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s",
                 e.zMsg[0] ? e.zMsg : sqlite3_errmsg(db));
    pf_error_kind(pErr, PF_KIND_DB);
    return -1;
  }
  if( bSaid && xWait ) xWait(pArg, 1, waited);
  return 0;
}

void db_rollback(sqlite3 *db){
  if( db==NULL ) return;
  guard_arm(db, 0);
  if( !db_txn_lost(db) ) db_exec(db, "ROLLBACK", NULL);
}

int db_exec_run(sqlite3 *db, const char *zSql, int64_t runId, PfError *pErr){
  const char *zTail = zSql;
  if( zSql==NULL ){                       /* a failed sqlite3_mprintf() */
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: out of memory");
    txn_poison(db, SQLITE_NOMEM);
    return -1;
  }
  while( zTail && *zTail ){
    sqlite3_stmt *s = NULL;
    int rc;
    if( sqlite3_prepare_v2(db, zTail, -1, &s, &zTail)!=SQLITE_OK ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
      return -1;
    }
    if( s==NULL ) break;                /* only blanks or comments left */
    if( sqlite3_bind_parameter_count(s)>=1 ) sqlite3_bind_int64(s, 1, runId);
    while( (rc = sqlite3_step(s))==SQLITE_ROW ){}
    sqlite3_finalize(s);
    if( rc!=SQLITE_DONE ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
      return -1;
    }
  }
  return 0;
}

int db_step_done(sqlite3 *db, sqlite3_stmt *p, PfError *pErr){
  int rc = sqlite3_step(p);
  sqlite3_reset(p);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

int db_run_rowids(sqlite3 *db, const char *zTab, int64_t runId,
                  int64_t *pLo, int64_t *pHi, PfError *pErr){
  sqlite3_stmt *s = db_prepare(db, db_statement("db-run-rowids"), pErr);
  int r;
  *pLo = INT64_MAX;
  *pHi = INT64_MIN;
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  sqlite3_bind_text(s, 2, zTab, -1, SQLITE_STATIC);
  r = sqlite3_step(s);
  if( r==SQLITE_ROW ){
    *pLo = sqlite3_column_int64(s, 0);
    *pHi = sqlite3_column_int64(s, 1);
  }else if( r!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return -1;
  }
  sqlite3_finalize(s);
  return 0;
}

/* The trace tables whose rows a run's rowid range locates (schema 105;
** memory_event since 110). */
static const char *const azRowidTab[DB_ROWID_NTAB] = {
  "kernel", "cpu_op", "runtime_call", "gpu_mem_op", "annotation",
  "python_function", "gpu_sync", "memory_event"
};

int db_rowid_mark(sqlite3 *db, RowidMark *pMark, PfError *pErr){
  for(int i=0; i<DB_ROWID_NTAB; i++){
    char *zSql = sqlite3_mprintf(db_statement("db-rowid-mark"),
                                 azRowidTab[i], azRowidTab[i]);
    sqlite3_stmt *s = db_prepare(db, zSql, pErr);
    int r;
    sqlite3_free(zSql);
    if( s==NULL ) return -1;
    r = sqlite3_step(s);
    if( r!=SQLITE_ROW ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
      sqlite3_finalize(s);
      return -1;
    }
    pMark->aLow[i] = sqlite3_column_int64(s, 0);
    pMark->aHigh[i] = sqlite3_column_int64(s, 1);
    sqlite3_finalize(s);
  }
  return 0;
}

int db_rowid_record(sqlite3 *db, int64_t runId, const RowidMark *pMark,
                    PfError *pErr){
  for(int i=0; i<DB_ROWID_NTAB; i++){
    char *zSql = sqlite3_mprintf(db_statement("db-rowid-record"),
                                 azRowidTab[i], azRowidTab[i], azRowidTab[i],
                                 azRowidTab[i], azRowidTab[i]);
    sqlite3_stmt *s = db_prepare(db, zSql, pErr);
    sqlite3_free(zSql);
    if( s==NULL ) return -1;
    sqlite3_bind_int64(s, 1, runId);
    sqlite3_bind_int64(s, 2, pMark->aLow[i]);
    sqlite3_bind_int64(s, 3, pMark->aHigh[i]);
    if( db_step_done(db, s, pErr) ){
      sqlite3_finalize(s);
      return -1;
    }
    sqlite3_finalize(s);
  }
  return 0;
}

sqlite3_stmt *db_prepare_run_range(sqlite3 *db, const char *zSql,
                                   const char *zTab, int64_t runId,
                                   int *pEmpty, PfError *pErr){
  int64_t lo, hi;
  sqlite3_stmt *s;
  *pEmpty = 0;
  if( db_run_rowids(db, zTab, runId, &lo, &hi, pErr) ) return NULL;
  if( lo>hi ){
    *pEmpty = 1;
    return NULL;
  }
  s = db_prepare(db, zSql, pErr);
  if( s==NULL ) return NULL;
  sqlite3_bind_int64(s, 1, runId);
  sqlite3_bind_int64(s, 2, lo);
  sqlite3_bind_int64(s, 3, hi);
  return s;
}

sqlite3_stmt *db_prepare_run_rows(sqlite3 *db, const char *zTab,
                                  const char *zCols, const char *zWhere,
                                  int64_t runId, int *pEmpty, PfError *pErr){
  char *zSql = sqlite3_mprintf(db_statement("db-prepare-run-rows"), zCols,
                               zTab, zWhere ? " AND " : "",
                               zWhere ? zWhere : "");
  sqlite3_stmt *s = db_prepare_run_range(db, zSql, zTab, runId, pEmpty,
                                         pErr);
  sqlite3_free(zSql);
  return s;
}

int64_t *db_id_set(sqlite3 *db, const char *zSql, int64_t runId, int *pn,
                   PfError *pErr){
  sqlite3_stmt *s = db_prepare(db, zSql, pErr);
  int64_t *a = NULL;
  int n = 0, nAlloc = 0;
  int rc;
  if( s==NULL ) return NULL;
  if( sqlite3_bind_parameter_count(s)>0 ) sqlite3_bind_int64(s, 1, runId);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    if( n==nAlloc ){
      nAlloc = nAlloc ? nAlloc*2 : 16;
      a = xrealloc(a, (size_t)nAlloc*sizeof(int64_t));
    }
    a[n++] = sqlite3_column_int64(s, 0);
  }
  sqlite3_finalize(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    free(a);
    return NULL;
  }
  *pn = n;
  return a ? a : xmalloc(sizeof(int64_t));
}

sqlite3_stmt *db_prepare(sqlite3 *db, const char *zSql, PfError *pErr){
  sqlite3_stmt *p = NULL;
  int rc;
  if( zSql==NULL ){
    /* the caller's sqlite3_mprintf() ran out of memory */
    if( pErr ) pf_error_set(pErr, ERRPOS_NONE, 0, "out of memory");
    txn_poison(db, SQLITE_NOMEM);
    return NULL;
  }
  rc = sqlite3_prepare_v2(db, zSql, -1, &p, NULL);
  if( rc!=SQLITE_OK ){
    if( pErr ) pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(p);
    txn_poison(db, rc);
    return NULL;
  }
  return p;
}

/* z past word zWord (any case) and the blanks after it; NULL when z does
** not start with the word and at least one blank. */
static const char *skip_word(const char *z, const char *zWord){
  size_t n = strlen(zWord);
  const char *zEnd = z+n;
  if( sqlite3_strnicmp(z, zWord, (int)n)!=0 ) return NULL;
  while( *zEnd==' ' || *zEnd=='\t' || *zEnd=='\n' || *zEnd=='\r' ) zEnd++;
  return zEnd>z+n ? zEnd : NULL;
}

char *db_view_select(sqlite3 *db, const char *zView){
  sqlite3_stmt *p = NULL;
  const char *z = NULL;
  char *zOut = NULL;
  if( sqlite3_prepare_v2(db,
     db_statement("db-view-select"), -1, &p, NULL)==SQLITE_OK
      && sqlite3_bind_text(p, 1, zView, -1, SQLITE_STATIC)==SQLITE_OK
      && sqlite3_step(p)==SQLITE_ROW ){
    z = (const char *)sqlite3_column_text(p, 0);
  }
  if( z ) z = skip_word(z, "CREATE");
  if( z ) z = skip_word(z, "VIEW");
  if( z ) z = skip_word(z, zView);
  if( z ) z = skip_word(z, "AS");
  if( z ) zOut = sqlite3_mprintf("%s", z);
  sqlite3_finalize(p);
  return zOut;
}

int db_exec_run_view(sqlite3 *db, const char *zTemplate, const char *zView,
                     int64_t runId, PfError *pErr){
  char *zSel = db_view_select(db, zView);
  char *zSql;
  int rc;
  if( zSel==NULL ) zSel = sqlite3_mprintf("SELECT * FROM %w", zView);
  /* db_exec_run reports a NULL (out of memory) */
  zSql = zSel ? sqlite3_mprintf(zTemplate, zSel) : NULL;
  rc = db_exec_run(db, zSql, runId, pErr);
  sqlite3_free(zSql);
  sqlite3_free(zSel);
  return rc;
}

int64_t db_int(sqlite3 *db, int64_t dflt, const char *zSql, ...){
  va_list ap;
  char *z;
  sqlite3_stmt *p = NULL;
  int64_t v = dflt;
  va_start(ap, zSql);
  z = sqlite3_vmprintf(zSql, ap);
  va_end(ap);
  int rc = z ? sqlite3_prepare_v2(db, z, -1, &p, NULL) : SQLITE_NOMEM;
  if( rc==SQLITE_OK ) rc = sqlite3_step(p);
  if( rc==SQLITE_ROW && sqlite3_column_type(p, 0)!=SQLITE_NULL ){
    v = sqlite3_column_int64(p, 0);
  }
  sqlite3_finalize(p);
  sqlite3_free(z);
  /* the default stands in for "no row", never for an error: inside a
  ** write, an error ends the transaction */
  if( rc!=SQLITE_ROW && rc!=SQLITE_DONE ) txn_poison(db, rc);
  return v;
}

void db_bind_int_or_null(sqlite3_stmt *p, int i, int has, int64_t v){
  if( has ) sqlite3_bind_int64(p, i, v); else sqlite3_bind_null(p, i);
}
void db_bind_double_or_null(sqlite3_stmt *p, int i, int has, double v){
  if( has ) sqlite3_bind_double(p, i, v); else sqlite3_bind_null(p, i);
}
void db_bind_text_or_null(sqlite3_stmt *p, int i, const char *z, int n){
  if( z ) db_bind_text_checked(p, i, z, n, SQLITE_TRANSIENT);
  else sqlite3_bind_null(p, i);
}

/* The integer a PRAGMA returns into *pv (0 when no row); 0, or -1 with
** "cannot open database: MSG" in pErr (an error is not a value: out of
** memory reading user_version must not look like an empty database). */
static int pragma_int(sqlite3 *db, const char *zSql, int *pv, PfError *pErr){
  sqlite3_stmt *p = NULL;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &p, NULL);
  *pv = 0;
  if( rc==SQLITE_OK ){
    rc = sqlite3_step(p);
    if( rc==SQLITE_ROW ){
      *pv = sqlite3_column_int(p, 0);
      rc = SQLITE_OK;
    }else if( rc==SQLITE_DONE ){
      rc = SQLITE_OK;
    }
  }
  sqlite3_finalize(p);
  if( rc!=SQLITE_OK ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open database: %s",
                 sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

int db_schema_apply(sqlite3 *db, const EmbeddedFile *aFile, PfError *pErr){
  char zSql[64];
  int from, to = 0;
  if( db_begin(db, pErr) ) return -1;
  if( pragma_int(db, "PRAGMA user_version", &from, pErr) ){
    db_rollback(db);
    return -1;
  }
  for(int i=0; aFile[i].zName; i++){
    PfError e = {0};
    int n = db_schema_file_version(aFile[i].zName);
    if( n<=from ) continue;
    if( db_exec(db, aFile[i].zText, &e) ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "schema %s: %s", aFile[i].zName,
                   e.zMsg);
      db_rollback(db);
      return -1;
    }
    to = n;
  }
  if( to==0 ) return db_commit(db, pErr);
  snprintf(zSql, sizeof(zSql), "PRAGMA user_version=%d", to);
  if( db_exec(db, zSql, pErr) ){ db_rollback(db); return -1; }
  snprintf(zSql, sizeof(zSql), "PRAGMA application_id=%d",
           PROFAN_APPLICATION_ID);
  if( db_exec(db, zSql, pErr) ){ db_rollback(db); return -1; }
  if( db_commit(db, pErr) ){ db_rollback(db); return -1; }
  return 0;
}

int db_version_check(int appId, int ver, int nObj, int want, int flags,
                     PfError *pErr){
  if( appId==PROFAN_APPLICATION_ID_DEV ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database made by a development build"
      " of profan before the schema baseline (old schema version %d); this"
      " profan cannot read it: ingest the runs' files again into a new"
      " database", ver);
    return DB_VERSION_REFUSE;
  }
  if( appId!=PROFAN_APPLICATION_ID ){
    if( appId!=0 || nObj>0 ){
      pf_error_set(pErr, ERRPOS_NONE, 0,
                   "not a profan database (application_id %lld)",
                   (long long)appId);
      return DB_VERSION_REFUSE;
    }
    ver = 0;                           /* an empty file */
  }
  if( ver>want ){
    pf_error_set(pErr, ERRPOS_NONE, 0,
      "database schema version %d is newer than this profan "
      "(schema %d); upgrade profan", ver, want);
    return DB_VERSION_REFUSE;
  }
  if( ver>0 && ver<PROFAN_SCHEMA_BASELINE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database made by a development build"
      " of profan (schema version %d, before the baseline %d); this profan"
      " cannot migrate it: ingest the runs' files again into a new database",
      ver, PROFAN_SCHEMA_BASELINE);
    return DB_VERSION_REFUSE;
  }
  if( ver<want && (flags & DB_OPEN_READONLY) ){
    pf_error_set(pErr, ERRPOS_NONE, 0,
      "database schema version %d is older than %d; run any writing "
      "command (e.g. 'profan ingest') to migrate it", ver, want);
    return DB_VERSION_REFUSE;
  }
  if( appId!=PROFAN_APPLICATION_ID ) return DB_VERSION_CREATE;
  return ver<want ? DB_VERSION_MIGRATE : DB_VERSION_OK;
}

/* 1 for the errors of the machine under SQLite (memory, I/O, disk space),
** as opposed to errors about this database (read-only, not a database). */
static int is_env_error(int rc){
  rc &= 0xff;
  return rc==SQLITE_NOMEM || rc==SQLITE_IOERR || rc==SQLITE_FULL
      || rc==SQLITE_CANTOPEN;
}

/* Run the PRAGMAs in zSql (settings of the connection; one after another,
** separated by ';').  A setting that cannot be made because of the file
** (read-only) is left as it is; out of memory or an I/O error fails:
** returns -1 with "cannot open database: MSG" in pErr, else 0. */
static int set_pragmas(sqlite3 *db, const char *zSql, PfError *pErr){
  while( *zSql ){
    const char *zEnd = strchr(zSql, ';');
    size_t n = zEnd ? (size_t)(zEnd-zSql) : strlen(zSql);
    char zOne[80];
    PfError e = {0};
    int rc;
    snprintf(zOne, sizeof(zOne), "%.*s", (int)n, zSql);
    rc = db_exec(db, zOne, &e);
    if( rc!=SQLITE_OK && is_env_error(rc) ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open database: %s", e.zMsg);
      return -1;
    }
    zSql += n + (zEnd!=NULL);
  }
  return 0;
}

/*
** Why the database file zPath cannot be used, from the file system: its
** directory is missing, not a directory or not writable (SQLite keeps
** the WAL journal, -wal and -shm, beside the database, so even a reader
** needs that), or the file is not readable or writable.  Sets pErr to
** one line ("cannot open database: directory D is not writable
** (Permission denied)...", "no database here: no directory D" when it
** does not exist and flags lack DB_OPEN_CREATE) and returns 1, or
** returns 0 when it finds nothing wrong.  access() checks the real user,
** who runs profan.
*/
static int explain_access(const char *zPath, int exists, int flags,
                          PfError *pErr){
  const char *zSlash = strrchr(zPath, '/');
  char *zDir = zSlash ? sqlite3_mprintf("%.*s",
                          (int)(zSlash-zPath)+(zSlash==zPath), zPath)
                      : sqlite3_mprintf(".");
  const char *zDo = exists ? "cannot open database"
                   : (flags & DB_OPEN_CREATE) ? "cannot create database"
                   : "no database here";
  struct stat st;
  int rc = 1;
  if( stat(zDir, &st)!=0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s: no directory %s", zDo, zDir);
  }else if( !S_ISDIR(st.st_mode) ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s: %s is not a directory", zDo,
                 zDir);
  }else if( !exists ){
    rc = 0;
  }else if( access(zPath, R_OK)!=0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open database: the file is"
                 " not readable (%s)", strerror(errno));
  }else if( access(zPath, W_OK)!=0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open database: the file is"
                 " not writable (%s)", strerror(errno));
  }else if( access(zDir, W_OK)!=0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open database: directory %s"
                 " is not writable (%s); profan keeps the journal (-wal,"
                 " -shm) beside the database", zDir, strerror(errno));
  }else{
    rc = 0;
  }
  sqlite3_free(zDir);
  return rc;
}

/* db_open_note(): what the last read-only open did differently. */
static char gzOpenNote[600];

const char *db_open_note(void){
  return gzOpenNote[0] ? gzOpenNote : NULL;
}

/* Size of file zPath, -1 when it does not exist. */
static int64_t file_size(const char *zPath){
  struct stat st;
  return stat(zPath, &st)==0 ? (int64_t)st.st_size : -1;
}

/*
** A reader of zPath in a directory it cannot write (an archive, a
** read-only mount): SQLite cannot make the -wal and -shm files a WAL
** database needs beside it.  With no journal to replay (no -wal, or an
** empty one) the file is read as immutable: *pzUri gets its "file:" URI
** (sqlite3_free) and db_open_note() says so; returns 0.  A journal that
** holds frames cannot be read without its -shm: -1 with the reason.
** Elsewhere *pzUri stays NULL and it returns 0.
*/
static int immutable_uri(const char *zPath, char **pzUri, PfError *pErr){
  const char *zSlash = strrchr(zPath, '/');
  char *zDir = zSlash ? sqlite3_mprintf("%.*s",
                          (int)(zSlash-zPath)+(zSlash==zPath), zPath)
                      : sqlite3_mprintf(".");
  char *zWal = sqlite3_mprintf("%s-wal", zPath);
  char *zShm = sqlite3_mprintf("%s-shm", zPath);
  int rc = 0, eno = 0;
  *pzUri = NULL;
  if( zDir && access(zDir, W_OK)!=0 ) eno = errno;
  if( zDir==NULL || zWal==NULL || zShm==NULL ){
    rc = 0;                       /* out of memory: the usual way says so */
  }else if( eno==0 ){
    rc = 0;
  }else if( file_size(zWal)>0 && file_size(zShm)<0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open database: directory %s"
                 " is not writable (%s) and the database's journal (-wal)"
                 " holds changes that need its -shm file there; open it"
                 " once where it can be written", zDir, strerror(eno));
    pf_error_kind(pErr, PF_KIND_DB);
    rc = -1;
  }else if( file_size(zWal)<=0 ){
    Buf b;
    buf_init(&b);
    buf_puts(&b, "file:");
    for(const char *z=zPath; *z; z++){
      if( *z=='%' || *z=='?' || *z=='#' || (*z=='/' && z==zPath && z[1]=='/') ){
        buf_printf(&b, "%%%02X", (unsigned char)*z);
      }else{
        buf_putc(&b, *z);
      }
    }
    buf_puts(&b, "?immutable=1");
    *pzUri = sqlite3_mprintf("%s", buf_str(&b));
    buf_free(&b);
    snprintf(gzOpenNote, sizeof(gzOpenNote), "directory %s is not writable"
             " (%s): the database is read as an immutable file (no journal"
             " beside it; a change made meanwhile is not seen)", zDir,
             strerror(eno));
  }
  sqlite3_free(zDir);
  sqlite3_free(zWal);
  sqlite3_free(zShm);
  return rc;
}

/*
** The connection of db_open(): opened with the SQLite flags of flags,
** write access checked when asked for, application_id read into
** *pAppId.  Returns it, or NULL with pErr set (the file system's reason
** when it has one).  The caller closes it.
*/
static sqlite3 *open_conn(const char *zPath, int flags, int *pAppId,
                          PfError *pErr){
  sqlite3 *db = NULL;
  int exists = access(zPath, F_OK)==0;
  /* NOMUTEX: a connection is only ever used by one thread (the writer). */
  int oflags = SQLITE_OPEN_NOMUTEX | ((flags & DB_OPEN_READONLY)
             ? SQLITE_OPEN_READONLY
             : SQLITE_OPEN_READWRITE
               | ((flags & DB_OPEN_CREATE) ? SQLITE_OPEN_CREATE : 0));
  char *zUri = NULL;
  int rcOpen;
  if( !exists && !(flags & DB_OPEN_CREATE) ){
    if( !explain_access(zPath, 0, flags, pErr) ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "no database here (run 'profan "
                   "ingest' first, or use --db)");
    }
    return NULL;
  }
  if( exists && (flags & DB_OPEN_READONLY) ){
    int rc = immutable_uri(zPath, &zUri, pErr);
    if( rc<0 ) return NULL;
    if( zUri ) oflags |= SQLITE_OPEN_URI;
  }
  rcOpen = sqlite3_open_v2(zUri ? zUri : zPath, &db, oflags, NULL);
  sqlite3_free(zUri);
  if( rcOpen!=SQLITE_OK ){
    if( !explain_access(zPath, exists, flags, pErr) ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open database: %s",
                   db ? sqlite3_errmsg(db) : "out of memory");
    }
    sqlite3_close(db);
    return NULL;
  }
  /* SQLite opens a write-protected file read-only without a word; a
  ** writing command would only fail at its first write */
  if( !(flags & DB_OPEN_READONLY) && sqlite3_db_readonly(db, "main")==1 ){
    if( !explain_access(zPath, exists, flags, pErr) ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open database: the file"
                   " is read-only");
    }
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 10000);
  sqlite3_extended_result_codes(db, 1);
  if( pragma_int(db, "PRAGMA application_id", pAppId, pErr) ){
    PfError eWhy = {0};
    if( explain_access(zPath, exists, flags, &eWhy) ){
      *pErr = eWhy;               /* the file system says why */
    }else if( !is_env_error(sqlite3_extended_errcode(db)) ){
      pErr->set = 0;
      pf_error_set(pErr, ERRPOS_NONE, 0,
                   "not a database (or unreadable): %s", sqlite3_errmsg(db));
    }
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

/*
** Create the database file zPath, which does not exist, from
** embedded_image: the file that replaying every schema file makes (see
** tools/schema_image.c), written through SQLite's default VFS (the fault
** build's I/O shim sees each write) instead of parsing and running 200 kB
** of DDL.  No sync: a bulk file is private until its owner syncs and
** publishes it.  Returns 0 (made), 1 (not made, nothing left behind: no
** image in this binary, or the file cannot be created here; the caller
** goes the usual way, which says why), or -1 with "cannot create
** database: MSG" in pErr after removing what it wrote.
*/
static int image_write(const char *zPath, PfError *pErr){
  const EmbeddedImage *pImg = &embedded_image;
  const unsigned char *pByte = pImg->aByte;
  const int oflags = SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_READWRITE
                   | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXCLUSIVE;
  sqlite3_vfs *pVfs = sqlite3_vfs_find(NULL);
  sqlite3_file *pFile = NULL;
  char *zFull = NULL;
  sqlite3_filename zName = NULL;
  int rc = SQLITE_NOMEM, outFlags = 0, opened = 0;
  if( pImg->nRun==0 || pImg->version!=db_schema_version() || pVfs==NULL ){
    return 1;
  }
  zFull = sqlite3_malloc(pVfs->mxPathname+1);
  pFile = sqlite3_malloc(pVfs->szOsFile);
  if( zFull && pFile ){
    memset(pFile, 0, (size_t)pVfs->szOsFile);
    rc = pVfs->xFullPathname(pVfs, zPath, pVfs->mxPathname+1, zFull);
  }
  if( rc==SQLITE_OK ){
    zName = sqlite3_create_filename(zFull, "", "", 0, NULL);
    rc = zName ? pVfs->xOpen(pVfs, zName, pFile, oflags, &outFlags)
               : SQLITE_NOMEM;
    opened = rc==SQLITE_OK;
  }
  for(int i=0; rc==SQLITE_OK && i<pImg->nRun; i++){
    int n = (int)pImg->aRun[2*i+1];
    rc = pFile->pMethods->xWrite(pFile, pByte, n, pImg->aRun[2*i]);
    pByte += n;
  }
  if( rc==SQLITE_OK ) rc = pFile->pMethods->xTruncate(pFile, pImg->nSize);
  if( pFile && pFile->pMethods ) pFile->pMethods->xClose(pFile);
  if( opened && rc!=SQLITE_OK ) pVfs->xDelete(pVfs, zFull, 0);
  sqlite3_free_filename(zName);
  sqlite3_free(zFull);
  sqlite3_free(pFile);
  if( rc==SQLITE_OK ) return 0;
  if( !opened && (rc & 0xff)!=SQLITE_NOMEM ) return 1;
  pf_error_set(pErr, ERRPOS_NONE, 0, "cannot create database: %s",
               (rc & 0xff)==SQLITE_NOMEM || rc==SQLITE_IOERR_NOMEM
               ? "out of memory" : sqlite3_errstr(rc));
  return -1;
}

sqlite3 *db_open(const char *zPath, int flags, PfError *pErr){
  sqlite3 *db;
  int appId, ver, nObj = 0, action;
  int want = db_schema_version();

  db_config_init();
  gzOpenNote[0] = 0;
  /* a new private file: written from the image, then opened as any
  ** database at this profan's schema version */
  if( (flags & DB_OPEN_BULK) && (flags & DB_OPEN_CREATE)
      && !(flags & DB_OPEN_REPLAY) && access(zPath, F_OK)!=0
      && image_write(zPath, pErr)<0 ){
    return NULL;
  }
  db = open_conn(zPath, flags, &appId, pErr);
  if( db==NULL ) return NULL;
  if( pragma_int(db, "PRAGMA user_version", &ver, pErr) ){
    sqlite3_close(db);
    return NULL;
  }
  /* a foreign application_id on a file with nothing in it: a new file */
  if( appId!=PROFAN_APPLICATION_ID && appId!=PROFAN_APPLICATION_ID_DEV
      && pragma_int(db, "SELECT count(*) FROM sqlite_schema", &nObj, pErr) ){
    sqlite3_close(db);
    return NULL;
  }
  action = db_version_check(appId, ver, nObj, want, flags, pErr);
  if( action==DB_VERSION_REFUSE ){
    sqlite3_close(db);
    return NULL;
  }
  if( action==DB_VERSION_CREATE ) ver = 0;
  /* 16 KiB pages: measured 15-20 % faster ingest (fewer B-tree levels,
  ** cheaper index builds and commit) than 4 KiB, same file size; must be
  ** set before the first table and before WAL mode. */
  if( ver==0 && !(flags & DB_OPEN_READONLY)
      && set_pragmas(db, "PRAGMA page_size=16384", pErr) ){
    sqlite3_close(db);
    return NULL;
  }
  /* DB_OPEN_BULK: nothing to protect yet: a failed or killed ingest just
  ** leaves a file nobody uses.  Saves the WAL writes and the checkpoint at
  ** close.  The journal in memory holds only the pages there before the
  ** transaction (the schema); it keeps ROLLBACK and savepoints working. */
  if( ((flags & DB_OPEN_BULK) && set_pragmas(db,
         "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;"
         "PRAGMA foreign_keys=ON", pErr))
      || (!(flags & (DB_OPEN_BULK|DB_OPEN_READONLY)) && set_pragmas(db,
         "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
         "PRAGMA foreign_keys=ON", pErr)) ){
    sqlite3_close(db);
    return NULL;
  }
  if( action!=DB_VERSION_OK && db_schema_apply(db, embedded_schema, pErr) ){
    sqlite3_close(db);
    return NULL;
  }
  /* 32 MiB of cache.  Debian builds SQLite with SECURE_DELETE, which
  ** zeroes every byte a B-tree frees, also when inserts rebalance pages (2 %
  ** of an ingest); profan keeps no secrets from later readers of the same
  ** file */
  if( set_pragmas(db, "PRAGMA cache_size=-32768; PRAGMA temp_store=FILE;"
                  "PRAGMA secure_delete=OFF", pErr) ){
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

sqlite3 *db_open_scratch(PfError *pErr){
  const EmbeddedImage *pImg = &embedded_image;
  const unsigned char *pByte = pImg->aByte;
  unsigned char *a;
  sqlite3 *db = NULL;
  int rc;
  db_config_init();
  if( pImg->nRun==0 || pImg->version!=db_schema_version() ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "no database image in this build");
    pf_error_kind(pErr, PF_KIND_DB);
    return NULL;
  }
  a = sqlite3_malloc64((sqlite3_uint64)pImg->nSize);
  rc = a ? sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE
                           | SQLITE_OPEN_NOMUTEX, NULL) : SQLITE_NOMEM;
  if( rc==SQLITE_OK ){
    memset(a, 0, (size_t)pImg->nSize);
    for(int i=0; i<pImg->nRun; i++){
      memcpy(a + pImg->aRun[2*i], pByte, pImg->aRun[2*i+1]);
      pByte += pImg->aRun[2*i+1];
    }
    /* the image is a WAL database; memory holds a rollback journal */
    if( a[18]==2 ) a[18] = 1;
    if( a[19]==2 ) a[19] = 1;
    rc = sqlite3_deserialize(db, "main", a, pImg->nSize, pImg->nSize,
                             SQLITE_DESERIALIZE_FREEONCLOSE
                             | SQLITE_DESERIALIZE_RESIZEABLE);
    a = NULL;                       /* SQLite owns it now, even on error */
  }
  sqlite3_free(a);
  if( rc==SQLITE_OK ){
    rc = sqlite3_exec(db, "PRAGMA journal_mode=MEMORY; PRAGMA"
                      " secure_delete=OFF", NULL, NULL, NULL);
  }
  if( rc!=SQLITE_OK ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot make a scratch database: %s",
                 db ? sqlite3_errmsg(db) : "out of memory");
    pf_error_kind(pErr, PF_KIND_DB);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

int db_finish_bulk(sqlite3 *db, PfError *pErr){
  sqlite3_stmt *p = db_prepare(db, "PRAGMA journal_mode=WAL", pErr);
  int ok;
  if( p==NULL ) return -1;
  ok = sqlite3_step(p)==SQLITE_ROW
       && sqlite3_stricmp((const char*)sqlite3_column_text(p, 0), "wal")==0;
  sqlite3_finalize(p);
  if( !ok ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot switch to WAL mode: %s",
                 sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

void db_close(sqlite3 *db){
  if( db ){
    if( sqlite3_close(db)!=SQLITE_OK ){
      sqlite3_stmt *p;
      while( (p = sqlite3_next_stmt(db, NULL))!=NULL ) sqlite3_finalize(p);
      sqlite3_close(db);
    }
  }
}
