-- retry_dlq_job takes a job out of the DLQ and makes it available again from
-- attempt 0, keeping its run_lease and its errors.
begin;
select plan(6);

create temp table c as select * from awa_test.dlq_claim('dlq.k', '{"p": 1}', '{"queue": "dlqq", "max_attempts": 1}', now());

select results_eq(
  $$select state, dlq, attempt, run_lease from awa.jobs where id = (select id from c)$$,
  $$values ('failed'::awa.job_state, true, 1, 1::bigint)$$,
  'the job is in the DLQ after attempt 1 (fixture)');

select results_eq(
  $$select id, state, queue, priority, kind, run_at from awa.retry_dlq_job((select id from c), null, now() + interval '1 minute')$$,
  $$select id, 'available'::awa.job_state, 'dlqq'::text, 2::smallint, 'dlq.k'::text, now() + interval '1 minute' from c$$,
  'retry_dlq_job returns the job as available, run_at = now');

select is((select count(*)::int from awa.dlq_entries), 0, 'the DLQ entry is gone');

select results_eq(
  $$select state, dlq, attempt, run_lease, args, errors -> 0 ->> 'error' from awa.jobs where id = (select id from c)$$,
  $$values ('available'::awa.job_state, false, 0, 1::bigint, '{"p": 1}'::jsonb, 'fatal')$$,
  'awa.jobs shows the job available at attempt 0, run_lease kept, errors kept');

select is((select count(*)::int from awa.jobs where id = (select id from c)), 1, 'the job shows once in awa.jobs');

select is((select ready_slot from awa.ready_entries where job_id = (select id from c) and run_lease = 1),
          awa._current_slot('queue'), 'the new ready row is in the current queue slot');

select * from finish();
rollback;
