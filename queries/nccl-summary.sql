-- name: nccl-summary
-- description: NCCL communicators from NCCL_DEBUG=INFO logs, one row per
-- description: communicator (commId; (host, pid, pointer) when the log
-- description: lacks it): version, size, ranks seen, transports, channels,
-- description: init time and warnings of the processes involved.
-- param: limit:int>=0 = 100      rows to show
-- column: comm_id          commId hash (cross-rank key), or host:pid:pointer
-- column: nranks           ranks in the communicator
-- column: ranks_seen       ranks whose init line is in the logs
-- column: hosts            host names of the member processes
-- column: version          NCCL version of the processes
-- column: init_func        ncclCommInitRank, ncclCommSplit, ...
-- column: transports       connection transports (P2P, SHM, NET, NVLS, ...)
-- column: links            connection lines
-- column: coll_channels    collective channels
-- column: p2p_channels     point-to-point channels
-- column: rings            ring channels listed by rank 0
-- column: init_s           slowest "Init timings" total, s
-- column: bootstrap_s      slowest "Bootstrap timings" total, s
-- column: collectives      collective / p2p calls logged on the communicator
-- column: warnings         WARN and warning-like INFO lines of its processes
-- column: end_state        Destroy / Abort when logged
WITH c AS MATERIALIZED (
  SELECT *, coalesce(comm_id, host || ':' || pid || ':' || comm) AS key
  FROM nccl_comm WHERE run_id = :run
),
-- a link belongs to its communicator row, or, when the log did not say
-- which, to every communicator of its process (two equi-joins: an OR join
-- compared every link with every communicator)
lm AS (
  SELECT c.key, l.transport, l.rowid AS link
  FROM nccl_link l JOIN c ON c.id = l.comm_row
  WHERE l.run_id = :run
  UNION
  SELECT c.key, l.transport, l.rowid
  FROM nccl_link l JOIN c ON l.file_id = c.file_id AND l.host = c.host
    AND l.pid = c.pid
  WHERE l.run_id = :run AND l.comm_row IS NULL
),
lk AS MATERIALIZED (
  SELECT key, transport, count(*) AS n FROM lm GROUP BY key, transport
),
w AS MATERIALIZED (
  SELECT k.key, count(*) AS n
  FROM (SELECT DISTINCT key, file_id, host, pid FROM c) k
  JOIN nccl_warning w ON w.run_id = :run AND w.file_id = k.file_id
    AND w.host = k.host AND w.pid = k.pid
  GROUP BY k.key
),
co AS MATERIALIZED (
  SELECT c.key, count(*) AS n FROM nccl_coll x JOIN c ON x.comm_row = c.id
  WHERE x.run_id = :run GROUP BY c.key
)
SELECT c.key AS comm_id, max(c.nranks) AS nranks,
  count(DISTINCT c.rank) AS ranks_seen,
  group_concat(DISTINCT c.host) AS hosts,
  group_concat(DISTINCT c.version) AS version,
  max(c.func) AS init_func,
  (SELECT group_concat(transport, ',') FROM
    (SELECT transport FROM lk WHERE lk.key = c.key ORDER BY transport))
    AS transports,
  (SELECT sum(n) FROM lk WHERE lk.key = c.key) AS links,
  max(c.n_coll_channels) AS coll_channels,
  max(c.n_p2p_channels) AS p2p_channels,
  max(c.n_rings) AS rings,
  max(c.init_total_s) AS init_s,
  max(c.bootstrap_s) AS bootstrap_s,
  coalesce((SELECT n FROM co WHERE co.key = c.key), 0) AS collectives,
  coalesce((SELECT n FROM w WHERE w.key = c.key), 0) AS warnings,
  group_concat(DISTINCT c.end_state) AS end_state
FROM c
GROUP BY c.key
ORDER BY min(c.id)
LIMIT :limit;
