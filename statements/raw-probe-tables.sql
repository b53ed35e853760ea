-- raw-probe-tables.sql — the raw tables that `merge --summaries-only`
-- does not keep and that have an index on run_id: `profan rebuild` looks
-- for one row of the run in them (src/core/table_role.c) to tell a run
-- with its raw rows from one of a summaries-only history.  Also
-- run_rowid_range (schema 105, keyed by run_id, not kept by
-- --summaries-only): the trace tables whose run_id index it replaced
-- (cpu_op, runtime_call) are no longer probed, and a run with trace rows
-- has a range row.
SELECT name FROM (
  SELECT r.name FROM table_role r
  WHERE r.role = 'raw' AND r.summary = 0
    AND EXISTS (SELECT 1 FROM pragma_index_list(r.name) i,
                  pragma_index_info(i.name) c
                WHERE c.seqno = 0 AND c.name = 'run_id')
  UNION ALL
  SELECT 'run_rowid_range')
ORDER BY name;
