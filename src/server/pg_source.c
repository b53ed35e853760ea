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
#include "core/runref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct PgSource {
  HistSource base;         /* first: the history_source callbacks */
  PgConn *c;
  PgPlan plan;
  sqlite3 *db;
  int have;                /* PG_PULL_* pulled whole */
  int lazy;                /* identity rows of some runs only (pulled as
                           ** they are named or walked) */
  int64_t *aDone;          /* runs whose rows are here */
  int nDone, nAlloc;
};

/* 1 for the identity tables, pulled at open. */
static int is_identity(const char *zTab){
  return strcmp(zTab, "run")==0 || strcmp(zTab, "run_tag")==0
      || strcmp(zTab, "baseline")==0;
}

/* Whether table t is in a pull of kind eKind (PG_PULL_* and the PULL_*
** bits below), given what the source holds already. */
#define PULL_IDROWS 0x100        /* identity rows (run, run_tag, baseline) */
#define PULL_STRINGS 0x200       /* the strings */
#define PULL_RUN 0x400           /* runs' rows of the other tables */
#define PULL_IDENTITY (PULL_IDROWS | PULL_STRINGS)
static int in_pull(const PgSource *s, const PgTab *t, int eKind){
  int bMetric = t->hasMetric && !is_identity(t->zName);
  int bFiles = strcmp(t->zName, "run_file")==0;
  int eData = eKind & (PULL_RUN | PG_PULL_ALL);
  if( is_identity(t->zName) ) return (eKind & PULL_IDROWS)!=0;
  if( eData==0 ) return 0;
  /* a table pulled whole already is not pulled again */
  if( (bMetric && (s->have & PG_PULL_METRICS))
      || (bFiles && (s->have & PG_PULL_FILES)) ) return 0;
  if( (eData & PULL_RUN) || (eData & PG_PULL_ALL)==PG_PULL_ALL ) return 1;
  return (bMetric && (eData & PG_PULL_METRICS))
      || (bFiles && (eData & PG_PULL_FILES));
}

/* zWhere for table t: one whose text (after the header comments of its
** statements/ file) starts with "run_id" says "id" instead for the run
** table (in a new string; the caller frees it with free()). */
static char *where_of(const PgTab *t, const char *zWhere){
  const char *z = zWhere;
  for(;;){
    while( *z==' ' || *z=='\t' || *z=='\n' ) z++;
    if( z[0]!='-' || z[1]!='-' ) break;
    while( *z && *z!='\n' ) z++;
  }
  if( t->isRun && strncmp(z, "run_id", 6)==0 ){
    return xasprintf("id%s", z+6);
  }
  return xstrdup(zWhere);
}

/*
** Pull the rows of the tables of a pull of kind eKind with zWhere ($1 =
** zParam when not NULL) into the scratch, in one round trip and one
** transaction.  0 or -1 (pErr).
*/
static int pull_n(PgSource *s, int eKind, const char *zWhere,
                  const char *const *az, int nParam, PfError *pErr){
  const PgTab **aT = xcalloc((size_t)s->plan.nTab+1, sizeof(PgTab *));
  PgQuery *aQ = xcalloc((size_t)s->plan.nTab+1, sizeof(PgQuery));
  int n = 0, rc = 0;
  if( eKind & PULL_STRINGS ) aT[n++] = &s->plan.str;
  for(int i=0; i<s->plan.nTab; i++){
    if( in_pull(s, &s->plan.a[i], eKind) ) aT[n++] = &s->plan.a[i];
  }
  for(int i=0; i<n; i++){
    char *zW = where_of(aT[i], zWhere);
    aQ[i].zSql = pg_rows_select(aT[i], zW);
    free(zW);
    aQ[i].nParam = nParam;
    aQ[i].azParam = nParam ? az : NULL;
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

/* pull_n() with no parameter or one ($1 = zParam when not NULL). */
static int pull(PgSource *s, int eKind, const char *zWhere,
                const char *zParam, PfError *pErr){
  const char *az[1];
  az[0] = zParam;
  return pull_n(s, eKind, zWhere, az, zParam ? 1 : 0, pErr);
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

/* The ids of the nWant newest runs with id <= idMax, newest first, into
** aId (room for nWant): from the scratch, or from the server when the
** scratch holds some runs' identity rows only.  The count, or -1. */
static int page_ids(PgSource *s, int64_t idMax, int nWant, int64_t *aId,
                    PfError *pErr){
  int n = 0;
  if( s->lazy ){
    char zMax[32], zN[32];
    const char *az[2] = { zMax, zN };
    PGresult *r;
    snprintf(zMax, sizeof(zMax), "%lld", (long long)idMax);
    snprintf(zN, sizeof(zN), "%d", nWant);
    r = pg_conn_exec(s->c, db_statement("pg-source-page-ids"), 2, az,
                     pErr);
    if( r==NULL ) return -1;
    for(int i=0; i<PQntuples(r) && n<nWant; i++){
      aId[n++] = strtoll(PQgetvalue(r, i, 0), NULL, 10);
    }
    PQclear(r);
  }else{
    sqlite3_stmt *q = db_prepare(s->db, db_statement("pg-source-src-page"),
                                 pErr);
    if( q==NULL ) return -1;
    sqlite3_bind_int64(q, 1, idMax);
    sqlite3_bind_int(q, 2, nWant);
    while( n<nWant && sqlite3_step(q)==SQLITE_ROW ){
      aId[n++] = sqlite3_column_int64(q, 0);
    }
    sqlite3_finalize(q);
  }
  return n;
}

/* history_source: the rows of the nWant newest runs with id <= idMax
** (with their identity rows when the scratch has not every run's), in
** one round trip (two when the server says which runs). */
static int src_page(HistSource *p, int64_t idMax, int nWant, int64_t *pLo,
                    PfError *pErr){
  PgSource *s = (PgSource *)p;
  int64_t *aId = xcalloc((size_t)(nWant>0 ? nWant : 1), sizeof(int64_t));
  int n, nNew = 0, rc = 0;
  Buf b;
  *pLo = 1;
  n = page_ids(s, idMax, nWant, aId, pErr);
  if( n<0 ){
    free(aId);
    return -1;
  }
  if( n==nWant && n>0 ) *pLo = aId[n-1];
  for(int i=0; i<n; i++){
    if( !is_done(s, aId[i]) ) aId[nNew++] = aId[i];
  }
  if( nNew>0 && (s->have & PG_PULL_ALL)!=PG_PULL_ALL ){
    buf_init(&b);
    pg_rows_id_array(&b, aId, nNew);
    rc = pull(s, PULL_RUN | (s->lazy ? PULL_IDROWS : 0),
              "run_id = ANY($1::bigint[])", buf_str(&b), pErr);
    buf_free(&b);
    for(int i=0; rc==0 && i<nNew; i++) mark_done(s, aId[i]);
  }
  free(aId);
  return rc;
}

/* history_source: the summary rows of run id (and its identity rows when
** the scratch has not every run's), pulled once. */
static int src_run(HistSource *p, int64_t id, PfError *pErr){
  PgSource *s = (PgSource *)p;
  char z[32];
  if( (s->have & PG_PULL_ALL)==PG_PULL_ALL || id<=0 || is_done(s, id) ){
    return 0;
  }
  snprintf(z, sizeof(z), "%lld", (long long)id);
  if( pull(s, PULL_RUN | (s->lazy ? PULL_IDROWS : 0), "run_id = $1::bigint",
           z, pErr) ){
    return -1;
  }
  mark_done(s, id);
  return 0;
}

PgSource *pg_source_open(const char *zUrl, int bLazy, PfError *pErr){
  PgSource *s = xcalloc(1, sizeof(*s));
  s->lazy = bLazy;
  s->base.xPage = src_page;
  s->base.xRun = src_run;
  s->c = pg_conn_open(zUrl, pErr);
  if( s->c==NULL || pg_schema_ensure(s->c, NULL, pErr)
      || (s->db = db_open_scratch(pErr))==NULL
      || pg_plan_build(s->db, &s->plan, pErr)
      || pull(s, PULL_STRINGS, "true", NULL, pErr)
      || pull(s, PULL_IDROWS,
              bLazy ? db_statement("pg-source-lazy-runs") : "true", NULL,
              pErr) ){
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
  if( s->lazy ){
    if( pull(s, PULL_IDROWS, "true", NULL, pErr) ) return -1;
    s->lazy = 0;
  }
  /* the runs pulled one by one are here already */
  buf_init(&b);
  pg_rows_id_array(&b, s->aDone, s->nDone);
  rc = pull(s, eWhat, "NOT (run_id = ANY($1::bigint[]))", buf_str(&b), pErr);
  buf_free(&b);
  if( rc ) return -1;
  s->have |= eWhat;
  return 0;
}

int pg_source_pull_ref(PgSource *s, const char *zRef, PfError *pErr){
  PfError e = {0};
  const char *az[2], *z;
  char zId[32];
  if( !s->lazy || zRef==NULL ) return 0;
  /* by name, or by id when zRef reads as one (both by an index: a
  ** comparison of id as text would read every run) */
  az[0] = zRef;
  az[1] = NULL;
  z = zRef;
  while( *z==' ' || *z=='\t' ) z++;
  if( *z=='+' ) z++;
  if( *z>='0' && *z<='9' ){
    char *zEnd;
    long long v = strtoll(z, &zEnd, 10);
    while( *zEnd==' ' || *zEnd=='\t' ) zEnd++;
    if( *zEnd==0 && v>0 && v<INT64_MAX ){
      snprintf(zId, sizeof(zId), "%lld", v);
      az[1] = zId;
    }
  }
  if( pull_n(s, PULL_IDROWS, db_statement("pg-source-run-by-ref"), az, 2,
             pErr) ){
    return -1;
  }
  if( db_int(s->db, 0, db_statement("pg-source-baseline-exists"),
             zRef) || runref_resolve(s->db, zRef, &e)>0 ){
    return 0;
  }
  /* not found by name or id: every run, for what runref says then */
  if( pull(s, PULL_IDROWS, "true", NULL, pErr) ) return -1;
  s->lazy = 0;
  return 0;
}

int pg_source_pull_metric(PgSource *s, const char *zMetric, PfError *pErr){
  if( s->have & PG_PULL_METRICS ) return 0;
  return pull(s, PG_PULL_METRICS, "metric = $1", zMetric, pErr);
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
