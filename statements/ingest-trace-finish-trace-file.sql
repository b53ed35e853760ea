-- ingest-trace-finish-trace-file.sql — After a trace file is parsed: its
-- run_file columns and fix-ups. Used by src/ingest/ingest_trace.c,
-- finish_trace_file().
UPDATE run_file SET rank=?1, rank_source=?2, n_records=?3, parse_ms=?4,
  warnings=?5, time_regime=?6, base_time_ns=?7, schema_version=?8,
  host_name=?9, world_size=?10, hash=coalesce(?12, hash) WHERE id=?11
