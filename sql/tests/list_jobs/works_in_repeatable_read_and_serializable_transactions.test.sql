-- awa.list_jobs reads the same in REPEATABLE READ and SERIALIZABLE
-- transactions as at READ COMMITTED when no prune intervenes (across a
-- prune, outside READ COMMITTED, it raises 40001 as the other read surfaces).
\set setup 'select * from awa.insert_job(''k'', ''{}'', ''{"queue": "iso_pend"}'');'
\set report 'awa_test.outcome($$select count(*) as n from awa.list_jobs(p_queue => ''iso_pend'')$$)'
\set effect '(select count(*) = 1 as ok from awa.list_jobs(p_queue => ''iso_pend'') where state = ''available'')'
\ir ../works_at_each_level.psql
