-- memory-series-point.sql — one event of the memory series at rowid id of
-- memory_point (its rank's memory_series.point_first + i; schema 114)
-- (src/memory/memory_series.c through src/core/db_batch.c, which repeats
-- the VALUES tuple to insert 64 rows a statement: its parameters are
-- unnumbered, in this order).
INSERT INTO memory_point(id, run_id, total_allocated, event_id)
VALUES(?, ?, ?, ?)
