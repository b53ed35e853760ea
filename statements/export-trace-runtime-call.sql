-- export-trace-runtime-call.sql — the runtime_call rows of the exported
-- ranks and window, for the Chrome trace, in the order of the columns its
-- row_*() reads. Used by src/report/export_trace.c (aSource, by name).
SELECT x.pid, x.tid, x.ts, x.dur, n.text, x.driver, x.correlation,
  x.external_id, x.cbid, x.rank
  FROM runtime_call x
  JOIN string n ON n.id = x.name_id
  JOIN temp.export_win w ON w.rank = x.rank
  WHERE x.id BETWEEN ?5 AND ?6 AND +x.run_id = ?1 AND x.ts < w.hi AND x.ts +
    max(x.dur, 1) > w.lo
