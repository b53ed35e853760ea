/*
** cmd_rebuild.c — `profan rebuild [RUN...]`: compute every derived table
** of the runs (default: all) again from their raw rows, in one
** transaction, with the derive passes ingest and merge run
** (derive_run_stored, DERIVE_STORED_ALL).  Derived tables are not
** migrated when a definition changes: they are rebuilt.
**
** Pipeline position: front end of the derive sequence over stored rows.
** Every RUN is resolved and checked before anything is derived; any
** failure rolls everything back, so the database is as it was.  A run of
** a `merge --summaries-only` history has no raw rows to rebuild from: it
** is skipped (or, named, refused).
*/
#include "cli/cli.h"
#include "core/db.h"
#include "core/runref.h"
#include "core/table_role.h"
#include "analysis/derive_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The runs to rebuild and what was done to each. */
typedef struct Target {
  int64_t id;
  char *zName;            /* the run's name */
  int skip;               /* summaries only: nothing to rebuild from */
  char *zNote;            /* the derive passes' note, or NULL */
  double ms;
} Target;

/* The name of run runId (malloc'ed; "?" when it has none). */
static char *run_name(sqlite3 *db, int64_t runId){
  sqlite3_stmt *p = db_prepare(db, db_statement("run-name"), NULL);
  char *z = NULL;
  if( p ){
    sqlite3_bind_int64(p, 1, runId);
    if( sqlite3_step(p)==SQLITE_ROW && sqlite3_column_text(p, 0) ){
      z = xstrdup((const char *)sqlite3_column_text(p, 0));
    }
    sqlite3_finalize(p);
  }
  return z ? z : xstrdup("?");
}

/* The runs named on the command line (each once), or every run when
** none is.  Returns their number (targets in *paT, the caller frees), or
** -1 after printing why: *pExit is EXIT_USAGE (a RUN not found) or
** EXIT_DB. */
static int targets_of(Cli *p, sqlite3 *db, Target **paT, int *pExit){
  PfError e = {0};
  Target *a = NULL;
  int n = 0, nBad = 0;
  if( p->argc<2 ){
    int64_t *aId = db_id_set(db, db_statement("all-runs"), 0, &n, &e);
    if( aId==NULL ){
      cli_error("%s", e.zMsg);
      *pExit = EXIT_DB;
      return -1;
    }
    a = xcalloc((size_t)n+1, sizeof(Target));
    for(int i=0; i<n; i++) a[i].id = aId[i];
    free(aId);
  }else{
    a = xcalloc((size_t)p->argc, sizeof(Target));
    for(int i=1; i<p->argc; i++){
      int64_t id;
      int dup = 0, r = cli_resolve_run(db, p->argv[i], 0, &id);
      if( r!=EXIT_OK ){
        if( r!=EXIT_USAGE ){
          free(a);
          *pExit = r;
          return -1;
        }
        nBad++;
        continue;
      }
      for(int k=0; k<n; k++) dup |= a[k].id==id;
      if( !dup ) a[n++].id = id;
    }
    if( nBad>0 ){
      cli_error("nothing rebuilt (%d of %d RUN%s not found)", nBad,
                p->argc-1, p->argc-1==1 ? "" : "s");
      free(a);
      *pExit = EXIT_USAGE;
      return -1;
    }
  }
  for(int i=0; i<n; i++) a[i].zName = run_name(db, a[i].id);
  *paT = a;
  return n;
}

static void targets_free(Target *a, int n){
  for(int i=0; i<n; i++){
    free(a[i].zName);
    free(a[i].zNote);
  }
  free(a);
}

/* Mark the runs that hold summaries only; a named one is an error.
** Returns 0, or the exit code after printing why. */
static int check_targets(Cli *p, sqlite3 *db, Target *a, int n){
  PfError e = {0};
  if( table_role_check(db, &e) ){
    cli_error("%s: %s; nothing rebuilt", p->zDb, e.zMsg);
    return EXIT_DB;
  }
  for(int i=0; i<n; i++){
    int64_t aN[3];
    /* files that held no records: nothing a history could have dropped */
    int has = runref_files(db, a[i].id, aN, &e) ? -1
            : aN[2]==0 ? 1 : table_role_run_has_raw(db, a[i].id, &e);
    if( has<0 ){
      cli_error("%s; nothing rebuilt", e.zMsg);
      return EXIT_DB;
    }
    if( has ) continue;
    a[i].skip = 1;
    if( p->argc>=2 ){
      cli_error("run %lld (%s) holds summaries only (a merge"
                " --summaries-only history): no raw rows to rebuild it"
                " from; nothing rebuilt", (long long)a[i].id, a[i].zName);
      return EXIT_USAGE;
    }
  }
  return EXIT_OK;
}

/* Derive every run of a[] that is not skipped.  Returns 0, or EXIT_DB
** after printing why. */
static int derive_targets(sqlite3 *db, Target *a, int n){
  for(int i=0; i<n; i++){
    PfError e = {0};
    double t0 = util_now_ms();
    if( a[i].skip ) continue;
    if( derive_run_stored(db, a[i].id, DERIVE_STORED_ALL, &a[i].zNote,
                          &e) ){
      cli_error("run %lld (%s): %s; nothing rebuilt", (long long)a[i].id,
                a[i].zName, db_lost_reason(db) ? db_lost_reason(db)
                : e.zMsg);
      return EXIT_DB;
    }
    a[i].ms = util_now_ms() - t0;
  }
  return EXIT_OK;
}

/* What was done, said once it is committed. */
static void report(const Target *a, int n, double ms){
  int nDone = 0;
  if( n==0 ){
    fprintf(stderr, "profan: nothing rebuilt (the database has no runs)\n");
    return;
  }
  for(int i=0; i<n; i++){
    if( a[i].skip ){
      fprintf(stderr, "profan: run %lld (%s) holds summaries only (a merge"
              " --summaries-only history): nothing to rebuild it from;"
              " skipped\n", (long long)a[i].id, a[i].zName);
      continue;
    }
    fprintf(stderr, "profan: rebuilt run %lld (%s): %.2f s\n",
            (long long)a[i].id, a[i].zName, a[i].ms/1000.0);
    if( a[i].zNote ){
      fprintf(stderr, "profan: note: run %lld: %s\n", (long long)a[i].id,
              a[i].zNote);
    }
    nDone++;
  }
  if( nDone==0 ){
    fprintf(stderr, "profan: nothing rebuilt (no run with raw rows)\n");
  }else if( nDone>1 ){
    fprintf(stderr, "profan: rebuilt %d runs: %.2f s\n", nDone, ms/1000.0);
  }
}

int rebuild_cmd(Cli *p){
  sqlite3 *db;
  Target *a = NULL;
  int n, rc = EXIT_OK, quiet;
  double t0 = util_now_ms();
  quiet = cli_option(p, "quiet", "q", 0)!=NULL;
  cli_timeout_option(p);
  cli_verify_options(p);
  db = cli_open_write(p, 0);
  if( (rc = cli_begin_write(p, db, NULL))!=EXIT_OK ){
    db_close(db);
    return rc;
  }
  n = targets_of(p, db, &a, &rc);
  if( n>=0 ) rc = check_targets(p, db, a, n);
  if( n>=0 && rc==EXIT_OK ) rc = derive_targets(db, a, n);
  if( n>=0 && rc==EXIT_OK ){
    rc = cli_commit(p, db);
  }else{
    db_rollback(db);
  }
  if( n>=0 && rc==EXIT_OK && !quiet ) report(a, n, util_now_ms() - t0);
  if( n>=0 ) targets_free(a, n);
  db_close(db);
  return rc;
}
