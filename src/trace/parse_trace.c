/*
** parse_trace.c — streaming Kineto/Chrome-trace JSON parser (on jscan.c,
** profan's own streaming JSON scanner: same events as yajl, about twice
** as fast on traces; bench/README.md has the figures).
**
** Pipeline position: "parse".  Reads an Input in 256 KiB chunks, keeps a
** small stack of containers, fills one TraceEvent at a time and hands it to
** the sink when the event object closes.  Top-level keys may come before or
** after traceEvents (docs/formats.md §1.2); TraceInfo records which.
**
** Times: `ts`/`dur` are microseconds written as decimal text.  They are
** converted from the number's text to integer nanoseconds (never through a
** double), so 16-digit absolute µs with three decimals keep ns precision.
*/
#include "trace/parse_trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "input/jscan.h"

#define MAX_DEPTH 256          /* deeper nesting is refused */
#define RAW_MAX (64*1024)      /* cap on a captured list arg */
#define CHUNK (256*1024)

/* What a container on the stack is. */
enum {
  R_IGNORE = 0, R_TOP, R_TOPARRAY, R_EVENTS, R_EVENT, R_ARGS, R_ARGVAL,
  R_DEVPROPS, R_DEVICE, R_DISTINFO, R_DIRANKS
};

/* Keys of the top-level object. */
enum { K_NONE = 0, K_TRACE_EVENTS, K_DEVPROPS, K_DISTINFO, K_BASETIME,
       K_SCHEMA, K_HOSTNAME, K_OTHER };

/* Keys of an event object. */
enum { E_NONE = 0, E_PH, E_CAT, E_NAME, E_PID, E_TID, E_TS, E_DUR, E_ARGS,
       E_OTHER };

/* Keys of a deviceProperties entry. */
enum { D_NONE = 0, D_ID, D_NAME, D_TOTAL_MEM, D_MAJOR, D_MINOR, D_NUM_SMS };

/* Keys of distributedInfo. */
enum { DI_NONE = 0, DI_RANK, DI_WORLD_SIZE, DI_RANKS };

/* Keys of args. */
enum {
  A_NONE = 0, A_CORRELATION, A_EXTERNAL_ID, A_GRID, A_BLOCK, A_REGISTERS,
  A_SHARED_MEM, A_BLOCKS_PER_SM, A_WARPS_PER_SM, A_OCCUPANCY, A_BYTES,
  A_CBID, A_SEQUENCE, A_FWD_TID, A_FLOPS, A_MEM_GBPS, A_DEVICE_TYPE,
  A_DEVICE_ID,
  A_ADDR, A_MEM_BYTES, A_TOTAL_ALLOC, A_TOTAL_RESERVED, A_PYTHON_ID,
  A_PYTHON_PARENT, A_DEVICE, A_STREAM, A_INPUT_DIMS, A_INPUT_TYPES,
  A_CONCRETE, A_OTHER,
  A_COLL_BASE = 1000     /* + CA_* of load_collective.h */
};

typedef struct KeyName { const char *z; int id; unsigned char n; } KeyName;
/* A key table entry: the key's text and id, its length counted by the
** compiler. */
#define KEY(zLit, id) {zLit, id, (unsigned char)(sizeof(zLit)-1)}
/* Is z (at least as long as zLit) the literal zLit? */
#define KEY_EQ(z, zLit) (memcmp(z, zLit, sizeof(zLit)-1)==0)

static const KeyName aTopKey[] = {
  KEY("traceEvents", K_TRACE_EVENTS), KEY("deviceProperties", K_DEVPROPS),
  KEY("distributedInfo", K_DISTINFO), KEY("baseTimeNanoseconds", K_BASETIME),
  KEY("schemaVersion", K_SCHEMA), KEY("hostname", K_HOSTNAME),
  KEY("host_name", K_HOSTNAME), {0, 0, 0}
};
static const KeyName aArgKey[] = {
  KEY("correlation", A_CORRELATION), KEY("External id", A_EXTERNAL_ID),
  KEY("external id", A_EXTERNAL_ID), KEY("grid", A_GRID), KEY("block", A_BLOCK),
  KEY("registers per thread", A_REGISTERS), KEY("shared memory", A_SHARED_MEM),
  KEY("blocks per SM", A_BLOCKS_PER_SM), KEY("warps per SM", A_WARPS_PER_SM),
  KEY("est. achieved occupancy %", A_OCCUPANCY), KEY("bytes", A_BYTES),
  KEY("cbid", A_CBID), KEY("Sequence number", A_SEQUENCE),
  KEY("Fwd thread id", A_FWD_TID), KEY("flops", A_FLOPS),
  KEY("memory bandwidth (GB/s)", A_MEM_GBPS),
  KEY("Device Type", A_DEVICE_TYPE), KEY("Device Id", A_DEVICE_ID),
  KEY("Addr", A_ADDR), KEY("Bytes", A_MEM_BYTES),
  KEY("Total Allocated", A_TOTAL_ALLOC),
  KEY("Total Reserved", A_TOTAL_RESERVED),
  KEY("Python id", A_PYTHON_ID), KEY("Python parent id", A_PYTHON_PARENT),
  KEY("device", A_DEVICE), KEY("stream", A_STREAM),
  KEY("Input Dims", A_INPUT_DIMS), KEY("Input dims", A_INPUT_DIMS),
  KEY("Input type", A_INPUT_TYPES), KEY("Concrete Inputs", A_CONCRETE),
  /* collective args (load_collective.h), old names included */
  KEY("Collective name", A_COLL_BASE+CA_COLL_NAME),
  KEY("dtype", A_COLL_BASE+CA_DTYPE),
  KEY("In msg nelems", A_COLL_BASE+CA_IN_NELEMS),
  KEY("In msg size", A_COLL_BASE+CA_IN_NELEMS),
  KEY("Out msg nelems", A_COLL_BASE+CA_OUT_NELEMS),
  KEY("Out msg size", A_COLL_BASE+CA_OUT_NELEMS),
  KEY("Group size", A_COLL_BASE+CA_GROUP_SIZE),
  KEY("Process Group Name", A_COLL_BASE+CA_PG_NAME),
  KEY("Process Group ID", A_COLL_BASE+CA_PG_NAME),
  KEY("Process Group Description", A_COLL_BASE+CA_PG_DESC),
  KEY("Process Group Ranks", A_COLL_BASE+CA_PG_RANKS),
  KEY("In split size", A_COLL_BASE+CA_IN_SPLIT),
  KEY("Out split size", A_COLL_BASE+CA_OUT_SPLIT),
  KEY("Src Rank", A_COLL_BASE+CA_SRC_RANK),
  KEY("Dst Rank", A_COLL_BASE+CA_DST_RANK),
  KEY("Seq", A_COLL_BASE+CA_SEQ),
  {0, 0, 0}
};

/*
** Key lookup.  Every key of every event goes through here, so each table
** gets a small open-addressing index (built once, before any parse) on
** (length, first byte, last byte).
*/
#define KEY_SLOTS 256
typedef struct KeyIndex {
  const KeyName *a;
  short aSlot[KEY_SLOTS];   /* index into a, -1 = empty */
} KeyIndex;

static unsigned key_hash(const unsigned char *z, size_t n){
  return (unsigned)(n*31u + z[0]*7u + z[n-1]) & (KEY_SLOTS-1);
}

static void key_index_build(KeyIndex *x, const KeyName *a){
  x->a = a;
  for(int i=0; i<KEY_SLOTS; i++) x->aSlot[i] = -1;
  for(int i=0; a[i].z; i++){
    unsigned h = key_hash((const unsigned char*)a[i].z, a[i].n);
    while( x->aSlot[h]>=0 ) h = (h+1) & (KEY_SLOTS-1);
    x->aSlot[h] = (short)i;
  }
}

/* Look z[0..n) up; returns its id or dflt. */
static int key_lookup(const KeyIndex *x, const unsigned char *z, size_t n,
                      int dflt){
  unsigned h;
  if( n==0 || n>255 ) return dflt;
  h = key_hash(z, n);
  while( x->aSlot[h]>=0 ){
    const KeyName *k = &x->a[x->aSlot[h]];
    if( k->n==n && memcmp(k->z, z, n)==0 ) return k->id;
    h = (h+1) & (KEY_SLOTS-1);
  }
  return dflt;
}

static KeyIndex xTopKey, xArgKey, xDevKey;

/* An event's own key (every key of every event comes here: a table
** lookup cost 68 instructions, this about 10).  Exact, case-sensitive. */
static int event_key(const unsigned char *z, size_t n){
  switch( n ){
    case 2:
      if( z[0]=='p' && z[1]=='h' ) return E_PH;
      if( z[0]=='t' && z[1]=='s' ) return E_TS;
      break;
    case 3:
      if( KEY_EQ(z, "cat") ) return E_CAT;
      if( KEY_EQ(z, "pid") ) return E_PID;
      if( KEY_EQ(z, "tid") ) return E_TID;
      if( KEY_EQ(z, "dur") ) return E_DUR;
      break;
    case 4:
      if( KEY_EQ(z, "name") ) return E_NAME;
      if( KEY_EQ(z, "args") ) return E_ARGS;
      break;
    default:
      break;
  }
  return E_OTHER;
}
static pthread_once_t keyOnce = PTHREAD_ONCE_INIT;
static const KeyName aDevKey[] = {
  KEY("id", D_ID), KEY("name", D_NAME), KEY("totalGlobalMem", D_TOTAL_MEM),
  KEY("computeMajor", D_MAJOR), KEY("computeMinor", D_MINOR),
  KEY("numSms", D_NUM_SMS),
  {0, 0, 0}};

static void key_indexes_build(void){
  key_index_build(&xTopKey, aTopKey);
  key_index_build(&xArgKey, aArgKey);
  key_index_build(&xDevKey, aDevKey);
}

typedef struct Parser {
  Jscan *h;
  TraceSinkFn xSink;
  void *ctx;
  TraceInfo *pInfo;
  PfError *pErr;
  int64_t chunkBase;        /* input offset of the current chunk */
  const unsigned char *chunk;
  int depth;                /* open containers */
  unsigned char aRole[MAX_DEPTH+2];
  int aKey[MAX_DEPTH+2];    /* current key id in a map frame */
  int sawEvents;            /* traceEvents array opened */
  int eventsClosed;         /* ... and closed */
  int nDiRanks;             /* elements of distributedInfo.ranks */
  int stop;                 /* fatal error recorded */
  /* current event */
  TraceEvent ev;
  Buf name, cat, dims, types, concrete;
  char ph;
  int nGrid, nBlock;
  const char *zBadField;    /* first event key holding a wrong JSON type */
  int badUtf8;              /* the name or category had invalid UTF-8 */
  int legacyGpu;            /* pid "CUDA functions" (legacy exporter) */
  /* raw capture of a list arg */
  Buf *pRaw;                /* NULL when not capturing */
  int rawDepth;             /* depth of the captured container */
  int rawOver;              /* capture exceeded RAW_MAX */
  int aRawCount[MAX_DEPTH+2];
  /* deviceProperties entry being read */
  TraceDevice dev;
  CollArgs coll;            /* collective args of the current event */
} Parser;

/* Byte offset (0-based) of the token being processed: the offending byte
** of a syntax error, the bracket of a container just opened, the last byte
** of a value. */
static int64_t cur_offset(Parser *p){
  return jscan_offset(p->h);
}

static int fail(Parser *p, const char *zMsg){
  pf_error_set(p->pErr, ERRPOS_BYTE, cur_offset(p), "%s", zMsg);
  p->stop = 1;
  return 0;
}

/* Note a skipped or repaired item at byte offset iOff (the first one's
** offset and message are kept for the ingest's warning line). */
static void warn_at(Parser *p, int64_t iOff, const char *zMsg){
  TraceInfo *pI = p->pInfo;
  if( pI->nWarnings++==0 ){
    snprintf(pI->zFirstWarning, sizeof(pI->zFirstWarning), "%lld: %s",
             (long long)iOff, zMsg);
  }
}

/* A warning about the event being read (its opening brace's offset) */
static void warn(Parser *p, const char *zMsg){
  warn_at(p, p->ev.offset, zMsg);
}

/* Timestamps and durations are kept within +-2^62 ns (146 years) so that
** ts + dur never overflows; a duration over 2^47 ns (39 hours) is taken
** for damage and set to 0 with a warning, so that sums of durations stay
** far from the int64 limit too. */
#define TRACE_NS_LIMIT ((int64_t)1<<62)
#define TRACE_DUR_MAX ((int64_t)1<<47)

/*
** Eight ASCII digits at once (SWAR, little-endian): timestamps have 16
** integer digits, ids 5 to 10, so the byte loops below take whole words
** first (the number loops were 8 % of the parser's instructions).
*/
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__==__ORDER_LITTLE_ENDIAN__
#define HAVE_DIGITS8 1
/* 1 when the 8 bytes of w are all '0'..'9'. */
static int digits8_ok(uint64_t w){
  return ((w & 0xF0F0F0F0F0F0F0F0ULL)
          | (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4))
         == 0x3333333333333333ULL;
}
/* The value of the 8 digits in w (first byte most significant). */
static uint64_t digits8_value(uint64_t w){
  w -= 0x3030303030303030ULL;
  w = w*10 + (w>>8);
  return (((w & 0x000000FF000000FFULL) * (100 + (1000000ULL<<32)))
          + (((w>>16) & 0x000000FF000000FFULL) * (1 + (10000ULL<<32)))) >> 32;
}
#endif

int parse_trace_us_to_ns(const char *z, size_t n, int64_t *pNs, int *pFrac){
  size_t i = 0;
  int neg = 0, nFrac = 0, roundUp = 0;
  uint64_t ip = 0, fp = 0;
  if( pFrac ) *pFrac = 0;
  if( n==0 ) return -1;
  if( z[0]=='-' ){ neg = 1; i++; }
  if( i>=n || z[i]<'0' || z[i]>'9' ) return -1;
#ifdef HAVE_DIGITS8
  /* whole words while no digit of the word can reach the limit checked
  ** byte by byte below */
  while( i+8<=n
         && ip <= ((uint64_t)(INT64_MAX/1000 - 1)/10 - 9999999)/10000000 ){
    uint64_t w;
    memcpy(&w, z+i, 8);
    if( !digits8_ok(w) ) break;
    ip = ip*100000000 + digits8_value(w);
    i += 8;
  }
#endif
  for(; i<n && z[i]>='0' && z[i]<='9'; i++){
    if( ip > (uint64_t)(INT64_MAX/1000 - 1)/10 ) return -1;
    ip = ip*10 + (uint64_t)(z[i]-'0');
  }
  if( i<n && z[i]=='.' ){
    i++;
    if( pFrac ) *pFrac = 1;
    for(; i<n && z[i]>='0' && z[i]<='9'; i++){
      if( nFrac<3 ){ fp = fp*10 + (uint64_t)(z[i]-'0'); nFrac++; }
      else if( nFrac==3 ){ roundUp = z[i]>='5'; nFrac++; }
    }
  }
  if( i<n && (z[i]=='e' || z[i]=='E') ){
    /* Exponent form (re-serialised files): go through long double. */
    char buf[64];
    long double v;
    if( n>=sizeof(buf) ) return -1;
    memcpy(buf, z, n); buf[n] = 0;
    v = strtold(buf, NULL) * 1000.0L;
    if( !(v < 4.6e18L && v > -4.6e18L) ) return -1;
    *pNs = (int64_t)(v + (v<0 ? -0.5L : 0.5L));
    if( pFrac ) *pFrac = 1;
    return 0;
  }
  if( i!=n ) return -1;
  while( nFrac<3 ){ fp *= 10; nFrac++; }
  {
    uint64_t u = ip*1000 + fp + (uint64_t)roundUp;
    if( u>=(uint64_t)TRACE_NS_LIMIT ) return -1;
    *pNs = neg ? -(int64_t)u : (int64_t)u;
  }
  return 0;
}

/* Parse an integer from number text or a numeric string; 0 on success. */
static int parse_int(const unsigned char *z, size_t n, int64_t *pOut){
  char buf[40];
  char *zEnd;
  long long v;
  double d;
  if( n==0 || n>=sizeof(buf) ) return -1;
  if( n<=18 ){
    /* fast path: optional '-' and digits */
    size_t i0 = z[0]=='-', i = i0;
    int64_t acc = 0;
#ifdef HAVE_DIGITS8
    while( i+8<=n ){                      /* at most 18 digits: no overflow */
      uint64_t w;
      memcpy(&w, z+i, 8);
      if( !digits8_ok(w) ) break;
      acc = acc*100000000 + (int64_t)digits8_value(w);
      i += 8;
    }
#endif
    for(; i<n && z[i]>='0' && z[i]<='9'; i++) acc = acc*10 + (z[i]-'0');
    if( i==n && i>i0 ){ *pOut = z[0]=='-' ? -acc : acc; return 0; }
  }
  memcpy(buf, z, n); buf[n] = 0;
  errno = 0;
  v = strtoll(buf, &zEnd, 10);
  if( *zEnd==0 ){
    if( errno==ERANGE ) return -1;      /* 2^64, -2^63-1: not clamped */
    *pOut = v;
    return 0;
  }
  d = strtod(buf, &zEnd);     /* "607904.0", "1e3" */
  if( *zEnd==0 && d>-9.2e18 && d<9.2e18 ){ *pOut = (int64_t)d; return 0; }
  return -1;
}

/* Parse a finite double; "inf", "N/A" and friends fail. */
static int parse_double(const unsigned char *z, size_t n, double *pOut){
  char buf[64];
  char *zEnd;
  double d;
  if( n==0 || n>=sizeof(buf) ) return -1;
  memcpy(buf, z, n); buf[n] = 0;
  d = strtod(buf, &zEnd);
  if( *zEnd!=0 || zEnd==buf || d!=d || d>1e300 || d<-1e300 ) return -1;
  *pOut = d;
  return 0;
}

/* pid/tid text: "123", "stream 7", "stream 7 " -> number; else -1. */
static int parse_id_text(const unsigned char *z, size_t n, int64_t *pOut){
  size_t i = n;
  while( i>0 && z[i-1]==' ' ) i--;
  n = i;
  while( i>0 && z[i-1]>='0' && z[i-1]<='9' ) i--;
  if( i==n ) return -1;
  if( i>0 && z[i-1]=='-' ) i--;
  if( i!=0 && z[i-1]!=' ' ) return -1;   /* "abc12" is not an id */
  return parse_int(z+i, n-i, pOut);
}

/* Store a name, control bytes (from old writers) replaced by spaces and
** bytes that are not valid UTF-8 by '?' (noted in p->badUtf8). */
static void keep_name(Parser *p, Buf *b, const unsigned char *z, size_t n){
  size_t i0 = b->n, i;
  int high = 0;
  buf_append(b, z, n);
  /* eight bytes at a time while none is < 0x20 or >= 0x80 (names are long
  ** C++ kernel names: this loop was 6 % of the parser's instructions) */
  for(i=i0; i+8<=b->n; i+=8){
    uint64_t w;
    memcpy(&w, b->z+i, 8);
    if( ((w - 0x2020202020202020ULL) | w) & 0x8080808080808080ULL ) break;
  }
  for(; i<b->n; i++){
    unsigned char c = (unsigned char)b->z[i];
    if( c<0x20 ) b->z[i] = ' ';
    else if( c>=0x80 ) high = 1;
  }
  if( high ){
    unsigned char *u = (unsigned char*)b->z;
    for(size_t i=i0; i<b->n; ){
      size_t k = util_utf8_seq(u+i, b->n-i);
      if( k==0 ){ u[i++] = '?'; p->badUtf8 = 1; }
      else i += k;
    }
  }
}

/* ------------------------------------------------------- raw capture */

static void raw_sep(Parser *p){
  int d = p->depth - p->rawDepth;
  if( p->aRole[p->depth]==R_ARGVAL && !(p->aKey[p->depth]&1) ){
    /* inside an array: comma between items */
    if( p->aRawCount[d]++ > 0 ) buf_putc(p->pRaw, ',');
  }
}

static void raw_string(Buf *b, const unsigned char *z, size_t n){
  size_t i0 = 0;
  buf_putc(b, '"');
  for(size_t i=0; i<n; i++){
    unsigned char c = z[i];
    if( c!='"' && c!='\\' && c>=0x20 ) continue;
    buf_append(b, z+i0, i-i0);            /* the plain bytes before c */
    i0 = i+1;
    if( c<0x20 ) buf_printf(b, "\\u%04x", c);
    else{ buf_putc(b, '\\'); buf_putc(b, (char)c); }
  }
  buf_append(b, z+i0, n-i0);
  buf_putc(b, '"');
}

static int raw_active(Parser *p){
  if( p->pRaw==NULL ) return 0;
  if( p->pRaw->n > RAW_MAX ) p->rawOver = 1;
  return 1;
}

/* ------------------------------------------------------- event state */

static void event_reset(Parser *p, int64_t offset){
  memset(&p->ev, 0, sizeof(p->ev));
  if( p->coll.has ) load_collective_args_reset(&p->coll);
  p->ev.offset = offset;
  p->ev.pid = p->ev.tid = -1;
  buf_reset(&p->name);
  buf_reset(&p->cat);
  buf_reset(&p->dims);
  buf_reset(&p->types);
  buf_reset(&p->concrete);
  p->ph = 0;
  p->nGrid = p->nBlock = 0;
  p->zBadField = NULL;
  p->badUtf8 = 0;
  p->legacyGpu = 0;
}

/* Note a known event key whose value has the wrong JSON type (a container
** or null for a scalar, a non-string for ph/cat/name). */
static void bad_field(Parser *p, int key){
  static const char *azName[] = {
    [E_PH] = "ph", [E_CAT] = "cat", [E_NAME] = "name", [E_PID] = "pid",
    [E_TID] = "tid", [E_ARGS] = "args"
  };
  if( p->zBadField==NULL && key>0
      && key<(int)(sizeof(azName)/sizeof(azName[0])) && azName[key] ){
    p->zBadField = azName[key];
  }
}

/* Case-insensitive equality of a C string with cat. */
static int cat_is(const Buf *pCat, const char *z){
  return pCat->n==strlen(z) && strncasecmp(pCat->z, z, pCat->n)==0;
}

static TraceEventKind classify(Parser *p){
  const Buf *c = &p->cat;
  if( (p->ph=='i' || p->ph=='I') && p->name.n>0
      && (strcmp(p->name.z, "[memory]")==0
          || strcmp(p->name.z, "[OutOfMemory]")==0) ){
    return TEV_MEMORY;         /* with or without a category (2021: none) */
  }
  if( c->n==0 ){
    /* The legacy exporter's bare array (docs/formats.md §1.1): complete
    ** events without a category are the CPU functions (ops, record_function
    ** ranges, ProfilerStep#N); its "CUDA functions" ranges are per-op CUDA
    ** event intervals named after the op, not kernels: not stored. */
    if( p->ph=='X' && p->pInfo->isLegacyArray && !p->legacyGpu ){
      return TEV_CPU_OP;
    }
    return TEV_OTHER;
  }
  if( p->ph=='X' ){
    if( cat_is(c, "kernel") ) return TEV_KERNEL;
    if( cat_is(c, "cpu_op") || cat_is(c, "Operator") ) return TEV_CPU_OP;
    if( cat_is(c, "cuda_runtime") || cat_is(c, "Runtime")
        || cat_is(c, "hip_runtime") ) return TEV_RUNTIME;
    if( cat_is(c, "cuda_driver") || cat_is(c, "hip_driver") ) return TEV_DRIVER;
    if( cat_is(c, "gpu_memcpy") || cat_is(c, "Memcpy") ) return TEV_MEMCPY;
    if( cat_is(c, "gpu_memset") || cat_is(c, "Memset") ) return TEV_MEMSET;
    if( cat_is(c, "user_annotation") ) return TEV_USER_ANNOTATION;
    if( cat_is(c, "gpu_user_annotation") ) return TEV_GPU_ANNOTATION;
    if( cat_is(c, "cuda_sync") ) return TEV_SYNC;
    if( cat_is(c, "python_function") ) return TEV_PYTHON;
  }
  return TEV_OTHER;
}

static int event_finish(Parser *p){
  TraceEvent *e = &p->ev;
  const char *zWarn = NULL;
  char zBad[80];
  p->pInfo->nEvents++;
  e->ph = p->ph;
  e->zName = buf_str(&p->name);
  e->nName = (int)p->name.n;
  e->zCat = buf_str(&p->cat);
  e->zInputDims = buf_str(&p->dims);
  e->zInputTypes = buf_str(&p->types);
  e->zConcreteInputs = buf_str(&p->concrete);
  e->pColl = p->coll.has ? &p->coll : NULL;
  e->kind = classify(p);
  /* At most one warning per event: the first problem found. */
  if( p->zBadField && (e->kind!=TEV_OTHER || strcmp(p->zBadField, "cat")==0
                       || strcmp(p->zBadField, "ph")==0) ){
    /* a kept event, or one whose ph/cat cannot be read */
    snprintf(zBad, sizeof(zBad), "\"%s\" of the wrong type %s",
             p->zBadField, e->kind==TEV_OTHER ? "(event skipped)" : "ignored");
    zWarn = zBad;
  }
  if( e->kind!=TEV_OTHER ){
    if( !(e->has & TF_TS) ){
      warn(p, zWarn ? zWarn : "event without a numeric \"ts\" skipped");
      return 1;
    }
    if( e->kind!=TEV_MEMORY && !(e->has & TF_DUR) && !zWarn ){
      zWarn = "event without \"dur\" given duration 0";
    }
    if( e->dur<0 ){
      if( !zWarn ) zWarn = "negative duration clamped to 0";
      e->dur = 0;
    }else if( e->dur>TRACE_DUR_MAX ){
      if( !zWarn ) zWarn = "duration over 39 hours set to 0";
      e->dur = 0;
    }
    if( p->badUtf8 && !zWarn ){
      zWarn = "invalid UTF-8 in the name replaced by '?'";
    }
  }
  if( zWarn ) warn(p, zWarn);
  if( e->kind!=TEV_OTHER ) p->pInfo->nUsed++;
  if( p->xSink(p->ctx, e) ){
    p->stop = 1;
    return 0;
  }
  return 1;
}

/* ----------------------------------------------------- scanner callbacks */

/* A scalar value of an event key (role R_EVENT). */
static void scalar_event(Parser *p, int key, const unsigned char *z,
                         size_t n, int isNum, int isStr){
  TraceEvent *e = &p->ev;
  switch( key ){
    case E_PH:
      if( isStr && n>0 ) p->ph = (char)z[0];
      else if( !isStr ) bad_field(p, key);
      break;
    case E_CAT:
      if( isStr ) keep_name(p, &p->cat, z, n); else bad_field(p, key);
      break;
    case E_NAME:
      if( isStr ) keep_name(p, &p->name, z, n); else bad_field(p, key);
      break;
    case E_PID:
      if( isNum!=2 && (isNum ? parse_int(z, n, &e->pid)
                             : parse_id_text(z, n, &e->pid))==0 ){
        e->has |= TF_PID;
      }else if( !isStr ) bad_field(p, key);
      else if( n==14 && memcmp(z, "CUDA functions", 14)==0 ) p->legacyGpu = 1;
      break;
    case E_TID:
      if( isNum!=2 && (isNum ? parse_int(z, n, &e->tid)
                             : parse_id_text(z, n, &e->tid))==0 ){
        e->has |= TF_TID;
      }else if( !isStr ) bad_field(p, key);
      break;
    case E_ARGS: bad_field(p, key); break;
    case E_TS: {
      int frac = 0;
      if( isNum==1
       && parse_trace_us_to_ns((const char*)z, n, &e->ts, &frac)==0 ){
        int64_t a = e->ts<0 ? -e->ts : e->ts;
        e->has |= TF_TS;
        if( frac ) p->pInfo->sawFractionalTs = 1;
        if( a>p->pInfo->maxAbsTs ) p->pInfo->maxAbsTs = a;
      }
      break;
    }
    case E_DUR:
      if( isNum==1
       && parse_trace_us_to_ns((const char*)z, n, &e->dur, NULL)==0 ){
        e->has |= TF_DUR;
      }
      break;
    default: break;
  }
}

/* A scalar value of an args key (role R_ARGS). */
static void scalar_arg(Parser *p, int key, const unsigned char *z, size_t n,
                       int isNum){
  TraceEvent *e = &p->ev;
  switch( key ){
#define INT_ARG(F, BIT) if( parse_int(z, n, &e->F)==0 ) e->has |= BIT; break
#define DBL_ARG(F, BIT) if( parse_double(z, n, &e->F)==0 ) e->has |= BIT; break
    case A_CORRELATION: INT_ARG(correlation, TF_CORRELATION);
    case A_EXTERNAL_ID: INT_ARG(external_id, TF_EXTERNAL_ID);
    case A_REGISTERS: INT_ARG(registers, TF_REGISTERS);
    case A_SHARED_MEM: INT_ARG(shared_mem, TF_SHARED_MEM);
    case A_BYTES: INT_ARG(bytes, TF_BYTES);
    case A_CBID: INT_ARG(cbid, TF_CBID);
    case A_SEQUENCE: INT_ARG(sequence, TF_SEQUENCE);
    case A_FWD_TID: INT_ARG(fwd_tid, TF_FWD_TID);
    case A_DEVICE_TYPE: INT_ARG(device_type, TF_DEVICE_TYPE);
    case A_DEVICE_ID: INT_ARG(device_id, TF_DEVICE_ID);
    case A_ADDR: INT_ARG(addr, TF_ADDR);
    case A_MEM_BYTES: INT_ARG(bytes, TF_BYTES);
    case A_TOTAL_ALLOC: INT_ARG(total_alloc, TF_TOTAL_ALLOC);
    case A_TOTAL_RESERVED: INT_ARG(total_reserved, TF_TOTAL_RESERVED);
    case A_PYTHON_ID: INT_ARG(python_id, TF_PYTHON_ID);
    case A_PYTHON_PARENT: INT_ARG(python_parent, TF_PYTHON_PARENT);
    case A_DEVICE: INT_ARG(device, TF_DEVICE);
    case A_STREAM: INT_ARG(stream, TF_STREAM);
    case A_BLOCKS_PER_SM: DBL_ARG(blocks_per_sm, TF_BLOCKS_PER_SM);
    case A_WARPS_PER_SM: DBL_ARG(warps_per_sm, TF_WARPS_PER_SM);
    case A_OCCUPANCY: DBL_ARG(occupancy, TF_OCCUPANCY);
    case A_FLOPS: DBL_ARG(flops, TF_FLOPS);
    case A_MEM_GBPS: DBL_ARG(mem_gbps, TF_MEM_GBPS);
#undef INT_ARG
#undef DBL_ARG
    default:
      if( key>A_COLL_BASE ){
        load_collective_args_set(&p->coll, key-A_COLL_BASE, z, n, isNum);
      }
      break;
  }
}

/* A scalar item inside an args value (role R_ARGVAL): the direct items of
** the grid and block arrays. */
static void scalar_argval(Parser *p, const unsigned char *z, size_t n,
                          int isNum){
  TraceEvent *e = &p->ev;
  int argKey = p->aKey[p->depth-1];
  int64_t v;
  if( p->depth>=2 && p->aRole[p->depth-1]==R_ARGS && isNum
      && parse_int(z, n, &v)==0 ){
    if( argKey==A_GRID && p->nGrid<3 ){
      e->grid[p->nGrid++] = v;
      if( p->nGrid==3 ) e->has |= TF_GRID;
    }else if( argKey==A_BLOCK && p->nBlock<3 ){
      e->block[p->nBlock++] = v;
      if( p->nBlock==3 ) e->has |= TF_BLOCK;
    }
  }
}

/* A scalar value of a top-level key (role R_TOP).  Returns 0 after a fatal
** error, else 1. */
static int scalar_top(Parser *p, int key, const unsigned char *z, size_t n,
                      int isNum, int isStr){
  if( key==K_BASETIME && isNum ){
    int64_t v;
    if( parse_int(z, n, &v)==0 ){
      p->pInfo->hasBaseTime = 1;
      p->pInfo->baseTimeNs = v;
      p->pInfo->baseTimeAfterEvents = p->eventsClosed;
    }
  }else if( key==K_SCHEMA && isNum ){
    parse_int(z, n, &p->pInfo->schemaVersion);
  }else if( key==K_HOSTNAME && isStr ){
    util_sanitize((const char*)z, n, p->pInfo->zHostName,
                  sizeof(p->pInfo->zHostName));
  }else if( key==K_TRACE_EVENTS ){
    return fail(p, "\"traceEvents\" is not an array");
  }
  return 1;
}

/* A scalar value of a distributedInfo key (role R_DISTINFO). */
static void scalar_distinfo(Parser *p, int key, const unsigned char *z,
                            size_t n, int isNum, int isStr){
  if( key==DI_RANK ){
    int64_t v;
    if( (isNum || isStr) && parse_int(z, n, &v)==0 ){
      p->pInfo->hasRank = 1;
      p->pInfo->rank = v;
      p->pInfo->rankAfterEvents = p->eventsClosed;
    }
  }else if( key==DI_WORLD_SIZE ){
    parse_int(z, n, &p->pInfo->worldSize);
  }
}

/* A scalar value of a deviceProperties entry key (role R_DEVICE). */
static void scalar_device(Parser *p, int key, const unsigned char *z,
                          size_t n, int isStr){
  switch( key ){
    case D_ID: parse_int(z, n, &p->dev.id); break;
    case D_NAME:
      if( isStr ){
        util_sanitize((const char*)z, n, p->dev.zName, sizeof(p->dev.zName));
      }
      break;
    case D_TOTAL_MEM: parse_int(z, n, &p->dev.totalGlobalMem); break;
    case D_MAJOR: parse_int(z, n, &p->dev.computeMajor); break;
    case D_MINOR: parse_int(z, n, &p->dev.computeMinor); break;
    case D_NUM_SMS: parse_int(z, n, &p->dev.numSms); break;
    default: break;
  }
}

/* A scalar value arrived: number text (isNum; 2 for a boolean read as
** 1/0) or string (isStr).  Handed to the handler of the role of the
** container it is in. */
static int on_scalar(Parser *p, const unsigned char *z, size_t n, int isNum,
                     int isStr){
  int role = p->aRole[p->depth];
  int key = p->aKey[p->depth];

  if( raw_active(p) ){
    if( !p->rawOver ){
      raw_sep(p);
      if( isStr ) raw_string(p->pRaw, z, n);
      else buf_append(p->pRaw, z, n);
    }
    return 1;
  }
  switch( role ){
    case R_EVENT: scalar_event(p, key, z, n, isNum, isStr); break;
    case R_ARGS: scalar_arg(p, key, z, n, isNum); break;
    case R_ARGVAL: scalar_argval(p, z, n, isNum); break;
    case R_TOP:
      if( !scalar_top(p, key, z, n, isNum, isStr) ) return 0;
      break;
    case R_DISTINFO: scalar_distinfo(p, key, z, n, isNum, isStr); break;
    case R_DEVICE: scalar_device(p, key, z, n, isStr); break;
    case R_DIRANKS: p->nDiRanks++; break;
    case R_EVENTS:
    case R_TOPARRAY:
      warn_at(p, cur_offset(p), "non-object item in traceEvents skipped");
      break;
    default:
      break;
  }
  if( p->depth==0 ){
    return fail(p, "top level is not an object: expected a PyTorch profiler "
                   "trace ({\"traceEvents\": [...]})");
  }
  return 1;
}

static int cb_null(void *ctx){
  Parser *p = ctx;
  if( raw_active(p) ){
    if( !p->rawOver ){ raw_sep(p); buf_puts(p->pRaw, "null"); }
    return 1;
  }
  return on_scalar(p, (const unsigned char*)"", 0, 0, 0);
}

static int cb_bool(void *ctx, int b){
  Parser *p = ctx;
  if( raw_active(p) ){
    if( !p->rawOver ){ raw_sep(p); buf_puts(p->pRaw, b ? "true" : "false"); }
    return 1;
  }
  /* isNum 2: a boolean read as 1/0 (args flags); never a ts, dur or id */
  return on_scalar(p, (const unsigned char*)(b ? "1" : "0"), 1, 2, 0);
}

static int cb_number(void *ctx, const char *z, size_t n){
  return on_scalar(ctx, (const unsigned char*)z, n, 1, 0);
}

static int cb_string(void *ctx, const unsigned char *z, size_t n){
  return on_scalar(ctx, z, n, 0, 1);
}

/* Open a container; decide its role from the parent frame and key. */
static int open_container(Parser *p, int isMap){
  int parentRole = p->aRole[p->depth];
  int parentKey = p->aKey[p->depth];
  int role = R_IGNORE;

  if( raw_active(p) ){
    if( !p->rawOver ){ raw_sep(p); buf_putc(p->pRaw, isMap ? '{' : '['); }
  }
  if( p->depth>=MAX_DEPTH ){
    char z[64];
    snprintf(z, sizeof(z), "nesting deeper than %d levels", MAX_DEPTH);
    return fail(p, z);
  }
  if( p->depth==0 ){
    role = isMap ? R_TOP : R_TOPARRAY;
    if( !isMap ) p->pInfo->isLegacyArray = 1;
    if( !isMap ) p->sawEvents = 1;
  }else{
    switch( parentRole ){
      case R_TOP:
        if( parentKey==K_TRACE_EVENTS ){
          if( isMap ) return fail(p, "\"traceEvents\" is not an array");
          role = R_EVENTS;
          p->sawEvents = 1;
        }else if( parentKey==K_DEVPROPS && !isMap ){
          role = R_DEVPROPS;
        }else if( parentKey==K_DISTINFO && isMap ){
          role = R_DISTINFO;
        }
        break;
      case R_DISTINFO:
        /* "ranks": profan's export of several ranks (export-trace --rank
        ** all); its elements are counted when it closes */
        if( parentKey==DI_RANKS && !isMap ){
          role = R_DIRANKS;
          p->nDiRanks = 0;
        }
        break;
      case R_EVENTS:
      case R_TOPARRAY:
        if( isMap ){
          role = R_EVENT;
          event_reset(p, cur_offset(p));
        }else{
          warn_at(p, cur_offset(p), "non-object item in traceEvents skipped");
        }
        break;
      case R_EVENT:
        if( parentKey==E_ARGS && isMap ) role = R_ARGS;
        else bad_field(p, parentKey);
        break;
      case R_ARGS:
        role = R_ARGVAL;
        if( p->pRaw==NULL ){
          Buf *pTarget = NULL;
          if( parentKey==A_INPUT_DIMS ) pTarget = &p->dims;
          else if( parentKey==A_INPUT_TYPES ) pTarget = &p->types;
          else if( parentKey==A_CONCRETE ) pTarget = &p->concrete;
          if( pTarget ){
            buf_reset(pTarget);
            buf_putc(pTarget, isMap ? '{' : '[');
            p->pRaw = pTarget;
            p->rawDepth = p->depth + 1;
            p->rawOver = 0;
          }
        }
        break;
      case R_ARGVAL:
        role = R_ARGVAL;
        break;
      case R_DEVPROPS:
        if( isMap ){
          role = R_DEVICE;
          memset(&p->dev, 0, sizeof(p->dev));
          p->dev.id = -1;
        }
        break;
      default:
        break;
    }
  }
  p->depth++;
  p->aRole[p->depth] = (unsigned char)role;
  /* In R_ARGVAL frames aKey's low bit says "is a map" for raw commas. */
  p->aKey[p->depth] = (role==R_ARGVAL) ? (isMap ? 1 : 0) : K_NONE;
  if( p->pRaw ) p->aRawCount[p->depth - p->rawDepth] = 0;
  return 1;
}

static int close_container(Parser *p, int isMap){
  int role = p->aRole[p->depth];
  if( p->pRaw ){
    if( !p->rawOver ) buf_putc(p->pRaw, isMap ? '}' : ']');
    if( p->depth==p->rawDepth ){
      if( p->rawOver ){
        warn(p, "list argument longer than 64 KiB dropped");
        buf_reset(p->pRaw);
      }
      p->pRaw = NULL;
    }
  }
  p->depth--;
  switch( role ){
    case R_EVENT:
      if( !event_finish(p) ) return 0;
      break;
    case R_EVENTS:
      p->eventsClosed = 1;
      break;
    case R_DIRANKS:
      if( p->nDiRanks>1 ){
        return fail(p, "a profan export of several ranks"
                       " (distributedInfo.ranks): ingest one file per rank"
                       " (export-trace --rank R)");
      }
      break;
    case R_DEVICE:
      if( p->pInfo->nDevices < (int)(sizeof(p->pInfo->aDevice)
                                     /sizeof(p->pInfo->aDevice[0])) ){
        p->pInfo->aDevice[p->pInfo->nDevices++] = p->dev;
      }
      break;
    default:
      break;
  }
  return 1;
}

static int cb_start_map(void *ctx){ return open_container(ctx, 1); }
static int cb_end_map(void *ctx){ return close_container(ctx, 1); }
static int cb_start_array(void *ctx){ return open_container(ctx, 0); }
static int cb_end_array(void *ctx){ return close_container(ctx, 0); }

static int cb_map_key(void *ctx, const unsigned char *z, size_t n){
  Parser *p = ctx;
  int role = p->aRole[p->depth];
  if( raw_active(p) ){
    if( !p->rawOver ){
      int d = p->depth - p->rawDepth;
      if( p->aRawCount[d]++ > 0 ) buf_putc(p->pRaw, ',');
      raw_string(p->pRaw, z, n);
      buf_putc(p->pRaw, ':');
    }
    return 1;
  }
  if( n==0 ){ p->aKey[p->depth] = 0; return 1; }
  switch( role ){
    case R_TOP: {
      int k = key_lookup(&xTopKey, z, n, K_OTHER);
      if( k==K_TRACE_EVENTS && p->sawEvents ){
        return fail(p, "second \"traceEvents\" key");
      }
      p->aKey[p->depth] = k;
      break;
    }
    case R_EVENT:
      p->aKey[p->depth] = event_key(z, n);
      break;
    case R_ARGS:
      p->aKey[p->depth] = key_lookup(&xArgKey, z, n, A_OTHER);
      break;
    case R_DISTINFO:
      p->aKey[p->depth] =
          (n==sizeof("rank")-1 && KEY_EQ(z, "rank")) ? DI_RANK
        : (n==sizeof("ranks")-1 && KEY_EQ(z, "ranks")) ? DI_RANKS
        : (n==sizeof("world_size")-1 && KEY_EQ(z, "world_size"))
          ? DI_WORLD_SIZE : DI_NONE;
      break;
    case R_DEVICE: {
      p->aKey[p->depth] = key_lookup(&xDevKey, z, n, D_NONE);
      break;
    }
    default:
      break;
  }
  return 1;
}

static const JscanCallbacks aCallbacks = {
  cb_null, cb_bool, cb_number, cb_string,
  cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array
};

/* Turn a scanner error into our message. */
static void json_fail(Parser *p, int atEnd){
  const char *z = jscan_error(p->h);
  {
    size_t n = strlen(z);
    char zClean[256];
    while( n>0 && (z[n-1]=='\n' || z[n-1]==' ') ) n--;
    util_sanitize(z, n, zClean, sizeof(zClean));
    if( atEnd ){
      pf_error_set(p->pErr, ERRPOS_BYTE, p->chunkBase,
                   "truncated JSON: the file ends inside the trace");
    }else{
      pf_error_set(p->pErr, ERRPOS_BYTE, cur_offset(p),
                   "invalid JSON: %s", zClean);
    }
  }
}

int parse_trace(Input *pIn, TraceSinkFn xSink, void *ctx, TraceInfo *pInfo,
                PfError *pErr){
  Parser p;
  unsigned char *buf = xmalloc(CHUNK);
  int rc = 0;
  int sawAny = 0;

  pthread_once(&keyOnce, key_indexes_build);
  memset(&p, 0, sizeof(p));
  memset(pInfo, 0, sizeof(*pInfo));
  pInfo->worldSize = -1;
  pInfo->schemaVersion = -1;
  p.xSink = xSink;
  p.ctx = ctx;
  p.pInfo = pInfo;
  p.pErr = pErr;
  p.h = jscan_new(&aCallbacks, &p);
  jscan_allow_control(p.h, 1);

  for(;;){
    ssize_t n = input_read(pIn, buf, CHUNK, pErr);
    int st;
    if( n<0 ){ rc = 1; break; }
    p.chunkBase = input_offset(pIn) - n;
    if( n==0 ){
      if( !sawAny ){
        pf_error_set(pErr, ERRPOS_BYTE, 0, "empty file");
        rc = 1;
        break;
      }
      st = jscan_finish(p.h);
      if( st!=JSCAN_OK ){
        if( p.stop ){ rc = 1; break; }
        json_fail(&p, 1);
        rc = 1;
      }
      break;
    }
    /* Old Kineto writers left raw control bytes in names: the scanner
    ** accepts them inside strings (jscan_allow_control) and names and
    ** categories get them replaced by spaces (keep_name). */
    if( !sawAny ){
      for(ssize_t i=0; i<n && !sawAny; i++){
        sawAny = !(buf[i]==' ' || buf[i]=='\n' || buf[i]=='\r' || buf[i]=='\t');
      }
    }
    if( !sawAny ){
      /* whitespace only so far */
      if( (size_t)n<CHUNK ) continue;
    }
    p.chunk = buf;
    st = jscan_feed(p.h, buf, (size_t)n);
    if( st!=JSCAN_OK ){
      if( !p.stop ) json_fail(&p, 0);
      rc = 1;
      break;
    }
  }
  if( rc==0 && !p.sawEvents ){
    pf_error_set(pErr, ERRPOS_NONE, 0,
      "no \"traceEvents\" array: not a PyTorch profiler trace");
    rc = 1;
  }
  /* Time regime: relative to baseTimeNanoseconds, or absolute epoch µs. */
  if( pInfo->hasBaseTime ){
    snprintf(pInfo->zTimeRegime, sizeof(pInfo->zTimeRegime), "relative_us");
  }else if( pInfo->maxAbsTs > (int64_t)100000000000000000LL ){
    snprintf(pInfo->zTimeRegime, sizeof(pInfo->zTimeRegime), "%s",
             pInfo->sawFractionalTs ? "absolute_frac_us" : "absolute_us");
  }else{
    snprintf(pInfo->zTimeRegime, sizeof(pInfo->zTimeRegime), "unknown_origin");
  }
  jscan_free(p.h);
  buf_free(&p.name);
  buf_free(&p.cat);
  buf_free(&p.dims);
  buf_free(&p.types);
  buf_free(&p.concrete);
  free(buf);
  return rc;
}
