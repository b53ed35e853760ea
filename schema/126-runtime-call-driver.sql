-- 126-runtime-call-driver.sql — runtime_call.kind, the text 'runtime' or
-- 'driver' on every row (7 or 6 bytes), becomes runtime_call.driver, the
-- integer 1 for a driver API call (cuda_driver, hip_driver) and 0 for a
-- runtime one (cuda_runtime, Runtime, hip_runtime): SQLite stores 0 and 1
-- in no bytes (issue 35, the footprint: 1.0 of the 52.3 MB of bench shape
-- param-linear-2080ti x10, 145,150 calls).  runtime_call is a raw table:
-- its stored rows cannot be rebuilt, so they are converted here.  No index
-- or view names the column.  runtime_summary keeps its text column kind
-- ('runtime' / 'driver', what launch-overhead shows): one row per rank,
-- name and kind.

ALTER TABLE runtime_call ADD COLUMN driver INTEGER NOT NULL DEFAULT 0
  /* 1: a driver API call, 0: a runtime API call */;
UPDATE runtime_call SET driver = 1 WHERE kind = 'driver';
ALTER TABLE runtime_call DROP COLUMN kind;
