-- memory-series-step-end.sql — a step's last [memory] event of the
-- memory series (src/memory/memory_series.c).
INSERT INTO memory_step_end(run_id, rank, step, event_id)
VALUES(?1, ?2, ?3, ?4)
