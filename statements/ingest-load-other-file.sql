-- ingest-load-other-file.sql — Load one file of a kind with a loader
-- (snapshot, flight recorder, NCCL; see input_kinds.c) in the writer thread
-- and record its run_file row. Returns 0, or -1 with the message in pMsg.
-- Used by src/ingest/ingest.c, load_other_file().
UPDATE run_file SET kind=coalesce(?1, kind), rank=?2, rank_source=?3,
  n_records=?4, parse_ms=?5, warnings=?6 WHERE id=?7
