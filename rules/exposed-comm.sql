-- name: exposed-comm
-- description: Exposed communication: communication kernel time with no
-- description: compute running (comm_overlap), minus the part of it that
-- description: was waiting for the last rank to arrive (collective_window
-- description: exposed_wait_ns: a late rank is the straggler finding's
-- description: cause, not a bucketing problem), as a share of the GPUs'
-- description: traced time (rank_gpu_span: the time the exposed
-- description: communication lies in, so the share never passes 100 %);
-- description: medium above threshold_pct, high above high_pct.  The
-- description: message gives it per step: run_metric exposed_comm_ms,
-- description: the exposed communication inside each steady step's window
-- description: (step_comm, never above the step time), split into waiting
-- description: and the rest by the run's shares; per rank where the steps
-- description: were guessed from idle gaps.  Needs the run's evidence
-- description: (run_evidence).
-- param: threshold_pct:number>=0 = 10  exposed comm (not waiting) / traced GPU time, %
-- param: high_pct:number>=0 = 30       above: severity high
WITH co AS (
  SELECT rank, sum(comm_ns - overlap_ns) AS exposed, sum(n_comm) AS n
  FROM comm_overlap WHERE run_id = :run GROUP BY rank
),
wt AS (
  SELECT c.rank, sum(w.exposed_wait_ns) AS ns
  FROM collective c JOIN collective_window w ON w.collective_id = c.id
  WHERE c.run_id = :run GROUP BY c.rank
),
r AS (
  SELECT co.exposed, min(coalesce(wt.ns, 0), co.exposed) AS waiting,
    sp.span_ns
  FROM co JOIN rank_gpu_span sp ON sp.run_id = :run AND sp.rank = co.rank
  LEFT JOIN wt ON wt.rank = co.rank
  WHERE co.n > 0
),
st AS (
  SELECT count(*) AS n, sum(source = 'gap') AS gap FROM step
  WHERE run_id = :run
),
em AS (
  SELECT value AS ms FROM run_metric
  WHERE run_id = :run AND metric = 'exposed_comm_ms'
),
v AS (
  SELECT sum(exposed) - sum(waiting) AS ns, sum(waiting) AS waiting,
    sum(exposed) AS total,
    100.0 * (sum(exposed) - sum(waiting)) / sum(span_ns) AS value,
    count(*) AS ranks
  FROM r HAVING sum(span_ns) > 0
)
SELECT CASE WHEN value > :high_pct THEN 'high' ELSE 'medium' END
    AS severity,
  'exposed-comm' AS rule,
  CASE WHEN st.n > 0 AND st.gap = 0 AND em.ms IS NOT NULL
    THEN printf('%.3f ms of communication per step is not overlapped by'
                || ' compute (%.1f %% of the GPUs'' traced time)', em.ms
                * v.ns / v.total, value)
    ELSE printf('%.3f ms of communication per rank is not overlapped by'
                || ' compute (%.1f %% of the GPUs'' traced time)', v.ns
                / 1e6 / v.ranks, value)
  END
  || CASE WHEN v.waiting > 0
       THEN printf('; not counted: %.3f ms %s of waiting for the last rank'
                   || ' to arrive (a late rank''s cost: the straggler'
                   || ' finding, profan query rank-skew)',
                   CASE WHEN st.n > 0 AND st.gap = 0 AND em.ms IS NOT NULL
                        THEN em.ms * v.waiting / v.total
                        ELSE v.waiting / 1e6 / v.ranks END,
                   CASE WHEN st.n > 0 AND st.gap = 0 AND em.ms IS NOT NULL
                        THEN 'per step' ELSE 'per rank' END)
       ELSE '' END AS message,
  round(value, 2) AS value, :threshold_pct AS threshold,
  'bucket sizes, overlap settings (FSDP/DDP), placement of tensor'
  || ' parallelism, larger per-rank batch' AS hint
FROM v CROSS JOIN st LEFT JOIN em WHERE value > :threshold_pct
  AND (SELECT enough FROM run_evidence WHERE run_id = :run);
