-- awa.get_job reads the same in REPEATABLE READ and SERIALIZABLE transactions
-- as at READ COMMITTED when no prune intervenes (across a prune, outside
-- READ COMMITTED, it raises 40001 as the other read surfaces).
\set setup 'select * from awa.insert_job(''k'', ''{}'', ''{"queue": "iso_pend"}'');'
\set report 'awa_test.outcome($$select count(*) as n from awa.get_job((select max(id) from awa.jobs))$$)'
\set effect '(select count(*) = 1 as ok from awa.get_job((select max(id) from awa.jobs where queue = ''iso_pend'')) where state = ''available'')'
\ir ../works_at_each_level.psql
