/*
** pg_rows.h — a history's rows between SQLite and the history server:
** which tables and columns (the table catalogue), and their values as
** text parameters one way and as SQLite values the other, each value
** read back exactly as it was (an integer stays an integer, a double the
** same double).
**
** Pipeline position: the server layer, under push (pg_push.c) and the
** history source (pg_source.c).
*/
#ifndef PROFAN_PG_ROWS_H
#define PROFAN_PG_ROWS_H

#include <sqlite3.h>
#include <stdint.h>
#include "server/pg_conn.h"

/* A column: its name, its type on the server ('i' bigint, 'r' double
** precision, 't' text, 'b' bytea, 'n' numeric: SQLite's column without a
** declared type, which holds integers and reals), and whether it holds a
** string.id. */
typedef struct PgCol {
  char *zName;
  char cType;
  int isStr;
} PgCol;

/* A table a history keeps. */
typedef struct PgTab {
  char *zName;
  PgCol *a;
  int nCol;
  int byId;          /* an INTEGER PRIMARY KEY id orders its rows */
  int rowid;         /* a rowid table: its rows are read in rowid order */
  int isRun;         /* the run table (its id is the run's) */
  int hasMetric;     /* a metric column: a stored-metric table */
  char *zCols;       /* the columns as a list ("a", "b"), in a's order
                     ** (statements/table-columns.sql) */
  char *zParams;     /* as many parameters (?, ?) */
} PgTab;

/* The tables of a history: run first, then run_file, then by name (the
** catalogue's statement history-columns), and the strings. */
typedef struct PgPlan {
  PgTab *a;
  int nTab;
  PgTab str;         /* string(id, text) */
} PgPlan;

/* The plan from the table catalogue of db (any profan database of this
** schema version).  0, or -1 with pErr set; free with pg_plan_free()
** either way. */
int pg_plan_build(sqlite3 *db, PgPlan *p, PfError *pErr);
void pg_plan_free(PgPlan *p);
/* The table named zName, or NULL. */
const PgTab *pg_plan_table(const PgPlan *p, const char *zName);

/* Array literals for a bigint[] / text[] parameter ("{1,2}",
** "{"a","b\"c"}"), appended to b. */
void pg_rows_id_array(Buf *b, const int64_t *a, int n);
void pg_rows_text_array(Buf *b, const char *const *az, int n);

/* "SELECT cols FROM profan.TABLE WHERE zWhere ORDER BY ..." for table t
** (columns in the plan's order; rows by id, else run and place), in a new
** string the caller frees. */
char *pg_rows_select(const PgTab *t, const char *zWhere);

/* Insert the rows of server result r (made by pg_rows_select for t) into
** t of db, keeping a row db has already (INSERT OR IGNORE).  *pn (may be
** NULL) gets the count.  0, or -1 with pErr set. */
int pg_rows_insert(sqlite3 *db, const PgTab *t, PGresult *r, int64_t *pn,
                   PfError *pErr);

/*
** Send run runId of db (a scratch database where it holds the ids the
** server gives it: pg_archive.c) to the server, inside the caller's
** transaction there: its rows of every table of the plan, each with its
** place among them, and the strings of db with an id above strFloor (the
** new ones), one COPY per table that has rows (two round trips each).
** *pnRows gets the rows sent.  0, or -1
** with pErr set.
*/
int pg_rows_push_run(PgConn *c, const PgPlan *p, sqlite3 *db, int64_t runId,
                     int64_t strFloor, int64_t *pnRows, PfError *pErr);

#endif
