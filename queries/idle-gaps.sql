-- name: idle-gaps
-- description: The longest GPU idle gaps (up to 50 per GPU kept at ingest),
-- description: with the activity before and after each and its step.
-- param: rank:rank =          only this rank (empty: every rank)
-- param: limit:int>=0 = 20      rows to show
-- column: rank           rank
-- column: device         GPU ordinal
-- column: step           step the gap started in
-- column: start_ms       gap start relative to the rank's first GPU activity, ms
-- column: gap_ms         gap length, ms
-- column: before:name    activity that ended the busy period
-- column: after:name     activity that started the next one
SELECT g.rank, g.device, g.step,
  round((g.ts - b.first_ts) / 1e6, 3) AS start_ms,
  round(g.dur / 1e6, 3) AS gap_ms,
  sb.text AS before, sa.text AS after
FROM gpu_gap g
JOIN gpu_busy b ON b.run_id = g.run_id AND b.rank = g.rank AND b.device = g.device
LEFT JOIN string sb ON sb.id = g.before_name_id
LEFT JOIN string sa ON sa.id = g.after_name_id
WHERE g.run_id = :run AND (:rank IS NULL OR g.rank = :rank)
ORDER BY g.dur DESC
LIMIT :limit;
