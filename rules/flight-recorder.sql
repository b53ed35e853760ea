-- name: flight-recorder
-- description: Flight-recorder dumps that show why a job hung or failed:
-- description: per process group, the first collective where the ranks
-- description: disagree (view fr_issue, the fr-hang query's rows): ranks
-- description: that never enqueued it, a mismatched op, size or dtype,
-- description: ranks stuck in it while others completed it, or no rank
-- description: completing it.  One finding per process group.
SELECT 'high' AS severity, 'flight-recorder' AS rule,
  printf('process group %s%s: %s (sequence %d): %s', pg_name,
         CASE WHEN pg_desc IS NOT NULL THEN ' (' || pg_desc || ')' ELSE ''
         END, coalesce(op, '?'), seq,
         CASE issue
           WHEN 'missing_ranks' THEN printf('rank%s %s never enqueued it;'
             || ' %s waited in it',
             CASE WHEN instr(culprit_ranks, ',') THEN 's' ELSE '' END,
             culprit_ranks, coalesce('rank ' || nullif(trim(coalesce(started,
               '') || ',' || coalesce(scheduled, ''), ','), ''),
               'no other rank'))
           WHEN 'op_mismatch' THEN 'ranks called different collectives: '
             || detail
           WHEN 'size_mismatch' THEN 'ranks passed different sizes: '
             || detail
           WHEN 'dtype_mismatch' THEN 'ranks passed different dtypes: '
             || detail
           WHEN 'stuck' THEN printf('rank %s did not finish it while rank %s'
             || ' completed it', culprit_ranks, completed)
           ELSE 'no rank completed it: ' || rank_states
         END) AS message,
  length(coalesce(culprit_ranks, members))
    - length(replace(coalesce(culprit_ranks, members), ',', '')) + 1
    AS value,
  0 AS threshold,
  CASE issue
    WHEN 'missing_ranks' THEN 'the named ranks never reached this'
      || ' collective: they hung or took another code path before it (look'
      || ' at their stacks); the others are stuck waiting for them'
    WHEN 'op_mismatch' THEN 'ranks issued different collectives at the'
      || ' same sequence number: a code path differs between ranks'
    WHEN 'size_mismatch' THEN 'ranks passed tensors of different sizes to'
      || ' the same collective: check the shapes on the named ranks'
    WHEN 'dtype_mismatch' THEN 'ranks passed different dtypes to the same'
      || ' collective: check the casts on the named ranks'
    WHEN 'stuck' THEN 'the named ranks are inside the collective while the'
      || ' others left it: a peer or the network stalled them, or their GPU'
      || ' is hung'
    ELSE 'no rank finished the collective: the collective itself hung'
      || ' (network, NCCL); see profan query fr-hang'
  END AS hint
FROM fr_issue
WHERE run_id = :run AND rn = 1
ORDER BY pg_name;
