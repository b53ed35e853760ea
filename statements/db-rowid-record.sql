-- db-rowid-record.sql — insert. Used by src/core/db.c, db_rowid_record():
-- the range of the ids written to a trace table since db_rowid_mark (?2:
-- its largest id below 2^32 then, ?3: its largest id then) as run ?1's,
-- merged with the range the run has already.  Each bound is one B-tree
-- descent on the rowid.
-- A template: the caller fills its format directives with sqlite3_mprintf()
-- (none may stand in these comments).
-- template arguments (for tests/check_db.c): kernel | kernel | kernel | kernel | kernel
INSERT INTO run_rowid_range(run_id, tbl, lo, hi)
SELECT ?1, '%q', lo, hi FROM (SELECT
  coalesce((SELECT min(id) FROM "%w" WHERE id > ?2 AND id < 4294967296),
           (SELECT min(id) FROM "%w" WHERE id > ?3)) AS lo,
  coalesce((SELECT max(id) FROM "%w" WHERE id > ?3),
           (SELECT max(id) FROM "%w" WHERE id > ?2 AND id < 4294967296)) AS hi)
WHERE lo IS NOT NULL
ON CONFLICT(run_id, tbl) DO UPDATE SET lo = min(lo, excluded.lo),
  hi = max(hi, excluded.hi)
