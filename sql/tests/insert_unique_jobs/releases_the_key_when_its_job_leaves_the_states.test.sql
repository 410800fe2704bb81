-- A key is held while its job is in the key's states (default: every
-- non-terminal state) and released when it leaves them: the next insert takes
-- the key over (one update of the key row) and records the displaced job for
-- operator retries. A holder that is running is still a duplicate.
begin;
select plan(7);

create temp table j1 as
select * from awa.insert_unique_job('rel.k', '{}', '{"queue": "rel", "unique": {}}');
create temp table c as select * from awa.claim_ready_runtime('rel', 1, null, now());
select results_eq($$select id, state, duplicate from awa.insert_unique_job('rel.k', '{}', '{"queue": "rel", "unique": {}}')$$,
                  $$select id, 'running'::awa.job_state, true from j1$$,
                  'a running holder: the insert is its duplicate');

select awa.complete_jobs(array[(select id from c)], array[(select run_lease from c)],
                         array[(select claim_slot from c)], array[(select receipt_id from c)], now());
create temp table j2 as
select * from awa.insert_unique_job('rel.k', '{}', '{"queue": "rel", "unique": {}}');
select is((select duplicate from j2), false, 'a completed holder (not in the default states): a new job');
select isnt((select id from j2), (select id from j1), 'the new job has its own id');
select is((select job_id from awa.unique_keys), (select id from j2), 'the key row names the new job');
select is((select job_id from awa.unique_released), (select id from j1),
          'the displaced job, still in history, is recorded for operator retries');

select awa.cancel_job((select id from j2));
select is((select duplicate from awa.insert_unique_job('rel.k', '{}', '{"queue": "rel", "unique": {}}')), false,
          'a cancelled holder: a new job');
select is((select count(*) from awa.jobs where kind = 'rel.k' and state in ('available', 'running', 'scheduled')),
          1::bigint, 'one job of the key in its states');

select * from finish();
rollback;
