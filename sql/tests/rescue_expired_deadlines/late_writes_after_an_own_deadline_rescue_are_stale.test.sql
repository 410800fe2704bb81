-- The worker whose attempt was rescued at its own deadline finalizes, writes
-- progress or moves its deadline too late: each is stale and changes nothing.
begin;
select plan(5);

create temp table j as select * from awa.insert_job('k', '{}', '{"queue": "red_late"}');
create temp table c as select * from awa.claim_ready_runtime('red_late', 1, null, '2030-01-01 12:00:00+00');
select outcome from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, '2030-01-01 12:05:00+00',
                                                '2030-01-01 12:00:01+00');
select is((select outcome from awa.rescue_expired_deadlines(1000, '2030-01-01 12:06:00+00')), 'applied'::awa.finalize_outcome,
          'the attempt is rescued at its own deadline (fixture)');

select results_eq(
  $$select job_id, outcome from awa.complete_jobs(array[(select id from c)], array[(select run_lease from c)],
                                                  array[(select claim_slot from c)], array[(select receipt_id from c)],
                                                  '2030-01-01 12:06:01+00')$$,
  $$select id, 'stale'::awa.finalize_outcome from c$$,
  'the late complete is stale');
select awa_test.writes_nothing(
  $$select * from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"late": true}', '2030-01-01 12:06:02+00')$$,
  'a late progress write writes nothing');
select awa_test.writes_nothing(
  $$select * from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, '2030-01-01 14:00:00+00',
                                              '2030-01-01 12:06:03+00')$$,
  'a late deadline writes nothing');
select results_eq(
  $$select state, jsonb_array_length(errors) from awa.jobs where id = (select id from j)$$,
  $$values ('retryable'::awa.job_state, 1)$$,
  'the job stays retryable with only the rescue error');

select * from finish();
rollback;
