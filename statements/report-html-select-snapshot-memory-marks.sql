-- report-html-select-snapshot-memory-marks.sql — The exact peak and the OOMs
-- of device zDev's snapshots into aM (room for 9 markers, label texts in
-- azLabel); returns the number added. *pPeakX and *pPeakY are replaced by
-- the snapshot's own peak. Used by src/report/report_html.c, memory_marks().
SELECT (peak_time_us - first_time_us)
  / 1000.0, peak_allocated_bytes FROM snapshot WHERE run_id = ?1
  AND device = ?2 AND peak_time_us IS NOT NULL
  ORDER BY peak_allocated_bytes DESC LIMIT 1
