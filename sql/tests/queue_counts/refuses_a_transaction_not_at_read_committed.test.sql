-- awa.queue_counts in a REPEATABLE READ or SERIALIZABLE transaction raises
-- AW040, naming itself and the level: a snapshot older than the call sees a
-- slot pruned since as empty, not the floors and carried jobs the prune wrote
-- (docs/storage.md, "Isolation levels"). At READ COMMITTED it counts.
\set setup 'select * from awa.insert_job(''k'', ''{}'', ''{"queue": "iso_pend"}'');'
\set report 'awa_test.outcome($$select * from awa.queue_counts(''iso_pend'')$$)'
\ir ../at_each_level.psql
begin;
select plan(8);
select * from awa_test.refused_outside_read_committed('awa.queue_counts', :'rr', :'sr');
select is(:'rc'::jsonb ->> 'sqlstate', null, 'at read committed the call succeeds');
select is((:'rc'::jsonb #>> '{result,available}')::int, 1, 'at read committed it counts the available job');
select * from finish();
rollback;
