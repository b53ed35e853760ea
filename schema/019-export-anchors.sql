-- 019-export-anchors.sql — the places of a run worth opening in a trace
-- viewer, by name, for `profan export-trace RUN --around ANCHOR` and the
-- export hints of the HTML report (one definition for both).
--
-- export_anchor: one row per anchor: the rank and the window [start_ns,
-- end_ns) to export, the report rule whose finding it illustrates (NULL:
-- none), and a readable label.
--   slowest-step          the longest step of any rank (ties: lowest rank)
--   slowest-step-rank-R   the longest step of rank R (stragglers)
--   gap-K                 the K-th largest GPU idle gap of the run (K <= 10),
--                         with half its length plus 0.1 ms on each side
CREATE VIEW export_anchor AS
WITH ranked AS (
  SELECT run_id, rank, step, ts, dur,
    row_number() OVER (PARTITION BY run_id ORDER BY dur DESC, rank, step)
      AS n_run,
    row_number() OVER (PARTITION BY run_id, rank ORDER BY dur DESC, step)
      AS n_rank
  FROM step
),
gaps AS (
  SELECT run_id, rank, device, ts, dur, step,
    row_number() OVER (PARTITION BY run_id ORDER BY dur DESC, rank, ts) AS k
  FROM gpu_gap
)
SELECT run_id, 'slowest-step' AS anchor, 'step-variation' AS rule, rank,
  step, ts AS start_ns, ts + dur AS end_ns,
  printf('slowest step %d on rank %d (%.3f ms)', step, rank, dur / 1e6)
    AS label
FROM ranked WHERE n_run = 1
UNION ALL
SELECT run_id, 'slowest-step-rank-' || rank, 'straggler', rank, step, ts,
  ts + dur,
  printf('slowest step %d of rank %d (%.3f ms)', step, rank, dur / 1e6)
FROM ranked WHERE n_rank = 1
UNION ALL
SELECT run_id, 'gap-' || k, 'gpu-utilization', rank, step,
  ts - dur / 2 - 100000, ts + dur + dur / 2 + 100000,
  printf('GPU idle gap of %.3f ms on rank %d, GPU %d', dur / 1e6, rank,
         device)
FROM gaps WHERE k <= 10;
