/*
** report_html.c — builds the HTML pages of `profan report/diff/trend
** --html` (see report_html.h) from SQL: the named queries through
** named_query.h, temp.finding for the findings, and a few aggregates over
** the same tables and views.  html.c writes the markup.
**
** Pipeline position: read side, the last stage before the file.  Each
** section is one function sec_NAME(Rh*) that runs its queries, draws its
** chart and writes the table of the same numbers under it; a section
** without data writes one note.  Errors are SQL errors only: the first
** one is kept in Rh.pErr and the page is abandoned.
*/
#include "report/report_html.h"
#include "core/db.h"
#include "report/html.h"
#include "report/named_query.h"
#include "report/report_html_roofline.h"
#include "report/report_html_hta.h"
#include "report/output.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Rows shown in the top-kernels chart and table. */
#define TOP_KERNELS 15
/* Steps per rank drawn in the heatmap (the table lists every step). */
#define HEATMAP_MAX_STEPS 60
/* Runs of more ranks than this get per-rank charts summarised: the
** distribution over the ranks and the outlier ranks (RANK_OUTLIERS at
** most: the stragglers, the slowest, the fastest and the median rank),
** not a bar or row per rank; the tables still list every rank. */
#define RANK_CHART_MAX 32
#define RANK_OUTLIERS 12
/* Bins of the histogram of a per-rank value. */
#define RANK_BINS 12
/* Rows of a long table shown before "N of M rows shown". */
#define TABLE_MAX_ROWS 400
/* Points per device of the memory timeline. */
#define MEMORY_POINTS 200
/* Memory timeline charts drawn at most (one per device and source). */
#define MEMORY_MAX_CHARTS 8
/* Segments drawn in the segment maps of a page, shared by the devices
** (each gets at least SEGMENT_MIN). */
#define SEGMENT_MAX 2000
#define SEGMENT_MIN 250
/* Detailed categories given their own timeline style (the rest: other). */
#define TIMELINE_CATS (HTML_N_STYLE-1)
/* Bytes per GiB: memory charts are drawn in GiB. */
#define GIB 1073741824.0

/* The state of one page being built. */
typedef struct Rh {
  sqlite3 *db;
  Buf *p;               /* the page */
  NqList q;             /* named queries */
  int64_t run;          /* :run of the named queries */
  PfError *pErr;
  int rc;               /* 0, or -1 after the first error */
  const char *zOmitted; /* "memory snapshot, steps": sections left out */
  int64_t *aStrag;      /* straggler ranks (rank-skew), set by sec_steps */
  int64_t *aShow;       /* many ranks: the outlier ranks the per-rank
                        ** sections show (ascending), set by sec_steps */
  int nShow;            /* 0: every rank */
  int nStrag;
  const char *zDbOpt;   /* " --db PATH" (shell-quoted) for the commands to
                        ** paste, "" for the default database */
  char **azCat;         /* categories given a style so far (see cat_style) */
  int *aCatStyle;       /* their styles */
  int nCat;
} Rh;

/* A growable array of owned strings. */
typedef struct StrList {
  char **az;
  int n;
} StrList;

static void sl_add(StrList *l, const char *z){
  l->az = xrealloc(l->az, sizeof(char *)*(size_t)(l->n+1));
  l->az[l->n++] = xstrdup(z ? z : "");
}

static void sl_free(StrList *l){
  for(int i=0; i<l->n; i++) free(l->az[i]);
  free(l->az);
  l->az = NULL;
  l->n = 0;
}

/* Index of z in l, or -1. */
static int sl_find(const StrList *l, const char *z){
  for(int i=0; i<l->n; i++) if( strcmp(l->az[i], z ? z : "")==0 ) return i;
  return -1;
}

/* Record an SQL error once; returns NULL for the callers' convenience. */
static void *rh_fail(Rh *r, const char *zWhat){
  if( r->rc==0 ){
    pf_error_set(r->pErr, ERRPOS_NONE, 0, "%s: %s", zWhat,
                 sqlite3_errmsg(r->db));
  }
  r->rc = -1;
  return NULL;
}

/*
** Prepare named query zName for r->run with nKV overrides and a row limit
** (<0: the query's own).  Returns the statement (caller finalizes) or
** NULL with the error recorded.
*/
static sqlite3_stmt *rh_named(Rh *r, const char *zName, const char **azK,
                              const char **azV, int nKV, int64_t limit){
  const NamedQuery *q;
  sqlite3_stmt *s;
  if( r->rc ) return NULL;
  q = named_query_find(&r->q, zName);
  if( q==NULL ){
    pf_error_set(r->pErr, ERRPOS_NONE, 0, "no query named '%s'", zName);
    r->rc = -1;
    return NULL;
  }
  s = named_query_prepare(r->db, q, r->run, azK, azV, nKV, limit, r->pErr);
  if( s==NULL ) r->rc = -1;
  return s;
}

/* Prepare ad-hoc SQL with ?1 bound to r->run.  NULL on error (recorded). */
static sqlite3_stmt *rh_sql(Rh *r, const char *zSql){
  PfError e = {0};
  sqlite3_stmt *s;
  if( r->rc ) return NULL;
  s = db_prepare(r->db, zSql, &e);
  if( s==NULL ){
    pf_error_set(r->pErr, ERRPOS_NONE, 0, "%s", e.zMsg);
    r->rc = -1;
    return NULL;
  }
  if( sqlite3_bind_parameter_count(s)>=1 ) sqlite3_bind_int64(s, 1, r->run);
  return s;
}

/* Write the rest of s as a table (rewinding it first) and finalize it. */
static void rh_table(Rh *r, sqlite3_stmt *s, const char *zCaption,
                     int64_t maxRows){
  if( s==NULL ) return;
  sqlite3_reset(s);
  if( html_table_stmt(r->p, s, zCaption, maxRows, NULL)!=SQLITE_DONE ){
    rh_fail(r, zCaption ? zCaption : "table");
  }
  sqlite3_finalize(s);
}

/* Step s: on a row feed it to t (may be NULL) and return 1; at the end,
** or on an error (recorded with zWhat), return 0. */
static int rh_step(Rh *r, sqlite3_stmt *s, HtmlTable *t, const char *zWhat){
  int rc = sqlite3_step(s);
  if( rc==SQLITE_ROW ){
    if( t ) html_tstmt_row(t, s);
    return 1;
  }
  if( rc!=SQLITE_DONE ) rh_fail(r, zWhat);
  return 0;
}

/* Column i of s as text ("" for NULL); borrowed until the next step. */
static const char *col_text(sqlite3_stmt *s, int i){
  const char *z = (const char *)sqlite3_column_text(s, i);
  return z ? z : "";
}

/* Index of column zName in s, or -1. */
static int col_index(sqlite3_stmt *s, const char *zName){
  for(int i=0; i<sqlite3_column_count(s); i++){
    if( strcmp(sqlite3_column_name(s, i), zName)==0 ) return i;
  }
  return -1;
}

/* v as the terminal table and the HTML tables show a column zCol (one
** rule per unit, output.c), into z (size >= 48). */
static void fmt_num(char *z, const char *zCol, double v){
  Buf b;
  buf_init(&b);
  output_double(&b, zCol, v);
  snprintf(z, 48, "%s", buf_str(&b));
  buf_free(&b);
}

/* Give category zCat style iStyle unless it has one; returns its style. */
static int cat_register(Rh *r, const char *zCat, int iStyle){
  for(int i=0; i<r->nCat; i++){
    if( strcasecmp(r->azCat[i], zCat)==0 ) return r->aCatStyle[i];
  }
  r->azCat = xrealloc(r->azCat, sizeof(char *)*(size_t)(r->nCat+1));
  r->aCatStyle = xrealloc(r->aCatStyle, sizeof(int)*(size_t)(r->nCat+1));
  r->azCat[r->nCat] = xstrdup(zCat);
  r->aCatStyle[r->nCat] = iStyle;
  return r->aCatStyle[r->nCat++];
}

/*
** One colour (style) per category across the page.  The run's detailed
** categories, most GPU time first, take styles 0..TIMELINE_CATS-1 in that
** order, the rest the last style ("other categories"), as in the
** timeline; the same name in another scheme (case aside: "Other",
** "other") gets the same style; a category of another scheme (coarse
** "comm") takes the style of the detailed category holding most of its
** GPU time.
*/
static int cat_style(Rh *r, const char *zScheme, const char *zCat){
  sqlite3_stmt *s;
  int iStyle = HTML_N_STYLE-1;
  for(int i=0; i<r->nCat; i++){
    if( strcasecmp(r->azCat[i], zCat)==0 ) return r->aCatStyle[i];
  }
  if( zScheme && strcmp(zScheme, "detailed")!=0
   && sqlite3_prepare_v2(r->db,
     /* names totalled and categorised once each, as in
     ** statements/report-html-cat.sql */
     db_statement("report-html-cat-style"), -1,
     &s, NULL)==SQLITE_OK ){
    sqlite3_bind_int64(s, 1, r->run);
    sqlite3_bind_text(s, 2, zScheme, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, zCat, -1, SQLITE_TRANSIENT);
    if( sqlite3_step(s)==SQLITE_ROW ){
      const char *zD = (const char *)sqlite3_column_text(s, 0);
      for(int i=0; zD && i<r->nCat; i++){
        if( strcasecmp(r->azCat[i], zD)==0 ) iStyle = r->aCatStyle[i];
      }
    }
    sqlite3_finalize(s);
  }
  return cat_register(r, zCat, iStyle);
}

/* ------------------------------------------------------------ header */

/* A <dt>/<dd> pair; zVal escaped. */
static void kv(Buf *p, const char *zKey, const char *zVal){
  buf_puts(p, "<dt>");
  html_esc(p, zKey);
  buf_puts(p, "</dt><dd>");
  html_esc(p, zVal);
  buf_puts(p, "</dd>\n");
}

/* The report-summary table without the rows that have nothing to say: no
** value, or "ranks" 0 (no trace). */
static void summary_table(Rh *r){
  sqlite3_stmt *s = rh_named(r, "report-summary", NULL, NULL, 0, -1);
  HtmlTable t;
  if( s==NULL ) return;
  html_tstmt_begin(&t, s, "report-summary", -1);
  for(;;){
    int rc = sqlite3_step(s);
    if( rc!=SQLITE_ROW ){
      if( rc!=SQLITE_DONE ) rh_fail(r, "report-summary");
      break;
    }
    if( sqlite3_column_count(s)>=2
     && (sqlite3_column_type(s, 1)==SQLITE_NULL
         || (strcmp(col_text(s, 0), "ranks")==0
             && sqlite3_column_type(s, 1)==SQLITE_INTEGER
             && sqlite3_column_int64(s, 1)==0)) ) continue;
    html_tstmt_row(&t, s);
  }
  sqlite3_finalize(s);
  html_tstmt_end(&t, r->p);
}

/* Header: run facts (tags, GPUs) and the report-summary query. */
static void sec_summary(Rh *r){
  sqlite3_stmt *s;
  html_section_begin(r->p, "summary", "Summary");
  s = rh_sql(r, db_statement("report-html-sec-summary"));
  if( s && sqlite3_step(s)==SQLITE_ROW ){
    buf_puts(r->p, "<dl class=\"kv\">\n");
    kv(r->p, "run", col_text(s, 0));
    kv(r->p, "name", col_text(s, 1));
    kv(r->p, "ingested", col_text(s, 2));
    kv(r->p, "tags", sqlite3_column_type(s, 3)==SQLITE_NULL ? "(none)"
                     : col_text(s, 3));
    kv(r->p, "GPU", sqlite3_column_type(s, 4)==SQLITE_NULL
                    ? "(no deviceProperties in the traces)" : col_text(s, 4));
    buf_puts(r->p, "</dl>\n");
  }
  sqlite3_finalize(s);
  if( r->zOmitted ){
    char *zNote = xasprintf("This run has no %s: the sections that need"
                            " them are left out.", r->zOmitted);
    html_note(r->p, zNote);
    free(zNote);
  }
  summary_table(r);
  html_section_end(r->p);
}

/* ------------------------------------------------------ export hints */

/* "Open in Perfetto" lines: the export-trace command of every anchor that
** zSql selects (anchor, rank, step, label of view export_anchor; freed
** here). */
static void export_hints(Rh *r, char *zSql){
  sqlite3_stmt *s = rh_sql(r, zSql);
  free(zSql);
  if( s==NULL ) return;
  while( sqlite3_step(s)==SQLITE_ROW ){
    const char *zAnchor = col_text(s, 0);
    char *zCmd;
    if( strncmp(zAnchor, "gap-", 4)==0 ){
      zCmd = xasprintf("profan%s export-trace %lld --around %s -o"
                       " run%lld-%s.json.gz", r->zDbOpt, (long long)r->run,
                       zAnchor, (long long)r->run, zAnchor);
    }else{
      zCmd = xasprintf("profan%s export-trace %lld --rank %s --step %s -o"
                       " run%lld-rank%s-step%s.json.gz", r->zDbOpt,
                       (long long)r->run, col_text(s, 1), col_text(s, 2),
                       (long long)r->run, col_text(s, 1), col_text(s, 2));
    }
    buf_puts(r->p, "<p class=\"note export\">Open in Perfetto (");
    html_esc(r->p, col_text(s, 3));
    buf_puts(r->p, "): <code>");
    html_esc(r->p, zCmd);
    buf_puts(r->p, "</code></p>\n");
    free(zCmd);
  }
  sqlite3_finalize(s);
}

/* Findings from temp.finding, most severe first (as `profan report`). */
static void sec_findings(Rh *r){
  sqlite3_stmt *s;
  int n = 0;
  static const char *const azHead[] = {
    "severity", "rule", "message", "value", "threshold", "hint" };
  html_section_begin(r->p, "findings", "Findings");
  s = rh_sql(r, db_statement("findings-by-severity"));
  if( s==NULL ){
    html_section_end(r->p);
    return;
  }
  html_table_begin(r->p, "data findings full", NULL, azHead, 6);
  while( rh_step(r, s, NULL, "findings") ){
    const char *zSev = col_text(s, 0);
    n++;
    buf_puts(r->p, "<tr><td class=\"sev sev-");
    html_esc(r->p, zSev);
    buf_puts(r->p, "\">");
    buf_puts(r->p, strcmp(zSev, "high")==0 ? "\xE2\x96\xB2\xE2\x96\xB2 "
             : strcmp(zSev, "medium")==0 ? "\xE2\x96\xB2 "
             : strcmp(zSev, "low")==0 ? "\xE2\x97\x8F " : "\xE2\x84\xB9 ");
    html_esc(r->p, zSev);
    for(int i=1; i<6; i++){
      int t = sqlite3_column_type(s, i);
      buf_puts(r->p, t==SQLITE_INTEGER || t==SQLITE_FLOAT
                     ? "</td><td class=\"n\">" : "</td><td>");
      html_cell_value(r->p, s, i);
    }
    buf_puts(r->p, "</td></tr>\n");
  }
  html_table_end(r->p);
  sqlite3_finalize(s);
  if( n==0 ) html_note(r->p, "no findings: no rule fired for this run");
  /* findings with a time range (stragglers: under Step times), the
  ** three largest gaps of gpu-utilization */
  export_hints(r, xasprintf(db_statement("report-html-finding-hints"),
                            (long long)r->run));
  html_section_end(r->p);
}

/* ------------------------------------------------------------ GPU time */

/* One bar chart and table per category scheme. */
static void sec_categories(Rh *r){
  sqlite3_stmt *sch = rh_sql(r, db_statement("report-html-sec-categories"));
  static const char *const azHead[] = { "category", "count", "total_ms",
                                        "pct" };
  int any = 0;
  html_section_begin(r->p, "categories", "GPU time by category");
  while( sch && r->rc==0 && rh_step(r, sch, NULL, "category_scheme") ){
    const char *zScheme = col_text(sch, 0);
    sqlite3_stmt *s = rh_sql(r, db_statement("report-html-cat"));
    HtmlBar *a = NULL;
    double *aNs = NULL;
    StrList lab = {0}, txt = {0}, cells = {0};
    char zTitle[200];
    int n = 0;
    if( s==NULL ) break;
    sqlite3_bind_text(s, 2, zScheme, -1, SQLITE_TRANSIENT);
    while( rh_step(r, s, NULL, "categories") ){
      char z[120], zMs[48], zPct[48];
      double ns = sqlite3_column_double(s, 2);
      double pct = sqlite3_column_double(s, 3);
      fmt_num(zMs, "total_ms", ns/1e6);
      fmt_num(zPct, "pct", pct);
      snprintf(z, sizeof(z), "%s ms (%s %%)", zMs, zPct);
      sl_add(&lab, col_text(s, 0));
      sl_add(&txt, z);
      aNs = xrealloc(aNs, sizeof(double)*(size_t)(n+1));
      aNs[n] = ns;
      sl_add(&cells, col_text(s, 0));
      sl_add(&cells, col_text(s, 1));
      sl_add(&cells, zMs);
      sl_add(&cells, zPct);
      n++;
    }
    sqlite3_finalize(s);
    if( n>0 ){
      a = xcalloc((size_t)n, sizeof(HtmlBar));
      for(int i=0; i<n; i++){
        a[i].zLabel = lab.az[i];
        a[i].v = aNs[i]/1e6;
        a[i].zText = txt.az[i];
        a[i].iStyle = cat_style(r, zScheme, lab.az[i]);
      }
      snprintf(zTitle, sizeof(zTitle), "GPU time by category, scheme %s",
               zScheme);
      html_heading(r->p, zTitle);
      buf_printf(r->p, "<p class=\"note\">");
      html_esc(r->p, col_text(sch, 1));
      buf_puts(r->p, "; all ranks; kernels, memcpy and memset.</p>\n");
      {
        char zId[96];
        snprintf(zId, sizeof(zId), "chart-categories-%s", zScheme);
        for(char *c=zId; *c; c++) if( *c==' ' || *c=='"' ) *c = '_';
        html_bar_chart(r->p, zId, zTitle, a, n, 0);
      }
      html_table_begin(r->p, "data", NULL, azHead, 4);
      for(int i=0; i<n; i++){
        html_table_row(r->p, (const char *const *)cells.az+4*i, 4);
      }
      html_table_end(r->p);
      any = 1;
    }
    free(a);
    free(aNs);
    sl_free(&lab);
    sl_free(&txt);
    sl_free(&cells);
  }
  sqlite3_finalize(sch);
  if( !any && r->rc==0 ) html_note(r->p, "no GPU activity in this run");
  html_section_end(r->p);
}

/* The style of a GPU activity name: that of its detailed category. */
static int kernel_style(Rh *r, const char *zName){
  sqlite3_stmt *s;
  int iStyle = HTML_N_STYLE-1;
  if( sqlite3_prepare_v2(r->db,
     db_statement("report-html-kernel-style"), -1, &s,
        NULL)!=SQLITE_OK ) return iStyle;
  sqlite3_bind_text(s, 1, zName, -1, SQLITE_TRANSIENT);
  if( sqlite3_step(s)==SQLITE_ROW ){
    iStyle = cat_style(r, "detailed", col_text(s, 0));
  }
  sqlite3_finalize(s);
  return iStyle;
}

/* The run's detailed categories take their styles first (cat_style). */
static void cat_init(Rh *r){
  sqlite3_stmt *s = rh_sql(r, db_statement("report-html-cat"));
  int i = 0;
  if( s==NULL ) return;
  sqlite3_bind_text(s, 2, "detailed", -1, SQLITE_STATIC);
  while( rh_step(r, s, NULL, "categories") ){
    cat_register(r, col_text(s, 0), i<TIMELINE_CATS ? i : HTML_N_STYLE-1);
    i++;
  }
  sqlite3_finalize(s);
}

/* Top kernels: bars of total time and the top-kernels query. */
static void sec_top_kernels(Rh *r){
  sqlite3_stmt *s = rh_named(r, "top-kernels", NULL, NULL, 0, TOP_KERNELS);
  HtmlBar a[TOP_KERNELS];
  HtmlTable t;
  StrList lab = {0}, txt = {0};
  int n = 0, iName, iMs, iPct;
  html_section_begin(r->p, "top-kernels", "Top kernels");
  if( s==NULL ){
    html_section_end(r->p);
    return;
  }
  iName = col_index(s, "name");
  iMs = col_index(s, "total_ms");
  iPct = col_index(s, "pct");
  html_tstmt_begin(&t, s, "top-kernels", -1);
  while( rh_step(r, s, &t, "top-kernels") ){
    char z[120], zMs[48], zPct[48];
    if( n==TOP_KERNELS ) continue;
    fmt_num(zMs, "total_ms", sqlite3_column_double(s, iMs));
    fmt_num(zPct, "pct", sqlite3_column_double(s, iPct));
    snprintf(z, sizeof(z), "%s ms (%s %%)", zMs, zPct);
    sl_add(&lab, col_text(s, iName));
    sl_add(&txt, z);
    a[n].v = sqlite3_column_double(s, iMs);
    a[n].iStyle = kernel_style(r, col_text(s, iName));
    a[n].zMark = NULL;
    n++;
  }
  sqlite3_finalize(s);
  for(int i=0; i<n; i++){
    a[i].zLabel = lab.az[i];
    a[i].zText = txt.az[i];
  }
  if( n>0 ){
    html_note(r->p, "Total GPU time per kernel name over all ranks, each"
              " bar in the colour of its detailed category (as in the"
              " category chart and the timeline); hover a bar for the full"
              " name.");
    html_bar_chart(r->p, "chart-top-kernels", "Top kernels by total GPU time"
                   " (ms)", a, n, 0);
    html_tstmt_end(&t, r->p);
  }else{
    html_tstmt_end(&t, NULL);
    if( r->rc==0 ) html_note(r->p, "no GPU kernels in this run");
  }
  sl_free(&lab);
  sl_free(&txt);
  html_section_end(r->p);
}

/* ------------------------------------------------------------ steps */

/* Which of n ranks (aRank, with value aV) a summarised chart shows:
** aKeep[i] = 1 for the stragglers, the slowest 5, the fastest 3 and the
** median rank by aV (RANK_OUTLIERS at most).  Returns how many. */
static int rank_outliers(const Rh *r, const int64_t *aRank, const double *aV,
                         int n, unsigned char *aKeep){
  int *aOrd = xmalloc(sizeof(int)*(size_t)(n+1)), nKeep = 0;
  memset(aKeep, 0, (size_t)n);
  for(int i=0; i<n; i++) aOrd[i] = i;
  for(int i=1; i<n; i++){                    /* by value, largest first */
    for(int j=i; j>0 && aV[aOrd[j-1]]<aV[aOrd[j]]; j--){
      int x = aOrd[j]; aOrd[j] = aOrd[j-1]; aOrd[j-1] = x;
    }
  }
  for(int i=0; i<n && nKeep<RANK_OUTLIERS; i++){
    for(int k=0; k<r->nStrag; k++){
      if( aRank[i]==r->aStrag[k] && !aKeep[i] ){ aKeep[i] = 1; nKeep++; }
    }
  }
  for(int i=0; i<n && nKeep<RANK_OUTLIERS; i++){
    int w = i<5 ? aOrd[i] : i<8 ? aOrd[n-1-(i-5)] : i==8 ? aOrd[n/2] : -1;
    if( w<0 ) break;
    if( !aKeep[w] ){ aKeep[w] = 1; nKeep++; }
  }
  free(aOrd);
  return nKeep;
}

/* A histogram of the per-rank values aV[0..n): how many ranks fall in
** each of RANK_BINS equal bins between the smallest and the largest. */
static void rank_histogram(Rh *r, const char *zId, const char *zCaption,
                           const double *aV, int n, const char *zUnit){
  double lo = aV[0], hi = aV[0], w;
  int aCnt[RANK_BINS] = {0}, nBin = RANK_BINS;
  HtmlBar a[RANK_BINS];
  char azLab[RANK_BINS][64], azTxt[RANK_BINS][32];
  for(int i=1; i<n; i++){
    if( aV[i]<lo ) lo = aV[i];
    if( aV[i]>hi ) hi = aV[i];
  }
  if( hi<=lo ) nBin = 1;
  w = nBin>1 ? (hi-lo)/nBin : 1;
  for(int i=0; i<n; i++){
    int b = nBin>1 ? (int)((aV[i]-lo)/w) : 0;
    aCnt[b<nBin ? b : nBin-1]++;
  }
  for(int b=0; b<nBin; b++){
    snprintf(azLab[b], sizeof(azLab[b]), "%.3f\xE2\x80\x93%.3f %s",
             lo + b*w, nBin>1 ? lo + (b+1)*w : hi, zUnit);
    snprintf(azTxt[b], sizeof(azTxt[b]), "%d rank%s", aCnt[b],
             aCnt[b]==1 ? "" : "s");
    a[b].zLabel = azLab[b];
    a[b].v = aCnt[b];
    a[b].zText = azTxt[b];
    a[b].iStyle = 0;
    a[b].zMark = NULL;
  }
  html_bar_chart(r->p, zId, zCaption, a, nBin, 0);
}

/* Remember the outlier ranks (aKeep) in ascending order: the sections
** that list ranks one by one show only these (report_html_hta). */
static void keep_shown_ranks(Rh *r, const int64_t *aRank,
                             const unsigned char *aKeep, int n){
  free(r->aShow);
  r->aShow = xmalloc(sizeof(int64_t)*(size_t)(n+1));
  r->nShow = 0;
  for(int i=0; i<n; i++){
    int j;
    if( !aKeep[i] ) continue;
    for(j=r->nShow; j>0 && r->aShow[j-1]>aRank[i]; j--){
      r->aShow[j] = r->aShow[j-1];
    }
    r->aShow[j] = aRank[i];
    r->nShow++;
  }
}

/* Many ranks: the distribution of the mean step time over the ranks and
** the outlier ranks' bars, instead of n bars. */
static void steps_summarised(Rh *r, HtmlBar *a, int n, const int64_t *aRank){
  double *aV = xmalloc(sizeof(double)*(size_t)n);
  unsigned char *aKeep = xmalloc((size_t)n);
  HtmlBar *aOut = xmalloc(sizeof(HtmlBar)*RANK_OUTLIERS);
  int nOut = 0;
  char zNote[400];
  for(int i=0; i<n; i++) aV[i] = a[i].v;
  rank_outliers(r, aRank, aV, n, aKeep);
  for(int i=0; i<n && nOut<RANK_OUTLIERS; i++){
    if( aKeep[i] ) aOut[nOut++] = a[i];
  }
  keep_shown_ranks(r, aRank, aKeep, n);
  for(int i=1; i<nOut; i++){                 /* slowest first */
    for(int j=i; j>0 && aOut[j-1].v<aOut[j].v; j--){
      HtmlBar x = aOut[j]; aOut[j] = aOut[j-1]; aOut[j-1] = x;
    }
  }
  snprintf(zNote, sizeof(zNote), "%d ranks: the mean step time per rank"
           " as a distribution (ranks per bin), then the outlier ranks only"
           " (%d straggler%s of rank-skew marked \xE2\x96\xB2 straggler,"
           " the 5 slowest, the 3 fastest and the median rank); the table"
           " below lists every rank.", n, r->nStrag, r->nStrag==1 ? "" : "s");
  html_note(r->p, zNote);
  rank_histogram(r, "chart-rank-steps-hist", "Ranks by mean step time (ms)",
                 aV, n, "ms");
  html_bar_chart(r->p, "chart-rank-steps", "Mean step time of the outlier"
                 " ranks (ms)", aOut, nOut, 0);
  free(aV);
  free(aKeep);
  free(aOut);
}

/* Bars of the mean step time per rank with the stragglers of rank-skew;
** the straggler row labels go to pStrag. */
static void steps_by_rank(Rh *r, StrList *pStrag){
  sqlite3_stmt *s = rh_named(r, "rank-skew", NULL, NULL, 0, -1);
  HtmlBar *a = NULL;
  HtmlTable t;
  StrList lab = {0}, txt = {0};
  int64_t *aRank = NULL;
  int n = 0, nMark = 0, iStep, iMs, iStr, iOver;
  if( s==NULL ) return;
  iStep = col_index(s, "steps");
  iMs = col_index(s, "step_ms");
  iStr = col_index(s, "straggler");
  iOver = col_index(s, "step_over_mean_pct");
  html_tstmt_begin(&t, s, "rank-skew", -1);
  while( rh_step(r, s, &t, "rank-skew") ){
    char z[160];
    if( sqlite3_column_type(s, iMs)==SQLITE_NULL ) continue;
    a = xrealloc(a, sizeof(HtmlBar)*(size_t)(n+1));
    aRank = xrealloc(aRank, sizeof(int64_t)*(size_t)(n+1));
    aRank[n] = sqlite3_column_int64(s, 0);
    snprintf(z, sizeof(z), "rank %s", col_text(s, 0));
    sl_add(&lab, z);
    {
      char zMs[48], zOver[48];
      int64_t nStep = sqlite3_column_int64(s, iStep);
      fmt_num(zMs, "step_ms", sqlite3_column_double(s, iMs));
      fmt_num(zOver, "pct", sqlite3_column_double(s, iOver));
      snprintf(z, sizeof(z), "%s ms (%s%s %% vs mean, %lld step%s)", zMs,
               sqlite3_column_double(s, iOver)>=0 ? "+" : "", zOver,
               (long long)nStep, nStep==1 ? "" : "s");
    }
    sl_add(&txt, z);
    a[n].v = sqlite3_column_double(s, iMs);
    a[n].iStyle = sqlite3_column_int(s, iStr) ? 2 : 0;
    a[n].zMark = sqlite3_column_int(s, iStr) ? "straggler" : NULL;
    if( a[n].zMark ){
      sl_add(pStrag, lab.az[n]);
      r->aStrag = xrealloc(r->aStrag, sizeof(int64_t)*(size_t)(nMark+1));
      r->aStrag[nMark] = aRank[n];
      r->nStrag = ++nMark;
    }
    n++;
  }
  sqlite3_finalize(s);
  for(int i=0; i<n; i++){
    a[i].zLabel = lab.az[i];
    a[i].zText = txt.az[i];
  }
  if( n>RANK_CHART_MAX ){
    steps_summarised(r, a, n, aRank);
  }else if( n>0 ){
    char zNote[256];
    snprintf(zNote, sizeof(zNote), "Mean step time per rank. %d"
             " straggler%s (rank-skew: a rank the others lost more than"
             " the straggler threshold of their time waiting for at"
             " collectives, on the common clock), marked"
             " \xE2\x96\xB2 straggler, outlined, in the dotted style.",
             nMark, nMark==1 ? "" : "s");
    html_note(r->p, zNote);
    html_bar_chart(r->p, "chart-rank-steps", "Mean step time per rank (ms)",
                   a, n, 0);
  }
  html_tstmt_end(&t, r->p);
  free(a);
  free(aRank);
  sl_free(&lab);
  sl_free(&txt);
}

/* Many ranks: only the outlier rows (rank_outliers by the mean of the
** row) of the rank x step grid aGrid (rows labelled "rank N"), kept in
** place.  Returns the new row count. */
static int heat_outliers(const Rh *r, StrList *rows, int nCol, double *aGrid){
  int n = rows->n, k = 0;
  double *aMean = xcalloc((size_t)n, sizeof(double));
  int64_t *aRank = xcalloc((size_t)n, sizeof(int64_t));
  unsigned char *aKeep = xmalloc((size_t)n);
  for(int i=0; i<n; i++){
    int c = 0;
    for(int j=0; j<nCol; j++){
      double v = aGrid[i*nCol+j];
      if( !isnan(v) ){ aMean[i] += v; c++; }
    }
    if( c ) aMean[i] /= c;
    aRank[i] = strtoll(rows->az[i]+5, NULL, 10);
  }
  rank_outliers(r, aRank, aMean, n, aKeep);
  for(int i=0; i<n; i++){
    if( !aKeep[i] ){ free(rows->az[i]); continue; }
    memmove(aGrid + k*nCol, aGrid + i*nCol, sizeof(double)*(size_t)nCol);
    rows->az[k++] = rows->az[i];
  }
  rows->n = k;
  free(aMean);
  free(aRank);
  free(aKeep);
  return k;
}

/* Heatmap rank x step of the steps query (stragglers marked). */
static void steps_heatmap(Rh *r, const StrList *pStrag){
  sqlite3_stmt *s = rh_named(r, "steps", NULL, NULL, 0, -1);
  StrList rows = {0}, cols = {0};
  HtmlTable t;
  double *aV = NULL;
  int *aCell = NULL, nCell = 0, nCut = 0;
  if( s==NULL ) return;
  html_tstmt_begin(&t, s, "steps", TABLE_MAX_ROWS);
  while( rh_step(r, s, &t, "steps") ){
    char z[48];
    int ir, ic;
    snprintf(z, sizeof(z), "rank %s", col_text(s, 0));
    ir = sl_find(&rows, z);
    if( ir<0 ){
      ir = rows.n;
      sl_add(&rows, z);
    }
    ic = sl_find(&cols, col_text(s, 1));
    if( ic<0 && cols.n<HEATMAP_MAX_STEPS ){
      ic = cols.n;
      sl_add(&cols, col_text(s, 1));
    }
    if( ic<0 ){
      nCut = 1;
      continue;
    }
    aCell = xrealloc(aCell, sizeof(int)*2*(size_t)(nCell+1));
    aV = xrealloc(aV, sizeof(double)*(size_t)(nCell+1));
    aCell[2*nCell] = ir;
    aCell[2*nCell+1] = ic;
    aV[nCell++] = sqlite3_column_double(s, 3);
  }
  sqlite3_finalize(s);
  if( rows.n>0 && cols.n>1 ){
    double *aGrid = xmalloc(sizeof(double)*(size_t)(rows.n*cols.n));
    unsigned char *aMark = xcalloc((size_t)rows.n, 1);
    for(int i=0; i<rows.n*cols.n; i++) aGrid[i] = NAN;
    for(int i=0; i<nCell; i++){
      aGrid[aCell[2*i]*cols.n + aCell[2*i+1]] = aV[i];
    }
    if( rows.n>RANK_CHART_MAX ){
      char zNote[200];
      snprintf(zNote, sizeof(zNote), "%d ranks: the heatmap shows the"
               " outlier ranks only (stragglers, slowest, fastest, median"
               " by mean step time); the table lists every rank.", rows.n);
      html_note(r->p, zNote);
      heat_outliers(r, &rows, cols.n, aGrid);
    }
    for(int i=0; i<rows.n; i++) aMark[i] = sl_find(pStrag, rows.az[i])>=0;
    if( nCut ){
      char zNote[120];
      snprintf(zNote, sizeof(zNote), "The heatmap shows the first %d steps;"
               " the table lists them all.", HEATMAP_MAX_STEPS);
      html_note(r->p, zNote);
    }
    html_heatmap(r->p, "chart-step-heatmap", "Step duration per rank and"
                 " step (ms)", (const char *const *)rows.az, rows.n,
                 (const char *const *)cols.az, cols.n, aGrid, NULL, aMark,
                 "straggler (rank-skew)");
    free(aGrid);
    free(aMark);
  }
  html_tstmt_end(&t, r->p);
  free(aV);
  free(aCell);
  sl_free(&rows);
  sl_free(&cols);
}

/* Per-rank step time with stragglers (rank-skew) and the step heatmap. */
static void sec_steps(Rh *r){
  StrList strag = {0};
  html_section_begin(r->p, "steps", "Step times per rank");
  if( db_int(r->db, 0, "SELECT count(*) FROM step WHERE run_id=%lld",
             (long long)r->run)==0 ){
    html_note(r->p, "no steps in this run (no ProfilerStep annotations and"
              " no GPU activity to split)");
  }else{
    int64_t nGap = db_int(r->db, 0, db_statement("report-html-sec-steps"),
                          (long long)r->run);
    if( nGap>0 ){
      char zNote[320];
      snprintf(zNote, sizeof(zNote), "Guessed steps: %lld rank%s had no"
               " ProfilerStep annotation, so its steps were cut at the GPU's"
               " idle gaps (step source 'gap'); step times and their"
               " variation are approximate and no step-variation finding"
               " is made on them.", (long long)nGap, nGap==1 ? "" : "s");
      html_note(r->p, zNote);
    }
    steps_by_rank(r, &strag);
    if( r->rc==0 ) steps_heatmap(r, &strag);
    if( r->rc==0 ){
      Buf w;
      buf_init(&w);
      buf_puts(&w, "a.anchor = 'slowest-step'");
      for(int i=0; i<strag.n; i++){
        buf_printf(&w, " OR a.anchor = 'slowest-step-rank-%lld'",
                   strtoll(strag.az[i] + 5, NULL, 10));  /* "rank N" */
      }
      export_hints(r, xasprintf(db_statement("report-html-export-hints"),
                                (long long)r->run, buf_str(&w)));
      buf_free(&w);
    }
  }
  sl_free(&strag);
  html_section_end(r->p);
}

/* ------------------------------------------------------------ timeline */

/* The detailed categories of the run, most GPU time first. */
static void run_categories(Rh *r, StrList *l){
  sqlite3_stmt *s = rh_sql(r, db_statement("report-html-cat"));
  if( s==NULL ) return;
  sqlite3_bind_text(s, 2, "detailed", -1, SQLITE_STATIC);
  while( rh_step(r, s, NULL, "categories") ) sl_add(l, col_text(s, 0));
  sqlite3_finalize(s);
}

/* The window of the timeline: a rank, a step (-1: none) and its span. */
typedef struct TlWin {
  int64_t rank, step, t0, t1;
} TlWin;

/* Step iStep (the median step when < 0) of the lowest rank, else (no
** steps) the lowest rank's first GPU's active window.  1 when found. */
static int timeline_window(Rh *r, int64_t iStep, TlWin *w){
  sqlite3_stmt *s;
  int have = 0;
  memset(w, 0, sizeof(*w));
  w->step = -1;
  s = rh_sql(r, db_statement("report-html-select-step-timeline-window"));
  if( s ){
    sqlite3_bind_int64(s, 2, iStep);
    if( sqlite3_step(s)==SQLITE_ROW ){
      w->rank = sqlite3_column_int64(s, 0);
      w->step = sqlite3_column_int64(s, 1);
      w->t0 = sqlite3_column_int64(s, 2);
      w->t1 = w->t0 + sqlite3_column_int64(s, 3);
      have = w->t1>w->t0;
    }
    sqlite3_finalize(s);
  }
  if( !have && r->rc==0 && iStep<0 ){
    /* no steps: the whole active window of the lowest rank's first GPU */
    s = rh_sql(r, db_statement("report-html-select-gpu-busy"));
    if( s && sqlite3_step(s)==SQLITE_ROW ){
      w->rank = sqlite3_column_int64(s, 0);
      w->t0 = sqlite3_column_int64(s, 1);
      w->t1 = sqlite3_column_int64(s, 2);
      have = w->t1>w->t0;
    }
    sqlite3_finalize(s);
  }
  return have;
}

/* The five cells of one lane's row of the timeline table. */
static void lane_cells(StrList *cells, int64_t dev, int64_t stream,
                       int64_t nIn, int64_t ns, int64_t nRect){
  char z[64];
  snprintf(z, sizeof(z), "%lld", (long long)dev);
  sl_add(cells, z);
  snprintf(z, sizeof(z), "%lld", (long long)stream);
  sl_add(cells, z);
  snprintf(z, sizeof(z), "%lld", (long long)nIn);
  sl_add(cells, z);
  snprintf(z, sizeof(z), "%.3f", (double)ns/1e6);
  sl_add(cells, z);
  snprintf(z, sizeof(z), "%lld", (long long)nRect);
  sl_add(cells, z);
}

/* The lanes of window w (rows of s: device, stream, ts, dur, category),
** one per device and stream, into t; the table cells into pCells. */
static void timeline_lanes(Rh *r, sqlite3_stmt *s, HtmlTimeline *t,
                           const StrList *cats, StrList *pCells){
  int64_t curDev = INT64_MIN, curStream = INT64_MIN, nLaneIn = 0;
  int64_t laneNs = 0, nLaneRect0 = 0;
  for(;;){
    int rc = sqlite3_step(s), iCat;
    int64_t dev = 0, stream = 0;
    if( rc==SQLITE_ROW ){
      dev = sqlite3_column_int64(s, 0);
      stream = sqlite3_column_int64(s, 1);
    }
    if( nLaneIn>0 && (rc!=SQLITE_ROW || dev!=curDev || stream!=curStream) ){
      html_timeline_flush(t);
      lane_cells(pCells, curDev, curStream, nLaneIn, laneNs,
                 t->nRect - nLaneRect0);
      nLaneIn = 0;
      laneNs = 0;
    }
    if( rc!=SQLITE_ROW ){
      if( rc!=SQLITE_DONE ) rh_fail(r, "timeline");
      break;
    }
    if( nLaneIn==0 ){
      char z[64];
      snprintf(z, sizeof(z), "GPU %lld stream %lld", (long long)dev,
               (long long)stream);
      html_timeline_lane(t, z);
      curDev = dev;
      curStream = stream;
      nLaneRect0 = t->nRect;
    }
    iCat = sl_find(cats, col_text(s, 4));
    if( iCat<0 || iCat>=TIMELINE_CATS ) iCat = TIMELINE_CATS;
    html_timeline_add(t, sqlite3_column_int64(s, 2),
                      sqlite3_column_int64(s, 3), iCat);
    laneNs += sqlite3_column_int64(s, 3);
    nLaneIn++;
  }
}

/* Draw window w: the chart, its note and the per-lane table. */
static void timeline_draw(Rh *r, const TlWin *w, int64_t iStep,
                          const StrList *cats, const StrList *legend){
  HtmlTimeline t;
  StrList cells = {0};
  char zTitle[160];
  static const char *const azHead[] = { "device", "stream", "activities",
                                        "gpu_ms", "rectangles" };
  sqlite3_stmt *s = rh_sql(r, db_statement("report-html-timeline-draw"));
  if( s==NULL ) return;
  sqlite3_bind_int64(s, 2, w->rank);
  sqlite3_bind_int64(s, 3, w->t0);
  sqlite3_bind_int64(s, 4, w->t1);
  html_timeline_begin(&t, w->t0, w->t1, (const char *const *)legend->az,
                      legend->n);
  timeline_lanes(r, s, &t, cats, &cells);
  sqlite3_finalize(s);
  if( w->step>=0 ){
    snprintf(zTitle, sizeof(zTitle), "Rank %lld, step %lld%s: %.3f ms;"
             " %lld activities drawn as %lld rectangles",
             (long long)w->rank, (long long)w->step,
             iStep<0 ? " (median step duration)" : "", (w->t1-w->t0)/1e6,
             (long long)t.nIn, (long long)t.nRect);
  }else{
    snprintf(zTitle, sizeof(zTitle), "Rank %lld, whole GPU window"
             " (no steps): %.3f ms; %lld activities drawn as %lld"
             " rectangles", (long long)w->rank, (w->t1-w->t0)/1e6,
             (long long)t.nIn, (long long)t.nRect);
  }
  html_note(r->p, "Kernels, memcpy and memset per GPU stream, coloured"
            " and patterned by detailed category; activities closer than"
            " one pixel are merged into one rectangle in the style of the"
            " category with the most time in it.");
  html_timeline_end(&t, r->p, "chart-timeline", zTitle);
  html_table_begin(r->p, "data timeline", NULL, azHead, 5);
  for(int i=0; i+5<=cells.n; i+=5){
    html_table_row(r->p, (const char *const *)cells.az+i, 5);
  }
  html_table_end(r->p);
  sl_free(&cells);
}

/* One step of one rank: kernels, memcpy and memset per device and stream,
** merged below a pixel, coloured by detailed category. */
static void sec_timeline(Rh *r, int64_t iStep){
  StrList cats = {0}, legend = {0};
  TlWin w;
  html_section_begin(r->p, "timeline", "GPU timeline of one step");
  if( !timeline_window(r, iStep, &w) ){
    if( r->rc==0 ){
      html_note(r->p, iStep>=0 ? "no such step in this run"
                               : "no GPU activity in this run");
    }
    html_section_end(r->p);
    return;
  }
  run_categories(r, &cats);
  for(int i=0; i<cats.n && i<TIMELINE_CATS; i++) sl_add(&legend, cats.az[i]);
  if( cats.n>TIMELINE_CATS ) sl_add(&legend, "(other categories)");
  timeline_draw(r, &w, iStep, &cats, &legend);
  sl_free(&cats);
  sl_free(&legend);
  html_section_end(r->p);
}

/* ------------------------------------------------------------ breakdown */

/* Mean wall time per step and rank split by class (step-breakdown). */
/* Many ranks: a stacked chart of the mean over all n rows and of the
** outlier rows only (rank_outliers by aKey; rows labelled "rank N..."),
** instead of n bars.  aV: n rows of nClass values; zKey says what the
** outliers are ranked by, for the note. */
static void stack_summarised(Rh *r, const char *zId, const char *zCaption,
                             const StrList *rows, const double *aV,
                             const double *aKey, const char *zKey,
                             int nClass, const char *const *azClass){
  int n = rows->n, k = 0;
  int64_t *aRank = xmalloc(sizeof(int64_t)*(size_t)n);
  unsigned char *aKeep = xmalloc((size_t)n);
  double *aOut = xcalloc((size_t)(RANK_OUTLIERS+1)*(size_t)nClass,
                         sizeof(double));
  const char *azRow[RANK_OUTLIERS+1];
  char zAll[64], zNote[300];
  for(int i=0; i<n; i++) aRank[i] = strtoll(rows->az[i]+5, NULL, 10);
  rank_outliers(r, aRank, aKey, n, aKeep);
  snprintf(zAll, sizeof(zAll), "mean of %d", n);
  azRow[k++] = zAll;
  for(int i=0; i<n; i++){
    for(int c=0; c<nClass; c++) aOut[c] += aV[i*nClass+c]/n;
    if( aKeep[i] && k<=RANK_OUTLIERS ){
      for(int c=0; c<nClass; c++) aOut[k*nClass+c] = aV[i*nClass+c];
      azRow[k++] = rows->az[i];
    }
  }
  snprintf(zNote, sizeof(zNote), "%d ranks: the mean over all of them,"
           " then the outlier ranks only (stragglers, the largest, the"
           " smallest and the median by %s); the table lists every rank.",
           n, zKey);
  html_note(r->p, zNote);
  html_stack_chart(r->p, zId, zCaption, azRow, k, azClass, nClass, aOut,
                   "ms");
  free(aRank);
  free(aKeep);
  free(aOut);
}

static void sec_step_breakdown(Rh *r){
  static const char *const azClass[] = { "kernel", "memcpy", "memset",
    "comm", "runtime", "cpu", "idle" };
  enum { NCLASS = 7 };
  sqlite3_stmt *s;
  StrList rows = {0}, cells = {0};
  double *aV = NULL, *aWall = NULL;
  int *aN = NULL;
  int aCol[NCLASS], iWall;
  html_section_begin(r->p, "step-breakdown", "Step-time breakdown");
  s = rh_named(r, "step-breakdown", NULL, NULL, 0, -1);
  if( s==NULL ){
    html_section_end(r->p);
    return;
  }
  iWall = col_index(s, "wall_ms");
  for(int k=0; k<NCLASS; k++){
    char z[32];
    snprintf(z, sizeof(z), "%s_ms", azClass[k]);
    aCol[k] = col_index(s, z);
  }
  while( rh_step(r, s, NULL, "step-breakdown") ){
    char z[48];
    int ir;
    if( sqlite3_column_type(s, 1)==SQLITE_NULL ) continue;   /* outside */
    snprintf(z, sizeof(z), "rank %s", col_text(s, 0));
    ir = sl_find(&rows, z);
    if( ir<0 ){
      ir = rows.n;
      sl_add(&rows, z);
      aV = xrealloc(aV, sizeof(double)*NCLASS*(size_t)rows.n);
      aWall = xrealloc(aWall, sizeof(double)*(size_t)rows.n);
      aN = xrealloc(aN, sizeof(int)*(size_t)rows.n);
      for(int k=0; k<NCLASS; k++) aV[ir*NCLASS+k] = 0;
      aWall[ir] = 0;
      aN[ir] = 0;
    }
    for(int k=0; k<NCLASS; k++){
      if( aCol[k]>=0 ) aV[ir*NCLASS+k] += sqlite3_column_double(s, aCol[k]);
    }
    if( iWall>=0 ) aWall[ir] += sqlite3_column_double(s, iWall);
    aN[ir]++;
  }
  sqlite3_finalize(s);
  if( rows.n==0 ){
    html_note(r->p, "no steps in this run");
  }else{
    const char *azHead[NCLASS+3];
    azHead[0] = "rank";
    azHead[1] = "steps";
    azHead[2] = "wall_ms";
    for(int ir=0; ir<rows.n; ir++){
      char z[48];
      for(int k=0; k<NCLASS; k++) aV[ir*NCLASS+k] /= aN[ir];
      sl_add(&cells, rows.az[ir]+5);
      snprintf(z, sizeof(z), "%d", aN[ir]);
      sl_add(&cells, z);
      fmt_num(z, "wall_ms", aWall[ir]/aN[ir]);
      sl_add(&cells, z);
      for(int k=0; k<NCLASS; k++){
        fmt_num(z, "ms", aV[ir*NCLASS+k]);
        sl_add(&cells, z);
      }
    }
    html_note(r->p, "Mean per step of each rank (named query step-breakdown,"
              " time outside every step left out): wall time split by what"
              " was running, by priority kernel > memcpy > memset > comm >"
              " runtime > cpu > idle.");
    if( rows.n>RANK_CHART_MAX ){
      for(int ir=0; ir<rows.n; ir++) aWall[ir] /= aN[ir];
      stack_summarised(r, "chart-step-breakdown", "Mean step wall time by"
                       " activity (ms per step), outlier ranks", &rows, aV,
                       aWall, "wall time per step", NCLASS, azClass);
    }else{
      html_stack_chart(r->p, "chart-step-breakdown", "Mean step wall time"
                       " by activity (ms per step)",
                       (const char *const *)rows.az, rows.n, azClass, NCLASS,
                       aV, "ms");
    }
    {
      char azH[NCLASS][32];
      for(int k=0; k<NCLASS; k++){
        snprintf(azH[k], sizeof(azH[k]), "%s_ms", azClass[k]);
        azHead[3+k] = azH[k];
      }
      html_table_begin(r->p, "data", NULL, azHead, NCLASS+3);
      for(int ir=0; ir<rows.n; ir++){
        html_table_row(r->p, (const char *const *)cells.az+ir*(NCLASS+3),
                       NCLASS+3);
      }
      html_table_end(r->p);
    }
  }
  free(aV);
  free(aWall);
  free(aN);
  sl_free(&rows);
  sl_free(&cells);
  html_section_end(r->p);
}

/* ------------------------------------------------------------ memory */

/* Axis labels of values in GiB and in MiB. */
static void fmt_gib(double v, char *z){
  snprintf(z, 32, "%g GiB", v);
}
static void fmt_mib(double v, char *z){
  snprintf(z, 32, "%g MiB", v);
}

/* One point of the memory timeline: its chart and coordinates. */
typedef struct MemPoint {
  int iKey;             /* index of "source\tdevice" */
  double x, a, r;       /* ms, allocated (max in slice), reserved: GiB */
} MemPoint;

/* The exact peak and the OOMs of device zDev's snapshots into aM (room
** for 9 markers, label texts in azLabel); returns the number added.
** *pPeakX and *pPeakY are replaced by the snapshot's own peak. */
static int memory_marks(Rh *r, const char *zDev, double *pPeakX,
                        double *pPeakY, HtmlMarker *aM, char azLabel[][96]){
  int nM = 0;
  sqlite3_stmt *q = rh_sql(r,
      db_statement("report-html-select-snapshot-memory-marks"));
  if( q ){
    sqlite3_bind_int64(q, 2, strtoll(zDev, NULL, 10));
    if( sqlite3_step(q)==SQLITE_ROW ){
      *pPeakX = sqlite3_column_double(q, 0);
      *pPeakY = sqlite3_column_double(q, 1)/GIB;
    }
    sqlite3_finalize(q);
  }
  q = rh_sql(r, db_statement("report-html-select-alloc-event"));
  if( q ){
    sqlite3_bind_int64(q, 2, strtoll(zDev, NULL, 10));
    while( nM<8 && sqlite3_step(q)==SQLITE_ROW ){
      char zB[32];
      html_fmt_bytes(sqlite3_column_double(q, 2), zB);
      snprintf(azLabel[nM], 96, "OOM (request %s)", zB);
      aM[nM].x = sqlite3_column_double(q, 0);
      aM[nM].y = sqlite3_column_double(q, 1)/GIB;
      aM[nM].eShape = 2;
      aM[nM].zLabel = azLabel[nM];
      nM++;
    }
    sqlite3_finalize(q);
  }
  return nM;
}

/* The line chart of key k ("source\tdevice") from the n points of aP. */
static void memory_chart(Rh *r, int k, const char *zKey, const MemPoint *aP,
                         int n){
  double *aX = xmalloc(sizeof(double)*(size_t)(n+1));
  double *aA = xmalloc(sizeof(double)*(size_t)(n+1));
  double *aR = xmalloc(sizeof(double)*(size_t)(n+1));
  double peakX = 0, peakY = -1, unit = 1.0;
  const char *zDev = strchr(zKey, '\t')+1;
  int isSnap = strncmp(zKey, "snapshot\t", 9)==0, m = 0, nM = 0;
  HtmlSeries ser[2];
  HtmlMarker aM[9];
  char azLabel[9][96], zTitle[160], zId[64];
  for(int i=0; i<n; i++){
    if( aP[i].iKey!=k ) continue;
    aX[m] = aP[i].x;
    aA[m] = aP[i].a;
    aR[m] = aP[i].r;
    if( aA[m]>peakY ){
      peakY = aA[m];
      peakX = aX[m];
    }
    m++;
  }
  if( isSnap ) nM = memory_marks(r, zDev, &peakX, &peakY, aM, azLabel);
  /* below 1 GiB: draw in MiB */
  {
    double vMax = peakY;
    for(int i=0; i<m; i++) if( aR[i]>vMax ) vMax = aR[i];
    if( vMax<1.0 ){
      unit = 1024.0;
      for(int i=0; i<m; i++){
        aA[i] *= unit;
        aR[i] *= unit;
      }
      for(int i=0; i<nM; i++) aM[i].y *= unit;
      peakY *= unit;
    }
  }
  if( peakY>=0 ){
    char zB[32];
    html_fmt_bytes(peakY*GIB/unit, zB);
    snprintf(azLabel[nM], 96, "peak %s", zB);
    aM[nM].x = peakX;
    aM[nM].y = peakY;
    aM[nM].eShape = 1;
    aM[nM].zLabel = azLabel[nM];
    nM++;
  }
  ser[0].zName = "allocated (max in slice)";
  ser[0].aX = aX;
  ser[0].aY = aA;
  ser[0].n = m;
  ser[0].iStyle = 0;
  ser[1].zName = "reserved";
  ser[1].aX = aX;
  ser[1].aY = aR;
  ser[1].n = m;
  ser[1].iStyle = 1;
  snprintf(zTitle, sizeof(zTitle), "Memory over time, %s %s %s",
           isSnap ? "snapshot" : "profiler", isSnap ? "device" : "rank",
           zDev);
  snprintf(zId, sizeof(zId), "chart-memory-%d", k);
  html_line_chart(r->p, &(HtmlLineChart){ .zId = zId, .zTitle = zTitle,
                  .zXLabel = "time since the first event (ms)",
                  .zYLabel = unit>1 ? "MiB" : "GiB",
                  .yFmt = unit>1 ? fmt_mib : fmt_gib,
                  .aS = ser, .nS = 2, .aM = aM, .nM = nM });
  free(aX);
  free(aA);
  free(aR);
}

/* Memory over time per device and source, peak and OOM marked; one pass
** over memory-timeline (a slow query on long allocator traces). */
static void sec_memory(Rh *r){
  char zPoints[16];
  const char *azK[1] = { "points" }, *azV[1];
  sqlite3_stmt *s;
  StrList keys = {0};
  MemPoint *aP = NULL;
  HtmlTable t;
  int n = 0, iSec, iSrc, iDev, iT, iMax, iRes;
  html_section_begin(r->p, "memory", "Memory timeline");
  snprintf(zPoints, sizeof(zPoints), "%d", MEMORY_POINTS);
  azV[0] = zPoints;
  s = rh_named(r, "memory-timeline", azK, azV, 1, -1);
  if( s==NULL ){
    html_section_end(r->p);
    return;
  }
  iSec = col_index(s, "section");
  iSrc = col_index(s, "source");
  iDev = col_index(s, "device");
  iT = col_index(s, "time_ms");
  iMax = col_index(s, "max_allocated_bytes");
  iRes = col_index(s, "reserved_bytes");
  html_tstmt_begin(&t, s, "memory-timeline", TABLE_MAX_ROWS);
  while( rh_step(r, s, &t, "memory-timeline") ){
    char z[64];
    int k;
    if( strcmp(col_text(s, iSec), "point") ) continue;
    snprintf(z, sizeof(z), "%s\t%s", col_text(s, iSrc), col_text(s, iDev));
    k = sl_find(&keys, z);
    if( k<0 ){
      k = keys.n;
      sl_add(&keys, z);
    }
    aP = xrealloc(aP, sizeof(MemPoint)*(size_t)(n+1));
    aP[n].iKey = k;
    aP[n].x = sqlite3_column_double(s, iT);
    aP[n].a = sqlite3_column_double(s, iMax)/GIB;
    aP[n].r = sqlite3_column_double(s, iRes)/GIB;
    n++;
  }
  sqlite3_finalize(s);
  if( keys.n==0 ){
    html_tstmt_end(&t, NULL);
    if( r->rc==0 ) html_note(r->p, "no memory snapshot in this run (and no"
                             " profiler memory events)");
  }else{
    html_note(r->p, "Allocated (highest in each slice) and reserved memory"
              " over time, from the snapshot's trace replay or the"
              " profiler's [memory] events (named query memory-timeline);"
              " the peak and any out-of-memory event are marked.");
    for(int k=0; k<keys.n && k<MEMORY_MAX_CHARTS && r->rc==0; k++){
      memory_chart(r, k, keys.az[k], aP, n);
    }
    if( keys.n>MEMORY_MAX_CHARTS ){
      char z[96];
      snprintf(z, sizeof(z), "%d more devices in the table only.",
               keys.n-MEMORY_MAX_CHARTS);
      html_note(r->p, z);
    }
    html_tstmt_end(&t, r->p);
    rh_table(r, rh_named(r, "memory-summary", NULL, NULL, 0, -1),
             "memory-summary", -1);
  }
  free(aP);
  sl_free(&keys);
  html_section_end(r->p);
}

/* Segment map per snapshot device: one cell per segment, filled to its
** active share; the fragmentation query under it. */
static void sec_segments(Rh *r){
  sqlite3_stmt *s;
  int nMax, nSnap = (int)db_int(r->db, 0,
                     db_statement("report-html-has-segments"),
                          (long long)r->run);
  html_section_begin(r->p, "segments", "Allocator segments and"
                     " fragmentation");
  nMax = nSnap>0 ? SEGMENT_MAX/nSnap : 0;
  if( nMax<SEGMENT_MIN ) nMax = SEGMENT_MIN;
  if( nSnap==0 ){
    html_note(r->p, "no memory snapshot in this run");
    html_section_end(r->p);
    return;
  }
  s = rh_sql(r, db_statement("report-html-snapshot-segments"));
  while( s && r->rc==0 && rh_step(r, s, NULL, "snapshot") ){
    int64_t sid = sqlite3_column_int64(s, 0);
    int nSeg = sqlite3_column_int(s, 2), n = 0;
    double *aFill = xmalloc(sizeof(double)*(size_t)(nSeg>0 ? nSeg : 1));
    StrList tips = {0};
    char zTitle[200], zR[32], zI[32];
    sqlite3_stmt *q = rh_sql(r, db_statement("report-html-select-segment"));
    if( q==NULL ){
      free(aFill);
      break;
    }
    sqlite3_bind_int64(q, 2, sid);
    sqlite3_bind_int(q, 3, nMax);
    while( n<nMax && n<nSeg && rh_step(r, q, NULL, "segment") ){
      double tot = sqlite3_column_double(q, 1);
      double in = sqlite3_column_double(q, 2);
      char zT[200], zS[32], zIn[32], zL[32];
      html_fmt_bytes(tot, zS);
      html_fmt_bytes(in, zIn);
      html_fmt_bytes(sqlite3_column_double(q, 5), zL);
      snprintf(zT, sizeof(zT), "segment %s %s: %s, %s free (largest %s),"
               " %s blocks", col_text(q, 0), col_text(q, 4), zS, zIn, zL,
               col_text(q, 3));
      sl_add(&tips, zT);
      aFill[n++] = tot>0 ? (tot-in)/tot : 0;
    }
    sqlite3_finalize(q);
    html_fmt_bytes(sqlite3_column_double(s, 3), zR);
    html_fmt_bytes(sqlite3_column_double(s, 4), zI);
    snprintf(zTitle, sizeof(zTitle), "Segments of device %s in address"
             " order: %d segments, %s reserved, %s inactive (%.1f %%)%s",
             col_text(s, 1), nSeg, zR, zI,
             100.0*sqlite3_column_double(s, 4)
               / (sqlite3_column_double(s, 3)>0
                  ? sqlite3_column_double(s, 3) : 1),
             nSeg>nMax ? "; the first ones only" : "");
    {
      char zId[64];
      snprintf(zId, sizeof(zId), "chart-segments-%lld", (long long)sid);
      html_cell_map(r->p, zId, zTitle, aFill,
                    (const char *const *)tips.az, n,
                    n>2000 ? 80 : n>400 ? 60 : 40,
                    "active share of the segment", "inactive (free)");
    }
    free(aFill);
    sl_free(&tips);
  }
  sqlite3_finalize(s);
  rh_table(r, rh_named(r, "fragmentation", NULL, NULL, 0, -1),
           "fragmentation", -1);
  html_section_end(r->p);
}

/* Allocation churn: sizes ranked by count x size (alloc-churn). */
static void sec_churn(Rh *r){
  sqlite3_stmt *s = rh_named(r, "alloc-churn", NULL, NULL, 0, -1);
  HtmlBar a[32];
  StrList lab = {0}, txt = {0};
  HtmlTable t;
  int n = 0, iSize, iCount, iTot, iPct, iCat;
  html_section_begin(r->p, "churn", "Allocation churn");
  if( s==NULL ){
    html_section_end(r->p);
    return;
  }
  iSize = col_index(s, "size_bytes");
  iCount = col_index(s, "count");
  iTot = col_index(s, "total_bytes");
  iPct = col_index(s, "pct");
  iCat = col_index(s, "category");
  html_tstmt_begin(&t, s, "alloc-churn", -1);
  while( rh_step(r, s, &t, "alloc-churn") ){
    char zS[32], zT[32], z[128];
    if( n==32 ) continue;
    html_fmt_bytes(sqlite3_column_double(s, iSize), zS);
    html_fmt_bytes(sqlite3_column_double(s, iTot), zT);
    snprintf(z, sizeof(z), "%s x %s (%s)", zS, col_text(s, iCat),
             col_text(s, 1));
    sl_add(&lab, z);
    snprintf(z, sizeof(z), "%s allocs, %s (%s %%)", col_text(s, iCount), zT,
             col_text(s, iPct));
    sl_add(&txt, z);
    a[n].v = sqlite3_column_double(s, iTot);
    a[n].iStyle = 0;
    a[n].zMark = NULL;
    n++;
  }
  for(int i=0; i<n; i++){
    a[i].zLabel = lab.az[i];
    a[i].zText = txt.az[i];
  }
  sqlite3_finalize(s);
  if( n==0 ){
    html_tstmt_end(&t, NULL);
    if( r->rc==0 ) html_note(r->p, "no allocation trace in this run (no"
                             " snapshot with device_traces)");
  }else{
    html_note(r->p, "Allocation sizes of at least 1 MiB in the snapshot's"
              " trace ranked by count x size, with the source category and"
              " device (named query alloc-churn).");
    html_bar_chart(r->p, "chart-churn", "Bytes allocated per size (count x"
                   " size)", a, n, 0);
    html_tstmt_end(&t, r->p);
  }
  sl_free(&lab);
  sl_free(&txt);
  html_section_end(r->p);
}

/* ------------------------------------------------------------ comm */

/* Communication: overlap with compute per rank, collectives per op. */
static void sec_comm(Rh *r){
  sqlite3_stmt *s;
  StrList rows = {0};
  HtmlTable t;
  double *aV = NULL;
  int n = 0, nComm = 0;
  static const char *const azSeg[] = { "communication hidden by compute",
    "communication exposed", "compute only" };
  html_section_begin(r->p, "comm", "Communication");
  s = rh_named(r, "comm-overlap", NULL, NULL, 0, -1);
  if( s==NULL ){
    html_section_end(r->p);
    return;
  }
  html_tstmt_begin(&t, s, "comm-overlap", -1);
  while( rh_step(r, s, &t, "comm-overlap") ){
    char z[64];
    int iK = col_index(s, "comm_kernels");
    double ov = sqlite3_column_double(s, col_index(s, "overlap_ms"));
    double ex = sqlite3_column_double(s, col_index(s, "exposed_comm_ms"));
    double cp = sqlite3_column_double(s, col_index(s, "comp_ms"));
    nComm += sqlite3_column_int(s, iK);
    snprintf(z, sizeof(z), "rank %s GPU %s", col_text(s, 0), col_text(s, 1));
    sl_add(&rows, z);
    aV = xrealloc(aV, sizeof(double)*3*(size_t)(n+1));
    aV[3*n] = ov;
    aV[3*n+1] = ex;
    aV[3*n+2] = cp>ov ? cp-ov : 0;
    n++;
  }
  sqlite3_finalize(s);
  if( nComm==0 ){
    html_tstmt_end(&t, NULL);
    if( r->rc==0 ) html_note(r->p, "no communication kernels in this run");
  }else{
    html_note(r->p, "Union of communication kernel time per GPU split into"
              " the part running under compute kernels and the exposed"
              " part, next to compute-only time (named query"
              " comm-overlap).");
    if( n>RANK_CHART_MAX ){
      double *aEx = xmalloc(sizeof(double)*(size_t)n);
      for(int i=0; i<n; i++) aEx[i] = aV[3*i+1];
      stack_summarised(r, "chart-comm-overlap", "Communication and compute"
                       " per GPU (ms), outlier ranks", &rows, aV, aEx,
                       "exposed communication", 3, azSeg);
      free(aEx);
    }else{
      html_stack_chart(r->p, "chart-comm-overlap", "Communication and"
                       " compute per GPU (ms)", (const char *const *)rows.az,
                       n, azSeg, 3, aV, "ms");
    }
    html_tstmt_end(&t, r->p);
    /* collectives per op over all ranks */
    s = rh_sql(r, db_statement("report-html-sec-comm"));
    if( s ){
      HtmlBar a[16];
      HtmlTable t;
      StrList lab = {0}, txt = {0};
      int m = 0;
      html_tstmt_begin(&t, s, "collectives per op", -1);
      while( rh_step(r, s, &t, "collectives per op") ){
        char z[96];
        if( m==16 ) continue;
        sl_add(&lab, col_text(s, 0));
        snprintf(z, sizeof(z), "%.3f ms, %s kernels",
                 sqlite3_column_double(s, 2), col_text(s, 1));
        sl_add(&txt, z);
        a[m].v = sqlite3_column_double(s, 2);
        a[m].iStyle = m;
        a[m].zMark = NULL;
        m++;
      }
      sqlite3_finalize(s);
      for(int i=0; i<m; i++){
        a[i].zLabel = lab.az[i];
        a[i].zText = txt.az[i];
      }
      if( m>0 ){
        html_bar_chart(r->p, "chart-collectives", "Collective kernel time"
                       " per op, all ranks (ms)", a, m, 0);
      }
      html_tstmt_end(&t, m>0 ? r->p : NULL);
      sl_free(&lab);
      sl_free(&txt);
    }
    rh_table(r, rh_named(r, "collectives", NULL, NULL, 0, -1),
             "collectives", TABLE_MAX_ROWS);
  }
  free(aV);
  sl_free(&rows);
  html_section_end(r->p);
}

/* ------------------------------------------------------------ pages */

/* Navigation list of the sections (id, title pairs). */
static void nav(Buf *p, const char *const *az, int n){
  buf_puts(p, "<nav aria-label=\"sections\"><ul>\n");
  for(int i=0; i+1<n; i+=2){
    buf_puts(p, "<li><a href=\"#");
    html_esc(p, az[i]);
    buf_puts(p, "\">");
    html_esc(p, az[i+1]);
    buf_puts(p, "</a></li>\n");
  }
  buf_puts(p, "</ul></nav>\n");
}

/* Begin a page: load the named queries, write the skeleton. */
static int rh_begin(Rh *r, sqlite3 *db, int64_t run, Buf *pOut,
                    PfError *pErr, const char *zTitle){
  memset(r, 0, sizeof(*r));
  r->zDbOpt = "";
  r->db = db;
  r->p = pOut;
  r->run = run;
  r->pErr = pErr;
  if( named_query_load_all(&r->q, pErr) ) return -1;
  html_page_begin(pOut, zTitle);
  return 0;
}

/* Finish a page; returns r->rc. */
static int rh_end(Rh *r){
  html_page_end(r->p);
  named_query_list_free(&r->q);
  for(int i=0; i<r->nCat; i++) free(r->azCat[i]);
  free(r->azCat);
  free(r->aCatStyle);
  free(r->aStrag);
  free(r->aShow);
  return r->rc;
}

/* "run ID (NAME)" of a run into a new string (caller frees). */
static char *run_label(sqlite3 *db, int64_t id){
  sqlite3_stmt *s = NULL;
  char *z = NULL;
  if( sqlite3_prepare_v2(db, "SELECT name FROM run WHERE id = ?1", -1, &s,
                         NULL)==SQLITE_OK ){
    sqlite3_bind_int64(s, 1, id);
    if( sqlite3_step(s)==SQLITE_ROW ){
      z = xasprintf("run %lld (%s)", (long long)id, col_text(s, 0));
    }
  }
  sqlite3_finalize(s);
  return z ? z : xasprintf("run %lld", (long long)id);
}

/* One section of the run page: id, nav text, writer, and what the run
** lacks without the inputs it needs (NULL: always shown; which inputs:
** statements/report-html-section-data.sql, by id). */
typedef struct RunSection {
  const char *zId;
  const char *zNav;
  void (*xSec)(Rh *, int64_t);
  const char *zLack;
} RunSection;

/* Adapters: every section writer takes the --step argument. */
static void x_summary(Rh *r, int64_t i){ (void)i; sec_summary(r); }
static void x_findings(Rh *r, int64_t i){ (void)i; sec_findings(r); }
static void x_categories(Rh *r, int64_t i){ (void)i; sec_categories(r); }
static void x_top_kernels(Rh *r, int64_t i){ (void)i; sec_top_kernels(r); }
static void x_steps(Rh *r, int64_t i){ (void)i; sec_steps(r); }
static void x_breakdown(Rh *r, int64_t i){ (void)i; sec_step_breakdown(r); }
static void x_memory(Rh *r, int64_t i){ (void)i; sec_memory(r); }
static void x_segments(Rh *r, int64_t i){ (void)i; sec_segments(r); }
static void x_churn(Rh *r, int64_t i){ (void)i; sec_churn(r); }
static void x_comm(Rh *r, int64_t i){ (void)i; sec_comm(r); }

static const RunSection aRunSection[] = {
  { "summary", "Summary", x_summary, NULL },
  { "findings", "Findings", x_findings, NULL },
  { "categories", "Categories", x_categories, "GPU activity" },
  { "top-kernels", "Top kernels", x_top_kernels, "GPU activity" },
  { "steps", "Step times", x_steps, "steps" },
  { "timeline", "GPU timeline", sec_timeline, "GPU activity" },
  { "step-breakdown", "Step breakdown", x_breakdown, "steps" },
  { "memory", "Memory", x_memory, "memory snapshot" },
  { "segments", "Segments", x_segments, "memory snapshot" },
  { "churn", "Allocation churn", x_churn, "allocation trace" },
  { "comm", "Communication", x_comm, "communication kernels" },
};
#define N_RUN_SECTION ((int)(sizeof(aRunSection)/sizeof(aRunSection[0])))

/* 1 when the run has the inputs section k needs. */
static int section_has_data(sqlite3 *db, int64_t runId, int k){
  sqlite3_stmt *s = NULL;
  int64_t v = 0;
  if( aRunSection[k].zLack==NULL ) return 1;
  if( sqlite3_prepare_v2(db, db_statement("report-html-section-data"), -1,
                         &s, NULL)==SQLITE_OK ){
    sqlite3_bind_int64(s, 1, runId);
    sqlite3_bind_text(s, 2, aRunSection[k].zId, -1, SQLITE_STATIC);
    if( sqlite3_step(s)==SQLITE_ROW ) v = sqlite3_column_int64(s, 0);
  }
  sqlite3_finalize(s);
  return v!=0;
}

/*
** The run page: only the sections the run has data for (a snapshot-only
** run has no GPU or step sections); the summary names those left out.
*/
/* PROFAN_TIMING: the wall time of a section on stderr. */
static void section_time(const char *zId, double t0){
  if( getenv("PROFAN_TIMING") ){
    fprintf(stderr, "profan: html %-16s %8.1f ms\n", zId,
            util_now_ms()-t0);
  }
}

/* " --db PATH" for a pasted command: PATH quoted for a POSIX shell when
** it holds anything but letters, digits and _./+-=,:@%; "" for NULL or
** the default ./profan.db.  A new string the caller frees. */
static char *db_option(const char *zDb){
  Buf b;
  int bPlain = 1;
  if( zDb==NULL || strcmp(zDb, "profan.db")==0 ) return xstrdup("");
  for(const char *z=zDb; *z; z++){
    if( !isalnum((unsigned char)*z) && !strchr("_./+-=,:@%", *z) ) bPlain = 0;
  }
  buf_init(&b);
  buf_puts(&b, " --db ");
  if( bPlain && zDb[0] ){
    buf_puts(&b, zDb);
  }else{
    buf_putc(&b, '\'');
    for(const char *z=zDb; *z; z++){
      if( *z=='\'' ) buf_puts(&b, "'\\''");
      else buf_putc(&b, *z);
    }
    buf_putc(&b, '\'');
  }
  return buf_steal(&b);
}

int report_html_run(sqlite3 *db, int64_t runId, int64_t iStep,
                    const char *zDb, Buf *pOut, PfError *pErr){
  static const char *const azExtra[] = { REPORT_HTA_NAV, "roofline",
    "Roofline" };
  const char *azNav[2*N_RUN_SECTION + 8];
  int hasGpu;
  int aHas[N_RUN_SECTION], nNav = 0;
  Buf omitted;
  Rh r;
  char *zRun = run_label(db, runId);
  char *zTitle = xasprintf("profan report: %s", zRun);
  int rc = rh_begin(&r, db, runId, pOut, pErr, zTitle);
  char *zDbOpt = db_option(zDb);
  free(zTitle);
  free(zRun);
  if( rc ){ free(zDbOpt); return -1; }
  r.zDbOpt = zDbOpt;
  buf_init(&omitted);
  for(int k=0; k<N_RUN_SECTION; k++){
    aHas[k] = section_has_data(db, runId, k);
    if( aHas[k] ){
      azNav[nNav++] = aRunSection[k].zId;
      azNav[nNav++] = aRunSection[k].zNav;
    }else if( !strstr(buf_str(&omitted), aRunSection[k].zLack) ){
      buf_printf(&omitted, "%s%s", omitted.n ? ", " : "",
                 aRunSection[k].zLack);
    }
  }
  /* the HTA analyses and the roofline: runs with GPU activity */
  hasGpu = db_int(db, 0, db_statement("report-html-run"), (long long)runId)>0;
  if( hasGpu ){
    for(int k=0; k<(int)(sizeof(azExtra)/sizeof(azExtra[0])); k++){
      azNav[nNav++] = azExtra[k];
    }
  }
  nav(pOut, azNav, nNav);
  cat_init(&r);
  r.zOmitted = omitted.n ? buf_str(&omitted) : NULL;
  for(int k=0; k<N_RUN_SECTION && r.rc==0; k++){
    double t0 = util_now_ms();
    if( aHas[k] ) aRunSection[k].xSec(&r, iStep);
    section_time(aRunSection[k].zId, t0);
  }
  if( r.rc==0 && hasGpu ){
    double t0 = util_now_ms();
    r.rc = report_html_hta(db, &r.q, runId, r.aShow, r.nShow, pOut, pErr);
    section_time("hta sections", t0);
  }
  if( r.rc==0 && hasGpu ){
    double t0 = util_now_ms();
    r.rc = report_html_roofline(db, &r.q, runId, pOut, pErr);
    section_time("roofline", t0);
  }
  buf_free(&omitted);
  rc = rh_end(&r);
  free(zDbOpt);
  return rc;
}

/* ------------------------------------------------------------ diff */

/* Paired bars of the first nMax rows of s: label column iLab, values iA
** and iB, note from speedup column iSp (NULL: "new"/"gone"), then the
** table of every row under them (zCaption); finalizes s. */
static void pair_from_stmt(Rh *r, sqlite3_stmt *s, const char *zCaption,
                           const char *zId, const char *zTitle, int iLab,
                           int iA, int iB, int iSp, int nMax,
                           const char *zUnit){
  StrList lab = {0}, note = {0};
  HtmlTable t;
  double *aA = NULL, *aB = NULL;
  int n = 0;
  html_tstmt_begin(&t, s, zCaption, -1);
  while( rh_step(r, s, &t, zCaption) ){
    char z[64];
    double a, b;
    if( n==nMax ) continue;
    a = sqlite3_column_double(s, iA);
    b = sqlite3_column_double(s, iB);
    sl_add(&lab, col_text(s, iLab));
    if( iSp>=0 && sqlite3_column_type(s, iSp)!=SQLITE_NULL ){
      double sp = sqlite3_column_double(s, iSp);
      snprintf(z, sizeof(z), "%.2fx %s", sp>=1 ? sp : (sp>0 ? 1/sp : 0),
               sp>=1 ? "faster" : "slower");
      if( sp==1 ) snprintf(z, sizeof(z), "1.00x (same)");
    }else if( sqlite3_column_type(s, iA)==SQLITE_NULL || a==0 ){
      snprintf(z, sizeof(z), "new in B");
    }else if( sqlite3_column_type(s, iB)==SQLITE_NULL || b==0 ){
      snprintf(z, sizeof(z), "gone in B");
    }else{
      z[0] = 0;
    }
    sl_add(&note, z);
    aA = xrealloc(aA, sizeof(double)*(size_t)(n+1));
    aB = xrealloc(aB, sizeof(double)*(size_t)(n+1));
    aA[n] = a;
    aB[n] = b;
    n++;
  }
  sqlite3_finalize(s);
  if( n>0 ){
    html_pair_chart(r->p, zId, zTitle, "A (baseline)", "B",
                    (const char *const *)lab.az, aA, aB,
                    (const char *const *)note.az, n, zUnit);
  }
  html_tstmt_end(&t, r->p);
  free(aA);
  free(aB);
  sl_free(&lab);
  sl_free(&note);
}

int report_html_diff(sqlite3 *db, int64_t idA, int64_t idB,
                     const char *zScheme, const char *zFloor, Buf *pOut,
                     PfError *pErr){
  static const char *const azNav[] = {
    "metrics", "Metrics", "categories", "Categories", "kernels", "Kernels",
    "memory", "Memory" };
  Rh r;
  char zIdA[32];
  const char *azK[4], *azV[4];
  char *zA = run_label(db, idA), *zB = run_label(db, idB);
  char *zTitle = xasprintf("profan diff: %s \xE2\x86\x92 %s", zA, zB);
  int rc = rh_begin(&r, db, idB, pOut, pErr, zTitle), n;
  sqlite3_stmt *s;
  free(zTitle);
  if( rc ){
    free(zA);
    free(zB);
    return -1;
  }
  snprintf(zIdA, sizeof(zIdA), "%lld", (long long)idA);
  buf_puts(pOut, "<dl class=\"kv\">\n");
  kv(pOut, "A (baseline)", zA);
  kv(pOut, "B", zB);
  kv(pOut, "times", "per step: GPU time / number of (rank, step) rows");
  buf_puts(pOut, "</dl>\n");
  free(zA);
  free(zB);
  nav(pOut, azNav, (int)(sizeof(azNav)/sizeof(azNav[0])));

  html_section_begin(pOut, "metrics", "Run metrics");
  azK[0] = "baseline";
  azV[0] = zIdA;
  rh_table(&r, rh_named(&r, "diff-metrics", azK, azV, 1, -1),
           "diff-metrics", -1);
  html_section_end(pOut);

  html_section_begin(pOut, "categories", "GPU time per step by category");
  n = 1;
  if( zScheme ){ azK[n] = "scheme"; azV[n++] = zScheme; }
  if( zFloor ){ azK[n] = "floor_pct"; azV[n++] = zFloor; }
  s = rh_named(&r, "diff-categories", azK, azV, n, -1);
  if( s ){
    html_note(pOut, "A and B per category in ms per step with the speedup"
              " a_ms / b_ms (named query diff-categories).");
    pair_from_stmt(&r, s, "diff-categories", "chart-diff-categories",
                   "GPU time per step by category, A vs B (ms)",
                   col_index(s, "category"), col_index(s, "a_ms"),
                   col_index(s, "b_ms"), col_index(s, "speedup"), 40, "ms");
  }
  html_section_end(pOut);

  html_section_begin(pOut, "kernels", "Kernels");
  n = 1;
  if( zFloor ){ azK[n] = "floor_pct"; azV[n++] = zFloor; }
  s = rh_named(&r, "diff-kernels", azK, azV, n, 30);
  if( s ){
    pair_from_stmt(&r, s, "diff-kernels", "chart-diff-kernels", "GPU time"
                   " per step of the kernels that changed most, A vs B"
                   " (ms)",
                   col_index(s, "name"), col_index(s, "a_ms"),
                   col_index(s, "b_ms"), col_index(s, "speedup"), 15, "ms");
  }
  html_section_end(pOut);

  html_section_begin(pOut, "memory", "Memory");
  azK[1] = "memory";
  azV[1] = "1";
  s = rh_named(&r, "diff-metrics", azK, azV, 2, -1);
  if( s ){
    int any = 0, iM = col_index(s, "metric");
    while( sqlite3_step(s)==SQLITE_ROW ){
      if( strstr(col_text(s, iM), "_bytes") ) any = 1;
    }
    sqlite3_reset(s);
    if( !any ){
      html_note(pOut, "no memory snapshot in either run");
      sqlite3_finalize(s);
    }else{
      StrList lab = {0}, note = {0};
      double aA[8], aB[8];
      int m = 0;
      while( m<8 && sqlite3_step(s)==SQLITE_ROW ){
        char z[64];
        if( strstr(col_text(s, iM), "_bytes")==NULL ) continue;
        sl_add(&lab, col_text(s, iM));
        aA[m] = sqlite3_column_double(s, col_index(s, "a"))/GIB;
        aB[m] = sqlite3_column_double(s, col_index(s, "b"))/GIB;
        if( sqlite3_column_type(s, col_index(s, "change_pct"))
            !=SQLITE_NULL ){
          snprintf(z, sizeof(z), "%+.2f %%",
                   sqlite3_column_double(s, col_index(s, "change_pct")));
        }else{
          z[0] = 0;
        }
        sl_add(&note, z);
        m++;
      }
      html_pair_chart(pOut, "chart-diff-memory", "Memory, A vs B (GiB)",
                      "A (baseline)", "B", (const char *const *)lab.az, aA,
                      aB, (const char *const *)note.az, m, "GiB");
      sl_free(&lab);
      sl_free(&note);
      rh_table(&r, s, "diff-metrics memory", -1);
    }
  }
  html_section_end(pOut);
  return rh_end(&r);
}

/* ------------------------------------------------------------ trend */

/* The trend's table, n rows of 6 cells that html_cell_value escaped
** already (so written raw). */
static void trend_table(Buf *pOut, const StrList *cells, int n){
  static const char *const azHead[] = { "run_id", "name", "created_at",
    "value", "change_pct", "regression" };
  buf_puts(pOut, "<div class=\"tables\"><table class=\"data\">\n"
           "<thead><tr>");
  for(int i=0; i<6; i++){
    buf_printf(pOut, "<th scope=\"col\">%s</th>", azHead[i]);
  }
  buf_puts(pOut, "</tr></thead>\n<tbody>\n");
  for(int i=0; i<n; i++){
    buf_puts(pOut, "<tr>");
    for(int k=0; k<6; k++){
      buf_printf(pOut, "<td%s>%s</td>", k==0 || k==3 || k==4
                 ? " class=\"n\"" : "", cells->az[i*6+k]);
    }
    buf_puts(pOut, "</tr>\n");
  }
  html_table_end(pOut);
}

int report_html_trend(sqlite3 *db, const char *zMetric, const char *zTagKey,
                      const char *zTagVal, const char *zLast, Buf *pOut,
                      PfError *pErr){
  Rh r;
  const char *azK[4], *azV[4];
  int nKV = 0, dir, n = 0, nReg = 0;
  char *zTitle = xasprintf("profan trend: %s", zMetric);
  sqlite3_stmt *s;
  if( rh_begin(&r, db, 0, pOut, pErr, zTitle) ){
    free(zTitle);
    return -1;
  }
  azK[nKV] = "metric"; azV[nKV++] = zMetric;
  if( zTagKey ){
    azK[nKV] = "tag_key"; azV[nKV++] = zTagKey;
    azK[nKV] = "tag_value"; azV[nKV++] = zTagVal;
  }
  if( zLast ){ azK[nKV] = "last"; azV[nKV++] = zLast; }
  dir = (int)db_int(db, 1, db_statement("metric-direction"),
                    zMetric);
  {
    char *zH = xasprintf("%s over the runs", zMetric);
    html_section_begin(pOut, "trend", zH);
    free(zH);
  }
  s = rh_named(&r, "trend", azK, azV, nKV, -1);
  if( s ){
    double *aX = NULL, *aY = NULL;
    HtmlMarker *aM = NULL;
    StrList ticks = {0}, marks = {0}, cells = {0};
    HtmlSeries ser;
    char zNote[300];
    while( rh_step(&r, s, NULL, "trend") ){
      double ch = sqlite3_column_double(s, 4);
      int hasCh = sqlite3_column_type(s, 4)!=SQLITE_NULL;
      int reg = hasCh && (dir>0 ? ch>REPORT_HTML_TREND_PCT
                          : dir<0 ? ch< -REPORT_HTML_TREND_PCT
                          : fabs(ch)>REPORT_HTML_TREND_PCT);
      char z[96];
      Buf b;
      aX = xrealloc(aX, sizeof(double)*(size_t)(n+1));
      aY = xrealloc(aY, sizeof(double)*(size_t)(n+1));
      aX[n] = n;
      aY[n] = sqlite3_column_double(s, 3);
      snprintf(z, sizeof(z), "#%s", col_text(s, 0));
      sl_add(&ticks, z);
      if( reg ){
        snprintf(z, sizeof(z), "regression %+.1f %%", ch);
        sl_add(&marks, z);
        aM = xrealloc(aM, sizeof(HtmlMarker)*(size_t)(nReg+1));
        aM[nReg].x = n;
        aM[nReg].y = aY[n];
        aM[nReg].eShape = 1;
        aM[nReg].zLabel = NULL;
        nReg++;
      }
      /* the table row: numbers by the one rule per unit (the value in
      ** the metric's unit), as table output prints them */
      buf_init(&b);
      for(int i=0; i<5; i++){
        int t = sqlite3_column_type(s, i);
        buf_reset(&b);
        if( i>=3 && (t==SQLITE_FLOAT || t==SQLITE_INTEGER) ){
          output_number(&b, i==3 ? zMetric : "change_pct", s, i);
        }else{
          html_cell_value(&b, s, i);
        }
        sl_add(&cells, buf_str(&b));
      }
      buf_free(&b);
      sl_add(&cells, reg ? "regression" : "");
      n++;
    }
    for(int i=0; i<nReg; i++) aM[i].zLabel = marks.az[i];
    snprintf(zNote, sizeof(zNote), "Oldest run first (named query trend)."
             " A change of more than %g %% in the bad direction (%s) from"
             " the previous run is marked \xE2\x96\xB2 regression; %d"
             " marked.", REPORT_HTML_TREND_PCT,
             dir>0 ? "higher is worse" : dir<0 ? "lower is worse"
                   : "either way", nReg);
    if( n==0 ){
      html_note(pOut, "no run has this metric");
    }else{
      html_note(pOut, zNote);
      ser.zName = zMetric;
      ser.aX = aX;
      ser.aY = aY;
      ser.n = n;
      ser.iStyle = 0;
      char *zCap = xasprintf("%s per run (oldest first)", zMetric);
      html_line_chart(pOut, &(HtmlLineChart){ .zId = "chart-trend",
                      .zTitle = zCap, .zXLabel = "run", .zYLabel = zMetric,
                      .aS = &ser, .nS = 1, .aM = aM, .nM = nReg,
                      .azXTick = (const char *const *)ticks.az, .nX = n });
      free(zCap);
      trend_table(pOut, &cells, n);
    }
    sqlite3_finalize(s);
    free(aX);
    free(aY);
    free(aM);
    sl_free(&ticks);
    sl_free(&marks);
    sl_free(&cells);
  }
  html_section_end(pOut);
  free(zTitle);
  return rh_end(&r);
}
