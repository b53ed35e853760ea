-- summaries.sql — the specification of the per-run summary tables of
-- schema/009-query-summaries.sql, as GROUP BYs over the raw rows and their
-- link columns.  profan computes these numbers one way only, in C, as the
-- rows come (src/trace/trace_totals.c, fed by the trace writer or by the
-- stored-rows feeder src/trace/trace_feed.c); tests/e2e/test_oracle.py
-- runs each query below against every ingested fixture and every
-- adversarial ordering of real traces and compares its rows with the
-- table's (a REAL column to 1e-9 relative).
--
-- Format (read by test_oracle.py): "-- spec: NAME" starts a section, the
-- "-- stored:" line under it is the query of profan's rows, the rest of
-- the section the specification; both return the same columns.

-- spec: cpu_op_summary
-- stored: SELECT * FROM cpu_op_summary
WITH op AS (
  SELECT o.id, o.run_id, o.rank, o.name_id,
    coalesce(p.name_id, 0) AS parent, o.dur,
    coalesce(o.self_dur, o.dur) AS self
  FROM cpu_op o LEFT JOIN cpu_op p ON p.id = o.parent_id),
launch AS (SELECT op_id, dur FROM kernel
           UNION ALL SELECT op_id, dur FROM gpu_mem_op),
a AS (SELECT run_id, rank, name_id, parent, count(*) AS n,
        sum(dur) AS d, sum(self) AS s FROM op GROUP BY 1, 2, 3, 4),
b AS (SELECT op.run_id, op.rank, op.name_id, op.parent, count(*) AS n,
        sum(l.dur) AS d
      FROM launch l JOIN op ON op.id = l.op_id GROUP BY 1, 2, 3, 4)
SELECT a.run_id, a.rank, a.name_id, a.parent, a.n, a.d, a.s,
  coalesce(b.n, 0), coalesce(b.d, 0)
FROM a LEFT JOIN b ON b.run_id = a.run_id AND b.rank = a.rank
  AND b.name_id = a.name_id AND b.parent = a.parent;

-- spec: cpu_op_shape_summary
-- stored: SELECT * FROM cpu_op_shape_summary
SELECT run_id, rank, name_id, input_dims_id, count(*) FROM cpu_op
WHERE input_dims_id IS NOT NULL GROUP BY 1, 2, 3, 4;

-- spec: cpu_op_flops_summary
-- stored: SELECT * FROM cpu_op_flops_summary
WITH k AS (SELECT op_id, sum(dur) AS ns FROM kernel
           WHERE op_id IS NOT NULL GROUP BY op_id)
SELECT o.run_id, o.rank, o.name_id, o.flops_source, count(*),
  sum(o.flops), count(k.op_id),
  coalesce(sum(CASE WHEN k.op_id IS NOT NULL THEN o.flops END), 0),
  coalesce(sum(k.ns), 0)
FROM cpu_op o LEFT JOIN k ON k.op_id = o.id
WHERE o.flops IS NOT NULL GROUP BY 1, 2, 3, 4;

-- spec: runtime_summary
-- stored: SELECT * FROM runtime_summary
WITH g AS (SELECT runtime_id, ts, dur, 1 AS is_k FROM kernel
           UNION ALL SELECT runtime_id, ts, dur, 0 FROM gpu_mem_op),
l AS (SELECT c.run_id, c.rank, c.name_id,
        CASE c.driver WHEN 1 THEN 'driver' ELSE 'runtime' END AS kind,
        count(*) AS n,
        sum(g.ts - c.ts) AS delay, max(g.ts - c.ts) AS mx,
        sum(g.dur < 10000) AS short,
        sum(g.is_k AND c.in_recompute = 1) AS rk,
        sum(CASE WHEN g.is_k AND c.in_recompute = 1 THEN g.dur
                 ELSE 0 END) AS rk_ns
      FROM g JOIN runtime_call c ON c.id = g.runtime_id
      GROUP BY 1, 2, 3, 4),
a AS (SELECT run_id, rank, name_id,
        CASE driver WHEN 1 THEN 'driver' ELSE 'runtime' END AS kind,
        count(*) AS n,
        sum(dur) AS d, max(dur) AS m FROM runtime_call
      GROUP BY 1, 2, 3, 4)
SELECT a.run_id, a.rank, a.name_id, a.kind, a.n, a.d, a.m,
  coalesce(l.n, 0), coalesce(l.delay, 0), l.mx, coalesce(l.short, 0),
  coalesce(l.rk, 0), coalesce(l.rk_ns, 0)
FROM a LEFT JOIN l ON l.run_id = a.run_id AND l.rank = a.rank
  AND l.name_id = a.name_id AND l.kind = a.kind;

-- spec: step_kernel_summary
-- stored: SELECT * FROM step_kernel_summary
SELECT run_id, rank, step, count(*), sum(dur) FROM kernel
WHERE step IS NOT NULL GROUP BY 1, 2, 3;
