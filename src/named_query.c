/*
** named_query.c — parsing query headers, loading the catalogue, binding
** parameters.
**
** Pipeline position: read side.  Values given with --param are bound as
** integers or reals when they look like numbers, else as text.
*/
#include "named_query.h"
#include "db.h"
#include "embedded.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nq_clear(NamedQuery *p){
  free(p->zName); free(p->zDesc); free(p->zSql); free(p->zSource);
  for(int i=0; i<p->nParam; i++){
    free(p->aParam[i].zName); free(p->aParam[i].zDefault);
    free(p->aParam[i].zDesc);
  }
  for(int i=0; i<p->nCol; i++){ free(p->aCol[i].zName); free(p->aCol[i].zDesc); }
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

int nq_parse(const char *zText, const char *zSource, NamedQuery *p,
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
      char *zEq = strchr(zVal, '=');
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
  p->needsRun = strstr(zText, ":run")!=NULL;
  return 0;
}

static int cmp_nq(const void *a, const void *b){
  return strcmp(((const NamedQuery*)a)->zName, ((const NamedQuery*)b)->zName);
}

const NamedQuery *nq_find(const NqList *pList, const char *zName){
  for(int i=0; i<pList->n; i++){
    if( strcmp(pList->a[i].zName, zName)==0 ) return &pList->a[i];
  }
  return NULL;
}

/* Add q to the list, replacing an entry of the same name. */
static void list_put(NqList *pList, NamedQuery *q){
  for(int i=0; i<pList->n; i++){
    if( strcmp(pList->a[i].zName, q->zName)==0 ){
      nq_clear(&pList->a[i]);
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
    while( (r = fread(chunk, 1, sizeof(chunk), f))>0 ) buf_append(&text, chunk, r);
    fclose(f);
    if( nq_parse(buf_str(&text), zPath, &q, &e) ){
      Buf m;
      buf_init(&m);
      pf_error_format(&e, zPath, &m);
      pf_error_set(pErr, ERRPOS_NONE, 0, "%s", buf_str(&m));
      buf_free(&m);
      nq_clear(&q);
      buf_free(&text);
      free(zPath);
      closedir(d);
      return -1;
    }
    list_put(pList, &q);
    buf_free(&text);
    free(zPath);
  }
  closedir(d);
  return 0;
}

int nq_load_catalogue(NqList *pList, const EmbeddedFile *aBuiltin,
                      const char *zEnv, PfError *pErr){
  const char *zDir = getenv(zEnv);
  memset(pList, 0, sizeof(*pList));
  for(int i=0; aBuiltin[i].zName; i++){
    NamedQuery q;
    if( nq_parse(aBuiltin[i].zText, "builtin", &q, pErr) ){
      nq_clear(&q);
      return -1;
    }
    list_put(pList, &q);
  }
  if( zDir && zDir[0] && load_user_dir(pList, zEnv, zDir, pErr) ) return -1;
  qsort(pList->a, (size_t)pList->n, sizeof(NamedQuery), cmp_nq);
  return 0;
}

int nq_load_all(NqList *pList, PfError *pErr){
  return nq_load_catalogue(pList, embedded_query, "PROFAN_QUERIES", pErr);
}

void nq_list_free(NqList *pList){
  for(int i=0; i<pList->n; i++) nq_clear(&pList->a[i]);
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

sqlite3_stmt *nq_prepare(sqlite3 *db, const NamedQuery *q, int64_t runId,
                         const char **azKey, const char **azVal, int nKV,
                         int64_t limit, PfError *pErr){
  sqlite3_stmt *p = NULL;
  char *zSql;
  int hasLimitParam = 0;
  for(int i=0; i<q->nParam; i++){
    if( strcmp(q->aParam[i].zName, "limit")==0 ) hasLimitParam = 1;
  }
  /* reject unknown --param names */
  for(int k=0; k<nKV; k++){
    int found = 0;
    for(int i=0; i<q->nParam; i++){
      if( strcmp(q->aParam[i].zName, azKey[k])==0 ) found = 1;
    }
    if( !found ){
      Buf names;
      char zKey[64];
      buf_init(&names);
      for(int i=0; i<q->nParam; i++){
        buf_printf(&names, "%s%s", i ? ", " : "", q->aParam[i].zName);
      }
      util_sanitize(azKey[k], strlen(azKey[k]), zKey, sizeof(zKey));
      pf_error_set(pErr, ERRPOS_NONE, 0,
                   "query '%s' has no parameter '%s' (it takes: %s)",
                   q->zName, zKey, q->nParam ? buf_str(&names) : "none");
      buf_free(&names);
      return NULL;
    }
  }
  if( limit>=0 && !hasLimitParam ){
    zSql = xasprintf("SELECT * FROM (%s\n) LIMIT %lld", q->zSql, (long long)limit);
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
      if( strcmp(azKey[k], zName)==0 ){ zVal = azVal[k]; set = 1; }
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
    bind_value(p, i, zVal);
  }
  return p;
}
