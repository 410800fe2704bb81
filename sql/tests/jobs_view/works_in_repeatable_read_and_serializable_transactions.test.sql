-- the view awa.jobs is not guarded: it works the same in REPEATABLE READ and
-- SERIALIZABLE transactions as at READ COMMITTED.
\set setup 'select * from awa.insert_job(''k'', ''{}'', ''{"queue": "iso_pend"}'');'
\set report 'awa_test.outcome($$select count(*) as n from awa.jobs where queue = ''iso_pend''$$)'
\set effect '(select count(*) = 1 as ok from awa.jobs where queue = ''iso_pend'' and state = ''available'')'
\ir ../works_at_each_level.psql
