-- name: nccl-collectives
-- description: Collective and point-to-point calls from NCCL logs
-- description: ("<Op>: opCount ... count ... datatype ..." lines) per op,
-- description: message size, dtype and communicator: calls and bytes.
-- param: op:text =             only this op as printed (AllReduce, Send, ...)
-- param: rank:rank =           only calls of this rank
-- param: limit:int>=0 = 100      rows to show
-- column: op               NCCL op as printed
-- column: comm_id          communicator commId (pointer when unknown)
-- column: nranks           communicator size
-- column: dtype            element type (float32, bfloat16, fp8_e4m3, ...)
-- column: redop            reduction (sum, max, ...; also set on non-reductions)
-- column: count            elements per call (per rank for AllGather/ReduceScatter)
-- column: size_bytes       bytes per call (count x element size)
-- column: calls            calls logged (all ranks)
-- column: ranks            distinct ranks that logged them
-- column: total_bytes      size_bytes x calls
SELECT x.op, coalesce(c.comm_id, x.comm) AS comm_id,
  max(x.nranks) AS nranks, x.dtype, x.redop, x.count,
  x.bytes AS size_bytes, count(*) AS calls,
  count(DISTINCT x.rank) AS ranks,
  sum(x.bytes) AS total_bytes
FROM nccl_coll x LEFT JOIN nccl_comm c ON c.id = x.comm_row
WHERE x.run_id = :run AND (:op IS NULL OR x.op = :op)
  AND (:rank IS NULL OR x.rank = :rank)
GROUP BY x.op, coalesce(c.comm_id, x.comm), x.dtype, x.redop, x.count,
  x.bytes
ORDER BY sum(x.bytes) DESC, x.op, x.count
LIMIT :limit;
