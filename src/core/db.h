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
#include "core/util.h"
#include "core/embedded.h"

/* PRAGMA application_id of a profan database (schema/001-baseline.sql
** and the numbered files after it), and that of the development builds
** before the baseline (user_version counted files): refused. */
#define PROFAN_APPLICATION_ID 0x50464442       /* "PFDB" */
#define PROFAN_APPLICATION_ID_DEV 0x50524f46   /* "PROF" */

/* The version a database has after schema/001-baseline.sql: the highest
** number of the development files it folded (031-095).  The files after
** it are numbered above; a "PFDB" database at a version from 1 to
** PROFAN_SCHEMA_BASELINE-1 was made by a development build whose files
** the baseline replaced: refused. */
#define PROFAN_SCHEMA_BASELINE 95

/*
** Checked binds.  A bind that copies its value (SQLITE_TRANSIENT text or
** blob, sqlite3_bind_value) allocates; when that fails SQLite returns
** SQLITE_NOMEM, leaves the parameter NULL, and the next sqlite3_step()
** would store the NULL as if nothing happened.  Every file that includes
** db.h gets these in place of sqlite3_bind_text/_blob/_value and
** sqlite3_step: a failed bind makes the next step on this thread fail with
** the bind's error without running, and ends the guarded transaction (see
** db_begin) so that nothing of the command can be committed.
*/
int db_bind_text_checked(sqlite3_stmt *p, int i, const char *z, int n,
                         void (*xDel)(void*));
int db_bind_blob_checked(sqlite3_stmt *p, int i, const void *z, int n,
                         void (*xDel)(void*));
int db_bind_value_checked(sqlite3_stmt *p, int i, const sqlite3_value *v);
int db_step_checked(sqlite3_stmt *p);
#ifndef PROFAN_DB_IMPL
#define sqlite3_bind_text db_bind_text_checked
#define sqlite3_bind_blob db_bind_blob_checked
#define sqlite3_bind_value db_bind_value_checked
#define sqlite3_step db_step_checked
#endif

enum {                       /* db_open() flags */
  DB_OPEN_CREATE = 0x01,     /* create the file when missing */
  DB_OPEN_READONLY = 0x02,   /* never write (query commands) */
  DB_OPEN_BULK = 0x04,       /* a new file no other process sees yet: journal
                             ** in memory, no syncs (see db_finish_bulk) */
  DB_OPEN_REPLAY = 0x08      /* with BULK: create by replaying every schema
                             ** file, not from the image of the database
                             ** they make (tools/schema_image.c uses it) */
};

/*
** Open the database at zPath.  A new file gets the whole schema (with
** DB_OPEN_BULK: written from embedded_image in one go); an older
** profan database is migrated in place; a newer one, or a file that is not
** a profan database, is refused.  With DB_OPEN_READONLY a database whose
** directory cannot be written (an archive, a read-only mount) and that
** has no journal to replay is opened as an immutable file (SQLite keeps
** its -wal and -shm beside the database, and cannot make them there);
** db_open_note() says so.  Returns the handle or NULL with the reason in
** pErr (ERRPOS_NONE, kind PF_KIND_DB).  Close with db_close().
*/
sqlite3 *db_open(const char *zPath, int flags, PfError *pErr);
/*
** A new database in memory with the whole schema (from embedded_image,
** no file anywhere): a scratch database that stands in for another store
** (server/pg_source.c: the rows pulled from a history server).  Returns
** the handle or NULL with the reason in pErr (kind PF_KIND_DB).  Close
** with db_close().
*/
sqlite3 *db_open_scratch(PfError *pErr);
/* What the last db_open() with DB_OPEN_READONLY did differently, in one
** line for the user ("directory D is not writable: read as an immutable
** file ..."), or NULL.  Static. */
const char *db_open_note(void);
void db_close(sqlite3 *db);                         /* accepts NULL */

/* A database opened with DB_OPEN_BULK is done: switch it to WAL mode like
** every other profan database.  The caller then closes it and fsyncs the
** file before anyone else may open it.  Returns 0 or -1 with pErr. */
int db_finish_bulk(sqlite3 *db, PfError *pErr);

/*
** Write transactions.  db_begin() runs BEGIN IMMEDIATE and arms a guard:
** after SQLITE_NOMEM, SQLITE_IOERR or SQLITE_FULL SQLite may have rolled
** the transaction back by itself, and every statement after that would
** commit on its own (autocommit).  While the guard is armed a commit hook
** turns any such commit into a rollback (the statement fails with
** SQLITE_CONSTRAINT_COMMITHOOK), so a failed command never stores part of
** its work.  db_commit() disarms it and commits: it refuses, with the
** reason, when the transaction is gone.  db_rollback() disarms and rolls
** back what is left.  They return 0, or -1 with SQLite's message
** (db_begin) or "cannot commit: MSG" (db_commit) in pErr.
*/
int db_begin(sqlite3 *db, PfError *pErr);
int db_commit(sqlite3 *db, PfError *pErr);

/*
** db_begin(), waiting while another writer holds the database: xWait (may
** be NULL) is called with bDone 0 when the wait starts and with bDone 1
** and the seconds waited when it ends; the wait lasts up to timeout
** seconds (< 0: as long as it takes).  Returns 0 (*pWaited, may be NULL:
** seconds waited), or -1 with pErr set, kind PF_KIND_DB: "the database is
** still locked by another writer after S s (--timeout); nothing written",
** or SQLite's reason.
*/
typedef void (*DbWaitFn)(void *pArg, int bDone, double seconds);
int db_begin_wait(sqlite3 *db, double timeout, DbWaitFn xWait, void *pArg,
                  double *pWaited, PfError *pErr);

/* From now on, a successful db_commit() on db leaves SIGINT and SIGTERM
** blocked: a command's one write is stored, and a signal that comes later
** waits for the end of the command instead of saying nothing was
** written.  The command line sets it once it opened the database it
** writes (each writing command commits to it once; other connections,
** such as a shard migrated by merge, are not held).  NULL: none. */
void db_hold_signals_after_commit(sqlite3 *db);
void db_rollback(sqlite3 *db);                      /* accepts NULL */
/* 1 when the transaction of db_begin() is no longer open (SQLite rolled it
** back after an error): stop and report, do not run more statements. */
int db_txn_lost(sqlite3 *db);

/* When the transaction of db_begin() was lost (rolled back by SQLite, or
** a statement stopped by the guard): the error that ended it ("out of
** memory", "disk I/O error", ...), for the message; else NULL. */
const char *db_lost_reason(sqlite3 *db);
/* The extended code behind db_lost_reason() (SQLITE_OK when none). */
int db_lost_errcode(void);

/* Schema version this binary writes: db_schema_file_version() of its
** last schema file. */
int db_schema_version(void);

/* The text of the program's own named statement statements/zName.sql
** (embedded_statement[]); a name that is not there is a build defect:
** util_fatal().  The text may hold several statements; a template (its
** header says so) holds one format directive for the caller's
** sqlite3_mprintf() and no other percent sign. */
const char *db_statement(const char *zName);

/*
** The columns of table zTab in their order, as the lists a statement
** template takes (statements/table-columns.sql): *pzCols the quoted
** names ("a", "b"), *pzParams as many parameters (?, ?); both from
** xmalloc, the caller frees them.  Returns the number of columns (0: no
** such table, both lists ""), or -1 with pErr set.
*/
int db_table_columns(sqlite3 *db, const char *zTab, char **pzCols,
                     char **pzParams, PfError *pErr);

/* The number NNN of schema file name zName ("NNN-name.sql"), or -1. */
int db_schema_file_number(const char *zName);

/* The user_version of a database after schema file zName: its number,
** PROFAN_SCHEMA_BASELINE for the baseline (number 1), or -1. */
int db_schema_file_version(const char *zName);

/*
** What db_open() does with a database whose header says application_id
** appId and user_version ver, holding nObj schema objects, for a binary
** at schema version want: DB_VERSION_CREATE (an empty file: the whole
** schema), DB_VERSION_OK, DB_VERSION_MIGRATE (older: apply the files
** numbered above ver; with DB_OPEN_READONLY in flags, refused instead),
** or DB_VERSION_REFUSE with the one-line reason in pErr (also for a
** development build's database: application_id "PROF", or "PFDB" at a
** version from 1 to PROFAN_SCHEMA_BASELINE-1).
*/
enum { DB_VERSION_CREATE, DB_VERSION_OK, DB_VERSION_MIGRATE,
       DB_VERSION_REFUSE };
int db_version_check(int appId, int ver, int nObj, int want, int flags,
                     PfError *pErr);

/*
** Apply the schema files of aFile (ended by a {0,0} entry, in increasing
** number) whose number is above the database's user_version, in one
** transaction, then set user_version to the last one's number and the
** application_id.  The version is read again under the write lock
** (another process may have migrated the database meanwhile).  Returns 0
** or -1 with "schema NNN-name.sql: MSG" in pErr.
*/
int db_schema_apply(sqlite3 *db, const EmbeddedFile *aFile, PfError *pErr);

/* Execute SQL with no result rows; returns SQLITE_OK or an error code and
** stores sqlite's message in pErr. */
int db_exec(sqlite3 *db, const char *zSql, PfError *pErr);

/* Execute the statements of zSql one after another, binding ?1 to runId
** where a statement has parameters (the derive stages' one-liners).
** Returns 0, or -1 with "database: <sqlite message>" in pErr. */
int db_exec_run(sqlite3 *db, const char *zSql, int64_t runId, PfError *pErr);

/* db_exec_run() of the template zTemplate (a statements/ file with one %s)
** filled with the SELECT of view zView (db_view_select(); the view itself,
** "SELECT * FROM zView", when that gives NULL): the view stays the one
** definition, its text compiles for less (view expansion at prepare time:
** 8 of op_sig_model_calc's 20 M instructions).  Returns as db_exec_run. */
int db_exec_run_view(sqlite3 *db, const char *zTemplate, const char *zView,
                     int64_t runId, PfError *pErr);

/* Step a prepared INSERT/UPDATE once and reset it.  Returns 0, or -1 with
** "database: <sqlite message>" in pErr. */
int db_step_done(sqlite3 *db, sqlite3_stmt *p, PfError *pErr);

/* Prepare zSql; on failure returns NULL and fills pErr (out of memory
** ends a transaction of db_begin(), as db_int does).  zSql NULL (a failed
** sqlite3_mprintf) is out of memory. */
sqlite3_stmt *db_prepare(sqlite3 *db, const char *zSql, PfError *pErr);

/* The ids selected by zSql (?1 bound to runId, when it has one), in a new
** array of *pn (never NULL when it succeeds; caller frees with free()).
** NULL with pErr set on error.  With ORDER BY, util_id_in searches it. */
int64_t *db_id_set(sqlite3 *db, const char *zSql, int64_t runId, int *pn,
                   PfError *pErr);

/* The rowid range [*pLo, *pHi] of run runId's rows in trace table zTab,
** as stored when they were written (run_rowid_range, schemas 105, 110): one
** primary-key lookup.  Rows of other runs may lie inside it (readers keep
** their run_id filter).  *pLo > *pHi when the run has none.  Returns 0 or
** -1 with pErr set. */
int db_run_rowids(sqlite3 *db, const char *zTab, int64_t runId,
                  int64_t *pLo, int64_t *pHi, PfError *pErr);

/* Recording those ranges.  A writer of a run's rows in the trace tables
** (the ingest's trace load, merge's copy) marks each table's largest id
** below 2^32 and largest id at all before it writes (db_rowid_mark), and
** afterwards stores the range of the ids past the marks as the run's
** (db_rowid_record, merged with a range the run has already): new rows
** either take the next id below 2^32 (merge's moved ids, a kernel's) or,
** for operators and runtime calls, their file's id_base + n with id_base
** above every id there is (trace_ids.h; (file id << 32) + n in files
** stored before schema 129).  One run's rows are written between the two
** calls.  0 or -1 (pErr). */
#define DB_ROWID_NTAB 8
typedef struct RowidMark {
  int64_t aLow[DB_ROWID_NTAB];   /* largest id below 2^32 (0: none) */
  int64_t aHigh[DB_ROWID_NTAB];  /* largest id, at least 2^32 - 1 */
} RowidMark;
int db_rowid_mark(sqlite3 *db, RowidMark *pMark, PfError *pErr);
int db_rowid_record(sqlite3 *db, int64_t runId, const RowidMark *pMark,
                    PfError *pErr);

/* A statement reading run runId's rows of trace table zTab by their
** rowid range (db_run_rowids): SELECT zCols FROM zTab WHERE the range
** AND +run_id = runId [AND zWhere], bound and ready to step (caller
** finalizes).  NULL with *pEmpty 1 when the run has no rows there; NULL
** with *pEmpty 0 and pErr set on an error. */
sqlite3_stmt *db_prepare_run_rows(sqlite3 *db, const char *zTab,
                                  const char *zCols, const char *zWhere,
                                  int64_t runId, int *pEmpty, PfError *pErr);

/* The same for a whole statement zSql over trace table zTab whose
** parameters are ?1 the run, ?2 and ?3 its rowid range in zTab. */
sqlite3_stmt *db_prepare_run_range(sqlite3 *db, const char *zSql,
                                   const char *zTab, int64_t runId,
                                   int *pEmpty, PfError *pErr);

/* Run a query returning one integer (first column of first row); returns
** dflt when there is no row.  On out of memory or an I/O error it returns
** dflt too, and ends a transaction of db_begin() (db_lost_reason() then
** says why): a default must not stand in for a value in a write. */
int64_t db_int(sqlite3 *db, int64_t dflt, const char *zSql, ...);

/* The SELECT of view zView: its text in sqlite_schema after "CREATE VIEW
** zView AS".  sqlite3_malloc'ed, the caller frees it (sqlite3_free).
** NULL when there is no such view, its text has another shape, or out of
** memory: the caller then uses the view itself.  Compiling a statement
** over this text skips what naming the view costs on a connection's first
** use (SQLite resolves the whole view, nested views included, to learn
** its column names: 7 M of the 19 M instructions of derive_core's
** INSERT). */
char *db_view_select(sqlite3 *db, const char *zView);

/* Bind helpers that treat a negative/absent value as NULL. */
void db_bind_int_or_null(sqlite3_stmt *p, int i, int has, int64_t v);
void db_bind_double_or_null(sqlite3_stmt *p, int i, int has, double v);
void db_bind_text_or_null(sqlite3_stmt *p, int i, const char *z, int n);

#endif
