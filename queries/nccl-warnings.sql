-- name: nccl-warnings
-- description: NCCL WARN lines and INFO lines that carry a warning
-- description: (downgraded while NCCL probes), in log order.
-- param: limit:int>=0 = 100      rows to show
-- column: file             log file
-- column: line             line number in the log
-- column: host             host of the process
-- column: pid              process id
-- column: level            WARN, or INFO for a downgraded warning
-- column: source           NCCL source file:line when printed
-- column: message          the message
SELECT f.path AS file, w.line, w.host, w.pid, w.level,
  CASE WHEN w.src_file IS NOT NULL THEN w.src_file || ':' || w.src_line END
    AS source,
  w.message
FROM nccl_warning w JOIN run_file f ON f.id = w.file_id
WHERE w.run_id = :run
ORDER BY w.file_id, w.line
LIMIT :limit;
