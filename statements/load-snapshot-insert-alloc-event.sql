-- load-snapshot-insert-alloc-event.sql — the alloc_event rows of one
-- snapshot's device trace, from the virtual table the loader feeds (its
-- columns: load-snapshot-feed.sql, alloc_event's in its order; a column
-- added to alloc_event and not to the feed fails here).  Used by
-- src/memory/load_snapshot.c, loader_open().
INSERT INTO alloc_event SELECT * FROM profan_snapshot_event_feed
