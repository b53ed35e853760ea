-- memory-series.sql — empties a run's profiler memory series (schema
-- 095) before src/memory/memory_series.c writes it again (ingest, merge
-- and rebuild): memory_point, the run's CUDA [memory] events with a total
-- numbered per rank in (ts, id) order, and memory_step_end, each step's
-- last of them at or before the step's end (at equal times the later id).
-- The pass walks the events the trace writer kept (trace_spans_rank_mem)
-- and memory-series-steps.sql in one merged walk; what it writes is
-- specified by tests/oracle/memory_timeline.sql (the query that numbered the events
-- with window functions), compared on every fixture by
-- tests/e2e/test_trace_queries.py StoredMemorySeries.
DELETE FROM memory_point WHERE run_id=?1;
DELETE FROM memory_step_end WHERE run_id=?1
