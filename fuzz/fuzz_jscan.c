/*
** fuzz_jscan.c — libFuzzer harness for the streaming JSON scanner
** (src/input/jscan.c).
**
** The input is fed to jscan_new()/jscan_feed()/jscan_finish() in two or
** three chunks, split at points derived from the input's first and last
** bytes, so tokens that span chunk boundaries are exercised.  The first
** byte's low bit also switches jscan_allow_control().  Every callback
** touches every byte it is handed (strings, keys, numbers), and
** jscan_offset()/jscan_error() are read after the scan.
**
** Build and run (see fuzz/README.md):
**   CC=clang cmake -S . -B build-fuzz -DPROFAN_FUZZ=ON
**   cmake --build build-fuzz --target fuzz_jscan
**   ./build-fuzz/fuzz_jscan -max_total_time=60 CORPUS_DIR
** or simply scripts/fuzz.sh.
*/
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "input/jscan.h"
#include "fuzz_common.h"

typedef struct Ctx { Jscan *p; int64_t n; } Ctx;

static int cb_common(Ctx *c){
  c->n++;
  fuzz_touch_i64(jscan_offset(c->p));
  return 1;
}
static int cb_null(void *ctx){ return cb_common(ctx); }
static int cb_bool(void *ctx, int b){
  fuzz_touch_i64(b);
  return cb_common(ctx);
}
static int cb_number(void *ctx, const char *z, size_t n){
  fuzz_touch(z, n);
  return cb_common(ctx);
}
static int cb_string(void *ctx, const unsigned char *z, size_t n){
  fuzz_touch(z, n);
  return cb_common(ctx);
}
static int cb_start_map(void *ctx){ return cb_common(ctx); }
static int cb_map_key(void *ctx, const unsigned char *z, size_t n){
  fuzz_touch(z, n);
  return cb_common(ctx);
}
static int cb_end_map(void *ctx){ return cb_common(ctx); }
static int cb_start_array(void *ctx){ return cb_common(ctx); }
static int cb_end_array(void *ctx){ return cb_common(ctx); }

static const JscanCallbacks callbacks = {
  cb_null, cb_bool, cb_number, cb_string, cb_start_map, cb_map_key,
  cb_end_map, cb_start_array, cb_end_array
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  Ctx c;
  size_t cut1, cut2;
  int rc;
  memset(&c, 0, sizeof(c));
  c.p = jscan_new(&callbacks, &c);
  if( c.p==NULL ) return 0;
  if( size>0 ) jscan_allow_control(c.p, data[0] & 1);
  /* two split points from the input itself: deterministic */
  cut1 = size ? (data[0] * 131u + data[size-1]) % (size+1) : 0;
  cut2 = size ? (data[size/2] * 257u + size) % (size+1) : 0;
  if( cut1>cut2 ){ size_t t = cut1; cut1 = cut2; cut2 = t; }
  /* chunks are passed as separate heap-less slices of the input; NULL
  ** with n==0 is allowed by the API */
  rc = jscan_feed(c.p, cut1 ? data : NULL, cut1);
  if( rc==JSCAN_OK ) rc = jscan_feed(c.p, data+cut1, cut2-cut1);
  if( rc==JSCAN_OK ) rc = jscan_feed(c.p, data+cut2, size-cut2);
  rc = jscan_finish(c.p);
  fuzz_touch_i64(rc);
  fuzz_touch_i64(jscan_offset(c.p));
  fuzz_touch_str(jscan_error(c.p));
  jscan_free(c.p);
  return 0;
}
