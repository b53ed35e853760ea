-- trace-relink-feed-steps.sql — Every ProfilerStep#N of the file (CPU
-- annotations, 2021 step ops) to the linker first.  Returns 0 or -1 (pErr).
-- Used by src/trace/trace_relink.c, feed_steps().
SELECT s.text, a.ts, a.dur FROM annotation a
  JOIN string s ON s.id=a.name_id WHERE a.run_id=?1 AND a.file_id=?2
  AND a.kind='user' AND s.text LIKE 'ProfilerStep%'
  UNION ALL
  SELECT s.text, o.ts, o.dur FROM cpu_op o JOIN string s
  ON s.id=o.name_id WHERE o.id BETWEEN ?3 AND ?4 AND o.file_id=?2
  AND s.text LIKE 'ProfilerStep%'
