-- derive-op-memcpy-from-spans.sql — The exposed memcpy time of
-- op_metric_memcpy_calc from the GPU spans: per (rank, device), |kernels U
-- copies| - |kernels| when it has a copy (memsets are neither), summed.
-- Spans come sorted by device and start, so each union is the sum of what a
-- span adds past the running end. Used by src/analysis/derive_op.c,
-- memcpy_from_spans().
INSERT INTO op_run_metric(run_id, metric, value)
  VALUES(?1, 'exposed_memcpy_ms', ?2)
