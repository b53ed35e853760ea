/*
** cmd_query.c — `profan query NAME` and `profan queries`.
**
** Pipeline position: read side.  Resolves the run, binds --param values
** (never pasted into SQL), and prints through output.c.
*/
#include "cli/cli.h"
#include "core/db.h"
#include "history/history.h"
#include "report/named_query.h"
#include "core/runref.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* True when the SQL text zSql names table zTab as a whole word. */
static int names_table(const char *zSql, const char *zTab){
  size_t n = strlen(zTab);
  const char *z = zSql;
  while( (z = strstr(z, zTab))!=NULL ){
    int bBefore = z==zSql || !(isalnum((unsigned char)z[-1]) || z[-1]=='_');
    int bAfter = !(isalnum((unsigned char)z[n]) || z[n]=='_');
    if( bBefore && bAfter ) return 1;
    z += n;
  }
  return 0;
}

/*
** An empty result: one line on stderr saying why.  The first table of
** input_source (schema 014) that q's SQL names and run runId has no row
** in gives "run 3 has no memory snapshot"; else the result is empty for
** the data the run has ("no rows for run 3 ...").
*/
static void say_why_empty(sqlite3 *db, const NamedQuery *q, int64_t runId){
  sqlite3_stmt *s;
  if( !q->needsRun ){
    fprintf(stderr, "profan: query '%s': no rows\n", q->zName);
    return;
  }
  s = db_prepare(db, "SELECT tbl, what FROM input_source ORDER BY priority",
                 NULL);
  while( s && sqlite3_step(s)==SQLITE_ROW ){
    const char *zTab = (const char *)sqlite3_column_text(s, 0);
    const char *zWhat = (const char *)sqlite3_column_text(s, 1);
    if( zTab==NULL || zWhat==NULL || !names_table(q->zSql, zTab) ) continue;
    if( db_int(db, 1,
       db_statement("cmd-query-say-why-empty"), zTab, (long long)runId)==0 ){
      fprintf(stderr, "profan: run %lld has no %s (query '%s')\n",
              (long long)runId, zWhat, q->zName);
      sqlite3_finalize(s);
      return;
    }
  }
  sqlite3_finalize(s);
  fprintf(stderr, "profan: query '%s': no rows for run %lld (the run has"
          " the inputs it reads; none matched its conditions)\n",
          q->zName, (long long)runId);
}

int query_cmd(Cli *p){
  const char *zRun = cli_option(p, "run", NULL, 1);
  const char *zBase = cli_option(p, "baseline", NULL, 1);
  const char *zLimit = cli_option(p, "limit", NULL, 1);
  const char *azKey[64], *azVal[64];
  char *azKeyCopy[64];
  int nKV = 0, rc;
  const char *z;
  int64_t limit = -1, runId = 0, nRow = 0;
  NqList list;
  const NamedQuery *q;
  sqlite3 *db;
  sqlite3_stmt *pStmt;
  PfError e = {0};

  while( (z = cli_option(p, "param", "p", 1))!=NULL ){
    const char *zEq = strchr(z, '=');
    if( zEq==NULL || zEq==z ){
      cli_usage_error(p, "--param needs K=V, got '%s'", z);
    }
    if( nKV==64 ) cli_usage_error(p, "too many --param options");
    azKeyCopy[nKV] = xstrndup(z, (size_t)(zEq-z));
    azKey[nKV] = azKeyCopy[nKV];
    azVal[nKV] = zEq+1;
    nKV++;
  }
  if( zLimit ){
    char *zEnd;
    limit = strtoll(zLimit, &zEnd, 10);
    if( *zEnd || limit<0 ) cli_usage_error(p, "--limit needs a number >= 0");
  }
  cli_verify_options(p);
  if( p->argc!=2 ) cli_usage_error(p, "give exactly one query NAME");
  if( zRun && zBase ) cli_usage_error(p, "give --run or --baseline, not both");
  if( named_query_load_all(&list, &e) ){
    cli_error("%s", e.zMsg);
    return EXIT_SQL;
  }
  q = named_query_find(&list, p->argv[1]);
  if( q==NULL ){
    char zName[64];
    const char **az = xmalloc(sizeof(char *)*(size_t)(list.n+1));
    Buf b;
    buf_init(&b);
    for(int i=0; i<list.n; i++) az[i] = list.a[i].zName;
    cli_did_you_mean_rest(&b, p->argv[1], az, list.n,
                          "'profan queries' lists them");
    free(az);
    util_sanitize(p->argv[1], strlen(p->argv[1]), zName, sizeof(zName));
    cli_error("no query named '%s'%s", zName, buf_str(&b));
    buf_free(&b);
    named_query_list_free(&list);
    for(int i=0; i<nKV; i++) free(azKeyCopy[i]);
    return EXIT_USAGE;
  }
  db = cli_open_db(p, DB_OPEN_READONLY);
  if( q->needsRun ){
    rc = cli_resolve_run(db, zBase ? zBase : zRun ? zRun : "latest",
                         zBase ? CLI_RUN_BASELINE : 0, &runId);
    if( rc!=EXIT_OK ){
      db_close(db);
      named_query_list_free(&list);
      for(int i=0; i<nKV; i++) free(azKeyCopy[i]);
      return rc;
    }
  }
  if( named_query_check(db, q, runId, azKey, azVal, nKV, &e) ){
    /* unknown parameter, a value its type refuses, a missing baseline */
    for(int i=0; i<nKV; i++) free(azKeyCopy[i]);
    cli_error("%s", e.zMsg);
    db_close(db);
    named_query_list_free(&list);
    return cli_error_exit(&e, EXIT_USAGE);
  }
  pStmt = named_query_prepare(db, q, runId, azKey, azVal, nKV, limit, &e);
  for(int i=0; i<nKV; i++) free(azKeyCopy[i]);
  if( pStmt==NULL ){
    cli_error("%s", e.zMsg);
    rc = cli_sqlite_exit(db);
    db_close(db);
    named_query_list_free(&list);
    return rc;
  }
  {
    int nUnit;
    OutUnit *aUnit = named_query_units(q, &nUnit);
    rc = output_stmt_units(pStmt, p->eFmt, stdout, &nRow, aUnit, nUnit);
    free(aUnit);
  }
  if( rc!=SQLITE_DONE ){
    cli_error("query '%s': %s", q->zName, sqlite3_errmsg(db));
  }else if( nRow==0 ){
    say_why_empty(db, q, runId);
  }
  sqlite3_finalize(pStmt);
  rc = rc==SQLITE_DONE ? EXIT_OK : cli_sqlite_exit(db);
  db_close(db);
  named_query_list_free(&list);
  return rc;
}

/*
** The query list in a machine format (csv, json, markdown): one row per
** query from an in-memory table, printed by output.c.  Returns an exit
** code.
*/
static int print_query_list(Cli *p, const NqList *pList){
  sqlite3 *mem = NULL;
  sqlite3_stmt *s = NULL;
  int rc = EXIT_SQL;
  if( sqlite3_open(":memory:", &mem)!=SQLITE_OK
   || sqlite3_exec(mem,
       db_statement("cmd-query-print-query-list"), NULL, NULL, NULL)!=SQLITE_OK
   || sqlite3_prepare_v2(mem, "INSERT INTO q VALUES(?1,?2,?3,?4,?5)", -1,
                         &s, NULL)!=SQLITE_OK ){
    cli_error("%s", sqlite3_errmsg(mem));
    sqlite3_close(mem);
    return EXIT_SQL;
  }
  for(int i=0; i<pList->n; i++){
    const NamedQuery *q = &pList->a[i];
    Buf par, col;
    buf_init(&par);
    buf_init(&col);
    for(int k=0; k<q->nParam; k++){
      buf_printf(&par, "%s%s=%s", k ? " " : "", q->aParam[k].zName,
                 q->aParam[k].zDefault ? q->aParam[k].zDefault : "");
    }
    for(int k=0; k<q->nCol; k++){
      buf_printf(&col, "%s%s", k ? " " : "", q->aCol[k].zName);
    }
    sqlite3_bind_text(s, 1, q->zName, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, q->zDesc, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, q->zSource, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 4, buf_str(&par), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 5, buf_str(&col), -1, SQLITE_TRANSIENT);
    sqlite3_step(s);
    sqlite3_reset(s);
    buf_free(&par);
    buf_free(&col);
  }
  sqlite3_finalize(s);
  if( sqlite3_prepare_v2(mem, "SELECT * FROM q ORDER BY rowid", -1, &s,
                         NULL)==SQLITE_OK ){
    if( output_stmt(s, p->eFmt, stdout, NULL)==SQLITE_DONE ) rc = EXIT_OK;
    sqlite3_finalize(s);
  }
  if( rc!=EXIT_OK ) cli_error("%s", sqlite3_errmsg(mem));
  sqlite3_close(mem);
  return rc;
}

int queries_cmd(Cli *p){
  int verbose = cli_option(p, "verbose", "v", 0)!=NULL;
  NqList list;
  PfError e = {0};
  int rc = EXIT_OK;
  cli_verify_options(p);
  if( p->argc!=1 ) cli_usage_error(p, "no arguments expected");
  if( named_query_load_all(&list, &e) ){
    cli_error("%s", e.zMsg);
    return EXIT_SQL;
  }
  if( p->eFmt!=OUT_TABLE ){
    rc = print_query_list(p, &list);
    named_query_list_free(&list);
    return rc;
  }
  for(int i=0; i<list.n; i++){
    const NamedQuery *q = &list.a[i];
    if( !verbose ){
      printf("%-22s %s\n", q->zName, q->zDesc);
      continue;
    }
    printf("%s%s\n  %s\n", q->zName,
           strcmp(q->zSource, "builtin") ? " (user)" : "", q->zDesc);
    if( q->nParam ){
      printf("  parameters:\n");
      for(int k=0; k<q->nParam; k++){
        const NqParam *pp = &q->aParam[k];
        char zType[64];
        snprintf(zType, sizeof(zType), "%s%s", pp->zType ? pp->zType : "any",
                 pp->required ? " (required)" : "");
        printf("    %-14s %-18s default %-12s %s\n", pp->zName, zType,
               pp->zDefault ? pp->zDefault : "(none)", pp->zDesc);
      }
    }
    if( q->nCol ){
      printf("  columns:\n");
      for(int k=0; k<q->nCol; k++){
        printf("    %-22s %s\n", q->aCol[k].zName, q->aCol[k].zDesc);
      }
    }
    printf("\n");
  }
  named_query_list_free(&list);
  return EXIT_OK;
}
