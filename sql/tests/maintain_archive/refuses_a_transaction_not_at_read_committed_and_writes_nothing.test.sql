-- awa.maintain_archive in a REPEATABLE READ or SERIALIZABLE transaction raises
-- AW040, naming itself and the level, and writes nothing, though cohorts are
-- missing; at READ COMMITTED the same call creates them. Each level needs its
-- own transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select 1;'
\set report 'awa_test.outcome($$select * from awa.maintain_archive()$$)'
\ir ../at_each_level.psql

begin;
select plan(8);
select * from awa_test.refused_outside_read_committed('awa.maintain_archive', :'rr', :'sr');
select is(:'rc'::jsonb ->> 'sqlstate', null, 'at read committed the call succeeds');
select is(:'rc'::jsonb #>> '{result,outcome}', 'created', 'at read committed the call creates cohorts');
select * from finish();
rollback;
