/*
** memory_series.c — the profiler memory series (see memory_series.h).
**
** One walk over the run's CUDA [memory] events with a total, per rank in
** (ts, id) order (statements/memory-series-events.sql: the order of index
** memory_event_run), merged with its steps per rank in the order of their
** ends (memory-series-steps.sql): each event gets the next number of its
** rank; a step is done when the walk passes its end (the next event is
** later, or of a later rank), and its last event is the last one walked
** if that is of its rank.  At equal times an event at the step's end
** belongs to it, and the later id is the last.  A numbering window and a
** backward search per step in SQL cost 3x the CPU of this walk (0.33 s
** for the 243,036 events of bench shape synthetic-memory x3; and a rank
** whose events have no total searched all of them for every step).  The
** specification is tests/oracle/memory_timeline.sql (the named query
** that numbered the events itself), compared with the stored rows on
** every fixture by tests/e2e/test_trace_queries.py StoredMemorySeries.
**
** Pipeline position: "derive" (derive_run.c), inside the transaction.
*/
#include "memory/memory_series.h"
#include "core/db.h"

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

int memory_series_run(sqlite3 *db, int64_t runId, PfError *pErr){
  sqlite3_stmt *pEv = NULL, *pPoint = NULL, *pEnd = NULL;
  SeriesStep s = {0};
  int64_t i = 0, lastRank = 0, lastId = 0;
  int hasLast = 0, rc = -1, r;
  if( db_exec_run(db, db_statement("memory-series"), runId, pErr) ) return -1;
  pEv = db_prepare(db, db_statement("memory-series-events"), pErr);
  if( pEv==NULL ) goto done;
  sqlite3_bind_int64(pEv, 1, runId);
  r = sqlite3_step(pEv);
  if( r==SQLITE_DONE ){                /* no series: nothing to walk */
    rc = 0;
    goto done;
  }
  if( r!=SQLITE_ROW ) goto sql_error;
  s.p = db_prepare(db, db_statement("memory-series-steps"), pErr);
  pPoint = db_prepare(db, db_statement("memory-series-point"), pErr);
  pEnd = db_prepare(db, db_statement("memory-series-step-end"), pErr);
  if( s.p==NULL || pPoint==NULL || pEnd==NULL ) goto done;
  sqlite3_bind_int64(s.p, 1, runId);
  if( step_next(db, &s, pErr) ) goto done;
  for(; r==SQLITE_ROW; r = sqlite3_step(pEv)){
    int64_t rank = sqlite3_column_int64(pEv, 0);
    int64_t ts = sqlite3_column_int64(pEv, 1);
    int64_t id = sqlite3_column_int64(pEv, 3);
    if( steps_done(db, runId, &s, pEnd, rank, ts, 0, hasLast, lastRank,
                   lastId, pErr) ){
      goto done;
    }
    if( !hasLast || rank!=lastRank ) i = 0;
    sqlite3_bind_int64(pPoint, 1, runId);
    sqlite3_bind_int64(pPoint, 2, rank);
    sqlite3_bind_int64(pPoint, 3, i++);
    sqlite3_bind_int64(pPoint, 4, sqlite3_column_int64(pEv, 2));
    sqlite3_bind_int64(pPoint, 5, id);
    if( db_step_done(db, pPoint, pErr) ) goto done;
    hasLast = 1;
    lastRank = rank;
    lastId = id;
  }
  if( r!=SQLITE_DONE ) goto sql_error;
  rc = steps_done(db, runId, &s, pEnd, 0, 0, 1, hasLast, lastRank, lastId,
                  pErr);
  goto done;
sql_error:
  pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
done:
  sqlite3_finalize(pEv);
  sqlite3_finalize(s.p);
  sqlite3_finalize(pPoint);
  sqlite3_finalize(pEnd);
  return rc;
}
