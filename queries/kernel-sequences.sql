-- name: kernel-sequences
-- description: The most frequent sequences of consecutive kernels on a
-- description: stream (lengths min_length..max_length, 1 to 8): fusion
-- description: candidates.  Every start position counts, so occurrences of
-- description: a repeated pattern may overlap.  Kernels only: memcpy and
-- description: memset rows neither join nor break a sequence.  The counts
-- description: are stored at ingest (view kernel_sequence).
-- param: rank:rank =           only this rank (empty: all ranks)
-- param: min_length:int>=1 = 2   shortest sequence
-- param: max_length:int>=1 = 4   longest sequence (8 at most)
-- param: limit:int>=1 = 20       rows to show
-- column: rank             rank
-- column: stream           CUDA stream
-- column: length           kernels in the sequence
-- column: count            occurrences
-- column: total_ms         summed kernel time of all occurrences, ms
-- column: mean_span_us     mean first start -> last end of an occurrence, us
-- column: sequence         kernel names in order, ' -> ' between
WITH top AS (
  SELECT rank, stream, length, seq, n, ns, span_ns * 1.0 / n AS span
  FROM kernel_sequence
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
    AND length BETWEEN :min_length AND :max_length
  ORDER BY n DESC, ns DESC, length DESC, rank, stream, seq
  LIMIT :limit
),
-- each row's names looked up one id at a time; the row's numbers ride
-- along (a join of the named rows back to top had no index: quadratic
-- in the rows asked for)
named(rank, stream, length, seq, n, ns, span, rest, sequence) AS (
  SELECT rank, stream, length, seq, n, ns, span, seq || ',', NULL FROM top
  UNION ALL
  SELECT n.rank, n.stream, n.length, n.seq, n.n, n.ns, n.span,
    substr(n.rest, instr(n.rest, ',') + 1),
    CASE WHEN n.sequence IS NULL THEN s.text
         ELSE n.sequence || ' -> ' || s.text END
  FROM named n
  JOIN string s ON s.id = CAST(substr(n.rest, 1, instr(n.rest, ',') - 1)
                               AS INTEGER)
  WHERE n.rest <> ''
)
SELECT rank, stream, length, n AS count,
  round(ns / 1e6, 3) AS total_ms, round(span / 1e3, 3) AS mean_span_us,
  sequence
FROM named WHERE rest = ''
ORDER BY n DESC, ns DESC, length DESC, rank, stream, seq;
