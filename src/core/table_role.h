/*
** table_role.h — the table catalogue (table_role, schema/001-baseline.sql)
** as the commands that handle a run's rows as a whole use it: which
** tables hold a run's rows, which are derived, which tables a run's rows
** are in at all.
**
** Pipeline position: shared by rm (runref.c), merge (merge.c), the
** derive sequence over stored rows (derive_run.c) and rebuild.  The lists
** themselves are statements of statements/ over table_role; nothing here
** names a table.
*/
#ifndef PROFAN_TABLE_ROLE_H
#define PROFAN_TABLE_ROLE_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"

/* 0 when every table with a run_id column has a role; else -1 with
** "table T has a run_id column but no role in table_role (...)" in pErr:
** its rows would be left behind, or not copied. */
int table_role_check(sqlite3 *db, PfError *pErr);

/* Delete the rows of run runId from every table the named statement
** zList (statements/zList.sql: one table name per row; its ?1, if any,
** bound to arg) lists.  Returns 0, or -1 with pErr set. */
int table_role_delete_run(sqlite3 *db, const char *zList, int arg,
                          int64_t runId, PfError *pErr);

/* Whether run runId has a row in one of the raw tables that a
** `merge --summaries-only` history does not keep (those with an index on
** run_id are probed): 1; 0 for a history's run, whose derived tables
** cannot be computed again (or a run whose files held no records); -1
** with pErr set. */
int table_role_run_has_raw(sqlite3 *db, int64_t runId, PfError *pErr);

#endif
