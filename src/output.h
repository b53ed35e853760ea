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
**             _bar, _pct_bar, _spark), long text cut at 80 columns.  At
**             most OUTPUT_TABLE_BUFFER_ROWS rows are buffered to measure
**             column widths; later rows reuse the widths already fixed.
**   csv       RFC 4180 via libcsv, header row, raw values, CRLF line ends.
**   json      "[" then one object per line then "]"; "[]" when empty.
**   markdown  GitHub table with the same cell rendering as "table".
** NULL is an empty cell everywhere except JSON, where it is null.
*/
#ifndef PROFAN_OUTPUT_H
#define PROFAN_OUTPUT_H

#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>

/* Rows the table and markdown formats hold to compute column widths. */
#define OUTPUT_TABLE_BUFFER_ROWS 10000
/* Longest text cell, in code points, in table and markdown output. */
#define OUTPUT_MAX_CELL_WIDTH 80
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

#endif
