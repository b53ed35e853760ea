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
