-- table-columns.sql — the columns of table ?1 in their order, as the
-- lists a statement template takes: the quoted names ("a", "b", ...),
-- as many parameters (?, ?, ...), and their number.  The column lists of
-- the statements that copy whole rows come from the schema through this,
-- never from a list in C.  Used by src/ingest/merge.c, plan_build(), and
-- src/server/pg_rows.c, pg_plan_build().
SELECT group_concat(printf('"%w"', name), ', '), group_concat('?', ', '),
  count(*)
FROM (SELECT name FROM pragma_table_info(?1) ORDER BY cid)
