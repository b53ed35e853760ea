-- name: op-roofline
-- description: Modeled operators (GEMMs; elementwise, norm, softmax and copy
-- description: as streaming kinds) per input shape against the roofline of
-- description: the GPU they ran on (op_model formulas, gpu_spec
-- description: peaks): FLOPs, bytes, intensity, achieved TFLOP/s and TB/s,
-- description: the bound (compute or memory) and the memory tier (l2 or
-- description: hbm: a hierarchical roofline, schema 064), the % of that
-- description: roofline and the recoverable time, GPU time x (1 -
-- description: efficiency).  GPU
-- description: time is the union of each call's kernels and memsets
-- description: (overlapping kernels count once; cuBLAS workspace memsets
-- description: included).  Rows without a spec show no efficiency; calls
-- description: not modeled at all are counted by op-kinds, with the
-- description: reason (not_modeled: no shapes recorded, no formula ...).
-- param: rank:rank =          only this rank (empty: every rank)
-- param: limit:int>=1 = 25      rows to show
-- column: name           operator
-- column: dims           input shapes as recorded
-- column: dtype          element type of the first operand
-- column: peak           peak used: fp32, tf32 (float on a TF32 kernel), bf16 ...
-- column: gpu            spec row used (gpu_spec.gpu), empty when none
-- column: calls          calls timed
-- column: gpu_ms         GPU time, union of each call's kernels, ms
-- column: gflop          FLOPs of all calls, 1e9 (GEMM: 2MKN + bias adds)
-- column: gbytes         minimum bytes moved (all pass the L2), 1e9
-- column: hbm_gbytes     of them the bytes that must cross HBM, 1e9: none when the call's distinct tensors fit in L2, else gbytes less one L2 capacity a call (all of them on a GPU without L2 figures)
-- column: intensity      FLOPs per byte (gflop / gbytes)
-- column: tflops         achieved TFLOP/s
-- column: tbps           achieved TB/s
-- column: bound          'compute' or 'memory' (which roofline term is larger)
-- column: tier           memory level of the roof: 'l2' (gbytes / L2 bandwidth, the call's data fits in L2) or 'hbm' (hbm_gbytes / HBM bandwidth), whichever takes longer; the shape and the GPU decide it
-- column: roofline_pct   roofline time / GPU time, %; with dur_res 'whole_us' each GPU interval counts 1 µs longer (the lowest efficiency the whole-µs record allows)
-- column: roof_us        roofline time per call, µs (a few µs or less: the call is too small to fill the GPU, launch and tail latency dominate; batch or fuse it)
-- column: recoverable_ms  GPU time - roofline time, ms (sort key; rows without a roofline come last)
-- column: dur_res        'whole_us' when GPU intervals of these calls were recorded in whole µs (truncated: up to 1 µs short each), else 'ns'
-- The run's calls: its cpu_op rowid range (op_id is a cpu_op.id, schema
-- 123), with the view's columns that differ from call to call only.  The
-- modeled columns (flops, bytes, roof_ns, bound, tier ...) cost the most
-- to evaluate and are the same for every call of a signature at one peak
-- on one GPU (op_sig_model holds one row a signature: its arms model
-- disjoint operators; a gpu_spec part has one set of figures): v reads
-- them from the view for one call of each (sig_id, gpu, peak), whatever
-- the rank, and each call takes them from there
WITH c AS MATERIALIZED (
  SELECT op_id, rank, gpu_ns, n_gpu, slack_ns, whole_us, sig_id, gpu, peak
  FROM op_roofline_core
  WHERE op_id BETWEEN (SELECT lo FROM run_rowid_range
                       WHERE run_id = :run AND tbl = 'cpu_op')
                  AND (SELECT hi FROM run_rowid_range
                       WHERE run_id = :run AND tbl = 'cpu_op')
    AND +run_id = :run AND (:rank IS NULL OR rank = :rank)
),
v AS MATERIALIZED (
  SELECT DISTINCT r.sig_id, r.gpu, r.peak, g.name_id, g.dims_id, r.dtype,
    r.flops, r.bytes, r.hbm_bytes, r.roof_ns, r.bound, r.tier
  FROM op_roofline_core r JOIN op_sig g ON g.id = r.sig_id
  WHERE r.op_id IN (SELECT min(op_id) FROM c GROUP BY sig_id, gpu, peak)
    AND +r.run_id = :run
),
-- the rows shown: (name, dims, dtype, peak, gpu), numbered in that order
-- (names are interned: one id a text)
gq AS MATERIALIZED (
  SELECT row_number() OVER (ORDER BY s.text, d.text, x.dtype, x.peak, x.gpu)
      AS gid, x.*, s.text AS name, d.text AS dims
  FROM (SELECT DISTINCT name_id, dims_id, dtype, peak, gpu FROM v) x
  JOIN string s ON s.id = x.name_id
  LEFT JOIN string d ON d.id = x.dims_id
),
vg AS MATERIALIZED (
  SELECT v.*, gq.gid FROM v JOIN gq ON gq.name_id = v.name_id
    AND gq.dims_id = v.dims_id AND gq.dtype IS v.dtype
    AND gq.peak IS v.peak AND gq.gpu IS v.gpu
),
-- each call with its modeled values, summed below in the order of the
-- index op_gpu_time_run that read them before (rank, name_id, union_ns,
-- n_gpu, op_id; one name a row): the same sums.  CROSS JOIN: the calls
-- are read in turn, each looks its values up.  The sums below keep this
-- order (GROUP BY's sort is stable; an ORDER BY under sum() is kept)
k AS (
  SELECT vg.gid, c.gpu_ns, c.slack_ns, vg.flops, vg.bytes, vg.hbm_bytes,
    vg.roof_ns, vg.bound, vg.tier, c.whole_us
  FROM c CROSS JOIN vg ON vg.sig_id = c.sig_id AND vg.gpu IS c.gpu
    AND vg.peak IS c.peak
  ORDER BY vg.gid, c.rank, c.gpu_ns, c.n_gpu, c.op_id
),
a AS (
  SELECT gid, count(*) AS calls,
    round(sum(gpu_ns) / 1e6, 4) AS gpu_ms,
    round(sum(flops) / 1e9, 4) AS gflop,
    round(sum(bytes) / 1e9, 6) AS gbytes,
    round(sum(hbm_bytes) / 1e9, 6) AS hbm_gbytes,
    round(sum(flops) / sum(bytes), 2) AS intensity,
    round(sum(flops) / sum(gpu_ns) / 1e3, 3) AS tflops,
    round(sum(bytes) / sum(gpu_ns) / 1e3, 4) AS tbps,
    coalesce(max(bound), '') AS bound,
    coalesce(max(tier), '') AS tier,
    round(100.0 * sum(roof_ns) / sum(gpu_ns + slack_ns), 2) AS roofline_pct,
    round(sum(roof_ns) / count(*) / 1e3, 4) AS roof_us,
    round(sum(max(0, gpu_ns - roof_ns)) / 1e6, 4) AS recoverable_ms,
    CASE WHEN sum(whole_us) > 0 THEN 'whole_us' ELSE 'ns' END AS dur_res,
    count(roof_ns) > 0 AS roofed,
    sum(max(0, gpu_ns - coalesce(roof_ns, 0))) AS rec
  FROM k GROUP BY gid
)
SELECT g.name, g.dims, g.dtype, coalesce(g.peak, '') AS peak,
  coalesce(g.gpu, '') AS gpu, a.calls, a.gpu_ms, a.gflop, a.gbytes,
  a.hbm_gbytes, a.intensity, a.tflops, a.tbps, a.bound, a.tier,
  a.roofline_pct, a.roof_us, a.recoverable_ms, a.dur_res
FROM a JOIN gq g ON g.gid = a.gid
ORDER BY a.roofed DESC, a.rec DESC, g.name, g.dims, g.gid
LIMIT :limit;
