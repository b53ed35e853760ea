/*
** rules.c — loading and running the findings rules of `profan report`
** (see rules.h for the rule contract).
**
** Pipeline position: read side.  Parsing and binding are those of the
** named queries (named_query_parse, named_query_prepare); this file adds
** the catalogue
** (embedded_rule[] and $PROFAN_RULES) and the collection of the rows into
** temp.finding, so the report prints them in any --format.
*/
#include "report/rules.h"
#include "core/db.h"
#include "core/embedded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The columns every rule returns, in order. */
static const char *const azRuleCol[] = {
  "severity", "rule", "message", "value", "threshold", "hint"
};
#define N_RULE_COL 6

int rules_severity_rank(const char *z){
  static const char *const azSev[] = { "high", "medium", "low", "info" };
  if( z==NULL ) return -1;
  for(int i=0; i<4; i++) if( strcmp(z, azSev[i])==0 ) return i;
  return -1;
}

int rules_load_all(NqList *pList, PfError *pErr){
  return named_query_load_catalogue(pList, embedded_rule, "PROFAN_RULES", pErr);
}

/*
** The name of q's parameter that override key zKey sets: zKey itself when
** q declares it, or the part after "RULE." when zKey is scoped to q.
** Returns a pointer into zKey, or NULL when the key does not apply to q.
*/
static const char *param_for(const NamedQuery *q, const char *zKey){
  const char *zDot = strchr(zKey, '.');
  const char *zName = zKey;
  if( zDot ){
    size_t n = strlen(q->zName);
    if( (size_t)(zDot-zKey)!=n || strncmp(zKey, q->zName, n)!=0 ){
      return NULL;
    }
    zName = zDot+1;
  }
  for(int i=0; i<q->nParam; i++){
    if( strcmp(q->aParam[i].zName, zName)==0 ) return zName;
  }
  return NULL;
}

int rules_accepts(const NqList *pList, const char *zKey){
  for(int i=0; i<pList->n; i++){
    if( param_for(&pList->a[i], zKey) ) return 1;
  }
  return 0;
}

/*
** The overrides that apply to rule q, mapped to its parameter names: the
** unscoped keys first, then RULE.K (bound last, so it wins).  Fills azK,
** azV (room for nKV each) and returns how many.
*/
static int rule_overrides(const NamedQuery *q, const char **azKey,
                          const char **azVal, int nKV, const char **azK,
                          const char **azV){
  int n = 0;
  for(int k=0; k<nKV; k++){
    if( strchr(azKey[k], '.')==NULL && param_for(q, azKey[k]) ){
      azK[n] = azKey[k];
      azV[n++] = azVal[k];
    }
  }
  for(int k=0; k<nKV; k++){
    const char *zName = strchr(azKey[k], '.') ? param_for(q, azKey[k]) : 0;
    if( zName ){
      azK[n] = zName;
      azV[n++] = azVal[k];
    }
  }
  return n;
}

/* pErr: no rule has parameter zKey, with the nearest one when one is
** near ("RULE.K" is near the qualified names). */
static void no_rule_param(const NqList *pList, const char *zKey,
                          PfError *pErr){
  const char **az = NULL;
  const char *zNear;
  char z[64], zN[64];
  int n = 0, bQual = strchr(zKey, '.')!=NULL;
  for(int i=0; i<pList->n; i++){
    const NamedQuery *q = &pList->a[i];
    for(int k=0; k<q->nParam; k++){
      az = xrealloc(az, sizeof(char *)*(size_t)(n+1));
      az[n++] = bQual ? xasprintf("%s.%s", q->zName, q->aParam[k].zName)
                      : xstrdup(q->aParam[k].zName);
    }
  }
  zNear = util_nearest(zKey, az, n);
  util_sanitize(zKey, strlen(zKey), z, sizeof(z));
  if( zNear ){
    util_sanitize(zNear, strlen(zNear), zN, sizeof(zN));
    pf_error_set(pErr, ERRPOS_NONE, 0, "no rule has a parameter '%s' (did"
                 " you mean '%s'?)", z, zN);
  }else{
    pf_error_set(pErr, ERRPOS_NONE, 0, "no rule has a parameter '%s'", z);
  }
  pf_error_kind(pErr, PF_KIND_USAGE);
  for(int i=0; i<n; i++) free((char *)az[i]);
  free(az);
}

int rules_check(sqlite3 *db, const NqList *pList, int64_t runId,
                const char **azKey, const char **azVal, int nKV,
                PfError *pErr){
  const char **azK = xmalloc(sizeof(char*)*(size_t)(nKV+1));
  const char **azV = xmalloc(sizeof(char*)*(size_t)(nKV+1));
  int rc = 0;
  for(int k=0; k<nKV && rc==0; k++){
    if( !rules_accepts(pList, azKey[k]) ){
      no_rule_param(pList, azKey[k], pErr);
      rc = -1;
    }
  }
  for(int i=0; i<pList->n && rc==0; i++){
    int n = rule_overrides(&pList->a[i], azKey, azVal, nKV, azK, azV);
    rc = named_query_check(db, &pList->a[i], runId, azK, azV, n, pErr);
  }
  free(azK);
  free(azV);
  return rc;
}

/*
** Run one rule and insert its rows with pIns.  *pSeq counts the rows.
** Returns 0 or -1 with pErr.
*/
static int run_one(sqlite3 *db, const NamedQuery *q, int64_t runId,
                   const char **azKey, const char **azVal, int nKV,
                   sqlite3_stmt *pIns, int *pSeq, PfError *pErr){
  const char **azK = xmalloc(sizeof(char*)*(size_t)(nKV+1));
  const char **azV = xmalloc(sizeof(char*)*(size_t)(nKV+1));
  sqlite3_stmt *s;
  int n, rc;
  n = rule_overrides(q, azKey, azVal, nKV, azK, azV);
  s = named_query_prepare(db, q, runId, azK, azV, n, -1, pErr);
  free(azK);
  free(azV);
  if( s==NULL ) return -1;
  if( sqlite3_column_count(s)!=N_RULE_COL ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "rule '%s' (%s): returns %d columns,"
                 " expected severity, rule, message, value, threshold, hint",
                 q->zName, q->zSource, sqlite3_column_count(s));
    sqlite3_finalize(s);
    return -1;
  }
  for(int i=0; i<N_RULE_COL; i++){
    if( sqlite3_stricmp(sqlite3_column_name(s, i), azRuleCol[i])!=0 ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "rule '%s' (%s): column %d is"
                   " '%s', expected '%s'", q->zName, q->zSource, i+1,
                   sqlite3_column_name(s, i), azRuleCol[i]);
      sqlite3_finalize(s);
      return -1;
    }
  }
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    const char *zSev = (const char*)sqlite3_column_text(s, 0);
    if( rules_severity_rank(zSev)<0 ){
      char z[40];
      util_sanitize(zSev ? zSev : "NULL", zSev ? strlen(zSev) : 4, z,
                    sizeof(z));
      pf_error_set(pErr, ERRPOS_NONE, 0, "rule '%s' (%s): severity '%s' is"
                   " not high, medium, low or info", q->zName, q->zSource, z);
      sqlite3_finalize(s);
      return -1;
    }
    sqlite3_bind_int(pIns, 1, ++*pSeq);
    for(int i=0; i<N_RULE_COL; i++){
      sqlite3_bind_value(pIns, i+2, sqlite3_column_value(s, i));
    }
    if( sqlite3_step(pIns)!=SQLITE_DONE ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
      sqlite3_reset(pIns);
      sqlite3_finalize(s);
      return -1;
    }
    sqlite3_reset(pIns);
  }
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "rule '%s' (%s): %s", q->zName,
                 q->zSource, sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return -1;
  }
  sqlite3_finalize(s);
  return 0;
}

int rules_run(sqlite3 *db, const NqList *pList, int64_t runId,
              const char **azKey, const char **azVal, int nKV,
              PfError *pErr){
  sqlite3_stmt *pIns;
  int nSeq = 0;
  for(int k=0; k<nKV; k++){
    if( !rules_accepts(pList, azKey[k]) ){
      no_rule_param(pList, azKey[k], pErr);
      return -1;
    }
  }
  if( db_exec(db, db_statement("rules-create-finding"), pErr)
      || db_exec(db, "DELETE FROM temp.finding", pErr) ){
    return -1;
  }
  pIns = db_prepare(db, db_statement("rules-insert-finding"), pErr);
  if( pIns==NULL ) return -1;
  for(int i=0; i<pList->n; i++){
    if( run_one(db, &pList->a[i], runId, azKey, azVal, nKV, pIns, &nSeq,
                pErr) ){
      sqlite3_finalize(pIns);
      return -1;
    }
  }
  sqlite3_finalize(pIns);
  return nSeq;
}
