-- load-trace-insert-memory-events.sql — memory_event rows, 64 a statement
-- (src/trace/load_trace.c through src/core/db_batch.c, which repeats the
-- VALUES tuple: its parameters are unnumbered, in this order; the name
-- as 0 '[memory]' or 1 '[OutOfMemory]', the only two).  Rows take
-- SQLite's next rowid, counted and checked by load_trace.c.
INSERT INTO memory_event(run_id, rank, file_id, ts, name, device_type,
  device, addr, bytes, total_allocated, total_reserved)
VALUES(?, ?, ?, ?, CASE ? WHEN 1 THEN '[OutOfMemory]' ELSE '[memory]' END,
  ?, ?, ?, ?, ?, ?)
