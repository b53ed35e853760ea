/*
** named_query.c — parsing query headers, loading the catalogue, binding
** parameters.
**
** Pipeline position: read side.  A parameter declared with a type
** ("-- param: rank:rank =") only takes values of that type (named_query_check,
** checked before any SQL runs); values are bound as integers or reals
** when they look like numbers, else as text, and a run parameter as the
** id its reference resolves to.
*/
#include "report/named_query.h"
#include "core/db.h"
#include "core/embedded.h"
#include "core/runref.h"
#include "report/output.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void named_query_clear(NamedQuery *p){
  free(p->zName); free(p->zDesc); free(p->zSql); free(p->zSource);
  for(int i=0; i<p->nParam; i++){
    free(p->aParam[i].zName); free(p->aParam[i].zDefault);
    free(p->aParam[i].zDesc); free(p->aParam[i].zType);
  }
  for(int i=0; i<p->nCol; i++){
    free(p->aCol[i].zName);
    free(p->aCol[i].zDesc);
    free(p->aCol[i].zUnit);
  }
  free(p->aParam);
  free(p->aCol);
  memset(p, 0, sizeof(*p));
}

/* Copy of z[0..n) with surrounding blanks removed; caller frees. */
static char *trimmed(const char *z, size_t n){
  while( n>0 && isspace((unsigned char)z[0]) ){ z++; n--; }
  while( n>0 && isspace((unsigned char)z[n-1]) ) n--;
  return xstrndup(z, n);
}

/* Split "word  rest of text" at the first run of 2+ blanks or a tab. */
static void split_desc(const char *z, char **pzHead, char **pzDesc){
  const char *zSep = z;
  while( *zSep && !(zSep[0]=='\t' || (zSep[0]==' ' && zSep[1]==' ')) ) zSep++;
  *pzHead = trimmed(z, (size_t)(zSep-z));
  *pzDesc = trimmed(zSep, strlen(zSep));
}

int named_query_parse(const char *zText, const char *zSource, NamedQuery *p,
             PfError *pErr){
  const char *z = zText;
  int line = 0;
  memset(p, 0, sizeof(*p));
  p->zSql = xstrdup(zText);
  p->zSource = xstrdup(zSource);
  while( *z ){
    const char *zEol = strchr(z, '\n');
    size_t n = zEol ? (size_t)(zEol-z) : strlen(z);
    char *zLine = xstrndup(z, n);
    char *zKey, *zVal, *zColon;
    line++;
    z += n + (zEol ? 1 : 0);
    if( strncmp(zLine, "--", 2)!=0 ){
      int blank = 1;
      for(char *c=zLine; *c; c++) if( !isspace((unsigned char)*c) ) blank = 0;
      free(zLine);
      if( blank ) continue;
      break;                     /* the header ends at the first SQL line */
    }
    zColon = strchr(zLine+2, ':');
    if( zColon==NULL ){ free(zLine); continue; }
    zKey = trimmed(zLine+2, (size_t)(zColon-zLine-2));
    zVal = trimmed(zColon+1, strlen(zColon+1));
    if( strcmp(zKey, "name")==0 ){
      free(p->zName);
      p->zName = xstrdup(zVal);
    }else if( strcmp(zKey, "description")==0 ){
      if( p->zDesc ){
        char *zNew = xasprintf("%s %s", p->zDesc, zVal);
        free(p->zDesc);
        p->zDesc = zNew;
      }else{
        p->zDesc = xstrdup(zVal);
      }
    }else if( strcmp(zKey, "param")==0 ){
      char *zEq = zVal, *zColon2;
      /* the '=' before the default: not one of a type's ">=" */
      while( (zEq = strchr(zEq, '='))!=NULL
             && zEq>zVal && (zEq[-1]=='>' || zEq[-1]=='<') ) zEq++;
      NqParam *pp;
      char *zRest;
      p->aParam = xrealloc(p->aParam, (size_t)(p->nParam+1)*sizeof(NqParam));
      pp = &p->aParam[p->nParam++];
      memset(pp, 0, sizeof(*pp));
      if( zEq==NULL ){
        pf_error_set(pErr, ERRPOS_LINE, line,
                     "param line needs 'name = default  description'");
        free(zKey); free(zVal); free(zLine);
        return -1;
      }
      pp->zName = trimmed(zVal, (size_t)(zEq-zVal));
      if( (zColon2 = strchr(pp->zName, ':'))!=NULL ){
        size_t nT;
        *zColon2 = 0;
        pp->zType = trimmed(zColon2+1, strlen(zColon2+1));
        nT = strlen(pp->zType);
        if( nT>0 && pp->zType[nT-1]=='!' ){
          pp->required = 1;
          pp->zType[nT-1] = 0;
        }
        if( pp->zType[0]==0 ){ free(pp->zType); pp->zType = NULL; }
        zColon2 = pp->zName;
        pp->zName = trimmed(zColon2, strlen(zColon2));
        free(zColon2);
      }
      /* "name = default  description": a default is separated from '='
      ** by at most one blank; two or more blanks mean "no default". */
      zRest = zEq+1;
      if( zRest[0]==' ' ) zRest++;
      if( zRest[0]==0 || zRest[0]==' ' || zRest[0]=='\t' ){
        pp->zDefault = NULL;
        pp->zDesc = trimmed(zRest, strlen(zRest));
      }else{
        char *zDef;
        split_desc(zRest, &zDef, &pp->zDesc);
        if( strcmp(zDef, "NULL")==0 ){ free(zDef); zDef = NULL; }
        pp->zDefault = zDef;
      }
    }else if( strcmp(zKey, "column")==0 ){
      NqColumn *pc;
      p->aCol = xrealloc(p->aCol, (size_t)(p->nCol+1)*sizeof(NqColumn));
      pc = &p->aCol[p->nCol++];
      split_desc(zVal, &pc->zName, &pc->zDesc);
      pc->zUnit = NULL;
      if( (zColon = strchr(pc->zName, ':'))!=NULL ){
        /* "NAME:UNIT": the column's unit (output.h) */
        *zColon = 0;
        pc->zUnit = xstrdup(zColon+1);
        if( !output_unit_known(pc->zUnit) ){
          pf_error_set(pErr, ERRPOS_LINE, line, "column '%s': unknown unit"
                       " '%s' (bytes, ns, us, ms, pct, bar, pct_bar, spark,"
                       " name, metric, none)", pc->zName, pc->zUnit);
          free(zKey); free(zVal); free(zLine);
          return -1;
        }
      }
    }
    free(zKey);
    free(zVal);
    free(zLine);
  }
  if( p->zName==NULL || p->zName[0]==0 ){
    pf_error_set(pErr, ERRPOS_LINE, 1, "query header has no '-- name:' line");
    return -1;
  }
  if( p->zDesc==NULL ) p->zDesc = xstrdup("");
  p->zKind = "query";
  p->needsRun = strstr(zText, ":run")!=NULL;
  return 0;
}

static int cmp_nq(const void *a, const void *b){
  return strcmp(((const NamedQuery*)a)->zName, ((const NamedQuery*)b)->zName);
}

OutUnit *named_query_units(const NamedQuery *q, int *pn){
  OutUnit *a = NULL;
  int n = 0;
  for(int i=0; i<q->nCol; i++){
    if( q->aCol[i].zUnit==NULL ) continue;
    a = xrealloc(a, sizeof(OutUnit)*(size_t)(n+1));
    a[n].zCol = q->aCol[i].zName;
    a[n++].zUnit = q->aCol[i].zUnit;
  }
  *pn = n;
  return a;
}

const NamedQuery *named_query_find(const NqList *pList, const char *zName){
  for(int i=0; i<pList->n; i++){
    if( strcmp(pList->a[i].zName, zName)==0 ) return &pList->a[i];
  }
  return NULL;
}

/* Add q to the list, replacing an entry of the same name. */
static void list_put(NqList *pList, NamedQuery *q){
  for(int i=0; i<pList->n; i++){
    if( strcmp(pList->a[i].zName, q->zName)==0 ){
      named_query_clear(&pList->a[i]);
      pList->a[i] = *q;
      return;
    }
  }
  pList->a = xrealloc(pList->a, (size_t)(pList->n+1)*sizeof(NamedQuery));
  pList->a[pList->n++] = *q;
}

static int load_user_dir(NqList *pList, const char *zEnv, const char *zDir,
                         PfError *pErr){
  DIR *d = opendir(zDir);
  struct dirent *de;
  if( d==NULL ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s=%s: cannot read directory",
                 zEnv, zDir);
    return -1;
  }
  while( (de = readdir(d))!=NULL ){
    size_t n = strlen(de->d_name);
    char *zPath;
    FILE *f;
    Buf text;
    char chunk[4096];
    size_t r;
    NamedQuery q;
    PfError e = {0};
    if( n<5 || strcmp(de->d_name+n-4, ".sql")!=0 ) continue;
    zPath = xasprintf("%s/%s", zDir, de->d_name);
    f = fopen(zPath, "rb");
    if( f==NULL ){ free(zPath); continue; }
    buf_init(&text);
    while( (r = fread(chunk, 1, sizeof(chunk), f))>0 ){
      buf_append(&text, chunk, r);
    }
    fclose(f);
    if( named_query_parse(buf_str(&text), zPath, &q, &e) ){
      Buf m;
      buf_init(&m);
      pf_error_format(&e, zPath, &m);
      pf_error_set(pErr, ERRPOS_NONE, 0, "%s", buf_str(&m));
      buf_free(&m);
      named_query_clear(&q);
      buf_free(&text);
      free(zPath);
      closedir(d);
      return -1;
    }
    q.zKind = strcmp(zEnv, "PROFAN_RULES")==0 ? "rule" : "query";
    list_put(pList, &q);
    buf_free(&text);
    free(zPath);
  }
  closedir(d);
  return 0;
}

int named_query_load_catalogue(NqList *pList, const EmbeddedFile *aBuiltin,
                               const char *zEnv, PfError *pErr){
  const char *zDir = getenv(zEnv);
  memset(pList, 0, sizeof(*pList));
  for(int i=0; aBuiltin[i].zName; i++){
    NamedQuery q;
    if( named_query_parse(aBuiltin[i].zText, "builtin", &q, pErr) ){
      named_query_clear(&q);
      return -1;
    }
    q.zKind = strcmp(zEnv, "PROFAN_RULES")==0 ? "rule" : "query";
    list_put(pList, &q);
  }
  if( zDir && zDir[0] && load_user_dir(pList, zEnv, zDir, pErr) ) return -1;
  qsort(pList->a, (size_t)pList->n, sizeof(NamedQuery), cmp_nq);
  return 0;
}

int named_query_load_all(NqList *pList, PfError *pErr){
  return named_query_load_catalogue(pList, embedded_query, "PROFAN_QUERIES",
                                    pErr);
}

void named_query_list_free(NqList *pList){
  for(int i=0; i<pList->n; i++) named_query_clear(&pList->a[i]);
  free(pList->a);
  memset(pList, 0, sizeof(*pList));
}

/* Bind text z as an integer, a real or text, whichever it looks like. */
static void bind_value(sqlite3_stmt *p, int i, const char *z){
  char *zEnd;
  long long v;
  double d;
  if( z==NULL ){ sqlite3_bind_null(p, i); return; }
  if( z[0] ){
    v = strtoll(z, &zEnd, 10);
    if( *zEnd==0 ){ sqlite3_bind_int64(p, i, v); return; }
    d = strtod(z, &zEnd);
    if( *zEnd==0 ){ sqlite3_bind_double(p, i, d); return; }
  }
  sqlite3_bind_text(p, i, z, -1, SQLITE_TRANSIENT);
}

/* ------------------------------------------------------ typed values */

/* The ranks of run runId as "0-7" or "0, 2, 5" into zBuf; "" if none. */
static void run_ranks(sqlite3 *db, int64_t runId, char *zBuf, size_t nBuf){
  sqlite3_stmt *s = NULL;
  int64_t lo = 0, prev = 0;
  int n = 0, contiguous = 1;
  Buf b;
  buf_init(&b);
  zBuf[0] = 0;
  if( sqlite3_prepare_v2(db, db_statement("named-query-run-ranks"), -1, &s,
        NULL)!=SQLITE_OK ){
    sqlite3_finalize(s);
    buf_free(&b);
    return;
  }
  sqlite3_bind_int64(s, 1, runId);
  while( sqlite3_step(s)==SQLITE_ROW ){
    int64_t r = sqlite3_column_int64(s, 0);
    if( n==0 ) lo = r;
    else if( r!=prev+1 ) contiguous = 0;
    buf_printf(&b, "%s%lld", n ? ", " : "", (long long)r);
    prev = r;
    n++;
  }
  sqlite3_finalize(s);
  if( n>2 && contiguous ){
    snprintf(zBuf, nBuf, "%lld-%lld", (long long)lo, (long long)prev);
  }else if( n>0 ){
    snprintf(zBuf, nBuf, "%s", buf_str(&b));
  }
  buf_free(&b);
}

/* 1 when text z is a value of the SQL zSql (?1 = z, ?2 = runId). */
static int sql_has(sqlite3 *db, const char *zSql, const char *z,
                   int64_t runId){
  sqlite3_stmt *s = NULL;
  int found = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &s, NULL)==SQLITE_OK ){
    sqlite3_bind_text(s, 1, z, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, runId);
    found = sqlite3_step(s)==SQLITE_ROW;
  }
  sqlite3_finalize(s);
  return found;
}

const char *named_query_type_words(sqlite3 *db, const char *zType,
                                   int64_t runId, char *zBuf, size_t nBuf){
  if( zType==NULL || strcmp(zType, "text")==0 ) return "any text";
  if( strcmp(zType, "int")==0 ) return "an integer";
  if( strcmp(zType, "int>=0")==0 ) return "an integer >= 0";
  if( strcmp(zType, "int>=1")==0 ) return "an integer >= 1";
  if( strcmp(zType, "number")==0 ) return "a number (no unit, no '%')";
  if( strcmp(zType, "number>=0")==0 ) return "a number >= 0 (no unit, no '%')";
  if( strcmp(zType, "bool")==0 ) return "0 or 1";
  if( strcmp(zType, "run")==0 ) return "a run id, run name or 'latest'";
  if( strcmp(zType, "rank")==0 ){
    char zR[200];
    run_ranks(db, runId, zR, sizeof(zR));
    if( zR[0] ) snprintf(zBuf, nBuf, "a rank of run %lld (%s)",
                         (long long)runId, zR);
    else snprintf(zBuf, nBuf, "a rank of run %lld (it has none)",
                  (long long)runId);
    return zBuf;
  }
  if( strcmp(zType, "scheme")==0 ){
    sqlite3_stmt *s = NULL;
    Buf b;
    buf_init(&b);
    if( sqlite3_prepare_v2(db,
       db_statement("named-query-type-words"), -1, &s, NULL)==SQLITE_OK ){
      while( sqlite3_step(s)==SQLITE_ROW ){
        buf_printf(&b, "%s%s", b.n ? ", " : "", sqlite3_column_text(s, 0));
      }
    }
    sqlite3_finalize(s);
    snprintf(zBuf, nBuf, "a category scheme (%s)", buf_str(&b));
    buf_free(&b);
    return zBuf;
  }
  /* a|b|c */
  snprintf(zBuf, nBuf, "one of %s", zType);
  return zBuf;
}

/* 1 when word z is one of the '|'-separated words of zList. */
static int in_choices(const char *zList, const char *z){
  size_t n = strlen(z);
  const char *p = zList;
  while( *p ){
    const char *e = strchr(p, '|');
    size_t k = e ? (size_t)(e-p) : strlen(p);
    if( k==n && strncmp(p, z, n)==0 ) return 1;
    if( e==NULL ) break;
    p = e+1;
  }
  return 0;
}

/*
** Check z (not NULL, not empty) against type zType for run runId.  On
** success returns 0 and, for a run reference, sets *pId to the run id
** (else leaves it).  Returns 1 when z does not fit.
*/
static int value_fits(sqlite3 *db, const char *zType, const char *z,
                      int64_t runId, int64_t *pId){
  char *zEnd;
  if( zType==NULL || strcmp(zType, "text")==0 ) return 0;
  if( strncmp(zType, "int", 3)==0 || strcmp(zType, "bool")==0
      || strcmp(zType, "rank")==0 ){
    long long v;
    errno = 0;
    v = strtoll(z, &zEnd, 10);
    if( *zEnd || errno ) return 1;
    if( strcmp(zType, "int>=0")==0 && v<0 ) return 1;
    if( strcmp(zType, "int>=1")==0 && v<1 ) return 1;
    if( strcmp(zType, "bool")==0 && v!=0 && v!=1 ) return 1;
    if( strcmp(zType, "rank")==0
        && !sql_has(db,
            db_statement("named-query-value-fits"), z, runId) ) return 1;
    return 0;
  }
  if( strncmp(zType, "number", 6)==0 ){
    double d = strtod(z, &zEnd);
    if( *zEnd || !isfinite(d) || isspace((unsigned char)z[0]) ) return 1;
    if( strcmp(zType, "number>=0")==0 && d<0 ) return 1;
    return 0;
  }
  if( strcmp(zType, "scheme")==0 ){
    return !sql_has(db, "SELECT 1 FROM category_scheme WHERE scheme=?1",
                    z, runId);
  }
  if( strcmp(zType, "run")==0 ){
    PfError e = {0};
    int64_t id = runref_resolve(db, z, &e);
    if( id<0 ) return 1;
    *pId = id;
    return 0;
  }
  return !in_choices(zType, z);
}

/* The parameter of q named zName, or NULL. */
static const NqParam *param_named(const NamedQuery *q, const char *zName){
  for(int i=0; i<q->nParam; i++){
    if( strcmp(q->aParam[i].zName, zName)==0 ) return &q->aParam[i];
  }
  return NULL;
}

/* Set pErr: parameter pp of q refuses value z (NULL: it is missing). */
static void refuse(sqlite3 *db, const NamedQuery *q, const NqParam *pp,
                   const char *z, int64_t runId, PfError *pErr){
  char zBuf[300], zV[64];
  const char *zWords = named_query_type_words(db, pp->zType, runId, zBuf,
                                     sizeof(zBuf));
  if( z==NULL || z[0]==0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s '%s' needs parameter '%s'"
                 " (--param %s=...): it accepts %s", q->zKind, q->zName,
                 pp->zName, pp->zName, zWords);
    pf_error_kind(pErr, PF_KIND_USAGE);
    return;
  }
  util_sanitize(z, strlen(z), zV, sizeof(zV));
  pf_error_set(pErr, ERRPOS_NONE, 0, "bad value '%s' for parameter '%s' of"
               " %s '%s': it accepts %s", zV, pp->zName, q->zKind, q->zName,
               zWords);
  pf_error_kind(pErr, PF_KIND_USAGE);
}

int named_query_check(sqlite3 *db, const NamedQuery *q, int64_t runId,
             const char **azKey, const char **azVal, int nKV, PfError *pErr){
  for(int k=0; k<nKV; k++){
    const NqParam *pp = param_named(q, azKey[k]);
    int64_t id;
    if( pp==NULL ){
      Buf names;
      char zKey[64];
      buf_init(&names);
      for(int i=0; i<q->nParam; i++){
        buf_printf(&names, "%s%s", i ? ", " : "", q->aParam[i].zName);
      }
      util_sanitize(azKey[k], strlen(azKey[k]), zKey, sizeof(zKey));
      {
        const char **az = xmalloc(sizeof(char *)*(size_t)(q->nParam+1));
        const char *zNear;
        for(int i=0; i<q->nParam; i++) az[i] = q->aParam[i].zName;
        zNear = util_nearest(azKey[k], az, q->nParam);
        pf_error_set(pErr, ERRPOS_NONE, 0,
                     "%s '%s' has no parameter '%s' (%s%s%sit takes: %s)",
                     q->zKind, q->zName, zKey, zNear ? "did you mean '" : "",
                     zNear ? zNear : "", zNear ? "'? " : "",
                     q->nParam ? buf_str(&names) : "none");
        free(az);
      }
      pf_error_kind(pErr, PF_KIND_USAGE);
      buf_free(&names);
      return -1;
    }
    if( azVal[k]==NULL || azVal[k][0]==0 ){
      if( pp->required ){ refuse(db, q, pp, NULL, runId, pErr); return -1; }
      continue;                              /* empty: NULL, the default */
    }
    if( value_fits(db, pp->zType, azVal[k], runId, &id) ){
      refuse(db, q, pp, azVal[k], runId, pErr);
      return -1;
    }
  }
  for(int i=0; i<q->nParam; i++){
    int given = 0;
    if( !q->aParam[i].required || q->aParam[i].zDefault ) continue;
    for(int k=0; k<nKV; k++){
      if( strcmp(azKey[k], q->aParam[i].zName)==0 ) given = 1;
    }
    if( !given ){ refuse(db, q, &q->aParam[i], NULL, runId, pErr); return -1; }
  }
  return 0;
}

sqlite3_stmt *named_query_prepare(sqlite3 *db, const NamedQuery *q,
                                  int64_t runId, const char **azKey,
                                  const char **azVal, int nKV,
                                  int64_t limit, PfError *pErr){
  sqlite3_stmt *p = NULL;
  char *zSql;
  int hasLimitParam = 0;
  for(int i=0; i<q->nParam; i++){
    if( strcmp(q->aParam[i].zName, "limit")==0 ) hasLimitParam = 1;
  }
  /* unknown names and values that do not fit the declared types */
  if( named_query_check(db, q, runId, azKey, azVal, nKV, pErr) ) return NULL;
  if( limit>=0 && !hasLimitParam ){
    zSql = xasprintf("SELECT * FROM (%s\n) LIMIT %lld", q->zSql,
                     (long long)limit);
    /* a trailing ';' inside the subquery would break it */
    {
      char *zSemi = strrchr(zSql, ';');
      if( zSemi ) *zSemi = ' ';
    }
  }else{
    zSql = xstrdup(q->zSql);
  }
  if( sqlite3_prepare_v2(db, zSql, -1, &p, NULL)!=SQLITE_OK ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "query '%s': %s", q->zName,
                 sqlite3_errmsg(db));
    free(zSql);
    return NULL;
  }
  free(zSql);
  for(int i=1; i<=sqlite3_bind_parameter_count(p); i++){
    const char *zName = sqlite3_bind_parameter_name(p, i);
    const char *zVal = NULL;
    int set = 0;
    if( zName==NULL ) continue;
    zName++;                                  /* skip ':' */
    if( strcmp(zName, "run")==0 ){ sqlite3_bind_int64(p, i, runId); continue; }
    if( strcmp(zName, "limit")==0 && limit>=0 ){
      sqlite3_bind_int64(p, i, limit);
      continue;
    }
    for(int k=0; k<nKV; k++){
      /* an empty value keeps the default (a rule's threshold bound as
      ** NULL would silently drop its findings) */
      if( strcmp(azKey[k], zName)==0 && azVal[k] && azVal[k][0] ){
        zVal = azVal[k];
        set = 1;
      }
    }
    if( !set ){
      for(int k=0; k<q->nParam; k++){
        if( strcmp(q->aParam[k].zName, zName)==0 ){
          zVal = q->aParam[k].zDefault;
          set = 1;
        }
      }
    }
    if( set && zVal && zVal[0]==0 ) zVal = NULL;
    {
      const NqParam *pp = param_named(q, zName);
      int64_t id = -1;
      if( zVal && pp && pp->zType && strcmp(pp->zType, "run")==0
          && value_fits(db, "run", zVal, runId, &id)==0 ){
        sqlite3_bind_int64(p, i, id);       /* a run name: its id */
        continue;
      }
    }
    bind_value(p, i, zVal);
  }
  return p;
}
