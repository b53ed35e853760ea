-- merge-tables.sql — what `profan merge` copies (src/ingest/merge.c):
-- the tables holding a run's rows (a run_id column) whose role in
-- table_role says a shard brings them (run, raw, derived_rank), or with
-- ?1 = 1 (--summaries-only) those marked summary; run_file first (the
-- other tables' file ids are mapped through it), then by name.  One row
-- per column, in table order:
--   tbl, col, pk      the table, the column, its place in the primary key
--   is_string         1: the column holds a string.id (table_string_column)
--   keep_target       1: on a key conflict the target's row stays (a tag
--                     or baseline name the target has already)
--   per_rank          1: role derived_rank (computed again instead of
--                     copied when a shard adds another window of a rank)
-- run_rowid_range is not copied: its ids are the shard's, and merge
-- records the merged run's own (db_rowid_record).
SELECT r.name AS tbl, c.name AS col, c.pk,
  EXISTS (SELECT 1 FROM table_string_column s
          WHERE s.tbl = r.name AND s.col = c.name) AS is_string,
  r.role IN ('run', 'history') AND NOT EXISTS
    (SELECT 1 FROM pragma_table_info(r.name) k
     WHERE k.name = 'id' AND k.pk) AS keep_target,
  r.role = 'derived_rank' AS per_rank
FROM table_role r, pragma_table_info(r.name) c
WHERE EXISTS (SELECT 1 FROM pragma_table_info(r.name) WHERE name = 'run_id')
  AND CASE WHEN ?1 THEN r.summary = 1
           ELSE r.role IN ('run', 'raw', 'derived_rank') END
  AND r.name <> 'run_rowid_range'
ORDER BY r.name <> 'run_file', r.name, c.cid;
