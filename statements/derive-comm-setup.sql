-- derive-comm-setup.sql — The temp tables the collective pass works on. Used
-- by src/comm/derive_comm.c.
DROP TABLE IF EXISTS temp.cm_name;
DROP TABLE IF EXISTS temp.cm_parent;
DROP TABLE IF EXISTS temp.cm_kernel;
CREATE TEMP TABLE cm_kernel(id INTEGER PRIMARY KEY);
CREATE TEMP TABLE cm_name(id INTEGER PRIMARY KEY, op TEXT);
-- ids of the record_param_comms ops, noted by the trace loader
CREATE TEMP TABLE IF NOT EXISTS rpc_op(id INTEGER PRIMARY KEY);
-- the communication kernels: comm_pattern (schema/001-baseline.sql),
-- the definition the categories and the overlap sweep use too
INSERT INTO cm_name SELECT name_id, max(op) FROM comm_kernel
  WHERE run_id=?1 GROUP BY name_id;
-- candidate parents: record_param_comms / ops with collective args
-- (kind 0) and nccl:* annotations (kind 1)
CREATE TEMP TABLE cm_parent(rank INTEGER, tid INTEGER, ts INTEGER,
  end_ts INTEGER, kind INTEGER, row_id INTEGER, ext INTEGER,
  name TEXT);
-- two narrow lookups instead of joining every op to its name
INSERT INTO cm_parent SELECT o.rank, o.tid, o.ts, o.ts+o.dur, 0, o.id,
  o.external_id, 'record_param_comms' FROM temp.rpc_op x
  CROSS JOIN cpu_op o ON o.id=x.id WHERE o.run_id=?1;
INSERT INTO cm_parent SELECT o.rank, o.tid, o.ts, o.ts+o.dur, 0, o.id,
  o.external_id, s.text FROM coll_args c CROSS JOIN cpu_op o
  ON o.id=c.row_id
  JOIN string s ON s.id=o.name_id
  WHERE c.run_id=?1 AND c.src='cpu_op' AND s.text<>'record_param_comms';
INSERT INTO cm_parent SELECT a.rank, a.tid, a.ts, a.ts+a.dur, 1, a.id,
  a.external_id, s.text FROM annotation a JOIN string s ON s.id=a.name_id
  WHERE a.run_id=?1 AND a.kind='user' AND s.text LIKE 'nccl:%';
CREATE INDEX temp.cm_parent_ts ON cm_parent(kind, rank, tid, ts);
CREATE INDEX temp.cm_parent_ext ON cm_parent(kind, rank, ext);
