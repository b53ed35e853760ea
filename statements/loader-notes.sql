-- loader-notes.sql — what the trace loader notes while it inserts the
-- cpu_op rows of a run (src/trace/load_trace.c, insert_op_index), found
-- again in the stored rows of run ?1 for the derive passes over them
-- (merge, rebuild; src/analysis/derive_run.c): the ids of the
-- record_param_comms ops (temp.rpc_op: the collectives' enclosing ops and
-- their arguments) and of the ProfilerStep#N ops (temp.step_op: the steps
-- of 2021 traces, which record them as ops).  Same names as the loader's
-- tests: exact, case-sensitive.  The run's operators by their rowid range
-- (run_rowid_range, schema 105).
CREATE TEMP TABLE IF NOT EXISTS rpc_op(id INTEGER PRIMARY KEY);
CREATE TEMP TABLE IF NOT EXISTS step_op(id INTEGER PRIMARY KEY);
INSERT OR IGNORE INTO temp.rpc_op
SELECT o.id FROM cpu_op o
WHERE o.id BETWEEN (SELECT lo FROM run_rowid_range
                    WHERE run_id = ?1 AND tbl = 'cpu_op')
             AND (SELECT hi FROM run_rowid_range
                  WHERE run_id = ?1 AND tbl = 'cpu_op')
  AND o.run_id = ?1
  AND o.name_id IN (SELECT id FROM string WHERE text = 'record_param_comms');
INSERT OR IGNORE INTO temp.step_op
SELECT o.id FROM cpu_op o
WHERE o.id BETWEEN (SELECT lo FROM run_rowid_range
                    WHERE run_id = ?1 AND tbl = 'cpu_op')
             AND (SELECT hi FROM run_rowid_range
                  WHERE run_id = ?1 AND tbl = 'cpu_op')
  AND o.run_id = ?1
  AND o.name_id IN (SELECT id FROM string WHERE text GLOB 'ProfilerStep?*');
