-- 005-views.sql — views over the raw and derived tables.  They use only
-- built-in SQL functions, so they work the same in the stock sqlite3 shell:
--   sqlite3 profan.db 'SELECT * FROM category_breakdown WHERE run_id = 1'

-- Category of every GPU activity name, in every scheme.  Follows
-- category_rule: the lowest-priority matching pattern wins.
CREATE VIEW kernel_category AS
SELECT n.name_id, s.text AS name, cs.scheme,
  coalesce((SELECT r.category FROM category_rule r
            WHERE r.scheme = cs.scheme
              AND instr(lower(s.text), lower(r.pattern)) > 0
            ORDER BY r.priority LIMIT 1), cs.default_category) AS category
FROM (SELECT DISTINCT name_id FROM gpu_op_summary) n
JOIN string s ON s.id = n.name_id
CROSS JOIN category_scheme cs;

-- GPU time per run, rank, scheme and category (kernels, memcpy, memset).
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
GROUP BY g.run_id, g.rank, c.scheme, c.category;

-- Kernels (and memcpy/memset) ranked by total time, all ranks together.
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
GROUP BY g.run_id, g.name_id, g.kind;

-- Step durations per rank.
CREATE VIEW step_times AS
SELECT run_id, rank, step, ts, dur AS dur_ns,
  round(dur / 1e6, 3) AS dur_ms, source
FROM step;

-- GPU utilization per device: busy union over the active window.
CREATE VIEW gpu_utilization AS
SELECT run_id, rank, device,
  last_end - first_ts AS wall_ns, busy_ns, idle_ns, n_gaps, largest_gap_ns,
  round(100.0 * busy_ns / max(last_end - first_ts, 1), 2) AS busy_pct
FROM gpu_busy;

-- Kernels with their names and launch linkage resolved.
CREATE VIEW kernel_named AS
SELECT k.*, s.text AS name, os.text AS op_name
FROM kernel k
JOIN string s ON s.id = k.name_id
LEFT JOIN cpu_op o ON o.id = k.op_id
LEFT JOIN string os ON os.id = o.name_id;

-- CPU ops with their name and input shapes/types as text.
CREATE VIEW cpu_op_named AS
SELECT o.*, s.text AS name, d.text AS input_dims, t.text AS input_types,
  c.text AS concrete_inputs
FROM cpu_op o JOIN string s ON s.id = o.name_id
LEFT JOIN string d ON d.id = o.input_dims_id
LEFT JOIN string t ON t.id = o.input_types_id
LEFT JOIN string c ON c.id = o.concrete_inputs_id;
