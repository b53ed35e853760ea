-- name: nccl-warnings
-- description: NCCL's own warnings in the run's NCCL logs: WARN lines
-- description: (high: NCCL reported an error it may not recover from,
-- description: a transport fault, a timeout) and INFO lines that carry a
-- description: warning NCCL downgraded while it probes (low).  One
-- description: finding per level, with the count and the first line;
-- description: `profan query nccl-warnings` lists them all.
WITH w AS (
  SELECT w.level, w.line, w.message, w.src_file, w.src_line, f.path,
    row_number() OVER (PARTITION BY w.level ORDER BY w.file_id, w.line)
      AS k,
    count(*) OVER (PARTITION BY w.level) AS n
  FROM nccl_warning w JOIN run_file f ON f.id = w.file_id
  WHERE w.run_id = :run
)
SELECT CASE level WHEN 'WARN' THEN 'high' ELSE 'low' END AS severity,
  'nccl-warnings' AS rule,
  printf('%d NCCL %s in the NCCL log%s; the first: %s line %d%s: %s', n,
         CASE level WHEN 'WARN' THEN 'WARN line' || CASE WHEN n > 1
                                    THEN 's' ELSE '' END
              ELSE 'warning' || CASE WHEN n > 1 THEN 's' ELSE '' END
                   || ' downgraded to INFO' END,
         CASE WHEN (SELECT count(DISTINCT file_id) FROM nccl_warning
                    WHERE run_id = :run) > 1 THEN 's' ELSE '' END,
         path, line,
         CASE WHEN src_file IS NOT NULL
              THEN ' (' || src_file || ':' || src_line || ')' ELSE '' END,
         message) AS message,
  n AS value, 0 AS threshold,
  CASE level WHEN 'WARN'
    THEN 'NCCL reported an error: read the named transport or call (IB,'
         || ' socket, CUDA) and check the network, the drivers and'
         || ' NCCL_* settings on that host; profan query nccl-warnings'
    ELSE 'NCCL fell back while probing (a transport or symbol it could not'
         || ' use): harmless unless that transport was expected;'
         || ' profan query nccl-warnings'
  END AS hint
FROM w WHERE k = 1
ORDER BY level DESC;
