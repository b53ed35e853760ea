-- name: overlap-slices
-- description: Exclusive GPU time of each combination of compute,
-- description: communication and memory activity per rank and GPU: the
-- description: active span cut at every start and end, each piece counted
-- description: once under the set of classes running in it (compute only,
-- description: compute+comm, comm only, compute+memory, ...; idle = none).
-- description: The rows of a GPU add up to its span.  Classes come from the
-- description: coarse kernel categories; memcpy/memset rows are memory.
-- param: rank:rank =           only this rank (empty: all ranks)
-- column: rank             rank
-- column: device           GPU ordinal
-- column: slice            classes running together ('idle' for none)
-- column: time_ms          exclusive time of the combination, ms
-- column: pct              time_ms / the GPU's span, %
-- column: pieces           pieces between consecutive start/end points
WITH sl AS (              -- stored at ingest (schema 100)
  SELECT rank, device, compute, comm, memory, ns, pieces
  FROM hta_overlap_slice
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
)
SELECT rank, device,
  CASE WHEN compute + comm + memory = 0 THEN 'idle' ELSE
    substr(CASE WHEN compute THEN '+compute' ELSE '' END
        || CASE WHEN comm THEN '+comm' ELSE '' END
        || CASE WHEN memory THEN '+memory' ELSE '' END, 2) END AS slice,
  round(ns / 1e6, 3) AS time_ms,
  round(100.0 * ns / sum(ns) OVER (PARTITION BY rank, device), 2) AS pct,
  pieces
FROM sl
ORDER BY rank, device, ns DESC;
