-- export-trace-write-devices.sql — deviceProperties of the exported ranks
-- (ids remapped like the pids). Used by src/report/export_trace.c,
-- write_devices().
SELECT DISTINCT device, name, total_mem_bytes, compute_major,
  compute_minor, num_sms FROM device WHERE run_id=?1 AND rank=?2
  ORDER BY device
