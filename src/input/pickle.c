/*
** pickle.c — strict, safe decoder for the plain-data subset of Python
** pickle, protocols 2 to 5.
**
** Pipeline position: called by snapshot ingest (CUDA allocator snapshots)
** and flight-recorder ingest with the whole file in memory; produces the
** PkValue tree those layers walk.  See pickle.h for the contract and
** docs/formats.md §2.4 for the encodings met in practice.
**
** How it works.  A single pass over the opcodes runs the pickle virtual
** machine on a value stack and a mark stack, with the memo as a dense
** array indexed by memo slot.  Only data opcodes are implemented; every
** opcode that could name or run code is refused before anything else is
** done with it.  Values live in an arena owned by the PkDoc:
**
**   - scalars are one 32-byte PkValue each; None, True, False and the ints
**     -1..255 are shared per-document singletons, so they cost nothing;
**   - containers are a Box (PkValue plus capacity, height and flags);
**     their item arrays come from the arena too and grow by doubling
**     (extended in place when they are the newest arena allocation); arrays
**     of 64 KiB or more move to separately malloc'ed "big" blocks that grow
**     with realloc, so a list of millions of items is amortised O(1) per
**     APPENDS item without copying garbage into the arena;
**   - strings, bytes and big ints point into the input buffer (zero-copy).
**
** Nesting and cycles.  Each container records its height (1 + the height
** of its tallest child), updated when items are added; a height above
** PICKLE_MAX_DEPTH is an error at the offending opcode.  That running
** height is exact as long as items are only ever added to containers that
** are not yet inside another container, which is how every real pickler
** writes.  A file that adds items to a container already placed elsewhere
** (possible through the memo) is legal but could build a cycle or make
** heights stale, so such a file gets one extra depth-first pass over the
** result before it is accepted: O(nodes + edges), iterative, bounded.
**
** Streaming (pickle_decode_stream).  A memory snapshot is mostly its
** device traces, root["device_traces"] = [[entry, ...], ...], which
** CPython writes as EMPTY_LIST, then MARK + up to 1000 entries + APPENDS
** per batch.  The decoder recognises the outer list (EMPTY_LIST right
** after that key of the root dict) and its inner lists (EMPTY_LIST right
** above the outer list or a finished sibling), and while the entries of a
** batch are being built it allocates from a scratch arena.  At the
** batch's APPENDS each entry goes to the consumer and is dropped; the memo
** slots stored during the batch then point at copies in the document
** (promote(): frame dicts, frame lists and strings that later entries may
** fetch) or, for the entries themselves, at a "gone" marker, and the
** scratch arena starts over.  Memory is thus bounded by the batch plus
** what the memo keeps, not by the trace.  Anything outside that shape (an
** entry fetched again, items added to an older container during a batch,
** an inner list placed elsewhere, ...) stops the streaming decode with
** streamFail set, and the caller decodes the file whole; a malformed file
** fails exactly as it would there (same checks, same opcode order).
*/
#include "input/pickle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ constants */

#define SMALL_LO (-1)          /* ints in SMALL_LO..SMALL_HI are shared */
#define SMALL_HI 255
#define CHUNK_MIN (16 * 1024)  /* first arena chunk */
#define CHUNK_MAX (1024 * 1024)/* arena chunks stop growing here */
#define BIG_ARRAY (64 * 1024)  /* item arrays this size or more: big block */

/* Box.flags */
#define BOX_BIG    0x01  /* item array is a Big block, not arena memory */
#define BOX_INSIDE 0x02  /* has been placed inside another container */
#define BOX_SET    0x04  /* came from EMPTY_SET or FROZENSET */
#define BOX_FROZEN 0x08  /* came from FROZENSET (hashable) */
#define BOX_SCRATCH 0x10 /* streaming: lives in the scratch arena */
#define BOX_OUTER  0x20  /* streaming: the list under the streamed key */
#define BOX_INNER  0x40  /* streaming: a list whose items are streamed */
#define BOX_GONE   0x80  /* streaming: handed to the consumer */

/* ------------------------------------------------------------ types */

/* One arena chunk; its data follows the header. */
typedef struct Chunk {
  struct Chunk *pNext;
  size_t nByte;              /* data bytes after the header */
} Chunk;

/* A large item array, outside the arena; its data follows the header. */
typedef struct Big {
  struct Big *pNext;
  struct Big *pPrev;
  size_t nByte;              /* data bytes after the header */
  size_t unused;             /* keeps the data 16-byte aligned */
} Big;

/* A bump allocator over a list of chunks. */
typedef struct Arena {
  Chunk *pChunk;             /* chunks, newest first */
  unsigned char *zFree;      /* next free byte in pChunk */
  unsigned char *zEnd;       /* end of pChunk's data */
  size_t nChunkNext;         /* size of the next chunk to allocate */
  size_t nMem;               /* bytes of chunks held */
} Arena;

/* A container node.  v must stay the first member: PkValue pointers to
** lists, tuples and dicts are always Box pointers. */
typedef struct Box {
  PkValue v;
  size_t cap;                /* item slots allocated (pairs for a dict);
                             ** BOX_INNER lists never hold items: cap is
                             ** then their position in the outer list */
  uint32_t height;           /* 1 + height of the tallest child */
  uint8_t flags;             /* BOX_* */
  uint8_t color;             /* graph check: 0 new, 1 on path, 2 done;
                             ** 3: a scratch box copied out by promote(),
                             ** u.seq.a then points at the copy */
} Box;

struct PkDoc {
  Arena a;                   /* every value not in a big block */
  Big *pBig;                 /* big item arrays */
  size_t nMem;               /* heap bytes held besides a.nMem */
  PkValue none, yes, no;     /* shared singletons */
  PkValue aSmall[SMALL_HI - SMALL_LO + 1];
};

/* Decoder state; lives only for one pickle_decode() call. */
typedef struct Dec {
  const unsigned char *z;    /* input */
  size_t n;                  /* input size */
  size_t pos;                /* next byte to read */
  size_t opPos;              /* offset of the opcode being run */
  unsigned char op;          /* the opcode being run */
  int inFrame;               /* inside a FRAME */
  size_t frameEnd;           /* offset just past the current FRAME */
  PkDoc *pDoc;
  PkValue **aStk;            /* value stack */
  size_t nStk, nStkAlloc;
  size_t *aMark;             /* mark stack: value-stack heights */
  size_t nMark, nMarkAlloc;
  PkValue **aMemo;           /* memo slots, NULL = never stored */
  size_t nMemoAlloc;
  size_t nMemo;              /* slots stored (next MEMOIZE index) */
  int dirty;                 /* items added to a nested container */
  size_t dirtyPos;           /* offset of the first such opcode */
  PfError *pErr;
  /* streaming (pickle_decode_stream; see the header comment) */
  const char *zStreamKey;    /* NULL: build the whole tree */
  PkItemFn xItem;
  void *pItemCtx;
  Box *pOuter;               /* the list under zStreamKey, once seen */
  uint32_t nInner;           /* inner lists created */
  int streamFail;            /* the file left the expected shape */
  int bStreamed;             /* items were handed to the consumer */
  int inScratch;             /* inside an APPENDS batch of an inner list */
  size_t iScratchMark;       /* index in aMark of that batch's MARK */
  Arena scratch;             /* values made inside the batch */
  size_t *aBatchMemo;        /* memo slots stored inside the batch */
  size_t nBatchMemo, nBatchMemoAlloc;
  PkValue gone;              /* memo slot of an item handed over */
} Dec;

/* ------------------------------------------------------------ arena */

/*
** Return nByte (rounded up to 8) bytes of uninitialised arena memory owned
** by d, never NULL (out of memory is fatal).  Freed by pickle_free().
*/
static void *arena_alloc(Arena *d, size_t nByte){
  void *pRet;
  size_t nRoom = (size_t)(d->zEnd - d->zFree);
  nByte = (nByte + 7) & ~(size_t)7;
  if( nByte > nRoom ){
    size_t nData = d->nChunkNext;
    Chunk *pNew;
    int bOwn = d->pChunk && nByte >= d->nChunkNext/4 && nRoom >= 256;
    if( bOwn || nData < nByte ) nData = nByte;
    if( nData > SIZE_MAX - sizeof(Chunk) ) util_fatal("out of memory");
    pNew = xmalloc(sizeof(Chunk) + nData);
    pNew->nByte = nData;
    d->nMem += sizeof(Chunk) + nData;
    if( bOwn ){
      /* A large request while the current chunk still has room: give it
      ** a chunk of its own behind the current one, so that room stays in
      ** use. */
      pNew->pNext = d->pChunk->pNext;
      d->pChunk->pNext = pNew;
      return (unsigned char*)(pNew + 1);
    }
    pNew->pNext = d->pChunk;
    d->pChunk = pNew;
    d->zFree = (unsigned char*)(pNew + 1);
    d->zEnd = d->zFree + nData;
    if( d->nChunkNext < CHUNK_MAX ) d->nChunkNext *= 2;
  }
  pRet = d->zFree;
  d->zFree += nByte;
  return pRet;
}

/* Free every chunk of d but the newest and start over in that one (the
** scratch arena between two streamed batches). */
static void arena_reset(Arena *d){
  Chunk *pC, *pNext;
  if( d->pChunk==0 ) return;
  for(pC=d->pChunk->pNext; pC; pC=pNext){
    pNext = pC->pNext;
    d->nMem -= sizeof(Chunk) + pC->nByte;
    free(pC);
  }
  d->pChunk->pNext = 0;
  d->zFree = (unsigned char*)(d->pChunk + 1);
  d->zEnd = d->zFree + d->pChunk->nByte;
}

/* Free every chunk of d. */
static void arena_free(Arena *d){
  Chunk *pC, *pNext;
  for(pC=d->pChunk; pC; pC=pNext){
    pNext = pC->pNext;
    free(pC);
  }
  memset(d, 0, sizeof(*d));
}

/* Non-zero if x lies in one of d's chunks. */
static int arena_holds(const Arena *d, const void *x){
  const unsigned char *z = x;
  for(const Chunk *pC=d->pChunk; pC; pC=pC->pNext){
    const unsigned char *zData = (const unsigned char*)(pC + 1);
    if( z>=zData && z<zData + pC->nByte ) return 1;
  }
  return 0;
}

/*
** Allocate a big block of nByte data bytes, linked into d; returns the data
** (16-byte aligned, uninitialised).  Freed by big_free() or pickle_free().
*/
static void *big_alloc(PkDoc *d, size_t nByte){
  Big *p;
  if( nByte > SIZE_MAX - sizeof(Big) ) util_fatal("out of memory");
  p = xmalloc(sizeof(Big) + nByte);
  p->nByte = nByte;
  p->pPrev = 0;
  p->pNext = d->pBig;
  if( d->pBig ) d->pBig->pPrev = p;
  d->pBig = p;
  d->nMem += sizeof(Big) + nByte;
  return p + 1;
}

/*
** Resize the big block whose data is pData to nByte, keeping its content
** (as realloc does); returns the new data pointer.
*/
static void *big_realloc(PkDoc *d, void *pData, size_t nByte){
  Big *p = (Big*)pData - 1;
  if( nByte > SIZE_MAX - sizeof(Big) ) util_fatal("out of memory");
  d->nMem -= sizeof(Big) + p->nByte;
  p = xrealloc(p, sizeof(Big) + nByte);
  p->nByte = nByte;
  d->nMem += sizeof(Big) + nByte;
  if( p->pPrev ) p->pPrev->pNext = p; else d->pBig = p;
  if( p->pNext ) p->pNext->pPrev = p;
  return p + 1;
}

/*
** Create an empty document with its singletons set up.  The caller owns
** it and frees it with pickle_free().
*/
static PkDoc *doc_new(void){
  PkDoc *d = xcalloc(1, sizeof(PkDoc));
  int i;
  d->a.nChunkNext = CHUNK_MIN;
  d->nMem = sizeof(PkDoc);
  d->none.t = PK_NONE;
  d->yes.t = PK_BOOL;
  d->yes.u.i = 1;
  d->no.t = PK_BOOL;
  d->no.u.i = 0;
  for(i=SMALL_LO; i<=SMALL_HI; i++){
    d->aSmall[i - SMALL_LO].t = PK_INT;
    d->aSmall[i - SMALL_LO].u.i = i;
  }
  return d;
}

void pickle_free(PkDoc *d){
  Chunk *pC, *pCNext;
  Big *pB, *pBNext;
  if( d==0 ) return;
  for(pC=d->a.pChunk; pC; pC=pCNext){
    pCNext = pC->pNext;
    free(pC);
  }
  for(pB=d->pBig; pB; pB=pBNext){
    pBNext = pB->pNext;
    free(pB);
  }
  free(d);
}

size_t pickle_mem_used(const PkDoc *d){
  return d ? d->nMem + d->a.nMem : 0;
}

/* ------------------------------------------------------------ opcodes */

/* The pickletools name of opcode op, or NULL if op is not an opcode. */
static const char *op_name(unsigned char op){
  switch( op ){
    case 0x80: return "PROTO";
    case 0x95: return "FRAME";
    case '.':  return "STOP";
    case '(':  return "MARK";
    case '0':  return "POP";
    case '1':  return "POP_MARK";
    case '2':  return "DUP";
    case 'N':  return "NONE";
    case 0x88: return "NEWTRUE";
    case 0x89: return "NEWFALSE";
    case 'J':  return "BININT";
    case 'K':  return "BININT1";
    case 'M':  return "BININT2";
    case 0x8a: return "LONG1";
    case 0x8b: return "LONG4";
    case 'G':  return "BINFLOAT";
    case 0x8c: return "SHORT_BINUNICODE";
    case 'X':  return "BINUNICODE";
    case 0x8d: return "BINUNICODE8";
    case 'U':  return "SHORT_BINSTRING";
    case 'T':  return "BINSTRING";
    case 'C':  return "SHORT_BINBYTES";
    case 'B':  return "BINBYTES";
    case 0x8e: return "BINBYTES8";
    case 0x96: return "BYTEARRAY8";
    case '}':  return "EMPTY_DICT";
    case ']':  return "EMPTY_LIST";
    case ')':  return "EMPTY_TUPLE";
    case 't':  return "TUPLE";
    case 0x85: return "TUPLE1";
    case 0x86: return "TUPLE2";
    case 0x87: return "TUPLE3";
    case 'l':  return "LIST";
    case 'a':  return "APPEND";
    case 'e':  return "APPENDS";
    case 'd':  return "DICT";
    case 's':  return "SETITEM";
    case 'u':  return "SETITEMS";
    case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";
    case 0x94: return "MEMOIZE";
    case 'q':  return "BINPUT";
    case 'r':  return "LONG_BINPUT";
    case 'h':  return "BINGET";
    case 'j':  return "LONG_BINGET";
    case 'p':  return "PUT";
    case 'g':  return "GET";
    case 'c':  return "GLOBAL";
    case 0x93: return "STACK_GLOBAL";
    case 'R':  return "REDUCE";
    case 'b':  return "BUILD";
    case 'i':  return "INST";
    case 'o':  return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 'P':  return "PERSID";
    case 'Q':  return "BINPERSID";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    case 'I':  return "INT";
    case 'L':  return "LONG";
    case 'S':  return "STRING";
    case 'V':  return "UNICODE";
    case 'F':  return "FLOAT";
  }
  return 0;
}

/* ------------------------------------------------------------ errors */

/* Record an error at the current opcode; always returns -1. */
static int dec_err(Dec *p, const char *zFmt, ...) PF_PRINTF(2, 3);
static int dec_err(Dec *p, const char *zFmt, ...){
  char zMsg[sizeof(p->pErr->zMsg)];
  va_list ap;
  va_start(ap, zFmt);
  vsnprintf(zMsg, sizeof(zMsg), zFmt, ap);
  va_end(ap);
  pf_error_set(p->pErr, ERRPOS_BYTE, (int64_t)p->opPos, "%s", zMsg);
  return -1;
}

/*
** Consume nNeed argument or payload bytes of the current opcode and return
** a pointer to them, or NULL after recording an error if they run past the
** end of the input or the end of the current FRAME.  bLength is non-zero
** when nNeed is a length read from the file (payload of a string, bytes or
** long), zero for a fixed-size argument; it only changes the message.
** take() is the fast path, take_fail() records the error.
*/
static const unsigned char *take_fail(Dec *p, uint64_t nNeed, int bLength){
  const char *zOp = op_name(p->op);
  if( nNeed > (uint64_t)(p->n - p->pos) ){
    if( bLength ){
      dec_err(p, "truncated pickle: %s length %llu runs past end of file",
              zOp, (unsigned long long)nNeed);
    }else{
      dec_err(p, "truncated pickle: %s needs %llu argument byte%s, %zu left",
              zOp, (unsigned long long)nNeed, nNeed==1 ? "" : "s",
              p->n - p->pos);
    }
  }else{
    dec_err(p, "%s runs past the end of its FRAME (%zu bytes left in it)",
            zOp, p->frameEnd - p->pos);
  }
  return 0;
}
static inline const unsigned char *take(Dec *p, uint64_t nNeed,
                                        int bLength){
  const unsigned char *pRet;
  if( nNeed > (uint64_t)(p->n - p->pos)
   || (p->inFrame && p->pos + nNeed > p->frameEnd) ){
    return take_fail(p, nNeed, bLength);
  }
  pRet = p->z + p->pos;
  p->pos += (size_t)nNeed;
  return pRet;
}

/* Little-endian unsigned integer of nb (<= 8) bytes at a. */
static uint64_t get_le(const unsigned char *a, int nb){
  uint64_t v = 0;
  int i;
  for(i=nb-1; i>=0; i--) v = (v<<8) | a[i];
  return v;
}

/* ------------------------------------------------------------ values */

static inline int is_box(const PkValue *v){
  return v->t==PK_LIST || v->t==PK_TUPLE || v->t==PK_DICT;
}

/* nByte bytes for a new value: from the scratch arena inside a streamed
** batch, else from the document's. */
static inline void *val_alloc(Dec *p, size_t nByte){
  return arena_alloc(p->inScratch ? &p->scratch : &p->pDoc->a, nByte);
}

/* An int value, shared when small; owned by the document. */

static PkValue *mk_int(Dec *p, int64_t i){
  PkValue *v;
  if( i>=SMALL_LO && i<=SMALL_HI ) return &p->pDoc->aSmall[i - SMALL_LO];
  v = val_alloc(p, sizeof(PkValue));
  v->t = PK_INT;
  v->u.i = i;
  return v;
}

/* A string-like value (PK_STR, PK_BYTES, PK_BIGINT) pointing at the n
** bytes at z, which lie in the input buffer. */
static PkValue *mk_bytes(Dec *p, PkType t, const unsigned char *z, size_t n){
  PkValue *v = val_alloc(p, sizeof(PkValue));
  v->t = t;
  v->u.s.z = (const char*)z;
  v->u.s.n = n;
  return v;
}

/* A new empty container of type t, height 1, owned by the document. */
static Box *mk_box(Dec *p, PkType t){
  Box *b = val_alloc(p, sizeof(Box));
  memset(b, 0, sizeof(Box));
  b->v.t = t;
  b->height = 1;
  if( p->inScratch ) b->flags = BOX_SCRATCH;
  return b;
}

/* Base of b's item array (keys for a dict). */
static PkValue **box_base(Box *b){
  return b->v.t==PK_DICT ? b->v.u.dict.k : b->v.u.seq.a;
}

/* Items in b (pairs for a dict). */
static size_t box_count(const Box *b){
  return b->v.t==PK_DICT ? b->v.u.dict.n : b->v.u.seq.n;
}

/*
** Make room for `need` items (pairs for a dict) in list or dict b.  A dict
** keeps keys and values in one block: keys in slots [0,cap), values in
** [cap,2*cap).  Growth at least doubles, so repeated calls are amortised
** O(1) per item.
*/
static void box_reserve(Dec *p, Box *b, size_t need){
  PkDoc *d = p->pDoc;
  Arena *pA = (b->flags & BOX_SCRATCH) ? &p->scratch : &d->a;
  size_t w = b->v.t==PK_DICT ? 2 : 1;
  size_t oldCap = b->cap, newCap, nByte, nOld;
  PkValue **aOld = box_base(b), **aNew;
  if( need<=oldCap ) return;
  newCap = oldCap==0 ? need : (need > oldCap*2 ? need : oldCap*2);
  if( newCap > SIZE_MAX / (2 * w * sizeof(PkValue*)) ){
    util_fatal("out of memory");
  }
  nByte = newCap * w * sizeof(PkValue*);
  nOld = oldCap * w * sizeof(PkValue*);
  if( b->flags & BOX_BIG ){
    aNew = big_realloc(d, aOld, nByte);
  }else if( nByte>=BIG_ARRAY && !(b->flags & BOX_SCRATCH) ){
    aNew = big_alloc(d, nByte);
    if( nOld ) memcpy(aNew, aOld, nOld);
    b->flags |= BOX_BIG;
  }else if( nOld && (unsigned char*)aOld + nOld==pA->zFree
         && (nByte - nOld) % 8==0
         && nByte - nOld <= (size_t)(pA->zEnd - pA->zFree) ){
    pA->zFree += nByte - nOld;  /* newest allocation: extend in place */
    aNew = aOld;
  }else{
    aNew = arena_alloc(pA, nByte);
    if( nOld ) memcpy(aNew, aOld, nOld);
  }
  if( w==2 ){
    if( oldCap ){
      memmove(aNew + newCap, aNew + oldCap,
              b->v.u.dict.n * sizeof(PkValue*));
    }
    b->v.u.dict.k = aNew;
    b->v.u.dict.v = aNew + newCap;
  }else{
    b->v.u.seq.a = aNew;
  }
  b->cap = newCap;
}

/* Give up streaming: the file is a legal pickle but not laid out the way
** the snapshot writer lays it out, so pickle_decode_stream() returns 1 and
** the caller decodes it again as a whole.  Returns -1. */
static int stream_fail(Dec *p){
  p->streamFail = 1;
  return dec_err(p, "pickle layout is not suited to streaming");
}

/* Non-zero if adding items to b would break streaming: b is an inner list
** (only APPEND/APPENDS in the expected place may touch those), an item
** already handed over, or outlives the current batch while what is added
** does not. */
static inline int stream_target_bad(const Dec *p, const Box *b){
  return (b->flags & (BOX_INNER | BOX_GONE))
      || (p->inScratch && !(b->flags & BOX_SCRATCH));
}

/*
** Account for child c being placed in container b: raise b's height,
** mark c as nested.  Returns -1 (error recorded) if c is b itself.
*/
static inline int adopt(Dec *p, Box *b, PkValue *c){
  Box *cb;
  if( !is_box(c) ) return 0;
  cb = (Box*)c;
  if( cb==b ){
    return dec_err(p, "reference cycle: %s puts a %s inside itself",
                   op_name(p->op), pk_type_name(b->v.t));
  }
  if( (cb->flags & (BOX_GONE | BOX_INNER)) && ((cb->flags & BOX_GONE)
                                               || b!=p->pOuter) ){
    return stream_fail(p);   /* a streamed list or item placed elsewhere */
  }
  if( cb->height + 1 > b->height ) b->height = cb->height + 1;
  cb->flags |= BOX_INSIDE;
  return 0;
}

/*
** Common tail of every opcode that added items to b: note files that add
** to a container that is already nested (see the header comment) and check
** the depth limit.  Returns 0 or -1 with an error recorded.
*/
static int box_added(Dec *p, Box *b){
  if( (b->flags & BOX_INSIDE) && !p->dirty ){
    if( p->bStreamed ) return stream_fail(p);   /* see stream_items() */
    p->dirty = 1;
    p->dirtyPos = p->opPos;
  }
  if( b->height > PICKLE_MAX_DEPTH ){
    return dec_err(p, "nesting deeper than %d", PICKLE_MAX_DEPTH);
  }
  return 0;
}

/* Non-zero if v may be a dict key or set element (Python would refuse
** lists, dicts and sets as unhashable). */
static int hashable(const PkValue *v){
  if( v->t==PK_DICT ) return 0;
  if( v->t==PK_LIST ) return (((const Box*)v)->flags & BOX_FROZEN)!=0;
  return 1;
}

/* Name of v's type for messages, telling sets from lists. */
static const char *kind_name(const PkValue *v){
  if( v->t==PK_LIST && (((const Box*)v)->flags & BOX_SET) ){
    return (((const Box*)v)->flags & BOX_FROZEN) ? "frozenset" : "set";
  }
  return pk_type_name(v->t);
}

/* Append the m values at a to list (or set) b.  0 or -1 with error. */
static int list_add(Dec *p, Box *b, PkValue **a, size_t m){
  size_t i, n = b->v.u.seq.n;
  if( m==0 ) return 0;
  if( stream_target_bad(p, b) ) return stream_fail(p);
  box_reserve(p, b, n + m);
  for(i=0; i<m; i++){
    if( (b->flags & BOX_SET) && !hashable(a[i]) ){
      return dec_err(p, "set element is a %s, which is unhashable",
                     kind_name(a[i]));
    }
    if( adopt(p, b, a[i]) ) return -1;
    b->v.u.seq.a[n + i] = a[i];
  }
  b->v.u.seq.n = n + m;
  return box_added(p, b);
}

/* Add the nPair key/value pairs at a (k0 v0 k1 v1 ...) to dict b. */
static int dict_add(Dec *p, Box *b, PkValue **a, size_t nPair){
  size_t i, n = b->v.u.dict.n;
  if( nPair==0 ) return 0;
  if( stream_target_bad(p, b) ) return stream_fail(p);
  box_reserve(p, b, n + nPair);
  for(i=0; i<nPair; i++){
    PkValue *k = a[2*i], *v = a[2*i + 1];
    if( !hashable(k) ){
      return dec_err(p, "dict key is a %s, which is unhashable",
                     kind_name(k));
    }
    if( adopt(p, b, k) || adopt(p, b, v) ) return -1;
    b->v.u.dict.k[n + i] = k;
    b->v.u.dict.v[n + i] = v;
    b->v.u.dict.n = n + i + 1;
  }
  return box_added(p, b);
}

/* A new tuple of the m values at a. */
static int mk_tuple(Dec *p, PkValue **a, size_t m, PkValue **ppOut){
  Box *b = mk_box(p, PK_TUPLE);
  size_t i;
  if( m ){
    b->v.u.seq.a = val_alloc(p, m * sizeof(PkValue*));
    b->cap = m;
  }
  for(i=0; i<m; i++){
    if( adopt(p, b, a[i]) ) return -1;
    b->v.u.seq.a[i] = a[i];
  }
  b->v.u.seq.n = m;
  *ppOut = &b->v;
  return box_added(p, b);
}

/* ------------------------------------------------------------ stacks */

/* Double the value stack. */
static void grow_stack(Dec *p){
  p->nStkAlloc = p->nStkAlloc ? p->nStkAlloc*2 : 256;
  p->aStk = xrealloc(p->aStk, p->nStkAlloc * sizeof(PkValue*));
}

/* Push v (growing the stack as needed; it is bounded by the input size
** since every push consumes at least one opcode byte). */
static inline void push(Dec *p, PkValue *v){
  if( p->nStk==p->nStkAlloc ) grow_stack(p);
  p->aStk[p->nStk++] = v;
}

/* Stack height at the innermost MARK (0 if none): values below it cannot
** be popped by ordinary opcodes. */
static size_t fence(const Dec *p){
  return p->nMark ? p->aMark[p->nMark - 1] : 0;
}

/* Check that k values are above the fence; -1 with an error if not. */
static int need(Dec *p, size_t k){
  size_t nAvail = p->nStk - fence(p);
  if( nAvail<k ){
    return dec_err(p, "stack underflow: %s needs %zu value%s, %zu %s",
                   op_name(p->op), k, k==1 ? "" : "s", nAvail,
                   p->nMark ? "above the MARK" : "on the stack");
  }
  return 0;
}

/* Pop the innermost mark into *pMark; -1 with an error if there is none. */
static int pop_mark(Dec *p, size_t *pMark){
  if( p->nMark==0 ){
    return dec_err(p, "%s without a MARK", op_name(p->op));
  }
  if( p->inScratch && p->nMark-1==p->iScratchMark ){
    return stream_fail(p);   /* the batch's MARK closed by anything else */
  }
  *pMark = p->aMark[--p->nMark];
  return 0;
}

/*
** For APPENDS/SETITEMS/ADDITEMS: the container just below mark position
** iMark, which must be of type t (and a set iff bSet).  The mark has
** already been popped.  NULL with an error if missing or wrong.
*/
static Box *target_below(Dec *p, size_t iMark, PkType t, int bSet){
  PkValue *v;
  const char *zWant = bSet ? "set" : pk_type_name(t);
  if( iMark<=fence(p) ){
    dec_err(p, "%s has no %s below its MARK", op_name(p->op), zWant);
    return 0;
  }
  v = p->aStk[iMark - 1];
  if( v->t!=t
   || (t==PK_LIST && ((((Box*)v)->flags & BOX_SET)!=0)!=(bSet!=0))
   || (bSet && (((Box*)v)->flags & BOX_FROZEN)) ){
    dec_err(p, "%s target is a %s, not a %s", op_name(p->op), kind_name(v),
            zWant);
    return 0;
  }
  return (Box*)v;
}

/* ------------------------------------------------------------ memo */

/* Store the top of the stack in memo slot idx. */
static int memo_put(Dec *p, uint64_t idx){
  if( need(p, 1) ) return -1;
  if( idx >= (uint64_t)p->n + 256 ){
    return dec_err(p, "memo index %llu is out of range for a %zu-byte pickle",
                   (unsigned long long)idx, p->n);
  }
  if( idx>=p->nMemoAlloc ){
    size_t nNew = p->nMemoAlloc ? p->nMemoAlloc*2 : 256;
    if( nNew<=idx ) nNew = (size_t)idx + 1;
    if( nNew > p->n + 256 ) nNew = p->n + 256;
    p->aMemo = xrealloc(p->aMemo, nNew * sizeof(PkValue*));
    memset(p->aMemo + p->nMemoAlloc, 0,
           (nNew - p->nMemoAlloc) * sizeof(PkValue*));
    p->nMemoAlloc = nNew;
  }
  if( p->aMemo[idx]==0 ) p->nMemo++;
  p->aMemo[idx] = p->aStk[p->nStk - 1];
  if( p->inScratch ){
    if( p->nBatchMemo==p->nBatchMemoAlloc ){
      p->nBatchMemoAlloc = p->nBatchMemoAlloc ? 2*p->nBatchMemoAlloc : 1024;
      p->aBatchMemo = xrealloc(p->aBatchMemo,
                               p->nBatchMemoAlloc * sizeof(size_t));
    }
    p->aBatchMemo[p->nBatchMemo++] = (size_t)idx;
  }
  return 0;
}

/* Push the value in memo slot idx. */
static int memo_get(Dec *p, uint64_t idx){
  if( idx>=p->nMemoAlloc || p->aMemo[idx]==0 ){
    return dec_err(p, "memo index %llu was never stored",
                   (unsigned long long)idx);
  }
  if( p->aMemo[idx]==&p->gone ) return stream_fail(p);
  push(p, p->aMemo[idx]);
  return 0;
}

/*
** Read the newline-terminated decimal argument of text PUT/GET into *pIdx.
*/
static int text_index(Dec *p, uint64_t *pIdx){
  size_t nLeft = p->n - p->pos, i;
  const unsigned char *z = p->z + p->pos, *zNl;
  uint64_t v = 0;
  if( p->inFrame && p->frameEnd - p->pos < nLeft ){
    nLeft = p->frameEnd - p->pos;
  }
  zNl = memchr(z, '\n', nLeft);
  if( zNl==0 ){
    return dec_err(p, "truncated pickle: %s argument has no newline",
                   op_name(p->op));
  }
  if( zNl==z || zNl - z > 19 ){
    return dec_err(p, "%s argument is not a memo index", op_name(p->op));
  }
  for(i=0; z + i<zNl; i++){
    if( z[i]<'0' || z[i]>'9' ){
      return dec_err(p, "%s argument is not a memo index", op_name(p->op));
    }
    v = v*10 + (uint64_t)(z[i] - '0');
  }
  p->pos += (size_t)(zNl - z) + 1;
  *pIdx = v;
  return 0;
}

/* ------------------------------------------------------------ refusal */

/*
** Copy the next newline-terminated line of the input (at most 200 bytes
** looked at) into zOut, sanitised; "?" if there is none.  Advances past
** it.  Used only to name the code a refused GLOBAL/INST points at.
*/
static void peek_line(Dec *p, char *zOut, size_t nOut){
  size_t nLeft = p->n - p->pos;
  const unsigned char *z = p->z + p->pos, *zNl;
  zNl = memchr(z, '\n', nLeft < 200 ? nLeft : 200);
  if( zNl==0 ){
    snprintf(zOut, nOut, "?");
    return;
  }
  pk_sanitize((const char*)z, (size_t)(zNl - z), zOut, nOut);
  p->pos += (size_t)(zNl - z) + 1;
}

/* Record the error for an opcode that names or runs code (or needs data
** from outside the file).  Always returns -1; nothing is looked up. */
static int refuse(Dec *p){
  unsigned char op = p->op;
  const char *zWhy;
  char zWhyBuf[200];
  char zMod[64], zName[64];
  switch( op ){
    case 'c': case 'i':
      peek_line(p, zMod, sizeof(zMod));
      peek_line(p, zName, sizeof(zName));
      snprintf(zWhyBuf, sizeof(zWhyBuf), "the file names code (%s %s)",
               zMod, zName);
      zWhy = zWhyBuf;
      break;
    case 0x93: {
      size_t nAvail = p->nStk - fence(p);
      if( nAvail>=2 && p->aStk[p->nStk-2]->t==PK_STR
       && p->aStk[p->nStk-1]->t==PK_STR ){
        const PkValue *m = p->aStk[p->nStk-2], *nm = p->aStk[p->nStk-1];
        pk_sanitize(m->u.s.z, m->u.s.n, zMod, sizeof(zMod));
        pk_sanitize(nm->u.s.z, nm->u.s.n, zName, sizeof(zName));
        snprintf(zWhyBuf, sizeof(zWhyBuf), "the file names code (%s %s)",
                 zMod, zName);
        zWhy = zWhyBuf;
      }else{
        zWhy = "the file names code";
      }
      break;
    }
    case 'R': case 'o': case 0x81: case 0x92:
      zWhy = "it would call code";
      break;
    case 'b':
      zWhy = "it would set an object's state through code";
      break;
    case 0x82: case 0x83: case 0x84:
      zWhy = "it names code through the copyreg extension registry";
      break;
    case 'P': case 'Q':
      zWhy = "it refers to an object outside the file (persistent id)";
      break;
    default: /* NEXT_BUFFER, READONLY_BUFFER */
      zWhy = "it refers to an out-of-band buffer";
      break;
  }
  return dec_err(p, "opcode %s (0x%02x) is refused: %s, "
                 "profan only reads plain data", op_name(op), op, zWhy);
}

/* ------------------------------------------------------------ streaming */

/*
** Called for a new EMPTY_LIST b (not yet pushed) while streaming: flag it
** as the outer list when it is the value of zStreamKey in the root dict
** (the root at the bottom of the stack, with nothing but its MARK and its
** pending key/value pairs above it), or as an inner list when it is made
** right above the outer list or one of its finished inner lists.
*/
static void stream_classify(Dec *p, Box *b){
  size_t f = fence(p);
  PkValue *top = p->nStk>f ? p->aStk[p->nStk-1] : 0;
  if( p->pOuter==0 ){
    size_t nKey = strlen(p->zStreamKey);
    size_t base = p->nMark ? f : 1;
    if( p->nMark<=1 && (p->nMark==0 || f==1) && p->nStk>=2
        && p->aStk[0]->t==PK_DICT && (p->nStk - base) % 2==1
        && top && top->t==PK_STR && top->u.s.n==nKey
        && memcmp(top->u.s.z, p->zStreamKey, nKey)==0 ){
      b->flags |= BOX_OUTER;
      p->pOuter = b;
    }
    return;
  }
  if( top==&p->pOuter->v
   || (f>0 && p->aStk[f-1]==&p->pOuter->v
       && (top==0 || (is_box(top) && (((Box*)top)->flags & BOX_INNER)))) ){
    b->flags |= BOX_INNER;
    b->cap = p->nInner++;
  }
}

/*
** Hand the m values at a, new items of inner list b, to the consumer and
** mark the containers among them as gone.  Returns 0, or -1 when the
** consumer refuses (it has recorded its own error).
*/
static int stream_items(Dec *p, Box *b, PkValue **a, size_t m){
  for(size_t i=0; i<m; i++){
    /* root, outer and inner list above it: too deep for the tree, so let
    ** the whole decode report it */
    if( is_box(a[i]) && ((Box*)a[i])->height + 3 > PICKLE_MAX_DEPTH ){
      return stream_fail(p);
    }
    /* a streamed list as an item (the tree would hold a cycle), or a
    ** file that needs the graph check, which needs every item */
    if( p->dirty
     || (is_box(a[i]) && (((Box*)a[i])->flags & (BOX_INNER | BOX_OUTER))) ){
      return stream_fail(p);
    }
    p->bStreamed = 1;
    if( p->xItem(p->pItemCtx, b->cap, a[i]) ) return -1;
    if( is_box(a[i]) ) ((Box*)a[i])->flags |= BOX_GONE;
  }
  return 0;
}

/*
** The value v as it must be after the scratch arena is reset: v itself if
** it lives in the document, else a copy in the document (containers are
** copied once, with their items promoted in turn; the old box keeps a
** forwarding pointer).  NULL (streaming failed) when v reaches an item
** already handed over, or nests too deep.
*/
static PkValue *promote(Dec *p, PkValue *v, int depth){
  Box *b, *nb;
  size_t n, w;
  PkValue **aItem;
  if( !is_box(v) ){
    PkValue *c;
    if( !arena_holds(&p->scratch, v) ) return v;
    c = arena_alloc(&p->pDoc->a, sizeof(PkValue));
    *c = *v;
    return c;
  }
  b = (Box*)v;
  if( !(b->flags & BOX_SCRATCH) ) return v;
  if( b->color==3 ) return (PkValue*)b->v.u.seq.a;   /* moved already */
  if( (b->flags & BOX_GONE) || depth>PICKLE_MAX_DEPTH ) return 0;
  w = b->v.t==PK_DICT ? 2 : 1;
  n = box_count(b);
  nb = arena_alloc(&p->pDoc->a, sizeof(Box));
  *nb = *b;
  nb->flags &= (uint8_t)~BOX_SCRATCH;
  nb->cap = n;
  aItem = 0;
  if( n ){
    aItem = arena_alloc(&p->pDoc->a, n * w * sizeof(PkValue*));
    if( w==2 ){
      memcpy(aItem, b->v.u.dict.k, n * sizeof(PkValue*));
      memcpy(aItem + n, b->v.u.dict.v, n * sizeof(PkValue*));
      nb->v.u.dict.k = aItem;
      nb->v.u.dict.v = aItem + n;
    }else{
      memcpy(aItem, b->v.u.seq.a, n * sizeof(PkValue*));
      nb->v.u.seq.a = aItem;
    }
  }
  b->color = 3;
  b->v.u.seq.a = (PkValue**)nb;
  for(size_t i=0; i<n*w; i++){
    if( (aItem[i] = promote(p, aItem[i], depth+1))==0 ) return 0;
  }
  return &nb->v;
}

/*
** End of a streamed batch: the memo slots stored during it are made to
** point at promoted copies (or at p->gone for the items handed over), and
** the scratch arena starts over.  Returns 0 or -1 (streaming failed).
*/
static int batch_end(Dec *p){
  for(size_t i=0; i<p->nBatchMemo; i++){
    size_t idx = p->aBatchMemo[i];
    PkValue *v = p->aMemo[idx];
    if( v==&p->gone ) continue;
    if( is_box(v) && (((Box*)v)->flags & BOX_GONE) ){
      p->aMemo[idx] = &p->gone;
    }else if( (p->aMemo[idx] = promote(p, v, 0))==0 ){
      return stream_fail(p);
    }
  }
  p->nBatchMemo = 0;
  p->inScratch = 0;
  arena_reset(&p->scratch);
  return 0;
}

/* After STOP: non-zero if the streamed lists are exactly the items of
** root[zStreamKey], each at the position it was streamed under. */
static int stream_check(Dec *p, const PkValue *root){
  const Box *o = p->pOuter;
  if( o==0 ) return 1;
  if( pk_dict_get(root, p->zStreamKey)!=&o->v || o->v.u.seq.n!=p->nInner ){
    return 0;
  }
  for(size_t i=0; i<o->v.u.seq.n; i++){
    const PkValue *c = o->v.u.seq.a[i];
    if( !is_box(c) || !(((const Box*)c)->flags & BOX_INNER)
        || ((const Box*)c)->cap!=i ){
      return 0;
    }
  }
  return 1;
}

/* ------------------------------------------------------------ graph */

/* One level of the iterative walk in check_graph(). */
typedef struct Walk {
  Box *b;
  size_t i;                  /* next child slot (2 per pair in a dict) */
} Walk;

/* Child slot i of b (dict: even = key, odd = value). */
static PkValue *box_child(Box *b, size_t i){
  if( b->v.t==PK_DICT ){
    return (i & 1) ? b->v.u.dict.v[i/2] : b->v.u.dict.k[i/2];
  }
  return b->v.u.seq.a[i];
}

/*
** Exact check of everything reachable from root: no container reaches
** itself and no path is more than PICKLE_MAX_DEPTH containers long.  Run
** only for "dirty" files (see the header comment).  Iterative, O(nodes +
** edges), at most PICKLE_MAX_DEPTH levels of state.  Errors are reported
** at p->dirtyPos.
*/
static int check_graph(Dec *p, PkValue *root){
  Walk *a;
  size_t n = 0;
  int rc = 0;
  if( !is_box(root) ) return 0;
  p->opPos = p->dirtyPos;
  a = xmalloc(sizeof(Walk) * PICKLE_MAX_DEPTH);
  a[n].b = (Box*)root;
  a[n].i = 0;
  n++;
  a[0].b->color = 1;
  a[0].b->height = 1;
  while( n>0 && rc==0 ){
    Walk *w = &a[n-1];
    Box *b = w->b;
    if( w->i < box_count(b) * (b->v.t==PK_DICT ? 2 : 1) ){
      PkValue *c = box_child(b, w->i++);
      Box *cb;
      if( !is_box(c) ) continue;
      cb = (Box*)c;
      if( cb->color==1 ){
        rc = dec_err(p, "reference cycle: a %s ends up inside itself",
                     pk_type_name(cb->v.t));
      }else if( cb->color==2 ){
        if( cb->height + 1 > b->height ) b->height = cb->height + 1;
        if( b->height > PICKLE_MAX_DEPTH ){
          rc = dec_err(p, "nesting deeper than %d", PICKLE_MAX_DEPTH);
        }
      }else if( n==PICKLE_MAX_DEPTH ){
        rc = dec_err(p, "nesting deeper than %d", PICKLE_MAX_DEPTH);
      }else{
        cb->color = 1;
        cb->height = 1;
        a[n].b = cb;
        a[n].i = 0;
        n++;
      }
    }else{
      b->color = 2;
      n--;
      if( n>0 && b->height + 1 > a[n-1].b->height ){
        a[n-1].b->height = b->height + 1;
        if( a[n-1].b->height > PICKLE_MAX_DEPTH ){
          rc = dec_err(p, "nesting deeper than %d", PICKLE_MAX_DEPTH);
        }
      }
    }
  }
  free(a);
  return rc;
}

/* ------------------------------------------------------------ decoder */

/*
** Run one opcode (already read into p->op, at p->opPos).  Returns 0 to go
** on, 1 after STOP (the root is then the only value on the stack), -1 on
** error (recorded).
*/
static int step(Dec *p){
  const unsigned char *a;
  PkValue *v;
  size_t iMark = 0, m;
  uint64_t len;
  switch( p->op ){
    case 0x80: /* PROTO */
      if( (a = take(p, 1, 0))==0 ) return -1;
      if( p->opPos!=0 ){
        return dec_err(p, "PROTO opcode is only allowed at the start");
      }
      if( a[0]<2 || a[0]>5 ){
        return dec_err(p, "unsupported pickle protocol %u "
                       "(profan reads protocols 2 to 5)", a[0]);
      }
      return 0;
    case 0x95: /* FRAME */
      if( p->inFrame ){
        return dec_err(p, "FRAME begins %zu bytes before the previous "
                       "frame ends", p->frameEnd - p->opPos);
      }
      if( (a = take(p, 8, 0))==0 ) return -1;
      len = get_le(a, 8);
      if( len > (uint64_t)(p->n - p->pos) ){
        return dec_err(p, "truncated pickle: FRAME length %llu runs past "
                       "end of file", (unsigned long long)len);
      }
      p->inFrame = len>0;
      p->frameEnd = p->pos + (size_t)len;
      return 0;
    case '.': /* STOP */
      if( p->nMark ){
        return dec_err(p, "STOP inside an unclosed MARK");
      }
      if( p->nStk!=1 ){
        return dec_err(p, "STOP with %zu values on the stack, expected 1",
                       p->nStk);
      }
      return 1;
    case '(': /* MARK */
      if( p->nMark==p->nMarkAlloc ){
        p->nMarkAlloc = p->nMarkAlloc ? p->nMarkAlloc*2 : 64;
        p->aMark = xrealloc(p->aMark, p->nMarkAlloc * sizeof(size_t));
      }
      p->aMark[p->nMark++] = p->nStk;
      if( p->nStk>0 && !p->inScratch && is_box(p->aStk[p->nStk-1])
          && (((Box*)p->aStk[p->nStk-1])->flags & BOX_INNER) ){
        /* the items of an inner list follow: a batch in scratch memory */
        p->inScratch = 1;
        p->iScratchMark = p->nMark - 1;
        p->nBatchMemo = 0;
      }
      return 0;
    case '0': /* POP: the top value, or the mark if none is above it */
      if( p->nStk > fence(p) ){
        p->nStk--;
      }else if( p->nMark ){
        if( p->inScratch && p->nMark-1==p->iScratchMark ){
          return stream_fail(p);
        }
        p->nMark--;
      }else{
        return need(p, 1);
      }
      return 0;
    case '1': /* POP_MARK */
      if( pop_mark(p, &iMark) ) return -1;
      p->nStk = iMark;
      return 0;
    case '2': /* DUP */
      if( need(p, 1) ) return -1;
      push(p, p->aStk[p->nStk - 1]);
      return 0;
    case 'N':  push(p, &p->pDoc->none); return 0;
    case 0x88: push(p, &p->pDoc->yes); return 0;
    case 0x89: push(p, &p->pDoc->no); return 0;
    case 'J': /* BININT */
      if( (a = take(p, 4, 0))==0 ) return -1;
      push(p, mk_int(p, (int32_t)(uint32_t)get_le(a, 4)));
      return 0;
    case 'K': /* BININT1 */
      if( (a = take(p, 1, 0))==0 ) return -1;
      push(p, mk_int(p, a[0]));
      return 0;
    case 'M': /* BININT2 */
      if( (a = take(p, 2, 0))==0 ) return -1;
      push(p, mk_int(p, (int64_t)get_le(a, 2)));
      return 0;
    case 0x8a: /* LONG1 */
    case 0x8b: /* LONG4 */
      if( p->op==0x8a ){
        if( (a = take(p, 1, 0))==0 ) return -1;
        len = a[0];
      }else{
        if( (a = take(p, 4, 0))==0 ) return -1;
        if( (int32_t)(uint32_t)get_le(a, 4) < 0 ){
          return dec_err(p, "LONG4 length is negative");
        }
        len = get_le(a, 4);
      }
      if( (a = take(p, len, 1))==0 ) return -1;
      m = (size_t)len;
      /* Drop redundant sign-extension bytes so the form is minimal. */
      while( m>1 && ((a[m-1]==0x00 && !(a[m-2] & 0x80))
                  || (a[m-1]==0xff && (a[m-2] & 0x80))) ){
        m--;
      }
      if( m==0 ){
        push(p, mk_int(p, 0));
      }else if( m<=8 ){
        uint64_t u = get_le(a, (int)m);
        if( m<8 && (a[m-1] & 0x80) ) u |= ~(uint64_t)0 << (8*m);
        push(p, mk_int(p, (int64_t)u));
      }else{
        push(p, mk_bytes(p, PK_BIGINT, a, m));
      }
      return 0;
    case 'G': { /* BINFLOAT: big-endian IEEE 754 double */
      uint64_t u = 0;
      int i;
      if( (a = take(p, 8, 0))==0 ) return -1;
      for(i=0; i<8; i++) u = (u<<8) | a[i];
      v = val_alloc(p, sizeof(PkValue));
      v->t = PK_FLOAT;
      memcpy(&v->u.f, &u, sizeof(double));
      push(p, v);
      return 0;
    }
    case 0x8c: case 'U': case 'C': /* 1-byte length */
      if( (a = take(p, 1, 0))==0 ) return -1;
      len = a[0];
      goto string_body;
    case 'X': case 'T': case 'B': /* 4-byte length */
      if( (a = take(p, 4, 0))==0 ) return -1;
      len = get_le(a, 4);
      if( p->op=='T' && (int32_t)(uint32_t)len < 0 ){
        return dec_err(p, "BINSTRING length is negative");
      }
      goto string_body;
    case 0x8d: case 0x8e: case 0x96: /* 8-byte length */
      if( (a = take(p, 8, 0))==0 ) return -1;
      len = get_le(a, 8);
    string_body: {
      PkType t = PK_BYTES;
      if( (a = take(p, len, 1))==0 ) return -1;
      if( p->op==0x8c || p->op=='X' || p->op==0x8d ){
        t = PK_STR;
      }else if( p->op=='U' || p->op=='T' ){
        size_t i;
        t = PK_STR;   /* Python 3 reads these as ASCII str */
        for(i=0; i<len; i++){
          if( a[i] & 0x80 ){ t = PK_BYTES; break; }
        }
      }
      push(p, mk_bytes(p, t, a, (size_t)len));
      return 0;
    }
    case '}': push(p, &mk_box(p, PK_DICT)->v); return 0;
    case ']': {
      Box *b = mk_box(p, PK_LIST);
      if( p->zStreamKey && !p->inScratch ) stream_classify(p, b);
      push(p, &b->v);
      return 0;
    }
    case ')': push(p, &mk_box(p, PK_TUPLE)->v); return 0;
    case 0x8f: { /* EMPTY_SET */
      Box *b = mk_box(p, PK_LIST);
      b->flags |= BOX_SET;
      push(p, &b->v);
      return 0;
    }
    case 't': /* TUPLE */
      if( pop_mark(p, &iMark) ) return -1;
      m = p->nStk - iMark;
      if( mk_tuple(p, p->aStk + iMark, m, &v) ) return -1;
      p->nStk = iMark;
      push(p, v);
      return 0;
    case 0x85: case 0x86: case 0x87: /* TUPLE1..3 */
      m = (size_t)(p->op - 0x84);
      if( need(p, m) ) return -1;
      if( mk_tuple(p, p->aStk + p->nStk - m, m, &v) ) return -1;
      p->nStk -= m;
      push(p, v);
      return 0;
    case 'l': case 0x91: { /* LIST, FROZENSET */
      Box *b = mk_box(p, PK_LIST);
      if( p->op==0x91 ) b->flags |= BOX_SET | BOX_FROZEN;
      if( pop_mark(p, &iMark) ) return -1;
      if( list_add(p, b, p->aStk + iMark, p->nStk - iMark) ) return -1;
      p->nStk = iMark;
      push(p, &b->v);
      return 0;
    }
    case 'd': { /* DICT */
      Box *b = mk_box(p, PK_DICT);
      if( pop_mark(p, &iMark) ) return -1;
      m = p->nStk - iMark;
      if( m & 1 ){
        return dec_err(p, "DICT has an odd number of values (%zu) after "
                       "its MARK", m);
      }
      if( dict_add(p, b, p->aStk + iMark, m/2) ) return -1;
      p->nStk = iMark;
      push(p, &b->v);
      return 0;
    }
    case 'a': { /* APPEND */
      PkValue *t;
      if( need(p, 2) ) return -1;
      t = p->aStk[p->nStk - 2];
      if( t->t!=PK_LIST || (((Box*)t)->flags & BOX_SET) ){
        return dec_err(p, "APPEND target is a %s, not a list", kind_name(t));
      }
      if( (((Box*)t)->flags & BOX_INNER) && !p->inScratch ){
        if( stream_items(p, (Box*)t, p->aStk + p->nStk - 1, 1) ) return -1;
        p->nStk--;
        return 0;
      }
      if( list_add(p, (Box*)t, p->aStk + p->nStk - 1, 1) ) return -1;
      p->nStk--;
      return 0;
    }
    case 'e': case 0x90: { /* APPENDS, ADDITEMS */
      Box *b;
      if( p->inScratch && p->nMark-1==p->iScratchMark && p->op=='e' ){
        /* the end of a streamed batch: the list below the MARK is the
        ** inner list the batch began on (nothing pops below a MARK) */
        iMark = p->aMark[--p->nMark];
        b = (Box*)p->aStk[iMark - 1];
        if( stream_items(p, b, p->aStk + iMark, p->nStk - iMark) ) return -1;
        p->nStk = iMark;
        return batch_end(p);
      }
      if( pop_mark(p, &iMark) ) return -1;
      b = target_below(p, iMark, PK_LIST, p->op==0x90);
      if( b==0 ) return -1;
      if( list_add(p, b, p->aStk + iMark, p->nStk - iMark) ) return -1;
      p->nStk = iMark;
      return 0;
    }
    case 's': { /* SETITEM */
      PkValue *t;
      if( need(p, 3) ) return -1;
      t = p->aStk[p->nStk - 3];
      if( t->t!=PK_DICT ){
        return dec_err(p, "SETITEM target is a %s, not a dict", kind_name(t));
      }
      if( dict_add(p, (Box*)t, p->aStk + p->nStk - 2, 1) ) return -1;
      p->nStk -= 2;
      return 0;
    }
    case 'u': { /* SETITEMS */
      Box *b;
      if( pop_mark(p, &iMark) ) return -1;
      b = target_below(p, iMark, PK_DICT, 0);
      if( b==0 ) return -1;
      m = p->nStk - iMark;
      if( m & 1 ){
        return dec_err(p, "SETITEMS has an odd number of values (%zu) "
                       "after its MARK", m);
      }
      if( dict_add(p, b, p->aStk + iMark, m/2) ) return -1;
      p->nStk = iMark;
      return 0;
    }
    case 0x94: /* MEMOIZE */
      return memo_put(p, p->nMemo);
    case 'q':
      if( (a = take(p, 1, 0))==0 ) return -1;
      return memo_put(p, a[0]);
    case 'r':
      if( (a = take(p, 4, 0))==0 ) return -1;
      return memo_put(p, get_le(a, 4));
    case 'h':
      if( (a = take(p, 1, 0))==0 ) return -1;
      return memo_get(p, a[0]);
    case 'j':
      if( (a = take(p, 4, 0))==0 ) return -1;
      return memo_get(p, get_le(a, 4));
    case 'p':
      if( text_index(p, &len) ) return -1;
      return memo_put(p, len);
    case 'g':
      if( text_index(p, &len) ) return -1;
      return memo_get(p, len);
    case 'c': case 0x93: case 'R': case 'b': case 'i': case 'o':
    case 0x81: case 0x92: case 0x82: case 0x83: case 0x84:
    case 'P': case 'Q': case 0x97: case 0x98:
      return refuse(p);
    case 'I': case 'L': case 'S': case 'V': case 'F':
      return dec_err(p, "opcode %s (0x%02x) is a protocol 0 text opcode, "
                     "which profan does not read", op_name(p->op), p->op);
  }
  return dec_err(p, "unknown opcode 0x%02x", p->op);
}

/* pickle_decode() and pickle_decode_stream() (zKey NULL: no streaming). */
static int decode(const unsigned char *data, size_t n, const char *zKey,
                  PkItemFn xItem, void *pCtx, PkDoc **ppDoc,
                  const PkValue **ppRoot, PfError *pErr){
  Dec d;
  PfError errLocal;
  int rc = 0;
  size_t i;
  memset(&d, 0, sizeof(d));
  d.zStreamKey = zKey;
  d.scratch.nChunkNext = CHUNK_MIN;
  d.xItem = xItem;
  d.pItemCtx = pCtx;
  if( pErr==0 ){
    memset(&errLocal, 0, sizeof(errLocal));
    pErr = &errLocal;
  }
  *ppDoc = 0;
  *ppRoot = 0;
  d.z = data;
  d.n = n;
  d.pErr = pErr;
  if( n==0 ){
    pf_error_set(pErr, ERRPOS_BYTE, 0, "empty file, not a pickle");
    return -1;
  }
  if( data[0]!=0x80 ){
    pf_error_set(pErr, ERRPOS_BYTE, 0,
                 "not a pickle (first byte 0x%02x, expected 0x80)", data[0]);
    return -1;
  }
  d.pDoc = doc_new();
  d.nStkAlloc = 256;   /* never NULL: stack slices are taken even if empty */
  d.aStk = xmalloc(d.nStkAlloc * sizeof(PkValue*));
  for(;;){
    if( d.inFrame && d.pos>=d.frameEnd ) d.inFrame = 0;
    if( d.pos>=n ){
      d.opPos = n;
      rc = dec_err(&d, "no STOP opcode: the pickle ends after %zu bytes", n);
      break;
    }
    d.opPos = d.pos;
    d.op = data[d.pos++];
    rc = step(&d);
    if( rc<0 ) break;
    if( rc==1 ){
      rc = 0;
      for(i=d.pos; i<n; i++){
        if( data[i]!=0 ){
          d.opPos = i;
          rc = dec_err(&d, "unexpected byte 0x%02x after STOP "
                       "(only NUL padding may follow)", data[i]);
          break;
        }
      }
      if( rc==0 && d.dirty ) rc = check_graph(&d, d.aStk[0]);
      if( rc==0 && zKey && !stream_check(&d, d.aStk[0]) ){
        d.opPos = n;
        rc = stream_fail(&d);
      }
      break;
    }
  }
  if( rc==0 ){
    *ppDoc = d.pDoc;
    *ppRoot = d.aStk[0];
  }else{
    pickle_free(d.pDoc);
  }
  free(d.aStk);
  free(d.aMark);
  free(d.aMemo);
  free(d.aBatchMemo);
  arena_free(&d.scratch);
  if( rc && d.streamFail ) return 1;
  return rc ? -1 : 0;
}

int pickle_decode(const unsigned char *data, size_t n, PkDoc **ppDoc,
                  const PkValue **ppRoot, PfError *pErr){
  return decode(data, n, NULL, NULL, NULL, ppDoc, ppRoot, pErr);
}

int pickle_decode_stream(const unsigned char *data, size_t n,
                         const char *zKey, PkItemFn xItem, void *pCtx,
                         PkDoc **ppDoc, const PkValue **ppRoot,
                         PfError *pErr){
  return decode(data, n, zKey, xItem, pCtx, ppDoc, ppRoot, pErr);
}

int pk_is_transient(const PkValue *v){
  return v && is_box(v) && (((const Box*)v)->flags & BOX_SCRATCH)!=0;
}

/* ------------------------------------------------------------ accessors */

const PkValue *pk_dict_get_n(const PkValue *d, const char *zKey, size_t n){
  size_t i;
  if( d==0 || d->t!=PK_DICT ) return 0;
  for(i=d->u.dict.n; i>0; i--){
    const PkValue *k = d->u.dict.k[i-1];
    if( k->t==PK_STR && k->u.s.n==n && memcmp(k->u.s.z, zKey, n)==0 ){
      return d->u.dict.v[i-1];
    }
  }
  return 0;
}

const PkValue *pk_dict_get(const PkValue *d, const char *zKey){
  return pk_dict_get_n(d, zKey, strlen(zKey));
}

int pk_as_int(const PkValue *v, int64_t *pOut){
  if( v==0 ) return -1;
  if( v->t==PK_INT || v->t==PK_BOOL ){
    *pOut = v->u.i;
    return 0;
  }
  if( v->t==PK_BIGINT && v->u.s.n>0 ){
    /* Decoded big ints are minimal and so never fit, but accept any that
    ** does in case a caller builds one. */
    const unsigned char *a = (const unsigned char*)v->u.s.z;
    size_t m = v->u.s.n, i;
    int neg = (a[m-1] & 0x80)!=0;
    uint64_t u = 0;
    while( m>8 && a[m-1]==(neg ? 0xff : 0x00) ) m--;
    if( m>8 || (m==8 && ((a[7] & 0x80)!=0)!=neg) ) return -1;
    for(i=m; i>0; i--) u = (u<<8) | a[i-1];
    if( m<8 && neg ) u |= ~(uint64_t)0 << (8*m);
    *pOut = (int64_t)u;
    return 0;
  }
  return -1;
}

int pk_as_double(const PkValue *v, double *pOut){
  if( v==0 ) return -1;
  if( v->t==PK_FLOAT ){
    *pOut = v->u.f;
    return 0;
  }
  if( v->t==PK_INT || v->t==PK_BOOL ){
    *pOut = (double)v->u.i;
    return 0;
  }
  return -1;
}

int pk_str_eq(const PkValue *v, const char *z){
  size_t n;
  if( v==0 || v->t!=PK_STR ) return 0;
  n = strlen(z);
  return v->u.s.n==n && memcmp(v->u.s.z, z, n)==0;
}

size_t pk_len(const PkValue *v){
  if( v==0 ) return 0;
  if( v->t==PK_LIST || v->t==PK_TUPLE ) return v->u.seq.n;
  if( v->t==PK_DICT ) return v->u.dict.n;
  return 0;
}

const char *pk_type_name(PkType t){
  switch( t ){
    case PK_NONE:   return "none";
    case PK_BOOL:   return "bool";
    case PK_INT:    return "int";
    case PK_BIGINT: return "bigint";
    case PK_FLOAT:  return "float";
    case PK_STR:    return "str";
    case PK_BYTES:  return "bytes";
    case PK_LIST:   return "list";
    case PK_TUPLE:  return "tuple";
    case PK_DICT:   return "dict";
  }
  return "?";
}

/* ------------------------------------------------------------ UTF-8 */

size_t pk_utf8_bad(const char *z, size_t n){
  const unsigned char *u = (const unsigned char*)z;
  size_t i = 0, nBad = 0;
  while( i<n && u[i]<0x80 ) i++;                /* ASCII: the usual case */
  while( i<n ){
    size_t k = util_utf8_seq(u+i, n-i);
    if( k==0 ){ nBad++; i++; }
    else i += k;
  }
  return nBad;
}

void pk_utf8_fix(const char *z, size_t n, char *zOut){
  const unsigned char *u = (const unsigned char*)z;
  size_t i = 0;
  while( i<n ){
    size_t k = util_utf8_seq(u+i, n-i);
    if( k==0 ){ zOut[i++] = '?'; continue; }
    memcpy(zOut+i, z+i, k);
    i += k;
  }
}

void pk_sanitize(const char *z, size_t n, char *zOut, size_t nOut){
  const unsigned char *u = (const unsigned char*)z;
  size_t i = 0, j = 0, nKeep;
  if( nOut==0 ) return;
  /* the output has as many bytes as the input: cut when it does not fit,
  ** leaving room for "..." */
  nKeep = n<nOut ? n : (nOut>4 ? nOut-4 : 0);
  while( i<n ){
    size_t k = util_utf8_seq(u+i, n-i);
    if( j+(k ? k : 1) > nKeep ) break;
    if( k<=1 ){
      zOut[j++] = (k==0 || u[i]<0x20 || u[i]==0x7f) ? '?' : (char)u[i];
      i++;
    }else{
      memcpy(zOut+j, z+i, k);
      i += k;
      j += k;
    }
  }
  for(int k=0; i<n && k<3 && j+1<nOut; k++) zOut[j++] = '.';
  zOut[j] = 0;
}
