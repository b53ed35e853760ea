/*
** run_record.c — the rows that record an ingested run: run (with a unique
** name), run_tag, run_file, and the run's content hash.
**
** Pipeline position: bookkeeping of the ingest driver (ingest.c), inside
** the ingest's transaction.  runref.c, beside it, resolves and deletes
** what this file records.
*/
#include "ingest/run_record.h"
#include "core/runref.h"
#include "core/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

char *run_record_default_name(const char *zPath, int *pbPrefixed){
  char *z = xstrdup(zPath);
  size_t n = strlen(z);
  char *zBase, *zDot;
  while( n>1 && z[n-1]=='/' ) z[--n] = 0;
  zBase = xstrdup(util_basename(z));
  free(z);
  /* strip .pt.trace.json.gz, .json.gz, .json */
  zDot = strstr(zBase, ".pt.trace.json");
  if( zDot==NULL ) zDot = strstr(zBase, ".json");
  if( zDot && zDot!=zBase ) *zDot = 0;
  if( pbPrefixed ) *pbPrefixed = 0;
  if( runref_name_problem(zBase) ){
    /* a job number: "run-12345", which reads as no id */
    char *z2 = xasprintf("run-%s", zBase);
    free(zBase);
    zBase = z2;
    if( pbPrefixed ) *pbPrefixed = 1;
  }
  return zBase;
}

int64_t run_record_insert(sqlite3 *db, const char *zWant,
                          const char *zSource, const char *zHash,
                          IngestResult *pRes, PfError *pErr){
  sqlite3_stmt *p;
  int64_t id = -1;
  char zNow[32];
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(zNow, sizeof(zNow), "%Y-%m-%dT%H:%M:%SZ", &tm);
  p = db_prepare(db,
    db_statement("run-record-insert"), pErr);
  if( p==NULL ) return -1;
  for(int k=1; k<1000 && id<0; k++){
    char *zName = k==1 ? xstrdup(zWant) : xasprintf("%s-%d", zWant, k);
    sqlite3_bind_text(p, 1, zName, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(p, 2, zNow, -1, SQLITE_STATIC);
    sqlite3_bind_text(p, 3, zSource, -1, SQLITE_STATIC);
    sqlite3_bind_text(p, 4, zHash, -1, SQLITE_STATIC);
    sqlite3_bind_text(p, 5, PROFAN_VERSION, -1, SQLITE_STATIC);
    if( sqlite3_step(p)==SQLITE_DONE ){
      id = sqlite3_last_insert_rowid(db);
      snprintf(pRes->zName, sizeof(pRes->zName), "%s", zName);
      if( k>1 ){
        pRes->takenBy = db_int(db, 0, "SELECT id FROM run WHERE name=%Q",
                               zWant);
        snprintf(pRes->zTakenName, sizeof(pRes->zTakenName), "%s", zWant);
      }
    }else if( sqlite3_extended_errcode(db)!=SQLITE_CONSTRAINT_UNIQUE ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
      free(zName);
      break;
    }
    sqlite3_reset(p);
    free(zName);
  }
  sqlite3_finalize(p);
  return id;
}

int run_record_tags(sqlite3 *db, int64_t runId, const IngestOpts *pOpt,
                    PfError *pErr){
  sqlite3_stmt *p;
  if( pOpt->nTag==0 ) return 0;
  p = db_prepare(db, "INSERT OR REPLACE INTO run_tag VALUES(?1,?2,?3)", pErr);
  if( p==NULL ) return -1;
  for(int i=0; i<pOpt->nTag; i++){
    sqlite3_bind_int64(p, 1, runId);
    sqlite3_bind_text(p, 2, pOpt->azTagKey[i], -1, SQLITE_STATIC);
    sqlite3_bind_text(p, 3, pOpt->azTagVal[i], -1, SQLITE_STATIC);
    if( sqlite3_step(p)!=SQLITE_DONE ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
      sqlite3_finalize(p);
      return -1;
    }
    sqlite3_reset(p);
  }
  sqlite3_finalize(p);
  return 0;
}

int64_t run_record_file(sqlite3 *db, int64_t runId, const char *zPath,
                        const char *zKind, int64_t bytes, uint64_t hash,
                        PfError *pErr){
  sqlite3_stmt *p = db_prepare(db,
    db_statement("run-record-file"), pErr);
  char zHash[20];
  int64_t id = -1;
  if( p==NULL ) return -1;
  snprintf(zHash, sizeof(zHash), "%016llx", (unsigned long long)hash);
  sqlite3_bind_int64(p, 1, runId);
  sqlite3_bind_text(p, 2, zPath, -1, SQLITE_STATIC);
  sqlite3_bind_text(p, 3, zKind, -1, SQLITE_STATIC);
  sqlite3_bind_int64(p, 4, bytes);
  sqlite3_bind_text(p, 5, zHash, -1, SQLITE_TRANSIENT);
  if( sqlite3_step(p)==SQLITE_DONE ) id = sqlite3_last_insert_rowid(db);
  else pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
  sqlite3_finalize(p);
  return id;
}

static int cmp_hash(const void *a, const void *b){
  const FileHash *x = a, *y = b;
  return x->hash<y->hash ? -1 : x->hash>y->hash ? 1 : 0;
}

void run_record_hash(const FileHash *a, int n, char *zOut, size_t nOut){
  FileHash *aSort = xmalloc(((size_t)n+1)*sizeof(FileHash));
  Hash64 h;
  memcpy(aSort, a, (size_t)n*sizeof(FileHash));
  qsort(aSort, (size_t)n, sizeof(FileHash), cmp_hash);
  hash64_init(&h, 0);
  for(int i=0; i<n; i++){
    hash64_update(&h, &aSort[i].hash, sizeof(uint64_t));
    hash64_update(&h, &aSort[i].bytes, sizeof(int64_t));
  }
  snprintf(zOut, nOut, "%016llx", (unsigned long long)hash64_final(&h));
  free(aSort);
}

int run_record_is_new(sqlite3 *db, const FileHash *a, int n){
  PfError e = {0};
  sqlite3_stmt *p = db_prepare(db,
    "SELECT 1 FROM run_file WHERE bytes=?1 LIMIT 1", &e);
  int isNew = 0;
  if( p==NULL ) return 0;
  for(int i=0; i<n && !isNew; i++){
    sqlite3_bind_int64(p, 1, a[i].bytes);
    if( sqlite3_step(p)!=SQLITE_ROW ) isNew = 1;
    sqlite3_reset(p);
  }
  sqlite3_finalize(p);
  return isNew;
}

int run_record_set_hash(sqlite3 *db, int64_t runId, const FileHash *a,
                        int n, Buf *pMsg){
  char zRunHash[20];
  PfError e = {0};
  sqlite3_stmt *p;
  run_record_hash(a, n, zRunHash, sizeof(zRunHash));
  p = db_prepare(db, "UPDATE run SET content_hash=?1 WHERE id=?2", &e);
  if( p ){
    sqlite3_bind_text(p, 1, zRunHash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(p, 2, runId);
    if( sqlite3_step(p)!=SQLITE_DONE ){
      pf_error_set(&e, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(p);
  }
  if( e.zMsg[0] ){
    buf_printf(pMsg, "database: %s", e.zMsg);
    return -1;
  }
  return 0;
}

void run_record_note_replaced(sqlite3 *db, int64_t id, IngestResult *pRes){
  sqlite3_stmt *p = db_prepare(db,
    "SELECT name FROM baseline WHERE run_id=?1 ORDER BY name", NULL);
  size_t n = strlen(pRes->zReplacedBaselines);
  if( pRes->nReplaced<8 ) pRes->aReplaced[pRes->nReplaced++] = id;
  if( p==NULL ) return;
  sqlite3_bind_int64(p, 1, id);
  while( sqlite3_step(p)==SQLITE_ROW
         && n+80<sizeof(pRes->zReplacedBaselines) ){
    snprintf(pRes->zReplacedBaselines+n, sizeof(pRes->zReplacedBaselines)-n,
             "%s'%.60s'", n ? ", " : "", sqlite3_column_text(p, 0));
    n = strlen(pRes->zReplacedBaselines);
  }
  sqlite3_finalize(p);
}
