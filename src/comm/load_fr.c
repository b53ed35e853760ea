/*
** load_fr.c — PyTorch ProcessGroupNCCL flight-recorder dumps
** (docs/formats.md §4): the pickle written by the C++ pickler (already
** decoded by the strict decoder, load_pickle.c) and the JSON variant, read
** here with jscan (the scanner of the trace parser) into the same PkValue
** tree so one walker serves both.
**
** Pipeline position: "parse" + "load" for flight-recorder files: rows in
** fr_dump, fr_group, fr_pg_status and fr_entry.  The rank comes from the
** file name (<prefix><rank>, e.g. nccl_trace_rank_3), as PyTorch's own
** analyser takes it.  Keys are tested, never inferred from "version".
** Entries that are not dicts are skipped and counted as warnings; a dump
** whose "entries" is not a list is refused.
**
** Memory: the JSON tree lives in one arena freed when the file is done;
** the pickle tree belongs to load_pickle.c.
*/
#include "input/load_kinds.h"
#include "core/db.h"
#include "input/input.h"
#include "input/jscan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FR_JSON_MAX_BYTES ((size_t)4 << 30)

/* ------------------------------------------------ value helpers */

/* The string value of v as a NUL-terminated copy in z (size n); "" when
** v is not a string.  Returns z. */
static const char *str_of(const PkValue *v, char *z, size_t n){
  if( v && v->t==PK_STR ){
    size_t k = v->u.s.n < n-1 ? v->u.s.n : n-1;
    memcpy(z, v->u.s.z, k);
    z[k] = 0;
  }else{
    z[0] = 0;
  }
  return z;
}

/* Integer value, also from a decimal string ("12"); 0 when found. */
static int int_of(const PkValue *v, int64_t *pOut){
  if( v==NULL ) return -1;
  if( pk_as_int(v, pOut)==0 ) return 0;
  if( v->t==PK_STR && v->u.s.n>0 && v->u.s.n<24 ){
    char buf[24], *zEnd;
    long long x;
    memcpy(buf, v->u.s.z, v->u.s.n);
    buf[v->u.s.n] = 0;
    errno = 0;
    x = strtoll(buf, &zEnd, 10);
    if( *zEnd==0 && errno!=ERANGE ){ *pOut = x; return 0; }
  }
  return -1;
}

/* Append v as JSON text (lists and tuples as arrays, ", " separators as
** Python's json.dumps writes them). */
static void to_json(Buf *b, const PkValue *v, int depth){
  if( v==NULL || depth>32 ){ buf_puts(b, "null"); return; }
  switch( v->t ){
    case PK_NONE: buf_puts(b, "null"); break;
    case PK_BOOL: buf_puts(b, v->u.i ? "true" : "false"); break;
    case PK_INT: buf_printf(b, "%lld", (long long)v->u.i); break;
    case PK_FLOAT: buf_printf(b, "%.17g", v->u.f); break;
    case PK_STR: case PK_BYTES:
      buf_putc(b, '"');
      for(size_t i=0; i<v->u.s.n; i++){
        unsigned char c = (unsigned char)v->u.s.z[i];
        if( c=='"' || c=='\\' ){ buf_putc(b, '\\'); buf_putc(b, (char)c); }
        else if( c<0x20 ) buf_printf(b, "\\u%04x", c);
        else buf_putc(b, (char)c);
      }
      buf_putc(b, '"');
      break;
    case PK_LIST: case PK_TUPLE:
      buf_putc(b, '[');
      for(size_t i=0; i<v->u.seq.n; i++){
        if( i ) buf_puts(b, ", ");
        to_json(b, v->u.seq.a[i], depth+1);
      }
      buf_putc(b, ']');
      break;
    case PK_DICT:
      buf_putc(b, '{');
      for(size_t i=0; i<v->u.dict.n; i++){
        if( i ) buf_puts(b, ", ");
        to_json(b, v->u.dict.k[i], depth+1);
        buf_puts(b, ": ");
        to_json(b, v->u.dict.v[i], depth+1);
      }
      buf_putc(b, '}');
      break;
    default: buf_puts(b, "null"); break;
  }
}

/* Sum over tensors of the product of dims of a list of size lists;
** -1 when v is not such a list. */
static int64_t numel_of(const PkValue *v){
  int64_t total = 0;
  if( v==NULL || (v->t!=PK_LIST && v->t!=PK_TUPLE) ) return -1;
  for(size_t i=0; i<v->u.seq.n; i++){
    const PkValue *t = v->u.seq.a[i];
    int64_t prod = 1, d;
    if( t->t!=PK_LIST && t->t!=PK_TUPLE ) return -1;
    for(size_t j=0; j<t->u.seq.n; j++){
      /* a negative dim, a bool, or a product past int64: not sizes */
      if( t->u.seq.a[j]->t!=PK_INT || pk_as_int(t->u.seq.a[j], &d) || d<0
          || __builtin_mul_overflow(prod, d, &prod) ) return -1;
    }
    if( __builtin_add_overflow(total, prod, &total) ) return -1;
  }
  return total;
}

/* ------------------------------------------------ the loader */

typedef struct FrLoad {
  sqlite3 *db;
  const LoadTarget *t;
  LoadStats *pStats;
  PfError *pErr;
  int64_t rank;
} FrLoad;

static int fr_step(FrLoad *F, sqlite3_stmt *s){
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(F->pErr, ERRPOS_NONE, 0, "database: %s",
                 sqlite3_errmsg(F->db));
    return -1;
  }
  return 0;
}

static void fr_warn(FrLoad *F, const char *zWhere, const char *zMsg){
  if( F->pStats->nWarnings++==0 ){
    snprintf(F->pStats->zFirstWarning, sizeof(F->pStats->zFirstWarning),
             "%s: %s", zWhere, zMsg);
  }
}

/* Field type checks for one entry: the first field whose value has the
** wrong type (or does not fit) is remembered in *pzBad and the entry gets
** one warning; the column is NULL.  None / absent is never wrong. */
static int is_absent(const PkValue *v){ return v==NULL || v->t==PK_NONE; }

static void check_int(const PkValue *v, const char *zKey, const char **pzBad){
  int64_t x;
  if( is_absent(v) || *pzBad ) return;
  if( v->t==PK_BOOL || int_of(v, &x)!=0 ) *pzBad = zKey;
}
static void check_str(const PkValue *v, const char *zKey, const char **pzBad){
  if( is_absent(v) || *pzBad ) return;
  if( v->t!=PK_STR ) *pzBad = zKey;
}
static void check_flag(const PkValue *v, const char *zKey, const char **pzBad){
  if( is_absent(v) || *pzBad ) return;
  if( v->t!=PK_BOOL && v->t!=PK_INT ) *pzBad = zKey;
}
/* A list of size lists ([[1024], [2, 3]]): numel_of() >= 0. */
static int64_t numel_of(const PkValue *v);
static void check_sizes(const PkValue *v, const char *zKey, const char **pzBad){
  if( is_absent(v) || *pzBad ) return;
  if( numel_of(v)<0 ) *pzBad = zKey;
}
/* A list of strings (dtypes) or of frames (dicts). */
static void check_list_of(const PkValue *v, PkType t, const char *zKey,
                          const char **pzBad){
  if( is_absent(v) || *pzBad ) return;
  if( v->t!=PK_LIST && v->t!=PK_TUPLE ){ *pzBad = zKey; return; }
  for(size_t i=0; i<v->u.seq.n; i++){
    if( v->u.seq.a[i]->t!=t ){ *pzBad = zKey; return; }
  }
}

/* Bind text of a value (str) or NULL. */
static void bind_str(sqlite3_stmt *s, int i, const PkValue *v){
  if( v && v->t==PK_STR ){
    sqlite3_bind_text(s, i, v->u.s.z, (int)v->u.s.n, SQLITE_TRANSIENT);
  }else{
    sqlite3_bind_null(s, i);
  }
}

/* Bind an integer value (or a decimal string) or NULL; zeroIsNull maps
** the JSON variant's 0 ("absent") to NULL. */
static void bind_int(sqlite3_stmt *s, int i, const PkValue *v,
                     int zeroIsNull){
  int64_t x;
  if( v && v->t!=PK_BOOL && int_of(v, &x)==0 && !(zeroIsNull && x==0) ){
    sqlite3_bind_int64(s, i, x);
  }
  else sqlite3_bind_null(s, i);
}

/* Bind JSON text of v, or NULL when v is absent. */
static void bind_json(sqlite3_stmt *s, int i, const PkValue *v){
  Buf b;
  if( v==NULL || v->t==PK_NONE ){ sqlite3_bind_null(s, i); return; }
  buf_init(&b);
  to_json(&b, v, 0);
  sqlite3_bind_text(s, i, buf_str(&b), (int)b.n, SQLITE_TRANSIENT);
  buf_free(&b);
}

/* pg_config: v2 {name: {name, desc, ranks "[..]"}}, v1 {pg_id: [ranks]}. */
static int load_groups(FrLoad *F, const PkValue *pCfg){
  sqlite3_stmt *s = db_prepare(F->db,
    db_statement("load-fr-load-groups"), F->pErr);
  int rc = 0;
  if( s==NULL ) return -1;
  for(size_t i=0; i<pCfg->u.dict.n && rc==0; i++){
    const PkValue *k = pCfg->u.dict.k[i], *v = pCfg->u.dict.v[i];
    const PkValue *pRanks = v;
    Buf name, ranks;
    int64_t size = -1;
    const char *zBad = NULL;
    buf_init(&name);
    buf_init(&ranks);
    if( v->t==PK_DICT ){
      const PkValue *n = pk_dict_get(v, "name");
      pRanks = pk_dict_get(v, "ranks");
      if( n && n->t==PK_STR ) buf_append(&name, n->u.s.z, n->u.s.n);
      bind_str(s, 5, pk_dict_get(v, "desc"));
      check_str(n, "name", &zBad);
      check_str(pk_dict_get(v, "desc"), "desc", &zBad);
    }else if( v->t!=PK_LIST && v->t!=PK_TUPLE ){
      zBad = "group";                      /* neither v2 dict nor v1 list */
    }
    if( !zBad && !is_absent(pRanks) && pRanks->t!=PK_STR
        && pRanks->t!=PK_LIST && pRanks->t!=PK_TUPLE ){
      zBad = "ranks";
    }
    if( zBad ){
      char zWhere[48], zMsg[64];
      snprintf(zWhere, sizeof(zWhere), "pg_config group %zu", i);
      snprintf(zMsg, sizeof(zMsg), "\"%s\" of the wrong type ignored", zBad);
      fr_warn(F, zWhere, zMsg);
    }
    if( name.n==0 ){
      if( k->t==PK_STR ) buf_append(&name, k->u.s.z, k->u.s.n);
      else if( k->t==PK_INT ) buf_printf(&name, "%lld", (long long)k->u.i);
    }
    if( pRanks && pRanks->t==PK_STR ){
      /* "[0, 1, 2, 3]": count the members */
      buf_append(&ranks, pRanks->u.s.z, pRanks->u.s.n);
      size = 0;
      for(size_t j=0; j<pRanks->u.s.n; j++){
        char c = pRanks->u.s.z[j];
        if( c>='0' && c<='9' && (j==0 || pRanks->u.s.z[j-1]<'0'
                                 || pRanks->u.s.z[j-1]>'9') ) size++;
      }
    }else if( pRanks && (pRanks->t==PK_LIST || pRanks->t==PK_TUPLE) ){
      to_json(&ranks, pRanks, 0);
      size = (int64_t)pRanks->u.seq.n;
    }
    sqlite3_bind_int64(s, 1, F->t->runId);
    sqlite3_bind_int64(s, 2, F->t->fileId);
    sqlite3_bind_int64(s, 3, F->rank);
    sqlite3_bind_text(s, 4, buf_str(&name), -1, SQLITE_TRANSIENT);
    db_bind_text_or_null(s, 6, ranks.n ? buf_str(&ranks) : NULL, -1);
    db_bind_int_or_null(s, 7, size>=0, size);
    rc = fr_step(F, s);
    buf_free(&name);
    buf_free(&ranks);
  }
  sqlite3_finalize(s);
  return rc;
}

/* pg_status: {pg_id: {last_enqueued_collective, ...}} (ints or strings). */
static int load_status(FrLoad *F, const PkValue *pSt){
  sqlite3_stmt *s = db_prepare(F->db,
    db_statement("load-fr-load-status"), F->pErr);
  int rc = 0;
  if( s==NULL ) return -1;
  for(size_t i=0; i<pSt->u.dict.n && rc==0; i++){
    const PkValue *k = pSt->u.dict.k[i], *v = pSt->u.dict.v[i];
    char zId[32];
    if( v->t!=PK_DICT ){
      fr_warn(F, "pg_status", "a group's status is not a dict; skipped");
      continue;
    }
    if( k->t==PK_INT ) snprintf(zId, sizeof(zId), "%lld", (long long)k->u.i);
    else str_of(k, zId, sizeof(zId));
    sqlite3_bind_int64(s, 1, F->t->runId);
    sqlite3_bind_int64(s, 2, F->t->fileId);
    sqlite3_bind_int64(s, 3, F->rank);
    sqlite3_bind_text(s, 4, zId, -1, SQLITE_TRANSIENT);
    bind_int(s, 5, pk_dict_get(v, "last_enqueued_collective"), 0);
    bind_int(s, 6, pk_dict_get(v, "last_started_collective"), 0);
    bind_int(s, 7, pk_dict_get(v, "last_completed_collective"), 0);
    rc = fr_step(F, s);
  }
  sqlite3_finalize(s);
  return rc;
}

/* Bind the columns of entry e (a dict) to s; a duration_ms of the wrong
** type sets *pzBad.  Returns its profiling_name value (may be NULL). */
static const PkValue *bind_entry(FrLoad *F, sqlite3_stmt *s,
                                 const PkValue *e, const char *zWhere,
                                 int isJson, const char **pzBad){
  const PkValue *pg, *v, *pName;
  int64_t x;
  double d;
  sqlite3_bind_int64(s, 1, F->t->runId);
  sqlite3_bind_int64(s, 2, F->t->fileId);
  sqlite3_bind_int64(s, 3, F->rank);
  bind_int(s, 4, pk_dict_get(e, "record_id"), 0);
  bind_int(s, 5, pk_dict_get(e, "pg_id"), 0);
  pg = pk_dict_get(e, "process_group");
  if( pg && (pg->t==PK_TUPLE || pg->t==PK_LIST) && pg->u.seq.n>=2 ){
    bind_str(s, 6, pg->u.seq.a[0]);
    bind_str(s, 7, pg->u.seq.a[1]);
  }else if( (v = pk_dict_get(e, "pg_id"))!=NULL && int_of(v, &x)==0 ){
    char z[24];                        /* v1: the group is its pg_id */
    snprintf(z, sizeof(z), "%lld", (long long)x);
    sqlite3_bind_text(s, 6, z, -1, SQLITE_TRANSIENT);
  }
  v = pk_dict_get(e, "collective_seq_id");
  if( v==NULL ) v = pk_dict_get(e, "seq_id");
  bind_int(s, 8, v, 0);
  bind_int(s, 9, pk_dict_get(e, "p2p_seq_id"), 0);
  bind_int(s, 10, pk_dict_get(e, "op_id"), 0);
  pName = pk_dict_get(e, "profiling_name");
  bind_str(s, 11, pName);
  if( pName && pName->t==PK_STR ){
    const char *z = pName->u.s.z;
    size_t n = pName->u.s.n;
    if( n>=5 && memcmp(z, "nccl:", 5)==0 ){ z += 5; n -= 5; }
    sqlite3_bind_text(s, 12, z, (int)n, SQLITE_TRANSIENT);
  }else{
    fr_warn(F, zWhere, "no profiling_name");
  }
  v = pk_dict_get(e, "is_p2p");
  if( v && pk_as_int(v, &x)==0 ) sqlite3_bind_int64(s, 13, x!=0);
  else if( pName && pName->t==PK_STR ){
    const char *z = pName->u.s.z;
    int p2p = pName->u.s.n>=9 && (memcmp(z, "nccl:send", 9)==0
                                  || memcmp(z, "nccl:recv", 9)==0);
    sqlite3_bind_int(s, 13, p2p);
  }
  v = pk_dict_get(e, "input_sizes");
  bind_json(s, 14, v);
  x = numel_of(v);
  db_bind_int_or_null(s, 16, x>=0, x);
  v = pk_dict_get(e, "output_sizes");
  bind_json(s, 15, v);
  x = numel_of(v);
  db_bind_int_or_null(s, 17, x>=0, x);
  bind_json(s, 18, pk_dict_get(e, "input_dtypes"));
  bind_json(s, 19, pk_dict_get(e, "output_dtypes"));
  bind_str(s, 20, pk_dict_get(e, "state"));
  bind_int(s, 21, pk_dict_get(e, "time_created_ns"), 0);
  bind_int(s, 22, pk_dict_get(e, "time_discovered_started_ns"), isJson);
  bind_int(s, 23, pk_dict_get(e, "time_discovered_completed_ns"), isJson);
  v = pk_dict_get(e, "duration_ms");
  if( v && v->t!=PK_BOOL && pk_as_double(v, &d)==0 && isfinite(d) && d>=0 ){
    sqlite3_bind_double(s, 24, d);
  }else if( !is_absent(v) ){
    *pzBad = "duration_ms";
  }
  v = pk_dict_get(e, "retired");
  if( v && pk_as_int(v, &x)==0 ) sqlite3_bind_int(s, 25, x!=0);
  bind_int(s, 26, pk_dict_get(e, "timeout_ms"), 0);
  bind_str(s, 27, pk_dict_get(e, "thread_name"));
  v = pk_dict_get(e, "thread_id");
  if( v && v->t==PK_INT ){
    char z[24];
    snprintf(z, sizeof(z), "%lld", (long long)v->u.i);
    sqlite3_bind_text(s, 28, z, -1, SQLITE_TRANSIENT);
  }else{
    bind_str(s, 28, v);
  }
  return pName;
}

/* The first field of entry e of the wrong type into *pzBad, unless set. */
static void check_entry(const PkValue *e, const char **pzBad){
  const PkValue *pg = pk_dict_get(e, "process_group");
  check_int(pk_dict_get(e, "record_id"), "record_id", pzBad);
  check_int(pk_dict_get(e, "pg_id"), "pg_id", pzBad);
  if( !is_absent(pg) && !*pzBad ){
    if( (pg->t!=PK_TUPLE && pg->t!=PK_LIST) || pg->u.seq.n<2
        || pg->u.seq.a[0]->t!=PK_STR || pg->u.seq.a[1]->t!=PK_STR ){
      *pzBad = "process_group";
    }
  }
  check_int(pk_dict_get(e, "collective_seq_id"), "collective_seq_id", pzBad);
  check_int(pk_dict_get(e, "p2p_seq_id"), "p2p_seq_id", pzBad);
  check_int(pk_dict_get(e, "op_id"), "op_id", pzBad);
  check_flag(pk_dict_get(e, "is_p2p"), "is_p2p", pzBad);
  check_sizes(pk_dict_get(e, "input_sizes"), "input_sizes", pzBad);
  check_sizes(pk_dict_get(e, "output_sizes"), "output_sizes", pzBad);
  check_list_of(pk_dict_get(e, "input_dtypes"), PK_STR, "input_dtypes", pzBad);
  check_list_of(pk_dict_get(e, "output_dtypes"), PK_STR, "output_dtypes",
                pzBad);
  check_str(pk_dict_get(e, "state"), "state", pzBad);
  check_int(pk_dict_get(e, "time_created_ns"), "time_created_ns", pzBad);
  check_int(pk_dict_get(e, "time_discovered_started_ns"),
            "time_discovered_started_ns", pzBad);
  check_int(pk_dict_get(e, "time_discovered_completed_ns"),
            "time_discovered_completed_ns", pzBad);
  check_flag(pk_dict_get(e, "retired"), "retired", pzBad);
  check_int(pk_dict_get(e, "timeout_ms"), "timeout_ms", pzBad);
  check_str(pk_dict_get(e, "thread_name"), "thread_name", pzBad);
  check_list_of(pk_dict_get(e, "frames"), PK_DICT, "frames", pzBad);
}

static int load_entries(FrLoad *F, const PkValue *pEntries, int isJson){
  sqlite3_stmt *s = db_prepare(F->db,
    db_statement("load-fr-load-entries"), F->pErr);
  int rc = 0;
  if( s==NULL ) return -1;
  for(size_t i=0; i<pEntries->u.seq.n && rc==0; i++){
    const PkValue *e = pEntries->u.seq.a[i];
    const PkValue *pName;
    const char *zBad = NULL;
    char zWhere[48];
    snprintf(zWhere, sizeof(zWhere), "entry %zu", i);
    if( e->t!=PK_DICT ){
      fr_warn(F, zWhere, "not a dict; skipped");
      continue;
    }
    F->pStats->nRecords++;
    pName = bind_entry(F, s, e, zWhere, isJson, &zBad);
    /* every field of the wrong type: one warning for the entry */
    check_entry(e, &zBad);
    if( zBad && pName && pName->t==PK_STR ){
      char zMsg[80];
      snprintf(zMsg, sizeof(zMsg), "\"%s\" of the wrong type ignored", zBad);
      fr_warn(F, zWhere, zMsg);
    }
    rc = fr_step(F, s);
  }
  sqlite3_finalize(s);
  return rc;
}

/* Rank from "<prefix><rank>": the digits at the end of the base name
** (extensions .json, .pkl, .pickle, .gz stripped); -1 if none. */
static int64_t rank_from_name(const char *zPath){
  const char *zBase = util_basename(zPath);
  size_t n = strlen(zBase);
  static const char *const azExt[] = {".gz", ".json", ".pickle", ".pkl", 0};
  int64_t v = 0, mul = 1;
  size_t k;
  for(int i=0; azExt[i]; i++){
    size_t m = strlen(azExt[i]);
    if( n>m && memcmp(zBase+n-m, azExt[i], m)==0 ) n -= m;
  }
  for(k=n; k>0 && zBase[k-1]>='0' && zBase[k-1]<='9' && n-k<9; k--){
    v += (zBase[k-1]-'0')*mul;
    mul *= 10;
  }
  if( k==n ) return input_rank_from_name(zPath);
  return v;
}

/* The walker both formats share. */
static int load_fr_tree(sqlite3 *db, const LoadTarget *t, const PkValue *pRoot,
                        LoadStats *pStats, PfError *pErr, int isJson){
  FrLoad F;
  const PkValue *pEntries = pk_dict_get(pRoot, "entries");
  const PkValue *pCfg = pk_dict_get(pRoot, "pg_config");
  const PkValue *pSt = pk_dict_get(pRoot, "pg_status");
  const PkValue *v;
  sqlite3_stmt *s;
  char zVer[32], zNccl[32];
  memset(&F, 0, sizeof(F));
  F.db = db;
  F.t = t;
  F.pStats = pStats;
  F.pErr = pErr;
  F.rank = rank_from_name(t->zPath);
  snprintf(pStats->zKind, sizeof(pStats->zKind), "flight_recorder");
  if( F.rank>=0 ){
    snprintf(pStats->zRankSource, sizeof(pStats->zRankSource), "file name");
  }else{
    F.rank = 0;
    snprintf(pStats->zRankSource, sizeof(pStats->zRankSource), "default");
    fr_warn(&F, "file name", "no rank suffix (<prefix><rank>); rank 0 used");
  }
  pStats->rank = F.rank;
  if( pEntries && pEntries->t!=PK_LIST && pEntries->t!=PK_TUPLE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "flight-recorder dump: \"entries\" is "
                 "a %s, not a list", pk_type_name(pEntries->t));
    return -1;
  }
  if( pCfg && pCfg->t!=PK_DICT ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "flight-recorder dump: \"pg_config\" "
                 "is a %s, not a dict", pk_type_name(pCfg->t));
    return -1;
  }
  v = pk_dict_get(pRoot, "version");
  str_of(v, zVer, sizeof(zVer));
  if( !is_absent(v) && v->t!=PK_STR ){
    fr_warn(&F, "version", "not a string; ignored");
  }
  v = pk_dict_get(pRoot, "nccl_version");
  if( v==NULL ) v = pk_dict_get(pRoot, "comm_lib_version");
  str_of(v, zNccl, sizeof(zNccl));
  if( !is_absent(v) && v->t!=PK_STR ){
    fr_warn(&F, "nccl_version", "not a string; ignored");
  }
  if( !is_absent(pSt) && pSt->t!=PK_DICT ){
    fr_warn(&F, "pg_status", "not a dict; ignored");
  }
  s = db_prepare(db, db_statement("load-fr-tree"),
                 pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, t->runId);
  sqlite3_bind_int64(s, 2, t->fileId);
  sqlite3_bind_int64(s, 3, F.rank);
  db_bind_text_or_null(s, 4, zVer[0] ? zVer : NULL, -1);
  db_bind_text_or_null(s, 5, zNccl[0] ? zNccl : NULL, -1);
  sqlite3_bind_text(s, 6, isJson ? "json" : "pickle", -1, SQLITE_STATIC);
  sqlite3_bind_int64(s, 7, pEntries ? (int64_t)pEntries->u.seq.n : 0);
  if( fr_step(&F, s) ){ sqlite3_finalize(s); return -1; }
  sqlite3_finalize(s);
  if( pCfg && load_groups(&F, pCfg) ) return -1;
  if( pSt && pSt->t==PK_DICT && load_status(&F, pSt) ) return -1;
  if( pEntries && load_entries(&F, pEntries, isJson) ) return -1;
  return 0;
}

int load_fr_is_dump(const PkValue *pRoot){
  if( pRoot==NULL || pRoot->t!=PK_DICT ) return 0;
  if( pk_dict_get(pRoot, "entries") ) return 1;
  return pk_dict_get(pRoot, "version")!=NULL
      && pk_dict_get(pRoot, "pg_config")!=NULL;
}

int load_fr_dump(sqlite3 *db, const LoadTarget *t, const PkValue *pRoot,
                 LoadStats *pStats, PfError *pErr){
  return load_fr_tree(db, t, pRoot, pStats, pErr, 0);
}

/* ------------------------------------------------ JSON -> PkValue */

/* Arena of PkValue nodes, pointer arrays and string bytes. */
typedef struct ArenaChunk {
  struct ArenaChunk *pNext;
  size_t n, cap;
} ArenaChunk;
typedef struct Arena { ArenaChunk *pHead; } Arena;

static void *arena_alloc(Arena *a, size_t n){
  ArenaChunk *c = a->pHead;
  n = (n + 15) & ~(size_t)15;
  if( c==NULL || c->cap - c->n < n ){
    size_t cap = n > 65536 ? n : 65536;
    c = xmalloc(sizeof(ArenaChunk) + 16 + cap);
    c->cap = cap;
    c->n = 0;
    c->pNext = a->pHead;
    a->pHead = c;
  }
  {
    char *base = (char*)(c+1);
    base += (16 - ((uintptr_t)base & 15)) & 15;
    c->n += n;
    return base + c->n - n;
  }
}

static void arena_free(Arena *a){
  while( a->pHead ){
    ArenaChunk *c = a->pHead;
    a->pHead = c->pNext;
    free(c);
  }
}

#define JB_MAXDEPTH 64
/* An open container while building. */
typedef struct JFrame {
  PkValue *pVal;            /* PK_LIST or PK_DICT node being filled */
  PkValue **aItem;          /* heap, growing */
  PkValue **aKey;           /* dicts */
  size_t n, cap;
  PkValue *pPendingKey;     /* dict key waiting for its value */
} JFrame;

typedef struct JBuild {
  Arena arena;
  JFrame aFrame[JB_MAXDEPTH];
  int depth;
  PkValue *pRoot;
  int tooDeep;              /* stopped: nesting over JB_MAXDEPTH */
  int badUtf8;              /* stopped: a string is not valid UTF-8 */
} JBuild;

static PkValue *jb_node(JBuild *b, PkType t){
  PkValue *v = arena_alloc(&b->arena, sizeof(PkValue));
  memset(v, 0, sizeof(*v));
  v->t = t;
  return v;
}

static PkValue *jb_str(JBuild *b, const unsigned char *z, size_t n){
  PkValue *v = jb_node(b, PK_STR);
  char *zCopy = arena_alloc(&b->arena, n+1);
  memcpy(zCopy, z, n);
  zCopy[n] = 0;
  v->u.s.z = zCopy;
  v->u.s.n = n;
  return v;
}

/* Attach a finished value to the open container (or make it the root). */
static int jb_add(JBuild *b, PkValue *v){
  JFrame *f;
  if( b->depth==0 ){ b->pRoot = v; return 1; }
  f = &b->aFrame[b->depth-1];
  if( f->n==f->cap ){
    f->cap = f->cap ? f->cap*2 : 8;
    f->aItem = xrealloc(f->aItem, f->cap*sizeof(PkValue*));
    if( f->pVal->t==PK_DICT ){
      f->aKey = xrealloc(f->aKey, f->cap*sizeof(PkValue*));
    }
  }
  if( f->pVal->t==PK_DICT ){
    f->aKey[f->n] = f->pPendingKey;
    f->pPendingKey = NULL;
  }
  f->aItem[f->n++] = v;
  return 1;
}

static int jb_open(JBuild *b, PkType t){
  JFrame *f;
  if( b->depth>=JB_MAXDEPTH ){ b->tooDeep = 1; return 0; }
  f = &b->aFrame[b->depth++];
  memset(f, 0, sizeof(*f));
  f->pVal = jb_node(b, t);
  return 1;
}

static int jb_close(JBuild *b){
  JFrame *f = &b->aFrame[--b->depth];
  PkValue *v = f->pVal;
  PkValue **a = arena_alloc(&b->arena, (f->n ? f->n : 1)*sizeof(PkValue*));
  if( f->n ) memcpy(a, f->aItem, f->n*sizeof(PkValue*));
  if( v->t==PK_DICT ){
    PkValue **k = arena_alloc(&b->arena, (f->n ? f->n : 1)*sizeof(PkValue*));
    if( f->n ) memcpy(k, f->aKey, f->n*sizeof(PkValue*));
    v->u.dict.k = k;
    v->u.dict.v = a;
    v->u.dict.n = f->n;
  }else{
    v->u.seq.a = a;
    v->u.seq.n = f->n;
  }
  free(f->aItem);
  free(f->aKey);
  return jb_add(b, v);
}

static int cb_null(void *ctx){ return jb_add(ctx, jb_node(ctx, PK_NONE)); }
static int cb_bool(void *ctx, int x){
  PkValue *v = jb_node(ctx, PK_BOOL);
  v->u.i = x!=0;
  return jb_add(ctx, v);
}
static int cb_number(void *ctx, const char *z, size_t n){
  char buf[64], *zEnd;
  PkValue *v;
  if( n>=sizeof(buf) ){
    /* no real field has 64 digits: a NaN, which every field refuses */
    v = jb_node(ctx, PK_FLOAT);
    v->u.f = NAN;
    return jb_add(ctx, v);
  }
  memcpy(buf, z, n);
  buf[n] = 0;
  if( strpbrk(buf, ".eE")==NULL ){
    long long x;
    errno = 0;
    x = strtoll(buf, &zEnd, 10);
    if( *zEnd==0 && errno!=ERANGE ){   /* 2^64 stays a float: refused */
      v = jb_node(ctx, PK_INT);
      v->u.i = x;
      return jb_add(ctx, v);
    }
  }
  v = jb_node(ctx, PK_FLOAT);
  v->u.f = strtod(buf, &zEnd);
  return jb_add(ctx, v);
}
/* 1 when z[0..n) is valid UTF-8 (jscan passes bytes through as they
** are; the dump's strings are stored as TEXT). */
static int utf8_ok(const unsigned char *z, size_t n){
  for(size_t i=0; i<n; ){
    size_t k = z[i]<0x80 ? 1 : util_utf8_seq(z+i, n-i);
    if( k==0 ) return 0;
    i += k;
  }
  return 1;
}
static int cb_string(void *ctx, const unsigned char *z, size_t n){
  JBuild *b = ctx;
  if( !utf8_ok(z, n) ){ b->badUtf8 = 1; return 0; }
  return jb_add(b, jb_str(b, z, n));
}
static int cb_start_map(void *ctx){ return jb_open(ctx, PK_DICT); }
static int cb_map_key(void *ctx, const unsigned char *z, size_t n){
  JBuild *b = ctx;
  if( !utf8_ok(z, n) ){ b->badUtf8 = 1; return 0; }
  b->aFrame[b->depth-1].pPendingKey = jb_str(b, z, n);
  return 1;
}
static int cb_end(void *ctx){ return jb_close(ctx); }
static int cb_start_array(void *ctx){ return jb_open(ctx, PK_LIST); }

/* The error of a scan of n bytes that did not end in a document, in pErr:
** truncated, too deep, invalid UTF-8, or jscan's message at its offset. */
static void json_error(Jscan *h, const JBuild *b, int st, size_t n,
                       PfError *pErr){
  const char *z = jscan_error(h);
  char zClean[200];
  if( st==JSCAN_OK ){
    /* the text is fine as far as it goes: the file ends early */
    pf_error_set(pErr, ERRPOS_BYTE, (int64_t)n, "truncated JSON: the file "
                 "ends inside the flight-recorder dump");
  }else if( b->tooDeep ){
    pf_error_set(pErr, ERRPOS_BYTE, jscan_offset(h),
                 "flight-recorder JSON nested deeper than %d", JB_MAXDEPTH);
  }else if( b->badUtf8 ){
    pf_error_set(pErr, ERRPOS_BYTE, jscan_offset(h),
                 "invalid JSON: invalid bytes in UTF8 string.");
  }else{
    util_sanitize(z, strlen(z), zClean, sizeof(zClean));
    pf_error_set(pErr, ERRPOS_BYTE, jscan_offset(h), "invalid JSON: %s",
                 zClean);
  }
}

int load_fr_json_file(sqlite3 *db, const LoadTarget *t, LoadStats *pStats,
                      PfError *pErr){
  static const JscanCallbacks cb = {
    cb_null, cb_bool, cb_number, cb_string,
    cb_start_map, cb_map_key, cb_end, cb_start_array, cb_end
  };
  size_t n = 0;
  unsigned char *data = input_slurp(t->zPath, FR_JSON_MAX_BYTES, &n, pErr);
  JBuild *b;
  Jscan *h;
  int st, rc = -1;
  if( data==NULL ) return -1;
  b = xcalloc(1, sizeof(*b));
  h = jscan_new(&cb, b);
  if( h==NULL ) util_fatal("out of memory");
  st = jscan_feed(h, data, n);
  if( st!=JSCAN_OK || jscan_finish(h)!=JSCAN_OK ){
    json_error(h, b, st, n, pErr);
  }else if( b->pRoot==NULL || !load_fr_is_dump(b->pRoot) ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "JSON is not a flight-recorder dump "
                 "(no \"entries\", or no \"version\" and \"pg_config\")");
  }else{
    rc = load_fr_tree(db, t, b->pRoot, pStats, pErr, 1);
  }
  jscan_free(h);
  while( b->depth>0 ){
    JFrame *f = &b->aFrame[--b->depth];
    free(f->aItem);
    free(f->aKey);
  }
  arena_free(&b->arena);
  free(b);
  free(data);
  return rc;
}
