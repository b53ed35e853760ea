/*
** check_jscan.c — unit tests for jscan.c (streaming JSON scanner).
**
** Events are recorded as text ("{ k<a> n<1> s<x> [ ] t f z }", bytes
** outside printable ASCII as \xHH) and compared with the expected text;
** documents are fed whole, byte by byte and split at every position.
*/
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "input/jscan.h"

/* ------------------------------------------------------------ recorder */

typedef struct Rec {
  char z[8192];            /* event text */
  size_t n;
  int64_t aOff[256];       /* jscan_offset() at each event */
  int nEv;
  int stopAt;              /* stop (return 0) at this event number, 1-based */
  Jscan *x;                /* for jscan_offset() inside callbacks */
  const unsigned char *zIn;   /* input, to tell zero-copy strings */
  size_t nIn;
  int nZeroCopy;           /* strings/keys delivered inside zIn */
} Rec;

static void rec_put(Rec *r, const char *z, size_t n){
  if( r->n+n < sizeof(r->z) ){
    memcpy(r->z+r->n, z, n);
    r->n += n;
    r->z[r->n] = 0;
  }
}

/* One event: a tag, an optional payload in <>, then a space. */
static int rec_ev(Rec *r, const char *zTag, const unsigned char *z,
                  size_t n){
  rec_put(r, zTag, strlen(zTag));
  if( z ){
    rec_put(r, "<", 1);
    for(size_t i=0; i<n; i++){
      char a[8];
      if( z[i]>=0x20 && z[i]<0x7f && z[i]!='\\' ){
        rec_put(r, (const char*)&z[i], 1);
      }else{
        snprintf(a, sizeof(a), "\\x%02X", z[i]);
        rec_put(r, a, 4);
      }
    }
    rec_put(r, ">", 1);
    if( r->zIn && z>=r->zIn && z<r->zIn+r->nIn ) r->nZeroCopy++;
  }
  rec_put(r, " ", 1);
  if( r->nEv<256 && r->x ) r->aOff[r->nEv] = jscan_offset(r->x);
  r->nEv++;
  return r->nEv!=r->stopAt;
}

static int r_null(void *c){ return rec_ev(c, "z", NULL, 0); }
static int r_bool(void *c, int b){ return rec_ev(c, b ? "t" : "f", NULL, 0); }
static int r_number(void *c, const char *z, size_t n){
  return rec_ev(c, "n", (const unsigned char*)z, n);
}
static int r_string(void *c, const unsigned char *z, size_t n){
  return rec_ev(c, "s", z, n);
}
static int r_start_map(void *c){ return rec_ev(c, "{", NULL, 0); }
static int r_key(void *c, const unsigned char *z, size_t n){
  return rec_ev(c, "k", z, n);
}
static int r_end_map(void *c){ return rec_ev(c, "}", NULL, 0); }
static int r_start_array(void *c){ return rec_ev(c, "[", NULL, 0); }
static int r_end_array(void *c){ return rec_ev(c, "]", NULL, 0); }

static const JscanCallbacks recCb = {
  r_null, r_bool, r_number, r_string, r_start_map, r_key, r_end_map,
  r_start_array, r_end_array
};

/* Outcome of one scan. */
typedef struct Out {
  int rc;                  /* final status (feed or finish) */
  char zMsg[200];
  int64_t iOff;
} Out;

/* Scan z[0..n), split at the positions in aCut[0..nCut) (increasing), and
** call jscan_finish() unless a feed failed.  Events go to *r. */
static void scan_split(const char *z, size_t n, const size_t *aCut, int nCut,
                       Rec *r, Out *o){
  Jscan *x;
  size_t at = 0;
  int rc = JSCAN_OK;
  int stopAt = r->stopAt;
  memset(r, 0, sizeof(*r));
  r->stopAt = stopAt;
  x = jscan_new(&recCb, r);
  ck_assert_ptr_nonnull(x);
  r->x = x;
  r->zIn = (const unsigned char*)z;
  r->nIn = n;
  for(int i=0; i<=nCut && rc==JSCAN_OK; i++){
    size_t e = i<nCut ? aCut[i] : n;
    rc = jscan_feed(x, (const unsigned char*)z+at, e-at);
    at = e;
  }
  if( rc==JSCAN_OK ) rc = jscan_finish(x);
  o->rc = rc;
  snprintf(o->zMsg, sizeof(o->zMsg), "%s", jscan_error(x));
  o->iOff = jscan_offset(x);
  jscan_free(x);
}

static void scan_whole(const char *z, Rec *r, Out *o){
  scan_split(z, strlen(z), NULL, 0, r, o);
}

/* Scan byte by byte. */
static void scan_bytes(const char *z, size_t n, Rec *r, Out *o){
  size_t *aCut = malloc((n ? n : 1)*sizeof(size_t));
  for(size_t i=0; i<n; i++) aCut[i] = i;
  scan_split(z, n, aCut, n ? (int)n-1 : 0, r, o);
  free(aCut);
}

/* Expect z to scan to events zEv with JSCAN_OK, whole and byte by byte. */
static void expect_ok(const char *z, const char *zEv){
  Rec r;
  Out o;
  r.stopAt = 0;
  scan_whole(z, &r, &o);
  ck_assert_msg(o.rc==JSCAN_OK, "%s: rc %d %s at %lld", z, o.rc, o.zMsg,
                (long long)o.iOff);
  ck_assert_str_eq(r.z, zEv);
  scan_bytes(z, strlen(z), &r, &o);
  ck_assert_int_eq(o.rc, JSCAN_OK);
  ck_assert_str_eq(r.z, zEv);
}

/* Expect z to fail with message zMsg at offset iOff, whatever the
** chunking (whole, byte by byte, every 2-way split). */
static void expect_err(const char *z, const char *zMsg, int64_t iOff){
  Rec r;
  Out o;
  size_t n = strlen(z);
  r.stopAt = 0;
  scan_whole(z, &r, &o);
  ck_assert_msg(o.rc==JSCAN_ERROR, "%s: rc %d", z, o.rc);
  ck_assert_msg(strcmp(o.zMsg, zMsg)==0, "%s: got '%s' want '%s'", z,
                o.zMsg, zMsg);
  ck_assert_msg(o.iOff==iOff, "%s: offset %lld want %lld", z,
                (long long)o.iOff, (long long)iOff);
  scan_bytes(z, n, &r, &o);
  ck_assert_int_eq(o.rc, JSCAN_ERROR);
  ck_assert_str_eq(o.zMsg, zMsg);
  ck_assert_int_eq(o.iOff, iOff);
  for(size_t k=0; k<=n; k++){
    scan_split(z, n, &k, 1, &r, &o);
    ck_assert_int_eq(o.rc, JSCAN_ERROR);
    ck_assert_str_eq(o.zMsg, zMsg);
    ck_assert_int_eq(o.iOff, iOff);
  }
}

/* ------------------------------------------------------------ tests */

START_TEST(test_tokens){
  expect_ok("{\"a\":null,\"b\":true,\"c\":false,\"d\":-1.5e+3,\"e\":\"x\","
            "\"f\":[1,{}],\"g\":[],\"h\":\"\"}",
            "{ k<a> z k<b> t k<c> f k<d> n<-1.5e+3> k<e> s<x> k<f> [ n<1> "
            "{ } ] k<g> [ ] k<h> s<> } ");
  expect_ok(" \t\r\n\v\f[ 1 , \"two\" ,\ttrue\n]\r\n ",
            "[ n<1> s<two> t ] ");
}
END_TEST

START_TEST(test_top_level_scalars){
  expect_ok("\"x\"", "s<x> ");
  expect_ok("1", "n<1> ");           /* delivered by jscan_finish */
  expect_ok(" -0.5e7 ", "n<-0.5e7> ");
  expect_ok("true", "t ");
  expect_ok("false ", "f ");
  expect_ok("null", "z ");
  expect_ok("{}", "{ } ");
  expect_ok("[]", "[ ] ");
}
END_TEST

START_TEST(test_escapes){
  expect_ok("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]",
            "[ s<\"\\x5C/\\x08\\x0C\\x0A\\x0D\\x09> ] ");
  /* \u: 1, 2 and 3 byte UTF-8; hex digits of both cases */
  expect_ok("[\"\\u0041\\u00e9\\u20AC\\uFFFF\"]",
            "[ s<A\\xC3\\xA9\\xE2\\x82\\xAC\\xEF\\xBF\\xBF> ] ");
  /* surrogate pair -> 4 bytes (U+1F600) */
  expect_ok("[\"a\\ud83d\\ude00b\"]", "[ s<a\\xF0\\x9F\\x98\\x80b> ] ");
  expect_ok("[\"\\uDBFF\\uDFFF\"]", "[ s<\\xF4\\x8F\\xBF\\xBF> ] ");
  /* lone surrogates -> U+FFFD, the next character kept */
  expect_ok("[\"\\ud800x\"]", "[ s<\\xEF\\xBF\\xBDx> ] ");
  expect_ok("[\"\\ud800\"]", "[ s<\\xEF\\xBF\\xBD> ] ");
  expect_ok("[\"\\udc00\"]", "[ s<\\xEF\\xBF\\xBD> ] ");
  expect_ok("[\"\\ud800\\u0041\"]", "[ s<\\xEF\\xBF\\xBDA> ] ");
  expect_ok("[\"\\ud800\\n\"]", "[ s<\\xEF\\xBF\\xBD\\x0A> ] ");
  /* \u0000 gives a 0 byte */
  expect_ok("[\"a\\u0000b\"]", "[ s<a\\x00b> ] ");
  /* escaped key; raw UTF-8 and bytes >= 0x80 pass unvalidated */
  expect_ok("{\"k\\u0031\":\"\xc3\xa9\xff\"}",
            "{ k<k1> s<\\xC3\\xA9\\xFF> } ");
}
END_TEST

START_TEST(test_zero_copy){
  Rec r;
  Out o;
  r.stopAt = 0;
  scan_whole("{\"plain\":\"value\",\"esc\":\"a\\nb\"}", &r, &o);
  ck_assert_int_eq(o.rc, JSCAN_OK);
  ck_assert_int_eq(r.nZeroCopy, 3);  /* plain, value, esc; not a\nb */
}
END_TEST

START_TEST(test_numbers_valid){
  static const char *az[] = {
    "0", "-0", "1", "12", "-12", "0.5", "-0.0", "1e5", "1E+5", "1e-5",
    "-2.5e-3", "10.25E007", "1661203466290780.5",
    "123456789012345678901234567890"};
  for(size_t i=0; i<sizeof(az)/sizeof(az[0]); i++){
    char zDoc[100], zEv[200];
    snprintf(zDoc, sizeof(zDoc), "[%s,%s ]", az[i], az[i]);
    snprintf(zEv, sizeof(zEv), "[ n<%s> n<%s> ] ", az[i], az[i]);
    expect_ok(zDoc, zEv);
    snprintf(zEv, sizeof(zEv), "n<%s> ", az[i]);
    expect_ok(az[i], zEv);
  }
}
END_TEST

START_TEST(test_numbers_invalid){
  const char *zMinus =
    "malformed number, a digit is required after the minus sign.";
  const char *zDot =
    "malformed number, a digit is required after the decimal point.";
  const char *zExp =
    "malformed number, a digit is required after the exponent.";
  expect_err("[-]", zMinus, 2);
  expect_err("[-a]", zMinus, 2);
  expect_err("[--1]", zMinus, 2);
  expect_err("[1.]", zDot, 3);
  expect_err("[1.e5]", zDot, 3);
  expect_err("[1e]", zExp, 3);
  expect_err("[1e+]", zExp, 4);
  expect_err("[1E-x]", zExp, 4);
  /* at the end of the document: offset = bytes fed */
  expect_err("-", zMinus, 1);
  expect_err("1.", zDot, 2);
  expect_err("1e", zExp, 2);
  expect_err("1e-", zExp, 3);
  /* greedy lexing: 01 is 0 then 1; 1.5.3 is 1.5 then '.' */
  expect_err("[01]", "after array element, I expect ',' or ']'", 2);
  expect_err("[1-2]", "after array element, I expect ',' or ']'", 2);
  expect_err("[1.5.3]", "invalid char in json text.", 4);
  expect_err("[+1]", "invalid char in json text.", 1);
  expect_err("[.5]", "invalid char in json text.", 1);
  expect_err("01", "trailing garbage", 1);
}
END_TEST

START_TEST(test_nested){
  expect_ok("[[[{\"a\":[{}, [[]], {\"b\":{\"c\":[null]}}]}]]]",
            "[ [ [ { k<a> [ { } [ [ ] ] { k<b> { k<c> [ z ] } } ] } ] ] ] ");
}
END_TEST

START_TEST(test_errors){
  const char *zKey = "invalid object key (must be a string)";
  const char *zUn = "unallowed token at this point in JSON text";
  const char *zMap = "after key and value, inside map, I expect ',' or '}'";
  const char *zArr = "after array element, I expect ',' or ']'";
  const char *zColon =
    "object key and value must be separated by a colon (':')";
  const char *zChar = "invalid char in json text.";
  const char *zEof = "premature EOF";
  expect_err("{1:2}", zKey, 1);
  expect_err("{,}", zKey, 1);
  expect_err("{]", zKey, 1);
  expect_err("{\"a\":1,}", zKey, 7);
  expect_err("{\"a\" 1}", zColon, 5);
  expect_err("{\"a\"}", zColon, 4);
  expect_err("{\"a\":1 \"b\":2}", zMap, 7);
  expect_err("{\"a\":1]", zMap, 6);
  expect_err("[1 2]", zArr, 3);
  expect_err("[1}", zArr, 2);
  expect_err("[,1]", zUn, 1);
  expect_err("[1,]", zUn, 3);
  expect_err("[}", zUn, 1);
  expect_err("{\"a\":}", zUn, 5);
  expect_err("{\"a\"::1}", zUn, 5);
  expect_err("]", zUn, 0);
  expect_err("{\"traceEvents\": [} ]}", zUn, 17);
  expect_err("[1]]", "trailing garbage", 3);
  expect_err("[1] x", "trailing garbage", 4);
  expect_err("{} {}", "trailing garbage", 3);
  expect_err("[x]", zChar, 1);
  expect_err("[1 x]", zChar, 3);
  expect_err("{\"a\":1 @", zChar, 7);
  expect_err("{'a':1}", zChar, 1);
  expect_err("[\x01]", zChar, 1);
  expect_err("[/]", "probable comment found in input text, comments are "
                    "not enabled.", 1);
  expect_err("[tru]", "invalid string in json text.", 4);
  expect_err("[nul1]", "invalid string in json text.", 4);
  expect_err("[fals e]", "invalid string in json text.", 5);
  expect_err("[True]", zChar, 1);
  expect_err("[\"a\\x\"]", "inside a string, '\\' occurs before a character "
                           "which it may not.", 4);
  expect_err("[\"\\u12g4\"]", "invalid (non-hex) character occurs after "
                              "'\\u' inside string.", 6);
  expect_err("[\"\\u12\"]", "invalid (non-hex) character occurs after "
                            "'\\u' inside string.", 6);
  expect_err("[\"a\x01" "b\"]", "invalid character inside string.", 3);
  expect_err("[\"a\nb\"]", "invalid character inside string.", 3);
  /* truncated: offset = bytes fed */
  expect_err("[1,2", zEof, 4);
  expect_err("{\"a\":", zEof, 5);
  expect_err("{\"a\"", zEof, 4);
  expect_err("\"abc", zEof, 4);
  expect_err("[\"a\\", zEof, 4);
  expect_err("[\"\\u12", zEof, 6);
  expect_err("tr", zEof, 2);
  expect_err("[", zEof, 1);
  expect_err("[1", zEof, 2);
}
END_TEST

START_TEST(test_empty){
  Jscan *x = jscan_new(&recCb, NULL);
  ck_assert_int_eq(jscan_finish(x), JSCAN_ERROR);
  ck_assert_str_eq(jscan_error(x), "premature EOF");
  ck_assert_int_eq(jscan_offset(x), 0);
  jscan_free(x);
  x = jscan_new(&recCb, NULL);
  ck_assert_int_eq(jscan_feed(x, NULL, 0), JSCAN_OK);
  ck_assert_int_eq(jscan_feed(x, (const unsigned char*)" \n ", 3), JSCAN_OK);
  ck_assert_int_eq(jscan_finish(x), JSCAN_ERROR);
  ck_assert_str_eq(jscan_error(x), "premature EOF");
  ck_assert_int_eq(jscan_offset(x), 3);
  jscan_free(x);
  jscan_free(NULL);
}
END_TEST

/* A small document with every token kind, escapes and nesting. */
static const char zSmall[] =
  "{\"traceEvents\": [\n"
  "  {\"ph\": \"X\", \"name\": \"aten::mm\\u00e9\\ud83d\\ude00\\\"\\\\\","
  " \"ts\": 1661203466290780.5, \"dur\": -12e+3, \"z\": 0,\n"
  "   \"args\": {\"Input Dims\": [[1, 256], []], \"ok\": true,"
  " \"no\": false, \"nil\": null, \"f\": 0.25E-2, \"\\t\": \"\"}},\n"
  "  [\"\\/\\b\\f\\n\\r\\t\", -0, 7]\n"
  "], \"deviceProperties\": [], \"n\": 12345}\n  ";

START_TEST(test_split_every_boundary){
  Rec ref, r;
  Out oRef, o;
  size_t n = strlen(zSmall);
  ref.stopAt = 0;
  r.stopAt = 0;
  scan_whole(zSmall, &ref, &oRef);
  ck_assert_int_eq(oRef.rc, JSCAN_OK);
  ck_assert_int_gt(ref.nEv, 40);
  scan_bytes(zSmall, n, &r, &o);
  ck_assert_int_eq(o.rc, JSCAN_OK);
  ck_assert_str_eq(r.z, ref.z);
  ck_assert_int_eq(r.nEv, ref.nEv);
  for(int i=0; i<ref.nEv && i<256; i++){
    ck_assert_int_eq(r.aOff[i], ref.aOff[i]);
  }
  for(size_t k=0; k<=n; k++){
    scan_split(zSmall, n, &k, 1, &r, &o);
    ck_assert_int_eq(o.rc, JSCAN_OK);
    ck_assert_str_eq(r.z, ref.z);
    for(int i=0; i<ref.nEv && i<256; i++){
      ck_assert_int_eq(r.aOff[i], ref.aOff[i]);
    }
  }
  /* every 3-way split around the escapes */
  for(size_t a=40; a<110; a++){
    for(size_t b=a; b<120; b++){
      size_t aCut[2] = {a, b};
      scan_split(zSmall, n, aCut, 2, &r, &o);
      ck_assert_int_eq(o.rc, JSCAN_OK);
      ck_assert_str_eq(r.z, ref.z);
    }
  }
}
END_TEST

START_TEST(test_truncated){
  size_t n = strlen(zSmall);
  size_t nEnd = n;
  Rec r;
  Out o;
  r.stopAt = 0;
  while( nEnd>0 && (zSmall[nEnd-1]==' ' || zSmall[nEnd-1]=='\n') ) nEnd--;
  for(size_t k=0; k<nEnd; k++){
    scan_split(zSmall, k, NULL, 0, &r, &o);
    ck_assert_int_eq(o.rc, JSCAN_ERROR);
    ck_assert_int_eq(o.iOff, (int64_t)k);
    ck_assert(strcmp(o.zMsg, "premature EOF")==0
              || strncmp(o.zMsg, "malformed number", 16)==0);
  }
  for(size_t k=nEnd; k<=n; k++){
    scan_split(zSmall, k, NULL, 0, &r, &o);
    ck_assert_int_eq(o.rc, JSCAN_OK);
  }
}
END_TEST

START_TEST(test_offsets_in_callbacks){
  /* offsets:             0123456789012345678901 */
  static const char z[] = "{\"a\": [1, \"xy\", true]}";
  static const int64_t aWant[] = {0, 3, 6, 7, 13, 19, 20, 21};
  Rec r;
  Out o;
  r.stopAt = 0;
  scan_whole(z, &r, &o);
  ck_assert_int_eq(o.rc, JSCAN_OK);
  ck_assert_int_eq(r.nEv, 8);
  for(int i=0; i<8; i++) ck_assert_int_eq(r.aOff[i], aWant[i]);
  scan_bytes(z, strlen(z), &r, &o);
  for(int i=0; i<8; i++) ck_assert_int_eq(r.aOff[i], aWant[i]);
  /* a number ending the document is delivered by finish */
  scan_whole("  123", &r, &o);
  ck_assert_int_eq(r.aOff[0], 4);
}
END_TEST

START_TEST(test_deep_nesting){
  char *z = malloc(3*JSCAN_MAX_DEPTH);
  Rec r;
  Out o;
  size_t n;
  r.stopAt = 0;
  memset(z, '[', JSCAN_MAX_DEPTH);
  memset(z+JSCAN_MAX_DEPTH, ']', JSCAN_MAX_DEPTH);
  z[2*JSCAN_MAX_DEPTH] = 0;
  scan_whole(z, &r, &o);
  ck_assert_int_eq(o.rc, JSCAN_OK);
  n = JSCAN_MAX_DEPTH+1;
  memset(z, '[', n);
  memset(z+n, ']', n);
  z[2*n] = 0;
  scan_whole(z, &r, &o);
  ck_assert_int_eq(o.rc, JSCAN_ERROR);
  ck_assert_str_eq(o.zMsg, "maximum nesting depth exceeded");
  ck_assert_int_eq(o.iOff, JSCAN_MAX_DEPTH);
  free(z);
  /* maps: {"a":{"a":... the bracket past the limit is at 5*MAX */
  z = malloc(5*n+1);
  for(size_t i=0; i<n; i++) memcpy(z+5*i, "{\"a\":", 5);
  z[5*n] = 0;
  scan_whole(z, &r, &o);
  ck_assert_int_eq(o.rc, JSCAN_ERROR);
  ck_assert_str_eq(o.zMsg, "maximum nesting depth exceeded");
  ck_assert_int_eq(o.iOff, 5*JSCAN_MAX_DEPTH);
  free(z);
}
END_TEST

/* Callbacks for the big string test. */
typedef struct Big {
  size_t n;
  int nCall;
  int ok;
  const unsigned char *zWant;
} Big;

static int big_string(void *c, const unsigned char *z, size_t n){
  Big *b = c;
  b->n = n;
  b->nCall++;
  b->ok = b->zWant ? memcmp(z, b->zWant, n)==0 : 1;
  return 1;
}

START_TEST(test_big_string){
  const size_t nBody = 10*1024*1024;
  unsigned char *z = malloc(nBody+8);
  unsigned char *zWant = malloc(nBody);
  static const size_t aChunk[] = {nBody+8, 262144, 4096, 777};
  JscanCallbacks cb;
  memset(&cb, 0, sizeof(cb));
  cb.xString = big_string;
  for(int pass=0; pass<2; pass++){
    size_t nWant = 0, nDoc;
    /* pass 0: plain; pass 1: a "\n" escape every 1000 bytes */
    z[0] = '"';
    nDoc = 1;
    for(size_t i=0; nDoc<nBody; i++){
      if( pass==1 && i%1000==999 ){
        z[nDoc++] = '\\';
        z[nDoc++] = 'n';
        zWant[nWant++] = '\n';
      }else{
        z[nDoc++] = (unsigned char)('a' + i%26);
        zWant[nWant++] = (unsigned char)('a' + i%26);
      }
    }
    z[nDoc++] = '"';
    for(size_t c=0; c<sizeof(aChunk)/sizeof(aChunk[0]); c++){
      Big b = {0, 0, 0, zWant};
      Jscan *x = jscan_new(&cb, &b);
      size_t at = 0;
      while( at<nDoc ){
        size_t m = nDoc-at < aChunk[c] ? nDoc-at : aChunk[c];
        ck_assert_int_eq(jscan_feed(x, z+at, m), JSCAN_OK);
        at += m;
      }
      ck_assert_int_eq(jscan_finish(x), JSCAN_OK);
      ck_assert_int_eq(b.nCall, 1);
      ck_assert_uint_eq(b.n, nWant);
      ck_assert(b.ok);
      jscan_free(x);
    }
  }
  free(z);
  free(zWant);
}
END_TEST

START_TEST(test_callback_stop){
  static const char z[] = "{\"a\": [1, \"xy\", true], \"b\": null}";
  static const int64_t aOff[] = {0, 3, 6, 7, 13, 19, 20, 25, 31, 32};
  size_t n = strlen(z);
  for(int stop=1; stop<=10; stop++){
    Rec r;
    Out o;
    char zWant[8192];
    r.stopAt = stop;
    scan_whole(z, &r, &o);
    ck_assert_int_eq(o.rc, JSCAN_STOPPED);
    ck_assert_int_eq(r.nEv, stop);
    ck_assert_str_eq(o.zMsg,
                     "client cancelled parse via callback return value");
    ck_assert_int_eq(o.iOff, aOff[stop-1]);
    memcpy(zWant, r.z, sizeof(zWant));
    /* the same when the stopping token is cut by a chunk boundary */
    r.stopAt = stop;
    scan_bytes(z, n, &r, &o);
    ck_assert_int_eq(o.rc, JSCAN_STOPPED);
    ck_assert_int_eq(o.iOff, aOff[stop-1]);
    ck_assert_str_eq(r.z, zWant);
  }
  {
    /* sticky: later feeds and finish keep returning STOPPED */
    Rec r;
    Jscan *x;
    memset(&r, 0, sizeof(r));
    r.stopAt = 1;
    x = jscan_new(&recCb, &r);
    ck_assert_int_eq(jscan_feed(x, (const unsigned char*)"[1", 2),
                     JSCAN_STOPPED);
    ck_assert_int_eq(jscan_feed(x, (const unsigned char*)"]", 1),
                     JSCAN_STOPPED);
    ck_assert_int_eq(jscan_finish(x), JSCAN_STOPPED);
    ck_assert_int_eq(r.nEv, 1);
    jscan_free(x);
  }
}
END_TEST

START_TEST(test_error_sticky_and_null_callbacks){
  Jscan *x = jscan_new(NULL, NULL);
  static const char z[] = "{\"a\":[1,\"b\\n\",true,false,null,{}]}";
  ck_assert_int_eq(jscan_feed(x, (const unsigned char*)z, strlen(z)),
                   JSCAN_OK);
  ck_assert_int_eq(jscan_finish(x), JSCAN_OK);
  ck_assert_str_eq(jscan_error(x), "");
  jscan_free(x);
  x = jscan_new(NULL, NULL);
  ck_assert_int_eq(jscan_feed(x, (const unsigned char*)"[1,,", 4),
                   JSCAN_ERROR);
  ck_assert_int_eq(jscan_feed(x, (const unsigned char*)"2]", 2),
                   JSCAN_ERROR);
  ck_assert_int_eq(jscan_finish(x), JSCAN_ERROR);
  ck_assert_str_eq(jscan_error(x),
                   "unallowed token at this point in JSON text");
  ck_assert_int_eq(jscan_offset(x), 3);
  jscan_free(x);
}
END_TEST

Suite *make_jscan_suite(void){
  Suite *s = suite_create("jscan");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_tokens);
  tcase_add_test(tc, test_top_level_scalars);
  tcase_add_test(tc, test_escapes);
  tcase_add_test(tc, test_zero_copy);
  tcase_add_test(tc, test_numbers_valid);
  tcase_add_test(tc, test_numbers_invalid);
  tcase_add_test(tc, test_nested);
  tcase_add_test(tc, test_errors);
  tcase_add_test(tc, test_empty);
  tcase_add_test(tc, test_split_every_boundary);
  tcase_add_test(tc, test_truncated);
  tcase_add_test(tc, test_offsets_in_callbacks);
  tcase_add_test(tc, test_deep_nesting);
  tcase_add_test(tc, test_big_string);
  tcase_add_test(tc, test_callback_stop);
  tcase_add_test(tc, test_error_sticky_and_null_callbacks);
  suite_add_tcase(s, tc);
  return s;
}
