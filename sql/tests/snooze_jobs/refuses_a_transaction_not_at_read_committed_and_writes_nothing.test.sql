-- awa.snooze_jobs in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though a claimed attempt is open;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set report 'awa_test.outcome_after_claim($$select * from awa.snooze_jobs(array(select id from c), array(select run_lease from c), array(select claim_slot from c), array(select receipt_id from c), array[''2031-01-01 00:00:00+00''::timestamptz])$$)'
\ir ../at_each_level.psql

begin;
select plan(8);
select * from awa_test.refused_outside_read_committed('awa.snooze_jobs', :'rr', :'sr');
select is(:'rc'::jsonb ->> 'sqlstate', null, 'at read committed the call succeeds');
select isnt(:'rc'::jsonb -> 'written', '{}'::jsonb, 'at read committed the call writes');
select * from finish();
rollback;
