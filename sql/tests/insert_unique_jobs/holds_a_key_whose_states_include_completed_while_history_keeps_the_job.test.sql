-- states may add terminal states: a key with completed holds while the
-- completed job is in history (the queue ring, then the archive), and is
-- released once history no longer has the job.
begin;
select plan(4);

create temp table j1 as
select * from awa.insert_unique_job('hist.k', '{}',
  '{"queue": "hist", "unique": {"states": ["scheduled", "available", "running", "retryable", "waiting_external", "completed"]}}');
create temp table c as select * from awa.claim_ready_runtime('hist', 1, null, now());
select awa.complete_jobs(array[(select id from c)], array[(select run_lease from c)],
                         array[(select claim_slot from c)], array[(select receipt_id from c)], now());

select results_eq(
  $$select id, state, duplicate from awa.insert_unique_job('hist.k', '{}',
      '{"queue": "hist", "unique": {"states": ["scheduled", "available", "running", "retryable", "waiting_external", "completed"]}}')$$,
  $$select id, 'completed'::awa.job_state, true from j1$$,
  'a completed holder in the queue ring: a duplicate');

-- History drops the job: its ring slot is pruned with the archive keeping no
-- completed job (retention 0).
select awa.configure_archive('{"completed_seconds": 0}');
select awa_test.turn('queue', 16, '_turn', true);
select is((select count(*) from awa.jobs where id = (select id from j1)), 0::bigint,
          'fixture: history no longer has the job');
create temp table j2 as
select * from awa.insert_unique_job('hist.k', '{}',
  '{"queue": "hist", "unique": {"states": ["scheduled", "available", "running", "retryable", "waiting_external", "completed"]}}');
select is((select duplicate from j2), false, 'a holder gone from history: a new job');
select is((select count(*) from awa.unique_released), 0::bigint, 'a holder gone from history is not recorded');

select * from finish();
rollback;
