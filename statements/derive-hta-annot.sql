-- derive-hta-annot.sql — A user annotation's tid NULL matches no thread:
-- read apart. Used by src/analysis/derive_hta_annot.c.
SELECT a.id, a.rank, a.tid, a.ts, a.ts+a.dur, a.tid IS NULL
  FROM annotation a JOIN string s ON s.id=a.name_id
  WHERE a.run_id=?1 AND a.kind='user'
  AND s.text NOT LIKE 'ProfilerStep#%'
