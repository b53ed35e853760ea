/*
** load_collective.c — collective arguments of trace events: key lookup,
** value capture, the coll_args writer, and the collective vocabulary
** (op names, dtypes, NCCL kernel names, bus-bandwidth factors).
**
** Pipeline position: "parse" (the trace parser calls load_collective_args_key
** / load_collective_args_set for args keys it does not model itself) and
** "load" (load_collective_row).  derive_comm.c uses the vocabulary.
*/
#include "trace/load_collective.h"
#include "core/db.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ keys */

int load_collective_args_key(const unsigned char *zKey, size_t n){
  static const struct { const char *z; int id; } a[] = {
    {"Collective name", CA_COLL_NAME},
    {"dtype", CA_DTYPE},
    {"In msg nelems", CA_IN_NELEMS},
    {"In msg size", CA_IN_NELEMS},          /* before 2023-12 */
    {"Out msg nelems", CA_OUT_NELEMS},
    {"Out msg size", CA_OUT_NELEMS},
    {"Group size", CA_GROUP_SIZE},
    {"Process Group Name", CA_PG_NAME},
    {"Process Group ID", CA_PG_NAME},       /* before 2024-04 */
    {"Process Group Description", CA_PG_DESC},
    {"Process Group Ranks", CA_PG_RANKS},
    {"In split size", CA_IN_SPLIT},
    {"Out split size", CA_OUT_SPLIT},
    {"Src Rank", CA_SRC_RANK},
    {"Dst Rank", CA_DST_RANK},
    {"Seq", CA_SEQ},
  };
  size_t i;
  if( n<3 || n>25 ) return 0;
  for(i=0; i<sizeof(a)/sizeof(a[0]); i++){
    if( strlen(a[i].z)==n && memcmp(a[i].z, zKey, n)==0 ) return a[i].id;
  }
  return 0;
}

void load_collective_args_reset(CollArgs *p){
  memset(p, 0, sizeof(*p));
}

/* Decimal integer from number or string text; 0 on success. */
static int parse_i64(const unsigned char *z, size_t n, int64_t *pv){
  char buf[32];
  char *zEnd;
  long long v;
  while( n>0 && (*z==' ' || *z=='"') ){ z++; n--; }
  if( n==0 || n>=sizeof(buf) ) return -1;
  memcpy(buf, z, n);
  buf[n] = 0;
  v = strtoll(buf, &zEnd, 10);
  if( zEnd==buf ) return -1;
  if( *zEnd=='.' ){                 /* "8.0": accept an integral float */
    double d = strtod(buf, &zEnd);
    if( *zEnd!=0 || d!=(double)(long long)d ) return -1;
    v = (long long)d;
  }else if( *zEnd!=0 ){
    return -1;
  }
  *pv = v;
  return 0;
}

/* Copy n bytes into a fixed array; returns -1 (and stores "") when the
** text does not fit and bCut is 0, else cuts it. */
static int set_text(char *zOut, size_t nOut, const unsigned char *z,
                    size_t n, int bCut){
  if( n>=nOut ){
    if( !bCut ){ zOut[0] = 0; return -1; }
    n = nOut-1;
  }
  memcpy(zOut, z, n);
  zOut[n] = 0;
  return 0;
}

int load_collective_args_set(CollArgs *p, int key, const unsigned char *z,
                        size_t n, int isNum){
  int rc = 0;
  (void)isNum;
  switch( key ){
    case CA_COLL_NAME: rc = set_text(p->zCollName, sizeof(p->zCollName),
                                     z, n, 1); break;
    case CA_DTYPE: rc = set_text(p->zDtype, sizeof(p->zDtype), z, n, 1);
                   break;
    case CA_IN_NELEMS: rc = parse_i64(z, n, &p->inNelems); break;
    case CA_OUT_NELEMS: rc = parse_i64(z, n, &p->outNelems); break;
    case CA_GROUP_SIZE: rc = parse_i64(z, n, &p->groupSize); break;
    case CA_PG_NAME: rc = set_text(p->zPgName, sizeof(p->zPgName),
                                   z, n, 1); break;
    case CA_PG_DESC: rc = set_text(p->zPgDesc, sizeof(p->zPgDesc),
                                   z, n, 1); break;
    case CA_PG_RANKS: rc = set_text(p->zPgRanks, sizeof(p->zPgRanks),
                                    z, n, 0); break;
    case CA_IN_SPLIT: rc = set_text(p->zInSplit, sizeof(p->zInSplit),
                                    z, n, 1); break;
    case CA_OUT_SPLIT: rc = set_text(p->zOutSplit, sizeof(p->zOutSplit),
                                     z, n, 1); break;
    case CA_SRC_RANK: rc = parse_i64(z, n, &p->srcRank); break;
    case CA_DST_RANK: rc = parse_i64(z, n, &p->dstRank); break;
    case CA_SEQ: rc = parse_i64(z, n, &p->seq); break;
    default: return -1;
  }
  if( rc==0 ) p->has |= 1u<<key;
  return rc;
}

int load_collective_args_from_dims(CollArgs *p, const char *zInputDims,
                              const char *zInputTypes){
  /* Walk "[[a, b], [c], []]": product per inner list, summed. */
  const char *z = zInputDims;
  int depth = 0, nTensor = 0;
  int64_t total = 0, prod = 1, cur = -1;
  if( z==NULL ) return -1;
  for(; *z; z++){
    char c = *z;
    if( c=='[' ){
      depth++;
      if( depth==2 ){ prod = 1; cur = -1; }
      if( depth>2 ) return -1;            /* TensorList: not modelled */
    }else if( c>='0' && c<='9' ){
      if( cur<0 ) cur = 0;
      if( cur<(INT64_MAX-9)/10 ) cur = cur*10 + (c-'0');
    }else if( c==',' || c==']' ){
      if( depth==2 && cur>=0 ){
        prod = (cur>0 && prod>INT64_MAX/cur) ? INT64_MAX : prod*cur;
        cur = -1;
        if( c==']' ){ total += prod; nTensor++; }
      }else if( depth==2 && c==']' ){
        /* [] is a scalar or a non-tensor input: not counted */
      }
      if( c==']' ) depth--;
    }
  }
  if( nTensor==0 ) return -1;
  p->inNelems = total;
  p->has |= 1u<<CA_IN_NELEMS;
  /* first non-empty string of the types list */
  if( zInputTypes ){
    const char *q = strchr(zInputTypes, '"');
    while( q ){
      const char *e = strchr(q+1, '"');
      if( e==NULL ) break;
      if( e>q+1 ){
        set_text(p->zDtype, sizeof(p->zDtype), (const unsigned char*)q+1,
                 (size_t)(e-q-1), 1);
        p->has |= 1u<<CA_DTYPE;
        break;
      }
      q = strchr(e+1, '"');
    }
  }
  return 0;
}

int load_collective_row(sqlite3 *db, sqlite3_stmt **ppIns, int64_t runId,
                        int64_t rank, int64_t fileId, int64_t rowId, int eSrc,
                        const CollArgs *p, PfError *pErr){
  static const char *azSrc[] = {"cpu_op", "kernel", "annotation"};
  sqlite3_stmt *s;
  int rc;
#define HAS(k) ((p->has & (1u<<(k)))!=0)
  if( p->has==0 ) return 0;
  if( eSrc<0 || eSrc>2 ) eSrc = 0;
  if( *ppIns==NULL
      && sqlite3_prepare_v3(db, db_statement("load-collective-row"), -1,
                            SQLITE_PREPARE_PERSISTENT, ppIns,
                            NULL)!=SQLITE_OK ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(*ppIns);
    *ppIns = NULL;
    return -1;
  }
  s = *ppIns;
  sqlite3_clear_bindings(s);           /* the fields this row lacks: NULL */
  sqlite3_bind_int64(s, 1, runId);
  sqlite3_bind_int64(s, 2, rank);
  sqlite3_bind_int64(s, 3, fileId);
  sqlite3_bind_text(s, 4, azSrc[eSrc], -1, SQLITE_STATIC);
  sqlite3_bind_int64(s, 5, rowId);
  if( HAS(CA_COLL_NAME) ){
    sqlite3_bind_text(s, 6, p->zCollName, -1, SQLITE_STATIC);
  }
  if( HAS(CA_DTYPE) ) sqlite3_bind_text(s, 7, p->zDtype, -1, SQLITE_STATIC);
  if( HAS(CA_IN_NELEMS) ) sqlite3_bind_int64(s, 8, p->inNelems);
  if( HAS(CA_OUT_NELEMS) ) sqlite3_bind_int64(s, 9, p->outNelems);
  if( HAS(CA_GROUP_SIZE) ) sqlite3_bind_int64(s, 10, p->groupSize);
  if( HAS(CA_PG_NAME) ) sqlite3_bind_text(s, 11, p->zPgName, -1, SQLITE_STATIC);
  if( HAS(CA_PG_DESC) ) sqlite3_bind_text(s, 12, p->zPgDesc, -1, SQLITE_STATIC);
  if( HAS(CA_PG_RANKS) ){
    sqlite3_bind_text(s, 13, p->zPgRanks, -1, SQLITE_STATIC);
  }
  if( HAS(CA_IN_SPLIT) ){
    sqlite3_bind_text(s, 14, p->zInSplit, -1, SQLITE_STATIC);
  }
  if( HAS(CA_OUT_SPLIT) ){
    sqlite3_bind_text(s, 15, p->zOutSplit, -1, SQLITE_STATIC);
  }
  if( HAS(CA_SRC_RANK) ) sqlite3_bind_int64(s, 16, p->srcRank);
  if( HAS(CA_DST_RANK) ) sqlite3_bind_int64(s, 17, p->dstRank);
  if( HAS(CA_SEQ) ) sqlite3_bind_int64(s, 18, p->seq);
#undef HAS
  rc = sqlite3_step(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
  }
  sqlite3_reset(s);
  return rc==SQLITE_DONE ? 0 : -1;
}

/* ------------------------------------------------------ vocabulary */

/* Lower-case copy of z[0..n) without '_', ' ' and a "nccl:" prefix. */
static void squash(const char *z, size_t n, char *zOut, size_t nOut){
  size_t j = 0;
  if( n>=5 && memcmp(z, "nccl:", 5)==0 ){ z += 5; n -= 5; }
  for(size_t i=0; i<n && j+1<nOut; i++){
    char c = z[i];
    if( c=='_' || c==' ' ) continue;
    if( c>='A' && c<='Z' ) c = (char)(c - 'A' + 'a');
    zOut[j++] = c;
  }
  zOut[j] = 0;
}

const char *load_collective_op_name(const char *z, size_t n){
  static const struct { const char *zSub; const char *zOp; } a[] = {
    {"allreduce", "all_reduce"}, {"allgather", "all_gather"},
    {"reducescatter", "reduce_scatter"}, {"alltoall", "all_to_all"},
    {"broadcast", "broadcast"}, {"barrier", "barrier"},
    {"sendrecv", "send_recv"}, {"send", "send"}, {"recv", "recv"},
    {"gather", "gather"}, {"scatter", "scatter"}, {"reduce", "reduce"},
  };
  char buf[64];
  if( z==NULL ) return "other";
  squash(z, n, buf, sizeof(buf));
  for(size_t i=0; i<sizeof(a)/sizeof(a[0]); i++){
    if( strstr(buf, a[i].zSub) ) return a[i].zOp;
  }
  return "other";
}

const char *load_collective_dtype(const char *z, size_t n, int *pSize){
  static const struct { const char *z; const char *zName; int size; } a[] = {
    {"float", "float32", 4}, {"float32", "float32", 4}, {"f32", "float32", 4},
    {"double", "float64", 8}, {"float64", "float64", 8}, {"f64", "float64", 8},
    {"half", "float16", 2}, {"float16", "float16", 2}, {"f16", "float16", 2},
    {"c10::half", "float16", 2},
    {"bfloat16", "bfloat16", 2}, {"c10::bfloat16", "bfloat16", 2},
    {"__nv_bfloat16", "bfloat16", 2}, {"hip_bfloat16", "bfloat16", 2},
    {"rccl_bfloat16", "bfloat16", 2}, {"bf16", "bfloat16", 2},
    {"long", "int64", 8}, {"long int", "int64", 8}, {"int64", "int64", 8},
    {"int64_t", "int64", 8}, {"i64", "int64", 8},
    {"uint64", "uint64", 8}, {"uint64_t", "uint64", 8}, {"u64", "uint64", 8},
    {"unsigned long", "uint64", 8},
    {"int", "int32", 4}, {"int32", "int32", 4}, {"int32_t", "int32", 4},
    {"i32", "int32", 4},
    {"uint32", "uint32", 4}, {"uint32_t", "uint32", 4}, {"u32", "uint32", 4},
    {"unsigned int", "uint32", 4},
    {"short", "int16", 2}, {"short int", "int16", 2}, {"int16", "int16", 2},
    {"char", "int8", 1}, {"signed char", "int8", 1}, {"int8", "int8", 1},
    {"int8_t", "int8", 1}, {"i8", "int8", 1},
    {"byte", "uint8", 1}, {"unsigned char", "uint8", 1},
    {"uint8", "uint8", 1}, {"uint8_t", "uint8", 1}, {"u8", "uint8", 1},
    {"bool", "bool", 1},
    {"float8_e4m3fn", "fp8_e4m3", 1}, {"c10::float8_e4m3fn", "fp8_e4m3", 1},
    {"__nv_fp8_e4m3", "fp8_e4m3", 1}, {"f8e4m3", "fp8_e4m3", 1},
    {"fp8_e4m3", "fp8_e4m3", 1},
    {"float8_e5m2", "fp8_e5m2", 1}, {"c10::float8_e5m2", "fp8_e5m2", 1},
    {"__nv_fp8_e5m2", "fp8_e5m2", 1}, {"f8e5m2", "fp8_e5m2", 1},
    {"fp8_e5m2", "fp8_e5m2", 1},
    {"complexfloat", "complex64", 8}, {"c10::complex<float>", "complex64", 8},
  };
  char buf[48];
  size_t j;
  *pSize = 0;
  if( z==NULL || n==0 || n>=sizeof(buf) ) return NULL;
  for(j=0; j<n; j++){
    char c = z[j];
    buf[j] = (c>='A' && c<='Z') ? (char)(c-'A'+'a') : c;
  }
  buf[j] = 0;
  for(size_t i=0; i<sizeof(a)/sizeof(a[0]); i++){
    if( strcmp(buf, a[i].z)==0 ){
      *pSize = a[i].size;
      return a[i].zName;
    }
  }
  return NULL;
}

/* Does [p, e) start with token zTok followed by '_' or e? */
static int tok_is(const char *p, const char *e, const char *zTok){
  size_t n = strlen(zTok);
  return (size_t)(e-p)>=n && memcmp(p, zTok, n)==0
         && (p+n==e || p[n]=='_');
}

int load_collective_parse_kernel(const char *zName, const char **pzOp,
                            const char **pzAlgo, const char **pzProto,
                            const char **pzDtype, int *pElemSize){
  static const char *const azAlgo[] = {"COLLNET_DIRECT", "COLLNET_CHAIN",
    "NVLS_TREE", "COLLNET", "NVLS", "RING", "TREE", "PAT", 0};
  static const char *const azProto[] = {"LL128", "LL", "SIMPLE", 0};
  static const char *const azRedop[] = {"Sum", "Prod", "Min", "Max",
    "PreMulSum", "SumPostDiv", "Avg", 0};
  const char *p, *e;
  *pzOp = *pzAlgo = *pzProto = *pzDtype = NULL;
  *pElemSize = 0;
  if( zName==NULL ) return 0;
  if( strncmp(zName, "ncclKernel_", 11)==0 ) p = zName + 11;
  else if( strncmp(zName, "ncclDevKernel_", 14)==0 ) p = zName + 14;
  else return 0;
  e = p;
  while( *e && *e!='(' ) e++;
  if( tok_is(p, e, "Generic") ){
    *pzOp = "other";
    return 1;
  }
  {
    const char *t = p;
    while( t<e && *t!='_' ) t++;
    *pzOp = load_collective_op_name(p, (size_t)(t-p));
    p = t<e ? t+1 : e;
  }
  while( p<e ){
    const char *t;
    int k, hit = 0;
    for(k=0; azAlgo[k] && !hit; k++){
      if( *pzAlgo==NULL && tok_is(p, e, azAlgo[k]) ){
        *pzAlgo = azAlgo[k];
        p += strlen(azAlgo[k]);
        hit = 1;
      }
    }
    for(k=0; azProto[k] && !hit; k++){
      if( *pzProto==NULL && tok_is(p, e, azProto[k]) ){
        *pzProto = azProto[k];
        p += strlen(azProto[k]);
        hit = 1;
      }
    }
    for(k=0; azRedop[k] && !hit; k++){
      if( tok_is(p, e, azRedop[k]) ){ p += strlen(azRedop[k]); hit = 1; }
    }
    if( !hit && *pzDtype==NULL ){
      /* the type: the rest of the name (old form: "int8_t",
      ** "__nv_bfloat16"), else one token (new form: "f32") */
      int sz;
      const char *zD = load_collective_dtype(p, (size_t)(e-p), &sz);
      if( zD ){
        *pzDtype = zD; *pElemSize = sz; p = e; hit = 1;
      }else{
        for(t=p; t<e && *t!='_'; t++){}
        zD = load_collective_dtype(p, (size_t)(t-p), &sz);
        if( zD ){ *pzDtype = zD; *pElemSize = sz; p = t; hit = 1; }
      }
    }
    if( !hit ){
      for(t=p; t<e && *t!='_'; t++){}
      p = t;
    }
    if( p<e && *p=='_' ) p++;
  }
  return 1;
}

double load_collective_bus_factor(const char *zOp, int64_t n){
  if( zOp==NULL || n<1 ) return 1.0;
  if( strcmp(zOp, "all_reduce")==0 ) return 2.0*(double)(n-1)/(double)n;
  if( strcmp(zOp, "all_gather")==0 || strcmp(zOp, "reduce_scatter")==0
      || strcmp(zOp, "all_to_all")==0 ){
    return (double)(n-1)/(double)n;
  }
  return 1.0;
}
