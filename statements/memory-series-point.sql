-- memory-series-point.sql — one numbered event of the memory series
-- (src/memory/memory_series.c).
INSERT INTO memory_point(run_id, rank, i, total_allocated, event_id)
VALUES(?1, ?2, ?3, ?4, ?5)
