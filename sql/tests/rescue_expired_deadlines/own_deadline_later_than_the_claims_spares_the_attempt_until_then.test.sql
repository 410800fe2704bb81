-- An attempt whose own deadline (awa.set_attempt_deadline) is later than its
-- claim batch's is not closed when only the batch's has passed; at its own
-- deadline it is rescued into retryable, and its deadline-only attempt_state
-- row is deleted with it.
begin;
select plan(4);

create temp table j as select * from awa.insert_job('k', '{}', '{"queue": "red_own"}');
create temp table c as
select * from awa.claim_ready_runtime('red_own', 1, null, '2030-01-01 12:00:00+00', p_attempt_deadline => interval '10 minutes');
select outcome from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, '2030-01-01 13:00:00+00',
                                                '2030-01-01 12:00:01+00');

select is_empty($$select * from awa.rescue_expired_deadlines(1000, '2030-01-01 12:30:00+00')$$,
                'past the claim''s deadline but before its own, nothing is rescued');
select results_eq(
  $$select job_id, run_lease, outcome, state from awa.rescue_expired_deadlines(1000, '2030-01-01 13:00:01+00')$$,
  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'retryable'::awa.job_state from c$$,
  'after its own deadline the attempt is rescued into retryable');
select is((select errors -> -1 ->> 'error' from awa.jobs where id = (select id from j)), 'rescued: deadline exceeded',
          'the rescue is recorded as the attempt''s error');
select is_empty($$select * from awa.attempt_state$$, 'the attempt''s deadline, its row''s only content, is gone with it');

select * from finish();
rollback;
