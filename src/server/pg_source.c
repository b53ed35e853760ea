/*
** pg_source.c — a team's history server as the history of a command
** (see pg_source.h).
**
** Pipeline position: the server layer.  Rows come back with
** pg_rows_select (the plan's columns, rows in the order a local history
** holds them) and go into the scratch with pg_rows_insert, one
** transaction per pull; one round trip per pull (pg_conn_batch).
*/
#include "server/pg_source.h"
#include "server/pg_archive.h"
#include "server/pg_conn.h"
#include "server/pg_rows.h"
#include "server/pg_schema.h"
#include "history/history_source.h"
#include "core/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct PgSource {
  HistSource base;         /* first: the history_source callbacks */
  PgConn *c;
  PgPlan plan;
  sqlite3 *db;
  int have;                /* PG_PULL_* pulled whole */
  int64_t *aDone;          /* runs whose rows are here */
  int nDone, nAlloc;
};

/* 1 for the identity tables, pulled at open. */
static int is_identity(const char *zTab){
  return strcmp(zTab, "run")==0 || strcmp(zTab, "run_tag")==0
      || strcmp(zTab, "baseline")==0;
}

/* Whether table t is in a pull of kind eKind (PG_PULL_*, or PULL_IDENTITY
** / PULL_RUN), given what the source holds already. */
#define PULL_IDENTITY 0x100      /* identity rows and strings (at open) */
#define PULL_RUN 0x200           /* one run's rows of the other tables */
static int in_pull(const PgSource *s, const PgTab *t, int eKind){
  int bMetric = t->hasMetric && !is_identity(t->zName);
  int bFiles = strcmp(t->zName, "run_file")==0;
  if( is_identity(t->zName) ) return eKind==PULL_IDENTITY;
  if( eKind==PULL_IDENTITY ) return 0;
  /* a table pulled whole already is not pulled again */
  if( (bMetric && (s->have & PG_PULL_METRICS))
      || (bFiles && (s->have & PG_PULL_FILES)) ) return 0;
  if( eKind==PULL_RUN || eKind==PG_PULL_ALL ) return 1;
  return (bMetric && (eKind & PG_PULL_METRICS))
      || (bFiles && (eKind & PG_PULL_FILES));
}

/*
** Pull the rows of the tables of a pull of kind eKind with zWhere ($1 =
** zParam when not NULL) into the scratch, in one round trip and one
** transaction.  0 or -1 (pErr).
*/
static int pull(PgSource *s, int eKind, const char *zWhere,
                const char *zParam, PfError *pErr){
  const PgTab **aT = xcalloc((size_t)s->plan.nTab+1, sizeof(PgTab *));
  PgQuery *aQ = xcalloc((size_t)s->plan.nTab+1, sizeof(PgQuery));
  const char *az[1];
  int n = 0, rc = 0;
  az[0] = zParam;
  if( eKind==PULL_IDENTITY ) aT[n++] = &s->plan.str;
  for(int i=0; i<s->plan.nTab; i++){
    if( in_pull(s, &s->plan.a[i], eKind) ) aT[n++] = &s->plan.a[i];
  }
  for(int i=0; i<n; i++){
    aQ[i].zSql = pg_rows_select(aT[i], zWhere);
    aQ[i].nParam = zParam ? 1 : 0;
    aQ[i].azParam = zParam ? az : NULL;
  }
  if( n>0 ) rc = pg_conn_batch(s->c, aQ, n, pErr);
  if( rc==0 && n>0 ){
    rc = db_exec(s->db, "BEGIN", pErr);
    for(int i=0; rc==0 && i<n; i++){
      rc = pg_rows_insert(s->db, aT[i], aQ[i].pRes, NULL, pErr);
    }
    if( rc==0 ) rc = db_exec(s->db, "COMMIT", pErr);
    else db_rollback(s->db);
  }
  for(int i=0; i<n; i++){
    PQclear(aQ[i].pRes);
    free((char *)aQ[i].zSql);
  }
  free(aQ);
  free(aT);
  return rc;
}

static int is_done(const PgSource *s, int64_t id){
  for(int i=0; i<s->nDone; i++) if( s->aDone[i]==id ) return 1;
  return 0;
}

static void mark_done(PgSource *s, int64_t id){
  if( s->nDone==s->nAlloc ){
    s->nAlloc = s->nAlloc ? 2*s->nAlloc : 64;
    s->aDone = xrealloc(s->aDone, sizeof(int64_t)*(size_t)s->nAlloc);
  }
  s->aDone[s->nDone++] = id;
}

/* history_source: the rows of the nWant newest runs with id <= idMax
** (their identity rows are here from the start), in one round trip. */
static int src_page(HistSource *p, int64_t idMax, int nWant, int64_t *pLo,
                    PfError *pErr){
  PgSource *s = (PgSource *)p;
  sqlite3_stmt *q;
  int64_t *aId = xcalloc((size_t)(nWant>0 ? nWant : 1), sizeof(int64_t));
  int n = 0, nNew = 0, rc = 0;
  Buf b;
  *pLo = 1;
  q = db_prepare(s->db, db_statement("pg-source-src-page"), pErr);
  if( q==NULL ){
    free(aId);
    return -1;
  }
  sqlite3_bind_int64(q, 1, idMax);
  sqlite3_bind_int(q, 2, nWant);
  while( sqlite3_step(q)==SQLITE_ROW ){
    int64_t id = sqlite3_column_int64(q, 0);
    n++;
    if( n==nWant ) *pLo = id;
    if( !is_done(s, id) ) aId[nNew++] = id;
  }
  sqlite3_finalize(q);
  if( nNew>0 && (s->have & PG_PULL_ALL)!=PG_PULL_ALL ){
    buf_init(&b);
    pg_rows_id_array(&b, aId, nNew);
    rc = pull(s, PULL_RUN, "run_id = ANY($1::bigint[])", buf_str(&b), pErr);
    buf_free(&b);
    for(int i=0; rc==0 && i<nNew; i++) mark_done(s, aId[i]);
  }
  free(aId);
  return rc;
}

/* history_source: the summary rows of run id, pulled once. */
static int src_run(HistSource *p, int64_t id, PfError *pErr){
  PgSource *s = (PgSource *)p;
  char z[32];
  if( (s->have & PG_PULL_ALL)==PG_PULL_ALL || id<=0 || is_done(s, id) ){
    return 0;
  }
  snprintf(z, sizeof(z), "%lld", (long long)id);
  if( pull(s, PULL_RUN, "run_id = $1::bigint", z, pErr) ) return -1;
  mark_done(s, id);
  return 0;
}

PgSource *pg_source_open(const char *zUrl, PfError *pErr){
  PgSource *s = xcalloc(1, sizeof(*s));
  s->base.xPage = src_page;
  s->base.xRun = src_run;
  s->c = pg_conn_open(zUrl, pErr);
  if( s->c==NULL || pg_schema_ensure(s->c, NULL, pErr)
      || (s->db = db_open_scratch(pErr))==NULL
      || pg_plan_build(s->db, &s->plan, pErr)
      || pull(s, PULL_IDENTITY, "true", NULL, pErr) ){
    pg_source_close(s, 1);
    return NULL;
  }
  history_source_attach(s->db, &s->base);
  return s;
}

sqlite3 *pg_source_db(PgSource *s){
  return s->db;
}

int pg_source_pull(PgSource *s, int eWhat, PfError *pErr){
  Buf b;
  int rc;
  if( (s->have & eWhat)==eWhat ) return 0;
  /* the runs pulled one by one are here already */
  buf_init(&b);
  pg_rows_id_array(&b, s->aDone, s->nDone);
  rc = pull(s, eWhat, "NOT (run_id = ANY($1::bigint[]))", buf_str(&b), pErr);
  buf_free(&b);
  if( rc ) return -1;
  s->have |= eWhat;
  return 0;
}

int pg_source_add_local(PgSource *s, sqlite3 *dbLocal, int64_t localRun,
                        int64_t *pId, PfError *pErr){
  int64_t newId = 0, same = 0, strFloor = 0;
  int onServer = 0, rc;
  *pId = 0;
  if( db_exec(s->db, "BEGIN", pErr) ) return -1;
  rc = pg_archive_run(s->c, &s->plan, s->db, dbLocal, localRun, &newId,
                      &same, &onServer, &strFloor, pErr);
  if( rc==0 ) rc = db_exec(s->db, "COMMIT", pErr);
  else db_rollback(s->db);
  if( rc ) return -1;
  if( newId>0 ) mark_done(s, newId);     /* every row of it is here */
  *pId = newId>0 ? newId : same;
  return 0;
}

void pg_source_close(PgSource *s, int bCloseDb){
  if( s==NULL ) return;
  if( s->db ){
    history_source_attach(s->db, NULL);
    if( bCloseDb ) db_close(s->db);
  }
  pg_plan_free(&s->plan);
  pg_conn_close(s->c);
  free(s->aDone);
  free(s);
}
