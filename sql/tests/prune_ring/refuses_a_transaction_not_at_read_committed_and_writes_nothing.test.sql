-- awa.prune_ring in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though a sealed claim slot holds only closed claims;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select * from awa.insert_job(''iso_job'', ''{}'', ''{"queue": "iso"}''); select awa_test.isolation_guard(false); create temp table c as select * from awa.claim_ready_runtime(''iso'', 1); select * from awa.complete_jobs(array(select id from c), array(select run_lease from c), array(select claim_slot from c), array(select receipt_id from c)); select * from awa.rotate_ring(''claim'', now(), ''0 seconds''); select awa_test.isolation_guard(true);'
\set report 'awa_test.outcome($$select * from awa.prune_ring(''claim'', 1000, 0)$$)'
\ir ../at_each_level.psql

begin;
select plan(8);
select * from awa_test.refused_outside_read_committed('awa.prune_ring', :'rr', :'sr');
select is(:'rc'::jsonb ->> 'sqlstate', null, 'at read committed the call succeeds');
select is(:'rc'::jsonb #>> '{result,outcome}', 'pruned', 'at read committed the call truncates the slot');
select * from finish();
rollback;
