-- load-fr-load-groups.sql — pg_config: v2 {name: {name, desc, ranks
-- "[..]"}}, v1 {pg_id: [ranks]}. Used by src/comm/load_fr.c, load_groups().
INSERT INTO fr_group(run_id,file_id,rank,pg_name,pg_desc,ranks,size)
  VALUES(?1,?2,?3,?4,?5,?6,?7)
