-- name: comm-overlap
-- description: Communication kernels (NCCL/RCCL) against compute kernels
-- description: per rank and device, from a sweep at ingest: how much
-- description: communication time runs under compute, how much is exposed,
-- description: and the overlap efficiency 1 - (wall - max(comp, comm)) /
-- description: (comp + comm - max(comp, comm)), where wall = |comp ∪ comm|.
-- param: rank:rank =           only this rank (empty: all ranks)
-- column: rank             rank
-- column: device           GPU ordinal
-- column: comm_kernels     communication kernels
-- column: comm_ms          union of communication kernel intervals, ms
-- column: comp_ms          union of the other kernels' intervals, ms
-- column: overlap_ms       communication time that overlaps compute, ms
-- column: exposed_comm_ms  communication time with no compute running, ms
-- column: wall_ms          union of both, ms
-- column: overlap_pct      overlap_ms / comm_ms, %
-- column: overlap_efficiency  1 = the shorter of comp/comm fully hidden, 0 = none
SELECT rank, device, n_comm AS comm_kernels,
  round(comm_ns / 1e6, 3) AS comm_ms,
  round(comp_ns / 1e6, 3) AS comp_ms,
  round(overlap_ns / 1e6, 3) AS overlap_ms,
  round((comm_ns - overlap_ns) / 1e6, 3) AS exposed_comm_ms,
  round(wall_ns / 1e6, 3) AS wall_ms,
  CASE WHEN comm_ns > 0 THEN round(100.0 * overlap_ns / comm_ns, 2) END
    AS overlap_pct,
  CASE WHEN min(comp_ns, comm_ns) > 0 THEN
    round(1.0 - (wall_ns - max(comp_ns, comm_ns)) * 1.0
                / (comp_ns + comm_ns - max(comp_ns, comm_ns)), 4) END
    AS overlap_efficiency
FROM comm_overlap
WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
ORDER BY rank, device;
