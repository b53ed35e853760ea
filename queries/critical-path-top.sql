-- name: critical-path-top
-- description: The largest contributors to the critical path (see
-- description: critical-path) over all steps of each rank: which op, call or
-- description: kernel to make faster to make the steps faster.  idle and
-- description: gpu_wait rows have no name.
-- param: rank:rank =           only this rank (empty: all ranks)
-- param: limit:int>=1 = 20       rows to show
-- column: rank             rank
-- column: class            segment class (kernel, cpu_op, launch, ...)
-- column: name             op / call / kernel name
-- column: path_ms          time on the path over all steps, ms
-- column: per_step_ms      path_ms / steps of the rank
-- column: path_pct         path_ms / the rank's summed step time, %
-- column: segments         segments on the path
WITH st AS (
  SELECT rank, count(*) AS n, sum(dur) AS dur FROM step
  WHERE run_id = :run GROUP BY rank
)
SELECT c.rank, c.class, s.text AS name,
  round(sum(c.ns) / 1e6, 3) AS path_ms,
  round(sum(c.ns) / 1e6 / st.n, 3) AS per_step_ms,
  round(100.0 * sum(c.ns) / st.dur, 2) AS path_pct,
  sum(c.segments) AS segments
FROM hta_critical_path_op c
JOIN st ON st.rank = c.rank
LEFT JOIN string s ON s.id = c.name_id
WHERE c.run_id = :run AND (:rank IS NULL OR c.rank = :rank)
GROUP BY c.rank, c.class, c.name_id
ORDER BY sum(c.ns) DESC
LIMIT :limit;
