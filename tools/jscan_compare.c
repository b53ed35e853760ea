/*
** jscan_compare.c — check src/jscan.c against yajl 2.1 and time both.
**
** Not part of the profan build; a developer tool for the "parse" stage
** (jscan replaces yajl in parse_trace.c).  Build:
**   gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Isrc src/jscan.c \
**       tools/jscan_compare.c -lyajl -lz -o /tmp/jscan_compare
**
** Usage: jscan_compare [-m] [-c N]... [-t REPS] FILE...
**        jscan_compare -F COUNT [-s SEED]
**
** FILE mode: each file (plain or gzip, read whole through zlib) is parsed
** once by yajl (yajl_dont_validate_strings, yajl_number, 256 KiB chunks)
** and by jscan once per chunk size (-c, repeatable; default 1, 7, 4096
** and 262144, sizes below 4096 skipped for files over 64 MiB).  Every
** event is serialized (type, then the bytes) into a running 64-bit hash;
** the event count, the hash and the final status must agree.  Error
** message and offset of both are printed when the document is invalid.
** -m maps bytes < 0x20 to spaces first, as parse_trace.c does.
** -t REPS times both parsers from memory (best of REPS, 256 KiB chunks),
** once with the hashing callbacks and once with counting-only callbacks
** (closest to the raw parser cost), and prints MB/s (1 MB = 1e6 bytes).
**
** -F mode: COUNT random small documents (valid ones and mutated ones) are
** parsed whole by yajl and in random chunk splits by jscan; accept/reject
** and the events delivered must agree (messages are compared and counted,
** but may differ where jscan.c documents it).
**
** Exit status 0 when everything agreed.
**
** Heap: the file image (one malloc per file) and the parser handles; all
** freed before the next file.
*/
#include "jscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include <yajl/yajl_parse.h>

/* ------------------------------------------------------------ events */

typedef struct Sink {
  uint64_t h;        /* running hash of the events */
  uint64_t nEvent;
  uint64_t nByte;
} Sink;

#define K1 0x9E3779B97F4A7C15ULL
#define K2 0xC2B2AE3D27D4EB4FULL

static uint64_t mix(uint64_t h, uint64_t v){
  h ^= v * K2;
  h = (h << 31) | (h >> 33);
  return h * K1;
}

/* Add one event of type t with payload z[0..n) to the hash. */
static void ev(Sink *s, int t, const void *z, size_t n){
  const unsigned char *a = z;
  uint64_t h = mix(s->h, ((uint64_t)t << 56) ^ n);
  while( n>=8 ){
    uint64_t w;
    memcpy(&w, a, 8);
    h = mix(h, w);
    a += 8;
    n -= 8;
  }
  if( n ){
    uint64_t w = 0;
    memcpy(&w, a, n);
    h = mix(h, w ^ 0xFF);
  }
  s->h = h;
  s->nEvent++;
}

static int h_null(void *c){ ev(c, 1, "", 0); return 1; }
static int h_bool(void *c, int b){ ev(c, b ? 2 : 3, "", 0); return 1; }
static int h_number(void *c, const char *z, size_t n){
  ev(c, 4, z, n); return 1;
}
static int h_string(void *c, const unsigned char *z, size_t n){
  ev(c, 5, z, n); return 1;
}
static int h_start_map(void *c){ ev(c, 6, "", 0); return 1; }
static int h_key(void *c, const unsigned char *z, size_t n){
  ev(c, 7, z, n); return 1;
}
static int h_end_map(void *c){ ev(c, 8, "", 0); return 1; }
static int h_start_array(void *c){ ev(c, 9, "", 0); return 1; }
static int h_end_array(void *c){ ev(c, 10, "", 0); return 1; }

/* Counting-only callbacks (timing of the parser itself). */
static int c_null(void *c){ ((Sink*)c)->nEvent++; return 1; }
static int c_bool(void *c, int b){ ((Sink*)c)->nEvent += 1+(b&0); return 1; }
static int c_number(void *c, const char *z, size_t n){
  (void)z; ((Sink*)c)->nEvent++; ((Sink*)c)->nByte += n; return 1;
}
static int c_string(void *c, const unsigned char *z, size_t n){
  (void)z; ((Sink*)c)->nEvent++; ((Sink*)c)->nByte += n; return 1;
}
static int c_start_map(void *c){ ((Sink*)c)->nEvent++; return 1; }
static int c_key(void *c, const unsigned char *z, size_t n){
  (void)z; ((Sink*)c)->nEvent++; ((Sink*)c)->nByte += n; return 1;
}
static int c_end_map(void *c){ ((Sink*)c)->nEvent++; return 1; }
static int c_start_array(void *c){ ((Sink*)c)->nEvent++; return 1; }
static int c_end_array(void *c){ ((Sink*)c)->nEvent++; return 1; }

static const yajl_callbacks yHash = {
  h_null, h_bool, NULL, NULL, h_number, h_string,
  h_start_map, h_key, h_end_map, h_start_array, h_end_array
};
static const yajl_callbacks yCount = {
  c_null, c_bool, NULL, NULL, c_number, c_string,
  c_start_map, c_key, c_end_map, c_start_array, c_end_array
};
static const JscanCallbacks jHash = {
  h_null, h_bool, h_number, h_string,
  h_start_map, h_key, h_end_map, h_start_array, h_end_array
};
static const JscanCallbacks jCount = {
  c_null, c_bool, c_number, c_string,
  c_start_map, c_key, c_end_map, c_start_array, c_end_array
};

/* ------------------------------------------------------------ parsers */

typedef struct Result {
  int ok;              /* 1 valid document */
  Sink s;
  char zMsg[200];      /* error message ("" when ok) */
  long long iOff;      /* error offset as parse_trace.c computes it */
} Result;

/* Parse a[0..n) with yajl in chunks of `chunk`.  The offset is what
** parse_trace.c reports: chunk base + bytes consumed - 1. */
static void run_yajl(const unsigned char *a, size_t n, size_t chunk,
                     const yajl_callbacks *cb, Result *r){
  yajl_handle h;
  size_t i = 0;
  yajl_status st = yajl_status_ok;
  memset(r, 0, sizeof(*r));
  h = yajl_alloc(cb, NULL, &r->s);
  yajl_config(h, yajl_dont_validate_strings, 1);
  while( i<n ){
    size_t m = n-i < chunk ? n-i : chunk;
    st = yajl_parse(h, a+i, m);
    if( st!=yajl_status_ok ) break;
    i += m;
  }
  if( st==yajl_status_ok ){
    st = yajl_complete_parse(h);
    i = n;
  }
  r->ok = st==yajl_status_ok;
  if( !r->ok ){
    unsigned char *z = yajl_get_error(h, 0, NULL, 0);
    size_t k = yajl_get_bytes_consumed(h);
    snprintf(r->zMsg, sizeof(r->zMsg), "%s", (char*)z);
    r->zMsg[strcspn(r->zMsg, "\n")] = 0;
    yajl_free_error(h, z);
    r->iOff = (long long)i + (k>0 ? (long long)k-1 : 0);
  }
  yajl_free(h);
}

/* Parse a[0..n) with jscan; chunk sizes come from aChunk[] in turn
** (cycled), so a split pattern can vary. */
static void run_jscan(const unsigned char *a, size_t n, const size_t *aChunk,
                      int nChunk, const JscanCallbacks *cb, Result *r){
  Jscan *x;
  size_t i = 0;
  int k = 0, rc = JSCAN_OK;
  memset(r, 0, sizeof(*r));
  x = jscan_new(cb, &r->s);
  while( i<n && rc==JSCAN_OK ){
    size_t c = aChunk[k++ % nChunk];
    size_t m = n-i < c ? n-i : c;
    rc = jscan_feed(x, a+i, m);
    i += m;
  }
  if( rc==JSCAN_OK ) rc = jscan_finish(x);
  r->ok = rc==JSCAN_OK;
  if( !r->ok ){
    snprintf(r->zMsg, sizeof(r->zMsg), "%s", jscan_error(x));
    r->iOff = (long long)jscan_offset(x);
  }
  jscan_free(x);
}

static double now(void){
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec*1e-9;
}

/* Read a whole file (gzip or plain).  Caller frees *pa. */
static int load(const char *zPath, unsigned char **pa, size_t *pn){
  gzFile g = gzopen(zPath, "rb");
  size_t n = 0, nAlloc = 1<<20;
  unsigned char *a = malloc(nAlloc);
  if( g==NULL || a==NULL ){
    fprintf(stderr, "%s: cannot open\n", zPath);
    free(a);
    if( g ) gzclose(g);
    return 1;
  }
  gzbuffer(g, 1<<20);
  for(;;){
    int got;
    if( nAlloc-n < (1<<20) ){
      unsigned char *aNew;
      nAlloc *= 2;
      aNew = realloc(a, nAlloc);
      if( aNew==NULL ){ free(a); gzclose(g); return 1; }
      a = aNew;
    }
    got = gzread(g, a+n, 1<<20);
    if( got<0 ){
      fprintf(stderr, "%s: read error\n", zPath);
      free(a);
      gzclose(g);
      return 1;
    }
    if( got==0 ) break;
    n += (size_t)got;
  }
  gzclose(g);
  *pa = a;
  *pn = n;
  return 0;
}

/* ------------------------------------------------------------ file mode */

static int compare_file(const char *zPath, int bMap, const size_t *aChunk,
                        int nChunk, int nRep){
  unsigned char *a;
  size_t n;
  Result ry, rj;
  int nBad = 0;
  const char *zBase = strrchr(zPath, '/') ? strrchr(zPath, '/')+1 : zPath;
  if( load(zPath, &a, &n) ) return 1;
  if( bMap ){
    for(size_t i=0; i<n; i++) if( a[i]<0x20 ) a[i] = ' ';
  }
  run_yajl(a, n, 262144, &yHash, &ry);
  printf("%s: %zu bytes, %llu events, %s%s%s\n", zBase, n,
         (unsigned long long)ry.s.nEvent, ry.ok ? "valid" : "invalid",
         ry.ok ? "" : ": yajl: ", ry.zMsg);
  for(int c=0; c<nChunk; c++){
    if( aChunk[c]<4096 && n>(64u<<20) ) continue;
    run_jscan(a, n, &aChunk[c], 1, &jHash, &rj);
    if( rj.ok!=ry.ok || rj.s.nEvent!=ry.s.nEvent || rj.s.h!=ry.s.h ){
      nBad++;
      printf("  chunk %zu: MISMATCH jscan %s %llu events hash %016llx"
             " / yajl %llu events hash %016llx\n", aChunk[c],
             rj.ok ? "ok" : rj.zMsg, (unsigned long long)rj.s.nEvent,
             (unsigned long long)rj.s.h, (unsigned long long)ry.s.nEvent,
             (unsigned long long)ry.s.h);
    }else{
      printf("  chunk %zu: identical (hash %016llx)%s%s", aChunk[c],
             (unsigned long long)rj.s.h, rj.ok ? "" : " jscan: ",
             rj.ok ? "" : rj.zMsg);
      if( !rj.ok ) printf(" at %lld (yajl at %lld)", rj.iOff, ry.iOff);
      printf("\n");
    }
  }
  if( nRep>0 ){
    double aBest[4] = {1e9, 1e9, 1e9, 1e9};
    size_t c = 262144;
    for(int r=0; r<nRep; r++){
      double t;
      t = now(); run_yajl(a, n, c, &yHash, &ry); t = now()-t;
      if( t<aBest[0] ) aBest[0] = t;
      t = now(); run_jscan(a, n, &c, 1, &jHash, &rj); t = now()-t;
      if( t<aBest[1] ) aBest[1] = t;
      t = now(); run_yajl(a, n, c, &yCount, &ry); t = now()-t;
      if( t<aBest[2] ) aBest[2] = t;
      t = now(); run_jscan(a, n, &c, 1, &jCount, &rj); t = now()-t;
      if( t<aBest[3] ) aBest[3] = t;
    }
    printf("  time (best of %d): hashing yajl %.3fs %.0f MB/s, jscan %.3fs"
           " %.0f MB/s (x%.2f); counting yajl %.3fs %.0f MB/s, jscan"
           " %.3fs %.0f MB/s (x%.2f)\n", nRep,
           aBest[0], n/aBest[0]/1e6, aBest[1], n/aBest[1]/1e6,
           aBest[0]/aBest[1],
           aBest[2], n/aBest[2]/1e6, aBest[3], n/aBest[3]/1e6,
           aBest[2]/aBest[3]);
  }
  free(a);
  return nBad;
}

/* ------------------------------------------------------------ fuzz mode */

static uint64_t rngState = 88172645463325252ULL;
static unsigned rnd(unsigned n){
  rngState ^= rngState << 13;
  rngState ^= rngState >> 7;
  rngState ^= rngState << 17;
  return (unsigned)(rngState % n);
}

typedef struct Doc { char a[4096]; size_t n; } Doc;

static void put(Doc *d, const char *z){
  size_t k = strlen(z);
  if( d->n+k < sizeof(d->a) ){
    memcpy(d->a+d->n, z, k);
    d->n += k;
  }
}

static void ws(Doc *d){
  static const char *az[] = {"", "", "", " ", "\n  ", "\t", "\r\n"};
  put(d, az[rnd(7)]);
}

static void gen_string(Doc *d){
  static const char *az[] = {
    "a", "xyz", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t",
    "\\u0041", "\\u00e9", "\\u20AC", "\\ud83d\\ude00", "\\u0000", "\xc3\xa9",
    "aten::mm", " ", "\xff", "0123456789abcdef0123456789"};
  int k = (int)rnd(6);
  put(d, "\"");
  while( k-- > 0 ) put(d, az[rnd(20)]);
  put(d, "\"");
}

static void gen_value(Doc *d, int depth){
  static const char *azNum[] = {
    "0", "-0", "1", "-12", "3.25", "1e5", "1E+5", "-2.5e-3", "0.0",
    "1661203466290780.5", "123456789012345678901234567890"};
  unsigned k = rnd(depth>6 ? 6 : 8);
  ws(d);
  switch( k ){
    case 0: put(d, "null"); break;
    case 1: put(d, rnd(2) ? "true" : "false"); break;
    case 2: case 3: put(d, azNum[rnd(11)]); break;
    case 4: case 5: gen_string(d); break;
    case 6: {
      int m = (int)rnd(4);
      put(d, "[");
      for(int i=0; i<m; i++){
        if( i ){ ws(d); put(d, ","); }
        gen_value(d, depth+1);
      }
      ws(d);
      put(d, "]");
      break;
    }
    default: {
      int m = (int)rnd(4);
      put(d, "{");
      for(int i=0; i<m; i++){
        if( i ){ ws(d); put(d, ","); }
        ws(d);
        gen_string(d);
        ws(d);
        put(d, ":");
        gen_value(d, depth+1);
      }
      ws(d);
      put(d, "}");
      break;
    }
  }
  ws(d);
}

/* Does the document contain a \\u escape of a UTF-16 surrogate?  jscan
** and yajl decode lone surrogates differently (see jscan.c). */
static int has_surrogate(const Doc *d){
  for(size_t i=0; i+3<d->n; i++){
    if( d->a[i]=='\\' && d->a[i+1]=='u' && (d->a[i+2]|0x20)=='d'
     && strchr("89abcdefABCDEF", d->a[i+3])!=NULL ) return 1;
  }
  return 0;
}

static int fuzz(int nDoc, int bVerbose){
  static const char zAlpha[] = "{}[],:\"\\u0123456789abcdefeE+-.tfnrlsx/ \t";
  int nBad = 0, nErr = 0, nMsgSame = 0, nOffSame = 0, nSurr = 0, nTail = 0;
  for(int t=0; t<nDoc; t++){
    Doc d;
    Result ry, rj;
    size_t aChunk[4];
    int nMut = (int)rnd(4);
    d.n = 0;
    gen_value(&d, 0);
    for(int m=0; m<nMut && d.n>0; m++){
      size_t i = rnd((unsigned)d.n);
      char c = zAlpha[rnd(sizeof(zAlpha)-1)];
      switch( rnd(3) ){
        case 0: d.a[i] = c; break;
        case 1:
          memmove(d.a+i, d.a+i+1, d.n-i-1);
          d.n--;
          break;
        default:
          if( d.n+1<sizeof(d.a) ){
            memmove(d.a+i+1, d.a+i, d.n-i);
            d.a[i] = c;
            d.n++;
          }
          break;
      }
    }
    for(int i=0; i<4; i++) aChunk[i] = 1 + rnd(9);
    run_yajl((unsigned char*)d.a, d.n, d.n ? d.n : 1, &yHash, &ry);
    run_jscan((unsigned char*)d.a, d.n, aChunk, 4, &jHash, &rj);
    if( ry.ok==rj.ok && has_surrogate(&d) ){
      nSurr++;   /* only accept/reject must agree */
    }else if( ry.ok && !rj.ok && strcmp(rj.zMsg, "trailing garbage")==0
           && ((ry.s.nEvent==rj.s.nEvent && ry.s.h==rj.s.h)
               || has_surrogate(&d)) ){
      nTail++;   /* yajl bug: accepts a cut token after the value */
    }else if( ry.ok!=rj.ok || ry.s.nEvent!=rj.s.nEvent || ry.s.h!=rj.s.h ){
      nBad++;
      if( nBad<=20 ){
        printf("MISMATCH doc %d: yajl %s %llu ev / jscan %s %llu ev: %.*s\n",
               t, ry.ok ? "ok" : ry.zMsg, (unsigned long long)ry.s.nEvent,
               rj.ok ? "ok" : rj.zMsg, (unsigned long long)rj.s.nEvent,
               (int)d.n, d.a);
      }
    }else if( !ry.ok ){
      const char *z = strstr(ry.zMsg, "error: ");
      nErr++;
      z = z ? z+7 : ry.zMsg;
      if( strcmp(z, rj.zMsg)==0 ) nMsgSame++;
      else if( bVerbose ){
        printf("message: yajl '%s' at %lld / jscan '%s' at %lld: %.*s\n",
               z, ry.iOff, rj.zMsg, rj.iOff, (int)d.n, d.a);
      }
      if( ry.iOff==rj.iOff ) nOffSame++;
    }
  }
  printf("fuzz: %d documents, %d mismatches; known differences: %d lone"
         " surrogate docs, %d cut token after the value (yajl accepts);"
         " %d invalid: same message %d, same offset as parse_trace.c's"
         " yajl offset %d\n",
         nDoc, nBad, nSurr, nTail, nErr, nMsgSame, nOffSame);
  return nBad;
}

int main(int argc, char **argv){
  size_t aChunk[16];
  int nChunk = 0, nRep = 0, bMap = 0, nBad = 0, nFuzz = 0, bVerbose = 0;
  int i;
  for(i=1; i<argc && argv[i][0]=='-'; i++){
    if( strcmp(argv[i], "-m")==0 ) bMap = 1;
    else if( strcmp(argv[i], "-v")==0 ) bVerbose = 1;
    else if( strcmp(argv[i], "-c")==0 && i+1<argc && nChunk<16 ){
      aChunk[nChunk++] = (size_t)strtoull(argv[++i], NULL, 10);
    }else if( strcmp(argv[i], "-t")==0 && i+1<argc ) nRep = atoi(argv[++i]);
    else if( strcmp(argv[i], "-F")==0 && i+1<argc ) nFuzz = atoi(argv[++i]);
    else if( strcmp(argv[i], "-s")==0 && i+1<argc ){
      rngState = strtoull(argv[++i], NULL, 10)*2654435761ULL + 1;
    }else{
      fprintf(stderr, "usage: %s [-m] [-c N]... [-t REPS] FILE...\n"
                      "       %s -F COUNT [-s SEED]\n", argv[0], argv[0]);
      return 2;
    }
  }
  if( nFuzz>0 ) return fuzz(nFuzz, bVerbose) ? 1 : 0;
  if( nChunk==0 ){
    aChunk[0] = 1; aChunk[1] = 7; aChunk[2] = 4096; aChunk[3] = 262144;
    nChunk = 4;
  }
  for(; i<argc; i++) nBad += compare_file(argv[i], bMap, aChunk, nChunk, nRep);
  printf("%s\n", nBad ? "DIFFERENCES FOUND" : "all identical");
  return nBad ? 1 : 0;
}
