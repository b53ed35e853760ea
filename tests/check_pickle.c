/*
** check_pickle.c — unit tests for the safe pickle decoder (src/pickle.c).
**
** Pipeline position: tests the first stage of snapshot and flight-recorder
** ingest.  Three groups:
**   - crafted inputs built inline: every supported opcode, real CPython
**     pickler output for protocols 2 to 5 (bytes captured from
**     pickle.dumps and pasted below), refused code opcodes, malformed,
**     truncated and hostile inputs, exact error texts and offsets;
**   - scale: APPENDS/SETITEMS with millions of items, memory bounds;
**   - the real snapshot fixtures under ../shared/fixtures/snapshots (read
**     in place, never copied).  Facts asserted for them were computed
**     independently with a small stack interpreter over
**     pickletools.genops (not pickle.load): counts, first/last entries, and
**     an aggregate over the fully expanded tree (node count, sum of all
**     ints mod 2^64, total UTF-8 string bytes) plus the number of distinct
**     container objects (identity), which proves memo sharing is kept.
**     If the fixture folder is missing these tests fail when CI=true and
**     are skipped with a message otherwise.
**
** Run from the repository root so the relative fixture path resolves.
*/
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pickle.h"
#include "util.h"

#define FIXDIR "../shared/fixtures/snapshots"

/* ------------------------------------------------------------ helpers */

/* Decode n bytes at z.  Returns the root (NULL on error); *ppDoc gets the
** document, which the caller frees with pickle_free(). */
static const PkValue *dec(const void *z, size_t n, PkDoc **ppDoc,
                          PfError *pErr){
  const PkValue *pRoot = 0;
  int rc;
  memset(pErr, 0, sizeof(*pErr));
  rc = pickle_decode((const unsigned char*)z, n, ppDoc, &pRoot, pErr);
  if( rc ){
    ck_assert_ptr_null(*ppDoc);
    ck_assert_ptr_null(pRoot);
    ck_assert_int_ne(pErr->set, 0);
    ck_assert_int_eq(pErr->ePos, ERRPOS_BYTE);
    return 0;
  }
  ck_assert_ptr_nonnull(*ppDoc);
  ck_assert_ptr_nonnull(pRoot);
  ck_assert_int_eq(pErr->set, 0);
  return pRoot;
}

/* Decode and require failure with message zMsg (exact; or a prefix when
** bPrefix) at byte offset iWhere (-1: any offset). */
static void expect_err_x(const void *z, size_t n, int64_t iWhere,
                         const char *zMsg, int bPrefix){
  PkDoc *pDoc = 0;
  PfError e;
  const PkValue *pRoot = dec(z, n, &pDoc, &e);
  ck_assert_msg(pRoot==0, "decode unexpectedly succeeded (want: %s)", zMsg);
  if( bPrefix ){
    ck_assert_msg(strncmp(e.zMsg, zMsg, strlen(zMsg))==0,
                  "message \"%s\" does not start with \"%s\"", e.zMsg, zMsg);
  }else{
    ck_assert_str_eq(e.zMsg, zMsg);
  }
  if( iWhere>=0 ) ck_assert_int_eq(e.where, iWhere);
  ck_assert_ptr_null(strchr(e.zMsg, '\n'));
}
#define EXPECT_ERR(lit, where, msg) \
  expect_err_x(lit, sizeof(lit)-1, where, msg, 0)
#define EXPECT_ERR_PREFIX(lit, where, msg) \
  expect_err_x(lit, sizeof(lit)-1, where, msg, 1)

/* Decode a literal that must succeed; returns the root. */
#define DEC_OK(lit, ppDoc) dec_ok(lit, sizeof(lit)-1, ppDoc)
static const PkValue *dec_ok(const void *z, size_t n, PkDoc **ppDoc){
  PfError e;
  const PkValue *pRoot = dec(z, n, ppDoc, &e);
  ck_assert_msg(pRoot!=0, "decode failed at %lld: %s", (long long)e.where,
                e.zMsg);
  return pRoot;
}

static int64_t as_int(const PkValue *v){
  int64_t i = 0;
  ck_assert_ptr_nonnull(v);
  ck_assert_msg(pk_as_int(v, &i)==0, "not an int: %s", pk_type_name(v->t));
  return i;
}

/* Item i of a list or tuple (asserted). */
static const PkValue *item(const PkValue *v, size_t i){
  ck_assert_ptr_nonnull(v);
  ck_assert(v->t==PK_LIST || v->t==PK_TUPLE);
  ck_assert_uint_lt(i, v->u.seq.n);
  return v->u.seq.a[i];
}

/* dict lookup that must succeed */
static const PkValue *get(const PkValue *d, const char *zKey){
  const PkValue *v = pk_dict_get(d, zKey);
  ck_assert_msg(v!=0, "key %s missing", zKey);
  return v;
}

static void expect_str(const PkValue *v, const char *z){
  ck_assert_ptr_nonnull(v);
  ck_assert_msg(pk_str_eq(v, z), "expected str \"%s\", got %s", z,
                pk_type_name(v->t));
}

/* Little builders for crafted pickles. */
static void b_op(Buf *b, int c){ buf_putc(b, (char)c); }
static void b_u32(Buf *b, uint32_t v){
  int i;
  for(i=0; i<4; i++) buf_putc(b, (char)(v >> (8*i)));
}
static void b_u64(Buf *b, uint64_t v){
  int i;
  for(i=0; i<8; i++) buf_putc(b, (char)(v >> (8*i)));
}
/* BINUNICODE, as the TorchScript pickler writes every string */
static void b_ustr(Buf *b, const char *z){
  b_op(b, 'X');
  b_u32(b, (uint32_t)strlen(z));
  buf_puts(b, z);
}
/* LONG1 with 8 bytes, as the TorchScript pickler writes big ints */
static void b_long8(Buf *b, int64_t v){
  b_op(b, 0x8a);
  b_op(b, 8);
  b_u64(b, (uint64_t)v);
}

/* ------------------------------------------------------------ samples */

/*
** Real CPython 3 pickler output (pickle.dumps(o, protocol=P)) for
**   shared = [7, 'x']
**   o = {'a': [1, 2, (3, 4)], 'b': None, 'c': 1.5, 'd': 2**70, 'e': -1,
**        'g': True, 'h': 'h\u00e9llo', 'i': -2**63, 'j': 2**63-1,
**        'k': -2**63-1, 's1': shared, 's2': shared, 't': (), 'u': (1,),
**        'v': (1, 2, 3, 4)}
** plus, for P >= 3, 'f': b'xy'; for P >= 4, 'set': {5},
** 'fz': frozenset([6]); for P == 5, 'ba': bytearray(b'za').
*/
static const char kProto2[] =
    "\x80\x02\x7d\x71\x00\x28\x58\x01\x00\x00\x00\x61\x71\x01\x5d\x71"
    "\x02\x28\x4b\x01\x4b\x02\x4b\x03\x4b\x04\x86\x71\x03\x65\x58\x01"
    "\x00\x00\x00\x62\x71\x04\x4e\x58\x01\x00\x00\x00\x63\x71\x05\x47"
    "\x3f\xf8\x00\x00\x00\x00\x00\x00\x58\x01\x00\x00\x00\x64\x71\x06"
    "\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x40\x58\x01\x00\x00\x00"
    "\x65\x71\x07\x4a\xff\xff\xff\xff\x58\x01\x00\x00\x00\x67\x71\x08"
    "\x88\x58\x01\x00\x00\x00\x68\x71\x09\x58\x06\x00\x00\x00\x68\xc3"
    "\xa9\x6c\x6c\x6f\x71\x0a\x58\x01\x00\x00\x00\x69\x71\x0b\x8a\x08"
    "\x00\x00\x00\x00\x00\x00\x00\x80\x58\x01\x00\x00\x00\x6a\x71\x0c"
    "\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f\x58\x01\x00\x00\x00\x6b"
    "\x71\x0d\x8a\x09\xff\xff\xff\xff\xff\xff\xff\x7f\xff\x58\x02\x00"
    "\x00\x00\x73\x31\x71\x0e\x5d\x71\x0f\x28\x4b\x07\x58\x01\x00\x00"
    "\x00\x78\x71\x10\x65\x58\x02\x00\x00\x00\x73\x32\x71\x11\x68\x0f"
    "\x58\x01\x00\x00\x00\x74\x71\x12\x29\x58\x01\x00\x00\x00\x75\x71"
    "\x13\x4b\x01\x85\x71\x14\x58\x01\x00\x00\x00\x76\x71\x15\x28\x4b"
    "\x01\x4b\x02\x4b\x03\x4b\x04\x74\x71\x16\x75\x2e";

static const char kProto3[] =
    "\x80\x03\x7d\x71\x00\x28\x58\x01\x00\x00\x00\x61\x71\x01\x5d\x71"
    "\x02\x28\x4b\x01\x4b\x02\x4b\x03\x4b\x04\x86\x71\x03\x65\x58\x01"
    "\x00\x00\x00\x62\x71\x04\x4e\x58\x01\x00\x00\x00\x63\x71\x05\x47"
    "\x3f\xf8\x00\x00\x00\x00\x00\x00\x58\x01\x00\x00\x00\x64\x71\x06"
    "\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x40\x58\x01\x00\x00\x00"
    "\x65\x71\x07\x4a\xff\xff\xff\xff\x58\x01\x00\x00\x00\x67\x71\x08"
    "\x88\x58\x01\x00\x00\x00\x68\x71\x09\x58\x06\x00\x00\x00\x68\xc3"
    "\xa9\x6c\x6c\x6f\x71\x0a\x58\x01\x00\x00\x00\x69\x71\x0b\x8a\x08"
    "\x00\x00\x00\x00\x00\x00\x00\x80\x58\x01\x00\x00\x00\x6a\x71\x0c"
    "\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f\x58\x01\x00\x00\x00\x6b"
    "\x71\x0d\x8a\x09\xff\xff\xff\xff\xff\xff\xff\x7f\xff\x58\x02\x00"
    "\x00\x00\x73\x31\x71\x0e\x5d\x71\x0f\x28\x4b\x07\x58\x01\x00\x00"
    "\x00\x78\x71\x10\x65\x58\x02\x00\x00\x00\x73\x32\x71\x11\x68\x0f"
    "\x58\x01\x00\x00\x00\x74\x71\x12\x29\x58\x01\x00\x00\x00\x75\x71"
    "\x13\x4b\x01\x85\x71\x14\x58\x01\x00\x00\x00\x76\x71\x15\x28\x4b"
    "\x01\x4b\x02\x4b\x03\x4b\x04\x74\x71\x16\x58\x01\x00\x00\x00\x66"
    "\x71\x17\x43\x02\x78\x79\x71\x18\x75\x2e";

static const char kProto4[] =
    "\x80\x04\x95\xcf\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x01"
    "\x61\x94\x5d\x94\x28\x4b\x01\x4b\x02\x4b\x03\x4b\x04\x86\x94\x65"
    "\x8c\x01\x62\x94\x4e\x8c\x01\x63\x94\x47\x3f\xf8\x00\x00\x00\x00"
    "\x00\x00\x8c\x01\x64\x94\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x40\x8c\x01\x65\x94\x4a\xff\xff\xff\xff\x8c\x01\x67\x94\x88\x8c"
    "\x01\x68\x94\x8c\x06\x68\xc3\xa9\x6c\x6c\x6f\x94\x8c\x01\x69\x94"
    "\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80\x8c\x01\x6a\x94\x8a\x08"
    "\xff\xff\xff\xff\xff\xff\xff\x7f\x8c\x01\x6b\x94\x8a\x09\xff\xff"
    "\xff\xff\xff\xff\xff\x7f\xff\x8c\x02\x73\x31\x94\x5d\x94\x28\x4b"
    "\x07\x8c\x01\x78\x94\x65\x8c\x02\x73\x32\x94\x68\x0f\x8c\x01\x74"
    "\x94\x29\x8c\x01\x75\x94\x4b\x01\x85\x94\x8c\x01\x76\x94\x28\x4b"
    "\x01\x4b\x02\x4b\x03\x4b\x04\x74\x94\x8c\x01\x66\x94\x43\x02\x78"
    "\x79\x94\x8c\x03\x73\x65\x74\x94\x8f\x94\x28\x4b\x05\x90\x8c\x02"
    "\x66\x7a\x94\x28\x4b\x06\x91\x94\x75\x2e";

static const char kProto5[] =
    "\x80\x05\x95\xe0\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x01"
    "\x61\x94\x5d\x94\x28\x4b\x01\x4b\x02\x4b\x03\x4b\x04\x86\x94\x65"
    "\x8c\x01\x62\x94\x4e\x8c\x01\x63\x94\x47\x3f\xf8\x00\x00\x00\x00"
    "\x00\x00\x8c\x01\x64\x94\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x40\x8c\x01\x65\x94\x4a\xff\xff\xff\xff\x8c\x01\x67\x94\x88\x8c"
    "\x01\x68\x94\x8c\x06\x68\xc3\xa9\x6c\x6c\x6f\x94\x8c\x01\x69\x94"
    "\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80\x8c\x01\x6a\x94\x8a\x08"
    "\xff\xff\xff\xff\xff\xff\xff\x7f\x8c\x01\x6b\x94\x8a\x09\xff\xff"
    "\xff\xff\xff\xff\xff\x7f\xff\x8c\x02\x73\x31\x94\x5d\x94\x28\x4b"
    "\x07\x8c\x01\x78\x94\x65\x8c\x02\x73\x32\x94\x68\x0f\x8c\x01\x74"
    "\x94\x29\x8c\x01\x75\x94\x4b\x01\x85\x94\x8c\x01\x76\x94\x28\x4b"
    "\x01\x4b\x02\x4b\x03\x4b\x04\x74\x94\x8c\x01\x66\x94\x43\x02\x78"
    "\x79\x94\x8c\x03\x73\x65\x74\x94\x8f\x94\x28\x4b\x05\x90\x8c\x02"
    "\x66\x7a\x94\x28\x4b\x06\x91\x94\x8c\x02\x62\x61\x94\x96\x02\x00"
    "\x00\x00\x00\x00\x00\x00\x7a\x61\x94\x75\x2e";


/* Assert everything about a decoded sample of protocol proto. */
static void check_sample(const PkValue *r, int proto){
  const PkValue *v;
  double f;
  ck_assert_int_eq(r->t, PK_DICT);
  ck_assert_uint_eq(pk_len(r), 15 + (proto>=3) + 2*(proto>=4) + (proto>=5));
  /* insertion order kept */
  expect_str(r->u.dict.k[0], "a");
  expect_str(r->u.dict.k[14], "v");
  v = get(r, "a");
  ck_assert_int_eq(v->t, PK_LIST);
  ck_assert_uint_eq(pk_len(v), 3);
  ck_assert_int_eq(as_int(item(v, 0)), 1);
  ck_assert_int_eq(as_int(item(v, 1)), 2);
  ck_assert_int_eq(item(v, 2)->t, PK_TUPLE);
  ck_assert_int_eq(as_int(item(item(v, 2), 1)), 4);
  ck_assert_int_eq(get(r, "b")->t, PK_NONE);
  ck_assert_int_eq(get(r, "c")->t, PK_FLOAT);
  ck_assert_int_eq(pk_as_double(get(r, "c"), &f), 0);
  ck_assert(f==1.5);
  v = get(r, "d");   /* 2**70: 9 bytes 00*8 40 */
  ck_assert_int_eq(v->t, PK_BIGINT);
  ck_assert_uint_eq(v->u.s.n, 9);
  ck_assert_int_eq((unsigned char)v->u.s.z[8], 0x40);
  ck_assert_int_eq(pk_as_int(v, &(int64_t){0}), -1);
  ck_assert_int_eq(as_int(get(r, "e")), -1);
  ck_assert_int_eq(get(r, "g")->t, PK_BOOL);
  ck_assert_int_eq(as_int(get(r, "g")), 1);
  v = get(r, "h");
  ck_assert_int_eq(v->t, PK_STR);
  ck_assert_uint_eq(v->u.s.n, 6);
  ck_assert(memcmp(v->u.s.z, "h\xc3\xa9llo", 6)==0);
  ck_assert(as_int(get(r, "i"))==INT64_MIN);
  ck_assert(as_int(get(r, "j"))==INT64_MAX);
  ck_assert_int_eq(get(r, "k")->t, PK_BIGINT);
  /* memo sharing: both keys refer to the same list node */
  ck_assert_ptr_eq(get(r, "s1"), get(r, "s2"));
  ck_assert_uint_eq(pk_len(get(r, "s1")), 2);
  expect_str(item(get(r, "s1"), 1), "x");
  ck_assert_int_eq(get(r, "t")->t, PK_TUPLE);
  ck_assert_uint_eq(pk_len(get(r, "t")), 0);
  ck_assert_uint_eq(pk_len(get(r, "u")), 1);
  ck_assert_uint_eq(pk_len(get(r, "v")), 4);
  ck_assert_int_eq(as_int(item(get(r, "v"), 3)), 4);
  if( proto>=3 ){
    v = get(r, "f");
    ck_assert_int_eq(v->t, PK_BYTES);
    ck_assert_uint_eq(v->u.s.n, 2);
    ck_assert(memcmp(v->u.s.z, "xy", 2)==0);
  }else{
    ck_assert_ptr_null(pk_dict_get(r, "f"));
  }
  if( proto>=4 ){
    v = get(r, "set");
    ck_assert_int_eq(v->t, PK_LIST);
    ck_assert_uint_eq(pk_len(v), 1);
    ck_assert_int_eq(as_int(item(v, 0)), 5);
    v = get(r, "fz");
    ck_assert_int_eq(v->t, PK_LIST);
    ck_assert_int_eq(as_int(item(v, 0)), 6);
  }
  if( proto>=5 ){
    v = get(r, "ba");
    ck_assert_int_eq(v->t, PK_BYTES);
    ck_assert(v->u.s.n==2 && memcmp(v->u.s.z, "za", 2)==0);
  }
}

START_TEST(test_cpython_protocols){
  static const struct { const char *z; size_t n; int proto; } a[] = {
    { kProto2, sizeof(kProto2)-1, 2 },
    { kProto3, sizeof(kProto3)-1, 3 },
    { kProto4, sizeof(kProto4)-1, 4 },
    { kProto5, sizeof(kProto5)-1, 5 },
  };
  size_t i;
  for(i=0; i<sizeof(a)/sizeof(a[0]); i++){
    PkDoc *pDoc = 0;
    const PkValue *r = dec_ok(a[i].z, a[i].n, &pDoc);
    const PkValue *h = get(r, "h");
    check_sample(r, a[i].proto);
    /* zero-copy: strings point into the input */
    ck_assert(h->u.s.z > a[i].z && h->u.s.z < a[i].z + a[i].n);
    ck_assert_uint_gt(pickle_mem_used(pDoc), 0);
    pickle_free(pDoc);
  }
}
END_TEST

START_TEST(test_scalars){
  /* ints of every width, sign extension and normalisation */
  static const char z[] =
    "\x80\x02(J\x00\x00\x00\x80"        /* BININT -2**31 */
    "K\xff"                             /* BININT1 255 */
    "M\xff\xff"                         /* BININT2 65535 */
    "\x8a\x00"                          /* LONG1 empty = 0 */
    "\x8a\x01\xff"                      /* LONG1 -1 */
    "\x8a\x03\x00\x80\x00"              /* LONG1 32768 */
    "\x8a\x09\x01\x00\x00\x00\x00\x00\x00\x00\x00"  /* redundant: 1 */
    "\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01"  /* 2**64: bigint */
    "\x8b\x03\x00\x00\x00\x00\x00\xff"  /* LONG4 ff0000 = -65536 */
    "G\x80\x00\x00\x00\x00\x00\x00\x00" /* -0.0 */
    "\x88\x89N"                         /* True False None */
    "\x8c\x03" "abc"                       /* SHORT_BINUNICODE */
    "X\x00\x00\x00\x00"                 /* BINUNICODE "" */
    "\x8d\x02\x00\x00\x00\x00\x00\x00\x00hi" /* BINUNICODE8 */
    "U\x02ok"                           /* SHORT_BINSTRING ascii: str */
    "T\x01\x00\x00\x00\xe9"             /* BINSTRING non-ascii: bytes */
    "C\x01\x00"                         /* SHORT_BINBYTES */
    "B\x00\x00\x00\x00"                 /* BINBYTES "" */
    "\x8e\x01\x00\x00\x00\x00\x00\x00\x00q" /* BINBYTES8 */
    "\x96\x01\x00\x00\x00\x00\x00\x00\x00r" /* BYTEARRAY8 */
    "l.";
  PkDoc *pDoc = 0;
  const PkValue *r = DEC_OK(z, &pDoc);
  const PkValue *v;
  double f = 1;
  ck_assert_int_eq(r->t, PK_LIST);
  ck_assert_uint_eq(pk_len(r), 22);
  ck_assert(as_int(item(r, 0))==-2147483648LL);
  ck_assert_int_eq(as_int(item(r, 1)), 255);
  ck_assert_int_eq(as_int(item(r, 2)), 65535);
  ck_assert_int_eq(as_int(item(r, 3)), 0);
  ck_assert_int_eq(as_int(item(r, 4)), -1);
  ck_assert_int_eq(as_int(item(r, 5)), 32768);
  ck_assert_int_eq(item(r, 6)->t, PK_INT);
  ck_assert_int_eq(as_int(item(r, 6)), 1);
  v = item(r, 7);
  ck_assert_int_eq(v->t, PK_BIGINT);
  ck_assert_uint_eq(v->u.s.n, 9);
  ck_assert_int_eq(as_int(item(r, 8)), -65536);
  ck_assert_int_eq(pk_as_double(item(r, 9), &f), 0);
  ck_assert(f==0.0 && signbit(f));
  ck_assert_int_eq(item(r, 10)->t, PK_BOOL);
  ck_assert_int_eq(item(r, 10)->u.i, 1);
  ck_assert_int_eq(item(r, 11)->u.i, 0);
  ck_assert_int_eq(item(r, 12)->t, PK_NONE);
  expect_str(item(r, 13), "abc");
  expect_str(item(r, 14), "");
  expect_str(item(r, 15), "hi");
  expect_str(item(r, 16), "ok");
  ck_assert_int_eq(item(r, 17)->t, PK_BYTES);
  ck_assert_int_eq((unsigned char)item(r, 17)->u.s.z[0], 0xe9);
  ck_assert_int_eq(item(r, 18)->t, PK_BYTES);
  ck_assert_uint_eq(item(r, 18)->u.s.n, 1);
  ck_assert_uint_eq(item(r, 19)->u.s.n, 0);
  ck_assert_int_eq(item(r, 20)->t, PK_BYTES);
  ck_assert_int_eq(item(r, 21)->t, PK_BYTES);
  ck_assert_int_eq(item(r, 21)->u.s.z[0], 'r');
  pickle_free(pDoc);
}
END_TEST

START_TEST(test_stack_and_memo){
  static const char z[] =
    "\x80\x04"
    "(K\x01K\x02" "1"               /* POP_MARK drops a mark and 2 values */
    "K\x09" "0"                     /* POP */
    "(" "0"                         /* POP with nothing above a mark */
    "(\x8c\x01kK\x05" "d"           /* {'k': 5} */
    "\x8c\x01s" "\x8c\x01v" "s"     /* SETITEM */
    "q\x07"                         /* BINPUT 7 */
    "0" "]"                         /* drop the dict, new list */
    "r\x00\x01\x00\x00"             /* LONG_BINPUT 256 */
    "h\x07" "a"                     /* list.append(dict) */
    "j\x07\x00\x00\x00" "a"         /* again, LONG_BINGET */
    "K\x01" "\x85" "a"              /* (1,) */
    "K\x01K\x02" "\x86" "a"         /* (1, 2) */
    "(K\x01K\x02K\x03" "\x87" "2" "e" /* DUP: same (1,2,3) twice */
    "\x8f" "(K\x04K\x05" "\x90" "a" /* set {4, 5} -> list */
    "\x94"                          /* MEMOIZE the list: slot 2 */
    "p9\n" "g9\n" "0"               /* text PUT/GET, then POP */
    "h\x02" "0"                     /* MEMOIZE stored into slot 2 */
    "(K\x07" "l" "a"                /* LIST [7] */
    ".";
  PkDoc *pDoc = 0;
  const PkValue *r = DEC_OK(z, &pDoc);
  ck_assert_int_eq(r->t, PK_LIST);
  ck_assert_uint_eq(pk_len(r), 8);
  ck_assert_int_eq(item(r, 0)->t, PK_DICT);
  ck_assert_ptr_eq(item(r, 0), item(r, 1));
  ck_assert_int_eq(as_int(get(item(r, 0), "k")), 5);
  expect_str(get(item(r, 0), "s"), "v");
  ck_assert_uint_eq(pk_len(item(r, 2)), 1);
  ck_assert_uint_eq(pk_len(item(r, 3)), 2);
  ck_assert_int_eq(item(r, 4)->t, PK_TUPLE);
  ck_assert_ptr_eq(item(r, 4), item(r, 5));
  ck_assert_int_eq(as_int(item(item(r, 5), 2)), 3);
  ck_assert_int_eq(item(r, 6)->t, PK_LIST);
  ck_assert_int_eq(as_int(item(item(r, 6), 1)), 5);
  ck_assert_int_eq(as_int(item(item(r, 7), 0)), 7);
  pickle_free(pDoc);
}
END_TEST

START_TEST(test_dict_duplicates_and_accessors){
  static const char z[] =
    "\x80\x02}(\x8c\x01" "aK\x01\x8c\x01" "bK\x02\x8c\x01" "aK\x03"
    "K\x07\x8c\x01i" "u.";
  PkDoc *pDoc = 0;
  const PkValue *r = DEC_OK(z, &pDoc);
  int64_t i = 42;
  ck_assert_uint_eq(pk_len(r), 4);           /* duplicates are kept */
  ck_assert_int_eq(as_int(get(r, "a")), 3);  /* the last one wins */
  ck_assert_int_eq(as_int(pk_dict_get_n(r, "bc", 1)), 2);
  ck_assert_ptr_null(pk_dict_get(r, "c"));
  ck_assert_ptr_null(pk_dict_get(r, "i"));   /* int key 7 is no string */
  ck_assert_int_eq(as_int(r->u.dict.k[3]), 7);
  ck_assert_ptr_null(pk_dict_get(get(r, "a"), "a"));  /* not a dict */
  ck_assert_ptr_null(pk_dict_get(NULL, "a"));
  ck_assert_int_eq(pk_as_int(r, &i), -1);
  ck_assert_int_eq(pk_as_int(NULL, &i), -1);
  ck_assert_int_eq(i, 42);
  ck_assert(!pk_str_eq(get(r, "a"), "3"));
  ck_assert(!pk_str_eq(r->u.dict.k[0], "ab"));
  ck_assert(pk_str_eq(r->u.dict.k[0], "a"));
  ck_assert_uint_eq(pk_len(get(r, "a")), 0);
  ck_assert_str_eq(pk_type_name(PK_DICT), "dict");
  ck_assert_str_eq(pk_type_name(PK_LIST), "list");
  ck_assert_str_eq(pk_type_name(PK_BIGINT), "bigint");
  ck_assert_str_eq(pk_type_name(PK_NONE), "none");
  ck_assert_str_eq(pk_type_name((PkType)99), "?");
  pickle_free(pDoc);
  pickle_free(NULL);
}
END_TEST

/* A flight-recorder-like dump as the TorchScript pickler writes it:
** protocol 2, no FRAME, BINUNICODE only, explicit BINPUT after a container
** is complete, strings memoized by value, 8-byte LONG1, EMPTY_DICT MARK ..
** SETITEMS, tuples via TUPLE2, None for undiscovered times. */
START_TEST(test_torchscript_style){
  Buf b;
  PkDoc *pDoc = 0;
  const PkValue *r, *e, *pg;
  int i;
  buf_init(&b);
  b_op(&b, 0x80); b_op(&b, 2);
  b_op(&b, '}'); b_op(&b, '(');
  b_ustr(&b, "version"); b_op(&b, 'q'); b_op(&b, 0);
  b_ustr(&b, "2.4"); b_op(&b, 'q'); b_op(&b, 1);
  b_ustr(&b, "entries"); b_op(&b, 'q'); b_op(&b, 2);
  b_op(&b, ']'); b_op(&b, '(');
  for(i=0; i<3; i++){
    b_op(&b, '}'); b_op(&b, '(');
    if( i==0 ){
      b_ustr(&b, "record_id"); b_op(&b, 'q'); b_op(&b, 3);
    }else{
      b_op(&b, 'h'); b_op(&b, 3);
    }
    b_long8(&b, 1000 + i);
    b_ustr(&b, "time_created_ns");
    b_long8(&b, 1748730219596671000LL + i);
    b_ustr(&b, "process_group");
    if( i==0 ){
      b_ustr(&b, "0"); b_ustr(&b, "default_pg"); b_op(&b, 0x86);
      b_op(&b, 'r'); b_u32(&b, 300);
    }else{
      b_op(&b, 'j'); b_u32(&b, 300);
    }
    b_ustr(&b, "time_discovered_started_ns"); b_op(&b, 'N');
    b_ustr(&b, "retired"); b_op(&b, i==2 ? 0x88 : 0x89);
    b_ustr(&b, "input_sizes");
    b_op(&b, ']'); b_op(&b, '(');
    b_op(&b, ']'); b_op(&b, '('); b_op(&b, 'K'); b_op(&b, 4);
    b_op(&b, 'M'); b_op(&b, 0); b_op(&b, 1); b_op(&b, 'e');
    b_op(&b, 'e');
    b_op(&b, 'u');
  }
  b_op(&b, 'e');
  b_op(&b, 'u');
  b_op(&b, '.');
  r = dec_ok(b.z, b.n, &pDoc);
  expect_str(get(r, "version"), "2.4");
  e = get(r, "entries");
  ck_assert_uint_eq(pk_len(e), 3);
  ck_assert_int_eq(as_int(get(item(e, 2), "record_id")), 1002);
  ck_assert(as_int(get(item(e, 1), "time_created_ns"))
            ==1748730219596671001LL);
  /* memoized by value: the same key node in every entry */
  ck_assert_ptr_eq(item(e, 0)->u.dict.k[0], item(e, 2)->u.dict.k[0]);
  pg = get(item(e, 1), "process_group");
  ck_assert_int_eq(pg->t, PK_TUPLE);
  ck_assert_ptr_eq(pg, get(item(e, 0), "process_group"));
  expect_str(item(pg, 1), "default_pg");
  ck_assert_int_eq(get(item(e, 0), "time_discovered_started_ns")->t,
                   PK_NONE);
  ck_assert_int_eq(as_int(get(item(e, 2), "retired")), 1);
  ck_assert_int_eq(as_int(item(item(get(item(e, 0), "input_sizes"), 0),
                               1)), 256);
  pickle_free(pDoc);
  buf_free(&b);
}
END_TEST

/* ------------------------------------------------------------ refusals */

START_TEST(test_refuse_global_reduce){
  static const char z[] =
    "\x80\x02" "cos\nsystem\n" "X\x02\x00\x00\x00ls\x85R.";
  EXPECT_ERR(z, 2, "opcode GLOBAL (0x63) is refused: the file names code "
             "(os system), profan only reads plain data");
  /* a set at protocol 2 is pickled through GLOBAL + REDUCE */
  {
    static const char zSet[] =
      "\x80\x02" "c__builtin__\nset\nq\x00]q\x01K\x05" "a\x85q\x02Rq\x03.";
    EXPECT_ERR(zSet, 2, "opcode GLOBAL (0x63) is refused: the file names "
               "code (__builtin__ set), profan only reads plain data");
  }
  /* control characters in the names are sanitised */
  {
    static const char zCtl[] = "\x80\x02" "cos\x1b\nsys\ttem\n.";
    EXPECT_ERR(zCtl, 2, "opcode GLOBAL (0x63) is refused: the file names "
               "code (os? sys?tem), profan only reads plain data");
  }
  /* truncated GLOBAL is still refused, not read past the end */
  {
    static const char zTr[] = "\x80\x02" "cos";
    EXPECT_ERR(zTr, 2, "opcode GLOBAL (0x63) is refused: the file names "
               "code (? ?), profan only reads plain data");
  }
}
END_TEST

START_TEST(test_refuse_stack_global){
  static const char z[] =
    "\x80\x04\x95\x17\x00\x00\x00\x00\x00\x00\x00"
    "\x8c\x02os\x94\x8c\x06system\x94\x93\x94\x8c\x02id\x85R.";
  static const char zNoStr[] = "\x80\x04K\x01K\x02\x93.";
  EXPECT_ERR(z, 25, "opcode STACK_GLOBAL (0x93) is refused: the file names "
             "code (os system), profan only reads plain data");
  EXPECT_ERR(zNoStr, 6, "opcode STACK_GLOBAL (0x93) is refused: the file "
             "names code, profan only reads plain data");
}
END_TEST

START_TEST(test_refuse_reduce_build_others){
  /* REDUCE chain without a GLOBAL: refused at the first REDUCE */
  static const char zReduce[] = "\x80\x02]])RR.";
  static const char zBuild[] = "\x80\x02}}b.";
  static const struct { unsigned char op; const char *zName; } a[] = {
    { 'R', "REDUCE" }, { 'b', "BUILD" }, { 'i', "INST" }, { 'o', "OBJ" },
    { 0x81, "NEWOBJ" }, { 0x92, "NEWOBJ_EX" }, { 0x82, "EXT1" },
    { 0x83, "EXT2" }, { 0x84, "EXT4" }, { 'P', "PERSID" },
    { 'Q', "BINPERSID" }, { 0x97, "NEXT_BUFFER" },
    { 0x98, "READONLY_BUFFER" }, { 'c', "GLOBAL" }, { 0x93, "STACK_GLOBAL" },
  };
  size_t i;
  EXPECT_ERR(zReduce, 5, "opcode REDUCE (0x52) is refused: it would call "
             "code, profan only reads plain data");
  EXPECT_ERR(zBuild, 4, "opcode BUILD (0x62) is refused: it would set an "
             "object's state through code, profan only reads plain data");
  for(i=0; i<sizeof(a)/sizeof(a[0]); i++){
    /* each opcode after two harmless values on the stack */
    unsigned char z[16];
    char zWant[80];
    size_t n = 0;
    z[n++] = 0x80; z[n++] = 4;
    z[n++] = 'N'; z[n++] = ']';
    z[n++] = a[i].op;
    z[n++] = 'a'; z[n++] = '\n'; z[n++] = 'b'; z[n++] = '\n';
    z[n++] = '.';
    snprintf(zWant, sizeof(zWant), "opcode %s (0x%02x) is refused: ",
             a[i].zName, a[i].op);
    expect_err_x(z, n, 4, zWant, 1);
  }
}
END_TEST

START_TEST(test_refuse_text_and_unknown){
  static const char zInt[] = "\x80\x02I1\n.";
  static const char zUnk[] = "\x80\x02N\xff.";
  static const char zProto1[] = "\x80\x01N.";
  static const char zProto6[] = "\x80\x06N.";
  static const char zProtoLate[] = "\x80\x02\x80\x02N.";
  EXPECT_ERR(zInt, 2, "opcode INT (0x49) is a protocol 0 text opcode, "
             "which profan does not read");
  EXPECT_ERR(zUnk, 3, "unknown opcode 0xff");
  EXPECT_ERR(zProto1, 0,
             "unsupported pickle protocol 1 (profan reads protocols 2 to 5)");
  EXPECT_ERR(zProto6, 0,
             "unsupported pickle protocol 6 (profan reads protocols 2 to 5)");
  EXPECT_ERR(zProtoLate, 2, "PROTO opcode is only allowed at the start");
}
END_TEST

/* ------------------------------------------------------------ malformed */

START_TEST(test_not_a_pickle){
  EXPECT_ERR("", 0, "empty file, not a pickle");
  EXPECT_ERR("{", 0, "not a pickle (first byte 0x7b, expected 0x80)");
  EXPECT_ERR("{\"traceEvents\": []}", 0,
             "not a pickle (first byte 0x7b, expected 0x80)");
  EXPECT_ERR("(lp0\n.", 0, "not a pickle (first byte 0x28, expected 0x80)");
  EXPECT_ERR("\x80", 0,
             "truncated pickle: PROTO needs 1 argument byte, 0 left");
  EXPECT_ERR("\x80\x02", 2, "no STOP opcode: the pickle ends after 2 bytes");
  EXPECT_ERR("\x80\x02N", 3, "no STOP opcode: the pickle ends after 3 bytes");
  EXPECT_ERR("\x80\x02.", 2, "STOP with 0 values on the stack, expected 1");
  EXPECT_ERR("\x80\x02NN.", 4, "STOP with 2 values on the stack, expected 1");
  EXPECT_ERR("\x80\x02(N.", 4, "STOP inside an unclosed MARK");
}
END_TEST

START_TEST(test_huge_lengths){
  EXPECT_ERR("\x80\x02X\xff\xff\xff\x7f" "abc.", 2,
             "truncated pickle: BINUNICODE length 2147483647 runs past end "
             "of file");
  EXPECT_ERR("\x80\x05\x8e\xff\xff\xff\xff\xff\xff\xff\xff.", 2,
             "truncated pickle: BINBYTES8 length 18446744073709551615 runs "
             "past end of file");
  EXPECT_ERR("\x80\x05\x8d\x00\x00\x00\x00\x00\x00\x00\x80.", 2,
             "truncated pickle: BINUNICODE8 length 9223372036854775808 runs "
             "past end of file");
  EXPECT_ERR("\x80\x05\x96\x10\x00\x00\x00\x00\x00\x00\x00.", 2,
             "truncated pickle: BYTEARRAY8 length 16 runs past end of file");
  EXPECT_ERR("\x80\x02\x8b\xff\xff\xff\x7f.", 2,
             "truncated pickle: LONG4 length 2147483647 runs past end of "
             "file");
  EXPECT_ERR("\x80\x02\x8b\xff\xff\xff\xff.", 2, "LONG4 length is negative");
  EXPECT_ERR("\x80\x02T\x00\x00\x00\x80.", 2, "BINSTRING length is negative");
  EXPECT_ERR("\x80\x02\x8c\x05" "abc", 2,
             "truncated pickle: SHORT_BINUNICODE length 5 runs past end of "
             "file");
  EXPECT_ERR("\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x01N.", 2,
             "truncated pickle: FRAME length 72057594037927936 runs past "
             "end of file");
  EXPECT_ERR("\x80\x02J\x01\x02", 2,
             "truncated pickle: BININT needs 4 argument bytes, 2 left");
}
END_TEST

START_TEST(test_frames){
  /* honoured: a valid framed pickle whose STOP is in a second frame */
  static const char zOk[] =
    "\x80\x04\x95\x03\x00\x00\x00\x00\x00\x00\x00]K\x01"
    "\x95\x02\x00\x00\x00\x00\x00\x00\x00" "a.";
  /* an opcode may not cross the end of its frame */
  static const char zCross[] =
    "\x80\x04\x95\x02\x00\x00\x00\x00\x00\x00\x00]J\x01\x00\x00\x00" "a.";
  /* a frame may not start inside another */
  static const char zNested[] =
    "\x80\x04\x95\x0b\x00\x00\x00\x00\x00\x00\x00"
    "\x95\x01\x00\x00\x00\x00\x00\x00\x00N.";
  /* data outside any frame is fine (CPython writes large payloads so) */
  static const char zOutside[] =
    "\x80\x04\x95\x01\x00\x00\x00\x00\x00\x00\x00]"
    "\x8c\x02hia.";
  PkDoc *pDoc = 0;
  const PkValue *r = DEC_OK(zOk, &pDoc);
  ck_assert_int_eq(as_int(item(r, 0)), 1);
  pickle_free(pDoc);
  EXPECT_ERR(zCross, 12,
             "BININT runs past the end of its FRAME (0 bytes left in it)");
  EXPECT_ERR(zNested, 11,
             "FRAME begins 11 bytes before the previous frame ends");
  r = DEC_OK(zOutside, &pDoc);
  expect_str(item(r, 0), "hi");
  pickle_free(pDoc);
}
END_TEST

START_TEST(test_stack_errors){
  EXPECT_ERR("\x80\x02" "a.", 2,
             "stack underflow: APPEND needs 2 values, 0 on the stack");
  EXPECT_ERR("\x80\x02]" "(a.", 4,
             "stack underflow: APPEND needs 2 values, 0 above the MARK");
  EXPECT_ERR("\x80\x02" "e.", 2, "APPENDS without a MARK");
  EXPECT_ERR("\x80\x02" "(K\x01" "e.", 5, "APPENDS has no list below its MARK");
  EXPECT_ERR("\x80\x02}K\x01" "a.", 5,
             "APPEND target is a dict, not a list");
  EXPECT_ERR("\x80\x02](K\x01K\x02" "u.", 8,
             "SETITEMS target is a list, not a dict");
  EXPECT_ERR("\x80\x02}(K\x01" "u.", 6,
             "SETITEMS has an odd number of values (1) after its MARK");
  EXPECT_ERR("\x80\x02(K\x01" "d.", 5,
             "DICT has an odd number of values (1) after its MARK");
  EXPECT_ERR("\x80\x02}]N" "s.", 5,
             "dict key is a list, which is unhashable");
  EXPECT_ERR("\x80\x04\x8f(}" "\x90.", 5,
             "set element is a dict, which is unhashable");
  EXPECT_ERR("\x80\x04](K\x01" "\x90.", 6,
             "ADDITEMS target is a list, not a set");
  EXPECT_ERR("\x80\x02" "\x86.", 2,
             "stack underflow: TUPLE2 needs 2 values, 0 on the stack");
  EXPECT_ERR("\x80\x02" "1.", 2, "POP_MARK without a MARK");
  EXPECT_ERR("\x80\x02" "0.", 2,
             "stack underflow: POP needs 1 value, 0 on the stack");
  EXPECT_ERR("\x80\x02" "2.", 2,
             "stack underflow: DUP needs 1 value, 0 on the stack");
  EXPECT_ERR("\x80\x02" "q\x00.", 2,
             "stack underflow: BINPUT needs 1 value, 0 on the stack");
  EXPECT_ERR("\x80\x02N.\x01", 4,
             "unexpected byte 0x01 after STOP (only NUL padding may follow)");
  EXPECT_ERR("\x80\x02Ng12x\n.", 3, "GET argument is not a memo index");
  EXPECT_ERR("\x80\x02Np12", 3,
             "truncated pickle: PUT argument has no newline");
  /* a frozenset is hashable and may be a key */
  {
    static const char z[] = "\x80\x04}(K\x01\x91K\x02s.";
    PkDoc *pDoc = 0;
    const PkValue *r = DEC_OK(z, &pDoc);
    ck_assert_int_eq(r->u.dict.k[0]->t, PK_LIST);
    pickle_free(pDoc);
  }
}
END_TEST

START_TEST(test_memo_errors){
  EXPECT_ERR("\x80\x02h\x0c.", 2, "memo index 12 was never stored");
  EXPECT_ERR("\x80\x02Nq\x00h\x01.", 5, "memo index 1 was never stored");
  EXPECT_ERR("\x80\x02j\xff\xff\xff\xff.", 2,
             "memo index 4294967295 was never stored");
  EXPECT_ERR("\x80\x02Nr\xff\xff\xff\xff.", 3,
             "memo index 4294967295 is out of range for a 9-byte pickle");
  EXPECT_ERR("\x80\x02Ng7\n.", 3, "memo index 7 was never stored");
}
END_TEST

START_TEST(test_trailing_nul_padding){
  static const char z0[] = "\x80\x02]K\x05" "a.";
  static const char z2[] = "\x80\x02]K\x05" "a.\0\0";
  PkDoc *pDoc = 0;
  const PkValue *r = DEC_OK(z0, &pDoc);
  ck_assert_int_eq(as_int(item(r, 0)), 5);
  pickle_free(pDoc);
  r = DEC_OK(z2, &pDoc);
  ck_assert_uint_eq(pk_len(r), 1);
  ck_assert_int_eq(as_int(item(r, 0)), 5);
  pickle_free(pDoc);
}
END_TEST

/* ------------------------------------------------------------ depth */

/* `depth` empty lists, each appended into the one before. */
static void nested_lists(Buf *b, int depth){
  int i;
  buf_reset(b);
  b_op(b, 0x80); b_op(b, 2);
  for(i=0; i<depth; i++) b_op(b, ']');
  for(i=1; i<depth; i++) b_op(b, 'a');
  b_op(b, '.');
}

START_TEST(test_depth_limit){
  Buf b;
  PkDoc *pDoc = 0;
  const PkValue *r;
  int i;
  buf_init(&b);
  nested_lists(&b, 1000);     /* exactly the limit: fine */
  r = dec_ok(b.z, b.n, &pDoc);
  for(i=0; i<999; i++) r = item(r, 0);
  ck_assert_uint_eq(pk_len(r), 0);
  pickle_free(pDoc);
  nested_lists(&b, 2000);     /* the 1000th APPEND makes depth 1001 */
  expect_err_x(b.z, b.n, 2 + 2000 + 999, "nesting deeper than 1000", 0);
  /* the same with MARK ... LIST nesting */
  buf_reset(&b);
  b_op(&b, 0x80); b_op(&b, 2);
  for(i=0; i<2000; i++) b_op(&b, '(');
  for(i=0; i<2000; i++) b_op(&b, 'l');
  b_op(&b, '.');
  expect_err_x(b.z, b.n, 2 + 2000 + 1000, "nesting deeper than 1000", 0);
  /* and with tuples */
  buf_reset(&b);
  b_op(&b, 0x80); b_op(&b, 2); b_op(&b, ')');
  for(i=0; i<1500; i++) b_op(&b, 0x85);
  b_op(&b, '.');
  expect_err_x(b.z, b.n, 2 + 1 + 999, "nesting deeper than 1000", 0);
  buf_free(&b);
}
END_TEST

/* Deep nesting built through the memo with a stack that never grows:
** each new list is appended to the previous one after that one was
** already placed in its parent.  Only the final graph check sees it. */
static void memo_chain(Buf *b, int depth){
  int k;
  buf_reset(b);
  b_op(b, 0x80); b_op(b, 2);
  b_op(b, ']'); b_op(b, 'r'); b_u32(b, 0);
  for(k=1; k<depth; k++){
    b_op(b, 'j'); b_u32(b, (uint32_t)(k-1));
    b_op(b, ']'); b_op(b, 'r'); b_u32(b, (uint32_t)k);
    b_op(b, 'a');
    b_op(b, '0');
  }
  b_op(b, '.');
}

START_TEST(test_depth_via_memo){
  Buf b;
  PkDoc *pDoc = 0;
  const PkValue *r;
  int i;
  buf_init(&b);
  memo_chain(&b, 1000);
  r = dec_ok(b.z, b.n, &pDoc);
  for(i=0; i<999; i++) r = item(r, 0);
  ck_assert_uint_eq(pk_len(r), 0);
  pickle_free(pDoc);
  memo_chain(&b, 1001);
  /* reported at the first APPEND into an already nested list, the one
  ** of the second step: 8 bytes of header, 13 a step, APPEND at +11 */
  expect_err_x(b.z, b.n, 8 + 13 + 11, "nesting deeper than 1000", 0);
  buf_free(&b);
}
END_TEST

START_TEST(test_cycles){
  /* self-append through the memo */
  EXPECT_ERR("\x80\x02]\x94h\x00" "a.", 6,
             "reference cycle: APPEND puts a list inside itself");
  /* self-append through DUP */
  EXPECT_ERR("\x80\x02]2a.", 4,
             "reference cycle: APPEND puts a list inside itself");
  /* dict as its own value */
  EXPECT_ERR("\x80\x02}\x94\x8c\x01kh\x00s.", 9,
             "reference cycle: SETITEM puts a dict inside itself");
  /* L0 = [L1], then L1.append(L0): found by the final graph check and
  ** reported where the nested list was modified */
  EXPECT_ERR("\x80\x02]q\x00]q\x01" "a" "h\x01h\x00" "a" "0.", 13,
             "reference cycle: a list ends up inside itself");
  /* a DAG with sharing after a nested modification is fine */
  {
    static const char z[] =
      "\x80\x02]q\x00]q\x01" "a" "h\x01K\x07" "a" "0"
      "h\x01" "a.";
    PkDoc *pDoc = 0;
    const PkValue *r = DEC_OK(z, &pDoc);
    ck_assert_uint_eq(pk_len(r), 2);
    ck_assert_ptr_eq(item(r, 0), item(r, 1));
    ck_assert_int_eq(as_int(item(item(r, 1), 0)), 7);
    pickle_free(pDoc);
  }
}
END_TEST

/* ------------------------------------------------------------ robustness */

START_TEST(test_truncation_every_offset){
  static const char *az[] = { kProto2, kProto3, kProto4, kProto5 };
  static const size_t an[] = { sizeof(kProto2)-1, sizeof(kProto3)-1,
                               sizeof(kProto4)-1, sizeof(kProto5)-1 };
  size_t i, k;
  for(k=0; k<4; k++){
    for(i=0; i<an[k]; i++){
      /* copy so ASan sees reads past the prefix */
      unsigned char *z = xmalloc(i ? i : 1);
      PkDoc *pDoc = (PkDoc*)1;
      const PkValue *r = (const PkValue*)1;
      PfError e;
      int rc;
      memcpy(z, az[k], i);
      memset(&e, 0, sizeof(e));
      rc = pickle_decode(z, i, &pDoc, &r, &e);
      ck_assert_msg(rc!=0, "prefix of %zu bytes decoded", i);
      ck_assert_ptr_null(pDoc);
      ck_assert_ptr_null(r);
      ck_assert(e.set && e.ePos==ERRPOS_BYTE && e.where>=0
                && (size_t)e.where<=i);
      free(z);
    }
  }
}
END_TEST

START_TEST(test_mutations_never_crash){
  /* every byte of the protocol-4 sample replaced by a spread of values;
  ** the result may decode or fail, but must be clean under ASan/UBSan */
  static const unsigned char aVal[] = { 0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe,
                                        0xff, '(', ']', 'a', 'e', 'u', 'h',
                                        0x94, 0x95, '.', 'r', 'j' };
  size_t n = sizeof(kProto4)-1, i, k, nOk = 0, nBad = 0;
  unsigned char *z = xmalloc(n);
  for(i=0; i<n; i++){
    for(k=0; k<sizeof(aVal); k++){
      PkDoc *pDoc = 0;
      const PkValue *r = 0;
      PfError e;
      memcpy(z, kProto4, n);
      z[i] = aVal[k];
      memset(&e, 0, sizeof(e));
      if( pickle_decode(z, n, &pDoc, &r, &e)==0 ){
        ck_assert_ptr_nonnull(r);
        nOk++;
      }else{
        ck_assert(e.set);
        nBad++;
      }
      pickle_free(pDoc);
    }
  }
  free(z);
  ck_assert_uint_gt(nOk, 0);
  ck_assert_uint_gt(nBad, 0);
}
END_TEST

/* ------------------------------------------------------------ scale */

START_TEST(test_big_list_and_dict){
  /* 3,000,000 small ints in APPENDS batches of 1000 (as CPython writes),
  ** then a dict of 1,000,000 distinct int keys and values in SETITEMS
  ** batches: both grow far past the big-array threshold. */
  Buf b;
  PkDoc *pDoc = 0;
  const PkValue *r, *l, *d;
  size_t i, nMem, nBad = 0;
  buf_init(&b);
  b_op(&b, 0x80); b_op(&b, 4);
  b_op(&b, ']'); b_op(&b, 0x94);
  b_op(&b, ']'); b_op(&b, 0x94);
  for(i=0; i<3000000; i++){
    if( i%1000==0 ) b_op(&b, '(');
    b_op(&b, 'K'); b_op(&b, (int)(i & 0xff));
    if( i%1000==999 ) b_op(&b, 'e');
  }
  b_op(&b, 'a');
  b_op(&b, '}'); b_op(&b, 0x94);
  for(i=0; i<1000000; i++){
    if( i%1000==0 ) b_op(&b, '(');
    b_op(&b, 'J'); b_u32(&b, (uint32_t)(i + 1000));
    b_op(&b, 'J'); b_u32(&b, (uint32_t)(3*i + 7));
    if( i%1000==999 ) b_op(&b, 'u');
  }
  b_op(&b, 'a');
  b_op(&b, '.');
  r = dec_ok(b.z, b.n, &pDoc);
  l = item(r, 0);
  d = item(r, 1);
  ck_assert_uint_eq(pk_len(l), 3000000);
  ck_assert_uint_eq(pk_len(d), 1000000);
  for(i=0; i<3000000; i++){
    if( l->u.seq.a[i]->u.i!=(int64_t)(i & 0xff) ) nBad++;
  }
  for(i=0; i<1000000; i++){
    if( d->u.dict.k[i]->u.i!=(int64_t)(i + 1000)
     || d->u.dict.v[i]->u.i!=(int64_t)(3*i + 7) ) nBad++;
  }
  ck_assert_uint_eq(nBad, 0);
  ck_assert_int_eq(as_int(d->u.dict.v[999999]), 3*999999 + 7);
  ck_assert_ptr_null(pk_dict_get(d, "1000"));   /* int keys, not str */
  /* small ints cost no node, so the 3M list is 8 bytes an item (with
  ** power-of-two capacity: 4M slots); the dict is 16 bytes a pair (1M
  ** slots) plus a 32-byte node per key and per value. */
  nMem = pickle_mem_used(pDoc);
  ck_assert_msg(nMem < (size_t)4194304*8 + (size_t)1048576*16
                       + (size_t)2000000*32 + (size_t)4*1048576,
                "memory %zu", nMem);
  pickle_free(pDoc);
  buf_free(&b);
}
END_TEST

/* ------------------------------------------------------------ fixtures */

/* Read fixture zName into a new buffer (caller frees with free()).
** Returns NULL when the fixture folder is missing and CI is not "true"
** (the caller then skips); fails the test when CI=true or when the folder
** exists but the file does not. */
static unsigned char *read_fixture(const char *zName, size_t *pn){
  char zPath[512];
  struct stat st;
  FILE *f;
  unsigned char *z;
  const char *zCi = getenv("CI");
  if( stat(FIXDIR, &st)!=0 ){
    if( zCi && strcmp(zCi, "true")==0 ){
      ck_abort_msg("fixture folder %s missing (CI=true)", FIXDIR);
    }
    fprintf(stderr, "SKIP: %s missing, not testing %s\n", FIXDIR, zName);
    return 0;
  }
  snprintf(zPath, sizeof(zPath), "%s/%s", FIXDIR, zName);
  f = fopen(zPath, "rb");
  ck_assert_msg(f!=0, "cannot open %s: %s", zPath, strerror(errno));
  ck_assert_int_eq(fstat(fileno(f), &st), 0);
  *pn = (size_t)st.st_size;
  z = xmalloc(*pn + 1);
  ck_assert_uint_eq(fread(z, 1, *pn, f), *pn);
  fclose(f);
  return z;
}

/* Aggregate over the fully expanded tree (shared nodes counted at every
** reference), matching the Python reference computation. */
typedef struct Agg {
  uint64_t nNode;       /* values, dict keys included */
  uint64_t sumInt;      /* ints and bools, mod 2^64 */
  uint64_t nStrByte;    /* bytes of every str */
} Agg;

static void agg_walk(const PkValue *v, Agg *a){
  size_t i;
  a->nNode++;
  switch( v->t ){
    case PK_INT: case PK_BOOL: a->sumInt += (uint64_t)v->u.i; break;
    case PK_STR: a->nStrByte += v->u.s.n; break;
    case PK_LIST: case PK_TUPLE:
      for(i=0; i<v->u.seq.n; i++) agg_walk(v->u.seq.a[i], a);
      break;
    case PK_DICT:
      for(i=0; i<v->u.dict.n; i++){
        agg_walk(v->u.dict.k[i], a);
        agg_walk(v->u.dict.v[i], a);
      }
      break;
    default: break;
  }
}

/* Pointer set for counting distinct containers. */
typedef struct PSet { const void **a; size_t nSlot, n; } PSet;
static int pset_add(PSet *s, const void *p){
  size_t h, i;
  if( (s->n + 1)*2 > s->nSlot ){
    PSet t = { 0, s->nSlot ? s->nSlot*2 : 1024, 0 };
    t.a = xcalloc(t.nSlot, sizeof(void*));
    for(i=0; i<s->nSlot; i++) if( s->a[i] ) pset_add(&t, s->a[i]);
    free(s->a);
    *s = t;
  }
  h = (size_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull);
  for(i=h & (s->nSlot-1); s->a[i]; i=(i+1) & (s->nSlot-1)){
    if( s->a[i]==p ) return 0;
  }
  s->a[i] = p;
  s->n++;
  return 1;
}
static void distinct_walk(const PkValue *v, PSet *s){
  size_t i;
  if( v->t!=PK_LIST && v->t!=PK_TUPLE && v->t!=PK_DICT ) return;
  if( !pset_add(s, v) ) return;
  if( v->t==PK_DICT ){
    for(i=0; i<v->u.dict.n; i++){
      distinct_walk(v->u.dict.k[i], s);
      distinct_walk(v->u.dict.v[i], s);
    }
  }else{
    for(i=0; i<v->u.seq.n; i++) distinct_walk(v->u.seq.a[i], s);
  }
}

/* Decode fixture zName and check the expanded-tree aggregate and the
** number of distinct containers.  Returns the root or NULL (skipped);
** *ppDoc and *ppData are for the caller to free. */
static const PkValue *fixture(const char *zName, PkDoc **ppDoc,
                              unsigned char **ppData, uint64_t nNode,
                              uint64_t sumInt, uint64_t nStrByte,
                              size_t nDistinct){
  size_t n = 0;
  const PkValue *r;
  Agg a = { 0, 0, 0 };
  PSet s = { 0, 0, 0 };
  *ppDoc = 0;
  *ppData = read_fixture(zName, &n);
  if( *ppData==0 ) return 0;
  r = dec_ok(*ppData, n, ppDoc);
  agg_walk(r, &a);
  ck_assert_uint_eq(a.nNode, nNode);
  ck_assert_uint_eq(a.sumInt, sumInt);
  ck_assert_uint_eq(a.nStrByte, nStrByte);
  distinct_walk(r, &s);
  ck_assert_uint_eq(s.n, nDistinct);
  free(s.a);
  return r;
}

/* Keys of dict d, in order, must be exactly the n strings in az. */
static void expect_keys(const PkValue *d, const char **az, size_t n){
  size_t i;
  ck_assert_int_eq(d->t, PK_DICT);
  ck_assert_uint_eq(pk_len(d), n);
  for(i=0; i<n; i++) expect_str(d->u.dict.k[i], az[i]);
}

/* allocator_settings as in the 2025 fixtures */
static void check_allocator_settings(const PkValue *as){
  const PkValue *rp = get(as, "roundup_power2_divisions");
  double f = 1;
  expect_str(get(as, "PYTORCH_CUDA_ALLOC_CONF"), "");
  ck_assert_int_eq(as_int(get(as, "max_split_size")), -1);
  ck_assert_int_eq(get(as, "garbage_collection_threshold")->t, PK_FLOAT);
  ck_assert_int_eq(pk_as_double(get(as, "garbage_collection_threshold"), &f),
                   0);
  ck_assert(f==0.0);
  ck_assert_int_eq(get(as, "expandable_segments")->t, PK_BOOL);
  ck_assert_int_eq(as_int(get(as, "expandable_segments")), 0);
  ck_assert_int_eq(as_int(get(as, "pinned_num_register_threads")), 1);
  ck_assert_uint_eq(pk_len(rp), 16);
  expect_str(rp->u.dict.k[15], "32768");
  ck_assert_int_eq(as_int(get(rp, "32768")), 0);
}

/* Count of trace entries of dt whose action is zAction.  (Loops over
** many items use plain accessors: every Check assertion costs a write.) */
static size_t count_action(const PkValue *dt, const char *zAction){
  size_t i, n = 0;
  ck_assert_int_eq(dt->t, PK_LIST);
  for(i=0; i<dt->u.seq.n; i++){
    if( pk_str_eq(pk_dict_get(dt->u.seq.a[i], "action"), zAction) ) n++;
  }
  return n;
}

START_TEST(test_fx_cs336){
  static const char *azKey[] = { "segments", "device_traces",
                                 "allocator_settings",
                                 "external_annotations" };
  PkDoc *pDoc;
  unsigned char *z;
  const PkValue *r, *segs, *s0, *b0, *dt, *e, *ea;
  int64_t sumTotal = 0, nBlock = 0;
  size_t i, j;
  PSet lists = { 0, 0, 0 }, frames = { 0, 0, 0 };
  size_t nWithFrames = 0, nFrameRef = 0;
  r = fixture("cs336-fullstep-2025.pickle", &pDoc, &z,
              5671599, 18443128642861572582ull, 85784279, 37242);
  if( r==0 ) return;
  expect_keys(r, azKey, 4);
  segs = get(r, "segments");
  ck_assert_uint_eq(pk_len(segs), 1010);
  s0 = item(segs, 0);
  ck_assert_int_eq(as_int(get(s0, "device")), 0);
  ck_assert_int_eq(as_int(get(s0, "address")), 139774509711360LL);
  ck_assert_int_eq(as_int(get(s0, "total_size")), 102760448);
  expect_str(get(s0, "segment_type"), "large");
  ck_assert_int_eq(get(s0, "segment_pool_id")->t, PK_TUPLE);
  ck_assert_int_eq(as_int(item(get(s0, "segment_pool_id"), 1)), 0);
  ck_assert_int_eq(get(s0, "is_expandable")->t, PK_BOOL);
  ck_assert_uint_eq(pk_len(get(s0, "frames")), 48);
  ck_assert_uint_eq(pk_len(get(s0, "blocks")), 1);
  b0 = item(get(s0, "blocks"), 0);
  ck_assert_int_eq(as_int(get(b0, "requested_size")), 102400000);
  expect_str(get(b0, "state"), "inactive");
  ck_assert_uint_eq(pk_len(get(b0, "frames")), 0);
  for(i=0; i<pk_len(segs); i++){
    int64_t v = 0;
    if( pk_as_int(pk_dict_get(segs->u.seq.a[i], "total_size"), &v) ) break;
    sumTotal += v;
    nBlock += (int64_t)pk_len(pk_dict_get(segs->u.seq.a[i], "blocks"));
  }
  ck_assert_uint_eq(i, 1010);
  ck_assert_int_eq(sumTotal, 61111009280LL);
  ck_assert_int_eq(nBlock, 1525);
  ck_assert_uint_eq(pk_len(get(r, "device_traces")), 1);
  dt = item(get(r, "device_traces"), 0);
  ck_assert_uint_eq(pk_len(dt), 19342);
  e = item(dt, 0);
  expect_str(get(e, "action"), "segment_alloc");
  ck_assert_int_eq(as_int(get(e, "addr")), 139833534054400LL);
  ck_assert_int_eq(as_int(get(e, "size")), 20971520);
  ck_assert_int_eq(as_int(get(e, "time_us")), 1748730219596671LL);
  ck_assert_uint_eq(pk_len(get(e, "frames")), 62);
  expect_str(get(item(get(e, "frames"), 0), "name"),
             "torch::unwind::unwind()");
  expect_str(get(item(get(e, "frames"), 0), "filename"), "??");
  /* memo sharing: key strings are one node across entries */
  ck_assert_ptr_eq(e->u.dict.k[0], item(dt, 1)->u.dict.k[0]);
  e = item(dt, 19341);
  expect_str(get(e, "action"), "free_completed");
  ck_assert_int_eq(as_int(get(e, "size")), 102400000);
  ck_assert_int_eq(as_int(get(e, "time_us")), 1748730220159648LL);
  ck_assert_uint_eq(count_action(dt, "alloc"), 6771);
  ck_assert_uint_eq(count_action(dt, "free_requested"), 5894);
  ck_assert_uint_eq(count_action(dt, "free_completed"), 5894);
  ck_assert_uint_eq(count_action(dt, "segment_alloc"), 783);
  /* frames: 704899 references to 668 distinct frame dicts in 12665
  ** distinct frame lists */
  for(i=0; i<pk_len(dt); i++){
    const PkValue *fr = pk_dict_get(dt->u.seq.a[i], "frames");
    if( fr==0 || fr->t!=PK_LIST ) continue;
    nWithFrames++;
    pset_add(&lists, fr);
    for(j=0; j<fr->u.seq.n; j++){
      pset_add(&frames, fr->u.seq.a[j]);
      nFrameRef++;
    }
  }
  ck_assert_uint_eq(nWithFrames, 19342);
  ck_assert_uint_eq(lists.n, 12665);
  ck_assert_uint_eq(frames.n, 668);
  ck_assert_uint_eq(nFrameRef, 704899);
  free(lists.a);
  free(frames.a);
  check_allocator_settings(get(r, "allocator_settings"));
  ea = get(r, "external_annotations");
  ck_assert_uint_eq(pk_len(ea), 4);
  expect_str(get(item(ea, 0), "stage"), "START");
  expect_str(get(item(ea, 0), "name"), "Optimizer.zero_grad#AdamW.zero_grad");
  ck_assert_int_eq(as_int(get(item(ea, 1), "time_us")), 1748730219596156LL);
  pickle_free(pDoc);
  free(z);
}
END_TEST

START_TEST(test_fx_tomi_small){
  PkDoc *pDoc;
  unsigned char *z;
  const PkValue *r, *segs, *s0, *b0, *dt, *e;
  r = fixture("tomi-small.pickle", &pDoc, &z,
              202442, 1246707552764432558ull, 3311645, 1435);
  if( r==0 ) return;
  ck_assert_uint_eq(pk_len(r), 3);
  ck_assert_ptr_null(pk_dict_get(r, "external_annotations"));
  segs = get(r, "segments");
  ck_assert_uint_eq(pk_len(segs), 2);
  s0 = item(segs, 0);
  ck_assert_int_eq(as_int(get(s0, "address")), 30129782784LL);
  ck_assert_int_eq(as_int(get(s0, "total_size")), 2097152);
  ck_assert_int_eq(as_int(get(s0, "requested_size")), 4292);
  expect_str(get(s0, "segment_type"), "small");
  ck_assert_uint_eq(pk_len(get(s0, "blocks")), 10);
  b0 = item(get(s0, "blocks"), 0);
  ck_assert_int_eq(as_int(get(b0, "size")), 1024);
  ck_assert_int_eq(as_int(get(b0, "requested_size")), 800);
  expect_str(get(b0, "state"), "active_allocated");
  dt = item(get(r, "device_traces"), 0);
  ck_assert_uint_eq(pk_len(dt), 713);
  e = item(dt, 0);
  expect_str(get(e, "action"), "alloc");
  ck_assert_int_eq(as_int(get(e, "addr")), 30129788416LL);
  ck_assert_int_eq(as_int(get(e, "time_us")), 1748507177869534LL);
  ck_assert_uint_eq(pk_len(get(e, "frames")), 67);
  ck_assert_uint_eq(count_action(dt, "alloc"), 240);
  ck_assert_uint_eq(count_action(dt, "free_requested"), 236);
  ck_assert_uint_eq(count_action(dt, "segment_alloc"), 1);
  check_allocator_settings(get(r, "allocator_settings"));
  pickle_free(pDoc);
  free(z);
}
END_TEST

START_TEST(test_fx_llm_history){
  static const char *azKey[] = { "segments", "device_traces" };
  PkDoc *pDoc;
  unsigned char *z;
  const PkValue *r, *segs, *b0, *h0, *dt;
  r = fixture("llm-inference-torch20-history.pickle", &pDoc, &z,
              82281, 163408671704729288ull, 810283, 13083);
  if( r==0 ) return;
  expect_keys(r, azKey, 2);
  segs = get(r, "segments");
  ck_assert_uint_eq(pk_len(segs), 257);
  ck_assert_int_eq(as_int(get(item(segs, 0), "address")), 140499822313472LL);
  ck_assert_ptr_null(pk_dict_get(item(segs, 0), "frames"));
  b0 = item(get(item(segs, 0), "blocks"), 0);
  ck_assert_ptr_null(pk_dict_get(b0, "address"));   /* 2.0: no address */
  ck_assert_int_eq(as_int(get(b0, "size")), 207618048);
  h0 = item(get(b0, "history"), 0);
  ck_assert_int_eq(as_int(get(h0, "real_size")), 205914112);
  ck_assert_int_eq(as_int(get(h0, "addr")), 140499822313472LL);
  ck_assert_uint_eq(pk_len(get(h0, "frames")), 9);
  expect_str(get(item(get(h0, "frames"), 3), "name"),
             "generation_loop_debug_multi_batch");
  ck_assert_int_eq(as_int(get(item(get(h0, "frames"), 3), "line")), 1411);
  dt = item(get(r, "device_traces"), 0);
  ck_assert_uint_eq(pk_len(dt), 1);
  expect_str(get(item(dt, 0), "action"), "free_completed");
  ck_assert_int_eq(as_int(get(item(dt, 0), "size")), 8896512);
  ck_assert_ptr_null(pk_dict_get(item(dt, 0), "time_us"));
  pickle_free(pDoc);
  free(z);
}
END_TEST

START_TEST(test_fx_segment_list_only){
  PkDoc *pDoc;
  unsigned char *z;
  const PkValue *r, *s0;
  r = fixture("segment-list-only.pkl", &pDoc, &z,
              137113, 335277032721091826ull, 1928435, 3747);
  if( r==0 ) return;
  ck_assert_int_eq(r->t, PK_LIST);      /* bare list of segments */
  ck_assert_uint_eq(pk_len(r), 255);
  s0 = item(r, 0);
  ck_assert_int_eq(as_int(get(s0, "device")), 1);
  ck_assert_int_eq(as_int(get(s0, "address")), 139987379027968LL);
  ck_assert_int_eq(as_int(get(s0, "total_size")), 134217728);
  ck_assert_int_eq(as_int(get(s0, "allocated_size")), 87818240);
  ck_assert_uint_eq(pk_len(get(s0, "blocks")), 55);
  ck_assert_int_eq(as_int(get(item(get(s0, "blocks"), 0), "size")), 2621440);
  pickle_free(pDoc);
  free(z);
}
END_TEST

START_TEST(test_fx_empty_snapshot){
  static const char *azKey[] = { "segments", "device_traces",
                                 "allocator_settings",
                                 "external_annotations" };
  PkDoc *pDoc;
  unsigned char *z;
  const PkValue *r, *dt;
  r = fixture("empty-snapshot.pickle", &pDoc, &z, 58, 0, 294, 7);
  if( r==0 ) return;
  expect_keys(r, azKey, 4);
  ck_assert_int_eq(get(r, "segments")->t, PK_LIST);
  ck_assert_uint_eq(pk_len(get(r, "segments")), 0);
  dt = get(r, "device_traces");
  ck_assert_uint_eq(pk_len(dt), 1);
  ck_assert_uint_eq(pk_len(item(dt, 0)), 0);
  ck_assert_uint_eq(pk_len(get(r, "external_annotations")), 0);
  check_allocator_settings(get(r, "allocator_settings"));
  pickle_free(pDoc);
  free(z);
}
END_TEST

START_TEST(test_fx_not_a_snapshot){
  /* plain data, no code opcodes: the decoder accepts it; rejecting it as
  ** "not a snapshot" is the snapshot layer's job */
  PkDoc *pDoc;
  unsigned char *z;
  const PkValue *r;
  r = fixture("not-a-snapshot.pickle", &pDoc, &z, 49, 1, 362, 9);
  if( r==0 ) return;
  ck_assert_int_eq(r->t, PK_DICT);
  ck_assert_uint_eq(pk_len(r), 8);
  expect_str(r->u.dict.k[0], "graag gedaan!");
  expect_str(r->u.dict.k[7], "wat wil je?");
  ck_assert_ptr_null(pk_dict_get(r, "segments"));
  pickle_free(pDoc);
  free(z);
}
END_TEST

START_TEST(test_fx_padding_and_truncation){
  /* a real file with HTML-style NUL padding still decodes; every prefix
  ** of a real file fails cleanly */
  size_t n = 0, i;
  unsigned char *z = read_fixture("tomi-small.pickle", &n), *y;
  PkDoc *pDoc = 0;
  const PkValue *r;
  if( z==0 ) return;
  y = xmalloc(n + 2);
  memcpy(y, z, n);
  y[n] = 0;
  y[n+1] = 0;
  r = dec_ok(y, n + 2, &pDoc);
  ck_assert_uint_eq(pk_len(item(get(r, "device_traces"), 0)), 713);
  pickle_free(pDoc);
  free(y);
  free(z);
  z = read_fixture("empty-snapshot.pickle", &n);
  for(i=0; i<n; i++){
    PfError e;
    y = xmalloc(i + 1);
    memcpy(y, z, i);
    ck_assert_ptr_null(dec(y, i, &pDoc, &e));
    free(y);
  }
  free(z);
  z = read_fixture("tomi-small.pickle", &n);
  for(i=0; i<n; i+=997){
    PfError e;
    ck_assert_ptr_null(dec(z, i, &pDoc, &e));
  }
  free(z);
}
END_TEST

Suite *make_pickle_suite(void){
  Suite *s = suite_create("pickle");
  TCase *tc = tcase_create("decode");
  TCase *tcBig = tcase_create("scale");
  TCase *tcFx = tcase_create("fixtures");
  tcase_add_test(tc, test_cpython_protocols);
  tcase_add_test(tc, test_scalars);
  tcase_add_test(tc, test_stack_and_memo);
  tcase_add_test(tc, test_dict_duplicates_and_accessors);
  tcase_add_test(tc, test_torchscript_style);
  tcase_add_test(tc, test_refuse_global_reduce);
  tcase_add_test(tc, test_refuse_stack_global);
  tcase_add_test(tc, test_refuse_reduce_build_others);
  tcase_add_test(tc, test_refuse_text_and_unknown);
  tcase_add_test(tc, test_not_a_pickle);
  tcase_add_test(tc, test_huge_lengths);
  tcase_add_test(tc, test_frames);
  tcase_add_test(tc, test_stack_errors);
  tcase_add_test(tc, test_memo_errors);
  tcase_add_test(tc, test_trailing_nul_padding);
  tcase_add_test(tc, test_depth_limit);
  tcase_add_test(tc, test_depth_via_memo);
  tcase_add_test(tc, test_cycles);
  tcase_add_test(tc, test_truncation_every_offset);
  tcase_add_test(tc, test_mutations_never_crash);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  tcase_add_test(tcBig, test_big_list_and_dict);
  tcase_set_timeout(tcBig, 120);
  suite_add_tcase(s, tcBig);
  tcase_add_test(tcFx, test_fx_cs336);
  tcase_add_test(tcFx, test_fx_tomi_small);
  tcase_add_test(tcFx, test_fx_llm_history);
  tcase_add_test(tcFx, test_fx_segment_list_only);
  tcase_add_test(tcFx, test_fx_empty_snapshot);
  tcase_add_test(tcFx, test_fx_not_a_snapshot);
  tcase_add_test(tcFx, test_fx_padding_and_truncation);
  tcase_set_timeout(tcFx, 120);
  suite_add_tcase(s, tcFx);
  return s;
}
