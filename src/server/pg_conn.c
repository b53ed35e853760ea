/*
** pg_conn.c — a connection to a team's history server (see pg_conn.h).
**
** Pipeline position: the server layer.  Every statement goes through
** PQexecParams / PQsendQueryParams with its values as bound parameters;
** only the program's own DDL (the migrations) runs as a script.  Messages
** are libpq's and the server's, made one line, prefixed with the server's
** name (database, host, port): libpq never puts a password in them, and
** the connection string given by the user is never repeated.
*/
#include "server/pg_conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct PgConn {
  PGconn *pq;
  char zName[300];        /* "DB on HOST:PORT" */
  char zState[8];         /* SQLSTATE of the last failed statement */
};

/* libpq's notices (NOTICE: relation exists, skipping ...) are not the
** user's business. */
static void quiet_notice(void *pArg, const char *zMsg){
  (void)pArg;
  (void)zMsg;
}

/* libpq's message z as one line into zOut: every run of blanks and line
** breaks one space, control characters '?', no trailing blank. */
static void one_line(const char *z, char *zOut, size_t nOut){
  size_t j = 0;
  int blank = 0;
  if( nOut==0 ) return;
  for(; z && *z && j+1<nOut; z++){
    unsigned char c = (unsigned char)*z;
    if( c==' ' || c=='\t' || c=='\n' || c=='\r' ){
      blank = j>0;
      continue;
    }
    if( blank && j+2<nOut ) zOut[j++] = ' ';
    blank = 0;
    zOut[j++] = c<0x20 || c==0x7f ? '?' : (char)c;
  }
  zOut[j] = 0;
}

const char *pg_conn_sqlstate(const PgConn *c){
  return c->zState;
}

void pg_conn_error(PgConn *c, const char *zWhat, const char *zMsg,
                   PfError *pErr){
  char z[400];
  if( pErr==NULL ) return;
  one_line(zMsg ? zMsg : (c && c->pq ? PQerrorMessage(c->pq) : ""), z,
           sizeof(z));
  if( z[0]==0 ) snprintf(z, sizeof(z), "failed");
  pf_error_set(pErr, ERRPOS_NONE, 0, "history server %s: %s%s%s",
               c ? c->zName : "?", zWhat ? zWhat : "", zWhat ? ": " : "", z);
  pf_error_kind(pErr, PF_KIND_DB);
}

/* The name of the server for messages, from what libpq connected to (or
** tried to): database, host or socket directory, port. */
static void name_conn(PgConn *c){
  const char *zDb = PQdb(c->pq), *zHost = PQhost(c->pq);
  const char *zPort = PQport(c->pq);
  char zD[100], zH[120], zP[20];
  util_sanitize(zDb ? zDb : "?", strlen(zDb ? zDb : "?"), zD, sizeof(zD));
  util_sanitize(zHost && zHost[0] ? zHost : "localhost",
                strlen(zHost && zHost[0] ? zHost : "localhost"), zH,
                sizeof(zH));
  util_sanitize(zPort ? zPort : "", strlen(zPort ? zPort : ""), zP,
                sizeof(zP));
  snprintf(c->zName, sizeof(c->zName), "%s on %s%s%s", zD, zH,
           zP[0] ? ":" : "", zP);
}

PgConn *pg_conn_open(const char *zUrl, PfError *pErr){
  const char *azKey[5], *azVal[5];
  char *zParseErr = NULL;
  PQconninfoOption *pOpt;
  PgConn *c;
  int n = 0;
  if( pq_api_load(pErr) ) return NULL;
  /* a string libpq cannot read: said without repeating it */
  pOpt = PQconninfoParse(zUrl ? zUrl : "", &zParseErr);
  if( pOpt==NULL ){
    PQfreemem(zParseErr);
    pf_error_set(pErr, ERRPOS_NONE, 0, "not a PostgreSQL connection string"
                 " or postgresql:// URL (see docs/history-server.md)");
    pf_error_kind(pErr, PF_KIND_USAGE);
    return NULL;
  }
  PQconninfoFree(pOpt);
  /* later keywords win; the expanded string wins over the ones before it */
  if( getenv("PGCONNECT_TIMEOUT")==NULL ){
    azKey[n] = "connect_timeout"; azVal[n++] = "10";
  }
  azKey[n] = "fallback_application_name"; azVal[n++] = "profan";
  azKey[n] = "dbname"; azVal[n++] = zUrl;
  azKey[n] = "client_encoding"; azVal[n++] = "UTF8";
  azKey[n] = NULL; azVal[n] = NULL;
  c = xcalloc(1, sizeof(*c));
  c->pq = PQconnectdbParams(azKey, azVal, 1);
  if( c->pq==NULL ){
    free(c);
    pf_error_set(pErr, ERRPOS_NONE, 0, "history server: out of memory");
    pf_error_kind(pErr, PF_KIND_DB);
    return NULL;
  }
  name_conn(c);
  if( PQstatus(c->pq)!=CONNECTION_OK ){
    pg_conn_error(c, NULL, NULL, pErr);
    pg_conn_close(c);
    return NULL;
  }
  PQsetNoticeProcessor(c->pq, quiet_notice, NULL);
  /* doubles as text that reads back to the same double on any server */
  if( pg_conn_run(c, "SET extra_float_digits = 3", 0, NULL, pErr) ){
    pg_conn_close(c);
    return NULL;
  }
  return c;
}

void pg_conn_close(PgConn *c){
  if( c==NULL ) return;
  PQfinish(c->pq);
  free(c);
}

const char *pg_conn_name(const PgConn *c){
  return c->zName;
}

PGconn *pg_conn_pq(PgConn *c){
  return c->pq;
}

int pg_conn_lost(PgConn *c){
  return c==NULL || PQstatus(c->pq)!=CONNECTION_OK;
}

/* 1 when result r is a success; else 0 with pErr set. */
static int result_ok(PgConn *c, PGresult *r, PfError *pErr){
  ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  const char *zState;
  if( st==PGRES_COMMAND_OK || st==PGRES_TUPLES_OK ) return 1;
  zState = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
  snprintf(c->zState, sizeof(c->zState), "%s", zState ? zState : "");
  pg_conn_error(c, NULL, r ? PQresultErrorMessage(r) : NULL, pErr);
  return 0;
}

PGresult *pg_conn_exec(PgConn *c, const char *zSql, int nParam,
                       const char *const *azParam, PfError *pErr){
  PGresult *r = PQexecParams(c->pq, zSql, nParam, NULL, azParam, NULL, NULL,
                             0);
  if( !result_ok(c, r, pErr) ){
    PQclear(r);
    return NULL;
  }
  return r;
}

int pg_conn_run(PgConn *c, const char *zSql, int nParam,
                const char *const *azParam, PfError *pErr){
  PGresult *r = pg_conn_exec(c, zSql, nParam, azParam, pErr);
  PQclear(r);
  return r ? 0 : -1;
}

int pg_conn_script(PgConn *c, const char *zSql, PfError *pErr){
  PGresult *r = PQexec(c->pq, zSql);
  int ok = result_ok(c, r, pErr);
  PQclear(r);
  /* PQexec returns the last statement's result: an earlier failure
  ** stopped the script and is that result */
  return ok ? 0 : -1;
}

/* Read every result left in the pipeline up to its sync, discarding. */
static void drain(PgConn *c){
  PGresult *r;
  int nNull = 0;
  while( nNull<2 ){
    r = PQgetResult(c->pq);
    if( r==NULL ){ nNull++; continue; }
    nNull = 0;
    if( PQresultStatus(r)==PGRES_PIPELINE_SYNC ){
      PQclear(r);
      break;
    }
    PQclear(r);
    if( PQstatus(c->pq)!=CONNECTION_OK ) break;
  }
}

int pg_conn_batch(PgConn *c, PgQuery *aQ, int nQ, PfError *pErr){
  int rc = 0, i;
  for(i=0; i<nQ; i++) aQ[i].pRes = NULL;
  if( nQ==1 ){
    aQ[0].pRes = pg_conn_exec(c, aQ[0].zSql, aQ[0].nParam, aQ[0].azParam,
                              pErr);
    return aQ[0].pRes ? 0 : -1;
  }
  if( PQenterPipelineMode(c->pq)!=1 ){
    pg_conn_error(c, "pipeline", NULL, pErr);
    return -1;
  }
  for(i=0; i<nQ && rc==0; i++){
    if( PQsendQueryParams(c->pq, aQ[i].zSql, aQ[i].nParam, NULL,
                          aQ[i].azParam, NULL, NULL, 0)!=1 ){
      pg_conn_error(c, NULL, NULL, pErr);
      rc = -1;
    }
  }
  if( PQpipelineSync(c->pq)!=1 && rc==0 ){
    pg_conn_error(c, NULL, NULL, pErr);
    rc = -1;
  }
  /* each statement's result, then NULL; an error makes the rest
  ** PGRES_PIPELINE_ABORTED */
  for(i=0; i<nQ && rc==0; i++){
    PGresult *r = PQgetResult(c->pq), *rEnd;
    if( !result_ok(c, r, pErr) ){
      PQclear(r);
      rc = -1;
      break;
    }
    aQ[i].pRes = r;
    while( (rEnd = PQgetResult(c->pq))!=NULL ) PQclear(rEnd);
  }
  if( PQstatus(c->pq)==CONNECTION_OK ) drain(c);
  PQexitPipelineMode(c->pq);
  if( rc ){
    for(i=0; i<nQ; i++){
      PQclear(aQ[i].pRes);
      aQ[i].pRes = NULL;
    }
  }
  return rc;
}

int pg_conn_copy(PgConn *c, const char *zSql, const char *z, size_t n,
                 PfError *pErr){
  PGresult *r = PQexec(c->pq, zSql);
  int ok;
  if( r==NULL || PQresultStatus(r)!=PGRES_COPY_IN ){
    ok = result_ok(c, r, pErr);
    PQclear(r);
    if( ok ){
      pg_conn_error(c, NULL, "COPY did not start", pErr);
    }
    return -1;
  }
  PQclear(r);
  /* libpq takes the data in pieces of at most INT_MAX bytes */
  while( n>0 ){
    int k = n>(size_t)1<<30 ? 1<<30 : (int)n;
    if( PQputCopyData(c->pq, z, k)!=1 ) break;
    z += k;
    n -= (size_t)k;
  }
  if( PQputCopyEnd(c->pq, n>0 ? "profan: could not send every row" : NULL)
      !=1 ){
    pg_conn_error(c, NULL, NULL, pErr);
    while( (r = PQgetResult(c->pq))!=NULL ) PQclear(r);
    return -1;
  }
  r = PQgetResult(c->pq);
  ok = result_ok(c, r, pErr);
  PQclear(r);
  while( (r = PQgetResult(c->pq))!=NULL ) PQclear(r);
  return ok ? 0 : -1;
}
