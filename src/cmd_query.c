/*
** cmd_query.c — `profan query NAME` and `profan queries`.
**
** Pipeline position: read side.  Resolves the run, binds --param values
** (never pasted into SQL), and prints through output.c.
*/
#include "cli.h"
#include "db.h"
#include "history.h"
#include "named_query.h"
#include "runref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int query_cmd(Cli *p){
  const char *zRun = cli_option(p, "run", NULL, 1);
  const char *zBase = cli_option(p, "baseline", NULL, 1);
  const char *zLimit = cli_option(p, "limit", NULL, 1);
  const char *azKey[64], *azVal[64];
  char *azKeyCopy[64];
  int nKV = 0, rc;
  const char *z;
  int64_t limit = -1, runId = 0;
  NqList list;
  const NamedQuery *q;
  sqlite3 *db;
  sqlite3_stmt *pStmt;
  PfError e = {0};

  while( (z = cli_option(p, "param", "p", 1))!=NULL ){
    const char *zEq = strchr(z, '=');
    if( zEq==NULL || zEq==z ) cli_usage_error(p, "--param needs K=V, got '%s'", z);
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
  if( nq_load_all(&list, &e) ){
    cli_error("%s", e.zMsg);
    return EXIT_SQL;
  }
  q = nq_find(&list, p->argv[1]);
  if( q==NULL ){
    char zName[64];
    util_sanitize(p->argv[1], strlen(p->argv[1]), zName, sizeof(zName));
    cli_error("no query named '%s' ('profan queries' lists them)", zName);
    nq_list_free(&list);
    for(int i=0; i<nKV; i++) free(azKeyCopy[i]);
    return EXIT_USAGE;
  }
  db = cli_open_db(p, DB_OPEN_READONLY);
  if( q->needsRun ){
    runId = zBase ? hist_resolve_baseline(db, zBase, &e)
                  : runref_resolve(db, zRun ? zRun : "latest", &e);
    if( runId<0 ){
      cli_error("%s", e.zMsg);
      db_close(db);
      nq_list_free(&list);
      for(int i=0; i<nKV; i++) free(azKeyCopy[i]);
      return EXIT_BAD;
    }
  }
  if( nq_check(db, q, runId, azKey, azVal, nKV, &e) ){
    /* unknown parameter, a value its type refuses, a missing baseline */
    for(int i=0; i<nKV; i++) free(azKeyCopy[i]);
    cli_error("%s", e.zMsg);
    db_close(db);
    nq_list_free(&list);
    return EXIT_USAGE;
  }
  pStmt = nq_prepare(db, q, runId, azKey, azVal, nKV, limit, &e);
  for(int i=0; i<nKV; i++) free(azKeyCopy[i]);
  if( pStmt==NULL ){
    cli_error("%s", e.zMsg);
    db_close(db);
    nq_list_free(&list);
    return EXIT_SQL;
  }
  rc = output_stmt(pStmt, p->eFmt, stdout, NULL);
  if( rc!=SQLITE_DONE ){
    cli_error("query '%s': %s", q->zName, sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
  db_close(db);
  nq_list_free(&list);
  return rc==SQLITE_DONE ? EXIT_OK : EXIT_SQL;
}

int queries_cmd(Cli *p){
  int verbose = cli_option(p, "verbose", "v", 0)!=NULL;
  NqList list;
  PfError e = {0};
  cli_verify_options(p);
  if( p->argc!=1 ) cli_usage_error(p, "no arguments expected");
  if( nq_load_all(&list, &e) ){
    cli_error("%s", e.zMsg);
    return EXIT_SQL;
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
  nq_list_free(&list);
  return EXIT_OK;
}
