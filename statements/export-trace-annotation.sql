-- export-trace-annotation.sql — the annotation rows of the exported ranks
-- and window, for the Chrome trace, in the order of the columns its row_*()
-- reads. Used by src/report/export_trace.c (aSource, by name).
SELECT x.kind, x.pid, x.tid, x.ts, x.dur, n.text, x.external_id
  FROM annotation x
  JOIN string n ON n.id = x.name_id
  WHERE x.run_id = ?1 AND x.rank = ?2 AND x.ts < ?4 AND x.ts + max(x.dur, 1)
    > ?3
