-- 105-run-rowid-range.sql — a run's rows of each trace table as one rowid
-- range, stored when they are written (issue 35, the footprint): the
-- single-column run_id indexes cpu_op_run and runtime_call_run were there
-- for min(id)/max(id) of a run (db_run_rowids, src/core/db.c; schema
-- 064's operator range) and a few plans; they were 11 % of the
-- param-linear x10 database (6.4 of 56.2 MB).  Same for
-- python_function_run.  A run's rows are not
-- always (file id << 32) + n: a merge moves the ids of the tables the
-- linker does not number past the target's largest, below 2^32, so the
-- range is recorded by whoever writes the rows (the ingest's trace load,
-- merge's copy: db_rowid_mark/db_rowid_record) and read by db_run_rowids
-- and the SQL below.  Every row of run_id in tbl has lo <= id <= hi; rows
-- of other runs may lie in between (readers keep their run_id filter).

CREATE TABLE run_rowid_range(
  run_id INTEGER NOT NULL,
  tbl TEXT NOT NULL,               -- kernel, cpu_op, runtime_call, gpu_mem_op,
                                   -- annotation, python_function, gpu_sync
  lo INTEGER NOT NULL,             -- the run's smallest id in tbl
  hi INTEGER NOT NULL,             -- its largest
  PRIMARY KEY(run_id, tbl)
) WITHOUT ROWID;

INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('run_rowid_range', 'run', NULL, 0,
   'the rowid range of a run''s rows in each trace table');

-- the runs already stored, from the indexes before two of them go
INSERT INTO run_rowid_range
SELECT run_id, 'kernel', min(id), max(id) FROM kernel GROUP BY run_id;
INSERT INTO run_rowid_range
SELECT run_id, 'cpu_op', min(id), max(id) FROM cpu_op GROUP BY run_id;
INSERT INTO run_rowid_range
SELECT run_id, 'runtime_call', min(id), max(id) FROM runtime_call
GROUP BY run_id;
INSERT INTO run_rowid_range
SELECT run_id, 'gpu_mem_op', min(id), max(id) FROM gpu_mem_op
GROUP BY run_id;
INSERT INTO run_rowid_range
SELECT run_id, 'annotation', min(id), max(id) FROM annotation
GROUP BY run_id;
INSERT INTO run_rowid_range
SELECT run_id, 'python_function', min(id), max(id) FROM python_function
GROUP BY run_id;
INSERT INTO run_rowid_range
SELECT run_id, 'gpu_sync', min(id), max(id) FROM gpu_sync GROUP BY run_id;

-- python_function_run (1.4 of the 17.4 MB of tracelens-b200-vllm x10)
-- had no reader but db_run_rowids either
DROP INDEX IF EXISTS cpu_op_run;
DROP INDEX IF EXISTS runtime_call_run;
DROP INDEX IF EXISTS python_function_run;
DELETE FROM bulk_index
WHERE name IN ('cpu_op_run', 'runtime_call_run', 'python_function_run');

-- 064's definition with the operator range from run_rowid_range
DROP VIEW op_metric_roof_calc;
CREATE VIEW op_metric_roof_calc AS
WITH f AS MATERIALIZED (
  SELECT run_id, fam, sum(roof_ns) AS roof_ns,
    sum(max(0, gpu_ns - roof_ns)) AS over_ns, sum(gpu_ns) AS gpu_ns,
    sum(gpu_ns + slack_ns) AS time_ns
  FROM (
    SELECT run_id, CASE WHEN kind GLOB 'gemm*' THEN 'gemm'
                        ELSE 'attention' END AS fam, gpu_ns, slack_ns,
      roof_ns
    FROM op_roofline_core
    -- +run_id: the rowid range, not the op_gpu_time_run index (a lookup
    -- a call); coalesce: a filter SQLite reads as "not NULL" turns the
    -- LEFT JOIN of the device spec into a join it may run first
    WHERE +run_id IN (SELECT run_id FROM op_target)
      AND op_id BETWEEN
        (SELECT min(r.lo) FROM op_target o JOIN run_rowid_range r
         ON r.run_id = o.run_id AND r.tbl = 'cpu_op')
        AND
        (SELECT max(r.hi) FROM op_target o JOIN run_rowid_range r
         ON r.run_id = o.run_id AND r.tbl = 'cpu_op')
      AND peak_tflops > 0 AND coalesce(mem_tbps, 0) > 0
      AND matmul AND (kind GLOB 'gemm*' OR kind GLOB 'attention*'))
  GROUP BY +run_id, fam
)
SELECT run_id, fam || '_efficiency_pct' AS metric,
  100.0 * roof_ns / time_ns AS value FROM f
UNION ALL
SELECT run_id, fam || '_recoverable_ms', over_ns / 1e6 FROM f
UNION ALL
SELECT run_id, fam || '_time_ms', gpu_ns / 1e6 FROM f;

-- 091's definition; the host clock's operators of a run by their range
DROP VIEW rank_traced_span;
CREATE VIEW rank_traced_span AS
SELECT run_id, rank, span_ns, 'gpu' AS clock FROM rank_gpu_span
UNION ALL
SELECT o.run_id, o.rank, max(o.ts + o.dur) - min(o.ts), 'host'
FROM run_rowid_range r
JOIN cpu_op o ON o.id BETWEEN r.lo AND r.hi AND o.run_id = r.run_id
WHERE r.tbl = 'cpu_op'
  AND NOT EXISTS (SELECT 1 FROM gpu_busy b
                  WHERE b.run_id = o.run_id AND b.rank = o.rank)
GROUP BY o.run_id, o.rank;
