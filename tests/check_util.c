/*
** check_util.c — unit tests for util.c (Buf, PfError, XXH64, sanitize).
*/
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "core/util.h"
#include "core/runref.h"

START_TEST(test_buf){
  Buf b;
  char *z;
  buf_init(&b);
  ck_assert_str_eq(buf_str(&b), "");
  buf_puts(&b, "abc");
  buf_printf(&b, "-%d-", 42);
  buf_putc(&b, 'x');
  ck_assert_str_eq(buf_str(&b), "abc-42-x");
  ck_assert_uint_eq(b.n, 8);
  for(int i=0; i<1000; i++) buf_putc(&b, 'y');
  ck_assert_uint_eq(b.n, 1008);
  z = buf_steal(&b);
  ck_assert_uint_eq(strlen(z), 1008);
  ck_assert_ptr_null(b.z);
  free(z);
}
END_TEST

START_TEST(test_error_first_wins){
  PfError e = {0};
  Buf b;
  pf_error_set(&e, ERRPOS_BYTE, 1234567, "expected '%s'", ",");
  pf_error_set(&e, ERRPOS_LINE, 3, "second");
  buf_init(&b);
  pf_error_format(&e, "trace.json", &b);
  ck_assert_str_eq(buf_str(&b), "trace.json:1234567: expected ','");
  buf_free(&b);
}
END_TEST

START_TEST(test_xxh64_known_values){
  /* Reference values of the XXH64 algorithm (seed 0). */
  Hash64 h;
  hash64_init(&h, 0);
  ck_assert_uint_eq(hash64_final(&h), 0xef46db3751d8e999ULL);
  hash64_init(&h, 0);
  hash64_update(&h, "a", 1);
  ck_assert_uint_eq(hash64_final(&h), 0xd24ec4f1a98c6e5bULL);
  {
    const char *z = "The quick brown fox jumps over the lazy dog";
    Hash64 h2;
    hash64_init(&h, 0);
    hash64_update(&h, z, strlen(z));
    ck_assert_uint_eq(hash64_final(&h), 0x0b242d361fda71bcULL);
    /* streaming in pieces gives the same value */
    hash64_init(&h2, 0);
    for(size_t i=0; i<strlen(z); i+=5){
      size_t n = strlen(z)-i < 5 ? strlen(z)-i : 5;
      hash64_update(&h2, z+i, n);
    }
    ck_assert_uint_eq(hash64_final(&h2), 0x0b242d361fda71bcULL);
  }
}
END_TEST

START_TEST(test_sanitize){
  char z[16];
  util_sanitize("a\nb\x01" "c", 5, z, sizeof(z));
  ck_assert_str_eq(z, "a?b?c");
  util_sanitize("0123456789abcdefghij", 20, z, sizeof(z));
  ck_assert_uint_lt(strlen(z), sizeof(z));
  ck_assert_str_eq(z+strlen(z)-3, "...");
}
END_TEST

/* Zeroed tables below and above the mapping threshold, after a dirty
** chunk of the same size was freed: every byte zero,
** writable to the last byte, freed by util_array_free with their size. */
/* "did you mean": the nearest candidate within the edit limit, a unique
** prefix, nothing for an exact name or a far one. */
START_TEST(test_nearest){
  static const char *const az[] = { "top-kernels", "trend", "steps",
    "step_time_median_ms", "step_time_mean_ms", "query", "queries" };
  const int n = (int)(sizeof(az)/sizeof(az[0]));
  ck_assert_str_eq(util_nearest("top-kernel", az, n), "top-kernels");
  ck_assert_str_eq(util_nearest("quer", az, n), "query");
  ck_assert_str_eq(util_nearest("qeury", az, n), "query");   /* a swap */
  ck_assert_str_eq(util_nearest("step_time_mediam_ms", az, n),
                   "step_time_median_ms");
  ck_assert_str_eq(util_nearest("STEPS", az, n), "steps");   /* case */
  ck_assert_str_eq(util_nearest("tre", az, n), "trend");     /* prefix */
  /* "step": a prefix of several, and one edit from "steps" */
  ck_assert_str_eq(util_nearest("step", az, n), "steps");
  ck_assert_ptr_null(util_nearest("steps", az, n));          /* exact */
  ck_assert_ptr_null(util_nearest("x", az, n));
  ck_assert_ptr_null(util_nearest("nosuch", az, n));
  ck_assert_ptr_null(util_nearest("", az, n));
}
END_TEST

/* A run name that would read as a run id, 'latest' or nothing is
** refused; others pass. */
START_TEST(test_run_name_problem){
  static const char *const azBad[] = { "", "3", "007", "-7", "+2", " 42 ",
    "latest" };
  static const char *const azGood[] = { "run-3", "3a", "job 12", "Latest",
    "1.5", "-", "nightly" };
  for(size_t i=0; i<sizeof(azBad)/sizeof(azBad[0]); i++){
    ck_assert_msg(runref_name_problem(azBad[i])!=NULL, "%s", azBad[i]);
  }
  for(size_t i=0; i<sizeof(azGood)/sizeof(azGood[0]); i++){
    ck_assert_msg(runref_name_problem(azGood[i])==NULL, "%s", azGood[i]);
  }
}
END_TEST

START_TEST(test_array_zeroed){
  size_t an[] = {64, UTIL_ARRAY_MAP-8, UTIL_ARRAY_MAP, 3*UTIL_ARRAY_MAP+5};
  for(size_t i=0; i<sizeof(an)/sizeof(an[0]); i++){
    unsigned char *p = xmalloc(an[i]);
    size_t nz = 0;
    memset(p, 0xa5, an[i]);        /* a chunk malloc may hand out again */
    free(p);
    p = util_array_zeroed(an[i]);
    for(size_t j=0; j<an[i]; j++) nz += p[j]!=0;
    ck_assert_uint_eq(nz, 0);
    p[0] = 1;
    p[an[i]-1] = 2;
    ck_assert_uint_eq(p[an[i]-1], 2);
    util_array_free(p, an[i]);
  }
}
END_TEST

Suite *make_util_suite(void){
  Suite *s = suite_create("util");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_buf);
  tcase_add_test(tc, test_error_first_wins);
  tcase_add_test(tc, test_xxh64_known_values);
  tcase_add_test(tc, test_sanitize);
  tcase_add_test(tc, test_array_zeroed);
  tcase_add_test(tc, test_nearest);
  tcase_add_test(tc, test_run_name_problem);
  suite_add_tcase(s, tc);
  return s;
}
