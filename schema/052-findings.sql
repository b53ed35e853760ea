-- 052-findings.sql — what the findings of `profan report` share with the
-- queries (issue 31): the minimum evidence for advice, the categories a
-- dedicated rule owns (one finding per cause), the idle-time threshold
-- of gpu-utilization, and the flight-recorder verdicts as a view that
-- the fr-hang query and the flight-recorder rule both read.

-- Thresholds: advice needs evidence (a 0.15 ms toy trace gets none), and
-- gpu-utilization says "uninstrumented" rather than "CPU-side" when most
-- of the GPU's idle time has no CPU activity recorded either.
INSERT INTO advice_threshold VALUES
  ('evidence', 'min_gpu_ms', 1, 'ms',
   'rules top-category, memory-ops, copy-ops, fill-kernels, tiny-kernels,'
   || ' gpu-utilization, exposed-comm (view run_evidence), rule evidence',
   'GPU busy time a run needs before the rules that judge GPU time give'
   || ' advice; below it one info finding says why there is none'),
  ('gpu-utilization', 'uninstrumented_pct', 50, '%',
   'rule gpu-utilization',
   'share of the traced time without GPU work that has no CPU operator or'
   || ' runtime call either (step_time class idle), above which the idle'
   || ' time is reported as uninstrumented, not as a CPU-side bottleneck');

-- The GPU busy time of each run against the evidence threshold.
CREATE VIEW run_evidence AS
SELECT r.id AS run_id,
  coalesce((SELECT sum(b.busy_ns) FROM gpu_busy b WHERE b.run_id = r.id), 0)
    AS gpu_busy_ns,
  (SELECT value FROM advice_threshold
   WHERE advice = 'evidence' AND name = 'min_gpu_ms') * 1e6 AS min_gpu_ns,
  coalesce((SELECT sum(b.busy_ns) FROM gpu_busy b WHERE b.run_id = r.id), 0)
    >= (SELECT value FROM advice_threshold
        WHERE advice = 'evidence' AND name = 'min_gpu_ms') * 1e6 AS enough
FROM run r;

-- An empty fr-hang says the run has no flight-recorder dump: the query
-- reads the view now, not fr_entry.
INSERT INTO input_source(priority, tbl, what) VALUES
  (5, 'fr_issue', 'flight-recorder dump');

-- Categories whose time a dedicated rule judges: top-category leaves
-- them to it, so one piece of GPU time gives one finding (memcpy time
-- was copy-ops, memory-ops and top-category at once).
CREATE TABLE category_owner(
  scheme TEXT NOT NULL,
  category TEXT NOT NULL,
  rule TEXT NOT NULL,              -- the rule that reports this time
  PRIMARY KEY(scheme, category)
) WITHOUT ROWID;
INSERT INTO category_owner VALUES
  ('detailed', 'NCCL / communication', 'exposed-comm'),
  ('coarse', 'comm', 'exposed-comm'),
  ('detailed', 'Memory ops', 'memory-ops'),
  ('coarse', 'memory', 'memory-ops'),
  ('detailed', 'Optimizer', 'optimizer'),
  ('detailed', 'Dtype conversion', 'copy-ops');

-- Flight-recorder verdicts (the fr-hang query's definition, per run):
-- per process group and collective sequence id, the way PyTorch's
-- fr_trace analyser reports it: ranks that never enqueued it (the usual
-- hang culprit), mismatched op, sizes or dtypes, ranks stuck in it while
-- others completed it, or no rank completing it.  rn numbers a group's
-- disagreeing sequence ids (1: the first); a group without one has a
-- single 'ok' row (rn NULL) for its last sequence id.  Entries lost to
-- the ring buffer (older than a rank's first entry) are not counted as
-- missing.  Read by the fr-hang query and the flight-recorder rule.
CREATE VIEW fr_issue AS
WITH g AS (
  SELECT run_id, pg_name, max(pg_desc) AS pg_desc, max(ranks) AS ranks
  FROM fr_group GROUP BY run_id, pg_name
),
dumps AS (SELECT DISTINCT run_id, rank FROM fr_dump),
e AS (
  SELECT run_id, rank, pg_name, max(pg_desc) AS pg_desc,
    collective_seq_id AS seq, op, state, input_sizes, output_sizes,
    input_numel, output_numel, input_dtypes, output_dtypes,
    min(record_id) AS record_id
  FROM fr_entry
  WHERE coalesce(is_p2p, 0) = 0
    AND collective_seq_id IS NOT NULL AND pg_name IS NOT NULL
  GROUP BY run_id, rank, pg_name, collective_seq_id
),
mem AS (
  SELECT g.run_id, g.pg_name, CAST(j.value AS INTEGER) AS member
  FROM g, json_each(CASE WHEN json_valid(g.ranks) THEN g.ranks END) j
  UNION
  SELECT DISTINCT e.run_id, e.pg_name, e.rank FROM e
  WHERE NOT EXISTS (SELECT 1 FROM g WHERE g.run_id = e.run_id
                    AND g.pg_name = e.pg_name AND json_valid(g.ranks))
),
rng AS (
  SELECT run_id, rank, pg_name, min(seq) AS lo, max(seq) AS hi FROM e
  GROUP BY run_id, rank, pg_name
),
seqs AS (SELECT DISTINCT run_id, pg_name, seq FROM e),
cell AS (
  SELECT s.run_id, s.pg_name, s.seq, m.member AS rank, x.op, x.state,
    x.input_sizes, x.output_sizes, x.input_numel, x.output_numel,
    x.input_dtypes, x.output_dtypes,
    CASE WHEN x.rank IS NOT NULL THEN x.state
         WHEN NOT EXISTS (SELECT 1 FROM dumps d WHERE d.run_id = s.run_id
                          AND d.rank = m.member) THEN 'no_dump'
         WHEN r.rank IS NULL OR r.hi < s.seq THEN 'not_enqueued'
         ELSE 'dropped' END AS status
  FROM seqs s JOIN mem m ON m.run_id = s.run_id AND m.pg_name = s.pg_name
  LEFT JOIN e x ON x.run_id = s.run_id AND x.pg_name = s.pg_name
    AND x.seq = s.seq AND x.rank = m.member
  LEFT JOIN rng r ON r.run_id = s.run_id AND r.pg_name = s.pg_name
    AND r.rank = m.member
),
mode AS (
  SELECT run_id, pg_name, seq,
    (SELECT op FROM cell c2 WHERE c2.run_id = c.run_id
       AND c2.pg_name = c.pg_name AND c2.seq = c.seq
       AND op IS NOT NULL GROUP BY op ORDER BY count(*) DESC, op LIMIT 1)
      AS op,
    (SELECT input_sizes FROM cell c2 WHERE c2.run_id = c.run_id
       AND c2.pg_name = c.pg_name AND c2.seq = c.seq
       AND input_sizes IS NOT NULL
       GROUP BY input_sizes ORDER BY count(*) DESC, input_sizes LIMIT 1)
      AS in_sizes,
    (SELECT output_sizes FROM cell c2 WHERE c2.run_id = c.run_id
       AND c2.pg_name = c.pg_name AND c2.seq = c.seq
       AND output_sizes IS NOT NULL
       GROUP BY output_sizes ORDER BY count(*) DESC, output_sizes LIMIT 1)
      AS out_sizes,
    (SELECT input_dtypes FROM cell c2 WHERE c2.run_id = c.run_id
       AND c2.pg_name = c.pg_name AND c2.seq = c.seq
       AND input_dtypes IS NOT NULL
       GROUP BY input_dtypes ORDER BY count(*) DESC, input_dtypes LIMIT 1)
      AS dtypes,
    count(*) AS n_members
  FROM cell c GROUP BY run_id, pg_name, seq
),
flag AS (
  SELECT c.*, m.op AS mode_op, m.n_members,
    (c.op IS NOT NULL AND c.op <> m.op) AS odd_op,
    (c.op IS NOT NULL AND (
       (c.input_sizes <> m.in_sizes AND m.op NOT IN ('scatter', 'all_to_all',
          'all_to_allv', 'alltoall', 'alltoall_base'))
       OR (c.output_sizes <> m.out_sizes AND m.op NOT IN ('gather',
          'all_to_all', 'all_to_allv', 'alltoall', 'alltoall_base'))
       OR (m.op IN ('all_reduce', 'allreduce')
           AND c.input_numel <> c.output_numel)
       OR (m.op IN ('all_gather', '_all_gather_base', 'allgather',
                    'all_gather_into_tensor')
           AND c.output_numel <> c.input_numel * m.n_members)
       OR (m.op IN ('reduce_scatter', '_reduce_scatter_base',
                    'reduce_scatter_tensor')
           AND c.input_numel <> c.output_numel * m.n_members)))
      AS odd_size,
    (c.op IS NOT NULL AND (c.input_dtypes <> m.dtypes
       OR (c.output_dtypes IS NOT NULL AND c.input_dtypes <> c.output_dtypes)))
      AS odd_dtype
  FROM cell c JOIN mode m ON m.run_id = c.run_id AND m.pg_name = c.pg_name
    AND m.seq = c.seq
),
agg AS (
  SELECT run_id, pg_name, seq, max(mode_op) AS op,
    group_concat(rank, ',') AS members,
    sum(status = 'completed') AS n_completed,
    group_concat(CASE WHEN status = 'completed' THEN rank END, ',')
      AS completed,
    group_concat(CASE WHEN status = 'started' THEN rank END, ',') AS started,
    group_concat(CASE WHEN status = 'scheduled' THEN rank END, ',')
      AS scheduled,
    group_concat(CASE WHEN status = 'not_enqueued' THEN rank END, ',')
      AS missing,
    group_concat(CASE WHEN odd_op THEN rank END, ',') AS odd_op,
    group_concat(CASE WHEN odd_size THEN rank END, ',') AS odd_size,
    group_concat(CASE WHEN odd_dtype THEN rank END, ',') AS odd_dtype,
    group_concat(CASE WHEN odd_op THEN rank || ':' || op END, ' ')
      AS op_detail,
    group_concat(CASE WHEN odd_size THEN rank || ':' || input_sizes || '->'
                 || output_sizes END, ' ') AS size_detail,
    group_concat(CASE WHEN odd_dtype THEN rank || ':' || input_dtypes END,
                 ' ') AS dtype_detail,
    group_concat(rank || ':' || status, ' ') AS rank_states
  FROM (SELECT * FROM flag ORDER BY run_id, pg_name, seq, rank)
  GROUP BY run_id, pg_name, seq
),
verdict AS (
  SELECT *,
    CASE WHEN missing IS NOT NULL THEN 'missing_ranks'
         WHEN odd_op IS NOT NULL THEN 'op_mismatch'
         WHEN odd_size IS NOT NULL THEN 'size_mismatch'
         WHEN odd_dtype IS NOT NULL THEN 'dtype_mismatch'
         WHEN n_completed > 0 AND (started IS NOT NULL
                                   OR scheduled IS NOT NULL) THEN 'stuck'
         WHEN n_completed = 0 THEN 'not_completed'
    END AS issue
  FROM agg
),
ranked AS (
  SELECT *, row_number() OVER (PARTITION BY run_id, pg_name ORDER BY seq)
    AS rn
  FROM verdict WHERE issue IS NOT NULL
),
okrow AS (
  SELECT v.* FROM verdict v
  WHERE NOT EXISTS (SELECT 1 FROM ranked r WHERE r.run_id = v.run_id
                    AND r.pg_name = v.pg_name)
    AND v.seq = (SELECT max(seq) FROM verdict v2
                 WHERE v2.run_id = v.run_id AND v2.pg_name = v.pg_name)
)
SELECT r.run_id, r.pg_name, g.pg_desc, r.seq, r.op, r.issue,
  CASE r.issue WHEN 'missing_ranks' THEN r.missing
               WHEN 'op_mismatch' THEN r.odd_op
               WHEN 'size_mismatch' THEN r.odd_size
               WHEN 'dtype_mismatch' THEN r.odd_dtype
               WHEN 'stuck' THEN trim(coalesce(r.started, '') || ','
                                      || coalesce(r.scheduled, ''), ',')
               ELSE NULL END AS culprit_ranks,
  r.members, r.completed, r.started, r.scheduled,
  r.missing AS missing_ranks, r.rank_states,
  CASE r.issue WHEN 'op_mismatch' THEN r.op_detail
               WHEN 'size_mismatch' THEN r.size_detail
               WHEN 'dtype_mismatch' THEN r.dtype_detail END AS detail,
  r.rn
FROM ranked r LEFT JOIN g ON g.run_id = r.run_id AND g.pg_name = r.pg_name
UNION ALL
SELECT o.run_id, o.pg_name, g.pg_desc, o.seq, o.op, 'ok', NULL, o.members,
  o.completed, o.started, o.scheduled, o.missing, o.rank_states, NULL, NULL
FROM okrow o LEFT JOIN g ON g.run_id = o.run_id AND g.pg_name = o.pg_name;

INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('category_owner', 'parameter', NULL, 0,
   'the categories a dedicated rule reports (not top-category)');
