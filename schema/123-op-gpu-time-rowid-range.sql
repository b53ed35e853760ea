-- 123-op-gpu-time-rowid-range.sql — a run's op_gpu_time rows by their
-- op_id range instead of the index op_gpu_time_run(run_id, rank, name_id,
-- union_ns, n_gpu) (issue 35, the footprint): 2.0 of the 56.2 MB of bench
-- shape param-linear-2080ti x10.  op_gpu_time.op_id is a cpu_op.id, so a
-- run's rows lie in its cpu_op range of run_rowid_range (schema 105), as
-- op_metric_roof_calc already reads them.  The readers (queries
-- operators, diff-ops, op-kinds, op-roofline, the HTML report's
-- rooflines, the derive pass's delete) read the range and keep their
-- run_id filter; op-kinds and op-roofline sort a run's calls in the
-- index's order (rank, name_id, union_ns, n_gpu, op_id) before they sum
-- them, so that their floating-point sums come out as before: the name_id
-- column added to op_roofline_call below is for that order.

DROP INDEX IF EXISTS op_gpu_time_run;

-- 064's op_roofline_call with name_id (op_sig.name_id, the operator's
-- cpu_op.name_id) at the end
DROP VIEW op_roofline_call;
CREATE VIEW op_roofline_call AS
SELECT r.matmul, r.op_id, r.run_id, r.rank, r.device, s.text AS name,
  r.kind, d.text AS dims, r.dtype, r.flops, r.bytes, r.gpu_ns, r.sum_ns,
  r.n_gpu, r.gpu, r.peak, r.peak_tflops, r.mem_tbps, r.footprint,
  r.l2_bytes, r.l2_tbps, r.hbm_bytes, r.tier, r.roof_ns, r.bound,
  r.slack_ns, r.whole_us, g.name_id
FROM op_roofline_core r
JOIN op_sig g ON g.id = r.sig_id
JOIN string s ON s.id = g.name_id
LEFT JOIN string d ON d.id = g.dims_id;
