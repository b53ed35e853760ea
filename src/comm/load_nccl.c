/*
** load_nccl.c — the NCCL debug-log loader: the sink of parse_nccl.c that
** writes communicators, connections, collective calls, algorithm choices
** and warnings to nccl_comm, nccl_link, nccl_coll, nccl_algo and
** nccl_warning.
**
** Pipeline position: "load" for NCCL_DEBUG=INFO logs, in the writer
** thread, inside the ingest's transaction.  Per-process state is keyed by
** (host, pid): a communicator is (host, pid, comm pointer), and a pointer
** reused after "Destroy COMPLETE" starts a new nccl_comm row.  Cut and
** spliced lines are counted as warnings, never fatal.
**
** Memory: one CommEnt per communicator (a few hundred bytes) plus a hash
** index over them; nothing grows with the number of collective lines.
*/
#include "input/load_kinds.h"
#include "core/db.h"
#include "comm/parse_nccl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A communicator seen in the log.  Its nccl_comm row is inserted on
** first sight (to get the id collective rows point to) and updated with
** everything learned when the file ends. */
typedef struct CommEnt {
  int64_t rowId;            /* nccl_comm.id */
  char zHost[64];
  uint32_t hHost;
  int64_t pid, initTid;
  uint64_t comm;
  int closed;               /* Destroy/Abort seen: pointer may be reused */
  NcclInit last;            /* fields of the most informative init line */
  int hasInit;
  int64_t startLine, completeLine;
  int nNodes, localRanks;
  double initTotal, bootstrap;
  char zTimings[160];
  int nColl, nNvls, nP2p, nRings, nTrees;
  char zEnd[16];
} CommEnt;

/* NCCL version per process. */
typedef struct ProcVer {
  uint32_t hHost;
  int64_t pid;
  char zVersion[64];
} ProcVer;

enum { Q_COMM, Q_LINK, Q_COLL, Q_ALGO, Q_WARN, Q_N };

typedef struct NcclLoad {
  sqlite3 *db;
  const LoadTarget *t;
  PfError *pErr;
  sqlite3_stmt *aStmt[Q_N];
  CommEnt *aComm;
  int nComm, nCommAlloc;
  int *aHash;               /* index+1 into aComm, open addressing */
  int nHash;                /* power of two */
  ProcVer *aVer;
  int nVer, nVerAlloc;
  char zFileVersion[64];    /* last bare version line */
  int lastHit;              /* aComm index of the last lookup hit */
} NcclLoad;

/* by name: statements/NAME.sql */
static const char *azSql[Q_N] = {
  "load-nccl-insert-nccl-comm",
  "load-nccl-insert-nccl-link",
  "load-nccl-insert-nccl-coll",
  "load-nccl-insert-nccl-algo",
  "load-nccl-insert-nccl-warning",
};

/* FNV-1a of a host name. */
static uint32_t host_hash(const char *z){
  uint32_t h = 2166136261u;
  while( *z ){ h ^= (unsigned char)*z++; h *= 16777619u; }
  return h;
}

static uint32_t comm_hash(uint32_t hHost, int64_t pid, uint64_t comm){
  uint64_t h = hHost ^ ((uint64_t)pid * 0x9e3779b97f4a7c15ULL) ^ comm;
  h ^= h>>29; h *= 0xbf58476d1ce4e5b9ULL; h ^= h>>32;
  return (uint32_t)h;
}

static void hex_text(char *z, size_t n, uint64_t v){
  snprintf(z, n, "0x%llx", (unsigned long long)v);
}

/* Step a prepared INSERT, reset it; on error fill pErr and return -1. */
static int step_reset(NcclLoad *L, sqlite3_stmt *s){
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(L->pErr, ERRPOS_NONE, 0, "database: %s",
                 sqlite3_errmsg(L->db));
    return -1;
  }
  return 0;
}

/* Rebuild the hash index at twice the size. */
static void hash_grow(NcclLoad *L){
  int n = L->nHash ? L->nHash*2 : 64;
  free(L->aHash);
  L->aHash = xcalloc((size_t)n, sizeof(int));
  L->nHash = n;
  for(int i=0; i<L->nComm; i++){
    CommEnt *c = &L->aComm[i];
    uint32_t h = comm_hash(c->hHost, c->pid, c->comm) & (uint32_t)(n-1);
    while( L->aHash[h] ){
      /* a newer entry for a reused pointer replaces the older one */
      CommEnt *o = &L->aComm[L->aHash[h]-1];
      if( o->hHost==c->hHost && o->pid==c->pid && o->comm==c->comm ) break;
      h = (h+1) & (uint32_t)(n-1);
    }
    L->aHash[h] = i+1;
  }
}

/* The live communicator (host, pid, comm), or NULL. */
static CommEnt *comm_find(NcclLoad *L, const NcclPrefix *x, uint64_t comm){
  uint32_t hh = host_hash(x->zHost), h;
  if( L->lastHit>=0 && L->lastHit<L->nComm ){
    CommEnt *c = &L->aComm[L->lastHit];
    if( c->comm==comm && c->pid==x->pid && c->hHost==hh ) return c;
  }
  if( L->nHash==0 ) return NULL;
  h = comm_hash(hh, x->pid, comm) & (uint32_t)(L->nHash-1);
  while( L->aHash[h] ){
    CommEnt *c = &L->aComm[L->aHash[h]-1];
    if( c->comm==comm && c->pid==x->pid && c->hHost==hh ){
      L->lastHit = L->aHash[h]-1;
      return c;
    }
    h = (h+1) & (uint32_t)(L->nHash-1);
  }
  return NULL;
}

/* Find the communicator, creating it (and its row) when it is new or its
** pointer was destroyed.  Returns NULL on a database error. */
static CommEnt *comm_get(NcclLoad *L, const NcclPrefix *x, uint64_t comm){
  CommEnt *c = comm_find(L, x, comm);
  sqlite3_stmt *s = L->aStmt[Q_COMM];
  char zPtr[24];
  if( c && !c->closed ) return c;
  if( L->nComm==L->nCommAlloc ){
    L->nCommAlloc = L->nCommAlloc ? L->nCommAlloc*2 : 16;
    L->aComm = xrealloc(L->aComm, (size_t)L->nCommAlloc*sizeof(CommEnt));
  }
  c = &L->aComm[L->nComm++];
  memset(c, 0, sizeof(*c));
  snprintf(c->zHost, sizeof(c->zHost), "%s", x->zHost);
  c->hHost = host_hash(x->zHost);
  c->pid = x->pid;
  c->initTid = x->tid;
  c->comm = comm;
  c->nNodes = c->localRanks = -1;
  c->initTotal = c->bootstrap = -1;
  c->nColl = c->nNvls = c->nP2p = c->nRings = c->nTrees = -1;
  c->last.rank = c->last.nranks = c->last.cudaDev = c->last.nvmlDev = -1;
  hex_text(zPtr, sizeof(zPtr), comm);
  sqlite3_bind_int64(s, 1, L->t->runId);
  sqlite3_bind_int64(s, 2, L->t->fileId);
  sqlite3_bind_text(s, 3, x->zHost, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 4, x->pid);
  sqlite3_bind_text(s, 5, zPtr, -1, SQLITE_TRANSIENT);
  if( step_reset(L, s) ) return NULL;
  c->rowId = sqlite3_last_insert_rowid(L->db);
  if( L->nComm*2 > L->nHash ) hash_grow(L);
  else{
    uint32_t h = comm_hash(c->hHost, c->pid, comm) & (uint32_t)(L->nHash-1);
    while( L->aHash[h] ){
      CommEnt *o = &L->aComm[L->aHash[h]-1];
      if( o->hHost==c->hHost && o->pid==c->pid && o->comm==comm ) break;
      h = (h+1) & (uint32_t)(L->nHash-1);
    }
    L->aHash[h] = L->nComm;
  }
  L->lastHit = L->nComm-1;
  return c;
}

/* The version of process (host, pid), else the file's bare version. */
static const char *proc_version(NcclLoad *L, uint32_t hHost, int64_t pid){
  for(int i=0; i<L->nVer; i++){
    if( L->aVer[i].hHost==hHost && L->aVer[i].pid==pid ){
      return L->aVer[i].zVersion;
    }
  }
  return L->zFileVersion[0] ? L->zFileVersion : NULL;
}

/* ------------------------------------------------------ callbacks */

static int x_version(void *ctx, const NcclPrefix *x, const NcclVersion *v){
  NcclLoad *L = ctx;
  uint32_t h;
  if( v->bBare || x->pid<0 ){
    snprintf(L->zFileVersion, sizeof(L->zFileVersion), "%s", v->zVersion);
    return 0;
  }
  h = host_hash(x->zHost);
  for(int i=0; i<L->nVer; i++){
    if( L->aVer[i].hHost==h && L->aVer[i].pid==x->pid ){
      snprintf(L->aVer[i].zVersion, sizeof(L->aVer[i].zVersion), "%s",
               v->zVersion);
      return 0;
    }
  }
  if( L->nVer==L->nVerAlloc ){
    L->nVerAlloc = L->nVerAlloc ? L->nVerAlloc*2 : 8;
    L->aVer = xrealloc(L->aVer, (size_t)L->nVerAlloc*sizeof(ProcVer));
  }
  L->aVer[L->nVer].hHost = h;
  L->aVer[L->nVer].pid = x->pid;
  snprintf(L->aVer[L->nVer].zVersion, sizeof(L->aVer[0].zVersion), "%s",
           v->zVersion);
  L->nVer++;
  return 0;
}

static int x_init(void *ctx, const NcclPrefix *x, const NcclInit *in){
  NcclLoad *L = ctx;
  CommEnt *c;
  if( in->phase==NCCL_INIT_START ){
    /* a START for a pointer seen before starts a new communicator */
    CommEnt *o = comm_find(L, x, in->comm);
    if( o && o->completeLine>0 ) o->closed = 1;
  }
  c = comm_get(L, x, in->comm);
  if( c==NULL ) return 1;
  c->initTid = x->tid;
  if( in->phase==NCCL_INIT_TOPO ){
    c->nNodes = in->nNodes;
    c->localRanks = in->localRanks;
    if( !c->hasInit ){
      c->last.rank = in->rank;
      c->last.nranks = in->nranks;
    }
    return 0;
  }
  if( in->phase==NCCL_INIT_START ) c->startLine = x->lineno;
  else c->completeLine = x->lineno;
  if( !c->hasInit || in->phase==NCCL_INIT_COMPLETE || in->hasCommId ){
    c->last = *in;
    c->hasInit = 1;
  }
  return 0;
}

static const char *transport_name(int k){
  static const char *const a[] = {"P2P", "SHM", "NET", "COLLNET", "NVLS",
                                  "other"};
  return (k>=0 && k<=NCCL_CONN_OTHER) ? a[k] : "other";
}

static int x_conn(void *ctx, const NcclPrefix *x, const NcclConn *cn){
  NcclLoad *L = ctx;
  sqlite3_stmt *s = L->aStmt[Q_LINK];
  uint64_t comm = cn->comm ? cn->comm : cn->commHint;
  CommEnt *c = comm ? comm_find(L, x, comm) : NULL;
  sqlite3_bind_int64(s, 1, L->t->runId);
  sqlite3_bind_int64(s, 2, L->t->fileId);
  db_bind_int_or_null(s, 3, c!=NULL, c ? c->rowId : 0);
  db_bind_int_or_null(s, 4, cn->rank>=0, cn->rank);
  db_bind_int_or_null(s, 5, cn->peer>=0, cn->peer);
  db_bind_int_or_null(s, 6, cn->channel>=0, cn->channel);
  db_bind_int_or_null(s, 7, cn->connIndex>=0, cn->connIndex);
  db_bind_text_or_null(s, 8, cn->dir==1 ? "send" : cn->dir==2 ? "receive"
                       : NULL, -1);
  sqlite3_bind_text(s, 9, transport_name(cn->kind), -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 10, cn->zVia, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 11, x->lineno);
  db_bind_text_or_null(s, 12, x->bNoHost ? NULL : x->zHost, -1);
  db_bind_int_or_null(s, 13, !x->bNoHost, x->pid);
  return step_reset(L, s) ? 1 : 0;
}

static int x_channel(void *ctx, const NcclPrefix *x, const NcclChannel *ch){
  NcclLoad *L = ctx;
  CommEnt *c = ch->commHint ? comm_find(L, x, ch->commHint) : NULL;
  if( c==NULL ) return 0;
  switch( ch->kind ){
    case NCCL_CHAN_COUNTS:
      c->nColl = ch->nColl;
      c->nNvls = ch->nNvls;
      c->nP2p = ch->nP2p;
      break;
    case NCCL_CHAN_RING_ORDER:
      if( ch->nChannels>c->nRings ) c->nRings = ch->nChannels;
      break;
    case NCCL_CHAN_TREES:
      if( ch->nChannels>c->nTrees ) c->nTrees = ch->nChannels;
      break;
    default:
      break;
  }
  return 0;
}

static int x_timing(void *ctx, const NcclPrefix *x, const NcclTiming *tm){
  NcclLoad *L = ctx;
  uint32_t hh = host_hash(x->zHost);
  CommEnt *c = NULL;
  /* the newest communicator of this process initialised on this thread
  ** (and of this rank, for the Init line) */
  for(int i=L->nComm-1; i>=0 && c==NULL; i--){
    CommEnt *o = &L->aComm[i];
    if( o->hHost!=hh || o->pid!=x->pid ) continue;
    if( tm->kind==NCCL_TIMING_INIT && tm->rank>=0 ){
      if( o->last.rank==tm->rank && o->last.nranks==tm->nranks ) c = o;
    }else if( o->initTid==x->tid ){
      c = o;
    }
  }
  if( c==NULL ) return 0;
  if( tm->kind==NCCL_TIMING_BOOTSTRAP ){
    c->bootstrap = tm->total;
  }else{
    Buf b;
    c->initTotal = tm->total;
    buf_init(&b);
    for(int i=0; i<tm->nPart; i++){
      buf_printf(&b, "%s%s=%g", i ? " " : "", tm->aPart[i].zName,
                 tm->aPart[i].v);
    }
    snprintf(c->zTimings, sizeof(c->zTimings), "%s", buf_str(&b));
    buf_free(&b);
  }
  return 0;
}

static int x_tuning(void *ctx, const NcclPrefix *x, const NcclTuning *tu){
  NcclLoad *L = ctx;
  sqlite3_stmt *s = L->aStmt[Q_ALGO];
  if( tu->kind==NCCL_TUNE_TABLE ) return 0;
  sqlite3_bind_int64(s, 1, L->t->runId);
  sqlite3_bind_int64(s, 2, L->t->fileId);
  sqlite3_bind_int64(s, 3, x->lineno);
  db_bind_text_or_null(s, 4, x->bNoHost ? NULL : x->zHost, -1);
  db_bind_int_or_null(s, 5, !x->bNoHost, x->pid);
  db_bind_text_or_null(s, 6, tu->zFunc[0] ? tu->zFunc : NULL, -1);
  db_bind_int_or_null(s, 7, tu->bytes>=0, tu->bytes);
  db_bind_text_or_null(s, 8, tu->kind==NCCL_TUNE_KERNEL ? tu->zKernel
                       : tu->zAlgo[0] ? tu->zAlgo : NULL, -1);
  db_bind_text_or_null(s, 9, tu->zProto[0] ? tu->zProto : NULL, -1);
  {
    int nCh = tu->nChannels>=0 ? tu->nChannels
            : (tu->chanLo>=0 && tu->chanHi>=tu->chanLo)
              ? tu->chanHi - tu->chanLo + 1 : -1;
    db_bind_int_or_null(s, 10, nCh>=0, nCh);
  }
  return step_reset(L, s) ? 1 : 0;
}

static int x_warn(void *ctx, const NcclPrefix *x, const NcclWarn *w){
  NcclLoad *L = ctx;
  sqlite3_stmt *s = L->aStmt[Q_WARN];
  sqlite3_bind_int64(s, 1, L->t->runId);
  sqlite3_bind_int64(s, 2, L->t->fileId);
  sqlite3_bind_int64(s, 3, x->lineno);
  db_bind_text_or_null(s, 4, x->zHost[0] ? x->zHost : NULL, -1);
  db_bind_int_or_null(s, 5, x->pid>=0, x->pid);
  sqlite3_bind_text(s, 6, w->bDowngraded ? "INFO" : "WARN", -1,
                    SQLITE_STATIC);
  db_bind_text_or_null(s, 7, w->zFile[0] ? w->zFile : NULL, -1);
  db_bind_int_or_null(s, 8, w->line>=0, w->line);
  sqlite3_bind_text(s, 9, w->zText ? w->zText : "", -1, SQLITE_TRANSIENT);
  return step_reset(L, s) ? 1 : 0;
}

static int x_destroy(void *ctx, const NcclPrefix *x, const NcclDestroy *d){
  NcclLoad *L = ctx;
  CommEnt *c = comm_find(L, x, d->comm);
  if( c==NULL || c->closed ) return 0;
  snprintf(c->zEnd, sizeof(c->zEnd), "%s", d->zWhat);
  c->closed = 1;
  if( !c->hasInit ){
    c->last.rank = d->rank;
    c->last.nranks = d->nranks;
    c->last.cudaDev = d->cudaDev;
  }
  return 0;
}

static int x_coll(void *ctx, const NcclPrefix *x, const NcclColl *co){
  NcclLoad *L = ctx;
  sqlite3_stmt *s = L->aStmt[Q_COLL];
  CommEnt *c = comm_find(L, x, co->comm);
  char zComm[24], zStream[24];
  int rank = c ? c->last.rank : -1;
  int nranks = co->nranks>=0 ? co->nranks : (c ? c->last.nranks : -1);
  hex_text(zComm, sizeof(zComm), co->comm);
  hex_text(zStream, sizeof(zStream), co->stream);
  sqlite3_bind_int64(s, 1, L->t->runId);
  sqlite3_bind_int64(s, 2, L->t->fileId);
  db_bind_int_or_null(s, 3, c!=NULL, c ? c->rowId : 0);
  db_bind_int_or_null(s, 4, rank>=0, rank);
  sqlite3_bind_text(s, 5, x->zHost, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 6, x->pid);
  sqlite3_bind_int64(s, 7, x->lineno);
  sqlite3_bind_text(s, 8, co->zOp, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 9, (int64_t)co->opCount);
  sqlite3_bind_int64(s, 10, co->count);
  sqlite3_bind_int(s, 11, co->dtype);
  sqlite3_bind_text(s, 12, co->zDtype, -1, SQLITE_STATIC);
  db_bind_int_or_null(s, 13, co->bytes>=0, co->bytes);
  sqlite3_bind_text(s, 14, co->zRedop, -1, SQLITE_STATIC);
  sqlite3_bind_int(s, 15, co->root);
  sqlite3_bind_text(s, 16, zComm, -1, SQLITE_TRANSIENT);
  db_bind_int_or_null(s, 17, nranks>=0, nranks);
  sqlite3_bind_text(s, 18, zStream, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(s, 19, x->bGlued);
  db_bind_int_or_null(s, 20, x->tagRank>=0, x->tagRank);
  if( x->bNoHost ){
    sqlite3_bind_null(s, 5);
    sqlite3_bind_null(s, 6);
  }
  return step_reset(L, s) ? 1 : 0;
}

/* ------------------------------------------------------ file end */

static const char *init_format_name(int f){
  static const char *const a[] = {"2.10", "2.16", "2.18", "func", "topo",
                                  "2.4"};
  return (f>=0 && f<=NCCL_INITFMT_2_4) ? a[f] : NULL;
}

/* Write everything learned about each communicator to its row. */
static int comms_flush(NcclLoad *L){
  sqlite3_stmt *s = NULL;
  int rc = 0;
  if( L->nComm==0 ) return 0;
  if( sqlite3_prepare_v2(L->db,
      db_statement("load-nccl-comms-flush"),
      -1, &s, NULL)!=SQLITE_OK ){
    pf_error_set(L->pErr, ERRPOS_NONE, 0, "database: %s",
                 sqlite3_errmsg(L->db));
    return -1;
  }
  for(int i=0; i<L->nComm && rc==0; i++){
    CommEnt *c = &L->aComm[i];
    NcclInit *in = &c->last;
    char zId[24], zParent[24];
    hex_text(zId, sizeof(zId), in->commId);
    hex_text(zParent, sizeof(zParent), in->parent);
    db_bind_int_or_null(s, 1, in->rank>=0, in->rank);
    db_bind_int_or_null(s, 2, in->nranks>=0, in->nranks);
    db_bind_text_or_null(s, 3, c->hasInit && in->hasCommId ? zId : NULL, -1);
    db_bind_text_or_null(s, 4, c->hasInit && in->zFunc[0] ? in->zFunc
                         : NULL, -1);
    db_bind_int_or_null(s, 5, in->cudaDev>=0, in->cudaDev);
    db_bind_int_or_null(s, 6, in->nvmlDev>=0, in->nvmlDev);
    db_bind_text_or_null(s, 7, c->hasInit && in->zBusId[0] ? in->zBusId
                         : NULL, -1);
    db_bind_text_or_null(s, 8, c->hasInit && in->bSplit ? zParent : NULL, -1);
    db_bind_int_or_null(s, 9, c->hasInit && in->bSplit, in->color);
    db_bind_int_or_null(s, 10, c->hasInit && in->bSplit, in->key);
    db_bind_int_or_null(s, 11, c->nNodes>=0, c->nNodes);
    db_bind_int_or_null(s, 12, c->localRanks>=0, c->localRanks);
    db_bind_text_or_null(s, 13, proc_version(L, c->hHost, c->pid), -1);
    db_bind_text_or_null(s, 14, c->hasInit ? init_format_name(in->format)
                         : NULL, -1);
    db_bind_int_or_null(s, 15, c->startLine>0, c->startLine);
    db_bind_int_or_null(s, 16, c->completeLine>0, c->completeLine);
    db_bind_double_or_null(s, 17, c->initTotal>=0, c->initTotal);
    db_bind_text_or_null(s, 18, c->zTimings[0] ? c->zTimings : NULL, -1);
    db_bind_double_or_null(s, 19, c->bootstrap>=0, c->bootstrap);
    db_bind_int_or_null(s, 20, c->nColl>=0, c->nColl);
    db_bind_int_or_null(s, 21, c->nNvls>=0, c->nNvls);
    db_bind_int_or_null(s, 22, c->nP2p>=0, c->nP2p);
    db_bind_int_or_null(s, 23, c->nRings>=0, c->nRings);
    db_bind_int_or_null(s, 24, c->nTrees>=0, c->nTrees);
    db_bind_text_or_null(s, 25, c->zEnd[0] ? c->zEnd : NULL, -1);
    sqlite3_bind_int64(s, 26, c->rowId);
    rc = step_reset(L, s);
  }
  sqlite3_finalize(s);
  return rc;
}

/*
** Logs of NCCL 2.4-2.17 print a communicator's init line only after its
** connection lines, so those links found no communicator when they were
** read: give each to the communicator of its process when the process
** has exactly one in this file.  Returns 0 or -1 with L->pErr set.
*/
static int links_adopt(NcclLoad *L){
  sqlite3_stmt *s = NULL;
  int rc = 0;
  if( sqlite3_prepare_v2(L->db,
      db_statement("load-nccl-links-adopt"),
      -1, &s, NULL)!=SQLITE_OK ){
    pf_error_set(L->pErr, ERRPOS_NONE, 0, "database: %s",
                 sqlite3_errmsg(L->db));
    return -1;
  }
  sqlite3_bind_int64(s, 1, L->t->fileId);
  rc = step_reset(L, s);
  sqlite3_finalize(s);
  return rc;
}

int load_nccl_file(sqlite3 *db, const LoadTarget *t, LoadStats *pStats,
                   PfError *pErr){
  static const NcclSink sink = {
    x_version, x_init, x_conn, x_channel, x_timing, x_tuning, x_warn,
    x_destroy, x_coll
  };
  NcclLoad L;
  NcclStats st;
  int rc = 0;
  memset(&L, 0, sizeof(L));
  L.db = db;
  L.t = t;
  L.pErr = pErr;
  L.lastHit = -1;
  for(int i=0; i<Q_N && rc==0; i++){
    if( sqlite3_prepare_v2(db, db_statement(azSql[i]), -1, &L.aStmt[i],
                           NULL)!=SQLITE_OK ){
      pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
      rc = -1;
    }
  }
  if( rc==0 && parse_nccl_file(t->zPath, &sink, &L, &st, pErr) ) rc = -1;
  if( rc==0 && comms_flush(&L) ) rc = -1;
  if( rc==0 && L.nComm>0 && links_adopt(&L) ) rc = -1;
  if( rc==0 ){
    int64_t nRec = 0;
    int rank = -2;
    for(int k=0; k<NCCL_REC_COUNT; k++) nRec += st.nRec[k];
    pStats->nRecords = nRec;
    /* cut and malformed segments are disjoint: the three add up */
    pStats->nWarnings = st.nCut + st.nMalformed + st.nTruncated;
    if( pStats->nWarnings>0 ){
      int64_t line = st.firstWarnLine;
      snprintf(pStats->zFirstWarning, sizeof(pStats->zFirstWarning),
               "%lld: %lld cut, %lld malformed, %lld over-long line%s",
               (long long)(line>0 ? line : 1), (long long)st.nCut,
               /* cut ones that are also malformed are counted once, so
               ** that the three parts add up to nWarnings */
               (long long)(st.nDamaged - st.nCut), (long long)st.nTruncated,
               st.nTruncated==1 ? "" : "s");
    }
    /* a log of one rank gets that rank */
    for(int i=0; i<L.nComm; i++){
      int r = L.aComm[i].last.rank;
      if( rank==-2 ) rank = r;
      else if( rank!=r ) rank = -1;
    }
    if( rank>=0 ){
      pStats->rank = rank;
      snprintf(pStats->zRankSource, sizeof(pStats->zRankSource), "nccl init");
    }
    snprintf(pStats->zKind, sizeof(pStats->zKind), "nccl_log");
  }
  for(int i=0; i<Q_N; i++) sqlite3_finalize(L.aStmt[i]);
  free(L.aComm);
  free(L.aHash);
  free(L.aVer);
  return rc;
}
