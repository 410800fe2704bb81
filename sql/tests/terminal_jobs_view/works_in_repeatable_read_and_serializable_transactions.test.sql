-- the view awa.terminal_jobs is not guarded: it works the same in REPEATABLE READ and
-- SERIALIZABLE transactions as at READ COMMITTED.
\set setup 'select * from awa.insert_job(''k'', ''{}'', ''{"queue": "iso_pend"}'');'
\set report 'awa_test.outcome($$select count(*) as n from awa.terminal_jobs$$)'
\set effect '(select count(*) = 0 as ok from awa.terminal_jobs where queue = ''iso_pend'')'
\ir ../works_at_each_level.psql
