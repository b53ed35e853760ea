/*
** load_trace.c — the trace writer: one prepared INSERT per table, bound and
** reset per event, inside the ingest's single transaction.
**
** Pipeline position: "load".  Interns names through Intern; derives a few
** per-row fields on the way in (memcpy direction, FLOP estimate).  Linkage
** columns (runtime_id, op_id, step ...) come filled from the in-stream
** linker, or stay NULL for derive_trace.c's database sweeps.  It also
** totals GPU activity per (file, kind, name) as rows go in, for
** gpu_op_summary (memory grows with the distinct names, not the rows).
*/
#include "load_trace.h"
#include "trace_args.h"

#include <stdlib.h>
#include <string.h>

enum { S_KERNEL, S_MEMOP, S_CPU_OP, S_RUNTIME, S_SYNC, S_ANNOT, S_MEMORY,
       S_PYTHON, S_DEVICE, S_N };

static const char *azInsert[S_N] = {
  "INSERT INTO kernel(run_id,rank,file_id,device,stream,ts,dur,name_id,"
  "correlation,external_id,grid_x,grid_y,grid_z,block_x,block_y,block_z,"
  "registers,shared_mem,blocks_per_sm,warps_per_sm,occupancy_pct,"
  "runtime_id,op_id,step)"
  " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,"
  "?19,?20,?21,?22,?23,?24)",
  "INSERT INTO gpu_mem_op(run_id,rank,file_id,device,stream,ts,dur,name_id,"
  "kind,direction,src_kind,dst_kind,bytes,correlation,external_id,"
  "runtime_id,op_id,step)"
  " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)",
  "INSERT INTO cpu_op(run_id,rank,file_id,pid,tid,ts,dur,name_id,"
  "external_id,sequence,fwd_tid,input_dims_id,input_types_id,"
  "concrete_inputs_id,"
  "flops,flops_source,id,parent_id,depth,self_dur,step)"
  " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,"
  "?19,?20,?21)",
  "INSERT INTO runtime_call(run_id,rank,file_id,pid,tid,ts,dur,name_id,kind,"
  "correlation,external_id,cbid,id,op_id,top_op_id,in_recompute,step)"
  " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)",
  "INSERT INTO gpu_sync(run_id,rank,file_id,device,stream,ts,dur,name_id,"
  "correlation) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)",
  "INSERT INTO annotation(run_id,rank,file_id,kind,pid,tid,ts,dur,name_id,"
  "external_id) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
  "INSERT INTO memory_event(run_id,rank,file_id,ts,name,device_type,device,"
  "addr,bytes,total_allocated,total_reserved)"
  " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)",
  "INSERT INTO python_function(run_id,rank,file_id,pid,tid,ts,dur,name_id,"
  "python_id,parent_python_id) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
  "INSERT INTO device(run_id,rank,file_id,device,name,total_mem_bytes,"
  "compute_major,compute_minor,num_sms) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)",
};

/* GPU activity totals of one (file, kind, name): a gpu_op_summary row
** before files of one rank are merged.  kind: 0 kernel, 1 memcpy,
** 2 memset; n==0 marks an empty slot. */
typedef struct SumEnt {
  int64_t fileId, nameId, rank;
  int64_t n, total, mn, mx;
  int kind;
} SumEnt;

/* Final rank of a file (rows may have gone in with a guessed one). */
typedef struct FileRank { int64_t fileId, rank; } FileRank;

struct TraceLoader {
  sqlite3 *db;
  Intern *pIntern;
  sqlite3_stmt *aStmt[S_N];
  int64_t nRows;
  SumEnt *aSum;                 /* open addressing, nSum a power of two */
  int nSum, nSumUsed;
  FileRank *aFile;
  int nFile, nFileAlloc;
};

TraceLoader *load_trace_new(sqlite3 *db, Intern *pIntern, PfError *pErr){
  TraceLoader *p = xcalloc(1, sizeof(*p));
  p->db = db;
  p->pIntern = pIntern;
  for(int i=0; i<S_N; i++){
    if( sqlite3_prepare_v3(db, azInsert[i], -1, SQLITE_PREPARE_PERSISTENT,
                           &p->aStmt[i], NULL)!=SQLITE_OK ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
      load_trace_free(p);
      return NULL;
    }
  }
  return p;
}

void load_trace_free(TraceLoader *p){
  if( p==NULL ) return;
  for(int i=0; i<S_N; i++) sqlite3_finalize(p->aStmt[i]);
  free(p->aSum);
  free(p->aFile);
  free(p);
}

/* ------------------------------------------------- gpu_op_summary totals */

static unsigned sum_slot(int64_t fileId, int kind, int64_t nameId,
                         int nSum){
  uint64_t h = (uint64_t)nameId*0x9e3779b97f4a7c15ULL
             ^ (uint64_t)(fileId*4 + kind)*0xc2b2ae3d27d4eb4fULL;
  return (unsigned)(h>>32) & (unsigned)(nSum-1);
}

static SumEnt *sum_find(SumEnt *a, int nSum, int64_t fileId, int kind,
                        int64_t nameId){
  unsigned i = sum_slot(fileId, kind, nameId, nSum);
  while( a[i].n>0 && (a[i].nameId!=nameId || a[i].fileId!=fileId
                      || a[i].kind!=kind) ){
    i = (i+1) & (unsigned)(nSum-1);
  }
  return &a[i];
}

/* Count one GPU activity of duration dur. */
static void sum_add(TraceLoader *p, int64_t fileId, int kind, int64_t nameId,
                    int64_t dur){
  SumEnt *e;
  if( (p->nSumUsed+1)*2 > p->nSum ){
    int nNew = p->nSum ? p->nSum*2 : 1024;
    SumEnt *a = xcalloc((size_t)nNew, sizeof(SumEnt));
    for(int i=0; i<p->nSum; i++){
      SumEnt *o = &p->aSum[i];
      if( o->n>0 ) *sum_find(a, nNew, o->fileId, o->kind, o->nameId) = *o;
    }
    free(p->aSum);
    p->aSum = a;
    p->nSum = nNew;
  }
  e = sum_find(p->aSum, p->nSum, fileId, kind, nameId);
  if( e->n==0 ){
    e->fileId = fileId;
    e->kind = kind;
    e->nameId = nameId;
    e->mn = e->mx = dur;
    p->nSumUsed++;
  }
  e->n++;
  e->total += dur;
  if( dur<e->mn ) e->mn = dur;
  if( dur>e->mx ) e->mx = dur;
}

void load_trace_file_rank(TraceLoader *p, int64_t fileId, int64_t rank){
  if( p->nFile==p->nFileAlloc ){
    p->nFileAlloc = p->nFileAlloc ? p->nFileAlloc*2 : 16;
    p->aFile = xrealloc(p->aFile, (size_t)p->nFileAlloc*sizeof(FileRank));
  }
  p->aFile[p->nFile].fileId = fileId;
  p->aFile[p->nFile].rank = rank;
  p->nFile++;
}

static int cmp_sum(const void *a, const void *b){
  const SumEnt *x = a, *y = b;
  if( x->rank!=y->rank ) return x->rank<y->rank ? -1 : 1;
  if( x->kind!=y->kind ) return x->kind<y->kind ? -1 : 1;
  if( x->nameId!=y->nameId ) return x->nameId<y->nameId ? -1 : 1;
  return 0;
}

int load_trace_summary(TraceLoader *p, int64_t runId, PfError *pErr){
  static const char *azKind[] = {"kernel", "memcpy", "memset"};
  sqlite3_stmt *s;
  SumEnt *a;
  int n = 0, rc = 0;
  if( p->nSumUsed==0 ) return 0;
  /* pack the used slots, give each its file's final rank, merge files of
  ** one rank */
  a = xcalloc((size_t)p->nSumUsed, sizeof(SumEnt));
  for(int i=0; i<p->nSum; i++){
    if( p->aSum[i].n==0 ) continue;
    a[n] = p->aSum[i];
    for(int k=0; k<p->nFile; k++){
      if( p->aFile[k].fileId==a[n].fileId ){
        a[n].rank = p->aFile[k].rank;
        break;
      }
    }
    n++;
  }
  qsort(a, (size_t)n, sizeof(SumEnt), cmp_sum);
  s = db_prepare(p->db,
    "INSERT INTO gpu_op_summary(run_id, rank, kind, name_id, n, total_ns,"
    " min_ns, max_ns) VALUES(?1,?2,?3,?4,?5,?6,?7,?8)", pErr);
  if( s==NULL ){ free(a); return -1; }
  for(int i=0; i<n && rc==0; ){
    SumEnt m = a[i];
    int j = i+1;
    while( j<n && cmp_sum(&a[j], &m)==0 ){
      m.n += a[j].n;
      m.total += a[j].total;
      if( a[j].mn<m.mn ) m.mn = a[j].mn;
      if( a[j].mx>m.mx ) m.mx = a[j].mx;
      j++;
    }
    sqlite3_bind_int64(s, 1, runId);
    sqlite3_bind_int64(s, 2, m.rank);
    sqlite3_bind_text(s, 3, azKind[m.kind], -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, m.nameId);
    sqlite3_bind_int64(s, 5, m.n);
    sqlite3_bind_int64(s, 6, m.total);
    sqlite3_bind_int64(s, 7, m.mn);
    sqlite3_bind_int64(s, 8, m.mx);
    if( sqlite3_step(s)!=SQLITE_DONE ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s",
                   sqlite3_errmsg(p->db));
      rc = -1;
    }
    sqlite3_reset(s);
    i = j;
  }
  sqlite3_finalize(s);
  free(a);
  return rc;
}

int64_t load_trace_rows(const TraceLoader *p){ return p->nRows; }

/* Bind the leading (run_id, rank, file_id) columns. */
static void bind_target(sqlite3_stmt *s, const TraceTarget *t){
  sqlite3_bind_int64(s, 1, t->runId);
  sqlite3_bind_int64(s, 2, t->rank);
  sqlite3_bind_int64(s, 3, t->fileId);
}

#define HAS(bit) ((e->has & (bit))!=0)

/* Bind the columns every event table starts with: (run_id, rank, file_id,
** place1, place2, ts, dur, name_id), where the places are device/stream
** for GPU rows and pid/tid for CPU rows (absent = NULL). */
static void bind_head(sqlite3_stmt *s, const TraceTarget *t,
                      const TraceEvent *e, int has1, int64_t v1,
                      int has2, int64_t v2, int64_t nameId){
  bind_target(s, t);
  db_bind_int_or_null(s, 4, has1, v1);
  db_bind_int_or_null(s, 5, has2, v2);
  sqlite3_bind_int64(s, 6, e->ts);
  sqlite3_bind_int64(s, 7, e->dur);
  sqlite3_bind_int64(s, 8, nameId);
}

/* Device/stream of a GPU row: the row's pid/tid, else args. */
static void gpu_place(const TraceEvent *e, int64_t *pDev, int *pHasDev,
                      int64_t *pStream, int *pHasStream){
  *pHasDev = HAS(TF_PID) || HAS(TF_DEVICE);
  *pDev = HAS(TF_PID) ? e->pid : e->device;
  *pHasStream = HAS(TF_STREAM) || HAS(TF_TID);
  *pStream = HAS(TF_STREAM) ? e->stream : e->tid;
}

/* Bind the string id of text z (interned), or NULL for "".  Returns 0 or
** -1 with pErr set. */
static int bind_interned(TraceLoader *p, sqlite3_stmt *s, int i,
                         const char *z, PfError *pErr){
  int64_t id;
  if( z==NULL || z[0]==0 ){
    sqlite3_bind_null(s, i);
    return 0;
  }
  id = intern_id(p->pIntern, z, strlen(z), pErr);
  if( id<0 ) return -1;
  sqlite3_bind_int64(s, i, id);
  return 0;
}

/* Bind runtime_id, op_id, step of a GPU row at columns i, i+1, i+2. */
static void bind_gpu_link(sqlite3_stmt *s, int i, const TraceEvent *e){
  db_bind_int_or_null(s, i, e->linked && e->runtimeId>0, e->runtimeId);
  db_bind_int_or_null(s, i+1, e->linked && e->opId>0, e->opId);
  db_bind_int_or_null(s, i+2, e->linked && e->step>=0, e->step);
}

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *z){
  if( z && z[0] ) sqlite3_bind_text(s, i, z, -1, SQLITE_TRANSIENT);
  else sqlite3_bind_null(s, i);
}

/* After the row of e was written: its collective args (NCCL kernels,
** record_param_comms) or, for nccl:* annotations, the input shapes, to
** coll_args (load_collective.c).  Returns 0 or -1 with pErr. */
static int load_trace_coll(TraceLoader *p, const TraceTarget *t,
                           const TraceEvent *e, PfError *pErr){
  int eSrc;
  int64_t rowId;
  CollArgs a;
  const CollArgs *pa = e->pColl;
  if( e->kind==TEV_KERNEL ) eSrc = COLL_SRC_KERNEL;
  else if( e->kind==TEV_CPU_OP ) eSrc = COLL_SRC_CPU_OP;
  else if( e->kind==TEV_USER_ANNOTATION ) eSrc = COLL_SRC_ANNOTATION;
  else return 0;
  if( pa==NULL || pa->has==0 ){
    if( eSrc!=COLL_SRC_ANNOTATION || strncmp(e->zName, "nccl:", 5)!=0 ){
      return 0;
    }
    collective_args_reset(&a);
    if( collective_args_from_dims(&a, e->zInputDims, e->zInputTypes) ){
      return 0;
    }
    pa = &a;
  }
  rowId = (eSrc==COLL_SRC_CPU_OP && e->rowId>0) ? e->rowId
        : sqlite3_last_insert_rowid(p->db);
  return load_collective_row(p->db, t->runId, t->rank, t->fileId, rowId,
                             eSrc, pa, pErr);
}

int load_trace_event(TraceLoader *p, const TraceTarget *t,
                     const TraceEvent *e, PfError *pErr){
  sqlite3_stmt *s = NULL;
  int64_t nameId = 0, dev, stream;
  int hasDev, hasStream;

  if( e->kind!=TEV_MEMORY ){
    nameId = intern_id(p->pIntern, e->zName, (size_t)e->nName, pErr);
    if( nameId<0 ) return -1;
  }
  switch( e->kind ){
    case TEV_KERNEL:
      s = p->aStmt[S_KERNEL];
      gpu_place(e, &dev, &hasDev, &stream, &hasStream);
      bind_head(s, t, e, hasDev, dev, hasStream, stream, nameId);
      db_bind_int_or_null(s, 9, HAS(TF_CORRELATION), e->correlation);
      db_bind_int_or_null(s, 10, HAS(TF_EXTERNAL_ID), e->external_id);
      for(int i=0; i<3; i++){
        db_bind_int_or_null(s, 11+i, HAS(TF_GRID), e->grid[i]);
        db_bind_int_or_null(s, 14+i, HAS(TF_BLOCK), e->block[i]);
      }
      db_bind_int_or_null(s, 17, HAS(TF_REGISTERS), e->registers);
      db_bind_int_or_null(s, 18, HAS(TF_SHARED_MEM), e->shared_mem);
      db_bind_double_or_null(s, 19, HAS(TF_BLOCKS_PER_SM), e->blocks_per_sm);
      db_bind_double_or_null(s, 20, HAS(TF_WARPS_PER_SM), e->warps_per_sm);
      db_bind_double_or_null(s, 21, HAS(TF_OCCUPANCY), e->occupancy);
      bind_gpu_link(s, 22, e);
      break;
    case TEV_MEMCPY:
    case TEV_MEMSET: {
      MemcpyKind mk;
      s = p->aStmt[S_MEMOP];
      gpu_place(e, &dev, &hasDev, &stream, &hasStream);
      bind_head(s, t, e, hasDev, dev, hasStream, stream, nameId);
      sqlite3_bind_text(s, 9, e->kind==TEV_MEMCPY ? "memcpy" : "memset", -1,
                        SQLITE_STATIC);
      trace_memcpy_kind(e->zName, &mk);
      bind_text_or_null(s, 10, mk.zDirection);
      bind_text_or_null(s, 11, mk.zSrc);
      bind_text_or_null(s, 12, mk.zDst);
      db_bind_int_or_null(s, 13, HAS(TF_BYTES), e->bytes);
      db_bind_int_or_null(s, 14, HAS(TF_CORRELATION), e->correlation);
      db_bind_int_or_null(s, 15, HAS(TF_EXTERNAL_ID), e->external_id);
      bind_gpu_link(s, 16, e);
      break;
    }
    case TEV_CPU_OP: {
      double fl = -1;
      const char *zSrc = NULL;
      s = p->aStmt[S_CPU_OP];
      bind_head(s, t, e, HAS(TF_PID), e->pid, HAS(TF_TID), e->tid, nameId);
      db_bind_int_or_null(s, 9, HAS(TF_EXTERNAL_ID), e->external_id);
      db_bind_int_or_null(s, 10, HAS(TF_SEQUENCE), e->sequence);
      db_bind_int_or_null(s, 11, HAS(TF_FWD_TID), e->fwd_tid);
      if( bind_interned(p, s, 12, e->zInputDims, pErr)
          || bind_interned(p, s, 13, e->zInputTypes, pErr)
          || bind_interned(p, s, 14, e->zConcreteInputs, pErr) ) return -1;
      if( HAS(TF_FLOPS) ){ fl = e->flops; zSrc = "arg"; }
      else{
        fl = trace_estimate_flops(e->zName, e->zInputDims);
        if( fl>=0 ) zSrc = "estimate";
      }
      db_bind_double_or_null(s, 15, zSrc!=NULL, fl);
      bind_text_or_null(s, 16, zSrc);
      db_bind_int_or_null(s, 17, e->rowId>0, e->rowId);
      db_bind_int_or_null(s, 18, e->linked && e->parentId>0, e->parentId);
      db_bind_int_or_null(s, 19, e->linked, e->depth);
      db_bind_int_or_null(s, 20, e->linked, e->selfDur);
      db_bind_int_or_null(s, 21, e->linked && e->step>=0, e->step);
      break;
    }
    case TEV_RUNTIME:
    case TEV_DRIVER:
      s = p->aStmt[S_RUNTIME];
      bind_head(s, t, e, HAS(TF_PID), e->pid, HAS(TF_TID), e->tid, nameId);
      sqlite3_bind_text(s, 9, e->kind==TEV_RUNTIME ? "runtime" : "driver", -1,
                        SQLITE_STATIC);
      db_bind_int_or_null(s, 10, HAS(TF_CORRELATION), e->correlation);
      db_bind_int_or_null(s, 11, HAS(TF_EXTERNAL_ID), e->external_id);
      db_bind_int_or_null(s, 12, HAS(TF_CBID), e->cbid);
      db_bind_int_or_null(s, 13, e->rowId>0, e->rowId);
      db_bind_int_or_null(s, 14, e->linked && e->opId>0, e->opId);
      db_bind_int_or_null(s, 15, e->linked && e->topOpId>0, e->topOpId);
      db_bind_int_or_null(s, 16, e->linked, e->inRecompute);
      db_bind_int_or_null(s, 17, e->linked && e->step>=0, e->step);
      break;
    case TEV_SYNC:
      s = p->aStmt[S_SYNC];
      gpu_place(e, &dev, &hasDev, &stream, &hasStream);
      bind_head(s, t, e, hasDev, dev, hasStream, stream, nameId);
      db_bind_int_or_null(s, 9, HAS(TF_CORRELATION), e->correlation);
      break;
    case TEV_USER_ANNOTATION:
    case TEV_GPU_ANNOTATION:
      s = p->aStmt[S_ANNOT];
      bind_target(s, t);
      sqlite3_bind_text(s, 4, e->kind==TEV_USER_ANNOTATION ? "user" : "gpu_user",
                        -1, SQLITE_STATIC);
      db_bind_int_or_null(s, 5, HAS(TF_PID), e->pid);
      db_bind_int_or_null(s, 6, HAS(TF_TID), e->tid);
      sqlite3_bind_int64(s, 7, e->ts);
      sqlite3_bind_int64(s, 8, e->dur);
      sqlite3_bind_int64(s, 9, nameId);
      db_bind_int_or_null(s, 10, HAS(TF_EXTERNAL_ID), e->external_id);
      break;
    case TEV_MEMORY:
      s = p->aStmt[S_MEMORY];
      bind_target(s, t);
      sqlite3_bind_int64(s, 4, e->ts);
      sqlite3_bind_text(s, 5, e->zName, e->nName, SQLITE_TRANSIENT);
      db_bind_int_or_null(s, 6, HAS(TF_DEVICE_TYPE), e->device_type);
      db_bind_int_or_null(s, 7, HAS(TF_DEVICE_ID), e->device_id);
      db_bind_int_or_null(s, 8, HAS(TF_ADDR), e->addr);
      db_bind_int_or_null(s, 9, HAS(TF_BYTES), e->bytes);
      db_bind_int_or_null(s, 10, HAS(TF_TOTAL_ALLOC), e->total_alloc);
      db_bind_int_or_null(s, 11, HAS(TF_TOTAL_RESERVED), e->total_reserved);
      break;
    case TEV_PYTHON:
      s = p->aStmt[S_PYTHON];
      bind_head(s, t, e, HAS(TF_PID), e->pid, HAS(TF_TID), e->tid, nameId);
      db_bind_int_or_null(s, 9, HAS(TF_PYTHON_ID), e->python_id);
      db_bind_int_or_null(s, 10, HAS(TF_PYTHON_PARENT), e->python_parent);
      break;
    default:
      return 0;
  }
  if( sqlite3_step(s)!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(p->db));
    sqlite3_reset(s);
    return -1;
  }
  sqlite3_reset(s);
  p->nRows++;
  if( e->kind==TEV_KERNEL ) sum_add(p, t->fileId, 0, nameId, e->dur);
  else if( e->kind==TEV_MEMCPY ) sum_add(p, t->fileId, 1, nameId, e->dur);
  else if( e->kind==TEV_MEMSET ) sum_add(p, t->fileId, 2, nameId, e->dur);
  return load_trace_coll(p, t, e, pErr);
}

int load_trace_devices(TraceLoader *p, const TraceTarget *t,
                       const TraceInfo *pInfo, PfError *pErr){
  sqlite3_stmt *s = p->aStmt[S_DEVICE];
  for(int i=0; i<pInfo->nDevices; i++){
    const TraceDevice *d = &pInfo->aDevice[i];
    bind_target(s, t);
    sqlite3_bind_int64(s, 4, d->id>=0 ? d->id : i);
    bind_text_or_null(s, 5, d->zName);
    sqlite3_bind_int64(s, 6, d->totalGlobalMem);
    sqlite3_bind_int64(s, 7, d->computeMajor);
    sqlite3_bind_int64(s, 8, d->computeMinor);
    sqlite3_bind_int64(s, 9, d->numSms);
    if( sqlite3_step(s)!=SQLITE_DONE ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(p->db));
      sqlite3_reset(s);
      return -1;
    }
    sqlite3_reset(s);
  }
  return 0;
}

int load_trace_fixup(sqlite3 *db, int64_t fileId, int64_t dTs, int setRank,
                     int64_t rank, PfError *pErr){
  static const char *azTab[] = {
    "kernel", "gpu_mem_op", "cpu_op", "runtime_call", "gpu_sync",
    "annotation", "memory_event", "python_function", 0};
  for(int i=0; azTab[i]; i++){
    char *z = setRank
      ? sqlite3_mprintf("UPDATE %s SET ts=ts+%lld, rank=%lld WHERE file_id=%lld",
                        azTab[i], (long long)dTs, (long long)rank,
                        (long long)fileId)
      : sqlite3_mprintf("UPDATE %s SET ts=ts+%lld WHERE file_id=%lld",
                        azTab[i], (long long)dTs, (long long)fileId);
    int rc = db_exec(db, z, pErr);
    sqlite3_free(z);
    if( rc ) return -1;
  }
  if( setRank ){
    char *z = sqlite3_mprintf("UPDATE device SET rank=%lld WHERE file_id=%lld",
                              (long long)rank, (long long)fileId);
    int rc = db_exec(db, z, pErr);
    sqlite3_free(z);
    if( rc ) return -1;
  }
  return 0;
}
