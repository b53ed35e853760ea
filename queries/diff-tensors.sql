-- name: diff-tensors
-- description: Tensor-size scaling between a baseline run (:baseline) and
-- description: this run (:run), from their memory snapshots: per source
-- description: category (stack.category, memory_source_rule; 'unknown'
-- description: without a stack) the largest allocation in each run (trace
-- description: allocations and blocks allocated before the trace and still
-- description: live at the snapshot, requested bytes), their ratio, and
-- description: scales = 1 when the ratio exceeds the ratio parameter.
-- description: `profan diff A B --by tensors`.
-- param: baseline:run! =      the baseline run id (profan diff binds it)
-- param: ratio:number>=0 = 1.05    b_bytes / a_bytes above this: the tensors scale
-- column: category       source category of the allocation
-- column: a_bytes        largest allocation in the baseline, bytes
-- column: b_bytes        largest allocation in this run, bytes
-- column: a_count        allocations of the category in the baseline
-- column: b_count        allocations of the category in this run
-- column: ratio          b_bytes / a_bytes (NULL when one run has none)
-- column: scales         1 when ratio > the ratio parameter, else 0
WITH al AS (
  -- through snapshot: alloc_event's key is (snapshot_id, idx), it has no
  -- run_id index
  SELECT sn.run_id, e.size AS bytes, e.stack_id
  FROM snapshot sn JOIN alloc_event e ON e.snapshot_id = sn.id
  WHERE sn.run_id IN (:baseline, :run) AND e.action = 'alloc'
    AND e.size IS NOT NULL
  UNION ALL
  SELECT b.run_id, b.requested_size, b.stack_id
  FROM block b
  WHERE b.run_id IN (:baseline, :run) AND b.state = 'active_allocated'
    AND b.alloc_idx IS NULL        -- not already counted as a trace alloc
),
c AS (
  SELECT al.run_id, coalesce(st.category, 'unknown') AS category,
    max(al.bytes) AS bytes, count(*) AS n
  FROM al LEFT JOIN stack st ON st.id = al.stack_id
  GROUP BY al.run_id, 2
),
k AS (SELECT DISTINCT category FROM c)
SELECT k.category, ca.bytes AS a_bytes, cb.bytes AS b_bytes,
  coalesce(ca.n, 0) AS a_count, coalesce(cb.n, 0) AS b_count,
  CASE WHEN ca.bytes > 0 AND cb.bytes IS NOT NULL
       THEN round(1.0 * cb.bytes / ca.bytes, 4) END AS ratio,
  CASE WHEN ca.bytes > 0 AND 1.0 * cb.bytes / ca.bytes > :ratio
       THEN 1 ELSE 0 END AS scales
FROM k
LEFT JOIN c ca ON ca.run_id = :baseline AND ca.category = k.category
LEFT JOIN c cb ON cb.run_id = :run AND cb.category = k.category
ORDER BY max(coalesce(ca.bytes, 0), coalesce(cb.bytes, 0)) DESC, k.category;
