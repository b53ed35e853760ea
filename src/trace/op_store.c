/*
** op_store.c — a run's operator calls kept in memory while the rows are
** loaded (see op_store.h): signatures, GPU intervals per call, counts of
** kernels without a launch; written to op_sig, op_gpu_time and
** op_run_metric at derive time with the values of the views
** op_sig_calc, op_call_time_calc and kernel_unlaunched.
**
** Pipeline position: hooks in the writer (load_trace.c), derive in
** derive_op.c.  Op ids are the in-stream linker's idBase + seq
** (link_trace.c, trace_ids.h), so each file keeps a dense array indexed
** by seq; the GPU rows go to a spool per file (memory up to
** OP_STORE_BUDGET bytes for the store, then temporary files), read back
** and sorted by call when the calls are written.
*/
#include "trace/op_store.h"
#include "core/db.h"
#include "core/spool.h"
#include "core/msort.h"
#include "trace/trace_ids.h"

#include <stdlib.h>
#include <string.h>

typedef struct OpCall {
  int32_t sig;           /* index in aSig, -1 until the cpu_op row */
  int32_t agg;           /* index in the file's aAgg, -1: no GPU row */
} OpCall;

typedef struct OpAgg {   /* the GPU rows of one call */
  int64_t sum;           /* sum of durations */
  int64_t dev;           /* min device, when hasDev */
  int32_t n, host;
  uint8_t hasDev, tf32;
} OpAgg;

/* A GPU row of call seq (its index in aCall), in the file's spool. */
typedef struct OpRec { int64_t seq, ts, te; } OpRec;

typedef struct OpFile {
  int64_t fileId, rank;
  int64_t idBase, idLast; /* its op ids: idBase + seq (trace_ids.h) */
  int64_t nFrac;         /* GPU rows whose duration is not whole µs */
  int hasRank;
  OpCall *aCall;
  size_t nCall, nCallAlloc;
  OpAgg *aAgg;
  size_t nAgg, nAggAlloc;
  Spool rec;             /* OpRec of every GPU row with an op */
  int64_t nRec;
} OpFile;

typedef struct OpSig { int64_t name, dims, types, conc, id; } OpSig;

typedef struct NameFlag { int64_t name; int flag; } NameFlag;

struct OpStore {
  OpFile *aFile;
  int nFile, nFileAlloc, iLast;
  OpSig *aSig;           /* distinct signatures */
  size_t nSig, nSigAlloc;
  int32_t *aSigHash;     /* open addressing: index+1 in aSig, 0 empty */
  size_t nSigHash;       /* power of two */
  NameFlag *aName;       /* TF32 flag per kernel name id, open addressing */
  size_t nName, nNameHash;
  char **azPat;          /* op_tf32_kernel's patterns */
  int nPat;
  int64_t nKernel, nNoRt, nsNoRt, nMemcpy;
  const char *zBad;      /* why the calls cannot be written, or NULL */
  int64_t badId;         /* the row id it is about */
  SpoolBudget budget;    /* memory of the files' record spools */
  sqlite3 *db;           /* where the files' id ranges are read */
};

/* Bytes of GPU records the store keeps in memory (PROFAN_SPOOL_KB sets
** it for every spool); past it they go to temporary files. */
#define OP_STORE_BUDGET ((int64_t)32<<20)

OpStore *op_store_new(void){
  OpStore *p = xcalloc(1, sizeof(OpStore));
  spool_budget_init(&p->budget, OP_STORE_BUDGET);
  return p;
}

/* Everything but the counters and the patterns. */
static void store_clear(OpStore *p){
  for(int i=0; i<p->nFile; i++){
    free(p->aFile[i].aCall);
    free(p->aFile[i].aAgg);
    spool_free(&p->aFile[i].rec);
  }
  free(p->aFile);
  free(p->aSig);
  free(p->aSigHash);
  free(p->aName);
  p->aFile = NULL;
  p->aSig = NULL;
  p->aSigHash = NULL;
  p->aName = NULL;
  p->nFile = p->nFileAlloc = 0;
  p->nSig = p->nSigAlloc = p->nSigHash = p->nName = p->nNameHash = 0;
}

void op_store_free(OpStore *p){
  if( p==NULL ) return;
  store_clear(p);
  for(int i=0; i<p->nPat; i++) free(p->azPat[i]);
  free(p->azPat);
  free(p);
}

/* The store cannot be written: zWhy (about row id).  The first reason
** stays. */
static void store_bad(OpStore *p, const char *zWhy, int64_t id){
  if( p->zBad ) return;
  p->zBad = zWhy;
  p->badId = id;
}

int op_store_has_memcpy(const OpStore *p){ return p->nMemcpy>0; }

void op_store_begin(OpStore *p, sqlite3 *db){
  sqlite3_stmt *s = NULL;
  if( p==NULL ) return;
  p->db = db;
  if( sqlite3_prepare_v2(db, "SELECT pattern FROM op_tf32_kernel", -1, &s,
                         NULL)!=SQLITE_OK ){
    store_bad(p, "cannot read op_tf32_kernel", 0);
    return;
  }
  while( sqlite3_step(s)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(s, 0);
    if( z==NULL ) continue;
    p->azPat = xrealloc(p->azPat, (size_t)(p->nPat+1)*sizeof(char*));
    p->azPat[p->nPat] = xmalloc(strlen(z)+1);
    memcpy(p->azPat[p->nPat++], z, strlen(z)+1);
  }
  if( sqlite3_finalize(s)!=SQLITE_OK ){
    store_bad(p, "cannot read op_tf32_kernel", 0);
  }
}

/* Grow array *pa of *pnAlloc elements of sz bytes to hold n. */
static void grow(void **pa, size_t *pnAlloc, size_t n, size_t sz){
  size_t nNew;
  if( n<=*pnAlloc ) return;
  nNew = *pnAlloc ? *pnAlloc*2 : 256;
  while( nNew<n ) nNew *= 2;
  *pa = xrealloc(*pa, nNew*sz);
  *pnAlloc = nNew;
}

/* The state of file fileId, created when new. */
static OpFile *op_file(OpStore *p, int64_t fileId){
  OpFile *f;
  if( p->iLast<p->nFile && p->aFile[p->iLast].fileId==fileId ){
    return &p->aFile[p->iLast];
  }
  for(int i=0; i<p->nFile; i++){
    if( p->aFile[i].fileId==fileId ){
      p->iLast = i;
      return &p->aFile[i];
    }
  }
  if( p->nFile==p->nFileAlloc ){
    p->nFileAlloc = p->nFileAlloc ? 2*p->nFileAlloc : 4;
    p->aFile = xrealloc(p->aFile, (size_t)p->nFileAlloc*sizeof(OpFile));
  }
  f = &p->aFile[p->nFile];
  memset(f, 0, sizeof(*f));
  f->fileId = fileId;
  spool_init(&f->rec, &p->budget);
  p->iLast = p->nFile++;
  if( p->db==NULL || trace_ids_range(p->db, fileId, &f->idBase, &f->idLast,
                                     &(PfError){0}) ){
    store_bad(p, "a trace file without its row id range", fileId);
    f->idBase = f->idLast = 0;
  }
  return f;
}

/* The call of op id opId in file f, created when new (NULL: not an id
** the linker made for f). */
static OpCall *op_call(OpStore *p, OpFile *f, int64_t opId){
  int64_t seq = opId - f->idBase;
  if( opId>f->idLast || seq<1 || seq>INT32_MAX ){
    store_bad(p, "an op id not made by the trace linker", opId);
    return NULL;
  }
  if( (size_t)seq>f->nCall ){
    grow((void**)&f->aCall, &f->nCallAlloc, (size_t)seq, sizeof(OpCall));
    for(size_t i=f->nCall; i<(size_t)seq; i++){
      f->aCall[i].sig = f->aCall[i].agg = -1;
    }
    f->nCall = (size_t)seq;
  }
  return &f->aCall[seq-1];
}

static size_t hash4(int64_t a, int64_t b, int64_t c, int64_t d){
  uint64_t h = (uint64_t)a*0x9E3779B97F4A7C15ull;
  h = (h ^ (uint64_t)b)*0xC2B2AE3D27D4EB4Full;
  h = (h ^ (uint64_t)c)*0x165667B19E3779F9ull;
  h = (h ^ (uint64_t)d)*0x9E3779B97F4A7C15ull;
  return (size_t)(h ^ (h>>29));
}

/* Rebuild the signature hash at twice the size. */
static void sig_rehash(OpStore *p){
  size_t n = p->nSigHash ? 2*p->nSigHash : 1024;
  free(p->aSigHash);
  p->aSigHash = xcalloc(n, sizeof(int32_t));
  p->nSigHash = n;
  for(size_t i=0; i<p->nSig; i++){
    const OpSig *g = &p->aSig[i];
    size_t h = hash4(g->name, g->dims, g->types, g->conc) & (n-1);
    while( p->aSigHash[h] ) h = (h+1) & (n-1);
    p->aSigHash[h] = (int32_t)i+1;
  }
}

/* The index of signature (a, b, c, d) in aSig, added when new; -1: too
** many. */
static int32_t sig_index(OpStore *p, int64_t a, int64_t b, int64_t c,
                         int64_t d){
  size_t h;
  if( 2*(p->nSig+1)>p->nSigHash ) sig_rehash(p);
  h = hash4(a, b, c, d) & (p->nSigHash-1);
  while( p->aSigHash[h] ){
    const OpSig *g = &p->aSig[p->aSigHash[h]-1];
    if( g->name==a && g->dims==b && g->types==c && g->conc==d ){
      return p->aSigHash[h]-1;
    }
    h = (h+1) & (p->nSigHash-1);
  }
  if( p->nSig>=INT32_MAX-1 ){
    store_bad(p, "more than 2^31 operator signatures", 0);
    return -1;
  }
  grow((void**)&p->aSig, &p->nSigAlloc, p->nSig+1, sizeof(OpSig));
  p->aSig[p->nSig].name = a;
  p->aSig[p->nSig].dims = b;
  p->aSig[p->nSig].types = c;
  p->aSig[p->nSig].conc = d;
  p->aSig[p->nSig].id = 0;
  p->aSigHash[h] = (int32_t)++p->nSig;
  return (int32_t)p->nSig-1;
}

void op_store_cpu(OpStore *p, int64_t fileId, int64_t opId, int64_t nameId,
                  int64_t dimsId, int64_t typesId, int64_t concId){
  OpFile *f;
  OpCall *c;
  int32_t g;
  if( p==NULL ) return;
  if( (f = op_file(p, fileId))==NULL || (c = op_call(p, f, opId))==NULL ){
    return;
  }
  if( (g = sig_index(p, nameId, dimsId, typesId, concId))<0 ) return;
  c->sig = g;
}

/* 1 when kernel name zName (n bytes), lower-cased, matches a TF32
** pattern: the view's lower(text) GLOB pattern (ASCII lower()). */
static int name_tf32(OpStore *p, const char *zName, int64_t n){
  char buf[512];
  char *z = n<(int64_t)sizeof(buf) ? buf : xmalloc((size_t)n+1);
  int r = 0;
  for(int64_t i=0; i<n; i++){
    char ch = zName[i];
    z[i] = (ch>='A' && ch<='Z') ? (char)(ch+32) : ch;
  }
  z[n] = 0;
  for(int i=0; i<p->nPat && !r; i++) r = sqlite3_strglob(p->azPat[i], z)==0;
  if( z!=buf ) free(z);
  return r;
}

/* The TF32 flag of kernel name id nameId (computed once per name). */
static int kernel_tf32(OpStore *p, int64_t nameId, const char *zName,
                       int64_t nName){
  size_t h;
  if( 2*(p->nName+1)>p->nNameHash ){
    size_t n = p->nNameHash ? 2*p->nNameHash : 256;
    NameFlag *a = xcalloc(n, sizeof(NameFlag));
    for(size_t i=0; i<p->nNameHash; i++){
      if( p->aName[i].name==0 ) continue;
      h = hash4(p->aName[i].name, 0, 0, 0) & (n-1);
      while( a[h].name ) h = (h+1) & (n-1);
      a[h] = p->aName[i];
    }
    free(p->aName);
    p->aName = a;
    p->nNameHash = n;
  }
  h = hash4(nameId, 0, 0, 0) & (p->nNameHash-1);
  while( p->aName[h].name ){
    if( p->aName[h].name==nameId ) return p->aName[h].flag;
    h = (h+1) & (p->nNameHash-1);
  }
  p->aName[h].name = nameId;
  p->aName[h].flag = name_tf32(p, zName, nName);
  p->nName++;
  return p->aName[h].flag;
}

/* Add the GPU row r to call c's aggregate and to the file's records. */
static void add_gpu(OpStore *p, OpFile *f, OpCall *c, const OpGpuRow *r){
  OpAgg *a;
  OpRec q;
  if( f->nAgg>=INT32_MAX ){
    store_bad(p, "more than 2^31 ops launched GPU rows in one file", 0);
    return;
  }
  if( c->agg<0 ){
    grow((void**)&f->aAgg, &f->nAggAlloc, f->nAgg+1, sizeof(OpAgg));
    c->agg = (int32_t)f->nAgg++;
    memset(&f->aAgg[c->agg], 0, sizeof(OpAgg));
  }
  q.seq = (int64_t)(c - f->aCall);
  q.ts = r->ts;
  q.te = r->ts + r->dur;
  if( spool_append(&f->rec, &q, sizeof(q)) ){
    store_bad(p, "cannot write a temporary file", r->opId);
    return;
  }
  f->nRec++;
  a = &f->aAgg[c->agg];
  a->n++;
  a->sum += r->dur;
  a->host += r->host;
  if( r->hasDev && (!a->hasDev || r->device<a->dev) ){
    a->dev = r->device;
    a->hasDev = 1;
  }
  if( r->isKernel && !a->tf32 ){
    a->tf32 = (uint8_t)kernel_tf32(p, r->nameId, r->zName, r->nName);
  }
}

void op_store_gpu(OpStore *p, int64_t fileId, const OpGpuRow *r){
  OpFile *f;
  OpCall *c;
  if( p==NULL ) return;
  if( r->isKernel ){
    p->nKernel++;
    if( !r->hasRuntime ){
      p->nNoRt++;
      p->nsNoRt += r->dur;
    }
  }
  if( r->isMemcpy ) p->nMemcpy++;
  if( r->dur%1000!=0 ){                 /* the file is not whole-µs */
    if( (f = op_file(p, fileId))==NULL ) return;
    f->nFrac++;
  }
  if( r->opId<=0 ) return;
  if( (f = op_file(p, fileId))==NULL || (c = op_call(p, f, r->opId))==NULL ){
    return;
  }
  add_gpu(p, f, c, r);
}

void op_store_file_done(OpStore *p, int64_t fileId, int64_t rank){
  OpFile *f;
  if( p==NULL ) return;
  if( (f = op_file(p, fileId))==NULL ) return;
  f->rank = rank;
  f->hasRank = 1;
}

int op_store_check(const OpStore *p, PfError *pErr){
  if( p->zBad ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "operator calls: %s (row %lld)",
                 p->zBad, (long long)p->badId);
    return -1;
  }
  for(int i=0; i<p->nFile; i++){
    const OpFile *f = &p->aFile[i];
    if( !f->hasRank ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "operator calls: file %lld has no"
                   " rank", (long long)f->fileId);
      return -1;
    }
    for(size_t j=0; j<f->nCall; j++){
      if( f->aCall[j].agg>=0 && f->aCall[j].sig<0 ){
        pf_error_set(pErr, ERRPOS_NONE, 0, "operator calls: GPU rows of op"
                     " %lld, which is not in the run",
                     (long long)(f->idBase + (int64_t)j + 1));
        return -1;
      }
    }
  }
  return 0;
}

/* op_sig's id of every signature of the run, inserting the new ones (not
** modeled).  Returns 0 or -1 with pErr set. */
static int write_sigs(OpStore *p, sqlite3 *db, PfError *pErr){
  sqlite3_stmt *pIns = db_prepare(db,
    db_statement("op-store-insert-op-sig"), pErr);
  sqlite3_stmt *pSel = pIns ? db_prepare(db,
    db_statement("op-store-select-op-sig"), pErr) : NULL;
  int rc = pSel ? 0 : -1;
  for(size_t i=0; i<p->nSig && rc==0; i++){
    OpSig *g = &p->aSig[i];
    sqlite3_stmt *s = pIns;
    sqlite3_bind_int64(s, 1, g->name);
    sqlite3_bind_int64(s, 2, g->dims);
    sqlite3_bind_int64(s, 3, g->types);
    sqlite3_bind_int64(s, 4, g->conc);
    if( sqlite3_step(pIns)!=SQLITE_DONE ) rc = -1;
    else if( sqlite3_changes(db)==1 ) g->id = sqlite3_last_insert_rowid(db);
    else{
      s = pSel;
      sqlite3_bind_int64(s, 1, g->name);
      sqlite3_bind_int64(s, 2, g->dims);
      sqlite3_bind_int64(s, 3, g->types);
      sqlite3_bind_int64(s, 4, g->conc);
      if( sqlite3_step(s)!=SQLITE_ROW ) rc = -1;
      else g->id = sqlite3_column_int64(s, 0);
      sqlite3_reset(s);
    }
    sqlite3_reset(pIns);
  }
  if( rc ) pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s",
                         sqlite3_errmsg(db));
  sqlite3_finalize(pIns);
  sqlite3_finalize(pSel);
  return rc;
}

static int cmp_rec(const OpRec *x, const OpRec *y){
  if( x->seq!=y->seq ) return x->seq<y->seq ? -1 : 1;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->te<y->te ? -1 : x->te>y->te;
}
DEFINE_MSORT(sort_rec, OpRec, cmp_rec)

/* |union| of the records a[0..n) of one call, in (ts, te) order: the
** view's running maximum. */
static int64_t rec_union(const OpRec *a, size_t n){
  int64_t u = 0, prev = 0;
  for(size_t i=0; i<n; i++){
    int64_t lo = (i==0 || prev<a[i].ts) ? a[i].ts : prev;
    if( a[i].te>lo ) u += a[i].te - lo;
    if( i==0 || a[i].te>prev ) prev = a[i].te;
  }
  return u;
}

/* File f's records, sorted by (call, ts, te), in a new array (caller
** frees); NULL when the spool cannot be read. */
static OpRec *file_records(OpFile *f){
  OpRec *a = xmalloc(((size_t)f->nRec+1)*sizeof(OpRec));
  size_t per = ((size_t)1<<20)/sizeof(OpRec);
  for(size_t i=0; i<(size_t)f->nRec; i+=per){
    size_t n = (size_t)f->nRec-i<per ? (size_t)f->nRec-i : per;
    const char *z = spool_get(&f->rec, (int64_t)(i*sizeof(OpRec)),
                              n*sizeof(OpRec));
    if( z==NULL ){ free(a); return NULL; }
    memcpy(a+i, z, n*sizeof(OpRec));
  }
  /* sorted already when the GPU rows came in op order: no sort then */
  for(size_t i=1; i<(size_t)f->nRec; i++){
    if( cmp_rec(&a[i-1], &a[i])>0 ){
      sort_rec(a, (size_t)f->nRec);
      break;
    }
  }
  return a;
}

static int cmp_file(const void *a, const void *b){
  const OpFile *x = a, *y = b;
  return x->fileId<y->fileId ? -1 : x->fileId>y->fileId;
}

/* Insert file f's op_gpu_time rows with statement s.  Returns 0, -1 on a
** database error, -2 when its records cannot be read. */
static int write_file_calls(const OpStore *p, OpFile *f, sqlite3_stmt *s){
  OpRec *aRec = file_records(f);
  size_t k = 0;
  if( aRec==NULL ) return -2;
  for(size_t j=0; j<f->nCall; j++){
    const OpCall *c = &f->aCall[j];
    const OpAgg *a;
    const OpSig *g;
    size_t k0;
    if( c->agg<0 ) continue;
    a = &f->aAgg[c->agg];
    g = &p->aSig[c->sig];
    while( k<(size_t)f->nRec && aRec[k].seq<(int64_t)j ) k++;
    for(k0=k; k<(size_t)f->nRec && aRec[k].seq==(int64_t)j; k++){}
    sqlite3_bind_int64(s, 1, f->idBase + (int64_t)j + 1);
    sqlite3_bind_int64(s, 3, f->rank);
    sqlite3_bind_int64(s, 4, g->name);
    if( a->hasDev ) sqlite3_bind_int64(s, 5, a->dev);
    else sqlite3_bind_null(s, 5);
    sqlite3_bind_int64(s, 6, a->n);
    sqlite3_bind_int64(s, 7, rec_union(aRec+k0, k-k0));
    sqlite3_bind_int64(s, 8, a->sum);
    sqlite3_bind_int64(s, 9, a->host);
    sqlite3_bind_int64(s, 10, a->tf32);
    sqlite3_bind_int64(s, 11, g->id);
    /* op_call_time_calc's whole_us: every GPU row of a file that
    ** records whole µs */
    sqlite3_bind_int64(s, 12, f->nFrac==0 ? a->n : 0);
    if( sqlite3_step(s)!=SQLITE_DONE ){
      sqlite3_reset(s);
      free(aRec);
      return -1;
    }
    sqlite3_reset(s);
  }
  free(aRec);
  return 0;
}

int op_store_write_calls(OpStore *p, sqlite3 *db, int64_t runId,
                         PfError *pErr){
  sqlite3_stmt *s;
  int rc = 0;
  if( write_sigs(p, db, pErr) ) return -1;
  s = db_prepare(db,
    db_statement("op-store-write-calls"), pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 2, runId);
  qsort(p->aFile, (size_t)p->nFile, sizeof(OpFile), cmp_file);
  p->iLast = 0;
  for(int i=0; i<p->nFile && rc==0; i++){
    rc = write_file_calls(p, &p->aFile[i], s);
  }
  if( rc==-2 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "operator calls: cannot read a"
                 " temporary file");
  }else if( rc ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(s);
  return rc ? -1 : 0;
}

int op_store_write_unlaunched(const OpStore *p, sqlite3 *db, int64_t runId,
                              PfError *pErr){
  sqlite3_stmt *s;
  int rc = 0;
  if( p->nKernel==0 ) return 0;       /* kernel_unlaunched has no row */
  s = db_prepare(db, db_statement("op-store-write-unlaunched"), pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  sqlite3_bind_int64(s, 2, p->nNoRt);
  sqlite3_bind_double(s, 3, (double)p->nsNoRt/1e6);
  if( sqlite3_step(s)!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s",
                         sqlite3_errmsg(db));
    rc = -1;
  }
  sqlite3_finalize(s);
  return rc;
}
