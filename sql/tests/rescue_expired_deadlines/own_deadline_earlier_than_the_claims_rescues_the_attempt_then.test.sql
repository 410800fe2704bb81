-- An attempt whose own deadline is earlier than its claim batch's is
-- rescued at its own deadline, not before; its progress checkpoint stays,
-- without the deadline.
begin;
select plan(5);

select * from awa.configure_queue('red_own', '{"deadline_seconds": 3600}');
create temp table c as
select * from awa_test.claim_one('k', '{}', '{"queue": "red_own"}', '2030-01-01 12:00:00+00');
select outcome from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 1}', '2030-01-01 12:00:01+00');
select outcome from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, '2030-01-01 12:05:00+00',
                                                '2030-01-01 12:00:02+00');

select is((select deadline_at from c), '2030-01-01 13:00:00+00'::timestamptz, 'the claim''s deadline is an hour (fixture)');
select is_empty($$select * from awa.rescue_expired_deadlines(1000, '2030-01-01 12:04:59+00')$$,
                'nothing is rescued before its own deadline');
select results_eq(
  $$select job_id, outcome, state from awa.rescue_expired_deadlines(1000, '2030-01-01 12:05:01+00')$$,
  $$select id, 'applied'::awa.finalize_outcome, 'retryable'::awa.job_state from c$$,
  'after its own deadline, long before its claim''s, the attempt is rescued');
select results_eq($$select progress, deadline_at from awa.attempt_state$$, $$values ('{"step": 1}'::jsonb, null::timestamptz)$$,
                  'the checkpoint stays for the next attempt; the deadline is cleared');
select is((select state from awa.jobs where id = (select id from c)), 'retryable'::awa.job_state, 'the job is retryable');

select * from finish();
rollback;
