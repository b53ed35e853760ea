/*
** runref.c — run references and run deletion.
**
** Pipeline position: shared by the commands.  Every table that carries a
** run_id is listed in azRunTables; deleting a run walks that list, so a new
** fact table must be added there (a test checks that every table with a
** run_id column is covered).
*/
#include "core/runref.h"
#include "core/db.h"

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
  if( sqlite3_prepare_v2(db, "SELECT name FROM run ORDER BY id DESC"
                         " LIMIT 10000", -1, &p, NULL)==SQLITE_OK ){
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
    rc = run_named(db, "SELECT max(id) FROM run WHERE ?1 NOT NULL"
                   " AND ?2 NOT NULL", zRef, 0, &id);
  }else{
    rc = run_named(db, "SELECT id FROM run WHERE id=?2", zRef, v, &id);
    if( rc==SQLITE_OK ){
      rc = run_named(db, "SELECT id FROM run WHERE name=?1 AND ?2 NOT NULL"
                     " ORDER BY id LIMIT 1", zRef, v, &byName);
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

int runref_delete(sqlite3 *db, int64_t runId, PfError *pErr){
  sqlite3_stmt *pTab;
  Buf sql;
  int rc = 0;
  /* every table with a run_id column, found from the schema itself */
  pTab = db_prepare(db,
    "SELECT m.name FROM sqlite_schema m"
    " WHERE m.type='table' AND m.name<>'run' AND EXISTS"
    " (SELECT 1 FROM pragma_table_info(m.name) WHERE name='run_id')", pErr);
  if( pTab==NULL ) return -1;
  buf_init(&sql);
  while( (rc = sqlite3_step(pTab))==SQLITE_ROW ){
    const char *zTab = (const char*)sqlite3_column_text(pTab, 0);
    if( zTab==NULL ){ rc = SQLITE_NOMEM; break; }
    buf_printf(&sql, "DELETE FROM \"%s\" WHERE run_id=%lld;", zTab,
               (long long)runId);
  }
  sqlite3_finalize(pTab);
  if( rc!=SQLITE_DONE ){
    /* a table list cut short would delete part of the run */
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s",
                 rc==SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    buf_free(&sql);
    return -1;
  }
  rc = 0;
  buf_printf(&sql, "DELETE FROM run WHERE id=%lld;", (long long)runId);
  if( db_exec(db, buf_str(&sql), pErr) ) rc = -1;
  buf_free(&sql);
  if( rc==0 ){
    rc = db_exec(db,
      "DELETE FROM string WHERE id NOT IN ("
      " SELECT name_id FROM kernel UNION SELECT name_id FROM gpu_mem_op"
      " UNION SELECT name_id FROM cpu_op UNION SELECT name_id FROM runtime_call"
      " UNION SELECT input_dims_id FROM cpu_op"
      " UNION SELECT input_types_id FROM cpu_op"
      " UNION SELECT concrete_inputs_id FROM cpu_op"
      " UNION SELECT name_id FROM gpu_sync UNION SELECT name_id FROM annotation"
      " UNION SELECT name_id FROM python_function"
      " UNION SELECT before_name_id FROM gpu_gap"
      " UNION SELECT after_name_id FROM gpu_gap);"
      /* operator signatures (schema 027) naming a string gone: a new
      ** string may take its id */
      "DELETE FROM op_sig WHERE name_id NOT IN (SELECT id FROM string)"
      " OR dims_id NOT IN (SELECT id FROM string UNION SELECT 0)"
      " OR types_id NOT IN (SELECT id FROM string UNION SELECT 0)"
      " OR conc_id NOT IN (SELECT id FROM string UNION SELECT 0);"
      "DELETE FROM op_sig_model WHERE sig_id NOT IN (SELECT id FROM op_sig)",
      pErr) ? -1 : 0;
  }
  return rc;
}
