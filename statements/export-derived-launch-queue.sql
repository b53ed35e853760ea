-- export-derived-launch-queue.sql — Reads hta_queue_length. Used by
-- src/report/export_derived.c (its table of statements by name).
SELECT printf('GPU %d stream %d queue length', coalesce(device, 0),
  coalesce(stream, 0)), max(ts, ?3), 'queue length', queue_length
  FROM hta_queue_length WHERE run_id = ?1 AND rank = ?2 AND ts < ?4
  AND coalesce(next_ts, ?4) > ?3 AND coalesce(next_ts, ts + 1) > ts
  ORDER BY device, stream, ts
