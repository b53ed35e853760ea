-- merge-update-run.sql — The run's content hash as ingest computes it (XXH64
-- over the files' (hash, size) pairs sorted by hash), so that an ingest of
-- all the files finds the merged run.  0 or -1 (pErr). Used by
-- src/ingest/merge.c, run_hash_update().
UPDATE run SET content_hash=?1, source_path=trim(source_path || ' ' || ?2) WHERE id=?3
