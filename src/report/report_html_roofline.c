/*
** report_html_roofline.c — the roofline section of the run page (see
** report_html_roofline.h).  One pass over op-roofline feeds both the chart
** and the table under it; the rooflines come from op_roofline_core (one
** per GPU and element-type peak of the run).  Axes are log10: intensity
** (FLOP/byte) across, TFLOP/s up; a roofline is min(peak, bandwidth x
** intensity), hierarchical (schema 064): the HBM ceiling solid, the L2
** ceiling dashed where the GPU has L2 figures.  A point sits at the
** intensity of its row's tier (FLOPs over the bytes that tier moves:
** gbytes for l2, hbm_gbytes for hbm), so its distance under that
** tier's ceiling is its roofline_pct.  Points are numbered; the table's
** row N is point N.
**
** Pipeline position: read side, last stage before the file.
*/
#include "report/report_html_roofline.h"
#include "core/db.h"
#include "report/html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plot area inside the HTML_CHART_W x CHART_H drawing. */
#define CHART_H 440
#define PX0 70.0
#define PX1 (HTML_CHART_W - 20.0)
#define PY0 20.0
#define PY1 (CHART_H - 50.0)
/* The chart's caption (plain text, nothing to escape). */
#define CAPTION "Roofline: achieved TFLOP/s against arithmetic intensity" \
  " (log-log), point area ~ GPU time"
/* Rooflines drawn at most. */
#define MAX_ROOFS 6

typedef struct Pt {
  double x, y, ms;      /* intensity, TFLOP/s, GPU ms */
  int no;               /* its row number in the table, from 1 */
  char zLabel[200];     /* "name dims: ..." for the point's <title> */
} Pt;

typedef struct Roof {
  double peak, bw, l2;  /* TFLOP/s, HBM TB/s, L2 TB/s (0: no L2 figure) */
  char zName[96];       /* "H100 SXM bf16" */
} Roof;

/* Log-scale axis: lo..hi are log10 values. */
typedef struct Axis { double lo, hi; } Axis;

static double ax_x(const Axis *a, double v){
  return PX0 + (log10(v) - a->lo) / (a->hi - a->lo) * (PX1 - PX0);
}
static double ax_y(const Axis *a, double v){
  return PY1 - (log10(v) - a->lo) / (a->hi - a->lo) * (PY1 - PY0);
}

/* Column index of zName in s, or -1. */
static int col(sqlite3_stmt *s, const char *zName){
  for(int i=0; i<sqlite3_column_count(s); i++){
    if( strcmp(sqlite3_column_name(s, i), zName)==0 ) return i;
  }
  return -1;
}

static const char *txt(sqlite3_stmt *s, int i){
  const char *z = i>=0 ? (const char *)sqlite3_column_text(s, i) : NULL;
  return z ? z : "";
}

/* The rooflines of run runId into a (at most MAX_ROOFS); returns how
** many, or -1 with pErr set. */
static int load_roofs(sqlite3 *db, int64_t runId, Roof *a, PfError *pErr){
  sqlite3_stmt *s = NULL;
  int n = 0, rc;
  if( sqlite3_prepare_v2(db,
      db_statement("report-html-roofline-load-roofs"),
      -1, &s, NULL)!=SQLITE_OK ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "roofline: %s", sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_int64(s, 1, runId);
  while( (rc = sqlite3_step(s))==SQLITE_ROW && n<MAX_ROOFS ){
    a[n].peak = sqlite3_column_double(s, 2);
    a[n].bw = sqlite3_column_double(s, 3);
    a[n].l2 = sqlite3_column_double(s, 4);
    snprintf(a[n].zName, sizeof(a[n].zName), "%s %s", txt(s, 0), txt(s, 1));
    n++;
  }
  if( rc!=SQLITE_ROW && rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "roofline: %s", sqlite3_errmsg(db));
    n = -1;
  }
  sqlite3_finalize(s);
  return n;
}

/* Every how many decades an axis of len pixels gets a label, so that
** labels stay minPx apart however many decades it spans. */
static int label_step(const Axis *a, double len, double minPx){
  double n = a->hi - a->lo;
  int k = n>0 ? (int)ceil(n * minPx / len) : 1;
  return k<1 ? 1 : k;
}

/* 1 when decade d carries a label at step k (d may be negative). */
static int labelled(int d, int k){
  return ((d % k) + k) % k == 0;
}

/* Decade grid lines of both axes, labels as often as they fit. */
static void draw_axes(Buf *p, const Axis *ax, const Axis *ay){
  int kx = label_step(ax, PX1 - PX0, 48.0);
  int ky = label_step(ay, PY1 - PY0, 18.0);
  for(int d=(int)ceil(ax->lo); d<=(int)floor(ax->hi); d++){
    double x = ax_x(ax, pow(10, d));
    char z[32];
    if( labelled(d, kx) && x > PX0 + 24 ){
      snprintf(z, sizeof(z), "%g", pow(10, d));
    }else{
      z[0] = 0;
    }
    buf_printf(p, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\""
               " y2=\"%.1f\"/>\n", x, PY0, x, PY1);
    if( z[0] ){
      buf_printf(p, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
                 "%s</text>\n", x, PY1 + 16, z);
    }
  }
  for(int d=(int)ceil(ay->lo); d<=(int)floor(ay->hi); d++){
    double y = ax_y(ay, pow(10, d));
    char z[32];
    if( labelled(d, ky) ) snprintf(z, sizeof(z), "%g", pow(10, d));
    else z[0] = 0;
    buf_printf(p, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\""
               " y2=\"%.1f\"/>\n", PX0, y, PX1, y);
    if( z[0] ){
      buf_printf(p, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s"
                 "</text>\n", PX0 - 6, y + 4, z);
    }
  }
  buf_printf(p, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
             " height=\"%.1f\"/>\n", PX0, PY0, PX1 - PX0, PY1 - PY0);
  buf_printf(p, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">"
             "arithmetic intensity (FLOP/byte)</text>\n",
             (PX0 + PX1) / 2, CHART_H - 12);
  buf_printf(p, "<text x=\"14\" y=\"%.1f\" transform=\"rotate(-90 14 %.1f)\""
             " text-anchor=\"middle\">achieved TFLOP/s</text>\n",
             (PY0 + PY1) / 2, (PY0 + PY1) / 2);
}

/* A label's box: left, baseline, width. */
typedef struct LabelBox { double x, y, w; } LabelBox;
#define MAX_LABELS 64
#define LABEL_H 12.0
/* Pixels per character of a chart label (11 px sans-serif, generous). */
#define CHAR_W 6.5

/* 1 when a box at x (left), y (baseline), w wide overlaps one of aBox. */
static int box_overlaps(const LabelBox *aBox, int n, double x, double y,
                        double w){
  for(int k=0; k<n; k++){
    const LabelBox *b = &aBox[k];
    if( x < b->x + b->w && b->x < x + w && fabs(y - b->y) < LABEL_H ){
      return 1;
    }
  }
  return 0;
}

/* One ceiling (style i) of bandwidth bw under peak: the memory slope up
** to the ridge, then flat; zTitle names it on hover.  Dashed: the L2
** ceiling. */
static void draw_ceiling(Buf *p, const Axis *ax, const Axis *ay,
                         double peak, double bw, int i, int dashed,
                         const char *zTitle){
  double xl = pow(10, ax->lo), xh = pow(10, ax->hi);
  double ridge = peak / bw;
  double x0 = xl, y0 = bw * xl;
  if( y0 < pow(10, ay->lo) ){          /* enter at the bottom edge */
    y0 = pow(10, ay->lo);
    x0 = y0 / bw;
  }
  if( ridge<x0 ) ridge = x0;
  if( ridge>xh ) ridge = xh;
  buf_printf(p, "<polyline class=\"ln roof s%d\"%s points=\"%.1f,%.1f"
             " %.1f,%.1f %.1f,%.1f\"><title>", i,
             dashed ? " stroke-dasharray=\"6 4\"" : "",
             ax_x(ax, x0), ax_y(ay, y0),
             ax_x(ax, ridge), ax_y(ay, fmin(peak, bw * ridge)),
             ax_x(ax, xh), ax_y(ay, fmin(peak, bw * xh)));
  html_esc(p, zTitle);
  buf_puts(p, "</title></polyline>\n");
}

/* One roofline (style i): its HBM ceiling and, when the GPU has L2
** figures, its L2 ceiling (same peak, dashed).  Its label goes above the
** flat part, or under the previous labels when another roofline has the
** same peak; its box joins aBox so that the points' numbers keep clear
** of it. */
static void draw_roof(Buf *p, const Axis *ax, const Axis *ay,
                      const Roof *r, int i, LabelBox *aBox, int *pn){
  double ly, lw;
  char zPeak[32], zLbl[160];
  draw_ceiling(p, ax, ay, r->peak, r->bw, i, 0, r->zName);
  if( r->l2>0 ){
    char zT[112];
    snprintf(zT, sizeof(zT), "%s L2", r->zName);
    draw_ceiling(p, ax, ay, r->peak, r->l2, i, 1, zT);
  }
  html_fmt_short(r->peak, zPeak);
  if( r->l2>0 ){
    lw = CHAR_W * snprintf(zLbl, sizeof(zLbl), "%s %s TFLOP/s, HBM %.3g,"
                           " L2 %.3g TB/s", r->zName, zPeak, r->bw, r->l2);
  }else{
    lw = CHAR_W * snprintf(zLbl, sizeof(zLbl), "%s %s TFLOP/s, %.3g TB/s",
                           r->zName, zPeak, r->bw);
  }
  ly = ax_y(ay, r->peak) - 4;
  for(int k=0; k<MAX_ROOFS && box_overlaps(aBox, *pn, PX1 - 4 - lw, ly, lw);
      k++){
    ly += LABEL_H + 2;
  }
  if( *pn<MAX_LABELS ){
    aBox[*pn].x = PX1 - 4 - lw;
    aBox[*pn].y = ly;
    aBox[*pn].w = lw;
    (*pn)++;
  }
  buf_printf(p, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\""
             " text-anchor=\"end\">", PX1 - 4, ly);
  html_esc(p, zLbl);
  buf_puts(p, "</text>\n");
}

/* The chart: axes spanning points and rooflines, rooflines, points. */

/* 1 (and the box kept) when number no, drawn at (x, y), overlaps no box
** in aBox[0..*pn); 0 when it would, or when MAX_LABELS are drawn. */
static int label_fits(LabelBox *aBox, int *pn, double x, double y, int no){
  char z[16];
  double w = 7.0 * snprintf(z, sizeof(z), "%d", no);
  if( *pn>=MAX_LABELS ) return 0;
  if( box_overlaps(aBox, *pn, x, y, w) ) return 0;
  aBox[*pn].x = x;
  aBox[*pn].y = y;
  aBox[*pn].w = w;
  (*pn)++;
  return 1;
}

static void draw_chart(Buf *p, const Pt *a, int n, const Roof *r, int nRoof,
                       int nSkip){
  LabelBox aBox[MAX_LABELS];
  int nBox = 0;
  Axis ax = {1e300, -1e300}, ay = {1e300, -1e300};
  double maxMs = 0;
  for(int i=0; i<n; i++){
    ax.lo = fmin(ax.lo, log10(a[i].x)); ax.hi = fmax(ax.hi, log10(a[i].x));
    ay.lo = fmin(ay.lo, log10(a[i].y)); ay.hi = fmax(ay.hi, log10(a[i].y));
    maxMs = fmax(maxMs, a[i].ms);
  }
  for(int i=0; i<nRoof; i++){
    double ridge = log10(r[i].peak / r[i].bw);
    ax.lo = fmin(ax.lo, ridge); ax.hi = fmax(ax.hi, ridge);
    if( r[i].l2>0 ) ax.lo = fmin(ax.lo, log10(r[i].peak / r[i].l2));
    ay.hi = fmax(ay.hi, log10(r[i].peak));
  }
  ax.lo = floor(ax.lo - 0.3); ax.hi = ceil(ax.hi + 0.3);
  ay.lo = floor(ay.lo - 0.3); ay.hi = ceil(ay.hi + 0.3);
  /* caption, aria-label and title say the same (as html.c's charts) */
  buf_printf(p, "<figure id=\"chart-roofline\">\n<figcaption>%s</figcaption>"
             "\n<svg class=\"chart\" role=\"img\" viewBox=\"0 0 %d %d\""
             " width=\"%d\" height=\"%d\" aria-label=\"%s\"><title>%s"
             "</title>\n", CAPTION, HTML_CHART_W, CHART_H, HTML_CHART_W,
             CHART_H, CAPTION, CAPTION);
  draw_axes(p, &ax, &ay);
  for(int i=0; i<nRoof; i++) draw_roof(p, &ax, &ay, &r[i], i, aBox, &nBox);
  for(int i=0; i<n; i++){
    double x = ax_x(&ax, a[i].x), y = ax_y(&ay, a[i].y);
    double rad = 3 + 12 * (maxMs>0 ? sqrt(a[i].ms / maxMs) : 0);
    buf_printf(p, "<circle class=\"pt mk s%d\" cx=\"%.1f\" cy=\"%.1f\""
               " r=\"%.1f\" fill-opacity=\"0.6\"><title>", (i % 9) + 1, x, y,
               rad);
    html_esc(p, a[i].zLabel);
    buf_puts(p, "</title></circle>\n");
    /* the row number beside the point, unless it would cover a number
    ** already drawn (points come largest time first; the table and the
    ** hover title name every point) */
    if( label_fits(aBox, &nBox, x + rad + 2, y + 4, a[i].no) ){
      buf_printf(p, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\">%d"
                 "</text>\n", x + rad + 2, y + 4, a[i].no);
    }
  }
  buf_puts(p, "</svg>\n</figure>\n");
  if( nSkip>0 ){
    char z[96];
    snprintf(z, sizeof(z), "%d row%s with no FLOPs (copies) or no time not"
             " drawn on the log axes.", nSkip, nSkip==1 ? "" : "s");
    html_note(p, z);
  }
}

int report_html_roofline(sqlite3 *db, const NqList *pQ, int64_t runId,
                         Buf *p, PfError *pErr){
  const NamedQuery *q = named_query_find(pQ, "op-roofline");
  sqlite3_stmt *s;
  HtmlTable t;
  Roof aRoof[MAX_ROOFS];
  Pt *a = NULL;
  int n = 0, nSkip = 0, nRoof, rc, iName, iDims, iI, iT, iMs, iPct, iTier;
  int iB, iHb;
  html_section_begin(p, "roofline", "Operator roofline");
  if( q==NULL ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "no query named 'op-roofline'");
    return -1;
  }
  s = named_query_prepare(db, q, runId, NULL, NULL, 0, ROOFLINE_MAX_POINTS,
                          pErr);
  if( s==NULL ) return -1;
  nRoof = load_roofs(db, runId, aRoof, pErr);
  if( nRoof<0 ){
    sqlite3_finalize(s);
    return -1;
  }
  iName = col(s, "name"); iDims = col(s, "dims"); iI = col(s, "intensity");
  iT = col(s, "tflops"); iMs = col(s, "gpu_ms"); iPct = col(s, "roofline_pct");
  iTier = col(s, "tier"); iB = col(s, "gbytes"); iHb = col(s, "hbm_gbytes");
  html_tstmt_begin(&t, s, "op-roofline (row N is point N)", -1);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    double x = sqlite3_column_double(s, iI), y = sqlite3_column_double(s, iT);
    double hb = iHb>=0 ? sqlite3_column_double(s, iHb) : 0;
    const char *zTier = txt(s, iTier);
    /* an hbm-tier point at FLOPs per byte that crosses HBM */
    if( strcmp(zTier, "hbm")==0 && hb>0 && iB>=0 ){
      x *= sqlite3_column_double(s, iB) / hb;
    }
    html_tstmt_row(&t, s);
    if( !(x>0) || !(y>0) ){
      nSkip++;
      x = y = 0;        /* no mark, but its number stays taken */
    }
    a = xrealloc(a, sizeof(Pt)*(size_t)(n+1));
    a[n].x = x;
    a[n].y = y;
    a[n].ms = sqlite3_column_double(s, iMs);
    a[n].no = n+1;
    snprintf(a[n].zLabel, sizeof(a[n].zLabel), "%d. %s %s: %s TFLOP/s,"
             " %s %% of the %s roofline, %s ms", n+1, txt(s, iName),
             txt(s, iDims), txt(s, iT), txt(s, iPct), zTier, txt(s, iMs));
    n++;
  }
  sqlite3_finalize(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "op-roofline: %s", sqlite3_errmsg(db));
    html_tstmt_end(&t, NULL);
    free(a);
    return -1;
  }
  if( n - nSkip > 0 ){
    Pt *b = xmalloc(sizeof(Pt)*(size_t)n);
    int m = 0;
    for(int i=0; i<n; i++) if( a[i].x>0 ) b[m++] = a[i];
    draw_chart(p, b, m, aRoof, nRoof, nSkip);
    free(b);
    if( nRoof==0 ){
      html_note(p, "No GPU spec matches this run's devices (table gpu_spec):"
                " no roofline drawn.");
    }
    html_tstmt_end(&t, p);
  }else{
    html_tstmt_end(&t, n>0 ? p : NULL);
    html_note(p, "no operator with a FLOP and byte model ran on the GPU"
              " in this run");
  }
  free(a);
  html_section_end(p);
  return 0;
}
