-- derive-step-bound-write-bounds.sql — Write the bound of every step: a[]
-- sorted by (rank, c, step). Used by src/trace/derive_step_bound.c,
-- write_bounds().
UPDATE step SET bound_ts=?4,
  bound_dur=?5, bound_by=?6 WHERE run_id=?1 AND rank=?2 AND step=?3
