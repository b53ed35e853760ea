-- derive-memory-update-frame.sql — Marks run ?1's new frames: user code (a
-- .py file no memory_frame_skip pattern matches) and the priority of the
-- first memory_source_rule they match. Used by src/memory/derive_memory.c,
-- derive_memory_run().
UPDATE frame SET is_user = (filename LIKE '%.py' AND NOT EXISTS
  (SELECT 1 FROM memory_frame_skip k
   WHERE instr(frame.filename, k.pattern) > 0)),
  rule_priority = (SELECT min(r.priority) FROM memory_source_rule r
   WHERE instr(lower(frame.filename), lower(r.pattern)) > 0
    OR instr(lower(frame.name), lower(r.pattern)) > 0)
  WHERE run_id = ?1 AND is_user IS NULL
