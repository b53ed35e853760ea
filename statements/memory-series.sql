-- memory-series.sql — empties a run's profiler memory series (schemas
-- 095 and 114) before src/memory/memory_series.c writes it again (ingest,
-- merge and rebuild): memory_point, the run's CUDA [memory] events with a
-- total, each rank's in (ts, id) order in the rowid range its
-- memory_series row names (one pass writes the run's ranks one after
-- another: the run's points are one range, deleted by it, not by a scan),
-- and memory_step_end, each step's last of them at or before the step's
-- end (at equal times the later id).  The pass walks the events the trace
-- writer kept (trace_spans_rank_mem) and memory-series-steps.sql in one
-- merged walk; what it writes is specified by
-- tests/oracle/memory_timeline.sql (the query that numbered the events
-- with window functions), compared on every fixture by
-- tests/e2e/test_trace_queries.py StoredMemorySeries.
DELETE FROM memory_point WHERE run_id = ?1
  AND id >= (SELECT min(point_first) FROM memory_series WHERE run_id = ?1)
  AND id <= (SELECT max(point_first + point_n - 1) FROM memory_series
             WHERE run_id = ?1);
DELETE FROM memory_series WHERE run_id = ?1;
DELETE FROM memory_step_end WHERE run_id = ?1
