/*
** table_role.c — the table catalogue as the commands use it (see
** table_role.h): the checks and loops over the tables a statement of
** statements/ lists from table_role.
**
** Pipeline position: shared by rm, merge, the derive sequence over stored
** rows and rebuild, inside their transactions.
*/
#include "core/table_role.h"
#include "core/db.h"

#include <stdlib.h>
#include <string.h>

/* The names the named statement zList returns (?1 bound to arg when it
** has one), as a malloc'ed array of malloc'ed strings in *pazName (the
** caller frees with names_free); returns their number, or -1 with pErr
** set (a list cut short must not pass for the whole list). */
static int names_of(sqlite3 *db, const char *zList, int arg,
                    char ***pazName, PfError *pErr){
  sqlite3_stmt *p = db_prepare(db, db_statement(zList), pErr);
  char **az = NULL;
  int n = 0, rc;
  *pazName = NULL;
  if( p==NULL ) return -1;
  if( sqlite3_bind_parameter_count(p)>0 ) sqlite3_bind_int(p, 1, arg);
  while( (rc = sqlite3_step(p))==SQLITE_ROW ){
    const char *z = (const char *)sqlite3_column_text(p, 0);
    if( z==NULL ){ rc = SQLITE_NOMEM; break; }
    az = xrealloc(az, sizeof(char *)*(size_t)(n+1));
    az[n++] = xstrdup(z);
  }
  sqlite3_finalize(p);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s",
                 rc==SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    for(int i=0; i<n; i++) free(az[i]);
    free(az);
    return -1;
  }
  *pazName = az;
  return n;
}

static void names_free(char **az, int n){
  for(int i=0; i<n; i++) free(az[i]);
  free(az);
}

int table_role_check(sqlite3 *db, PfError *pErr){
  char **az;
  int n = names_of(db, "unclassified-tables", 0, &az, pErr);
  if( n<0 ) return -1;
  if( n>0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "table %s has a run_id column but no"
                 " role in table_role (CONTRIBUTING.md, \"Adding an"
                 " analysis\"): its rows cannot be handled", az[0]);
  }
  names_free(az, n);
  return n>0 ? -1 : 0;
}

int table_role_delete_run(sqlite3 *db, const char *zList, int arg,
                          int64_t runId, PfError *pErr){
  char **az;
  int n = names_of(db, zList, arg, &az, pErr), rc = 0;
  if( n<0 ) return -1;
  for(int i=0; i<n && rc==0; i++){
    char *zSql = sqlite3_mprintf(db_statement("delete-run-rows"), az[i]);
    rc = db_exec_run(db, zSql, runId, pErr);
    sqlite3_free(zSql);
  }
  names_free(az, n);
  return rc;
}

int table_role_run_has_raw(sqlite3 *db, int64_t runId, PfError *pErr){
  char **az;
  int n = names_of(db, "raw-probe-tables", 0, &az, pErr), found = 0;
  if( n<0 ) return -1;
  for(int i=0; i<n && found==0; i++){
    char *zSql = sqlite3_mprintf(db_statement("run-has-rows"), az[i]);
    sqlite3_stmt *p = db_prepare(db, zSql, pErr);
    int rc;
    sqlite3_free(zSql);
    if( p==NULL ){ found = -1; break; }
    sqlite3_bind_int64(p, 1, runId);
    rc = sqlite3_step(p);
    sqlite3_finalize(p);
    if( rc==SQLITE_ROW ){
      found = 1;
    }else if( rc!=SQLITE_DONE ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
      found = -1;
    }
  }
  names_free(az, n);
  return found;
}
