-- trace-feed-cpu-op.sql — Reads cpu_op. Used by src/trace/trace_feed.c (its
-- table of statements by name).
SELECT id, file_id, ts, dur, name_id, tid, parent_id, depth, self_dur,
  step, input_dims_id, input_types_id, concrete_inputs_id, flops,
  flops_source FROM cpu_op WHERE id BETWEEN ?2 AND ?3 AND +run_id=?1
