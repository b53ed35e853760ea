-- load-snapshot-feed.sql — the columns of the virtual table
-- profan_snapshot_event_feed that feeds the alloc_event rows of a
-- snapshot's device trace (src/memory/load_snapshot.c: feed_connect()
-- declares it with this statement, feed_column() returns the columns in
-- this order): alloc_event's columns in alloc_event's order, so that
-- load-snapshot-insert-alloc-event.sql copies a row as it is.
-- tests/check_db.c makes a table of these columns to prepare that
-- statement.
CREATE TABLE x(run_id, file_id, snapshot_id, idx, action, addr, size,
  stream, time_us, stack_id, device_free, allocated_after, active_after,
  reserved_after, alloc_idx, free_idx)
