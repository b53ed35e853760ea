-- name: fr-hang
-- description: Flight-recorder dumps: per process group, the first
-- description: collective sequence id where the ranks disagree, the way
-- description: PyTorch's fr_trace analyser reports it: ranks that never
-- description: enqueued it (the usual hang culprit), mismatched op, sizes
-- description: or dtypes, ranks stuck in it while others completed it, or
-- description: no rank completing it.  A group without disagreement gets
-- description: one 'ok' row for its last sequence id.  Entries lost to the
-- description: ring buffer (older than a rank's first entry) are not
-- description: counted as missing.
-- param: pg:text =             only this process group name
-- param: all:bool = 0          1: every disagreeing sequence id, not only the first
-- column: pg_name          process group name
-- column: pg_desc          process group description
-- column: seq              collective_seq_id
-- column: op               collective (majority op of the ranks that have it)
-- column: issue            missing_ranks, op_mismatch, size_mismatch, dtype_mismatch, stuck, not_completed or ok
-- column: culprit_ranks    ranks the issue points at
-- column: members          ranks of the group
-- column: completed        ranks that completed it
-- column: started          ranks in state started
-- column: scheduled        ranks in state scheduled
-- column: missing_ranks    members that never enqueued it
-- column: rank_states      rank:state for every member (not_enqueued, no_dump, dropped)
-- column: detail           sizes / ops of the culprits
WITH g AS (
  SELECT pg_name, max(pg_desc) AS pg_desc, max(ranks) AS ranks
  FROM fr_group WHERE run_id = :run GROUP BY pg_name
),
dumps AS (SELECT DISTINCT rank FROM fr_dump WHERE run_id = :run),
e AS (
  SELECT rank, pg_name, max(pg_desc) AS pg_desc, collective_seq_id AS seq,
    op, state, input_sizes, output_sizes, input_numel, output_numel,
    input_dtypes, output_dtypes, min(record_id) AS record_id
  FROM fr_entry
  WHERE run_id = :run AND coalesce(is_p2p, 0) = 0
    AND collective_seq_id IS NOT NULL AND pg_name IS NOT NULL
    AND (:pg IS NULL OR pg_name = :pg)
  GROUP BY rank, pg_name, collective_seq_id
),
mem AS (
  SELECT g.pg_name, CAST(j.value AS INTEGER) AS member
  FROM g, json_each(CASE WHEN json_valid(g.ranks) THEN g.ranks END) j
  UNION
  SELECT DISTINCT pg_name, rank FROM e
  WHERE pg_name NOT IN (SELECT pg_name FROM g WHERE json_valid(ranks))
),
rng AS (
  SELECT rank, pg_name, min(seq) AS lo, max(seq) AS hi FROM e
  GROUP BY rank, pg_name
),
seqs AS (SELECT DISTINCT pg_name, seq FROM e),
cell AS (
  SELECT s.pg_name, s.seq, m.member AS rank, x.op, x.state,
    x.input_sizes, x.output_sizes, x.input_numel, x.output_numel,
    x.input_dtypes, x.output_dtypes,
    CASE WHEN x.rank IS NOT NULL THEN x.state
         WHEN m.member NOT IN (SELECT rank FROM dumps) THEN 'no_dump'
         WHEN r.rank IS NULL OR r.hi < s.seq THEN 'not_enqueued'
         ELSE 'dropped' END AS status
  FROM seqs s JOIN mem m ON m.pg_name = s.pg_name
  LEFT JOIN e x ON x.pg_name = s.pg_name AND x.seq = s.seq
    AND x.rank = m.member
  LEFT JOIN rng r ON r.pg_name = s.pg_name AND r.rank = m.member
),
mode AS (
  SELECT pg_name, seq,
    (SELECT op FROM cell c2 WHERE c2.pg_name = c.pg_name AND c2.seq = c.seq
       AND op IS NOT NULL GROUP BY op ORDER BY count(*) DESC, op LIMIT 1)
      AS op,
    (SELECT input_sizes FROM cell c2 WHERE c2.pg_name = c.pg_name
       AND c2.seq = c.seq AND input_sizes IS NOT NULL
       GROUP BY input_sizes ORDER BY count(*) DESC, input_sizes LIMIT 1)
      AS in_sizes,
    (SELECT output_sizes FROM cell c2 WHERE c2.pg_name = c.pg_name
       AND c2.seq = c.seq AND output_sizes IS NOT NULL
       GROUP BY output_sizes ORDER BY count(*) DESC, output_sizes LIMIT 1)
      AS out_sizes,
    (SELECT input_dtypes FROM cell c2 WHERE c2.pg_name = c.pg_name
       AND c2.seq = c.seq AND input_dtypes IS NOT NULL
       GROUP BY input_dtypes ORDER BY count(*) DESC, input_dtypes LIMIT 1)
      AS dtypes,
    count(*) AS n_members
  FROM cell c GROUP BY pg_name, seq
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
  FROM cell c JOIN mode m ON m.pg_name = c.pg_name AND m.seq = c.seq
),
agg AS (
  SELECT pg_name, seq, max(mode_op) AS op,
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
  FROM (SELECT * FROM flag ORDER BY pg_name, seq, rank)
  GROUP BY pg_name, seq
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
  SELECT *, row_number() OVER (PARTITION BY pg_name ORDER BY seq) AS rn
  FROM verdict WHERE issue IS NOT NULL
),
okrow AS (
  SELECT v.*, 'ok' AS issue2 FROM verdict v
  WHERE v.pg_name NOT IN (SELECT pg_name FROM ranked)
    AND v.seq = (SELECT max(seq) FROM verdict v2 WHERE v2.pg_name = v.pg_name)
)
SELECT r.pg_name, g.pg_desc, r.seq, r.op, r.issue,
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
               WHEN 'dtype_mismatch' THEN r.dtype_detail END AS detail
FROM ranked r LEFT JOIN g ON g.pg_name = r.pg_name
WHERE r.rn = 1 OR :all
UNION ALL
SELECT o.pg_name, g.pg_desc, o.seq, o.op, o.issue2, NULL, o.members,
  o.completed, o.started, o.scheduled, o.missing, o.rank_states, NULL
FROM okrow o LEFT JOIN g ON g.pg_name = o.pg_name
ORDER BY 1, 3;
