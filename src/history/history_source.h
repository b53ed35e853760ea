/*
** history_source.h — where the runs of a history come from.
**
** A profan database holds every run it knows.  A scratch database that
** stands in for a history server (server/pg_source.c: `check`, `trend`,
** `runs`, `diff` with --history URL) holds only what was pulled from the
** server so far; the comparison code asks for more through the source
** attached to it before it reads: the summary rows of a page of runs
** before the history window walks them, and every summary row of a run
** before its fingerprint or metrics are read.  The gate's
** logic is the same code over either: without a source these calls do
** nothing (the database has everything).
**
** Pipeline position: read side (history/), below the server layer that
** implements a source.
*/
#ifndef PROFAN_HISTORY_SOURCE_H
#define PROFAN_HISTORY_SOURCE_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"

typedef struct HistSource HistSource;
struct HistSource {
  /* Make present the rows of the nWant newest runs with id <= idMax
  ** (one round trip for them all); *pLo: the smallest id among them, or
  ** 1 when there are fewer (no run below is left).  0, or -1 with pErr
  ** set. */
  int (*xPage)(HistSource *p, int64_t idMax, int nWant, int64_t *pLo,
               PfError *pErr);
  /* Make present every summary row of run id (nothing when it has no
  ** such run).  0, or -1 with pErr set. */
  int (*xRun)(HistSource *p, int64_t id, PfError *pErr);
};

/* Attach source p to db (NULL: detach).  One database at a time has a
** source. */
void history_source_attach(sqlite3 *db, HistSource *p);

/* The page of runs with id <= idMax (history_window walks them newest
** first): *pLo as xPage says, or 0 without a source: every run with id
** <= idMax is in db already.  0, or -1 with pErr set. */
int history_source_page(sqlite3 *db, int64_t idMax, int nWant, int64_t *pLo,
                        PfError *pErr);

/* Every summary row of run id present in db (nothing to do without a
** source).  0, or -1 with pErr set. */
int history_source_run(sqlite3 *db, int64_t id, PfError *pErr);

#endif
