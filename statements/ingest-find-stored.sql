-- ingest-find-stored.sql — Phase 5: identical content already stored?  Then
-- that run is the result (1), unless --replace, which deletes it and a run
-- of the same name.  Returns 0 to go on, 1 for a stored copy, -1 on error.
-- Used by src/ingest/ingest.c, ingest_find_stored().
SELECT id FROM run WHERE content_hash=?1
  UNION SELECT id FROM run WHERE name=?2 AND ?3
