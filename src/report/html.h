/*
** html.h — a small HTML writer for the self-contained reports of
** `profan report/diff/trend --html FILE`: escaping of untrusted text, the
** page skeleton (inline CSS with light/dark colour schemes and print
** rules; no scripts, fonts or network requests), tables, and inline SVG
** charts drawn by profan itself (horizontal bars, paired bars, stacked
** bars, line chart with markers, heatmap, cell map, timeline lanes).
**
** Every chart is a <figure> holding one <svg role="img"> with a <title>
** and an aria-label, text labels on the marks, and a legend; colour is
** never the only encoding: each style index has its own fill pattern as
** well as its own colour, and marks carry text.  The numbers themselves go
** in a <table> the caller writes under the chart (html_table_*).
**
** Pipeline position: the last stage, used by report_html.c.  Everything
** appends to a Buf; nothing here prints except html_write_file().
*/
#ifndef PROFAN_HTML_H
#define PROFAN_HTML_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"

/* Distinct styles (colour + fill pattern); indexes wrap around. */
#define HTML_N_STYLE 10
/* Width of the drawing area of every chart, in SVG user units (px). */
#define HTML_CHART_W 960

/* ---------------------------------------------------------- text */

/*
** Append n bytes of untrusted text z to p, escaped for HTML text and for
** double- or single-quoted attribute values: & < > " ' become entities,
** invalid UTF-8 bytes and control characters other than tab, CR and LF
** become U+FFFD.  z may be NULL (nothing is appended).
*/
void html_escn(Buf *p, const char *z, size_t n);
void html_esc(Buf *p, const char *z);          /* NUL-terminated z */

/* Format a REAL the way `--format csv` does (shortest of %.15g..%.17g
** that reads back, ".0" added to integral values) into z (32 bytes). */
void html_fmt_real(double r, char *z);
/* Binary units with 1 decimal, as the table output does: "512 B",
** "1.5 GiB".  z gets at most 32 bytes. */
void html_fmt_bytes(double v, char *z);
/* A compact number for axis ticks and bar labels: 3 significant
** digits ("0.125", "16.1", "1234"); z gets at most 32 bytes. */
void html_fmt_short(double v, char *z);

/* Append column i of the current row of s exactly as `--format csv`
** prints it (NULL: nothing), escaped. */
void html_cell_value(Buf *p, sqlite3_stmt *s, int i);

/* ---------------------------------------------------------- page */

/* <!doctype html> ... <body><main>, with zTitle in <title> and <h1>,
** the inline stylesheet and the hidden SVG <defs> of the fill patterns. */
void html_page_begin(Buf *p, const char *zTitle);
/* The footer line and the closing tags. */
void html_page_end(Buf *p);
/* <section id="zId" aria-labelledby=...><h2>zTitle</h2> ... */
void html_section_begin(Buf *p, const char *zId, const char *zTitle);
void html_section_end(Buf *p);
/* <h3>zText</h3> (escaped). */
void html_heading(Buf *p, const char *zText);
/* <p class="note">zText</p> (escaped). */
void html_note(Buf *p, const char *zText);

/* ---------------------------------------------------------- tables */

/* <table class="zClass">, optional caption, header row of nCol names. */
void html_table_begin(Buf *p, const char *zClass, const char *zCaption,
                      const char *const *azHead, int nCol);
/* One row of nCol already-formatted text cells (escaped here); a cell
** that parses entirely as a number is right-aligned. */
void html_table_row(Buf *p, const char *const *azCell, int nCol);
void html_table_end(Buf *p);

/*
** The same one row at a time, for a caller that also reads the rows for a
** chart (one pass over a slow query): begin before the first step, row
** after each SQLITE_ROW, end appends the table (and the "N of M rows
** shown" note) to p (NULL: drops it) and frees t.
*/
typedef struct HtmlTable {
  Buf b;                /* the table so far */
  char **azHead;        /* column names (copies) */
  int nCol;
  int64_t nRow;         /* rows seen */
  int64_t maxRows;      /* rows written at most (<0: all) */
} HtmlTable;
void html_tstmt_begin(HtmlTable *t, sqlite3_stmt *s, const char *zCaption,
                      int64_t maxRows);
void html_tstmt_row(HtmlTable *t, sqlite3_stmt *s);
void html_tstmt_end(HtmlTable *t, Buf *p);

/*
** Step s to the end and write every row as a table: header = column
** names, cells = the values as `--format csv` prints them.  Columns whose
** name ends in _bytes show binary units, with the raw value kept in the
** cell's data-v attribute.  At most maxRows rows (<0: all) are written,
** the rest only counted.  Returns SQLITE_DONE or the failing step code;
** *pnRow (OUT, may be NULL) gets the rows read.
*/
int html_table_stmt(Buf *p, sqlite3_stmt *s, const char *zCaption,
                    int64_t maxRows, int64_t *pnRow);

/* The distinguishing part of a (C++ kernel) name, e.g.
** "vectorized_elementwise_kernel<FillFunctor>"; a new string the caller
** frees.  Bar labels show it; the full name is in the bar's <title>. */
char *html_short_name(const char *z);

/* ---------------------------------------------------------- charts */

/* One bar of html_bar_chart(). */
typedef struct HtmlBar {
  const char *zLabel;   /* row label (escaped) */
  double v;             /* length; negative draws as 0 */
  const char *zText;    /* value text at the bar's end (NULL: short %g) */
  int iStyle;           /* colour + pattern index */
  const char *zMark;    /* extra marker text, e.g. "straggler" (or NULL) */
} HtmlBar;

/*
** Horizontal bar chart, one row per bar, label left, value text right of
** the bar; marked bars get a "▲ zMark" label and a heavy outline.  zId
** is the figure id (unique on the page).  vMax <= 0: the largest value.
*/
void html_bar_chart(Buf *p, const char *zId, const char *zTitle,
                    const HtmlBar *a, int n, double vMax);

/*
** Paired bars (before / after) per row: aA[i] and aB[i] drawn as two thin
** bars in styles 0 and 1 with their value texts, and azNote[i] (may be
** NULL or hold NULLs) right of the pair, e.g. "1.25x faster".
*/
void html_pair_chart(Buf *p, const char *zId, const char *zTitle,
                     const char *zNameA, const char *zNameB,
                     const char *const *azLabel, const double *aA,
                     const double *aB, const char *const *azNote, int n,
                     const char *zUnit);

/*
** Horizontal stacked bars: nRow rows of nSeg segments, aV[r*nSeg+s] >= 0,
** in styles 0..nSeg-1 with a legend; a segment wide enough carries its
** value as text.  zUnit follows the row totals.
*/
void html_stack_chart(Buf *p, const char *zId, const char *zTitle,
                      const char *const *azRow, int nRow,
                      const char *const *azSeg, int nSeg, const double *aV,
                      const char *zUnit);

/* One line of html_line_chart(). */
typedef struct HtmlSeries {
  const char *zName;
  const double *aX, *aY;
  int n;
  int iStyle;
} HtmlSeries;

/* A marked point: a shape (0 circle, 1 triangle, 2 cross) and a label. */
typedef struct HtmlMarker {
  double x, y;
  int eShape;
  const char *zLabel;
} HtmlMarker;

/* Formats an axis value into z (32 bytes). */
typedef void (*HtmlFmt)(double v, char *z);

/*
** A line chart: nS series with point markers on every vertex when there
** are few, dashed lines per style, and nM labelled markers (peak, OOM,
** regression).  Fill the fields that apply; the rest zero.
*/
typedef struct HtmlLineChart {
  const char *zId, *zTitle;       /* figure id and caption */
  const char *zXLabel, *zYLabel;  /* axis names, or NULL */
  HtmlFmt xFmt, yFmt;             /* tick labels; NULL: html_fmt_short */
  const HtmlSeries *aS;           /* the lines */
  int nS;
  const HtmlMarker *aM;           /* labelled points, or NULL */
  int nM;
  /* when set, the x values are 0..nX-1 and these are their tick labels */
  const char *const *azXTick;
  int nX;
} HtmlLineChart;

void html_line_chart(Buf *p, const HtmlLineChart *pChart);

/*
** Heatmap: nRow x nCol cells, aV[r*nCol+c] (NaN: empty cell), five
** shade levels from the minimum to the maximum, each level also a
** pattern; the value is printed in the cell when it fits.  aMark (may be
** NULL): rows marked with "▲" after their label and zMark in the legend.
*/
void html_heatmap(Buf *p, const char *zId, const char *zTitle,
                  const char *const *azRow, int nRow,
                  const char *const *azCol, int nCol, const double *aV,
                  HtmlFmt fmt, const unsigned char *aMark,
                  const char *zMark);

/*
** Cell map: n cells in rows of nPerRow, cell i filled from the bottom to
** aFill[i] (0..1) in style iStyle over an empty frame, with azTip[i] as
** its tooltip (<title>).  Used for the allocator's segments (filled =
** active share).
*/
void html_cell_map(Buf *p, const char *zId, const char *zTitle,
                   const double *aFill, const char *const *azTip, int n,
                   int nPerRow, const char *zFilled, const char *zEmpty);

/*
** Timeline lanes built while streaming intervals ordered by start time
** within each lane.  Intervals closer than one pixel are merged into one
** rectangle in the style of the category with the most time in it, so
** the SVG stays small whatever the number of kernels.
*/
typedef struct HtmlTimeline {
  Buf body;              /* the lanes drawn so far */
  int64_t t0, t1;        /* window, ns */
  double nsPerPx;
  int nLane;
  int nCat;
  const char *const *azCat;
  int inRect;            /* a merged rectangle is open */
  int64_t rs, re;        /* its start and end, ns */
  double aCatNs[HTML_N_STYLE];
  int64_t nRect;         /* rectangles written */
  int64_t nIn;           /* intervals added */
} HtmlTimeline;

/* Start a timeline over [t0, t1) ns with nCat category names. */
void html_timeline_begin(HtmlTimeline *t, int64_t t0, int64_t t1,
                         const char *const *azCat, int nCat);
/* Start the next lane (closes the previous one). */
void html_timeline_lane(HtmlTimeline *t, const char *zLabel);
/* Add one interval [ts, ts+dur) of category iCat to the current lane. */
void html_timeline_add(HtmlTimeline *t, int64_t ts, int64_t dur, int iCat);
/* Close the open rectangle of the current lane (nRect counts it). */
void html_timeline_flush(HtmlTimeline *t);
/* Write the figure to p and free the builder. */
void html_timeline_end(HtmlTimeline *t, Buf *p, const char *zId,
                       const char *zTitle);

/* ---------------------------------------------------------- output */

/*
** Write p to the file zPath atomically (zPath.tmp then rename), or to
** stdout when zPath is "-".  Returns 0, or -1 with "cannot write FILE:
** reason" in pErr (the temporary file is removed).
*/
int html_write_file(const char *zPath, const Buf *p, PfError *pErr);

#endif
