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

#include <stdlib.h>
#include <string.h>

int64_t runref_resolve(sqlite3 *db, const char *zRef, PfError *pErr){
  sqlite3_stmt *p;
  int64_t id = -1;
  int rc;
  if( zRef==NULL || zRef[0]==0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "empty run reference");
    return -1;
  }
  p = db_prepare(db, strcmp(zRef, "latest")==0
    ? "SELECT max(id) FROM run WHERE ?1 NOT NULL"
    : "SELECT id FROM run WHERE name=?1"
      " UNION ALL SELECT id FROM run WHERE CAST(id AS TEXT)=?1 LIMIT 1", pErr);
  if( p==NULL ) return -1;
  sqlite3_bind_text(p, 1, zRef, -1, SQLITE_STATIC);
  rc = sqlite3_step(p);
  if( rc==SQLITE_ROW && sqlite3_column_type(p, 0)!=SQLITE_NULL ){
    id = sqlite3_column_int64(p, 0);
  }
  sqlite3_finalize(p);
  if( rc!=SQLITE_ROW && rc!=SQLITE_DONE ){
    /* out of memory, I/O error: not "no such run" */
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  if( id<0 && strcmp(zRef, "latest")==0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "the database has no runs");
    return -1;
  }
  if( id<0 ){
    char z[80];
    util_sanitize(zRef, strlen(zRef), z, sizeof(z));
    pf_error_set(pErr, ERRPOS_NONE, 0,
                 "no run '%s' (give an id, a name, or 'latest'; "
                 "'profan runs' lists them)", z);
  }
  return id;
}

/* The strings no row of a run names any more, and the operator signatures
** that named one of them: the union of every column of
** table_string_column.  0 or -1 (pErr). */
static int delete_unnamed(sqlite3 *db, PfError *pErr){
  sqlite3_stmt *p = db_prepare(db, db_statement("string-columns"), pErr);
  char *zUnion = NULL, *zSql;
  int rc;
  if( p==NULL ) return -1;
  while( (rc = sqlite3_step(p))==SQLITE_ROW ){
    char *z = sqlite3_mprintf("%z%sSELECT \"%w\" FROM \"%w\"", zUnion,
                              zUnion ? " UNION " : "",
                              (const char *)sqlite3_column_text(p, 1),
                              (const char *)sqlite3_column_text(p, 0));
    zUnion = z;
    if( z==NULL ){ rc = SQLITE_NOMEM; break; }
  }
  sqlite3_finalize(p);
  if( rc!=SQLITE_DONE || zUnion==NULL ){
    /* a union cut short would delete strings still named */
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", rc==SQLITE_NOMEM
                 ? "out of memory" : rc==SQLITE_DONE ? "no string columns"
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
