-- 012-verdicts.sql — one definition per concept that a verdict depends on
-- (issue 13): which GPU kernels are communication, and the threshold of
-- each piece of advice.  Views, named queries, report rules and the ingest
-- sweeps all read these tables; change a row and every one of them
-- follows (the sweeps at the next ingest).

-- Communication kernels, by name.  A kernel is communication when its
-- name matches one of these GLOB patterns (case-sensitive, the whole
-- name: use '*' on both sides for a substring).  `op` is the collective
-- the name implies when the name does not say it in NCCL's own form
-- (NULL: parsed from an NCCL/RCCL name, else 'other').  Used by the
-- comm_kernel view, the categories (category_comm), comm_overlap and the
-- wall-time 'comm' class (derive_trace.c), the collective table
-- (derive_comm.c) and through them every finding.
CREATE TABLE comm_pattern(
  pattern TEXT PRIMARY KEY,        -- GLOB over the kernel name
  family TEXT NOT NULL,            -- nccl, symm_mem, custom_allreduce, ...
  op TEXT,                         -- all_reduce, all_gather, ... or NULL
  note TEXT                        -- where the name comes from
);

INSERT INTO comm_pattern(pattern, family, op, note) VALUES
  ('ncclKernel_*', 'nccl', NULL,
   'NCCL 2.8-2.18 and RCCL: ncclKernel_AllReduce_RING_LL_Sum_float'),
  ('ncclDevKernel_*', 'nccl', NULL,
   'NCCL 2.19+: ncclDevKernel_AllGather_RING_LL, ncclDevKernel_Generic'),
  ('nccl*Kernel*', 'nccl', NULL,
   'NCCL <= 2.7: ncclAllReduceRingLLKernel_sum_f32, ncclSendRecvKernel_copy_i8;'
   || ' NCCL 2.27 symmetric kernels ncclSymkDevKernel_*'),
  ('mscclKernel_*', 'rccl', NULL, 'RCCL MSCCL: mscclKernel_Sum_float_LL'),
  ('*multimem_all_reduce*', 'symm_mem', 'all_reduce',
   'PyTorch symmetric memory: multimem_all_reduce_kernel (vLLM on B200)'),
  ('*multimem_one_shot_all_reduce*', 'symm_mem', 'all_reduce',
   'PyTorch symmetric memory one-shot multimem all-reduce'),
  ('*multimem_all_gather*', 'symm_mem', 'all_gather',
   'PyTorch symmetric memory: multimem_all_gather_kernel'),
  ('*one_shot_all_reduce*', 'symm_mem', 'all_reduce',
   'PyTorch symmetric memory: one_shot_all_reduce_kernel'),
  ('*two_shot_all_reduce*', 'symm_mem', 'all_reduce',
   'PyTorch symmetric memory: two_shot_all_reduce_kernel'),
  ('*cross_device_reduce*', 'custom_allreduce', 'all_reduce',
   'vLLM / SGLang custom all-reduce: cross_device_reduce_1stage, _2stage'),
  ('*oneShotAllReduce*', 'custom_allreduce', 'all_reduce',
   'TensorRT-LLM: oneShotAllReduceKernel'),
  ('*twoShotAllReduce*', 'custom_allreduce', 'all_reduce',
   'TensorRT-LLM: twoShotAllReduceKernel'),
  ('*allreduce_fusion_kernel*', 'custom_allreduce', 'all_reduce',
   'TensorRT-LLM / FlashInfer: allreduce_fusion_kernel_oneshot_lamport'),
  ('*lamport*AllReduce*', 'custom_allreduce', 'all_reduce',
   'TensorRT-LLM lamport all-reduce kernels'),
  ('*mscclpp*', 'mscclpp', NULL, 'MSCCL++ kernels');

-- The communication kernels of each run: every kernel name the run's
-- activity summary holds that a comm_pattern matches (the first pattern
-- by name gives family and op).
CREATE VIEW comm_kernel AS
SELECT g.run_id, g.name_id, s.text AS name,
  (SELECT p.family FROM comm_pattern p WHERE s.text GLOB p.pattern
   ORDER BY p.pattern LIMIT 1) AS family,
  (SELECT p.op FROM comm_pattern p WHERE s.text GLOB p.pattern
   AND p.op IS NOT NULL ORDER BY p.pattern LIMIT 1) AS op
FROM (SELECT DISTINCT run_id, name_id FROM gpu_op_summary
      WHERE kind = 'kernel') g
JOIN string s ON s.id = g.name_id
WHERE EXISTS (SELECT 1 FROM comm_pattern p WHERE s.text GLOB p.pattern);

-- The category a communication kernel gets in each scheme (a scheme not
-- listed here classifies communication kernels by its own rules only).
CREATE TABLE category_comm(
  scheme TEXT PRIMARY KEY REFERENCES category_scheme(scheme),
  category TEXT NOT NULL
);
INSERT INTO category_comm VALUES
  ('detailed', 'NCCL / communication'),
  ('coarse', 'comm');

-- The substring rules that used to say "communication" (and missed
-- multimem_all_reduce_kernel: 'allreduce' is not in 'all_reduce') give
-- way to comm_pattern.
DELETE FROM category_rule
 WHERE (scheme = 'detailed' AND pattern IN ('nccl', 'rccl'))
    OR (scheme = 'coarse'
        AND pattern IN ('nccl', 'rccl', 'allreduce', 'allgather',
                        'reduce_scatter'));

DROP VIEW IF EXISTS kernel_category;
CREATE VIEW kernel_category AS
SELECT n.name_id, s.text AS name, cs.scheme,
  CASE
    WHEN cc.category IS NOT NULL AND EXISTS
      (SELECT 1 FROM comm_pattern p WHERE s.text GLOB p.pattern)
    THEN cc.category
    ELSE coalesce((SELECT r.category FROM category_rule r
                   WHERE r.scheme = cs.scheme
                     AND instr(lower(s.text), lower(r.pattern)) > 0
                   ORDER BY r.priority LIMIT 1), cs.default_category)
  END AS category
FROM (SELECT DISTINCT name_id FROM gpu_op_summary) n
JOIN string s ON s.id = n.name_id
CROSS JOIN category_scheme cs
LEFT JOIN category_comm cc ON cc.scheme = cs.scheme;

-- What each rank did before a collective, for the straggler analysis
-- (derive_comm.c): the window from the end of the rank's previous
-- collective (in any group; the first: its first GPU activity) to this
-- collective's start, the compute kernel time that ended inside it (at
-- most the window), and the rest of the window (GPU idle: the host did
-- not feed the GPU).  Runs ingested before this file have no rows.
CREATE TABLE collective_window(
  collective_id INTEGER PRIMARY KEY, -- collective.id
  run_id INTEGER NOT NULL,
  window_ns INTEGER NOT NULL,
  compute_ns INTEGER NOT NULL,
  idle_ns INTEGER NOT NULL
);
CREATE INDEX collective_window_run ON collective_window(run_id);

-- One threshold per piece of advice, stored once: the report rule and the
-- named query that give the same advice both read it (a --param of either
-- still overrides it for one command).
CREATE TABLE advice_threshold(
  advice TEXT NOT NULL,            -- the rule / query family
  name TEXT NOT NULL,              -- the parameter it backs
  value NUMERIC NOT NULL,        -- 10 stays 10 (not 10.0) in output
  unit TEXT NOT NULL,
  used_by TEXT NOT NULL,           -- rules and queries that read it
  description TEXT NOT NULL,
  PRIMARY KEY(advice, name)
) WITHOUT ROWID;

INSERT INTO advice_threshold VALUES
  ('fragmentation', 'inactive_pct', 10, '%',
   'rule fragmentation, query fragmentation (recommendation)',
   'inactive bytes over reserved bytes of a snapshot above which'
   || ' expandable_segments is recommended'),
  ('fragmentation', 'min_segments', 10, 'segments',
   'rule fragmentation, query fragmentation (recommendation)',
   'more segments than this are needed for the recommendation'),
  ('straggler', 'late_pct', 50, '%',
   'rule straggler, queries rank-skew and collective-skew',
   'a rank is the straggler when it arrives last at more than this share'
   || ' of the collectives that have a late rank (min_spread_us)'),
  ('straggler', 'min_spread_us', 50, 'us',
   'rule straggler, queries rank-skew and collective-skew',
   'a collective has a late rank only when the last rank started more than'
   || ' this after the first (closer starts are ties, not waiting)');
