/*
** check_group_map.c — unit tests for group_map.c (GroupMap, TextCodes),
** the totals behind the 009 summary tables.
*/
#include <check.h>
#include <stdint.h>
#include "core/group_map.h"

typedef struct Tot { int64_t n, sum; } Tot;

/* 5,000 groups (many rehashes), each key seen three times: every group
** keeps its creation index, its zeroed start and its own totals. */
START_TEST(test_group_totals){
  GroupMap m;
  group_map_init(&m, sizeof(Tot));
  for(int pass=0; pass<3; pass++){
    for(int i=0; i<5000; i++){
      int g;
      Tot *t = group_map_get(&m, i%7, i, -i, 0, &g);
      ck_assert_int_eq(g, i);
      ck_assert_int_eq(t->n, pass);
      t->n++;
      t->sum += i + pass;
    }
  }
  ck_assert_int_eq(m.nGroup, 5000);
  for(int g=0; g<m.nGroup; g++){
    const Tot *t = group_map_val(&m, g);
    ck_assert_int_eq(m.aKey[g].b, g);
    ck_assert_int_eq(m.aKey[g].c, -g);
    ck_assert_int_eq(t->n, 3);
    ck_assert_int_eq(t->sum, 3*(int64_t)g + 3);
  }
  /* keys differing in one member only are distinct groups */
  ck_assert_ptr_ne(group_map_get(&m, 0, 0, 0, 1, NULL), group_map_val(&m, 0));
  ck_assert_int_eq(m.nGroup, 5001);
  group_map_free(&m);
}
END_TEST

START_TEST(test_text_codes){
  TextCodes c = {0, 0};
  ck_assert_int_eq(group_map_text_code(&c, NULL), 0);
  ck_assert_int_eq(group_map_text_code(&c, "runtime"), 1);
  ck_assert_int_eq(group_map_text_code(&c, "driver"), 2);
  ck_assert_int_eq(group_map_text_code(&c, "runtime"), 1);
  ck_assert_str_eq(group_map_text_of(&c, 2), "driver");
  ck_assert_ptr_null(group_map_text_of(&c, 0));
  ck_assert_ptr_null(group_map_text_of(&c, 3));
  group_map_text_free(&c);
}
END_TEST

Suite *make_group_map_suite(void){
  Suite *s = suite_create("group_map");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_group_totals);
  tcase_add_test(tc, test_text_codes);
  suite_add_tcase(s, tc);
  return s;
}
