-- A job that went through several attempts (retry, promotion, new claim)
-- still shows once, with its current attempt and run_lease.
begin;
select plan(3);

create temp table j as select * from awa.insert_job('view.k', '{}', '{"queue": "vq"}');
create temp table c1 as select * from awa.claim_ready_runtime('vq', 1, null, now());
select * from awa.retry_jobs(array[(select id from c1)], array[(select run_lease from c1)], array[(select claim_slot from c1)],
                             array[(select receipt_id from c1)], array['e1'], array[now()], now());
select * from awa.promote_due_jobs(10, now());
create temp table c2 as select * from awa.claim_ready_runtime('vq', 1, null, now());

select results_eq(
  $$select state, attempt, run_lease, jsonb_array_length(errors) from awa.jobs where id = (select id from j)$$,
  $$values ('running'::awa.job_state, 2, 2::bigint, 1)$$,
  'the job shows once as running attempt 2 with run_lease 2 and one error');

select * from awa.complete_jobs(array[(select id from c2)], array[(select run_lease from c2)], array[(select claim_slot from c2)],
                                array[(select receipt_id from c2)], now());

select results_eq(
  $$select state, attempt, run_lease, errors -> 0 ->> 'error' from awa.jobs where id = (select id from j)$$,
  $$values ('completed'::awa.job_state, 2, 2::bigint, 'e1')$$,
  'after completion it shows once as completed at attempt 2, keeping the earlier error');

select is((select count(*)::int from awa.ready_entries where job_id = (select id from j)), 2,
          'while two ready rows exist for it (one per time it became runnable)');

select * from finish();
rollback;
