/*
** db.c — opening, creating and migrating profan databases, and the small
** statement helpers every command uses.
**
** Pipeline position: "load" (ingest writes through here) and every reader.
** A database is recognised by PRAGMA application_id; its schema version is
** PRAGMA user_version = number of schema/NNN-NAME.sql files applied.
*/
#include "db.h"
#include "embedded.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int db_schema_version(void){
  int n = 0;
  while( embedded_schema[n].zName ) n++;
  return n;
}

int db_exec(sqlite3 *db, const char *zSql, PfError *pErr){
  char *zErr = NULL;
  int rc = sqlite3_exec(db, zSql, NULL, NULL, &zErr);
  if( rc!=SQLITE_OK ){
    if( pErr ) pf_error_set(pErr, ERRPOS_NONE, 0, "%s",
                            zErr ? zErr : sqlite3_errstr(rc));
    sqlite3_free(zErr);
  }
  return rc;
}

int db_exec_run(sqlite3 *db, const char *zSql, int64_t runId, PfError *pErr){
  const char *zTail = zSql;
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
  *pLo = INT64_MAX;
  *pHi = INT64_MIN;
  for(int i=0; i<2; i++){
    char *zSql = sqlite3_mprintf("SELECT %s(id) FROM %s WHERE run_id=?1",
                                 i==0 ? "min" : "max", zTab);
    sqlite3_stmt *s = db_prepare(db, zSql, pErr);
    int r;
    sqlite3_free(zSql);
    if( s==NULL ) return -1;
    sqlite3_bind_int64(s, 1, runId);
    r = sqlite3_step(s);
    if( r==SQLITE_ROW && sqlite3_column_type(s, 0)!=SQLITE_NULL ){
      if( i==0 ) *pLo = sqlite3_column_int64(s, 0);
      else *pHi = sqlite3_column_int64(s, 0);
    }else if( r!=SQLITE_ROW && r!=SQLITE_DONE ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
      sqlite3_finalize(s);
      return -1;
    }
    sqlite3_finalize(s);
  }
  return 0;
}

sqlite3_stmt *db_prepare(sqlite3 *db, const char *zSql, PfError *pErr){
  sqlite3_stmt *p = NULL;
  if( sqlite3_prepare_v2(db, zSql, -1, &p, NULL)!=SQLITE_OK ){
    if( pErr ) pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(p);
    return NULL;
  }
  return p;
}

int64_t db_int(sqlite3 *db, int64_t dflt, const char *zSql, ...){
  va_list ap;
  char *z;
  sqlite3_stmt *p = NULL;
  int64_t v = dflt;
  va_start(ap, zSql);
  z = sqlite3_vmprintf(zSql, ap);
  va_end(ap);
  if( z && sqlite3_prepare_v2(db, z, -1, &p, NULL)==SQLITE_OK
      && sqlite3_step(p)==SQLITE_ROW
      && sqlite3_column_type(p, 0)!=SQLITE_NULL ){
    v = sqlite3_column_int64(p, 0);
  }
  sqlite3_finalize(p);
  sqlite3_free(z);
  return v;
}

void db_bind_int_or_null(sqlite3_stmt *p, int i, int has, int64_t v){
  if( has ) sqlite3_bind_int64(p, i, v); else sqlite3_bind_null(p, i);
}
void db_bind_double_or_null(sqlite3_stmt *p, int i, int has, double v){
  if( has ) sqlite3_bind_double(p, i, v); else sqlite3_bind_null(p, i);
}
void db_bind_text_or_null(sqlite3_stmt *p, int i, const char *z, int n){
  if( z ) sqlite3_bind_text(p, i, z, n, SQLITE_TRANSIENT);
  else sqlite3_bind_null(p, i);
}

/*
** Apply schema files [from, to) inside one transaction and set
** user_version.  The version is read again under the write lock: another
** process may have created or migrated the database since from was read
** (two first ingests at once).  Returns 0 or -1 with pErr set.
*/
static int apply_schema(sqlite3 *db, int from, int to, PfError *pErr){
  char zSql[64];
  if( db_exec(db, "BEGIN IMMEDIATE", pErr) ) return -1;
  from = (int)db_int(db, from, "PRAGMA user_version");
  if( from>=to ) return db_exec(db, "COMMIT", pErr) ? -1 : 0;
  for(int i=from; i<to; i++){
    PfError e = {0};
    if( db_exec(db, embedded_schema[i].zText, &e) ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "schema %s: %s",
                   embedded_schema[i].zName, e.zMsg);
      db_exec(db, "ROLLBACK", NULL);
      return -1;
    }
  }
  snprintf(zSql, sizeof(zSql), "PRAGMA user_version=%d", to);
  if( db_exec(db, zSql, pErr) ){ db_exec(db, "ROLLBACK", NULL); return -1; }
  snprintf(zSql, sizeof(zSql), "PRAGMA application_id=%d",
           PROFAN_APPLICATION_ID);
  if( db_exec(db, zSql, pErr) ){ db_exec(db, "ROLLBACK", NULL); return -1; }
  if( db_exec(db, "COMMIT", pErr) ){ db_exec(db, "ROLLBACK", NULL); return -1; }
  return 0;
}

sqlite3 *db_open(const char *zPath, int flags, PfError *pErr){
  sqlite3 *db = NULL;
  int exists = access(zPath, F_OK)==0;
  /* NOMUTEX: a connection is only ever used by one thread (the writer). */
  int oflags = SQLITE_OPEN_NOMUTEX | ((flags & DB_OPEN_READONLY)
             ? SQLITE_OPEN_READONLY
             : SQLITE_OPEN_READWRITE | ((flags & DB_OPEN_CREATE) ? SQLITE_OPEN_CREATE : 0));
  int64_t appId, ver;
  int want = db_schema_version();

  if( !exists && !(flags & DB_OPEN_CREATE) ){
    pf_error_set(pErr, ERRPOS_NONE, 0,
                 "no database here (run 'profan ingest' first, or use --db)");
    return NULL;
  }
  if( sqlite3_open_v2(zPath, &db, oflags, NULL)!=SQLITE_OK ){
    const char *zSlash = strrchr(zPath, '/');
    char *zDir = zSlash ? sqlite3_mprintf("%.*s", (int)(zSlash-zPath)+(zSlash==zPath),
                                          zPath) : NULL;
    if( !exists && zDir && access(zDir, F_OK)!=0 ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "cannot create database: no "
                   "directory %s", zDir);
    }else{
      pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open database: %s",
                   db ? sqlite3_errmsg(db) : "out of memory");
    }
    sqlite3_free(zDir);
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 10000);
  sqlite3_extended_result_codes(db, 1);
  appId = db_int(db, -1, "PRAGMA application_id");
  if( appId<0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0,
                 "not a database (or unreadable): %s", sqlite3_errmsg(db));
    sqlite3_close(db);
    return NULL;
  }
  ver = db_int(db, 0, "PRAGMA user_version");
  if( appId!=PROFAN_APPLICATION_ID ){
    int64_t nObj = db_int(db, 0, "SELECT count(*) FROM sqlite_schema");
    if( appId!=0 || nObj>0 ){
      pf_error_set(pErr, ERRPOS_NONE, 0,
                   "not a profan database (application_id %lld)",
                   (long long)appId);
      sqlite3_close(db);
      return NULL;
    }
    ver = 0;   /* empty file: create */
  }
  if( ver>want ){
    pf_error_set(pErr, ERRPOS_NONE, 0,
      "database schema version %lld is newer than this profan "
      "(schema %d); upgrade profan", (long long)ver, want);
    sqlite3_close(db);
    return NULL;
  }
  if( ver==0 && !(flags & DB_OPEN_READONLY) ){
    /* 16 KiB pages: measured 15-20 % faster ingest (fewer B-tree levels,
    ** cheaper index builds and commit) than 4 KiB, same file size; must be
    ** set before the first table and before WAL mode. */
    db_exec(db, "PRAGMA page_size=16384", NULL);
  }
  if( flags & DB_OPEN_BULK ){
    /* nothing to protect yet: a failed or killed ingest just leaves a file
    ** nobody uses.  Saves the WAL writes and the checkpoint at close.  The
    ** journal in memory holds only the pages there before the transaction
    ** (the schema); it keeps ROLLBACK and savepoints working. */
    db_exec(db, "PRAGMA journal_mode=MEMORY", NULL);
    db_exec(db, "PRAGMA synchronous=OFF", NULL);
    db_exec(db, "PRAGMA foreign_keys=ON", NULL);
  }else if( !(flags & DB_OPEN_READONLY) ){
    db_exec(db, "PRAGMA journal_mode=WAL", NULL);
    db_exec(db, "PRAGMA synchronous=NORMAL", NULL);
    db_exec(db, "PRAGMA foreign_keys=ON", NULL);
  }
  if( ver<want ){
    if( flags & DB_OPEN_READONLY ){
      pf_error_set(pErr, ERRPOS_NONE, 0,
        "database schema version %lld is older than %d; run any writing "
        "command (e.g. 'profan ingest') to migrate it", (long long)ver, want);
      sqlite3_close(db);
      return NULL;
    }
    if( apply_schema(db, (int)ver, want, pErr) ){
      sqlite3_close(db);
      return NULL;
    }
  }
  db_exec(db, "PRAGMA cache_size=-32768", NULL);   /* 32 MiB */
  db_exec(db, "PRAGMA temp_store=FILE", NULL);
  /* Debian builds SQLite with SECURE_DELETE, which zeroes every byte a
  ** B-tree frees, also when inserts rebalance pages (2 % of an ingest);
  ** profan keeps no secrets from later readers of the same file */
  db_exec(db, "PRAGMA secure_delete=OFF", NULL);
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
