-- name: exposed-comm
-- description: Exposed communication: communication kernel time with no
-- description: compute running (comm_overlap), per step, as a share of the
-- description: mean step time; medium above threshold_pct, high above
-- description: high_pct.
-- param: threshold_pct:number>=0 = 10  exposed comm per step / step time, %
-- param: high_pct:number>=0 = 30       above: severity high
WITH st AS (
  SELECT count(*) AS n, avg(dur) AS dur FROM step WHERE run_id = :run
),
c AS (
  SELECT sum(comm_ns - overlap_ns) AS ns, sum(n_comm) AS n
  FROM comm_overlap WHERE run_id = :run
),
v AS (
  SELECT c.ns / 1e6 / st.n AS ms, 100.0 * c.ns / st.n / st.dur AS value
  FROM c, st WHERE c.n > 0 AND st.n > 0 AND st.dur > 0
)
SELECT CASE WHEN value > :high_pct THEN 'high' ELSE 'medium' END
    AS severity,
  'exposed-comm' AS rule,
  printf('%.3f ms of communication per step is not overlapped by compute'
         || ' (%.1f %% of the step)', ms, value) AS message,
  round(value, 2) AS value, :threshold_pct AS threshold,
  'bucket sizes, overlap settings (FSDP/DDP), placement of tensor'
  || ' parallelism, larger per-rank batch' AS hint
FROM v WHERE value > :threshold_pct;
