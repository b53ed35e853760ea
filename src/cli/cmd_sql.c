/*
** cmd_sql.c — `profan sql "SELECT ..."`: ad-hoc SQL on a read-only
** connection, printed in the chosen format.
**
** Pipeline position: read side.
*/
#include "cli/cli.h"
#include "core/db.h"

#include <string.h>

/* The exit code of the failed statement: a write the read-only
** connection refused is the user's SQL, like a syntax error. */
static int sql_exit(sqlite3 *db){
  if( (sqlite3_errcode(db) & 0xff)==SQLITE_READONLY ) return EXIT_SQL;
  return cli_sqlite_exit(db);
}

int sql_cmd(Cli *p){
  sqlite3 *db;
  const char *zSql, *zTail;
  int rc = EXIT_OK;
  cli_verify_options(p);
  if( p->argc!=2 ) cli_usage_error(p, "give one SQL text (quote it)");
  db = cli_open_db(p, DB_OPEN_READONLY);
  zSql = p->argv[1];
  while( zSql && *zSql ){
    sqlite3_stmt *pStmt = NULL;
    if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, &zTail)!=SQLITE_OK ){
      cli_error("sql: %s", sqlite3_errmsg(db));
      rc = sql_exit(db);
      break;
    }
    if( pStmt==NULL ) break;          /* only whitespace or comments left */
    if( output_stmt(pStmt, p->eFmt, stdout, NULL)!=SQLITE_DONE ){
      cli_error("sql: %s", sqlite3_errmsg(db));
      rc = sql_exit(db);
      sqlite3_finalize(pStmt);
      break;
    }
    sqlite3_finalize(pStmt);
    zSql = zTail;
  }
  db_close(db);
  return rc;
}
