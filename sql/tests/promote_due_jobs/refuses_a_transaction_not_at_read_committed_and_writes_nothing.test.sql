-- awa.promote_due_jobs in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though a scheduled job is due;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select * from awa.insert_job(''iso_job'', ''{}'', ''{"queue": "iso", "run_at": "2030-01-01T00:00:00Z"}'');'
\set report 'awa_test.outcome($$select * from awa.promote_due_jobs(100, ''2031-01-01 00:00:00+00'')$$)'
\ir ../at_each_level.psql

begin;
select plan(8);
select * from awa_test.refused_outside_read_committed('awa.promote_due_jobs', :'rr', :'sr');
select is(:'rc'::jsonb ->> 'sqlstate', null, 'at read committed the call succeeds');
select isnt(:'rc'::jsonb -> 'written', '{}'::jsonb, 'at read committed the call writes');
select * from finish();
rollback;
