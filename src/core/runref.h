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

/* Resolve zRef to a run id: "latest" is the newest run; a whole number
** is the run with that id when there is one (ids win over a run named
** "3" that databases from before names were checked may hold), else a
** name.  Returns the id, or -1 with pErr set: "no run 'x'" (with the
** nearest name; kind PF_KIND_USAGE), or a database error (PF_KIND_DB).
** *pShadow (may be NULL) gets the run whose name is zRef when an id won
** over it, else 0. */
int64_t runref_resolve_ex(sqlite3 *db, const char *zRef, int64_t *pShadow,
                          PfError *pErr);
/* runref_resolve_ex() without the shadowed run. */
int64_t runref_resolve(sqlite3 *db, const char *zRef, PfError *pErr);

/* Why zName cannot name a run (or a baseline), or NULL when it can: it
** is empty, the word 'latest', or reads as a run id (digits, with a sign
** or blanks around them).  Static text: "reads as a run id". */
const char *runref_name_problem(const char *zName);

/* Delete run runId and all its rows (fact, derived, tag, file tables).
** Strings no longer used by any run are removed too.  Must run inside a
** transaction.  Returns 0 or -1 with pErr set. */
int runref_delete(sqlite3 *db, int64_t runId, PfError *pErr);

/* The files of run runId: aN[0] traces, aN[1] files of the other kinds,
** aN[2] the records read from all of them (run_file.n_records).  Returns
** 0, or -1 with pErr set. */
int runref_files(sqlite3 *db, int64_t runId, int64_t aN[3], PfError *pErr);

#endif
