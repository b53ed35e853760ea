-- derive-hta-select-step.sql — Reads step. Used by
-- src/analysis/derive_hta.c, derive_hta_run().
SELECT step, ts, dur, source<>'ProfilerStep'
  FROM step WHERE run_id=?1 AND rank=?2 ORDER BY ts
