-- 060-hta-queue.sql — the launch queue counts launch calls, not GPU ops
-- (issue 32): one cudaGraphLaunch of 1,100 kernels (or any call whose
-- correlation id several GPU ops share) is one entry of its stream's
-- queue, +1 when the call starts and -1 when its first op on that stream
-- starts; a call whose ops run on several streams is one entry on each.
-- For single-op launches (every launch HTA knows) nothing changes.
-- The length at which a launch blocks depends on the runtime: table
-- hta_queue_limit, by launch call name, replaces hta_setting 'queue_full'
-- for the views, the queries, the metric and the critical path
-- (derive_hta.c reads it too).

-- Launch queue limit per runtime, matched on the launch call's name with
-- GLOB (lowest priority first).  queue_full NULL: no limit known, so no
-- time counts as blocked.  CUDA blocks a stream's launches at 1024
-- pending; ROCm does not at that length: on the MI300X fixture
-- (tracelens-mi300-resnet-ckpt) launches with 1,024 to 1,840 queued take
-- 3.2 us (median), as with 0 to 255 queued (3.5 us).
CREATE TABLE hta_queue_limit(
  pattern TEXT PRIMARY KEY,
  priority INTEGER NOT NULL,
  queue_full INTEGER,
  note TEXT NOT NULL
);
INSERT INTO hta_queue_limit VALUES
  ('hip*', 10, NULL, 'ROCm: no blocking seen at 1,840 queued (MI300X)'),
  ('*', 20, 1024, 'CUDA: launches block at 1024 pending per stream');
DELETE FROM hta_setting WHERE name = 'queue_full';
INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('hta_queue_limit', 'parameter', NULL, 0,
   'launch queue limit per runtime call name');

-- One row per change of a stream's queue; queue_full is the limit of
-- the launch call that made the change.  Ties: launches first.
DROP VIEW hta_queue_length;
CREATE VIEW hta_queue_length AS
WITH e AS (                 -- one entry per (launch call, stream)
  SELECT run_id, rank, device, stream, runtime_id, min(ts) AS ts,
    min(row_id) AS row_id, count(*) AS ops
  FROM hta_gpu_op WHERE runtime_id IS NOT NULL
  GROUP BY run_id, rank, device, stream, runtime_id
),
l AS (
  SELECT e.*, r.ts AS lts,
    (SELECT q.queue_full FROM hta_queue_limit q
     WHERE s.text GLOB q.pattern ORDER BY q.priority LIMIT 1) AS queue_full
  FROM e JOIN runtime_call r ON r.id = e.runtime_id
  JOIN string s ON s.id = r.name_id
),
ev AS (
  SELECT run_id, rank, device, stream, lts AS ts, 1 AS d, row_id, ops,
    queue_full FROM l
  UNION ALL
  SELECT run_id, rank, device, stream, ts, -1, row_id, ops, queue_full
  FROM l
)
SELECT run_id, rank, device, stream, ts,
  sum(d) OVER w AS queue_length,
  lead(ts) OVER w AS next_ts,
  queue_full, ops
FROM ev
WINDOW w AS (PARTITION BY run_id, rank, device, stream
             ORDER BY ts, d DESC, row_id ROWS UNBOUNDED PRECEDING);
