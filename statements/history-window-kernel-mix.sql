-- history-window-kernel-mix.sql — The GPU time two runs' kernel mixes share,
-- percent: the sum over kernel names of the smaller of the two shares; NaN
-- when neither has kernels, 0 when one has none. Used by
-- src/history/history_window.c, kernel_mix().
WITH t AS (SELECT run_id, name_id, sum(total_ns) AS ns
   FROM gpu_op_summary WHERE run_id IN (?1, ?2) AND kind = 'kernel'
   GROUP BY run_id, name_id),
  tot AS (SELECT run_id, sum(ns) AS s FROM t GROUP BY run_id
   HAVING sum(ns) > 0),
  sh AS (SELECT t.run_id, t.name_id, 1.0 * t.ns / tot.s AS p
   FROM t JOIN tot ON tot.run_id = t.run_id)
  SELECT (SELECT count(*) FROM tot),
   (SELECT coalesce(sum(m), 0) FROM (SELECT min(p) AS m FROM sh
    GROUP BY name_id HAVING count(*) = 2))
