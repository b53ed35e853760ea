-- name: memcpy
-- description: Memory copies and sets by direction and memory kind (HtoD,
-- description: DtoH, DtoD; pinned or pageable host memory): time, count,
-- description: bytes and achieved bandwidth.
-- param: rank:rank =          only this rank (empty: every rank)
-- column: kind           'memcpy' or 'memset'
-- column: direction      HtoD, DtoH, DtoD, HtoH, PtoP (memset: empty)
-- column: src            source memory (Pageable, Pinned, Device ...)
-- column: dst            destination memory
-- column: count          operations
-- column: total_ms       GPU time, ms
-- column: bytes          bytes moved
-- column: avg_bytes      mean size per operation
-- column: gbps           bytes / time, GB/s (1e9 bytes per second)
SELECT kind, direction, src_kind AS src, dst_kind AS dst,
  count(*) AS count,
  round(sum(dur) / 1e6, 3) AS total_ms,
  sum(bytes) AS bytes,
  sum(bytes) / count(*) AS avg_bytes,
  round(1.0 * sum(bytes) / max(sum(dur), 1), 3) AS gbps
FROM gpu_mem_op
WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
GROUP BY kind, direction, src_kind, dst_kind
ORDER BY sum(dur) DESC;
