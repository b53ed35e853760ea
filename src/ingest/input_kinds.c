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

/* A Kineto / Chrome trace: an object with "traceEvents", or the legacy
** exporter's bare array of events (with "ph"). */
static int trace_sniff(const char *buf, size_t n){
  int c = input_kind_first_byte(buf, n);
  return (c=='{' && contains(buf, n, "\"traceEvents\""))
      || (c=='[' && contains(buf, n, "\"ph\""));
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
