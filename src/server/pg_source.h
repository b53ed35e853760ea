/*
** pg_source.h — a team's history server as the history of `check`,
** `trend`, `runs` and `diff` (--history URL).
**
** The commands work on a scratch SQLite database (db_open_scratch) that
** holds what was pulled from the server: the runs' identity rows (run,
** run_tag, baseline) and the strings at once; the summary rows of a run
** when the gate first compares it (a history_source attached to the
** scratch), or every row at once (pg_source_pull_all).  The gate, the
** queries and the output are then the very code of a local history.
**
** Pipeline position: the server layer (cli/cmd_server.c opens it).
*/
#ifndef PROFAN_PG_SOURCE_H
#define PROFAN_PG_SOURCE_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"

typedef struct PgSource PgSource;

/*
** Connect to zUrl (pg_conn_open), make sure the server's schema is this
** profan's (pg_schema_ensure) and pull the identity rows and strings into
** a new scratch database, with the source attached to it.  bLazy: the
** identity rows of the runs baselines name and of the newest run only;
** the others as a run reference names them (pg_source_pull_ref) or the
** history window walks them (the server says which runs a page holds):
** `check` then reads what its window needs, whatever the number of
** runs.  Returns the source, or NULL with pErr set (kind PF_KIND_DB;
** PF_KIND_USAGE for a string that is no connection string).  Close with
** pg_source_close().
*/
PgSource *pg_source_open(const char *zUrl, int bLazy, PfError *pErr);

/* The scratch database (owned by the source). */
sqlite3 *pg_source_db(PgSource *s);

/* What pg_source_pull() pulls whole (the identity rows are there from
** the start): the files (runs), the stored metrics (trend of a metric
** no run has: the names of the others), every table (check when a
** metric is not in the runs it compares). */
#define PG_PULL_FILES 1
#define PG_PULL_METRICS 2
#define PG_PULL_ALL 0xff
/* Not a pull: open lazily (pg_source_open's bLazy; cli_open_history). */
#define PG_OPEN_LAZY 0x1000
/* Pull the rows eWhat says of every run at once (commands that read
** across runs).  0, or -1 with pErr set. */
int pg_source_pull(PgSource *s, int eWhat, PfError *pErr);

/* Before run reference zRef is resolved in the scratch (lazy source):
** the identity rows of the runs it may name (by name, by id), or of every
** run when none (runref's message then names the nearest name as over a
** local history).  0, or -1 with pErr set. */
int pg_source_pull_ref(PgSource *s, const char *zRef, PfError *pErr);

/* Pull the stored-metric rows of metric zMetric of every run (trend):
** one metric's rows, not every metric's.  0, or -1 with pErr set. */
int pg_source_pull_metric(PgSource *s, const char *zMetric, PfError *pErr);

/*
** Run localRun of dbLocal (a local profan database) as the server would
** hold it after a push: the server's run when it holds the same content,
** else a copy in the scratch with the id a push would give it.  *pId:
** its id in the scratch.  0, or -1 with pErr set.
*/
int pg_source_add_local(PgSource *s, sqlite3 *dbLocal, int64_t localRun,
                        int64_t *pId, PfError *pErr);

/* Detach, close the connection, and the scratch when bCloseDb (else
** the caller closes it with db_close()).  Accepts NULL. */
void pg_source_close(PgSource *s, int bCloseDb);

#endif
