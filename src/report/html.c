/*
** html.c — the HTML writer of the reports (see html.h): escaping, page
** skeleton with inline CSS, tables, and inline SVG charts.
**
** Pipeline position: the last stage, used by report_html.c.  All output
** is appended to a Buf; html_write_file() puts the finished page on disk
** atomically.  Nothing here reads the database except html_table_stmt(),
** which steps a statement the caller prepared.
**
** Layout: every chart is HTML_CHART_W user units wide and scales with the
** page (viewBox, width 100%).  Styles are CSS classes s0..s9 (colours
** from custom properties, swapped under prefers-color-scheme: dark) and
** fill patterns pf0..pf9 defined once per page in a hidden <svg>; a
** pattern paints its style's colour plus its own hatching, so series stay
** apart in grey-scale print and for colour-blind readers.
*/
#include "report/html.h"
#include "report/output.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bar charts: label column, bar height and gap, value text column. */
#define BAR_LABEL_W 260
#define BAR_H 16
#define BAR_GAP 6
#define BAR_TEXT_W 150
/* Line chart plot margins. */
#define LINE_H 300
#define LINE_LEFT 78
#define LINE_RIGHT 24
#define LINE_TOP 28
#define LINE_BOTTOM 48
/* Timeline: lane label column and lane height. */
#define TL_LABEL_W 150
#define TL_LANE_H 20
/* Axis ticks drawn at most. */
#define MAX_TICKS 20
/* Longest label drawn in a chart, in code points (the table has it all). */
#define LABEL_MAX 40
/* Longest row label of a bar chart (fits BAR_LABEL_W). */
#define BAR_LABEL_MAX 30
/* Lines a marker label may move up or down when its four places next to
** the marker are taken (html_line_chart). */
#define MARKER_SHIFTS 6

/* ------------------------------------------------------------ text */

/* Length of the valid UTF-8 sequence at z (n > 0 bytes left) that may
** appear in HTML text, or 0 (invalid, or a C1 control U+0080..U+009F). */
static int utf8_len(const unsigned char *z, size_t n){
  if( z[0]==0xC2 && n>1 && z[1]<0xA0 ) return 0;     /* C1 controls */
  return (int)util_utf8_seq(z, n);
}

void html_escn(Buf *p, const char *z, size_t n){
  const unsigned char *u = (const unsigned char *)z;
  size_t i = 0;
  if( z==NULL ) return;
  while( i<n ){
    unsigned char c = u[i];
    int len;
    switch( c ){
      case '&': buf_puts(p, "&amp;"); i++; continue;
      case '<': buf_puts(p, "&lt;"); i++; continue;
      case '>': buf_puts(p, "&gt;"); i++; continue;
      case '"': buf_puts(p, "&quot;"); i++; continue;
      case '\'': buf_puts(p, "&#39;"); i++; continue;
      default: break;
    }
    if( (c<0x20 && c!='\t' && c!='\n' && c!='\r') || c==0x7F ){
      buf_puts(p, "\xEF\xBF\xBD");
      i++;
      continue;
    }
    len = utf8_len(u+i, n-i);
    if( len==0 ){
      buf_puts(p, "\xEF\xBF\xBD");
      i++;
      continue;
    }
    buf_append(p, u+i, (size_t)len);
    i += (size_t)len;
  }
}

void html_esc(Buf *p, const char *z){
  if( z ) html_escn(p, z, strlen(z));
}

/* See html.h: output_short_name() (output.c) without all arguments. */
char *html_short_name(const char *z){
  return output_short_name(z, 0);
}

/* The short name of z (output_short_name). */
static char *short_name(const char *z, int bAllArgs){
  return output_short_name(z, bAllArgs);
}

/* Append z escaped, cut to at most nMax code points ("…" at the cut). */
static void esc_cut(Buf *p, const char *z, int nMax){
  size_t n = 0;
  int k = 0;
  if( z==NULL ) return;
  while( z[n] ){
    if( ((unsigned char)z[n] & 0xC0)!=0x80 ){
      if( k==nMax-1 && strlen(z+n)>1 ){
        size_t m = n+1;
        while( z[m] && ((unsigned char)z[m] & 0xC0)==0x80 ) m++;
        if( z[m] ){
          html_escn(p, z, n);
          buf_puts(p, "\xE2\x80\xA6");
          return;
        }
      }
      k++;
    }
    n++;
  }
  html_escn(p, z, n);
}

void html_fmt_real(double r, char *z){
  if( isnan(r) ){ strcpy(z, "NaN"); return; }
  if( isinf(r) ){ strcpy(z, r>0 ? "Inf" : "-Inf"); return; }
  for(int prec=15; prec<=17; prec++){
    snprintf(z, 32, "%.*g", prec, r);
    if( strtod(z, NULL)==r ) break;
  }
  if( strpbrk(z, ".eE")==NULL ) strcat(z, ".0");
}

void html_fmt_bytes(double v, char *z){
  static const char *azUnit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  double a = fabs(v);
  int u = -1;
  if( !isfinite(v) ){
    html_fmt_real(v, z);
    return;
  }
  if( a<1024 ){
    snprintf(z, 32, "%.0f B", v);
    return;
  }
  while( a>=1024 && u<5 ){
    a /= 1024;
    v /= 1024;
    u++;
  }
  snprintf(z, 32, "%.1f %s", v, azUnit[u]);
}

void html_fmt_short(double v, char *z){
  double a = fabs(v);
  if( !isfinite(v) ) html_fmt_real(v, z);
  else if( v==0 ) strcpy(z, "0");
  else if( a>=1e15 || a<1e-9 ) snprintf(z, 32, "%.3g", v);
  else if( a>=1000 ) snprintf(z, 32, "%.0f", v);
  else{
    /* 3 significant digits in fixed notation, trailing zeros dropped */
    int nDec = 2 - (int)floor(log10(a));
    char *e;
    if( nDec<0 ) nDec = 0;
    snprintf(z, 32, "%.*f", nDec, v);
    if( strchr(z, '.') ){
      e = z + strlen(z);
      while( e[-1]=='0' ) *--e = 0;
      if( e[-1]=='.' ) e[-1] = 0;
    }
  }
}

/* 1 when zName ends with zSuffix. */
static int has_suffix(const char *zName, const char *zSuffix){
  size_t n = zName ? strlen(zName) : 0, k = strlen(zSuffix);
  return n>=k && strcmp(zName+n-k, zSuffix)==0;
}

/* Width and height of the inline cell charts, px. */
#define CELL_W 80
#define CELL_H 10

/* A *_bar (0..1) or *_pct_bar (0..100) cell as an inline bar, the raw
** value in data-v and the percentage as its text label. */
static void cell_bar(Buf *p, sqlite3_stmt *s, int i, double full){
  double v = sqlite3_column_double(s, i)/full;
  char z[32];
  if( !(v>0) ) v = 0;             /* negative and NaN: empty */
  if( v>1 ) v = 1;
  snprintf(z, sizeof(z), "%.1f %%", 100.0*v);
  buf_puts(p, "<td class=\"n\" data-v=\"");
  html_cell_value(p, s, i);
  buf_printf(p, "\"><svg class=\"cell\" width=\"%d\" height=\"%d\""
             " role=\"img\" aria-label=\"%s\"><title>%s</title>"
             "<rect class=\"track\" width=\"%d\" height=\"%d\"/>"
             "<rect class=\"s0\" width=\"%.1f\" height=\"%d\"/></svg></td>",
             CELL_W, CELL_H, z, z, CELL_W, CELL_H, CELL_W*v, CELL_H);
}

/* A *_spark cell (numbers separated by ',', ';' or spaces) as an inline
** line, the raw text in data-v and as its label; text when unparsable. */
static void cell_spark(Buf *p, sqlite3_stmt *s, int i){
  const char *z = (const char*)sqlite3_column_text(s, i);
  double a[256], lo = 0, hi = 0;
  int n = 0;
  const char *q = z;
  while( q && *q && n<256 ){
    char *zEnd;
    double v;
    while( *q==',' || *q==';' || *q==' ' ) q++;
    if( *q==0 ) break;
    v = strtod(q, &zEnd);
    if( zEnd==q || !isfinite(v) ){ n = 0; break; }
    if( n==0 || v<lo ) lo = v;
    if( n==0 || v>hi ) hi = v;
    a[n++] = v;
    q = zEnd;
  }
  if( n<2 ){
    buf_puts(p, "<td>");
    html_cell_value(p, s, i);
    buf_puts(p, "</td>");
    return;
  }
  buf_puts(p, "<td data-v=\"");
  html_esc(p, z);
  buf_printf(p, "\"><svg class=\"cell\" width=\"%d\" height=\"%d\""
             " role=\"img\" aria-label=\"", CELL_W, CELL_H);
  html_esc(p, z);
  buf_puts(p, "\"><title>");
  html_esc(p, z);
  buf_puts(p, "</title><polyline class=\"ln s0\" style=\"stroke-width:1.2\""
           " points=\"");
  for(int k=0; k<n; k++){
    double y = hi>lo ? (CELL_H-1) - (CELL_H-2)*(a[k]-lo)/(hi-lo) : CELL_H/2.0;
    buf_printf(p, "%s%.1f,%.1f", k ? " " : "", (CELL_W-1.0)*k/(n-1), y);
  }
  buf_puts(p, "\"/></svg></td>");
}

void html_cell_value(Buf *p, sqlite3_stmt *s, int i){
  char z[40];
  switch( sqlite3_column_type(s, i) ){
    case SQLITE_INTEGER:
      buf_printf(p, "%lld", (long long)sqlite3_column_int64(s, i));
      break;
    case SQLITE_FLOAT:
      html_fmt_real(sqlite3_column_double(s, i), z);
      buf_puts(p, z);
      break;
    case SQLITE_TEXT:
      html_escn(p, (const char *)sqlite3_column_text(s, i),
                (size_t)sqlite3_column_bytes(s, i));
      break;
    case SQLITE_BLOB:
      buf_printf(p, "(%d bytes)", sqlite3_column_bytes(s, i));
      break;
    default:
      break;
  }
}

/* ------------------------------------------------------------ page */

static const char zCss[] =
  ":root{color-scheme:light dark;--bg:#fff;--fg:#1d2026;--muted:#59606c;"
  "--line:#d3d7de;--card:#f5f6f8;--hatch:rgba(0,0,0,.42);"
  "--s0:#4269d0;--s1:#e8a20c;--s2:#e5533d;--s3:#4fb3a0;--s4:#3ca951;"
  "--s5:#e87aa8;--s6:#9a5ce6;--s7:#8fb2ec;--s8:#9c6b4e;--s9:#8d929b;"
  "--high:#b71c1c;--medium:#9a5b00;--low:#2e6b30;--info:#3a5a99}\n"
  "@media (prefers-color-scheme:dark){:root{--bg:#14161a;--fg:#e7e9ec;"
  "--muted:#a3aab6;--line:#3b4049;--card:#1d2026;"
  "--hatch:rgba(255,255,255,.5);--s0:#7094f0;--s1:#f2bd3c;--s2:#f27a66;"
  "--s3:#6fd0bd;--s4:#62c977;--s5:#f59cc2;--s6:#b98cf5;--s7:#a9c5f5;"
  "--s8:#c39272;--s9:#aab0ba;--high:#ff8a80;--medium:#ffc260;"
  "--low:#8fd694;--info:#9db9f2}}\n"
  "*{box-sizing:border-box}\n"
  "body{margin:0;background:var(--bg);color:var(--fg);"
  "font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif}\n"
  "main{max-width:1080px;margin:0 auto;padding:16px 24px 48px}\n"
  "h1{font-size:1.5rem;margin:.4em 0 .2em}\n"
  "h2{font-size:1.2rem;margin:0 0 .5em;padding-bottom:.2em;"
  "border-bottom:1px solid var(--line)}\n"
  "h3{font-size:1rem;margin:1em 0 .4em}\n"
  "section{margin:1.6em 0;padding:12px 16px;background:var(--card);"
  "border:1px solid var(--line);border-radius:6px}\n"
  "nav ul{display:flex;flex-wrap:wrap;gap:.3em 1em;list-style:none;"
  "padding:0;margin:.5em 0}\n"
  "a{color:inherit}\n"
  "figure{margin:.6em 0}\n"
  "figcaption{font-weight:600;margin-bottom:.3em}\n"
  "svg.chart{width:100%;height:auto;display:block}\n"
  "svg text{fill:var(--fg);font-size:12px;font-family:inherit}\n"
  "svg .muted{fill:var(--muted)}\n"
  ".lbl{paint-order:stroke;stroke:var(--bg);stroke-width:3px;"
  "stroke-linejoin:round}\n"
  ".axis{stroke:var(--muted);stroke-width:1}\n"
  ".grid{stroke:var(--line);stroke-width:1}\n"
  ".frame{fill:none;stroke:var(--line);stroke-width:1}\n"
  ".hatch{stroke:var(--hatch);stroke-width:1.3;fill:none}\n"
  ".dot{fill:var(--hatch)}\n"
  ".outline{fill:none;stroke:var(--fg);stroke-width:2}\n"
  ".s0{fill:var(--s0);stroke:var(--s0)}.s1{fill:var(--s1);stroke:var(--s1)}"
  ".s2{fill:var(--s2);stroke:var(--s2)}.s3{fill:var(--s3);stroke:var(--s3)}"
  ".s4{fill:var(--s4);stroke:var(--s4)}.s5{fill:var(--s5);stroke:var(--s5)}"
  ".s6{fill:var(--s6);stroke:var(--s6)}.s7{fill:var(--s7);stroke:var(--s7)}"
  ".s8{fill:var(--s8);stroke:var(--s8)}.s9{fill:var(--s9);stroke:var(--s9)}\n"
  "pattern rect{stroke:none}\n"
  ".ln{fill:none;stroke-width:2}\n"
  ".mk{stroke:var(--fg);stroke-width:1.5}\n"
  "table{border-collapse:collapse;margin:.4em 0 .8em;font-size:12.5px;"
  "width:100%}\n"
  "caption{text-align:left;font-weight:600;padding:.2em 0}\n"
  "th,td{border-bottom:1px solid var(--line);padding:3px 6px;"
  "text-align:left;vertical-align:top}\n"
  "td.w{overflow-wrap:anywhere;min-width:12em}\n"
  "svg.cell{vertical-align:middle}svg.cell .track{fill:var(--line)}\n"
  "td.n{text-align:right;font-variant-numeric:tabular-nums;"
  "white-space:nowrap}\n"
  ".tables{max-height:28em;overflow:auto}"
  ".tables.full{max-height:none;overflow:visible}\n"
  "dl.kv{display:grid;grid-template-columns:max-content 1fr;"
  "gap:.2em 1.2em;margin:.4em 0}\n"
  "dl.kv dt{color:var(--muted)}dl.kv dd{margin:0}\n"
  ".sev{font-weight:700;white-space:nowrap}\n"
  ".sev-high{color:var(--high)}.sev-medium{color:var(--medium)}"
  ".sev-low{color:var(--low)}.sev-info{color:var(--info)}\n"
  "p.note{color:var(--muted);font-style:italic}\n"
  "footer{color:var(--muted);font-size:12px;margin-top:2em}\n"
  "@media print{:root{--bg:#fff;--fg:#000;--muted:#444;--line:#bbb;"
  "--card:#fff;--hatch:rgba(0,0,0,.5)}body{font-size:11px}"
  "main{max-width:none;padding:0}nav{display:none}"
  "section{break-inside:auto;border:none;padding:0}"
  "figure,tr{break-inside:avoid}.tables{max-height:none;overflow:visible}}\n";

/* Hatching of each pattern, drawn over the style's colour (8x8 tile). */
static const char *const azHatch[HTML_N_STYLE] = {
  "",
  "<path class=\"hatch\" d=\"M-1 1l2-2M0 8l8-8M7 9l2-2\"/>",
  "<circle class=\"dot\" cx=\"4\" cy=\"4\" r=\"1.4\"/>",
  "<path class=\"hatch\" d=\"M0 4h8\"/>",
  "<path class=\"hatch\" d=\"M-1 7l2 2M0 0l8 8M7 -1l2 2\"/>",
  "<path class=\"hatch\" d=\"M4 0v8\"/>",
  "<path class=\"hatch\" d=\"M0 4h8M4 0v8\"/>",
  ("<circle class=\"dot\" cx=\"2\" cy=\"2\" r=\"1\"/>"
   "<circle class=\"dot\" cx=\"6\" cy=\"6\" r=\"1\"/>"),
  "<path class=\"hatch\" d=\"M0 0l8 8M8 0l-8 8\"/>",
  "<path class=\"hatch\" d=\"M0 2h8M0 6h8\"/>",
};

/* Dash pattern of each style's line in line charts. */
static const char *const azDash[HTML_N_STYLE] = {
  "", "8 4", "2 3", "10 3 2 3", "4 4", "", "8 4", "2 3", "10 3 2 3", "4 4"
};

static int style_of(int i){
  return ((i % HTML_N_STYLE) + HTML_N_STYLE) % HTML_N_STYLE;
}

void html_page_begin(Buf *p, const char *zTitle){
  buf_puts(p, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
           "<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width,"
           " initial-scale=1\">\n"
           "<meta name=\"color-scheme\" content=\"light dark\">\n<title>");
  html_esc(p, zTitle);
  buf_puts(p, "</title>\n<style>\n");
  buf_puts(p, zCss);
  buf_puts(p, "</style>\n</head>\n<body>\n"
           "<svg width=\"0\" height=\"0\" style=\"position:absolute\""
           " aria-hidden=\"true\" focusable=\"false\"><defs>\n");
  for(int i=0; i<HTML_N_STYLE; i++){
    buf_printf(p, "<pattern id=\"pf%d\" width=\"8\" height=\"8\""
               " patternUnits=\"userSpaceOnUse\"><rect class=\"s%d\""
               " width=\"8\" height=\"8\"/>%s</pattern>\n", i, i, azHatch[i]);
  }
  buf_puts(p, "</defs></svg>\n<main>\n<header><h1>");
  html_esc(p, zTitle);
  buf_puts(p, "</h1></header>\n");
}

void html_page_end(Buf *p){
  buf_printf(p, "<footer>Generated by profan %s. Self-contained page: no"
             " scripts, no external resources.</footer>\n</main>\n</body>\n"
             "</html>\n", PROFAN_VERSION);
}

void html_section_begin(Buf *p, const char *zId, const char *zTitle){
  buf_puts(p, "<section id=\"");
  html_esc(p, zId);
  buf_puts(p, "\" aria-labelledby=\"h-");
  html_esc(p, zId);
  buf_puts(p, "\">\n<h2 id=\"h-");
  html_esc(p, zId);
  buf_puts(p, "\">");
  html_esc(p, zTitle);
  buf_puts(p, "</h2>\n");
}

void html_section_end(Buf *p){
  buf_puts(p, "</section>\n");
}

void html_heading(Buf *p, const char *zText){
  buf_puts(p, "<h3>");
  html_esc(p, zText);
  buf_puts(p, "</h3>\n");
}

void html_note(Buf *p, const char *zText){
  buf_puts(p, "<p class=\"note\">");
  html_esc(p, zText);
  buf_puts(p, "</p>\n");
}

/* ------------------------------------------------------------ tables */

void html_table_begin(Buf *p, const char *zClass, const char *zCaption,
                      const char *const *azHead, int nCol){
  /* class "full": the whole table, never in a scroll box (findings) */
  buf_puts(p, zClass && strstr(zClass, "full") ? "<div class=\"tables full\">"
           "<table" : "<div class=\"tables\"><table");
  if( zClass ){
    buf_puts(p, " class=\"");
    html_esc(p, zClass);
    buf_puts(p, "\"");
  }
  buf_puts(p, ">\n");
  if( zCaption ){
    buf_puts(p, "<caption>");
    html_esc(p, zCaption);
    buf_puts(p, "</caption>\n");
  }
  buf_puts(p, "<thead><tr>");
  for(int i=0; i<nCol; i++){
    buf_puts(p, "<th scope=\"col\">");
    html_esc(p, azHead[i]);
    buf_puts(p, "</th>");
  }
  buf_puts(p, "</tr></thead>\n<tbody>\n");
}

/* 1 when z is a whole number like "12", "-3.5", "1e9". */
static int looks_numeric(const char *z){
  char *zEnd;
  if( z==NULL || *z==0 ) return 0;
  strtod(z, &zEnd);
  return *zEnd==0;
}

void html_table_row(Buf *p, const char *const *azCell, int nCol){
  buf_puts(p, "<tr>");
  for(int i=0; i<nCol; i++){
    buf_puts(p, looks_numeric(azCell[i]) ? "<td class=\"n\">"
             : azCell[i] && strlen(azCell[i])>40 ? "<td class=\"w\">"
             : "<td>");
    html_esc(p, azCell[i]);
    buf_puts(p, "</td>");
  }
  buf_puts(p, "</tr>\n");
}

void html_table_end(Buf *p){
  buf_puts(p, "</tbody>\n</table></div>\n");
}

void html_tstmt_begin(HtmlTable *t, sqlite3_stmt *s, const char *zCaption,
                      int64_t maxRows){
  memset(t, 0, sizeof(*t));
  buf_init(&t->b);
  t->nCol = sqlite3_column_count(s);
  t->maxRows = maxRows;
  t->azHead = xmalloc(sizeof(char *)*(size_t)(t->nCol+1));
  /* copies: a name is only valid until the statement is stepped */
  for(int i=0; i<t->nCol; i++){
    t->azHead[i] = xstrdup(sqlite3_column_name(s, i));
  }
  html_table_begin(&t->b, "data", zCaption,
                   (const char *const *)t->azHead, t->nCol);
}

void html_tstmt_row(HtmlTable *t, sqlite3_stmt *s){
  Buf *p = &t->b;
  t->nRow++;
  if( t->maxRows>=0 && t->nRow>t->maxRows ) return;
  buf_puts(p, "<tr>");
  for(int i=0; i<t->nCol; i++){
    int eType = sqlite3_column_type(s, i);
    int num = eType==SQLITE_INTEGER || eType==SQLITE_FLOAT;
    if( num && has_suffix(t->azHead[i], "_bar") ){
      cell_bar(p, s, i, has_suffix(t->azHead[i], "_pct_bar") ? 100.0 : 1.0);
      continue;
    }
    if( eType==SQLITE_TEXT && has_suffix(t->azHead[i], "_spark") ){
      cell_spark(p, s, i);
      continue;
    }
    if( num ){
      /* the number as the terminal table shows it; the raw value (as
      ** --format csv prints it) in data-v */
      Buf v;
      buf_init(&v);
      output_number(&v, t->azHead[i], s, i);
      buf_puts(p, "<td class=\"n\" data-v=\"");
      html_cell_value(p, s, i);
      buf_puts(p, "\">");
      html_esc(p, buf_str(&v));
      buf_puts(p, "</td>");
      buf_free(&v);
      continue;
    }
    buf_puts(p, num ? "<td class=\"n\">"
             : sqlite3_column_bytes(s, i)>40 ? "<td class=\"w\">" : "<td>");
    html_cell_value(p, s, i);
    buf_puts(p, "</td>");
  }
  buf_puts(p, "</tr>\n");
}

void html_tstmt_end(HtmlTable *t, Buf *p){
  html_table_end(&t->b);
  if( p ) buf_append(p, t->b.z, t->b.n);
  if( p && t->maxRows>=0 && t->nRow>t->maxRows ){
    char z[120];
    snprintf(z, sizeof(z), "%lld of %lld rows shown.",
             (long long)t->maxRows, (long long)t->nRow);
    html_note(p, z);
  }
  for(int i=0; i<t->nCol; i++) free(t->azHead[i]);
  free(t->azHead);
  buf_free(&t->b);
  t->azHead = NULL;
}

int html_table_stmt(Buf *p, sqlite3_stmt *s, const char *zCaption,
                    int64_t maxRows, int64_t *pnRow){
  HtmlTable t;
  int rc;
  html_tstmt_begin(&t, s, zCaption, maxRows);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ) html_tstmt_row(&t, s);
  if( pnRow ) *pnRow = t.nRow;
  html_tstmt_end(&t, p);
  return rc;
}

/* ------------------------------------------------------------ charts */

/* <figure id=..><figcaption>..</figcaption><svg ...> with title and
** aria-label; h is the height in user units. */
static void figure_begin(Buf *p, const char *zId, const char *zTitle,
                         int h){
  buf_puts(p, "<figure");
  if( zId ){
    buf_puts(p, " id=\"");
    html_esc(p, zId);
    buf_puts(p, "\"");
  }
  buf_puts(p, ">\n<figcaption>");
  html_esc(p, zTitle);
  buf_printf(p, "</figcaption>\n<svg class=\"chart\" role=\"img\""
             " viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\""
             " aria-label=\"", HTML_CHART_W, h, HTML_CHART_W, h);
  html_esc(p, zTitle);
  buf_puts(p, "\"><title>");
  html_esc(p, zTitle);
  buf_puts(p, "</title>\n");
}

static void figure_end(Buf *p){
  buf_puts(p, "</svg>\n</figure>\n");
}

/* The row labels of a bar chart (a new array of n new strings, freed by
** free_labels): the distinguishing part of each name (html_short_name),
** or all its template arguments when that part is shared by another
** name, fitted to BAR_LABEL_MAX (output_fit_name); the full name is in
** the bar's <title>. */
static char **bar_labels(const char *const *az, int n){
  char **azOut = xcalloc((size_t)n+1, sizeof(char *));
  char *aDup = xcalloc((size_t)n+1, 1);
  for(int i=0; i<n; i++){
    azOut[i] = output_fit_name(az[i] ? az[i] : "", BAR_LABEL_MAX);
  }
  for(int i=0; i<n; i++){
    for(int j=0; j<n; j++){
      aDup[i] |= j!=i && strcmp(azOut[i], azOut[j])==0
                 && strcmp(az[i] ? az[i] : "", az[j] ? az[j] : "")!=0;
    }
  }
  for(int i=0; i<n; i++){
    if( aDup[i] ){
      /* all template arguments, cut in the middle: their end differs */
      free(azOut[i]);
      azOut[i] = short_name(az[i], 1);
      output_cut_middle(&azOut[i], BAR_LABEL_MAX);
    }
  }
  free(aDup);
  return azOut;
}

static void free_labels(char **az, int n){
  for(int i=0; i<n; i++) free(az[i]);
  free(az);
}

/* <text x y [anchor] class="lbl">z</text>, z cut to LABEL_MAX. */
static void svg_text(Buf *p, double x, double y, const char *zAnchor,
                     const char *zClass, const char *z){
  buf_printf(p, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
  if( zAnchor ) buf_printf(p, " text-anchor=\"%s\"", zAnchor);
  if( zClass ) buf_printf(p, " class=\"%s\"", zClass);
  buf_puts(p, ">");
  esc_cut(p, z, LABEL_MAX);
  buf_puts(p, "</text>\n");
}

/* A filled rectangle in style i (colour + pattern). */
static void svg_rect(Buf *p, double x, double y, double w, double h, int i){
  /* no class: a CSS fill would override the pattern */
  buf_printf(p, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\""
             " fill=\"url(#pf%d)\"/>\n", x, y, w<0 ? 0 : w, h, style_of(i));
}

/* A legend row of nItem swatches at y, starting at x. */
static void svg_legend(Buf *p, double x, double y,
                       const char *const *azName, const int *aStyle,
                       int nItem){
  for(int i=0; i<nItem; i++){
    int len = azName[i] ? (int)strlen(azName[i]) : 0;
    if( len>LABEL_MAX ) len = LABEL_MAX;
    if( x+24+7.4*len>HTML_CHART_W ){
      x = 8;
      y += 18;
    }
    svg_rect(p, x, y-10, 12, 12, aStyle ? aStyle[i] : i);
    svg_text(p, x+16, y, NULL, NULL, azName[i]);
    x += 36 + 7.4*len;
  }
}

/* Rows the legend of nItem names needs (same wrapping as svg_legend). */
static int legend_rows(const char *const *azName, int nItem){
  double x = 8;
  int rows = nItem>0;
  for(int i=0; i<nItem; i++){
    int len = azName[i] ? (int)strlen(azName[i]) : 0;
    if( len>LABEL_MAX ) len = LABEL_MAX;
    if( x+24+7.4*len>HTML_CHART_W ){
      x = 8;
      rows++;
    }
    x += 36 + 7.4*len;
  }
  return rows;
}

/* Width in user units that the value text (and mark) of a needs. */
static double bar_text_w(const HtmlBar *a){
  char z[32];
  size_t n;
  if( a->zText ) n = strlen(a->zText);
  else{
    html_fmt_short(a->v, z);
    n = strlen(z);
  }
  if( a->zMark ) n += 3 + strlen(a->zMark);
  return 6.8*(double)n + 12;
}

void html_bar_chart(Buf *p, const char *zId, const char *zTitle,
                    const HtmlBar *a, int n, double vMax){
  char **azLab;
  double plotW, textW = BAR_TEXT_W;
  int h = 8 + n*(BAR_H+BAR_GAP) + 4;
  for(int i=0; i<n; i++){
    if( bar_text_w(&a[i])>textW ) textW = bar_text_w(&a[i]);
  }
  plotW = HTML_CHART_W - BAR_LABEL_W - textW;
  if( plotW<200 ) plotW = 200;
  if( vMax<=0 ){
    for(int i=0; i<n; i++) if( a[i].v>vMax ) vMax = a[i].v;
  }
  if( vMax<=0 ) vMax = 1;
  {
    const char **azFull = xcalloc((size_t)n+1, sizeof(char *));
    for(int i=0; i<n; i++) azFull[i] = a[i].zLabel;
    azLab = bar_labels(azFull, n);
    free(azFull);
  }
  figure_begin(p, zId, zTitle, h);
  buf_printf(p, "<line class=\"axis\" x1=\"%d\" y1=\"4\" x2=\"%d\""
             " y2=\"%d\"/>\n", BAR_LABEL_W, BAR_LABEL_W, h-4);
  for(int i=0; i<n; i++){
    double y = 8 + i*(BAR_H+BAR_GAP);
    double w = a[i].v>0 ? plotW*a[i].v/vMax : 0;
    char z[32];
    const char *zT = a[i].zText;
    if( zT==NULL ){
      html_fmt_short(a[i].v, z);
      zT = z;
    }
    buf_puts(p, "<g><title>");
    html_esc(p, a[i].zLabel);
    buf_puts(p, ": ");
    html_esc(p, zT);
    if( a[i].zMark ){
      buf_puts(p, " (");
      html_esc(p, a[i].zMark);
      buf_puts(p, ")");
    }
    buf_puts(p, "</title>\n");
    buf_printf(p, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
               BAR_LABEL_W-6, y+BAR_H-4);
    html_esc(p, azLab[i]);
    buf_puts(p, "</text>\n");
    svg_rect(p, BAR_LABEL_W, y, w, BAR_H, a[i].iStyle);
    if( a[i].zMark ){
      buf_printf(p, "<rect class=\"outline\" x=\"%d\" y=\"%.1f\""
                 " width=\"%.1f\" height=\"%d\"/>\n", BAR_LABEL_W, y, w,
                 BAR_H);
    }
    buf_printf(p, "<text x=\"%.1f\" y=\"%.1f\" class=\"lbl\">",
               BAR_LABEL_W+w+5, y+BAR_H-4);
    html_esc(p, zT);
    if( a[i].zMark ){
      buf_puts(p, " \xE2\x96\xB2 ");
      html_esc(p, a[i].zMark);
    }
    buf_puts(p, "</text>\n</g>\n");
  }
  figure_end(p);
  free_labels(azLab, n);
}

void html_pair_chart(Buf *p, const char *zId, const char *zTitle,
                     const char *zNameA, const char *zNameB,
                     const char *const *azLabel, const double *aA,
                     const double *aB, const char *const *azNote, int n,
                     const char *zUnit){
  const char *azLeg[2];
  char **azLab;
  double plotW = HTML_CHART_W - BAR_LABEL_W - BAR_TEXT_W - 60, vMax = 0;
  int rowH = 2*BAR_H + BAR_GAP + 4, h = 30 + n*rowH + 4;
  azLeg[0] = zNameA;
  azLeg[1] = zNameB;
  for(int i=0; i<n; i++){
    if( aA[i]>vMax ) vMax = aA[i];
    if( aB[i]>vMax ) vMax = aB[i];
  }
  if( vMax<=0 ) vMax = 1;
  azLab = bar_labels(azLabel, n);
  figure_begin(p, zId, zTitle, h);
  svg_legend(p, BAR_LABEL_W, 16, azLeg, NULL, 2);
  buf_printf(p, "<line class=\"axis\" x1=\"%d\" y1=\"24\" x2=\"%d\""
             " y2=\"%d\"/>\n", BAR_LABEL_W, BAR_LABEL_W, h-4);
  for(int i=0; i<n; i++){
    double y = 30 + i*rowH;
    double v[2];
    v[0] = aA[i];
    v[1] = aB[i];
    buf_puts(p, "<g><title>");
    html_esc(p, azLabel[i]);
    buf_puts(p, "</title>\n");
    buf_printf(p, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
               BAR_LABEL_W-6, y+BAR_H+2);
    html_esc(p, azLab[i]);
    buf_puts(p, "</text>\n");
    for(int k=0; k<2; k++){
      double w = v[k]>0 ? plotW*v[k]/vMax : 0;
      double yy = y + k*BAR_H;
      char z[32];
      svg_rect(p, BAR_LABEL_W, yy, w, BAR_H-2, k);
      html_fmt_short(v[k], z);
      buf_printf(p, "<text x=\"%.1f\" y=\"%.1f\" class=\"lbl\">%s ",
                 BAR_LABEL_W+w+5, yy+BAR_H-5, k==0 ? "A" : "B");
      buf_puts(p, z);
      if( zUnit ){
        buf_putc(p, ' ');
        html_esc(p, zUnit);
      }
      if( k==1 && azNote && azNote[i] ){
        buf_puts(p, " \xE2\x80\x94 ");
        html_esc(p, azNote[i]);
      }
      buf_puts(p, "</text>\n");
    }
    buf_puts(p, "</g>\n");
  }
  figure_end(p);
  free_labels(azLab, n);
}

void html_stack_chart(Buf *p, const char *zId, const char *zTitle,
                      const char *const *azRow, int nRow,
                      const char *const *azSeg, int nSeg, const double *aV,
                      const char *zUnit){
  double plotW = HTML_CHART_W - BAR_LABEL_W - BAR_TEXT_W + 40, vMax = 0;
  int nLeg = legend_rows(azSeg, nSeg);
  int top = 8 + 18*nLeg, rowH = BAR_H + BAR_GAP + 4;
  int h = top + nRow*rowH + 4;
  for(int r=0; r<nRow; r++){
    double t = 0;
    for(int s=0; s<nSeg; s++) if( aV[r*nSeg+s]>0 ) t += aV[r*nSeg+s];
    if( t>vMax ) vMax = t;
  }
  if( vMax<=0 ) vMax = 1;
  figure_begin(p, zId, zTitle, h);
  svg_legend(p, 8, 16, azSeg, NULL, nSeg);
  for(int r=0; r<nRow; r++){
    double y = top + r*rowH, x = BAR_LABEL_W, t = 0;
    char z[32];
    svg_text(p, BAR_LABEL_W-6, y+BAR_H-3, "end", NULL, azRow[r]);
    for(int s=0; s<nSeg; s++){
      double v = aV[r*nSeg+s], w = v>0 ? plotW*v/vMax : 0;
      if( w<=0 ) continue;
      buf_puts(p, "<g><title>");
      html_esc(p, azRow[r]);
      buf_puts(p, " \xE2\x80\x94 ");
      html_esc(p, azSeg[s]);
      html_fmt_short(v, z);
      buf_printf(p, ": %s", z);
      if( zUnit ){
        buf_putc(p, ' ');
        html_esc(p, zUnit);
      }
      buf_puts(p, "</title>");
      svg_rect(p, x, y, w, BAR_H+2, s);
      if( w>=46 ){
        buf_printf(p, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\""
                   " class=\"lbl\">%s</text>", x+w/2, y+BAR_H-3, z);
      }
      buf_puts(p, "</g>\n");
      x += w;
      t += v;
    }
    html_fmt_short(t, z);
    buf_printf(p, "<text x=\"%.1f\" y=\"%.1f\" class=\"lbl\">%s", x+5,
               y+BAR_H-3, z);
    if( zUnit ){
      buf_putc(p, ' ');
      html_esc(p, zUnit);
    }
    buf_puts(p, "</text>\n");
  }
  figure_end(p);
}

/* A "nice" tick step for the range 0..span with about n ticks. */
static double nice_step(double span, int n){
  double raw = span/n, mag, f;
  if( !(raw>0) ) return 1;
  mag = pow(10, floor(log10(raw)));
  f = raw/mag;
  return (f<1.5 ? 1 : f<3.5 ? 2 : f<7.5 ? 5 : 10)*mag;
}

/* A marker shape at (x, y) in style i: 0 circle, 1 triangle, 2 cross,
** 3 square. */
static void svg_marker(Buf *p, double x, double y, int eShape, int i,
                       double r){
  switch( eShape ){
    case 1:
      buf_printf(p, "<path class=\"mk s%d\" d=\"M%.1f %.1fl%.1f %.1fh%.1fz\""
                 "/>\n", style_of(i), x, y-r*1.3, r*1.2, r*2.1, -r*2.4);
      break;
    case 2:
      buf_printf(p, "<path class=\"mk\" d=\"M%.1f %.1fl%.1f %.1fM%.1f %.1f"
                 "l%.1f %.1f\" style=\"stroke-width:2.5\"/>\n", x-r, y-r,
                 2*r, 2*r, x-r, y+r, 2*r, -2*r);
      break;
    case 3:
      buf_printf(p, "<rect class=\"mk s%d\" x=\"%.1f\" y=\"%.1f\""
                 " width=\"%.1f\" height=\"%.1f\"/>\n", style_of(i), x-r,
                 y-r, 2*r, 2*r);
      break;
    default:
      buf_printf(p, "<circle class=\"mk s%d\" cx=\"%.1f\" cy=\"%.1f\""
                 " r=\"%.1f\"/>\n", style_of(i), x, y, r);
      break;
  }
}

/* The plot area of a line chart: data ranges and the pixel mapping. */
typedef struct LinePlot {
  double x0, x1, y0, y1;        /* data range shown */
  double step;                  /* y tick step */
  double pw, ph;                /* plot width and height, px */
} LinePlot;

static double line_px(const LinePlot *L, double v){
  return LINE_LEFT + L->pw*(v-L->x0)/(L->x1-L->x0);
}
static double line_py(const LinePlot *L, double v){
  return LINE_TOP + L->ph*(1.0-(v-L->y0)/(L->y1-L->y0));
}

/* Widen [*pLo, *pHi] to hold (finite) v. */
static void range_add(double v, double *pLo, double *pHi){
  if( v<*pLo ) *pLo = v;
  if( v>*pHi ) *pHi = v;
}

/* The ranges that hold every finite point and marker, y rounded out to
** whole tick steps. */
static void line_range(const HtmlLineChart *c, LinePlot *L){
  L->x0 = INFINITY;
  L->x1 = -INFINITY;
  L->y0 = L->y1 = 0;
  L->pw = HTML_CHART_W - LINE_LEFT - LINE_RIGHT;
  L->ph = LINE_H - LINE_TOP - LINE_BOTTOM;
  for(int s=0; s<c->nS; s++){
    const HtmlSeries *S = &c->aS[s];
    for(int i=0; i<S->n; i++){
      if( !isfinite(S->aY[i]) ) continue;
      range_add(S->aX[i], &L->x0, &L->x1);
      range_add(S->aY[i], &L->y0, &L->y1);
    }
  }
  for(int m=0; m<c->nM; m++){          /* markers stay inside the plot */
    if( !isfinite(c->aM[m].x) || !isfinite(c->aM[m].y) ) continue;
    range_add(c->aM[m].x, &L->x0, &L->x1);
    range_add(c->aM[m].y, &L->y0, &L->y1);
  }
  if( !isfinite(L->x0) ){ L->x0 = 0; L->x1 = 1; }
  if( L->x1<=L->x0 ){
    double d = 0.5 + fabs(L->x0)*1e-6;  /* one point: a visible range */
    L->x0 -= d;
    L->x1 += d;
  }
  if( L->y1<=L->y0 ) L->y1 = L->y0 + 1;
  L->step = nice_step(L->y1-L->y0, 5);
  L->y1 = ceil(L->y1/L->step)*L->step;
  L->y0 = floor(L->y0/L->step)*L->step;
}

/* One x tick at data value v with label z. */
static void line_xtick(Buf *p, const LinePlot *L, double v, const char *z){
  double x = line_px(L, v), y = LINE_TOP+L->ph;
  buf_printf(p, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\""
             " x2=\"%.1f\" y2=\"%.1f\"/>\n", x, y, x, y+4);
  svg_text(p, x, y+17, "middle", "muted", z);
}

/* Grid, ticks, axis and axis names. */
static void line_axes(Buf *p, const HtmlLineChart *c, const LinePlot *L){
  HtmlFmt xFmt = c->xFmt ? c->xFmt : html_fmt_short;
  HtmlFmt yFmt = c->yFmt ? c->yFmt : html_fmt_short;
  char z[32];
  /* ticks by a counter: v += step may not move a huge v */
  for(int k=0; k<=MAX_TICKS && L->y0+k*L->step<=L->y1+L->step/2; k++){
    double v = L->y0 + k*L->step;
    yFmt(v, z);
    buf_printf(p, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\""
               " y2=\"%.1f\"/>\n", LINE_LEFT, line_py(L, v), LINE_LEFT+L->pw,
               line_py(L, v));
    svg_text(p, LINE_LEFT-6, line_py(L, v)+4, "end", "muted", z);
  }
  if( c->azXTick ){
    int every = c->nX>12 ? (c->nX+11)/12 : 1;
    for(int i=0; i<c->nX; i+=every) line_xtick(p, L, i, c->azXTick[i]);
  }else{
    double xs = nice_step(L->x1-L->x0, 8), v0 = ceil(L->x0/xs)*xs;
    for(int k=0; k<=MAX_TICKS && v0+k*xs<=L->x1+xs*1e-9; k++){
      xFmt(v0 + k*xs, z);
      line_xtick(p, L, v0 + k*xs, z);
    }
  }
  buf_printf(p, "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\""
             " y2=\"%.1f\"/>\n", LINE_LEFT, LINE_TOP+L->ph, LINE_LEFT+L->pw,
             LINE_TOP+L->ph);
  if( c->zXLabel ) svg_text(p, LINE_LEFT+L->pw/2, LINE_H-8, "middle",
                            "muted", c->zXLabel);
  if( c->zYLabel ) svg_text(p, 4, 14, NULL, "muted", c->zYLabel);
}

/* The series' lines and point markers, then their legend: line samples
** right of the y-axis title (~7 px a glyph). */
static void line_series(Buf *p, const HtmlLineChart *c, const LinePlot *L){
  double x = LINE_LEFT + 8;
  for(int s=0; s<c->nS; s++){
    const HtmlSeries *S = &c->aS[s];
    int st = style_of(S->iStyle), first = 1;
    buf_printf(p, "<path class=\"ln s%d\" style=\"fill:none\"", st);
    if( azDash[st][0] ) buf_printf(p, " stroke-dasharray=\"%s\"", azDash[st]);
    buf_puts(p, " d=\"");
    for(int i=0; i<S->n; i++){
      if( !isfinite(S->aY[i]) ){
        first = 1;
        continue;
      }
      buf_printf(p, "%c%.1f %.1f", first ? 'M' : 'L', line_px(L, S->aX[i]),
                 line_py(L, S->aY[i]));
      first = 0;
    }
    buf_puts(p, "\"/>\n");
    for(int i=0; S->n<=60 && i<S->n; i++){
      if( isfinite(S->aY[i]) ){
        svg_marker(p, line_px(L, S->aX[i]), line_py(L, S->aY[i]),
                   s==0 ? 0 : 3, st, 2.5);
      }
    }
  }
  if( c->zYLabel && 4 + 7.0*(double)strlen(c->zYLabel) + 16 > x ){
    x = 4 + 7.0*(double)strlen(c->zYLabel) + 16;
  }
  for(int s=0; s<c->nS && s<HTML_N_STYLE; s++){
    int st = style_of(c->aS[s].iStyle);
    const char *zName = c->aS[s].zName;
    buf_printf(p, "<line class=\"ln s%d\" x1=\"%.1f\" y1=\"%d\""
               " x2=\"%.1f\" y2=\"%d\"", st, x, LINE_TOP-12, x+22,
               LINE_TOP-12);
    if( azDash[st][0] ) buf_printf(p, " stroke-dasharray=\"%s\"", azDash[st]);
    buf_puts(p, "/>\n");
    svg_text(p, x+26, LINE_TOP-8, NULL, NULL, zName);
    x += 40 + 7.0*(zName ? (double)strlen(zName) : 0);
  }
}

/* Where the label of marker m at pixel (x, y), w px wide, goes: next to
** it, trying above right, above left, below right and below left, the
** first place that overlaps no box of aBox[0..m) (4 doubles each: x0 x1
** y0 y1); when all four do, up (or down) line by line.  Sets its box
** aBox[4m..], the text position and anchor. */
static void marker_place(const LinePlot *L, double *aBox, int m, double x,
                         double y, double w, double *pTx, double *pTy,
                         const char **pzA){
  for(int c=0; c<4+2*MARKER_SHIFTS; c++){
    int bLeft = c<4 ? (c%2)==1 : x>LINE_LEFT+L->pw*0.6;
    int bBelow = c<4 ? c>=2 : ((c-4)%2)==1;
    double shift = c<4 ? 0 : 14.0*(double)((c-4)/2+1);
    double bx0 = bLeft ? x-8-w : x+8;
    double cy = bBelow ? y+16+shift : y-7-shift;
    int ok = bx0>=0 && bx0+w<=HTML_CHART_W && cy-12>=0 && cy+2<=LINE_H;
    for(int k=0; k<m && ok; k++){
      if( bx0<aBox[4*k+1] && bx0+w>aBox[4*k]
       && cy-12<aBox[4*k+3] && cy+2>aBox[4*k+2] ) ok = 0;
    }
    if( ok || c==3+2*MARKER_SHIFTS ){
      *pTx = bLeft ? x-8 : x+8;
      *pTy = cy;
      *pzA = bLeft ? "end" : "start";
      aBox[4*m] = bx0;
      aBox[4*m+1] = bx0+w;
      aBox[4*m+2] = cy-12;
      aBox[4*m+3] = cy+2;
      return;
    }
  }
}

/* The labelled markers; a label moved away from its marker gets a thin
** leader line to it. */
static void line_markers(Buf *p, const HtmlLineChart *c, const LinePlot *L){
  double *aBox = xmalloc(sizeof(double)*4*(size_t)(c->nM+1));
  for(int m=0; m<c->nM; m++){
    const HtmlMarker *M = &c->aM[m];
    double x, y, w, tx = 0, ty = 0;
    const char *zA = "start";
    aBox[4*m] = aBox[4*m+1] = aBox[4*m+2] = aBox[4*m+3] = -1e9;
    if( !isfinite(M->x) || !isfinite(M->y) ) continue;
    x = line_px(L, M->x);
    y = line_py(L, M->y);
    w = 6.8*(double)(M->zLabel ? strlen(M->zLabel) : 0);
    marker_place(L, aBox, m, x, y, w, &tx, &ty, &zA);
    buf_puts(p, "<g><title>");
    html_esc(p, M->zLabel);
    buf_puts(p, "</title>");
    svg_marker(p, x, y, M->eShape, 2, 6);
    if( fabs(ty-y)>20 ){
      buf_printf(p, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\""
                 " x2=\"%.1f\" y2=\"%.1f\"/>", x, y, tx,
                 ty<y ? ty+2 : ty-12);
    }
    svg_text(p, tx, ty, zA, "lbl", M->zLabel);
    buf_puts(p, "</g>\n");
  }
  free(aBox);
}

void html_line_chart(Buf *p, const HtmlLineChart *c){
  LinePlot L;
  line_range(c, &L);
  figure_begin(p, c->zId, c->zTitle, LINE_H);
  line_axes(p, c, &L);
  line_series(p, c, &L);
  line_markers(p, c, &L);
  figure_end(p);
}

void html_heatmap(Buf *p, const char *zId, const char *zTitle,
                  const char *const *azRow, int nRow,
                  const char *const *azCol, int nCol, const double *aV,
                  HtmlFmt fmt, const unsigned char *aMark,
                  const char *zMark){
  int labelW = 120, top = 40, cellH = 20;
  double cw = nCol>0 ? (double)(HTML_CHART_W - labelW - 8)/nCol : 1;
  double vMin = INFINITY, vMax = -INFINITY;
  int h = top + nRow*cellH + 8;
  char z[32];
  if( fmt==NULL ) fmt = html_fmt_short;
  for(int i=0; i<nRow*nCol; i++){
    if( isnan(aV[i]) ) continue;
    if( aV[i]<vMin ) vMin = aV[i];
    if( aV[i]>vMax ) vMax = aV[i];
  }
  figure_begin(p, zId, zTitle, h);
  /* legend: five levels, low to high */
  svg_text(p, 8, 16, NULL, "muted", "shade: low");
  for(int l=0; l<5; l++){
    buf_printf(p, "<rect class=\"s0\" x=\"%d\" y=\"6\" width=\"16\""
               " height=\"12\" fill-opacity=\"%.2f\"/>\n", 78+l*18,
               0.2+0.2*l);
  }
  svg_text(p, 78+5*18+4, 16, NULL, "muted", "high; value printed in cell");
  if( aMark && zMark ){
    buf_puts(p, "<text x=\"420\" y=\"16\" class=\"muted\">\xE2\x96\xB2 = ");
    html_esc(p, zMark);
    buf_puts(p, "</text>\n");
  }
  for(int c=0; c<nCol; c++){
    if( nCol<=40 || c % ((nCol+39)/40)==0 ){
      svg_text(p, labelW+cw*c+cw/2, top-6, "middle", "muted", azCol[c]);
    }
  }
  for(int r=0; r<nRow; r++){
    double y = top + r*cellH;
    buf_printf(p, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
               labelW-6, y+cellH-6);
    if( aMark && aMark[r] ) buf_puts(p, "\xE2\x96\xB2 ");
    esc_cut(p, azRow[r], LABEL_MAX);
    buf_puts(p, "</text>\n");
    for(int c=0; c<nCol; c++){
      double v = aV[r*nCol+c], f;
      if( isnan(v) ) continue;
      f = vMax>vMin ? (v-vMin)/(vMax-vMin) : 1.0;
      fmt(v, z);
      buf_puts(p, "<g><title>");
      html_esc(p, azRow[r]);
      buf_puts(p, ", ");
      html_esc(p, azCol[c]);
      buf_printf(p, ": %s</title><rect class=\"s0\" x=\"%.1f\" y=\"%.1f\""
                 " width=\"%.1f\" height=\"%d\" fill-opacity=\"%.2f\"/>", z,
                 labelW+cw*c+0.5, y+0.5, cw-1, cellH-1,
                 0.2+0.2*floor(f*4.999));
      if( cw>=7.5*(double)strlen(z)+6 ){
        buf_printf(p, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\""
                   " class=\"lbl\">%s</text>", labelW+cw*c+cw/2,
                   y+cellH-6, z);
      }
      buf_puts(p, "</g>\n");
    }
  }
  figure_end(p);
}

void html_cell_map(Buf *p, const char *zId, const char *zTitle,
                   const double *aFill, const char *const *azTip, int n,
                   int nPerRow, const char *zFilled, const char *zEmpty){
  int top = 28, nRows;
  double cw;
  if( nPerRow<1 ) nPerRow = 1;
  nRows = (n + nPerRow - 1)/nPerRow;
  cw = (double)(HTML_CHART_W - 16)/nPerRow;
  figure_begin(p, zId, zTitle, top + (int)ceil(nRows*cw) + 8);
  svg_rect(p, 8, 6, 14, 14, 0);
  svg_text(p, 28, 18, NULL, NULL, zFilled);
  buf_printf(p, "<rect class=\"frame\" x=\"%d\" y=\"6\" width=\"14\""
             " height=\"14\"/>\n", 40 + 7*(int)strlen(zFilled));
  svg_text(p, 60 + 7.0*(double)strlen(zFilled), 18, NULL, NULL, zEmpty);
  for(int i=0; i<n; i++){
    double x = 8 + (i % nPerRow)*cw, y = top + (i / nPerRow)*cw;
    double f = aFill[i]<0 ? 0 : aFill[i]>1 ? 1 : aFill[i];
    double fh = (cw-2)*f;
    buf_puts(p, "<g><title>");
    html_esc(p, azTip[i]);
    buf_printf(p, "</title><rect class=\"frame\" x=\"%.0f\" y=\"%.0f\""
               " width=\"%.0f\" height=\"%.0f\"/>", x+0.5, y+0.5, cw-1, cw-1);
    if( fh>=0.5 ){
      buf_printf(p, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\""
                 " height=\"%.0f\" fill=\"url(#pf0)\"/>", x+1,
                 y+1+(cw-2-fh), cw-2, fh);
    }
    buf_puts(p, "</g>\n");
  }
  figure_end(p);
}

/* ------------------------------------------------------------ timeline */

void html_timeline_begin(HtmlTimeline *t, int64_t t0, int64_t t1,
                         const char *const *azCat, int nCat){
  memset(t, 0, sizeof(*t));
  buf_init(&t->body);
  t->t0 = t0;
  t->t1 = t1>t0 ? t1 : t0+1;
  t->nsPerPx = (double)(t->t1 - t->t0)/(HTML_CHART_W - TL_LABEL_W - 8);
  t->azCat = azCat;
  t->nCat = nCat>HTML_N_STYLE ? HTML_N_STYLE : nCat;
}

/* The category with the most time in the open rectangle. */
static int tl_dominant(const HtmlTimeline *t){
  int best = 0;
  for(int i=1; i<HTML_N_STYLE; i++){
    if( t->aCatNs[i]>t->aCatNs[best] ) best = i;
  }
  return best;
}

void html_timeline_flush(HtmlTimeline *t){
  double x, w, y;
  if( !t->inRect ) return;
  x = TL_LABEL_W + (double)(t->rs - t->t0)/t->nsPerPx;
  w = (double)(t->re - t->rs)/t->nsPerPx;
  if( w<1 ) w = 1;
  y = 30 + (t->nLane-1)*(TL_LANE_H+4);
  svg_rect(&t->body, x, y, w, TL_LANE_H, tl_dominant(t));
  t->nRect++;
  t->inRect = 0;
  memset(t->aCatNs, 0, sizeof(t->aCatNs));
}

void html_timeline_lane(HtmlTimeline *t, const char *zLabel){
  html_timeline_flush(t);
  t->nLane++;
  svg_text(&t->body, TL_LABEL_W-6, 30 + (t->nLane-1)*(TL_LANE_H+4) + 14,
           "end", NULL, zLabel);
}

void html_timeline_add(HtmlTimeline *t, int64_t ts, int64_t dur, int iCat){
  int64_t te = ts + (dur>0 ? dur : 0);
  double px = t->nsPerPx;
  if( t->nLane==0 ) html_timeline_lane(t, "");
  if( ts<t->t0 ) ts = t->t0;
  if( te>t->t1 ) te = t->t1;
  if( te<ts ) te = ts;
  if( iCat<0 || iCat>=HTML_N_STYLE ) iCat = HTML_N_STYLE-1;
  t->nIn++;
  if( t->inRect && (double)(ts - t->re)<px
      && ( tl_dominant(t)==iCat || (double)(t->re - t->rs)<px
           || (double)(te - ts)<px ) ){
    if( te>t->re ) t->re = te;
    t->aCatNs[iCat] += (double)(te - ts);
    return;
  }
  html_timeline_flush(t);
  t->inRect = 1;
  t->rs = ts;
  t->re = te;
  t->aCatNs[iCat] = (double)(te - ts) + 1e-9;
}

void html_timeline_end(HtmlTimeline *t, Buf *p, const char *zId,
                       const char *zTitle){
  int h, nLeg;
  char z[32];
  html_timeline_flush(t);
  nLeg = legend_rows(t->azCat, t->nCat);
  h = 30 + t->nLane*(TL_LANE_H+4) + 24 + 18*nLeg;
  figure_begin(p, zId, zTitle, h);
  buf_append(p, t->body.z ? t->body.z : "", t->body.n);
  /* time axis: ms from the window start */
  {
    double span = (double)(t->t1 - t->t0)/1e6, step = nice_step(span, 8);
    double yAxis = 30 + t->nLane*(TL_LANE_H+4);
    for(int k=0; k<=MAX_TICKS && k*step<=span+step*1e-9; k++){
      double v = k*step;
      double x = TL_LABEL_W + v*1e6/t->nsPerPx;
      html_fmt_short(v, z);
      buf_printf(p, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\""
                 " x2=\"%.1f\" y2=\"%.1f\"/>\n", x, yAxis-2, x, yAxis+3);
      strcat(z, " ms");
      svg_text(p, x, yAxis+15, "middle", "muted", z);
    }
    svg_legend(p, 8, (int)yAxis+36, t->azCat, NULL, t->nCat);
  }
  figure_end(p);
  buf_free(&t->body);
}

/* ------------------------------------------------------------ output */

int html_write_file(const char *zPath, const Buf *p, PfError *pErr){
  char *zTmp;
  FILE *f;
  int ok;
  if( strcmp(zPath, "-")==0 ){
    ok = fwrite(p->z ? p->z : "", 1, p->n, stdout)==p->n
         && fflush(stdout)==0;
    if( !ok ) pf_error_set(pErr, ERRPOS_NONE, 0, "cannot write the HTML"
                           " to stdout: %s", strerror(errno));
    return ok ? 0 : -1;
  }
  zTmp = xasprintf("%s.tmp", zPath);
  f = fopen(zTmp, "wb");
  if( f==NULL ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot write %s: %s", zPath,
                 strerror(errno));
    free(zTmp);
    return -1;
  }
  ok = fwrite(p->z ? p->z : "", 1, p->n, f)==p->n;
  ok = fflush(f)==0 && ok;
  ok = fsync(fileno(f))==0 && ok;
  ok = fclose(f)==0 && ok;
  if( ok && rename(zTmp, zPath)!=0 ) ok = 0;
  if( !ok ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "cannot write %s: %s", zPath,
                 strerror(errno));
    remove(zTmp);
  }
  free(zTmp);
  return ok ? 0 : -1;
}
