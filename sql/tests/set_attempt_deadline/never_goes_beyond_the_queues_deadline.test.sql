-- On a queue with deadline_seconds, the deadline recorded is at most the
-- claim time plus deadline_seconds (the operator's hard limit): a later one
-- asked for is cut there and the result says so; an earlier one is kept.
begin;
select plan(3);

select * from awa.configure_queue('sad_cap', '{"deadline_seconds": 600}');
create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "sad_cap"}', '2030-01-01 12:00:00+00');

select results_eq(
  $$select s.outcome, s.deadline_at from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id,
                                                                  '2030-01-01 14:00:00+00', '2030-01-01 12:00:01+00') s$$,
  $$values ('applied'::awa.finalize_outcome, '2030-01-01 12:10:00+00'::timestamptz)$$,
  'a deadline past the queue''s cap is recorded at the cap, as the result says');
select is((select deadline_at from awa.attempt_state), '2030-01-01 12:10:00+00'::timestamptz, 'the cap is what is recorded');
select results_eq(
  $$select s.outcome, s.deadline_at from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id,
                                                                  '2030-01-01 12:05:00+00', '2030-01-01 12:00:02+00') s$$,
  $$values ('applied'::awa.finalize_outcome, '2030-01-01 12:05:00+00'::timestamptz)$$,
  'a deadline within the cap is recorded as asked');

select * from finish();
rollback;
