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
** Layouts (docs/formats.md §2): a dict with "segments" (+ "device_traces",
** "allocator_settings", "external_annotations"), or a bare list of segment
** dicts.  Blocks carry "address" and "frames" (2.1+) or neither, with an
** optional "history" (1.13/2.0): the address is then the segment base plus
** the sizes before it.
**
** Replay, per device, in two passes.  The first (trace_add) takes each
** entry as it comes, streamed in by the decoder while it reads the file
** (load_pickle.c, pickle_decode_stream) or from the decoded tree: it
** keeps the entry in a compact 40-byte Ev (the dict itself is dropped),
** resolves its stack, matches frees to allocs through a live-block hash
** table keyed by address (so each alloc learns its free's index), and sums
** the net change of allocated, active and reserved bytes.  The second
** (trace_write) writes every alloc_event row in index order, with the
** running values anchored so that the state after the last entry equals
** the snapshot's own totals (the trace is a ring buffer, so allocations
** made before its first entry are accounted for), through one INSERT ...
** SELECT from a virtual table that reads the Ev array (the "feed").
** Memory: 40 bytes per entry plus the live blocks, not the decoded tree.
**
** Bad values (field_int, field_str, warn_field): a field of the wrong
** pickle type, past int64 or negative where that means nothing is a
** counted warning (LoadStats.nWarnings, the first one's place and text
** kept), never stored as is.  An entry or block that means nothing without
** it (an entry's action, addr or size; a block's size) is skipped; any
** other field is taken as absent (NULL or 0).  Strings are stored with
** bytes that are not valid UTF-8 replaced by '?' (bind_text), warned.
*/
#include "input/load_kinds.h"
#include "core/db.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

/* The virtual table that feeds alloc_event rows (trace_write); its
** columns: statements/load-snapshot-feed.sql (alloc_event's). */
#define FEED_NAME "profan_snapshot_event_feed"

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
  int64_t size;              /* requested bytes */
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

/* State of the load of one snapshot file (SnapLoader in load_kinds.h).
** Statements are finalized and maps freed by loader_close(). */
typedef struct SnapLoader Loader;
typedef struct Feed Feed;
static const sqlite3_module feedModule;   /* defined with the feed below */
struct SnapLoader {
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
  StackMap frameContent;    /* frame (file, name string addresses and
                            ** lengths, line) -> frame.id */
  int64_t *aFrameId;        /* scratch for one stack */
  size_t nFrameAlloc;
  struct DevTrace *aDev;    /* traces streamed in, by device */
  size_t nDev;
  Feed *pFeed;              /* the rows pInsEvent is writing, if any */
  const char *azActSeen[ACT_UNKNOWN]; /* action strings seen, by code */
  size_t anActSeen[ACT_UNKNOWN];
  int bModule;              /* the feed table is registered */
  char *zFix;               /* scratch for a string repaired by bind_text */
  size_t nFix;
};

/* Record a warning "WHERE: message" (only the first is kept). */
static void warn(Loader *L, const char *zWhere, const char *zMsg){
  if( L->pStats->nWarnings++==0 ){
    snprintf(L->pStats->zFirstWarning, sizeof(L->pStats->zFirstWarning),
             "%s: %s", zWhere, zMsg);
  }
}

/* Where a warning is: a segment, a block, a trace entry, a device trace,
** an annotation or the allocator settings; formatted only for the first
** warning (the trace has millions of entries). */
enum { W_SEG, W_BLOCK, W_TRACE, W_DEVTRACE, W_ANN, W_SETTINGS };
typedef struct Where {
  int kind;                 /* W_* */
  size_t a, b;              /* segment [, block]; device [, entry];
                            ** annotation */
} Where;

/* Record a warning at *w (a printf-style message; only the first is
** formatted and kept). */
static void warnf(Loader *L, const Where *w, const char *zFmt, ...)
    PF_PRINTF(3, 4);
static void warnf(Loader *L, const Where *w, const char *zFmt, ...){
  char zWhere[64], zMsg[180];
  va_list ap;
  if( L->pStats->nWarnings>0 ){ L->pStats->nWarnings++; return; }
  switch( w->kind ){
    case W_SEG:
      snprintf(zWhere, sizeof(zWhere), "segments[%zu]", w->a);
      break;
    case W_BLOCK:
      snprintf(zWhere, sizeof(zWhere), "segments[%zu].blocks[%zu]", w->a,
               w->b);
      break;
    case W_TRACE:
      snprintf(zWhere, sizeof(zWhere), "device_traces[%zu][%zu]", w->a,
               w->b);
      break;
    case W_DEVTRACE:
      snprintf(zWhere, sizeof(zWhere), "device_traces[%zu]", w->a);
      break;
    case W_ANN:
      snprintf(zWhere, sizeof(zWhere), "external_annotations[%zu]", w->a);
      break;
    default:
      snprintf(zWhere, sizeof(zWhere), "allocator_settings");
      break;
  }
  va_start(ap, zFmt);
  vsnprintf(zMsg, sizeof(zMsg), zFmt, ap);
  va_end(ap);
  warn(L, zWhere, zMsg);
}

/* How a field of a dict reads (field_int, field_str): absent (or None
** where None means absent), usable, or not and why. */
enum { FV_ABSENT, FV_OK, FV_TYPE, FV_RANGE, FV_NEG };
/* What a field may hold besides its type (flags of field_int/field_str). */
enum { FV_NONE_OK = 1, FV_NEG_OK = 2 };

/* The integer field v: FV_OK with *pOut set, else *pOut = 0 and FV_ABSENT
** (no key, or None with FV_NONE_OK), FV_TYPE (not an int: bools and
** floats included), FV_RANGE (past int64) or FV_NEG (negative without
** FV_NEG_OK). */
static int field_int(const PkValue *v, int flags, int64_t *pOut){
  *pOut = 0;
  if( v==NULL ) return FV_ABSENT;
  switch( v->t ){
    case PK_NONE: return (flags & FV_NONE_OK) ? FV_ABSENT : FV_TYPE;
    case PK_BIGINT: return FV_RANGE;
    case PK_INT:
      if( v->u.i<0 && !(flags & FV_NEG_OK) ) return FV_NEG;
      *pOut = v->u.i;
      return FV_OK;
    default: return FV_TYPE;
  }
}

/* The string field v: FV_OK, FV_ABSENT (no key, or None with FV_NONE_OK)
** or FV_TYPE. */
static int field_str(const PkValue *v, int flags){
  if( v==NULL ) return FV_ABSENT;
  if( v->t==PK_STR ) return FV_OK;
  return (v->t==PK_NONE && (flags & FV_NONE_OK)) ? FV_ABSENT : FV_TYPE;
}

/* "an int", "None", ...: the type of v for a message. */
static const char *type_phrase(const PkValue *v){
  switch( v->t ){
    case PK_NONE: return "None";
    case PK_INT: case PK_BIGINT: return "an int";
    case PK_BYTES: return "bytes";
    case PK_STR: return "a str";
    case PK_FLOAT: return "a float";
    case PK_BOOL: return "a bool";
    case PK_LIST: return "a list";
    case PK_TUPLE: return "a tuple";
    case PK_DICT: return "a dict";
  }
  return "?";
}

/* Warn at *w that field zKey (value v, read as fv, not FV_OK/FV_ABSENT)
** is unusable: "\"KEY\" is a list, not an int; ignored". zWant is the type
** it should have ("an int"), zAction what was done instead. */
static void warn_field(Loader *L, const Where *w, const char *zKey,
                       const PkValue *v, int fv, const char *zWant,
                       const char *zAction){
  if( fv==FV_RANGE ){
    warnf(L, w, "\"%s\" does not fit 64 bits; %s", zKey, zAction);
  }else if( fv==FV_NEG ){
    warnf(L, w, "\"%s\" is negative (%lld); %s", zKey, (long long)v->u.i,
          zAction);
  }else{
    warnf(L, w, "\"%s\" is %s, not %s; %s", zKey, type_phrase(v), zWant,
          zAction);
  }
}

/* Integer field zKey of dict d, checked: its value, or 0 (and *pHas 0)
** when absent or unusable, which is warned at *w ("ignored"). */
static int64_t checked_int(Loader *L, const Where *w, const PkValue *d,
                           const char *zKey, int flags, int *pHas){
  const PkValue *v = pk_dict_get(d, zKey);
  int64_t x;
  int fv = field_int(v, flags, &x);
  if( fv>FV_OK ) warn_field(L, w, zKey, v, fv, "an int", "ignored");
  if( pHas ) *pHas = fv==FV_OK;
  return x;
}

/* Bind the PK_STR v to parameter i (anything else binds NULL), bytes that
** are not valid UTF-8 replaced by '?', which is warned at *w when w is
** not NULL. */
static void bind_text(Loader *L, sqlite3_stmt *p, int i, const PkValue *v,
                      const Where *w, const char *zKey){
  if( v==NULL || v->t!=PK_STR ){
    sqlite3_bind_null(p, i);
    return;
  }
  if( pk_utf8_bad(v->u.s.z, v->u.s.n)==0 ){
    sqlite3_bind_text(p, i, v->u.s.z, (int)v->u.s.n, SQLITE_STATIC);
    return;
  }
  if( v->u.s.n > L->nFix ){
    L->nFix = v->u.s.n;
    L->zFix = xrealloc(L->zFix, L->nFix);
  }
  pk_utf8_fix(v->u.s.z, v->u.s.n, L->zFix);
  sqlite3_bind_text(p, i, L->zFix, (int)v->u.s.n, SQLITE_TRANSIENT);
  if( w ) warnf(L, w, "\"%s\" is not valid UTF-8 (bad bytes replaced by"
                " '?')", zKey);
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

/* Bind the string frame field v (PK_STR, else "") to parameter i of p,
** bytes that are not valid UTF-8 replaced by '?'. */
static void bind_frame_str(Loader *L, sqlite3_stmt *p, int i,
                           const PkValue *v){
  if( v && v->t==PK_STR ) bind_text(L, p, i, v, NULL, NULL);
  else sqlite3_bind_text(p, i, "", 0, SQLITE_STATIC);
}

/* Warn at *w about the fields of frame dict f (met for the first time)
** that cannot be stored as they are: "filename" and "name" not strings
** (stored as "") or not valid UTF-8, "line" not an int (stored as 0). */
static void frame_check(Loader *L, const Where *w, const PkValue *pFile,
                        const PkValue *pName, const PkValue *pLine){
  static const char *const azKey[2] = { "filename", "name" };
  const PkValue *a[2] = { pFile, pName };
  int64_t x;
  int fv;
  for(int k=0; k<2; k++){
    fv = field_str(a[k], 0);
    if( fv==FV_TYPE ){
      warn_field(L, w, azKey[k], a[k], fv, "a str", "frame stored with \"\"");
    }else if( fv==FV_OK && pk_utf8_bad(a[k]->u.s.z, a[k]->u.s.n) ){
      warnf(L, w, "frame \"%s\" is not valid UTF-8 (bad bytes replaced by"
            " '?')", azKey[k]);
    }
  }
  fv = field_int(pLine, FV_NEG_OK, &x);
  if( fv>FV_OK ){
    warn_field(L, w, "line", pLine, fv, "an int", "frame stored with 0");
  }
}

/*
** The frame.id of the frame dict f ({"filename","line","name"}), inserting
** a row when this run has not seen it; what cannot be stored as it is is
** warned at *w, the record the frame belongs to.  Returns the id, 0 when f
** is not a frame dict (skipped, warned), or -1 on a database error.
*/
static int64_t frame_id(Loader *L, const PkValue *f, const Where *w){
  int64_t id, line = 0, aKey[5];
  const PkValue *pFile, *pName, *pLine;
  uint64_t h = 0xcbf29ce484222325ULL;
  int bKeep = !pk_is_transient(f);   /* node address stays valid */
  if( f->t!=PK_DICT ){
    warnf(L, w, "frame is %s, not a dict; ignored", type_phrase(f));
    return 0;
  }
  id = ptrmap_get(&L->frames, f);
  if( id>=0 ) return id;
  pFile = pk_dict_get(f, "filename");
  pName = pk_dict_get(f, "name");
  pLine = pk_dict_get(f, "line");
  field_int(pLine, FV_NEG_OK, &line);
  if( pFile==NULL && pName==NULL ){
    warnf(L, w, "frame without \"filename\" and \"name\"; ignored");
    if( bKeep ) ptrmap_put(&L->frames, f, 0);
    return 0;
  }
  /* by content: the strings' bytes lie in the input buffer, so the same
  ** string object always has the same address, whichever node holds it */
  aKey[0] = (pFile && pFile->t==PK_STR) ? (int64_t)(uintptr_t)pFile->u.s.z : 0;
  aKey[1] = (pFile && pFile->t==PK_STR) ? (int64_t)pFile->u.s.n : 0;
  aKey[2] = (pName && pName->t==PK_STR) ? (int64_t)(uintptr_t)pName->u.s.z : 0;
  aKey[3] = (pName && pName->t==PK_STR) ? (int64_t)pName->u.s.n : 0;
  aKey[4] = line;
  h = (mix64(fnv(h, aKey, sizeof(aKey))) & 0x7fffffffffffffffULL) | 1;
  id = stackmap_get(&L->frameContent, h, aKey, 5);
  if( id>=0 ){
    if( bKeep ) ptrmap_put(&L->frames, f, id);
    return id;
  }
  frame_check(L, w, pFile, pName, pLine);
  /* the same frame may come from another node or another file of the run */
  sqlite3_bind_int64(L->pGetFrame, 1, L->t->runId);
  bind_frame_str(L, L->pGetFrame, 2, pFile);
  sqlite3_bind_int64(L->pGetFrame, 3, line);
  bind_frame_str(L, L->pGetFrame, 4, pName);
  id = sqlite3_step(L->pGetFrame)==SQLITE_ROW
       ? sqlite3_column_int64(L->pGetFrame, 0) : -1;
  sqlite3_reset(L->pGetFrame);
  if( id<0 ){
    sqlite3_bind_int64(L->pInsFrame, 1, L->t->runId);
    bind_frame_str(L, L->pInsFrame, 2, pFile);
    sqlite3_bind_int64(L->pInsFrame, 3, line);
    bind_frame_str(L, L->pInsFrame, 4, pName);
    if( step_once(L, L->pInsFrame) ) return -1;
    id = sqlite3_last_insert_rowid(L->db);
  }
  if( bKeep ) ptrmap_put(&L->frames, f, id);
  stackmap_put(&L->frameContent, h, aKey, 5, id);
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
** stack and its stack_frame rows when new to the run; what cannot be
** stored is warned at *w.  Returns 0 when pList is NULL, None, not a list
** (warned) or holds no frame, and -1 on a database error.
*/
static int64_t stack_id(Loader *L, const PkValue *pList, const Where *w){
  int64_t id;
  size_t n = 0;
  uint64_t h = 0xcbf29ce484222325ULL;
  int bKeep;
  if( pList==NULL || pList->t==PK_NONE ) return 0;
  if( pList->t!=PK_LIST && pList->t!=PK_TUPLE ){
    warn_field(L, w, "frames", pList, FV_TYPE, "a list", "ignored");
    return 0;
  }
  bKeep = !pk_is_transient(pList);   /* node address stays valid */
  id = ptrmap_get(&L->stacks, pList);
  if( id>=0 ) return id;
  if( pList->u.seq.n > L->nFrameAlloc ){
    L->nFrameAlloc = pList->u.seq.n;
    L->aFrameId = xrealloc(L->aFrameId, L->nFrameAlloc*sizeof(int64_t));
  }
  for(size_t i=0; i<pList->u.seq.n; i++){
    int64_t f = frame_id(L, pList->u.seq.a[i], w);
    if( f<0 ) return -1;
    if( f==0 ) continue;
    L->aFrameId[n++] = f;
    h = fnv(h, &f, sizeof(f));
  }
  if( n==0 ){
    if( bKeep ) ptrmap_put(&L->stacks, pList, 0);
    return 0;
  }
  h = (mix64(h) & 0x7fffffffffffffffULL) | 1;
  id = stackmap_get(&L->stackContent, h, L->aFrameId, n);
  if( id>=0 ){
    if( bKeep ) ptrmap_put(&L->stacks, pList, id);
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
  if( bKeep ) ptrmap_put(&L->stacks, pList, id);
  stackmap_put(&L->stackContent, h, L->aFrameId, n, id);
  return id;
}

/* Prepare every statement; 0 or -1 (pErr). */
static int loader_open(Loader *L){
  struct { sqlite3_stmt **pp; const char *zSql; } a[] = {
    { &L->pInsSnap,
      db_statement("load-snapshot-insert-snapshot") },
    { &L->pUpdSnap,
      db_statement("load-snapshot-update-snapshot") },
    { &L->pInsSeg,
      db_statement("load-snapshot-insert-segment") },
    { &L->pInsBlock,
      db_statement("load-snapshot-insert-block") },
    { &L->pInsEvent,
      db_statement("load-snapshot-insert-alloc-event") },
    { &L->pInsAnn,
      db_statement("load-snapshot-insert-memory-annotation") },
    { &L->pInsFrame,
      "INSERT INTO frame(run_id, filename, line, name) VALUES(?1,?2,?3,?4)" },
    { &L->pGetFrame,
      db_statement("load-snapshot-select-frame") },
    { &L->pInsStack,
      "INSERT INTO stack(run_id, n_frames, key_hash) VALUES(?1,?2,?3)" },
    { &L->pInsStackFrame,
      db_statement("load-snapshot-insert-stack-frame") },
    { &L->pFindStack,
      "SELECT id FROM stack WHERE run_id=?1 AND key_hash=?2 AND n_frames=?3" },
    { &L->pStackFrames,
      "SELECT frame_id FROM stack_frame WHERE stack_id=?1 ORDER BY pos" },
  };
  /* the alloc_event rows come from the feed table (see trace_write) */
  if( sqlite3_create_module(L->db, FEED_NAME, &feedModule, L)!=SQLITE_OK ){
    pf_error_set(L->pErr, ERRPOS_NONE, 0, "database: %s",
                 sqlite3_errmsg(L->db));
    return -1;
  }
  L->bModule = 1;
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
  if( L->bModule ) sqlite3_create_module(L->db, FEED_NAME, NULL, NULL);
  ptrmap_free(&L->frames);
  ptrmap_free(&L->stacks);
  stackmap_free(&L->stackContent);
  stackmap_free(&L->frameContent);
  free(L->aFrameId);
  free(L->zFix);
}

/* ------------------------------------------------- per-device totals */

/* What one device's segments add up to (first walk, no rows written). */
typedef struct DevTotals {
  int64_t nSeg, nBlock;
  int64_t reserved, allocated, active, inactive, pending, internal;
  int64_t allocatedReq, activeReq;   /* requested bytes: replay anchors */
  int64_t nUnused, unused;           /* segments without a live block */
  int64_t fragmented;                /* inactive bytes of the other ones */
  int legacy;                        /* a block without "address" */
} DevTotals;

/* Device of segment or annotation s: its "device" when an int, else 0
** (write_segment and check_root warn about a device of the wrong type). */
static int64_t item_device(const PkValue *s){
  int64_t d;
  field_int(pk_dict_get(s, "device"), FV_NEG_OK, &d);
  return d;
}

/* Size of segment s: its "total_size" when a non-negative int, else 0
** (warned by write_segment). */
static int64_t seg_total(const PkValue *s){
  int64_t v;
  field_int(pk_dict_get(s, "total_size"), 0, &v);
  return v;
}

/* Non-zero if block b is a dict whose "size" is absent (0) or a
** non-negative int, stored in *pSize; other blocks are skipped (and
** warned by write_segment). */
static int block_usable(const PkValue *b, int64_t *pSize){
  *pSize = 0;
  return b->t==PK_DICT && field_int(pk_dict_get(b, "size"), 0, pSize)<=FV_OK;
}

/* Requested bytes of block b: requested_size, else history[0].real_size,
** else size (segsum's rule).  A requested_size that is not a non-negative
** int counts as absent (warned by write_segment). */
static int64_t block_requested(const PkValue *b, int64_t size){
  int64_t v;
  const PkValue *h;
  if( field_int(pk_dict_get(b, "requested_size"), FV_NONE_OK, &v)==FV_OK ){
    return v;
  }
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

/* Add segment s to *p.  A segment whose blocks are all inactive is
** reserved but unused (a free cached segment: empty_cache would return
** it); the inactive blocks of a segment that holds a live one are
** fragmentation (expandable_segments). */
static void totals_add(DevTotals *p, const PkValue *s){
  const PkValue *pBlocks = pk_dict_get(s, "blocks");
  int64_t nUsable = 0, nLive = 0, segInactive = 0;
  p->nSeg++;
  p->reserved += seg_total(s);
  if( pBlocks==NULL || pBlocks->t!=PK_LIST ) return;
  for(size_t j=0; j<pBlocks->u.seq.n; j++){
    const PkValue *b = pBlocks->u.seq.a[j];
    const PkValue *st = pk_dict_get(b, "state");
    int64_t size, req;
    if( !block_usable(b, &size) ) continue;
    p->nBlock++;
    nUsable++;
    if( pk_dict_get(b, "address")==NULL ) p->legacy = 1;
    req = block_requested(b, size);
    if( pk_str_eq(st, "active_allocated") ){
      p->allocated += req;
      p->active += size;
      p->internal += size - req;
      p->allocatedReq += req;
      p->activeReq += req;
      nLive++;
    }else if( pk_str_eq(st, "active_pending_free") ){
      p->active += size;
      p->pending += size;
      p->activeReq += req;
      nLive++;
    }else{
      p->inactive += size;
      segInactive += size;
    }
  }
  if( nUsable>0 && nLive==0 ){
    p->nUnused++;
    p->unused += seg_total(s);
  }else{
    p->fragmented += segInactive;
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

/* The fields of one trace entry dict, read in a single scan of its keys
** (the last of duplicate keys wins, as pk_dict_get() would have it); NULL
** for a key the entry does not have. */
typedef struct EntryFields {
  const PkValue *pAct, *pFrames, *pAddr, *pSize, *pStream, *pTime, *pFree;
} EntryFields;

/* Fill *f from the keys of trace entry dict e. */
static void entry_read(const PkValue *e, EntryFields *f){
  memset(f, 0, sizeof(*f));
  for(size_t i=0; i<e->u.dict.n; i++){
    const PkValue *k = e->u.dict.k[i], *v = e->u.dict.v[i];
    const char *z;
    if( k->t!=PK_STR ) continue;
    z = k->u.s.z;
    switch( k->u.s.n ){
      case 4:
        if( memcmp(z, "addr", 4)==0 ) f->pAddr = v;
        else if( memcmp(z, "size", 4)==0 ) f->pSize = v;
        break;
      case 6:
        if( memcmp(z, "action", 6)==0 ) f->pAct = v;
        else if( memcmp(z, "frames", 6)==0 ) f->pFrames = v;
        else if( memcmp(z, "stream", 6)==0 ) f->pStream = v;
        break;
      case 7:
        if( memcmp(z, "time_us", 7)==0 ) f->pTime = v;
        break;
      case 11:
        if( memcmp(z, "device_free", 11)==0 ) f->pFree = v;
        break;
    }
  }
}

/* Event flags (Ev.flags): addr / time_us present; stream or stack id in
** the entry's EvExtra (too many streams, an id past 32 bits). */
enum { EV_ADDR = 1, EV_TIME = 2, EV_XSTREAM = 4, EV_XSTACK = 8 };

/* Distinct streams a device trace keeps in its table (Ev.iStream); the
** streams of a trace with more go to EvExtra. */
#define TRACE_STREAMS 64

/* One trace entry as the row writer needs it, in 40 bytes (a trace has
** millions): the fields it stores, its resolved stack and its link to the
** matching alloc or free. */
typedef struct Ev {
  int64_t addr, size, timeUs;
  uint32_t stackId;          /* 0: no frames */
  int32_t link;              /* alloc: its free's idx; free: its alloc's;
                             ** -1: none */
  uint16_t iStream;          /* index in DevTrace.aStream */
  uint8_t act;               /* ACT_* */
  uint8_t flags;             /* EV_* */
} Ev;

/* What few entries carry besides an Ev: an action string profan does not
** know (stored as is), device_free (oom entries), and what did not fit. */
typedef struct EvExtra {
  size_t idx;                /* the entry */
  const char *z;             /* unknown action, in the input buffer; or NULL */
  size_t n;
  int64_t devFree;
  int hasFree;
  int64_t stream;            /* EV_XSTREAM */
  int64_t stackId;           /* EV_XSTACK */
} EvExtra;

/*
** One device's trace, gathered by a first pass over its entries: the
** entries in compact form, the net change of the replay counters (to
** anchor the running values) and the blocks still live at the end.  The
** rows are written from it by trace_write().  Freed by trace_free().
*/
typedef struct DevTrace DevTrace;
struct DevTrace {
  Ev *a;
  size_t n, nAlloc;
  EvExtra *aExtra;           /* in entry order */
  size_t nExtra, nExtraAlloc;
  int64_t aStream[TRACE_STREAMS]; /* distinct stream values seen */
  int nStream;
  Replay net;                /* sum of every entry's change */
  int64_t nOrphan;           /* free_requested without its alloc */
  LiveMap live;              /* blocks allocated and not free_completed */
  int dev;
  int hasList;               /* device_traces has an entry for dev */
  size_t nSeen;              /* entries met, skipped ones included */
};

static void trace_free(DevTrace *p){
  free(p->a);
  free(p->aExtra);
  live_free(&p->live);
  memset(p, 0, sizeof(*p));
}

/* The EvExtra of entry i of p, the last one, added when missing. */
static EvExtra *ev_extra(DevTrace *p, size_t i){
  EvExtra *x;
  if( p->nExtra>0 && p->aExtra[p->nExtra-1].idx==i ){
    return &p->aExtra[p->nExtra-1];
  }
  if( p->nExtra==p->nExtraAlloc ){
    p->nExtraAlloc = p->nExtraAlloc ? 2*p->nExtraAlloc : 16;
    p->aExtra = xrealloc(p->aExtra, p->nExtraAlloc*sizeof(EvExtra));
  }
  x = &p->aExtra[p->nExtra++];
  memset(x, 0, sizeof(*x));
  x->idx = i;
  return x;
}

/* Store stream s of entry v (index i): in the stream table, or extra. */
static void ev_stream(DevTrace *p, Ev *v, size_t i, int64_t s){
  int k;
  for(k=0; k<p->nStream && p->aStream[k]!=s; k++){}
  if( k==p->nStream && k<TRACE_STREAMS ) p->aStream[p->nStream++] = s;
  if( k<p->nStream ){
    v->iStream = (uint16_t)k;
  }else{
    v->flags |= EV_XSTREAM;
    ev_extra(p, i)->stream = s;
  }
}

/* Action code of v, which is most often one of the few action strings
** the pickle stores once and fetches from the memo: those are known by
** address. */
static int action_of(Loader *L, const PkValue *v){
  int a;
  if( v && v->t==PK_STR ){
    for(a=0; a<ACT_UNKNOWN; a++){
      if( L->azActSeen[a]==v->u.s.z && L->anActSeen[a]==v->u.s.n ) return a;
    }
  }
  a = action_code(v);
  if( a!=ACT_UNKNOWN ){
    L->azActSeen[a] = v->u.s.z;
    L->anActSeen[a] = v->u.s.n;
  }
  return a;
}

/* The values of trace entry e that the Ev keeps, checked. */
typedef struct EntryValues {
  int64_t addr, size, stream, timeUs, devFree;
  int hasAddr, hasTime, hasFree;
} EntryValues;

/*
** Check the fields of trace entry e (at *w) into *f (its fields) and *x
** (their values).  An entry that means nothing without a field it lacks
** or has in an unusable form (not a dict; "action" absent or not a str;
** "addr" or "size" not a non-negative int) is warned and skipped: returns
** 1.  Unusable optional fields are warned and taken as absent (0 or
** NULL).  Returns 0 to keep the entry.
*/
static int entry_check(Loader *L, const Where *w, const PkValue *e,
                       EntryFields *f, EntryValues *x){
  int fv;
  if( e->t!=PK_DICT ){
    warnf(L, w, "entry is %s, not a dict; skipped", type_phrase(e));
    return 1;
  }
  entry_read(e, f);
  if( f->pAct==NULL || f->pAct->t!=PK_STR ){
    if( f->pAct==NULL ) warnf(L, w, "entry without \"action\"; skipped");
    else warn_field(L, w, "action", f->pAct, FV_TYPE, "a str", "entry skipped");
    return 1;
  }
  fv = field_int(f->pAddr, 0, &x->addr);
  if( fv>FV_OK ){
    warn_field(L, w, "addr", f->pAddr, fv, "an int", "entry skipped");
    return 1;
  }
  x->hasAddr = fv==FV_OK;
  fv = field_int(f->pSize, 0, &x->size);
  if( fv>FV_OK ){
    warn_field(L, w, "size", f->pSize, fv, "an int", "entry skipped");
    return 1;
  }
  fv = field_int(f->pTime, FV_NONE_OK, &x->timeUs);
  if( fv>FV_OK ) warn_field(L, w, "time_us", f->pTime, fv, "an int", "ignored");
  x->hasTime = fv==FV_OK;
  fv = field_int(f->pStream, FV_NONE_OK|FV_NEG_OK, &x->stream);
  if( fv>FV_OK ){
    warn_field(L, w, "stream", f->pStream, fv, "an int", "ignored");
  }
  fv = field_int(f->pFree, FV_NONE_OK, &x->devFree);
  if( fv>FV_OK ){
    warn_field(L, w, "device_free", f->pFree, fv, "an int", "ignored");
  }
  x->hasFree = fv==FV_OK;
  return 0;
}

/*
** First pass, one entry: append entry e (the p->nSeen-th of device p->dev)
** to p as entry p->n, resolving its stack, matching frees to allocs
** through the live map and adding its change to p->net; or skip it
** (entry_check).  Warnings are recorded here, in trace order.  Returns 0,
** or -1 on a database error (pErr).
*/
static int trace_add(Loader *L, DevTrace *p, const PkValue *e){
  EntryFields fields, *pf = &fields;
  EntryValues f;
  Ev *v;
  size_t i = p->n;
  int a, liveAlloc = 0;
  int64_t stackId;
  Where w = { W_TRACE, (size_t)p->dev, p->nSeen++ };
  if( i>=INT32_MAX ){
    pf_error_set(L->pErr, ERRPOS_NONE, 0, "device_traces[%d]: more than "
                 "%d entries", p->dev, INT32_MAX);
    return -1;
  }
  if( entry_check(L, &w, e, pf, &f) ) return 0;
  a = action_of(L, pf->pAct);
  if( a==ACT_UNKNOWN ) warnf(L, &w, "unknown action (stored as is)");
  if( p->n==p->nAlloc ){
    p->nAlloc = p->nAlloc ? 2*p->nAlloc : 4096;
    p->a = xrealloc(p->a, p->nAlloc*sizeof(Ev));
  }
  v = &p->a[p->n++];
  memset(v, 0, sizeof(*v));
  v->addr = f.addr;
  v->size = f.size;
  v->timeUs = f.timeUs;
  v->act = (uint8_t)a;
  v->flags = (uint8_t)((f.hasAddr ? EV_ADDR : 0) | (f.hasTime ? EV_TIME : 0));
  v->link = -1;
  ev_stream(p, v, i, f.stream);
  stackId = stack_id(L, pf->pFrames, &w);
  if( stackId<0 ) return -1;
  if( stackId<=(int64_t)UINT32_MAX ){
    v->stackId = (uint32_t)stackId;
  }else{
    v->flags |= EV_XSTACK;
    ev_extra(p, i)->stackId = stackId;
  }
  if( f.hasFree || a==ACT_UNKNOWN ){
    EvExtra *x = ev_extra(p, i);
    if( a==ACT_UNKNOWN ){
      x->z = pf->pAct->u.s.z;
      x->n = pf->pAct->u.s.n;
    }
    x->devFree = f.devFree;
    x->hasFree = f.hasFree;
  }
  if( a==ACT_FREE_REQ || a==ACT_FREE_DONE ){
    Live *q = live_find(&p->live, (uint64_t)f.addr);
    if( q ){
      v->link = (int32_t)q->idx;
      if( a==ACT_FREE_REQ ){
        if( q->state==LIVE_ALLOC ) p->a[q->idx].link = (int32_t)i;
        q->state = LIVE_REQUESTED;
        q->freeIdx = (int64_t)i;
      }else{
        liveAlloc = q->state==LIVE_ALLOC;
        if( liveAlloc ) p->a[q->idx].link = (int32_t)i;
        live_remove(&p->live, q);
      }
    }else if( a==ACT_FREE_REQ ){
      p->nOrphan++;
    }
  }else if( a==ACT_ALLOC ){
    Live *q = live_insert(&p->live, (uint64_t)f.addr);
    if( q->state ){
      /* allocated twice without a free in between: keep the newer */
      warnf(L, &w, "alloc of an address that is already allocated");
    }
    q->state = LIVE_ALLOC;
    q->idx = (int64_t)i;
    q->freeIdx = -1;
    q->size = f.size;
  }
  replay_apply(&p->net, a, f.size, liveAlloc);
  return 0;
}

/* First pass over a whole decoded trace list (NULL or not a list: no
** entries). */
static int trace_gather(Loader *L, DevTrace *p, const PkValue *trace){
  size_t n = (trace && trace->t==PK_LIST) ? trace->u.seq.n : 0;
  p->hasList = trace!=NULL;
  for(size_t i=0; i<n; i++){
    if( trace_add(L, p, trace->u.seq.a[i]) ) return -1;
  }
  return 0;
}

/* Results of one device's replay, stored in the snapshot row. */
typedef struct ReplayOut {
  int64_t net, baseline, traceLive, nOrphan;
  int64_t peak, peakIdx, peakTime, peakReserved, maxReserved;
  int64_t firstTime, lastTime;
  int hasPeakTime, hasTimes;
} ReplayOut;

/* ------------------------------------------------ alloc_event feed */

/*
** The rows of one trace_write() call, read by the eponymous virtual table
** FEED_NAME: INSERT INTO alloc_event SELECT ... FROM it writes every row
** in one statement, without binding 16 parameters per row, with the
** table's cursor kept open from one row to the next.  The running
** counters and the peak are computed as the rows are read, in order.
*/
struct Feed {
  const DevTrace *p;
  ReplayOut *pOut;
  int64_t runId, fileId, snapId;
  Replay r0;                 /* counters before the first entry */
  Replay r;                  /* counters after entry i */
  size_t i;                  /* the entry of the current row */
  size_t iExtra;             /* p->aExtra[iExtra..] lie at entries >= i */
  const EvExtra *x;          /* entry i's extra, or NULL */
};

/* Move the counters and the peak past entry f->i. */
static void feed_apply(Feed *f){
  const DevTrace *p = f->p;
  const Ev *v = &p->a[f->i];
  ReplayOut *o = f->pOut;
  int hasTime = (v->flags & EV_TIME)!=0;
  /* a free_completed whose alloc saw no free_requested frees it here */
  int liveAlloc = v->act==ACT_FREE_DONE && v->link>=0
                  && p->a[v->link].link==(int32_t)f->i;
  f->x = NULL;
  if( f->iExtra<p->nExtra && p->aExtra[f->iExtra].idx==f->i ){
    f->x = &p->aExtra[f->iExtra++];
  }
  if( hasTime ){
    if( !o->hasTimes ) o->firstTime = v->timeUs;
    o->hasTimes = 1;
    o->lastTime = v->timeUs;
  }
  replay_apply(&f->r, v->act, v->size, liveAlloc);
  if( f->r.allocated > o->peak || o->peakIdx<0 ){
    o->peak = f->r.allocated;
    o->peakIdx = (int64_t)f->i;
    o->peakTime = v->timeUs;
    o->hasPeakTime = hasTime;
    o->peakReserved = f->r.reserved;
  }
  if( f->i==0 || f->r.reserved > o->maxReserved ){
    o->maxReserved = f->r.reserved;
  }
}

/* The feed table and its cursor: both find the rows in the Loader. */
typedef struct FeedTab {
  sqlite3_vtab base;
  Loader *L;
} FeedTab;
typedef struct FeedCursor {
  sqlite3_vtab_cursor base;
  Feed *f;
} FeedCursor;

static int feed_connect(sqlite3 *db, void *pAux, int argc,
                        const char *const *argv, sqlite3_vtab **ppVtab,
                        char **pzErr){
  FeedTab *p;
  int rc = sqlite3_declare_vtab(db, db_statement("load-snapshot-feed"));
  (void)argc; (void)argv; (void)pzErr;
  if( rc!=SQLITE_OK ) return rc;
  p = sqlite3_malloc(sizeof(FeedTab));
  if( p==NULL ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->L = pAux;
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int feed_disconnect(sqlite3_vtab *pVtab){
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

static int feed_best_index(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  pInfo->estimatedCost = 1e6;
  return SQLITE_OK;
}

static int feed_open(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  Loader *L = ((FeedTab*)pVtab)->L;
  FeedCursor *c;
  if( L->pFeed==NULL ) return SQLITE_MISUSE;   /* read outside trace_write */
  c = sqlite3_malloc(sizeof(FeedCursor));
  if( c==NULL ) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  c->f = L->pFeed;
  *ppCur = &c->base;
  return SQLITE_OK;
}

static int feed_close(sqlite3_vtab_cursor *pCur){
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static int feed_filter(sqlite3_vtab_cursor *pCur, int idxNum,
                       const char *idxStr, int argc, sqlite3_value **argv){
  Feed *f = ((FeedCursor*)pCur)->f;
  (void)idxNum; (void)idxStr; (void)argc; (void)argv;
  f->i = 0;
  f->iExtra = 0;
  f->r = f->r0;
  if( f->p->n>0 ) feed_apply(f);
  return SQLITE_OK;
}

static int feed_next(sqlite3_vtab_cursor *pCur){
  Feed *f = ((FeedCursor*)pCur)->f;
  if( ++f->i < f->p->n ) feed_apply(f);
  return SQLITE_OK;
}

static int feed_eof(sqlite3_vtab_cursor *pCur){
  const Feed *f = ((FeedCursor*)pCur)->f;
  return f->i >= f->p->n;
}

/* Result: v, or NULL when !has. */
static void feed_int(sqlite3_context *ctx, int has, int64_t v){
  if( has ) sqlite3_result_int64(ctx, v);
  else sqlite3_result_null(ctx);
}

/* Column iCol (in the order of statements/load-snapshot-feed.sql) of the
** current row. */
static int feed_column(sqlite3_vtab_cursor *pCur, sqlite3_context *ctx,
                       int iCol){
  const Feed *f = ((FeedCursor*)pCur)->f;
  const Ev *v = &f->p->a[f->i];
  const EvExtra *x = f->x;
  int isFree = v->act==ACT_FREE_REQ || v->act==ACT_FREE_DONE;
  switch( iCol ){
    case 0:  sqlite3_result_int64(ctx, f->runId); break;
    case 1:  sqlite3_result_int64(ctx, f->fileId); break;
    case 2:  sqlite3_result_int64(ctx, f->snapId); break;
    case 3:  sqlite3_result_int64(ctx, (int64_t)f->i); break;
    case 4:
      if( v->act!=ACT_UNKNOWN ){
        sqlite3_result_text(ctx, azAction[v->act], -1, SQLITE_STATIC);
      }else if( x && x->z && pk_utf8_bad(x->z, x->n)==0 ){
        sqlite3_result_text(ctx, x->z, (int)x->n, SQLITE_STATIC);
      }else if( x && x->z ){
        /* not UTF-8 (the entry's "unknown action" warning counts it) */
        char *z = sqlite3_malloc64(x->n ? x->n : 1);
        if( z==NULL ) return SQLITE_NOMEM;
        pk_utf8_fix(x->z, x->n, z);
        sqlite3_result_text(ctx, z, (int)x->n, sqlite3_free);
      }else{
        sqlite3_result_text(ctx, "?", 1, SQLITE_STATIC);
      }
      break;
    case 5:  feed_int(ctx, (v->flags & EV_ADDR) && v->act!=ACT_OOM, v->addr);
             break;
    case 6:  sqlite3_result_int64(ctx, v->size); break;
    case 7:
      sqlite3_result_int64(ctx, (v->flags & EV_XSTREAM) ? x->stream
                                : f->p->aStream[v->iStream]);
      break;
    case 8:  feed_int(ctx, (v->flags & EV_TIME)!=0, v->timeUs); break;
    case 9:
      if( v->flags & EV_XSTACK ) sqlite3_result_int64(ctx, x->stackId);
      else feed_int(ctx, v->stackId>0, v->stackId);
      break;
    case 10: feed_int(ctx, x && x->hasFree, x ? x->devFree : 0); break;
    case 11: sqlite3_result_int64(ctx, f->r.allocated); break;
    case 12: sqlite3_result_int64(ctx, f->r.active); break;
    case 13: sqlite3_result_int64(ctx, f->r.reserved); break;
    case 14: feed_int(ctx, isFree && v->link>=0, v->link); break;
    default: feed_int(ctx, v->act==ACT_ALLOC && v->link>=0, v->link); break;
  }
  return SQLITE_OK;
}

static int feed_rowid(sqlite3_vtab_cursor *pCur, sqlite3_int64 *pRowid){
  *pRowid = (sqlite3_int64)((FeedCursor*)pCur)->f->i;
  return SQLITE_OK;
}

/* Eponymous-only (no xCreate), read-only. */
static const sqlite3_module feedModule = {
  .iVersion = 0,
  .xConnect = feed_connect,
  .xBestIndex = feed_best_index,
  .xDisconnect = feed_disconnect,
  .xOpen = feed_open,
  .xClose = feed_close,
  .xFilter = feed_filter,
  .xNext = feed_next,
  .xEof = feed_eof,
  .xColumn = feed_column,
  .xRowid = feed_rowid,
};

/*
** Second pass: write the alloc_event rows of trace p for snapshot snapId,
** in index order (appends to the table's key), with the running counters
** anchored so that the state after the last entry equals the totals *pT.
** One INSERT ... SELECT from the feed table writes them all.  Fills *pOut.
** Returns 0 or -1 (pErr).
*/
static int trace_write(Loader *L, int64_t snapId, const DevTrace *p,
                       const DevTotals *pT, ReplayOut *pOut){
  Feed feed, *f = &feed;
  int rc = 0;
  memset(pOut, 0, sizeof(*pOut));
  pOut->peak = pT->allocatedReq;
  pOut->peakIdx = -1;
  pOut->maxReserved = pT->reserved;
  pOut->peakReserved = pT->reserved;
  memset(f, 0, sizeof(*f));
  f->p = p;
  f->pOut = pOut;
  f->runId = L->t->runId;
  f->fileId = L->t->fileId;
  f->snapId = snapId;
  f->r0.allocated = pT->allocatedReq - p->net.allocated;
  f->r0.active = pT->activeReq - p->net.active;
  f->r0.reserved = pT->reserved - p->net.reserved;
  pOut->net = p->net.allocated;
  pOut->baseline = f->r0.allocated;
  pOut->nOrphan = p->nOrphan;
  if( p->n>0 ){
    L->pFeed = f;
    rc = step_once(L, L->pInsEvent);
    L->pFeed = NULL;
    if( rc ) return -1;
  }
  for(size_t k=0; k<p->live.nSlot; k++){
    const Live *q = &p->live.a[k];
    if( q->state==LIVE_ALLOC ) pOut->traceLive += q->size;
  }
  return 0;
}

/* ------------------------------------------------------- segment rows */

/* Warn at *w about the fields of segment s that cannot be used as they
** are (write_segment binds them as NULL or 0). */
static void segment_check(Loader *L, const Where *w, const PkValue *s){
  const PkValue *v;
  int64_t x;
  int fv;
  v = pk_dict_get(s, "device");
  fv = field_int(v, FV_NEG_OK, &x);
  if( fv>FV_OK ) warn_field(L, w, "device", v, fv, "an int", "taken as 0");
  v = pk_dict_get(s, "total_size");
  fv = field_int(v, 0, &x);
  if( fv>FV_OK ) warn_field(L, w, "total_size", v, fv, "an int", "taken as 0");
  v = pk_dict_get(s, "blocks");
  if( v && v->t!=PK_LIST ){
    warn_field(L, w, "blocks", v, FV_TYPE, "a list", "ignored");
  }
  v = pk_dict_get(s, "segment_type");
  if( field_str(v, FV_NONE_OK)==FV_TYPE ){
    warn_field(L, w, "segment_type", v, FV_TYPE, "a str", "ignored");
  }
}

/* Warn at *w about the fields of block b that cannot be used as they are;
** returns 0, or -1 when the block is skipped (its size unusable). */
static int block_check(Loader *L, const Where *w, const PkValue *b){
  const PkValue *v = pk_dict_get(b, "size");
  int64_t x;
  int fv = field_int(v, 0, &x);
  if( fv>FV_OK ){
    warn_field(L, w, "size", v, fv, "an int", "block skipped");
    return -1;
  }
  v = pk_dict_get(b, "address");
  fv = field_int(v, FV_NONE_OK, &x);
  if( fv>FV_OK ){
    warn_field(L, w, "address", v, fv, "an int",
               "taken as the end of the block before");
  }
  v = pk_dict_get(b, "requested_size");
  fv = field_int(v, FV_NONE_OK, &x);
  if( fv>FV_OK ) warn_field(L, w, "requested_size", v, fv, "an int", "ignored");
  v = pk_dict_get(b, "state");
  if( field_str(v, 0)==FV_TYPE ){
    warn_field(L, w, "state", v, FV_TYPE, "a str", "taken as \"inactive\"");
  }
  return 0;
}

/* Write segment s (index iSeg) and its blocks for snapshot snapId.  Fields
** that cannot be used are warned (segment_check, block_check) and stored
** as NULL or 0; blocks without a usable size are skipped. */
/* Block j of segment iSeg (row segId), its address defaulting to *pAddr,
** the end of the block before it (hasAddr: that is known).  Advances
** *pAddr and *pSum; a block that fails its checks clears *pbSumOk.
** Returns 0, or -1 on a database error. */
static int write_block(Loader *L, int64_t snapId, size_t iSeg,
                       int64_t segId, const PkValue *pBlocks, size_t j,
                       int hasAddr, int64_t *pAddr, int64_t *pSum,
                       int *pbSumOk, LiveMap *pLiveMap){
  size_t nb = pBlocks->u.seq.n;
  const PkValue *b = pBlocks->u.seq.a[j];
  const PkValue *pState = pk_dict_get(b, "state");
  int64_t size = 0, baddr, stackId;
  int hasB;
  Live *pLive = NULL;
  sqlite3_stmt *q = L->pInsBlock;
  Where wb = { W_BLOCK, iSeg, j };
  if( b->t!=PK_DICT ){
    warnf(L, &wb, "block is not a dict");
    return 0;
  }
  if( block_check(L, &wb, b) ){
    *pbSumOk = 0;
    return 0;
  }
  block_usable(b, &size);
  hasB = field_int(pk_dict_get(b, "address"), 0, &baddr)==FV_OK;
  if( !hasB ){ baddr = *pAddr; hasB = hasAddr; }
  *pAddr = baddr + size;
  *pSum += size;
  stackId = stack_id(L, block_frames(b), &wb);
  if( stackId<0 ) return -1;
  if( hasB && !pk_str_eq(pState, "inactive") ){
    pLive = live_find(pLiveMap, (uint64_t)baddr);
  }
  sqlite3_bind_int64(q, 1, L->t->runId);
  sqlite3_bind_int64(q, 2, L->t->fileId);
  sqlite3_bind_int64(q, 3, snapId);
  sqlite3_bind_int64(q, 4, segId);
  sqlite3_bind_int64(q, 5, (int64_t)j);
  db_bind_int_or_null(q, 6, hasB, baddr);
  sqlite3_bind_int64(q, 7, size);
  sqlite3_bind_int64(q, 8, block_requested(b, size));
  if( pState && pState->t==PK_STR ) bind_text(L, q, 9, pState, &wb, "state");
  else sqlite3_bind_text(q, 9, "inactive", -1, SQLITE_STATIC);
  db_bind_int_or_null(q, 10, stackId>0, stackId);
  if( j>0 ){
    bind_text(L, q, 11, pk_dict_get(pBlocks->u.seq.a[j-1], "state"), NULL,
              NULL);
  }else{
    sqlite3_bind_null(q, 11);
  }
  if( j+1<nb ){
    bind_text(L, q, 12, pk_dict_get(pBlocks->u.seq.a[j+1], "state"), NULL,
              NULL);
  }else{
    sqlite3_bind_null(q, 12);
  }
  db_bind_int_or_null(q, 13, pLive!=NULL, pLive ? pLive->idx : 0);
  db_bind_int_or_null(q, 14, pLive && pLive->state==LIVE_REQUESTED,
                      pLive ? pLive->freeIdx : 0);
  return step_once(L, q) ? -1 : 0;
}

static int write_segment(Loader *L, int64_t snapId, size_t iSeg,
                         const PkValue *s, int dev, LiveMap *pLiveMap){
  const PkValue *pBlocks = pk_dict_get(s, "blocks");
  const PkValue *pPool = pk_dict_get(s, "segment_pool_id");
  size_t nb = (pBlocks && pBlocks->t==PK_LIST) ? pBlocks->u.seq.n : 0;
  int hasAddr, has, bSumOk;
  Where w = { W_SEG, iSeg, 0 };
  int64_t base, addr, v, total = seg_total(s);
  int64_t inactive = 0, largest = 0, segId, stackId, sum = 0;
  sqlite3_stmt *p = L->pInsSeg;
  char zPool[64];
  segment_check(L, &w, s);
  base = checked_int(L, &w, s, "address", 0, &hasAddr);
  addr = base;
  /* the blocks are checked against total_size unless it was warned */
  bSumOk = field_int(pk_dict_get(s, "total_size"), 0, &v)<=FV_OK;
  for(size_t j=0; j<nb; j++){
    const PkValue *b = pBlocks->u.seq.a[j];
    if( !block_usable(b, &v) ) continue;
    if( !pk_str_eq(pk_dict_get(b, "state"), "active_allocated")
     && !pk_str_eq(pk_dict_get(b, "state"), "active_pending_free") ){
      inactive += v;
      if( v>largest ) largest = v;
    }
  }
  stackId = stack_id(L, pk_dict_get(s, "frames"), &w);
  if( stackId<0 ) return -1;
  sqlite3_bind_int64(p, 1, L->t->runId);
  sqlite3_bind_int64(p, 2, L->t->fileId);
  sqlite3_bind_int64(p, 3, snapId);
  sqlite3_bind_int64(p, 4, (int64_t)iSeg);
  sqlite3_bind_int64(p, 5, dev);
  db_bind_int_or_null(p, 6, hasAddr, base);
  sqlite3_bind_int64(p, 7, total);
  v = checked_int(L, &w, s, "allocated_size", FV_NONE_OK, &has);
  db_bind_int_or_null(p, 8, has, v);
  v = checked_int(L, &w, s, "active_size", FV_NONE_OK, &has);
  db_bind_int_or_null(p, 9, has, v);
  v = checked_int(L, &w, s, "requested_size", FV_NONE_OK, &has);
  db_bind_int_or_null(p, 10, has, v);
  v = checked_int(L, &w, s, "stream", FV_NONE_OK|FV_NEG_OK, &has);
  db_bind_int_or_null(p, 11, has, v);
  bind_text(L, p, 12, pk_dict_get(s, "segment_type"), &w, "segment_type");
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
    if( write_block(L, snapId, iSeg, segId, pBlocks, j, hasAddr, &addr, &sum,
                    &bSumOk, pLiveMap) ) return -1;
  }
  if( nb>0 && bSumOk && sum!=total ){
    warnf(L, &w, "blocks add up to %lld bytes, total_size is %lld",
          (long long)sum, (long long)total);
  }
  return 0;
}

/* ------------------------------------------------------------ entry */

int load_snapshot_is_snapshot(const PkValue *pRoot){
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

/* Device ordinals from 0 to MAX_DEVICES-1 are loaded; a segment or an
** annotation of another device is skipped (warned by check_root). */
#define MAX_DEVICES 4096

/* Warn about the fields of external annotation a (index i) that cannot be
** used: it is skipped when not a dict or of a device out of range; a
** "time_us" that is not an int, or a "stage" or "name" not a string, is
** stored as NULL. */
static void annotation_check(Loader *L, size_t i, const PkValue *a){
  static const char *const azKey[2] = { "stage", "name" };
  Where w = { W_ANN, i, 0 };
  const PkValue *v;
  int64_t x;
  int fv;
  if( a->t!=PK_DICT ){
    warnf(L, &w, "annotation is %s, not a dict; skipped", type_phrase(a));
    return;
  }
  v = pk_dict_get(a, "device");
  fv = field_int(v, FV_NEG_OK, &x);
  if( fv>FV_OK ) warn_field(L, &w, "device", v, fv, "an int", "taken as 0");
  if( fv==FV_OK && (x<0 || x>=MAX_DEVICES) ){
    warnf(L, &w, "\"device\" is %lld, out of range; annotation skipped",
          (long long)x);
  }
  v = pk_dict_get(a, "time_us");
  fv = field_int(v, FV_NONE_OK, &x);
  if( fv>FV_OK ) warn_field(L, &w, "time_us", v, fv, "an int", "ignored");
  for(int k=0; k<2; k++){
    v = pk_dict_get(a, azKey[k]);
    if( field_str(v, FV_NONE_OK)==FV_TYPE ){
      warn_field(L, &w, azKey[k], v, FV_TYPE, "a str", "ignored");
    }
  }
}

/* Warn, before the rows of each device are written, about each segment of
** a device out of range, each device trace that is not a list, the
** annotations' fields (annotation_check) and an allocator setting that is
** not valid UTF-8. */
static void check_root(Loader *L, const PkValue *pSegs,
                       const PkValue *pTraces, const PkValue *pAnn,
                       const PkValue *pConf){
  for(size_t i=0; pTraces && i<pTraces->u.seq.n; i++){
    const PkValue *tr = pTraces->u.seq.a[i];
    if( tr->t!=PK_LIST ){
      Where w = { W_DEVTRACE, i, 0 };
      warnf(L, &w, "device trace is %s, not a list; ignored",
            type_phrase(tr));
    }
  }
  for(size_t i=0; pAnn && pAnn->t==PK_LIST && i<pAnn->u.seq.n; i++){
    annotation_check(L, i, pAnn->u.seq.a[i]);
  }
  for(size_t i=0; i<pSegs->u.seq.n; i++){
    const PkValue *s = pSegs->u.seq.a[i];
    int64_t d = item_device(s);
    if( s->t==PK_DICT && (d<0 || d>=MAX_DEVICES) ){
      Where w = { W_SEG, i, 0 };
      warnf(L, &w, "\"device\" is %lld, out of range; segment skipped",
            (long long)d);
    }
  }
  if( pConf && pConf->t==PK_STR && pk_utf8_bad(pConf->u.s.z, pConf->u.s.n) ){
    Where w = { W_SETTINGS, 0, 0 };
    warnf(L, &w, "\"PYTORCH_CUDA_ALLOC_CONF\" is not valid UTF-8 (bad bytes"
          " replaced by '?')");
  }
}

/* Largest device ordinal named by a segment, or -1. */
static int max_device(const PkValue *pSegs){
  int m = -1;
  for(size_t i=0; i<pSegs->u.seq.n; i++){
    int64_t d = item_device(pSegs->u.seq.a[i]);
    if( d>m && d<MAX_DEVICES ) m = (int)d;
  }
  return m;
}

/* Non-zero if device d has a segment or a trace entry. */
static int device_used(const Loader *L, const PkValue *pSegs,
                       const PkValue *pTraces, int d){
  const PkValue *tr;
  for(size_t i=0; i<pSegs->u.seq.n; i++){
    if( item_device(pSegs->u.seq.a[i])==d ) return 1;
  }
  if( (size_t)d<L->nDev && L->aDev[d].n>0 ) return 1;
  if( pTraces==NULL || (size_t)d>=pTraces->u.seq.n ) return 0;
  tr = pTraces->u.seq.a[d];
  return tr->t==PK_LIST && tr->u.seq.n>0;
}

SnapLoader *load_snapshot_new(sqlite3 *db, const LoadTarget *t,
                                LoadStats *pStats, PfError *pErr){
  Loader *L = xcalloc(1, sizeof(Loader));
  L->db = db;
  L->t = t;
  L->pStats = pStats;
  L->pErr = pErr;
  if( loader_open(L) ){
    load_snapshot_free(L);
    return NULL;
  }
  return L;
}

void load_snapshot_free(SnapLoader *L){
  if( L==NULL ) return;
  for(size_t i=0; i<L->nDev; i++) trace_free(&L->aDev[i]);
  free(L->aDev);
  loader_close(L);
  free(L);
}

int load_snapshot_item(void *pCtx, size_t iDev, const PkValue *pEntry){
  Loader *L = pCtx;
  if( iDev>=L->nDev ){
    L->aDev = xrealloc(L->aDev, (iDev+1)*sizeof(DevTrace));
    memset(&L->aDev[L->nDev], 0, (iDev+1-L->nDev)*sizeof(DevTrace));
    for(size_t i=L->nDev; i<=iDev; i++) L->aDev[i].dev = (int)i;
    L->nDev = iDev+1;
  }
  L->aDev[iDev].hasList = 1;
  return trace_add(L, &L->aDev[iDev], pEntry);
}

int load_snapshot(sqlite3 *db, const LoadTarget *t, const PkValue *pRoot,
                  LoadStats *pStats, PfError *pErr){
  SnapLoader *L = load_snapshot_new(db, t, pStats, pErr);
  int rc = L ? load_snapshot_finish(L, pRoot) : -1;
  load_snapshot_free(L);
  return rc;
}

/* The snapshot row of device d (totals tot, nEv trace events; pSet the
** allocator settings).  Returns its id, or -1 on a database error. */
static int64_t insert_snapshot(SnapLoader *L, int d, int isDict,
                               const DevTotals *tot, size_t nEv,
                               int hasTraces, const PkValue *pSet){
  const PkValue *pConf = pk_dict_get(pSet, "PYTORCH_CUDA_ALLOC_CONF");
  sqlite3_stmt *p = L->pInsSnap;
  int64_t v;
  int has;
  double gc;
  sqlite3_bind_int64(p, 1, L->t->runId);
  sqlite3_bind_int64(p, 2, L->t->fileId);
  sqlite3_bind_null(p, 3);
  sqlite3_bind_int64(p, 4, d);
  sqlite3_bind_text(p, 5, isDict ? "dict" : "segment_list", -1,
                    SQLITE_STATIC);
  db_bind_text_or_null(p, 6, tot->nBlock==0 ? NULL
                             : tot->legacy ? "history" : "address", -1);
  sqlite3_bind_int64(p, 7, tot->nSeg);
  sqlite3_bind_int64(p, 8, tot->nBlock);
  sqlite3_bind_int64(p, 9, (int64_t)nEv);
  sqlite3_bind_int(p, 10, hasTraces);
  sqlite3_bind_int64(p, 11, tot->reserved);
  sqlite3_bind_int64(p, 12, tot->allocated);
  sqlite3_bind_int64(p, 13, tot->active);
  sqlite3_bind_int64(p, 14, tot->inactive);
  sqlite3_bind_int64(p, 15, tot->pending);
  sqlite3_bind_int64(p, 16, tot->internal);
  bind_text(L, p, 17, pConf, NULL, NULL);   /* warned by check_root */
  v = dict_int(pSet, "expandable_segments", &has);
  db_bind_int_or_null(p, 18, has, v);
  v = dict_int(pSet, "max_split_size", &has);
  db_bind_int_or_null(p, 19, has, v);
  has = pk_as_double(pk_dict_get(pSet, "garbage_collection_threshold"),
                     &gc)==0;
  db_bind_double_or_null(p, 20, has, has ? gc : 0.0);
  sqlite3_bind_int64(p, 21, tot->nUnused);
  sqlite3_bind_int64(p, 22, tot->unused);
  sqlite3_bind_int64(p, 23, tot->fragmented);
  if( step_once(L, p) ) return -1;
  return sqlite3_last_insert_rowid(L->db);
}

/* What the replay of a device's trace found, on its snapshot row
** (hasTrace: the device had a trace).  Returns 0 or -1. */
static int update_snapshot(SnapLoader *L, int64_t snapId, int hasTrace,
                           const ReplayOut *ro){
  sqlite3_stmt *p = L->pUpdSnap;
  sqlite3_bind_int64(p, 1, snapId);
  db_bind_int_or_null(p, 2, hasTrace, ro->net);
  db_bind_int_or_null(p, 3, hasTrace, ro->baseline);
  db_bind_int_or_null(p, 4, hasTrace, ro->traceLive);
  db_bind_int_or_null(p, 5, hasTrace, ro->nOrphan);
  sqlite3_bind_int64(p, 6, ro->peak);
  db_bind_int_or_null(p, 7, ro->peakIdx>=0, ro->peakIdx);
  db_bind_int_or_null(p, 8, ro->hasPeakTime, ro->peakTime);
  sqlite3_bind_int64(p, 9, ro->peakReserved);
  sqlite3_bind_int64(p, 10, ro->maxReserved);
  db_bind_int_or_null(p, 11, ro->hasTimes, ro->firstTime);
  db_bind_int_or_null(p, 12, ro->hasTimes, ro->lastTime);
  return step_once(L, p) ? -1 : 0;
}

/* The segments of device d (a segment that is not a dict is warned once,
** with device 0).  Returns 0 or -1. */
static int write_segments(SnapLoader *L, int64_t snapId, const PkValue *pSegs,
                          int d, LiveMap *pLive){
  for(size_t i=0; i<pSegs->u.seq.n; i++){
    const PkValue *s = pSegs->u.seq.a[i];
    if( s->t!=PK_DICT ){
      if( d==0 ){
        char zWhere[40];
        snprintf(zWhere, sizeof(zWhere), "segments[%zu]", i);
        warn(L, zWhere, "segment is not a dict");
      }
      continue;
    }
    if( item_device(s)!=d ) continue;
    if( write_segment(L, snapId, i, s, d, pLive) ) return -1;
  }
  return 0;
}

/* The external annotations of device d.  Returns 0 or -1. */
static int write_annotations(SnapLoader *L, int64_t snapId,
                             const PkValue *pAnn, int d){
  if( pAnn==NULL || pAnn->t!=PK_LIST ) return 0;
  for(size_t i=0; i<pAnn->u.seq.n; i++){
    const PkValue *a = pAnn->u.seq.a[i];
    sqlite3_stmt *p = L->pInsAnn;
    int hasT;
    int64_t tu;
    Where w = { W_ANN, i, 0 };
    if( a->t!=PK_DICT || item_device(a)!=d ) continue;
    hasT = field_int(pk_dict_get(a, "time_us"), FV_NONE_OK, &tu)==FV_OK;
    sqlite3_bind_int64(p, 1, L->t->runId);
    sqlite3_bind_int64(p, 2, L->t->fileId);
    sqlite3_bind_int64(p, 3, snapId);
    db_bind_int_or_null(p, 4, hasT, tu);
    bind_text(L, p, 5, pk_dict_get(a, "stage"), &w, "stage");
    bind_text(L, p, 6, pk_dict_get(a, "name"), &w, "name");
    if( step_once(L, p) ) return -1;
  }
  return 0;
}

int load_snapshot_finish(SnapLoader *L, const PkValue *pRoot){
  DevTrace dt;
  LoadStats *pStats = L->pStats;
  const PkValue *pSegs, *pTraces = NULL, *pSet = NULL, *pAnn = NULL;
  int isDict = pRoot->t==PK_DICT, nDev, rc = -1, anyDev = 0;
  memset(&dt, 0, sizeof(dt));
  snprintf(pStats->zKind, sizeof(pStats->zKind), "snapshot");
  pStats->rank = -1;
  if( isDict ){
    pSegs = pk_dict_get(pRoot, "segments");
    pTraces = pk_dict_get(pRoot, "device_traces");
    pSet = pk_dict_get(pRoot, "allocator_settings");
    pAnn = pk_dict_get(pRoot, "external_annotations");
    if( pTraces && pTraces->t!=PK_LIST ){
      warn(L, "device_traces", "not a list; ignored");
      pTraces = NULL;
    }
    if( pSet && pSet->t!=PK_DICT ) pSet = NULL;
  }else{
    pSegs = pRoot;
  }
  check_root(L, pSegs, pTraces, pAnn,
             pk_dict_get(pSet, "PYTORCH_CUDA_ALLOC_CONF"));
  nDev = max_device(pSegs) + 1;
  if( pTraces && (int)pTraces->u.seq.n > nDev ) nDev = (int)pTraces->u.seq.n;
  if( nDev==0 ) nDev = 1;
  for(int d=0; d<nDev && !anyDev; d++){
    anyDev = device_used(L, pSegs, pTraces, d);
  }

  for(int d=0; d<nDev; d++){
    DevTotals tot;
    ReplayOut ro;
    const PkValue *trace = NULL;
    int64_t snapId;
    size_t nEv;
    memset(&tot, 0, sizeof(tot));
    for(size_t i=0; i<pSegs->u.seq.n; i++){
      const PkValue *s = pSegs->u.seq.a[i];
      if( s->t==PK_DICT && item_device(s)==d ) totals_add(&tot, s);
    }
    if( pTraces && (size_t)d<pTraces->u.seq.n ) trace = pTraces->u.seq.a[d];
    trace_free(&dt);           /* the previous device's */
    if( (size_t)d<L->nDev && L->aDev[d].hasList ){
      dt = L->aDev[d];         /* streamed in while decoding */
      memset(&L->aDev[d], 0, sizeof(DevTrace));
    }else{
      dt.dev = d;
      if( trace_gather(L, &dt, trace) ) goto done;
    }
    nEv = dt.n;
    /* a device with neither segments nor events gets no row, except
    ** device 0 of a snapshot that is empty everywhere */
    if( tot.nSeg==0 && nEv==0 && (d>0 || anyDev) ) continue;
    snapId = insert_snapshot(L, d, isDict, &tot, nEv, pTraces!=NULL, pSet);
    if( snapId<0 || trace_write(L, snapId, &dt, &tot, &ro)
     || update_snapshot(L, snapId, trace!=NULL, &ro)
     || write_segments(L, snapId, pSegs, d, &dt.live)
     || write_annotations(L, snapId, pAnn, d) ) goto done;
    pStats->nRecords += tot.nSeg + tot.nBlock + (int64_t)nEv;
  }
  rc = 0;
done:
  trace_free(&dt);
  return rc;
}
