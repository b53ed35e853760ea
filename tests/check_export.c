/*
** check_export.c — unit tests for export_json.c: JSON string escaping,
** microsecond numbers, the validity check of captured args lists, and the
** sink (plain and gzip, nothing left behind when an export fails).
*/
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "report/export_trace.h"

START_TEST(test_json_str){
  Buf b;
  buf_init(&b);
  export_json_str(&b, "a\"b\\c\n\t\r\x01\x1f\x7f" "caf\xC3\xA9", -1);
  ck_assert_str_eq(buf_str(&b),
    "\"a\\\"b\\\\c\\n\\t\\r\\u0001\\u001f\\u007f" "caf\xC3\xA9\"");
  buf_reset(&b);
  export_json_str(&b, "ab\0cd", 5);          /* explicit length, NUL inside */
  ck_assert_str_eq(buf_str(&b), "\"ab\\u0000cd\"");
  buf_reset(&b);
  export_json_str(&b, NULL, -1);
  ck_assert_str_eq(buf_str(&b), "\"\"");
  buf_free(&b);
}
END_TEST

START_TEST(test_json_us){
  static const struct { int64_t ns; const char *z; } a[] = {
    {0, "0.000"}, {1, "0.001"}, {999, "0.999"}, {1000, "1.000"},
    {1661203462598772001LL, "1661203462598772.001"}, {-1500, "-1.500"},
    {INT64_MIN, "-9223372036854775.808"} };
  Buf b;
  buf_init(&b);
  for(size_t i=0; i<sizeof(a)/sizeof(a[0]); i++){
    buf_reset(&b);
    export_json_us(&b, a[i].ns);
    ck_assert_str_eq(buf_str(&b), a[i].z);
  }
  buf_free(&b);
}
END_TEST

START_TEST(test_json_valid){
  static const char *azOk[] = { "[]", "[[8, 256], [256], []]",
    "[\"float\", \"\", \"c10::BFloat16\"]", " [1.5e-3, -2, true, null] ",
    "{\"a\": [1]}", "\"\\u00e9\\n\"", "0" };
  static const char *azBad[] = { "", "[", "[1,]", "[1 2]", "[01x]",
    "[\"a]", "[0x10]", "[nan]", "[inf]", "[1] x", "[\"\\q\"]",
    "[\"\\u12\"]", "[\"a\x01\"]", "{1: 2}", "[1.]", "[-]" };
  char zDeep[200];
  for(size_t i=0; i<sizeof(azOk)/sizeof(azOk[0]); i++){
    ck_assert_msg(export_json_valid(azOk[i]), "%s", azOk[i]);
  }
  for(size_t i=0; i<sizeof(azBad)/sizeof(azBad[0]); i++){
    ck_assert_msg(!export_json_valid(azBad[i]), "%s", azBad[i]);
  }
  ck_assert(!export_json_valid(NULL));
  memset(zDeep, '[', 100);                  /* deeper than the cap */
  memset(zDeep+100, ']', 99);
  zDeep[199] = 0;
  ck_assert(!export_json_valid(zDeep));
}
END_TEST

static char *slurp_gz(const char *zPath){
  gzFile g = gzopen(zPath, "rb");
  char *z = calloc(1, 4096);
  int n;
  ck_assert_ptr_nonnull(g);
  n = gzread(g, z, 4095);
  ck_assert_int_ge(n, 0);
  gzclose(g);
  return z;
}

START_TEST(test_sink){
  char zDir[] = "/tmp/profan-export-XXXXXX";
  char *zPlain, *zGz, *zBad, *z;
  PfError err;
  ExportSink *p;
  Buf b;
  ck_assert_ptr_nonnull(mkdtemp(zDir));
  zPlain = xasprintf("%s/t.json", zDir);
  zGz = xasprintf("%s/t.json.gz", zDir);
  zBad = xasprintf("%s/no/such/dir/t.json", zDir);
  memset(&err, 0, sizeof(err));
  buf_init(&b);
  /* plain: appears only when closed with ok */
  p = export_sink_open(zPlain, &err);
  ck_assert_ptr_nonnull(p);
  buf_puts(&b, "{\"a\":1}");
  export_sink_flush_buf(p, &b);
  ck_assert_uint_eq(b.n, 0);
  ck_assert_int_ne(access(zPlain, F_OK), 0);
  ck_assert_int_eq(export_sink_close(p, 1, &err), 0);
  z = slurp_gz(zPlain);                     /* gzread reads plain too */
  ck_assert_str_eq(z, "{\"a\":1}");
  free(z);
  /* gzip by name */
  p = export_sink_open(zGz, &err);
  export_sink_write(p, "[1,2]", 5);
  ck_assert_int_eq(export_sink_close(p, 1, &err), 0);
  z = slurp_gz(zGz);
  ck_assert_str_eq(z, "[1,2]");
  free(z);
  {
    FILE *f = fopen(zGz, "rb");
    ck_assert_int_eq(fgetc(f), 0x1f);
    ck_assert_int_eq(fgetc(f), 0x8b);
    fclose(f);
  }
  /* a failed export leaves the old file and no temporary */
  p = export_sink_open(zPlain, &err);
  export_sink_write(p, "partial", 7);
  ck_assert_int_eq(export_sink_close(p, 0, &err), 0);
  z = slurp_gz(zPlain);
  ck_assert_str_eq(z, "{\"a\":1}");
  free(z);
  /* an unwritable path: NULL and a message */
  ck_assert_ptr_null(export_sink_open(zBad, &err));
  ck_assert(err.set);
  ck_assert_ptr_nonnull(strstr(err.zMsg, "cannot write"));
  unlink(zPlain);
  unlink(zGz);
  ck_assert_int_eq(rmdir(zDir), 0);        /* nothing else was left */
  free(zPlain);
  free(zGz);
  free(zBad);
  buf_free(&b);
}
END_TEST

Suite *make_export_suite(void){
  Suite *s = suite_create("export");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_json_str);
  tcase_add_test(tc, test_json_us);
  tcase_add_test(tc, test_json_valid);
  tcase_add_test(tc, test_sink);
  suite_add_tcase(s, tc);
  return s;
}
