-- name: collectives
-- description: Collectives executed on the GPU (NCCL/RCCL kernels) per
-- description: rank, op, process group and message-size bucket: count,
-- description: time, bytes, algorithm and bus bandwidth (nccl-tests
-- description: definitions: algbw = bytes / time; busbw = algbw x 2(n-1)/n
-- description: for all_reduce, (n-1)/n for all_gather, reduce_scatter and
-- description: all_to_all, 1 otherwise; bytes = max(in, out) elements x size).
-- param: rank:rank =           only this rank (empty: all ranks)
-- param: op:text =             only this op (all_reduce, all_gather, ...)
-- param: limit:int>=0 = 200      rows to show
-- column: rank             rank
-- column: op               collective (all_reduce, all_gather, reduce_scatter, all_to_all, ...)
-- column: pg_name          process group name when the trace records it
-- column: group_size       ranks in the group (world size when unrecorded)
-- column: size_bucket      message size bucket
-- column: count            kernels
-- column: total_ms         summed kernel time, ms
-- column: avg_us           mean kernel time, µs
-- column: total_bytes      summed message bytes (kernels with a known size)
-- column: avg_bytes        mean message bytes
-- column: algbw_gbps       total_bytes / time of the sized kernels, GB/s
-- column: busbw_gbps       algbw x bus factor, GB/s
-- column: args_from        where the sizes came from (kernel, cpu_op, annotation, name)
-- column: time_bar         total_ms / all collective time of the rank, as a bar
WITH c AS (
  SELECT *,
    CASE WHEN bytes IS NULL THEN 'unknown'
         WHEN bytes < 1024 THEN '<1KiB'
         WHEN bytes < 65536 THEN '1KiB-64KiB'
         WHEN bytes < 1048576 THEN '64KiB-1MiB'
         WHEN bytes < 16777216 THEN '1MiB-16MiB'
         WHEN bytes < 268435456 THEN '16MiB-256MiB'
         ELSE '>=256MiB' END AS bucket,
    CASE WHEN bytes IS NULL THEN 99
         WHEN bytes < 1024 THEN 0 WHEN bytes < 65536 THEN 1
         WHEN bytes < 1048576 THEN 2 WHEN bytes < 16777216 THEN 3
         WHEN bytes < 268435456 THEN 4 ELSE 5 END AS bucket_order
  FROM collective
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
    AND (:op IS NULL OR op = :op)
)
SELECT rank, op, pg_name, group_size, bucket AS size_bucket,
  count(*) AS count,
  round(sum(dur) / 1e6, 3) AS total_ms,
  round(avg(dur) / 1e3, 3) AS avg_us,
  sum(bytes) AS total_bytes,
  CAST(round(avg(bytes)) AS INTEGER) AS avg_bytes,
  round(sum(bytes) * 1.0
        / sum(CASE WHEN bytes IS NOT NULL THEN dur END), 3) AS algbw_gbps,
  round(sum(bytes * bus_factor)
        / sum(CASE WHEN bytes IS NOT NULL THEN dur END), 3) AS busbw_gbps,
  group_concat(DISTINCT args_from) AS args_from,
  round(1.0 * sum(dur) / sum(sum(dur)) OVER (PARTITION BY rank), 4)
    AS time_bar
FROM c
GROUP BY rank, op, pg_name, group_size, bucket
ORDER BY rank, op, pg_name, min(bucket_order)
LIMIT :limit;
