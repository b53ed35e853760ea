/*
** runref.c — run references and run deletion.
**
** Pipeline position: shared by the commands.  Deleting a run walks the
** tables that table_role says hold a run's rows (table_role.c; a table
** with a run_id column and no role makes it refuse), then drops the
** strings no row names any more.
*/
#include "core/runref.h"
#include "core/db.h"
#include "core/table_role.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *runref_name_problem(const char *zName){
  const char *z = zName;
  if( z==NULL || z[0]==0 ) return "is empty";
  if( strcmp(z, "latest")==0 ) return "is the word 'latest' (the newest run)";
  while( *z==' ' || *z=='\t' ) z++;
  if( *z=='+' || *z=='-' ) z++;
  if( !isdigit((unsigned char)*z) ) return NULL;
  while( isdigit((unsigned char)*z) ) z++;
  while( *z==' ' || *z=='\t' ) z++;
  return *z ? NULL : "reads as a run id";
}

/* The id zRef spells as a canonical whole number ("3", not "03"), or -1. */
static int64_t ref_as_id(const char *zRef){
  int64_t v = 0;
  const char *z = zRef;
  if( z[0]=='0' && z[1]!=0 ) return -1;
  for(; *z; z++){
    if( !isdigit((unsigned char)*z) || v>(INT64_MAX-9)/10 ) return -1;
    v = v*10 + (*z-'0');
  }
  return z==zRef ? -1 : v;
}

/* The run named zName into *pId (0 when none).  SQLite's code. */
static int run_named(sqlite3 *db, const char *zSql, const char *zName,
                     int64_t v, int64_t *pId){
  sqlite3_stmt *p = NULL;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &p, NULL);
  *pId = 0;
  if( rc==SQLITE_OK ){
    sqlite3_bind_text(p, 1, zName, -1, SQLITE_STATIC);
    sqlite3_bind_int64(p, 2, v);
    rc = sqlite3_step(p);
    if( rc==SQLITE_ROW && sqlite3_column_type(p, 0)!=SQLITE_NULL ){
      *pId = sqlite3_column_int64(p, 0);
    }
  }
  sqlite3_finalize(p);
  return rc==SQLITE_ROW || rc==SQLITE_DONE ? SQLITE_OK : rc;
}

/* pErr: no run zRef, with the nearest run name when one is near. */
static void no_such_run(sqlite3 *db, const char *zRef, PfError *pErr){
  char z[80];
  sqlite3_stmt *p = NULL;
  const char **az = NULL;
  const char *zNear;
  int n = 0;
  util_sanitize(zRef, strlen(zRef), z, sizeof(z));
  if( sqlite3_prepare_v2(db,
     db_statement("runref-no-such-run"), -1, &p, NULL)==SQLITE_OK ){
    while( sqlite3_step(p)==SQLITE_ROW ){
      const char *zName = (const char *)sqlite3_column_text(p, 0);
      az = xrealloc(az, sizeof(char *)*(size_t)(n+1));
      az[n++] = xstrdup(zName ? zName : "");
    }
  }
  sqlite3_finalize(p);
  zNear = util_nearest(zRef, az, n);
  if( zNear ){
    char zN[80];
    util_sanitize(zNear, strlen(zNear), zN, sizeof(zN));
    pf_error_set(pErr, ERRPOS_NONE, 0, "no run '%s' (did you mean '%s'?"
                 " 'profan runs' lists them)", z, zN);
  }else{
    pf_error_set(pErr, ERRPOS_NONE, 0, "no run '%s' (give an id, a name,"
                 " or 'latest'; 'profan runs' lists them)", z);
  }
  pf_error_kind(pErr, PF_KIND_USAGE);
  for(int i=0; i<n; i++) free((char *)az[i]);
  free(az);
}

int64_t runref_resolve_ex(sqlite3 *db, const char *zRef, int64_t *pShadow,
                          PfError *pErr){
  int64_t id = 0, byName = 0, v;
  int rc;
  if( pShadow ) *pShadow = 0;
  if( zRef==NULL || zRef[0]==0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "empty run reference");
    pf_error_kind(pErr, PF_KIND_USAGE);
    return -1;
  }
  v = ref_as_id(zRef);
  if( strcmp(zRef, "latest")==0 ){
    rc = run_named(db,
        db_statement("runref-latest"), zRef, 0, &id);
  }else{
    rc = run_named(db, "SELECT id FROM run WHERE id=?2", zRef, v, &id);
    if( rc==SQLITE_OK ){
      rc = run_named(db,
          db_statement("runref-by-name"),
          zRef, v, &byName);
    }
  }
  if( rc!=SQLITE_OK ){
    /* out of memory, I/O error: not "no such run" */
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    pf_error_kind(pErr, PF_KIND_DB);
    return -1;
  }
  if( id>0 && byName>0 && byName!=id && pShadow ) *pShadow = byName;
  if( id==0 ) id = byName;
  if( id>0 ) return id;
  if( strcmp(zRef, "latest")==0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "the database has no runs");
    pf_error_kind(pErr, PF_KIND_USAGE);
    return -1;
  }
  no_such_run(db, zRef, pErr);
  return -1;
}

int64_t runref_resolve(sqlite3 *db, const char *zRef, PfError *pErr){
  return runref_resolve_ex(db, zRef, NULL, pErr);
}

/* The strings no row of a run names any more, and the operator signatures
** that named one of them: the union of every column of
** table_string_column (statements/string-union.sql).  0 or -1 (pErr). */
static int delete_unnamed(sqlite3 *db, PfError *pErr){
  sqlite3_stmt *p = db_prepare(db, db_statement("string-union"), pErr);
  char *zUnion = NULL, *zSql;
  int rc;
  if( p==NULL ) return -1;
  rc = sqlite3_step(p);
  if( rc==SQLITE_ROW && sqlite3_column_type(p, 0)!=SQLITE_NULL ){
    zUnion = sqlite3_mprintf("%s", sqlite3_column_text(p, 0));
    if( zUnion==NULL ) rc = SQLITE_NOMEM;
  }
  sqlite3_finalize(p);
  if( rc!=SQLITE_ROW || zUnion==NULL ){
    /* a union cut short would delete strings still named */
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", rc==SQLITE_NOMEM
                 ? "out of memory" : rc==SQLITE_ROW ? "no string columns"
                 : sqlite3_errmsg(db));
    sqlite3_free(zUnion);
    return -1;
  }
  zSql = sqlite3_mprintf(db_statement("delete-unnamed"), zUnion);
  sqlite3_free(zUnion);
  rc = db_exec(db, zSql, pErr);
  sqlite3_free(zSql);
  return rc ? -1 : 0;
}

int runref_delete(sqlite3 *db, int64_t runId, PfError *pErr){
  if( table_role_check(db, pErr)
      || table_role_delete_run(db, "run-tables", 0, runId, pErr)
      || db_exec_run(db, db_statement("delete-run"), runId, pErr) ){
    return -1;
  }
  return delete_unnamed(db, pErr);
}

int runref_files(sqlite3 *db, int64_t runId, int64_t aN[3], PfError *pErr){
  sqlite3_stmt *p = db_prepare(db, db_statement("run-files"), pErr);
  int rc;
  if( p==NULL ) return -1;
  sqlite3_bind_int64(p, 1, runId);
  rc = sqlite3_step(p);
  for(int i=0; i<3; i++) aN[i] = rc==SQLITE_ROW ? sqlite3_column_int64(p, i)
                                                : 0;
  sqlite3_finalize(p);
  if( rc!=SQLITE_ROW ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}
