/*
** output.h — render the rows of a prepared SQLite statement as a terminal
** table, RFC 4180 CSV, a JSON array of objects, or a GitHub markdown table.
**
** Pipeline position: the last stage.  Named queries (`profan query`) and
** ad-hoc SQL (`profan sql`) prepare a statement, then hand it here to be
** stepped and printed.  This module never prints errors: it returns the
** sqlite3_step() code and the caller reports sqlite3_errmsg().
**
** Formatting rules (see the comment at the top of output.c for the full
** list):
**   table     aligned columns, header and dashed separator, human units
**             chosen by column-name suffix (_bytes, _ns, _us, _ms, _pct,
**             _bar, _pct_bar, _spark); text is cut to fit the
**             terminal only (see output_set_width()).  At
**             most OUTPUT_TABLE_BUFFER_ROWS rows are buffered to measure
**             column widths; later rows reuse the widths already fixed.
**   csv       RFC 4180 via libcsv, header row, raw values, CRLF line ends.
**   json      "[" then one object per line then "]"; "[]" when empty.
**             Multi-section documents (OutDoc) are one object of arrays.
**   markdown  GitHub table with the same cell rendering as "table".
** NULL is an empty cell everywhere except JSON, where it is null.
*/
#ifndef PROFAN_OUTPUT_H
#define PROFAN_OUTPUT_H

#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>
#include "core/util.h"

/* Rows the table and markdown formats hold to compute column widths. */
#define OUTPUT_TABLE_BUFFER_ROWS 10000
/* output_set_width(): cut to the terminal's width when stdout is one. */
#define OUTPUT_WIDTH_AUTO (-1)
/* Narrowest a text column is cut to when fitting a line width. */
#define OUTPUT_MIN_CUT_WIDTH 12
/* Width, in cells, of a full `*_bar` bar. */
#define OUTPUT_BAR_WIDTH 20

typedef enum {
  OUT_TABLE,        /* aligned text table for a terminal */
  OUT_CSV,          /* RFC 4180, raw values */
  OUT_JSON,         /* array of objects */
  OUT_MARKDOWN      /* GitHub-flavoured markdown table */
} OutFormat;

/* Parses "table", "csv", "json" or "markdown" (exact, lower case).
** Returns 0 and sets *pFmt (OUT), or returns -1 and leaves *pFmt alone. */
int output_parse_format(const char *z, OutFormat *pFmt);

/* The name output_parse_format() accepts for eFmt; static, never NULL. */
const char *output_format_name(OutFormat eFmt);

/*
** Steps pStmt to completion, writing every row to out in format eFmt.
** Returns SQLITE_DONE on success, or the code sqlite3_step() returned on
** failure (the caller reports sqlite3_errmsg()).  On failure the rows
** already read are still printed (table, markdown) but a JSON array is
** left unterminated so that it does not pass for a complete result.
** When pnRow is not NULL, *pnRow (OUT) gets the number of rows read, also
** on failure.  The statement is not reset or finalized; the caller owns
** it.  Write errors on out are not detected here: check ferror(out).
*/
int output_stmt(sqlite3_stmt *pStmt, OutFormat eFmt, FILE *out,
                int64_t *pnRow);

/*
** A column's declared unit: a named query's "-- column: NAME:UNIT" line,
** or the table a command builds (check).  It replaces the unit the
** column's name gives by its suffix (_bytes, _ns, ...): bytes, ns, us,
** ms, pct, bar, pct_bar, spark; "name" (a kernel or operator name: cut
** to its distinguishing part to fit a width); "metric" (a number in the
** unit of the row's text column named "metric": peak_allocated_bytes'
** value in bytes); "none" (a plain number or text).  Without a
** declaration a column takes its name's unit, and never a row's metric's.
*/
typedef struct OutUnit {
  const char *zCol;        /* column name */
  const char *zUnit;       /* one of the units above */
} OutUnit;
/* 1 when zUnit is one of the units above. */
int output_unit_known(const char *zUnit);
/* output_stmt() with the declared units aUnit[0..nUnit) (NULL, 0: none). */
int output_stmt_units(sqlite3_stmt *pStmt, OutFormat eFmt, FILE *out,
                      int64_t *pnRow, const OutUnit *aUnit, int nUnit);

/*
** Appends the INTEGER or FLOAT cell iCol of pStmt's current row to p as
** table output shows it in a column named zCol (the one rule per unit:
** bytes, ns, pct, significant digits); the HTML tables use it too.
*/
void output_number(Buf *p, const char *zCol, sqlite3_stmt *pStmt, int iCol);

/* The same for a double v. */
void output_double(Buf *p, const char *zCol, double v);

/* The part of a (C++ kernel) name that tells it from its neighbours:
** "void at::native::vectorized_elementwise_kernel<4,
** at::native::FillFunctor<float>, ...>(int, ...)" becomes
** "vectorized_elementwise_kernel<FillFunctor>", and
** "aten::native_batch_norm_backward" "native_batch_norm_backward" (no
** namespaces); with bAllArgs all template arguments stay.  Other names
** come back unchanged.  A new
** string the caller frees.  Terminal tables use it to fit a name column,
** HTML bar labels always. */
char *output_short_name(const char *z, int bAllArgs);

/* zFull's short name fitted in w code points (w >= 4): a kernel<args>
** name shortens its name part first, then the end of its arguments, so
** the functor stays; other text loses its middle.  A new string the
** caller frees. */
char *output_fit_name(const char *zFull, size_t w);

/* Cuts *pz (valid UTF-8, reallocated) to w code points by replacing its
** middle with "…"; returns 1 when it cut. */
int output_cut_middle(char **pz, size_t w);

/*
** Line width for table output (--width N, --no-truncate): nWidth > 0 fits
** every table and markdown line in nWidth columns, 0 never cuts, and
** OUTPUT_WIDTH_AUTO (the default) fits the terminal's width when a table
** goes to a terminal and never cuts otherwise.  Process-wide.
*/
void output_set_width(int nWidth);
/* The width output_stmt() fits a line of format eFmt on out to; 0 none. */
int output_line_width(FILE *out, OutFormat eFmt);

/*
** A document of several named sections (show, report, diff): table and
** markdown print each section under its name; JSON one object with a key
** per section, each an array; CSV needs one section chosen (the caller
** checks that, see cli_section()).  With zOnly set, only the section of
** that name is printed, bare, as `profan query` prints one result.
*/
typedef struct OutDoc {
  OutFormat eFmt;       /* format of every section */
  FILE *out;            /* destination; borrowed */
  const char *zOnly;    /* the one section to print, or NULL for all */
  int nSec;             /* sections printed so far */
  int bText;            /* a title was printed (table/markdown) */
  int bFailed;          /* a section's statement failed: no closing brace */
  const char *zTitle;   /* table title of the next section instead of its
                        ** name ("findings (3)"); used once */
  const OutUnit *aUnit; /* declared units of the next section's columns */
  int nUnit;            /* (output_stmt_units); used once */
} OutDoc;

void output_doc_begin(OutDoc *d, OutFormat eFmt, FILE *out,
                      const char *zOnly);
/* True when section zName is to be printed. */
int output_doc_wants(const OutDoc *d, const char *zName);
/* A title line above the sections (table and markdown only, not with
** zOnly): "report: run 3". */
void output_doc_title(OutDoc *d, const char *zTitle);
/* Prints pStmt as section zName (skipped, returning SQLITE_DONE and 0
** rows, when not wanted).  Returns output_stmt()'s code. */
int output_doc_section(OutDoc *d, const char *zName, sqlite3_stmt *pStmt,
                       int64_t *pnRow);
/* Closes the JSON object (not after a failed section). */
void output_doc_end(OutDoc *d);

#endif
