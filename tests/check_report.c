/*
** check_report.c — unit tests of rules.c: every built-in rule parses,
** is named after its file, returns the six finding columns and runs
** cleanly on an empty database; severity ranks; a bad rule is refused.
*/
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "db.h"
#include "embedded.h"
#include "rules.h"

/* An empty database with the full schema, in memory (caller closes). */
static sqlite3 *empty_db(void){
  PfError e = {0};
  sqlite3 *db = db_open(":memory:", DB_OPEN_CREATE, &e);
  ck_assert_msg(db!=NULL, "%s", e.zMsg);
  return db;
}

START_TEST(test_builtin_rules_parse){
  NqList list;
  PfError e = {0};
  int n = 0;
  ck_assert_int_eq(rules_load_all(&list, &e), 0);
  for(int i=0; embedded_rule[i].zName; i++) n++;
  ck_assert_int_ge(n, 11);
  ck_assert_int_eq(list.n, n);
  for(int i=0; embedded_rule[i].zName; i++){
    char *zBase = strdup(embedded_rule[i].zName);
    zBase[strlen(zBase)-4] = 0;                  /* drop ".sql" */
    ck_assert_msg(nq_find(&list, zBase)!=NULL, "rule %s", zBase);
    free(zBase);
  }
  for(int i=1; i<list.n; i++){
    ck_assert(strcmp(list.a[i-1].zName, list.a[i].zName)<0);
  }
  nq_list_free(&list);
}
END_TEST

START_TEST(test_rules_run_empty){
  sqlite3 *db = empty_db();
  NqList list;
  PfError e = {0};
  const char *azK[] = { "threshold_pct" }, *azV[] = { "1" };
  const char *azBadK[] = { "nosuch" };
  ck_assert_int_eq(rules_load_all(&list, &e), 0);
  ck_assert_int_eq(rules_run(db, &list, 1, NULL, NULL, 0, &e), 0);
  ck_assert_int_eq(rules_run(db, &list, 1, azK, azV, 1, &e), 0);
  ck_assert_int_eq(rules_run(db, &list, 1, azBadK, azV, 1, &e), -1);
  ck_assert_msg(strstr(e.zMsg, "nosuch")!=NULL, "%s", e.zMsg);
  ck_assert(rules_accepts(&list, "threshold_pct"));
  ck_assert(rules_accepts(&list, "straggler.late_pct"));
  ck_assert(!rules_accepts(&list, "straggler.threshold_pct"));
  ck_assert(!rules_accepts(&list, "straggler.min_steps"));
  ck_assert(!rules_accepts(&list, "nosuch.threshold_pct"));
  nq_list_free(&list);
  db_close(db);
}
END_TEST

START_TEST(test_bad_rules){
  sqlite3 *db = empty_db();
  NqList list = {0};
  PfError e = {0};
  NamedQuery q;
  ck_assert_int_eq(nq_parse("-- name: two-cols\nSELECT 'high' AS severity,"
                            " 'x' AS rule;\n", "test", &q, &e), 0);
  list.a = &q;
  list.n = 1;
  ck_assert_int_eq(rules_run(db, &list, 1, NULL, NULL, 0, &e), -1);
  ck_assert(strstr(e.zMsg, "returns 2 columns")!=NULL);
  nq_clear(&q);
  memset(&e, 0, sizeof(e));            /* the first error set is kept */
  ck_assert_int_eq(nq_parse("-- name: bad-sev\nSELECT 'urgent' AS severity,"
                            " 'x' AS rule, 'm' AS message, 1 AS value,"
                            " 0 AS threshold, 'h' AS hint;\n", "test", &q,
                            &e), 0);
  ck_assert_int_eq(rules_run(db, &list, 1, NULL, NULL, 0, &e), -1);
  ck_assert_msg(strstr(e.zMsg, "'urgent'")!=NULL, "%s", e.zMsg);
  nq_clear(&q);
  ck_assert_int_eq(nq_parse("-- name: ok\n-- param: t = 5  x\n"
                            "SELECT 'low' AS severity, 'ok' AS rule,"
                            " 'm' AS message, :run AS value, :t AS threshold,"
                            " 'h' AS hint;\n", "test", &q, &e), 0);
  ck_assert_int_eq(rules_run(db, &list, 7, NULL, NULL, 0, &e), 1);
  ck_assert_int_eq(db_int(db, 0, "SELECT value*100 + threshold"
                          " FROM temp.finding"), 705);
  nq_clear(&q);
  db_close(db);
}
END_TEST

START_TEST(test_severity_rank){
  ck_assert_int_eq(rules_severity_rank("high"), 0);
  ck_assert_int_eq(rules_severity_rank("medium"), 1);
  ck_assert_int_eq(rules_severity_rank("low"), 2);
  ck_assert_int_eq(rules_severity_rank("info"), 3);
  ck_assert_int_eq(rules_severity_rank("High"), -1);
  ck_assert_int_eq(rules_severity_rank(NULL), -1);
}
END_TEST

Suite *make_report_suite(void){
  Suite *s = suite_create("report");
  TCase *tc = tcase_create("rules");
  tcase_add_test(tc, test_builtin_rules_parse);
  tcase_add_test(tc, test_rules_run_empty);
  tcase_add_test(tc, test_bad_rules);
  tcase_add_test(tc, test_severity_rank);
  suite_add_tcase(s, tc);
  return s;
}
