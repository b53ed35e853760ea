-- memory-series-steps.sql — a run's steps per rank in the order of their
-- ends, for the last [memory] event at or before each end
-- (src/memory/memory_series.c).
SELECT rank, step, ts + dur AS te
FROM step
WHERE run_id=?1
ORDER BY rank, te, step
