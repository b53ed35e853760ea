-- trace-totals-write-gpu.sql — Inserts rows into gpu_op_summary. Used by
-- src/trace/trace_totals.c, trace_totals_write_gpu().
INSERT INTO gpu_op_summary(run_id, rank, kind, name_id, n, total_ns,
  min_ns, max_ns) VALUES(?1,?2,?3,?4,?5,?6,?7,?8)
