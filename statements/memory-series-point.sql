-- memory-series-point.sql — one event of the memory series, at the end of
-- memory_point: its rowid is SQLite's next (max + 1), its rank's
-- memory_series.point_first + i (schema 114; src/memory/memory_series.c
-- counts and checks them) (written through src/core/db_batch.c, which
-- repeats the VALUES tuple to insert 64 rows a statement: its parameters
-- are unnumbered, in this order).
INSERT INTO memory_point(run_id, total_allocated, event_id)
VALUES(?, ?, ?)
