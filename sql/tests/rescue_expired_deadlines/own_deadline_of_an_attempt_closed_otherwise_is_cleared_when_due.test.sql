-- An attempt that set its own deadline and then ended otherwise (its worker
-- retried it) leaves the deadline in its job's attempt_state row. It never
-- touches the job's next attempt: that one runs to its own claim's deadline.
-- When the old deadline comes due, the rescue reports the old attempt stale
-- and clears the deadline (the checkpoint stays); the next call finds nothing.
begin;
select plan(5);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "red_old"}', '2030-01-01 12:00:00+00');
select outcome from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 1}', '2030-01-01 12:00:01+00');
select outcome from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, '2030-01-01 12:05:00+00',
                                                '2030-01-01 12:00:02+00');
select outcome from c, awa.retry_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id],
                                      array['boom'], array['2030-01-01 12:00:03+00'::timestamptz], '2030-01-01 12:00:03+00');
select count(*) from awa.promote_due_jobs(1000, '2030-01-01 12:00:04+00');
create temp table c2 as
select * from awa.claim_ready_runtime('red_old', 1, null, '2030-01-01 12:00:05+00', p_attempt_deadline => interval '1 hour');
select is((select run_lease from c2), (select run_lease + 1 from c), 'the job runs again (fixture)');

select results_eq($$select job_id, run_lease, outcome from awa.rescue_expired_deadlines(1000, '2030-01-01 12:06:00+00')$$,
                  $$select id, run_lease, 'stale'::awa.finalize_outcome from c$$,
                  'past the old deadline the old attempt is reported stale, and the running one is left alone');
select results_eq($$select progress, deadline_at, deadline_run_lease from awa.attempt_state$$,
                  $$values ('{"step": 1}'::jsonb, null::timestamptz, null::bigint)$$,
                  'the old deadline is cleared, the checkpoint kept');
select is_empty($$select * from awa.rescue_expired_deadlines(1000, '2030-01-01 12:07:00+00')$$, 'the next call finds nothing');
select results_eq($$select job_id, run_lease, outcome from awa.rescue_expired_deadlines(1000, '2030-01-01 13:00:06+00')$$,
                  $$select id, run_lease, 'applied'::awa.finalize_outcome from c2$$,
                  'the running attempt is rescued at its claim''s deadline');

select * from finish();
rollback;
