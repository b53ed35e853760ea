-- name: kernel-sequences
-- description: The most frequent sequences of consecutive kernels on a
-- description: stream (lengths min_length..max_length, 1 to 8): fusion
-- description: candidates.  Every start position counts, so occurrences of
-- description: a repeated pattern may overlap.  Kernels only: memcpy and
-- description: memset rows neither join nor break a sequence.
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
WITH k AS MATERIALIZED (
  SELECT rank, device, stream, ts, dur, name_id,
    lead(name_id, 1) OVER w AS n1, lead(name_id, 2) OVER w AS n2,
    lead(name_id, 3) OVER w AS n3, lead(name_id, 4) OVER w AS n4,
    lead(name_id, 5) OVER w AS n5, lead(name_id, 6) OVER w AS n6,
    lead(name_id, 7) OVER w AS n7,
    lead(dur, 1) OVER w AS d1, lead(dur, 2) OVER w AS d2,
    lead(dur, 3) OVER w AS d3, lead(dur, 4) OVER w AS d4,
    lead(dur, 5) OVER w AS d5, lead(dur, 6) OVER w AS d6,
    lead(dur, 7) OVER w AS d7,
    lead(ts + dur, 1) OVER w AS e1, lead(ts + dur, 2) OVER w AS e2,
    lead(ts + dur, 3) OVER w AS e3, lead(ts + dur, 4) OVER w AS e4,
    lead(ts + dur, 5) OVER w AS e5, lead(ts + dur, 6) OVER w AS e6,
    lead(ts + dur, 7) OVER w AS e7
  FROM kernel
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
  WINDOW w AS (PARTITION BY rank, device, stream ORDER BY ts, id)
),
occ(rank, stream, length, seq, ns, span) AS (
  SELECT rank, stream, 1, CAST(name_id AS TEXT), dur, dur FROM k
  UNION ALL SELECT rank, stream, 2, name_id || ',' || n1, dur + d1, e1 - ts
    FROM k WHERE n1 IS NOT NULL
  UNION ALL SELECT rank, stream, 3, name_id || ',' || n1 || ',' || n2,
    dur + d1 + d2, e2 - ts FROM k WHERE n2 IS NOT NULL
  UNION ALL SELECT rank, stream, 4,
    name_id || ',' || n1 || ',' || n2 || ',' || n3,
    dur + d1 + d2 + d3, e3 - ts FROM k WHERE n3 IS NOT NULL
  UNION ALL SELECT rank, stream, 5,
    name_id || ',' || n1 || ',' || n2 || ',' || n3 || ',' || n4,
    dur + d1 + d2 + d3 + d4, e4 - ts FROM k WHERE n4 IS NOT NULL
  UNION ALL SELECT rank, stream, 6,
    name_id || ',' || n1 || ',' || n2 || ',' || n3 || ',' || n4 || ',' || n5,
    dur + d1 + d2 + d3 + d4 + d5, e5 - ts FROM k WHERE n5 IS NOT NULL
  UNION ALL SELECT rank, stream, 7,
    name_id || ',' || n1 || ',' || n2 || ',' || n3 || ',' || n4 || ',' || n5
      || ',' || n6,
    dur + d1 + d2 + d3 + d4 + d5 + d6, e6 - ts FROM k WHERE n6 IS NOT NULL
  UNION ALL SELECT rank, stream, 8,
    name_id || ',' || n1 || ',' || n2 || ',' || n3 || ',' || n4 || ',' || n5
      || ',' || n6 || ',' || n7,
    dur + d1 + d2 + d3 + d4 + d5 + d6 + d7, e7 - ts FROM k WHERE n7 IS NOT NULL
),
top AS (
  SELECT rank, stream, length, seq, count(*) AS n, sum(ns) AS ns,
    avg(span) AS span
  FROM occ WHERE length BETWEEN :min_length AND :max_length
  GROUP BY rank, stream, length, seq
  ORDER BY n DESC, ns DESC, length DESC, rank, stream, seq
  LIMIT :limit
),
named(rank, stream, length, seq, rest, sequence) AS (
  SELECT rank, stream, length, seq, seq || ',', NULL FROM top
  UNION ALL
  SELECT n.rank, n.stream, n.length, n.seq,
    substr(n.rest, instr(n.rest, ',') + 1),
    CASE WHEN n.sequence IS NULL THEN s.text
         ELSE n.sequence || ' -> ' || s.text END
  FROM named n
  JOIN string s ON s.id = CAST(substr(n.rest, 1, instr(n.rest, ',') - 1)
                               AS INTEGER)
  WHERE n.rest <> ''
)
SELECT t.rank, t.stream, t.length, t.n AS count,
  round(t.ns / 1e6, 3) AS total_ms, round(t.span / 1e3, 3) AS mean_span_us,
  n.sequence
FROM top t JOIN named n ON n.rank = t.rank AND n.stream IS t.stream
  AND n.length = t.length AND n.seq = t.seq AND n.rest = ''
ORDER BY t.n DESC, t.ns DESC, t.length DESC, t.rank, t.stream, t.seq;
