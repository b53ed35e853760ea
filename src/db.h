/*
** db.h — the one database layer: open/create a profan database, apply the
** embedded schema, prepare/step helpers with a sticky error, transactions.
**
** Pipeline position: "load" and every command that reads results.  Only
** this module and schema.c talk to sqlite3_open.
*/
#ifndef PROFAN_DB_H
#define PROFAN_DB_H

#include <sqlite3.h>
#include <stdint.h>
#include "util.h"

#define PROFAN_APPLICATION_ID 0x50524f46   /* "PROF" */

enum {                       /* db_open() flags */
  DB_OPEN_CREATE = 0x01,     /* create the file when missing */
  DB_OPEN_READONLY = 0x02,   /* never write (query commands) */
  DB_OPEN_BULK = 0x04        /* a new file no other process sees yet: journal
                             ** in memory, no syncs (see db_finish_bulk) */
};

/*
** Open the database at zPath.  A new file gets the whole schema; an older
** profan database is migrated in place; a newer one, or a file that is not
** a profan database, is refused.  Returns the handle or NULL with the
** reason in pErr (ERRPOS_NONE).  Close with db_close().
*/
sqlite3 *db_open(const char *zPath, int flags, PfError *pErr);
void db_close(sqlite3 *db);                         /* accepts NULL */

/* A database opened with DB_OPEN_BULK is done: switch it to WAL mode like
** every other profan database.  The caller then closes it and fsyncs the
** file before anyone else may open it.  Returns 0 or -1 with pErr. */
int db_finish_bulk(sqlite3 *db, PfError *pErr);

/* Schema version this binary writes (number of embedded schema files). */
int db_schema_version(void);

/* Execute SQL with no result rows; returns SQLITE_OK or an error code and
** stores sqlite's message in pErr. */
int db_exec(sqlite3 *db, const char *zSql, PfError *pErr);

/* Execute the statements of zSql one after another, binding ?1 to runId
** where a statement has parameters (the derive stages' one-liners).
** Returns 0, or -1 with "database: <sqlite message>" in pErr. */
int db_exec_run(sqlite3 *db, const char *zSql, int64_t runId, PfError *pErr);

/* Step a prepared INSERT/UPDATE once and reset it.  Returns 0, or -1 with
** "database: <sqlite message>" in pErr. */
int db_step_done(sqlite3 *db, sqlite3_stmt *p, PfError *pErr);

/* Prepare zSql; on failure returns NULL and fills pErr. */
sqlite3_stmt *db_prepare(sqlite3 *db, const char *zSql, PfError *pErr);

/* The rowid range [*pLo, *pHi] of run runId's rows in table zTab (a trace
** table: ids are (file id << 32) + n, so a run's rows are one range), from
** the first and last entry of the run on its run_id index: two B-tree
** descents when the index is (run_id), a scan of the run's entries on the
** (run_id, rank, ...) ones of databases from before 2026-11-22.  *pLo >
** *pHi when the run has none.  Returns 0 or -1 with pErr set. */
int db_run_rowids(sqlite3 *db, const char *zTab, int64_t runId,
                  int64_t *pLo, int64_t *pHi, PfError *pErr);

/* Run a query returning one integer (first column of first row); returns
** dflt when there is no row. */
int64_t db_int(sqlite3 *db, int64_t dflt, const char *zSql, ...);

/* Bind helpers that treat a negative/absent value as NULL. */
void db_bind_int_or_null(sqlite3_stmt *p, int i, int has, int64_t v);
void db_bind_double_or_null(sqlite3_stmt *p, int i, int has, double v);
void db_bind_text_or_null(sqlite3_stmt *p, int i, const char *z, int n);

#endif
