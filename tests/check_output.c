/*
** check_output.c — unit tests for src/report/output.c.
**
** Pipeline position: tests the last stage (printing query results).  Each
** test prepares a SELECT on an in-memory database, renders it into an
** open_memstream() buffer and compares the exact text for every format:
** unit humanization at its boundaries, bars and sparklines, truncation
** and sanitizing of text, CSV quoting, JSON escaping, NULL and empty
** results, markdown escaping, step errors and the row-buffer limit.
*/
#include "report/output.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static sqlite3 *db;   /* fresh in-memory database for each test */

static void setup(void){
  ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
}

static void teardown(void){
  sqlite3_close(db);
  db = NULL;
}

/*
** Prepares zSql, renders it in format e and returns the text, which the
** caller frees with free().  *pRc (OUT, may be NULL) gets output_stmt()'s
** return code and *pnRow (OUT, may be NULL) the row count.
*/
static char *render(const char *zSql, OutFormat e, int *pRc, int64_t *pnRow){
  sqlite3_stmt *pStmt = NULL;
  char *z = NULL;
  size_t n = 0;
  FILE *f;
  int rc;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, NULL);
  ck_assert_msg(rc==SQLITE_OK, "prepare %s: %s", zSql, sqlite3_errmsg(db));
  f = open_memstream(&z, &n);
  ck_assert_ptr_nonnull(f);
  rc = output_stmt(pStmt, e, f, pnRow);
  fclose(f);
  sqlite3_finalize(pStmt);
  if( pRc ) *pRc = rc;
  else ck_assert_int_eq(rc, SQLITE_DONE);
  return z;
}

/* Asserts that zSql rendered in format e is exactly zWant. */
static void expectOut(const char *zSql, OutFormat e, const char *zWant){
  char *z = render(zSql, e, NULL, NULL);
  ck_assert_str_eq(z, zWant);
  free(z);
}

/*
** Asserts that `SELECT zExpr AS zName` in table format shows the single
** cell zWant (compared without the alignment padding).
*/
static void expectCell(const char *zExpr, const char *zName,
                       const char *zWant){
  char zSql[512];
  char *z, *zCell;
  size_t n;
  snprintf(zSql, sizeof(zSql), "SELECT %s AS \"%s\"", zExpr, zName);
  z = render(zSql, OUT_TABLE, NULL, NULL);
  zCell = strchr(z, '\n');
  ck_assert_ptr_nonnull(zCell);
  zCell = strchr(zCell+1, '\n');
  ck_assert_ptr_nonnull(zCell);
  zCell++;
  while( *zCell==' ' ) zCell++;
  n = strlen(zCell);
  ck_assert_msg(n>0 && zCell[n-1]=='\n', "%s: no row line in [%s]", zSql, z);
  zCell[n-1] = 0;
  ck_assert_msg(strcmp(zCell, zWant)==0, "%s: got [%s] want [%s]",
                zSql, zCell, zWant);
  free(z);
}

START_TEST(test_parse_format){
  OutFormat e = OUT_JSON;
  ck_assert_int_eq(output_parse_format("table", &e), 0);
  ck_assert_int_eq(e, OUT_TABLE);
  ck_assert_int_eq(output_parse_format("csv", &e), 0);
  ck_assert_int_eq(e, OUT_CSV);
  ck_assert_int_eq(output_parse_format("json", &e), 0);
  ck_assert_int_eq(e, OUT_JSON);
  ck_assert_int_eq(output_parse_format("markdown", &e), 0);
  ck_assert_int_eq(e, OUT_MARKDOWN);
  ck_assert_int_eq(output_parse_format("TABLE", &e), -1);
  ck_assert_int_eq(output_parse_format("md", &e), -1);
  ck_assert_int_eq(output_parse_format("", &e), -1);
  ck_assert_int_eq(output_parse_format(NULL, &e), -1);
  ck_assert_int_eq(e, OUT_MARKDOWN);
  ck_assert_str_eq(output_format_name(OUT_CSV), "csv");
  ck_assert_str_eq(output_format_name(OUT_MARKDOWN), "markdown");
}
END_TEST

START_TEST(test_table_basic){
  int64_t nRow = -1;
  int rc;
  char *z = render("SELECT 'a' AS name, 1 AS n, x'00ff' AS b "
                   "UNION ALL SELECT 'bbb', 22, NULL",
                   OUT_TABLE, &rc, &nRow);
  ck_assert_int_eq(rc, SQLITE_DONE);
  ck_assert_int_eq(nRow, 2);
  ck_assert_str_eq(z,
    "name   n  b\n"
    "----  --  ----\n"
    "a      1  00ff\n"
    "bbb   22\n");
  free(z);
  /* A column mixing numbers and text is left-aligned. */
  expectOut("SELECT 1 AS v, 'z' AS w UNION ALL SELECT 'abc', 'z'",
            OUT_TABLE,
            "v    w\n"
            "---  -\n"
            "1    z\n"
            "abc  z\n");
}
END_TEST

START_TEST(test_table_bytes){
  expectCell("0", "size_bytes", "0 B");
  expectCell("512", "size_bytes", "512 B");
  expectCell("1023", "size_bytes", "1023 B");
  expectCell("1024", "size_bytes", "1.0 KiB");
  expectCell("12595", "size_bytes", "12.3 KiB");
  expectCell("1048575", "size_bytes", "1.0 MiB");
  expectCell("312*1048576", "size_bytes", "312.0 MiB");
  expectCell("1610612736", "size_bytes", "1.5 GiB");
  expectCell("1099511627776", "size_bytes", "1.0 TiB");
  expectCell("-1536", "delta_bytes", "-1.5 KiB");
  expectCell("1023.4", "size_bytes", "1023 B");
  expectCell("2048", "bytes", "2.0 KiB");
  expectCell("2048", "Total_BYTES", "2.0 KiB");
  expectCell("2048", "nbytes", "2048");
  expectCell("'n/a'", "size_bytes", "n/a");
}
END_TEST

START_TEST(test_table_durations){
  expectCell("0", "dur_ns", "0 ns");
  expectCell("12", "dur_ns", "12 ns");
  expectCell("999", "dur_ns", "999 ns");
  expectCell("1000", "dur_ns", "1.00 us");
  expectCell("12345", "dur_ns", "12.3 us");
  expectCell("99960", "dur_ns", "100 us");
  expectCell("789000", "dur_ns", "789 us");
  expectCell("999999", "dur_ns", "1.00 ms");
  expectCell("45600000", "dur_ns", "45.6 ms");
  expectCell("1234567890", "dur_ns", "1.23 s");
  expectCell("3600000000000", "dur_ns", "3600 s");
  expectCell("-2500", "skew_ns", "-2.50 us");
  expectCell("12.5", "dur_ns", "12.5 ns");
  expectCell("12.0", "dur_ns", "12 ns");
  /* _us and _ms keep their unit and follow the plain float rule */
  expectCell("12.3456", "dur_us", "12.346");
  expectCell("7", "dur_us", "7");
  expectCell("0.5", "wait_ms", "0.5");
  expectCell("0.00002", "wait_ms", "0.00002");
  expectCell("50", "util_pct", "50.0");
  expectCell("33.333", "util_pct", "33.3");
  /* a small share keeps two significant digits */
  expectCell("0.043", "util_pct", "0.043");
  expectCell("0.0", "util_pct", "0.0");
}
END_TEST

START_TEST(test_table_floats){
  expectCell("2.0", "x", "2");
  expectCell("2.5", "x", "2.5");
  expectCell("1.23456", "x", "1.235");
  expectCell("0.0001", "x", "0.0001");
  /* below 1: three significant digits, never an exponent above 1e-9 */
  expectCell("0.000009", "tflops", "0.000009");
  expectCell("0.0123456", "x", "0.0123");
  expectCell("0.123456", "x", "0.123");
  expectCell("-0.00001234", "x", "-0.0000123");
  expectCell("1e-12", "x", "1e-12");
  expectCell("-0.0", "x", "0");
  expectCell("1e20", "x", "1e+20");
  expectCell("1e999", "x", "Inf");
  expectCell("-1e999", "x", "-Inf");
  expectCell("1e999", "size_bytes", "Inf");
  expectCell("1234567", "x", "1234567");
  expectCell("-9223372036854775808", "x", "-9223372036854775808");
}
END_TEST

START_TEST(test_table_bars){
  expectCell("0.5", "share_bar", "██████████");
  expectCell("1", "share_bar", "████████████████████");
  expectCell("2.0", "share_bar", "████████████████████");
  expectCell("0.0625", "share_bar", "█▎");
  expectCell("50", "util_pct_bar", "██████████");
  expectCell("-1", "share_bar", "");
  expectCell("'1,2,3,4,5,6,7,8'", "hist_spark", "▁▂▃▄▅▆▇█");
  expectCell("'5 5'", "hist_spark", "▄▄");
  expectCell("'1,x'", "hist_spark", "1,x");
  expectCell("'-1e308, 0, 1e308'", "hist_spark", "▁▅█");
  /* A bar column is at least OUTPUT_BAR_WIDTH wide and left-aligned. */
  expectOut("SELECT 0.25 AS b_bar, 'k' AS k", OUT_TABLE,
            "b_bar                 k\n"
            "--------------------  -\n"
            "█████                 k\n");
}
END_TEST

/* NULL, infinities, text and empty lists in bar and sparkline columns. */
START_TEST(test_table_bars_edges){
  expectCell("NULL", "share_bar", "");
  expectCell("9e999", "share_bar", "████████████████████");
  expectCell("-9e999", "share_bar", "");
  expectCell("0.0", "share_bar", "");
  expectCell("0.003", "share_bar", "");
  expectCell("0.004", "share_bar", "▏");
  expectCell("150", "util_pct_bar", "████████████████████");
  expectCell("'n/a'", "share_bar", "n/a");
  expectCell("NULL", "hist_spark", "");
  expectCell("''", "hist_spark", "");
  expectCell("'7'", "hist_spark", "▄");
  expectCell("'1,,2'", "hist_spark", "▁█");
  expectCell("'1,inf'", "hist_spark", "1,inf");
  /* CSV and JSON keep the raw values. */
  expectOut("SELECT 2.5 AS s_bar, '1,2' AS h_spark", OUT_CSV,
            "s_bar,h_spark\r\n2.5,\"1,2\"\r\n");
  expectOut("SELECT NULL AS s_bar, '1,2' AS h_spark", OUT_JSON,
            "[\n{\"s_bar\":null,\"h_spark\":\"1,2\"}\n]\n");
}
END_TEST

START_TEST(test_table_text){
  char zWant[512];
  int i;
  /* Not a terminal and no --width: text is never cut. */
  memset(zWant, 'x', 200);
  zWant[200] = 0;
  expectCell("replace(hex(zeroblob(100)),'0','x')", "t", zWant);
  /* --width 40: the text column is narrowed to fit, cut in the middle
  ** (15 + "…" + 24: the end stays) */
  output_set_width(40);
  expectCell("'abcdefghijklmno'||replace(hex(zeroblob(20)),'0','x')"
             "||'_Sum_float'", "t",
             "abcdefghijklmno…xxxxxxxxxxxxxx_Sum_float");
  output_set_width(80);
  /* Multi-byte characters count as one column each. */
  zWant[0] = 0;
  for(i=0; i<31; i++) strcat(zWant, "é");
  strcat(zWant, "…");
  for(i=0; i<48; i++) strcat(zWant, "é");
  expectCell("replace(hex(zeroblob(50)),'0','é')", "t", zWant);
  output_set_width(OUTPUT_WIDTH_AUTO);
  /* Control characters and invalid UTF-8. */
  expectCell("'a'||char(10)||'b'||char(9)||'c'||char(1)||'d'||char(127)",
             "t", "a b c?d?");
  expectCell("CAST(x'61ff62' AS TEXT)", "t", "a\xEF\xBF\xBD" "b");
  expectCell("CAST(x'61e282' AS TEXT)", "t", "a\xEF\xBF\xBD\xEF\xBF\xBD");
  /* Header names are sanitized too. */
  expectOut("SELECT 1 AS \"a\tb\"", OUT_TABLE, "a b\n---\n  1\n");
}
END_TEST

/* Fitting a line width: the widest text column gives way first, numbers
** and bars never, and no column goes below OUTPUT_MIN_CUT_WIDTH. */
START_TEST(test_fit_width){
  const char *zSql = "SELECT 123456789 AS n,"
    " 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' AS a,"
    " 'bbbbbbbbbbbbbbbbbbbb' AS b";
  output_set_width(50);
  /* 9 + 2 + 30 + 2 + 20 = 63: a is cut by 13 to 17 */
  expectOut(zSql, OUT_TABLE,
            "        n  a                  b\n"
            "---------  -----------------  --------------------\n"
            "123456789  aaaaaa…aaaaaaaaaa  bbbbbbbbbbbbbbbbbbbb\n");
  output_set_width(20);
  /* nothing can give way further than 12 code points each */
  expectOut(zSql, OUT_TABLE,
            "        n  a             b\n"
            "---------  ------------  ------------\n"
            "123456789  aaaa…aaaaaaa  bbbb…bbbbbbb\n");
  output_set_width(0);
  expectOut(zSql, OUT_TABLE,
            "        n  a                               b\n"
            "---------  ------------------------------  --------------------\n"
            "123456789  aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
            "  bbbbbbbbbbbbbbbbbbbb\n");
  output_set_width(OUTPUT_WIDTH_AUTO);
  /* CSV and JSON are never cut */
  output_set_width(20);
  expectOut("SELECT 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' AS a", OUT_CSV,
            "a\r\n" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
  output_set_width(OUTPUT_WIDTH_AUTO);
}
END_TEST

/* Kernel names: the distinguishing part, fitted to a width. */
START_TEST(test_short_names){
  static const char zFill[] = "void at::native::vectorized_elementwise_kernel"
    "<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int,"
    " at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";
  static const char zPool[] = "void at::native::(anonymous namespace)::"
    "max_pool_forward_nchw<float, float>(int, float const*, long)";
  char *z = output_short_name(zFill, 0);
  ck_assert_str_eq(z, "vectorized_elementwise_kernel<FillFunctor>");
  free(z);
  z = output_short_name(zPool, 0);
  ck_assert_str_eq(z, "max_pool_forward_nchw");
  free(z);
  z = output_short_name("void fft2d_r2c_32x32<float, false, 5u, true>(float2*)",
                        1);
  ck_assert_str_eq(z, "fft2d_r2c_32x32<float, false, 5u, true>");
  free(z);
  z = output_short_name("Memcpy HtoD (Pinned -> Device)", 0);
  ck_assert_str_eq(z, "Memcpy HtoD (Pinned -> Device)");
  free(z);
  /* namespaces go too, so that names differing in the middle stay
  ** apart when cut (issue 33) */
  z = output_short_name("aten::native_batch_norm_backward", 0);
  ck_assert_str_eq(z, "native_batch_norm_backward");
  free(z);
  z = output_fit_name("aten::native_batch_norm_backward", 12);
  ck_assert_str_eq(z, "nati…ackward");
  free(z);
  z = output_fit_name("aten::convolution_backward", 12);
  ck_assert_str_eq(z, "conv…ackward");
  free(z);
  z = output_short_name("ProfilerStep#3", 0);
  ck_assert_str_eq(z, "ProfilerStep#3");
  free(z);
  /* 30 code points: the kernel's name gives way first, the functor stays */
  z = output_fit_name(zFill, 30);
  ck_assert_str_eq(z, "vectorize…<FillFunctor>");
  free(z);
  z = output_fit_name(zFill, 20);
  ck_assert_str_eq(z, "vectori…<FillFuncto…");
  free(z);
  z = output_fit_name("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)",
                      20);
  ck_assert_str_eq(z, "ncclKer…LL_Sum_float");
  free(z);
}
END_TEST

/* Renders zSql in table format with the declared units aUnit[0..n);
** caller frees. */
static char *renderUnits(const char *zSql, const OutUnit *aUnit, int n){
  sqlite3_stmt *pStmt = NULL;
  char *z = NULL;
  size_t nz = 0;
  FILE *f;
  ck_assert_int_eq(sqlite3_prepare_v2(db, zSql, -1, &pStmt, NULL), SQLITE_OK);
  f = open_memstream(&z, &nz);
  ck_assert_int_eq(output_stmt_units(pStmt, OUT_TABLE, f, NULL, aUnit, n),
                   SQLITE_DONE);
  fclose(f);
  sqlite3_finalize(pStmt);
  return z;
}

/* A column declared "metric" takes its row's metric's unit
** (diff-metrics); an undeclared one (a count, a z-score) never does. */
START_TEST(test_metric_row_unit){
  static const OutUnit aUnit[] = { { "a", "metric" }, { "n", "none" } };
  static const char zSql[] =
    "SELECT 'peak_allocated_bytes' AS metric, 61111009280 AS a, 3 AS n,"
    " 1 AS z, 12.5 AS change_pct UNION ALL SELECT 'gpu_ms', 2.5, 0, -1.0, 1"
    " UNION ALL SELECT 'idle_ns', 1500, 2, 0.5, NULL";
  char *z = renderUnits(zSql, aUnit, 2);
  ck_assert_str_eq(z,
    "metric                       a  n    z  change_pct\n"
    "--------------------  --------  -  ---  ----------\n"
    "peak_allocated_bytes  56.9 GiB  3    1        12.5\n"
    "gpu_ms                     2.5  0   -1         1.0\n"
    "idle_ns                1.50 us  2  0.5\n");
  free(z);
  /* nothing declared: no unit from the row */
  expectOut("SELECT 'x_bytes' AS metric, 2048 AS a, 7 AS n", OUT_TABLE,
            "metric      a  n\n-------  ----  -\nx_bytes  2048  7\n");
  /* a declared unit replaces the name's */
  {
    static const OutUnit aNone[] = { { "size_bytes", "none" },
                                     { "t", "ns" } };
    z = renderUnits("SELECT 2048 AS size_bytes, 1500 AS t", aNone, 2);
    ck_assert_str_eq(z, "size_bytes        t\n----------  -------\n"
                     "      2048  1.50 us\n");
    free(z);
  }
  /* CSV keeps raw values */
  expectOut("SELECT 'x_bytes' AS metric, 2048 AS a", OUT_CSV,
            "metric,a\r\nx_bytes,2048\r\n");
  ck_assert_int_eq(output_unit_known("metric"), 1);
  ck_assert_int_eq(output_unit_known("furlongs"), 0);
}
END_TEST

/* Renders two sections as one document in format e; caller frees. */
static char *renderDoc(OutFormat e, const char *zOnly){
  sqlite3_stmt *p1, *p2;
  char *z = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&z, &n);
  OutDoc d;
  ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT 1 AS a", -1, &p1, NULL),
                   SQLITE_OK);
  ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT 'x' AS b WHERE 0", -1, &p2,
                                      NULL), SQLITE_OK);
  output_doc_begin(&d, e, f, zOnly);
  output_doc_title(&d, "title");
  ck_assert_int_eq(output_doc_section(&d, "one", p1, NULL), SQLITE_DONE);
  ck_assert_int_eq(output_doc_section(&d, "two", p2, NULL), SQLITE_DONE);
  output_doc_end(&d);
  fclose(f);
  sqlite3_finalize(p1);
  sqlite3_finalize(p2);
  return z;
}

START_TEST(test_document){
  char *z = renderDoc(OUT_JSON, NULL);
  ck_assert_str_eq(z, "{\n\"one\": [\n{\"a\":1}\n]\n,\n\"two\": []\n}\n");
  free(z);
  z = renderDoc(OUT_JSON, "two");
  ck_assert_str_eq(z, "[]\n");
  free(z);
  z = renderDoc(OUT_TABLE, NULL);
  ck_assert_str_eq(z, "title\n\none\na\n-\n1\n\ntwo\nb\n-\n");
  free(z);
  z = renderDoc(OUT_CSV, "one");
  ck_assert_str_eq(z, "a\r\n1\r\n");
  free(z);
}
END_TEST

START_TEST(test_null_everywhere){
  const char *zSql = "SELECT NULL AS a, 1 AS b, NULL AS c";
  expectOut(zSql, OUT_TABLE, "a  b  c\n-  -  -\n   1\n");
  expectOut(zSql, OUT_CSV, "a,b,c\r\n,1,\r\n");
  expectOut(zSql, OUT_JSON, "[\n{\"a\":null,\"b\":1,\"c\":null}\n]\n");
  expectOut(zSql, OUT_MARKDOWN,
            "| a   |    b | c   |\n"
            "| --- | ---: | --- |\n"
            "|     |    1 |     |\n");
}
END_TEST

START_TEST(test_empty_result){
  const char *zSql = "SELECT 1 AS a, 'x' AS bb WHERE 0";
  int64_t nRow = -1;
  int rc;
  char *z;
  expectOut(zSql, OUT_TABLE, "a  bb\n-  --\n");
  expectOut(zSql, OUT_CSV, "a,bb\r\n");
  expectOut(zSql, OUT_JSON, "[]\n");
  expectOut(zSql, OUT_MARKDOWN, "| a   | bb  |\n| --- | --- |\n");
  z = render(zSql, OUT_TABLE, &rc, &nRow);
  ck_assert_int_eq(rc, SQLITE_DONE);
  ck_assert_int_eq(nRow, 0);
  free(z);
  /* A statement without result columns prints nothing but "[]". */
  expectOut("CREATE TABLE t1(x)", OUT_TABLE, "");
  expectOut("CREATE TABLE t2(x)", OUT_CSV, "");
  expectOut("CREATE TABLE t3(x)", OUT_MARKDOWN, "");
  expectOut("CREATE TABLE t4(x)", OUT_JSON, "[]\n");
}
END_TEST

START_TEST(test_csv){
  expectOut("SELECT 'a,b' AS x, 'say \"hi\"' AS y, "
            "'l1'||char(10)||'l2' AS z, '' AS e, NULL AS n, 'plain' AS p",
            OUT_CSV,
            "x,y,z,e,n,p\r\n"
            "\"a,b\",\"say \"\"hi\"\"\",\"l1\nl2\",\"\",,plain\r\n");
  expectOut("SELECT 1.5 AS f, 0.1 AS g, 1.0/3 AS h, 2.0 AS i, 3 AS j, "
            "1e20 AS k, 1e999 AS l, x'00ff' AS m, 1536 AS n_bytes, "
            "-0.0 AS o",
            OUT_CSV,
            "f,g,h,i,j,k,l,m,n_bytes,o\r\n"
            "1.5,0.1,0.3333333333333333,2.0,3,1e+20,Inf,00ff,1536,-0.0\r\n");
  expectOut("SELECT 1 AS \"a,b\", 2 AS \"c\"\"d\", 'x'||char(13) AS e",
            OUT_CSV,
            "\"a,b\",\"c\"\"d\",e\r\n1,2,\"x\r\"\r\n");
  expectOut("SELECT 1 AS a UNION ALL SELECT 2", OUT_CSV,
            "a\r\n1\r\n2\r\n");
}
END_TEST

START_TEST(test_json){
  expectOut("SELECT 1 AS i, 2.5 AS f, 2.0 AS g, 'x' AS t, x'00ff' AS b, "
            "NULL AS n, 1e999 AS inf, -1e999 AS ninf, 0.1 AS d, "
            "1536 AS s_bytes",
            OUT_JSON,
            "[\n{\"i\":1,\"f\":2.5,\"g\":2.0,\"t\":\"x\",\"b\":\"00ff\","
            "\"n\":null,\"inf\":null,\"ninf\":null,\"d\":0.1,"
            "\"s_bytes\":1536}\n]\n");
  expectOut("SELECT 'q\"b\\s'||char(9)||char(10)||char(13)||char(8)"
            "||char(12)||char(1)||char(31)||char(127) AS s",
            OUT_JSON,
            "[\n{\"s\":\"q\\\"b\\\\s\\t\\n\\r\\b\\f\\u0001\\u001f"
            "\\u007f\"}\n]\n");
  expectOut("SELECT CAST(x'61ff62' AS TEXT) AS a, "
            "CAST(x'c0af' AS TEXT) AS b, CAST(x'eda080' AS TEXT) AS c, "
            "'é€😀' AS d, char(8232) AS e, CAST(x'610062' AS TEXT) AS f",
            OUT_JSON,
            "[\n{\"a\":\"a\\ufffdb\",\"b\":\"\\ufffd\\ufffd\","
            "\"c\":\"\\ufffd\\ufffd\\ufffd\",\"d\":\"é€😀\","
            "\"e\":\"\\u2028\",\"f\":\"a\\u0000b\"}\n]\n");
  /* Repeated and odd column names. */
  expectOut("SELECT 1 AS a, 2 AS a, 3 AS a_2, 4 AS \"x\"\"y\"", OUT_JSON,
            "[\n{\"a\":1,\"a_2\":2,\"a_2_2\":3,\"x\\\"y\":4}\n]\n");
  expectOut("SELECT 1 AS a UNION ALL SELECT 2 UNION ALL SELECT 3", OUT_JSON,
            "[\n{\"a\":1},\n{\"a\":2},\n{\"a\":3}\n]\n");
}
END_TEST

START_TEST(test_markdown){
  expectOut("SELECT 'a|b' AS t, 1536 AS sz_bytes, 'c\\d' AS u, "
            "0.5 AS r_bar "
            "UNION ALL SELECT 'x', 12, NULL, NULL",
            OUT_MARKDOWN,
            "| t    | sz_bytes | u    | r_bar                |\n"
            "| ---- | -------: | ---- | -------------------- |\n"
            "| a\\|b |  1.5 KiB | c\\\\d | ██████████           |\n"
            "| x    |     12 B |      |                      |\n");
  expectOut("SELECT 'l1'||char(10)||'l2' AS \"p|q\"", OUT_MARKDOWN,
            "| p\\|q  |\n| ----- |\n| l1 l2 |\n");
}
END_TEST

START_TEST(test_step_error){
  const char *zSql = "WITH t(v) AS (VALUES (1), (-9223372036854775807-1)) "
                     "SELECT abs(v) AS a FROM t";
  int64_t nRow = -1;
  int rc;
  char *z;
  z = render(zSql, OUT_JSON, &rc, &nRow);
  ck_assert_int_eq(rc, SQLITE_ERROR);
  ck_assert_int_eq(nRow, 1);
  ck_assert_str_eq(z, "[\n{\"a\":1}\n");
  free(z);
  z = render(zSql, OUT_TABLE, &rc, NULL);
  ck_assert_int_eq(rc, SQLITE_ERROR);
  ck_assert_str_eq(z, "a\n-\n1\n");
  free(z);
  z = render(zSql, OUT_CSV, &rc, NULL);
  ck_assert_int_eq(rc, SQLITE_ERROR);
  ck_assert_str_eq(z, "a\r\n1\r\n");
  free(z);
}
END_TEST

START_TEST(test_buffer_limit){
  /* Widths are fixed after OUTPUT_TABLE_BUFFER_ROWS rows; a wider cell
  ** later simply overflows its column. */
  char zSql[256];
  int64_t nRow = 0;
  int rc;
  size_t n, nWant;
  char *z;
  snprintf(zSql, sizeof(zSql),
           "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c "
           "WHERE i<%d) SELECT CASE WHEN i<=%d THEN 1 ELSE 123456 END AS x, "
           "'k' AS k FROM c",
           OUTPUT_TABLE_BUFFER_ROWS+1, OUTPUT_TABLE_BUFFER_ROWS);
  z = render(zSql, OUT_TABLE, &rc, &nRow);
  ck_assert_int_eq(rc, SQLITE_DONE);
  ck_assert_int_eq(nRow, OUTPUT_TABLE_BUFFER_ROWS+1);
  n = strlen(z);
  nWant = strlen("x  k\n-  -\n") + (size_t)OUTPUT_TABLE_BUFFER_ROWS*5
          + strlen("123456  k\n");
  ck_assert_uint_eq(n, nWant);
  ck_assert(strncmp(z, "x  k\n-  -\n1  k\n", 15)==0);
  ck_assert_str_eq(z+n-15, "1  k\n123456  k\n");
  free(z);
}
END_TEST

Suite *make_output_suite(void){
  Suite *s = suite_create("output");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_parse_format);
  tcase_add_test(tc, test_table_basic);
  tcase_add_test(tc, test_table_bytes);
  tcase_add_test(tc, test_table_durations);
  tcase_add_test(tc, test_table_floats);
  tcase_add_test(tc, test_table_bars);
  tcase_add_test(tc, test_table_bars_edges);
  tcase_add_test(tc, test_table_text);
  tcase_add_test(tc, test_fit_width);
  tcase_add_test(tc, test_metric_row_unit);
  tcase_add_test(tc, test_short_names);
  tcase_add_test(tc, test_document);
  tcase_add_test(tc, test_null_everywhere);
  tcase_add_test(tc, test_empty_result);
  tcase_add_test(tc, test_csv);
  tcase_add_test(tc, test_json);
  tcase_add_test(tc, test_markdown);
  tcase_add_test(tc, test_step_error);
  tcase_add_test(tc, test_buffer_limit);
  suite_add_tcase(s, tc);
  return s;
}
