-- derive-memory-update-stack.sql — Each new stack of run ?1: its first user
-- frame and its category (the rule of its highest-priority frame, else
-- 'other'). Used by src/memory/derive_memory.c, derive_memory_run().
UPDATE stack SET user_frame_id =
  (SELECT sf.frame_id FROM stack_frame sf JOIN frame f
   ON f.id = sf.frame_id
   WHERE sf.stack_id = stack.id AND f.is_user ORDER BY sf.pos LIMIT 1),
  category = coalesce((SELECT r.category FROM memory_source_rule r
   WHERE r.priority = (SELECT min(f.rule_priority) FROM stack_frame sf
    JOIN frame f ON f.id = sf.frame_id WHERE sf.stack_id = stack.id)
   ORDER BY r.pattern LIMIT 1), 'other')
  WHERE run_id = ?1 AND category IS NULL
