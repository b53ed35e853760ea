/*
** parse_nccl.c — streaming parser for NCCL_DEBUG=INFO logs (2.4 .. 2.29).
**
** Pipeline position: parse stage, feeding the NCCL loader through the
** NcclSink callbacks declared in parse_nccl.h.  Never prints, never exits.
**
** How a line is read:
**   1. Find every "NCCL " followed by a level word (INFO, WARN, TRACE,
**      CALL) and validate the prefix in front of it by scanning
**      backwards: "[dev]", optional "<ms> <file>:<line>", then
**      "host:pid:tid", then an optional "[timestamp] ".  Host names never
**      contain ':' or blanks, so launcher prefixes such as
**      "[1,0]<stdout>:" fall away by themselves.
**   2. Each validated prefix starts a segment that runs to the next one
**      (spliced lines) or to the end of the line.  Text in front of the
**      first segment is a launcher prefix or glued foreign text.
**   3. The message of each segment is classified by its first word and
**      parsed with small hand-written scanners bounded by an end pointer
**      (no regex, no NUL needed, no allocation on the hot path).
** Host names glued to foreign text ("-1mew0:64904:...") are repaired
** against recently seen (host, pid) pairs, then by dropping a leading
** numeric run.
*/
#include "comm/parse_nccl.h"
#include "core/fault.h"

#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NKNOWN 8      /* recently seen (host, pid) pairs */
#define NHINT 64      /* (host, pid, tid) -> comm hints */
#define READ_BUF (1u<<20)

typedef struct KnownHost {
  char z[64];
  size_t n;
  int64_t pid;
} KnownHost;

typedef struct CommHint {
  uint32_t hHost;
  int64_t pid, tid;
  uint64_t comm;
} CommHint;

struct NcclParser {
  const NcclSink *pSink;
  void *ctx;
  NcclStats *pStats;      /* caller's, or &local */
  NcclStats local;
  int64_t nPrefixed;      /* INFO/WARN/TRACE/CALL segments seen */
  Buf text;               /* scratch: NUL-terminated message copies */
  KnownHost aKnown[NKNOWN];
  int nKnown, iKnown;
  CommHint aHint[NHINT];
  int nHint, iHint;
  int verMajor, verMinor; /* last version line seen; -1 unknown */
  int cbRc;               /* non-zero value returned by a callback */
};

/* One prefixed segment located in a line (pointers into the line). */
typedef struct Seg {
  const char *zStart;     /* segment start: timestamp '[' or host */
  const char *zHost;
  size_t nHost;
  const char *zMsg;       /* first byte of the message */
  int level;
  int64_t pid, tid;
  int dev;
  const char *zTs;        /* timestamp text inside the brackets */
  size_t nTs;
  const char *zSrc;       /* <file> of "<file>:<line>" */
  size_t nSrc;
  int srcLine;
  int bLauncher;          /* text before zStart is empty or launcher */
  int bNoHost;            /* "[dev] NCCL ..." without host:pid:tid */
} Seg;

/* Parser results: P_STOP means a callback returned non-zero (kept in
** NcclParser.cbRc). */
enum { P_OK = 0, P_NOMATCH = 1, P_CUT = 2, P_STOP = 3 };

/* ------------------------------------------------------------ helpers */

static int is_digit(char c){ return c>='0' && c<='9'; }
static int is_alpha(char c){
  return (c>='a' && c<='z') || (c>='A' && c<='Z');
}
static int is_alnum(char c){ return is_digit(c) || is_alpha(c); }
static int hexval(char c){
  if( c>='0' && c<='9' ) return c-'0';
  if( c>='a' && c<='f' ) return c-'a'+10;
  if( c>='A' && c<='F' ) return c-'A'+10;
  return -1;
}

/* Copy n bytes at z into the fixed array zOut (size nOut), NUL-ended,
** cutting silently. */
static void copy_fixed(char *zOut, size_t nOut, const char *z, size_t n){
  if( n>=nOut ) n = nOut-1;
  memcpy(zOut, z, n);
  zOut[n] = 0;
}

/* If [*pp, e) starts with the literal zLit, advance past it, return 1. */
static int lit(const char **pp, const char *e, const char *zLit, size_t n){
  if( (size_t)(e - *pp) < n || memcmp(*pp, zLit, n)!=0 ) return 0;
  *pp += n;
  return 1;
}
#define LIT(pp, e, s) lit(pp, e, s, sizeof(s)-1)

/* Starts-with test without advancing. */
static int starts(const char *p, const char *e, const char *zLit, size_t n){
  return (size_t)(e-p)>=n && memcmp(p, zLit, n)==0;
}
#define STARTS(p, e, s) starts(p, e, s, sizeof(s)-1)

static void skip_sp(const char **pp, const char *e){
  while( *pp<e && **pp==' ' ) (*pp)++;
}

/* Signed decimal integer.  Returns 1 and advances on success; 0 when it
** does not fit in int64 (2^64, -2^63-1: damage, not a value to clamp). */
static int get_i64(const char **pp, const char *e, int64_t *pv){
  const char *p = *pp;
  int neg = 0;
  uint64_t v = 0, lim;
  if( p<e && (*p=='-' || *p=='+') ){ neg = (*p=='-'); p++; }
  if( p>=e || !is_digit(*p) ) return 0;
  lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  while( p<e && is_digit(*p) ){
    uint64_t d = (uint64_t)(*p-'0');
    if( v>(lim-d)/10 ) return 0;
    v = v*10 + d;
    p++;
  }
  *pv = neg ? (int64_t)(0-v) : (int64_t)v;
  *pp = p;
  return 1;
}

static int get_int(const char **pp, const char *e, int *pv){
  int64_t v;
  const char *p0 = *pp;
  if( !get_i64(pp, e, &v) ) return 0;
  if( v<INT_MIN || v>INT_MAX ){ *pp = p0; return 0; }
  *pv = (int)v;
  return 1;
}

/* Hex digits (optional 0x).  Returns 1 and advances on success. */
static int get_hex(const char **pp, const char *e, uint64_t *pv){
  const char *p = *pp;
  uint64_t v = 0;
  int d;
  if( e-p>=2 && p[0]=='0' && (p[1]=='x' || p[1]=='X') ) p += 2;
  if( p>=e || hexval(*p)<0 ) return 0;
  while( p<e && (d = hexval(*p))>=0 ){
    if( v>>60 ) return 0;          /* more than 64 bits */
    v = (v<<4) | (uint64_t)d;
    p++;
  }
  *pv = v;
  *pp = p;
  return 1;
}

/* A %p value: "0x..." or "(nil)". */
static int get_ptr(const char **pp, const char *e, uint64_t *pv){
  if( LIT(pp, e, "(nil)") ){ *pv = 0; return 1; }
  return get_hex(pp, e, pv);
}

/* Decimal number with optional fraction and exponent (no locale). */
static int get_double(const char **pp, const char *e, double *pv){
  const char *p = *pp;
  double v = 0.0, scale = 1.0;
  int neg = 0, any = 0;
  if( p<e && (*p=='-' || *p=='+') ){ neg = (*p=='-'); p++; }
  while( p<e && is_digit(*p) ){ v = v*10.0 + (*p-'0'); p++; any = 1; }
  if( p<e && *p=='.' ){
    p++;
    while( p<e && is_digit(*p) ){
      scale /= 10.0;
      v += (*p-'0')*scale;
      p++;
      any = 1;
    }
  }
  if( !any ) return 0;
  if( p<e && (*p=='e' || *p=='E') ){
    const char *q = p+1;
    int64_t x;
    if( get_i64(&q, e, &x) ){
      if( x>400 ) x = 400;
      if( x<-400 ) x = -400;
      while( x>0 ){ v *= 10.0; x--; }
      while( x<0 ){ v /= 10.0; x++; }
      p = q;
    }
  }
  *pv = neg ? -v : v;
  *pp = p;
  return 1;
}

/* Token of non-blank characters; returns its length (0 if none). */
static size_t get_token(const char **pp, const char *e, const char **pz){
  const char *p = *pp;
  *pz = p;
  while( p<e && *p!=' ' ) p++;
  *pp = p;
  return (size_t)(p - *pz);
}

/* Trim trailing blanks / CR of [z, *pe). */
static void rtrim(const char *z, const char **pe){
  while( *pe>z && ((*pe)[-1]==' ' || (*pe)[-1]=='\r' || (*pe)[-1]=='\t') ){
    (*pe)--;
  }
}

/* FNV-1a over a host name, for the comm hint table. */
static uint32_t host_hash(const char *z){
  uint32_t h = 2166136261u;
  while( *z ){ h ^= (unsigned char)*z++; h *= 16777619u; }
  return h;
}

/* Text before a segment is "launcher-like" (not glued) if it is empty or
** ends, ignoring blanks, in ':', ')', ']' or '>'. */
static int is_launcher(const char *z, const char *e){
  while( e>z && (e[-1]==' ' || e[-1]=='\t') ) e--;
  if( e==z ) return 1;
  return e[-1]==':' || e[-1]==')' || e[-1]==']' || e[-1]=='>';
}

/* ----------------------------------------------------- code tables */

const char *parse_nccl_dtype_name(int code, int *pSize){
  static const struct { const char *z; int n; } a[] = {
    {"int8", 1}, {"uint8", 1}, {"int32", 4}, {"uint32", 4},
    {"int64", 8}, {"uint64", 8}, {"float16", 2}, {"float32", 4},
    {"float64", 8}, {"bfloat16", 2}, {"fp8_e4m3", 1}, {"fp8_e5m2", 1}
  };
  if( code<0 || code>=(int)(sizeof(a)/sizeof(a[0])) ){
    if( pSize ) *pSize = 0;
    return "unknown";
  }
  if( pSize ) *pSize = a[code].n;
  return a[code].z;
}

const char *parse_nccl_redop_name(int code){
  static const char *const a[] = {"sum", "prod", "max", "min", "avg"};
  if( code>=0 && code<5 ) return a[code];
  if( code>=5 ) return "dynamic";
  return "unknown";
}

static const char *algo_name(int code){
  static const char *const a[] = {"TREE", "RING", "COLLNET_DIRECT",
    "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"};
  return (code>=0 && code<7) ? a[code] : "unknown";
}

static const char *proto_name(int code){
  static const char *const a[] = {"LL", "LL128", "SIMPLE"};
  return (code>=0 && code<3) ? a[code] : "unknown";
}

static int op_code(const char *z, size_t n){
  static const char *const a[] = {"AllReduce", "Broadcast", "Reduce",
    "AllGather", "ReduceScatter", "Send", "Recv", "AlltoAll", "Gather",
    "Scatter", "PutSignal", "Signal", "WaitSignal"};
  int i;
  for(i=0; i<(int)(sizeof(a)/sizeof(a[0])); i++){
    if( strlen(a[i])==n && memcmp(a[i], z, n)==0 ) return i;
  }
  return NCCL_OP_OTHER;
}

/* ------------------------------------------------- prefix detection */

/* "[digits]" (optionally negative). */
static int is_dev(const char *s, const char *e, int *pDev){
  const char *p = s+1;
  int64_t v;
  if( e-s<3 || s[0]!='[' || e[-1]!=']' ) return 0;
  if( !get_i64(&p, e-1, &v) || p!=e-1 ) return 0;
  *pDev = (int)v;
  return 1;
}

/* "<file>:<digits>" with a non-empty file. */
static int is_srcline(const char *s, const char *e, size_t *pnFile,
                      int *pLine){
  const char *c = e;
  int64_t v;
  while( c>s && is_digit(c[-1]) ) c--;
  if( c==e || c-1<=s || c[-1]!=':' ) return 0;
  {
    const char *p = c;
    if( !get_i64(&p, e, &v) ) return 0;
  }
  *pnFile = (size_t)(c-1-s);
  *pLine = (int)v;
  return 1;
}

/* "digits.digits" (TRACE's ms-since-init). */
static int is_float(const char *s, const char *e){
  const char *p = s;
  int nd = 0, dot = 0;
  for(; p<e; p++){
    if( is_digit(*p) ) nd++;
    else if( *p=='.' && !dot ) dot = 1;
    else return 0;
  }
  return nd>0;
}

/* Decimal digits ending at *pc (scanned backwards, not before lo, at most
** 18 of them) into *pv; moves *pc to the first digit.  Returns 0 if there
** is no digit or too many. */
static int digits_back(const char *lo, const char **pc, int64_t *pv){
  const char *c = *pc;
  int64_t v = 0, mul = 1;
  int n = 0;
  while( c>lo && is_digit(c[-1]) ){
    if( ++n>18 ) return 0;
    v += (c[-1]-'0')*mul;
    mul *= 10;
    c--;
  }
  if( n==0 ) return 0;
  *pc = c;
  *pv = v;
  return 1;
}

/* Start of the blank-delimited token ending at e, not before lo. */
static const char *tok_start(const char *lo, const char *e){
  while( e>lo && e[-1]!=' ' ) e--;
  return e;
}

/*
** Repair a host token glued to foreign text.  zTok/nTok is the token as
** found, pid its pid, bLauncher whether the text in front is empty or a
** launcher prefix.  Returns the number of leading bytes to drop.
*/
static size_t host_repair(NcclParser *p, const char *zTok, size_t nTok,
                          int64_t pid, int bLauncher){
  int i;
  size_t k;
  for(i=0; i<p->nKnown; i++){
    const KnownHost *h = &p->aKnown[i];
    if( h->pid!=pid || h->n>nTok ) continue;
    if( memcmp(zTok + nTok - h->n, h->z, h->n)==0 ) return nTok - h->n;
  }
  if( bLauncher ) return 0;
  for(k=0; k<nTok && (is_digit(zTok[k]) || zTok[k]=='-' || zTok[k]=='.');
      k++){}
  if( k>0 && k<nTok && is_alpha(zTok[k]) ) return k;
  return 0;
}

/*
** host:pid:tid ending at hostEnd (scanned backwards, not before lo) into
** *s.  Returns 1 if found.
*/
static int host_back(const char *lo, const char *hostEnd, Seg *s){
  const char *c = hostEnd, *h;
  int64_t tid = 0, pid = 0;
  if( !digits_back(lo, &c, &tid) || c<=lo || c[-1]!=':' ) return 0;
  c--;
  if( !digits_back(lo, &c, &pid) || c<=lo || c[-1]!=':' ) return 0;
  c--;
  h = c;
  while( h>lo && h[-1]!=' ' && h[-1]!=':' && h[-1]!='\t' ) h--;
  if( h==c ) return 0;
  s->zHost = h;
  s->nHost = (size_t)(c-h);
  s->pid = pid;
  s->tid = tid;
  return 1;
}

/* The level word after "NCCL " at k: NCCL_LVL_* and *pm past it and one
** blank; -1 if none. */
static int level_word(const char *k, const char *e, const char **pm){
  const char *m = k + 5;
  int level;
  if( STARTS(m, e, "INFO") ){ level = NCCL_LVL_INFO; m += 4; }
  else if( STARTS(m, e, "WARN") ){ level = NCCL_LVL_WARN; m += 4; }
  else if( STARTS(m, e, "TRACE") ){ level = NCCL_LVL_TRACE; m += 5; }
  else if( STARTS(m, e, "CALL") ){ level = NCCL_LVL_CALL; m += 4; }
  else return -1;
  if( m<e ){
    if( *m!=' ' ) return -1;
    m++;
  }
  *pm = m;
  return level;
}

/* Characters of [z, e): bit 1 digits only, 2 a ':', 4 a '-' or '/',
** 8 another character of a time ('.', ',', 'T'), 16 anything else. */
static int ts_chars(const char *z, const char *e){
  int f = 0;
  for(; z<e; z++){
    if( is_digit(*z) ) f |= 1;
    else if( *z==':' ) f |= 2;
    else if( *z=='-' || *z=='/' ) f |= 4;
    else if( *z=='.' || *z==',' || *z=='T' ) f |= 8;
    else f |= 16;
  }
  return f;
}

/*
** A timestamp without brackets in front of the host, from a custom
** NCCL_DEBUG_TIMESTAMP_FORMAT (2.26+): "10:00:00.123 ", "1748772000.12 ",
** "2025-06-01 10:00:00 ", "2025-06-01T10:00:00 ", "0614 11:26:37.758169 "
** (glog's mmdd), at the line start or after a launcher prefix.  A time
** token needs a ':' or, alone, ten or more characters of digits and '.';
** a date token before it a '-' or '/', or is 4 or 8 digits.  Moves
** s->zStart and sets s->zTs when one is found.
*/
static void plain_ts(const char *lo, Seg *s){
  const char *b, *t, *t0;
  int f;
  if( s->zStart-lo<2 || s->zStart[-1]!=' ' ) return;
  b = s->zStart-1;
  t = tok_start(lo, b);
  if( t==b ) return;
  f = ts_chars(t, b);
  if( (f&1)==0 || (f&16) ) return;
  if( (f&2)==0 && ((f&4) || b-t<10) ) return;
  t0 = t;
  if( t>lo+1 && t[-1]==' ' && (f&4)==0 ){
    const char *d = tok_start(lo, t-1);
    int g = ts_chars(d, t-1);
    long nd = (long)(t-1-d);
    if( d<t-1 && (g&1) && !(g&(2|8|16)) && ((g&4) || nd==4 || nd==8) ){
      t0 = d;        /* 2025-06-01, 06/01/25, 0601 (glog), 20250601 */
    }
  }
  if( !is_launcher(lo, t0) ) return;
  s->zTs = t0;
  s->nTs = (size_t)(b-t0);
  s->zStart = t0;
}

/*
** Validate the prefix that ends at the "NCCL " found at k.  lo bounds the
** backward scan (line start, or the previous segment's message start).
** Fills *s; returns 1 if valid.  Accepted in front of "NCCL <LEVEL>":
**   host:pid:tid [dev]                            (INFO)
**   host:pid:tid [dev] [<ms>] <file>:<line> [(func)]   (WARN, TRACE)
**   host:pid:tid                                  (CALL)
**   [dev] ...  with no host:pid:tid at the line start or after a
**   launcher prefix (pasted logs whose users trimmed the host part).
*/
static int check_prefix(NcclParser *p, const char *lo,
                        const char *k, const char *e, Seg *s){
  const char *m, *q, *t, *hostEnd, *devStart = 0;
  int level = level_word(k, e, &m);
  if( level<0 ) return 0;
  if( k==lo || k[-1]!=' ' ) return 0;
  s->dev = -1;
  s->zSrc = 0;
  s->nSrc = 0;
  s->srcLine = -1;
  q = k-1;                       /* the blank before NCCL */
  t = tok_start(lo, q);
  if( t==q ) return 0;
  if( level==NCCL_LVL_WARN && q-t>=2 && *t=='(' && q[-1]==')' ){
    if( t==lo || t[-1]!=' ' ) return 0;   /* "(func)" of newer WARNs */
    q = t-1;
    t = tok_start(lo, q);
    if( t==q ) return 0;
  }
  if( is_dev(t, q, &s->dev) ){
    devStart = t;
    hostEnd = t==lo ? t : t-1;
  }else if( level==NCCL_LVL_CALL ){
    hostEnd = q;
  }else if( is_srcline(t, q, &s->nSrc, &s->srcLine) ){
    s->zSrc = t;
    if( t==lo || t[-1]!=' ' ) return 0;
    q = t-1;
    t = tok_start(lo, q);
    if( t<q && is_float(t, q) ){
      if( t==lo || t[-1]!=' ' ) return 0;
      q = t-1;
      t = tok_start(lo, q);
    }
    if( !is_dev(t, q, &s->dev) ) return 0;
    devStart = t;
    hostEnd = t==lo ? t : t-1;
  }else{
    return 0;
  }
  s->level = level;
  s->zMsg = m;
  s->zTs = 0;
  s->nTs = 0;
  s->bNoHost = 0;
  if( hostEnd==lo || (hostEnd<q && *hostEnd!=' ')
   || !host_back(lo, hostEnd, s) ){
    /* no host:pid:tid: only a "[dev]" at the start or after a launcher */
    if( devStart==0 || !is_launcher(lo, devStart) ) return 0;
    s->bNoHost = 1;
    s->zHost = devStart;
    s->nHost = 0;
    s->pid = s->tid = -1;
  }
  s->zStart = s->bNoHost ? devStart : s->zHost;
  /* optional "[timestamp] " directly before the host */
  if( s->zStart-lo>=2 && s->zStart[-1]==' ' && s->zStart[-2]==']' ){
    const char *b = s->zStart-2;
    const char *stop = (b-lo>64) ? b-64 : lo;
    while( b>stop && *b!='[' ) b--;
    if( *b=='[' && b+1<s->zStart-2 && is_digit(b[1]) ){
      s->zTs = b+1;
      s->nTs = (size_t)(s->zStart-2-(b+1));
      s->zStart = b;
    }
  }
  if( s->zTs==0 ) plain_ts(lo, s);
  s->bLauncher = is_launcher(lo, s->zStart);
  /* also at lo: the host may be glued to the end of a cut message */
  if( !s->bNoHost ){
    size_t d = host_repair(p, s->zHost, s->nHost, s->pid, s->bLauncher);
    if( d ){
      s->zHost += d;
      s->nHost -= d;
      if( s->zTs==0 ) s->zStart = s->zHost;
    }
  }
  return 1;
}

/* Find the first valid prefix in [lo, e).  Returns 1 and fills *s. */
static int find_seg(NcclParser *p, const char *lo,
                    const char *e, Seg *s){
  const char *k = lo;
  while( k<e ){
    k = memmem(k, (size_t)(e-k), "NCCL ", 5);
    if( k==0 ) return 0;
    if( check_prefix(p, lo, k, e, s) ) return 1;
    k += 5;
  }
  return 0;
}

/* ------------------------------------------------------- emitting */

/* Record a callback's result: non-zero stops the parse. */
static int cbres(NcclParser *p, int r){
  if( r ){
    p->cbRc = r;
    return P_STOP;
  }
  return P_OK;
}

static void malformed(NcclParser *p, int64_t lineno){
  p->pStats->nMalformed++;
  if( p->pStats->firstMalformedLine==0 ) p->pStats->firstMalformedLine = lineno;
}

/* NUL-terminated copy of [z, e) in the scratch buffer (borrowed). */
static const char *scratch(NcclParser *p, const char *z, const char *e){
  buf_reset(&p->text);
  buf_append(&p->text, z, (size_t)(e-z));
  return buf_str(&p->text);
}

static uint64_t hint_get(NcclParser *p, const NcclPrefix *x){
  uint32_t h = host_hash(x->zHost);
  int i;
  for(i=0; i<p->nHint; i++){
    const CommHint *c = &p->aHint[i];
    if( c->tid==x->tid && c->pid==x->pid && c->hHost==h ) return c->comm;
  }
  return 0;
}

static void hint_set(NcclParser *p, const NcclPrefix *x, uint64_t comm){
  uint32_t h = host_hash(x->zHost);
  int i;
  CommHint *c;
  for(i=0; i<p->nHint; i++){
    c = &p->aHint[i];
    if( c->tid==x->tid && c->pid==x->pid && c->hHost==h ){
      c->comm = comm;
      return;
    }
  }
  if( p->nHint<NHINT ){
    c = &p->aHint[p->nHint++];
  }else{
    c = &p->aHint[p->iHint];
    p->iHint = (p->iHint+1) % NHINT;
  }
  c->hHost = h;
  c->pid = x->pid;
  c->tid = x->tid;
  c->comm = comm;
}

/* ------------------------------------------------ message parsers */

/* "NCCL version 2.27.7+cuda13.0" starting after "NCCL version ". */
static int parse_version(NcclParser *p, const NcclPrefix *x, const char *m,
                         const char *e, int bBare){
  NcclVersion v;
  const char *z, *q;
  size_t n = get_token(&m, e, &z);
  int64_t a;
  if( n==0 || !is_digit(z[0]) ) return P_NOMATCH;
  memset(&v, 0, sizeof(v));
  copy_fixed(v.zVersion, sizeof(v.zVersion), z, n);
  v.major = v.minor = v.patch = v.cudaMajor = v.cudaMinor = -1;
  v.bBare = bBare;
  q = z;
  e = z+n;
  if( get_i64(&q, e, &a) ){
    v.major = (int)a;
    if( LIT(&q, e, ".") && get_i64(&q, e, &a) ){
      v.minor = (int)a;
      if( LIT(&q, e, ".") && get_i64(&q, e, &a) ) v.patch = (int)a;
    }
  }
  q = memchr(z, '+', n);
  if( q && LIT(&q, e, "+cuda") && get_i64(&q, e, &a) ){
    v.cudaMajor = (int)a;
    if( LIT(&q, e, ".") && get_i64(&q, e, &a) ) v.cudaMinor = (int)a;
  }
  p->verMajor = v.major;
  p->verMinor = v.minor;
  p->pStats->nRec[NCCL_REC_VERSION]++;
  if( p->pSink->xVersion==0 ) return P_OK;
  return cbres(p, p->pSink->xVersion(p->ctx, x, &v));
}

/* "<Op>: opCount ..." with m just after "<Op>: opCount ". */
static int parse_coll(NcclParser *p, const NcclPrefix *x, const char *zOp,
                      size_t nOp, const char *m, const char *e){
  NcclColl c;
  int64_t cnt;
  int dt, op, root;
  if( !get_hex(&m, e, &c.opCount) ) return P_CUT;
  if( !LIT(&m, e, " sendbuff ") || !get_ptr(&m, e, &c.sendbuff) ) return P_CUT;
  if( !LIT(&m, e, " recvbuff ") || !get_ptr(&m, e, &c.recvbuff) ) return P_CUT;
  if( !LIT(&m, e, " count ") || !get_i64(&m, e, &cnt) || cnt<0 ) return P_CUT;
  if( !LIT(&m, e, " datatype ") || !get_int(&m, e, &dt) ) return P_CUT;
  if( !LIT(&m, e, " op ") || !get_int(&m, e, &op) ) return P_CUT;
  if( !LIT(&m, e, " root ") || !get_int(&m, e, &root) ) return P_CUT;
  if( !LIT(&m, e, " comm ") || !get_ptr(&m, e, &c.comm) ) return P_CUT;
  c.nranks = -1;
  if( LIT(&m, e, " [nranks=") ){
    if( !get_int(&m, e, &c.nranks) || !LIT(&m, e, "]") ) return P_CUT;
  }
  if( !LIT(&m, e, " stream ") || !get_ptr(&m, e, &c.stream) ) return P_CUT;
  if( m<e && *m!=' ' ) return P_CUT;
  c.op = op_code(zOp, nOp);
  copy_fixed(c.zOp, sizeof(c.zOp), zOp, nOp);
  c.count = cnt;
  c.dtype = dt;
  c.zDtype = parse_nccl_dtype_name(dt, &c.dtypeSize);
  if( dt>=10 && p->verMajor==2 && p->verMinor>=0 && p->verMinor<24 ){
    c.zDtype = "unknown";     /* fp8 codes do not exist before 2.24 */
    c.dtypeSize = 0;
  }
  if( c.dtypeSize==0 ) p->pStats->nUnknownDtype++;
  c.bytes = -1;
  if( c.dtypeSize && cnt>=0 && cnt<=INT64_MAX/8 ) c.bytes = cnt * c.dtypeSize;
  c.redop = op;
  c.zRedop = parse_nccl_redop_name(op);
  c.root = root;
  c.peer = -1;
  c.buf = c.sendbuff;
  if( c.op==NCCL_OP_SEND ){
    c.peer = root;
    c.buf = c.sendbuff ? c.sendbuff : c.recvbuff;
  }else if( c.op==NCCL_OP_RECV ){
    c.peer = root;
    c.buf = c.recvbuff;
  }
  p->pStats->nRec[NCCL_REC_COLL]++;
  if( p->pSink->xColl==0 ) return P_OK;
  return cbres(p, p->pSink->xColl(p->ctx, x, &c));
}

/*
** "[func ]comm %p key value ... - Init START|COMPLETE", the Destroy /
** Abort lines and the "nRanks ... nNodes" topology line.  m points at
** "comm ", zFunc/nFunc is the function name or empty.
*/
static int parse_comm(NcclParser *p, const NcclPrefix *x, const char *zFunc,
                      size_t nFunc, const char *m, const char *e){
  NcclInit in;
  int term = 0, sawNodes = 0, sawNvml = 0;
  const char *zW;
  size_t nW;
  memset(&in, 0, sizeof(in));
  in.rank = in.nranks = in.cudaDev = in.nvmlDev = -1;
  in.busId = -1;
  in.splitCount = in.color = in.key = -1;
  in.nNodes = in.localRanks = in.localRank = in.mnnvl = -1;
  copy_fixed(in.zFunc, sizeof(in.zFunc), zFunc, nFunc);
  m += 5;
  if( !get_ptr(&m, e, &in.comm) ) return m>=e ? P_CUT : P_NOMATCH;
  for(;;){
    const char *zK;
    size_t nK;
    if( m>=e ) break;
    if( *m!=' ' ) return P_NOMATCH;
    skip_sp(&m, e);
    if( m>=e ) break;
    if( *m=='-' && (m+1==e || m[1]==' ') ){ term = 1; m++; break; }
    zK = m;
    while( m<e && is_alpha(*m) ) m++;
    nK = (size_t)(m-zK);
    if( nK==0 ) return P_NOMATCH;
    if( m>=e ) return P_CUT;
    if( *m!=' ' ) return P_NOMATCH;
    m++;
    if( m>=e ) return P_CUT;
#define KEY(s) (nK==sizeof(s)-1 && memcmp(zK, s, nK)==0)
    if( KEY("busId") ){
      const char *z0 = m;
      uint64_t v;
      if( !get_hex(&m, e, &v) ) return P_NOMATCH;
      in.busId = (int64_t)v;
      copy_fixed(in.zBusId, sizeof(in.zBusId), z0, (size_t)(m-z0));
    }else if( KEY("commId") ){
      if( !get_hex(&m, e, &in.commId) ) return P_NOMATCH;
      in.hasCommId = 1;
    }else if( KEY("parent") ){
      if( !get_ptr(&m, e, &in.parent) ) return P_NOMATCH;
      in.bSplit = 1;
    }else{
      int *pv = 0, v;
      if( KEY("rank") ) pv = &in.rank;
      else if( KEY("nranks") || KEY("nRanks") ) pv = &in.nranks;
      else if( KEY("cudaDev") ) pv = &in.cudaDev;
      else if( KEY("nvmlDev") ){ pv = &in.nvmlDev; sawNvml = 1; }
      else if( KEY("splitCount") ) pv = &in.splitCount;
      else if( KEY("color") ) pv = &in.color;
      else if( KEY("key") ) pv = &in.key;
      else if( KEY("nNodes") ){ pv = &in.nNodes; sawNodes = 1; }
      else if( KEY("localRanks") ) pv = &in.localRanks;
      else if( KEY("localRank") ) pv = &in.localRank;
      else if( KEY("MNNVL") ) pv = &in.mnnvl;
      if( pv ){
        if( !get_int(&m, e, &v) ) return P_NOMATCH;
        *pv = v;
      }else{
        const char *zT;
        get_token(&m, e, &zT);
      }
    }
#undef KEY
    /* 2.24+ split START: "key %d- Init START" */
    if( m+1<e && m[0]=='-' && m[1]==' ' ){ term = 1; m++; break; }
  }
  if( !term ){
    if( sawNodes ){
      in.phase = NCCL_INIT_TOPO;
      in.format = NCCL_INITFMT_TOPO;
      hint_set(p, x, in.comm);
      p->pStats->nRec[NCCL_REC_INIT]++;
      if( p->pSink->xInit==0 ) return P_OK;
      return cbres(p, p->pSink->xInit(p->ctx, x, &in));
    }
    return P_CUT;
  }
  if( !LIT(&m, e, " ") ) return P_CUT;
  nW = get_token(&m, e, &zW);
  if( nW==0 ) return P_CUT;
  if( nW==4 && memcmp(zW, "Init", 4)==0 ){
    if( LIT(&m, e, " START") ) in.phase = NCCL_INIT_START;
    else if( LIT(&m, e, " COMPLETE") ) in.phase = NCCL_INIT_COMPLETE;
    else return P_CUT;
    if( nFunc ) in.format = NCCL_INITFMT_FUNC;
    else if( sawNvml ){
      in.format = in.zBusId[0] ? NCCL_INITFMT_2_18 : NCCL_INITFMT_2_4;
    }
    else if( in.hasCommId ) in.format = NCCL_INITFMT_2_16;
    else in.format = NCCL_INITFMT_2_10;
    if( in.rank<0 || in.nranks<0 ) return P_CUT;
    hint_set(p, x, in.comm);
    p->pStats->nRec[NCCL_REC_INIT]++;
    if( p->pSink->xInit==0 ) return P_OK;
    return cbres(p, p->pSink->xInit(p->ctx, x, &in));
  }
  if( !LIT(&m, e, " COMPLETE") ) return P_CUT;
  {
    NcclDestroy d;
    copy_fixed(d.zWhat, sizeof(d.zWhat), zW, nW);
    d.comm = in.comm;
    d.rank = in.rank;
    d.nranks = in.nranks;
    d.cudaDev = in.cudaDev;
    d.busId = in.busId;
    p->pStats->nRec[NCCL_REC_DESTROY]++;
    if( p->pSink->xDestroy==0 ) return P_OK;
    return cbres(p, p->pSink->xDestroy(p->ctx, x, &d));
  }
}

static int emit_channel(NcclParser *p, const NcclPrefix *x, NcclChannel *c,
                        const char *zMsg, const char *e){
  c->zText = scratch(p, zMsg, e);
  c->commHint = hint_get(p, x);
  p->pStats->nRec[NCCL_REC_CHANNEL]++;
  if( p->pSink->xChannel==0 ) return P_OK;
  return cbres(p, p->pSink->xChannel(p->ctx, x, c));
}

static void chan_init(NcclChannel *c, int kind){
  c->kind = kind;
  c->channel = -1;
  c->nChannels = -1;
  c->nColl = c->nCollnet = c->nNvls = c->nP2p = c->nP2pPerPeer = -1;
}

/* "r[dev]" or a bare "r" (2.4 NET and P2P/common device lines) into the
** rank and the bracket text ("" when absent). */
static int get_rankdev(const char **pp, const char *e, int *pRank,
                       char *zDev, size_t nDev){
  const char *z;
  zDev[0] = 0;
  if( !get_int(pp, e, pRank) ) return 0;
  if( !LIT(pp, e, "[") ) return 1;
  z = *pp;
  while( *pp<e && **pp!=']' ) (*pp)++;
  if( *pp>=e ) return 0;
  copy_fixed(zDev, nDev, z, (size_t)(*pp-z));
  (*pp)++;
  return 1;
}

static int conn_kind(const char *z, const char *e){
  if( STARTS(z, e, "P2P") ) return NCCL_CONN_P2P;
  if( STARTS(z, e, "SHM") ) return NCCL_CONN_SHM;
  if( STARTS(z, e, "NET") ) return NCCL_CONN_NET;
  if( STARTS(z, e, "COLLNET") ) return NCCL_CONN_COLLNET;
  if( STARTS(z, e, "NVLS") ) return NCCL_CONN_NVLS;
  return NCCL_CONN_OTHER;
}

/* Optional " [send]" / " [receive]", then " via <rest>". */
static int finish_conn(NcclParser *p, const NcclPrefix *x, NcclConn *c,
                       const char *m, const char *e){
  if( LIT(&m, e, " [send]") ) c->dir = 1;
  else if( LIT(&m, e, " [receive]") ) c->dir = 2;
  if( !LIT(&m, e, " via ") || m>=e ) return P_CUT;
  copy_fixed(c->zVia, sizeof(c->zVia), m, (size_t)(e-m));
  c->kind = conn_kind(m, e);
  c->commHint = hint_get(p, x);
  c->comm = c->commHint;
  p->pStats->nRec[NCCL_REC_CONN]++;
  if( p->pSink->xConn==0 ) return P_OK;
  return cbres(p, p->pSink->xConn(p->ctx, x, c));
}

static void conn_init(NcclConn *c){
  c->kind = NCCL_CONN_OTHER;
  c->channel = c->connIndex = c->rank = c->peer = -1;
  c->zRankDev[0] = c->zPeerDev[0] = c->zVia[0] = 0;
  c->dir = 0;
  c->comm = c->commHint = 0;
}

/* "a[da] -> b[db][ [send|receive]] via ...", m at a: a connection of
** channel ch (Channel lines 2.7+, Ring lines 2.4-2.6). */
static int parse_link(NcclParser *p, const NcclPrefix *x, int ch, int sub,
                      const char *m, const char *e){
  NcclConn c;
  conn_init(&c);
  c.channel = ch;
  c.connIndex = sub;
  if( !get_rankdev(&m, e, &c.rank, c.zRankDev, sizeof(c.zRankDev)) ){
    return P_CUT;
  }
  if( !LIT(&m, e, " -> ") ) return P_CUT;
  if( !get_rankdev(&m, e, &c.peer, c.zPeerDev, sizeof(c.zPeerDev)) ){
    return P_CUT;
  }
  return finish_conn(p, x, &c, m, e);
}

/* "Channel NN[/MM] : ..." or "Ring NN : ..." — a connection (the text
** holds " via "), a ring order ("Channel 00/24 : 0 1 2 3") or a ring
** neighbourhood ("Ring 00 : 3 -> 0 -> 1").  m after the first word. */
static int parse_channel(NcclParser *p, const NcclPrefix *x,
                         const char *zMsg, const char *m, const char *e,
                         int bRing){
  int ch, sub = -1, r;
  if( !get_int(&m, e, &ch) ) return m>=e ? P_CUT : P_NOMATCH;
  if( !bRing && LIT(&m, e, "/") && !get_int(&m, e, &sub) ) return P_CUT;
  if( !LIT(&m, e, " :") ) return m>=e ? P_CUT : P_NOMATCH;
  skip_sp(&m, e);
  {
    const char *q = m;
    if( !get_int(&q, e, &r) ) return q>=e ? P_CUT : P_NOMATCH;
  }
  if( memmem(m, (size_t)(e-m), " via ", 5) ){
    return parse_link(p, x, ch, sub, m, e);
  }
  {
    NcclChannel c;
    chan_init(&c, bRing ? NCCL_CHAN_RING : NCCL_CHAN_RING_ORDER);
    c.channel = ch;
    c.nChannels = bRing ? -1 : sub;
    return emit_channel(p, x, &c, zMsg, e);
  }
}

/* "CollNet %02d/%1d : %d [send|receive] via COLLNET/..." m after
** "CollNet ". */
static int parse_collnet(NcclParser *p, const NcclPrefix *x, const char *m,
                         const char *e){
  NcclConn c;
  conn_init(&c);
  if( !get_int(&m, e, &c.channel) ) return m>=e ? P_CUT : P_NOMATCH;
  if( LIT(&m, e, "/") && !get_int(&m, e, &c.connIndex) ) return P_CUT;
  if( !LIT(&m, e, " : ") ) return m>=e ? P_CUT : P_NOMATCH;
  if( !get_int(&m, e, &c.rank) ) return P_CUT;
  return finish_conn(p, x, &c, m, e);
}

/* "<n> coll channels, <n> collnet channels, ..., <n> p2p channels per
** peer".  m at the first number. */
static int parse_counts(NcclParser *p, const NcclPrefix *x, const char *zMsg,
                        const char *m, const char *e){
  NcclChannel c;
  chan_init(&c, NCCL_CHAN_COUNTS);
  for(;;){
    int v;
    const char *z;
    size_t n;
    if( !get_int(&m, e, &v) || !LIT(&m, e, " ") ) return P_CUT;
    z = m;
    while( m<e && *m!=',' ) m++;
    n = (size_t)(m-z);
#define NAME(s) (n==sizeof(s)-1 && memcmp(z, s, n)==0)
    if( NAME("coll channels") ) c.nColl = v;
    else if( NAME("collnet channels") ) c.nCollnet = v;
    else if( NAME("nvls channels") ) c.nNvls = v;
    else if( NAME("p2p channels") ) c.nP2p = v;
    else if( NAME("p2p channels per peer") ) c.nP2pPerPeer = v;
    else return P_CUT;
#undef NAME
    if( m>=e ) break;
    if( !LIT(&m, e, ", ") ) return P_CUT;
  }
  if( c.nColl<0 || c.nP2pPerPeer<0 ) return P_CUT;
  c.nChannels = c.nColl;
  return emit_channel(p, x, &c, zMsg, e);
}

/* "Init timings[: | - func:] rank .. nranks .. total .. (a x, b y)" and
** "Bootstrap timings total .. (...)".  m after "timings". */
static int parse_timing(NcclParser *p, const NcclPrefix *x, int kind,
                        const char *m, const char *e){
  NcclTiming t;
  memset(&t, 0, sizeof(t));
  t.kind = kind;
  t.rank = t.nranks = -1;
  t.total = -1.0;
  if( LIT(&m, e, " - ") ){
    const char *z = m;
    while( m<e && *m!=':' && *m!=' ' ) m++;
    copy_fixed(t.zFunc, sizeof(t.zFunc), z, (size_t)(m-z));
  }
  LIT(&m, e, ":");
  for(;;){
    const char *z;
    size_t n;
    skip_sp(&m, e);
    if( m>=e ) return P_CUT;
    if( *m=='(' ) break;
    z = m;
    while( m<e && is_alpha(*m) ) m++;
    n = (size_t)(m-z);
    if( n==0 || !LIT(&m, e, " ") ) return P_CUT;
    if( n==4 && memcmp(z, "rank", 4)==0 ){
      if( !get_int(&m, e, &t.rank) ) return P_CUT;
    }else if( n==6 && memcmp(z, "nranks", 6)==0 ){
      if( !get_int(&m, e, &t.nranks) ) return P_CUT;
    }else if( n==5 && memcmp(z, "total", 5)==0 ){
      if( !get_double(&m, e, &t.total) ) return P_CUT;
    }else{
      double d;
      if( !get_double(&m, e, &d) ) return P_CUT;
    }
  }
  m++;
  for(;;){
    const char *z;
    size_t n;
    double d;
    skip_sp(&m, e);
    z = m;
    while( m<e && *m!=' ' && *m!=')' ) m++;
    n = (size_t)(m-z);
    if( n==0 || !LIT(&m, e, " ") || !get_double(&m, e, &d) ) return P_CUT;
    if( t.nPart<NCCL_TIMING_MAXPART ){
      copy_fixed(t.aPart[t.nPart].zName, sizeof(t.aPart[0].zName), z, n);
      t.aPart[t.nPart].v = d;
      t.nPart++;
    }
    if( LIT(&m, e, ")") ) break;
    if( !LIT(&m, e, ",") ) return P_CUT;
  }
  if( t.total<0 ) return P_CUT;
  p->pStats->nRec[NCCL_REC_TIMING]++;
  if( p->pSink->xTiming==0 ) return P_OK;
  return cbres(p, p->pSink->xTiming(p->ctx, x, &t));
}

static void tune_init(NcclTuning *t, int kind){
  memset(t, 0, sizeof(*t));
  t->kind = kind;
  t->bytes = -1;
  t->chanLo = t->chanHi = t->nChannels = t->nThreads = -1;
  t->time = -1.0;
}

static int emit_tuning(NcclParser *p, const NcclPrefix *x, NcclTuning *t,
                       const char *zMsg, const char *e){
  t->zText = scratch(p, zMsg, e);
  p->pStats->nRec[NCCL_REC_TUNING]++;
  if( p->pSink->xTuning==0 ) return P_OK;
  return cbres(p, p->pSink->xTuning(p->ctx, x, t));
}

/* Algo / proto value: a name, or a numeric code mapped to one. */
static int get_name_or_code(const char **pp, const char *e, char *zOut,
                            size_t nOut, const char *(*xMap)(int)){
  const char *z;
  size_t n = get_token(pp, e, &z);
  if( n==0 ) return 0;
  if( is_digit(z[0]) ){
    const char *q = z;
    int v;
    if( get_int(&q, z+n, &v) && q==z+n ){
      copy_fixed(zOut, nOut, xMap(v), strlen(xMap(v)));
      return 1;
    }
  }
  copy_fixed(zOut, nOut, z, n);
  return 1;
}

/* "[<Func>[ [Symmetric]]: ]N Bytes -> ...".  m at N. */
static int parse_decision(NcclParser *p, const NcclPrefix *x,
                          const char *zMsg, const char *zF, size_t nF,
                          int bSym, const char *m, const char *e){
  NcclTuning t;
  tune_init(&t, bSym ? NCCL_TUNE_KERNEL : NCCL_TUNE_DECISION);
  copy_fixed(t.zFunc, sizeof(t.zFunc), zF, nF);
  if( !get_i64(&m, e, &t.bytes) || !LIT(&m, e, " Bytes -> ") ) return P_CUT;
  if( LIT(&m, e, "Kernel ") ){
    const char *z;
    size_t n = get_token(&m, e, &z);
    t.kind = NCCL_TUNE_KERNEL;
    copy_fixed(t.zKernel, sizeof(t.zKernel), z, n);
    if( LIT(&m, e, " nchannels ") && !get_int(&m, e, &t.nChannels) ){
      return P_CUT;
    }
    if( LIT(&m, e, " nthreads ") && !get_int(&m, e, &t.nThreads) ){
      return P_CUT;
    }
    return emit_tuning(p, x, &t, zMsg, e);
  }
  if( !LIT(&m, e, "Algo ") ) return P_CUT;
  if( !get_name_or_code(&m, e, t.zAlgo, sizeof(t.zAlgo), algo_name) ){
    return P_CUT;
  }
  if( !LIT(&m, e, " proto ") ) return P_CUT;
  if( !get_name_or_code(&m, e, t.zProto, sizeof(t.zProto), proto_name) ){
    return P_CUT;
  }
  if( LIT(&m, e, " channel{Lo..Hi}={") ){
    if( !get_int(&m, e, &t.chanLo) || !LIT(&m, e, "..")
     || !get_int(&m, e, &t.chanHi) ) return P_CUT;
  }else if( LIT(&m, e, " time ") ){
    if( !get_double(&m, e, &t.time) ) return P_CUT;
  }
  return emit_tuning(p, x, &t, zMsg, e);
}

/* Case-insensitive test of the lowercase literal zLit at p. */
static int ci_at(const char *p, const char *e, const char *zLit, size_t n){
  size_t i;
  if( (size_t)(e-p)<n ) return 0;
  for(i=0; i<n; i++){
    char c = p[i];
    if( c>='A' && c<='Z' ) c = (char)(c - 'A' + 'a');
    if( c!=zLit[i] ) return 0;
  }
  return 1;
}
#define CI(p, e, s) ci_at(p, e, s, sizeof(s)-1)

/*
** Does an INFO message read like a (downgraded) warning?  Words:
** fail, error, refused, timed out, timeout, exceeded, unable, mismatch.
*/
static int looks_like_warning(const char *m, const char *e){
  const char *p;
  for(p=m; p<e; p++){
    switch( *p ){
      case 'f': case 'F':
        if( CI(p, e, "fail") ) return 1;
        break;
      case 'e': case 'E':
        if( CI(p, e, "error") || CI(p, e, "exceeded") ) return 1;
        break;
      case 'r': case 'R':
        if( CI(p, e, "refused") ) return 1;
        break;
      case 't': case 'T':
        if( CI(p, e, "timed out") || CI(p, e, "timeout") ) return 1;
        break;
      case 'u': case 'U':
        if( CI(p, e, "unable") ) return 1;
        break;
      case 'm': case 'M':
        if( CI(p, e, "mismatch") ) return 1;
        break;
      default:
        break;
    }
  }
  return 0;
}

/* "NCCL_<NAME> set by environment to <value>": a setting, even when
** its name holds a warning word (NCCL_IB_TIMEOUT, ...). */
static int is_env_note(const char *m, const char *e){
  const char *q = m;
  if( !LIT(&q, e, "NCCL_") ) return 0;
  while( q<e && ((*q>='A' && *q<='Z') || is_digit(*q) || *q=='_') ) q++;
  return STARTS(q, e, " set by environment to ");
}

/* "<file>:<line> -> <n>" (NCCLCHECK error trace printed at INFO). */
static int is_error_trace(const char *m, const char *e, size_t *pnFile,
                          int *pLine){
  const char *q = m, *t;
  int64_t v;
  while( q<e && *q!=' ' ) q++;
  if( !is_srcline(m, q, pnFile, pLine) ) return 0;
  t = q;
  if( !LIT(&t, e, " -> ") || !get_i64(&t, e, &v) ) return 0;
  return t==e;
}

static int emit_warn(NcclParser *p, const NcclPrefix *x, int bDown,
                     const char *zFile, size_t nFile, int line,
                     const char *m, const char *e){
  NcclWarn w;
  w.bDowngraded = bDown;
  copy_fixed(w.zFile, sizeof(w.zFile), zFile ? zFile : "", nFile);
  w.line = line;
  w.zText = scratch(p, m, e);
  p->pStats->nRec[NCCL_REC_WARN]++;
  if( p->pSink->xWarn==0 ) return P_OK;
  return cbres(p, p->pSink->xWarn(p->ctx, x, &w));
}

/* Tuning table row: blanks, letters and blanks, then '|'. */
static int is_table_row(const char *m, const char *e){
  skip_sp(&m, e);
  if( m>=e || !is_alpha(*m) ) return 0;
  while( m<e && (is_alpha(*m) || *m==' ') ) m++;
  return m<e && *m=='|' && m[-1]==' ';
}

/*
** Classify and parse one message [m, e).  Returns P_OK, P_NOMATCH
** (an NCCL line that is no record), P_CUT (recognised but malformed), or
** a negative callback result.
*/
/* "NVLS comm 0x... headRank N": an NVLS connection (q after "comm "). */
static int parse_nvls_conn(NcclParser *p, const NcclPrefix *x, const char *q,
                           const char *e){
  NcclConn c;
  conn_init(&c);
  if( !get_ptr(&q, e, &c.comm) ) return P_CUT;
  c.kind = NCCL_CONN_NVLS;
  copy_fixed(c.zVia, sizeof(c.zVia), "NVLS", 4);
  c.commHint = hint_get(p, x);
  if( LIT(&q, e, " headRank ") && !get_int(&q, e, &c.rank) ){
    return P_CUT;
  }
  p->pStats->nRec[NCCL_REC_CONN]++;
  if( p->pSink->xConn==0 ) return P_OK;
  return cbres(p, p->pSink->xConn(p->ctx, x, &c));
}

/* Not decided by the first word: dispatch goes on. */
#define P_NEXT (-1)

/* Messages known by their first word m[0..nw) (q just after it): channel
** and tree layouts, versions, timings, communicator lines.  Returns a P_*
** code, or P_NEXT when the word decides nothing. */
static int dispatch_word(NcclParser *p, const NcclPrefix *x, const char *m,
                         size_t nw, const char *q, const char *e){
  switch( nw ){
    case 4:
      if( memcmp(m, "comm", 4)==0 && q<e && *q==' ' ){
        return parse_comm(p, x, "", 0, m, e);
      }
      if( memcmp(m, "Ring", 4)==0 && LIT(&q, e, " ") ){
        return parse_channel(p, x, m, q, e, 1);
      }
      if( memcmp(m, "Tree", 4)==0 && LIT(&q, e, " ") ){
        NcclChannel c;
        chan_init(&c, NCCL_CHAN_TREE);
        if( !get_int(&q, e, &c.channel) || !LIT(&q, e, " : ") ){
          return P_NOMATCH;
        }
        return emit_channel(p, x, &c, m, e);
      }
      if( memcmp(m, "NCCL", 4)==0 && LIT(&q, e, " version ") ){
        return parse_version(p, x, q, e, 0);
      }
      if( memcmp(m, "NVLS", 4)==0 ){
        if( LIT(&q, e, " Trees") ){
          NcclChannel c;
          chan_init(&c, NCCL_CHAN_NVLS_TREES);
          return emit_channel(p, x, &c, m, e);
        }
        if( LIT(&q, e, " comm ") ) return parse_nvls_conn(p, x, q, e);
      }
      if( memcmp(m, "Init", 4)==0 && LIT(&q, e, " timings") ){
        return parse_timing(p, x, NCCL_TIMING_INIT, q, e);
      }
      break;
    case 5:
      if( memcmp(m, "Trees", 5)==0 && q<e && *q==' ' ){
        NcclChannel c;
        const char *r;
        chan_init(&c, NCCL_CHAN_TREES);
        c.nChannels = 0;
        for(r=q; r<e; r++){ if( *r=='[' ) c.nChannels++; }
        return emit_channel(p, x, &c, m, e);
      }
      break;
    case 7:
      if( memcmp(m, "Channel", 7)==0 && LIT(&q, e, " ") ){
        return parse_channel(p, x, m, q, e, 0);
      }
      if( memcmp(m, "CollNet", 7)==0 && LIT(&q, e, " ") ){
        return parse_collnet(p, x, q, e);
      }
      break;
    case 9:
      if( memcmp(m, "Connected", 9)==0
       && (STARTS(q, e, " all ") || STARTS(q, e, " NVLS tree")
           || STARTS(q, e, " binomial trees") || STARTS(q, e, " collnet")) ){
        NcclChannel c;
        chan_init(&c, NCCL_CHAN_CONNECTED);
        return emit_channel(p, x, &c, m, e);
      }
      if( memcmp(m, "Bootstrap", 9)==0 && LIT(&q, e, " timings") ){
        return parse_timing(p, x, NCCL_TIMING_BOOTSTRAP, q, e);
      }
      break;
    default:
      break;
  }
  return P_NEXT;
}

/* An INFO line that reads as an error (an error trace "file.cc:123 ..."
** or warning wording): a warning record.  P_NEXT when not. */
static int dispatch_info_warning(NcclParser *p, const NcclPrefix *x,
                                 const char *m, const char *e){
  size_t nFile;
  int line;
  if( x->level!=NCCL_LVL_INFO ) return P_NEXT;
  if( is_error_trace(m, e, &nFile, &line) ){
    return emit_warn(p, x, 1, m, nFile, line, m, e);
  }
  if( looks_like_warning(m, e) && !is_env_note(m, e) ){
    return emit_warn(p, x, 1, 0, 0, -1, m, e);
  }
  return P_NEXT;
}

static int dispatch(NcclParser *p, const NcclPrefix *x, const char *m,
                    const char *e){
  const char *w = m, *q;
  size_t nw;
  int rc;
  if( x->level==NCCL_LVL_WARN ){
    return emit_warn(p, x, 0, x->zSrcFile, strlen(x->zSrcFile), x->srcLine,
                     m, e);
  }
  while( w<e && is_alnum(*w) ) w++;
  nw = (size_t)(w-m);
  q = w;
  if( nw>0 && q<e && *q==':' ){
    if( LIT(&q, e, ": opCount ") ) return parse_coll(p, x, m, nw, q, e);
    if( q+2<e && q[1]==' ' && is_digit(q[2]) ){
      return parse_decision(p, x, m, m, nw, 0, q+2, e);
    }
  }
  if( nw>0 && LIT(&q, e, " [Symmetric]: ") ){
    return parse_decision(p, x, m, m, nw, 1, q, e);
  }
  q = w;
  if( (rc = dispatch_word(p, x, m, nw, q, e))!=P_NEXT ) return rc;
  if( nw>4 && memcmp(m, "nccl", 4)==0 && STARTS(q, e, " comm ") ){
    return parse_comm(p, x, m, nw, q+1, e);
  }
  if( nw>0 && is_digit(m[0]) ){
    const char *r = m;
    int64_t v;
    if( get_i64(&r, e, &v) && r==w ){
      if( STARTS(r, e, " coll channels") ) return parse_counts(p, x, m, m, e);
      if( STARTS(r, e, " Bytes -> ") ){
        return parse_decision(p, x, m, "", 0, 0, m, e);
      }
    }
  }
  if( is_table_row(m, e) ){
    NcclTuning t;
    tune_init(&t, NCCL_TUNE_TABLE);
    return emit_tuning(p, x, &t, m, e);
  }
  if( (rc = dispatch_info_warning(p, x, m, e))!=P_NEXT ) return rc;
  /* a collective record whose operation name is damaged ("All"Reduce",
  ** invalid bytes): malformed, not just another INFO line */
  if( memmem(m, (size_t)(e-m), ": opCount ", 10) ) return P_CUT;
  return P_NOMATCH;
}

/* ------------------------------------------------------ line driver */

static void remember_host(NcclParser *p, const NcclPrefix *x){
  size_t n = strlen(x->zHost);
  int i;
  KnownHost *h;
  for(i=0; i<p->nKnown; i++){
    h = &p->aKnown[i];
    if( h->pid==x->pid && h->n==n && memcmp(h->z, x->zHost, n)==0 ) return;
  }
  if( p->nKnown<NKNOWN ){
    h = &p->aKnown[p->nKnown++];
  }else{
    h = &p->aKnown[p->iKnown];
    p->iKnown = (p->iKnown+1) % NKNOWN;
  }
  memcpy(h->z, x->zHost, n+1);
  h->n = n;
  h->pid = x->pid;
}

/* Note a warning on line lineno (the first one's line is kept). */
static void warn_line(NcclParser *p, int64_t lineno){
  if( p->pStats->firstWarnLine==0 ) p->pStats->firstWarnLine = lineno;
}

/* Result of dispatch() to stats; returns the callback's non-zero result
** or 0.  A segment is either cut (bCut: another prefix followed it) or,
** if complete but unparseable, malformed: never both, so cut +
** malformed is the number of damaged segments. */
static int account(NcclParser *p, int rc, int bCut, int64_t lineno){
  if( bCut ){
    p->pStats->nCut++;
    p->pStats->nDamaged++;
    warn_line(p, lineno);
  }else if( rc==P_CUT ){
    malformed(p, lineno);
    p->pStats->nDamaged++;
    warn_line(p, lineno);
  }
  if( rc==P_STOP ) return p->cbRc;
  if( rc==P_NOMATCH ) p->pStats->nOther++;
  return 0;
}

/* Prefix-less "NCCL version ..." (possibly after a launcher prefix).
** Returns 1 if the line was one (*pRc gets the callback result), else 0. */
static int bare_version(NcclParser *p, const char *z, const char *e,
                        int64_t lineno, int bTrunc, int *pRc){
  const char *k = memmem(z, (size_t)(e-z), "NCCL version ", 13);
  NcclPrefix x;
  int rc;
  if( k==0 || !is_launcher(z, k) ) return 0;
  memset(&x, 0, sizeof(x));
  x.lineno = lineno;
  x.level = NCCL_LVL_BARE;
  x.pid = x.tid = -1;
  x.dev = -1;
  x.srcLine = -1;
  x.bTrunc1023 = bTrunc;
  x.tagRank = -1;
  rc = parse_version(p, &x, k+13, e, 1);
  if( rc==P_NOMATCH ) return 0;
  *pRc = account(p, rc, 0, lineno);
  return 1;
}

/* The record prefix of segment s on line lineno. */
static void seg_prefix(NcclPrefix *x, const Seg *s, int64_t lineno,
                       int bTrunc){
  x->lineno = lineno;
  x->level = s->level;
  copy_fixed(x->zHost, sizeof(x->zHost), s->zHost, s->nHost);
  x->pid = s->pid;
  x->tid = s->tid;
  x->dev = s->dev;
  copy_fixed(x->zTs, sizeof(x->zTs), s->zTs ? s->zTs : "", s->nTs);
  copy_fixed(x->zSrcFile, sizeof(x->zSrcFile), s->zSrc ? s->zSrc : "",
             s->nSrc);
  x->srcLine = s->srcLine;
  x->bTrunc1023 = bTrunc;
  x->bNoHost = s->bNoHost;
  x->tagRank = -1;
}

/*
** A "[N] " or "[Rank N] " tag at the start of an INFO message: NCCL's own
** lines use it for the communicator rank ("[Rank %d] <func> comm ... -
** Init START" from 2.29, "[%d] Created a QP" and friends), and some
** builds tag COLL records the same way ("[2] AllReduce: opCount ...").
** Returns N and moves *pm past the tag, or returns -1.
*/
static int rank_tag(const char **pm, const char *e){
  const char *q = *pm;
  int v;
  if( !LIT(&q, e, "[") ) return -1;
  LIT(&q, e, "Rank ");
  if( q>=e || !is_digit(*q) || !get_int(&q, e, &v) ) return -1;
  if( !LIT(&q, e, "] ") ) return -1;
  *pm = q;
  return v;
}

/*
** Parse one physical line (n bytes at z, no '\n'): split it into prefixed
** segments, dispatch each, update the stats.  Returns 0, or the non-zero
** result of a callback (the rest of the line is then not parsed).
*/
static int parse_line(NcclParser *p, const char *z, size_t n,
                      int64_t lineno){
  const char *e = z+n, *lo;
  NcclStats *st = p->pStats;
  Seg cur, nxt;
  int have, first = 1, rc = 0, bTrunc;
  NcclPrefix x;
  st->nLines++;
  if( n>NCCL_LINE_CAP ){
    st->nTruncated++;
    warn_line(p, lineno);
    e = z + NCCL_LINE_CAP;
  }
  if( e>z && e[-1]=='\r' ) e--;
  bTrunc = (e-z)==NCCL_NCCL_LINE_MAX;
  {
    const char *b = z;
    while( b<e && (*b==' ' || *b=='\t') ) b++;
    if( b==e ){ st->nBlank++; return 0; }
  }
  have = find_seg(p, z, e, &cur);
  if( !have ){
    if( !bare_version(p, z, e, lineno, bTrunc, &rc) ){
      st->nSkipped++;
      return 0;
    }
    st->nNcclLines++;
    if( bTrunc ) st->nTrunc1023++;
    return rc;
  }
  st->nNcclLines++;
  if( bTrunc ) st->nTrunc1023++;
  while( have ){
    const char *segEnd;
    lo = cur.zMsg;
    have = find_seg(p, lo, e, &nxt);
    segEnd = have ? nxt.zStart : e;
    if( segEnd<cur.zMsg ) segEnd = cur.zMsg;
    st->nSegments++;
    p->nPrefixed++;
    seg_prefix(&x, &cur, lineno, bTrunc);
    x.bGlued = first ? !cur.bLauncher : 0;
    x.bCut = have;
    if( x.bGlued ) st->nGlued++;
    if( first && !x.bGlued && !x.bNoHost ) remember_host(p, &x);
    {
      const char *m = cur.zMsg, *me = segEnd;
      rtrim(m, &me);
      if( x.level==NCCL_LVL_INFO ) x.tagRank = rank_tag(&m, me);
      rc = account(p, dispatch(p, &x, m, me), x.bCut, lineno);
    }
    if( rc ) return rc;
    cur = nxt;
    first = 0;
  }
  return 0;
}

/* ------------------------------------------------------- public API */

NcclParser *parse_nccl_new(const NcclSink *pSink, void *ctx,
                            NcclStats *pStats){
  NcclParser *p = xcalloc(1, sizeof(*p));
  p->pSink = pSink;
  p->ctx = ctx;
  p->pStats = pStats ? pStats : &p->local;
  memset(p->pStats, 0, sizeof(*p->pStats));
  buf_init(&p->text);
  p->verMajor = p->verMinor = -1;
  return p;
}

int parse_nccl_line(NcclParser *p, const char *z, size_t n, int64_t lineno){
  return parse_line(p, z, n, lineno);
}

int parse_nccl_finish(NcclParser *p, PfError *pErr){
  if( p->nPrefixed==0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "no NCCL INFO/WARN line found");
    return 1;
  }
  return 0;
}

void parse_nccl_free(NcclParser *p){
  if( p==0 ) return;
  buf_free(&p->text);
  free(p);
}

int parse_nccl_file(const char *zPath, const NcclSink *pSink, void *ctx,
                    NcclStats *pStats, PfError *pErr){
  FILE *f = fopen(zPath, "rb");
  NcclParser *p;
  char *buf;
  size_t nHave = 0;
  int64_t lineno = 0;
  int discarding = 0, eof = 0, rc = 0;
  if( f==0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot open: %s", strerror(errno));
    return 1;
  }
  p = parse_nccl_new(pSink, ctx, pStats);
  buf = xmalloc(READ_BUF);
  while( !eof && rc==0 ){
    int failed = fault_input_read_fails();
    size_t nRead = failed ? 0 : fread(buf+nHave, 1, READ_BUF-nHave, f);
    char *s = buf, *end, *nl;
    if( nRead==0 ){
      if( failed || ferror(f) ){
        pf_error_set(pErr, ERRPOS_NONE, 0, "read error: %s",
                     strerror(errno));
        rc = 1;
        break;
      }
      eof = 1;
    }
    nHave += nRead;
    end = buf + nHave;
    while( rc==0 && (nl = memchr(s, '\n', (size_t)(end-s)))!=0 ){
      if( discarding ){
        discarding = 0;       /* tail of an over-long line: dropped */
      }else{
        rc = parse_line(p, s, (size_t)(nl-s), ++lineno);
      }
      s = nl+1;
    }
    if( rc ) break;
    nHave = (size_t)(end-s);
    if( eof ){
      if( nHave && !discarding ) rc = parse_line(p, s, nHave, ++lineno);
      break;
    }
    if( nHave>NCCL_LINE_CAP ){
      if( !discarding ) rc = parse_line(p, s, nHave, ++lineno);
      discarding = 1;
      nHave = 0;
    }else if( nHave ){
      memmove(buf, s, nHave);
    }
  }
  free(buf);
  fclose(f);
  if( rc==0 && !pErr->set ){
    rc = parse_nccl_finish(p, pErr);
  }else if( rc && !pErr->set ){
    pf_error_set(pErr, ERRPOS_LINE, lineno, "parse stopped by the consumer");
  }
  parse_nccl_free(p);
  return rc;
}

int parse_nccl_sniff(const char *buf, size_t n){
  const char *e = buf+n, *k = buf;
  NcclParser dummy;
  memset(&dummy, 0, sizeof(dummy));
  while( k<e ){
    const char *lo, *le;
    Seg s;
    k = memmem(k, (size_t)(e-k), "NCCL ", 5);
    if( k==0 ) return 0;
    lo = k;
    while( lo>buf && lo[-1]!='\n' ) lo--;
    le = memchr(k, '\n', (size_t)(e-k));
    if( le==0 ) le = e;
    if( check_prefix(&dummy, lo, k, le, &s)
     && (s.level==NCCL_LVL_INFO || s.level==NCCL_LVL_WARN) ){
      return 1;
    }
    k += 5;
  }
  return 0;
}
