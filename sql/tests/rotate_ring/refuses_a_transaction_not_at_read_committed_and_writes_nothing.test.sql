-- awa.rotate_ring in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though the current queue slot holds a job;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select * from awa.insert_job(''iso_job'', ''{}'', ''{"queue": "iso"}'');'
\set report 'awa_test.outcome($$select * from awa.rotate_ring(''queue'', now(), ''0 seconds'')$$)'
\ir ../at_each_level.psql

begin;
select plan(8);
select * from awa_test.refused_outside_read_committed('awa.rotate_ring', :'rr', :'sr');
select is(:'rc'::jsonb ->> 'sqlstate', null, 'at read committed the call succeeds');
select isnt(:'rc'::jsonb -> 'written', '{}'::jsonb, 'at read committed the call writes');
select * from finish();
rollback;
