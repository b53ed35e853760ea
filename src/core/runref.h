/*
** runref.h — naming runs: resolve "42", a run name, or "latest" to a run
** id; delete a run with everything that belongs to it.
**
** Pipeline position: used by every command that takes a run.
*/
#ifndef PROFAN_RUNREF_H
#define PROFAN_RUNREF_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"

/* Resolve zRef to a run id.  Returns the id, or -1 with pErr set
** ("no run named 'x'"). */
int64_t runref_resolve(sqlite3 *db, const char *zRef, PfError *pErr);

/* Delete run runId and all its rows (fact, derived, tag, file tables).
** Strings no longer used by any run are removed too.  Must run inside a
** transaction.  Returns 0 or -1 with pErr set. */
int runref_delete(sqlite3 *db, int64_t runId, PfError *pErr);

/* The files of run runId: aN[0] traces, aN[1] files of the other kinds,
** aN[2] the records read from all of them (run_file.n_records).  Returns
** 0, or -1 with pErr set. */
int runref_files(sqlite3 *db, int64_t runId, int64_t aN[3], PfError *pErr);

#endif
