/*
** check_snapshot.c — unit tests for the memory-snapshot loader
** (src/memory/load_snapshot.c) and its derive step (src/memory/derive_memory.c).
**
** Pipeline position: tests "normalize" + "load" + "derive" for snapshots.
** The pickles are built inline with a tiny protocol-2 writer (below), so
** each test states its input exactly; the numbers expected from the
** replay were worked out by hand in the comments next to them; the
** replay and warning tests run twice, loading from the whole decoded tree
** and with the trace streamed in while decoding.  The real
** fixtures are covered end to end by tests/e2e/test_snapshot.py.
*/
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/db.h"
#include "input/load_kinds.h"
#include "input/pickle.h"

/* ------------------------------------------------------------ writer */

/* Protocol-2 pickle under construction; free with buf_free(&p->b). */
typedef struct Pw { Buf b; } Pw;

static void pw_begin(Pw *p){
  buf_init(&p->b);
  buf_append(&p->b, "\x80\x02", 2);
}
static void pw_end(Pw *p){ buf_putc(&p->b, '.'); }
static void pw_dict(Pw *p){ buf_append(&p->b, "}(", 2); }   /* then k v.. */
static void pw_list(Pw *p){ buf_append(&p->b, "](", 2); }   /* then items */
static void pw_setitems(Pw *p){ buf_putc(&p->b, 'u'); }
static void pw_appends(Pw *p){ buf_putc(&p->b, 'e'); }
static void pw_str(Pw *p, const char *z){
  uint32_t n = (uint32_t)strlen(z);
  unsigned char h[5] = { 'X', n&0xff, (n>>8)&0xff, (n>>16)&0xff, n>>24 };
  buf_append(&p->b, h, 5);
  buf_append(&p->b, z, n);
}
static void pw_int(Pw *p, int64_t v){      /* LONG1, always 8 bytes */
  unsigned char h[10] = { 0x8a, 8 };
  for(int i=0; i<8; i++) h[2+i] = (unsigned char)((uint64_t)v >> (8*i));
  buf_append(&p->b, h, 10);
}
/* key/value helpers inside an open dict */
static void kv_int(Pw *p, const char *k, int64_t v){
  pw_str(p, k);
  pw_int(p, v);
}
static void kv_str(Pw *p, const char *k, const char *v){
  pw_str(p, k); pw_str(p, v);
}

/* A block dict; zState one of the three states; iAddr < 0: no address. */
static void pw_block(Pw *p, int64_t iAddr, int64_t size, int64_t req,
                     const char *zState){
  pw_dict(p);
  if( iAddr>=0 ) kv_int(p, "address", iAddr);
  kv_int(p, "size", size);
  kv_int(p, "requested_size", req);
  kv_str(p, "state", zState);
  pw_setitems(p);
}

/* A trace entry with one user frame. */
static void pw_event(Pw *p, const char *zAction, int64_t addr, int64_t size){
  pw_dict(p);
  kv_str(p, "action", zAction);
  kv_int(p, "addr", addr);
  kv_int(p, "size", size);
  kv_int(p, "stream", 0);
  pw_str(p, "frames");
  pw_list(p);
  pw_dict(p);
  kv_str(p, "filename", "/work/train.py");
  kv_int(p, "line", 10);
  kv_str(p, "name", "main");
  pw_setitems(p);
  pw_appends(p);
  pw_setitems(p);
}

/* ------------------------------------------------------------ harness */

/* Fresh in-memory database with the whole schema and one run/file. */
static sqlite3 *open_db(void){
  PfError err = {0};
  sqlite3 *db = db_open(":memory:", DB_OPEN_CREATE, &err);
  ck_assert_msg(db!=NULL, "%s", err.zMsg);
  ck_assert_int_eq(db_exec(db,
    "INSERT INTO run(id, name, created_at, content_hash, tool_version)"
    " VALUES(1, 'r', 'now', 'h', 'v');"
    "INSERT INTO run_file(id, run_id, path, kind, bytes, hash)"
    " VALUES(1, 1, 'x.pickle', 'snapshot', 0, 'h')", &err), 0);
  return db;
}

/* Decode p and load it as run 1 / file 1, from the whole tree or (bStream)
** with the device traces streamed into the loader while decoding, as
** load_pickle_file does; returns the loader's code. */
static int load_x(sqlite3 *db, Pw *p, int bStream, LoadStats *pSt,
                  PfError *pErr){
  PkDoc *pDoc = NULL;
  const PkValue *pRoot = NULL;
  LoadTarget t = { 1, 1, "x.pickle" };
  int rc;
  memset(pSt, 0, sizeof(*pSt));
  if( bStream ){
    SnapLoader *L = load_snapshot_new(db, &t, pSt, pErr);
    ck_assert_ptr_nonnull(L);
    ck_assert_int_eq(pickle_decode_stream((const unsigned char*)p->b.z,
                                          p->b.n, "device_traces",
                                          load_snapshot_item, L, &pDoc,
                                          &pRoot, pErr), 0);
    /* the trace lists were handed over, not kept */
    ck_assert_uint_eq(pk_len(pk_dict_get(pRoot, "device_traces")->u.seq.a[0]),
                      0);
    rc = load_snapshot_finish(L, pRoot);
    load_snapshot_free(L);
  }else{
    ck_assert_int_eq(pickle_decode((const unsigned char*)p->b.z, p->b.n,
                                   &pDoc, &pRoot, pErr), 0);
    ck_assert_int_ne(load_snapshot_is_snapshot(pRoot), 0);
    rc = load_snapshot(db, &t, pRoot, pSt, pErr);
  }
  if( rc==0 ) ck_assert_int_eq(derive_memory_run(db, 1, pErr), 0);
  pickle_free(pDoc);
  return rc;
}

static int load(sqlite3 *db, Pw *p, LoadStats *pSt, PfError *pErr){
  return load_x(db, p, 0, pSt, pErr);
}

/* Integer result of zSql (-999 when NULL or no row). */
static int64_t q(sqlite3 *db, const char *zSql){
  return db_int(db, -999, "%s", zSql);
}

/* ------------------------------------------------------------- tests */

/* A string literal and its length (it may hold NUL bytes). */
#define S(z) z, sizeof(z)-1

START_TEST(test_recognise){
  static const struct { const char *z; size_t n; int want; } a[] = {
    /* {'segments': []} */
    { S("\x80\x02}(X\x08\x00\x00\x00" "segments](eu."), 1 },
    /* {'segments': None} */
    { S("\x80\x02}X\x08\x00\x00\x00" "segmentsNs."), 0 },
    /* [] : an empty list says nothing */
    { S("\x80\x02]."), 0 },
    /* [{'blocks': [], 'total_size': 0}] */
    { S("\x80\x02](}(X\x06\x00\x00\x00" "blocks]X\x0a\x00\x00\x00total_size"
        "K\x00ue."), 1 },
    /* [1] */
    { S("\x80\x02]K\x01" "a."), 0 },
    /* {'entries': []} (flight recorder) */
    { S("\x80\x02}X\x07\x00\x00\x00" "entries]s."), 0 },
  };
  for(size_t i=0; i<sizeof(a)/sizeof(a[0]); i++){
    PkDoc *pDoc = NULL;
    const PkValue *pRoot = NULL;
    PfError err = {0};
    ck_assert_msg(pickle_decode((const unsigned char*)a[i].z, a[i].n, &pDoc,
                                &pRoot, &err)==0, "case %zu: %s", i, err.zMsg);
    ck_assert_msg(load_snapshot_is_snapshot(pRoot)==a[i].want, "case %zu", i);
    pickle_free(pDoc);
  }
}
END_TEST

/*
** Trace (requested sizes):
**   0 free_requested X 100   orphan: allocated before the trace
**   1 alloc A 200
**   2 alloc B 300
**   3 free_requested A 200
**   4 free_completed A 200
**   5 alloc C 50
** Snapshot: D 1000 (allocated before the trace), B 300, C 50 allocated.
** allocated at the end 1350, net change 250, so the baseline is 1100 and
** allocated_after is 1000 1200 1500 1300 1300 1350: peak 1500 at 2.
*/
START_TEST(test_replay_anchored){
  sqlite3 *db = open_db();
  LoadStats st;
  PfError err = {0};
  Pw p;
  pw_begin(&p);
  pw_dict(&p);
  pw_str(&p, "segments");
  pw_list(&p);
  pw_dict(&p);
  kv_int(&p, "device", 0);
  kv_int(&p, "address", 4096);
  kv_int(&p, "total_size", 4096);
  pw_str(&p, "blocks");
  pw_list(&p);
  pw_block(&p, 4096, 1024, 1000, "active_allocated");        /* D */
  pw_block(&p, 5120, 512, 300, "active_allocated");          /* B */
  pw_block(&p, 5632, 512, 0, "inactive");
  pw_block(&p, 6144, 512, 50, "active_allocated");           /* C */
  pw_block(&p, 6656, 1536, 0, "inactive");
  pw_appends(&p);
  pw_setitems(&p);
  pw_appends(&p);
  pw_str(&p, "device_traces");
  pw_list(&p);
  pw_list(&p);
  pw_event(&p, "free_requested", 99999, 100);
  pw_event(&p, "alloc", 7000, 200);
  pw_event(&p, "alloc", 5120, 300);
  pw_event(&p, "free_requested", 7000, 200);
  pw_event(&p, "free_completed", 7000, 200);
  pw_event(&p, "alloc", 6144, 50);
  pw_appends(&p);
  pw_appends(&p);
  pw_setitems(&p);
  pw_end(&p);
  ck_assert_int_eq(load_x(db, &p, _i, &st, &err), 0);   /* _i: streamed */
  ck_assert_str_eq(st.zKind, "snapshot");
  ck_assert_int_eq(st.rank, -1);
  ck_assert_int_eq(st.nRecords, 1 + 5 + 6);
  ck_assert_int_eq(st.nWarnings, 0);
  ck_assert_int_eq(q(db, "SELECT allocated_bytes FROM snapshot"), 1350);
  ck_assert_int_eq(q(db, "SELECT baseline_bytes FROM snapshot"), 1100);
  ck_assert_int_eq(q(db, "SELECT net_delta_bytes FROM snapshot"), 250);
  ck_assert_int_eq(q(db, "SELECT trace_live_bytes FROM snapshot"), 350);
  ck_assert_int_eq(q(db, "SELECT n_orphan_frees FROM snapshot"), 1);
  ck_assert_int_eq(q(db, "SELECT peak_allocated_bytes FROM snapshot"), 1500);
  ck_assert_int_eq(q(db, "SELECT peak_event_idx FROM snapshot"), 2);
  ck_assert_int_eq(q(db, "SELECT group_concat(allocated_after, ',') = "
                   "'1000,1200,1500,1300,1300,1350' FROM"
                   " (SELECT allocated_after FROM alloc_event ORDER BY idx)"),
                   1);
  ck_assert_int_eq(q(db, "SELECT free_idx FROM alloc_event WHERE idx=1"), 3);
  ck_assert_int_eq(q(db, "SELECT alloc_idx FROM alloc_event WHERE idx=4"), 1);
  ck_assert_int_eq(q(db, "SELECT alloc_idx FROM alloc_event WHERE idx=0"),
                   -999);
  ck_assert_int_eq(q(db, "SELECT alloc_idx FROM block WHERE address=5120"), 2);
  ck_assert_int_eq(q(db, "SELECT alloc_idx FROM block WHERE address=6144"), 5);
  ck_assert_int_eq(q(db, "SELECT alloc_idx FROM block WHERE address=4096"),
                   -999);
  /* one frame, one stack, shared by every entry; a user frame */
  ck_assert_int_eq(q(db, "SELECT count(*) FROM frame"), 1);
  ck_assert_int_eq(q(db, "SELECT count(*) FROM stack"), 1);
  ck_assert_int_eq(q(db, "SELECT count(DISTINCT stack_id) FROM alloc_event"),
                   1);
  ck_assert_int_eq(q(db, "SELECT user_frame_id IS NOT NULL FROM stack"), 1);
  /* pinned: C (512 B, active) between two inactive blocks */
  ck_assert_int_eq(q(db, "SELECT count(*) FROM block WHERE state<>'inactive'"
                   " AND prev_state='inactive' AND next_state='inactive'"), 1);
  buf_free(&p.b);
  db_close(db);
}
END_TEST

/* torch 2.0 blocks: no address (summed from the segment base), history
** with real_size; a bare segment list on device 1 gets one snapshot row. */
START_TEST(test_legacy_history_list){
  sqlite3 *db = open_db();
  LoadStats st;
  PfError err = {0};
  Pw p;
  pw_begin(&p);
  pw_list(&p);
  pw_dict(&p);
  kv_int(&p, "device", 1);
  kv_int(&p, "address", 1000000);
  kv_int(&p, "total_size", 3000);
  pw_str(&p, "blocks");
  pw_list(&p);
  pw_dict(&p);                                   /* no requested_size */
  kv_int(&p, "size", 1000);
  kv_str(&p, "state", "active_allocated");
  pw_str(&p, "history");
  pw_list(&p);
  pw_dict(&p);
  kv_int(&p, "addr", 1000000);
  kv_int(&p, "real_size", 900);
  pw_setitems(&p);
  pw_appends(&p);
  pw_setitems(&p);
  pw_block(&p, -1, 1500, 0, "inactive");
  pw_block(&p, -1, 500, 500, "active_pending_free");
  pw_appends(&p);
  pw_setitems(&p);
  pw_appends(&p);
  pw_end(&p);
  ck_assert_int_eq(load(db, &p, &st, &err), 0);
  ck_assert_int_eq(q(db, "SELECT count(*) FROM snapshot"), 1);
  ck_assert_int_eq(q(db, "SELECT device FROM snapshot"), 1);
  ck_assert_int_eq(q(db, "SELECT has_trace FROM snapshot"), 0);
  ck_assert_int_eq(q(db, "SELECT allocated_bytes FROM snapshot"), 900);
  ck_assert_int_eq(q(db, "SELECT active_bytes FROM snapshot"), 1500);
  ck_assert_int_eq(q(db, "SELECT pending_free_bytes FROM snapshot"), 500);
  ck_assert_int_eq(q(db, "SELECT peak_allocated_bytes FROM snapshot"), 900);
  ck_assert_int_eq(q(db, "SELECT address FROM block WHERE idx=2"), 1002500);
  ck_assert_int_eq(q(db, "SELECT block_format='history' FROM snapshot"), 1);
  buf_free(&p.b);
  db_close(db);
}
END_TEST

/* Damaged entries are warnings, not errors; blocks that do not tile their
** segment are reported. */
START_TEST(test_warnings){
  sqlite3 *db = open_db();
  LoadStats st;
  PfError err = {0};
  Pw p;
  pw_begin(&p);
  pw_dict(&p);
  pw_str(&p, "segments");
  pw_list(&p);
  pw_dict(&p);
  kv_int(&p, "device", 0);
  kv_int(&p, "address", 0);
  kv_int(&p, "total_size", 100);
  pw_str(&p, "blocks");
  pw_list(&p);
  pw_block(&p, 0, 60, 0, "inactive");
  pw_appends(&p);
  pw_setitems(&p);
  pw_appends(&p);
  pw_str(&p, "device_traces");
  pw_list(&p);
  pw_list(&p);
  pw_event(&p, "teleport", 1, 1);
  pw_appends(&p);
  pw_appends(&p);
  pw_setitems(&p);
  pw_end(&p);
  ck_assert_int_eq(load_x(db, &p, _i, &st, &err), 0);   /* _i: streamed */
  ck_assert_int_eq(st.nWarnings, 2);
  ck_assert_str_eq(st.zFirstWarning,
                   "device_traces[0][0]: unknown action (stored as is)");
  ck_assert_int_eq(q(db, "SELECT count(*) FROM alloc_event"
                   " WHERE action='teleport'"), 1);
  buf_free(&p.b);
  db_close(db);
}
END_TEST

/* Entry fields the compact trace keeps aside: 70 distinct streams (the
** per-trace stream table holds 64), an oom's device_free, an action
** profan does not know; each row must still carry its own values. */
START_TEST(test_rare_fields){
  sqlite3 *db = open_db();
  LoadStats st;
  PfError err = {0};
  Pw p;
  pw_begin(&p);
  pw_dict(&p);
  pw_str(&p, "segments");
  pw_list(&p);
  pw_appends(&p);
  pw_str(&p, "device_traces");
  pw_list(&p);
  pw_list(&p);
  for(int i=0; i<70; i++){
    pw_dict(&p);
    kv_str(&p, "action", "alloc");
    kv_int(&p, "addr", 4096*(i+1));
    kv_int(&p, "size", 8);
    kv_int(&p, "stream", 1000 + i);
    pw_setitems(&p);
  }
  pw_dict(&p);
  kv_str(&p, "action", "oom");
  kv_int(&p, "size", 1 << 30);
  kv_int(&p, "stream", 1069);
  kv_int(&p, "device_free", 12345);
  pw_setitems(&p);
  pw_dict(&p);
  kv_str(&p, "action", "teleport");
  kv_int(&p, "addr", 7);
  kv_int(&p, "stream", 5);
  pw_setitems(&p);
  pw_appends(&p);
  pw_appends(&p);
  pw_setitems(&p);
  pw_end(&p);
  ck_assert_int_eq(load_x(db, &p, _i, &st, &err), 0);   /* _i: streamed */
  ck_assert_int_eq(q(db, "SELECT count(*) FROM alloc_event"), 72);
  ck_assert_int_eq(q(db, "SELECT count(*) FROM alloc_event"
                   " WHERE idx<70 AND stream=1000+idx AND addr=4096*(idx+1)"),
                   70);
  ck_assert_int_eq(q(db, "SELECT device_free FROM alloc_event WHERE idx=70"),
                   12345);
  ck_assert_int_eq(q(db, "SELECT stream FROM alloc_event WHERE idx=70"),
                   1069);
  ck_assert_int_eq(q(db, "SELECT addr IS NULL FROM alloc_event WHERE idx=70"),
                   1);
  ck_assert_int_eq(q(db, "SELECT count(*) FROM alloc_event WHERE idx=71"
                   " AND action='teleport' AND stream=5 AND addr=7"), 1);
  ck_assert_int_eq(q(db, "SELECT count(*) FROM alloc_event"
                   " WHERE device_free IS NOT NULL"), 1);
  buf_free(&p.b);
  db_close(db);
}
END_TEST

/* Values of the wrong type or out of range: an entry or a block without a
** usable size is skipped, an optional field is stored as NULL, a string
** that is not UTF-8 is stored with '?' for its bad bytes; each counted. */
START_TEST(test_bad_values){
  static const unsigned char aHalf[9] =    /* BINFLOAT 1.5 */
    { 'G', 0x3f, 0xf8, 0, 0, 0, 0, 0, 0 };
  sqlite3 *db = open_db();
  LoadStats st;
  PfError err = {0};
  Pw p;
  pw_begin(&p);
  pw_dict(&p);
  pw_str(&p, "segments");
  pw_list(&p);
  pw_dict(&p);
  kv_int(&p, "device", 0);
  kv_str(&p, "address", "x");                 /* warning 4: NULL */
  kv_int(&p, "total_size", 100);
  kv_str(&p, "segment_type", "sm\xffll");     /* warning 5: 'sm?ll' */
  pw_str(&p, "blocks");
  pw_list(&p);
  pw_dict(&p);                                 /* warning 6: skipped */
  kv_int(&p, "address", 0);
  kv_str(&p, "size", "big");
  kv_str(&p, "state", "inactive");
  pw_setitems(&p);
  pw_block(&p, 0, 100, 100, "active_allocated");
  pw_appends(&p);
  pw_setitems(&p);
  pw_appends(&p);
  pw_str(&p, "device_traces");
  pw_list(&p);
  pw_list(&p);
  pw_event(&p, "alloc", 0, 100);
  pw_event(&p, "alloc", 4096, -5);             /* warning 1: skipped */
  pw_int(&p, 7);                               /* warning 2: skipped */
  pw_dict(&p);
  kv_str(&p, "action", "free_requested");
  kv_int(&p, "addr", 0);
  kv_int(&p, "size", 100);
  pw_str(&p, "time_us");
  buf_append(&p.b, aHalf, sizeof(aHalf));      /* warning 3: NULL */
  pw_setitems(&p);
  pw_appends(&p);
  pw_appends(&p);
  pw_setitems(&p);
  pw_end(&p);
  ck_assert_int_eq(load_x(db, &p, _i, &st, &err), 0);   /* _i: streamed */
  ck_assert_int_eq(st.nWarnings, 6);
  ck_assert_str_eq(st.zFirstWarning,
                   "device_traces[0][1]: \"size\" is negative (-5); entry skipped");
  ck_assert_int_eq(q(db, "SELECT count(*) FROM alloc_event"), 2);
  ck_assert_int_eq(q(db, "SELECT count(*) FROM alloc_event WHERE idx=1"
                   " AND action='free_requested' AND time_us IS NULL"
                   " AND free_idx IS NULL AND alloc_idx=0"), 1);
  ck_assert_int_eq(q(db, "SELECT count(*) FROM segment WHERE address IS NULL"
                   " AND segment_type='sm?ll' AND total_size=100"), 1);
  ck_assert_int_eq(q(db, "SELECT count(*) FROM block"), 1);
  ck_assert_int_eq(q(db, "SELECT idx FROM block WHERE size=100"), 1);
  buf_free(&p.b);
  db_close(db);
}
END_TEST

Suite *make_snapshot_suite(void){
  Suite *s = suite_create("snapshot");
  TCase *tc = tcase_create("load");
  tcase_add_test(tc, test_recognise);
  tcase_add_loop_test(tc, test_replay_anchored, 0, 2);
  tcase_add_test(tc, test_legacy_history_list);
  tcase_add_loop_test(tc, test_warnings, 0, 2);
  tcase_add_loop_test(tc, test_rare_fields, 0, 2);
  tcase_add_loop_test(tc, test_bad_values, 0, 2);
  suite_add_tcase(s, tc);
  return s;
}
