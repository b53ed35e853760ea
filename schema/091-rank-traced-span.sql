-- 091-rank-traced-span.sql — the traced time of each rank that the
-- straggler analysis divides the others' waiting by: the rank's GPU span
-- (rank_gpu_span, 050) when it has GPU work, else, for a rank that only
-- ran on the host (gloo / MPI host collectives, a PyTorch without CUDA),
-- the span of its CPU operators from the first start to the last end.
-- The straggler rule and rank-skew's lost_pct read it; without it a
-- CPU-only run had no traced time and never a straggler.
CREATE VIEW rank_traced_span AS
SELECT run_id, rank, span_ns, 'gpu' AS clock FROM rank_gpu_span
UNION ALL
SELECT o.run_id, o.rank, max(o.ts + o.dur) - min(o.ts), 'host'
FROM cpu_op o
WHERE NOT EXISTS (SELECT 1 FROM gpu_busy b
                  WHERE b.run_id = o.run_id AND b.rank = o.rank)
GROUP BY o.run_id, o.rank;
