-- report-html-select-alloc-event.sql — The exact peak and the OOMs of device
-- zDev's snapshots into aM (room for 9 markers, label texts in azLabel);
-- returns the number added. *pPeakX and *pPeakY are replaced by the
-- snapshot's own peak. Used by src/report/report_html.c, memory_marks().
SELECT (e.time_us - s.first_time_us) / 1000.0,
  e.allocated_after, e.size FROM alloc_event e JOIN snapshot s
  ON s.id = e.snapshot_id WHERE s.run_id = ?1 AND s.device = ?2
  AND e.action = 'oom' AND e.time_us IS NOT NULL ORDER BY e.idx
  LIMIT 8
