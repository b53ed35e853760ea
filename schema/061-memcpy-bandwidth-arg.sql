-- 061-memcpy-bandwidth-arg.sql — Kineto's own `memory bandwidth (GB/s)`
-- of each memcpy / memset (issue 32 point 8).  Kineto computes it from
-- the exact duration, while traces of some generations write `dur` in
-- whole µs (the control fixture: bytes / arg - dur lies in [0, 1) µs for
-- all 882 copies), so bytes / dur overstates short copies.  The per-op
-- bandwidth of view hta_memory_bw is the arg where the trace has it, else
-- bytes / dur; gbps_source says which, and 'dur_whole_us' when the
-- duration it divides by is a whole number of µs (truncated by the
-- profiler: the true bandwidth may be lower).
ALTER TABLE gpu_mem_op ADD COLUMN gbps REAL;   -- the trace's arg, GB/s

DROP VIEW hta_memory_bw;
CREATE VIEW hta_memory_bw AS
SELECT run_id, rank, device, stream, id AS row_id, step, ts, dur, bytes,
  CASE kind WHEN 'memset' THEN 'Memset'
    ELSE 'Memcpy ' || coalesce(direction, 'unknown') END AS kind,
  CASE WHEN gbps > 0 THEN gbps
       WHEN dur > 0 AND bytes IS NOT NULL THEN bytes * 1.0 / dur END AS gbps,
  CASE WHEN gbps > 0 THEN 'arg'
       WHEN dur > 0 AND bytes IS NOT NULL THEN
         CASE WHEN dur % 1000 = 0 THEN 'dur_whole_us' ELSE 'dur' END
  END AS gbps_source
FROM gpu_mem_op;
