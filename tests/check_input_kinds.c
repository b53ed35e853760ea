/*
** check_input_kinds.c — unit tests of the table of input kinds (input_kinds.c)
** and of sniffing through it (discover_sniff).
*/
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "core/db.h"
#include "ingest/discover.h"
#include "ingest/input_kinds.h"

/* 1 when zList (space-separated names) holds zName. */
static int list_has(const char *zList, const char *zName){
  size_t n = strlen(zName);
  const char *z = zList;
  while( (z = strstr(z, zName))!=NULL ){
    if( (z==zList || z[-1]==' ') && (z[n]==0 || z[n]==' ') ) return 1;
    z += n;
  }
  return 0;
}

START_TEST(test_table_order){
  for(int i=0; i<KIND_N; i++){
    ck_assert_int_eq(aInputKind[i].eKind, i);
    ck_assert_ptr_nonnull(aInputKind[i].zName);
    if( i>KIND_UNKNOWN ) ck_assert_ptr_nonnull(aInputKind[i].xSniff);
    /* every kind but the trace has a loader of its own */
    if( i>KIND_TRACE ) ck_assert_ptr_nonnull(aInputKind[i].xLoad);
  }
}
END_TEST

/* The rows of zSql (one text column) on db, space-separated, into z. */
static void column_list(sqlite3 *db, const char *zSql, char *z, size_t n){
  sqlite3_stmt *p;
  z[0] = 0;
  ck_assert_int_eq(sqlite3_prepare_v2(db, zSql, -1, &p, NULL), SQLITE_OK);
  while( sqlite3_step(p)==SQLITE_ROW ){
    size_t k = strlen(z);
    snprintf(z+k, n-k, "%s%s", k ? " " : "",
             (const char *)sqlite3_column_text(p, 0));
  }
  sqlite3_finalize(p);
}

/* The kinds of run_file the loaders write and the raw tables of the
** catalogue (table_role) agree: every raw table's input_kind is a kind
** some input kind's files become, every such kind has raw tables, and
** every table with a file_id column is raw or derived. */
START_TEST(test_kinds_match_the_catalogue){
  PfError e = {0};
  sqlite3 *db = db_open(":memory:", DB_OPEN_CREATE, &e);
  char zKinds[512], zList[4096], zTab[64];
  const char *z;
  ck_assert_ptr_nonnull(db);
  column_list(db, "SELECT DISTINCT input_kind FROM table_role"
              " WHERE role='raw' ORDER BY 1", zKinds, sizeof(zKinds));
  ck_assert_str_eq(zKinds, "flight_recorder nccl_log snapshot trace");
  for(z = zKinds; sscanf(z, "%63s", zTab)==1; z = strstr(z, zTab)+strlen(zTab)){
    int nOwner = 0;
    for(int i=0; i<KIND_N; i++) nOwner += list_has(aInputKind[i].zFileKinds,
                                                   zTab);
    ck_assert_msg(nOwner>0, "raw tables of kind %s, which no input kind"
                  " writes", zTab);
  }
  for(int i=1; i<KIND_N; i++){
    for(z = aInputKind[i].zFileKinds; sscanf(z, "%63s", zTab)==1;
        z = strstr(z, zTab)+strlen(zTab)){
      ck_assert_msg(list_has(zKinds, zTab), "input kind %s writes files of"
                    " kind %s, which no raw table has", aInputKind[i].zName,
                    zTab);
    }
  }
  /* tables with a file_id: raw, or derived from raw rows (collective) */
  column_list(db, "SELECT m.name FROM sqlite_schema m WHERE m.type='table'"
              " AND EXISTS (SELECT 1 FROM pragma_table_info(m.name)"
              " WHERE name='file_id') AND NOT EXISTS (SELECT 1 FROM"
              " table_role r WHERE r.name=m.name AND r.role IN ('raw',"
              " 'derived_rank', 'derived_run'))", zList, sizeof(zList));
  ck_assert_str_eq(zList, "");
  /* raw tables hold a run's rows */
  column_list(db, "SELECT name FROM table_role r WHERE role='raw' AND NOT"
              " EXISTS (SELECT 1 FROM pragma_table_info(r.name) WHERE"
              " name='run_id')", zList, sizeof(zList));
  ck_assert_str_eq(zList, "");
  db_close(db);
}
END_TEST

static FileKind sniff(const char *z){
  char zWhy[128];
  return discover_sniff(z, strlen(z), zWhy, sizeof(zWhy));
}

START_TEST(test_sniff_kinds){
  ck_assert_int_eq(sniff("{\"traceEvents\": []}"), KIND_TRACE);
  ck_assert_int_eq(sniff("\xef\xbb\xbf [{\"ph\": \"X\"}]"), KIND_TRACE);
  ck_assert_int_eq(sniff("\x80\x04\x95"), KIND_PICKLE);
  ck_assert_int_eq(sniff("{\"version\": \"2.4\", \"entries\": []}"),
                   KIND_FR_JSON);
  ck_assert_int_eq(sniff("{\"version\": 1, \"pg_config\": {}}"),
                   KIND_FR_JSON);
  /* a trace with the flight recorder's keys is still a trace */
  ck_assert_int_eq(sniff("{\"version\":1,\"entries\":1,\"traceEvents\":[]}"),
                   KIND_TRACE);
  ck_assert_int_eq(sniff("h-1:12:13 [0] NCCL INFO Bootstrap : Using eth0\n"),
                   KIND_NCCL_LOG);
  ck_assert_int_eq(sniff("[3] NCCL INFO Trees [0] 1/-1/-1->0->-1\n"),
                   KIND_NCCL_LOG);
  ck_assert_int_eq(sniff(" \n\t"), KIND_UNKNOWN);
  ck_assert_int_eq(sniff("{\"a\": 1}"), KIND_UNKNOWN);
}
END_TEST

/* Discovery uses the strict NCCL check: prose that mentions NCCL INFO is
** not a log (the substring check it replaced took it for one). */
START_TEST(test_sniff_nccl_strict){
  char zWhy[128];
  static const char zProse[] = "the NCCL INFO lines are missing here\n";
  ck_assert_int_eq(discover_sniff(zProse, sizeof(zProse)-1, zWhy,
                                  sizeof(zWhy)), KIND_UNKNOWN);
  ck_assert_str_eq(zWhy, "not a trace, memory snapshot or NCCL log");
}
END_TEST

Suite *make_input_kinds_suite(void){
  Suite *s = suite_create("input_kinds");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_table_order);
  tcase_add_test(tc, test_kinds_match_the_catalogue);
  tcase_add_test(tc, test_sniff_kinds);
  tcase_add_test(tc, test_sniff_nccl_strict);
  suite_add_tcase(s, tc);
  return s;
}
