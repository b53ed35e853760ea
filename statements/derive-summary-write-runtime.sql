-- derive-summary-write-runtime.sql — Inserts rows into runtime_summary. Used
-- by src/trace/derive_summary.c, write_runtime().
INSERT INTO runtime_summary
  VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)
