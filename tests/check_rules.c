/*
** check_rules.c — unit tests of rules.c: every built-in rule parses,
** is named after its file, returns the six finding columns and runs
** cleanly on an empty database; severity ranks; a bad rule is refused;
** typed parameters (named_query.c named_query_check): the header syntax, every
** type's accepted and refused values, required parameters, and that every
** built-in query and rule declares a type for each parameter.
*/
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/db.h"
#include "core/embedded.h"
#include "report/rules.h"

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
    ck_assert_msg(named_query_find(&list, zBase)!=NULL, "rule %s", zBase);
    free(zBase);
  }
  for(int i=1; i<list.n; i++){
    ck_assert(strcmp(list.a[i-1].zName, list.a[i].zName)<0);
  }
  named_query_list_free(&list);
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
  ck_assert(rules_accepts(&list, "straggler.lost_pct"));
  ck_assert(!rules_accepts(&list, "straggler.late_pct"));
  ck_assert(!rules_accepts(&list, "straggler.threshold_pct"));
  ck_assert(!rules_accepts(&list, "straggler.min_steps"));
  ck_assert(!rules_accepts(&list, "nosuch.threshold_pct"));
  named_query_list_free(&list);
  db_close(db);
}
END_TEST

START_TEST(test_bad_rules){
  sqlite3 *db = empty_db();
  NqList list = {0};
  PfError e = {0};
  NamedQuery q;
  ck_assert_int_eq(named_query_parse("-- name: two-cols\nSELECT 'high' AS severity,"
                            " 'x' AS rule;\n", "test", &q, &e), 0);
  list.a = &q;
  list.n = 1;
  ck_assert_int_eq(rules_run(db, &list, 1, NULL, NULL, 0, &e), -1);
  ck_assert(strstr(e.zMsg, "returns 2 columns")!=NULL);
  named_query_clear(&q);
  memset(&e, 0, sizeof(e));            /* the first error set is kept */
  ck_assert_int_eq(named_query_parse("-- name: bad-sev\nSELECT 'urgent' AS severity,"
                            " 'x' AS rule, 'm' AS message, 1 AS value,"
                            " 0 AS threshold, 'h' AS hint;\n", "test", &q,
                            &e), 0);
  ck_assert_int_eq(rules_run(db, &list, 1, NULL, NULL, 0, &e), -1);
  ck_assert_msg(strstr(e.zMsg, "'urgent'")!=NULL, "%s", e.zMsg);
  named_query_clear(&q);
  ck_assert_int_eq(named_query_parse("-- name: ok\n-- param: t = 5  x\n"
                            "SELECT 'low' AS severity, 'ok' AS rule,"
                            " 'm' AS message, :run AS value, :t AS threshold,"
                            " 'h' AS hint;\n", "test", &q, &e), 0);
  ck_assert_int_eq(rules_run(db, &list, 7, NULL, NULL, 0, &e), 1);
  ck_assert_int_eq(db_int(db, 0, "SELECT value*100 + threshold"
                          " FROM temp.finding"), 705);
  named_query_clear(&q);
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


/* named_query_check of one value for parameter "p" declared as zDecl. */
static int check_one(sqlite3 *db, const char *zDecl, const char *zVal,
                     PfError *pErr){
  NamedQuery q;
  char *zText = NULL;
  const char *azK[] = { "p" }, *azV[1];
  int rc;
  azV[0] = zVal;
  ck_assert_int_ne(asprintf(&zText, "-- name: t\n-- param: %s\nSELECT :p;\n",
                            zDecl), -1);
  memset(pErr, 0, sizeof(*pErr));
  ck_assert_int_eq(named_query_parse(zText, "test", &q, pErr), 0);
  rc = named_query_check(db, &q, 1, azK, azV, 1, pErr);
  named_query_clear(&q);
  free(zText);
  return rc;
}

START_TEST(test_typed_params){
  sqlite3 *db = empty_db();
  PfError e = {0};
  NamedQuery q;
  ck_assert_int_eq(named_query_parse("-- name: t\n-- param: lim:int>=0 = 20  rows\n"
                            "-- param: b:run! =   base\n-- param: u = 5  x\n"
                            "SELECT 1;\n", "test", &q, &e), 0);
  ck_assert_str_eq(q.aParam[0].zName, "lim");
  ck_assert_str_eq(q.aParam[0].zType, "int>=0");
  ck_assert_str_eq(q.aParam[0].zDefault, "20");
  ck_assert_str_eq(q.aParam[0].zDesc, "rows");
  ck_assert_str_eq(q.aParam[1].zType, "run");
  ck_assert_int_eq(q.aParam[1].required, 1);
  ck_assert_ptr_null(q.aParam[1].zDefault);
  ck_assert_ptr_null(q.aParam[2].zType);
  /* the required baseline is missing */
  ck_assert_int_eq(named_query_check(db, &q, 1, NULL, NULL, 0, &e), -1);
  ck_assert_str_eq(e.zMsg, "query 't' needs parameter 'b' (--param b=...):"
                   " it accepts a run id, run name or 'latest'");
  named_query_clear(&q);
  /* accepted */
  ck_assert_int_eq(check_one(db, "p:int = 1  x", "-3", &e), 0);
  ck_assert_int_eq(check_one(db, "p:int>=1 = 1  x", "3", &e), 0);
  ck_assert_int_eq(check_one(db, "p:number>=0 = 1  x", "2.5", &e), 0);
  ck_assert_int_eq(check_one(db, "p:bool = 0  x", "1", &e), 0);
  ck_assert_int_eq(check_one(db, "p:a|bb|c = a  x", "bb", &e), 0);
  ck_assert_int_eq(check_one(db, "p:scheme = coarse  x", "detailed", &e), 0);
  ck_assert_int_eq(check_one(db, "p:text = x  x", "5%", &e), 0);
  ck_assert_int_eq(check_one(db, "p = x  x", "anything", &e), 0);
  ck_assert_int_eq(check_one(db, "p:rank =   x", "", &e), 0);  /* NULL */
  /* refused, with what the type accepts */
  ck_assert_int_eq(check_one(db, "p:number>=0 = 1  x", "5%", &e), -1);
  ck_assert_str_eq(e.zMsg, "bad value '5%' for parameter 'p' of query 't':"
                   " it accepts a number >= 0 (no unit, no '%')");
  ck_assert_int_eq(check_one(db, "p:number = 1  x", "nan", &e), -1);
  ck_assert_int_eq(check_one(db, "p:number = 1  x", " 1", &e), -1);
  ck_assert_int_eq(check_one(db, "p:number>=0 = 1  x", "-0.5", &e), -1);
  ck_assert_int_eq(check_one(db, "p:int = 1  x", "1.5", &e), -1);
  ck_assert_str_eq(e.zMsg, "bad value '1.5' for parameter 'p' of query 't':"
                   " it accepts an integer");
  ck_assert_int_eq(check_one(db, "p:int = 1  x", "99999999999999999999", &e),
                   -1);
  ck_assert_int_eq(check_one(db, "p:int>=1 = 1  x", "0", &e), -1);
  ck_assert_int_eq(check_one(db, "p:bool = 0  x", "2", &e), -1);
  ck_assert_str_eq(e.zMsg, "bad value '2' for parameter 'p' of query 't':"
                   " it accepts 0 or 1");
  ck_assert_int_eq(check_one(db, "p:a|bb|c = a  x", "b", &e), -1);
  ck_assert_str_eq(e.zMsg, "bad value 'b' for parameter 'p' of query 't':"
                   " it accepts one of a|bb|c");
  ck_assert_int_eq(check_one(db, "p:scheme = coarse  x", "nosuch", &e), -1);
  ck_assert_str_eq(e.zMsg, "bad value 'nosuch' for parameter 'p' of query"
                   " 't': it accepts a category scheme (coarse, detailed)");
  ck_assert_int_eq(check_one(db, "p:rank =   x", "0", &e), -1);
  ck_assert_str_eq(e.zMsg, "bad value '0' for parameter 'p' of query 't':"
                   " it accepts a rank of run 1 (it has none)");
  ck_assert_int_eq(check_one(db, "p:run =   x", "nosuch", &e), -1);
  db_close(db);
}
END_TEST

/* Every parameter of every built-in query and rule declares its type,
** except those of the files another change owns (listed). */
START_TEST(test_builtin_params_typed){
  static const char *const azUntyped[] = { 0 };
  NqList lists[2];
  PfError e = {0};
  ck_assert_int_eq(named_query_load_all(&lists[0], &e), 0);
  ck_assert_int_eq(rules_load_all(&lists[1], &e), 0);
  for(int l=0; l<2; l++){
    for(int i=0; i<lists[l].n; i++){
      const NamedQuery *q = &lists[l].a[i];
      int skip = 0;
      for(int k=0; azUntyped[k]; k++) if( strcmp(q->zName, azUntyped[k])==0 ) skip = 1;
      if( skip ) continue;
      for(int k=0; k<q->nParam; k++){
        ck_assert_msg(q->aParam[k].zType!=NULL, "%s: %s has no type",
                      q->zName, q->aParam[k].zName);
      }
    }
    named_query_list_free(&lists[l]);
  }
}
END_TEST

Suite *make_rules_suite(void){
  Suite *s = suite_create("rules");
  TCase *tc = tcase_create("rules");
  tcase_add_test(tc, test_builtin_rules_parse);
  tcase_add_test(tc, test_rules_run_empty);
  tcase_add_test(tc, test_bad_rules);
  tcase_add_test(tc, test_severity_rank);
  tcase_add_test(tc, test_typed_params);
  tcase_add_test(tc, test_builtin_params_typed);
  suite_add_tcase(s, tc);
  return s;
}
