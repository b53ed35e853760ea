-- hta-overlap-insert.sql — one device's exclusive time under one
-- combination of classes. Used by src/analysis/derive_hta_overlap.c,
-- hta_overlap_rank().
INSERT INTO hta_overlap_sum(run_id, rank, device, compute, comm, memory,
                            ns, pieces)
VALUES(?, ?, ?, ?, ?, ?, ?, ?)
