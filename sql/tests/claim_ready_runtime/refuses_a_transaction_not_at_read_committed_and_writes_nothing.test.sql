-- awa.claim_ready_runtime in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though a ready job is there to claim;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select * from awa.insert_job(''iso_job'', ''{}'', ''{"queue": "iso"}'');'
\set report 'awa_test.outcome($$select * from awa.claim_ready_runtime(''iso'', 1)$$)'
\ir ../at_each_level.psql

begin;
select plan(8);
select * from awa_test.refused_outside_read_committed('awa.claim_ready_runtime', :'rr', :'sr');
select is(:'rc'::jsonb ->> 'sqlstate', null, 'at read committed the call succeeds');
select isnt(:'rc'::jsonb -> 'written', '{}'::jsonb, 'at read committed the call writes');
select * from finish();
rollback;
