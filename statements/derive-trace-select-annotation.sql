-- derive-trace-select-annotation.sql — Steps from ProfilerStep#N, in every
-- trace generation (first occurrence per rank and number wins): 1. the CPU
-- side: user_annotation ranges (2022+) and ops of category Operator / cpu_op
-- (2021: the trace loader notes their ids in temp.step_op, so cpu_op is not
-- scanned): source 'ProfilerStep'; 2. Used by src/trace/derive_trace.c,
-- derive_steps().
SELECT 0, a.rank, s.text, a.ts, a.dur FROM annotation a
  JOIN string s ON s.id=a.name_id
  WHERE a.run_id=?1 AND a.kind='user' AND s.text LIKE 'ProfilerStep%'
  UNION ALL
  SELECT 0, o.rank, s.text, o.ts, o.dur FROM temp.step_op x
  CROSS JOIN cpu_op o ON o.id=x.id JOIN string s ON s.id=o.name_id
  WHERE o.run_id=?1
  UNION ALL
  SELECT 1, a.rank, s.text, a.ts, a.dur FROM annotation a
  JOIN string s ON s.id=a.name_id
  WHERE a.run_id=?1 AND a.kind='gpu_user'
  AND s.text LIKE 'ProfilerStep%'
  ORDER BY 1, 2, 4
