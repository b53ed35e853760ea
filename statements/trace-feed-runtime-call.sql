-- trace-feed-runtime-call.sql — Reads runtime_call. Used by
-- src/trace/trace_feed.c (its table of statements by name).
SELECT id, file_id, ts, dur, name_id, tid, op_id, top_op_id,
  in_recompute, step, driver FROM runtime_call
  WHERE id BETWEEN ?2 AND ?3 AND +run_id=?1
