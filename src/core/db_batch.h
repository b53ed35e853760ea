/*
** db_batch.h — rows of one INSERT written many to a statement: a derive
** pass adds rows of integers (or NULLs) one at a time and they go in
** nRow at once, by the statement's VALUES tuple repeated nRow times (one
** statement step per nRow rows costs about half of nRow steps), the rest
** one row a statement at the end.  The statement file holds the one-row
** INSERT only; its text ends with its VALUES tuple "(?, ...)".
**
** Pipeline position: core, used by the derive passes that write long
** series (derive_hta_series.c, memory_series.c) and the trace writer's
** memory_event rows (load_trace.c).
*/
#ifndef PROFAN_DB_BATCH_H
#define PROFAN_DB_BATCH_H

#include "core/db.h"

#include <stdint.h>

typedef struct DbBatch {
  sqlite3_stmt *pOne, *pMany;   /* one row; nRow rows */
  int nCol, nRow;
  int n;                        /* rows waiting */
  int64_t *aVal;                /* nRow * nCol values waiting */
  char *aNull;                  /* ... 1: that value is NULL */
} DbBatch;

/* Prepare statement zName (one row of nCol parameters) and its nRow-row
** form into *b.  0, or -1 with pErr set (*b is then closed). */
int db_batch_open(sqlite3 *db, DbBatch *b, const char *zName, int nCol,
                  int nRow, PfError *pErr);

/* Add a row: aVal[nCol], aNull[nCol] (NULL: no value is NULL).  Writes
** nRow rows when that many wait (b->n is 0 after).  0 or -1 (pErr). */
int db_batch_add(sqlite3 *db, DbBatch *b, const int64_t *aVal,
                 const char *aNull, PfError *pErr);

/* Write the rows waiting, one a statement.  0 or -1 (pErr). */
int db_batch_flush(sqlite3 *db, DbBatch *b, PfError *pErr);

/* Finalize the statements and free what *b holds (rows waiting are
** dropped).  A zeroed DbBatch may be closed. */
void db_batch_close(DbBatch *b);

#endif
