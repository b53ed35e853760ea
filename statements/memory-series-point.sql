-- memory-series-point.sql — one numbered event of the memory series
-- (src/memory/memory_series.c through src/core/db_batch.c, which repeats
-- the VALUES tuple to insert 64 rows a statement: its parameters are
-- unnumbered, in this order).
INSERT INTO memory_point(run_id, rank, i, total_allocated, event_id)
VALUES(?, ?, ?, ?, ?)
