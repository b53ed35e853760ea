/*
** check_pickle.c — unit tests for the safe pickle decoder (src/input/pickle.c).
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

#include "input/pickle.h"
#include "core/util.h"

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

/* Code names that are not UTF-8 are shown with '?' for the bad bytes (the
** message goes to stderr). */
START_TEST(test_refuse_global_bad_utf8){
  static const char z[] = "\x80\x02" "co\xffs\nsy\xc3\xa9\xed\xa0\x80m\n.";
  EXPECT_ERR(z, 2, "opcode GLOBAL (0x63) is refused: the file names code "
             "(o?s sy\xc3\xa9???m), profan only reads plain data");
}
END_TEST

/* pk_utf8_bad / pk_utf8_fix: each byte outside a valid sequence counts and
** becomes '?'; overlong forms, surrogates, code points past U+10FFFF and
** sequences cut by the end are invalid. */
START_TEST(test_utf8_check_and_fix){
  static const struct { const char *z; size_t nBad; const char *zFixed; } a[] = {
    { "plain ascii", 0, "plain ascii" },
    { "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0,
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
    { "forw\xffrd", 1, "forw?rd" },
    { "\xc0\xaf", 2, "??" },                      /* overlong '/' */
    { "\xe0\x80\xaf", 3, "???" },                /* overlong, 3 bytes */
    { "\xed\xa0\x80x", 3, "???x" },              /* lone surrogate */
    { "\xf4\x90\x80\x80", 4, "????" },          /* past U+10FFFF */
    { "ab\xe2\x82", 2, "ab??" },                  /* cut at the end */
    { "\x80\xbf", 2, "??" },                      /* stray continuations */
  };
  for(size_t i=0; i<sizeof(a)/sizeof(a[0]); i++){
    size_t n = strlen(a[i].z);
    char zOut[32];
    ck_assert_uint_eq(pk_utf8_bad(a[i].z, n), a[i].nBad);
    memset(zOut, 0, sizeof(zOut));
    pk_utf8_fix(a[i].z, n, zOut);
    ck_assert_str_eq(zOut, a[i].zFixed);
  }
}
END_TEST

/* pk_sanitize: control characters and bad bytes become '?', long text is
** cut at a character boundary and ends with "...". */
START_TEST(test_sanitize){
  char z[12];
  pk_sanitize("a\tb\xff" "c", 5, z, sizeof(z));
  ck_assert_str_eq(z, "a?b?c");
  pk_sanitize("exactly 11!", 11, z, sizeof(z));
  ck_assert_str_eq(z, "exactly 11!");
  pk_sanitize("this is too long", 16, z, sizeof(z));
  ck_assert_str_eq(z, "this is ...");
  /* the cut does not split the 2-byte e-acute at bytes 7-8 */
  pk_sanitize("1234567\xc3\xa9xyz", 12, z, sizeof(z));
  ck_assert_str_eq(z, "1234567...");
  pk_sanitize("abcdef", 6, z, 3);
  ck_assert_str_eq(z, "..");
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

/* ------------------------------------------------------------ streaming */

/*
** A snapshot-shaped pickle as CPython's pickler writes one (protocol 4, no
** FRAME): {"segments": [], "device_traces": [[e0, ..., e(n-1)]]}, the
** trace in APPENDS batches of nBatch entries (a last single entry with
** APPEND).  Entry i is {"action": "alloc" (even i) or "free_requested",
** "addr": 2**40 + 512*i, "frames": F(i)}: F(i) is the list made by entry 0
** (shared through the memo) when i % 3 == 0, else a new list [D(i/7)]
** whose frame dict D(k) = {"name": "f<k>", "line": k} is made at its first
** use and fetched from the memo after, so that values made inside one
** batch are used by later ones.  Keys are memoized once up front.  bad selects a variant that a streaming
** decode must hand back (see test_stream_fallback).
*/
enum { SB_OK, SB_ENTRY_TWICE, SB_INNER_AS_VALUE, SB_ADD_TO_OLD,
       SB_EXTRA_ITEM, SB_NESTED_KEY, SB_GLOBAL };
static size_t g_iGlobal;   /* SB_GLOBAL: offset of the GLOBAL opcode */
typedef struct SBuild { Buf b; uint32_t nMemo; uint32_t *aFrame; } SBuild;

static uint32_t sb_memoize(SBuild *s){
  b_op(&s->b, 0x94);
  return s->nMemo++;
}
static void sb_get(SBuild *s, uint32_t idx){
  b_op(&s->b, 'j');
  b_u32(&s->b, idx);
}
static void sb_str(SBuild *s, const char *z){
  b_op(&s->b, 0x8c);
  b_op(&s->b, (int)strlen(z));
  buf_puts(&s->b, z);
}

static unsigned char *stream_pickle(size_t nEntry, size_t nBatch, int bad,
                                    size_t *pn){
  SBuild s;
  uint32_t kAction, kAddr, kFrames, kName, kLine, vAlloc = 0, vFree = 0;
  uint32_t iList0 = 0, iEntry5 = 0, iInner;
  size_t i, nFrameDict = nEntry/7 + 1;
  memset(&s, 0, sizeof(s));
  buf_init(&s.b);
  s.aFrame = xcalloc(nFrameDict, sizeof(uint32_t));
  b_op(&s.b, 0x80); b_op(&s.b, 4);
  b_op(&s.b, '}'); sb_memoize(&s);
  if( bad==SB_NESTED_KEY ){              /* {"x": {...snapshot...}} */
    sb_str(&s, "x"); sb_memoize(&s);
    b_op(&s.b, '}'); sb_memoize(&s);
  }
  b_op(&s.b, '(');
  sb_str(&s, "segments"); sb_memoize(&s);
  b_op(&s.b, ']'); sb_memoize(&s);
  sb_str(&s, "device_traces"); sb_memoize(&s);
  b_op(&s.b, ']'); sb_memoize(&s);
  b_op(&s.b, ']'); iInner = sb_memoize(&s);
  sb_str(&s, "action"); kAction = sb_memoize(&s);
  b_op(&s.b, '0');                       /* POP: keys are only memoized */
  sb_str(&s, "addr"); kAddr = sb_memoize(&s); b_op(&s.b, '0');
  sb_str(&s, "frames"); kFrames = sb_memoize(&s); b_op(&s.b, '0');
  sb_str(&s, "name"); kName = sb_memoize(&s); b_op(&s.b, '0');
  sb_str(&s, "line"); kLine = sb_memoize(&s); b_op(&s.b, '0');
  for(i=0; i<nEntry; i++){
    int bSingle = i==nEntry-1 && i%nBatch==0;
    if( i%nBatch==0 && !bSingle ) b_op(&s.b, '(');
    if( bad==SB_ENTRY_TWICE && i==nBatch+1 ){
      sb_get(&s, iEntry5);               /* an entry of the first batch */
    }else if( bad==SB_GLOBAL && i==nBatch+1 ){
      g_iGlobal = s.b.n;
      buf_puts(&s.b, "cos\nsystem\n");
    }else{
      b_op(&s.b, '}');
      if( i==5 ) iEntry5 = sb_memoize(&s); else sb_memoize(&s);
      b_op(&s.b, '(');
      sb_get(&s, kAction);
      if( i%2==0 ){
        if( vAlloc ) sb_get(&s, vAlloc);
        else{ sb_str(&s, "alloc"); vAlloc = sb_memoize(&s); }
      }else{
        if( vFree ) sb_get(&s, vFree);
        else{ sb_str(&s, "free_requested"); vFree = sb_memoize(&s); }
      }
      sb_get(&s, kAddr);
      b_long8(&s.b, ((int64_t)1 << 40) + 512*(int64_t)i);
      sb_get(&s, kFrames);
      if( i%3==0 && i>0 ){
        sb_get(&s, iList0);
      }else{
        size_t k = i/7;
        b_op(&s.b, ']');
        if( i==0 ) iList0 = sb_memoize(&s); else sb_memoize(&s);
        if( s.aFrame[k] ){
          sb_get(&s, s.aFrame[k]);
        }else{
          char zName[32];
          b_op(&s.b, '}'); s.aFrame[k] = sb_memoize(&s);
          b_op(&s.b, '(');
          sb_get(&s, kName);
          snprintf(zName, sizeof(zName), "f%zu", k);
          sb_str(&s, zName); sb_memoize(&s);
          sb_get(&s, kLine);
          b_op(&s.b, 'J'); b_u32(&s.b, (uint32_t)k);
          b_op(&s.b, 'u');
        }
        b_op(&s.b, 'a');
      }
      b_op(&s.b, 'u');
    }
    if( bad==SB_ADD_TO_OLD && i==nBatch+3 ){
      /* an old list grows inside a later batch */
      sb_get(&s, iList0);
      b_op(&s.b, 'N');
      b_op(&s.b, 'a');
      b_op(&s.b, '0');
    }
    if( bSingle ) b_op(&s.b, 'a');
    else if( i%nBatch==nBatch-1 || i==nEntry-1 ) b_op(&s.b, 'e');
  }
  b_op(&s.b, 'a');                       /* the inner list into the outer */
  if( bad==SB_EXTRA_ITEM ){
    sb_get(&s, iInner - 1);              /* the outer list, again */
    b_op(&s.b, 'K'); b_op(&s.b, 5);
    b_op(&s.b, 'a');
    b_op(&s.b, '0');
  }
  if( bad==SB_INNER_AS_VALUE ){          /* root["again"] = the inner list */
    sb_str(&s, "again"); sb_memoize(&s);
    sb_get(&s, iInner);
  }
  b_op(&s.b, 'u');
  if( bad==SB_NESTED_KEY ) b_op(&s.b, 's');
  b_op(&s.b, '.');
  free(s.aFrame);
  *pn = s.b.n;
  return (unsigned char*)s.b.z;
}

/* What a test consumer saw. */
typedef struct Seen {
  size_t n;                 /* items */
  size_t iBad;              /* first item not as expected, or (size_t)-1 */
  size_t iList;             /* iList of the last item */
  size_t nStop;             /* refuse item nStop (0: never) */
  PfError *pErr;
} Seen;

/* Non-zero if v is entry i of stream_pickle()'s trace. */
static int entry_ok(const PkValue *v, size_t i){
  const PkValue *f, *fr;
  int64_t x = 0;
  if( !pk_str_eq(pk_dict_get(v, "action"), i%2 ? "free_requested" : "alloc") ){
    return 0;
  }
  if( pk_as_int(pk_dict_get(v, "addr"), &x) ) return 0;
  if( x!=((int64_t)1 << 40) + 512*(int64_t)i ) return 0;
  fr = pk_dict_get(v, "frames");
  if( fr==0 || fr->t!=PK_LIST || fr->u.seq.n!=1 ) return 0;
  f = fr->u.seq.a[0];
  {
    size_t k = (i%3==0) ? 0 : i/7;
    char zName[32];
    snprintf(zName, sizeof(zName), "f%zu", k);
    if( !pk_str_eq(pk_dict_get(f, "name"), zName) ) return 0;
    if( pk_as_int(pk_dict_get(f, "line"), &x) || x!=(int64_t)k ) return 0;
  }
  return 1;
}

static int seen_item(void *pCtx, size_t iList, const PkValue *pItem){
  Seen *s = pCtx;
  if( s->nStop && s->n+1==s->nStop ){
    pf_error_set(s->pErr, ERRPOS_NONE, 0, "consumer stops at %zu", s->n);
    return -1;
  }
  if( s->iBad==(size_t)-1 && !entry_ok(pItem, s->n) ) s->iBad = s->n;
  s->iList = iList;
  s->n++;
  return 0;
}

START_TEST(test_stream_items){
  /* 2500 entries in batches of 1000 (and 1001, 7: a last single APPEND):
  ** every entry arrives in order with its content, including lists and
  ** dicts made in an earlier batch; the tree keeps the rest and an empty
  ** inner list; the memory held is a fraction of the whole tree's */
  static const size_t aN[][2] = { {2500, 1000}, {1001, 1000}, {7, 3} };
  for(size_t k=0; k<3; k++){
    size_t n;
    unsigned char *z = stream_pickle(aN[k][0], aN[k][1], SB_OK, &n);
    PkDoc *pDoc = 0, *pTree = 0;
    const PkValue *r = 0, *t;
    PfError e;
    Seen s = { 0, (size_t)-1, 99, 0, &e };
    memset(&e, 0, sizeof(e));
    ck_assert_int_eq(pickle_decode_stream(z, n, "device_traces", seen_item,
                                          &s, &pDoc, &r, &e), 0);
    ck_assert_uint_eq(s.n, aN[k][0]);
    ck_assert_msg(s.iBad==(size_t)-1, "entry %zu wrong", s.iBad);
    ck_assert_uint_eq(s.iList, 0);
    ck_assert_uint_eq(pk_len(get(r, "device_traces")), 1);
    ck_assert_uint_eq(pk_len(item(get(r, "device_traces"), 0)), 0);
    ck_assert_uint_eq(pk_len(get(r, "segments")), 0);
    /* the same bytes decoded whole hold the same entries */
    t = dec_ok(z, n, &pTree);
    t = item(get(t, "device_traces"), 0);
    ck_assert_uint_eq(pk_len(t), aN[k][0]);
    for(size_t i=0; i<pk_len(t); i++) ck_assert(entry_ok(item(t, i), i));
    if( k==0 ){
      ck_assert_uint_lt(4*pickle_mem_used(pDoc), pickle_mem_used(pTree));
    }
    pickle_free(pDoc);
    pickle_free(pTree);
    free(z);
  }
}
END_TEST

START_TEST(test_stream_fallback){
  /* legal pickles that streaming cannot take: returns 1, nothing else,
  ** and the whole decode reads them; a dict nested one level down is not
  ** the snapshot's root and streams nothing */
  static const int aBad[] = { SB_ENTRY_TWICE, SB_INNER_AS_VALUE,
                              SB_ADD_TO_OLD, SB_EXTRA_ITEM };
  for(size_t k=0; k<sizeof(aBad)/sizeof(aBad[0]); k++){
    size_t n;
    unsigned char *z = stream_pickle(2500, 1000, aBad[k], &n);
    PkDoc *pDoc = (PkDoc*)1, *pTree = 0;
    const PkValue *r = (const PkValue*)1;
    PfError e;
    Seen s = { 0, (size_t)-1, 0, 0, &e };
    memset(&e, 0, sizeof(e));
    ck_assert_msg(pickle_decode_stream(z, n, "device_traces", seen_item, &s,
                                       &pDoc, &r, &e)==1, "variant %d", aBad[k]);
    ck_assert_ptr_null(pDoc);
    ck_assert_ptr_null(r);
    r = dec_ok(z, n, &pTree);
    ck_assert_uint_ge(pk_len(item(get(r, "device_traces"), 0)), 2500);
    pickle_free(pTree);
    free(z);
  }
  {
    size_t n;
    unsigned char *z = stream_pickle(2500, 1000, SB_NESTED_KEY, &n);
    PkDoc *pDoc = 0;
    const PkValue *r = 0;
    PfError e;
    Seen s = { 0, (size_t)-1, 0, 0, &e };
    memset(&e, 0, sizeof(e));
    ck_assert_int_eq(pickle_decode_stream(z, n, "device_traces", seen_item,
                                          &s, &pDoc, &r, &e), 0);
    ck_assert_uint_eq(s.n, 0);
    r = item(get(get(r, "x"), "device_traces"), 0);
    ck_assert_uint_eq(pk_len(r), 2500);
    for(size_t i=0; i<2500; i++) ck_assert(entry_ok(item(r, i), i));
    pickle_free(pDoc);
    free(z);
  }
}
END_TEST

START_TEST(test_stream_errors){
  /* a consumer's refusal stops the decode with its own error; every
  ** truncation fails as the whole decode fails (same message and offset)
  ** or hands the file back; a refused opcode inside a batch is refused */
  size_t n, i;
  unsigned char *z = stream_pickle(7, 3, SB_OK, &n);
  PkDoc *pDoc = (PkDoc*)1;
  const PkValue *r = (const PkValue*)1;
  PfError e;
  Seen s = { 0, (size_t)-1, 0, 5, &e };
  memset(&e, 0, sizeof(e));
  ck_assert_int_eq(pickle_decode_stream(z, n, "device_traces", seen_item, &s,
                                        &pDoc, &r, &e), -1);
  ck_assert_ptr_null(pDoc);
  ck_assert_str_eq(e.zMsg, "consumer stops at 4");
  for(i=0; i<n; i++){
    unsigned char *zCut = xmalloc(i ? i : 1);
    PfError e2;
    int rc;
    memcpy(zCut, z, i);
    memset(&e, 0, sizeof(e));
    memset(&e2, 0, sizeof(e2));
    s.n = 0;
    s.nStop = 0;
    rc = pickle_decode_stream(zCut, i, "device_traces", seen_item, &s,
                              &pDoc, &r, &e);
    ck_assert_msg(rc==-1 || rc==1, "prefix of %zu bytes: %d", i, rc);
    ck_assert_ptr_null(pDoc);
    ck_assert_int_ne(pickle_decode(zCut, i, &pDoc, &r, &e2), 0);
    if( rc==-1 ){
      ck_assert_str_eq(e.zMsg, e2.zMsg);
      ck_assert_int_eq(e.where, e2.where);
    }
    free(zCut);
  }
  free(z);
  /* GLOBAL in place of the first entry of the second batch */
  z = stream_pickle(7, 3, SB_GLOBAL, &n);
  memset(&e, 0, sizeof(e));
  s.n = 0;
  ck_assert_int_eq(pickle_decode_stream(z, n, "device_traces", seen_item, &s,
                                        &pDoc, &r, &e), -1);
  ck_assert_str_eq(e.zMsg, "opcode GLOBAL (0x63) is refused: the file "
                   "names code (os system), profan only reads plain data");
  ck_assert_int_eq(e.where, (int64_t)g_iGlobal);
  ck_assert_uint_eq(s.n, 3);
  free(z);
}
END_TEST

START_TEST(test_stream_mutations){
  /* every byte of a small streamed snapshot replaced by a spread of
  ** values: whatever the streaming decode says must agree with the whole
  ** decode (success only if it succeeds; the same error at the same
  ** offset; or "decode it whole"), and be clean under ASan/UBSan */
  static const unsigned char aVal[] = { 0x00, 0x01, 0x02, 0x7f, 0x80, 0xff,
                                        '(', ']', '}', 'a', 'e', 'u', 's',
                                        'j', 'h', 0x94, '0', '2', '.', 'N' };
  size_t n, i, k, aRc[3] = { 0, 0, 0 };
  unsigned char *z0 = stream_pickle(7, 3, SB_OK, &n);
  unsigned char *z = xmalloc(n);
  for(i=0; i<n; i++){
    for(k=0; k<sizeof(aVal); k++){
      PkDoc *pS = 0, *pT = 0;
      const PkValue *r = 0;
      PfError eS, eT;
      Seen s = { 0, (size_t)-1, 0, 0, &eS };
      int rs, rt;
      memcpy(z, z0, n);
      z[i] = aVal[k];
      memset(&eS, 0, sizeof(eS));
      memset(&eT, 0, sizeof(eT));
      rs = pickle_decode_stream(z, n, "device_traces", seen_item, &s, &pS,
                                &r, &eS);
      rt = pickle_decode(z, n, &pT, &r, &eT);
      ck_assert_msg(rs>=-1 && rs<=1, "byte %zu = %d: rc %d", i, aVal[k], rs);
      aRc[rs+1]++;
      if( rs==0 ) ck_assert_msg(rt==0, "byte %zu = %d: %s", i, aVal[k],
                                eT.zMsg);
      if( rs==-1 ){
        ck_assert_int_ne(rt, 0);
        ck_assert_str_eq(eS.zMsg, eT.zMsg);
        ck_assert_int_eq(eS.where, eT.where);
      }
      pickle_free(pS);
      pickle_free(pT);
    }
  }
  free(z);
  free(z0);
  ck_assert_uint_gt(aRc[0], 0);   /* some fail, */
  ck_assert_uint_gt(aRc[1], 0);   /* some stream, */
  ck_assert_uint_gt(aRc[2], 0);   /* some need the whole decode */
}
END_TEST

/* Structural equality (strings by bytes), at most 64 levels. */
static int deep_eq(const PkValue *a, const PkValue *b, int depth){
  if( a->t!=b->t || depth>64 ) return 0;
  switch( a->t ){
    case PK_NONE: return 1;
    case PK_BOOL: case PK_INT: return a->u.i==b->u.i;
    case PK_FLOAT: return memcmp(&a->u.f, &b->u.f, sizeof(double))==0;
    case PK_STR: case PK_BYTES: case PK_BIGINT:
      return a->u.s.n==b->u.s.n && memcmp(a->u.s.z, b->u.s.z, a->u.s.n)==0;
    case PK_LIST: case PK_TUPLE:
      if( a->u.seq.n!=b->u.seq.n ) return 0;
      for(size_t i=0; i<a->u.seq.n; i++){
        if( !deep_eq(a->u.seq.a[i], b->u.seq.a[i], depth+1) ) return 0;
      }
      return 1;
    case PK_DICT:
      if( a->u.dict.n!=b->u.dict.n ) return 0;
      for(size_t i=0; i<a->u.dict.n; i++){
        if( !deep_eq(a->u.dict.k[i], b->u.dict.k[i], depth+1)
         || !deep_eq(a->u.dict.v[i], b->u.dict.v[i], depth+1) ) return 0;
      }
      return 1;
  }
  return 0;
}

/* Streamed items compared with the whole decode's trace list. */
typedef struct StreamCmp {
  const PkValue *pTrace;
  size_t n, nBad;
} StreamCmp;

static int cmp_item(void *pCtx, size_t iList, const PkValue *pItem){
  StreamCmp *c = pCtx;
  if( iList!=0 || c->n>=pk_len(c->pTrace)
      || !deep_eq(pItem, c->pTrace->u.seq.a[c->n], 0) ){
    c->nBad++;
  }
  c->n++;
  return 0;
}

START_TEST(test_stream_cs336){
  /* the real fixture streamed: its 19342 trace entries arrive in order,
  ** each equal (action, addr, size, time, frames) to the whole decode's */
  PkDoc *pDoc = 0, *pTree;
  unsigned char *z;
  size_t n;
  const PkValue *r, *t;
  PfError e;
  StreamCmp c;
  z = read_fixture("cs336-fullstep-2025.pickle", &n);
  if( z==0 ) return;
  r = dec_ok(z, n, &pTree);
  t = item(get(r, "device_traces"), 0);
  memset(&c, 0, sizeof(c));
  memset(&e, 0, sizeof(e));
  c.pTrace = t;
  ck_assert_int_eq(pickle_decode_stream(z, n, "device_traces", cmp_item, &c,
                                        &pDoc, &r, &e), 0);
  ck_assert_uint_eq(c.n, 19342);
  ck_assert_uint_eq(c.nBad, 0);
  ck_assert_uint_eq(pk_len(get(r, "segments")), 1010);
  ck_assert_uint_eq(pk_len(item(get(r, "device_traces"), 0)), 0);
  /* frame lists stay (later entries may fetch them from the memo) */
  ck_assert_uint_lt(3*pickle_mem_used(pDoc), 2*pickle_mem_used(pTree));
  pickle_free(pDoc);
  pickle_free(pTree);
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
  tcase_add_test(tc, test_refuse_global_bad_utf8);
  tcase_add_test(tc, test_utf8_check_and_fix);
  tcase_add_test(tc, test_sanitize);
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
  tcase_add_test(tc, test_stream_items);
  tcase_add_test(tc, test_stream_fallback);
  tcase_add_test(tc, test_stream_errors);
  tcase_add_test(tc, test_stream_mutations);
  suite_add_tcase(s, tc);
  tcase_add_test(tcBig, test_big_list_and_dict);
  suite_add_tcase(s, tcBig);
  tcase_add_test(tcFx, test_fx_cs336);
  tcase_add_test(tcFx, test_fx_tomi_small);
  tcase_add_test(tcFx, test_fx_llm_history);
  tcase_add_test(tcFx, test_fx_segment_list_only);
  tcase_add_test(tcFx, test_fx_empty_snapshot);
  tcase_add_test(tcFx, test_fx_not_a_snapshot);
  tcase_add_test(tcFx, test_fx_padding_and_truncation);
  tcase_add_test(tcFx, test_stream_cs336);
  suite_add_tcase(s, tcFx);
  return s;
}
