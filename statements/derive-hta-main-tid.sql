-- derive-hta-main-tid.sql — The rank's main thread: the one with its
-- ProfilerStep ranges, else the thread with the most CPU events. Used by
-- src/analysis/derive_hta.c, main_tid().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT a.tid FROM annotation a JOIN string s ON s.id=a.name_id
  WHERE a.run_id=%lld AND a.rank=%lld AND a.kind='user'
  AND s.text LIKE 'ProfilerStep#%%' LIMIT 1
