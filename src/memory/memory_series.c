/*
** memory_series.c — the profiler memory series (see memory_series.h).
**
** One walk over the run's CUDA [memory] events with a total, per rank in
** (ts, id) order (kept by the trace writer or the stored-rows feeder as
** the rows go in: trace_spans_rank_mem, sorted only when they came out of
** order; reading them back sorted from memory_event took 330 M of the
** 655 M instructions of this pass on bench shape synthetic-memory x1),
** merged with its steps per rank in the order of their ends
** (memory-series-steps.sql): each event gets the next rowid of
** memory_point, a rank's events one range (schema 114: its memory_series
** row); a step is done when the walk passes its end (the next event is
** later, or of a later rank), and its last event is the last one walked
** if that is of its rank.  At equal times an event at the step's end
** belongs to it, and the later id is the last.  The points go in 64 a
** statement (one row a statement costs 2.5x the CPU: SQLite's per-step
** work, cursor and transaction checks, outweighs the row's).  A
** numbering window and a backward search per step in SQL cost 0.33 s of
** CPU for the 243,036 events of bench shape synthetic-memory x3, this
** walk 0.14 s; and a rank whose events have no total was searched whole
** for every step.  The
** specification is tests/oracle/memory_timeline.sql (the named query
** that numbered the events itself), compared with the stored rows on
** every fixture by tests/e2e/test_trace_queries.py StoredMemorySeries.
**
** Pipeline position: "derive" (derive_run.c), inside the transaction.
*/
#include "memory/memory_series.h"
#include "core/db.h"
#include "core/db_batch.h"
#include "trace/trace_spans.h"

#include <stdlib.h>
#include <string.h>

#define POINT_COLS 3           /* memory-series-point.sql's parameters */
#define POINT_BATCH 64         /* rows a statement */

/* Hold one point; the batch writes 64 at a time.  It gets the next rowid
** (SQLite's max + 1: 1,050 instructions a row less than binding it, which
** checks that the rowid is free; checked after the last write, see
** points_check).  0 or -1. */
static int point_add(sqlite3 *db, DbBatch *p, int64_t runId, int64_t total,
                     int64_t eventId, PfError *pErr){
  int64_t a[POINT_COLS];
  a[0] = runId;
  a[1] = total;
  a[2] = eventId;
  return db_batch_add(db, p, a, NULL, pErr);
}

/* After the last point: the points got the rowids counted, first .. next
** - 1 (each got max + 1, so the last one's tells).  0 or -1 (pErr). */
static int points_check(sqlite3 *db, int64_t first, int64_t next,
                        PfError *pErr){
  if( next>first && sqlite3_last_insert_rowid(db)!=next-1 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: memory series rows did"
                 " not get consecutive rowids (%lld, not %lld)",
                 (long long)sqlite3_last_insert_rowid(db),
                 (long long)(next-1));
    return -1;
  }
  return 0;
}

/* The row of a rank in memory_series: its n points from rowid first. */
static int rank_add(sqlite3 *db, sqlite3_stmt *pRank, int64_t runId,
                    int64_t rank, int64_t first, int64_t n, PfError *pErr){
  sqlite3_bind_int64(pRank, 1, runId);
  sqlite3_bind_int64(pRank, 2, rank);
  sqlite3_bind_int64(pRank, 3, first);
  sqlite3_bind_int64(pRank, 4, n);
  return db_step_done(db, pRank, pErr);
}

/* The step cursor: the current step of the walk, valid while has. */
typedef struct SeriesStep {
  sqlite3_stmt *p;
  int has;
  int64_t rank, step, te;
} SeriesStep;

/* Move to the next step.  0, or -1 with pErr set. */
static int step_next(sqlite3 *db, SeriesStep *s, PfError *pErr){
  int rc = sqlite3_step(s->p);
  s->has = rc==SQLITE_ROW;
  if( s->has ){
    s->rank = sqlite3_column_int64(s->p, 0);
    s->step = sqlite3_column_int64(s->p, 1);
    s->te = sqlite3_column_int64(s->p, 2);
  }else if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

/* The steps before (rank, ts) done: each gets the last event walked
** (lastId) when that one is of its rank (hasLast).  Then the next. */
static int steps_done(sqlite3 *db, int64_t runId, SeriesStep *s,
                      sqlite3_stmt *pEnd, int64_t rank, int64_t ts, int all,
                      int hasLast, int64_t lastRank, int64_t lastId,
                      PfError *pErr){
  while( s->has && (all || s->rank<rank || (s->rank==rank && s->te<ts)) ){
    if( hasLast && lastRank==s->rank ){
      sqlite3_bind_int64(pEnd, 1, runId);
      sqlite3_bind_int64(pEnd, 2, s->rank);
      sqlite3_bind_int64(pEnd, 3, s->step);
      sqlite3_bind_int64(pEnd, 4, lastId);
      if( db_step_done(db, pEnd, pErr) ) return -1;
    }
    if( step_next(db, s, pErr) ) return -1;
  }
  return 0;
}

int memory_series_run(sqlite3 *db, int64_t runId, const TraceSpans *pSpans,
                      PfError *pErr){
  sqlite3_stmt *pEnd = NULL, *pRank = NULL;
  DbBatch pt = {0};
  SeriesStep s = {0};
  int64_t *aRank = NULL, lastRank = 0, lastId = 0, first, next;
  int nRank = 0, hasLast = 0, rc = -1;
  if( db_exec_run(db, db_statement("memory-series"), runId, pErr) ) return -1;
  if( pSpans==NULL || trace_spans_mem_count(pSpans)==0 ) return 0;
  aRank = trace_spans_ranks(pSpans, &nRank);
  /* the points go at the end of the table, one rank after another */
  first = next = db_int(db, 0, "SELECT max(id) FROM memory_point") + 1;
  s.p = db_prepare(db, db_statement("memory-series-steps"), pErr);
  pEnd = db_prepare(db, db_statement("memory-series-step-end"), pErr);
  pRank = db_prepare(db, db_statement("memory-series-rank"), pErr);
  if( s.p==NULL || pEnd==NULL || pRank==NULL
      || db_batch_open(db, &pt, "memory-series-point", POINT_COLS,
                       POINT_BATCH, pErr) ){
    goto done;
  }
  sqlite3_bind_int64(s.p, 1, runId);
  if( step_next(db, &s, pErr) ) goto done;
  for(int k=0; k<nRank; k++){
    int64_t rank = aRank[k];
    size_t n;
    SpanMem *a = trace_spans_rank_mem(pSpans, rank, &n);
    if( n>0 && rank_add(db, pRank, runId, rank, next, (int64_t)n, pErr) ){
      free(a);
      goto done;
    }
    for(size_t i=0; i<n; i++){
      if( steps_done(db, runId, &s, pEnd, rank, a[i].ts, 0, hasLast,
                     lastRank, lastId, pErr)
          || point_add(db, &pt, runId, a[i].total, a[i].id, pErr) ){
        free(a);
        goto done;
      }
      next++;
      hasLast = 1;
      lastRank = rank;
      lastId = a[i].id;
    }
    free(a);
  }
  if( trace_spans_check(pSpans, pErr) || db_batch_flush(db, &pt, pErr)
      || points_check(db, first, next, pErr) ){
    goto done;
  }
  rc = steps_done(db, runId, &s, pEnd, 0, 0, 1, hasLast, lastRank, lastId,
                  pErr);
done:
  free(aRank);
  sqlite3_finalize(s.p);
  db_batch_close(&pt);
  sqlite3_finalize(pEnd);
  sqlite3_finalize(pRank);
  return rc;
}
