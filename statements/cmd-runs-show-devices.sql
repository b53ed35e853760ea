-- cmd-runs-show-devices.sql — The devices of a run: each rank's own GPU (the
-- device its GPU activity ran on; every listed device when the rank has
-- none), or with bAll every device each rank's trace lists. Used by
-- src/cli/cmd_runs.c.
SELECT rank, device, name, total_mem_bytes, num_sms,
  compute_major||'.'||compute_minor AS compute
  FROM device d WHERE run_id=?1 AND (?2 IS NOT NULL
   OR NOT EXISTS (SELECT 1 FROM gpu_busy b WHERE b.run_id=d.run_id
                  AND b.rank=d.rank)
   OR EXISTS (SELECT 1 FROM gpu_busy b WHERE b.run_id=d.run_id
              AND b.rank=d.rank AND b.device=d.device))
  ORDER BY rank, device
