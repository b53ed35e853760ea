-- name: fr-hang
-- description: Flight-recorder dumps: per process group, the first
-- description: collective sequence id where the ranks disagree, the way
-- description: PyTorch's fr_trace analyser reports it: ranks that never
-- description: enqueued it (the usual hang culprit), mismatched op, sizes
-- description: or dtypes, ranks stuck in it while others completed it, or
-- description: no rank completing it.  A group without disagreement gets
-- description: one 'ok' row for its last sequence id.  Entries lost to the
-- description: ring buffer (older than a rank's first entry) are not
-- description: counted as missing.  Rows of the view fr_issue, which the
-- description: flight-recorder rule reads too.
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
SELECT pg_name, pg_desc, seq, op, issue, culprit_ranks, members, completed,
  started, scheduled, missing_ranks, rank_states, detail
FROM fr_issue
WHERE run_id = :run AND (:pg IS NULL OR pg_name = :pg)
  AND (rn = 1 OR :all OR issue = 'ok')
ORDER BY pg_name, seq;
