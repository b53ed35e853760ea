-- cmd-runs-clocks.sql — `profan runs show`, section clocks: run ?1's rank
-- clock offsets and their spread. Used by src/cli/cmd_runs.c, show_cmd().
SELECT rank, round(offset_ns/1e6, 3) + 0.0 AS offset_ms,
  n_collectives,
  round(spread_ns/1e3, 3) AS spread_us FROM rank_clock
  WHERE run_id=?1 ORDER BY rank
