/*
** input_kinds.c — the table of input kinds (input_kinds.h has the
** checklist for adding one) and the sniff functions of the kinds.
**
** Pipeline position: "sniff".  A file's kind comes from its first bytes
** (after gzip decompression), never from its name: the kinds are tried in
** table order and the first whose sniff accepts the bytes wins.
*/
#include "ingest/input_kinds.h"
#include "comm/parse_nccl.h"
#include "input/jscan.h"

#include <string.h>

/* Case-sensitive search for zNeedle in buf[0..n). */
static int contains(const char *buf, size_t n, const char *zNeedle){
  return memmem(buf, n, zNeedle, strlen(zNeedle))!=NULL;
}

int input_kind_first_byte(const char *buf, size_t n){
  size_t i = 0;
  if( n>=3 && (unsigned char)buf[0]==0xef && (unsigned char)buf[1]==0xbb
      && (unsigned char)buf[2]==0xbf ) i = 3;          /* UTF-8 BOM */
  while( i<n && (buf[i]==' ' || buf[i]=='\n' || buf[i]=='\r'
                 || buf[i]=='\t') ){
    i++;
  }
  return i<n ? (unsigned char)buf[i] : -1;
}

/*
** The Chrome "JSON Array Format" (the legacy exporter's bare array,
** docs/formats.md §1.1) is told from other JSON arrays by its items: an
** object directly in the top array with a string "ph" and a number "ts" is
** a trace event.  EventScan reads the first bytes with jscan and stops at
** the first such object.
*/
typedef struct EventScan {
  int depth;          /* open containers; the top array is depth 1 */
  int key;            /* key of the current item: 1 ph, 2 ts, 0 other */
  int hasPh, hasTs;   /* of the object being read at depth 2 */
  int found;          /* an event was seen */
} EventScan;

/* A scalar: at depth 2 it is a value of an item's key. */
static int es_scalar(EventScan *s, int isStr, int isNum){
  if( s->depth==2 ){
    if( s->key==1 && isStr ) s->hasPh = 1;
    if( s->key==2 && isNum ) s->hasTs = 1;
  }
  return 1;
}
static int es_null(void *ctx){ return es_scalar(ctx, 0, 0); }
static int es_bool(void *ctx, int b){ (void)b; return es_scalar(ctx, 0, 0); }
static int es_number(void *ctx, const char *z, size_t n){
  (void)z; (void)n;
  return es_scalar(ctx, 0, 1);
}
static int es_string(void *ctx, const unsigned char *z, size_t n){
  (void)z; (void)n;
  return es_scalar(ctx, 1, 0);
}
static int es_open(void *ctx){
  EventScan *s = ctx;
  if( ++s->depth==2 ) s->hasPh = s->hasTs = 0;
  return 1;
}
static int es_close(void *ctx){
  EventScan *s = ctx;
  if( s->depth--==2 && s->hasPh && s->hasTs ){
    s->found = 1;
    return 0;                       /* stop: it is a trace */
  }
  return 1;
}
static int es_key(void *ctx, const unsigned char *z, size_t n){
  EventScan *s = ctx;
  if( s->depth==2 ){
    s->key = (n==2 && z[0]=='p' && z[1]=='h') ? 1
           : (n==2 && z[0]=='t' && z[1]=='s') ? 2 : 0;
  }
  return 1;
}

/* 1 when buf[0..n), the start of a JSON array, holds a trace event. */
static int array_has_event(const char *buf, size_t n){
  static const JscanCallbacks cb = {
    es_null, es_bool, es_number, es_string, es_open, es_key, es_close,
    es_open, es_close
  };
  EventScan s;
  Jscan *h;
  memset(&s, 0, sizeof(s));
  h = jscan_new(&cb, &s);
  if( h==NULL ) return 0;
  jscan_allow_control(h, 1);
  if( n>=3 && memcmp(buf, "\xef\xbb\xbf", 3)==0 ){ buf += 3; n -= 3; }
  jscan_feed(h, (const unsigned char*)buf, n);
  jscan_free(h);
  return s.found;
}

/* A Kineto / Chrome trace: an object with "traceEvents", or a bare array
** of events (the legacy exporter, Chrome's JSON Array Format). */
static int trace_sniff(const char *buf, size_t n){
  int c = input_kind_first_byte(buf, n);
  return (c=='{' && contains(buf, n, "\"traceEvents\""))
      || (c=='[' && contains(buf, n, "\"ph\"") && array_has_event(buf, n));
}

/* A pickle of protocol 2 or later: it starts with the PROTO opcode. */
static int pickle_sniff(const char *buf, size_t n){
  return n>0 && (unsigned char)buf[0]==0x80;
}

/* A flight-recorder dump written as JSON: an object with "version" and
** "entries" or "pg_config" (a trace, tried first, may have these too). */
static int fr_json_sniff(const char *buf, size_t n){
  return input_kind_first_byte(buf, n)=='{'
      && contains(buf, n, "\"version\"")
      && (contains(buf, n, "\"entries\"") || contains(buf, n, "\"pg_config\""));
}

const InputKind aInputKind[KIND_N] = {
  { KIND_UNKNOWN, "unknown", NULL, NULL, "" },
  { KIND_TRACE, "trace", trace_sniff, NULL, "trace" },
  /* a memory snapshot or a flight-recorder dump: load_pickle_file decides
  ** from the decoded document and sets run_file.kind */
  { KIND_PICKLE, "pickle", pickle_sniff, load_pickle_file,
    "snapshot flight_recorder" },
  { KIND_FR_JSON, "flight_recorder", fr_json_sniff, load_fr_json_file,
    "flight_recorder" },
  /* the strict check of parse_nccl.c: a line with an NCCL prefix */
  { KIND_NCCL_LOG, "nccl_log", parse_nccl_sniff, load_nccl_file,
    "nccl_log" },
};

FileKind input_kind_sniff(const char *buf, size_t n){
  for(int i=1; i<KIND_N; i++){
    if( aInputKind[i].xSniff(buf, n) ) return aInputKind[i].eKind;
  }
  return KIND_UNKNOWN;
}
