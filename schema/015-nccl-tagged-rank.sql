-- 015-nccl-tagged-rank.sql — the "[N]" some NCCL logs print between
-- "NCCL INFO" and a collective record ("NCCL INFO [2] AllReduce: opCount
-- ...").  Stock NCCL prints no number there (enqueue.cc's COLL format has
-- none in any release 2.3-2.30); where NCCL itself puts "[%d]" or
-- "[Rank %d]" right after "NCCL INFO" (the 2.29+ Init START line, the
-- GIN and device-runtime lines) the value is the communicator rank, so
-- that is what this column holds: the rank the line is tagged with, as
-- printed, NULL when the line has no tag.  `rank` stays the rank of the
-- communicator's init line (NULL when the log has none).
ALTER TABLE nccl_coll ADD COLUMN tagged_rank INTEGER;
