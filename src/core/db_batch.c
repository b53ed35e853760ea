/*
** db_batch.c — rows of one INSERT written many to a statement (see
** db_batch.h).
**
** Pipeline position: core, used by the derive passes that write long
** series.
*/
#include "core/db_batch.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* Statement zName with its VALUES tuple (the text from its last '(')
** repeated to nRow rows. */
static sqlite3_stmt *prepare_rows(sqlite3 *db, const char *zName, int nRow,
                                  PfError *pErr){
  const char *z = db_statement(zName);
  const char *zTuple = strrchr(z, '(');
  sqlite3_stmt *s;
  Buf b;
  buf_init(&b);
  buf_puts(&b, z);
  for(int k=1; k<nRow; k++){
    buf_puts(&b, ",");
    buf_puts(&b, zTuple);
  }
  s = db_prepare(db, buf_str(&b), pErr);
  buf_free(&b);
  return s;
}

int db_batch_open(sqlite3 *db, DbBatch *b, const char *zName, int nCol,
                  int nRow, PfError *pErr){
  memset(b, 0, sizeof(*b));
  b->nCol = nCol;
  b->nRow = nRow;
  b->aVal = xcalloc((size_t)nRow*(size_t)nCol, sizeof(int64_t));
  b->aNull = xcalloc((size_t)nRow*(size_t)nCol, 1);
  b->pOne = prepare_rows(db, zName, 1, pErr);
  b->pMany = b->pOne ? prepare_rows(db, zName, nRow, pErr) : NULL;
  if( b->pMany==NULL ){
    db_batch_close(b);
    return -1;
  }
  return 0;
}

/* Bind rows i0 .. i0+n-1 waiting to s and step it.  0 or -1. */
static int write_rows(sqlite3 *db, const DbBatch *b, sqlite3_stmt *s,
                      int i0, int n, PfError *pErr){
  for(int i=0; i<n*b->nCol; i++){
    int k = i0*b->nCol + i;
    if( b->aNull[k] ) sqlite3_bind_null(s, i+1);
    else sqlite3_bind_int64(s, i+1, b->aVal[k]);
  }
  return db_step_done(db, s, pErr);
}

int db_batch_add(sqlite3 *db, DbBatch *b, const int64_t *aVal,
                 const char *aNull, PfError *pErr){
  size_t k = (size_t)b->n*(size_t)b->nCol;
  memcpy(&b->aVal[k], aVal, sizeof(int64_t)*(size_t)b->nCol);
  if( aNull ) memcpy(&b->aNull[k], aNull, (size_t)b->nCol);
  else memset(&b->aNull[k], 0, (size_t)b->nCol);
  if( ++b->n<b->nRow ) return 0;
  b->n = 0;
  return write_rows(db, b, b->pMany, 0, b->nRow, pErr);
}

int db_batch_flush(sqlite3 *db, DbBatch *b, PfError *pErr){
  for(int i=0; i<b->n; i++){
    if( write_rows(db, b, b->pOne, i, 1, pErr) ) return -1;
  }
  b->n = 0;
  return 0;
}

void db_batch_close(DbBatch *b){
  sqlite3_finalize(b->pOne);
  sqlite3_finalize(b->pMany);
  free(b->aVal);
  free(b->aNull);
  memset(b, 0, sizeof(*b));
}
