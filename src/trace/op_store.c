/*
** op_store.c — a run's operator calls kept in memory while the rows are
** loaded (see op_store.h): signatures, GPU intervals per call, counts of
** kernels without a launch; written to op_sig, op_gpu_time and
** op_run_metric at derive time with the values of the views
** op_sig_calc, op_call_time_calc and kernel_unlaunched.
**
** Pipeline position: hooks in the writer (load_trace.c), derive in
** derive_op.c.  Op ids are the in-stream linker's (fileId<<32) + seq
** (link_trace.c), so each file keeps a dense array indexed by seq.
*/
#include "trace/op_store.h"
#include "core/db.h"

#include <stdlib.h>
#include <string.h>

typedef struct OpCall {
  int32_t sig;           /* index in aSig, -1 until the cpu_op row */
  int32_t agg;           /* index in the file's aAgg, -1: no GPU row */
} OpCall;

typedef struct OpAgg {   /* the GPU rows of one call */
  int64_t sum;           /* sum of durations */
  int32_t n, host;
  int32_t dev;           /* min device, when hasDev */
  int32_t head, tail;    /* its records in aRec (next: the chain) */
  uint8_t hasDev, tf32;
} OpAgg;

typedef struct OpRec { int64_t ts; uint32_t dur; int32_t next; } OpRec;

typedef struct OpFile {
  int64_t fileId, rank;
  int64_t nFrac;         /* GPU rows whose duration is not whole µs */
  int hasRank;
  OpCall *aCall;
  size_t nCall, nCallAlloc;
  OpAgg *aAgg;
  size_t nAgg, nAggAlloc;
  OpRec *aRec;
  size_t nRec, nRecAlloc;
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
  size_t nBytes, nMax;
  int off;
};

OpStore *op_store_new(void){
  OpStore *p = xcalloc(1, sizeof(*p));
  p->nMax = (size_t)OP_STORE_MAX_MB<<20;
  return p;
}

/* Everything but the counters and the patterns. */
static void store_clear(OpStore *p){
  for(int i=0; i<p->nFile; i++){
    free(p->aFile[i].aCall);
    free(p->aFile[i].aAgg);
    free(p->aFile[i].aRec);
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

static void give_up(OpStore *p){
  if( p->off ) return;
  store_clear(p);
  p->off = 1;
}

int op_store_has_memcpy(const OpStore *p){ return p->nMemcpy>0; }

void op_store_begin(OpStore *p, sqlite3 *db){
  sqlite3_stmt *s = NULL;
  if( p==NULL || p->off ) return;
  if( sqlite3_prepare_v2(db, "SELECT pattern FROM op_tf32_kernel", -1, &s,
                         NULL)!=SQLITE_OK ){
    give_up(p);
    return;
  }
  while( sqlite3_step(s)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(s, 0);
    if( z==NULL ) continue;
    p->azPat = xrealloc(p->azPat, (size_t)(p->nPat+1)*sizeof(char*));
    p->azPat[p->nPat] = xmalloc(strlen(z)+1);
    memcpy(p->azPat[p->nPat++], z, strlen(z)+1);
  }
  if( sqlite3_finalize(s)!=SQLITE_OK ) give_up(p);
}

/* Grow array *pa of *pnAlloc elements of sz bytes to hold n; counts the
** bytes against the cap.  Returns 0, or -1 when the store gave up. */
static int grow(OpStore *p, void **pa, size_t *pnAlloc, size_t n,
                size_t sz){
  size_t nNew;
  if( n<=*pnAlloc ) return 0;
  nNew = *pnAlloc ? *pnAlloc*2 : 256;
  while( nNew<n ) nNew *= 2;
  p->nBytes += (nNew - *pnAlloc)*sz;
  if( p->nBytes>p->nMax ){
    give_up(p);
    return -1;
  }
  *pa = xrealloc(*pa, nNew*sz);
  *pnAlloc = nNew;
  return 0;
}

/* The state of file fileId, created when new (NULL: gave up). */
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
  p->iLast = p->nFile++;
  return f;
}

/* The call of op id opId in file f, created when new (NULL: gave up). */
static OpCall *op_call(OpStore *p, OpFile *f, int64_t opId){
  int64_t seq = opId - (f->fileId<<32);
  if( (opId>>32)!=f->fileId || seq<1 || seq>INT32_MAX ){
    give_up(p);
    return NULL;
  }
  if( (size_t)seq>f->nCall ){
    if( grow(p, (void**)&f->aCall, &f->nCallAlloc, (size_t)seq,
             sizeof(OpCall)) ) return NULL;
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

/* The index of signature (a, b, c, d) in aSig, added when new; -1: gave
** up. */
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
  if( p->nSig>=INT32_MAX-1
      || grow(p, (void**)&p->aSig, &p->nSigAlloc, p->nSig+1, sizeof(OpSig)) ){
    give_up(p);
    return -1;
  }
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
  if( p==NULL || p->off ) return;
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

/* Add the GPU row r to its call's aggregate and records. */
static void add_gpu(OpStore *p, OpFile *f, OpCall *c, const OpGpuRow *r){
  OpAgg *a;
  OpRec *q;
  if( c->agg<0 ){
    if( f->nAgg>=INT32_MAX
        || grow(p, (void**)&f->aAgg, &f->nAggAlloc, f->nAgg+1,
                sizeof(OpAgg)) ) return;
    c->agg = (int32_t)f->nAgg++;
    memset(&f->aAgg[c->agg], 0, sizeof(OpAgg));
    f->aAgg[c->agg].head = f->aAgg[c->agg].tail = -1;
  }
  if( f->nRec>=INT32_MAX
      || grow(p, (void**)&f->aRec, &f->nRecAlloc, f->nRec+1,
              sizeof(OpRec)) ) return;
  a = &f->aAgg[c->agg];
  q = &f->aRec[f->nRec];
  q->ts = r->ts;
  q->dur = (uint32_t)r->dur;
  q->next = -1;
  if( a->tail<0 ) a->head = (int32_t)f->nRec;
  else f->aRec[a->tail].next = (int32_t)f->nRec;
  a->tail = (int32_t)f->nRec++;
  a->n++;
  a->sum += r->dur;
  a->host += r->host;
  if( r->hasDev && (!a->hasDev || r->device<a->dev) ){
    a->dev = (int32_t)r->device;
    a->hasDev = 1;
  }
  if( r->isKernel && !a->tf32 ){
    a->tf32 = (uint8_t)kernel_tf32(p, r->nameId, r->zName, r->nName);
  }
}

void op_store_gpu(OpStore *p, int64_t fileId, const OpGpuRow *r){
  OpFile *f;
  OpCall *c;
  if( p==NULL || p->off ) return;
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
  if( r->dur<0 || r->dur>(int64_t)UINT32_MAX
      || (r->hasDev && (r->device<INT32_MIN || r->device>INT32_MAX)) ){
    give_up(p);
    return;
  }
  if( (f = op_file(p, fileId))==NULL || (c = op_call(p, f, r->opId))==NULL ){
    return;
  }
  add_gpu(p, f, c, r);
}

void op_store_file_done(OpStore *p, int64_t fileId, int64_t rank){
  OpFile *f;
  if( p==NULL || p->off ) return;
  if( (f = op_file(p, fileId))==NULL ) return;
  f->rank = rank;
  f->hasRank = 1;
}

/* 1 when every file has its rank and every call with GPU rows its
** signature (the writer saw its cpu_op row). */
static int store_complete(const OpStore *p){
  for(int i=0; i<p->nFile; i++){
    const OpFile *f = &p->aFile[i];
    if( !f->hasRank ) return 0;
    for(size_t j=0; j<f->nCall; j++){
      if( f->aCall[j].agg>=0 && f->aCall[j].sig<0 ) return 0;
    }
  }
  return 1;
}

int op_store_usable(const OpStore *p){
  return p!=NULL && !p->off && store_complete(p);
}

/* op_sig's id of every signature of the run, inserting the new ones (not
** modeled).  Returns 0 or -1 with pErr set. */
static int write_sigs(OpStore *p, sqlite3 *db, PfError *pErr){
  sqlite3_stmt *pIns = db_prepare(db,
    "INSERT OR IGNORE INTO op_sig(name_id, dims_id, types_id, conc_id)"
    " VALUES(?1, ?2, ?3, ?4)", pErr);
  sqlite3_stmt *pSel = pIns ? db_prepare(db,
    "SELECT id FROM op_sig WHERE name_id=?1 AND dims_id=?2 AND types_id=?3"
    " AND conc_id=?4", pErr) : NULL;
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

typedef struct Iv { int64_t ts, te; } Iv;

static int cmp_iv(const void *a, const void *b){
  const Iv *x = a, *y = b;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->te<y->te ? -1 : x->te>y->te;
}

/* |union| of the records of aggregate a (the view's running maximum over
** the records in (ts, te) order); *paIv is scratch of *pnIv. */
static int64_t agg_union(const OpFile *f, const OpAgg *a, Iv **paIv,
                         size_t *pnIv){
  size_t n = 0;
  int sorted = 1;
  int64_t u = 0, prev = 0;
  if( (size_t)a->n>*pnIv ){
    *pnIv = (size_t)a->n*2;
    *paIv = xrealloc(*paIv, *pnIv*sizeof(Iv));
  }
  for(int32_t r=a->head; r>=0; r=f->aRec[r].next, n++){
    Iv *v = &(*paIv)[n];
    v->ts = f->aRec[r].ts;
    v->te = v->ts + (int64_t)f->aRec[r].dur;
    if( n>0 && cmp_iv(v-1, v)>0 ) sorted = 0;
  }
  if( !sorted ) qsort(*paIv, n, sizeof(Iv), cmp_iv);
  for(size_t i=0; i<n; i++){
    const Iv *v = &(*paIv)[i];
    int64_t lo = (i==0 || prev<v->ts) ? v->ts : prev;
    if( v->te>lo ) u += v->te - lo;
    if( i==0 || v->te>prev ) prev = v->te;
  }
  return u;
}

static int cmp_file(const void *a, const void *b){
  const OpFile *x = a, *y = b;
  return x->fileId<y->fileId ? -1 : x->fileId>y->fileId;
}

/* Insert file f's op_gpu_time rows with statement s.  Returns 0 or -1. */
static int write_file_calls(const OpStore *p, const OpFile *f,
                            sqlite3_stmt *s, Iv **paIv, size_t *pnIv){
  for(size_t j=0; j<f->nCall; j++){
    const OpCall *c = &f->aCall[j];
    const OpAgg *a;
    const OpSig *g;
    if( c->agg<0 ) continue;
    a = &f->aAgg[c->agg];
    g = &p->aSig[c->sig];
    sqlite3_bind_int64(s, 1, (f->fileId<<32) + (int64_t)j + 1);
    sqlite3_bind_int64(s, 3, f->rank);
    sqlite3_bind_int64(s, 4, g->name);
    if( a->hasDev ) sqlite3_bind_int64(s, 5, a->dev);
    else sqlite3_bind_null(s, 5);
    sqlite3_bind_int64(s, 6, a->n);
    sqlite3_bind_int64(s, 7, agg_union(f, a, paIv, pnIv));
    sqlite3_bind_int64(s, 8, a->sum);
    sqlite3_bind_int64(s, 9, a->host);
    sqlite3_bind_int64(s, 10, a->tf32);
    sqlite3_bind_int64(s, 11, g->id);
    /* op_call_time_calc's whole_us: every GPU row of a file that
    ** records whole µs */
    sqlite3_bind_int64(s, 12, f->nFrac==0 ? a->n : 0);
    if( sqlite3_step(s)!=SQLITE_DONE ){
      sqlite3_reset(s);
      return -1;
    }
    sqlite3_reset(s);
  }
  return 0;
}

int op_store_write_calls(OpStore *p, sqlite3 *db, int64_t runId,
                         PfError *pErr){
  sqlite3_stmt *s;
  Iv *aIv = NULL;
  size_t nIv = 0;
  int rc = 0;
  if( write_sigs(p, db, pErr) ) return -1;
  s = db_prepare(db,
    "INSERT INTO op_gpu_time(op_id, run_id, rank, name_id, device, n_gpu,"
    " union_ns, sum_ns, host_copies, tf32, sig_id, whole_us)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)", pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 2, runId);
  qsort(p->aFile, (size_t)p->nFile, sizeof(OpFile), cmp_file);
  p->iLast = 0;
  for(int i=0; i<p->nFile && rc==0; i++){
    rc = write_file_calls(p, &p->aFile[i], s, &aIv, &nIv);
  }
  if( rc ) pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s",
                         sqlite3_errmsg(db));
  sqlite3_finalize(s);
  free(aIv);
  return rc;
}

int op_store_write_unlaunched(const OpStore *p, sqlite3 *db, int64_t runId,
                              PfError *pErr){
  sqlite3_stmt *s;
  int rc = 0;
  if( p->nKernel==0 ) return 0;       /* kernel_unlaunched has no row */
  s = db_prepare(db, "INSERT INTO op_run_metric(run_id, metric, value)"
                 " VALUES(?1, 'kernels_without_launch', ?2),"
                 " (?1, 'kernels_without_launch_ms', ?3)", pErr);
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
