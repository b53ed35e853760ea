-- 014-interface.sql — what the raw columns mean, and views that rank
-- keep their order.
--
-- Raw tables keep Kineto's times converted to integer nanoseconds in
-- columns named ts (start) and dur (duration), not microseconds as in the
-- trace files.  column_unit states the unit of every time, size and share
-- column of every table and view, from one naming rule:
--   ts, dur, self_dur, first_ts, last_end, *_ts, *_dur, *_ns  ns
--   *_us                                                    us
--   *_ms                                                    ms
--   bytes, *_bytes                                          bytes
--   pct, *_pct                                              %
-- It reads the schema itself, so tables and views added later are listed
-- too:  sqlite3 profan.db "SELECT * FROM column_unit WHERE table_name='kernel'"
CREATE VIEW column_unit AS
SELECT m.name AS table_name, m.type AS type, p.name AS column_name,
  CASE
    WHEN p.name IN ('ts', 'dur', 'self_dur', 'first_ts', 'last_end')
      OR p.name LIKE '%\_ts' ESCAPE '\' OR p.name LIKE '%\_dur' ESCAPE '\'
      OR p.name LIKE '%\_ns' ESCAPE '\' THEN 'ns'
    WHEN p.name LIKE '%\_us' ESCAPE '\' THEN 'us'
    WHEN p.name LIKE '%\_ms' ESCAPE '\' THEN 'ms'
    WHEN p.name = 'bytes' OR p.name LIKE '%\_bytes' ESCAPE '\' THEN 'bytes'
    WHEN p.name = 'pct' OR p.name LIKE '%\_pct' ESCAPE '\' THEN '%'
  END AS unit
FROM sqlite_schema m JOIN pragma_table_info(m.name) p
WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite\_%' ESCAPE '\'
  AND unit IS NOT NULL;

-- A ranking view ranks: longest total time first within each run.
DROP VIEW IF EXISTS top_kernels;
CREATE VIEW top_kernels AS
SELECT g.run_id, g.kind, s.text AS name,
  sum(g.n) AS count,
  sum(g.total_ns) AS total_ns,
  sum(g.total_ns) / sum(g.n) AS avg_ns,
  min(g.min_ns) AS min_ns,
  max(g.max_ns) AS max_ns,
  round(100.0 * sum(g.total_ns) /
        (SELECT sum(t.total_ns) FROM gpu_op_summary t
         WHERE t.run_id = g.run_id), 2) AS pct
FROM gpu_op_summary g JOIN string s ON s.id = g.name_id
GROUP BY g.run_id, g.name_id, g.kind
ORDER BY g.run_id, sum(g.total_ns) DESC, s.text;

-- The same for the categories: largest first within run, rank, scheme.
DROP VIEW IF EXISTS category_breakdown;
CREATE VIEW category_breakdown AS
SELECT g.run_id, g.rank, c.scheme, c.category,
  sum(g.n) AS count,
  sum(g.total_ns) AS total_ns,
  round(sum(g.total_ns) / 1e6, 3) AS total_ms,
  round(100.0 * sum(g.total_ns) /
        (SELECT sum(t.total_ns) FROM gpu_op_summary t
         WHERE t.run_id = g.run_id AND t.rank = g.rank), 2) AS pct
FROM gpu_op_summary g
JOIN kernel_category c ON c.name_id = g.name_id
GROUP BY g.run_id, g.rank, c.scheme, c.category
ORDER BY g.run_id, g.rank, c.scheme, sum(g.total_ns) DESC, c.category;

-- Why a named query printed no rows: the inputs a table comes from, in
-- the order they are checked.  `profan query` looks up the tables the
-- query's SQL names; the first one the run has no rows in gives the line
-- on stderr: "run 3 has no memory snapshot".  Data: add your own rows.
CREATE TABLE input_source(
  priority INTEGER PRIMARY KEY,
  tbl TEXT NOT NULL,               -- a table with a run_id column
  what TEXT NOT NULL               -- "memory snapshot": what the run lacks
);
INSERT INTO input_source(priority, tbl, what) VALUES
  (10, 'kernel', 'trace with GPU kernels'),
  (11, 'gpu_op_summary', 'trace with GPU activity'),
  (12, 'gpu_busy', 'trace with GPU activity'),
  (13, 'cpu_op', 'trace with CPU operators'),
  (14, 'cpu_op_summary', 'trace with CPU operators'),
  (15, 'runtime_call', 'trace with CUDA runtime calls'),
  (16, 'runtime_summary', 'trace with CUDA runtime calls'),
  (17, 'gpu_mem_op', 'memcpy or memset in its trace'),
  (20, 'step', 'steps (no ProfilerStep annotations and no GPU activity)'),
  (21, 'step_time', 'steps (no ProfilerStep annotations and no GPU activity)'),
  (30, 'snapshot', 'memory snapshot'),
  (31, 'segment', 'memory snapshot'),
  (32, 'alloc_event', 'allocation trace in its memory snapshot'),
  (33, 'memory_event', 'profiler memory events'),
  (40, 'collective', 'communication kernels'),
  (41, 'comm_overlap', 'communication kernels'),
  (1, 'fr_entry', 'flight-recorder dump'),
  (2, 'nccl_comm', 'NCCL log'),
  (3, 'nccl_coll', 'NCCL log with collective calls'),
  (4, 'nccl_warning', 'NCCL warning');

-- Product wording: the detailed scheme's description is shown on the HTML
-- report's category chart.
UPDATE category_scheme
  SET description = 'fine-grained kernel families: communication, attention,'
    || ' GEMM, elementwise, memory and more'
  WHERE scheme = 'detailed'
    AND description = 'fine-grained kernel families (design brief)';
