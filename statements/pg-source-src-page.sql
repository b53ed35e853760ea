-- pg-source-src-page.sql — history_source: the rows of the nWant newest runs
-- with id <= idMax (their identity rows are here from the start), in one
-- round trip. Used by src/server/pg_source.c, src_page().
SELECT id FROM run WHERE id<=?1 ORDER BY id DESC
  LIMIT ?2
