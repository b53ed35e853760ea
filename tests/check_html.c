/*
** check_html.c — unit tests of html.c and report_html.c: escaping of
** untrusted text (markup, quotes, invalid UTF-8, controls), number
** formats, the chart primitives (one <svg role="img"> per figure, marks,
** labels escaped), the merging of timeline intervals below a pixel, the
** table of a statement, the atomic file write, and the three pages on an
** empty database (every section present, each with its "no data" note).
*/
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/db.h"
#include "report/html.h"
#include "report/report_html.h"
#include "report/rules.h"

/* Escape z (n bytes) into a new string (caller frees). */
static char *esc(const char *z, size_t n){
  Buf b;
  buf_init(&b);
  html_escn(&b, z, n);
  return buf_steal(&b);
}

/* Number of non-overlapping occurrences of zNeedle in z. */
static int count_of(const char *z, const char *zNeedle){
  int n = 0;
  size_t len = strlen(zNeedle);
  while( (z = strstr(z, zNeedle))!=NULL ){
    n++;
    z += len;
  }
  return n;
}

#define FFFD "\xEF\xBF\xBD"

START_TEST(test_escape_markup){
  static const char *const aCase[][2] = {
    { "<script>alert(\"x\")</script>",
      "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" },
    { "it's a & b", "it&#39;s a &amp; b" },
    { "plain text", "plain text" },
    { "caf\xC3\xA9 \xE2\x96\xB2 \xF0\x9F\x98\x80",
      "caf\xC3\xA9 \xE2\x96\xB2 \xF0\x9F\x98\x80" },
    { "tab\tnl\ncr\r", "tab\tnl\ncr\r" },
    { "", "" },
  };
  for(size_t i=0; i<sizeof(aCase)/sizeof(aCase[0]); i++){
    char *z = esc(aCase[i][0], strlen(aCase[i][0]));
    ck_assert_str_eq(z, aCase[i][1]);
    free(z);
  }
}
END_TEST

START_TEST(test_escape_invalid_utf8){
  static const struct { const char *z; size_t n; const char *zWant; } a[] = {
    { "a\xFF" "b", 3, "a" FFFD "b" },                 /* invalid byte */
    { "\xC0\xAF", 2, FFFD FFFD },                     /* overlong '/' */
    { "\xE2\x82", 2, FFFD FFFD },                     /* truncated */
    { "\xED\xA0\x80", 3, FFFD FFFD FFFD },            /* surrogate */
    { "\xF4\x90\x80\x80", 4, FFFD FFFD FFFD FFFD },   /* > U+10FFFF */
    { "x\x01y\x7F", 4, "x" FFFD "y" FFFD },           /* C0 and DEL */
    { "\xC2\x85", 2, FFFD FFFD },                     /* C1 control */
    { "a\0<", 3, "a" FFFD "&lt;" },                   /* NUL inside */
  };
  for(size_t i=0; i<sizeof(a)/sizeof(a[0]); i++){
    char *z = esc(a[i].z, a[i].n);
    ck_assert_msg(strcmp(z, a[i].zWant)==0, "case %zu: '%s'", i, z);
    free(z);
  }
  {
    Buf b;
    buf_init(&b);
    html_esc(&b, NULL);
    ck_assert_uint_eq(b.n, 0);
    buf_free(&b);
  }
}
END_TEST

START_TEST(test_number_formats){
  char z[32];
  html_fmt_real(14.46, z);
  ck_assert_str_eq(z, "14.46");
  html_fmt_real(100, z);
  ck_assert_str_eq(z, "100.0");
  html_fmt_real(0.1, z);
  ck_assert_str_eq(z, "0.1");
  html_fmt_real(1.0/3, z);
  ck_assert_str_eq(z, "0.3333333333333333");
  html_fmt_real(1e300*1e10, z);
  ck_assert_str_eq(z, "Inf");
  html_fmt_bytes(512, z);
  ck_assert_str_eq(z, "512 B");
  html_fmt_bytes(1536, z);
  ck_assert_str_eq(z, "1.5 KiB");
  html_fmt_bytes(54803218432.0, z);
  ck_assert_str_eq(z, "51.0 GiB");
  html_fmt_bytes(NAN, z);
  ck_assert_str_eq(z, "NaN");
  html_fmt_bytes(-2048, z);
  ck_assert_str_eq(z, "-2.0 KiB");
  html_fmt_short(16.126, z);
  ck_assert_str_eq(z, "16.1");
  html_fmt_short(0, z);
  ck_assert_str_eq(z, "0");
}
END_TEST

START_TEST(test_bar_chart){
  HtmlBar a[3] = {
    { "<k1>", 10, "10 ms", 0, NULL },
    { "k2", 5, NULL, 1, "straggler" },
    { "k3", 0, "0 ms", 2, NULL },
  };
  Buf b;
  const char *z;
  buf_init(&b);
  html_bar_chart(&b, "c1", "Title & \"more\"", a, 3, 0);
  z = buf_str(&b);
  ck_assert_int_eq(count_of(z, "<svg"), 1);
  ck_assert_int_eq(count_of(z, "<figure id=\"c1\">"), 1);
  ck_assert_int_eq(count_of(z, "role=\"img\""), 1);
  ck_assert_int_eq(count_of(z, "aria-label=\"Title &amp; &quot;more&quot;\""),
                   1);
  ck_assert_int_eq(count_of(z, "<title>Title &amp; &quot;more&quot;"
                            "</title>"), 1);
  ck_assert_int_eq(count_of(z, "fill=\"url(#pf"), 3);
  ck_assert_int_eq(count_of(z, "&lt;k1&gt;"), 2);      /* label + tooltip */
  ck_assert_int_eq(count_of(z, "<k1>"), 0);
  ck_assert_int_eq(count_of(z, "5 \xE2\x96\xB2 straggler</text>"), 1);
  ck_assert_int_eq(count_of(z, "class=\"outline\""), 1);
  /* the longest bar spans the plot; the second is half of it */
  ck_assert_int_eq(count_of(z, "width=\"550.0\""), 1);
  ck_assert_int_eq(count_of(z, "width=\"275.0\""), 2);
  buf_free(&b);
}
END_TEST

START_TEST(test_line_chart_markers){
  double x[3] = { 0, 1, 2 }, y[3] = { 1, 3, 2 };
  HtmlSeries s = { "series <1>", x, y, 3, 0 };
  HtmlMarker m[2] = { { 1, 3, 1, "peak 3" }, { 2, 2, 2, "OOM" } };
  const char *azTick[3] = { "#1", "#2", "#3" };
  Buf b;
  const char *z;
  buf_init(&b);
  html_line_chart(&b, &(HtmlLineChart){ .zId = "l", .zTitle = "Line",
                  .zXLabel = "run", .zYLabel = "value", .aS = &s, .nS = 1,
                  .aM = m, .nM = 2, .azXTick = azTick, .nX = 3 });
  z = buf_str(&b);
  ck_assert_int_eq(count_of(z, "<svg"), 1);
  ck_assert_int_eq(count_of(z, "class=\"ln s0\""), 2);  /* line + legend */
  ck_assert_int_eq(count_of(z, "series &lt;1&gt;"), 1);
  ck_assert_int_eq(count_of(z, ">peak 3</text>"), 1);
  ck_assert_int_eq(count_of(z, ">OOM</text>"), 1);
  ck_assert_int_eq(count_of(z, ">#2</text>"), 1);
  ck_assert_int_eq(count_of(z, "<circle class=\"mk"), 3);   /* vertices */
  buf_free(&b);
}
END_TEST

START_TEST(test_stack_heatmap_cells){
  static const char *const azRow[] = { "rank 0", "rank <1>" };
  static const char *const azSeg[] = { "kernel", "comm", "idle" };
  static const char *const azCol[] = { "10", "11" };
  static const char *const azTip[] = { "seg 0", "seg \"1\"", "seg 2" };
  double aV[6] = { 2, 0, 1, 1, 1, 1 };
  double aH[4] = { 1, 2, NAN, 4 };
  double aFill[3] = { 1, 0, 0.5 };
  unsigned char aMark[2] = { 0, 1 };
  Buf b;
  const char *z;
  buf_init(&b);
  html_stack_chart(&b, "st", "Stack", azRow, 2, azSeg, 3, aV, "ms");
  z = buf_str(&b);
  ck_assert_int_eq(count_of(z, "<svg"), 1);
  /* 5 non-zero segments + 3 legend swatches */
  ck_assert_int_eq(count_of(z, "fill=\"url(#pf"), 8);
  ck_assert_int_eq(count_of(z, ">3 ms</text>"), 2);        /* row totals */
  ck_assert_int_eq(count_of(z, "rank &lt;1&gt;"), 4);  /* label + 3 tips */
  buf_reset(&b);
  html_heatmap(&b, "hm", "Heat", azRow, 2, azCol, 2, aH, NULL, aMark,
               "straggler");
  z = buf_str(&b);
  ck_assert_int_eq(count_of(z, "<svg"), 1);
  ck_assert_int_eq(count_of(z, "fill-opacity"), 5 + 3);  /* legend + cells */
  ck_assert_int_eq(count_of(z, "\xE2\x96\xB2 rank &lt;1&gt;</text>"), 1);
  /* legend + the cell of the maximum (4), legend + the minimum (1) */
  ck_assert_int_eq(count_of(z, "fill-opacity=\"1.00\""), 2);
  ck_assert_int_eq(count_of(z, "fill-opacity=\"0.20\""), 2);
  buf_reset(&b);
  html_cell_map(&b, "cm", "Cells", aFill, azTip, 3, 2, "used", "free");
  z = buf_str(&b);
  ck_assert_int_eq(count_of(z, "class=\"frame\""), 4);   /* 3 + legend */
  ck_assert_int_eq(count_of(z, "fill=\"url(#pf0)\""), 3);  /* 2 + legend */
  ck_assert_int_eq(count_of(z, "<title>seg &quot;1&quot;</title>"), 1);
  buf_free(&b);
}
END_TEST

START_TEST(test_line_chart_degenerate){
  double x[2] = { 1e17, 1e17 }, y[2] = { 5e20, 5e20 + 1 };
  HtmlSeries s = { "huge", x, y, 2, 1 };
  HtmlMarker m[2] = { { 1e17, 5e20, 0, "same point" },
                      { NAN, 1, 1, "not drawn" } };
  Buf b;
  const char *z;
  buf_init(&b);
  /* one x value, y values beyond the precision of a tick step, a NaN
  ** marker: finishes, and no NaN or Inf reaches the SVG */
  html_line_chart(&b, &(HtmlLineChart){ .zId = "d", .zTitle = "Degenerate",
                  .aS = &s, .nS = 1, .aM = m, .nM = 2 });
  z = buf_str(&b);
  ck_assert_ptr_null(strstr(z, "nan"));
  ck_assert_ptr_null(strstr(z, "inf"));
  ck_assert_int_le(count_of(z, "class=\"grid\""), 21);
  ck_assert_int_eq(count_of(z, ">same point</text>"), 1);
  ck_assert_int_eq(count_of(z, "not drawn</text>"), 0);
  buf_reset(&b);
  /* many markers on one point: every label drawn, the loop ends */
  {
    HtmlMarker aMany[12];
    for(int i=0; i<12; i++){
      aMany[i].x = 1e17;
      aMany[i].y = 5e20;
      aMany[i].eShape = i%3;
      aMany[i].zLabel = "crowded";
    }
    html_line_chart(&b, &(HtmlLineChart){ .zId = "d", .zTitle = "Crowded",
                    .aS = &s, .nS = 1, .aM = aMany, .nM = 12 });
    ck_assert_int_eq(count_of(buf_str(&b), ">crowded</text>"), 12);
  }
  buf_reset(&b);
  /* no points at all */
  s.n = 0;
  html_line_chart(&b, &(HtmlLineChart){ .zId = "e", .zTitle = "Empty",
                  .aS = &s, .nS = 1 });
  ck_assert_ptr_null(strstr(buf_str(&b), "nan"));
  ck_assert_int_eq(count_of(buf_str(&b), "<svg"), 1);
  buf_free(&b);
}
END_TEST

/* A timeline over 0..802000 ns: 802 px of plot, 1000 ns per pixel. */
static void timeline_window(HtmlTimeline *t){
  static const char *const azCat[] = { "GEMM", "NCCL", "other" };
  html_timeline_begin(t, 0, 802000, azCat, 3);
  ck_assert(t->nsPerPx==1000.0);
}

START_TEST(test_timeline_merge){
  HtmlTimeline t;
  Buf b;
  timeline_window(&t);
  html_timeline_lane(&t, "GPU 0 stream 7");
  /* 100 kernels of 100 ns, 100 ns apart: one rectangle */
  for(int i=0; i<100; i++) html_timeline_add(&t, 1000 + 200*i, 100, i%2);
  /* far away: a second one */
  html_timeline_add(&t, 500000, 50000, 1);
  html_timeline_flush(&t);
  ck_assert_int_eq(t.nRect, 2);
  /* two wide kernels of different categories back to back: not merged */
  html_timeline_lane(&t, "GPU 0 stream 9");
  html_timeline_add(&t, 0, 10000, 0);
  html_timeline_add(&t, 10000, 10000, 1);
  /* the same category back to back, then half a pixel later: merged */
  html_timeline_add(&t, 20000, 10000, 1);
  html_timeline_add(&t, 30500, 10000, 1);
  html_timeline_flush(&t);
  ck_assert_int_eq(t.nRect, 4);
  /* an interval beyond the window is clipped to it */
  html_timeline_add(&t, 790000, 100000, 2);
  ck_assert_int_eq(t.nIn, 106);
  buf_init(&b);
  html_timeline_end(&t, &b, "tl", "Timeline");
  ck_assert_int_eq(t.nRect, 5);
  /* 5 rectangles + 3 legend swatches */
  ck_assert_int_eq(count_of(buf_str(&b), "fill=\"url(#pf"), 8);
  ck_assert_int_eq(count_of(buf_str(&b), ">GPU 0 stream 9</text>"), 1);
  /* the merged rectangle of lane 1 spans 1000..20900 ns: 19.9 px */
  ck_assert_int_eq(count_of(buf_str(&b), "x=\"151.0\" y=\"30.0\""
                            " width=\"19.9\""), 1);
  /* the clipped one ends at the window: 12 px from 790000 */
  ck_assert_int_eq(count_of(buf_str(&b), "x=\"940.0\" y=\"54.0\""
                            " width=\"12.0\""), 1);
  buf_free(&b);
}
END_TEST

START_TEST(test_table_stmt){
  PfError e = {0};
  sqlite3 *db = db_open(":memory:", DB_OPEN_CREATE, &e);
  sqlite3_stmt *s;
  Buf b;
  int64_t n = 0;
  const char *z;
  ck_assert_msg(db!=NULL, "%s", e.zMsg);
  s = db_prepare(db, "SELECT '<b>' AS name, 1.5 AS v, 2048 AS size_bytes,"
                 " NULL AS x, 100.0 AS pct UNION ALL SELECT 'r2', 2, 3, 4, 5",
                 &e);
  ck_assert_ptr_nonnull(s);
  buf_init(&b);
  ck_assert_int_eq(html_table_stmt(&b, s, "cap<", 1, &n), SQLITE_DONE);
  z = buf_str(&b);
  ck_assert_int_eq(n, 2);
  ck_assert_int_eq(count_of(z, "<caption>cap&lt;</caption>"), 1);
  ck_assert_int_eq(count_of(z, "<th scope=\"col\">size_bytes</th>"), 1);
  /* numbers as the terminal table shows them, raw values in data-v */
  ck_assert_int_eq(count_of(z, "<td>&lt;b&gt;</td>"
                            "<td class=\"n\" data-v=\"1.5\">1.5</td>"
                            "<td class=\"n\" data-v=\"2048\">2.0 KiB</td>"
                            "<td></td>"
                            "<td class=\"n\" data-v=\"100.0\">100.0</td>"),
                   1);
  ck_assert_int_eq(count_of(z, "r2"), 0);                /* maxRows 1 */
  ck_assert_int_eq(count_of(z, "1 of 2 rows shown."), 1);
  sqlite3_finalize(s);
  buf_free(&b);
  db_close(db);
}
END_TEST

/* *_bar, *_pct_bar and *_spark columns are drawn inside their cells. */
START_TEST(test_table_cell_charts){
  PfError e = {0};
  sqlite3 *db = db_open(":memory:", DB_OPEN_CREATE, &e);
  sqlite3_stmt *s;
  Buf b;
  const char *z;
  ck_assert_msg(db!=NULL, "%s", e.zMsg);
  s = db_prepare(db, "SELECT 0.25 AS share_bar, 150 AS busy_pct_bar,"
                 " -1 AS neg_bar, '1,3,2' AS t_spark, 'n/a' AS u_spark", &e);
  ck_assert_ptr_nonnull(s);
  buf_init(&b);
  ck_assert_int_eq(html_table_stmt(&b, s, NULL, -1, NULL), SQLITE_DONE);
  z = buf_str(&b);
  ck_assert_int_eq(count_of(z, "data-v=\"0.25\""), 1);
  ck_assert_int_eq(count_of(z, "<title>25.0 %</title>"), 1);
  ck_assert_int_eq(count_of(z, "<rect class=\"s0\" width=\"20.0\""), 1);
  ck_assert_int_eq(count_of(z, "<title>100.0 %</title>"), 1);   /* clamped */
  ck_assert_int_eq(count_of(z, "<rect class=\"s0\" width=\"80.0\""), 1);
  ck_assert_int_eq(count_of(z, "<title>0.0 %</title>"), 1);     /* negative */
  ck_assert_int_eq(count_of(z, "points=\"0.0,9.0 39.5,1.0 79.0,5.0\""), 1);
  ck_assert_int_eq(count_of(z, "<td>n/a</td>"), 1);        /* not numbers */
  sqlite3_finalize(s);
  buf_free(&b);
  db_close(db);
}
END_TEST

START_TEST(test_write_file){
  PfError e = {0};
  Buf b;
  char zDir[] = "/tmp/check_html_XXXXXX", zPath[64], zTmp[80], zRd[16];
  FILE *f;
  ck_assert_ptr_nonnull(mkdtemp(zDir));
  snprintf(zPath, sizeof(zPath), "%s/r.html", zDir);
  snprintf(zTmp, sizeof(zTmp), "%s.tmp", zPath);
  buf_init(&b);
  buf_puts(&b, "<p>ok</p>");
  ck_assert_int_eq(html_write_file(zPath, &b, &e), 0);
  ck_assert_int_eq(access(zTmp, F_OK), -1);
  f = fopen(zPath, "rb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fread(zRd, 1, sizeof(zRd), f), 9);
  ck_assert(memcmp(zRd, "<p>ok</p>", 9)==0);
  fclose(f);
  remove(zPath);
  snprintf(zPath, sizeof(zPath), "%s/no/r.html", zDir);
  ck_assert_int_eq(html_write_file(zPath, &b, &e), -1);
  {
    char zWant[128];
    snprintf(zWant, sizeof(zWant), "cannot write %s: No such file or"
             " directory", zPath);
    ck_assert_str_eq(e.zMsg, zWant);
  }
  rmdir(zDir);
  buf_free(&b);
}
END_TEST

/* An empty database with one run row and its (empty) findings. */
static sqlite3 *one_empty_run(void){
  PfError e = {0};
  NqList rules;
  sqlite3 *db = db_open(":memory:", DB_OPEN_CREATE, &e);
  ck_assert_msg(db!=NULL, "%s", e.zMsg);
  ck_assert_int_eq(db_exec(db, "INSERT INTO run(id, name, created_at,"
                           " content_hash, tool_version) VALUES(1,"
                           " 'r<1>', 'now', 'h', 'v')", &e), SQLITE_OK);
  ck_assert_int_eq(rules_load_all(&rules, &e), 0);
  ck_assert_int_eq(rules_run(db, &rules, 1, NULL, NULL, 0, &e), 0);
  named_query_list_free(&rules);
  return db;
}

START_TEST(test_pages_empty_run){
  /* a run without data shows only the sections that need none */
  static const char *const azSec[] = { "summary", "findings" };
  static const char *const azNot[] = { "categories", "top-kernels", "steps",
    "timeline", "step-breakdown", "memory", "segments", "churn", "comm" };
  PfError e = {0};
  sqlite3 *db = one_empty_run();
  Buf b;
  const char *z;
  buf_init(&b);
  ck_assert_msg(report_html_run(db, 1, -1, NULL, &b, &e)==0, "%s", e.zMsg);
  z = buf_str(&b);
  ck_assert(strncmp(z, "<!DOCTYPE html>\n<html lang=\"en\">", 32)==0);
  ck_assert_int_eq(count_of(z, "<title>profan report: run 1 (r&lt;1&gt;)"
                            "</title>"), 1);
  for(size_t i=0; i<sizeof(azSec)/sizeof(azSec[0]); i++){
    char zId[64];
    snprintf(zId, sizeof(zId), "<section id=\"%s\"", azSec[i]);
    ck_assert_msg(count_of(z, zId)==1, "%s", azSec[i]);
  }
  for(size_t i=0; i<sizeof(azNot)/sizeof(azNot[0]); i++){
    char zId[64];
    snprintf(zId, sizeof(zId), "<section id=\"%s\"", azNot[i]);
    ck_assert_msg(count_of(z, zId)==0, "%s", azNot[i]);
    snprintf(zId, sizeof(zId), "href=\"#%s\"", azNot[i]);
    ck_assert_msg(count_of(z, zId)==0, "%s", azNot[i]);
  }
  ck_assert_int_eq(count_of(z, "<svg class=\"chart\""), 0);
  ck_assert_int_eq(count_of(z, ">This run has no GPU activity, steps,"
                            " memory snapshot, allocation trace,"
                            " communication kernels: the sections that need"
                            " them are left out.</p>"), 1);
  ck_assert_int_eq(count_of(z, ">no findings: no rule fired for this"
                            " run</p>"), 1);
  ck_assert_int_eq(count_of(z, "</html>\n"), 1);
  buf_reset(&b);
  ck_assert_msg(report_html_diff(db, 1, 1, NULL, NULL, &b, &e)==0, "%s",
                e.zMsg);
  ck_assert_int_eq(count_of(buf_str(&b), ">no memory snapshot in either"
                            " run</p>"), 1);
  buf_reset(&b);
  ck_assert_msg(report_html_trend(db, "gpu_ms", NULL, NULL, NULL, &b,
                                  &e)==0, "%s", e.zMsg);
  ck_assert_int_eq(count_of(buf_str(&b), ">no run has this metric</p>"), 1);
  buf_free(&b);
  db_close(db);
}
END_TEST

Suite *make_html_suite(void){
  Suite *s = suite_create("html");
  TCase *tc = tcase_create("html");
  tcase_add_test(tc, test_escape_markup);
  tcase_add_test(tc, test_escape_invalid_utf8);
  tcase_add_test(tc, test_number_formats);
  tcase_add_test(tc, test_bar_chart);
  tcase_add_test(tc, test_line_chart_markers);
  tcase_add_test(tc, test_line_chart_degenerate);
  tcase_add_test(tc, test_stack_heatmap_cells);
  tcase_add_test(tc, test_timeline_merge);
  tcase_add_test(tc, test_table_stmt);
  tcase_add_test(tc, test_table_cell_charts);
  tcase_add_test(tc, test_write_file);
  tcase_add_test(tc, test_pages_empty_run);
  suite_add_tcase(s, tc);
  return s;
}
