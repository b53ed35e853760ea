-- history-same-schedule.sql — Step counts of runs ?1 and ?2 and of the
-- (rank, step) pairs they share: whether two runs ran the same schedule.
-- Used by src/history/history.c, history_same_schedule().
SELECT (SELECT count(*) FROM step WHERE run_id=?1),
  (SELECT count(*) FROM step WHERE run_id=?2),
  (SELECT count(*) FROM step a JOIN step b ON b.run_id=?2
   AND b.rank=a.rank AND b.step=a.step WHERE a.run_id=?1)
