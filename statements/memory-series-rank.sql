-- memory-series-rank.sql — where a rank's events of the memory series
-- are in memory_point: point_n rows from rowid point_first (schema 114;
-- src/memory/memory_series.c).
INSERT INTO memory_series(run_id, rank, point_first, point_n)
VALUES(?1, ?2, ?3, ?4)
