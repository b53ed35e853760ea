-- name: op-kinds
-- description: GPU time per operator kind (op_kind_rule:
-- description: gemm, conv, attention, norm, softmax, copy, elementwise,
-- description: ..., 'unknown' when no rule matches), counting each call's
-- description: kernels and memsets once however they overlap, the
-- description: roofline efficiency of the calls the model covers, and
-- description: why the others are not covered.
-- param: rank:rank =          only this rank (empty: every rank)
-- column: kind           operator kind
-- column: ops            distinct operator names of that kind
-- column: calls          calls that ran on the GPU
-- column: gpu_ms         GPU time, union of each call's kernels, ms
-- column: summed_ms      the same kernels' durations simply added, ms
-- column: modeled_calls  calls with FLOPs, bytes and a GPU spec
-- column: roofline_pct   roofline time / GPU time of the modeled calls, % (the tier and whole-µs rules of op-roofline)
-- column: recoverable_ms  GPU time - roofline time of the modeled calls, ms
-- column: not_modeled    why the other calls are not: no formula for the kind, no shapes / types recorded, host copy, no GPU spec or type peak, arguments missing or shapes not fitting
-- each name's kind once (op_name_kind, schema 027), not per call
-- the run's calls (op_gpu_time) are its cpu_op rowid range (op_id is a
-- cpu_op.id, schema 123), taken in the order of the index
-- op_gpu_time_run that read them before (rank, name_id, union_ns, n_gpu,
-- op_id): the sums below come out the same
WITH t AS MATERIALIZED (
  SELECT op_id, rank, name_id, union_ns, sum_ns, n_gpu, host_copies
  FROM op_gpu_time
  WHERE op_id BETWEEN (SELECT lo FROM run_rowid_range
                       WHERE run_id = :run AND tbl = 'cpu_op')
                  AND (SELECT hi FROM run_rowid_range
                       WHERE run_id = :run AND tbl = 'cpu_op')
    AND +run_id = :run
  ORDER BY rank, name_id, union_ns, n_gpu, op_id
),
kn AS MATERIALIZED (
  SELECT name_id, kind FROM op_name_kind
  WHERE name_id IN (SELECT name_id FROM t)
),
r AS MATERIALIZED (
  SELECT op_id, gpu_ns, slack_ns,
    coalesce(peak_tflops > 0 AND mem_tbps > 0, 0) AS spec, roof_ns
  FROM op_roofline_core
  WHERE op_id BETWEEN (SELECT lo FROM run_rowid_range
                       WHERE run_id = :run AND tbl = 'cpu_op')
                  AND (SELECT hi FROM run_rowid_range
                       WHERE run_id = :run AND tbl = 'cpu_op')
    AND +run_id = :run AND (:rank IS NULL OR rank = :rank)
),
-- each call with why it is or is not modeled, then totals per operator
-- name, then per kind (a kind per name: joined after the calls are
-- summed, not once a call)
n AS (
  SELECT o.name_id, count(*) AS calls,
    sum(t.union_ns) AS union_ns, sum(t.sum_ns) AS sum_ns,
    sum(r.spec) AS modeled,
    sum(CASE WHEN r.spec THEN r.roof_ns END) AS roof_ns,
    sum(CASE WHEN r.spec THEN r.gpu_ns + r.slack_ns END) AS mgpu_ns,
    sum(CASE WHEN r.spec THEN max(0, r.gpu_ns - r.roof_ns) END) AS rec_ns,
    sum(o.input_dims_id IS NULL) AS noshape,
    sum(t.host_copies > 0 AND o.input_dims_id IS NOT NULL) AS host,
    sum(r.op_id IS NOT NULL AND NOT r.spec) AS nospec,
    sum(r.op_id IS NULL AND o.input_dims_id IS NOT NULL
        AND NOT t.host_copies > 0 AND coalesce(ty.text, '[]') = '[]')
      AS notype,
    sum(r.op_id IS NULL AND o.input_dims_id IS NOT NULL
        AND NOT t.host_copies > 0 AND coalesce(ty.text, '[]') <> '[]')
      AS noargs
  FROM t JOIN cpu_op o ON o.id = t.op_id
  LEFT JOIN string ty ON ty.id = o.input_types_id
  LEFT JOIN r ON r.op_id = t.op_id
  WHERE :rank IS NULL OR t.rank = :rank
  GROUP BY o.name_id
),
-- kinds some formula of op_model covers (the others are timed only)
f AS (SELECT DISTINCT kind FROM op_kind_rule
      WHERE kind NOT IN ('unknown', 'reduction', 'moe', 'moe_dispatch',
                         'attention_paged', 'kv_cache')),
k AS (
  SELECT kn.kind, count(*) AS ops, sum(n.calls) AS calls,
    sum(n.union_ns) AS union_ns, sum(n.sum_ns) AS sum_ns,
    sum(n.modeled) AS modeled, sum(n.roof_ns) AS roof_ns,
    sum(n.mgpu_ns) AS mgpu_ns, sum(n.rec_ns) AS rec_ns,
    sum(n.noshape) AS noshape, sum(n.host) AS host, sum(n.nospec) AS nospec,
    sum(n.notype) AS notype, sum(n.noargs) AS noargs,
    kn.kind IN (SELECT kind FROM f) AS formula
  FROM n JOIN kn ON kn.name_id = n.name_id
  GROUP BY kn.kind
)
SELECT kind, ops, calls, round(union_ns / 1e6, 4) AS gpu_ms,
  round(sum_ns / 1e6, 4) AS summed_ms, coalesce(modeled, 0) AS modeled_calls,
  round(100.0 * roof_ns / mgpu_ns, 2) AS roofline_pct,
  round(rec_ns / 1e6, 4) AS recoverable_ms,
  CASE WHEN NOT formula THEN 'no formula for this kind'
  ELSE rtrim(
    CASE WHEN noshape > 0 THEN noshape || ' no shapes recorded, ' ELSE '' END
    || CASE WHEN notype > 0 THEN notype || ' no types recorded, ' ELSE '' END
    || CASE WHEN host > 0 THEN host || ' host copy, ' ELSE '' END
    || CASE WHEN nospec > 0 THEN nospec || ' no GPU spec or type peak, '
            ELSE '' END
    || CASE WHEN noargs > 0 THEN noargs || ' arguments missing or shapes'
            || ' not fitting, ' ELSE '' END, ', ') END AS not_modeled
FROM k ORDER BY union_ns DESC;
