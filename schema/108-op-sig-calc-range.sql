-- 108-op-sig-calc-range.sql — op_sig_calc (the specification of the
-- signatures the operator pass models, read by tests/e2e/test_op_scope.py
-- and the oracle tests) finds the target run's operators by its rowid
-- range (schema 105) instead of the cpu_op_run index that 105 dropped:
-- without it the view read every run's operators (168,246 VM steps
-- among six runs against 6,203 for the run alone).

DROP VIEW op_sig_calc;
CREATE VIEW op_sig_calc AS
SELECT DISTINCT o.name_id, coalesce(o.input_dims_id, 0) AS dims_id,
  coalesce(o.input_types_id, 0) AS types_id,
  coalesce(o.concrete_inputs_id, 0) AS conc_id
FROM op_target t                 -- CROSS JOIN: in this order (a run's
CROSS JOIN run_rowid_range r     -- range, then its rows), never a scan
CROSS JOIN cpu_op o              -- of cpu_op first
WHERE r.run_id = t.run_id AND r.tbl = 'cpu_op'
  AND o.id BETWEEN r.lo AND r.hi AND +o.run_id = r.run_id;  -- +: no
                                   -- automatic index on run_id
