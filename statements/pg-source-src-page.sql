-- pg-source-src-page.sql — history_source over a server, every run already
-- pulled: the ids of the nWant (?2) newest runs with id <= ?1 in the local
-- copy. Used by src/server/pg_source.c, page_ids().
SELECT id FROM run WHERE id<=?1 ORDER BY id DESC
  LIMIT ?2
