-- load-nccl-links-adopt.sql — Logs of NCCL 2.4-2.17 print a communicator's
-- init line only after its connection lines, so those links found no
-- communicator when they were read: give each to the communicator of its
-- process when the process has exactly one in this file.  Returns 0 or -1
-- with L->pErr set. Used by src/comm/load_nccl.c, links_adopt().
UPDATE nccl_link SET comm_row = (SELECT min(c.id) FROM nccl_comm c
  WHERE c.file_id = nccl_link.file_id AND c.host = nccl_link.host
  AND c.pid = nccl_link.pid)
  WHERE file_id = ?1 AND comm_row IS NULL AND 1 = (SELECT count(*)
  FROM nccl_comm c WHERE c.file_id = nccl_link.file_id
  AND c.host = nccl_link.host AND c.pid = nccl_link.pid)
