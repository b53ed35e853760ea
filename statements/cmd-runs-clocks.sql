-- cmd-runs-clocks.sql — Reads rank_clock. Used by src/cli/cmd_runs.c,
-- show_cmd().
SELECT rank, round(offset_ns/1e6, 3) + 0.0 AS offset_ms,
  n_collectives,
  round(spread_ns/1e3, 3) AS spread_us FROM rank_clock
  WHERE run_id=?1 ORDER BY rank
