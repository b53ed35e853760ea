/*
** pg_archive.c — a local run as a history server holds it once pushed
** (see pg_archive.h).
**
** Pipeline position: the server layer.  One round trip to the server
** (pg_conn_batch) gets what merge_archive_run() needs to give the run
** the server's ids: the run of the same content if any, the strings the
** run names, the runs named as it would be (NAME, NAME-2, ...), the
** baselines it names, and every table's largest id.
*/
#include "server/pg_archive.h"
#include "core/db.h"
#include "core/runref.h"
#include "ingest/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names merge_archive_run() tries for a run: NAME, NAME-2 ... */
#define ARCHIVE_NAMES 999

/* The server's largest ids, for merge_archive_run()'s floors. */
typedef struct Floors {
  const PgPlan *plan;
  int64_t run, str;
  int64_t *a;              /* by plan table (0: no id) */
} Floors;

static int64_t floor_of(void *pArg, const char *zTable){
  Floors *f = pArg;
  if( strcmp(zTable, "run")==0 ) return f->run;
  if( strcmp(zTable, "string")==0 ) return f->str;
  for(int i=0; i<f->plan->nTab; i++){
    if( strcmp(f->plan->a[i].zName, zTable)==0 ) return f->a[i];
  }
  return 0;
}

/* A list of strings (malloc'ed). */
typedef struct Words {
  char **az;
  int n;
} Words;

static void words_add(Words *w, const char *z){
  w->az = xrealloc(w->az, sizeof(char *)*(size_t)(w->n+1));
  w->az[w->n++] = xstrdup(z ? z : "");
}

static void words_free(Words *w){
  for(int i=0; i<w->n; i++) free(w->az[i]);
  free(w->az);
  memset(w, 0, sizeof(*w));
}

/* The first column of every row of zSql (?1 = id) into w.  0 or -1. */
static int words_of(sqlite3 *db, const char *zSql, int64_t id, Words *w,
                    PfError *pErr){
  sqlite3_stmt *s = db_prepare(db, zSql, pErr);
  int rc;
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, id);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    words_add(w, (const char *)sqlite3_column_text(s, 0));
  }
  sqlite3_finalize(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
    pf_error_kind(pErr, PF_KIND_DB);
    return -1;
  }
  return 0;
}

/* What of the local run decides how the server holds it: its content
** hash, the names it may get, the baselines naming it, and the texts of
** the strings its summary rows name. */
typedef struct Local {
  Words hash, names, bases, strs;
} Local;

static int local_read(sqlite3 *dbL, const PgPlan *plan, int64_t runId,
                      Local *l, PfError *pErr){
  Words name = {0};
  Buf b;
  int rc, nUnion = 0;
  memset(l, 0, sizeof(*l));
  if( words_of(dbL, "SELECT content_hash FROM run WHERE id=?1", runId,
               &l->hash, pErr)
      || words_of(dbL, "SELECT name FROM run WHERE id=?1", runId, &name,
                  pErr)
      || words_of(dbL,
          db_statement("pg-archive-local-read"), runId, &l->bases, pErr) ){
    words_free(&name);
    return -1;
  }
  if( name.n==0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "no run %lld", (long long)runId);
    words_free(&name);
    return -1;
  }
  /* as merge names it: a name that reads as an id gets "run-" */
  {
    const char *z = name.az[0];
    char *zBase = runref_name_problem(z) ? xasprintf("run-%.200s", z)
                                         : xstrdup(z);
    words_add(&l->names, zBase);
    for(int k=2; k<=ARCHIVE_NAMES; k++){
      char *zK = xasprintf("%s-%d", zBase, k);
      words_add(&l->names, zK);
      free(zK);
    }
    free(zBase);
  }
  words_free(&name);
  /* the union of the plan's string columns */
  buf_init(&b);
  for(int i=0; i<plan->nTab; i++){
    for(int j=0; j<plan->a[i].nCol; j++){
      char *z;
      if( !plan->a[i].a[j].isStr ) continue;
      z = sqlite3_mprintf(db_statement("pg-archive-string-column"),
                          plan->a[i].a[j].zName, plan->a[i].zName);
      if( z==NULL ) util_fatal("out of memory");
      if( nUnion++ ) buf_puts(&b, " UNION ");
      buf_puts(&b, z);
      sqlite3_free(z);
    }
  }
  if( nUnion ){
    char *zSql = sqlite3_mprintf(db_statement("pg-archive-local-strings"),
                                 buf_str(&b));
    rc = zSql ? words_of(dbL, zSql, runId, &l->strs, pErr) : -1;
    if( zSql==NULL ) pf_error_set(pErr, ERRPOS_NONE, 0, "out of memory");
    sqlite3_free(zSql);
  }else{
    rc = 0;
  }
  buf_free(&b);
  return rc;
}

static void local_free(Local *l){
  words_free(&l->hash);
  words_free(&l->names);
  words_free(&l->bases);
  words_free(&l->strs);
}

/* The statement of the server's largest ids: run, string, then each
** table of the plan with an id (ids below 2^32, as merge reads them). */
static char *floors_sql(const PgPlan *plan){
  Buf b;
  buf_init(&b);
  buf_puts(&b, db_statement("pg-archive-floors"));
  for(int i=0; i<plan->nTab; i++){
    char *z;
    if( !plan->a[i].byId || plan->a[i].isRun ) continue;
    z = sqlite3_mprintf(db_statement("pg-archive-floor"), plan->a[i].zName);
    if( z==NULL ) util_fatal("out of memory");
    buf_puts(&b, "\n");
    buf_puts(&b, z);
    sqlite3_free(z);
  }
  return buf_steal(&b);
}

/* The server's answer into db and the floors: 0 or -1. */
static int take(sqlite3 *db, const PgPlan *plan, PgQuery *aQ, Floors *f,
                PfError *pErr){
  if( pg_rows_insert(db, &plan->str, aQ[1].pRes, NULL, pErr)
      || pg_rows_insert(db, pg_plan_table(plan, "run"), aQ[2].pRes, NULL,
                        pErr)
      || pg_rows_insert(db, pg_plan_table(plan, "baseline"), aQ[3].pRes,
                        NULL, pErr) ){
    return -1;
  }
  f->run = strtoll(PQgetvalue(aQ[4].pRes, 0, 0), NULL, 10);
  f->str = strtoll(PQgetvalue(aQ[4].pRes, 0, 1), NULL, 10);
  for(int i=0, col=2; i<plan->nTab; i++){
    if( !plan->a[i].byId || plan->a[i].isRun ) continue;
    f->a[i] = strtoll(PQgetvalue(aQ[4].pRes, 0, col++), NULL, 10);
  }
  return 0;
}

int pg_archive_run(PgConn *c, const PgPlan *plan, sqlite3 *db,
                   sqlite3 *dbLocal, int64_t runId, int64_t *pNewId,
                   int64_t *pSame, int *pbOnServer, int64_t *pStrFloor,
                   PfError *pErr){
  Local l;
  Buf aArr[3];
  PgQuery aQ[5];
  const char *azP[4][1];
  char *azSql[5];
  Floors f;
  MergeFloor mf;
  int rc = -1;
  *pNewId = *pSame = 0;
  *pbOnServer = 0;
  if( local_read(dbLocal, plan, runId, &l, pErr) ) return -1;
  memset(&f, 0, sizeof(f));
  f.plan = plan;
  f.a = xcalloc((size_t)plan->nTab+1, sizeof(int64_t));
  for(int i=0; i<3; i++) buf_init(&aArr[i]);
  pg_rows_text_array(&aArr[0], (const char *const *)l.strs.az, l.strs.n);
  pg_rows_text_array(&aArr[1], (const char *const *)l.names.az, l.names.n);
  pg_rows_text_array(&aArr[2], (const char *const *)l.bases.az, l.bases.n);
  azSql[0] = xstrdup(db_statement("pg-archive-run"));
  azSql[1] = pg_rows_select(&plan->str,
                            db_statement("pg-archive-strings-where"));
  /* IN (SELECT unnest): an index probe per name; name = ANY of the 999
  ** names read every run (78 ms against 8 at 100,000 runs) */
  azSql[2] = pg_rows_select(pg_plan_table(plan, "run"),
                            "name IN (SELECT unnest($1::text[]))");
  azSql[3] = pg_rows_select(pg_plan_table(plan, "baseline"),
                            "name = ANY($1::text[])");
  azSql[4] = floors_sql(plan);
  azP[0][0] = l.hash.n ? l.hash.az[0] : "";
  for(int i=1; i<4; i++) azP[i][0] = buf_str(&aArr[i-1]);
  for(int i=0; i<5; i++){
    aQ[i].zSql = azSql[i];
    aQ[i].nParam = i<4 ? 1 : 0;
    aQ[i].azParam = i<4 ? azP[i] : NULL;
  }
  if( pg_conn_batch(c, aQ, 5, pErr)==0 ){
    if( PQntuples(aQ[0].pRes)>0 ){
      *pSame = strtoll(PQgetvalue(aQ[0].pRes, 0, 0), NULL, 10);
      *pbOnServer = 1;
      rc = 0;
    }else if( take(db, plan, aQ, &f, pErr)==0 ){
      mf.xFloor = floor_of;
      mf.pArg = &f;
      *pStrFloor = f.str;
      rc = merge_archive_run(db, dbLocal, runId, &mf, pNewId, pSame, pErr);
    }
    for(int i=0; i<5; i++) PQclear(aQ[i].pRes);
  }
  for(int i=0; i<5; i++) free(azSql[i]);
  for(int i=0; i<3; i++) buf_free(&aArr[i]);
  free(f.a);
  local_free(&l);
  return rc;
}
