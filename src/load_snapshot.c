/*
** load_snapshot.c — CUDA caching-allocator memory snapshots: recognise the
** decoded pickle, write snapshot / segment / block / alloc_event /
** memory_annotation rows and the deduplicated frame and stack tables, and
** replay each device trace while doing so.
**
** Pipeline position: "normalize" + "load" for snapshots (the pickle was
** decoded by pickle.c, dispatched by load_pickle.c).  Runs inside the
** ingest transaction; never prints.
**
** Layouts (formats.md §2): a dict with "segments" (+ "device_traces",
** "allocator_settings", "external_annotations"), or a bare list of segment
** dicts.  Blocks carry "address" and "frames" (2.1+) or neither, with an
** optional "history" (1.13/2.0): the address is then the segment base plus
** the sizes before it.
**
** Replay: for each device, one pass sums the net change of allocated,
** active and reserved bytes; a second pass walks the entries again and
** stores the running values anchored so that the state after the last
** entry equals the snapshot's own totals (the trace is a ring buffer, so
** allocations made before its first entry are accounted for).  Live blocks
** sit in an address hash table: memory is bounded by the live block set,
** not by the trace length.  An alloc row is written when its block is
** freed (its free_idx is then known) or at the end.
*/
#include "load_kinds.h"
#include "db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

/* Trace actions.  The order matters only for the name table below. */
enum {
  ACT_ALLOC, ACT_FREE_REQ, ACT_FREE_DONE, ACT_SEG_ALLOC, ACT_SEG_FREE,
  ACT_SEG_MAP, ACT_SEG_UNMAP, ACT_SNAPSHOT, ACT_OOM, ACT_UNKNOWN
};
static const char *const azAction[] = {
  "alloc", "free_requested", "free_completed", "segment_alloc",
  "segment_free", "segment_map", "segment_unmap", "snapshot", "oom"
};

/* Action code of the string value v (ACT_UNKNOWN for anything else). */
static int action_code(const PkValue *v){
  for(int i=0; i<ACT_UNKNOWN; i++){
    if( pk_str_eq(v, azAction[i]) ) return i;
  }
  return ACT_UNKNOWN;
}

/* A 64-bit mix of n bytes into h (FNV-1a, then finalised by mix64). */
static uint64_t fnv(uint64_t h, const void *p, size_t n){
  const unsigned char *z = p;
  for(size_t i=0; i<n; i++){ h ^= z[i]; h *= 0x100000001b3ULL; }
  return h;
}
static uint64_t mix64(uint64_t x){
  x ^= x>>33; x *= 0xff51afd7ed558ccdULL;
  x ^= x>>33; x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x>>33);
}

/* Integer value of key zKey of dict d; 0 (and *pHas=0) when absent. */
static int64_t dict_int(const PkValue *d, const char *zKey, int *pHas){
  int64_t v = 0;
  int has = pk_as_int(pk_dict_get(d, zKey), &v)==0;
  if( pHas ) *pHas = has;
  return has ? v : 0;
}

/* ----------------------------------------------- pointer -> id table */

/* Open-addressing map from a node pointer (a frame dict or a frame list;
** nodes are shared through the memo) to a row id.  Owned by the Loader. */
typedef struct PtrMap {
  const void **aKey;
  int64_t *aVal;
  size_t nSlot, nUsed;      /* nSlot is a power of two */
} PtrMap;

static size_t ptr_slot(const PtrMap *m, const void *k){
  return (size_t)mix64((uint64_t)(uintptr_t)k) & (m->nSlot-1);
}

/* The id stored for k, or -1. */
static int64_t ptrmap_get(const PtrMap *m, const void *k){
  if( m->nSlot==0 ) return -1;
  for(size_t i=ptr_slot(m, k); m->aKey[i]; i=(i+1)&(m->nSlot-1)){
    if( m->aKey[i]==k ) return m->aVal[i];
  }
  return -1;
}

static void ptrmap_put(PtrMap *m, const void *k, int64_t v){
  size_t i;
  if( 2*(m->nUsed+1) > m->nSlot ){
    PtrMap n;
    n.nSlot = m->nSlot ? 2*m->nSlot : 256;
    n.nUsed = 0;
    n.aKey = xcalloc(n.nSlot, sizeof(void*));
    n.aVal = xcalloc(n.nSlot, sizeof(int64_t));
    for(size_t j=0; j<m->nSlot; j++){
      if( m->aKey[j] ) ptrmap_put(&n, m->aKey[j], m->aVal[j]);
    }
    free(m->aKey);
    free(m->aVal);
    *m = n;
  }
  for(i=ptr_slot(m, k); m->aKey[i] && m->aKey[i]!=k; i=(i+1)&(m->nSlot-1)){}
  if( m->aKey[i]==0 ) m->nUsed++;
  m->aKey[i] = k;
  m->aVal[i] = v;
}

static void ptrmap_free(PtrMap *m){
  free(m->aKey);
  free(m->aVal);
  memset(m, 0, sizeof(*m));
}

/* -------------------------------------------- stack content table */

/* Stacks seen in this file, by content: the frame id sequence, so that
** equal stacks reached through different list nodes (a pickler that does
** not share lists) cost no database lookup.  Owned by the Loader. */
typedef struct StackEnt {
  uint64_t h;               /* content hash; 0 = empty slot */
  int64_t id;               /* stack.id */
  size_t iOff, n;           /* frame ids at aFrame[iOff..iOff+n) */
} StackEnt;
typedef struct StackMap {
  StackEnt *a;
  size_t nSlot, nUsed;
  int64_t *aFrame;          /* every stored stack's frame ids */
  size_t nFrame, nFrameCap;
} StackMap;

/* The id of the stored stack with hash h and frames a[0..n), or -1. */
static int64_t stackmap_get(const StackMap *m, uint64_t h, const int64_t *a,
                            size_t n){
  if( m->nSlot==0 ) return -1;
  for(size_t i=h&(m->nSlot-1); m->a[i].h; i=(i+1)&(m->nSlot-1)){
    const StackEnt *e = &m->a[i];
    if( e->h==h && e->n==n
        && memcmp(&m->aFrame[e->iOff], a, n*sizeof(int64_t))==0 ){
      return e->id;
    }
  }
  return -1;
}

/* Store stack id with hash h (non-zero) and frames a[0..n). */
static void stackmap_put(StackMap *m, uint64_t h, const int64_t *a, size_t n,
                         int64_t id){
  size_t i;
  if( 2*(m->nUsed+1) > m->nSlot ){
    StackMap g = *m;
    g.nSlot = m->nSlot ? 2*m->nSlot : 256;
    g.a = xcalloc(g.nSlot, sizeof(StackEnt));
    for(size_t j=0; j<m->nSlot; j++){
      if( m->a[j].h==0 ) continue;
      for(i=m->a[j].h&(g.nSlot-1); g.a[i].h; i=(i+1)&(g.nSlot-1)){}
      g.a[i] = m->a[j];
    }
    free(m->a);
    *m = g;
  }
  if( m->nFrame+n > m->nFrameCap ){
    m->nFrameCap = 2*(m->nFrame+n) + 1024;
    m->aFrame = xrealloc(m->aFrame, m->nFrameCap*sizeof(int64_t));
  }
  memcpy(&m->aFrame[m->nFrame], a, n*sizeof(int64_t));
  for(i=h&(m->nSlot-1); m->a[i].h; i=(i+1)&(m->nSlot-1)){}
  m->a[i].h = h;
  m->a[i].id = id;
  m->a[i].iOff = m->nFrame;
  m->a[i].n = n;
  m->nFrame += n;
  m->nUsed++;
}

static void stackmap_free(StackMap *m){
  free(m->a);
  free(m->aFrame);
  memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------ live block table */

enum { LIVE_ALLOC = 1, LIVE_REQUESTED = 2 };

/* One block allocated in the trace and not yet free_completed. */
typedef struct Live {
  uint64_t addr;
  int state;                 /* 0 = empty slot, LIVE_ALLOC, LIVE_REQUESTED */
  int64_t idx;               /* its alloc entry */
  int64_t freeIdx;           /* its free_requested entry (LIVE_REQUESTED) */
  int64_t size, stream, timeUs, stackId;
  int hasTime;
  int64_t allocated, active, reserved;   /* replay state after the alloc */
} Live;

/* Linear probing with backward-shift deletion, keyed by address. */
typedef struct LiveMap {
  Live *a;
  size_t nSlot, nUsed;
} LiveMap;

static size_t live_slot(const LiveMap *m, uint64_t addr){
  return (size_t)mix64(addr) & (m->nSlot-1);
}

static Live *live_find(LiveMap *m, uint64_t addr){
  if( m->nSlot==0 ) return NULL;
  for(size_t i=live_slot(m, addr); m->a[i].state; i=(i+1)&(m->nSlot-1)){
    if( m->a[i].addr==addr ) return &m->a[i];
  }
  return NULL;
}

/* Slot for addr, inserted (zeroed, state still 0) when new. */
static Live *live_insert(LiveMap *m, uint64_t addr){
  size_t i;
  if( 2*(m->nUsed+1) > m->nSlot ){
    LiveMap n;
    n.nSlot = m->nSlot ? 2*m->nSlot : 1024;
    n.nUsed = m->nUsed;
    n.a = xcalloc(n.nSlot, sizeof(Live));
    for(size_t j=0; j<m->nSlot; j++){
      if( m->a[j].state==0 ) continue;
      for(i=live_slot(&n, m->a[j].addr); n.a[i].state; i=(i+1)&(n.nSlot-1)){}
      n.a[i] = m->a[j];
    }
    free(m->a);
    *m = n;
  }
  for(i=live_slot(m, addr); m->a[i].state; i=(i+1)&(m->nSlot-1)){
    if( m->a[i].addr==addr ) return &m->a[i];
  }
  memset(&m->a[i], 0, sizeof(Live));
  m->a[i].addr = addr;
  m->nUsed++;
  return &m->a[i];
}

static void live_remove(LiveMap *m, Live *p){
  size_t i = (size_t)(p - m->a), j = i;
  m->a[i].state = 0;
  m->nUsed--;
  for(;;){
    size_t k;
    j = (j+1) & (m->nSlot-1);
    if( m->a[j].state==0 ) return;
    k = live_slot(m, m->a[j].addr);
    /* move j back to i unless its home k lies cyclically in (i, j] */
    if( (i<=j) ? (i<k && k<=j) : (i<k || k<=j) ) continue;
    m->a[i] = m->a[j];
    m->a[j].state = 0;
    i = j;
  }
}

static void live_free(LiveMap *m){
  free(m->a);
  memset(m, 0, sizeof(*m));
}

/* --------------------------------------------------------- the loader */

/* State of one load_snapshot() call.  Statements are finalized and maps
** freed by loader_close(). */
typedef struct Loader {
  sqlite3 *db;
  const LoadTarget *t;
  LoadStats *pStats;
  PfError *pErr;
  sqlite3_stmt *pInsSnap, *pUpdSnap, *pInsSeg, *pInsBlock, *pInsEvent;
  sqlite3_stmt *pInsAnn, *pInsFrame, *pGetFrame, *pInsStack, *pInsStackFrame;
  sqlite3_stmt *pFindStack, *pStackFrames;
  PtrMap frames;            /* frame dict node -> frame.id */
  PtrMap stacks;            /* frame list node -> stack.id (0: empty) */
  StackMap stackContent;    /* frame id sequence -> stack.id */
  int64_t *aFrameId;        /* scratch for one stack */
  size_t nFrameAlloc;
  LiveMap live;
} Loader;

/* Record a warning "WHERE: message" (only the first is kept). */
static void warn(Loader *L, const char *zWhere, const char *zMsg){
  if( L->pStats->nWarnings++==0 ){
    snprintf(L->pStats->zFirstWarning, sizeof(L->pStats->zFirstWarning),
             "%s: %s", zWhere, zMsg);
  }
}

/* Step a prepared INSERT/UPDATE once and reset it; 0 or -1 (pErr). */
static int step_once(Loader *L, sqlite3_stmt *p){
  int rc = sqlite3_step(p);
  sqlite3_reset(p);
  if( rc!=SQLITE_DONE && rc!=SQLITE_ROW ){
    pf_error_set(L->pErr, ERRPOS_NONE, 0, "database: %s",
                 sqlite3_errmsg(L->db));
    return -1;
  }
  return 0;
}

/* Bind a PK_STR value (or NULL for anything else) to parameter i. */
static void bind_str(sqlite3_stmt *p, int i, const PkValue *v){
  if( v && v->t==PK_STR ){
    sqlite3_bind_text(p, i, v->u.s.z, (int)v->u.s.n, SQLITE_STATIC);
  }else{
    sqlite3_bind_null(p, i);
  }
}

/*
** The frame.id of the frame dict f ({"filename","line","name"}), inserting
** a row when this run has not seen it.  Returns the id, 0 when f is not a
** frame dict (skipped), or -1 on a database error.
*/
static int64_t frame_id(Loader *L, const PkValue *f){
  int64_t id = ptrmap_get(&L->frames, f);
  const PkValue *pFile, *pName;
  int64_t line = 0;
  if( id>=0 ) return id;
  pFile = pk_dict_get(f, "filename");
  pName = pk_dict_get(f, "name");
  pk_as_int(pk_dict_get(f, "line"), &line);
  if( f->t!=PK_DICT || (pFile==NULL && pName==NULL) ){
    ptrmap_put(&L->frames, f, 0);
    return 0;
  }
  /* the same frame may come from another node or another file of the run */
  sqlite3_bind_int64(L->pGetFrame, 1, L->t->runId);
  if( pFile && pFile->t==PK_STR ) bind_str(L->pGetFrame, 2, pFile);
  else sqlite3_bind_text(L->pGetFrame, 2, "", 0, SQLITE_STATIC);
  sqlite3_bind_int64(L->pGetFrame, 3, line);
  if( pName && pName->t==PK_STR ) bind_str(L->pGetFrame, 4, pName);
  else sqlite3_bind_text(L->pGetFrame, 4, "", 0, SQLITE_STATIC);
  id = sqlite3_step(L->pGetFrame)==SQLITE_ROW
       ? sqlite3_column_int64(L->pGetFrame, 0) : -1;
  sqlite3_reset(L->pGetFrame);
  if( id<0 ){
    sqlite3_bind_int64(L->pInsFrame, 1, L->t->runId);
    if( pFile && pFile->t==PK_STR ) bind_str(L->pInsFrame, 2, pFile);
    else sqlite3_bind_text(L->pInsFrame, 2, "", 0, SQLITE_STATIC);
    sqlite3_bind_int64(L->pInsFrame, 3, line);
    if( pName && pName->t==PK_STR ) bind_str(L->pInsFrame, 4, pName);
    else sqlite3_bind_text(L->pInsFrame, 4, "", 0, SQLITE_STATIC);
    if( step_once(L, L->pInsFrame) ) return -1;
    id = sqlite3_last_insert_rowid(L->db);
  }
  ptrmap_put(&L->frames, f, id);
  return id;
}

/* Non-zero if stack id has exactly the n frame ids in a. */
static int stack_matches(Loader *L, int64_t id, const int64_t *a, size_t n){
  size_t i = 0;
  int ok = 1;
  sqlite3_bind_int64(L->pStackFrames, 1, id);
  while( sqlite3_step(L->pStackFrames)==SQLITE_ROW ){
    if( i>=n || sqlite3_column_int64(L->pStackFrames, 0)!=a[i] ){
      ok = 0;
      break;
    }
    i++;
  }
  sqlite3_reset(L->pStackFrames);
  return ok && i==n;
}

/*
** The stack.id of the frame list pList (innermost first), inserting the
** stack and its stack_frame rows when new to the run.  Returns 0 when
** pList is NULL, not a list or holds no frame, and -1 on a database error.
*/
static int64_t stack_id(Loader *L, const PkValue *pList){
  int64_t id;
  size_t n = 0;
  uint64_t h = 0xcbf29ce484222325ULL;
  if( pList==NULL || (pList->t!=PK_LIST && pList->t!=PK_TUPLE) ) return 0;
  id = ptrmap_get(&L->stacks, pList);
  if( id>=0 ) return id;
  if( pList->u.seq.n > L->nFrameAlloc ){
    L->nFrameAlloc = pList->u.seq.n;
    L->aFrameId = xrealloc(L->aFrameId, L->nFrameAlloc*sizeof(int64_t));
  }
  for(size_t i=0; i<pList->u.seq.n; i++){
    int64_t f = frame_id(L, pList->u.seq.a[i]);
    if( f<0 ) return -1;
    if( f==0 ) continue;
    L->aFrameId[n++] = f;
    h = fnv(h, &f, sizeof(f));
  }
  if( n==0 ){
    ptrmap_put(&L->stacks, pList, 0);
    return 0;
  }
  h = (mix64(h) & 0x7fffffffffffffffULL) | 1;
  id = stackmap_get(&L->stackContent, h, L->aFrameId, n);
  if( id>=0 ){
    ptrmap_put(&L->stacks, pList, id);
    return id;
  }
  /* a stack with the same frames from another file of the run? */
  sqlite3_bind_int64(L->pFindStack, 1, L->t->runId);
  sqlite3_bind_int64(L->pFindStack, 2, (int64_t)h);
  sqlite3_bind_int64(L->pFindStack, 3, (int64_t)n);
  while( sqlite3_step(L->pFindStack)==SQLITE_ROW ){
    int64_t cand = sqlite3_column_int64(L->pFindStack, 0);
    if( stack_matches(L, cand, L->aFrameId, n) ){ id = cand; break; }
  }
  sqlite3_reset(L->pFindStack);
  if( id<0 ){
    sqlite3_bind_int64(L->pInsStack, 1, L->t->runId);
    sqlite3_bind_int64(L->pInsStack, 2, (int64_t)n);
    sqlite3_bind_int64(L->pInsStack, 3, (int64_t)h);
    if( step_once(L, L->pInsStack) ) return -1;
    id = sqlite3_last_insert_rowid(L->db);
    for(size_t i=0; i<n; i++){
      sqlite3_bind_int64(L->pInsStackFrame, 1, L->t->runId);
      sqlite3_bind_int64(L->pInsStackFrame, 2, id);
      sqlite3_bind_int64(L->pInsStackFrame, 3, (int64_t)i);
      sqlite3_bind_int64(L->pInsStackFrame, 4, L->aFrameId[i]);
      if( step_once(L, L->pInsStackFrame) ) return -1;
    }
  }
  ptrmap_put(&L->stacks, pList, id);
  stackmap_put(&L->stackContent, h, L->aFrameId, n, id);
  return id;
}

/* Prepare every statement; 0 or -1 (pErr). */
static int loader_open(Loader *L){
  struct { sqlite3_stmt **pp; const char *zSql; } a[] = {
    { &L->pInsSnap,
      "INSERT INTO snapshot(run_id, file_id, rank, device, layout,"
      " block_format, n_segments, n_blocks, n_events, has_trace,"
      " reserved_bytes, allocated_bytes, active_bytes, inactive_bytes,"
      " pending_free_bytes, internal_free_bytes, alloc_conf,"
      " expandable_segments, max_split_size, gc_threshold)"
      " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,"
      "?17,?18,?19,?20)" },
    { &L->pUpdSnap,
      "UPDATE snapshot SET net_delta_bytes=?2, baseline_bytes=?3,"
      " trace_live_bytes=?4, n_orphan_frees=?5, peak_allocated_bytes=?6,"
      " peak_event_idx=?7, peak_time_us=?8, peak_reserved_bytes=?9,"
      " max_reserved_bytes=?10, first_time_us=?11, last_time_us=?12"
      " WHERE id=?1" },
    { &L->pInsSeg,
      "INSERT INTO segment(run_id, file_id, snapshot_id, idx, device,"
      " address, total_size, allocated_size, active_size, requested_size,"
      " stream, segment_type, pool_id, is_expandable, stack_id, n_blocks,"
      " inactive_bytes, largest_inactive_bytes)"
      " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,"
      "?17,?18)" },
    { &L->pInsBlock,
      "INSERT INTO block(run_id, file_id, snapshot_id, segment_id, idx,"
      " address, size, requested_size, state, stack_id, prev_state,"
      " next_state, alloc_idx, free_idx)"
      " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)" },
    { &L->pInsEvent,
      "INSERT INTO alloc_event(run_id, file_id, snapshot_id, idx, action,"
      " addr, size, stream, time_us, stack_id, device_free,"
      " allocated_after, active_after, reserved_after, alloc_idx, free_idx)"
      " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16)" },
    { &L->pInsAnn,
      "INSERT INTO memory_annotation(run_id, file_id, snapshot_id, time_us,"
      " stage, name) VALUES(?1,?2,?3,?4,?5,?6)" },
    { &L->pInsFrame,
      "INSERT INTO frame(run_id, filename, line, name) VALUES(?1,?2,?3,?4)" },
    { &L->pGetFrame,
      "SELECT id FROM frame WHERE run_id=?1 AND filename=?2 AND line=?3"
      " AND name=?4" },
    { &L->pInsStack,
      "INSERT INTO stack(run_id, n_frames, key_hash) VALUES(?1,?2,?3)" },
    { &L->pInsStackFrame,
      "INSERT INTO stack_frame(run_id, stack_id, pos, frame_id)"
      " VALUES(?1,?2,?3,?4)" },
    { &L->pFindStack,
      "SELECT id FROM stack WHERE run_id=?1 AND key_hash=?2 AND n_frames=?3" },
    { &L->pStackFrames,
      "SELECT frame_id FROM stack_frame WHERE stack_id=?1 ORDER BY pos" },
  };
  for(size_t i=0; i<sizeof(a)/sizeof(a[0]); i++){
    *a[i].pp = db_prepare(L->db, a[i].zSql, L->pErr);
    if( *a[i].pp==NULL ) return -1;
  }
  return 0;
}

static void loader_close(Loader *L){
  sqlite3_stmt *a[] = { L->pInsSnap, L->pUpdSnap, L->pInsSeg, L->pInsBlock,
    L->pInsEvent, L->pInsAnn, L->pInsFrame, L->pGetFrame, L->pInsStack,
    L->pInsStackFrame, L->pFindStack, L->pStackFrames };
  for(size_t i=0; i<sizeof(a)/sizeof(a[0]); i++) sqlite3_finalize(a[i]);
  ptrmap_free(&L->frames);
  ptrmap_free(&L->stacks);
  stackmap_free(&L->stackContent);
  live_free(&L->live);
  free(L->aFrameId);
}

/* ------------------------------------------------- per-device totals */

/* What one device's segments add up to (first walk, no rows written). */
typedef struct DevTotals {
  int64_t nSeg, nBlock;
  int64_t reserved, allocated, active, inactive, pending, internal;
  int64_t allocatedReq, activeReq;   /* requested bytes: replay anchors */
  int legacy;                        /* a block without "address" */
} DevTotals;

/* Requested bytes of block b: requested_size, else history[0].real_size,
** else size (segsum's rule). */
static int64_t block_requested(const PkValue *b, int64_t size){
  int64_t v;
  const PkValue *h;
  if( pk_as_int(pk_dict_get(b, "requested_size"), &v)==0 ) return v;
  h = pk_dict_get(b, "history");
  if( h && (h->t==PK_LIST) && h->u.seq.n>0
      && pk_as_int(pk_dict_get(h->u.seq.a[0], "real_size"), &v)==0 ){
    return v;
  }
  return size;
}

/* Stack frames of block b: "frames", else history[0].frames. */
static const PkValue *block_frames(const PkValue *b){
  const PkValue *f = pk_dict_get(b, "frames"), *h;
  if( f ) return f;
  h = pk_dict_get(b, "history");
  if( h && h->t==PK_LIST && h->u.seq.n>0 ){
    return pk_dict_get(h->u.seq.a[0], "frames");
  }
  return NULL;
}

/* Add segment s to *p. */
static void totals_add(DevTotals *p, const PkValue *s){
  const PkValue *pBlocks = pk_dict_get(s, "blocks");
  p->nSeg++;
  p->reserved += dict_int(s, "total_size", NULL);
  if( pBlocks==NULL || pBlocks->t!=PK_LIST ) return;
  for(size_t j=0; j<pBlocks->u.seq.n; j++){
    const PkValue *b = pBlocks->u.seq.a[j];
    const PkValue *st = pk_dict_get(b, "state");
    int64_t size = dict_int(b, "size", NULL), req;
    if( b->t!=PK_DICT ) continue;
    p->nBlock++;
    if( pk_dict_get(b, "address")==NULL ) p->legacy = 1;
    req = block_requested(b, size);
    if( pk_str_eq(st, "active_allocated") ){
      p->allocated += req;
      p->active += size;
      p->internal += size - req;
      p->allocatedReq += req;
      p->activeReq += req;
    }else if( pk_str_eq(st, "active_pending_free") ){
      p->active += size;
      p->pending += size;
      p->activeReq += req;
    }else{
      p->inactive += size;
    }
  }
}

/* ------------------------------------------------------------- replay */

/* Replay counters. */
typedef struct Replay {
  int64_t allocated, active, reserved;
} Replay;

/* Apply entry e (action code a, size) to *r. */
static void replay_apply(Replay *r, int a, int64_t size, int liveAlloc){
  switch( a ){
    case ACT_ALLOC: r->allocated += size; r->active += size; break;
    case ACT_FREE_REQ: r->allocated -= size; break;
    case ACT_FREE_DONE:
      r->active -= size;
      if( liveAlloc ) r->allocated -= size;   /* no free_requested seen */
      break;
    case ACT_SEG_ALLOC: case ACT_SEG_MAP: r->reserved += size; break;
    case ACT_SEG_FREE: case ACT_SEG_UNMAP: r->reserved -= size; break;
    default: break;
  }
}

/* Write the alloc row of live block p with free index iFree (-1: none). */
static int write_alloc(Loader *L, int64_t snapId, const Live *p,
                       int64_t iFree){
  sqlite3_stmt *s = L->pInsEvent;
  sqlite3_bind_int64(s, 1, L->t->runId);
  sqlite3_bind_int64(s, 2, L->t->fileId);
  sqlite3_bind_int64(s, 3, snapId);
  sqlite3_bind_int64(s, 4, p->idx);
  sqlite3_bind_text(s, 5, "alloc", 5, SQLITE_STATIC);
  sqlite3_bind_int64(s, 6, (int64_t)p->addr);
  sqlite3_bind_int64(s, 7, p->size);
  sqlite3_bind_int64(s, 8, p->stream);
  db_bind_int_or_null(s, 9, p->hasTime, p->timeUs);
  db_bind_int_or_null(s, 10, p->stackId>0, p->stackId);
  sqlite3_bind_null(s, 11);
  sqlite3_bind_int64(s, 12, p->allocated);
  sqlite3_bind_int64(s, 13, p->active);
  sqlite3_bind_int64(s, 14, p->reserved);
  sqlite3_bind_null(s, 15);
  db_bind_int_or_null(s, 16, iFree>=0, iFree);
  return step_once(L, s);
}

/* Results of one device's replay, stored in the snapshot row. */
typedef struct ReplayOut {
  int64_t net, baseline, traceLive, nOrphan;
  int64_t peak, peakIdx, peakTime, peakReserved, maxReserved;
  int64_t firstTime, lastTime;
  int hasPeakTime, hasTimes;
} ReplayOut;

/* Order of live blocks left at the end: by alloc index. */
static int cmp_live_idx(const void *a, const void *b){
  const Live *x = *(const Live*const*)a, *y = *(const Live*const*)b;
  return x->idx<y->idx ? -1 : x->idx>y->idx;
}

/*
** Replay trace (device_traces[d], may be NULL) into alloc_event rows of
** snapshot snapId, anchored at the totals *pT.  On return L->live holds
** the blocks still allocated (LIVE_ALLOC) or pending (LIVE_REQUESTED) at
** the end, for the block rows.  Returns 0 or -1 (pErr).
*/
static int replay_device(Loader *L, int64_t snapId, int dev,
                         const PkValue *trace, const DevTotals *pT,
                         ReplayOut *pOut){
  Replay net = {0, 0, 0}, r;
  size_t n = (trace && trace->t==PK_LIST) ? trace->u.seq.n : 0;
  char zWhere[64];
  memset(pOut, 0, sizeof(*pOut));
  pOut->peak = pT->allocatedReq;
  pOut->peakIdx = -1;
  pOut->maxReserved = pT->reserved;
  pOut->peakReserved = pT->reserved;
  /* pass 1: net change, so the running values can be anchored */
  for(size_t i=0; i<n; i++){
    const PkValue *e = trace->u.seq.a[i];
    int a = action_code(pk_dict_get(e, "action"));
    int64_t size = dict_int(e, "size", NULL);
    int liveAlloc = 0;
    if( a==ACT_ALLOC ){
      Live *p = live_insert(&L->live, (uint64_t)dict_int(e, "addr", NULL));
      p->state = LIVE_ALLOC;
    }else if( a==ACT_FREE_REQ || a==ACT_FREE_DONE ){
      Live *p = live_find(&L->live, (uint64_t)dict_int(e, "addr", NULL));
      if( p && a==ACT_FREE_REQ ) p->state = LIVE_REQUESTED;
      else if( p ){
        liveAlloc = p->state==LIVE_ALLOC;
        live_remove(&L->live, p);
      }
    }
    replay_apply(&net, a, size, liveAlloc);
  }
  live_free(&L->live);
  r.allocated = pT->allocatedReq - net.allocated;
  r.active = pT->activeReq - net.active;
  r.reserved = pT->reserved - net.reserved;
  pOut->net = net.allocated;
  pOut->baseline = r.allocated;
  /* pass 2: rows */
  for(size_t i=0; i<n; i++){
    const PkValue *e = trace->u.seq.a[i];
    const PkValue *pAct = pk_dict_get(e, "action");
    int a = action_code(pAct);
    int hasAddr, hasTime, hasFree;
    int64_t addr = dict_int(e, "addr", &hasAddr);
    int64_t size = dict_int(e, "size", NULL);
    int64_t stream = dict_int(e, "stream", NULL);
    int64_t timeUs = dict_int(e, "time_us", &hasTime);
    int64_t devFree = dict_int(e, "device_free", &hasFree);
    int64_t stackId, allocIdx = -1;
    int liveAlloc = 0;
    sqlite3_stmt *s = L->pInsEvent;
    if( e->t!=PK_DICT || a==ACT_UNKNOWN ){
      snprintf(zWhere, sizeof(zWhere), "device_traces[%d][%zu]", dev, i);
      warn(L, zWhere, e->t!=PK_DICT ? "entry is not a dict"
                                    : "unknown or missing action");
    }
    if( hasTime ){
      if( !pOut->hasTimes ) pOut->firstTime = timeUs;
      pOut->hasTimes = 1;
      pOut->lastTime = timeUs;
    }
    stackId = stack_id(L, pk_dict_get(e, "frames"));
    if( stackId<0 ) return -1;
    if( a==ACT_FREE_REQ || a==ACT_FREE_DONE ){
      Live *p = live_find(&L->live, (uint64_t)addr);
      if( p ){
        allocIdx = p->idx;
        if( a==ACT_FREE_REQ ){
          if( p->state==LIVE_ALLOC && write_alloc(L, snapId, p, (int64_t)i) ){
            return -1;
          }
          p->state = LIVE_REQUESTED;
          p->freeIdx = (int64_t)i;
        }else{
          liveAlloc = p->state==LIVE_ALLOC;
          if( liveAlloc && write_alloc(L, snapId, p, (int64_t)i) ) return -1;
          live_remove(&L->live, p);
        }
      }else if( a==ACT_FREE_REQ ){
        pOut->nOrphan++;
      }
    }
    replay_apply(&r, a, size, liveAlloc);
    if( r.allocated > pOut->peak || pOut->peakIdx<0 ){
      pOut->peak = r.allocated;
      pOut->peakIdx = (int64_t)i;
      pOut->peakTime = timeUs;
      pOut->hasPeakTime = hasTime;
      pOut->peakReserved = r.reserved;
    }
    if( i==0 || r.reserved > pOut->maxReserved ){
      pOut->maxReserved = r.reserved;
    }
    if( a==ACT_ALLOC ){
      Live *p = live_insert(&L->live, (uint64_t)addr);
      if( p->state ){
        /* allocated twice without a free in between: keep the newer */
        snprintf(zWhere, sizeof(zWhere), "device_traces[%d][%zu]", dev, i);
        warn(L, zWhere, "alloc of an address that is already allocated");
        if( p->state==LIVE_ALLOC && write_alloc(L, snapId, p, -1) ) return -1;
      }
      p->state = LIVE_ALLOC;
      p->idx = (int64_t)i;
      p->freeIdx = -1;
      p->size = size;
      p->stream = stream;
      p->timeUs = timeUs;
      p->hasTime = hasTime;
      p->stackId = stackId;
      p->allocated = r.allocated;
      p->active = r.active;
      p->reserved = r.reserved;
      continue;                /* its row is written when it is freed */
    }
    sqlite3_bind_int64(s, 1, L->t->runId);
    sqlite3_bind_int64(s, 2, L->t->fileId);
    sqlite3_bind_int64(s, 3, snapId);
    sqlite3_bind_int64(s, 4, (int64_t)i);
    if( a==ACT_UNKNOWN ){
      if( pAct && pAct->t==PK_STR ) bind_str(s, 5, pAct);
      else sqlite3_bind_text(s, 5, "?", 1, SQLITE_STATIC);
    }else{
      sqlite3_bind_text(s, 5, azAction[a], -1, SQLITE_STATIC);
    }
    db_bind_int_or_null(s, 6, hasAddr && a!=ACT_OOM, addr);
    sqlite3_bind_int64(s, 7, size);
    sqlite3_bind_int64(s, 8, stream);
    db_bind_int_or_null(s, 9, hasTime, timeUs);
    db_bind_int_or_null(s, 10, stackId>0, stackId);
    db_bind_int_or_null(s, 11, hasFree, devFree);
    sqlite3_bind_int64(s, 12, r.allocated);
    sqlite3_bind_int64(s, 13, r.active);
    sqlite3_bind_int64(s, 14, r.reserved);
    db_bind_int_or_null(s, 15, allocIdx>=0, allocIdx);
    sqlite3_bind_null(s, 16);
    if( step_once(L, s) ) return -1;
  }
  /* allocs never freed in the trace: their rows, in trace order */
  if( L->live.nUsed>0 ){
    Live **ap = xmalloc(L->live.nUsed*sizeof(Live*));
    size_t k = 0;
    int rc = 0;
    for(size_t j=0; j<L->live.nSlot; j++){
      if( L->live.a[j].state ) ap[k++] = &L->live.a[j];
    }
    qsort(ap, k, sizeof(Live*), cmp_live_idx);
    for(size_t j=0; j<k && rc==0; j++){
      if( ap[j]->state==LIVE_ALLOC ){
        pOut->traceLive += ap[j]->size;
        rc = write_alloc(L, snapId, ap[j], -1);
      }
    }
    free(ap);
    if( rc ) return -1;
  }
  return 0;
}

/* ------------------------------------------------------- segment rows */

/* Write segment s (index iSeg) and its blocks for snapshot snapId. */
static int write_segment(Loader *L, int64_t snapId, size_t iSeg,
                         const PkValue *s, int dev){
  const PkValue *pBlocks = pk_dict_get(s, "blocks");
  const PkValue *pPool = pk_dict_get(s, "segment_pool_id");
  size_t nb = (pBlocks && pBlocks->t==PK_LIST) ? pBlocks->u.seq.n : 0;
  int hasAddr, has;
  int64_t base = dict_int(s, "address", &hasAddr), addr = base, v;
  int64_t total = dict_int(s, "total_size", NULL);
  int64_t inactive = 0, largest = 0, segId, stackId, sum = 0;
  sqlite3_stmt *p = L->pInsSeg;
  char zPool[64];
  for(size_t j=0; j<nb; j++){
    const PkValue *b = pBlocks->u.seq.a[j];
    if( !pk_str_eq(pk_dict_get(b, "state"), "active_allocated")
     && !pk_str_eq(pk_dict_get(b, "state"), "active_pending_free") ){
      v = dict_int(b, "size", NULL);
      inactive += v;
      if( v>largest ) largest = v;
    }
  }
  stackId = stack_id(L, pk_dict_get(s, "frames"));
  if( stackId<0 ) return -1;
  sqlite3_bind_int64(p, 1, L->t->runId);
  sqlite3_bind_int64(p, 2, L->t->fileId);
  sqlite3_bind_int64(p, 3, snapId);
  sqlite3_bind_int64(p, 4, (int64_t)iSeg);
  sqlite3_bind_int64(p, 5, dev);
  db_bind_int_or_null(p, 6, hasAddr, base);
  sqlite3_bind_int64(p, 7, total);
  v = dict_int(s, "allocated_size", &has); db_bind_int_or_null(p, 8, has, v);
  v = dict_int(s, "active_size", &has);    db_bind_int_or_null(p, 9, has, v);
  v = dict_int(s, "requested_size", &has); db_bind_int_or_null(p, 10, has, v);
  v = dict_int(s, "stream", &has);         db_bind_int_or_null(p, 11, has, v);
  bind_str(p, 12, pk_dict_get(s, "segment_type"));
  if( pPool && (pPool->t==PK_TUPLE || pPool->t==PK_LIST)
      && pPool->u.seq.n==2 ){
    int64_t x = 0, y = 0;
    pk_as_int(pPool->u.seq.a[0], &x);
    pk_as_int(pPool->u.seq.a[1], &y);
    snprintf(zPool, sizeof(zPool), "(%lld,%lld)", (long long)x, (long long)y);
    sqlite3_bind_text(p, 13, zPool, -1, SQLITE_TRANSIENT);
  }else{
    sqlite3_bind_null(p, 13);
  }
  v = dict_int(s, "is_expandable", &has);  db_bind_int_or_null(p, 14, has, v);
  db_bind_int_or_null(p, 15, stackId>0, stackId);
  sqlite3_bind_int64(p, 16, (int64_t)nb);
  sqlite3_bind_int64(p, 17, inactive);
  sqlite3_bind_int64(p, 18, largest);
  if( step_once(L, p) ) return -1;
  segId = sqlite3_last_insert_rowid(L->db);

  for(size_t j=0; j<nb; j++){
    const PkValue *b = pBlocks->u.seq.a[j];
    const PkValue *pState = pk_dict_get(b, "state");
    int64_t size = dict_int(b, "size", NULL), baddr;
    int hasB;
    Live *pLive = NULL;
    sqlite3_stmt *q = L->pInsBlock;
    if( b->t!=PK_DICT ){
      char zWhere[64];
      snprintf(zWhere, sizeof(zWhere), "segments[%zu].blocks[%zu]", iSeg, j);
      warn(L, zWhere, "block is not a dict");
      continue;
    }
    baddr = dict_int(b, "address", &hasB);
    if( !hasB ){ baddr = addr; hasB = hasAddr; }
    addr = baddr + size;
    sum += size;
    stackId = stack_id(L, block_frames(b));
    if( stackId<0 ) return -1;
    if( hasB && !pk_str_eq(pState, "inactive") ){
      pLive = live_find(&L->live, (uint64_t)baddr);
    }
    sqlite3_bind_int64(q, 1, L->t->runId);
    sqlite3_bind_int64(q, 2, L->t->fileId);
    sqlite3_bind_int64(q, 3, snapId);
    sqlite3_bind_int64(q, 4, segId);
    sqlite3_bind_int64(q, 5, (int64_t)j);
    db_bind_int_or_null(q, 6, hasB, baddr);
    sqlite3_bind_int64(q, 7, size);
    sqlite3_bind_int64(q, 8, block_requested(b, size));
    if( pState && pState->t==PK_STR ) bind_str(q, 9, pState);
    else sqlite3_bind_text(q, 9, "inactive", -1, SQLITE_STATIC);
    db_bind_int_or_null(q, 10, stackId>0, stackId);
    if( j>0 ) bind_str(q, 11, pk_dict_get(pBlocks->u.seq.a[j-1], "state"));
    else sqlite3_bind_null(q, 11);
    if( j+1<nb ) bind_str(q, 12, pk_dict_get(pBlocks->u.seq.a[j+1], "state"));
    else sqlite3_bind_null(q, 12);
    db_bind_int_or_null(q, 13, pLive!=NULL, pLive ? pLive->idx : 0);
    db_bind_int_or_null(q, 14, pLive && pLive->state==LIVE_REQUESTED,
                        pLive ? pLive->freeIdx : 0);
    if( step_once(L, q) ) return -1;
  }
  if( nb>0 && sum!=total ){
    char zWhere[64], zMsg[128];
    snprintf(zWhere, sizeof(zWhere), "segments[%zu]", iSeg);
    snprintf(zMsg, sizeof(zMsg), "blocks add up to %lld bytes, total_size "
             "is %lld", (long long)sum, (long long)total);
    warn(L, zWhere, zMsg);
  }
  return 0;
}

/* ------------------------------------------------------------ entry */

int snapshot_is_snapshot(const PkValue *pRoot){
  const PkValue *s;
  if( pRoot==NULL ) return 0;
  if( pRoot->t==PK_DICT ){
    s = pk_dict_get(pRoot, "segments");
    return s && s->t==PK_LIST;
  }
  if( pRoot->t==PK_LIST && pRoot->u.seq.n>0 ){
    /* a bare segment list: every item a dict with blocks and total_size */
    for(size_t i=0; i<pRoot->u.seq.n; i++){
      const PkValue *x = pRoot->u.seq.a[i];
      if( pk_dict_get(x, "blocks")==NULL
       || pk_dict_get(x, "total_size")==NULL ) return 0;
    }
    return 1;
  }
  return 0;
}

/* Largest device ordinal named by a segment, or -1. */
static int max_device(const PkValue *pSegs){
  int m = -1;
  for(size_t i=0; i<pSegs->u.seq.n; i++){
    int64_t d = dict_int(pSegs->u.seq.a[i], "device", NULL);
    if( d>m && d<4096 ) m = (int)d;
  }
  return m;
}

/* Non-zero if device d has a segment or a trace entry. */
static int device_used(const PkValue *pSegs, const PkValue *pTraces, int d){
  const PkValue *tr;
  for(size_t i=0; i<pSegs->u.seq.n; i++){
    if( dict_int(pSegs->u.seq.a[i], "device", NULL)==d ) return 1;
  }
  if( pTraces==NULL || (size_t)d>=pTraces->u.seq.n ) return 0;
  tr = pTraces->u.seq.a[d];
  return tr->t==PK_LIST && tr->u.seq.n>0;
}

int load_snapshot(sqlite3 *db, const LoadTarget *t, const PkValue *pRoot,
                  LoadStats *pStats, PfError *pErr){
  Loader L;
  const PkValue *pSegs, *pTraces = NULL, *pSet = NULL, *pAnn = NULL;
  int isDict = pRoot->t==PK_DICT, nDev, rc = -1, anyDev = 0;
  memset(&L, 0, sizeof(L));
  L.db = db;
  L.t = t;
  L.pStats = pStats;
  L.pErr = pErr;
  snprintf(pStats->zKind, sizeof(pStats->zKind), "snapshot");
  pStats->rank = -1;
  if( isDict ){
    pSegs = pk_dict_get(pRoot, "segments");
    pTraces = pk_dict_get(pRoot, "device_traces");
    pSet = pk_dict_get(pRoot, "allocator_settings");
    pAnn = pk_dict_get(pRoot, "external_annotations");
    if( pTraces && pTraces->t!=PK_LIST ){
      warn(&L, "device_traces", "not a list; ignored");
      pTraces = NULL;
    }
    if( pSet && pSet->t!=PK_DICT ) pSet = NULL;
  }else{
    pSegs = pRoot;
  }
  nDev = max_device(pSegs) + 1;
  if( pTraces && (int)pTraces->u.seq.n > nDev ) nDev = (int)pTraces->u.seq.n;
  if( nDev==0 ) nDev = 1;
  for(int d=0; d<nDev && !anyDev; d++) anyDev = device_used(pSegs, pTraces, d);
  if( loader_open(&L) ) goto done;

  for(int d=0; d<nDev; d++){
    DevTotals tot;
    ReplayOut ro;
    const PkValue *trace = NULL;
    const PkValue *pConf = pk_dict_get(pSet, "PYTORCH_CUDA_ALLOC_CONF");
    sqlite3_stmt *p = L.pInsSnap;
    int64_t snapId, v;
    int has;
    double gc;
    size_t nEv;
    memset(&tot, 0, sizeof(tot));
    for(size_t i=0; i<pSegs->u.seq.n; i++){
      const PkValue *s = pSegs->u.seq.a[i];
      if( s->t==PK_DICT && dict_int(s, "device", NULL)==d ) totals_add(&tot, s);
    }
    if( pTraces && (size_t)d<pTraces->u.seq.n ) trace = pTraces->u.seq.a[d];
    nEv = (trace && trace->t==PK_LIST) ? trace->u.seq.n : 0;
    /* a device with neither segments nor events gets no row, except
    ** device 0 of a snapshot that is empty everywhere */
    if( tot.nSeg==0 && nEv==0 && (d>0 || anyDev) ) continue;
    sqlite3_bind_int64(p, 1, t->runId);
    sqlite3_bind_int64(p, 2, t->fileId);
    sqlite3_bind_null(p, 3);
    sqlite3_bind_int64(p, 4, d);
    sqlite3_bind_text(p, 5, isDict ? "dict" : "segment_list", -1,
                      SQLITE_STATIC);
    db_bind_text_or_null(p, 6, tot.nBlock==0 ? NULL
                               : tot.legacy ? "history" : "address", -1);
    sqlite3_bind_int64(p, 7, tot.nSeg);
    sqlite3_bind_int64(p, 8, tot.nBlock);
    sqlite3_bind_int64(p, 9, (int64_t)nEv);
    sqlite3_bind_int(p, 10, pTraces!=NULL);
    sqlite3_bind_int64(p, 11, tot.reserved);
    sqlite3_bind_int64(p, 12, tot.allocated);
    sqlite3_bind_int64(p, 13, tot.active);
    sqlite3_bind_int64(p, 14, tot.inactive);
    sqlite3_bind_int64(p, 15, tot.pending);
    sqlite3_bind_int64(p, 16, tot.internal);
    bind_str(p, 17, pConf);
    v = dict_int(pSet, "expandable_segments", &has);
    db_bind_int_or_null(p, 18, has, v);
    v = dict_int(pSet, "max_split_size", &has);
    db_bind_int_or_null(p, 19, has, v);
    has = pk_as_double(pk_dict_get(pSet, "garbage_collection_threshold"),
                       &gc)==0;
    db_bind_double_or_null(p, 20, has, has ? gc : 0.0);
    if( step_once(&L, p) ) goto done;
    snapId = sqlite3_last_insert_rowid(db);

    if( replay_device(&L, snapId, d, trace, &tot, &ro) ) goto done;
    p = L.pUpdSnap;
    sqlite3_bind_int64(p, 1, snapId);
    db_bind_int_or_null(p, 2, trace!=NULL, ro.net);
    db_bind_int_or_null(p, 3, trace!=NULL, ro.baseline);
    db_bind_int_or_null(p, 4, trace!=NULL, ro.traceLive);
    db_bind_int_or_null(p, 5, trace!=NULL, ro.nOrphan);
    sqlite3_bind_int64(p, 6, ro.peak);
    db_bind_int_or_null(p, 7, ro.peakIdx>=0, ro.peakIdx);
    db_bind_int_or_null(p, 8, ro.hasPeakTime, ro.peakTime);
    sqlite3_bind_int64(p, 9, ro.peakReserved);
    sqlite3_bind_int64(p, 10, ro.maxReserved);
    db_bind_int_or_null(p, 11, ro.hasTimes, ro.firstTime);
    db_bind_int_or_null(p, 12, ro.hasTimes, ro.lastTime);
    if( step_once(&L, p) ) goto done;

    for(size_t i=0; i<pSegs->u.seq.n; i++){
      const PkValue *s = pSegs->u.seq.a[i];
      if( s->t!=PK_DICT ){
        if( d==0 ){
          char zWhere[40];
          snprintf(zWhere, sizeof(zWhere), "segments[%zu]", i);
          warn(&L, zWhere, "segment is not a dict");
        }
        continue;
      }
      if( dict_int(s, "device", NULL)!=d ) continue;
      if( write_segment(&L, snapId, i, s, d) ) goto done;
    }
    live_free(&L.live);

    /* external annotations of this device */
    if( pAnn && pAnn->t==PK_LIST ){
      for(size_t i=0; i<pAnn->u.seq.n; i++){
        const PkValue *a = pAnn->u.seq.a[i];
        int hasT;
        int64_t tu = dict_int(a, "time_us", &hasT);
        if( a->t!=PK_DICT || dict_int(a, "device", NULL)!=d ) continue;
        p = L.pInsAnn;
        sqlite3_bind_int64(p, 1, t->runId);
        sqlite3_bind_int64(p, 2, t->fileId);
        sqlite3_bind_int64(p, 3, snapId);
        db_bind_int_or_null(p, 4, hasT, tu);
        bind_str(p, 5, pk_dict_get(a, "stage"));
        bind_str(p, 6, pk_dict_get(a, "name"));
        if( step_once(&L, p) ) goto done;
      }
    }
    pStats->nRecords += tot.nSeg + tot.nBlock + (int64_t)nEv;
  }
  rc = 0;
done:
  loader_close(&L);
  return rc;
}
