-- 030-annotation-sweep.sql — the nesting of CPU user annotations
-- (record_function) decided once per run at ingest by a sweep
-- (derive_hta_annot.c, hta_annot.c) and stored; 013's
-- hta_annotation_tree and hta_annotation_kernel read it, same columns.
--
-- 013 found, for every GPU op with a launch call, the innermost
-- annotation around the call with a correlated subquery that read every
-- earlier annotation of the rank (ORDER BY ts DESC, dur LIMIT 1), and
-- each annotation's parent the same way: on the 10x A100 bench trace
-- (94,500 launched ops, 2,880 annotations) annotation-kernels took 40 s.
-- The definitions are unchanged:
--   parent     the innermost other annotation of the same (rank, tid)
--              containing it: q.ts <= c.ts AND q.ts + q.dur >= c.ts +
--              c.dur, ORDER BY q.ts DESC, q.dur, q.id DESC, an equal
--              range with a lower id counting as the outer one (013);
--   innermost  of a launched op: the annotation of the launch call's
--              (rank, tid) with a.ts <= call.ts AND a.ts + a.dur >=
--              call.ts, ORDER BY a.ts DESC, a.dur, then a.id DESC (013
--              left ties on (ts, dur) to SQLite's scan, which gave the
--              highest id: the same rule, now stated).
-- ProfilerStep#N ranges are steps, not annotations: left out of both.
-- Ingests fill these in the derive phase (derive_hta_run: ingest and
-- profan merge, replacing a run's rows); runs ingested before this file
-- are backfilled at the end with 013's definitions.

-- Every user annotation of the run (not ProfilerStep#N) and its parent.
CREATE TABLE hta_annotation_parent(
  annotation_id INTEGER PRIMARY KEY,   -- annotation.id
  run_id INTEGER NOT NULL,
  parent_id INTEGER                    -- annotation.id; NULL: outermost
);
CREATE INDEX hta_annotation_parent_run ON hta_annotation_parent(run_id);

-- The innermost annotation of launched GPU ops, as ranges of row ids:
-- the launched ops of table tab with first_id <= id <= last_id have
-- annotation annotation_id (ops without a launch call in the range are
-- not launched ops: no annotation).  Launched ops in no range have
-- none.  One row per op was 94,500 rows at 10x, longer to write than
-- the sweep; consecutive ops launched under one annotation share a row.
CREATE TABLE hta_launch_annotation(
  run_id INTEGER NOT NULL,
  tab TEXT NOT NULL,                   -- 'kernel' or 'gpu_mem_op'
  first_id INTEGER NOT NULL,           -- row ids of tab
  last_id INTEGER NOT NULL,
  annotation_id INTEGER NOT NULL,      -- annotation.id
  PRIMARY KEY(run_id, tab, first_id)
) WITHOUT ROWID;

DROP VIEW hta_annotation_tree;
DROP VIEW hta_annotation_kernel;

-- 013's columns; parents from hta_annotation_parent.
CREATE VIEW hta_annotation_tree AS
WITH RECURSIVE
a AS MATERIALIZED (
  SELECT a.id, a.run_id, a.rank, a.tid, a.ts, a.dur, s.text AS name
  FROM annotation a JOIN string s ON s.id = a.name_id
  WHERE a.kind = 'user' AND s.text NOT LIKE 'ProfilerStep#%'
),
p AS MATERIALIZED (
  SELECT annotation_id AS id, parent_id FROM hta_annotation_parent
),
t(id, parent_id, depth, path) AS (
  SELECT a.id, NULL, 0, a.name FROM a JOIN p ON p.id = a.id
  WHERE p.parent_id IS NULL
  UNION ALL
  SELECT a.id, t.id, t.depth + 1, t.path || ' / ' || a.name
  FROM t JOIN p ON p.parent_id = t.id JOIN a ON a.id = p.id
)
SELECT a.run_id, a.rank, a.tid, a.id, t.parent_id, t.depth, a.name, t.path,
  a.ts, a.dur
FROM t JOIN a ON a.id = t.id;

-- 013's columns and rows (GPU ops whose launch call is recorded);
-- annotation_id from the range holding the op, NULL when none.
CREATE VIEW hta_annotation_kernel AS
SELECT g.run_id, g.rank, g.device, g.stream, g.kind, g.row_id, g.name_id,
  g.ts, g.dur, g.step, g.class,
  (SELECT CASE WHEN x.last_id >= g.row_id THEN x.annotation_id END
   FROM hta_launch_annotation x
   WHERE x.run_id = g.run_id
     AND x.tab = CASE g.kind WHEN 'kernel' THEN 'kernel'
                 ELSE 'gpu_mem_op' END
     AND x.first_id <= g.row_id
   ORDER BY x.first_id DESC LIMIT 1) AS annotation_id
FROM hta_gpu_op g JOIN runtime_call r ON r.id = g.runtime_id;

-- Backfill: the runs ingested before this file, by 013's definitions.
INSERT INTO hta_annotation_parent(annotation_id, run_id, parent_id)
WITH a AS MATERIALIZED (
  SELECT a.id, a.run_id, a.rank, a.tid, a.ts, a.dur
  FROM annotation a JOIN string s ON s.id = a.name_id
  WHERE a.kind = 'user' AND s.text NOT LIKE 'ProfilerStep#%'
)
SELECT c.id, c.run_id, (SELECT q.id FROM a q
   WHERE q.run_id = c.run_id AND q.rank = c.rank AND q.tid = c.tid
     AND q.id <> c.id AND q.ts <= c.ts AND q.ts + q.dur >= c.ts + c.dur
     AND (q.ts < c.ts OR q.dur > c.dur OR q.id < c.id)
   ORDER BY q.ts DESC, q.dur, q.id DESC LIMIT 1)
FROM a c;

INSERT INTO hta_launch_annotation(run_id, tab, first_id, last_id,
                                  annotation_id)
WITH k AS MATERIALIZED (
  SELECT g.run_id, CASE g.kind WHEN 'kernel' THEN 'kernel'
                   ELSE 'gpu_mem_op' END AS tab, g.row_id,
    (SELECT a.id FROM annotation a JOIN string s ON s.id = a.name_id
     WHERE a.run_id = r.run_id AND a.rank = r.rank AND a.kind = 'user'
       AND a.tid = r.tid AND a.ts <= r.ts AND a.ts + a.dur >= r.ts
       AND s.text NOT LIKE 'ProfilerStep#%'
     ORDER BY a.ts DESC, a.dur, a.id DESC LIMIT 1) AS annotation_id
  FROM hta_gpu_op g JOIN runtime_call r ON r.id = g.runtime_id
),
i AS (                  -- runs of one annotation: gaps and islands
  SELECT run_id, tab, row_id, annotation_id,
    row_number() OVER (PARTITION BY run_id, tab ORDER BY row_id)
    - row_number() OVER (PARTITION BY run_id, tab, annotation_id
                         ORDER BY row_id) AS island
  FROM k
)
SELECT run_id, tab, min(row_id), max(row_id), annotation_id
FROM i WHERE annotation_id IS NOT NULL
GROUP BY run_id, tab, annotation_id, island;
